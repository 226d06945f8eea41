use super::*;
use crate::jsonrpc::RequestId;
use serde_json::json;
use std::sync::Mutex;

fn request(method: &str) -> Request {
    Request { id: RequestId::Number(1), method: method.into(), params: None }
}

fn endpoint(seen: Arc<Mutex<Vec<String>>>) -> Endpoint {
    Arc::new(move |req: Request| {
        seen.lock().unwrap().push(format!("engine {}", req.method));
        Box::pin(async move { Ok(json!({ "method": req.method, "params": req.params })) })
    })
}

#[tokio::test]
async fn middleware_run_outermost_first_and_see_the_result_on_the_way_back() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let layer = |name: &'static str, seen: Arc<Mutex<Vec<String>>>| {
        from_fn(move |req, _ctx, next: Next| {
            let seen = seen.clone();
            async move {
                seen.lock().unwrap().push(format!("{name} in"));
                let out = next.run(req).await;
                seen.lock().unwrap().push(format!("{name} out"));
                out
            }
        })
    };
    let chain = Chain::new(vec![layer("a", seen.clone())]).with(layer("b", seen.clone()));
    let out = chain.run(request("tools/list"), RequestContext::local(), endpoint(seen.clone())).await;
    assert_eq!(out.unwrap()["method"], "tools/list");
    assert_eq!(*seen.lock().unwrap(), ["a in", "b in", "engine tools/list", "b out", "a out"]);
}

#[tokio::test]
async fn a_middleware_may_change_the_request_or_answer_it_itself() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let change = from_fn(|mut req: Request, _ctx, next: Next| async move {
        req.params = Some(json!({"added": true}).as_object().unwrap().clone());
        next.run(req).await
    });
    let chain = Chain::new(vec![change]);
    let out = chain.run(request("tools/call"), RequestContext::local(), endpoint(seen.clone())).await;
    assert_eq!(out.unwrap()["params"]["added"], true);

    let refuse =
        from_fn(
            |_req, _ctx, _next| async move { Err(ErrorData::invalid_request("Invalid Request: refused")) },
        );
    let chain = Chain::new(vec![refuse]).with(from_fn(|req, _ctx, next: Next| next.run(req)));
    let out = chain.run(request("tools/call"), RequestContext::local(), endpoint(seen.clone())).await;
    assert_eq!(out.unwrap_err().message, "Invalid Request: refused");
    assert_eq!(seen.lock().unwrap().len(), 1, "the refused request never reached the engine");
}

#[test]
fn an_empty_chain_is_empty() {
    assert!(Chain::default().is_empty());
    assert_eq!(Chain::default().with(from_fn(|r, _c, n: Next| n.run(r))).len(), 1);
}
