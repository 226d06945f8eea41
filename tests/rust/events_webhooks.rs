//! Webhook delivery of MCP Events (SEP-3415 §Webhook delivery; issue 48) over real HTTP on
//! 127.0.0.1: a receiver (axum) that answers verification challenges and records every POST;
//! our server subscribing it, verifying it, delivering signed occurrences in order (each
//! signature checked here with HMAC-SHA256 computed independently), re-signing after a refresh
//! with a new secret, retrying a 503 with fresh timestamps, not retrying a 410, stopping at
//! unsubscribe; and every refusal with its code: a bad secret or URL, a private address, a
//! callback that fails its challenge, a type without webhooks, an anonymous caller under the
//! production policy.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::protocol::events::DeliveryMode;
use mcpcore::server::webhooks::WebhookPolicy;
use mcpcore::server::Server;
use mcpcore_tests::http::{fixture_registry, modern, send, Raw};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One POST the receiver got.
#[derive(Debug, Clone)]
struct Got {
    path: String,
    id: String,
    timestamp: u64,
    signature: String,
    subscription: String,
    body: Vec<u8>,
}

impl Got {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// True when the signature is HMAC-SHA256 over "id.timestamp.body" with `secret`.
    fn signed_with(&self, secret: &[u8]) -> bool {
        let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret).unwrap();
        mac.update(format!("{}.{}.", self.id, self.timestamp).as_bytes());
        mac.update(&self.body);
        let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
        self.signature.split(' ').any(|s| s == expected)
    }
}

#[derive(Default)]
struct Receiver {
    got: Mutex<Vec<Got>>,
}

async fn hook(
    State(r): State<Arc<Receiver>>,
    Path(path): Path<String>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> (StatusCode, String) {
    let h = |k: &str| headers.get(k).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let got = Got {
        path: path.clone(),
        id: h("webhook-id"),
        timestamp: h("webhook-timestamp").parse().unwrap_or(0),
        signature: h("webhook-signature"),
        subscription: h("x-mcp-subscription-id"),
        body: body.to_vec(),
    };
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let attempts = {
        let mut all = r.got.lock().unwrap();
        all.push(got.clone());
        all.iter().filter(|g| g.id == got.id && g.path == got.path).count()
    };
    if v["type"] == "verification" {
        let challenge = if path == "bad" { json!("wrong") } else { v["challenge"].clone() };
        return (StatusCode::OK, json!({ "challenge": challenge }).to_string());
    }
    match path.as_str() {
        "flaky" if attempts <= 2 => (StatusCode::SERVICE_UNAVAILABLE, "later".into()),
        "gone" => (StatusCode::GONE, "gone".into()),
        _ => (StatusCode::NO_CONTENT, String::new()),
    }
}

async fn receiver() -> (Arc<Receiver>, String) {
    let r = Arc::new(Receiver::default());
    let app = Router::new().route("/{path}", post(hook)).with_state(r.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (r, base)
}

fn events() -> Arc<EventRegistry> {
    let r = EventRegistry::new();
    let all = [DeliveryMode::Poll, DeliveryMode::Push, DeliveryMode::Webhook];
    r.declare(EventDecl::new("tick", "Counts").delivery(all)).unwrap();
    r.declare(EventDecl::new("nohook", "Poll only").delivery([DeliveryMode::Poll])).unwrap();
    Arc::new(r)
}

async fn serve(events: &Arc<EventRegistry>, policy: WebhookPolicy) -> (HttpServing, Raw) {
    let config = mcpcore::engine::ServerConfig::new("hooks", "1.0.0");
    let server = Server::new(config, Arc::new(fixture_registry()))
        .with_events(events.clone())
        .with_webhook_policy(policy);
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = Raw::new(&serving.url());
    (serving, raw)
}

fn secret(byte: u8) -> (String, Vec<u8>) {
    let bytes = vec![byte; 32];
    (format!("whsec_{}", STANDARD.encode(&bytes)), bytes)
}

async fn call(raw: &Raw, method: &str, params: Value) -> Value {
    send(raw.post_modern(&modern(1, method, params))).await.json
}

fn subscribe(url: &str, secret: &str) -> Value {
    json!({"name": "tick", "arguments": {}, "delivery": {"mode": "webhook", "url": url, "secret": secret}, "ttlMs": 60000})
}

/// Waits (bounded) until `f` holds of what the receiver got.
async fn until(r: &Receiver, f: impl Fn(&[Got]) -> bool) -> Vec<Got> {
    for _ in 0..500 {
        let got = r.got.lock().unwrap().clone();
        if f(&got) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the receiver did not get what was expected: {:?}", r.got.lock().unwrap());
}

fn policy() -> WebhookPolicy {
    WebhookPolicy { backoff: Duration::from_millis(50), ..WebhookPolicy::development() }
}

#[tokio::test]
async fn a_subscription_is_verified_then_delivered_signed_in_order_and_ends_at_unsubscribe() {
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let (s1, k1) = secret(1);
    let url = format!("{base}/ok");
    let sub = call(&raw, "events/subscribe", subscribe(&url, &s1)).await;
    let result = &sub["result"];
    let id = result["id"].as_str().unwrap_or_else(|| panic!("{sub}")).to_owned();
    assert!(id.starts_with("sub_"), "{sub}");
    assert!(result["refreshBefore"].as_str().unwrap().ends_with('Z'), "{sub}");
    assert!(result["cursor"].is_string() && result["truncated"] == false, "{sub}");
    // The challenge came first, signed with the secret, naming the subscription.
    let got = r.got.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].json()["type"], "verification");
    assert!(got[0].id.starts_with("msg_verification_"));
    assert!(got[0].signed_with(&k1));
    assert_eq!(got[0].subscription, id);

    let a = events.emit("tick", json!({"n": 1})).unwrap();
    let b = events.emit("tick", json!({"n": 2})).unwrap();
    let got = until(&r, |g| g.len() >= 3).await;
    assert_eq!(got[1].id, a.event_id, "webhook-id is the eventId");
    assert_eq!(got[2].id, b.event_id);
    for g in &got[1..3] {
        assert!(g.signed_with(&k1), "{g:?}");
        assert_eq!(g.subscription, id);
        let body = g.json();
        assert_eq!(body["name"], "tick");
        assert!(body["cursor"].is_string(), "{body}");
        let age = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
            - g.timestamp;
        assert!(age < 60, "a fresh timestamp");
    }
    assert_eq!(
        (got[1].json()["data"]["n"].clone(), got[2].json()["data"]["n"].clone()),
        (json!(1), json!(2))
    );

    // A refresh with a new secret: the same id, no new challenge, deliveries signed anew.
    let (s2, k2) = secret(2);
    let again = call(&raw, "events/subscribe", subscribe(&url, &s2)).await;
    assert_eq!(again["result"]["id"], id, "{again}");
    events.emit("tick", json!({"n": 3})).unwrap();
    let got = until(&r, |g| g.len() >= 4).await;
    assert!(got[3].signed_with(&k2) && !got[3].signed_with(&k1));
    // Another URL is another subscription; an id passed in is not an address.
    let other = call(&raw, "events/subscribe", subscribe(&format!("{base}/other"), &s1)).await;
    assert_ne!(other["result"]["id"], id, "{other}");

    // Unsubscribe by key: nothing more reaches /ok; a second time it is unknown.
    let key = json!({"name": "tick", "arguments": {}, "delivery": {"mode": "webhook", "url": url}});
    let done = call(&raw, "events/unsubscribe", key.clone()).await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    events.emit("tick", json!({"n": 4})).unwrap();
    until(&r, |g| g.iter().any(|x| x.path == "other" && x.json()["data"]["n"] == 4)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let to_ok = r.got.lock().unwrap().iter().filter(|g| g.path == "ok").count();
    assert_eq!(to_ok, 4, "no delivery to /ok after unsubscribe");
    let twice = call(&raw, "events/unsubscribe", key).await;
    assert_eq!(twice["error"]["code"], -32011, "{twice}");
}

#[tokio::test]
async fn failures_are_retried_with_fresh_signatures_and_410_is_not() {
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let (s, k) = secret(3);
    for path in ["flaky", "gone"] {
        let sub = call(&raw, "events/subscribe", subscribe(&format!("{base}/{path}"), &s)).await;
        assert!(sub["result"]["id"].is_string(), "{sub}");
    }
    let e = events.emit("tick", json!({"n": 1})).unwrap();
    let got = until(&r, |g| g.iter().filter(|x| x.path == "flaky" && x.id == e.event_id).count() >= 3).await;
    let flaky: Vec<&Got> = got.iter().filter(|x| x.path == "flaky" && x.id == e.event_id).collect();
    assert!(flaky.iter().all(|g| g.signed_with(&k)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let got = r.got.lock().unwrap().clone();
    assert_eq!(
        got.iter().filter(|x| x.path == "flaky" && x.id == e.event_id).count(),
        3,
        "delivered on the third attempt, then no more"
    );
    assert_eq!(
        got.iter().filter(|x| x.path == "gone" && x.id == e.event_id).count(),
        1,
        "410 is not retried"
    );
}

#[tokio::test]
async fn bad_subscriptions_are_refused_with_their_codes_and_change_nothing() {
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let (s, _) = secret(4);
    let code = |v: &Value| v["error"]["code"].as_i64();
    let ok = format!("{base}/ok");
    let cases = [
        (json!({"name": "tick", "arguments": {}, "delivery": {"url": ok}}), -32602, "no secret"),
        (
            json!({"name": "tick", "arguments": {}, "delivery": {"url": ok, "secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}}),
            -32602,
            "no whsec_ prefix",
        ),
        (
            json!({"name": "tick", "arguments": {}, "delivery": {"url": ok, "secret": "whsec_AAAAAAAAAAA="}}),
            -32602,
            "8 bytes",
        ),
        (
            json!({"name": "tick", "arguments": {}, "delivery": {"url": "http://10.0.0.1/h", "secret": s}}),
            -32602,
            "a private address",
        ),
        (
            json!({"name": "tick", "arguments": {}, "delivery": {"url": "not a url", "secret": s}}),
            -32602,
            "not a URL",
        ),
        (
            json!({"name": "tick", "arguments": {}, "delivery": {"mode": "push", "url": ok, "secret": s}}),
            -32014,
            "another mode",
        ),
        (
            json!({"name": "nohook", "arguments": {}, "delivery": {"url": ok, "secret": s}}),
            -32014,
            "a type without webhooks",
        ),
        (
            json!({"name": "nope", "arguments": {}, "delivery": {"url": ok, "secret": s}}),
            -32011,
            "an unknown type",
        ),
    ];
    for (params, expected, why) in cases {
        let v = call(&raw, "events/subscribe", params).await;
        assert_eq!(code(&v), Some(expected), "{why}: {v}");
    }
    assert!(r.got.lock().unwrap().is_empty(), "nothing was posted for a refused subscribe");
    // A callback that answers the challenge wrongly: -32015, reason named, its answer not echoed.
    let bad = call(&raw, "events/subscribe", subscribe(&format!("{base}/bad"), &s)).await;
    assert_eq!(code(&bad), Some(-32015), "{bad}");
    assert_eq!(bad["error"]["data"], json!({"reason": "challenge_failed"}));
    assert!(!bad.to_string().contains("wrong"));
    events.emit("tick", json!({"n": 1})).unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(r.got.lock().unwrap().iter().filter(|g| g.path == "bad").count(), 1, "only the challenge");
    // Nobody listening there: connection_refused.
    let closed = call(&raw, "events/subscribe", subscribe("http://127.0.0.1:9/h", &s)).await;
    assert_eq!(code(&closed), Some(-32015), "{closed}");
    assert_eq!(closed["error"]["data"]["reason"], "connection_refused");
}

#[tokio::test]
async fn the_production_policy_wants_a_principal_and_a_public_https_callback() {
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, WebhookPolicy::default()).await;
    let (s, _) = secret(5);
    let v = call(&raw, "events/subscribe", subscribe(&format!("{base}/ok"), &s)).await;
    assert_eq!(v["error"]["code"], -32012, "anonymous: Forbidden: {v}");
    let dev = WebhookPolicy { allow_anonymous: true, ..WebhookPolicy::default() };
    let (_serving2, raw2) = serve(&events, dev).await;
    let v = call(&raw2, "events/subscribe", subscribe(&format!("{base}/ok"), &s)).await;
    assert_eq!(v["error"]["code"], -32602, "loopback without the development option: {v}");
    assert!(r.got.lock().unwrap().is_empty());
}

#[tokio::test]
async fn our_client_subscribes_refreshes_and_unsubscribes_a_webhook() {
    use mcpcore::client::{Client, ClientOptions};
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let client = Client::connect_http(&raw.url, Default::default(), ClientOptions::default()).await.unwrap();
    let (s, k) = secret(6);
    let url = format!("{base}/ok");
    let granted = client.subscribe_webhook("tick", json!({}), &url, &s, Some(5_000)).await.unwrap();
    assert!(granted.id.starts_with("sub_") && granted.refresh_before.is_some() && !granted.truncated);
    let again = client.subscribe_webhook("tick", json!({}), &url, &s, None).await.unwrap();
    assert_eq!(again.id, granted.id);
    events.emit("tick", json!({"n": 9})).unwrap();
    let got = until(&r, |g| g.len() >= 2).await;
    assert!(got[1].signed_with(&k) && got[1].json()["data"]["n"] == 9);
    client.unsubscribe_webhook("tick", json!({}), &url).await.unwrap();
    let e = client.unsubscribe_webhook("tick", json!({}), &url).await.unwrap_err();
    assert_eq!(e.code().0, -32011, "{e:?}");
}

#[tokio::test]
async fn our_receiver_takes_our_servers_deliveries_once_and_refuses_a_forgery() {
    use mcpcore::client::{Client, ClientOptions};
    use mcpcore::events::receiver::{Delivery, Receiver};
    let (s, _) = secret(7);
    let taken: Arc<Mutex<Vec<Delivery>>> = Arc::default();
    let log = taken.clone();
    let receiver = Arc::new(Receiver::new(&s).unwrap());
    let app = Router::new().nest(
        "/hooks/mcp",
        mcpcore::server::webhooks::receiver_router(receiver, move |r| {
            assert_eq!(r.subscription_id.as_deref().map(|s| s.starts_with("sub_")), Some(true));
            log.lock().unwrap().push(r.delivery);
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let client = Client::connect_http(&raw.url, Default::default(), ClientOptions::default()).await.unwrap();
    client.subscribe_webhook("tick", json!({}), &url, &s, None).await.unwrap();
    events.emit("tick", json!({"n": 1})).unwrap();
    for _ in 0..200 {
        if !taken.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let got = taken.lock().unwrap().clone();
    assert!(matches!(&got[..], [Delivery::Event(o)] if o.data == json!({"n": 1})), "{got:?}");
    // A forged POST is refused, and a replay of nothing signed is not taken.
    let forged = reqwest::Client::new()
        .post(&url)
        .header("webhook-id", "evt_x")
        .header("webhook-timestamp", "1")
        .header("webhook-signature", "v1,AAAA")
        .body(r#"{"eventId":"evt_x","name":"tick","timestamp":"t","data":{}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 401);
    assert_eq!(taken.lock().unwrap().len(), 1);
}

/// SEP-3415 §Event type removal: a webhook subscription of a removed type gets a signed
/// `terminated` envelope (`NotFound`, `data.kind: "event"`) and ends: unsubscribing it is then
/// `NotFound` too.
#[tokio::test]
async fn removing_a_type_sends_its_subscriptions_a_terminated_envelope() {
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let (s, k) = secret(3);
    let url = format!("{base}/ended");
    let sub = call(&raw, "events/subscribe", subscribe(&url, &s)).await;
    let id = sub["result"]["id"].as_str().unwrap_or_else(|| panic!("{sub}")).to_owned();
    assert!(events.remove("tick"));
    let got = until(&r, |g| g.iter().any(|x| x.json()["type"] == "terminated")).await;
    let t = got.iter().find(|x| x.json()["type"] == "terminated").unwrap();
    assert!(t.id.starts_with("msg_terminated_"), "{t:?}");
    assert!(t.signed_with(&k));
    assert_eq!(t.subscription, id);
    let body = t.json();
    assert_eq!(body["error"]["code"], -32011, "{body}");
    assert_eq!(body["error"]["data"]["kind"], "event");
    let key = json!({"name": "tick", "arguments": {}, "delivery": {"mode": "webhook", "url": url}});
    let gone = call(&raw, "events/unsubscribe", key).await;
    assert_eq!(gone["error"]["code"], -32011, "{gone}");
}

/// A subscription keeps the error codes of the client that made it: one that declared the
/// extension (SEP-3415's dialect) gets its `terminated` envelope with −32023, not the design
/// sketch's −32011.
#[tokio::test]
async fn a_terminated_envelope_speaks_the_subscribers_dialect() {
    let (r, base) = receiver().await;
    let events = events();
    let (_serving, raw) = serve(&events, policy()).await;
    let (s, _) = secret(4);
    let url = format!("{base}/sep");
    let mut body = modern(1, "events/subscribe", subscribe(&url, &s));
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/events": {}}});
    let sub = send(raw.post_modern(&body)).await.json;
    assert!(sub["result"]["id"].is_string(), "{sub}");
    assert!(events.remove("tick"));
    let got = until(&r, |g| g.iter().any(|x| x.json()["type"] == "terminated")).await;
    let t = got.iter().find(|x| x.json()["type"] == "terminated").unwrap().json();
    assert_eq!(t["error"]["code"], -32023, "{t}");
}

/// SEP-3415 Appendix A ("Broadcast emit", `match` and `transform`): a subscription's arguments
/// decide which occurrences reach it and in what shape, by poll, by stream and by webhook
/// alike; the cursors still move past what is filtered out.
#[tokio::test]
async fn subscription_arguments_filter_what_reaches_each_subscription_in_every_mode() {
    use mcpcore::client::{Client, ClientOptions, StreamItem};
    let (r, base) = receiver().await;
    let events = EventRegistry::new();
    let all = [DeliveryMode::Poll, DeliveryMode::Push, DeliveryMode::Webhook];
    let args = json!({"type": "object", "properties": {
        "severity": {"type": "string"}, "service_prefix": {"type": "string"}}});
    events
        .declare(
            EventDecl::new("incident", "Incidents")
                .delivery(all)
                .input_schema(args)
                .filter_on(["severity"])
                .matches(|o, a| match a.get("service_prefix").and_then(Value::as_str) {
                    Some(p) => o.data["service"].as_str().is_some_and(|s| s.starts_with(p)),
                    None => true,
                })
                .transforms(|mut o, a| {
                    if a.get("redact") == Some(&json!(true)) {
                        o.data["service"] = json!("[redacted]");
                    }
                    o
                }),
        )
        .unwrap();
    let events = Arc::new(events);
    let (serving, raw) = serve(&events, policy()).await;
    let client =
        Client::connect_http(&serving.url(), Default::default(), ClientOptions::default()).await.unwrap();
    let start = client.poll_events("incident", json!({}), None, None).await.unwrap().cursor;
    let p1_redacted = json!({"severity": "P1", "redact": true});
    let mut p1_stream = client.stream_events("incident", p1_redacted.clone(), start.clone()).await.unwrap();
    let (s, _) = secret(9);
    let hook = json!({"name": "incident", "arguments": {"service_prefix": "db-"}, "cursor": start,
        "delivery": {"mode": "webhook", "url": format!("{base}/db"), "secret": s}, "ttlMs": 60000});
    let sub = call(&raw, "events/subscribe", hook).await;
    assert!(sub["result"]["id"].is_string(), "{sub}");
    for (n, severity, service) in
        [(1, "P1", "db-main"), (2, "P2", "db-replica"), (3, "P1", "web"), (4, "P3", "web")]
    {
        events.emit("incident", json!({"n": n, "severity": severity, "service": service})).unwrap();
    }
    let n_of = |v: &Value| v["data"]["n"].as_i64().unwrap();
    // Poll: each subscription's own view, the cursor at the end either way.
    let p1 = client.poll_events("incident", json!({"severity": "P1"}), start.clone(), None).await.unwrap();
    assert_eq!(p1.events.iter().map(|o| o.data["n"].as_i64().unwrap()).collect::<Vec<_>>(), [1, 3]);
    let web_p1 = json!({"severity": "P1", "service_prefix": "web"});
    let both = client.poll_events("incident", web_p1, start.clone(), None).await.unwrap();
    assert_eq!(both.events.iter().map(|o| o.data["n"].as_i64().unwrap()).collect::<Vec<_>>(), [3]);
    let none = client.poll_events("incident", json!({"severity": "P9"}), start.clone(), None).await.unwrap();
    assert!(none.events.is_empty() && !none.truncated && !none.has_more, "{none:?}");
    let after = client.poll_events("incident", json!({}), none.cursor.clone(), None).await.unwrap();
    assert!(after.events.is_empty(), "the filtered poll's cursor moved past all four");
    let everything = client.poll_events("incident", json!({}), start.clone(), None).await.unwrap();
    assert_eq!(everything.events.len(), 4, "no arguments: everything");
    assert_eq!(everything.events[0].data["service"], "db-main", "as emitted");
    let redacted = client.poll_events("incident", p1_redacted.clone(), start.clone(), None).await.unwrap();
    let services: Vec<&Value> = redacted.events.iter().map(|o| &o.data["service"]).collect();
    assert_eq!(services, [&json!("[redacted]"), &json!("[redacted]")], "transformed for this subscription");
    assert_eq!(redacted.events[0].event_id, everything.events[0].event_id, "the same occurrence");
    // Stream: only P1.
    let mut streamed = Vec::new();
    while streamed.len() < 2 {
        match tokio::time::timeout(Duration::from_secs(5), p1_stream.next()).await {
            Ok(Some(StreamItem::Event(o))) => {
                assert_eq!(o.data["service"], "[redacted]", "{o:?}");
                streamed.push(o.data["n"].as_i64().unwrap())
            }
            Ok(Some(_)) => {}
            other => panic!("the stream ended: {other:?}"),
        }
    }
    assert_eq!(streamed, [1, 3]);
    // Webhook: only db-*.
    let got = until(&r, |g| g.iter().filter(|x| x.json().get("eventId").is_some()).count() >= 2).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let delivered: Vec<i64> = r
        .got
        .lock()
        .unwrap()
        .iter()
        .filter(|x| x.json().get("eventId").is_some())
        .map(|x| n_of(&x.json()))
        .collect();
    assert_eq!(delivered, [1, 2], "{got:?}");
    client.close().await;
}
