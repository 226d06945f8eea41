//! Middleware (issue 35): a chain around every dispatched request, on both lineages, over real
//! HTTP on 127.0.0.1 and over stdio to a real child. A middleware sees the method, params,
//! revision, client and headers; changes a request; answers one itself; refuses one with its
//! own code and data, which the client receives unchanged; and changes results on the way back.
//! The ready-made rate limit refuses with `data.retryAfter` (HTTP: 429 and `Retry-After`).

use mcpcore::client::{Client, ClientOptions};
use mcpcore::context::RequestContext;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::jsonrpc::Request;
use mcpcore::middleware::{from_fn, Next};
use mcpcore::prelude::*;
use mcpcore::protocol::ProtocolVersion;
use mcpcore::server::middleware::RateLimit;
use mcpcore::transport::child::StdioCommand;
use mcpcore::ErrorData;
use mcpcore_tests::http::{modern_echo, send, Raw};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// Returns the text unchanged.
#[tool]
async fn echo(
    /** The text. */
    text: String,
) -> String {
    text
}

/// Never runs: the middleware answers for it.
#[tool]
async fn answered(
    /** Ignored. */
    text: String,
) -> String {
    panic!("the middleware answers {text} itself")
}

type Seen = Arc<Mutex<Vec<String>>>;

/// A server whose chain records what it sees, changes `echo`'s argument, refuses `secret`,
/// answers `answered` itself and marks every tool result on the way back.
fn server(seen: Seen) -> Server {
    let record = from_fn(move |req: Request, ctx: RequestContext, next: Next| {
        let tenant =
            ctx.headers().and_then(|h| h.get("x-tenant")).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let client = ctx.client_info().map(|c| c.name.clone());
        let line = format!(
            "{} {} {} {}",
            req.method,
            ctx.protocol_version().map(|v| v.as_str()).unwrap_or("?"),
            client.unwrap_or_default(),
            tenant.unwrap_or_default()
        );
        seen.lock().unwrap().push(line);
        next.run(req)
    });
    let shape = from_fn(|mut req: Request, _ctx, next: Next| async move {
        let name = req.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str).map(str::to_owned);
        match (req.method.as_str(), name.as_deref()) {
            ("tools/call", Some("secret")) => {
                return Err(ErrorData::new(mcpcore::ErrorCode(-32042), "Forbidden by policy")
                    .with_data(json!({"reason": "module_off", "remedy": "ask an admin"})))
            }
            ("tools/call", Some("answered")) => {
                return Ok(json!({"content": [{"type": "text", "text": "from the middleware"}]}))
            }
            ("tools/call", Some("echo")) => {
                let args = req.params.as_mut().unwrap().get_mut("arguments").unwrap();
                let text = args["text"].as_str().unwrap_or_default().to_owned();
                args["text"] = json!(format!("changed: {text}"));
            }
            _ => {}
        }
        let mut result = next.run(req).await?;
        if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
            content.push(json!({"type": "text", "text": "(seen)"}));
        }
        Ok(result)
    });
    Server::builder("mw", "1.0")
        .tool(echo)
        .tool(answered)
        .middleware(record)
        .middleware(shape)
        .build()
        .unwrap()
}

fn texts(r: &CallToolResult) -> Vec<String> {
    let v = serde_json::to_value(r).unwrap();
    v["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_chain_sees_changes_refuses_and_answers_requests_on_both_lineages() {
    let seen: Seen = Arc::default();
    let serving = server(seen.clone())
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
        .await
        .unwrap();
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25, ProtocolVersion::V2025_03_26]
    {
        let options = ClientOptions { version: Some(version), ..Default::default() };
        let headers = vec![("x-tenant".to_owned(), "acme".to_owned())];
        let http = mcpcore::http::client::HttpOptions { headers, ..Default::default() };
        let client = Client::connect_http(&serving.url(), http, options).await.unwrap();
        let names: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["answered", "echo"], "{version}");
        let r = client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(texts(&r), ["changed: hi", "(seen)"], "{version}");
        let r = client.call_tool("answered", json!({"text": "x"})).await.unwrap();
        assert_eq!(texts(&r), ["from the middleware"], "{version}");
        let e = client.call_tool("secret", json!({})).await.unwrap_err();
        assert_eq!(e.code(), mcpcore::ErrorCode(-32042), "{version}: {e}");
        assert_eq!(e.data().unwrap()["reason"], "module_off", "{version}");
        client.close().await;
        let seen = std::mem::take(&mut *seen.lock().unwrap());
        let tail = format!("{} mcpcore acme", version.as_str());
        assert!(seen.contains(&format!("tools/list {tail}")), "{version}: {seen:?}");
        assert_eq!(seen.iter().filter(|l| l.starts_with("tools/call ")).count(), 3, "{version}: {seen:?}");
        assert!(seen.iter().all(|l| !l.starts_with("initialize")), "lifecycle requests pass by: {seen:?}");
    }
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_rate_limited_http_client_gets_429_with_retry_after_then_serves_again() {
    let server = Server::builder("rl", "1.0")
        .tool(echo)
        .middleware(Arc::new(RateLimit::new(1.0, 2).methods(["tools/call"])))
        .build()
        .unwrap();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = Raw::new(&serving.url());
    for i in 0..2 {
        let r = send(raw.post_modern(&modern_echo(i, "ok"))).await;
        assert_eq!(r.status, 200, "{r:?}");
    }
    let r = send(raw.post_modern(&modern_echo(3, "over"))).await;
    assert_eq!(r.status, 429, "{r:?}");
    assert_eq!(r.headers["retry-after"], "1");
    assert_eq!(r.json["error"]["code"], -32603);
    assert_eq!(r.json["error"]["data"]["limit"], "rate");
    assert_eq!(r.json["error"]["data"]["retryAfter"], 1);
    // A legacy session of the same client (same address) shares the bucket.
    let sid = raw.legacy_session("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "legacy"}}});
    let r = send(raw.post_legacy(Some(&sid), &call)).await;
    assert_eq!((r.status, r.json["error"]["data"]["limit"].as_str()), (429, Some("rate")), "{r:?}");
    // Lists are not counted, and the bucket refills.
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"});
    assert_eq!(send(raw.post_legacy(Some(&sid), &list)).await.status, 200);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_rate_limit_holds_on_stdio_to_a_real_child() {
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_06_18] {
        let cmd = StdioCommand::new(
            mcpcore_tests::bin("echo_server"),
            vec!["--rate-limit".to_owned(), "0.01,3".to_owned()],
        );
        let options = ClientOptions { version: Some(version), ..Default::default() };
        let client = Client::connect_stdio(cmd, options).await.unwrap();
        // The handshake or discovery took one token (modern: server/discover; legacy: none).
        let mut refused = None;
        for i in 0..4 {
            match client.call_tool("echo", json!({"text": format!("{i}")})).await {
                Ok(r) => assert_eq!(texts(&r), [format!("{i}")]),
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        let e = refused.unwrap_or_else(|| panic!("{version}: four calls passed a burst of 3"));
        assert_eq!(e.code(), mcpcore::ErrorCode::INTERNAL_ERROR, "{version}: {e}");
        let data = e.data().unwrap();
        assert_eq!(data["limit"], "rate");
        assert!(data["retryAfter"].as_u64().unwrap() >= 1, "{data}");
        client.close().await;
    }
}

#[tokio::test]
async fn a_result_over_the_size_limit_is_an_error_not_a_429() {
    use mcpcore::server::middleware::ResponseLimit;
    let server = Server::builder("big", "1.0")
        .tool(echo)
        .middleware(Arc::new(ResponseLimit::new(200)))
        .build()
        .unwrap();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = Raw::new(&serving.url());
    let r = send(raw.post_modern(&modern_echo(1, &"x".repeat(500)))).await;
    assert_eq!(r.status, 200, "waiting would not help: no 429 {r:?}");
    assert!(r.headers.get("retry-after").is_none());
    assert_eq!(r.json["error"]["data"]["limit"], "response_size");
    let sid = raw.legacy_session("2025-11-25").await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "y".repeat(500)}}});
    let r = send(raw.post_legacy(Some(&sid), &call)).await;
    assert_eq!((r.status, r.json["error"]["data"]["limit"].as_str()), (200, Some("response_size")), "{r:?}");
    raw.assert_serving().await;
    serving.shutdown().await.unwrap();
}
