//! The gateway's lineage bridge for client input, against real upstream servers on 127.0.0.1
//! HTTP (mcpcore servers restricted to one lineage) and real clients:
//!
//! - a 2026-07-28 caller in front of a legacy upstream: each upstream elicitation becomes an
//!   `input_required` round, and the caller's retry feeds the answer to the upstream request
//!   still waiting (the upstream tool runs once, not once per round); a parked call and a new
//!   one do not mix; swapped `requestState`s are refused; another gateway instance (same state
//!   keys) that never saw round 1 completes the call by replaying the sealed answers;
//! - a legacy caller in front of a 2026-07-28 upstream: the upstream's three `inputRequests`
//!   become three real requests to the caller, then the upstream is retried with the answers;
//! - progress reaches the caller across the bridge, and a caller's cancellation reaches the
//!   upstream tool;
//! - an upstream task becomes the gateway's own (answered with `tasks/update`, cancelled with
//!   `tasks/cancel` up to the upstream);
//! - an upstream's log messages reach each caller at that caller's own level.

use mcpcore::client::{BoxFuture, Client, ClientOptions, InputHandler, InputKinds};
use mcpcore::engine::ServerConfig;
use mcpcore::gateway::{Gateway, GatewayConfig};
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcpcore::protocol::mrtr::{InputRequest, InputRequests};
use mcpcore::protocol::roots::{ListRootsRequest, ListRootsResult, Root};
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpcore::protocol::{CallToolResult, Lineage, ProtocolVersion, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use mcpcore::state::{StateKey, StateKeys};
use mcpcore_tests::http::{eventually, send, Raw, MODERN};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn form(message: &str) -> ElicitRequestParams {
    serde_json::from_value(json!({"message": message, "requestedSchema": {"type": "object",
        "properties": {"answer": {"type": "string"}}, "required": ["answer"]}}))
    .unwrap()
}

fn answer_of(r: &ElicitResult) -> String {
    r.content
        .as_ref()
        .and_then(|c| serde_json::to_value(c.get("answer")).ok())
        .unwrap_or_default()
        .to_string()
}

/// What the upstream's tools saw.
#[derive(Default)]
struct Seen {
    /// Runs of `two_questions`.
    runs: AtomicUsize,
    /// Runs of `slow` started.
    started: AtomicUsize,
    /// Runs of `slow` that were dropped before they finished.
    cancelled: AtomicUsize,
}

/// Counts a dropped `slow` run.
struct DropCount(Arc<Seen>, bool);

impl DropCount {
    /// The run finished.
    fn done(mut self) {
        self.1 = true;
    }
}

impl Drop for DropCount {
    fn drop(&mut self) {
        if !self.1 {
            self.0.cancelled.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// An upstream mcpcore server speaking only `lineage`, on 127.0.0.1 HTTP.
async fn upstream(lineage: Lineage) -> (HttpServing, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let tools = ToolRegistry::new();
    let no_args = |name: &str| Tool::new(name, name, json!({"type": "object"}));
    let s = seen.clone();
    tools
        .register(no_args("two_questions"), move |_: Arguments, ctx: ToolContext| {
            let s = s.clone();
            async move {
                let run = s.runs.fetch_add(1, Ordering::SeqCst) + 1;
                ctx.progress(1.0, Some(3.0), Some("asking"));
                let first = ctx.elicit("first", form("First question?")).await?;
                let second = ctx.elicit("second", form("Second question?")).await?;
                Ok(CallToolResult::text(format!(
                    "run {run}: {} then {}",
                    answer_of(&first),
                    answer_of(&second)
                )))
            }
        })
        .unwrap();
    tools
        .register(
            Tool::new("who", "who", json!({"type": "object", "properties": {"name": {"type": "string"}}})),
            |args: Arguments, ctx: ToolContext| async move {
                let name = args["name"].as_str().unwrap_or_default().to_owned();
                let r = ctx.elicit("who", form(&format!("Who is {name}?"))).await?;
                Ok(CallToolResult::text(format!("{name} is {}", answer_of(&r))))
            },
        )
        .unwrap();
    tools
        .register(no_args("three_at_once"), |_: Arguments, ctx: ToolContext| async move {
            let mut requests = InputRequests::new();
            requests.insert(
                "name".into(),
                InputRequest::Elicit(mcpcore::protocol::elicitation::ElicitRequest::new(form("Name?"))),
            );
            let sampling: CreateMessageRequestParams = serde_json::from_value(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 5
            }))
            .unwrap();
            requests.insert(
                "greeting".into(),
                InputRequest::CreateMessage(mcpcore::protocol::sampling::CreateMessageRequest::new(sampling)),
            );
            requests.insert("roots".into(), InputRequest::ListRoots(ListRootsRequest::default()));
            let answers = ctx.input(requests).await?;
            Ok(CallToolResult::text(format!(
                "{} answers: {:?}",
                answers.len(),
                answers.keys().collect::<Vec<_>>()
            )))
        })
        .unwrap();
    let s = seen.clone();
    tools
        .register(no_args("slow"), move |_: Arguments, _: ToolContext| {
            s.started.fetch_add(1, Ordering::SeqCst);
            let guard = DropCount(s.clone(), false);
            async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                guard.done();
                Ok(CallToolResult::text("done"))
            }
        })
        .unwrap();
    let mut config = ServerConfig::new("upstream", "1");
    config.versions = ProtocolVersion::ALL.iter().copied().filter(|v| v.lineage() == lineage).collect();
    let server = Server::new(config, Arc::new(tools));
    (server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap(), seen)
}

fn keys() -> StateKeys {
    StateKeys::new([StateKey::new(vec![7u8; 32])])
}

/// A gateway (in-process) fronting `url` as the entry "up" (no prefix), served on HTTP.
async fn gateway(url: &str) -> (Gateway, HttpServing) {
    let config =
        GatewayConfig::from_value(json!({"mcpServers": {"up": {"url": url, "type": "http", "prefix": ""}}}))
            .unwrap();
    let gateway = Gateway::start(&config).await.unwrap();
    let serving = gateway
        .server()
        .with_state_keys(keys())
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
        .await
        .unwrap();
    (gateway, serving)
}

/// A raw 2026-07-28 `tools/call` declaring elicitation, with optional MRTR fields.
fn call(id: i64, tool: &str, args: Value, responses: Option<Value>, state: Option<&Value>) -> Value {
    let mut params = json!({"name": tool, "arguments": args, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "progressToken": format!("p{id}"),
    }});
    if let Some(r) = responses {
        params["inputResponses"] = r;
    }
    if let Some(s) = state {
        params["requestState"] = s.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn accept(answer: &str) -> Value {
    json!({"action": "accept", "content": {"answer": answer}})
}

/// The single input request of an `input_required` result: its key and its message.
fn only_request(result: &Value) -> (String, String) {
    assert_eq!(result["resultType"], "input_required", "{result}");
    let requests = result["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{result}");
    let (key, req) = requests.iter().next().unwrap();
    assert_eq!(req["method"], "elicitation/create", "{result}");
    (key.clone(), req["params"]["message"].as_str().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_caller_answers_a_legacy_upstream_that_keeps_waiting() {
    let (up, seen) = upstream(Lineage::Legacy).await;
    let (gw, serving) = gateway(&up.url()).await;
    assert_eq!(gw.client("up").unwrap().lineage(), Lineage::Legacy);
    let raw = Raw::new(&serving.url());

    // Round 1: the upstream's first elicitation, with its progress before it.
    let r = send(raw.post_modern(&call(1, "two_questions", json!({}), None, None))).await;
    let progress: Vec<Value> = r
        .events()
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 1, "the upstream's progress reached the caller: {}", r.text);
    assert_eq!(progress[0]["params"]["progressToken"], "p1");
    let result = r.json["result"].clone();
    let (k1, m1) = only_request(&result);
    assert_eq!((k1.as_str(), m1.as_str()), ("remote.up.1", "First question?"));
    let s1 = result["requestState"].clone();

    // Round 2: the answer goes to the waiting upstream request, which asks its second question.
    let r = send(raw.post_modern(&call(
        2,
        "two_questions",
        json!({}),
        Some(json!({ k1: accept("A") })),
        Some(&s1),
    )))
    .await;
    let result = r.json["result"].clone();
    let (k2, m2) = only_request(&result);
    assert_eq!((k2.as_str(), m2.as_str()), ("remote.up.2", "Second question?"));
    let s2 = result["requestState"].clone();
    assert_ne!(s1, s2);

    // Round 3: complete; the upstream tool ran once (the answers were fed to it, not replayed).
    let r = send(raw.post_modern(&call(
        3,
        "two_questions",
        json!({}),
        Some(json!({ k2: accept("B") })),
        Some(&s2),
    )))
    .await;
    assert_eq!(r.json["result"]["resultType"], "complete", "{}", r.json);
    assert_eq!(r.json["result"]["content"][0]["text"], r#"run 1: "A" then "B""#);
    assert_eq!(seen.runs.load(Ordering::SeqCst), 1);

    // A parked call and a new one do not mix: "x" waits for its answer while "y" asks its own.
    let rx = send(raw.post_modern(&call(4, "who", json!({"name": "x"}), None, None))).await;
    let (kx, mx) = only_request(&rx.json["result"]);
    let sx = rx.json["result"]["requestState"].clone();
    let ry = send(raw.post_modern(&call(5, "who", json!({"name": "y"}), None, None))).await;
    let (ky, my) = only_request(&ry.json["result"]);
    let sy = ry.json["result"]["requestState"].clone();
    assert_eq!((mx.as_str(), my.as_str()), ("Who is x?", "Who is y?"));
    // y's state on x's call is refused (it is bound to y's arguments).
    let r = send(raw.post_modern(&call(
        6,
        "who",
        json!({"name": "x"}),
        Some(json!({ kx.clone(): accept("ex") })),
        Some(&sy),
    )))
    .await;
    assert_eq!(r.json["error"]["code"], -32602, "{}", r.json);
    // Answered in the other order, each gets its own answer.
    let r = send(raw.post_modern(&call(
        7,
        "who",
        json!({"name": "y"}),
        Some(json!({ ky: accept("why") })),
        Some(&sy),
    )))
    .await;
    assert_eq!(r.json["result"]["content"][0]["text"], r#"y is "why""#, "{}", r.json);
    let r = send(raw.post_modern(&call(
        8,
        "who",
        json!({"name": "x"}),
        Some(json!({ kx: accept("ex") })),
        Some(&sx),
    )))
    .await;
    assert_eq!(r.json["result"]["content"][0]["text"], r#"x is "ex""#, "{}", r.json);

    // Another gateway instance with the same state keys never saw round 1: it runs the call
    // afresh and replays the sealed answers (the upstream runs the tool a second time).
    let (gw2, serving2) = gateway(&up.url()).await;
    let r = send(raw.post_modern(&call(9, "two_questions", json!({}), None, None))).await;
    let (k1, _) = only_request(&r.json["result"]);
    let s1 = r.json["result"]["requestState"].clone();
    let raw2 = Raw::new(&serving2.url());
    let r = send(raw2.post_modern(&call(
        10,
        "two_questions",
        json!({}),
        Some(json!({ k1: accept("C") })),
        Some(&s1),
    )))
    .await;
    let (k2, _) = only_request(&r.json["result"]);
    let s2 = r.json["result"]["requestState"].clone();
    let r = send(raw2.post_modern(&call(
        11,
        "two_questions",
        json!({}),
        Some(json!({ k2: accept("D") })),
        Some(&s2),
    )))
    .await;
    assert_eq!(r.json["result"]["content"][0]["text"], r#"run 3: "C" then "D""#, "{}", r.json);

    for (g, s) in [(gw, serving), (gw2, serving2)] {
        s.shutdown().await.unwrap();
        g.shutdown().await;
    }
    up.shutdown().await.unwrap();
}

/// A legacy caller's answers, recorded.
#[derive(Default)]
struct Answers {
    asked: Mutex<Vec<String>>,
}

impl InputHandler for Answers {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, sampling: true, roots: true, ..InputKinds::default() }
    }
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        let ElicitRequestParams::Form(f) = params else { panic!("a form") };
        self.asked.lock().unwrap().push(format!("elicit: {}", f.message));
        Box::pin(async {
            let mut r = ElicitResult::new(ElicitAction::Accept);
            r.content = serde_json::from_value(json!({"answer": "local"})).unwrap();
            Ok(r)
        })
    }
    fn create_message(
        &self,
        _: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        self.asked.lock().unwrap().push("sample".into());
        Box::pin(async {
            Ok(serde_json::from_value(json!({"role": "assistant", "content": {"type": "text", "text": "hi"},
                "model": "local"}))
            .unwrap())
        })
    }
    fn list_roots(&self) -> BoxFuture<'_, mcpcore::Result<ListRootsResult>> {
        self.asked.lock().unwrap().push("roots".into());
        Box::pin(async {
            Ok(ListRootsResult { roots: vec![Root::new("file:///local", None)], ..Default::default() })
        })
    }
}

async fn client(url: &str, lineage: Lineage, input: Arc<Answers>) -> Client {
    let options = ClientOptions {
        lineage: Some(lineage),
        input: Some(input),
        request_timeout: Duration::from_secs(20),
        ..ClientOptions::default()
    };
    Client::connect_http(url, HttpOptions::default(), options).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_caller_answers_a_modern_upstreams_input_requests_as_real_requests() {
    let (up, _) = upstream(Lineage::Modern).await;
    let (gw, serving) = gateway(&up.url()).await;
    assert_eq!(gw.client("up").unwrap().lineage(), Lineage::Modern);
    let answers = Arc::new(Answers::default());
    let c = client(&serving.url(), Lineage::Legacy, answers.clone()).await;
    let r = c.call_tool("three_at_once", json!({})).await.unwrap();
    assert_eq!(r.first_text(), Some(r#"3 answers: ["greeting", "name", "roots"]"#), "{r:?}");
    let mut asked = answers.asked.lock().unwrap().clone();
    asked.sort();
    assert_eq!(asked, ["elicit: Name?", "roots", "sample"]);
    // Two questions: two upstream rounds answered with real requests, three runs of the tool
    // (a 2026-07-28 server runs its handler again on each retry).
    let r = c.call_tool("two_questions", json!({})).await.unwrap();
    assert_eq!(r.first_text(), Some(r#"run 3: "local" then "local""#), "{r:?}");
    c.close().await;
    serving.shutdown().await.unwrap();
    gw.shutdown().await;
    up.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_cancellation_reaches_the_upstream_tool_on_both_lineages() {
    for lineage in [Lineage::Legacy, Lineage::Modern] {
        let (up, seen) = upstream(lineage).await;
        let (gw, serving) = gateway(&up.url()).await;
        for caller in [Lineage::Legacy, Lineage::Modern] {
            let before = seen.cancelled.load(Ordering::SeqCst);
            let started = seen.started.load(Ordering::SeqCst);
            let c = client(&serving.url(), caller, Arc::new(Answers::default())).await;
            let mut call = Box::pin(c.call_tool("slow", json!({})));
            // The caller stops waiting once the upstream tool runs (dropping the call sends
            // notifications/cancelled).
            let running =
                eventually(Duration::from_secs(10), || seen.started.load(Ordering::SeqCst) > started);
            tokio::select! {
                r = &mut call => panic!("slow answered: {r:?}"),
                ok = running => assert!(ok, "the upstream tool never started"),
            }
            drop(call);
            let cancelled =
                eventually(Duration::from_secs(10), || seen.cancelled.load(Ordering::SeqCst) > before).await;
            assert!(
                cancelled,
                "upstream {lineage:?}, caller {caller:?}: the upstream tool was not cancelled"
            );
            c.close().await;
        }
        serving.shutdown().await.unwrap();
        gw.shutdown().await;
        up.shutdown().await.unwrap();
    }
}

/// A 2026-07-28 caller declaring the Tasks extension gets the gateway's own task for an
/// upstream task, answers its input with `tasks/update`, and its `tasks/cancel` cancels the
/// upstream task.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_task_is_mirrored_answered_and_cancelled() {
    use mcpcore::tasks::TaskPolicy;
    let seen = Arc::new(Seen::default());
    let tools = ToolRegistry::new();
    tools
        .register_with_tasks(
            Tool::new("ask_later", "ask_later", json!({"type": "object"})),
            TaskPolicy::optional(),
            |_: Arguments, ctx: ToolContext| async move {
                let r = ctx.elicit("late", form("Later question?")).await?;
                Ok(CallToolResult::text(format!("late answer {}", answer_of(&r))))
            },
        )
        .unwrap();
    let s = seen.clone();
    tools
        .register_with_tasks(
            Tool::new("forever", "forever", json!({"type": "object"})),
            TaskPolicy::optional(),
            move |_: Arguments, _: ToolContext| {
                s.started.fetch_add(1, Ordering::SeqCst);
                let guard = DropCount(s.clone(), false);
                async move {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    guard.done();
                    Ok(CallToolResult::text("never"))
                }
            },
        )
        .unwrap();
    let mut config = ServerConfig::new("upstream", "1");
    config.versions = vec![ProtocolVersion::V2026_07_28];
    let up = Server::new(config, Arc::new(tools))
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
        .await
        .unwrap();
    let (gw, serving) = gateway(&up.url()).await;
    let raw = Raw::new(&serving.url());
    let tasks_meta = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}},
    });
    let req = |id: i64, method: &str, mut params: Value| {
        params["_meta"] = tasks_meta.clone();
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    };
    let r = send(raw.post_modern(&req(1, "tools/call", json!({"name": "ask_later", "arguments": {}})))).await;
    assert_eq!(r.json["result"]["resultType"], "task", "{}", r.json);
    let id = r.json["result"]["taskId"].as_str().unwrap().to_owned();
    // The gateway's task asks what the upstream task asks, under the upstream's key.
    let mut asked = Value::Null;
    for n in 0..200 {
        let r = send(raw.post_modern(&req(10 + n, "tasks/get", json!({"taskId": id})))).await;
        if r.json["result"]["status"] == "input_required" {
            asked = r.json["result"]["inputRequests"].clone();
            break;
        }

        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(asked["late"]["params"]["message"], "Later question?", "{asked}");
    let r = send(raw.post_modern(&req(
        300,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"late": accept("now")}}),
    )))
    .await;
    assert_eq!(r.json["result"]["resultType"], "complete", "{}", r.json);
    let mut done = Value::Null;
    for n in 0..200 {
        let r = send(raw.post_modern(&req(400 + n, "tasks/get", json!({"taskId": id})))).await;
        if r.json["result"]["status"] == "completed" {
            done = r.json["result"]["result"].clone();
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(done["content"][0]["text"], r#"late answer "now""#, "{done}");

    // tasks/cancel on the gateway's task cancels the upstream one (its handler is stopped).
    let r = send(raw.post_modern(&req(700, "tools/call", json!({"name": "forever", "arguments": {}})))).await;
    let id = r.json["result"]["taskId"].as_str().unwrap().to_owned();
    assert!(eventually(Duration::from_secs(10), || seen.started.load(Ordering::SeqCst) == 1).await);
    let r = send(raw.post_modern(&req(701, "tasks/cancel", json!({"taskId": id})))).await;
    assert_eq!(r.json["result"]["resultType"], "complete", "{}", r.json);
    assert!(
        eventually(Duration::from_secs(10), || seen.cancelled.load(Ordering::SeqCst) == 1).await,
        "the upstream task's handler was not stopped"
    );
    serving.shutdown().await.unwrap();
    gw.shutdown().await;
    up.shutdown().await.unwrap();
}

/// An upstream's log messages reach each caller at that caller's own level: a legacy session's
/// `logging/setLevel` (all levels until set), a 2026-07-28 request's `_meta` logLevel (none
/// without it), whatever the upstream speaks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_messages_reach_each_caller_at_its_own_level() {
    use mcpcore::client::CallOptions;
    use mcpcore::protocol::logging::LoggingLevel;
    for upstream_lineage in [Lineage::Legacy, Lineage::Modern] {
        let tools = ToolRegistry::new();
        tools
            .register(
                Tool::new("chatty", "chatty", json!({"type": "object"})),
                |_: Arguments, ctx: ToolContext| async move {
                    for (level, word) in
                        [(LoggingLevel::Debug, "d"), (LoggingLevel::Info, "i"), (LoggingLevel::Error, "e")]
                    {
                        ctx.log(level, Some("chatty"), json!(word));
                    }
                    Ok(CallToolResult::text("said"))
                },
            )
            .unwrap();
        let mut config = ServerConfig::new("upstream", "1");
        config.versions =
            ProtocolVersion::ALL.iter().copied().filter(|v| v.lineage() == upstream_lineage).collect();
        let up = Server::new(config, Arc::new(tools))
            .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
            .await
            .unwrap();
        let (gw, serving) = gateway(&up.url()).await;
        let heard = |c: &Client| {
            let got = Arc::new(Mutex::new(Vec::<String>::new()));
            let sink = got.clone();
            c.on_log(move |p| sink.lock().unwrap().push(p.data.as_str().unwrap_or_default().to_owned()));
            got
        };
        let case = format!("upstream {upstream_lineage:?}");
        // A legacy session at warning, another at its default (everything).
        let quiet = client(&serving.url(), Lineage::Legacy, Arc::new(Answers::default())).await;
        let quiet_heard = heard(&quiet);
        quiet.request("logging/setLevel", json!({"level": "warning"})).await.unwrap();
        assert_eq!(quiet.call_tool("chatty", json!({})).await.unwrap().first_text(), Some("said"));
        assert_eq!(*quiet_heard.lock().unwrap(), ["e"], "{case}: a warning-level session");
        let loud = client(&serving.url(), Lineage::Legacy, Arc::new(Answers::default())).await;
        let loud_heard = heard(&loud);
        loud.call_tool("chatty", json!({})).await.unwrap();
        assert_eq!(*loud_heard.lock().unwrap(), ["d", "i", "e"], "{case}: a session that set no level");
        // 2026-07-28: only a request that asks, from its level up.
        let modern = client(&serving.url(), Lineage::Modern, Arc::new(Answers::default())).await;
        let modern_heard = heard(&modern);
        modern.call_tool("chatty", json!({})).await.unwrap();
        assert!(modern_heard.lock().unwrap().is_empty(), "{case}: no logLevel, no log messages");
        let opts = CallOptions { log_level: Some(LoggingLevel::Info), ..CallOptions::default() };
        modern.call_tool_with("chatty", json!({}), &opts).await.unwrap();
        assert_eq!(*modern_heard.lock().unwrap(), ["i", "e"], "{case}: logLevel info");
        for c in [quiet, loud, modern] {
            c.close().await;
        }
        serving.shutdown().await.unwrap();
        gw.shutdown().await;
        up.shutdown().await.unwrap();
    }
}
