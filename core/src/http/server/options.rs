//! An HTTP server's settings as a binding's host code writes them (JSON, in the users'
//! spelling): read and checked once here for Python, Node and Kotlin/Swift, which only convert
//! their users' values (seconds or milliseconds) into this shape.
//!
//! `store` and `state_keys` are read here and applied by [`crate::server::Server::http_settings`]
//! with the rules of [`crate::store::ScaleOut`] (the same as the `mcpcore` CLI's `--store` and
//! `MCPCORE_STATE_KEY`).

use super::{HostPolicy, HttpServerConfig, ResponseMode};
use crate::error::{Error, Result};
use crate::host::Spelling;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// The settings, by their snake-case names; every one optional.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Settings {
    host: Option<String>,
    port: Option<i64>,
    unix: Option<String>,
    unix_mode: Option<i64>,
    path: Option<String>,
    response_mode: Option<String>,
    max_body: Option<i64>,
    body_budget: Option<i64>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    any_host: Option<bool>,
    shutdown_grace_ms: Option<i64>,
    header_timeout_ms: Option<i64>,
    body_timeout_ms: Option<i64>,
    max_connections: Option<i64>,
    tls_cert_file: Option<String>,
    tls_key_file: Option<String>,
    tls_client_ca_file: Option<String>,
    store: Option<String>,
    state_keys: Option<KeyList>,
    max_sessions: Option<i64>,
    max_sessions_per_client: Option<i64>,
    session_idle_ms: Option<i64>,
    max_backlog: Option<i64>,
    max_in_flight: Option<i64>,
    max_tasks_per_client: Option<i64>,
    peer_request_timeout_ms: Option<i64>,
    state_encryption: Option<bool>,
    state_single_use: Option<bool>,
}

/// `state_keys`: one string (comma-separated, as in `MCPCORE_STATE_KEY`) or a list, newest first.
#[derive(Deserialize)]
#[serde(untagged)]
enum KeyList {
    One(String),
    Many(Vec<String>),
}

/// An HTTP server's settings, read by [`serve_settings`].
#[derive(Debug)]
pub struct ServeSettings {
    /// The address to bind.
    pub addr: SocketAddr,
    /// The listener's configuration (sessions in memory).
    pub config: HttpServerConfig,
    /// `store`: where legacy sessions live (`redis://HOST:PORT[/DB]`), unchecked.
    pub store: Option<String>,
    /// `state_keys`: the `requestState` keys, comma-separated (a list joined), unchecked; none:
    /// `MCPCORE_STATE_KEY`.
    pub state_keys: Option<String>,
    /// The server's own limits (every transport), applied by
    /// [`crate::server::Server::http_settings`].
    pub limits: ServerLimits,
}

/// Limits and `requestState` settings of the server itself rather than of its HTTP listener
/// (they hold on stdio too): each `None` keeps the server's configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerLimits {
    /// [`crate::engine::ServerConfig::max_in_flight`].
    pub max_in_flight: Option<usize>,
    /// [`crate::tasks::TaskSettings::max_per_client`].
    pub max_tasks_per_client: Option<usize>,
    /// [`crate::engine::ServerConfig::peer_request_timeout`].
    pub peer_request_timeout: Option<Duration>,
    /// [`crate::engine::ServerConfig::state_encryption`].
    pub state_encryption: Option<bool>,
    /// [`crate::engine::ServerConfig::state_single_use`].
    pub state_single_use: Option<bool>,
}

impl ServerLimits {
    /// Applies the limits that are set to `config`.
    pub fn apply(&self, config: &mut crate::engine::ServerConfig) {
        if let Some(n) = self.max_in_flight {
            config.max_in_flight = n;
        }
        if let Some(n) = self.max_tasks_per_client {
            config.tasks.max_per_client = n;
        }
        if let Some(t) = self.peer_request_timeout {
            config.peer_request_timeout = t;
        }
        if let Some(on) = self.state_encryption {
            config.state_encryption = on;
        }
        if let Some(on) = self.state_single_use {
            config.state_single_use = on;
        }
    }
}

/// Reads `json` (names in `spelling`: `max_body` or `maxBody`; an unknown name is an error
/// naming it) into the address to bind and an [`HttpServerConfig`]:
///
/// | name | default | meaning |
/// |---|---|---|
/// | `host`, `port` | `127.0.0.1`, `0` | the address to bind (an IP address; port 0 picks one) |
/// | `unix`, `unix_mode` | none, `0o600` | serve on this Unix domain socket instead ([`super::UnixSocket`]) |
/// | `path` | `/mcp` | the endpoint path |
/// | `response_mode` | `auto` | `auto`, `json` or `sse` ([`ResponseMode`]) |
/// | `max_body` | 4 MiB | [`HttpServerConfig::max_body`] |
/// | `body_budget` | 64 MiB | [`HttpServerConfig::body_budget`] (past it: 503) |
/// | `allowed_hosts`, `allowed_origins` | loopback | [`HostPolicy::Allow`] |
/// | `any_host` | false | [`HostPolicy::Any`] |
/// | `shutdown_grace_ms` | 30000 | [`HttpServerConfig::shutdown_grace`] |
/// | `header_timeout_ms` | 30000 | [`HttpServerConfig::header_timeout`] |
/// | `body_timeout_ms` | 30000 | [`HttpServerConfig::body_timeout`] |
/// | `max_connections` | by the open-file limit | [`HttpServerConfig::max_connections`] |
/// | `tls_cert_file`, `tls_key_file` | none | serve HTTPS with this PEM chain and key ([`crate::tls::ServerTls`]) |
/// | `tls_client_ca_file` | none | with TLS: require client certificates signed by these CAs |
/// | `store` | none (in memory) | `redis://HOST:PORT[/DB]`: legacy sessions shared by every instance ([`crate::store`]) |
/// | `state_keys` | `MCPCORE_STATE_KEY` | hex keys (≥ 32 bytes, newest first) sealing `requestState`; required with `store` |
/// | `max_sessions` | 10000 | [`HttpServerConfig::max_sessions`] (past it, all busy: 503) |
/// | `max_sessions_per_client` | 1000 | [`HttpServerConfig::max_sessions_per_client`] (past it, all busy: 429) |
/// | `session_idle_ms` | 60000 | [`HttpServerConfig::session_idle`] |
/// | `max_backlog` | 8 MiB | [`HttpServerConfig::max_backlog`] (a reader further behind is disconnected) |
/// | `max_in_flight` | 1000 | [`crate::engine::ServerConfig::max_in_flight`] (past it: `-32603`, HTTP 429) |
/// | `max_tasks_per_client` | 1000 | [`crate::tasks::TaskSettings::max_per_client`] |
/// | `peer_request_timeout_ms` | 600000 | [`crate::engine::ServerConfig::peer_request_timeout`] |
/// | `state_encryption` | false | [`crate::engine::ServerConfig::state_encryption`] |
/// | `state_single_use` | false | [`crate::engine::ServerConfig::state_single_use`] (one process; see [`crate::state::StateLedger`]) |
pub fn serve_settings(json: &str, spelling: Spelling) -> Result<ServeSettings> {
    let n = |snake: &str| spelling.name(snake);
    let invalid = |why: String| Error::invalid_input(why);
    let raw: Map<String, Value> =
        serde_json::from_str(json).map_err(|e| invalid(format!("bad HTTP server settings: {e}")))?;
    let raw: Map<String, Value> = raw.into_iter().filter(|(_, v)| !v.is_null()).collect();
    let s: Settings = serde_json::from_value(Value::Object(spelling.to_snake(raw))).map_err(|e| {
        // serde names the field in snake case; say it as the user wrote it.
        let msg = e.to_string();
        let msg = match msg.split('`').nth(1) {
            Some(field) if msg.starts_with("unknown field") => {
                format!("unknown HTTP server option {}", n(field))
            }
            _ => msg,
        };
        invalid(format!("bad HTTP server settings: {msg}"))
    })?;
    let host = s.host.unwrap_or_else(|| "127.0.0.1".to_owned());
    let ip: IpAddr =
        host.parse().map_err(|_| invalid(format!("{} must be an IP address, not {host:?}", n("host"))))?;
    let port =
        u16::try_from(s.port.unwrap_or(0)).map_err(|_| invalid(format!("{} must be 0..65535", n("port"))))?;
    let mut config = HttpServerConfig::default();
    if let Some(path) = s.unix.filter(|p| !p.is_empty()) {
        let mode = s.unix_mode.unwrap_or(0o600);
        let mode = u32::try_from(mode).ok().filter(|m| *m <= 0o777).ok_or_else(|| {
            invalid(format!("{} must be permission bits (0..=0o777), not {mode}", n("unix_mode")))
        })?;
        config.unix_socket = Some(super::UnixSocket { path: path.into(), mode });
    }
    if let Some(path) = s.path {
        if !path.starts_with('/') {
            return Err(invalid(format!("{} must start with '/', not {path:?}", n("path"))));
        }
        config.path = path;
    }
    config.response_mode = match s.response_mode.as_deref().unwrap_or("auto") {
        "auto" => ResponseMode::Auto,
        "json" => ResponseMode::Json,
        "sse" => ResponseMode::Sse,
        other => {
            return Err(invalid(format!(
                "{} must be 'auto', 'json' or 'sse', not {other:?}",
                n("response_mode")
            )))
        }
    };
    let positive = |name: &str, v: i64| {
        u64::try_from(v)
            .ok()
            .filter(|v| *v > 0)
            .ok_or_else(|| invalid(format!("{} must be positive, not {v}", n(name))))
    };
    if let Some(m) = s.max_body {
        config.max_body = usize::try_from(positive("max_body", m)?).unwrap_or(usize::MAX);
    }
    if let Some(m) = s.body_budget {
        config.body_budget = usize::try_from(positive("body_budget", m)?).unwrap_or(usize::MAX);
    }
    if let Some(ms) = s.shutdown_grace_ms {
        let ms = u64::try_from(ms)
            .map_err(|_| invalid(format!("{} must not be negative", n("shutdown_grace_ms"))))?;
        config.shutdown_grace = Duration::from_millis(ms);
    }
    if let Some(ms) = s.header_timeout_ms {
        config.header_timeout = Duration::from_millis(positive("header_timeout_ms", ms)?);
    }
    if let Some(ms) = s.body_timeout_ms {
        config.body_timeout = Duration::from_millis(positive("body_timeout_ms", ms)?);
    }
    if let Some(c) = s.max_connections {
        config.max_connections = usize::try_from(positive("max_connections", c)?).unwrap_or(usize::MAX);
    }
    if s.any_host == Some(true) {
        if s.allowed_hosts.is_some() || s.allowed_origins.is_some() {
            return Err(invalid(format!(
                "{} contradicts {} / {}",
                n("any_host"),
                n("allowed_hosts"),
                n("allowed_origins")
            )));
        }
        config.hosts = HostPolicy::Any;
    } else if s.allowed_hosts.is_some() || s.allowed_origins.is_some() {
        config.hosts = HostPolicy::Allow {
            hosts: s.allowed_hosts.unwrap_or_default(),
            origins: s.allowed_origins.unwrap_or_default(),
        };
    }
    config.tls = match (s.tls_cert_file, s.tls_key_file) {
        (None, None) if s.tls_client_ca_file.is_some() => {
            return Err(invalid(format!("{} needs {}", n("tls_client_ca_file"), n("tls_cert_file"))))
        }
        (None, None) => None,
        (Some(cert), Some(key)) => Some(crate::tls::ServerTls::from_files(
            cert.as_ref(),
            key.as_ref(),
            s.tls_client_ca_file.as_deref().map(std::path::Path::new),
        )?),
        _ => return Err(invalid(format!("{} and {} go together", n("tls_cert_file"), n("tls_key_file")))),
    };
    let count = |name: &str, v: Option<i64>| -> Result<Option<usize>> {
        v.map(|v| positive(name, v).map(|n| usize::try_from(n).unwrap_or(usize::MAX))).transpose()
    };
    if let Some(n) = count("max_sessions", s.max_sessions)? {
        config.max_sessions = n;
    }
    if let Some(n) = count("max_sessions_per_client", s.max_sessions_per_client)? {
        config.max_sessions_per_client = n;
    }
    if let Some(ms) = s.session_idle_ms {
        let ms = u64::try_from(ms)
            .map_err(|_| invalid(format!("{} must not be negative", n("session_idle_ms"))))?;
        config.session_idle = Duration::from_millis(ms);
    }
    if let Some(n) = count("max_backlog", s.max_backlog)? {
        config.max_backlog = n;
    }
    let limits = ServerLimits {
        max_in_flight: count("max_in_flight", s.max_in_flight)?,
        max_tasks_per_client: count("max_tasks_per_client", s.max_tasks_per_client)?,
        peer_request_timeout: s
            .peer_request_timeout_ms
            .map(|ms| positive("peer_request_timeout_ms", ms).map(Duration::from_millis))
            .transpose()?,
        state_encryption: s.state_encryption,
        state_single_use: s.state_single_use,
    };
    let state_keys = s.state_keys.map(|keys| match keys {
        KeyList::One(k) => k,
        KeyList::Many(ks) => ks.join(","),
    });
    Ok(ServeSettings { addr: SocketAddr::new(ip, port), config, store: s.store, state_keys, limits })
}

/// The names [`limit_options`] takes: the numeric limits of [`serve_settings`].
pub const LIMIT_NAMES: &[&str] = &[
    "max_body",
    "body_budget",
    "header_timeout_ms",
    "body_timeout_ms",
    "max_connections",
    "shutdown_grace_ms",
    "max_sessions",
    "max_sessions_per_client",
    "session_idle_ms",
    "max_backlog",
    "max_in_flight",
    "max_tasks_per_client",
    "peer_request_timeout_ms",
    "state_encryption",
    "state_single_use",
];

/// Reads a command line's `--limit NAME=VALUE` options (each `NAME=VALUE`, a name of
/// [`LIMIT_NAMES`] and an integer, or `true`/`false` for the `state_*` switches) into the
/// listener's configuration and the server's limits, with the rules and defaults of
/// [`serve_settings`].
pub fn limit_options(pairs: &[String]) -> Result<(HttpServerConfig, ServerLimits)> {
    let mut json = Map::new();
    for pair in pairs {
        let bad = || {
            Error::invalid_input(format!(
                "--limit needs NAME=INTEGER with NAME one of {}, not {pair:?}",
                LIMIT_NAMES.join(", ")
            ))
        };
        let (name, value) = pair.split_once('=').ok_or_else(bad)?;
        let (name, value) = (name.trim(), value.trim());
        if !LIMIT_NAMES.contains(&name) {
            return Err(bad());
        }
        let value = match (name.starts_with("state_"), value) {
            (true, "true") => Value::Bool(true),
            (true, "false") => Value::Bool(false),
            (false, v) => Value::from(v.parse::<i64>().map_err(|_| bad())?),
            (true, _) => return Err(bad()),
        };
        json.insert(name.to_owned(), value);
    }
    let s = serve_settings(&Value::Object(json).to_string(), Spelling::Snake)?;
    Ok((s.config, s.limits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_spellings() {
        let ServeSettings { addr, config: c, .. } = serve_settings("{}", Spelling::Snake).unwrap();
        assert_eq!(addr, "127.0.0.1:0".parse().unwrap());
        assert_eq!(c.path, "/mcp");
        let ServeSettings { addr, config: c, .. } = serve_settings(
            r#"{"host":"0.0.0.0","port":8080,"maxBody":10,"headerTimeoutMs":1500,"maxConnections":7,"bodyTimeoutMs":null}"#,
            Spelling::Camel,
        )
        .unwrap();
        assert_eq!(addr.port(), 8080);
        assert_eq!((c.max_body, c.max_connections), (10, 7));
        assert_eq!(c.header_timeout, Duration::from_millis(1500));
        assert_eq!(c.body_timeout, HttpServerConfig::default().body_timeout);
        let ServeSettings { config: c, limits, .. } = serve_settings(
            r#"{"maxSessions":5,"maxSessionsPerClient":2,"sessionIdleMs":0,"maxBacklog":4096,
                "maxInFlight":3,"maxTasksPerClient":4,"peerRequestTimeoutMs":250}"#,
            Spelling::Camel,
        )
        .unwrap();
        assert_eq!((c.max_sessions, c.max_sessions_per_client, c.max_backlog), (5, 2, 4096));
        assert_eq!(c.session_idle, Duration::ZERO);
        let mut server = crate::engine::ServerConfig::new("s", "1");
        limits.apply(&mut server);
        assert_eq!((server.max_in_flight, server.tasks.max_per_client), (3, 4));
        assert_eq!(server.peer_request_timeout, Duration::from_millis(250));
        let e = serve_settings(r#"{"max_in_flight": 0}"#, Spelling::Snake).unwrap_err().to_string();
        assert!(e.contains("max_in_flight must be positive"), "{e}");
    }

    #[test]
    fn limit_options_take_name_value_pairs() {
        let (c, l) =
            limit_options(&["max_sessions_per_client=3".into(), "max_in_flight = 9".into()]).unwrap();
        assert_eq!((c.max_sessions_per_client, l.max_in_flight), (3, Some(9)));
        for bad in ["max_sessions", "nope=1", "max_sessions=x", "path=1"] {
            let e = limit_options(&[bad.into()]).unwrap_err().to_string();
            assert!(e.contains("--limit needs NAME=INTEGER"), "{bad}: {e}");
        }
        assert!(limit_options(&["max_sessions=0".into()]).unwrap_err().to_string().contains("positive"));
    }

    #[test]
    fn errors_name_the_option_as_spelled() {
        let e = serve_settings(r#"{"maxBodyy": 1}"#, Spelling::Camel).unwrap_err().to_string();
        assert!(e.contains("maxBodyy"), "{e}");
        let e = serve_settings(r#"{"max_connections": 0}"#, Spelling::Snake).unwrap_err().to_string();
        assert!(e.contains("max_connections must be positive"), "{e}");
        let e = serve_settings(r#"{"responseMode": "xml"}"#, Spelling::Camel).unwrap_err().to_string();
        assert!(e.contains("responseMode must be"), "{e}");
        let e = serve_settings(r#"{"host": "localhost"}"#, Spelling::Snake).unwrap_err().to_string();
        assert!(e.contains("host must be an IP address"), "{e}");
        assert!(serve_settings(r#"{"any_host": true, "allowed_hosts": ["a"]}"#, Spelling::Snake).is_err());
    }
}
