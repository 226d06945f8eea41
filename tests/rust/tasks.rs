//! The Tasks extension (`io.modelcontextprotocol/tasks`) end to end: a real `fixture_server
//! --tasks` over stdio and over HTTP, driven with raw JSON-RPC — create → get → update (input)
//! → completed, failed, cancel, `-32021` without the extension, `notifications/tasks` on a
//! `subscriptions/listen` stream.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::{ClientCapabilities, ProtocolVersion};
use mcpcore_tests::http::{meta, open, read_until, sse_events, HttpChild, Raw, MODERN};
use serde_json::{json, Map, Value};
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn options(tasks: bool) -> ClientOptions {
    let mut caps = ClientCapabilities { elicitation: Some(Map::new()), ..Default::default() };
    if tasks {
        caps.extensions = Some([(TASKS.to_owned(), json!({}))].into_iter().collect());
    }
    ClientOptions {
        version: Some(ProtocolVersion::V2026_07_28),
        capabilities: caps,
        request_timeout: Duration::from_secs(10),
        ..Default::default()
    }
}

async fn stdio_client(tasks: bool) -> Client {
    Client::connect_stdio(mcpcore_tests::cmd("fixture_server", &["--tasks"]), options(tasks))
        .await
        .expect("connect")
}

async fn http_client(url: &str, tasks: bool) -> Client {
    Client::connect_http(url, HttpOptions::default(), options(tasks)).await.expect("connect")
}

async fn call(c: &Client, name: &str, arguments: Value) -> Value {
    c.request("tools/call", json!({"name": name, "arguments": arguments})).await.expect("tools/call")
}

async fn get(c: &Client, task: &str) -> Value {
    c.request("tasks/get", json!({"taskId": task})).await.expect("tasks/get")
}

/// Polls `tasks/get` until `status` (or fails after 10 s).
async fn until(c: &Client, task: &str, status: &str) -> Value {
    for _ in 0..500 {
        let t = get(c, task).await;
        if t["status"] == status {
            return t;
        }
        assert!(!["completed", "failed", "cancelled"].contains(&t["status"].as_str().unwrap()), "{t}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task} never reached {status}")
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "{created}");
    assert!(created.get("task").is_none() && created.get("requestState").is_none(), "flat: {created}");
    for key in ["createdAt", "lastUpdatedAt"] {
        assert!(created[key].as_str().is_some_and(|t| t.len() >= 20 && t.ends_with('Z')), "{key}: {created}");
    }
    assert!(created["ttlMs"].as_u64().is_some_and(|t| t > 0), "{created}");
    created["taskId"].as_str().expect("taskId").to_owned()
}

/// The whole life of tasks through one declaring and one non-declaring client.
async fn lifecycle(with: &Client, without: &Client) {
    // create → get (working) → completed, with the tool's result inlined.
    let id = task_id(&call(with, "task_sleep", json!({"ms": 300})).await);
    let working = get(with, &id).await;
    assert_eq!(working["resultType"], "complete");
    assert_eq!(working["taskId"], id.as_str());
    assert!(working.get("result").is_none());
    let done = until(with, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "slept", "{done}");

    // Input inside a task: input_required → tasks/update → completed.
    let id = task_id(&call(with, "task_ask", json!({})).await);
    let waiting = until(with, &id, "input_required").await;
    assert_eq!(waiting["inputRequests"]["name"]["method"], "elicitation/create", "{waiting}");
    let answer = json!({"name": {"action": "accept", "content": {"name": "Ada"}}, "unknown": {}});
    let ack = with.request("tasks/update", json!({"taskId": id, "inputResponses": answer})).await.unwrap();
    assert_eq!(ack["resultType"], "complete");
    assert!(ack.get("status").is_none(), "an empty ack: {ack}");
    let done = until(with, &id, "completed").await;
    assert_eq!(done["result"]["content"][0]["text"], "hello Ada", "{done}");

    // A JSON-RPC error fails the task, with the error inlined.
    let id = task_id(&call(with, "task_fail", json!({})).await);
    let failed = until(with, &id, "failed").await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(failed.get("result").is_none());

    // Cancelling stops a running task; cancelling again is the same empty ack.
    let id = task_id(&call(with, "task_sleep", json!({"ms": 60_000})).await);
    for _ in 0..2 {
        let ack = with.request("tasks/cancel", json!({"taskId": id})).await.unwrap();
        assert_eq!(ack["resultType"], "complete");
    }
    until(with, &id, "cancelled").await;

    // Unknown tasks are -32602; without the extension: tasks/* and required tools are -32021,
    // optional tools answer synchronously.
    let e = with.request("tasks/get", json!({"taskId": "no-such-task"})).await.unwrap_err();
    assert_eq!(e.code().0, -32602, "{e}");
    let e = without.request("tasks/get", json!({"taskId": id})).await.unwrap_err();
    assert_eq!(e.code().0, -32021, "{e}");
    let e = without.request("tools/call", json!({"name": "task_only", "arguments": {}})).await.unwrap_err();
    assert_eq!(e.code().0, -32021, "{e}");
    assert_eq!(e.data().unwrap()["requiredCapabilities"]["extensions"][TASKS], json!({}));
    let sync = call(without, "task_sleep", json!({"ms": 0})).await;
    assert_eq!(sync["content"][0]["text"], "slept", "{sync}");
    assert!(sync.get("taskId").is_none());
}

#[tokio::test]
async fn stdio_task_lifecycle() {
    let (with, without) = (stdio_client(true).await, stdio_client(false).await);
    lifecycle(&with, &without).await;
}

#[tokio::test]
async fn http_task_lifecycle() {
    let server = HttpChild::spawn(&["--tasks"]).await;
    let (with, without) = (http_client(&server.url, true).await, http_client(&server.url, false).await);
    lifecycle(&with, &without).await;
}

fn modern_request(id: i64, method: &str, mut params: Value, tasks: bool) -> Value {
    params["_meta"] = meta(MODERN);
    if tasks {
        params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {TASKS: {}}});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A raw stdio connection to `fixture_server --tasks`: one JSON-RPC message per line.
struct Lines {
    _child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Lines {
    fn spawn() -> Lines {
        let mut child = tokio::process::Command::new(mcpcore_tests::bin("fixture_server"))
            .arg("--tasks")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn fixture_server");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Lines { _child: child, stdin, lines }
    }

    async fn send(&mut self, msg: Value) {
        self.stdin.write_all(format!("{msg}\n").as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line()).await;
        serde_json::from_str(&line.expect("a message in time").unwrap().expect("open stdout")).unwrap()
    }

    /// Messages until one satisfies `done`; returns them all.
    async fn until(&mut self, done: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let m = self.next().await;
            let stop = done(&m);
            seen.push(m);
            if stop {
                return seen;
            }
        }
    }
}

fn is_task_note(m: &Value, status: &str) -> bool {
    m["method"] == "notifications/tasks" && m["params"]["status"] == status
}

#[tokio::test]
async fn stdio_listen_delivers_task_notifications() {
    let mut s = Lines::spawn();
    s.send(modern_request(1, "subscriptions/listen", json!({"notifications": {"taskIds": ["t"]}}), false))
        .await;
    let refused = s.next().await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");

    s.send(modern_request(2, "tools/call", json!({"name": "task_sleep", "arguments": {"ms": 300}}), true))
        .await;
    let created = s.next().await;
    let id = task_id(&created["result"]);
    let filter = json!({"notifications": {"taskIds": [id, "unknown-task"]}});
    s.send(modern_request(18, "subscriptions/listen", filter, true)).await;
    let seen = s.until(|m| is_task_note(m, "completed")).await;
    assert_eq!(seen[0]["method"], "notifications/subscriptions/acknowledged", "{seen:?}");
    assert_eq!(seen[0]["params"]["notifications"]["taskIds"], json!([id]), "only known tasks are accepted");
    let last = seen.last().unwrap();
    assert_eq!(last["params"]["taskId"], id.as_str());
    assert_eq!(last["params"]["result"]["content"][0]["text"], "slept");
    assert_eq!(last["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 18);
}

#[tokio::test]
async fn http_listen_delivers_task_notifications() {
    let server = HttpChild::spawn(&["--tasks"]).await;
    let raw = Raw::new(&server.url);
    let client = http_client(&server.url, true).await;
    let id = task_id(&call(&client, "task_ask", json!({})).await);

    let refused =
        modern_request(1, "subscriptions/listen", json!({"notifications": {"taskIds": [id]}}), false);
    let r = mcpcore_tests::http::send(raw.post_modern(&refused)).await;
    assert_eq!((r.status, r.error_code()), (400, Some(-32021)), "{r:?}");

    let listen = modern_request(2, "subscriptions/listen", json!({"notifications": {"taskIds": [id]}}), true);
    let mut stream = open(raw.post_modern(&listen)).await;
    let text = read_until(&mut stream, |t| t.contains("input_required")).await;
    let events: Vec<Value> =
        sse_events(&text).iter().filter_map(|e| serde_json::from_str(&e.data).ok()).collect();
    assert_eq!(events[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(events[0]["params"]["notifications"]["taskIds"], json!([id]));

    let answer = json!({"name": {"action": "accept", "content": {"name": "Bo"}}});
    client.request("tasks/update", json!({"taskId": id, "inputResponses": answer})).await.unwrap();
    let text = read_until(&mut stream, |t| t.contains("\"completed\"")).await;
    let done = sse_events(&text)
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
        .find(|m| is_task_note(m, "completed"))
        .expect("a completed notification");
    assert_eq!(done["params"]["result"]["content"][0]["text"], "hello Bo");
    assert_eq!(done["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 2);
}

/// Answers every elicitation with the name Ada.
struct Ada;

impl mcpcore::client::InputHandler for Ada {
    fn kinds(&self) -> mcpcore::client::InputKinds {
        mcpcore::client::InputKinds { elicitation: true, ..Default::default() }
    }
    fn elicit(
        &self,
        _params: mcpcore::protocol::elicitation::ElicitRequestParams,
    ) -> mcpcore::client::BoxFuture<'_, mcpcore::Result<mcpcore::protocol::elicitation::ElicitResult>> {
        Box::pin(async {
            Ok(serde_json::from_value(json!({"action": "accept", "content": {"name": "Ada"}})).unwrap())
        })
    }
}

/// The client's task handle against our server: a client that does not declare the extension
/// declares it for these requests only; input is answered through `tasks/update` by the
/// client's handler; a required tool runs as a task by itself.
#[tokio::test]
async fn the_client_runs_tasks_through_a_handle() {
    use mcpcore::client::TaskOptions;
    use mcpcore::protocol::tasks::TaskStatus;
    let options = ClientOptions {
        version: Some(ProtocolVersion::V2026_07_28),
        input: Some(std::sync::Arc::new(Ada)),
        request_timeout: Duration::from_secs(10),
        ..Default::default()
    };
    let c = Client::connect_stdio(mcpcore_tests::cmd("fixture_server", &["--tasks"]), options).await.unwrap();

    let t = c.call_tool_as_task("task_sleep", json!({"ms": 50}), TaskOptions::default()).await.unwrap();
    let id = t.id().expect("a task was created").to_owned();
    assert!(t.created().unwrap().ttl.is_some());
    assert_eq!(t.status().await.unwrap().task_id, id);
    assert_eq!(t.result().await.unwrap().first_text(), Some("slept"));
    assert_eq!(t.status().await.unwrap().status, TaskStatus::Completed);

    let t = c.call_tool_as_task("task_ask", json!({}), TaskOptions::default()).await.unwrap();
    assert_eq!(t.result().await.unwrap().first_text(), Some("hello Ada"));

    let t = c.call_tool_as_task("task_fail", json!({}), TaskOptions::default()).await.unwrap();
    let e = t.result().await.unwrap_err();
    assert_eq!(e.code().0, -32603, "{e}");

    let t = c.call_tool_as_task("task_sleep", json!({"ms": 60_000}), TaskOptions::default()).await.unwrap();
    t.cancel().await.unwrap();
    assert_eq!(t.result().await.unwrap_err().kind(), mcpcore::ErrorKind::Cancelled);

    // -32021 naming the extension: call_tool runs the tool as a task and returns its result.
    assert_eq!(c.call_tool("task_only", json!({})).await.unwrap().first_text(), Some("only"));
    // Optional tools stay synchronous for a plain call.
    assert_eq!(c.call_tool("task_sleep", json!({"ms": 0})).await.unwrap().first_text(), Some("slept"));
    c.close().await;
}
