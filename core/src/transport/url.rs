//! The URL of an HTTP peer, checked once for every client (MCP server, OAuth endpoints).

use crate::error::{Error, Result};

/// The URL of `endpoint` (a path such as `/mcp`) served on the Unix socket `socket`:
/// `http+unix://` with the socket's path percent-encoded as the authority.
pub(crate) fn unix_url(socket: &std::path::Path, endpoint: &str) -> String {
    let enc: String = socket
        .to_string_lossy()
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    format!("http+unix://{enc}{endpoint}")
}

/// An endpoint on a Unix socket: `unix:PATH` (the endpoint `/mcp`) or
/// `http+unix://ENCODED_PATH/ENDPOINT`; the socket's path and the `http://localhost/...` URL
/// to request through it. `None` for any other URL.
pub(crate) fn split_unix(url: &str) -> Result<Option<(std::path::PathBuf, String)>> {
    if let Some(path) = url.strip_prefix("unix:").filter(|_| !url.starts_with("unix://")) {
        if path.is_empty() {
            return Err(Error::invalid_input("unix: needs a socket path, e.g. unix:/run/mcp.sock"));
        }
        return Ok(Some((path.into(), "http://localhost/mcp".to_owned())));
    }
    let Some(rest) = url.strip_prefix("http+unix://") else { return Ok(None) };
    let (enc, endpoint) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let mut bytes = Vec::new();
    let mut it = enc.bytes();
    while let Some(b) = it.next() {
        if b == b'%' {
            let hex: Vec<u8> = it.by_ref().take(2).collect();
            let v = std::str::from_utf8(&hex).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            bytes.push(v.ok_or_else(|| Error::invalid_input(format!("bad percent-encoding in {url}")))?);
        } else {
            bytes.push(b);
        }
    }
    let path =
        String::from_utf8(bytes).map_err(|_| Error::invalid_input(format!("bad socket path in {url}")))?;
    if path.is_empty() {
        return Err(Error::invalid_input(format!("no socket path in {url}")));
    }
    let endpoint = if endpoint.is_empty() { "/mcp" } else { endpoint };
    Ok(Some((path.into(), format!("http://localhost{endpoint}"))))
}

/// Parses an endpoint URL.
pub(crate) fn parse_url(url: &str) -> Result<reqwest::Url> {
    let u =
        reqwest::Url::parse(url).map_err(|e| Error::invalid_input(format!("invalid URL {url:?}: {e}")))?;
    match u.scheme() {
        "http" | "https" => Ok(u),
        s => Err(Error::invalid_input(format!("unsupported URL scheme {s:?} in {url}; use http or https"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_urls_round_trip_and_unix_path_is_short_for_the_default_endpoint() {
        let url = unix_url(std::path::Path::new("/run/my mcp.sock"), "/mcp");
        assert_eq!(url, "http+unix://%2Frun%2Fmy%20mcp.sock/mcp");
        let (p, u) = split_unix(&url).unwrap().unwrap();
        assert_eq!((p.to_str().unwrap(), u.as_str()), ("/run/my mcp.sock", "http://localhost/mcp"));
        let (p, u) = split_unix("unix:/tmp/x.sock").unwrap().unwrap();
        assert_eq!((p.to_str().unwrap(), u.as_str()), ("/tmp/x.sock", "http://localhost/mcp"));
        assert!(split_unix("http://127.0.0.1/mcp").unwrap().is_none());
        assert!(split_unix("unix:").is_err());
        assert!(split_unix("http+unix://%zz/mcp").is_err());
    }
}
