//! In-process micro-benchmarks of the per-call hot paths (issue 8): JSON-RPC decode and encode,
//! engine dispatch of a `tools/call` in both lineages, registry lookup, argument validation
//! against the input schema, the `x-mcp-header` scan of the HTTP path, and settling a result
//! into its response.
//!
//! `cargo bench -p mcpcore --bench hot_paths` (criterion without plots or rayon, to keep
//! `cargo clippy --all-targets` cheap). Numbers only; nothing here asserts a time.

use criterion::{criterion_group, criterion_main, Criterion};
use mcpcore::context::Origin;
use mcpcore::engine::{
    Event, Job, Outcome, PendingCall, RouteId, ServerConfig, ServerConnection, ServerEngine,
};
use mcpcore::jsonrpc::{self, Inbound, Message};
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, RequestContext, ToolRegistry};
use serde_json::json;
use std::hint::black_box;
use std::sync::Arc;
use std::time::SystemTime;

const LEGACY_CALL: &str =
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
const MODERN_CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}"#;

fn registry() -> Arc<ToolRegistry> {
    let tools = ToolRegistry::new();
    tools
        .register(
            Tool::new(
                "echo",
                "Returns the text unchanged.",
                json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
            ),
            |args: Arguments, _ctx: RequestContext| async move {
                Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
            },
        )
        .expect("register echo");
    Arc::new(tools)
}

fn message(text: &str) -> Message {
    match jsonrpc::parse(text.as_bytes()) {
        Ok(Inbound::Single(m)) => m,
        other => panic!("not a single message: {other:?}"),
    }
}

/// Hands `text` to `conn` and returns the call it started (the job is forgotten at once, so
/// the same request id can be sent again).
fn dispatch(conn: &mut ServerConnection, text: &str) -> Option<Box<PendingCall>> {
    conn.handle(jsonrpc::parse(text.as_bytes()), RouteId(1), &Origin::default(), SystemTime::UNIX_EPOCH);
    let mut call = None;
    while let Some(event) = conn.poll_event() {
        if let Event::Start { job, work: Job::Call(c), .. } = event {
            conn.forget(job);
            call = Some(c);
        }
    }
    call
}

/// A connection after initialize + notifications/initialized (2025-11-25).
fn legacy_connection(engine: &Arc<ServerEngine>) -> ServerConnection {
    let mut conn = ServerConnection::new(engine.clone());
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;
    dispatch(&mut conn, init);
    dispatch(&mut conn, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    conn
}

fn hot_paths(c: &mut Criterion) {
    let tools = registry();
    let engine = Arc::new(ServerEngine::new(ServerConfig::new("bench", "1"), tools.clone()));
    let now = SystemTime::UNIX_EPOCH;

    c.bench_function("jsonrpc/decode tools/call 2025-11-25", |b| {
        b.iter(|| jsonrpc::parse(black_box(LEGACY_CALL.as_bytes())))
    });
    c.bench_function("jsonrpc/decode tools/call 2026-07-28", |b| {
        b.iter(|| jsonrpc::parse(black_box(MODERN_CALL.as_bytes())))
    });

    let call = dispatch(&mut ServerConnection::new(engine.clone()), MODERN_CALL).expect("a tool call");
    let reply = engine.finish_call(&call, Ok(Outcome::Tool(CallToolResult::text("hello"))), None, now);
    let reply = Message::Response(reply);
    c.bench_function("jsonrpc/encode tools/call result", |b| b.iter(|| black_box(&reply).to_json()));

    let mut conn = legacy_connection(&engine);
    c.bench_function("connection/dispatch tools/call 2025-11-25 (incl. decode)", |b| {
        b.iter(|| dispatch(&mut conn, black_box(LEGACY_CALL)))
    });
    c.bench_function("connection/dispatch tools/call 2026-07-28 (incl. decode)", |b| {
        b.iter(|| dispatch(&mut ServerConnection::new(engine.clone()), black_box(MODERN_CALL)))
    });
    let modern = message(MODERN_CALL);
    c.bench_function("engine/message clone (baseline)", |b| b.iter(|| black_box(modern.clone())));

    c.bench_function("registry/lookup", |b| b.iter(|| tools.get(black_box("echo"))));
    let tool = tools.get("echo").expect("echo");
    let args = json!({"text": "hello"});
    c.bench_function("registry/validate arguments", |b| b.iter(|| tool.validate_arguments(black_box(&args))));

    let schema = tool.tool().input_schema.clone();
    c.bench_function("http/header_params of the echo schema (each HTTP tools/call)", |b| {
        b.iter(|| mcpcore::http::headers::header_params(black_box(&schema)))
    });

    c.bench_function("engine/settle + encode result 2026-07-28", |b| {
        b.iter(|| {
            Message::Response(engine.finish_call(
                &call,
                Ok(Outcome::Tool(CallToolResult::text("hello"))),
                None,
                now,
            ))
            .to_json()
        })
    });
}

criterion_group!(benches, hot_paths);
criterion_main!(benches);
