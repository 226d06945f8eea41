//! The Events extension (SEP-3415; issue 48), server side, over real HTTP on 127.0.0.1 and over
//! the stdio of the example `echo_server --events`: the capability in both places clients read
//! it, `events/list`, stateless `events/poll` with sealed cursors (resume, paging, `maxEvents`,
//! `truncated` after retention dropped what a cursor pointed past), `events/stream` (active,
//! replay, live occurrences, heartbeats, a gap, cancellation), both error dialects, and bad
//! input refused without changing anything.

use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::protocol::events::DeliveryMode;
use mcpcore::server::Server;
use mcpcore_tests::http::{fixture_registry, meta, modern, open, read_until, send, sse_events, Raw, MODERN};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn registry() -> Arc<EventRegistry> {
    let r = EventRegistry::new().with_heartbeat(Duration::from_millis(100));
    let n = json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let args =
        json!({"type": "object", "properties": {"label": {"type": "string"}}, "additionalProperties": false});
    r.declare(EventDecl::new("tick", "Counts").payload_schema(n).input_schema(args).retain(5)).unwrap();
    r.declare(EventDecl::new("pushed", "Push only").delivery([DeliveryMode::Push])).unwrap();
    Arc::new(r)
}

async fn serve(events: &Arc<EventRegistry>) -> (HttpServing, Raw) {
    let config = mcpcore::engine::ServerConfig::new("events", "1.0.0");
    let server = Server::new(config, Arc::new(fixture_registry())).with_events(events.clone());
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = Raw::new(&serving.url());
    (serving, raw)
}

async fn call(raw: &Raw, id: i64, method: &str, params: Value) -> Value {
    let r = send(raw.post_modern(&modern(id, method, params))).await;
    assert_eq!(r.status, 200, "{r:?}");
    r.json
}

async fn poll(raw: &Raw, params: Value) -> Value {
    let r = call(raw, 1, "events/poll", params).await;
    assert!(r.get("error").is_none(), "{r}");
    r["result"].clone()
}

fn ns(result: &Value) -> Vec<i64> {
    result["events"].as_array().unwrap().iter().map(|e| e["data"]["n"].as_i64().unwrap()).collect()
}

#[tokio::test]
async fn the_capability_and_the_list_on_both_lineages() {
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    let d = call(&raw, 1, "server/discover", json!({})).await;
    let caps = &d["result"]["capabilities"];
    assert_eq!(caps["extensions"]["io.modelcontextprotocol/events"], json!({"listChanged": true}), "{d}");
    assert_eq!(caps["events"], json!({}), "the sketch's key ChatGPT reads: {d}");
    let list = call(&raw, 2, "events/list", json!({})).await;
    let names: Vec<&str> =
        list["result"]["events"].as_array().unwrap().iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["pushed", "tick"]);
    let tick = &list["result"]["events"][1];
    assert_eq!(tick["delivery"], json!(["poll", "push"]));
    assert_eq!(tick["payloadSchema"]["required"], json!(["n"]));
    assert_eq!(tick["description"], "Counts");
    assert_eq!(list["result"]["resultType"], "complete");

    // A legacy session is offered the same, without resultType.
    let sid = raw.legacy_session("2025-11-25").await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let r = send(raw.post_legacy(None, &init)).await;
    assert_eq!(r.json["result"]["capabilities"]["events"], json!({}), "{r:?}");
    assert_eq!(
        r.json["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/events"],
        json!({"listChanged": true})
    );
    events.emit("tick", json!({"n": 1})).unwrap();
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "events/poll", "params": {"name": "tick", "arguments": {}}});
    let r = send(raw.post_legacy(Some(&sid), &body)).await;
    assert!(r.json["result"]["cursor"].is_string(), "{r:?}");
    assert!(r.json["result"].get("resultType").is_none(), "{r:?}");
}

#[tokio::test]
async fn poll_is_stateless_resumes_from_its_cursor_and_says_when_it_lost_some() {
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    events.emit("tick", json!({"n": 0})).unwrap();
    // A null cursor starts from now: nothing of the past, a cursor to go on from.
    let first = poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": null})).await;
    assert_eq!(ns(&first), Vec::<i64>::new());
    assert_eq!((first["truncated"].clone(), first["hasMore"].clone()), (json!(false), json!(false)));
    assert_eq!(first["nextPollMs"], 5000);
    let cursor = first["cursor"].as_str().unwrap().to_owned();
    for n in 1..=3 {
        events.emit("tick", json!({"n": n})).unwrap();
    }
    let page = poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": cursor, "maxEvents": 2})).await;
    assert_eq!(ns(&page), [1, 2]);
    assert_eq!(page["hasMore"], true);
    let e = &page["events"][0];
    assert!(e["eventId"].as_str().unwrap().starts_with("evt_"), "{e}");
    assert!(e["timestamp"].as_str().unwrap().ends_with('Z'), "{e}");
    assert_eq!(e["name"], "tick");
    let rest = poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": page["cursor"]})).await;
    assert_eq!(ns(&rest), [3]);
    assert_eq!(rest["hasMore"], false);
    // The same cursor read again answers the same (the server kept nothing for the poll).
    let again = poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": page["cursor"]})).await;
    assert_eq!(ns(&again), [3]);
    // Ten more: the type keeps 5, so the reader at 3 lost 4..=8 and is told so.
    for n in 4..=13 {
        events.emit("tick", json!({"n": n})).unwrap();
    }
    let late = poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": rest["cursor"]})).await;
    assert_eq!(ns(&late), [9, 10, 11, 12, 13]);
    assert_eq!(late["truncated"], true);
    // maxAgeMs with a null cursor replays nothing.
    let fresh = poll(&raw, json!({"name": "tick", "arguments": {}, "maxAgeMs": 300000})).await;
    assert_eq!(ns(&fresh), Vec::<i64>::new());
}

#[tokio::test]
async fn bad_polls_get_clear_errors_in_the_dialect_of_the_client() {
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    let code = |r: &Value| r["error"]["code"].as_i64();
    let r = call(&raw, 1, "events/poll", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(code(&r), Some(-32011), "the sketch's NotFound by default: {r}");
    assert_eq!(r["error"]["data"], json!({"kind": "event", "name": "nope"}));
    // A client declaring the extension gets the SEP's numbers.
    let mut body = modern(2, "events/poll", json!({"name": "nope", "arguments": {}}));
    body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/events": {}}});
    let r = send(raw.post_modern(&body)).await.json;
    assert_eq!(code(&r), Some(-32023), "{r}");
    let r = call(&raw, 3, "events/poll", json!({"name": "pushed", "arguments": {}})).await;
    assert_eq!(code(&r), Some(-32014), "{r}");
    assert_eq!(r["error"]["data"], json!({"feature": "deliveryMode", "value": "poll"}));
    let r = call(&raw, 4, "events/poll", json!({"arguments": {}})).await;
    assert_eq!(code(&r), Some(-32602), "no name: {r}");
    let r = call(&raw, 5, "events/poll", json!({"name": "tick", "arguments": {"label": 5}})).await;
    assert_eq!(code(&r), Some(-32602), "arguments failing the inputSchema: {r}");
    assert_eq!(r["error"]["data"]["name"], "tick");
    // A forged cursor, and a real cursor of another type.
    let ok = poll(&raw, json!({"name": "tick", "arguments": {}})).await;
    let cursor = ok["cursor"].as_str().unwrap();
    let (head, tag) = cursor.rsplit_once('.').unwrap();
    let forged = format!("{}.{tag}", head.replace(".0", ".7"));
    for bad in [forged.as_str(), "garbage", ""] {
        let r = call(&raw, 6, "events/poll", json!({"name": "tick", "arguments": {}, "cursor": bad})).await;
        assert_eq!(code(&r), Some(-32602), "{bad:?}: {r}");
    }
    let r = call(&raw, 7, "events/list", json!({"cursor": "not-a-cursor"})).await;
    assert_eq!(code(&r), Some(-32602), "{r}");
    // None of it changed anything: the cursor still reads.
    events.emit("tick", json!({"n": 1})).unwrap();
    assert_eq!(ns(&poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": cursor})).await), [1]);
}

#[tokio::test]
async fn a_stream_over_http_replays_goes_live_beats_and_reports_a_gap() {
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    let start = poll(&raw, json!({"name": "tick", "arguments": {}})).await["cursor"].clone();
    events.emit("tick", json!({"n": 1})).unwrap();
    events.emit("tick", json!({"n": 2})).unwrap();
    let body = modern(41, "events/stream", json!({"name": "tick", "arguments": {}, "cursor": start}));
    let mut resp = open(raw.post_modern(&body)).await;
    assert_eq!(resp.status(), 200);
    let ct = resp.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(ct.starts_with("text/event-stream"), "{ct}");
    let text = read_until(&mut resp, |t| t.matches("notifications/events/event").count() >= 2).await;
    let notes: Vec<Value> =
        sse_events(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    assert_eq!(notes[0]["method"], "notifications/events/active", "{notes:?}");
    assert_eq!(notes[0]["params"]["truncated"], false);
    assert_eq!(notes[0]["params"]["cursor"], start, "resumes where it was asked to");
    for n in &notes {
        assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 41, "{n}");
    }
    let replayed: Vec<i64> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/events/event")
        .map(|n| n["params"]["data"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(replayed, [1, 2]);
    // Live: an emit reaches the open stream, with its own cursor; then a heartbeat while quiet.
    events.emit("tick", json!({"n": 3})).unwrap();
    let text = read_until(&mut resp, |t| t.contains("\"n\":3") && t.contains("heartbeat")).await;
    let notes: Vec<Value> =
        sse_events(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    let three = notes.iter().find(|n| n["params"]["data"]["n"] == 3).unwrap();
    let beat = notes.iter().rev().find(|n| n["method"] == "notifications/events/heartbeat").unwrap();
    assert_eq!(beat["params"]["cursor"], three["params"]["cursor"], "the heartbeat's position is past 3");
    // A poll from the stream's cursor sees nothing new: the cursors are the same positions.
    let after =
        poll(&raw, json!({"name": "tick", "arguments": {}, "cursor": beat["params"]["cursor"]})).await;
    assert_eq!(ns(&after), Vec::<i64>::new());
    // Only events/* notifications ride the stream.
    assert!(notes.iter().all(|n| n["method"].as_str().unwrap().starts_with("notifications/events/")));
    drop(resp);

    // A stream resuming from a cursor retention has passed: active says truncated.
    for n in 4..=12 {
        events.emit("tick", json!({"n": n})).unwrap();
    }
    let body = modern(42, "events/stream", json!({"name": "tick", "arguments": {}, "cursor": start}));
    let mut resp = open(raw.post_modern(&body)).await;
    let text = read_until(&mut resp, |t| t.contains("\"n\":12")).await;
    let notes: Vec<Value> =
        sse_events(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    assert_eq!(notes[0]["method"], "notifications/events/active");
    assert_eq!(notes[0]["params"]["truncated"], true, "{notes:?}");
    let replayed: Vec<i64> = notes
        .iter()
        .filter(|n| n["method"] == "notifications/events/event")
        .map(|n| n["params"]["data"]["n"].as_i64().unwrap())
        .collect();
    assert_eq!(replayed, [8, 9, 10, 11, 12]);
    // Another type's cursor is refused on this one, before any stream opens.
    let pushed = modern(43, "events/stream", json!({"name": "pushed", "arguments": {}, "cursor": start}));
    let r = send(raw.post_modern(&pushed)).await;
    assert_eq!(r.error_code(), Some(-32602), "{r:?}");
    assert!(r.content_type().starts_with("application/json"), "an immediate JSON error: {r:?}");
    let unknown = modern(44, "events/stream", json!({"name": "nope", "arguments": {}}));
    assert_eq!(send(raw.post_modern(&unknown)).await.error_code(), Some(-32011));
}

type Lines = tokio::io::Lines<BufReader<tokio::process::ChildStdout>>;

async fn next(lines: &mut Lines) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await;
    serde_json::from_str(&line.expect("a line in time").unwrap().expect("open stdout")).unwrap()
}

async fn write(stdin: &mut tokio::process::ChildStdin, method: &str, id: Value, params: Value) {
    let mut m = json!({"jsonrpc": "2.0", "method": method, "params": params});
    if !id.is_null() {
        m["id"] = id;
        m["params"]["_meta"] = meta(MODERN);
    }
    stdin.write_all(format!("{m}\n").as_bytes()).await.unwrap();
}

#[tokio::test]
async fn the_example_server_streams_echoed_over_stdio_until_cancelled() {
    let mut child = tokio::process::Command::new(mcpcore_tests::bin("echo_server"))
        .args(["--events", "--events-heartbeat-ms", "100"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    write(&mut stdin, "events/stream", json!("s"), json!({"name": "echoed", "arguments": {}})).await;
    let active = next(&mut lines).await;
    assert_eq!(active["method"], "notifications/events/active", "{active}");
    assert_eq!(active["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "s");
    write(&mut stdin, "tools/call", json!(1), json!({"name": "echo", "arguments": {"text": "hello"}})).await;
    let mut seen: Vec<Value> = Vec::new();
    while !(seen.iter().any(|m| m["method"] == "notifications/events/event")
        && seen.iter().any(|m| m["id"] == 1))
    {
        seen.push(next(&mut lines).await);
    }
    let event = seen.iter().find(|m| m["method"] == "notifications/events/event").unwrap();
    assert_eq!(event["params"]["data"], json!({"text": "hello"}), "{seen:?}");
    assert_eq!(event["params"]["name"], "echoed");
    assert!(seen.iter().any(|m| m["id"] == 1 && m["result"]["content"][0]["text"] == "hello"), "{seen:?}");
    // Quiet: heartbeats.
    let beat = loop {
        let m = next(&mut lines).await;
        if m["method"] == "notifications/events/heartbeat" {
            break m;
        }
    };
    assert_eq!(beat["params"]["cursor"], event["params"]["cursor"]);
    // Cancelled: nothing more for "s" once the cancellation was handled (the ping after it is
    // answered in order), while the server serves on.
    write(&mut stdin, "notifications/cancelled", Value::Null, json!({"requestId": "s"})).await;
    write(&mut stdin, "ping", json!(2), json!({})).await;
    while next(&mut lines).await["id"] != 2 {}
    tokio::time::sleep(Duration::from_millis(350)).await;
    write(&mut stdin, "ping", json!(3), json!({})).await;
    let m = next(&mut lines).await;
    assert_eq!(m["id"], 3, "a frame of the cancelled stream: {m}");
}

#[tokio::test]
async fn a_stream_opens_behind_middleware_and_polls_pass_through_it() {
    let events = registry();
    let seen = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let log = seen.clone();
    let chain = mcpcore::middleware::from_fn(move |req, _ctx, next: mcpcore::middleware::Next| {
        log.lock().unwrap().push(req.method.clone());
        next.run(req)
    });
    let mut config = mcpcore::engine::ServerConfig::new("events", "1.0.0");
    config.middleware = mcpcore::middleware::Chain::new(vec![chain]);
    let server = Server::new(config, Arc::new(fixture_registry())).with_events(events.clone());
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = Raw::new(&serving.url());
    let first = poll(&raw, json!({"name": "tick", "arguments": {}})).await;
    assert!(first["cursor"].is_string());
    let body = modern(7, "events/stream", json!({"name": "tick", "arguments": {}}));
    let mut resp = open(raw.post_modern(&body)).await;
    events.emit("tick", json!({"n": 1})).unwrap();
    let text = read_until(&mut resp, |t| t.contains("\"n\":1")).await;
    assert!(text.contains("notifications/events/active"), "{text}");
    assert_eq!(
        *seen.lock().unwrap(),
        ["events/poll"],
        "the poll went through the chain; the stream is a job of its own"
    );
}

/// Our client against our server, on every transport and lineage: list, poll, the poller's
/// waits, a stream's items and cursor, resuming from it.
async fn client_round(client: &mcpcore::client::Client, emit: &(dyn Fn(i64) + Sync)) {
    use mcpcore::client::StreamItem;
    assert!(client.events_support().is_some());
    let types = client.list_events().await.unwrap();
    assert!(types.iter().any(|t| t.name == "tick"), "{types:?}");
    let first = client.poll_events("tick", json!({}), None, None).await.unwrap();
    assert!(first.events.is_empty() && first.cursor.is_some());
    emit(1);
    let got = client.poll_events("tick", json!({}), first.cursor.clone(), None).await.unwrap();
    assert_eq!(got.events.len(), 1, "{got:?}");
    let mut stream = client.stream_events("tick", json!({}), got.cursor.clone()).await.unwrap();
    assert_eq!(
        stream.next().await,
        Some(StreamItem::Active { cursor: got.cursor.clone(), truncated: false })
    );
    emit(2);
    let item = loop {
        match stream.next().await.expect("open") {
            StreamItem::Event(o) => break o,
            StreamItem::Heartbeat { .. } => continue,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(item.data, json!({"n": 2}));
    assert_eq!(stream.cursor(), item.cursor.as_deref());
    let resume = stream.cursor().map(str::to_owned);
    drop(stream);
    emit(3);
    let mut again = client.stream_events("tick", json!({}), resume).await.unwrap();
    assert!(matches!(again.next().await, Some(StreamItem::Active { truncated: false, .. })));
    let replayed = loop {
        if let Some(StreamItem::Event(o)) = again.next().await {
            break o;
        }
    };
    assert_eq!(replayed.data, json!({"n": 3}), "resumed from the cursor: 3 replayed, 2 not again");
    let e = client.stream_events("nope", json!({}), None).await.unwrap_err();
    assert_eq!(e.code().0, -32011, "{e:?}");
}

#[tokio::test]
async fn our_client_lists_polls_and_streams_over_http_on_both_lineages() {
    use mcpcore::client::{Client, ClientOptions};
    use mcpcore::protocol::ProtocolVersion;
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let options = ClientOptions { version: Some(version), ..Default::default() };
        let client = Client::connect_http(&raw.url, mcpcore::http::client::HttpOptions::default(), options)
            .await
            .unwrap();
        let e = events.clone();
        client_round(&client, &move |n| {
            e.emit("tick", json!({ "n": n })).unwrap();
        })
        .await;
    }
}

#[tokio::test]
async fn our_client_polls_at_the_pace_the_server_asks_with_a_floor() {
    use mcpcore::client::{Client, ClientOptions, POLL_FLOOR};
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    let client = Client::connect_http(&raw.url, Default::default(), ClientOptions::default()).await.unwrap();
    let mut poller = client.poller("tick", json!({}), None);
    poller.next().await.unwrap();
    for n in 0..3 {
        events.emit("tick", json!({ "n": n })).unwrap();
    }
    let start = std::time::Instant::now();
    let r = poller.next().await.unwrap();
    assert!(
        start.elapsed() >= POLL_FLOOR,
        "waited at least the floor (the server asked 5 s: {:?})",
        start.elapsed()
    );
    assert_eq!(r.events.len(), 3);
}

#[tokio::test]
async fn a_gateway_relays_an_upstreams_events_under_its_prefix() {
    use mcpcore::client::{Client, ClientOptions, StreamItem};
    use mcpcore::gateway::{Gateway, GatewayConfig};
    let config = GatewayConfig::from_value(json!({"mcpServers": {
        "echo": {"command": mcpcore_tests::bin("echo_server"), "args": ["--events"]},
    }}))
    .unwrap();
    let gateway = Gateway::start(&config).await.unwrap();
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    for lineage in [mcpcore::protocol::Lineage::Modern, mcpcore::protocol::Lineage::Legacy] {
        let options = ClientOptions { lineage: Some(lineage), ..Default::default() };
        let client = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
        assert!(
            client.events_support().is_some(),
            "the gateway declares the extension once an upstream has events"
        );
        let names: Vec<String> = client.list_events().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["echo__echoed", "echo__tick"]);
        // The upstream's ticks, relayed: streamed at the gateway under the prefixed name.
        let mut stream = client.stream_events("echo__tick", json!({}), None).await.unwrap();
        let tick = loop {
            match stream.next().await.expect("open") {
                StreamItem::Event(o) => break o,
                _ => continue,
            }
        };
        assert_eq!(tick.name, "echo__tick");
        assert!(tick.data["n"].is_i64(), "{tick:?}");
        drop(stream);
        // An echo through the gateway reaches the upstream, whose `echoed` comes back relayed.
        let start = client.poll_events("echo__echoed", json!({}), None, None).await.unwrap();
        client.call_tool("echo__echo", json!({"text": "via the gateway"})).await.unwrap();
        let mut got = Vec::new();
        for _ in 0..50 {
            got = client
                .poll_events("echo__echoed", json!({}), start.cursor.clone(), None)
                .await
                .unwrap()
                .events;
            if !got.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(got.len(), 1, "one echo, one relayed occurrence");
        assert_eq!(got[0].data, json!({"text": "via the gateway"}));
        client.close().await;
    }
    gateway.shutdown().await;
}

/// SEP-3415 §Dynamic event types: a `subscriptions/listen` stream that asked for
/// `eventsListChanged` hears `notifications/events/list_changed` when a type is added, changed
/// or removed (and not when one is re-declared unchanged, nor on an emit); one that did not ask
/// hears nothing of it.
#[tokio::test]
async fn a_listen_stream_hears_when_the_list_of_types_changes() {
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    let listen = |id: i64, notifications: Value| {
        modern(id, "subscriptions/listen", json!({ "notifications": notifications }))
    };
    let mut asked = open(raw.post_modern(&listen(7, json!({"eventsListChanged": true})))).await;
    let mut other = open(raw.post_modern(&listen(8, json!({"toolsListChanged": true})))).await;
    let text = read_until(&mut asked, |t| t.contains("acknowledged")).await;
    let ack: Value = serde_json::from_str(&sse_events(&text)[0].data).unwrap();
    assert_eq!(ack["params"]["notifications"]["eventsListChanged"], true, "{ack}");
    let text = read_until(&mut other, |t| t.contains("acknowledged")).await;
    assert!(!text.contains("eventsListChanged"), "{text}");

    events.emit("tick", json!({"n": 1})).unwrap(); // an emit is not a list change
    events.declare(EventDecl::new("pushed", "Push only").delivery([DeliveryMode::Push])).unwrap(); // unchanged
    events.declare(EventDecl::new("deploy", "A deploy finished")).unwrap();
    let text = read_until(&mut asked, |t| t.contains("notifications/events/list_changed")).await;
    let notes: Vec<Value> =
        sse_events(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    let changed: Vec<&Value> =
        notes.iter().filter(|n| n["method"] == "notifications/events/list_changed").collect();
    assert_eq!(changed.len(), 1, "one change so far: {notes:?}");
    assert_eq!(changed[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
    assert!(events.remove("deploy"));
    let text = read_until(&mut asked, |t| t.contains("notifications/events/list_changed")).await;
    assert!(text.contains("notifications/events/list_changed"), "the removal: {text}");
    // The stream that asked only for tools heard none of it.
    let mut heard = String::new();
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout(Duration::from_millis(300), other.chunk()).await {
        heard.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(!heard.contains("events/list_changed"), "{heard}");
    let r = call(&raw, 9, "events/list", json!({})).await;
    assert_eq!(r["result"]["events"].as_array().unwrap().len(), 2, "{r}");
}

/// SEP-3415 §Event type removal: a push stream of a type that is removed ends with
/// `notifications/events/terminated` (`NotFound`, `data.kind: "event"`), then its result.
#[tokio::test]
async fn removing_a_type_terminates_its_streams() {
    let events = registry();
    let (_serving, raw) = serve(&events).await;
    let body = modern(51, "events/stream", json!({"name": "tick", "arguments": {}}));
    let mut resp = open(raw.post_modern(&body)).await;
    read_until(&mut resp, |t| t.contains("notifications/events/active")).await;
    assert!(events.remove("tick"));
    let text = read_until(&mut resp, |t| t.contains("\"result\"")).await;
    let frames: Vec<Value> =
        sse_events(&text).iter().map(|e| serde_json::from_str(&e.data).unwrap()).collect();
    let end =
        frames.iter().position(|f| f["method"] == "notifications/events/terminated").expect("terminated");
    let t = &frames[end];
    assert_eq!(t["params"]["error"]["code"], -32011, "NotFound in the default dialect: {t}");
    assert_eq!(t["params"]["error"]["data"]["kind"], "event");
    assert_eq!(t["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 51);
    assert_eq!(frames.last().unwrap()["id"], 51, "then the stream's result: {frames:?}");
    let again = modern(52, "events/stream", json!({"name": "tick", "arguments": {}}));
    assert_eq!(send(raw.post_modern(&again)).await.error_code(), Some(-32011));
}

/// Our client's listen stream asks for `eventsListChanged` only of a server that declared it
/// sends them, and hands `notifications/events/list_changed` to a handler that wants other
/// notifications.
#[tokio::test]
async fn our_client_hears_event_list_changes_from_a_server_that_sends_them() {
    use mcpcore::client::{Client, ClientOptions, NotificationKinds};
    let events = registry();
    let (serving, _raw) = serve(&events).await;
    let options =
        ClientOptions { version: mcpcore::ProtocolVersion::parse("2026-07-28"), ..Default::default() };
    let client = Client::connect_http(&serving.url(), Default::default(), options.clone()).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    client.on_notifications(NotificationKinds::ALL, move |e| {
        let _ = tx.send(e);
    });
    let acked = client.notifications_ready().await.unwrap().expect("a listen stream");
    assert_eq!(acked.events_list_changed, Some(true), "{acked:?}");
    events.declare(EventDecl::new("later", "Declared after connecting")).unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match rx.recv().await {
                Some(e) if e.method() == "notifications/events/list_changed" => return e,
                Some(_) => {}
                None => panic!("the handler went away"),
            }
        }
    })
    .await
    .expect("notifications/events/list_changed reached the handler");
    assert_eq!(heard.method(), "notifications/events/list_changed");
    client.close().await;

    // A server without events acknowledges none (and the client does not ask it).
    let plain = mcpcore::engine::ServerConfig::new("plain", "1.0.0");
    let server = Server::new(plain, Arc::new(fixture_registry()));
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let client = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
    client.on_notifications(NotificationKinds::ALL, |_| {});
    let acked = client.notifications_ready().await.unwrap().expect("a listen stream");
    assert_eq!(acked.events_list_changed, None, "{acked:?}");
    client.close().await;
}

/// SEP-3415 §Dynamic event types through a gateway: the gateway follows an upstream's
/// `notifications/events/list_changed` (a 2026-07-28 upstream's on a listen stream, a legacy
/// one's on its session, the gateway's client declaring the extension in `initialize`) and
/// mounts its types again, so a type the upstream adds appears under the mount's prefix and one
/// it removes disappears, without a reconnection.
#[tokio::test]
async fn a_gateway_follows_an_upstreams_event_list_changes() {
    for lineage in ["modern", "legacy"] {
        gateway_follows_event_list_changes(lineage).await;
    }
}

async fn gateway_follows_event_list_changes(lineage: &str) {
    use mcpcore::client::{Client, ClientOptions};
    use mcpcore::gateway::{Gateway, GatewayConfig};
    let events = registry();
    let (upstream, _) = serve(&events).await;
    let config =
        GatewayConfig::from_value(json!({"mcpServers": {"up": {"url": upstream.url(), "lineage": lineage}}}))
            .unwrap();
    let gateway = Gateway::start(&config).await.unwrap();
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    let client =
        Client::connect_http(&serving.url(), Default::default(), ClientOptions::default()).await.unwrap();
    let names = |client: Client| async move {
        let mut n: Vec<String> = client.list_events().await.unwrap().into_iter().map(|t| t.name).collect();
        n.sort();
        n
    };
    assert_eq!(names(client.clone()).await, ["up__pushed", "up__tick"], "{lineage}");
    events.declare(EventDecl::new("added", "Declared after the gateway mounted")).unwrap();
    assert!(events.remove("pushed"));
    let mut seen = Vec::new();
    for _ in 0..100 {
        seen = names(client.clone()).await;
        if seen == ["up__added", "up__tick"] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(seen, ["up__added", "up__tick"], "{lineage}: the gateway's types follow the upstream's");
    client.close().await;
    gateway.shutdown().await;
}
