//! `RemoteServer` against real peers: the official reference server
//! `@modelcontextprotocol/server-everything` (stdio child, legacy lineage) and mcpcore servers on
//! 127.0.0.1 HTTP (both lineages), forwarded through a local mcpcore `Server` over HTTP to a
//! local mcpcore `Client` speaking either lineage.
//!
//! Proves: tools, resources, templates, prompts and completion forwarded; the remote's list
//! changes followed (the local client hears `list_changed`); resource updates passed on; the
//! remote's elicitation and sampling asked of the local caller and the answers reaching the
//! remote's result; disconnect removing everything. The everything server lives in
//! `tests/interop/ts` (`npm ci` there); a missing peer fails the test.

use mcpcore::client::{BoxFuture, Client, ClientOptions, InputHandler, InputKinds, ServerEvent};
use mcpcore::engine::ServerConfig;
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::prompts::{PromptArguments, PromptRegistry};
use mcpcore::protocol::completion::{
    CompleteArgument, CompleteContext, CompletionReference, PromptReference, ResourceTemplateReference,
};
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue};
use mcpcore::protocol::prompts::{GetPromptResult, Prompt};
use mcpcore::protocol::resources::ResourceContents;
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult, SamplingMessageContent};
use mcpcore::protocol::{CallToolResult, Lineage, Role, Tool};
use mcpcore::registry::{Arguments, CollisionPolicy, Registration, RequestContext, ToolRegistry};
use mcpcore::remote::{RelayInput, RemoteServer};
use mcpcore::resources::ResourceRegistry;
use mcpcore::server::Server;
use mcpcore::transport::child::StdioCommand;
use serde_json::json;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The bound of every wait on an event.
const WAIT: Duration = Duration::from_secs(20);

fn everything_cmd() -> StdioCommand {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let entry = root.join("interop/ts/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(entry.exists(), "{} is missing: run `npm ci` in tests/interop/ts", entry.display());
    StdioCommand::new("node", [entry.to_string_lossy().into_owned(), "stdio".into()])
}

/// Input kinds the proxy declares upstream.
fn relay_kinds() -> InputKinds {
    InputKinds { elicitation: true, sampling: true, ..InputKinds::default() }
}

fn relay_options(lineage: Lineage) -> ClientOptions {
    ClientOptions {
        lineage: Some(lineage),
        input: Some(RelayInput::new(relay_kinds())),
        request_timeout: Duration::from_secs(30),
        probe_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    }
}

async fn everything() -> Client {
    Client::connect_stdio(everything_cmd(), relay_options(Lineage::Legacy))
        .await
        .expect("start server-everything")
}

/// The local caller's answers: a form with a name, a sampled text; what was asked is kept.
#[derive(Default)]
struct Answers {
    asked: Mutex<Vec<String>>,
}

impl InputHandler for Answers {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, sampling: true, ..InputKinds::default() }
    }
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        self.asked.lock().unwrap().push(format!("elicit: {}", params.message()));
        Box::pin(async {
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content = Some([("name".to_owned(), ElicitValue::String("Ann Local".into()))].into());
            Ok(r)
        })
    }
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        let asked = serde_json::to_string(&params.messages).unwrap();
        self.asked.lock().unwrap().push(format!("sample: {asked}"));
        Box::pin(async {
            let content: SamplingMessageContent =
                serde_json::from_value(json!({"type": "text", "text": "the local model says hi"})).unwrap();
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content,
                model: "local-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        })
    }
}

/// A local mcpcore server over the three registries a `RemoteServer` fills, on 127.0.0.1 HTTP.
struct Proxy {
    tools: Arc<ToolRegistry>,
    remote: RemoteServer,
    serving: HttpServing,
}

impl Proxy {
    async fn start() -> Proxy {
        let tools = Arc::new(ToolRegistry::new());
        let resources = Arc::new(ResourceRegistry::new());
        let prompts = Arc::new(PromptRegistry::new());
        let remote =
            RemoteServer::new(tools.clone()).with_resources(resources.clone()).with_prompts(prompts.clone());
        let server = Server::new(ServerConfig::new("proxy", "1"), tools.clone())
            .with_resources(resources)
            .with_prompts(prompts);
        let serving =
            server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
        Proxy { tools, remote, serving }
    }

    /// A local client of the proxy, with its notifications collected.
    async fn client(&self, lineage: Lineage, answers: Option<Arc<Answers>>) -> (Client, Events) {
        let options = ClientOptions {
            lineage: Some(lineage),
            input: answers.map(|a| a as Arc<dyn InputHandler>),
            cache: false,
            request_timeout: Duration::from_secs(30),
            ..ClientOptions::default()
        };
        // Legacy: the GET stream notifications travel on is open before connect returns.
        let http = HttpOptions { standalone_stream: true, ..HttpOptions::default() };
        let client = Client::connect_http(&self.serving.url(), http, options).await.unwrap();
        let events = Events::of(&client).await;
        (client, events)
    }
}

/// The change notifications a local client received (legacy session notifications, or a
/// modern listen stream's).
struct Events(mpsc::UnboundedReceiver<ServerEvent>, Lineage);

impl Events {
    async fn of(client: &Client) -> Events {
        let (tx, rx) = mpsc::unbounded_channel();
        if client.lineage() == Lineage::Modern {
            let filter = mcpcore::protocol::subscriptions::SubscriptionFilter {
                tools_list_changed: Some(true),
                prompts_list_changed: Some(true),
                resources_list_changed: Some(true),
                ..Default::default()
            };
            let mut sub = client.listen(filter).await.unwrap();
            tokio::spawn(async move {
                while let Some(e) = sub.next().await {
                    if tx.send(e).is_err() {
                        return;
                    }
                }
            });
        } else {
            client.on_notification(move |e| {
                let _ = tx.send(e);
            });
        }
        // Legacy: a request after `initialized` waits until the GET stream is open.
        if client.lineage() == Lineage::Legacy {
            client.request("ping", json!({})).await.unwrap();
        }
        Events(rx, client.lineage())
    }

    /// Waits (bounded) for `event`, skipping others.
    async fn expect(&mut self, event: ServerEvent) {
        let seen = tokio::time::timeout(WAIT, async {
            loop {
                match self.0.recv().await {
                    Some(e) if e.method() == event.method() => return,
                    Some(_) => {}
                    None => panic!("the notification stream ended before {}", event.method()),
                }
            }
        })
        .await;
        assert!(seen.is_ok(), "no {} within {WAIT:?} (local {:?})", event.method(), self.1);
    }

    /// Waits on notifications of `event`'s kind until `check` holds (bounded).
    async fn until<F, Fut>(&mut self, event: ServerEvent, mut check: F)
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = bool>,
    {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            self.expect(event.clone()).await;
            if check().await {
                return;
            }
            assert!(tokio::time::Instant::now() < deadline, "{} never brought the change", event.method());
        }
    }
}

fn names(tools: &[Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.clone()).collect()
}

fn text_of(contents: &[ResourceContents]) -> String {
    contents
        .iter()
        .map(|c| match c {
            ResourceContents::Text(t) => t.text.clone(),
            ResourceContents::Blob(b) => b.blob.clone(),
        })
        .collect()
}

fn texts(r: &CallToolResult) -> String {
    serde_json::to_string(&r.content).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_catalogue_reaches_a_local_client_and_leaves_on_disconnect() {
    let proxy = Proxy::start().await;
    let done = proxy.remote.connect("ev", everything().await, CollisionPolicy::Prefix).await.unwrap();
    assert!(done.tools.contains(&Registration::Registered("echo".into())), "{done:?}");
    assert!(!done.resources.is_empty() && !done.templates.is_empty() && !done.prompts.is_empty(), "{done:?}");
    let upstream = proxy.remote.client("ev").unwrap();

    for lineage in [Lineage::Legacy, Lineage::Modern] {
        let (client, _events) = proxy.client(lineage, None).await;
        let tools = names(&client.list_tools().await.unwrap());
        // The tools the everything server offers only to clients declaring elicitation and
        // sampling are there: the relay's declarations reached it.
        for t in ["echo", "get-sum", "trigger-elicitation-request", "trigger-sampling-request"] {
            assert!(tools.contains(&t.to_owned()), "{lineage:?}: {t} missing from {tools:?}");
        }
        let r = client.call_tool("echo", json!({"message": "through the proxy"})).await.unwrap();
        assert_eq!(r.first_text(), Some("Echo: through the proxy"), "{lineage:?}");
        let sum = client.call_tool("get-sum", json!({"a": 2, "b": 40})).await.unwrap();
        assert!(texts(&sum).contains("42"), "{lineage:?}: {sum:?}");

        // Fixed resources and templates, read through the proxy, equal a direct read.
        let resources = client.list_resources().await.unwrap();
        assert_eq!(
            resources.iter().map(|r| r.uri.clone()).collect::<Vec<_>>(),
            upstream.list_resources().await.unwrap().iter().map(|r| r.uri.clone()).collect::<Vec<_>>()
        );
        let first = &resources[0].uri;
        let local = client.read_resource(first).await.unwrap();
        let direct = upstream.read_resource(first).await.unwrap();
        assert_eq!(text_of(&local.contents), text_of(&direct.contents), "{lineage:?} {first}");
        let templates = client.list_resource_templates().await.unwrap();
        let text_template = "demo://resource/dynamic/text/{resourceId}";
        assert!(templates.iter().any(|t| t.uri_template == text_template), "{templates:?}");
        let read = client.read_resource("demo://resource/dynamic/text/7").await.unwrap();
        let direct = upstream.read_resource("demo://resource/dynamic/text/7").await.unwrap();
        // The text carries the time it was made: equal up to it.
        let made = |t: String| t.split(" created at").next().unwrap_or_default().to_owned();
        assert_eq!(made(text_of(&read.contents)), made(text_of(&direct.contents)));
        assert!(text_of(&read.contents).starts_with("Resource 7: "), "{read:?}");

        // Prompts and completion of their arguments and of template variables.
        let prompts = client.list_prompts().await.unwrap();
        assert!(prompts.iter().any(|p| p.name == "completable-prompt"), "{prompts:?}");
        let args = PromptArguments::from([("city".to_owned(), "Oslo".to_owned())]);
        let got = client.get_prompt("args-prompt", Some(args)).await.unwrap();
        assert!(serde_json::to_string(&got.messages).unwrap().contains("Oslo"), "{got:?}");
        let prompt_ref = || {
            CompletionReference::Prompt(PromptReference { name: "completable-prompt".into(), title: None })
        };
        let arg = |name: &str, value: &str| CompleteArgument { name: name.into(), value: value.into() };
        let c = client.complete(prompt_ref(), arg("department", "E"), None).await.unwrap();
        assert_eq!(c.completion.values, ["Engineering"], "{lineage:?}");
        let context =
            CompleteContext { arguments: Some([("department".to_owned(), "Sales".to_owned())].into()) };
        let c = client.complete(prompt_ref(), arg("name", ""), Some(context)).await.unwrap();
        assert_eq!(c.completion.values, ["David", "Eve", "Frank"], "the context reached the remote");
        let template_ref =
            CompletionReference::Resource(ResourceTemplateReference { uri: text_template.into() });
        let c = client.complete(template_ref, arg("resourceId", "3"), None).await.unwrap();
        assert_eq!(c.completion.values, ["3"]);
        client.close().await;
    }

    let (client, mut events) = proxy.client(Lineage::Legacy, None).await;
    let removed = proxy.remote.disconnect("ev").await;
    assert!(
        removed.contains(&"echo".to_owned()) && removed.contains(&"args-prompt".to_owned()),
        "{removed:?}"
    );
    events.expect(ServerEvent::ToolsListChanged).await;
    assert!(client.list_tools().await.unwrap().is_empty());
    assert!(client.list_prompts().await.unwrap().is_empty());
    assert!(client.list_resources().await.unwrap().is_empty());
    assert!(client.list_resource_templates().await.unwrap().is_empty());
    assert!(proxy.tools.is_empty() && proxy.remote.servers().is_empty());
    assert!(client.call_tool("echo", json!({"message": "x"})).await.is_err(), "the tool is gone");
    client.close().await;
    proxy.serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_elicitation_and_sampling_reach_the_local_caller() {
    let proxy = Proxy::start().await;
    proxy.remote.connect("ev", everything().await, CollisionPolicy::Error).await.unwrap();
    for lineage in [Lineage::Legacy, Lineage::Modern] {
        let answers = Arc::new(Answers::default());
        let (client, _events) = proxy.client(lineage, Some(answers.clone())).await;
        let r = client.call_tool("trigger-elicitation-request", json!({})).await.unwrap();
        assert!(!r.is_error(), "{lineage:?}: {r:?}");
        assert!(texts(&r).contains("Name: Ann Local"), "{lineage:?}: the answer reached the remote: {r:?}");
        let asked = answers.asked.lock().unwrap().clone();
        assert!(asked[0].starts_with("elicit: Please provide inputs"), "{lineage:?}: {asked:?}");

        let r = client
            .call_tool("trigger-sampling-request", json!({"prompt": "ping", "maxTokens": 10}))
            .await
            .unwrap();
        assert!(texts(&r).contains("the local model says hi"), "{lineage:?}: {r:?}");
        assert!(texts(&r).contains("local-model"), "{lineage:?}: {r:?}");
        let asked = answers.asked.lock().unwrap().clone();
        assert!(
            asked.iter().any(|a| a.starts_with("sample:") && a.contains("ping")),
            "{lineage:?}: {asked:?}"
        );
        client.close().await;
    }
    // A caller that declared no input capability is never asked: the remote gets an error.
    let (client, _events) = proxy.client(Lineage::Legacy, None).await;
    let r = client.call_tool("trigger-elicitation-request", json!({})).await;
    assert!(
        r.map(|r| r.is_error()).unwrap_or(true),
        "no answer can have come from a caller that cannot answer"
    );
    client.close().await;
    proxy.remote.disconnect("ev").await;
    proxy.serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_resource_updates_reach_local_subscribers() {
    let proxy = Proxy::start().await;
    proxy.remote.connect("ev", everything().await, CollisionPolicy::Error).await.unwrap();
    let (client, _) = proxy.client(Lineage::Legacy, None).await;
    let uri = client.list_resources().await.unwrap()[0].uri.clone();
    let (tx, mut rx) = mpsc::unbounded_channel();
    client.on_notification(move |e| {
        if let ServerEvent::ResourceUpdated(p) = e {
            let _ = tx.send(p.uri);
        }
    });
    client.subscribe_resource(&uri).await.unwrap();
    proxy.remote.subscribe_resource("ev", &uri).await.unwrap();
    // The everything server sends an update for each subscribed URI as soon as this is on.
    let r = client.call_tool("toggle-subscriber-updates", json!({})).await.unwrap();
    assert!(r.first_text().unwrap_or_default().starts_with("Started"), "{r:?}");
    let got = tokio::time::timeout(WAIT, rx.recv()).await.expect("an update within the bound");
    assert_eq!(got.as_deref(), Some(uri.as_str()));
    client.call_tool("toggle-subscriber-updates", json!({})).await.unwrap();
    client.close().await;
    proxy.remote.disconnect("ev").await;
    proxy.serving.shutdown().await.unwrap();
}

/// An mcpcore server on 127.0.0.1 HTTP whose catalogue the test changes.
struct Upstream {
    tools: Arc<ToolRegistry>,
    prompts: Arc<PromptRegistry>,
    resources: Arc<ResourceRegistry>,
    serving: HttpServing,
}

fn tool(name: &str, description: &str) -> Tool {
    Tool::new(name, description, json!({"type": "object", "properties": {}}))
}

fn add_tool(r: &ToolRegistry, name: &str, description: &str) {
    let reply = format!("{name} answers");
    r.register(tool(name, description), move |_: Arguments, _: RequestContext| {
        let reply = reply.clone();
        async move { Ok(CallToolResult::text(reply)) }
    })
    .unwrap();
}

impl Upstream {
    async fn start() -> Upstream {
        let tools = Arc::new(ToolRegistry::new());
        let prompts = Arc::new(PromptRegistry::new());
        let resources = Arc::new(ResourceRegistry::new());
        add_tool(&tools, "first", "the first tool");
        // Asks its caller for a name (legacy: elicitation/create; 2026-07-28: MRTR).
        tools
            .register(tool("ask", "asks for a name"), |_: Arguments, ctx: RequestContext| async move {
                let form: ElicitRequestParams = serde_json::from_value(json!({
                    "message": "Who are you?",
                    "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
                }))
                .unwrap();
                let answer = ctx.elicit("who", form).await?;
                Ok(CallToolResult::text(format!("hello {}", json!(answer.content))))
            })
            .unwrap();
        let server = Server::new(ServerConfig::new("upstream", "1"), tools.clone())
            .with_resources(resources.clone())
            .with_prompts(prompts.clone());
        let serving =
            server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
        Upstream { tools, prompts, resources, serving }
    }

    async fn client(&self, lineage: Lineage) -> Client {
        let mut options = relay_options(lineage);
        options.cache = true;
        Client::connect_http(&self.serving.url(), HttpOptions::default(), options).await.unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remote_list_changes_are_followed_on_both_lineages() {
    for upstream_lineage in [Lineage::Modern, Lineage::Legacy] {
        let upstream = Upstream::start().await;
        let proxy = Proxy::start().await;
        proxy
            .remote
            .connect("up", upstream.client(upstream_lineage).await, CollisionPolicy::Error)
            .await
            .unwrap();
        for local_lineage in [Lineage::Legacy, Lineage::Modern] {
            let case = format!("upstream {upstream_lineage:?}, local {local_lineage:?}");
            let (client, mut events) = proxy.client(local_lineage, None).await;
            let listed = || async { names(&client.list_tools().await.unwrap()) };
            assert_eq!(listed().await, ["ask", "first"], "{case}");

            // Added.
            add_tool(&upstream.tools, "late", "a tool added after connect");
            events
                .until(ServerEvent::ToolsListChanged, || async {
                    listed().await.contains(&"late".to_owned())
                })
                .await;
            assert_eq!(client.call_tool("late", json!({})).await.unwrap().first_text(), Some("late answers"));
            // Changed: replaced with the new descriptor.
            let reworded = format!("the first tool, reworded for {case}");
            upstream.tools.unregister("first");
            add_tool(&upstream.tools, "first", &reworded);
            events
                .until(ServerEvent::ToolsListChanged, || async {
                    let tools = client.list_tools().await.unwrap();
                    tools.iter().any(|t| t.description.as_deref() == Some(reworded.as_str()))
                })
                .await;
            // Removed.
            upstream.tools.unregister("late");
            events
                .until(ServerEvent::ToolsListChanged, || async {
                    !listed().await.contains(&"late".to_owned())
                })
                .await;

            // Prompts and resources follow too.
            let name = format!("p-{local_lineage:?}");
            upstream
                .prompts
                .add(Prompt::new(&name), |_: PromptArguments, _| async {
                    Ok(GetPromptResult::user_text("from upstream"))
                })
                .unwrap();
            events
                .until(ServerEvent::PromptsListChanged, || async {
                    client.list_prompts().await.unwrap().iter().any(|p| p.name == name)
                })
                .await;
            let got = client.get_prompt(&name, None).await.unwrap();
            assert!(serde_json::to_string(&got).unwrap().contains("from upstream"), "{case}");
            let uri = format!("memo://{local_lineage:?}");
            upstream.resources.add_text(&uri, "memo", "text/plain", "buy milk").unwrap();
            events
                .until(ServerEvent::ResourcesListChanged, || async {
                    client.list_resources().await.unwrap().iter().any(|r| r.uri == uri)
                })
                .await;
            assert_eq!(text_of(&client.read_resource(&uri).await.unwrap().contents), "buy milk", "{case}");
            assert!(proxy.remote.sync_error("up").is_none(), "{case}");
            client.close().await;
        }
        let (client, mut events) = proxy.client(Lineage::Legacy, None).await;
        proxy.remote.disconnect("up").await;
        events.expect(ServerEvent::ToolsListChanged).await;
        assert!(client.list_tools().await.unwrap().is_empty());
        assert!(client.list_prompts().await.unwrap().is_empty());
        assert!(client.list_resources().await.unwrap().is_empty());
        client.close().await;
        proxy.serving.shutdown().await.unwrap();
        upstream.serving.shutdown().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcpcore_remotes_elicitation_reaches_the_local_caller_on_every_lineage_pair() {
    for upstream_lineage in [Lineage::Modern, Lineage::Legacy] {
        let upstream = Upstream::start().await;
        let proxy = Proxy::start().await;
        proxy
            .remote
            .connect("up", upstream.client(upstream_lineage).await, CollisionPolicy::Error)
            .await
            .unwrap();
        for local_lineage in [Lineage::Legacy, Lineage::Modern] {
            let case = format!("upstream {upstream_lineage:?}, local {local_lineage:?}");
            let answers = Arc::new(Answers::default());
            let (client, _events) = proxy.client(local_lineage, Some(answers.clone())).await;
            let r = client.call_tool("ask", json!({})).await.unwrap();
            assert_eq!(r.first_text(), Some(r#"hello {"name":"Ann Local"}"#), "{case}: {r:?}");
            let asked = answers.asked.lock().unwrap().clone();
            assert_eq!(asked, ["elicit: Who are you?"], "{case}: asked once");
            client.close().await;
        }
        // A caller without the capability: the remote's tool fails, no answer is invented.
        let (client, _events) = proxy.client(Lineage::Modern, None).await;
        let r = client.call_tool("ask", json!({})).await;
        assert!(r.map(|r| r.is_error()).unwrap_or(true), "upstream {upstream_lineage:?}");
        client.close().await;
        proxy.remote.disconnect("up").await;
        proxy.serving.shutdown().await.unwrap();
        upstream.serving.shutdown().await.unwrap();
    }
}
