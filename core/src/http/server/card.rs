//! The Server Card (SEP-2127, `io.modelcontextprotocol/server-card`; the wire format of the
//! experimental-ext-server-card repository, `docs/discovery.md` and `schema.ts` at 8924e08,
//! 2026-07-24, which the SEP defers to): `GET <endpoint>/server-card` answers a public JSON
//! document describing the server before any connection, as
//! `application/mcp-server-card+json`, with CORS (`Access-Control-Allow-Origin: *`, "MUST
//! include"), `Cache-Control: public, max-age=3600`, a strong `ETag` and `304` on a matching
//! `If-None-Match`. An `OPTIONS` preflight gets `204` with the same CORS headers.
//!
//! The card is built from the server's `Implementation` (name, version, title, description,
//! website, icons) and the endpoint the request reached (`remotes`: Streamable HTTP, and the
//! 2024-11-05 SSE transport when that revision is served, each with its protocol versions). It
//! carries no credentials and nothing per session ("public by design"); it is served outside
//! the authorization gate and the DNS-rebinding guard, as a cross-origin document must be.

use super::State;
use crate::protocol::ProtocolVersion;
use axum::body::Body;
use axum::extract::State as Shared;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The card's media type.
pub const MEDIA_TYPE: &str = "application/mcp-server-card+json";
/// The `$schema` every card names (schema.ts: the only value its pattern admits).
pub const SCHEMA: &str = "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// The path of the card below the endpoint ("we reserve for this purpose").
pub const SUFFIX: &str = "/server-card";

/// `GET <endpoint>/server-card`.
pub(crate) async fn get(Shared(st): Shared<Arc<State>>, headers: HeaderMap) -> Response {
    cached(serde_json::to_vec(&card(&st, &headers)).unwrap_or_default(), MEDIA_TYPE, &headers)
}

/// `OPTIONS <endpoint>/server-card`: a CORS preflight.
pub(crate) async fn preflight() -> Response {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    cors(r.headers_mut());
    r
}

/// The CORS headers discovery.md requires.
fn cors(h: &mut HeaderMap) {
    h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET"));
    h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, HeaderValue::from_static("Content-Type, If-None-Match"));
    h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("ETag"));
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The AI Catalog's media type (discovery.md "Well-Known URI").
pub const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";
/// Where a host publishes its AI Catalog for domain-level discovery (discovery.md).
pub const CATALOG_PATH: &str = "/.well-known/ai-catalog.json";
/// The path an earlier draft named (and issue 34 asks for); the same document.
pub const CATALOG_PATH_MCP: &str = "/.well-known/mcp/catalog.json";

/// `GET /.well-known/ai-catalog.json`: an AI Catalog with one entry, this endpoint's card
/// (`identifier` `urn:air:{host}:mcp:{name}`, `url` the card's), so that a client that knows only
/// the host finds the server. Same CORS, caching and ETag rules as the card.
pub(crate) async fn catalog(Shared(st): Shared<Arc<State>>, headers: HeaderMap) -> Response {
    let card = card(&st, &headers);
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    let scheme = if st.config.tls.is_some() { "https" } else { "http" };
    let name = card["name"].as_str().unwrap_or_default();
    let (publisher, short) = name.split_once('/').unwrap_or(("localhost", name));
    let body = json!({
        "specVersion": "1.0",
        "entries": [{
            "identifier": format!("urn:air:{publisher}:mcp:{short}"),
            "type": MEDIA_TYPE,
            "url": format!("{scheme}://{host}{}{SUFFIX}", st.config.path.trim_end_matches('/')),
        }],
    });
    cached(serde_json::to_vec(&body).unwrap_or_default(), CATALOG_MEDIA_TYPE, &headers)
}

/// A public JSON document with CORS, `Cache-Control` and a strong `ETag` (`304` on a match).
fn cached(body: Vec<u8>, media_type: &'static str, headers: &HeaderMap) -> Response {
    let etag = format!("\"{}\"", hex(&Sha256::digest(&body)));
    let matched = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == etag || t.trim() == "*");
    let mut r = if matched {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(Body::from(body));
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
        r
    };
    let h = r.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&etag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=3600"));
    cors(h);
    r
}

/// The card for a request with `headers` (its `Host` names the remotes).
fn card(st: &State, headers: &HeaderMap) -> Value {
    let cfg = st.env.engine.config();
    let info = &cfg.info;
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("localhost");
    let scheme = if st.config.tls.is_some() { "https" } else { "http" };
    let clip = |s: &str| s.chars().take(100).collect::<String>();
    // `description` is required (1..=100 characters).
    let description = info.description.as_deref().or(info.title.as_deref()).unwrap_or(&info.name);
    let mut card = json!({
        "$schema": SCHEMA,
        "name": card_name(&info.name, host),
        "version": info.version,
        "description": clip(description),
    });
    if let Some(t) = &info.title {
        card["title"] = json!(clip(t));
    }
    if let Some(w) = &info.website_url {
        card["websiteUrl"] = json!(w);
    }
    if let Some(icons) = &info.icons {
        card["icons"] = json!(icons);
    }
    let versions = |modern_too: bool| -> Vec<&str> {
        cfg.versions
            .iter()
            .filter(|v| modern_too || **v == ProtocolVersion::V2024_11_05)
            .map(|v| v.as_str())
            .collect()
    };
    let base = format!("{scheme}://{host}");
    let mut remotes = vec![json!({
        "type": "streamable-http",
        "url": format!("{base}{}", st.config.path),
        "supportedProtocolVersions": versions(true).into_iter().filter(|v| *v != "2024-11-05").collect::<Vec<_>>(),
    })];
    if st.serves_2024() {
        remotes.push(json!({
            "type": "sse",
            "url": format!("{base}{}", st.config.sse_path),
            "supportedProtocolVersions": versions(false),
        }));
    }
    card["remotes"] = json!(remotes);
    card
}

/// The card's `name` (`namespace/name`, schema.ts `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`): the
/// server's name when it already has that form, else the request's host (without its port) as
/// the namespace, `localhost` when that does not fit, and the server's name with other
/// characters replaced by `-`.
pub(crate) fn card_name(name: &str, host: &str) -> String {
    let ns_ok =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    let name_ok =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    if let Some((ns, n)) = name.split_once('/') {
        if ns_ok(ns) && name_ok(n) {
            return name.to_owned();
        }
    }
    let hostname = if host.starts_with('[') { "" } else { host.rsplit_once(':').map_or(host, |(h, _)| h) };
    let ns = if ns_ok(hostname) { hostname } else { "localhost" };
    let mut n: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '-' }).collect();
    if n.is_empty() {
        n = "server".into();
    }
    format!("{ns}/{n}")
}

#[cfg(test)]
mod tests {
    use super::card_name;

    #[test]
    fn card_names_have_a_namespace() {
        assert_eq!(card_name("example-org/weather", "x:1"), "example-org/weather");
        assert_eq!(card_name("mcpcore-echo", "127.0.0.1:8080"), "127.0.0.1/mcpcore-echo");
        assert_eq!(card_name("my server", "mcp.example.com"), "mcp.example.com/my-server");
        assert_eq!(card_name("x", "[::1]:80"), "localhost/x");
        assert_eq!(card_name("", "h"), "h/server");
    }
}
