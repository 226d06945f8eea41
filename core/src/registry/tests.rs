use super::*;
use crate::protocol::CallToolResult;
use serde_json::json;

fn tool(name: &str) -> Tool {
    serde_json::from_value(json!({
        "name": name,
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    }))
    .unwrap()
}

fn echo() -> impl ToolHandler {
    |args: Arguments, _ctx: ToolContext| async move {
        Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
    }
}

#[test]
fn names_are_validated() {
    let r = ToolRegistry::new();
    assert!(r.register(tool("ok_name-1.2"), echo()).is_ok());
    for bad in ["", "has space", "ümlaut", &"x".repeat(129)] {
        assert_eq!(r.register(tool(bad), echo()).unwrap_err().kind(), ErrorKind::InvalidInput, "{bad:?}");
    }
}

#[test]
fn collisions_follow_the_policy() {
    let r = ToolRegistry::new();
    r.register(tool("echo"), echo()).unwrap();
    assert!(r.register(tool("echo"), echo()).is_err());
    let remote = || ToolOrigin::Remote { server: "srv".into(), remote_name: "echo".into() };
    let skipped = r.register_with(tool("echo"), Arc::new(echo()), remote(), CollisionPolicy::Skip).unwrap();
    assert_eq!(skipped, Registration::Skipped("echo".into()));
    let renamed = r.register_with(tool("echo"), Arc::new(echo()), remote(), CollisionPolicy::Prefix).unwrap();
    assert_eq!(renamed.name(), Some("srv_echo"));
    assert_eq!(r.names(), vec!["echo", "srv_echo"]);
    assert_eq!(r.unregister_server("srv"), vec!["srv_echo"]);
    assert_eq!(r.names(), vec!["echo"]);
}

#[test]
fn pages_are_ordinal_and_cursors_checked() {
    let r = ToolRegistry::new();
    for n in ["b", "a", "d", "c", "e"] {
        r.register(tool(n), echo()).unwrap();
    }
    let (p1, c1) = r.page(None, 2).unwrap();
    assert_eq!(p1.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    let (p2, c2) = r.page(c1.as_deref(), 2).unwrap();
    assert_eq!(p2.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["c", "d"]);
    let (p3, c3) = r.page(c2.as_deref(), 2).unwrap();
    assert_eq!(p3.len(), 1);
    assert_eq!(c3, None);
    assert_eq!(r.page(Some("garbage"), 2).unwrap_err().code, crate::ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn call_validates_and_settles() {
    let r = ToolRegistry::new();
    r.register(tool("echo"), echo()).unwrap();
    r.register(tool("fail"), |_a: Arguments, _c: ToolContext| async { Err(Error::tool("boom")) }).unwrap();
    let ok = r.call("echo", json!({"text": "hi"}), ToolContext::local()).await.unwrap();
    assert_eq!(ok.first_text(), Some("hi"));
    // As over the wire at the newest revision: invalid arguments are an isError result.
    let bad = r.call("echo", json!({"text": 5}), ToolContext::local()).await.unwrap();
    assert!(bad.is_error());
    assert!(bad.first_text().unwrap().starts_with("Invalid arguments for tool echo: /text: "));
    let not_object = r.call("echo", json!([1]), ToolContext::local()).await.unwrap_err();
    assert_eq!(not_object.code(), crate::ErrorCode::INVALID_PARAMS);
    let failed = r.call("fail", json!({"text": "x"}), ToolContext::local()).await.unwrap();
    assert!(failed.is_error());
    assert_eq!(failed.first_text(), Some("boom"));
    let unknown = r.call("nope", json!({}), ToolContext::local()).await.unwrap_err();
    assert_eq!(unknown.code(), crate::ErrorCode::INVALID_PARAMS);
}

#[tokio::test]
async fn output_schema_is_enforced() {
    let r = ToolRegistry::new();
    let mut t = tool("add");
    t.output_schema =
        Some(json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}));
    r.register(t, |_a: Arguments, _c: ToolContext| async {
        Ok(CallToolResult::structured(json!({"total": 1})))
    })
    .unwrap();
    let res = r.call("add", json!({"text": "x"}), ToolContext::local()).await.unwrap();
    assert!(res.is_error());
    assert!(res.first_text().unwrap().contains("outputSchema"));
}

/// A handler whose result is JSON already, as a forwarded call's is.
struct Json(Value);

impl ToolHandler for Json {
    fn call(&self, _: Arguments, _: ToolContext) -> BoxFuture<'static, Result<CallToolResult>> {
        unreachable!("the engine calls call_json")
    }
    fn returns_json(&self) -> bool {
        true
    }
    fn call_json(&self, _: Arguments, _: ToolContext) -> BoxFuture<'static, Result<Value>> {
        let v = self.0.clone();
        Box::pin(async move { Ok(v) })
    }
}

#[tokio::test]
async fn json_results_are_checked_like_typed_ones() {
    let v = crate::protocol::ProtocolVersion::LATEST;
    let settle = |result: Value, output: Option<Value>| async move {
        let r = ToolRegistry::new();
        let mut t = tool("j");
        t.output_schema = output;
        r.register(t, Json(result)).unwrap();
        let t = r.get("j").unwrap();
        assert!(t.returns_json());
        t.settle_json(t.invoke_json(serde_json::Map::new(), ToolContext::local()).await, v).unwrap()
    };
    let ok = json!({"content": [{"type": "text", "text": "hi"}], "extra": 1});
    assert_eq!(settle(ok.clone(), None).await, ok, "a well-formed result passes as it is");
    let nulls = json!({"content": [], "isError": null, "structuredContent": null, "_meta": null});
    assert_eq!(settle(nulls, None).await, json!({"content": []}), "null members read as left out");
    for (bad, why) in [
        (json!([1]), "not an object"),
        (json!({"content": "x"}), "no content array"),
        (json!({"content": [{"text": "x"}]}), "no type"),
        (json!({"content": [], "isError": "yes"}), "isError is not a boolean"),
    ] {
        let r = settle(bad, None).await;
        assert_eq!(r["isError"], json!(true));
        assert!(r["content"][0]["text"].as_str().unwrap().contains(why), "{r}");
    }
    let schema = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
    let good = json!({"content": [], "structuredContent": {"sum": 1}});
    assert_eq!(settle(good.clone(), Some(schema.clone())).await, good);
    let wrong = settle(json!({"content": [], "structuredContent": {"total": 1}}), Some(schema.clone())).await;
    assert!(wrong["content"][0]["text"].as_str().unwrap().contains("does not match the tool's outputSchema"));
    let missing = settle(json!({"content": []}), Some(schema.clone())).await;
    assert!(missing["content"][0]["text"].as_str().unwrap().contains("no structuredContent"));
    let failed = json!({"content": [], "isError": true});
    assert_eq!(
        settle(failed.clone(), Some(schema)).await,
        failed,
        "a failed call needs no structuredContent"
    );
}
