use super::*;
use crate::context::{Origin, RequestContext};
use crate::jsonrpc::RequestId;
use crate::middleware::{Chain, Endpoint, Middleware};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn call(tool: &str) -> crate::jsonrpc::Request {
    let params = json!({"name": tool, "arguments": {}}).as_object().cloned();
    crate::jsonrpc::Request { id: RequestId::Number(7), method: "tools/call".into(), params }
}

fn slow_endpoint(delay: Duration, result: Value) -> Endpoint {
    Arc::new(move |_req| {
        let result = result.clone();
        Box::pin(async move {
            tokio::time::sleep(delay).await;
            Ok(result)
        })
    })
}

fn from(addr: &str) -> RequestContext {
    let origin = Origin { peer: Some(addr.parse().unwrap()), ..Default::default() };
    RequestContext::local().with_origin(Arc::new(origin))
}

#[test]
fn a_rate_limit_allows_its_burst_then_refills_at_its_rate_per_client() {
    let limit = RateLimit::new(2.0, 3);
    let t0 = Instant::now();
    for _ in 0..3 {
        assert!(rate::take_at(&limit, "a", t0).is_ok());
    }
    let wait = rate::take_at(&limit, "a", t0).unwrap_err();
    assert!((wait - 0.5).abs() < 1e-9, "{wait}");
    assert!(rate::take_at(&limit, "b", t0).is_ok(), "another client has its own bucket");
    assert!(rate::take_at(&limit, "a", t0 + Duration::from_millis(500)).is_ok());
    assert!(rate::take_at(&limit, "a", t0 + Duration::from_millis(500)).is_err());
    // Idle long enough, the bucket is full again, never fuller.
    let later = t0 + Duration::from_secs(60);
    for _ in 0..3 {
        assert!(rate::take_at(&limit, "a", later).is_ok());
    }
    assert!(rate::take_at(&limit, "a", later).is_err());
}

#[tokio::test]
async fn a_request_over_the_rate_is_refused_with_retry_after_and_never_runs() {
    let chain = Chain::new(vec![Arc::new(RateLimit::new(0.5, 1))]);
    let ok = chain.run(call("x"), from("127.0.0.1:1000"), slow_endpoint(Duration::ZERO, json!({}))).await;
    assert!(ok.is_ok());
    let e = chain
        .run(call("x"), from("127.0.0.1:1001"), slow_endpoint(Duration::ZERO, json!({})))
        .await
        .unwrap_err();
    assert_eq!(e.limit_reached(), Some("rate"));
    assert_eq!(e.data.as_ref().unwrap()["retryAfter"], 2);
    assert!(e.message.contains("address 127.0.0.1"), "{}", e.message);
    let other = chain.run(call("x"), from("127.0.0.2:1000"), slow_endpoint(Duration::ZERO, json!({}))).await;
    assert!(other.is_ok(), "another address is another client");
}

#[tokio::test]
async fn a_limited_method_list_counts_only_those_methods() {
    let chain = Chain::new(vec![Arc::new(RateLimit::new(0.001, 1).methods(["tools/call"]))]);
    let mut list = call("x");
    list.method = "tools/list".into();
    for _ in 0..5 {
        assert!(chain
            .run(list.clone(), from("127.0.0.1:1"), slow_endpoint(Duration::ZERO, json!({})))
            .await
            .is_ok());
    }
    assert!(chain
        .run(call("x"), from("127.0.0.1:1"), slow_endpoint(Duration::ZERO, json!({})))
        .await
        .is_ok());
    assert!(chain
        .run(call("x"), from("127.0.0.1:1"), slow_endpoint(Duration::ZERO, json!({})))
        .await
        .is_err());
}

#[tokio::test]
async fn a_tool_over_its_timeout_is_cancelled_with_32001() {
    let timeouts = Timeouts::new(Duration::from_secs(5)).tool("quick", Duration::from_millis(50));
    let chain = Chain::new(vec![Arc::new(timeouts) as Arc<dyn Middleware>]);
    let slow = || slow_endpoint(Duration::from_millis(300), json!({"content": []}));
    let e = chain.run(call("quick"), RequestContext::local(), slow()).await.unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::REQUEST_TIMEOUT);
    assert_eq!(e.data.unwrap(), json!({"tool": "quick", "timeoutMs": 50}));
    assert!(chain.run(call("other"), RequestContext::local(), slow()).await.is_ok(), "5 s default");
    let mut list = call("quick");
    list.method = "tools/list".into();
    assert!(chain.run(list, RequestContext::local(), slow()).await.is_ok(), "only tool calls are bounded");
}

#[tokio::test]
async fn a_result_over_the_size_limit_is_an_error_naming_its_size() {
    let chain = Chain::new(vec![Arc::new(ResponseLimit::new(64)) as Arc<dyn Middleware>]);
    let small = json!({"content": [{"type": "text", "text": "ok"}]});
    assert_eq!(
        chain
            .run(call("t"), RequestContext::local(), slow_endpoint(Duration::ZERO, small.clone()))
            .await
            .unwrap(),
        small
    );
    let big = json!({"content": [{"type": "text", "text": "x".repeat(100)}]});
    let e =
        chain.run(call("t"), RequestContext::local(), slow_endpoint(Duration::ZERO, big)).await.unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::INTERNAL_ERROR);
    let data = e.data.unwrap();
    assert_eq!((data["limit"].as_str(), data["max"].as_u64()), (Some("response_size"), Some(64)));
    assert!(data["size"].as_u64().unwrap() > 100);
    assert!(e.message.contains("tool t"), "{}", e.message);
}

#[tokio::test]
async fn an_input_required_round_keeps_no_idempotency_key() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let chain = Chain::new(vec![Arc::new(Idempotency::default()) as Arc<dyn Middleware>]);
    let calls = Arc::new(AtomicUsize::new(0));
    let endpoint = |calls: Arc<AtomicUsize>| -> Endpoint {
        Arc::new(move |_req| {
            let n = calls.fetch_add(1, Ordering::SeqCst);
            Box::pin(async move {
                Ok(match n {
                    0 => json!({"resultType": "input_required", "inputRequests": {}, "requestState": "s"}),
                    _ => {
                        json!({"resultType": "complete", "content": [{"type": "text", "text": format!("run {n}")}]})
                    }
                })
            })
        })
    };
    let keyed = || {
        let params =
            json!({"name": "pay", "arguments": {"idempotency_key": "k", "amount": 1}}).as_object().cloned();
        crate::jsonrpc::Request { id: RequestId::Number(1), method: "tools/call".into(), params }
    };
    let first = chain.run(keyed(), from("127.0.0.1:1"), endpoint(calls.clone())).await.unwrap();
    assert_eq!(first["resultType"], "input_required");
    let second = chain.run(keyed(), from("127.0.0.1:1"), endpoint(calls.clone())).await.unwrap();
    assert_eq!(second["content"][0]["text"], "run 1", "the retry with the answers ran");
    let third = chain.run(keyed(), from("127.0.0.1:1"), endpoint(calls.clone())).await.unwrap();
    assert_eq!(third, second, "then the key holds the complete result");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn a_rate_limit_of_almost_nothing_does_not_panic_when_full() {
    // The rate clamps to the smallest positive one; a full table (100,000 clients) then asks
    // how long a bucket takes to fill: longer than a Duration holds.
    let limit = RateLimit::new(0.0, 1);
    let now = Instant::now();
    for i in 0..100_001 {
        let _ = rate::take_at(&limit, &format!("c{i}"), now);
    }
}

#[tokio::test]
async fn a_call_running_past_its_lease_keeps_its_key_by_renewing_it() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let idem = Idempotency::default().lease(Duration::from_millis(150));
    let chain = Chain::new(vec![Arc::new(idem) as Arc<dyn Middleware>]);
    let runs = Arc::new(AtomicUsize::new(0));
    let slow = {
        let runs = runs.clone();
        move || -> Endpoint {
            let runs = runs.clone();
            Arc::new(move |_req| {
                runs.fetch_add(1, Ordering::SeqCst);
                Box::pin(async {
                    tokio::time::sleep(Duration::from_millis(600)).await;
                    Ok(json!({"content": []}))
                })
            })
        }
    };
    let keyed = || {
        let params = json!({"name": "pay", "arguments": {"idempotency_key": "long"}}).as_object().cloned();
        crate::jsonrpc::Request { id: RequestId::Number(1), method: "tools/call".into(), params }
    };
    let first = tokio::spawn(chain.run(keyed(), from("127.0.0.1:1"), slow()));
    tokio::time::sleep(Duration::from_millis(50)).await;
    let second = chain.run(keyed(), from("127.0.0.1:1"), slow()).await;
    // The duplicate waited one lease and gave up: the first still held (renewed) its claim.
    assert_eq!(second.unwrap_err().data.unwrap()["reason"], "idempotency_key_busy");
    assert!(first.await.unwrap().is_ok());
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the tool ran once, though it outlived its lease");
}

/// A view that shows everything (the catalogue is per identity, its answer the same).
struct Everything;
impl crate::context::CatalogFilter for Everything {
    fn allows(
        &self,
        _: Option<&crate::context::Identity>,
        _: &crate::context::Entry<'_>,
        _: crate::context::Access,
    ) -> bool {
        true
    }
}

/// A caller of a per-identity catalogue: its token (when given) and its subject.
fn caller(token: Option<&str>, subject: Option<&str>, peer: &str) -> RequestContext {
    let mut origin = Origin { peer: Some(peer.parse().unwrap()), ..Default::default() };
    origin.extensions.insert(crate::context::CatalogView(Arc::new(Everything)));
    if let Some(t) = token {
        origin.extensions.insert(crate::context::CallerToken(t.into()));
    }
    if let Some(s) = subject {
        origin.identity =
            Some(Arc::new(crate::context::Identity { subject: Some(s.into()), ..Default::default() }));
    }
    RequestContext::local().with_origin(Arc::new(origin))
}

#[tokio::test]
async fn per_identity_lists_are_kept_per_token_and_never_by_address_alone() {
    let list =
        || crate::jsonrpc::Request { id: RequestId::Number(1), method: "tools/list".into(), params: None };
    let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let endpoint = {
        let ran = ran.clone();
        Arc::new(move |_req| {
            let n = ran.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Box::pin(async move { Ok(json!({"tools": [], "n": n})) }) as crate::context::BoxFuture<'static, _>
        }) as Endpoint
    };
    let chain =
        Chain::new(vec![Arc::new(ListCache::new(Duration::from_secs(60), 10)) as Arc<dyn Middleware>]);
    let run = |ctx: RequestContext| chain.run(list(), ctx, endpoint.clone());
    let a1 = run(caller(Some("token-a"), Some("alice"), "10.0.0.1:1")).await.unwrap();
    let a2 = run(caller(Some("token-a"), Some("alice"), "10.0.0.1:1")).await.unwrap();
    assert_eq!(a1, a2, "the same token: kept");
    let b = run(caller(Some("token-b"), Some("alice"), "10.0.0.1:1")).await.unwrap();
    assert_ne!(a1, b, "another token of the same subject (other scopes): its own entry");
    let anon1 = run(caller(None, None, "10.0.0.1:1")).await.unwrap();
    let anon2 = run(caller(None, None, "10.0.0.1:1")).await.unwrap();
    assert_ne!(anon1, anon2, "a per-identity list without a token or identity is not kept");
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), 4);
}
