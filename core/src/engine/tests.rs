use super::*;
use crate::jsonrpc::{from_value, Message};
use crate::protocol::CallToolResult;
use crate::protocol::Tool;
use crate::registry::{Arguments, ToolContext};

fn engine() -> ServerEngine {
    let reg = ToolRegistry::new();
    let tool: Tool = serde_json::from_value(json!({
        "name": "echo", "title": "Echo",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    }))
    .unwrap();
    reg.register(tool, |a: Arguments, _c: ToolContext| async move {
        Ok(CallToolResult::text(a["text"].as_str().unwrap().to_owned()))
    })
    .unwrap();
    ServerEngine::new(ServerConfig::new("test", "1.0"), Arc::new(reg))
}

fn msg(v: Value) -> Message {
    from_value(v).unwrap()
}

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

fn reply(a: Action) -> Value {
    match a {
        Action::Reply(r) => Message::Response(r).to_value(),
        other => panic!("expected a reply, got {other:?}"),
    }
}

#[test]
fn modern_discover_and_result_type() {
    let e = engine();
    let mut c = Connection::new();
    let r = reply(e.handle(
        &mut c,
        msg(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": modern_meta()}})),
    ));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["supportedVersions"][0], "2026-07-28");
    assert_eq!(r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "test");
    assert!(r["result"]["ttlMs"].is_u64());
    assert!(c.legacy().is_none(), "modern requests leave no session state");
}

#[test]
fn modern_errors() {
    let e = engine();
    let mut c = Connection::new();
    let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}))));
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(r["id"], "a");
    let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}))));
    assert_eq!(r["error"]["code"], -32602, "missing clientCapabilities");
    let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}))));
    assert_eq!(r["error"]["code"], -32602, "missing _meta");
    for removed in ["ping", "logging/setLevel", "initialize", "nope/nope"] {
        let r = reply(e.handle(
            &mut c,
            msg(json!({"jsonrpc":"2.0","id":4,"method":removed,"params":{"_meta": modern_meta()}})),
        ));
        assert_eq!(r["error"]["code"], -32601, "{removed}");
    }
}

#[test]
fn legacy_handshake() {
    let e = engine();
    let mut c = Connection::new();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let r = reply(e.handle(&mut c, msg(init.clone())));
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
    assert!(r["result"].get("resultType").is_none());
    // Before notifications/initialized: only ping.
    let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))));
    assert_eq!(r["error"]["code"], -32600);
    let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":3,"method":"ping"}))));
    assert_eq!(r["result"], json!({}));
    assert!(matches!(
        e.handle(&mut c, msg(json!({"jsonrpc":"2.0","method":"notifications/initialized"}))),
        Action::Nothing
    ));
    assert!(e.accepts_batch(&c));
    let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}))));
    assert_eq!(r["result"]["tools"][0]["name"], "echo");
    assert!(r["result"]["tools"][0].get("title").is_none(), "title is not a 2025-03-26 field");
    assert_eq!(reply(e.handle(&mut c, msg(init)))["error"]["code"], -32600, "second initialize");
}

#[test]
fn legacy_counter_offer() {
    let e = engine();
    for asked in ["2026-07-28", "1999-01-01"] {
        let mut c = Connection::new();
        let r = reply(e.handle(&mut c, msg(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":asked,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}))));
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    }
}

#[test]
fn tool_call_routing() {
    let e = engine();
    let mut c = Connection::new();
    let call = |args: Value, name: &str| {
        msg(
            json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":name,"arguments":args,"_meta": modern_meta()}}),
        )
    };
    let r = reply(e.handle(&mut c, call(json!({"text": 1}), "echo")));
    assert_eq!(r["error"]["code"], -32602);
    assert_eq!(r["error"]["data"]["errors"][0]["path"], "/text");
    let r = reply(e.handle(&mut c, call(json!({}), "missing")));
    assert_eq!(r["error"]["code"], -32602);
    let Action::CallTool(pending) = e.handle(&mut c, call(json!({"text": "hi"}), "echo")) else { panic!() };
    let resp = Message::Response(e.finish_call(
        &pending,
        Ok(super::Outcome::Tool(CallToolResult::text("hi"))),
        None,
    ))
    .to_value();
    assert_eq!(resp["result"]["resultType"], "complete");
    assert_eq!(resp["result"]["content"][0]["text"], "hi");
    let resp = Message::Response(e.finish_call(&pending, Err(crate::Error::tool("bad")), None)).to_value();
    assert_eq!(resp["result"]["isError"], true);
}

#[test]
fn cancellation_is_routed() {
    let e = engine();
    let mut c = Connection::new();
    let a = e.handle(
        &mut c,
        msg(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}})),
    );
    assert!(matches!(a, Action::Cancel(RequestId::String(s)) if s == "x"));
}
