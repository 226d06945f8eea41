//! Client behaviour against real child processes: timeouts and cancellation, progress, tool
//! failures, a server dying mid-call, and no orphan processes.

use mcpcore::client::{CallOptions, ClientOptions};
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore::ErrorKind;
use mcpcore_tests::connect;
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn both() -> [ClientOptions; 2] {
    [ClientOptions::default(), ClientOptions { lineage: Some(Lineage::Legacy), ..Default::default() }]
}

fn pid_alive(pid: u32) -> bool {
    // A zombie is reaped by tokio shortly; /proc/<pid>/stat state 'Z' counts as gone.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => s.split_whitespace().nth(2).is_none_or(|st| st != "Z"),
        Err(_) => false,
    }
}

async fn wait_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !pid_alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

#[tokio::test]
async fn timeout_cancels_and_the_connection_stays_usable() {
    for options in both() {
        let client = connect("fixture_server", &[], options).await;
        let opts = CallOptions { timeout: Some(Duration::from_millis(150)), ..Default::default() };
        let err = client.call_tool_with("slow", json!({"ms": 5000}), &opts).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout);
        assert!(err.is_timeout());
        let r = client.call_tool("echo", json!({"text": "still here"})).await.unwrap();
        assert_eq!(r.first_text(), Some("still here"));
        client.close().await;
    }
}

#[tokio::test]
async fn dropping_the_call_future_sends_cancelled() {
    let client = connect("fixture_server", &[], ClientOptions::default()).await;
    let call = client.call_tool("slow", json!({"ms": 5000}));
    assert!(tokio::time::timeout(Duration::from_millis(100), call).await.is_err());
    // The server got notifications/cancelled and answers the next call at once.
    let r =
        tokio::time::timeout(Duration::from_secs(2), client.call_tool("echo", json!({"text": "next"}))).await;
    assert_eq!(r.unwrap().unwrap().first_text(), Some("next"));
    client.close().await;
}

#[tokio::test]
async fn progress_is_delivered_and_can_extend_the_timeout() {
    for options in both() {
        let client = connect("fixture_server", &[], options).await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let opts = CallOptions {
            timeout: Some(Duration::from_millis(400)),
            on_progress: Some(std::sync::Arc::new(move |p| {
                sink.lock().unwrap().push((p.progress, p.total, p.message))
            })),
            reset_timeout_on_progress: Some(Duration::from_secs(10)),
            ..Default::default()
        };
        let r = client.call_tool_with("progress", json!({"n": 5}), &opts).await.unwrap();
        assert_eq!(r.first_text(), Some("5 steps"));
        let seen = seen.lock().unwrap().clone();
        assert_eq!(seen.len(), 5);
        assert_eq!(seen[4], (5.0, Some(5.0), Some("step 5".to_owned())));
        client.close().await;
    }
}

#[tokio::test]
async fn failing_and_panicking_tools_are_is_error_results() {
    for options in both() {
        let client = connect("fixture_server", &[], options).await;
        let r = client.call_tool("fail", json!({"text": "why"})).await.unwrap();
        assert!(r.is_error());
        assert_eq!(r.first_text(), Some("fail: why"));
        let r = client.call_tool("panic", json!({})).await.unwrap();
        assert!(r.is_error());
        assert!(r.first_text().unwrap().contains("deliberate panic"), "{r:?}");
        assert_eq!(client.call_tool("echo", json!({"text": "ok"})).await.unwrap().first_text(), Some("ok"));
        // 2026-07-28 and 2025-11-25: invalid arguments are a result the model can read.
        let r = client.call_tool("echo", json!({"text": 5})).await.unwrap();
        assert!(r.is_error());
        assert!(r.first_text().unwrap().starts_with("Invalid arguments for tool echo: /text: "), "{r:?}");
        let err = client.call_tool("no_such_tool", json!({})).await.unwrap_err();
        assert_eq!(err.code(), mcpcore::ErrorCode::INVALID_PARAMS);
        assert!(err.message().contains("no_such_tool"));
        client.close().await;
    }
    // Up to 2025-06-18 they are the protocol error -32602, with the failing fields.
    let options =
        ClientOptions { version: Some(mcpcore::ProtocolVersion::V2025_06_18), ..Default::default() };
    let client = connect("fixture_server", &[], options).await;
    let err = client.call_tool("echo", json!({"text": 5})).await.unwrap_err();
    assert_eq!(err.code(), mcpcore::ErrorCode::INVALID_PARAMS);
    assert_eq!(err.data().unwrap()["errors"][0]["path"], "/text");
    client.close().await;
}

#[tokio::test]
async fn server_dying_mid_call_fails_pending_calls_with_its_exit_code() {
    for options in both() {
        let client = connect("fixture_server", &[], options).await;
        let slow = {
            let c = client.clone();
            tokio::spawn(async move { c.call_tool("slow", json!({"ms": 10_000})).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        let err = client.call_tool("exit", json!({"code": 7})).await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Closed, "{err}");
        assert!(err.message().contains("server exited with code 7"), "{}", err.message());
        assert!(err.message().contains("exiting on request"), "last stderr lines: {}", err.message());
        let pending = slow.await.unwrap().unwrap_err();
        assert_eq!(pending.kind(), ErrorKind::Closed);
        let after = client.call_tool("echo", json!({"text": "x"})).await.unwrap_err();
        assert!(after.is_closed());
    }
}

#[tokio::test]
async fn dropping_or_closing_the_client_leaves_no_orphan() {
    let client = connect("fixture_server", &[], ClientOptions::default()).await;
    let pid = client.server_pid().unwrap();
    assert!(pid_alive(pid));
    drop(client);
    assert!(wait_gone(pid).await, "server {pid} outlived a dropped client");

    let client = connect("fixture_server", &[], ClientOptions::default()).await;
    let pid = client.server_pid().unwrap();
    client.close().await;
    assert!(wait_gone(pid).await, "server {pid} outlived close()");
}

#[tokio::test]
async fn many_calls_in_flight() {
    let client = connect("fixture_server", &[], ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let calls = (0..64).map(|i| {
        let c = client.clone();
        tokio::spawn(async move { c.call_tool("echo", json!({"text": format!("m{i}")})).await })
    });
    for (i, h) in calls.enumerate() {
        assert_eq!(h.await.unwrap().unwrap().first_text(), Some(format!("m{i}").as_str()));
    }
    client.close().await;
}

/// Issue 37: `timeout` bounds the whole connect, not each handshake step. Before, a server that
/// never answers failed after 7 s with a 2 s timeout (the 5 s probe, then `initialize`).
#[tokio::test]
async fn the_timeout_bounds_the_whole_connect_and_the_silent_child_is_killed() {
    let pidfile = std::env::temp_dir().join(format!("mcpcore-silent-{}.pid", std::process::id()));
    let cmd = mcpcore::transport::child::StdioCommand::new(
        "sh",
        ["-c".to_owned(), format!("echo $$ > {}; exec sleep 30", pidfile.display())],
    );
    for options in
        [ClientOptions::default(), ClientOptions { lineage: Some(Lineage::Legacy), ..Default::default() }]
    {
        let options = ClientOptions { request_timeout: Duration::from_secs(2), ..options };
        let start = std::time::Instant::now();
        let Err(e) = mcpcore::client::Client::connect_stdio(cmd.clone(), options).await else {
            panic!("no server answers")
        };
        let took = start.elapsed();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
        assert!(e.message().contains("timed out after 2.0 s"), "{e}");
        assert!(took < Duration::from_millis(2900), "took {took:?}");
        let pid: u32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        assert!(wait_gone(pid).await, "the silent server {pid} was left running");
    }
    let _ = std::fs::remove_file(&pidfile);
    // Over HTTP: a listener that accepts and never answers.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", silent.local_addr().unwrap());
    let held = tokio::spawn(async move {
        let mut socks = Vec::new();
        while let Ok((s, _)) = silent.accept().await {
            socks.push(s);
        }
    });
    let options = ClientOptions { request_timeout: Duration::from_secs(2), ..Default::default() };
    let start = std::time::Instant::now();
    let Err(e) = mcpcore::client::Client::connect_http(&url, Default::default(), options).await else {
        panic!("a silent listener")
    };
    assert_eq!(e.kind(), ErrorKind::Timeout, "{e}");
    assert!(start.elapsed() < Duration::from_millis(2900), "took {:?}", start.elapsed());
    held.abort();
}

/// A person slower than the request timeout: answers the elicitation after `delay`.
struct SlowPerson(Duration);

impl mcpcore::client::InputHandler for SlowPerson {
    fn kinds(&self) -> mcpcore::client::InputKinds {
        mcpcore::client::InputKinds { elicitation: true, ..Default::default() }
    }
    fn elicit(
        &self,
        _: mcpcore::protocol::elicitation::ElicitRequestParams,
    ) -> mcpcore::client::BoxFuture<'_, mcpcore::Result<mcpcore::protocol::elicitation::ElicitResult>> {
        let delay = self.0;
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            let mut r = mcpcore::protocol::elicitation::ElicitResult::new(
                mcpcore::protocol::elicitation::ElicitAction::Accept,
            );
            r.content = Some(serde_json::from_value(json!({"name": "Ann"})).unwrap());
            Ok(r)
        })
    }
}

/// Issue 49: a call's timeout does not run out while a person answers the server's question.
/// The tool elicits; the person takes 3× the request timeout; the call still succeeds on both
/// lineages (legacy: the timeout restarts once the answer is sent; 2026-07-28: each input round
/// is a request of its own, and the time between rounds is the person's). A server that stays
/// silent still times out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_timeout_waits_for_a_person_answering_the_servers_question() {
    use mcpcore::protocol::{CallToolResult, Tool};
    use mcpcore::registry::{Arguments, RequestContext, ToolRegistry};
    let tools = Arc::new(ToolRegistry::new());
    let ask = Tool::new("ask", "asks for a name", json!({"type": "object", "properties": {}}));
    tools
        .register(ask, |_: Arguments, ctx: RequestContext| async move {
            let form = serde_json::from_value(json!({
                "message": "Who are you?",
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
            }))
            .unwrap();
            let answer = ctx.elicit("who", form).await?;
            Ok(CallToolResult::text(format!("hello {}", json!(answer.content.unwrap_or_default()["name"]))))
        })
        .unwrap();
    let silent = Tool::new("silent", "never answers", json!({"type": "object", "properties": {}}));
    tools
        .register(silent, |_: Arguments, _: RequestContext| async move {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(CallToolResult::text("late"))
        })
        .unwrap();
    let server = mcpcore::server::Server::new(mcpcore::engine::ServerConfig::new("asker", "1"), tools);
    let serving = server
        .serve_http("127.0.0.1:0".parse().unwrap(), mcpcore::http::server::HttpServerConfig::default())
        .await
        .unwrap();
    let timeout = Duration::from_millis(400);
    for lineage in [Lineage::Legacy, Lineage::Modern] {
        let options = ClientOptions {
            lineage: Some(lineage),
            input: Some(Arc::new(SlowPerson(timeout * 3))),
            request_timeout: timeout,
            ..Default::default()
        };
        let client =
            mcpcore::client::Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
        let r = client.call_tool("ask", json!({})).await.unwrap_or_else(|e| panic!("{lineage:?}: {e}"));
        assert_eq!(r.first_text(), Some("hello \"Ann\""), "{lineage:?}: {r:?}");
        let e = client.call_tool("silent", json!({})).await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Timeout, "{lineage:?}: {e}");
        client.close().await;
    }
    serving.shutdown().await.unwrap();
}
