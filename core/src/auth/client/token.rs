//! Token endpoint requests. The standard grants (authorization code with PKCE, refresh token,
//! client credentials) go through the `oauth2` crate; the two assertion grants MCP extensions
//! use (RFC 7523 JWT bearer, RFC 8693 token exchange) are plain form posts. Every request
//! travels through [`TokenEndpoint::execute`], which adds a DPoP proof when the client uses
//! DPoP, retries once on `use_dpop_nonce` (RFC 9449 §8) and keeps the HTTP status for errors.

use super::dpop::{random_id, DpopKey, Nonces};
use crate::auth::AuthError;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use oauth2::basic::{BasicClient, BasicErrorResponse, BasicTokenResponse};
use oauth2::{
    AuthType, AuthorizationCode, ClientId, ClientSecret, PkceCodeVerifier, RedirectUrl, RefreshToken,
    RequestTokenError, Scope, TokenResponse as _, TokenUrl,
};
use reqwest::Url;
use serde::Deserialize;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

/// Largest token endpoint response read.
const MAX_BODY: usize = 1024 * 1024;

/// Seconds since the Unix epoch.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

/// How the client authenticates at a token endpoint.
#[derive(Clone)]
pub(crate) enum Credential {
    /// `none`: the client id in the body.
    Public(String),
    /// `client_secret_basic`.
    Basic(String, String),
    /// `client_secret_post`.
    Post(String, String),
    /// `private_key_jwt` (RFC 7523 §2.2), with the assertion's audience.
    Jwt { client_id: String, key: EncodingKey, algorithm: Algorithm, audience: String },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (kind, id) = match self {
            Credential::Public(id) => ("none", id),
            Credential::Basic(id, _) => ("client_secret_basic", id),
            Credential::Post(id, _) => ("client_secret_post", id),
            Credential::Jwt { client_id, .. } => ("private_key_jwt", client_id),
        };
        write!(f, "{kind}({id})")
    }
}

impl Credential {
    pub(crate) fn client_id(&self) -> &str {
        match self {
            Credential::Public(id) | Credential::Basic(id, _) | Credential::Post(id, _) => id,
            Credential::Jwt { client_id, .. } => client_id,
        }
    }

    /// Parses a PEM private key for `private_key_jwt`: EC P-256 (`ES256`) or RSA (`RS256`)
    /// unless `algorithm` names another of the same family.
    pub(crate) fn private_key_jwt(
        client_id: &str,
        pem: &str,
        algorithm: Option<&str>,
        audience: &str,
    ) -> Result<Credential, AuthError> {
        let bad = |why: String| AuthError::new(AuthError::INVALID_CONFIG, why);
        let alg = match algorithm {
            Some(a) => Some(a.parse::<Algorithm>().map_err(|_| bad(format!("unknown JWS algorithm {a:?}")))?),
            None => None,
        };
        let (key, algorithm) = match alg {
            Some(a @ (Algorithm::ES256 | Algorithm::ES384)) => {
                (EncodingKey::from_ec_pem(pem.as_bytes()).map_err(|e| bad(format!("bad EC key: {e}")))?, a)
            }
            Some(
                a @ (Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512),
            ) => (
                EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|e| bad(format!("bad RSA key: {e}")))?,
                a,
            ),
            Some(a) => return Err(bad(format!("{a:?} is not usable for private_key_jwt"))),
            None => match EncodingKey::from_ec_pem(pem.as_bytes()) {
                Ok(k) => (k, Algorithm::ES256),
                Err(_) => (
                    EncodingKey::from_rsa_pem(pem.as_bytes())
                        .map_err(|e| bad(format!("the private key is neither EC nor RSA PEM: {e}")))?,
                    Algorithm::RS256,
                ),
            },
        };
        Ok(Credential::Jwt { client_id: client_id.to_owned(), key, algorithm, audience: audience.to_owned() })
    }

    /// The `client_assertion` of `private_key_jwt`: `iss` = `sub` = client id, `aud` = the
    /// authorization server's issuer, five minutes of validity.
    fn assertion(&self) -> Result<Option<String>, AuthError> {
        let Credential::Jwt { client_id, key, algorithm, audience } = self else { return Ok(None) };
        let now = now_secs();
        let claims = serde_json::json!({
            "iss": client_id, "sub": client_id, "aud": audience,
            "jti": random_id(16), "iat": now, "exp": now + 300,
        });
        jsonwebtoken::encode(&Header::new(*algorithm), &claims, key).map(Some).map_err(|e| {
            AuthError::new(AuthError::INVALID_CONFIG, format!("cannot sign the client assertion: {e}"))
        })
    }
}

/// What a token endpoint issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Issued {
    pub(crate) access_token: String,
    /// `Bearer` or `DPoP` (normalized), or what the server said.
    pub(crate) token_type: String,
    pub(crate) expires_in: Option<u64>,
    pub(crate) refresh_token: Option<String>,
    pub(crate) scope: Option<String>,
    /// RFC 8693 `issued_token_type`.
    pub(crate) issued_token_type: Option<String>,
}

fn normalize_type(t: &str) -> String {
    if t.eq_ignore_ascii_case("bearer") {
        "Bearer".into()
    } else if t.eq_ignore_ascii_case("dpop") {
        "DPoP".into()
    } else {
        t.to_owned()
    }
}

#[derive(Deserialize)]
struct RawTokenResponse {
    access_token: String,
    #[serde(default)]
    token_type: Option<String>,
    #[serde(default)]
    expires_in: Option<serde_json::Value>,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    issued_token_type: Option<String>,
}

#[derive(Deserialize)]
struct RawError {
    error: String,
    #[serde(default)]
    error_description: Option<String>,
    #[serde(default)]
    error_uri: Option<String>,
}

/// The transport failure of a token request (for the `oauth2` crate's HTTP client trait).
#[derive(Debug)]
pub(crate) struct TransportError(String);

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TransportError {}

/// One authorization server's token endpoint. It owns what it needs (no borrowed lifetimes: it
/// is the `oauth2` crate's HTTP client, whose futures must be `Send` in spawned tasks).
pub(crate) struct TokenEndpoint {
    http: reqwest::Client,
    url: Url,
    dpop: Option<Arc<DpopKey>>,
    nonces: Arc<Nonces>,
    /// The status of the last response (the `oauth2` crate's errors do not keep it).
    last_status: Mutex<Option<u16>>,
}

impl<'c> oauth2::AsyncHttpClient<'c> for TokenEndpoint {
    type Error = TransportError;
    type Future = crate::future::BoxFuture<'c, Result<oauth2::HttpResponse, TransportError>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(self.execute(request))
    }
}

impl TokenEndpoint {
    pub(crate) fn new(
        http: &reqwest::Client,
        url: Url,
        dpop: Option<Arc<DpopKey>>,
        nonces: Arc<Nonces>,
    ) -> Self {
        TokenEndpoint { http: http.clone(), url, dpop, nonces, last_status: Mutex::new(None) }
    }

    /// Sends one token request (a form POST built by `oauth2` or by us): adds the DPoP proof,
    /// retries once with the server's nonce on `use_dpop_nonce`.
    async fn execute(&self, req: oauth2::HttpRequest) -> Result<oauth2::HttpResponse, TransportError> {
        let (parts, body) = req.into_parts();
        let url =
            Url::parse(&parts.uri.to_string()).map_err(|e| TransportError(format!("bad token URL: {e}")))?;
        let mut nonce_retry = false;
        loop {
            let mut rb = self.http.request(parts.method.clone(), url.clone()).body(body.clone());
            for (k, v) in &parts.headers {
                rb = rb.header(k, v);
            }
            if let Some(key) = &self.dpop {
                let proof = key
                    .proof("POST", &url, None, self.nonces.get(&url).as_deref(), now_secs())
                    .map_err(TransportError)?;
                rb = rb.header("DPoP", proof);
            }
            let resp = rb.send().await.map_err(|e| TransportError(format!("POST {url} failed: {e}")))?;
            let status = resp.status();
            let headers = resp.headers().clone();
            let bytes = super::discovery::read_limited(resp, MAX_BODY).await.map_err(TransportError)?;
            *self.last_status.lock().expect("lock") = Some(status.as_u16());
            if let Some(n) = headers.get("dpop-nonce").and_then(|v| v.to_str().ok()) {
                let changed = self.nonces.set(&url, n);
                let asks = status == reqwest::StatusCode::BAD_REQUEST
                    && serde_json::from_slice::<RawError>(&bytes).is_ok_and(|e| e.error == "use_dpop_nonce");
                if asks && self.dpop.is_some() && !nonce_retry && changed {
                    nonce_retry = true;
                    continue;
                }
            }
            let mut out = http::Response::builder().status(status.as_u16());
            for (k, v) in &headers {
                out = out.header(k, v);
            }
            return out.body(bytes).map_err(|e| TransportError(e.to_string()));
        }
    }

    fn status(&self) -> Option<u16> {
        *self.last_status.lock().expect("lock")
    }

    fn oauth2_client(
        &self,
        cred: &Credential,
    ) -> oauth2::Client<
        BasicErrorResponse,
        BasicTokenResponse,
        oauth2::basic::BasicTokenIntrospectionResponse,
        oauth2::StandardRevocableToken,
        oauth2::basic::BasicRevocationErrorResponse,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointNotSet,
        oauth2::EndpointSet,
    > {
        let client = BasicClient::new(ClientId::new(cred.client_id().to_owned()))
            .set_token_uri(TokenUrl::from_url(self.url.clone()));
        match cred {
            Credential::Basic(_, s) => {
                client.set_client_secret(ClientSecret::new(s.clone())).set_auth_type(AuthType::BasicAuth)
            }
            Credential::Post(_, s) => {
                client.set_client_secret(ClientSecret::new(s.clone())).set_auth_type(AuthType::RequestBody)
            }
            Credential::Public(_) | Credential::Jwt { .. } => client.set_auth_type(AuthType::RequestBody),
        }
    }

    fn map_oauth2(
        &self,
        r: Result<BasicTokenResponse, RequestTokenError<TransportError, BasicErrorResponse>>,
    ) -> Result<Issued, AuthError> {
        let status = self.status();
        match r {
            Ok(t) => Ok(Issued {
                access_token: t.access_token().secret().clone(),
                token_type: normalize_type(t.token_type().as_ref()),
                expires_in: t.expires_in().map(|d| d.as_secs()),
                refresh_token: t.refresh_token().map(|r| r.secret().clone()),
                scope: t.scopes().map(|s| s.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" ")),
                issued_token_type: None,
            }),
            Err(RequestTokenError::ServerResponse(e)) => Err(AuthError {
                error: e.error().as_ref().to_owned(),
                description: e.error_description().cloned(),
                uri: e.error_uri().cloned(),
                status,
                challenge: None,
            }),
            Err(RequestTokenError::Request(e)) => Err(AuthError::new(AuthError::INVALID_RESPONSE, e.0)),
            Err(RequestTokenError::Parse(e, body)) => Err(invalid(status, &format!("{e}"), &body)),
            Err(RequestTokenError::Other(why)) => Err(invalid(status, &why, b"")),
        }
    }

    fn jwt_params(cred: &Credential) -> Result<Vec<(&'static str, String)>, AuthError> {
        Ok(match cred.assertion()? {
            Some(a) => vec![
                (
                    "client_assertion_type",
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_owned(),
                ),
                ("client_assertion", a),
            ],
            None => Vec::new(),
        })
    }

    /// `grant_type=authorization_code` with the PKCE verifier and the RFC 8707 resource.
    pub(crate) async fn exchange_code(
        &self,
        cred: &Credential,
        code: String,
        verifier: String,
        redirect_uri: &str,
        resource: Option<&str>,
    ) -> Result<Issued, AuthError> {
        let redirect = RedirectUrl::new(redirect_uri.to_owned())
            .map_err(|e| AuthError::new(AuthError::INVALID_CONFIG, format!("bad redirect URI: {e}")))?;
        let client = self.oauth2_client(cred).set_redirect_uri(redirect);
        let mut req = client
            .exchange_code(AuthorizationCode::new(code))
            .set_pkce_verifier(PkceCodeVerifier::new(verifier));
        if let Some(r) = resource {
            req = req.add_extra_param("resource", r.to_owned());
        }
        for (k, v) in Self::jwt_params(cred)? {
            req = req.add_extra_param(k, v);
        }
        self.map_oauth2(req.request_async(self).await)
    }

    /// `grant_type=refresh_token` (the scope is not widened: RFC 6749 §6).
    pub(crate) async fn refresh(
        &self,
        cred: &Credential,
        refresh_token: &str,
        resource: Option<&str>,
    ) -> Result<Issued, AuthError> {
        let client = self.oauth2_client(cred);
        let token = RefreshToken::new(refresh_token.to_owned());
        let mut req = client.exchange_refresh_token(&token);
        if let Some(r) = resource {
            req = req.add_extra_param("resource", r.to_owned());
        }
        for (k, v) in Self::jwt_params(cred)? {
            req = req.add_extra_param(k, v);
        }
        self.map_oauth2(req.request_async(self).await)
    }

    /// `grant_type=client_credentials`.
    pub(crate) async fn client_credentials(
        &self,
        cred: &Credential,
        scopes: &[String],
        resource: Option<&str>,
    ) -> Result<Issued, AuthError> {
        let client = self.oauth2_client(cred);
        let mut req = client.exchange_client_credentials();
        for s in scopes {
            req = req.add_scope(Scope::new(s.clone()));
        }
        if let Some(r) = resource {
            req = req.add_extra_param("resource", r.to_owned());
        }
        for (k, v) in Self::jwt_params(cred)? {
            req = req.add_extra_param(k, v);
        }
        self.map_oauth2(req.request_async(self).await)
    }

    /// A grant the `oauth2` crate does not model (RFC 7523 JWT bearer, RFC 8693 token
    /// exchange): `params` plus the client authentication, as a form.
    pub(crate) async fn form_grant(
        &self,
        cred: Option<&Credential>,
        mut params: Vec<(&'static str, String)>,
    ) -> Result<Issued, AuthError> {
        let mut rb = http::Request::builder()
            .method(http::Method::POST)
            .uri(self.url.as_str())
            .header(http::header::ACCEPT, "application/json")
            .header(http::header::CONTENT_TYPE, "application/x-www-form-urlencoded");
        match cred {
            Some(Credential::Basic(id, secret)) => {
                // RFC 6749 §2.3.1: each part form-urlencoded before base64.
                let enc = |s: &str| url_form(s);
                let b64 = STANDARD.encode(format!("{}:{}", enc(id), enc(secret)));
                rb = rb.header(http::header::AUTHORIZATION, format!("Basic {b64}"));
            }
            Some(Credential::Post(id, secret)) => {
                params.push(("client_id", id.clone()));
                params.push(("client_secret", secret.clone()));
            }
            Some(Credential::Public(id)) => params.push(("client_id", id.clone())),
            Some(c @ Credential::Jwt { .. }) => params.extend(Self::jwt_params(c)?),
            None => {}
        }
        let body: String = params
            .iter()
            .map(|(k, v)| format!("{}={}", url_form(k), url_form(v)))
            .collect::<Vec<_>>()
            .join("&");
        let req = rb
            .body(body.into_bytes())
            .map_err(|e| AuthError::new(AuthError::INVALID_CONFIG, e.to_string()))?;
        let resp = self.execute(req).await.map_err(|e| AuthError::new(AuthError::INVALID_RESPONSE, e.0))?;
        let status = resp.status().as_u16();
        let body = resp.body();
        if status == 200 {
            let raw: RawTokenResponse =
                serde_json::from_slice(body).map_err(|e| invalid(Some(status), &e.to_string(), body))?;
            return Ok(Issued {
                access_token: raw.access_token,
                token_type: raw.token_type.as_deref().map(normalize_type).unwrap_or_else(|| "Bearer".into()),
                expires_in: raw.expires_in.and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok())),
                refresh_token: raw.refresh_token,
                scope: raw.scope,
                issued_token_type: raw.issued_token_type,
            });
        }
        match serde_json::from_slice::<RawError>(body) {
            Ok(e) => Err(AuthError {
                error: e.error,
                description: e.error_description,
                uri: e.error_uri,
                status: Some(status),
                challenge: None,
            }),
            Err(_) => Err(invalid(Some(status), "not an OAuth error response", body)),
        }
    }
}

/// `application/x-www-form-urlencoded` encoding of one value.
pub(crate) fn url_form(s: &str) -> String {
    reqwest::Url::parse_with_params("x:", [("v", s)])
        .ok()
        .and_then(|u| u.query().map(|q| q.trim_start_matches("v=").to_owned()))
        .unwrap_or_default()
}

fn invalid(status: Option<u16>, why: &str, body: &[u8]) -> AuthError {
    let snippet: String = String::from_utf8_lossy(body).chars().take(200).collect();
    AuthError {
        error: AuthError::INVALID_RESPONSE.into(),
        description: Some(format!("the token endpoint's answer is not usable ({why}): {snippet}")),
        uri: None,
        status,
        challenge: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_encoding_matches_rfc_6749() {
        assert_eq!(url_form("a b&c=d/é"), "a+b%26c%3Dd%2F%C3%A9");
        assert_eq!(url_form("plain-id_1.x"), "plain-id_1.x");
        assert_eq!(url_form("~"), "%7E"); // the WHATWG form serializer escapes it; decoders accept both
    }

    #[test]
    fn token_types_are_normalized() {
        assert_eq!(normalize_type("bearer"), "Bearer");
        assert_eq!(normalize_type("dpop"), "DPoP");
        assert_eq!(normalize_type("N_A"), "N_A");
    }

    #[test]
    fn private_key_jwt_assertions_verify() {
        // A P-256 key made here, as PKCS#8 PEM (what the conformance suite hands out).
        let key = super::super::dpop::DpopKey::generate().unwrap();
        let der = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(key.export()).unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD
                .encode(&der)
                .as_bytes()
                .chunks(64)
                .map(|c| std::str::from_utf8(c).unwrap())
                .collect::<Vec<_>>()
                .join("\n")
        );
        let cred = Credential::private_key_jwt("cid", &pem, None, "https://as.example").unwrap();
        let a = cred.assertion().unwrap().unwrap();
        let header = jsonwebtoken::decode_header(&a).unwrap();
        assert_eq!(header.alg, Algorithm::ES256);
        let claims: serde_json::Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(a.split('.').nth(1).unwrap()).unwrap(),
        )
        .unwrap();
        assert_eq!(claims["iss"], "cid");
        assert_eq!(claims["sub"], "cid");
        assert_eq!(claims["aud"], "https://as.example");
        assert!(Credential::private_key_jwt("cid", "garbage", None, "x").is_err());
        assert!(Credential::private_key_jwt("cid", &pem, Some("HS256"), "x").is_err());
    }

    /// The RSA path (RS256), signed by `rsa` 0.10 through jsonwebtoken 12: a 2048-bit key made by
    /// the `openssl` CLI, the assertion checked against its public key by the verifier the
    /// resource-server side uses.
    #[test]
    fn private_key_jwt_rsa_assertions_verify() {
        let dir = std::env::temp_dir().join(format!("mcpcore-rsa-{}-{}", std::process::id(), random_id(8)));
        std::fs::create_dir_all(&dir).unwrap();
        let (key, public) = (dir.join("key.pem"), dir.join("pub.pem"));
        let openssl = |args: &[&std::ffi::OsStr]| {
            let out = std::process::Command::new("openssl").args(args).output().expect("the openssl CLI");
            assert!(out.status.success(), "openssl: {}", String::from_utf8_lossy(&out.stderr));
        };
        openssl(&[
            "genpkey".as_ref(),
            "-algorithm".as_ref(),
            "RSA".as_ref(),
            "-pkeyopt".as_ref(),
            "rsa_keygen_bits:2048".as_ref(),
            "-out".as_ref(),
            key.as_os_str(),
        ]);
        openssl(&[
            "pkey".as_ref(),
            "-in".as_ref(),
            key.as_os_str(),
            "-pubout".as_ref(),
            "-out".as_ref(),
            public.as_os_str(),
        ]);
        let pem = std::fs::read_to_string(&key).unwrap();
        let cred = Credential::private_key_jwt("cid", &pem, None, "https://as.example").unwrap();
        let a = cred.assertion().unwrap().unwrap();
        assert_eq!(jsonwebtoken::decode_header(&a).unwrap().alg, Algorithm::RS256);
        let decoding = jsonwebtoken::DecodingKey::from_rsa_pem(&std::fs::read(&public).unwrap()).unwrap();
        let mut v = jsonwebtoken::Validation::new(Algorithm::RS256);
        v.set_audience(&["https://as.example"]);
        let data = jsonwebtoken::decode::<serde_json::Value>(&a, &decoding, &v).unwrap();
        assert_eq!(data.claims["iss"], "cid");
        // Tampered: the signature no longer verifies.
        let mut bad = a.clone();
        bad.replace_range(a.len() - 4.., "AAAA");
        assert!(jsonwebtoken::decode::<serde_json::Value>(&bad, &decoding, &v).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
