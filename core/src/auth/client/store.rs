//! Where an OAuth client keeps what must survive a restart: tokens per MCP server and client
//! registrations per authorization server (keyed by issuer, 2026-07-28
//! `basic/authorization/client-registration`, "Authorization Server Binding").
//!
//! [`TokenStore`] is the trait (async, so a host can keep secrets in a keychain or a database);
//! [`MemoryTokenStore`] is the default (lost at exit), [`FileTokenStore`] a JSON file readable
//! only by its owner, for CLIs.

use crate::error::{Error, ErrorKind, Result};
use crate::future::BoxFuture;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Tokens issued for one MCP server (`Debug` shows no secret).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTokens {
    /// The access token.
    pub access_token: String,
    /// `Bearer` or `DPoP` (RFC 9449 §5: a DPoP-bound token).
    pub token_type: String,
    /// The refresh token, if the authorization server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// When it was issued (seconds since the Unix epoch), if known: with `expires_at`, its
    /// lifetime, which sets how early it is refreshed ([`StoredTokens::refresh_due`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issued_at: Option<u64>,
    /// The granted scope (space-separated), or the requested one when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The issuer of the authorization server that issued them.
    pub issuer: String,
    /// The resource (RFC 8707) they were requested for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The DPoP private key the tokens are bound to (PKCS#8 DER, base64url), for DPoP tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

/// A client registration at one authorization server (`Debug` shows no secret).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClient {
    /// The issuer of the authorization server.
    pub issuer: String,
    /// The client id it issued.
    pub client_id: String,
    /// The client secret, for confidential registrations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `client_secret_basic`, `client_secret_post` or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_method: Option<String>,
    /// The redirect URIs registered with it.
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    /// When the secret expires (seconds since the Unix epoch; 0 or absent: never).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret_expires_at: Option<u64>,
}

fn redacted(s: &Option<String>) -> &'static str {
    if s.is_some() {
        "Some(<redacted>)"
    } else {
        "None"
    }
}

/// The longest a token is refreshed ahead of its expiry.
const MAX_REFRESH_AHEAD: u64 = 60;

impl StoredTokens {
    /// True when the access token should be refreshed before it is sent at `now` (seconds since
    /// the Unix epoch): it has expired, or a tenth of its lifetime is left (at most 60 s ahead:
    /// a one-hour token at 59 minutes, a 30-s token at 27 s). The margin follows the lifetime so
    /// that a short-lived token is not refreshed on every request, as a fixed margin longer than
    /// the lifetime would (rmcp #1450). Without `expires_at` (no `expires_in`, or `expires_in`
    /// 0, which says nothing usable) it is used until the server refuses it.
    pub fn refresh_due(&self, now: u64) -> bool {
        let Some(expires_at) = self.expires_at else { return false };
        let lifetime = self.issued_at.map(|i| expires_at.saturating_sub(i));
        let ahead = lifetime.map_or(0, |l| (l / 10).min(MAX_REFRESH_AHEAD));
        now.saturating_add(ahead) >= expires_at
    }
}

impl std::fmt::Debug for StoredTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredTokens")
            .field("access_token", &"<redacted>")
            .field("token_type", &self.token_type)
            .field("refresh_token", &redacted(&self.refresh_token))
            .field("expires_at", &self.expires_at)
            .field("issued_at", &self.issued_at)
            .field("scope", &self.scope)
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("dpop_key", &redacted(&self.dpop_key))
            .finish()
    }
}

impl std::fmt::Debug for StoredClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &redacted(&self.client_secret))
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("redirect_uris", &self.redirect_uris)
            .field("client_secret_expires_at", &self.client_secret_expires_at)
            .finish()
    }
}

/// Storage for tokens (by MCP server URL) and client registrations (by issuer). Implement it to
/// keep them somewhere safe; every method may be slow (it is awaited, never on a hot path).
pub trait TokenStore: Send + Sync + std::fmt::Debug + 'static {
    /// The tokens stored for `server`.
    fn load_tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<StoredTokens>>>;
    /// Stores (`Some`) or forgets (`None`) the tokens for `server`.
    fn save_tokens(&self, server: &str, tokens: Option<StoredTokens>) -> BoxFuture<'_, Result<()>>;
    /// The registration stored for the authorization server `issuer`.
    fn load_client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<StoredClient>>>;
    /// Stores (`Some`) or forgets (`None`) the registration for `issuer`.
    fn save_client(&self, issuer: &str, client: Option<StoredClient>) -> BoxFuture<'_, Result<()>>;
    /// Held while the tokens of `server` are reloaded, refreshed and saved, so that several
    /// `OAuth`s (or processes) sharing this store refresh once: the others wait, then find the
    /// new tokens stored and use them (a rotating refresh token is spent only once). `None`
    /// (the default): no coordination beyond one `OAuth`.
    fn refresh_guard(&self, _server: &str) -> BoxFuture<'_, Option<RefreshGuard>> {
        Box::pin(async { None })
    }
}

/// What [`TokenStore::refresh_guard`] holds until it is dropped.
pub type RefreshGuard = Box<dyn std::any::Any + Send>;

/// One async lock per key, made on first use (the keys are few: MCP server URLs).
#[derive(Debug, Default)]
struct KeyedLocks(Mutex<BTreeMap<String, std::sync::Arc<tokio::sync::Mutex<()>>>>);

impl KeyedLocks {
    async fn lock(&self, key: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = self.0.lock().expect("lock").entry(key.to_owned()).or_default().clone();
        lock.lock_owned().await
    }
}

/// Everything a store holds; the JSON shape of [`FileTokenStore`]'s file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreContents {
    /// Tokens by MCP server URL.
    #[serde(default)]
    pub tokens: BTreeMap<String, StoredTokens>,
    /// Registrations by issuer.
    #[serde(default)]
    pub clients: BTreeMap<String, StoredClient>,
}

impl StoreContents {
    fn put_tokens(&mut self, server: &str, t: Option<StoredTokens>) {
        match t {
            Some(t) => self.tokens.insert(server.to_owned(), t),
            None => self.tokens.remove(server),
        };
    }
    fn put_client(&mut self, issuer: &str, c: Option<StoredClient>) {
        match c {
            Some(c) => self.clients.insert(issuer.to_owned(), c),
            None => self.clients.remove(issuer),
        };
    }
}

/// The default store: in memory, gone when the process exits.
#[derive(Default)]
pub struct MemoryTokenStore {
    contents: Mutex<StoreContents>,
    refreshing: KeyedLocks,
}

impl std::fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.contents.lock().expect("lock");
        f.debug_struct("MemoryTokenStore")
            .field("servers", &c.tokens.keys().collect::<Vec<_>>())
            .field("issuers", &c.clients.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
    /// A copy of everything stored.
    pub fn snapshot(&self) -> StoreContents {
        self.contents.lock().expect("lock").clone()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load_tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<StoredTokens>>> {
        let t = self.contents.lock().expect("lock").tokens.get(server).cloned();
        Box::pin(async move { Ok(t) })
    }
    fn save_tokens(&self, server: &str, tokens: Option<StoredTokens>) -> BoxFuture<'_, Result<()>> {
        self.contents.lock().expect("lock").put_tokens(server, tokens);
        Box::pin(async { Ok(()) })
    }
    fn load_client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<StoredClient>>> {
        let c = self.contents.lock().expect("lock").clients.get(issuer).cloned();
        Box::pin(async move { Ok(c) })
    }
    fn save_client(&self, issuer: &str, client: Option<StoredClient>) -> BoxFuture<'_, Result<()>> {
        self.contents.lock().expect("lock").put_client(issuer, client);
        Box::pin(async { Ok(()) })
    }
    fn refresh_guard(&self, server: &str) -> BoxFuture<'_, Option<RefreshGuard>> {
        let server = server.to_owned();
        Box::pin(async move { Some(Box::new(self.refreshing.lock(&server).await) as RefreshGuard) })
    }
}

/// A JSON file holding [`StoreContents`], rewritten atomically (a temporary file renamed over
/// it) on every change and created with mode 0600 on Unix. One process at a time should write
/// it; within a process, access is serialized.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: tokio::sync::Mutex<()>,
    refreshing: KeyedLocks,
}

impl FileTokenStore {
    /// Largest file accepted (a store holding more is refused rather than read).
    const MAX_BYTES: u64 = 4 * 1024 * 1024;

    /// A store at `path` (created on the first save; its directory too).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        FileTokenStore {
            path: path.into(),
            lock: tokio::sync::Mutex::new(()),
            refreshing: KeyedLocks::default(),
        }
    }

    /// The default location for a CLI: `$MCPCORE_TOKEN_STORE`, else
    /// `$XDG_CONFIG_HOME/mcpcore/oauth.json`, else `~/.config/mcpcore/oauth.json`.
    pub fn default_path() -> Option<PathBuf> {
        if let Some(p) = std::env::var_os("MCPCORE_TOKEN_STORE") {
            return Some(PathBuf::from(p));
        }
        let base = std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")))?;
        Some(base.join("mcpcore").join("oauth.json"))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn read(&self) -> Result<StoreContents> {
        match tokio::fs::metadata(&self.path).await {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StoreContents::default()),
            Err(e) => return Err(self.io_error("read", e)),
            Ok(m) if m.len() > Self::MAX_BYTES => {
                return Err(Error::new(
                    ErrorKind::Io,
                    format!("token store {} is larger than {} bytes", self.path.display(), Self::MAX_BYTES),
                ))
            }
            Ok(_) => {}
        }
        let bytes = tokio::fs::read(&self.path).await.map_err(|e| self.io_error("read", e))?;
        serde_json::from_slice(&bytes).map_err(|e| {
            Error::new(ErrorKind::Io, format!("token store {} is not valid: {e}", self.path.display()))
        })
    }

    async fn write(&self, contents: &StoreContents) -> Result<()> {
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir).await.map_err(|e| self.io_error("create the directory of", e))?;
        }
        let tmp = self.path.with_extension(format!("tmp{}", std::process::id()));
        let body = serde_json::to_vec_pretty(contents).expect("store contents serialize");
        let mut opts = tokio::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        opts.mode(0o600);
        let write = async {
            use tokio::io::AsyncWriteExt;
            let mut f = opts.open(&tmp).await?;
            f.write_all(&body).await?;
            f.sync_all().await?;
            drop(f);
            tokio::fs::rename(&tmp, &self.path).await
        };
        if let Err(e) = write.await {
            let _ = tokio::fs::remove_file(&tmp).await;
            return Err(self.io_error("write", e));
        }
        Ok(())
    }

    fn io_error(&self, what: &str, e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io, format!("cannot {what} token store {}: {e}", self.path.display()))
    }

    async fn update(&self, f: impl FnOnce(&mut StoreContents)) -> Result<()> {
        let _one = self.lock.lock().await;
        let mut c = self.read().await?;
        f(&mut c);
        self.write(&c).await
    }
}

impl TokenStore for FileTokenStore {
    fn load_tokens(&self, server: &str) -> BoxFuture<'_, Result<Option<StoredTokens>>> {
        let server = server.to_owned();
        Box::pin(async move {
            let _one = self.lock.lock().await;
            Ok(self.read().await?.tokens.remove(&server))
        })
    }
    fn save_tokens(&self, server: &str, tokens: Option<StoredTokens>) -> BoxFuture<'_, Result<()>> {
        let server = server.to_owned();
        Box::pin(async move { self.update(|c| c.put_tokens(&server, tokens)).await })
    }
    fn load_client(&self, issuer: &str) -> BoxFuture<'_, Result<Option<StoredClient>>> {
        let issuer = issuer.to_owned();
        Box::pin(async move {
            let _one = self.lock.lock().await;
            Ok(self.read().await?.clients.remove(&issuer))
        })
    }
    fn save_client(&self, issuer: &str, client: Option<StoredClient>) -> BoxFuture<'_, Result<()>> {
        let issuer = issuer.to_owned();
        Box::pin(async move { self.update(|c| c.put_client(&issuer, client)).await })
    }
    /// This process's lock for `server`, and on Unix an exclusive `flock` of `<path>.lock`, so
    /// that processes sharing the file refresh once (a store whose lock file cannot be made
    /// still coordinates within the process).
    fn refresh_guard(&self, server: &str) -> BoxFuture<'_, Option<RefreshGuard>> {
        let server = server.to_owned();
        Box::pin(async move {
            let here = self.refreshing.lock(&server).await;
            let file = self.lock_file().await;
            Some(Box::new((here, file)) as RefreshGuard)
        })
    }
}

impl FileTokenStore {
    /// `<path>.lock`, held with an exclusive `flock` (released when the file is closed).
    #[cfg(unix)]
    async fn lock_file(&self) -> Option<std::fs::File> {
        use std::os::fd::AsRawFd;
        let path = self.path.with_extension("lock");
        tokio::task::spawn_blocking(move || {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).ok()?;
            }
            let file =
                std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).ok()?;
            // SAFETY: flock on a descriptor this function owns; blocking, off the runtime.
            let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0;
            locked.then_some(file)
        })
        .await
        .ok()
        .flatten()
    }

    #[cfg(not(unix))]
    async fn lock_file(&self) -> Option<std::fs::File> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn tokens(t: &str) -> StoredTokens {
        StoredTokens {
            access_token: t.into(),
            token_type: "Bearer".into(),
            refresh_token: Some("r".into()),
            expires_at: Some(10),
            issued_at: None,
            scope: None,
            issuer: "https://as".into(),
            resource: Some("https://h/mcp".into()),
            dpop_key: None,
        }
    }

    #[test]
    fn a_token_is_refreshed_a_tenth_of_its_life_ahead_at_most_a_minute() {
        let t = |issued: Option<u64>, expires: Option<u64>| StoredTokens {
            issued_at: issued,
            expires_at: expires,
            ..tokens("a")
        };
        // One hour: refreshed from 60 s before its expiry on.
        let hour = t(Some(1000), Some(4600));
        assert!(!hour.refresh_due(4539));
        assert!(hour.refresh_due(4540));
        // 30 s: 3 s ahead, so the calls of its first 27 s keep it.
        let short = t(Some(1000), Some(1030));
        assert!((1000..1027).all(|now| !short.refresh_due(now)));
        assert!(short.refresh_due(1027) && short.refresh_due(2000));
        // 5 s: refreshed when it expires, not before every request.
        let tiny = t(Some(1000), Some(1005));
        assert!((1000..1005).all(|now| !tiny.refresh_due(now)));
        assert!(tiny.refresh_due(1005));
        // Unknown expiry (no expires_in, or expires_in 0): used until the server refuses it.
        assert!(!t(Some(1000), None).refresh_due(u64::MAX));
        // Stored before issued_at existed: refreshed once expired, as before.
        let old = t(None, Some(1000));
        assert!(!old.refresh_due(999) && old.refresh_due(1000));
    }

    #[tokio::test]
    async fn file_store_survives_a_new_instance_and_is_private() {
        let dir = std::env::temp_dir().join(format!("mcpcore-store-{}", std::process::id()));
        let path = dir.join("sub").join("oauth.json");
        let s = FileTokenStore::new(&path);
        assert_eq!(s.load_tokens("https://h/mcp").await.unwrap(), None);
        s.save_tokens("https://h/mcp", Some(tokens("a"))).await.unwrap();
        let c = StoredClient {
            issuer: "https://as".into(),
            client_id: "id".into(),
            client_secret: Some("s".into()),
            token_endpoint_auth_method: Some("client_secret_basic".into()),
            redirect_uris: vec!["http://127.0.0.1:1/callback".into()],
            client_secret_expires_at: None,
        };
        s.save_client("https://as", Some(c.clone())).await.unwrap();
        let again = FileTokenStore::new(&path);
        assert_eq!(again.load_tokens("https://h/mcp").await.unwrap(), Some(tokens("a")));
        assert_eq!(again.load_client("https://as").await.unwrap(), Some(c));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
        again.save_tokens("https://h/mcp", None).await.unwrap();
        assert_eq!(s.load_tokens("https://h/mcp").await.unwrap(), None);
        std::fs::write(&path, b"not json").unwrap();
        assert!(s.load_tokens("x").await.is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_refresh_guard_excludes_other_instances_of_the_same_file_and_memory() {
        let path = std::env::temp_dir().join(format!("mcpcore-guard-{}/tokens.json", std::process::id()));
        let (a, b) = (FileTokenStore::new(&path), FileTokenStore::new(&path));
        let held = a.refresh_guard("https://s/mcp").await.expect("a guard");
        let waiting =
            tokio::time::timeout(Duration::from_millis(300), b.refresh_guard("https://s/mcp")).await;
        assert!(waiting.is_err(), "a second instance of the file waits");
        drop(held);
        let got = tokio::time::timeout(Duration::from_secs(5), b.refresh_guard("https://s/mcp")).await;
        assert!(got.unwrap().is_some());
        let m = MemoryTokenStore::new();
        let held = m.refresh_guard("x").await.unwrap();
        assert!(tokio::time::timeout(Duration::from_millis(100), m.refresh_guard("x")).await.is_err());
        assert!(m.refresh_guard("y").await.is_some(), "per server");
        drop(held);
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[tokio::test]
    async fn memory_store_round_trips_and_debug_shows_no_secret() {
        let s = MemoryTokenStore::new();
        s.save_tokens("k", Some(tokens("secret-access"))).await.unwrap();
        let shown = format!("{s:?} {:?}", tokens("secret-access"));
        assert!(!shown.contains("secret-access") && shown.contains("<redacted>"), "{shown}");
        s.save_tokens("k", Some(tokens("a"))).await.unwrap();
        assert_eq!(s.load_tokens("k").await.unwrap().unwrap().access_token, "a");
        assert_eq!(s.snapshot().tokens.len(), 1);
    }
}
