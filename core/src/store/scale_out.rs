//! The settings that let several instances of one server share a load balancer, read once for
//! every front end (the `mcpcore` CLI, the examples, the bindings): where shared state lives
//! (`--store redis://HOST:PORT[/DB]`: legacy sessions, tasks, single-use `requestState`
//! claims, change announcements, event occurrences), the `requestState` keys every instance shares
//! (`MCPCORE_STATE_KEY`), and the public host names the proxy forwards (`--allowed-host`).

use crate::changes::ChangeBus;
use crate::http::server::{HostPolicy, HttpServerConfig};
use crate::session::SessionStore;
use crate::state::{StateKey, StateKeys, StateLedger};
use crate::tasks::TaskStore;
use crate::{Error, ErrorKind};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The environment variable holding the `requestState` keys: hex, at least 32 bytes each,
/// comma-separated, newest first.
pub const STATE_KEY_ENV: &str = "MCPCORE_STATE_KEY";

/// How long an unused legacy session lives in a shared store (as in the default in-memory one).
pub const SESSION_TTL: Duration = Duration::from_secs(3600);

/// Everything the instances of one server share, on one database.
#[derive(Debug, Clone)]
pub struct SharedStores {
    /// Legacy sessions (and their streams' replay logs).
    pub sessions: Arc<dyn SessionStore>,
    /// Tasks (Tasks extension).
    pub tasks: Arc<dyn TaskStore>,
    /// Claims of single-use `requestState`s.
    pub states: Arc<dyn StateLedger>,
    /// Catalog and task changes.
    pub changes: Arc<dyn ChangeBus>,
    /// Idempotency keys and first results (idempotent writes).
    pub idempotency: Arc<dyn crate::idempotency::IdempotencyStore>,
    /// Rate-limit buckets.
    pub rates: Arc<dyn crate::rates::RateStore>,
    /// The Events extension's occurrences ([`crate::events::SharedLog`]).
    pub events: Arc<dyn crate::events::SharedLog>,
}

impl SharedStores {
    /// The stores at `url` (`redis://…` with the `redis` feature), sharing one connection
    /// pair; a legacy session unused for `session_ttl` expires. Needs a tokio runtime.
    pub fn open(url: &str, session_ttl: Duration) -> Result<Self, Error> {
        if !url.starts_with("redis://") {
            return Err(invalid(format!("--store {url:?}: only redis://HOST:PORT[/DB] stores are known")));
        }
        #[cfg(feature = "redis")]
        {
            let redis = super::redis::Redis::open(url)?;
            Ok(SharedStores {
                sessions: Arc::new(redis.sessions(session_ttl)),
                tasks: Arc::new(redis.tasks()),
                states: Arc::new(redis.state_ledger()),
                changes: Arc::new(redis.changes()),
                idempotency: Arc::new(redis.idempotency()),
                rates: Arc::new(redis.rates()),
                events: Arc::new(redis.events()),
            })
        }
        #[cfg(not(feature = "redis"))]
        {
            let _ = session_ttl;
            Err(invalid("--store redis://…: this build has no Redis support (the mcpcore `redis` feature)"))
        }
    }
}

/// Scale-out settings, validated.
#[derive(Debug, Clone, Default)]
pub struct ScaleOut {
    store: Option<SharedStores>,
    state_keys: StateKeys,
    allowed_hosts: Vec<String>,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, message)
}

/// The keys of `text`: hex keys of at least 32 bytes, comma-separated, newest first.
pub fn parse_state_keys(text: &str) -> Result<StateKeys, Error> {
    let keys = text
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .enumerate()
        .map(|(i, k)| {
            StateKey::from_hex(k).map_err(|e| invalid(format!("{STATE_KEY_ENV} key {}: {e}", i + 1)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if keys.is_empty() {
        return Err(invalid(format!("{STATE_KEY_ENV} is empty: give hex keys of at least 32 bytes")));
    }
    Ok(StateKeys::new(keys))
}

/// The session store at `url`: `redis://…` with the `redis` feature (see [`SharedStores`] for
/// every store at once).
pub fn session_store(url: &str, ttl: Duration) -> Result<Arc<dyn SessionStore>, Error> {
    Ok(SharedStores::open(url, ttl)?.sessions)
}

impl ScaleOut {
    /// Reads the settings: `store` (a URL, when given), `state_key` (the value of
    /// [`STATE_KEY_ENV`], when set) and the `allowed_hosts` (`NAME[:PORT]`). A store without
    /// state keys is refused: each instance would draw its own key, and a `requestState` sealed
    /// by one would be rejected by the others (2026-07-28 basic/patterns/mrtr). Needs a tokio
    /// runtime when a store is given.
    pub fn new(
        store: Option<&str>,
        state_key: Option<&str>,
        allowed_hosts: &[String],
    ) -> Result<Self, Error> {
        let state_keys = match state_key {
            Some(text) => parse_state_keys(text)?,
            None => StateKeys::default(),
        };
        let store = match store {
            Some(url) => {
                if state_keys.is_empty() {
                    return Err(invalid(format!(
                        "--store needs {STATE_KEY_ENV} (hex, >= 32 bytes; the same on every instance): \
                         a per-process key would make each instance refuse the others' requestState"
                    )));
                }
                Some(SharedStores::open(url, SESSION_TTL)?)
            }
            None => None,
        };
        for h in allowed_hosts {
            let (name, port) = match h.rsplit_once(':') {
                Some((n, p)) if !n.ends_with(']') || n.starts_with('[') => (n, Some(p)),
                _ => (h.as_str(), None),
            };
            let port_ok = port.is_none_or(|p| p.parse::<u16>().is_ok());
            if name.is_empty() || !port_ok || h.contains(['/', ' ', ',']) {
                return Err(invalid(format!("--allowed-host needs NAME[:PORT], not {h:?}")));
            }
        }
        Ok(ScaleOut { store, state_keys, allowed_hosts: allowed_hosts.to_vec() })
    }

    /// The same, with the state keys read from [`STATE_KEY_ENV`].
    pub fn from_env(store: Option<&str>, allowed_hosts: &[String]) -> Result<Self, Error> {
        let key = std::env::var(STATE_KEY_ENV).ok();
        Self::new(store, key.as_deref(), allowed_hosts)
    }

    /// The configured `requestState` keys (empty: the runtime draws one per process).
    pub fn state_keys(&self) -> &StateKeys {
        &self.state_keys
    }

    /// True when sessions live in a shared store.
    pub fn has_store(&self) -> bool {
        self.store.is_some()
    }

    /// The shared stores, when a store is configured.
    pub fn stores(&self) -> Option<&SharedStores> {
        self.store.as_ref()
    }

    /// `base` with the store and the host allow-list applied. The allow-list holds the given
    /// names (as `Host` values and as `http`/`https` origins) plus, for a server bound to
    /// loopback at `local`, the loopback names with its port (so the instance stays reachable
    /// directly, as without the option).
    pub fn http_config(&self, mut base: HttpServerConfig, local: Option<SocketAddr>) -> HttpServerConfig {
        if let Some(stores) = &self.store {
            base.sessions = stores.sessions.clone();
        }
        if !self.allowed_hosts.is_empty() {
            let (mut hosts, mut origins) = match local {
                Some(a) if a.ip().is_loopback() => match HostPolicy::loopback(a.port()) {
                    HostPolicy::Allow { hosts, origins } => (hosts, origins),
                    _ => (Vec::new(), Vec::new()),
                },
                _ => (Vec::new(), Vec::new()),
            };
            for h in &self.allowed_hosts {
                hosts.push(h.clone());
                origins.push(format!("http://{h}"));
                origins.push(format!("https://{h}"));
            }
            base.hosts = HostPolicy::Allow { hosts, origins };
        }
        base
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const K2: &str = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";

    #[test]
    fn state_keys_are_a_comma_separated_hex_list_newest_first() {
        let keys = parse_state_keys(&format!("{K2}, {K1}")).unwrap();
        assert_eq!(keys.all().len(), 2);
        assert_eq!(keys.current(), Some(&StateKey::from_hex(K2).unwrap()));
        let short = parse_state_keys("00ff").unwrap_err();
        assert!(short.message().contains("at least 32 bytes"), "{short}");
        assert!(parse_state_keys(" , ").unwrap_err().message().contains("empty"));
        assert!(parse_state_keys(&format!("{K1},zz")).unwrap_err().message().contains("key 2"));
    }

    #[test]
    fn a_store_without_state_keys_and_bad_hosts_are_refused() {
        let e = ScaleOut::new(Some("redis://127.0.0.1:1"), None, &[]).unwrap_err();
        assert!(e.message().contains(STATE_KEY_ENV), "{e}");
        let e = ScaleOut::new(Some("memcached://x"), Some(K1), &[]).unwrap_err();
        assert!(e.message().contains("redis://"), "{e}");
        for bad in ["", "a b", "host:notaport", "http://x", ":80"] {
            assert!(ScaleOut::new(None, None, &[bad.to_owned()]).is_err(), "{bad:?} accepted");
        }
        let ok = ScaleOut::new(None, None, &["mcp.example.com".into(), "lb:8080".into(), "[::1]:9".into()]);
        assert!(ok.is_ok(), "{ok:?}");
    }

    #[test]
    fn allowed_hosts_extend_the_loopback_names_of_the_bound_port() {
        let s = ScaleOut::new(None, None, &["lb.example:8443".into()]).unwrap();
        let local: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let HostPolicy::Allow { hosts, origins } =
            s.http_config(HttpServerConfig::default(), Some(local)).hosts
        else {
            panic!("an allow-list")
        };
        assert!(
            hosts.contains(&"lb.example:8443".to_owned()) && hosts.contains(&"127.0.0.1:4000".to_owned())
        );
        assert!(origins.contains(&"https://lb.example:8443".to_owned()));
        let none = ScaleOut::new(None, None, &[]).unwrap();
        assert_eq!(none.http_config(HttpServerConfig::default(), Some(local)).hosts, HostPolicy::Auto);
    }
}
