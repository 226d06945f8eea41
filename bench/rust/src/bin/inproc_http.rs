//! In-process cost of one Streamable HTTP request, without sockets: the echo tool's `tools/call`
//! sent N times through the server's axum router, per lineage (2026-07-28 stateless, 2025-11-25
//! session). A profiling aid for the server's request path; W2 measures the real thing.
//!
//! ```text
//! inproc_http [N] [modern|legacy]    # prints µs per request for each lineage (or one)
//! ```
#![allow(clippy::print_stdout)]

use http_body_util::BodyExt;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::prelude::*;
use std::time::Instant;
use tower::ServiceExt;

/// Returns the text unchanged.
#[tool]
async fn echo(
    /** The text to return. */
    text: String,
) -> String {
    text
}

fn request(body: String, headers: &[(&str, &str)]) -> http::Request<axum::body::Body> {
    let mut b = http::Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(axum::body::Body::from(body)).expect("request")
}

async fn send(app: &axum::Router, req: http::Request<axum::body::Body>) -> (http::HeaderMap, Vec<u8>) {
    let resp = app.clone().oneshot(req).await.expect("infallible");
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.expect("body").to_bytes().to_vec();
    (headers, body)
}

async fn run(
    app: &axum::Router,
    n: usize,
    label: &str,
    make: impl Fn(usize) -> http::Request<axum::body::Body>,
) {
    let (_, first) = send(app, make(0)).await;
    assert!(
        String::from_utf8_lossy(&first).contains("\"result\""),
        "{label}: {}",
        String::from_utf8_lossy(&first)
    );
    let t = Instant::now();
    for i in 1..=n {
        send(app, make(i)).await;
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!("{label}: {us:.2} µs/request ({n} requests)");
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> mcpcore::Result<()> {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let only = std::env::args().nth(2).unwrap_or_default();
    let server = Server::builder("inproc", "1").tool(echo).build()?;
    let app = server.router(HttpServerConfig::default());
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"p","version":"1"}}"#;
    let modern = [("mcp-protocol-version", "2026-07-28"), ("mcp-method", "tools/call"), ("mcp-name", "echo")];
    if only != "legacy" {
        run(&app, n, "2026-07-28 stateless", |i| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}},{meta}}}}}"#
        );
        request(body, &modern)
    })
    .await;
    }
    if only == "modern" {
        return Ok(());
    }
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}"#;
    let (h, _) = send(&app, request(init.into(), &[])).await;
    let sid = h.get("mcp-session-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let legacy = [("mcp-protocol-version", "2025-11-25"), ("mcp-session-id", sid.as_str())];
    send(&app, request(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(), &legacy)).await;
    run(&app, n, "2025-11-25 session", |i| {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"x"}}}}}}"#);
        request(body, &legacy)
    })
    .await;
    Ok(())
}
