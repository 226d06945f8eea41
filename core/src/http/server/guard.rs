//! Checks made before a body is parsed: DNS-rebinding protection (Origin and Host), `Accept`,
//! `Content-Type`, and the body size limit.

use super::reply;
use crate::http::JSON;
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use futures_util::StreamExt;
use std::net::SocketAddr;

/// Which `Host` and `Origin` values are accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPolicy {
    /// Loopback names with the bound port when bound to a loopback address. Bound elsewhere
    /// (`0.0.0.0`, `::`, a LAN address) or mounted by a host that serves it: a `Host` that is
    /// `localhost` or an IP literal (any port), and an `Origin` only when it names that same
    /// host. A DNS name is refused: DNS rebinding needs one (a page of `evil.example` whose name
    /// now resolves to this machine sends `Host: evil.example`), and a browser sends an IP
    /// literal only for a URL naming that IP. A server reached by name lists its names in
    /// [`HostPolicy::Allow`]. 2025-11-25 basic/transports, "Security Warning": "Servers MUST
    /// validate the Origin header on all incoming connections to prevent DNS rebinding attacks".
    Auto,
    /// No check (e.g. behind a proxy that checks).
    Any,
    /// Exactly these `Host` values (`name:port`) and `Origin` values (`scheme://name:port`).
    Allow {
        /// Accepted `Host` header values.
        hosts: Vec<String>,
        /// Accepted `Origin` header values; a request without `Origin` is always accepted.
        origins: Vec<String>,
    },
}

impl HostPolicy {
    /// The loopback names (`127.0.0.1`, `localhost`, `[::1]`) with `port`, as `Host` values and as
    /// `http`/`https` origins: what [`HostPolicy::Auto`] means for a server bound to loopback.
    pub fn loopback(port: u16) -> HostPolicy {
        let names = ["127.0.0.1", "localhost", "[::1]"];
        HostPolicy::Allow {
            hosts: names.iter().flat_map(|n| [format!("{n}:{port}"), (*n).to_owned()]).collect(),
            origins: names
                .iter()
                .flat_map(|n| [format!("http://{n}:{port}"), format!("https://{n}:{port}")])
                .collect(),
        }
    }
}

/// The resolved allow-lists; `None` means "anything".
#[derive(Debug, Clone)]
pub(crate) struct Guard {
    hosts: Option<Vec<String>>,
    origins: Option<Vec<String>>,
    /// No allow-list, not bound to loopback: the `Host` must be `localhost` or an IP literal,
    /// and an `Origin` must name the request's own `Host`.
    literal_host: bool,
}

impl Guard {
    /// The guard for `policy` on a server bound to `bound` (when known).
    pub(crate) fn new(policy: &HostPolicy, bound: Option<SocketAddr>) -> Guard {
        match policy {
            HostPolicy::Any => Guard { hosts: None, origins: None, literal_host: false },
            HostPolicy::Allow { hosts, origins } => Guard {
                hosts: Some(hosts.iter().map(|h| h.to_ascii_lowercase()).collect()),
                origins: Some(origins.iter().map(|o| o.to_ascii_lowercase()).collect()),
                literal_host: false,
            },
            HostPolicy::Auto => match bound {
                Some(b) if b.ip().is_loopback() => Guard::new(&HostPolicy::loopback(b.port()), bound),
                _ => Guard { hosts: None, origins: None, literal_host: true },
            },
        }
    }

    /// 403 for a `Host` or `Origin` outside the allow-lists.
    pub(crate) fn check(&self, headers: &HeaderMap) -> Result<(), Response> {
        if let Some(hosts) = &self.hosts {
            let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_ascii_lowercase);
            if !host.as_ref().is_some_and(|h| hosts.contains(h)) {
                return Err(reply::forbidden(&format!(
                    "Forbidden: Host header {} is not allowed (DNS-rebinding protection)",
                    host.as_deref().unwrap_or("(missing)")
                )));
            }
        }
        if let (Some(origins), Some(origin)) = (&self.origins, headers.get(header::ORIGIN)) {
            let origin = origin.to_str().unwrap_or("").to_ascii_lowercase();
            if !origins.contains(&origin) {
                return Err(reply::forbidden(&format!(
                    "Forbidden: Origin {origin} is not allowed (DNS-rebinding protection)"
                )));
            }
        }
        if !self.literal_host {
            return Ok(());
        }
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).map(str::to_ascii_lowercase);
        if !host.as_deref().is_some_and(literal_or_localhost) {
            return Err(reply::forbidden(&format!(
                "Forbidden: Host header {} is not allowed: with no allowed hosts, a server not bound to \
                 loopback accepts only localhost or an IP address as Host (DNS-rebinding protection); \
                 list the names it is reached by as allowed hosts (allowed_hosts, allowedHosts, \
                 --allowed-host)",
                host.as_deref().unwrap_or("(missing)")
            )));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("").to_ascii_lowercase();
            if !host.is_some_and(|h| same_host(&origin, &h)) {
                return Err(reply::forbidden(&format!(
                    "Forbidden: Origin {origin} does not match the Host of the request (DNS-rebinding protection)"
                )));
            }
        }
        Ok(())
    }
}

/// True when `host` (a lowercase `Host` value) is `localhost` or an IP literal (`10.0.0.5`,
/// `[::1]`), with or without a port.
fn literal_or_localhost(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((ip, rest)) if rest.is_empty() || port_ok(rest) => {
                return ip.parse::<std::net::Ipv6Addr>().is_ok()
            }
            _ => return false,
        },
        None => match host.split_once(':') {
            Some((name, rest)) if port_ok(&format!(":{rest}")) => name,
            Some(_) => return false,
            None => host,
        },
    };
    name == "localhost" || name.parse::<std::net::Ipv4Addr>().is_ok()
}

/// True when `s` is `:` and a port number.
fn port_ok(s: &str) -> bool {
    s.strip_prefix(':').is_some_and(|p| p.parse::<u16>().is_ok())
}

/// True when `origin` (`scheme://authority`, lowercase) names `host` (a `Host` value): the same
/// authority, where a default port (80 for http, 443 for https) may be left out on either side.
fn same_host(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else { return false };
    let default = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return false,
    };
    let bare = |a: &str| a.strip_suffix(default).map(str::to_owned).unwrap_or_else(|| a.to_owned());
    !authority.is_empty() && bare(authority) == bare(host)
}

/// True when `Accept` admits `media` (exactly, by `type/*`, or by `*/*`).
pub(crate) fn accepts(headers: &HeaderMap, media: &str) -> bool {
    let (major, minor) = media.split_once('/').unwrap_or((media, ""));
    media_ranges(headers).any(|(t, s)| admits(t, s, major.as_bytes(), minor.as_bytes()))
}

/// The media ranges (`type`, `subtype`) of the Accept headers, parameters dropped; read as
/// bytes, without allocating.
fn media_ranges(headers: &HeaderMap) -> impl Iterator<Item = (&[u8], &[u8])> {
    headers.get_all(header::ACCEPT).iter().flat_map(|v| v.as_bytes().split(|&b| b == b',')).filter_map(
        |item| {
            let range = item.split(|&b| b == b';').next()?.trim_ascii();
            let slash = range.iter().position(|&b| b == b'/')?;
            Some((&range[..slash], &range[slash + 1..]))
        },
    )
}

/// True when the range `t/s` admits the media type `major/minor`: the same type with the same
/// or a `*` subtype, or `*/*`; compared ignoring ASCII case.
fn admits(t: &[u8], s: &[u8], major: &[u8], minor: &[u8]) -> bool {
    (t.eq_ignore_ascii_case(major) && (s == b"*" || s.eq_ignore_ascii_case(minor)))
        || (t == b"*" && s == b"*")
}

/// 406 unless `Accept` admits both JSON and SSE (a POST) or SSE (a GET).
pub(crate) fn check_accept(headers: &HeaderMap, post: bool) -> Result<(), Response> {
    // What SDKs send, as they send it, is accepted with one comparison: this runs on every
    // POST. Anything else takes one pass over the header for both media types.
    if headers.get(header::ACCEPT).is_some_and(|v| v.as_bytes() == b"application/json, text/event-stream") {
        return Ok(());
    }
    let (mut sse, mut json) = (false, !post);
    for (t, s) in media_ranges(headers) {
        sse |= admits(t, s, b"text", b"event-stream");
        json |= admits(t, s, b"application", b"json");
    }
    if sse && json {
        return Ok(());
    }
    let need = if post { "both application/json and text/event-stream" } else { "text/event-stream" };
    Err(reply::status_error(
        StatusCode::NOT_ACCEPTABLE,
        crate::ErrorData::invalid_request(format!("Not Acceptable: the Accept header must list {need}")),
    ))
}

/// 415 unless the body is declared `application/json`.
pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), Response> {
    let ct = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let media = ct.split(';').next().unwrap_or("").trim();
    if media.eq_ignore_ascii_case(JSON) {
        return Ok(());
    }
    Err(reply::status_error(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        crate::ErrorData::invalid_request(format!(
            "Unsupported Media Type: Content-Type must be application/json, got {:?}",
            ct
        )),
    ))
}

/// Reads and drops what the client still sends of a refused body, up to twice `limit` or 2 s: a connection closed with unread data is reset, and the reset can overtake the 413 on
/// its way to a client still writing (it would see no answer at all). Bounded in bytes and
/// time: a bigger or slower body still gets the 413, then the close.
async fn discard<S>(stream: &mut S, limit: usize)
where
    S: futures_util::Stream<Item = Result<Bytes, axum::Error>> + Unpin,
{
    let mut left = limit.saturating_mul(2);
    let drain = async {
        while let Some(Ok(chunk)) = stream.next().await {
            if chunk.len() >= left {
                break;
            }
            left -= chunk.len();
        }
    };
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), drain).await;
}

/// Reads the whole body within the endpoint's `body_timeout`, else 408; or 413 once it passes
/// `max_body` bytes (checked against `Content-Length` first, then while streaming); or 503
/// with `Retry-After` when the bodies being received on every connection together would pass
/// the endpoint's `body_budget`. Memory grows with what arrives, not with what
/// `Content-Length` declares.
pub(crate) async fn read_body(headers: &HeaderMap, body: Body, st: &super::State) -> Result<Bytes, Response> {
    let (limit, timeout) = (st.config.max_body, st.config.body_timeout);
    let mut read = std::pin::pin!(read_limited(headers, body, limit, &st.bodies));
    // Most bodies arrive with their head: read them without arming a timer.
    if let Some(done) = futures_util::FutureExt::now_or_never(&mut read) {
        return done;
    }
    match tokio::time::timeout(timeout, read).await {
        Ok(read) => read,
        Err(_) => Err(reply::status_error(
            StatusCode::REQUEST_TIMEOUT,
            crate::ErrorData::invalid_request(format!(
                "Request Timeout: the body was not received within {} s",
                timeout.as_secs_f64()
            )),
        )),
    }
}

/// The first reservation for a body: what `Content-Length` declares, up to this.
const FIRST_RESERVE: usize = 64 * 1024;

async fn read_limited(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
    budget: &super::budget::BodyBudget,
) -> Result<Bytes, Response> {
    let too_large = || {
        reply::status_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            crate::ErrorData::invalid_request(format!(
                "Payload Too Large: the body exceeds the {limit}-byte limit"
            )),
        )
    };
    let declared = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let mut stream = body.into_data_stream();
    if declared.is_some_and(|n| n > limit as u64) {
        discard(&mut stream, limit).await;
        return Err(too_large());
    }
    let read_error = |e: axum::Error| {
        reply::status_error(
            StatusCode::BAD_REQUEST,
            crate::ErrorData::invalid_request(format!("Bad Request: could not read the body: {e}")),
        )
    };
    let Some(first) = stream.next().await else { return Ok(Bytes::new()) };
    let first = first.map_err(read_error)?;
    if first.len() > limit {
        discard(&mut stream, limit).await;
        return Err(too_large());
    }
    // A body that came in one piece (hyper holds it to its declared length): no copy.
    if declared == Some(first.len() as u64) {
        return Ok(first);
    }
    // What the buffer's capacity takes is charged to the budget before it is allocated.
    let mut share = budget.share();
    let over_budget = || {
        reply::retry_later_with(
            StatusCode::SERVICE_UNAVAILABLE,
            crate::ErrorData::over_limit(
                "body_budget",
                budget.max(),
                format!(
                    "Service Unavailable: the request bodies being received take the server's {}-byte budget; retry shortly",
                    budget.max()
                ),
            ),
        )
    };
    let first_cap = declared.map_or(0, |n| (n as usize).min(FIRST_RESERVE)).max(first.len());
    if !share.grow(first_cap) {
        discard(&mut stream, limit).await;
        return Err(over_budget());
    }
    let mut buf = Vec::with_capacity(first_cap);
    buf.extend_from_slice(&first);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(read_error)?;
        let need = buf.len() + chunk.len();
        if need > limit {
            discard(&mut stream, limit).await;
            return Err(too_large());
        }
        if need > buf.capacity() {
            // Grow as Vec would (doubling), but never past the limit, and only with budget.
            let cap = need.max(buf.capacity().saturating_mul(2)).min(limit);
            if !share.grow(cap - buf.capacity()) {
                drop(buf); // its bytes go back to the budget with `share`, below
                drop(share);
                discard(&mut stream, limit).await;
                return Err(over_budget());
            }
            buf.reserve_exact(cap - buf.len());
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}

#[cfg(test)]
mod accept_tests {
    use super::*;

    #[test]
    fn literal_hosts_are_ip_addresses_or_localhost_with_an_optional_port() {
        for ok in
            ["10.0.0.5", "10.0.0.5:8080", "localhost", "localhost:1", "[::1]", "[::1]:80", "[fe80::1]:9"]
        {
            assert!(literal_or_localhost(ok), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:80",
            "10.0.0.5.nip.io",
            "localhost.evil",
            "[::1",
            "[::1]x",
            "10.0.0.5:",
            "10.0.0.5:99999",
            "",
            "0x7f.1",
            "[evil]:80",
            "::1",
        ] {
            assert!(!literal_or_localhost(bad), "{bad}");
        }
    }

    fn with(accept: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, accept.parse().unwrap());
        h
    }

    #[test]
    fn accept_admits_exact_wildcard_and_major_wildcard_case_insensitively() {
        let sse = "text/event-stream";
        assert!(accepts(&with("application/json, text/event-stream"), sse));
        assert!(accepts(&with("APPLICATION/JSON;q=0.9 , Text/Event-Stream"), JSON));
        assert!(accepts(&with("Text/Event-Stream"), sse));
        assert!(accepts(&with("*/*"), sse));
        assert!(accepts(&with("text/*;q=0.5"), sse));
        assert!(!accepts(&with("application/*"), sse));
        assert!(!accepts(&with("*/event-stream"), sse));
        assert!(!accepts(&with("text/event-streams"), sse));
        assert!(!accepts(&with("text"), sse));
        assert!(!accepts(&HeaderMap::new(), JSON));
        assert!(check_accept(&with("application/json"), true).is_err());
        assert!(check_accept(&with("application/json, text/event-stream"), true).is_ok());
    }
}
