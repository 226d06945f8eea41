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

/// A 401, or a 403 with an `insufficient_scope` challenge, as an [`ErrorKind::Auth`] error
/// (the status, the challenge's `error` and `error_description`); `None` for other statuses.
///
/// [`ErrorKind::Auth`]: crate::ErrorKind::Auth
pub(crate) fn refusal(url: &Url, resp: &reqwest::Response, configured: bool) -> Option<Error> {
    let status = resp.status().as_u16();
    let c = OAuthChallenge::from_headers(
        resp.headers().get_all(reqwest::header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok()),
    );
    let insufficient = c.error.as_deref() == Some("insufficient_scope");
    if !(status == 401 || (status == 403 && insufficient)) {
        return None;
    }
    let hint = if configured { "" } else { " (this client has no OAuth configured)" };
    let description = match &c.error_description {
        Some(d) => format!("{url} answered HTTP {status}: {d}{hint}"),
        None => format!("{url} answered HTTP {status}{hint}"),
    };
    Some(Error::auth(AuthError {
        error: c.error.clone().unwrap_or_else(|| AuthError::UNAUTHORIZED.into()),
        description: Some(description),
        uri: None,
        status: Some(status),
    }))
}
