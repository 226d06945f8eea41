//! Sending one HTTP request with the client's credentials: the host's fixed headers and bearer
//! token, or the OAuth client's token — then, on 401 or 403 `insufficient_scope`, the OAuth
//! flow and the same request again (bounded by the OAuth client's retry limits).

use super::{send_error, HttpOptions};
use crate::auth::challenge::OAuthChallenge;
use crate::auth::client::Tries;
use crate::auth::AuthError;
use crate::error::Error;
use reqwest::{Method, RequestBuilder, Url};

/// Sends `method url`, with `build` adding the request's own headers and body (called once
/// per attempt). `version` is the MCP revision the request speaks, for metadata discovery.
pub(crate) async fn send(
    http: &reqwest::Client,
    opts: &HttpOptions,
    method: Method,
    url: &Url,
    version: Option<&str>,
    build: &(dyn Fn(RequestBuilder) -> RequestBuilder + Send + Sync),
) -> Result<reqwest::Response, Error> {
    let mut tries = Tries::default();
    loop {
        let rb = build(opts.apply(http.request(method.clone(), url.clone())));
        let Some(auth) = &opts.auth else {
            return rb.send().await.map_err(|e| send_error(url, &e));
        };
        let (rb, presented) = auth.authorize_request(rb, &method, url).await?;
        let resp = rb.send().await.map_err(|e| send_error(url, &e))?;
        if !auth.after_response(url, &resp, presented, &mut tries, version).await? {
            return Ok(resp);
        }
    }
}

/// A 401, or a 403 carrying a `WWW-Authenticate` challenge (e.g. `insufficient_scope`), as an
/// [`ErrorKind::Auth`] error: the status, the challenge's `error` (else `unauthorized` /
/// `forbidden`) and `error_description`, and the raw `WWW-Authenticate` header; `None`
/// otherwise (a 403 without a challenge, such as a refused `Origin`, stays an HTTP error).
///
/// [`ErrorKind::Auth`]: crate::ErrorKind::Auth
pub(crate) fn refusal(url: &Url, resp: &reqwest::Response, configured: bool) -> Option<Error> {
    let status = resp.status().as_u16();
    let headers: Vec<&str> = resp
        .headers()
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if !(status == 401 || (status == 403 && !headers.is_empty())) {
        return None;
    }
    let c = OAuthChallenge::from_headers(headers.iter().copied());
    let hint = if configured || status == 403 { "" } else { " (this client has no OAuth configured)" };
    let description = match &c.error_description {
        Some(d) => format!("{url} answered HTTP {status}: {d}{hint}"),
        None => format!("{url} answered HTTP {status}{hint}"),
    };
    let fallback = if status == 401 { AuthError::UNAUTHORIZED } else { AuthError::FORBIDDEN };
    Some(Error::auth(AuthError {
        error: c.error.clone().unwrap_or_else(|| fallback.into()),
        description: Some(description),
        uri: None,
        status: Some(status),
        challenge: (!headers.is_empty()).then(|| headers.join(", ")),
    }))
}
