//! Bad input on stdio: each gets the right JSON-RPC error (or a bounded refusal) and the
//! server keeps serving the next request. The malformed frames, the frame over the size limit and
//! the notifications are shared vectors (tests/vectors/bad-input/stdio.json, run by
//! bad_input_vectors.rs and every binding); what needs more than a reply code stays here.

mod raw;

use mcpcore_tests::bin;
use raw::RawPeer;
use serde_json::{json, Value};

fn modern_list(id: i64) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/list","params":{"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})
}

#[test]
fn string_and_extreme_integer_ids_round_trip() {
    let mut p = RawPeer::spawn(&bin("echo_server"), &[]);
    for id in [json!("req-ü-1"), json!(i64::MAX), json!(i64::MIN), json!(0), json!("")] {
        let mut req = modern_list(0);
        req["id"] = id.clone();
        p.send(&req);
        assert_eq!(p.recv()["id"], id);
    }
}

fn initialize(p: &mut RawPeer, version: &str) {
    p.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":version,"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}));
    assert_eq!(p.recv()["result"]["protocolVersion"], version);
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
}

#[test]
fn batches_only_on_2025_03_26() {
    let batch = json!([
        {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}},
        {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}},
        {"jsonrpc":"2.0","id":2,"method":"ping"},
        {"jsonrpc":"2.0","id":3,"method":"nope"}
    ]);
    let mut p = RawPeer::spawn(&bin("echo_server"), &[]);
    initialize(&mut p, "2025-03-26");
    p.send(&batch);
    let r = p.recv();
    let items = r.as_array().expect("a batch is answered with an array");
    assert_eq!(items.len(), 3, "the notification gets no answer: {r}");
    let by_id = |id: i64| items.iter().find(|i| i["id"] == id).unwrap().clone();
    assert_eq!(by_id(1)["result"]["content"][0]["text"], "a");
    assert_eq!(by_id(2)["result"], json!({}));
    assert_eq!(by_id(3)["error"]["code"], -32601);

    for version in ["2025-11-25", "2025-06-18", "2024-11-05"] {
        let mut p = RawPeer::spawn(&bin("echo_server"), &[]);
        initialize(&mut p, version);
        p.send(&batch);
        let r = p.recv();
        assert_eq!(r["error"]["code"], -32600, "{version}: {r}");
        assert_eq!(r["id"], Value::Null);
    }
    // Modern (no session): rejected too.
    let mut p = RawPeer::spawn(&bin("echo_server"), &[]);
    p.send(&json!([modern_list(1)]));
    assert_eq!(p.recv()["error"]["code"], -32600);
}

#[test]
fn legacy_requests_before_initialized_are_refused_but_ping_works() {
    let mut p = RawPeer::spawn(&bin("echo_server"), &[]);
    p.send(&json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    assert_eq!(p.recv()["result"], json!({}));
    p.send(&json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
    let r = p.recv();
    assert_eq!(r["error"]["code"], -32602, "no session and no _meta: {r}");
    p.send(&json!({"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}));
    assert_eq!(p.recv()["result"]["protocolVersion"], "2025-06-18");
    p.send(&json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}));
    let r = p.recv();
    assert_eq!(r["error"]["code"], -32600);
    assert!(r["error"]["message"].as_str().unwrap().contains("notifications/initialized"));
    p.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    p.send(&json!({"jsonrpc":"2.0","id":5,"method":"tools/list"}));
    assert!(p.recv()["result"]["tools"].is_array());
}

#[test]
fn a_request_id_already_in_flight_is_refused() {
    let mut p = RawPeer::spawn(&bin("fixture_server"), &[]);
    let slow = |ms: u64| {
        json!({"jsonrpc":"2.0","id":"dup","method":"tools/call","params":{"name":"slow","arguments":{"ms":ms},"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})
    };
    p.send(&slow(300));
    p.send(&slow(0));
    let refused = p.recv();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert_eq!(refused["id"], "dup");
    let done = p.recv();
    assert_eq!(done["result"]["content"][0]["text"], "slept", "the first call still completes: {done}");
}

#[test]
fn end_of_input_finishes_quick_calls_and_bounds_slow_ones() {
    let call = |id: i64, ms: u64| {
        json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"slow","arguments":{"ms":ms},"_meta":{
        "io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})
    };
    let mut p = RawPeer::spawn(&bin("fixture_server"), &["--shutdown-grace-ms", "300"]);
    p.send(&call(1, 50));
    p.send(&call(2, 60_000));
    p.close_stdin();
    assert_eq!(p.recv()["id"], 1, "an in-flight call finishes after end of input");
    let code = p.wait_exit(std::time::Duration::from_secs(5));
    assert_eq!(code, Some(0), "the server exits once the grace period ends");
}
