//! Remote servers forwarded as local catalog entries: a [`RemoteServer`] registers the tools,
//! resources, resource templates and prompts of connected servers into the local registries
//! (with completion of their prompt arguments and template variables), keeps them in line with
//! what each remote announces, and relays each remote's requests for client input to whoever
//! made the forwarded call. [`RemoteTools`] is the tools-only front of it.
//!
//! - **Forwarding** (`forward.rs`): `tools/call`, `prompts/get`, `resources/read` and
//!   `completion/complete` go to the remote; its JSON-RPC errors come back unchanged, progress
//!   reaches the caller when the caller asked for it.
//! - **Following** (`follow.rs`): legacy sessions deliver `notifications/{tools,prompts,resources}/list_changed`
//!   and `notifications/resources/updated`; on 2026-07-28 a `subscriptions/listen` stream does
//!   (2026-07-28 basic/patterns/subscriptions). Each list change re-lists that part of the remote
//!   and updates the local registrations (`catalog.rs`), which announce the change to the local
//!   server's own clients; each resource update becomes the local registry's
//!   [`Change::ResourceUpdated`](crate::changes::Change::ResourceUpdated).
//! - **Bridging input** (`bridge.rs`, `relay.rs`, `parked.rs`): elicitation, sampling and roots
//!   the remote asks for during a forwarded call are asked of the local caller through the call's
//!   [`RequestContext`](crate::context::RequestContext), in the caller's lineage: a 2026-07-28
//!   remote's `input_required` passes through (or becomes real requests to a legacy caller); a
//!   legacy remote's requests become `input_required` rounds for a 2026-07-28 caller while the
//!   remote request stays open (the call parked until the retry). A legacy remote can only ask
//!   for what the client declared at `initialize`: connect it with [`RelayInput`] as
//!   [`ClientOptions::input`](crate::client::ClientOptions::input).
//! - **Tasks** (`task.rs`): a remote's task (Tasks extension) is followed and mirrored as the
//!   local caller's task.
//! - **Lifecycle** (`link.rs`): [`RemoteServer::mark_unavailable`] and
//!   [`RemoteServer::reconnect`] keep a server's entries across a restart of the server.
//! - **Relaying logs** (`logs.rs`): the remote's `notifications/message` reach the caller of
//!   the forwarded call (at the caller's level), while that call is the only one in flight on
//!   the connection (a log message names no request); connecting takes over the client's
//!   [`Client::on_log`](crate::client::Client::on_log).
//! - **Mounting** (`mount.rs`): [`RemoteServer::mount`] puts a prefix in front of the local
//!   names and takes only the tools a [`ToolFilter`] admits.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcpcore::client::{Client, ClientOptions, InputKinds};
//! use mcpcore::prompts::PromptRegistry;
//! use mcpcore::registry::{CollisionPolicy, ToolRegistry};
//! use mcpcore::remote::{RelayInput, RemoteServer};
//! use mcpcore::resources::ResourceRegistry;
//! use mcpcore::transport::child::StdioCommand;
//! # async fn demo() -> mcpcore::Result<()> {
//! let (tools, resources, prompts) =
//!     (Arc::new(ToolRegistry::new()), Arc::new(ResourceRegistry::new()), Arc::new(PromptRegistry::new()));
//! let remote = RemoteServer::new(tools.clone()).with_resources(resources.clone()).with_prompts(prompts.clone());
//! let kinds = InputKinds { elicitation: true, sampling: true, ..InputKinds::default() };
//! let options = ClientOptions { input: Some(RelayInput::new(kinds)), ..ClientOptions::default() };
//! let client = Client::connect_stdio(StdioCommand::new("weather-server", Vec::<String>::new()), options).await?;
//! let done = remote.connect("weather", client, CollisionPolicy::Prefix).await?;
//! println!("{} tools, {} prompts", done.tools.len(), done.prompts.len());
//! // Serve `tools`, `resources` and `prompts` with a `mcpcore::server::Server`…
//! remote.disconnect("weather").await;
//! # Ok(()) }
//! ```

mod aggregate;
mod bridge;
mod catalog;
mod follow;
mod forward;
mod link;
mod logs;
mod mount;
pub mod obo;
mod parked;
mod relay;
mod task;
mod tools;

pub use catalog::Registrations;
pub use mount::{Mount, ToolFilter};
pub use relay::RelayInput;
pub use tools::RemoteTools;

use crate::client::Client;
use crate::error::{Error, Result};
use crate::prompts::PromptRegistry;
use crate::registry::{CollisionPolicy, ToolRegistry};
use crate::resources::ResourceRegistry;
use catalog::{Catalogs, Part, Registered};
use forward::Remote;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One connected server.
#[derive(Debug)]
struct Connected {
    remote: Remote,
    mount: Mount,
    /// The parts of the catalogue taken from the remote.
    parts: Vec<Part>,
    /// The caching hints of the remote's last listings.
    hints: Mutex<catalog::Hints>,
    /// The remote URIs subscribed to on the remote.
    subscribed: Mutex<std::collections::BTreeSet<String>>,
    registered: tokio::sync::Mutex<Registered>,
    /// The last failure of a re-listing made while following the remote.
    sync_error: Mutex<Option<Error>>,
    /// The tasks following the remote's announcements (aborted at disconnect).
    followers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// Where the remote's announcements go (to the task that acts on them).
    events: Mutex<Option<tokio::sync::mpsc::UnboundedSender<crate::client::ServerEvent>>>,
}

impl Connected {
    /// Re-lists `parts` of the remote and updates the registrations.
    async fn sync(&self, catalogs: &Catalogs, parts: &[Part]) -> Result<Registrations> {
        let mut out = Registrations::default();
        let mut registered = self.registered.lock().await;
        for part in parts {
            let synced = registered.sync(*part, &self.remote, catalogs, &self.mount, &mut out).await;
            *self.hints.lock().expect("lock") = registered.hints;
            synced?;
        }
        Ok(out)
    }
}

/// Connects servers into local catalogs: a tool registry, and optionally a resource and a
/// prompt registry. Cheap to share behind an `Arc`; every method takes `&self`.
#[derive(Debug)]
pub struct RemoteServer {
    catalogs: Catalogs,
    servers: Arc<Mutex<HashMap<String, Arc<Connected>>>>,
}

impl RemoteServer {
    /// Forwards remote tools into `tools` (add resources and prompts with the `with_*` methods).
    pub fn new(tools: Arc<ToolRegistry>) -> Self {
        RemoteServer {
            catalogs: Catalogs { tools, resources: None, prompts: None, skills: None },
            servers: Arc::default(),
        }
    }

    /// Forwards remote resources and resource templates into `resources` too. A local client
    /// subscribing to one of them (`resources/subscribe`, or `subscriptions/listen` with
    /// `resourceSubscriptions`) makes this provider subscribe on the remote it comes from, so
    /// the remote's updates reach that client (see [`ResourceRegistry::on_subscribe`]).
    pub fn with_resources(mut self, resources: Arc<ResourceRegistry>) -> Self {
        self.catalogs.resources = Some(resources.clone());
        let (servers, catalogs) = (Arc::downgrade(&self.servers), self.catalogs.clone());
        resources.on_subscribe(move |uri| follow::interest(&servers, &catalogs, uri));
        self
    }

    /// Forwards the remotes' skills (Skills extension) into `skills` too: each remote that
    /// declares the extension is listed with its resources, its entries registered under the
    /// mount's URI prefix (their digests unchanged: the content is the remote's), and each
    /// file read from the remote only when asked for. Give it the same resource registry as
    /// [`RemoteServer::with_resources`].
    pub fn with_skills(mut self, skills: Arc<crate::skills::SkillRegistry>) -> Self {
        self.catalogs.skills = Some(skills);
        self
    }

    /// Forwards remote prompts into `prompts` too.
    pub fn with_prompts(mut self, prompts: Arc<PromptRegistry>) -> Self {
        self.catalogs.prompts = Some(prompts);
        self
    }

    /// Registers what `client`'s server offers (the parts it declares and this provider has a
    /// registry for) under `server_id`, resolving name collisions with `policy`, then follows
    /// the server's changes until [`RemoteServer::disconnect`]. Returns what happened to each
    /// entry. On error nothing stays registered.
    pub async fn connect(
        &self,
        server_id: &str,
        client: Client,
        policy: CollisionPolicy,
    ) -> Result<Registrations> {
        self.mount(server_id, client, Mount::with_policy(policy)).await
    }

    /// [`RemoteServer::connect`] with a [`Mount`]: the local names of the server's tools,
    /// prompts and resource templates get `mount.prefix` in front, only the tools
    /// `mount.tools` admits are registered, and `mount.policy` resolves collisions of the
    /// prefixed names.
    pub async fn mount(&self, server_id: &str, client: Client, mount: Mount) -> Result<Registrations> {
        self.connect_parts(server_id, client, mount, &[Part::Tools, Part::Prompts, Part::Resources], None)
            .await
    }

    /// [`RemoteServer::mount`] with the server's tool calls, prompts and resource reads made on
    /// behalf of each caller ([`obo`]): `client` (the host's own credentials) lists and follows
    /// the catalogue.
    pub async fn mount_on_behalf(
        &self,
        server_id: &str,
        client: Client,
        mount: Mount,
        on_behalf: Arc<obo::OnBehalf>,
    ) -> Result<Registrations> {
        let parts = [Part::Tools, Part::Prompts, Part::Resources];
        self.connect_parts(server_id, client, mount, &parts, Some(on_behalf)).await
    }

    /// [`RemoteServer::connect`] for some parts of the catalogue only.
    async fn connect_parts(
        &self,
        server_id: &str,
        client: Client,
        mount: Mount,
        parts: &[Part],
        on_behalf: Option<Arc<obo::OnBehalf>>,
    ) -> Result<Registrations> {
        let mut remote = Remote::new(client, server_id, &mount);
        remote.on_behalf = on_behalf;
        let connected = Arc::new(Connected {
            remote,
            mount,
            parts: parts.to_vec(),
            hints: Mutex::default(),
            subscribed: Mutex::default(),
            registered: tokio::sync::Mutex::new(Registered::default()),
            sync_error: Mutex::new(None),
            followers: Mutex::new(Vec::new()),
            events: Mutex::new(None),
        });
        {
            let mut servers = self.servers.lock().expect("lock");
            if servers.contains_key(server_id) {
                return Err(Error::invalid_input(format!(
                    "a server with id {server_id:?} is already connected"
                )));
            }
            servers.insert(server_id.to_owned(), connected.clone());
        }
        // Follow first, so a change made while we list is not missed (it re-lists after).
        let outcome = async {
            follow::start(&connected, &self.catalogs, parts).await?;
            connected.sync(&self.catalogs, parts).await
        }
        .await;
        match outcome {
            Ok(done) => Ok(done),
            Err(e) => {
                self.servers.lock().expect("lock").remove(server_id);
                stop(&connected, &self.catalogs).await;
                Err(e)
            }
        }
    }

    /// Unregisters everything of `server_id`, stops following it and closes its connection;
    /// returns the local names removed (tools, prompts, resource URIs, templates), sorted.
    pub async fn disconnect(&self, server_id: &str) -> Vec<String> {
        let connected = self.servers.lock().expect("lock").remove(server_id);
        match connected {
            Some(c) => {
                let mut removed = stop(&c, &self.catalogs).await;
                c.remote.parked.clear();
                if let Some(client) = c.remote.link.down("disconnected") {
                    client.close().await;
                }
                if let Some(obo) = &c.remote.on_behalf {
                    obo.close().await;
                }
                removed.sort();
                removed
            }
            None => Vec::new(),
        }
    }

    /// The connected servers seen as one, for the local server's
    /// [`ServerConfig::aggregate`](crate::engine::ServerConfig::aggregate): the union of their
    /// capabilities and the merged caching hints of their lists (see
    /// [`Aggregate`](crate::engine::Aggregate)), as they are when asked.
    pub fn aggregate(&self) -> Arc<dyn crate::engine::Aggregate> {
        Arc::new(aggregate::View { servers: self.servers.clone(), catalogs: self.catalogs.clone() })
    }

    /// The ids of connected servers, sorted.
    pub fn servers(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.servers.lock().expect("lock").keys().cloned().collect();
        ids.sort();
        ids
    }

    /// The client of `server_id` (`None` while it is unavailable).
    pub fn client(&self, server_id: &str) -> Option<Client> {
        self.get(server_id).ok().and_then(|c| c.remote.link.current())
    }

    /// Marks `server_id` unavailable (its connection ended, `why` says how): its entries stay
    /// registered, and using one fails with an error naming the server and `why`, until
    /// [`RemoteServer::reconnect`]. Stops following it; returns the connection it had.
    pub fn mark_unavailable(&self, server_id: &str, why: &str) -> Option<Client> {
        let c = self.get(server_id).ok()?;
        halt(&c);
        c.remote.parked.clear();
        c.remote.link.down(why)
    }

    /// Serves `server_id` through `client` from now on (a restarted server): its entries keep
    /// their handlers, the catalogue is listed again and brought up to date (changes reach the
    /// local clients as list changes), and the new connection is followed. On error the
    /// server stays unavailable.
    pub async fn reconnect(&self, server_id: &str, client: Client) -> Result<Registrations> {
        let c = self.get(server_id)?;
        halt(&c);
        c.remote.reconnect(client);
        let outcome = async {
            follow::start(&c, &self.catalogs, &c.parts).await?;
            follow::resubscribe(&c).await;
            c.sync(&self.catalogs, &c.parts).await
        }
        .await;
        if let Err(e) = &outcome {
            halt(&c);
            if let Some(client) = c.remote.link.down(e.message()) {
                client.close().await;
            }
        }
        outcome
    }

    /// Re-lists everything of `server_id` now (following does this on each announced change).
    pub async fn refresh(&self, server_id: &str) -> Result<Registrations> {
        let c = self.get(server_id)?;
        c.sync(&self.catalogs, &[Part::Tools, Part::Prompts, Part::Resources]).await
    }

    /// The last failure of a re-listing made while following `server_id` (the registrations
    /// then stay as they were), if any.
    pub fn sync_error(&self, server_id: &str) -> Option<Error> {
        self.get(server_id).ok().and_then(|c| c.sync_error.lock().expect("lock").clone())
    }

    /// Subscribes to updates of the resource with the local URI `uri` on `server_id` (legacy:
    /// `resources/subscribe`; 2026-07-28: a `subscriptions/listen` stream with
    /// `resourceSubscriptions`); each update is announced by the local resource registry
    /// ([`ResourceRegistry::notify_updated`]), so local clients subscribed to `uri` hear it.
    /// Local clients' own subscriptions do this by themselves (see
    /// [`RemoteServer::with_resources`]).
    pub async fn subscribe_resource(&self, server_id: &str, uri: &str) -> Result<()> {
        let c = self.get(server_id)?;
        if self.catalogs.resources.is_none() {
            return Err(Error::invalid_input("this RemoteServer forwards no resources (see with_resources)"));
        }
        let remote_uri = c.mount.remote_uri(uri).ok_or_else(|| {
            Error::invalid_input(format!(
                "{uri:?} is not a URI of server {server_id:?} (its prefix is {:?})",
                c.mount.uri_prefix
            ))
        })?;
        follow::subscribe(&c, &self.catalogs, remote_uri).await
    }

    fn get(&self, server_id: &str) -> Result<Arc<Connected>> {
        self.servers
            .lock()
            .expect("lock")
            .get(server_id)
            .cloned()
            .ok_or_else(|| Error::invalid_input(format!("no server with id {server_id:?} is connected")))
    }
}

/// Stops following `c`.
fn halt(c: &Connected) {
    c.events.lock().expect("lock").take();
    for f in c.followers.lock().expect("lock").drain(..) {
        f.abort();
    }
}

/// Stops following `c` and removes its registrations.
async fn stop(c: &Connected, catalogs: &Catalogs) -> Vec<String> {
    halt(c);
    c.registered.lock().await.clear(catalogs)
}
