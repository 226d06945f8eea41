//! The host-results vectors (`tests/vectors/host-results/`) against the rules, and the
//! adapters: replies, input required, abandonment.

use super::results::{self, HostValue};
use super::*;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};

fn vectors(name: &str) -> Vec<Value> {
    let path = format!("{}/../tests/vectors/host-results/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

/// A vector's value as a host value: `{"$bytes": b64}` is bytes, a list holding one is a list.
pub(crate) fn host_value(v: &Value) -> HostValue {
    HostValue::from_marked_json(v.clone())
}

#[test]
fn bytes_markers_are_bytes_only_where_the_vectors_say() {
    let b64 = STANDARD.encode(b"\x00\xff");
    assert!(matches!(host_value(&json!({"$bytes": b64})), HostValue::Bytes(b) if b == b"\x00\xff"));
    assert!(matches!(host_value(&json!([1, {"$bytes": b64}])), HostValue::List(l) if l.len() == 2));
    // Not a marker: another key beside it, a non-string, bad base64, nested deeper.
    for v in [
        json!({"$bytes": b64, "x": 1}),
        json!({"$bytes": 1}),
        json!({"$bytes": "***"}),
        json!({"a": {"$bytes": b64}}),
    ] {
        assert!(matches!(host_value(&v), HostValue::Json(_)), "{v}");
    }
}

fn check<T: serde::Serialize>(case: &Value, got: Result<T, String>) {
    let name = case["name"].as_str().unwrap();
    match (got, case["expect"].get("error")) {
        (Err(_), Some(_)) => {}
        (Err(e), None) => panic!("{name}: unexpected error {e}"),
        (Ok(v), Some(_)) => panic!("{name}: expected an error, got {}", serde_json::to_value(v).unwrap()),
        (Ok(v), None) => assert_eq!(serde_json::to_value(v).unwrap(), case["expect"], "{name}"),
    }
}

#[test]
fn tool_vectors() {
    for case in vectors("tool") {
        let wrapped = case["wrapped"].as_bool().unwrap_or(false);
        check(&case, Ok::<_, String>(results::tool_result(host_value(&case["value"]), wrapped)));
    }
}

#[test]
fn resource_vectors() {
    for case in vectors("resource") {
        let uri = case["uri"].as_str().unwrap();
        check(&case, results::resource_contents(host_value(&case["value"]), uri, case["mime"].as_str()));
    }
}

#[test]
fn prompt_vectors() {
    for case in vectors("prompt") {
        check(&case, results::prompt_result(host_value(&case["value"])));
    }
}

#[test]
fn completion_vectors() {
    for case in vectors("completion") {
        check(&case, results::completion(host_value(&case["value"])));
    }
}

#[test]
fn input_vectors() {
    for case in vectors("input") {
        let value = host_value(&case["value"]);
        match case["kind"].as_str().unwrap() {
            "elicitation" => check(&case, super::answers::elicit_result(value)),
            "sampling" => check(&case, super::answers::create_message_result(value)),
            "roots" => check(&case, super::answers::list_roots_result(value)),
            other => panic!("unknown kind {other}"),
        }
    }
}

#[test]
fn completions_are_capped_at_100_values() {
    let values: Vec<Value> = (0..150).map(|i| json!(format!("v{i}"))).collect();
    let c = results::completion(HostValue::Json(Value::Array(values))).unwrap();
    assert_eq!((c.values.len(), c.total, c.has_more), (100, Some(150), Some(true)));
}

/// A host function that answers with a fixed reply, after asking for input when told to.
struct Fixed {
    reply: HostReply,
    ask: bool,
}

impl HostCallback for Fixed {
    fn call(&self, kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let (reply, ask) = (self.reply.clone(), self.ask);
        Box::pin(async move {
            assert_eq!(kind, HandlerKind::Tool);
            assert_eq!(input, json!({"x": 1}));
            if ask {
                // The host swallows the error: the outcome is still input_required.
                let _ = call.input(json!({"k": {"method": "roots/list"}})).await;
            }
            reply
        })
    }
}

fn args() -> Arguments {
    json!({"x": 1}).as_object().unwrap().clone()
}

#[tokio::test]
async fn replies_become_results_and_errors() {
    let tool = |reply| HostTool::new(Arc::new(Fixed { reply, ask: false }), false);
    let ok = tool(HostReply::Value(json!("hi").into())).call(args(), RequestContext::local()).await.unwrap();
    assert_eq!(ok.first_text(), Some("hi"));
    let rpc = ErrorData::new(crate::ErrorCode(-32099), "custom").with_data(json!({"why": 1}));
    let err = tool(HostReply::Rpc(rpc.clone())).call(args(), RequestContext::local()).await.unwrap_err();
    assert_eq!((err.kind(), err.rpc_error()), (ErrorKind::Rpc, Some(&rpc)));
    let err = tool(HostReply::Failure("ValueError: no".into())).call(args(), RequestContext::local()).await;
    assert_eq!(err.unwrap_err().kind(), ErrorKind::Tool);
    let err = tool(HostReply::InputRequired("x".into())).call(args(), RequestContext::local()).await;
    assert_eq!(err.unwrap_err().kind(), ErrorKind::InputRequired);
}

#[tokio::test]
async fn a_missing_answer_is_input_required_whatever_the_host_returns() {
    let seed = crate::context::InputSeed::Modern {
        capabilities: serde_json::from_value(json!({"roots": {}})).unwrap(),
        answers: Default::default(),
        user: None,
    };
    let ctx = RequestContext::local().with_input(crate::context::InputLedger::new(seed, None));
    let tool =
        HostTool::new(Arc::new(Fixed { reply: HostReply::Value(json!("done").into()), ask: true }), false);
    let err = tool.call(args(), ctx).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InputRequired);
}

/// A host function that never answers, and says when it hears of its abandonment.
struct Hangs(Arc<AtomicBool>);

impl HostCallback for Hangs {
    fn call(&self, _: HandlerKind, _: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let heard = self.0.clone();
        call.on_abandon(Box::new(move || heard.store(true, Ordering::SeqCst)));
        Box::pin(std::future::pending())
    }
}

#[tokio::test]
async fn dropping_the_call_abandons_it_and_ends_its_handle() {
    let heard = Arc::new(AtomicBool::new(false));
    let tool = HostTool::new(Arc::new(Hangs(heard.clone())), false);
    let fut = tool.call(args(), RequestContext::local());
    let t = tokio::time::timeout(std::time::Duration::from_millis(20), fut).await;
    assert!(t.is_err() && heard.load(Ordering::SeqCst), "abandoned when the call was dropped");
}

/// A host middleware that passes `{"params": {"changed": true}}` on and adds `"wrapped": true`
/// to the result, or re-raises the chain's error.
struct Wrap;

impl HostCallback for Wrap {
    fn call(&self, kind: HandlerKind, input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        assert_eq!(kind, HandlerKind::Middleware);
        assert_eq!(input["method"], "tools/call");
        Box::pin(async move {
            assert!(call.next(json!("not an object")).await.is_err(), "a bad request is refused");
            match call.next(json!({"params": {"changed": true}})).await {
                Ok(mut v) => {
                    v["wrapped"] = json!(true);
                    assert!(call.next(json!({})).await.is_err(), "next runs once");
                    HostReply::Value(HostValue::Json(v))
                }
                Err(e) => HostReply::Rpc(e.rpc_error().cloned().unwrap()),
            }
        })
    }
}

#[tokio::test]
async fn a_host_middleware_passes_on_changed_requests_and_sees_results_and_errors() {
    use crate::middleware::{Chain, Endpoint};
    let chain = Chain::new(vec![Arc::new(HostMiddleware::new(Arc::new(Wrap)))]);
    let req = crate::jsonrpc::Request {
        id: crate::jsonrpc::RequestId::Number(1),
        method: "tools/call".into(),
        params: json!({"name": "x"}).as_object().cloned(),
    };
    let echo: Endpoint = Arc::new(|r| Box::pin(async move { Ok(json!({ "params": r.params })) }));
    let out = chain.run(req.clone(), RequestContext::local(), echo).await.unwrap();
    assert_eq!(out, json!({"params": {"changed": true}, "wrapped": true}));
    let refuse: Endpoint = Arc::new(|_| {
        Box::pin(async { Err(ErrorData::new(crate::ErrorCode(-32042), "no").with_data(json!({"why": 1}))) })
    });
    let e = chain.run(req, RequestContext::local(), refuse).await.unwrap_err();
    assert_eq!((e.code.0, e.data), (-32042, Some(json!({"why": 1}))));
}

/// A host middleware that answers at once and calls `next` only later, after its call ended
/// (what a JS middleware does when it forgets to await, or keeps going after a cancellation).
struct Late(Arc<std::sync::Mutex<Option<tokio::task::JoinHandle<crate::Result<Value>>>>>);

impl HostCallback for Late {
    fn call(&self, _kind: HandlerKind, _input: Value, call: HostCall) -> BoxFuture<'static, HostReply> {
        let late = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            call.next(json!({})).await
        });
        *self.0.lock().unwrap() = Some(late);
        Box::pin(async { HostReply::Value(HostValue::Json(json!({"early": true}))) })
    }
}

#[tokio::test]
async fn next_after_the_call_ended_is_refused_and_reaches_nothing() {
    use crate::middleware::{Chain, Endpoint};
    let slot = Arc::new(std::sync::Mutex::new(None));
    let chain = Chain::new(vec![Arc::new(HostMiddleware::new(Arc::new(Late(slot.clone()))))]);
    let reached = Arc::new(AtomicBool::new(false));
    let r = reached.clone();
    let endpoint: Endpoint = Arc::new(move |_| {
        r.store(true, Ordering::SeqCst);
        Box::pin(async { Ok(json!({})) })
    });
    let req = crate::jsonrpc::Request {
        id: crate::jsonrpc::RequestId::Number(1),
        method: "tools/call".into(),
        params: None,
    };
    assert_eq!(chain.run(req, RequestContext::local(), endpoint).await.unwrap(), json!({"early": true}));
    let handle = slot.lock().unwrap().take().unwrap();
    let late = handle.await.unwrap();
    assert_eq!(late.unwrap_err().kind(), ErrorKind::Cancelled);
    assert!(!reached.load(Ordering::SeqCst), "nothing ran after the call was answered");
}
