//! The HTTP client transports. Each hands the [`Client`](crate::client::Client) a
//! [`Channel`](crate::transport::Channel), so all request logic stays in one place:
//!
//! - [`streamable`]: Streamable HTTP. One POST per message with the modern headers derived from
//!   the message (spec 2026-07-28 basic/transports/streamable-http, request headers); JSON or SSE answers; the legacy `Mcp-Session-Id` kept and replayed,
//!   with one re-`initialize` when the server forgets it (404); the legacy GET stream.
//! - [`legacy_sse`]: the 2024-11-05 HTTP+SSE transport (spec 2024-11-05 basic/transports, HTTP with SSE).

mod authed;
pub mod legacy_sse;
pub(crate) mod read;
pub mod streamable;

use crate::error::{Error, ErrorKind, Result};
use std::time::Duration;

/// Which HTTP transport to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpTransport {
    /// Streamable HTTP, falling back to 2024-11-05 HTTP+SSE when a legacy server refuses the
    /// `initialize` POST with a 4xx (spec 2026-07-28 basic/versioning).
    #[default]
    Auto,
    /// Streamable HTTP only.
    Streamable,
    /// The 2024-11-05 HTTP+SSE transport only (the URL is its SSE endpoint).
    Sse,
}

/// How the HTTP client connects.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Extra headers sent on every request (e.g. an API key).
    pub headers: Vec<(String, String)>,
    /// A fixed bearer token, sent as `Authorization: Bearer …` on every request (ignored when
    /// [`HttpOptions::auth`] is set).
    pub bearer_token: Option<String>,
    /// OAuth 2.1: tokens obtained, refreshed and presented by this client, with the
    /// authorization flows run on 401 and 403 `insufficient_scope` (see
    /// [`crate::auth::client`]).
    pub auth: Option<crate::auth::client::OAuth>,
    /// Which transport.
    pub transport: HttpTransport,
    /// Timeout for establishing a TCP connection (default: none beyond the request timeout).
    pub connect_timeout: Option<Duration>,
    /// Legacy Streamable HTTP: open the GET stream for server-initiated messages (logs, list
    /// changes, resource updates, requests) right after `notifications/initialized`, and keep
    /// it open, reconnecting with `Last-Event-ID` (default on; a server without one answers
    /// 405 and nothing more is tried). Off: it opens only when something needs it
    /// ([`Client::on_notification`](crate::client::Client::on_notification), a resource
    /// subscription, an input handler).
    pub standalone_stream: bool,
    /// HTTPS: extra trusted CAs and a client certificate (default: the platform's roots).
    pub tls: crate::tls::TlsOptions,
    /// Connect through this Unix domain socket instead of TCP (set by
    /// [`Client::connect_http`](crate::client::Client::connect_http) from a `unix:PATH` or
    /// `http+unix://` URL).
    pub unix_socket: Option<std::path::PathBuf>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            headers: Vec::new(),
            bearer_token: None,
            auth: None,
            transport: HttpTransport::default(),
            connect_timeout: None,
            standalone_stream: true,
            tls: crate::tls::TlsOptions::default(),
            unix_socket: None,
        }
    }
}

impl HttpOptions {
    /// Applies the host's headers and token to a request.
    pub(crate) fn apply(&self, mut rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        for (k, v) in &self.headers {
            rb = rb.header(k.as_str(), v.as_str());
        }
        if let (Some(t), None) = (&self.bearer_token, &self.auth) {
            rb = rb.header("authorization", format!("Bearer {t}"));
        }
        rb
    }

    /// The `http://` URL to request for `url`: a `unix:PATH` or `http+unix://` URL sets
    /// [`HttpOptions::unix_socket`] and becomes `http://localhost/<endpoint>`; any other URL is
    /// returned as it is.
    pub(crate) fn through_unix_socket(&mut self, url: &str) -> Result<String> {
        Ok(match crate::transport::url::split_unix(url)? {
            Some((socket, endpoint)) => {
                self.unix_socket = Some(socket);
                endpoint
            }
            None => url.to_owned(),
        })
    }

    /// A reqwest client for these options.
    pub(crate) fn client(&self) -> Result<reqwest::Client> {
        let mut b = self.tls.builder()?;
        if let Some(t) = self.connect_timeout {
            b = b.connect_timeout(t);
        }
        #[cfg(unix)]
        if let Some(path) = &self.unix_socket {
            b = b.unix_socket(path.as_path());
        }
        #[cfg(not(unix))]
        if self.unix_socket.is_some() {
            return Err(Error::invalid_input("Unix domain sockets are not supported on this platform"));
        }
        b.build().map_err(|e| Error::new(ErrorKind::Io, format!("cannot build the HTTP client: {e}")))
    }
}

/// A transport-level failure of one request, as the caller sees it: unreachable is `Io`; a
/// connection that dropped after the request went out is `Closed` (the server went away).
pub(crate) fn send_error(url: &reqwest::Url, e: &reqwest::Error) -> Error {
    let mut msg = format!("HTTP request to {url} failed: {e}");
    let mut src = std::error::Error::source(e);
    // A TLS failure (a refused certificate, a client certificate the server required) can
    // surface after the connection counts as made: it is still a transport failure, not a
    // server that went away.
    let mut tls = false;
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        tls |= s.downcast_ref::<rustls::Error>().is_some()
            || s.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(|inner| inner.downcast_ref::<rustls::Error>().is_some());
        src = s.source();
    }
    let kind = if e.is_connect() || e.is_builder() || tls { ErrorKind::Io } else { ErrorKind::Closed };
    Error::new(kind, msg)
}
