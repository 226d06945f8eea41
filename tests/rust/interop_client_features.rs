//! The client's issue-4 features against official SDK servers, both lineages, stdio and HTTP:
//! resources (text, binary, template, not found), prompts (arguments, embedded resource, image),
//! completion, server→client input through one `InputHandler` (legacy requests and 2026-07-28
//! MRTR: elicitation with a schema default, two rounds, sampling, roots), change notifications
//! (legacy subscribe + `on_notification`, modern: the same calls through the client's own listen
//! stream, and `listen`) and the result cache (counted on the peer).
//!
//! Peers: `tests/interop/python/sdk_resources_server.py` (`mcp==2.3.0`, found through
//! `$MCPCORE_PYTHON` or `<workspace>/.venv`) and `tests/interop/ts/sdk_resources_server.mjs`
//! (TypeScript SDK v2 2.4.0; `npm ci` in `tests/interop/ts`), and for the TypeScript SDK's
//! `subscriptions/listen` `tests/interop/ts/sdk_listen_server.mjs`. A missing peer fails the test.

use mcpcore::client::{
    BoxFuture, Client, ClientOptions, InputHandler, InputKinds, ServerEvent, Subscription,
};
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::completion::{
    CompleteArgument, CompleteContext, CompletionReference, PromptReference,
};
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult, ElicitValue};
use mcpcore::protocol::resources::ResourceContents;
use mcpcore::protocol::roots::{ListRootsResult, Root};
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult, SamplingMessageContent};
use mcpcore::protocol::subscriptions::SubscriptionFilter;
use mcpcore::protocol::{ContentBlock, Lineage, Role};
use mcpcore::transport::child::StdioCommand;
use mcpcore::ErrorCode;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn python() -> String {
    std::env::var("MCPCORE_PYTHON")
        .unwrap_or_else(|_| workspace().join(".venv/bin/python").to_string_lossy().into_owned())
}

fn peer(dir: &str, name: &str) -> String {
    workspace().join("tests/interop").join(dir).join(name).to_string_lossy().into_owned()
}

/// The host's answers: a name (the age is left to the schema default), a colour, a sampled
/// reply and one root. Counts what it was asked.
#[derive(Default)]
struct Answers {
    asked: AtomicUsize,
}

impl InputHandler for Answers {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, sampling: true, roots: true, ..InputKinds::default() }
    }
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let field = if params.message().contains("colour") { ("colour", "teal") } else { ("name", "Ann") };
        Box::pin(async move {
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content =
                Some([(field.0.to_owned(), ElicitValue::String(field.1.into()))].into_iter().collect());
            Ok(r)
        })
    }
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        assert_eq!(params.messages.len(), 1);
        Box::pin(async {
            let content: SamplingMessageContent =
                serde_json::from_value(json!({"type": "text", "text": "hi there"})).unwrap();
            Ok(CreateMessageResult {
                role: Role::Assistant,
                content,
                model: "test-model".into(),
                stop_reason: Some("endTurn".into()),
                meta: None,
            })
        })
    }
    fn list_roots(&self) -> BoxFuture<'_, mcpcore::Result<ListRootsResult>> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        Box::pin(async {
            Ok(ListRootsResult { roots: vec![Root::new("file:///work", Some("work".into()))], meta: None })
        })
    }
}

fn options(lineage: Lineage) -> (ClientOptions, Arc<Answers>) {
    let answers = Arc::new(Answers::default());
    let o = ClientOptions {
        lineage: Some(lineage),
        input: Some(answers.clone()),
        request_timeout: Duration::from_secs(30),
        // Importing the SDK takes seconds on a loaded machine.
        probe_timeout: Duration::from_secs(30),
        ..ClientOptions::default()
    };
    (o, answers)
}

/// A server child that announces its URL on stdout (`READY <url>`).
struct Served {
    child: Child,
    url: String,
}

impl Served {
    fn start(program: &str, args: &[&str]) -> Served {
        let mut child = Command::new(program)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("READY ")
            .unwrap_or_else(|| panic!("{program} {args:?} did not announce a URL: {line:?}"))
            .to_owned();
        Served { child, url }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text_of(c: &ResourceContents) -> &str {
    match c {
        ResourceContents::Text(t) => &t.text,
        ResourceContents::Blob(b) => panic!("expected text, got a blob for {}", b.uri),
    }
}

async fn resources(client: &Client) {
    let listed: Vec<String> = client.list_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
    for uri in ["text://greeting", "bin://pixel", "counter://value"] {
        assert!(listed.iter().any(|u| u == uri), "{uri} not in {listed:?}");
    }
    let templates = client.list_resource_templates().await.unwrap();
    assert!(templates.iter().any(|t| t.uri_template == "greet://{name}"), "{templates:?}");

    let r = client.read_resource("text://greeting").await.unwrap();
    assert!(text_of(&r.contents[0]).starts_with("Hello from the"), "{r:?}");
    let r = client.read_resource("bin://pixel").await.unwrap();
    match &r.contents[0] {
        ResourceContents::Blob(b) => {
            assert_eq!(b.blob, "iVBORw==");
            assert_eq!(b.mime_type.as_deref(), Some("image/png"));
        }
        other => panic!("expected a blob, got {other:?}"),
    }
    let r = client.read_resource("greet://Bob").await.unwrap();
    assert_eq!(text_of(&r.contents[0]), "Hello, Bob!");
    let e = client.read_resource("nope://missing").await.unwrap_err();
    assert!(e.is_resource_not_found(), "{e:?}");
    assert!([ErrorCode::INVALID_PARAMS, ErrorCode::RESOURCE_NOT_FOUND_LEGACY].contains(&e.code()), "{e:?}");
}

async fn prompts(client: &Client) {
    let names: Vec<String> = client.list_prompts().await.unwrap().into_iter().map(|p| p.name).collect();
    assert!(names.contains(&"greet".to_owned()) && names.contains(&"rich".to_owned()), "{names:?}");
    let args: BTreeMap<String, String> =
        [("name".to_owned(), "Ann".to_owned()), ("style".to_owned(), "loud".to_owned())]
            .into_iter()
            .collect();
    let p = client.get_prompt("greet", Some(args)).await.unwrap();
    let v = serde_json::to_value(&p.messages[0].content).unwrap();
    assert_eq!(v["text"], "PLEASE GREET ANN", "{p:?}");
    let p = client.get_prompt("rich", None).await.unwrap();
    assert_eq!(p.messages.len(), 2, "{p:?}");
    let kinds: Vec<Value> =
        p.messages.iter().map(|m| serde_json::to_value(&m.content).unwrap()["type"].clone()).collect();
    assert_eq!(kinds, [json!("resource"), json!("image")]);
    assert!(matches!(p.messages[1].content, ContentBlock::Image(_)), "{p:?}");
    // The SDK answers an unknown prompt with code 0 (legacy) or -32603 (modern), not -32602.
    let e = client.get_prompt("no_such_prompt", None).await.unwrap_err();
    assert_eq!(e.kind(), mcpcore::ErrorKind::Rpc, "{e:?}");
}

async fn completion(client: &Client) {
    let reference = || CompletionReference::Prompt(PromptReference { name: "greet".into(), title: None });
    let arg = || CompleteArgument { name: "name".into(), value: "al".into() };
    let c = client.complete(reference(), arg(), None).await.unwrap();
    assert_eq!(c.completion.values, ["alice", "albert"]);
    let ctx =
        CompleteContext { arguments: Some([("style".to_owned(), "loud".to_owned())].into_iter().collect()) };
    let c = client.complete(reference(), arg(), Some(ctx)).await.unwrap();
    assert_eq!(c.completion.values, ["ALICE", "ALBERT"]);
}

async fn input(client: &Client, answers: &Answers) {
    let before = answers.asked.load(Ordering::SeqCst);
    let r = client.call_tool("ask_name", json!({})).await.unwrap();
    // The handler left `age` out: the client filled the schema default (42).
    assert_eq!(r.first_text(), Some("Ann/42"), "{r:?}");
    let r = client.call_tool("ask_twice", json!({})).await.unwrap();
    assert_eq!(r.first_text(), Some("Ann:teal"), "{r:?}");
    let r = client.call_tool("sample", json!({})).await.unwrap();
    assert_eq!(r.first_text(), Some("hi there"), "{r:?}");
    let r = client.call_tool("roots", json!({})).await.unwrap();
    assert_eq!(r.first_text(), Some("file:///work"), "{r:?}");
    assert_eq!(answers.asked.load(Ordering::SeqCst) - before, 5);
}

async fn stats(client: &Client) -> Value {
    let r = client.call_tool("stats", json!({})).await.unwrap();
    serde_json::from_str(r.first_text().unwrap()).unwrap()
}

fn count(stats: &Value, method: &str) -> u64 {
    stats.get(method).and_then(Value::as_u64).unwrap_or(0)
}

/// Lists and reads twice; the server counts what reached it.
async fn cache(client: &Client, cached: bool) {
    client.list_tools().await.unwrap();
    let s0 = stats(client).await;
    for _ in 0..2 {
        client.list_prompts().await.unwrap();
        client.list_tools().await.unwrap();
        client.read_resource("text://greeting").await.unwrap();
    }
    let s1 = stats(client).await;
    for m in ["prompts/list", "tools/list", "resources/read"] {
        let served = count(&s1, m) - count(&s0, m);
        // Modern: every result was cached by an earlier call (ttlMs 60 s). Legacy: no ttlMs.
        assert_eq!(served, if cached { 0 } else { 2 }, "{m}: {s0} -> {s1}");
    }
}

async fn next_events(rx: &mut mpsc::UnboundedReceiver<ServerEvent>, n: usize) -> Vec<ServerEvent> {
    let mut out = Vec::new();
    while out.len() < n {
        let e = tokio::time::timeout(Duration::from_secs(20), rx.recv()).await.expect("notification in time");
        out.push(e.expect("the stream is open"));
    }
    out
}

async fn sub_events(sub: &mut Subscription, n: usize) -> Vec<ServerEvent> {
    let mut out = Vec::new();
    while out.len() < n {
        let e =
            tokio::time::timeout(Duration::from_secs(20), sub.next()).await.expect("notification in time");
        out.push(e.unwrap_or_else(|| panic!("the subscription ended: {:?}", sub.ended())));
    }
    out
}

fn assert_changes(events: &[ServerEvent]) {
    assert!(events.contains(&ServerEvent::ToolsListChanged), "{events:?}");
    assert!(
        events.iter().any(|e| matches!(e, ServerEvent::ResourceUpdated(p) if p.uri == "counter://value")),
        "{events:?}"
    );
}

async fn legacy_notifications(client: &Client) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    client.on_notification(move |e| {
        let _ = tx.send(e);
    });
    client.subscribe_resource("counter://value").await.unwrap();
    let before: u64 =
        text_of(&client.read_resource("counter://value").await.unwrap().contents[0]).parse().unwrap();
    client.call_tool("touch", json!({"uri": "counter://value"})).await.unwrap();
    assert_changes(&next_events(&mut rx, 2).await);
    let after: u64 =
        text_of(&client.read_resource("counter://value").await.unwrap().contents[0]).parse().unwrap();
    assert_eq!(after, before + 1);
    client.unsubscribe_resource("counter://value").await.unwrap();
    assert!(client.listen(SubscriptionFilter::default()).await.is_err(), "no listen on legacy");
}

async fn modern_notifications(client: &Client) {
    // The client's own listen stream, behind the same calls as on legacy sessions.
    let (tx, mut rx) = mpsc::unbounded_channel();
    client.on_notification(move |e| {
        let _ = tx.send(e);
    });
    client.subscribe_resource("counter://value").await.unwrap();
    let acked = client.notifications_ready().await.unwrap().expect("a listen stream");
    assert_eq!(acked.tools_list_changed, Some(true), "{acked:?}");
    client.call_tool("touch", json!({"uri": "counter://value"})).await.unwrap();
    assert_changes(&next_events(&mut rx, 2).await);
    client.unsubscribe_resource("counter://value").await.unwrap();
    client.remove_notification_handler();
    assert_eq!(client.notifications_ready().await.unwrap(), None, "closed: nothing is wanted");
    // An explicit listen of the host's own.
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        resource_subscriptions: Some(vec!["counter://value".into()]),
        ..SubscriptionFilter::default()
    };
    let mut sub = client.listen(filter).await.unwrap();
    assert_eq!(sub.acknowledged().tools_list_changed, Some(true), "{:?}", sub.acknowledged());
    // Cached for 60 s…
    let before: u64 =
        text_of(&client.read_resource("counter://value").await.unwrap().contents[0]).parse().unwrap();
    client.call_tool("touch", json!({"uri": "counter://value"})).await.unwrap();
    assert_changes(&sub_events(&mut sub, 2).await);
    // …until the updated notification invalidated it.
    let after: u64 =
        text_of(&client.read_resource("counter://value").await.unwrap().contents[0]).parse().unwrap();
    assert_eq!(after, before + 1);
    drop(sub);
    // The connection lives on after the subscription ended.
    client.list_prompts().await.unwrap();
}

async fn everything(client: Client, answers: Arc<Answers>, notifications: bool) {
    let modern = client.lineage() == Lineage::Modern;
    resources(&client).await;
    prompts(&client).await;
    completion(&client).await;
    input(&client, &answers).await;
    cache(&client, modern).await;
    if !notifications {
    } else if modern {
        modern_notifications(&client).await;
    } else {
        legacy_notifications(&client).await;
    }
    client.close().await;
}

async fn python_stdio(lineage: Lineage) {
    let (o, answers) = options(lineage);
    let cmd = StdioCommand::new(python(), [peer("python", "sdk_resources_server.py")]);
    let client = Client::connect_stdio(cmd, o).await.expect("connect to the Python SDK server");
    assert_eq!(client.lineage(), lineage);
    everything(client, answers, true).await;
}

async fn over_http(program: &str, script: &str, lineage: Lineage) {
    let served = Served::start(
        program,
        &[&peer(if program == "node" { "ts" } else { "python" }, script), "--http", "--port", "0"],
    );
    let (o, answers) = options(lineage);
    let client =
        Client::connect_http(&served.url, HttpOptions::default(), o).await.expect("connect over HTTP");
    assert_eq!(client.lineage(), lineage);
    // The TypeScript peer has no change notifications (see its header).
    everything(client, answers, program != "node").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_stdio_legacy() {
    python_stdio(Lineage::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_stdio_modern() {
    python_stdio(Lineage::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_http_legacy() {
    over_http(&python(), "sdk_resources_server.py", Lineage::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_http_modern() {
    over_http(&python(), "sdk_resources_server.py", Lineage::Modern).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_http_legacy() {
    over_http("node", "sdk_resources_server.mjs", Lineage::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_http_modern() {
    over_http("node", "sdk_resources_server.mjs", Lineage::Modern).await;
}

/// The client's own listen stream against the TypeScript SDK v2's `subscriptions/listen`
/// (`createMcpHandler` with its `notify` facade): the handler's kinds and the subscribed URI are
/// asked for, acknowledged, and announced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_listen_streams_serve_the_clients_handlers() {
    use mcpcore::client::NotificationKinds;
    let served = Served::start("node", &[&peer("ts", "sdk_listen_server.mjs"), "--port", "0"]);
    let options = ClientOptions { lineage: Some(Lineage::Modern), ..ClientOptions::default() };
    let client = Client::connect_http(&served.url, HttpOptions::default(), options).await.expect("connect");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let kinds = NotificationKinds { tools_list_changed: true, resource_updated: true, ..Default::default() };
    client.on_notifications(kinds, move |e| {
        let _ = tx.send(e);
    });
    client.subscribe_resource("memo://a").await.unwrap();
    let acked = client.notifications_ready().await.unwrap().expect("a listen stream");
    assert_eq!(acked.tools_list_changed, Some(true), "{acked:?}");
    assert_eq!(acked.resource_subscriptions, Some(vec!["memo://a".to_owned()]), "{acked:?}");
    client.call_tool("change", json!({})).await.unwrap();
    let events = next_events(&mut rx, 2).await;
    assert!(events.contains(&ServerEvent::ToolsListChanged), "{events:?}");
    assert!(
        events.iter().any(|e| matches!(e, ServerEvent::ResourceUpdated(p) if p.uri == "memo://a")),
        "{events:?}"
    );
    client.close().await;
}
