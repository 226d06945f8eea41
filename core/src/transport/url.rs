//! The URL of an HTTP peer, checked once for every client (MCP server, OAuth endpoints).

use crate::error::{Error, Result};

/// Parses an endpoint URL.
pub(crate) fn parse_url(url: &str) -> Result<reqwest::Url> {
    let u =
        reqwest::Url::parse(url).map_err(|e| Error::invalid_input(format!("invalid URL {url:?}: {e}")))?;
    match u.scheme() {
        "http" | "https" => Ok(u),
        s => Err(Error::invalid_input(format!("unsupported URL scheme {s:?} in {url}; use http or https"))),
    }
}
