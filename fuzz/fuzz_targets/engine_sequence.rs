//! Arbitrary message sequences through the server engine, both lineages on one connection:
//! `ServerEngine::handle(&mut Connection, Message)` for each frame, host code run for every
//! call (tools, a prompt, a resource template, one tool that needs client input), and
//! `finish_call` shaping the result. Input: newline-separated frames.
//!
//! Kept thin on purpose: it drives the current public engine API, which is being replaced by a
//! sans-IO `ServerConnection`; the target should then feed that instead, with the same seeds.
//! Properties: no panic; every reply and result serializes and parses back as JSON-RPC.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::engine::{Action, Connection, ServerConfig, ServerEngine};
use mcpcore::error::{Error, ErrorKind};
use mcpcore::input::InputLedger;
use mcpcore::jsonrpc::{self, Inbound, Message, Response};
use mcpcore::prompts::PromptRegistry;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::resources::ResourceRegistry;
use serde_json::json;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};

fn engine() -> &'static ServerEngine {
    static ENGINE: OnceLock<ServerEngine> = OnceLock::new();
    ENGINE.get_or_init(|| {
        let tools = ToolRegistry::new();
        let object = |props: serde_json::Value, required: &[&str]| {
            json!({"type": "object", "properties": props, "required": required})
        };
        tools
            .register(
                Tool::new("echo", "echo", object(json!({"text": {"type": "string", "x-mcp-header": "Text"}}), &["text"])),
                |a: Arguments, _c: ToolContext| async move { Ok(CallToolResult::text(a["text"].as_str().unwrap_or(""))) },
            )
            .unwrap();
        tools
            .register(
                Tool::new("add", "add", object(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]))
                    .with_output_schema(object(json!({"sum": {"type": "number"}}), &["sum"])),
                |a: Arguments, _c: ToolContext| async move {
                    let sum = a["a"].as_f64().unwrap_or(0.0) + a["b"].as_f64().unwrap_or(0.0);
                    Ok(CallToolResult::structured(json!({ "sum": sum })))
                },
            )
            .unwrap();
        tools
            .register(Tool::new("fail", "fail", object(json!({}), &[])), |_a: Arguments, _c: ToolContext| async move {
                Err(Error::tool("deliberate"))
            })
            .unwrap();
        tools
            .register(Tool::new("ask", "needs input", object(json!({}), &[])), |_a: Arguments, _c: ToolContext| async move {
                Err(Error::new(ErrorKind::InputRequired, "client input required"))
            })
            .unwrap();
        let prompts = PromptRegistry::new();
        let prompt = serde_json::from_value(json!({"name": "greet", "arguments": [{"name": "who", "required": true}]})).unwrap();
        prompts
            .add(prompt, |a: mcpcore::prompts::PromptArguments, _c: ToolContext| async move {
                let who = a.get("who").cloned().unwrap_or_default();
                Ok(serde_json::from_value(json!({"messages": [{"role": "user", "content": {"type": "text", "text": who}}]})).unwrap())
            })
            .unwrap();
        let resources = ResourceRegistry::new();
        resources.add_text("file:///readme", "readme", "text/plain", "hello").unwrap();
        let template = serde_json::from_value(json!({"uriTemplate": "file:///docs/{+path}", "name": "docs"})).unwrap();
        resources
            .add_template(template, |r: mcpcore::resources::ReadRequest, _c: ToolContext| async move {
                Ok(serde_json::from_value(json!([{"uri": r.uri, "text": "doc"}])).unwrap())
            })
            .unwrap();
        ServerEngine::new(ServerConfig::new("fuzz", "1.0.0"), Arc::new(tools))
            .with_prompts(Arc::new(prompts))
            .with_resources(Arc::new(resources))
    })
}

/// Polls a handler future that never waits (none of the fixtures does) to completion.
fn ready<T>(fut: impl Future<Output = T>) -> Option<T> {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    (0..16).find_map(|_| match fut.as_mut().poll(&mut cx) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    })
}

fn check(resp: &Response) {
    let json = Message::Response(resp.clone()).to_json();
    assert!(matches!(jsonrpc::parse(json.as_bytes()), Ok(Inbound::Single(Message::Response(_)))), "{json}");
}

fn handle(engine: &ServerEngine, conn: &mut Connection, msg: Message) {
    match engine.handle(conn, msg) {
        Action::Reply(r) => check(&r),
        Action::CallTool(call) => {
            if call.task.is_some() {
                return; // tasks run on a runtime; not this target's business
            }
            let ledger = call.input.clone().map(|seed| InputLedger::new(seed, None));
            let mut ctx = ToolContext::local();
            if let Some(l) = &ledger {
                ctx = ctx.with_input(l.clone());
            }
            let resp = match ready(call.run(ctx)) {
                Some(outcome) => engine.finish_call(&call, outcome, ledger.as_deref()),
                None => engine.crashed_call(&call, "pending"),
            };
            check(&resp);
        }
        Action::Listen(_) | Action::Cancel(_) | Action::PeerResponse(_) | Action::Nothing => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let engine = engine();
    let mut conn = Connection::new();
    for frame in data.split(|b| *b == b'\n') {
        match jsonrpc::parse(frame) {
            Ok(Inbound::Single(m)) => handle(engine, &mut conn, m),
            Ok(Inbound::Batch(items)) if engine.accepts_batch(&conn) => {
                for m in items.into_iter().flatten() {
                    handle(engine, &mut conn, m);
                }
            }
            Ok(Inbound::Batch(_)) => check(&ServerEngine::batch_rejected()),
            Err(resp) => check(&resp),
        }
    }
});
