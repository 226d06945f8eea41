//! The request lifecycle, stepped in memory with a fake clock: both lineages' rules, duplicate
//! ids, cancellation against completion, batches, server→client requests and their timeouts,
//! MRTR `requestState` expiry. No runtime, no sleeps: host code is polled to completion here.

use super::*;
use crate::context::{InputLedger, RequestContext};
use crate::jsonrpc::{from_value, Message};
use crate::protocol::{CallToolResult, ServerCapabilities, Tool};
use crate::registry::Arguments;
use crate::state::StateKey;
use futures_util::FutureExt;
use std::time::{Duration, UNIX_EPOCH};

fn engine() -> Arc<ServerEngine> {
    let reg = ToolRegistry::new();
    let tool: Tool = serde_json::from_value(json!({
        "name": "echo", "title": "Echo",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    }))
    .unwrap();
    reg.register(tool, |a: Arguments, _c: RequestContext| async move {
        Ok(CallToolResult::text(a["text"].as_str().unwrap().to_owned()))
    })
    .unwrap();
    let ask = Tool::new("ask", "asks the user's name", json!({"type": "object"}));
    reg.register(ask, |_: Arguments, ctx: RequestContext| async move {
        let form = serde_json::from_value(json!({"message": "name?", "requestedSchema":
            {"type": "object", "properties": {"name": {"type": "string"}}}}))
        .unwrap();
        let answer = ctx.elicit("name", form).await?;
        Ok(CallToolResult::text(format!("hi {:?}", answer.content.unwrap()["name"])))
    })
    .unwrap();
    let mut config = ServerConfig::new("test", "1.0");
    config.state_keys = StateKey::new(vec![7u8; 32]).into();
    Arc::new(ServerEngine::new(config, Arc::new(reg)))
}

const T0: Duration = Duration::from_secs(1_800_000_000);

/// One connection and its clock; the test plays the client.
struct Pair {
    conn: ServerConnection,
    now: SystemTime,
    route: u64,
}

impl Pair {
    fn new() -> Pair {
        Pair { conn: ServerConnection::new(engine()), now: UNIX_EPOCH + T0, route: 0 }
    }

    /// Sends one frame on a fresh route; returns the events it caused.
    fn send(&mut self, v: Value) -> Vec<Event> {
        self.route += 1;
        let frame = crate::jsonrpc::parse(v.to_string().as_bytes());
        self.conn.handle(frame, RouteId(self.route), &Origin::default(), self.now);
        self.drain()
    }

    fn drain(&mut self) -> Vec<Event> {
        std::iter::from_fn(|| self.conn.poll_event()).collect()
    }

    /// The one response `v` is answered with at once.
    fn reply(&mut self, v: Value) -> Value {
        let events = self.send(v);
        sent(&events).into_iter().next().unwrap_or_else(|| panic!("no reply in {events:?}"))
    }

    /// Runs every started call to completion (host code polled here), reporting each result;
    /// returns everything sent meanwhile.
    fn run(&mut self, events: Vec<Event>) -> Vec<Value> {
        let mut out = sent(&events);
        for e in events {
            if let Event::Start { job, work: Job::Call(mut call), .. } = e {
                let resp = run_now(&self.conn, &mut call, self.now);
                self.conn.complete(job, resp);
                out.extend(sent(&self.drain()));
            }
        }
        out
    }
}

/// Polls a call's host code once: the fixtures never wait on anything.
fn run_now(conn: &ServerConnection, call: &mut PendingCall, now: SystemTime) -> Response {
    let ledger = call.input.clone().map(|seed| InputLedger::new(seed, None));
    let mut ctx = RequestContext::for_request(call.id.clone(), call.version, None, Arc::new(|_| {}));
    if let Some(l) = &ledger {
        ctx = ctx.with_input(l.clone());
    }
    let outcome = call.run(ctx).now_or_never().expect("the fixture completes at once");
    conn.engine().finish_call(call, outcome, ledger.as_deref(), now)
}

/// The messages among `events`, as JSON.
fn sent(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Send { message, .. } => Some(message.to_value()),
            Event::SendBatch { messages, .. } => {
                Some(Value::Array(messages.iter().map(Message::to_value).collect()))
            }
            _ => None,
        })
        .collect()
}

fn started(events: &[Event]) -> Vec<JobId> {
    events.iter().filter_map(|e| if let Event::Start { job, .. } = e { Some(*job) } else { None }).collect()
}

fn modern_meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}})
}

fn modern_call(id: u64, name: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":name,"arguments":args,"_meta": modern_meta()}})
}

fn initialize(pair: &mut Pair, version: &str) {
    let init = json!({"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":version,"capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}});
    assert_eq!(pair.reply(init)["result"]["protocolVersion"], version);
    pair.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
}

#[test]
fn modern_discover_and_result_type() {
    let mut p = Pair::new();
    let r =
        p.reply(json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": modern_meta()}}));
    assert_eq!(r["result"]["resultType"], "complete");
    assert_eq!(r["result"]["supportedVersions"][0], "2026-07-28");
    assert_eq!(r["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "test");
    assert!(r["result"]["ttlMs"].is_u64());
    assert!(p.conn.session().is_none(), "modern requests leave no session state");
    assert!(!p.conn.take_dirty());
}

#[test]
fn modern_errors() {
    let mut p = Pair::new();
    let r = p.reply(json!({"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}));
    assert_eq!(r["error"]["code"], -32022);
    assert_eq!(r["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(r["id"], "a");
    let r = p.reply(json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}));
    assert_eq!(r["error"]["code"], -32602, "missing clientCapabilities");
    let r = p.reply(json!({"jsonrpc":"2.0","id":3,"method":"tools/list"}));
    assert_eq!(r["error"]["code"], -32602, "missing _meta");
    for removed in ["ping", "logging/setLevel", "initialize", "nope/nope"] {
        let r = p.reply(json!({"jsonrpc":"2.0","id":4,"method":removed,"params":{"_meta": modern_meta()}}));
        assert_eq!(r["error"]["code"], -32601, "{removed}");
    }
}

/// A gateway whose upstreams offer tools only.
#[derive(Debug)]
struct ToolsOnly;

impl Aggregate for ToolsOnly {
    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities { tools: Some(Default::default()), ..Default::default() }
    }
    fn list_hint(&self, _: ListKind) -> CacheHint {
        CacheHint::default()
    }
}

#[test]
fn methods_of_capabilities_not_declared_are_method_not_found() {
    let modern = |method: &str| json!({"jsonrpc":"2.0","id":1,"method":method,"params":{"uri":"x://a","_meta": modern_meta()}});
    let gated = [
        "resources/list",
        "resources/read",
        "resources/templates/list",
        "prompts/list",
        "prompts/get",
        "completion/complete",
        "skills/list",
        "skills/get",
        "resources/directory/read",
    ];
    // A tools-only server.
    let mut p = Pair::new();
    for method in gated {
        assert_eq!(p.reply(modern(method))["error"]["code"], -32601, "{method}");
    }
    // A gateway with registries behind it, whose upstreams declare nothing but tools.
    let mut config = ServerConfig::new("gw", "1");
    config.state_keys = StateKey::new(vec![7u8; 32]).into();
    config.aggregate = Some(Arc::new(ToolsOnly));
    let skills = Arc::new(crate::skills::SkillRegistry::new(Default::default()));
    let gw = ServerEngine::new(config, Arc::new(ToolRegistry::new()))
        .with_prompts(Default::default())
        .with_skills(skills);
    let mut p = Pair { conn: ServerConnection::new(Arc::new(gw)), now: UNIX_EPOCH + T0, route: 0 };
    for method in gated {
        assert_eq!(p.reply(modern(method))["error"]["code"], -32601, "gateway {method}");
    }
    assert!(p.reply(modern("tools/list"))["result"]["tools"].is_array());
    // 2024-11-05 has completion/complete but no capability for it: served.
    let resources = Arc::new(crate::resources::ResourceRegistry::new());
    let e = (*engine()).clone().with_resources(resources);
    let mut p = Pair { conn: ServerConnection::new(Arc::new(e)), now: UNIX_EPOCH + T0, route: 0 };
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    assert!(p.reply(init)["result"]["capabilities"].get("completions").is_none());
    p.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    let complete = json!({"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"x://{a}"},"argument":{"name":"a","value":""}}});
    let r = p.reply(complete);
    assert_ne!(r["error"]["code"], -32601, "{r}");
    assert!(
        p.reply(json!({"jsonrpc":"2.0","id":3,"method":"resources/list"}))["result"]["resources"].is_array()
    );
}

#[test]
fn legacy_handshake() {
    let mut p = Pair::new();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}});
    let r = p.reply(init.clone());
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
    assert!(r["result"].get("resultType").is_none());
    assert!(p.conn.take_dirty(), "initialize changes the session: store it");
    // Before notifications/initialized: only ping.
    assert_eq!(p.reply(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}))["error"]["code"], -32600);
    assert_eq!(p.reply(json!({"jsonrpc":"2.0","id":3,"method":"ping"}))["result"], json!({}));
    let events = p.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    assert!(matches!(events.as_slice(), [Event::RouteDone(_)]), "{events:?}");
    assert!(p.conn.take_dirty());
    assert!(p.conn.engine().accepts_batch(p.conn.session()));
    let r = p.reply(json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}));
    assert_eq!(r["result"]["tools"][0]["name"], "ask");
    assert!(r["result"]["tools"][1].get("title").is_none(), "title is not a 2025-03-26 field");
    assert_eq!(p.reply(init)["error"]["code"], -32600, "second initialize");
    let record = p.conn.record(crate::session::SessionKind::Streamable);
    assert_eq!(record.session.unwrap().version, ProtocolVersion::V2025_03_26);
}

#[test]
fn invalid_arguments_follow_each_revision() {
    // spec server/tools "Error Handling": "Invalid arguments" are protocol errors up to
    // 2025-06-18; "Input validation errors" are tool execution errors from 2025-11-25 on.
    for (version, as_result) in
        [("2024-11-05", false), ("2025-03-26", false), ("2025-06-18", false), ("2025-11-25", true)]
    {
        let mut p = Pair::new();
        initialize(&mut p, version);
        let r = p.reply(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":1}}}));
        if as_result {
            assert_eq!(r["result"]["isError"], true, "{version}: {r}");
            assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("/text"), "{version}");
        } else {
            assert_eq!(r["error"]["code"], -32602, "{version}: {r}");
            assert_eq!(r["error"]["data"]["errors"][0]["path"], "/text", "{version}");
        }
        // Arguments that are not an object fail the CallToolRequest schema: a protocol error.
        let r = p.reply(
            json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":[1]}}),
        );
        assert_eq!(r["error"]["code"], -32602, "{version}: {r}");
    }
}

#[test]
fn malformed_call_params_are_invalid_params() {
    let mut p = Pair::new();
    initialize(&mut p, "2025-11-25");
    for (params, says) in [
        (json!({"name":"echo","arguments":"x"}), "expected a map"),
        (json!({"name":"echo","arguments":{"text":"a"},"_meta":5}), "expected a map"),
        (json!({"arguments":{"text":"a"}}), "missing field `name`"),
        (json!({"name":7}), "expected a string"),
    ] {
        let r = p.reply(json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":params}));
        assert_eq!(r["error"]["code"], -32602, "{r}");
        let message = r["error"]["message"].as_str().unwrap();
        assert!(message.starts_with("Invalid params for tools/call:") && message.contains(says), "{r}");
    }
    // `arguments: null` is no arguments: `text` is missing, a tool error on 2025-11-25.
    let r = p.reply(json!({"jsonrpc":"2.0","id":5,"method":"tools/call",
        "params":{"name":"echo","arguments":null,"_meta":{"progressToken":"t"}}}));
    assert_eq!(r["result"]["isError"], true, "{r}");
}

#[test]
fn legacy_counter_offer() {
    for asked in ["2026-07-28", "1999-01-01"] {
        let mut p = Pair::new();
        let r = p.reply(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":asked,"capabilities":{},"clientInfo":{"name":"c","version":"1"}}}));
        assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    }
}

#[test]
fn tool_calls_start_host_code_and_complete() {
    let mut p = Pair::new();
    // Invalid arguments are a tool execution error the model can read (SEP-1303); an unknown
    // tool stays a protocol error.
    let r = p.reply(modern_call(9, "echo", json!({"text": 1})));
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(r["result"]["resultType"], "complete");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Invalid arguments for tool echo: /text: "), "{text}");
    assert_eq!(p.reply(modern_call(9, "missing", json!({})))["error"]["code"], -32602);
    let events = p.send(modern_call(9, "echo", json!({"text": "hi"})));
    assert_eq!(started(&events).len(), 1);
    assert!(!events.iter().any(|e| matches!(e, Event::RouteDone(_))), "the route waits for the result");
    let out = p.run(events);
    assert_eq!(out[0]["result"]["resultType"], "complete");
    assert_eq!(out[0]["result"]["content"][0]["text"], "hi");
}

#[test]
fn a_duplicate_id_is_refused_while_the_first_is_in_flight() {
    let mut p = Pair::new();
    let first = p.send(modern_call(5, "echo", json!({"text": "a"})));
    let dup = p.reply(modern_call(5, "echo", json!({"text": "b"})));
    assert_eq!(dup["error"]["code"], -32600);
    assert!(dup["error"]["message"].as_str().unwrap().contains("already in flight"));
    assert_eq!(p.run(first)[0]["result"]["content"][0]["text"], "a");
    // Once answered, the id may be used again.
    assert_eq!(started(&p.send(modern_call(5, "echo", json!({"text": "c"})))).len(), 1);
}

#[test]
fn cancellation_wins_over_a_late_completion_and_not_the_other_way() {
    let mut p = Pair::new();
    initialize(&mut p, "2025-11-25");
    let call = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}});
    let events = p.send(call.clone());
    let job = started(&events)[0];
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}});
    let events = p.send(cancel.clone());
    assert!(events.iter().any(|e| matches!(e, Event::Abort { job: j } if *j == job)));
    assert!(
        events.iter().any(|e| matches!(e, Event::RouteDone(RouteId(n)) if *n == p.route - 1)),
        "{events:?}"
    );
    p.conn.complete(job, Response::result(RequestId::Number(7), json!({})));
    assert!(sent(&p.drain()).is_empty(), "a cancelled request is not answered");
    // Completed first: the late cancellation changes nothing.
    let events = p.send(call);
    let out = p.run(events);
    assert_eq!(out[0]["result"]["content"][0]["text"], "x");
    let events = p.send(cancel);
    assert!(!events.iter().any(|e| matches!(e, Event::Abort { .. })));
    assert_eq!(p.conn.in_flight(), 0);
}

#[test]
fn batches_on_a_2025_03_26_session_collect_every_answer() {
    let mut p = Pair::new();
    initialize(&mut p, "2025-03-26");
    let events = p.send(json!([
        {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"one"}}},
        {"jsonrpc":"2.0","id":2,"method":"tools/list"},
        {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}},
        {"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}
    ]));
    assert!(sent(&events).is_empty(), "the batch waits for its call");
    let out = p.run(events);
    let batch = out[0].as_array().expect("one batch response");
    let ids: Vec<&Value> = batch.iter().map(|r| &r["id"]).collect();
    assert_eq!(ids, [&json!(2), &json!(3), &json!(1)]);
    assert_eq!(batch[1]["error"]["code"], -32600, "initialize must not be batched");
    assert_eq!(batch[2]["result"]["content"][0]["text"], "one");
    // A batch of notifications only is answered with nothing.
    let events = p.send(json!([{"jsonrpc":"2.0","method":"notifications/initialized"}]));
    assert!(sent(&events).is_empty() && events.iter().any(|e| matches!(e, Event::RouteDone(_))));
}

#[test]
fn batches_elsewhere_are_refused() {
    let mut p = Pair::new();
    initialize(&mut p, "2025-06-18");
    let r = p.reply(json!([{"jsonrpc":"2.0","id":1,"method":"tools/list"}]));
    assert_eq!(r["error"]["code"], -32600);
}

#[test]
fn server_requests_are_answered_timed_out_or_dropped_with_their_call() {
    let mut p = Pair::new();
    initialize(&mut p, "2025-11-25");
    let events =
        p.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}));
    let job = started(&events)[0];
    let route = RouteId(p.route);
    // The handler asks the client; the request goes out on the call's route.
    let id = p.conn.send_request(job, "elicitation/create", None, p.now).unwrap();
    let out = p.drain();
    assert!(
        matches!(&out[0], Event::Send { route: Some(r), message: Message::Request(q) } if *r == route && q.id == id)
    );
    assert_eq!(p.conn.record(crate::session::SessionKind::Streamable).outstanding.len(), 1);
    // Answered (on another route): delivered to the waiter.
    let answer = json!({"jsonrpc":"2.0","id": id.to_value(),"result":{"action":"decline"}});
    let events = p.send(answer.clone());
    assert!(
        matches!(&events[0], Event::Answer { id: a, outcome: Ok(v) } if *a == id && v["action"] == "decline")
    );
    // A second answer to the same request matches nothing.
    assert!(matches!(&p.send(answer)[0], Event::Unmatched(_)));
    // Unanswered past the timeout: the handler gets an error, the client a cancellation.
    let id = p.conn.send_request(job, "roots/list", None, p.now).unwrap();
    p.drain();
    let deadline = p.conn.poll_timeout().unwrap();
    assert_eq!(deadline, p.now + p.conn.engine().config().peer_request_timeout);
    p.conn.handle_timeout(deadline - Duration::from_millis(1));
    assert!(p.drain().is_empty());
    p.conn.handle_timeout(deadline);
    let events = sent_and_answers(p.drain());
    assert_eq!(events.0[0]["method"], "notifications/cancelled");
    assert_eq!(events.0[0]["params"]["requestId"], id.to_value());
    assert_eq!(events.1, [(id, ErrorCode::REQUEST_TIMEOUT)]);
    // Still waiting when the call ends: the client is told to drop it.
    let id = p.conn.send_request(job, "roots/list", None, p.now).unwrap();
    p.drain();
    p.conn.complete(job, Response::result(RequestId::Number(1), json!({"content": []})));
    let out = sent(&p.drain());
    assert_eq!(out[0]["method"], "notifications/cancelled");
    assert_eq!(out[0]["params"]["requestId"], id.to_value());
    assert_eq!(out[1]["id"], 1);
    assert!(p.conn.poll_timeout().is_none());
    assert!(p.conn.send_request(job, "roots/list", None, p.now).is_err(), "the call has ended");
}

fn sent_and_answers(events: Vec<Event>) -> (Vec<Value>, Vec<(RequestId, ErrorCode)>) {
    let answers = events
        .iter()
        .filter_map(|e| match e {
            Event::Answer { id, outcome: Err(err) } => Some((id.clone(), err.code)),
            _ => None,
        })
        .collect();
    (sent(&events), answers)
}

#[test]
fn a_sealed_request_state_expires_with_the_clock() {
    let mut p = Pair::new();
    let events = p.send(modern_call(1, "ask", json!({})));
    let out = p.run(events);
    let first = &out[0]["result"];
    assert_eq!(first["resultType"], "input_required");
    assert_eq!(first["inputRequests"]["name"]["method"], "elicitation/create");
    let state = first["requestState"].as_str().unwrap().to_owned();
    let retry = |id: u64| {
        let mut call = modern_call(id, "ask", json!({}));
        call["params"]["requestState"] = json!(state);
        call["params"]["inputResponses"] = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
        call
    };
    // Within its ten minutes the retry completes.
    p.now += Duration::from_secs(599);
    let events = p.send(retry(2));
    let out = p.run(events);
    assert_eq!(out[0]["result"]["content"][0]["text"], "hi String(\"Ada\")");
    // After them it is refused.
    p.now += Duration::from_secs(2);
    let r = p.reply(retry(3));
    assert_eq!(r["error"]["code"], -32602);
    assert!(r["error"]["message"].as_str().unwrap().contains("expired"));
}

#[test]
fn list_changes_reach_an_initialized_legacy_session_only() {
    let mut p = Pair::new();
    p.conn.on_change(&crate::changes::Change::ToolsListChanged);
    assert!(p.drain().is_empty(), "no session");
    initialize(&mut p, "2025-11-25");
    p.conn.on_change(&crate::changes::Change::ToolsListChanged);
    let events = p.drain();
    assert!(matches!(&events[0], Event::Send { route: None, message: Message::Notification(n) }
        if n.method == "notifications/tools/list_changed"));
}

#[test]
fn a_parse_error_is_answered_on_its_route() {
    let mut p = Pair::new();
    p.route += 1;
    p.conn.handle(crate::jsonrpc::parse(b"{not json"), RouteId(p.route), &Origin::default(), p.now);
    let out = p.drain();
    assert_eq!(sent(&out)[0]["error"]["code"], -32700);
    assert!(matches!(out.last(), Some(Event::RouteDone(_))));
    let _ = from_value(json!({"jsonrpc":"2.0","method":"x"})).unwrap();
}

/// The `Caller` of each call of `events`.
fn callers(events: &[Event]) -> Vec<Arc<Caller>> {
    events
        .iter()
        .filter_map(|e| {
            if let Event::Start { work: Job::Call(c), .. } = e {
                Some(c.caller.clone())
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn a_legacy_session_builds_its_caller_once_and_again_from_a_restored_record() {
    let mut p = Pair::new();
    initialize(&mut p, "2025-11-25");
    let call = |id: u64| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}});
    let first = callers(&p.send(call(1)));
    let second = callers(&p.send(call(2)));
    assert_eq!(first[0].client_info.as_ref().unwrap().name, "c");
    assert!(Arc::ptr_eq(&first[0], &second[0]), "one Caller per session, shared by its calls");
    // A record restored from a store (another instance changed it) is read again.
    let mut record = p.conn.session().cloned().unwrap();
    record.client_info.name = "restored".into();
    p.conn.restore(Some(record));
    let third = callers(&p.send(call(3)));
    assert_eq!(third[0].client_info.as_ref().unwrap().name, "restored");
}
