//! The HTTP side of a server, checked from outside:
//! - transport security: HTTPS (its certificate verified by the probes' connects), or plain
//!   HTTP, which only loopback and Unix sockets should use;
//! - authorization: an unauthenticated request's `WWW-Authenticate`, the Protected Resource
//!   Metadata (RFC 9728; 2025-11-25 basic/authorization, "Authorization Server Discovery"), its
//!   `resource` against the URL, and the authorization server's metadata (RFC 8414: `issuer`,
//!   PKCE `S256`, a way to register);
//! - DNS rebinding: a request with a foreign `Origin` must get 403 (2025-11-25
//!   basic/transports, "Security Warning": "Servers MUST validate the Origin header on all
//!   incoming connections"; 2026-07-28 streamable-http, "Endpoint and security").

use super::revisions::Spoken;
use super::{is_loopback, Finding, Status};
use crate::auth::challenge::OAuthChallenge;
use crate::auth::metadata::{check_resource, protected_resource_urls, ProtectedResourceMetadata};
use crate::http::client::HttpOptions;
use crate::ProtocolVersion;
use reqwest::{StatusCode, Url};
use serde_json::json;
use std::time::Duration;

/// The largest metadata document read.
const MAX_DOC: usize = 256 * 1024;

/// The foreign origin a DNS-rebinding page would send.
const EVIL: &str = "evil.example";

/// The findings of every HTTP check.
pub(super) async fn check(url: &str, http: &HttpOptions, spoken: &Spoken, timeout: Duration) -> Vec<Finding> {
    let mut http = http.clone();
    let endpoint = match http.through_unix_socket(url) {
        Ok(e) => e,
        Err(e) => return vec![Finding::new("http", Status::Fail, e.message().to_owned())],
    };
    let unix = http.unix_socket.is_some();
    let Ok(parsed) = Url::parse(&endpoint) else {
        return vec![Finding::new("http", Status::Fail, format!("{url} is not a URL"))];
    };
    let build = |through_socket: bool| -> crate::Result<reqwest::Client> {
        let b = http.tls.builder()?.timeout(timeout).redirect(reqwest::redirect::Policy::none());
        #[cfg(unix)]
        let b = match (&http.unix_socket, through_socket) {
            (Some(path), true) => b.unix_socket(path.as_path()),
            _ => b,
        };
        #[cfg(not(unix))]
        let _ = through_socket;
        b.build().map_err(|e| crate::Error::invalid_input(format!("cannot build the HTTP client: {e}")))
    };
    let (local, outside) = match (build(true), build(false)) {
        (Ok(l), Ok(o)) => (l, o),
        (Err(e), _) | (_, Err(e)) => return vec![Finding::new("http", Status::Fail, e.message().to_owned())],
    };
    let probe = Probe { http: &http, local: &local, endpoint: parsed.clone(), spoken };
    vec![
        security(&parsed, unix, spoken),
        authorization(&probe, &outside).await,
        rebinding(&probe, unix).await,
    ]
}

/// What the requests of these checks share.
struct Probe<'a> {
    http: &'a HttpOptions,
    /// Reaches the endpoint (through the Unix socket, if any).
    local: &'a reqwest::Client,
    endpoint: Url,
    spoken: &'a Spoken,
}

impl Probe<'_> {
    /// A POST of the newest revision's first request (`server/discover` or `initialize`).
    fn post(&self, credentials: bool) -> (reqwest::RequestBuilder, bool) {
        let modern = self.spoken.versions.first().is_none_or(|v| v.is_modern());
        let version = self.spoken.versions.first().copied().unwrap_or(ProtocolVersion::LATEST);
        let body = if modern {
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
                "io.modelcontextprotocol/protocolVersion": version.as_str(),
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "mcpcore-doctor", "version": env!("CARGO_PKG_VERSION")}}}})
        } else {
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": version.as_str(),
                "capabilities": {}, "clientInfo": {"name": "mcpcore-doctor", "version": env!("CARGO_PKG_VERSION")}}})
        };
        let mut rb = self
            .local
            .post(self.endpoint.clone())
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .header("mcp-protocol-version", version.as_str());
        if modern {
            rb = rb.header("mcp-method", "server/discover");
        }
        if credentials {
            rb = self.http.apply(rb);
        } else {
            for (k, v) in &self.http.headers {
                if !k.eq_ignore_ascii_case("authorization") {
                    rb = rb.header(k.as_str(), v.as_str());
                }
            }
        }
        (rb.body(body.to_string()), !modern)
    }

    /// Ends a legacy session a probe started (best effort).
    async fn end_session(&self, resp: &reqwest::Response) {
        if let Some(id) = resp.headers().get("mcp-session-id").cloned() {
            let _ = self
                .http
                .apply(self.local.delete(self.endpoint.clone()))
                .header("mcp-session-id", id)
                .send()
                .await;
        }
    }
}

fn security(url: &Url, unix: bool, spoken: &Spoken) -> Finding {
    const CHECK: &str = "transport security";
    let tls_failure = spoken.errors.iter().find(|e| {
        let e = e.to_ascii_lowercase();
        e.contains("certificate") || e.contains("tls") || e.contains("handshake")
    });
    if let Some(e) = tls_failure {
        return Finding::new(CHECK, Status::Fail, "the TLS handshake failed")
            .details(vec![e.clone()])
            .remedy(
                "serve a certificate chain for this host name, signed by a CA the clients trust, with its \
             intermediates (or pass --ca-cert for a private CA)",
            );
    }
    if spoken.versions.is_empty() {
        return Finding::new(CHECK, Status::Skip, "no probe connected");
    }
    if unix {
        return Finding::new(CHECK, Status::Ok, "a Unix domain socket (reachable only on this machine)");
    }
    match (url.scheme(), is_loopback(url)) {
        ("https", _) => Finding::new(CHECK, Status::Ok, "HTTPS, the certificate chain and name verified"),
        (_, true) => Finding::new(CHECK, Status::Ok, "plain HTTP on loopback"),
        _ => Finding::new(CHECK, Status::Warn, format!("plain HTTP to {}", url.host_str().unwrap_or("?")))
            .remedy(
                "serve HTTPS: over plain HTTP, tokens, arguments and results travel unencrypted (2025-11-25 \
             basic/authorization, \"Communication Security\")",
            ),
    }
}

/// GETs a JSON document: `Ok(None)` when not found.
async fn get_json<T: serde::de::DeserializeOwned>(
    client: &reqwest::Client,
    url: &Url,
) -> Result<Option<T>, String> {
    let resp = client
        .get(url.clone())
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    if matches!(resp.status(), StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED) {
        return Ok(None);
    }
    if !resp.status().is_success() {
        return Err(format!("{url}: HTTP {}", resp.status().as_u16()));
    }
    let body = crate::auth::client::discovery::read_limited(resp, MAX_DOC)
        .await
        .map_err(|e| format!("{url}: {e}"))?;
    serde_json::from_slice(&body).map(Some).map_err(|e| format!("{url}: not the expected JSON document: {e}"))
}

async fn authorization(p: &Probe<'_>, outside: &reqwest::Client) -> Finding {
    const CHECK: &str = "authorization";
    let (rb, legacy) = p.post(false);
    let (status, challenge) = match rb.send().await {
        Ok(resp) => {
            if legacy {
                p.end_session(&resp).await;
            }
            let values: Vec<String> = resp
                .headers()
                .get_all("www-authenticate")
                .iter()
                .filter_map(|v| v.to_str().ok().map(str::to_owned))
                .collect();
            (resp.status().as_u16(), OAuthChallenge::from_headers(values.iter().map(String::as_str)))
        }
        Err(e) => return Finding::new(CHECK, Status::Skip, format!("the endpoint did not answer: {e}")),
    };
    let mut details = vec![format!("a request without credentials: HTTP {status}")];
    // The PRM: where the challenge points, else the well-known URLs (RFC 9728 §3.1).
    let mut candidates = Vec::new();
    if let Some(u) = challenge.resource_metadata.as_deref().and_then(|u| Url::parse(u).ok()) {
        candidates.push(u);
    }
    candidates.extend(protected_resource_urls(&p.endpoint));
    let mut prm = None;
    for u in &candidates {
        let client =
            if u.host() == p.endpoint.host() && u.port() == p.endpoint.port() { p.local } else { outside };
        match get_json::<ProtectedResourceMetadata>(client, u).await {
            Ok(Some(doc)) => {
                details.push(format!("protected resource metadata: {u}"));
                prm = Some(doc);
                break;
            }
            Ok(None) => {}
            Err(e) => details.push(e),
        }
    }
    let Some(prm) = prm else {
        return match status {
            401 => Finding::new(CHECK, Status::Fail, "asks for credentials (401) but publishes no protected resource metadata")
                .details(details)
                .remedy(
                    "publish RFC 9728 metadata at /.well-known/oauth-protected-resource (plus the endpoint's path) \
                     and name it in WWW-Authenticate: Bearer resource_metadata=\"...\" (2025-11-25 \
                     basic/authorization, \"Authorization Server Discovery\"); without it clients cannot find \
                     the authorization server",
                ),
            _ => Finding::new(CHECK, Status::Info, "none: the server answers without credentials").details(details),
        };
    };
    if status == 401 && challenge.resource_metadata.is_none() {
        details.push(
            "the 401 challenge does not name resource_metadata (clients fall back to the well-known URL)"
                .into(),
        );
    }
    if let Err(e) = check_resource(&prm, &p.endpoint) {
        return Finding::new(CHECK, Status::Fail, "the metadata's resource does not cover this URL")
            .details([details, vec![e.to_string()]].concat())
            .remedy(format!(
                "set the PRM's \"resource\" to this server's canonical URI ({}): clients refuse metadata \
                 for another resource (RFC 9728 §3.3)",
                crate::auth::metadata::canonical_resource(&p.endpoint)
            ));
    }
    let Some(issuer) = prm.authorization_servers.first() else {
        return Finding::new(CHECK, Status::Fail, "the metadata lists no authorization server")
            .details(details)
            .remedy("list the issuer in \"authorization_servers\" (RFC 9728 §2)");
    };
    // What our own client fetches and checks (auth::client::discovery): the first metadata URL
    // that answers, its `issuer` compared exactly.
    let metadata = match crate::auth::client::discovery::authorization_server(outside, issuer, None).await {
        Ok(m) => m,
        Err(e) => {
            let e = e.to_string();
            return Finding::new(
                CHECK,
                Status::Fail,
                format!("the authorization server {issuer} has no usable metadata"),
            )
            .details([details, vec![e]].concat())
            .remedy(
                "publish RFC 8414 metadata (/.well-known/oauth-authorization-server) or OpenID Connect \
                     discovery at the issuer, with \"issuer\" exactly the issuer URL",
            );
        }
    };
    if let Err(e) = metadata.check_pkce() {
        return Finding::new(CHECK, Status::Fail, format!("{issuer} does not offer PKCE with S256"))
            .details([details, vec![e.to_string()]].concat())
            .remedy("list S256 in code_challenge_methods_supported: MCP clients must refuse an authorization server without it");
    }
    let registration = match (&metadata.registration_endpoint, metadata.client_id_metadata_document_supported)
    {
        (_, Some(true)) => "client ID metadata documents",
        (Some(_), _) => "dynamic client registration",
        (None, _) => "",
    };
    details.push(format!("authorization server: {issuer}"));
    if let Some(algs) = prm.extra.get("dpop_signing_alg_values_supported") {
        details.push(format!("DPoP: {algs}"));
    }
    if registration.is_empty() {
        return Finding::new(CHECK, Status::Warn, format!("{issuer}: clients must be registered by hand"))
            .details(details)
            .remedy(
                "offer client ID metadata documents (client_id_metadata_document_supported) or dynamic \
                 client registration (registration_endpoint), or tell users the client id to configure",
            );
    }
    Finding::new(CHECK, Status::Ok, format!("OAuth through {issuer}: PKCE S256, {registration}"))
        .details(details)
}

/// Sends the probe request with extra headers; the status and whether it was served.
async fn try_foreign(p: &Probe<'_>, headers: &[(&str, String)]) -> Result<u16, String> {
    let (mut rb, legacy) = p.post(true);
    for (k, v) in headers {
        rb = rb.header(*k, v.as_str());
    }
    let resp = rb.send().await.map_err(|e| e.to_string())?;
    if legacy {
        p.end_session(&resp).await;
    }
    Ok(resp.status().as_u16())
}

async fn rebinding(p: &Probe<'_>, unix: bool) -> Finding {
    const CHECK: &str = "dns rebinding";
    if unix {
        return Finding::new(CHECK, Status::Skip, "a Unix socket is out of a browser's reach");
    }
    let origin = format!("http://{EVIL}");
    let remedy = "validate Origin on every request and answer 403 to one you do not serve (2025-11-25 \
                  basic/transports, \"Security Warning\"); bind a local server to 127.0.0.1 and accept only \
                  its loopback names as Host";
    let status = match try_foreign(p, &[("origin", origin.clone())]).await {
        Ok(s) => s,
        Err(e) => return Finding::new(CHECK, Status::Skip, format!("the endpoint did not answer: {e}")),
    };
    let details = vec![format!("Origin: {origin} -> HTTP {status}")];
    match status {
        403 => {}
        200..=299 => {
            return Finding::new(CHECK, Status::Fail, format!("served a request with Origin: {origin}"))
                .details(details)
                .remedy(remedy)
        }
        401 => {
            return Finding::new(CHECK, Status::Skip, "asked for credentials before checking Origin (401)")
                .details(details)
                .remedy("pass --bearer TOKEN so the request reaches the Origin check")
        }
        s => {
            return Finding::new(
                CHECK,
                Status::Warn,
                format!("answered HTTP {s} to a foreign Origin, not 403"),
            )
            .details(details)
            .remedy(remedy)
        }
    }
    // A page of evil.example whose name now resolves to 127.0.0.1 sends `Host: evil.example`.
    if !is_loopback(&p.endpoint) {
        return Finding::new(CHECK, Status::Ok, format!("refused Origin: {origin} (403)")).details(details);
    }
    let host = format!("{EVIL}:{}", p.endpoint.port_or_known_default().unwrap_or(80));
    let mut details = details;
    match try_foreign(p, &[("host", host.clone())]).await {
        Ok(s @ 200..=299) => {
            details.push(format!("Host: {host} -> HTTP {s}"));
            Finding::new(CHECK, Status::Warn, format!("refused a foreign Origin but served Host: {host}"))
                .details(details)
                .remedy(remedy)
        }
        Ok(s) => {
            details.push(format!("Host: {host} -> HTTP {s}"));
            Finding::new(CHECK, Status::Ok, "refused a foreign Origin (403) and a foreign Host")
                .details(details)
        }
        Err(e) => {
            details.push(format!("Host: {host} -> {e}"));
            Finding::new(CHECK, Status::Ok, "refused a foreign Origin (403)").details(details)
        }
    }
}
