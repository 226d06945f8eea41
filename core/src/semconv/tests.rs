use super::*;
use crate::context::{Caller, Origin, RequestContext};
use crate::jsonrpc::{Request, RequestId};
use crate::protocol::{ClientCapabilities, ProtocolVersion};
use crate::ErrorData;
use serde_json::json;
use std::sync::Arc;

fn req(method: &str, params: serde_json::Value) -> Request {
    Request { id: RequestId::Number(7), method: method.into(), params: params.as_object().cloned() }
}

fn ctx(version: ProtocolVersion, origin: Origin) -> RequestContext {
    let caller = Caller { version, client_info: None, client_capabilities: ClientCapabilities::default() };
    RequestContext::local().with_caller(Arc::new(caller)).with_origin(Arc::new(origin))
}

fn attr<'a>(op: &'a Operation, key: &str) -> Option<&'a AttrValue> {
    op.attributes.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

#[test]
fn a_tool_call_is_named_for_its_tool_and_carries_the_conventions_attributes() {
    let tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let r = req("tools/call", json!({"name": "get_weather", "_meta": {"traceparent": tp, "other": 1}}));
    let origin = Origin {
        peer: Some("127.0.0.1:5000".parse().unwrap()),
        session_id: Some("abc".into()),
        ..Default::default()
    };
    let op = server_operation(&r, &ctx(ProtocolVersion::V2025_11_25, origin));
    assert_eq!(op.span_name, "tools/call get_weather");
    assert_eq!(attr(&op, "mcp.method.name"), Some(&AttrValue::Str("tools/call".into())));
    assert_eq!(attr(&op, "gen_ai.tool.name"), Some(&AttrValue::Str("get_weather".into())));
    assert_eq!(attr(&op, "gen_ai.operation.name"), Some(&AttrValue::Str("execute_tool".into())));
    assert_eq!(attr(&op, "jsonrpc.request.id"), Some(&AttrValue::Str("7".into())));
    assert_eq!(attr(&op, "mcp.protocol.version"), Some(&AttrValue::Str("2025-11-25".into())));
    assert_eq!(attr(&op, "mcp.session.id"), Some(&AttrValue::Str("abc".into())));
    assert_eq!(attr(&op, "network.transport"), Some(&AttrValue::Str("tcp".into())));
    assert_eq!(attr(&op, "client.port"), Some(&AttrValue::Int(5000)));
    assert_eq!(op.carrier, vec![("traceparent".to_owned(), tp.to_owned())]);
    assert!(
        !op.metric_attributes.iter().any(|(k, _)| *k == "jsonrpc.request.id"),
        "ids are not metric attributes"
    );
}

#[test]
fn other_methods_keep_high_cardinality_out_of_the_name() {
    let stdio = ctx(ProtocolVersion::V2026_07_28, Origin::default());
    let read = server_operation(&req("resources/read", json!({"uri": "file:///x"})), &stdio);
    assert_eq!(read.span_name, "resources/read");
    assert_eq!(attr(&read, "mcp.resource.uri"), Some(&AttrValue::Str("file:///x".into())));
    assert_eq!(attr(&read, "network.transport"), Some(&AttrValue::Str("pipe".into())));
    assert_eq!(attr(&read, "mcp.session.id"), None, "a modern request belongs to no session");
    let prompt = server_operation(&req("prompts/get", json!({"name": "review"})), &stdio);
    assert_eq!(prompt.span_name, "prompts/get review");
    assert_eq!(server_operation(&req("tools/list", json!({})), &stdio).span_name, "tools/list");
}

#[test]
fn outcomes_name_json_rpc_codes_and_tool_errors() {
    assert_eq!(outcome(&Ok(json!({"content": []}))), Outcome::default());
    let tool = outcome(&Ok(json!({"content": [], "isError": true})));
    assert_eq!((tool.error_type.as_deref(), tool.status_code), (Some("tool_error"), None));
    let e = outcome(&Err(ErrorData::invalid_params("bad")));
    assert_eq!(e.error_type.as_deref(), Some("-32602"));
    assert_eq!(e.status_code.as_deref(), Some("-32602"));
    assert_eq!(e.description.as_deref(), Some("bad"));
}

#[test]
fn clients_cannot_mint_metric_series() {
    let stdio = ctx(ProtocolVersion::V2026_07_28, Origin::default());
    let odd = server_operation(&req("x/made-up-1234", json!({})), &stdio);
    assert_eq!(
        attr(&odd, "mcp.method.name"),
        Some(&AttrValue::Str("x/made-up-1234".into())),
        "the span keeps it"
    );
    let metric = odd.metric_attributes.iter().find(|(k, _)| *k == "mcp.method.name").map(|(_, v)| v);
    assert_eq!(metric, Some(&AttrValue::Str("_OTHER".into())));
    // After a JSON-RPC error the tool name (maybe one the client made up) leaves the metric.
    let e = outcome(&Err(ErrorData::invalid_params("Unknown tool: zz")));
    assert_eq!(e.drop_from_metric, ["gen_ai.tool.name", "gen_ai.prompt.name"]);
    assert!(outcome(&Ok(json!({"content": [], "isError": true}))).drop_from_metric.is_empty());
}
