//! Arbitrary message sequences through one server connection, both lineages on it: each frame
//! to `ServerConnection::handle` on its own route, host code run for every call it starts
//! (tools, a prompt, a resource template, one tool that needs client input), each result fed
//! back with `complete`, and the timers fired. Input: newline-separated frames.
//! Properties: no panic; every message the connection sends serializes and parses back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::context::{InputLedger, Origin, RequestContext};
use mcpcore::engine::{Event, Job, PendingCall, RouteId, ServerConfig, ServerConnection, ServerEngine};
use mcpcore::error::{Error, ErrorKind};
use mcpcore::jsonrpc::{self, Message, Response};
use mcpcore::prompts::PromptRegistry;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolRegistry};
use mcpcore::resources::ResourceRegistry;
use serde_json::json;
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

type ToolContext = RequestContext;

fn engine() -> Arc<ServerEngine> {
    static ENGINE: OnceLock<Arc<ServerEngine>> = OnceLock::new();
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
        let mut config = ServerConfig::new("fuzz", "1.0.0");
        config.state_keys = mcpcore::state::StateKey::new(vec![7u8; 32]).into();
        Arc::new(
            ServerEngine::new(config, Arc::new(tools))
                .with_prompts(Arc::new(prompts))
                .with_resources(Arc::new(resources)),
        )
    })
    .clone()
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

fn check(message: &Message) {
    let json = message.to_json();
    assert!(jsonrpc::parse(json.as_bytes()).is_ok(), "{json}");
}

/// Runs one started call to its response, as a driver would (without a runtime).
fn run(conn: &ServerConnection, call: &mut PendingCall, now: SystemTime) -> Response {
    let ledger = call.input.clone().map(|seed| InputLedger::new(seed, None));
    let mut ctx = RequestContext::for_request(call.id.clone(), call.version, None, Arc::new(|_| {}));
    if let Some(l) = &ledger {
        ctx = ctx.with_input(l.clone());
    }
    match ready(call.run(ctx)) {
        Some(outcome) => conn.engine().finish_call(call, outcome, ledger.as_deref(), now),
        None => conn.engine().crashed_call(call, "pending"),
    }
}

/// Handles every event the connection has queued; bounded (a call's completion queues a few).
fn pump(conn: &mut ServerConnection, now: SystemTime) {
    for _ in 0..10_000 {
        let Some(event) = conn.poll_event() else { return };
        match event {
            Event::Send { message, .. } => check(&message),
            Event::SendBatch { messages, .. } => messages.iter().for_each(check),
            Event::Start { job, work: Job::Call(mut call), .. } => {
                if call.task.is_some() {
                    conn.forget(job); // tasks run on a runtime; not this target's business
                } else {
                    let resp = run(conn, &mut call, now);
                    check(&Message::Response(resp.clone()));
                    conn.complete(job, resp);
                }
            }
            // Long-lived streams (subscriptions/listen, events/stream) run on a runtime.
            Event::Start { job, work: Job::Listen(_) | Job::Events(_), .. } => conn.forget(job),
            Event::Answer { .. } | Event::Abort { .. } | Event::Unmatched(_) | Event::RouteDone(_) => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut conn = ServerConnection::new(engine());
    let origin = Origin::default();
    let mut now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    for (route, frame) in data.split(|b| *b == b'\n').enumerate().take(256) {
        conn.handle(jsonrpc::parse(frame), RouteId(route as u64), &origin, now);
        pump(&mut conn, now);
        now += Duration::from_secs(1);
        conn.handle_timeout(now);
        pump(&mut conn, now);
    }
});
