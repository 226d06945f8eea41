//! Scale-out (issue 16): three `mcpcore conformance-server --store redis://…` instances behind
//! nginx round-robin with no affinity (`common::fleet`), driven by the official clients: the
//! Python SDK (`mcp==2.3.0`, `tests/interop/python/sdk_scale_client.py`) and the TypeScript SDK
//! (`@modelcontextprotocol/client` 2.4.0, `tests/interop/ts/sdk_scale_client.mjs`).
//!
//! - both clients, both lineages: many calls over one session, elicitation answers POSTed to
//!   another instance than the waiting call, progress and logging, resource updates produced on
//!   another instance than the one holding the session's GET stream (legacy) or the listen
//!   stream (2026-07-28), MRTR retries on other instances;
//! - failover: the instance holding the session's GET stream is killed with calls in flight on
//!   it: exactly those calls fail, with an error; the others finish; the SDK resumes the GET
//!   stream on another instance with `Last-Event-ID` and gets the updates sent meanwhile;
//! - an instance killed between calls, Redis stopped and started again;
//! - the Redis stores' keys, TTLs and atomicity, against a real `redis-server`.
//!
//! Needs `redis-server` and `nginx` (Debian packages; `scripts/test.sh` installs them). Without
//! them the tests are skipped with a message, except in CI (`CI` set), where they fail.

use mcpcore_tests::bin;
use mcpcore_tests::fleet::{self, upstreams_of, Fleet, Logged, Script, STATE_KEY};
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn echoes(n: usize) -> Value {
    json!((1..=n).map(|i| format!("call {i}")).collect::<Vec<_>>())
}

/// A raw POST through the proxy: (status, JSON body, session id).
async fn post(url: &str, body: Value, session: Option<&str>) -> (u16, Value, Option<String>) {
    let mut req = mcpcore_tests::http::client_builder()
        .build()
        .unwrap()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .timeout(Duration::from_secs(10))
        .body(body.to_string());
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let resp = req.send().await.expect("the proxy answers");
    let status = resp.status().as_u16();
    let sid = resp.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_owned());
    let text = resp.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)), sid)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

/// The POSTs of session `id` in `log`.
fn session_posts<'a>(log: &'a [Logged], id: &'a str) -> impl Iterator<Item = &'a Logged> + 'a {
    log.iter().filter(move |l| l.session == id && l.http_method == "POST")
}

/// The session of the last legacy run in `log` (its DELETE is the last line with a session).
fn last_session(log: &[Logged]) -> String {
    log.iter().rev().find(|l| l.http_method == "DELETE").map(|l| l.session.clone()).expect("a DELETE")
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn the_official_clients_of_both_lineages_work_through_three_instances() {
    let Some(f) = Fleet::start("scale-out-sdks", 3) else { return };
    let watched = "test://watched-resource";
    for (sdk, calls) in [("python", 30), ("ts", 20)] {
        let run = |args: &[&str]| match sdk {
            "python" => Script::python(&f.url, args).finish(),
            _ => Script::node(&f.url, args).finish(),
        };
        let n = calls.to_string();

        // Legacy: one session; every POST may land on another instance.
        let mark = f.log().len();
        let out = run(&["--mode", "legacy", "--calls", &n, "--mrtr", "3", "--updates", "3", "--features"]);
        assert_eq!(out["protocolVersion"], "2025-11-25", "{sdk}: {out}");
        assert_eq!(out["echoes"], echoes(calls), "{sdk}");
        assert_eq!(out["mrtr"], json!(["Hello, Ann!", "Hello, Ann!", "Hello, Ann!"]), "{sdk}: {out}");
        assert_eq!(floats(&out["progress"]), [0.0, 50.0, 100.0], "{sdk}: {out}");
        assert_eq!(out["logs"], 3, "{sdk}: {out}");
        assert_eq!(out["updates"], json!([watched, watched, watched]), "{sdk}: {out}");
        let log = f.log()[mark..].to_vec();
        let session = last_session(&log);
        let posts: Vec<&Logged> = session_posts(&log, &session).collect();
        assert_eq!(upstreams_of(posts.iter().copied()).len(), 3, "{sdk}: the session's POSTs: {posts:?}");
        // Each elicitation's answer (a 202) is POSTed while its call waits: the call is the
        // request in flight when the answer began (the client sends nothing else meanwhile).
        // Round-robin sent every answer to another instance than its call.
        let answered: Vec<(&Logged, &Logged)> = posts
            .iter()
            .filter(|a| a.status == "202")
            .filter_map(|a| {
                let waiting = posts.iter().filter(|c| {
                    c.status == "200" && c.started_ms <= a.started_ms && a.started_ms <= c.ended_ms
                });
                waiting.max_by_key(|c| c.started_ms).map(|c| (*a, *c))
            })
            .collect();
        assert_eq!(answered.len(), 3, "{sdk}: {posts:?}");
        assert!(answered.iter().all(|(a, c)| a.upstream != c.upstream), "{sdk}: {answered:?}");
        // The last three POSTs before the DELETE are the update triggers, each waited for:
        // round-robin puts them on all three instances, two of which do not hold the GET.
        let get = log.iter().find(|l| l.session == session && l.http_method == "GET").expect("a GET stream");
        let triggers = &posts[posts.len() - 3..];
        assert_eq!(upstreams_of(triggers.iter().copied()).len(), 3, "{sdk}: {triggers:?}");
        assert!(triggers.iter().any(|t| t.upstream != get.upstream));

        // 2026-07-28: MRTR retries and the listen stream's updates across instances.
        let mark = f.log().len();
        let out = run(&["--mode", "modern", "--calls", "10", "--mrtr", "3", "--features", "--listen", "3"]);
        assert_eq!(out["protocolVersion"], "2026-07-28", "{sdk}: {out}");
        assert_eq!(out["echoes"], echoes(10), "{sdk}");
        assert_eq!(out["mrtr"], json!(["Hello, Ann!", "Hello, Ann!", "Hello, Ann!"]), "{sdk}: {out}");
        assert_eq!(floats(&out["progress"]), [0.0, 50.0, 100.0], "{sdk}: {out}");
        assert_eq!(out["listen"], json!([watched, watched, watched]), "{sdk}: {out}");
        let log = f.log()[mark..].to_vec();
        let listen = log.iter().find(|l| l.method == "subscriptions/listen").expect("the listen stream");
        let calls: Vec<&Logged> = log.iter().filter(|l| l.method == "tools/call").collect();
        let triggers = &calls[calls.len() - 3..];
        assert!(triggers.iter().any(|t| t.upstream != listen.upstream), "{sdk}: {triggers:?} vs {listen:?}");
        if sdk == "python" {
            assert_eq!(out["logs"], 3, "{out}");
        }
    }
}

#[test]
fn an_instance_killed_mid_run_loses_only_its_calls_and_the_get_stream_resumes_elsewhere() {
    let Some(mut f) = Fleet::start("scale-out-failover", 3) else { return };
    let ports = f.ports.clone();
    let mut sdk = Script::python(&f.url, &["--mode", "legacy", "--failover", "4", "--slow", "6"]);
    assert_eq!(sdk.line(), json!({"ready": true}));
    // The session's only long-lived connection is its GET stream: find its instance.
    let open = fleet::wait_for_connections(&ports, "a GET stream", |c| c.iter().sum::<usize>() == 1);
    let g = open.iter().position(|n| *n == 1).unwrap();
    sdk.resume();
    assert_eq!(sdk.line(), json!({"calls": 6}));
    // Six slow calls spread over the three instances, plus the GET stream.
    let open = fleet::wait_for_connections(&ports, "six calls in flight", |c| c.iter().sum::<usize>() == 7);
    let doomed = open[g] - 1;
    assert!(doomed >= 1, "{open:?}");
    f.instances[g].kill();
    sdk.resume();
    let out = sdk.finish();
    // Exactly the calls in flight on the killed instance failed, each with an error (nginx's
    // 502 for a POST it may not send elsewhere); the others finished.
    let errors = out["slow"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), doomed, "{out}");
    assert_eq!(out["slow"]["ok"], 6 - doomed, "{out}");
    assert!(errors.iter().all(|e| e.as_str().unwrap().contains("MCPError")), "{out}");
    // The updates sent while the GET stream was away came with its resumption on another
    // instance, with the id of the last event the stream had delivered (its priming event).
    let watched = "test://watched-resource";
    assert_eq!(out["updates"], json!([watched, watched, watched]), "{out}");
    let log = f.log();
    let resumed: Vec<&Logged> =
        log.iter().filter(|l| l.http_method == "GET" && !l.last_event_id.is_empty()).collect();
    assert!(!resumed.is_empty(), "no GET resumed with Last-Event-ID: {log:?}");
    assert!(resumed.iter().all(|l| l.upstream != f.upstream(g) && l.last_event_id.starts_with("get:")));
}

#[test]
fn three_instances_behind_nginx_share_sessions_and_survive_losses_of_instances_and_redis() {
    let Some(mut f) = Fleet::start("scale-out", 3) else { return };
    let url = f.url.clone();

    // Legacy: one session, its POSTs on every instance; the second instance dies after call 10.
    let mut sdk = Script::python(&url, &["--mode", "legacy", "--calls", "30", "--pause-after", "10"]);
    assert_eq!(sdk.line(), json!({"paused": 10}));
    let before = f.log();
    let session =
        before.iter().find(|l| !l.session.is_empty()).map(|l| l.session.clone()).expect("a session id");
    let served = upstreams_of(session_posts(&before, &session));
    assert_eq!(served.len(), 3, "the session's POSTs before the kill landed on {served:?}");
    f.instances[1].kill();
    sdk.resume();
    let out = sdk.finish();
    assert_eq!(out["protocolVersion"], "2025-11-25", "{out}");
    assert_eq!(out["echoes"], echoes(30));
    let after = f.log()[before.len()..].to_vec();
    let served = upstreams_of(session_posts(&after, &session));
    assert_eq!(served.len(), 2, "after the kill the session's POSTs landed on {served:?}");
    assert!(!served.contains(&f.upstream(1)), "{served:?}");

    // Modern: every MRTR retry lands on the other live instance than its first call.
    let mark = f.log().len();
    let out = Script::python(&url, &["--mode", "modern", "--calls", "2", "--mrtr", "3"]).finish();
    assert_eq!(out["protocolVersion"], "2026-07-28", "{out}");
    assert_eq!(out["mrtr"], json!(["Hello, Ann!", "Hello, Ann!", "Hello, Ann!"]));
    let calls: Vec<Logged> = f.log()[mark..].iter().filter(|l| l.method == "tools/call").cloned().collect();
    assert_eq!(calls.len(), 2 + 3 * 2, "{calls:?}");
    for pair in calls[2..].chunks(2) {
        assert_ne!(pair[0].upstream, pair[1].upstream, "an MRTR retry on the same instance: {calls:?}");
    }

    // Redis stops: legacy requests get 503 with a JSON-RPC error; modern stateless calls work.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (status, _, sid) = rt.block_on(post(&url, initialize(), None));
    assert_eq!(status, 200);
    let sid = sid.expect("a session id");
    f.redis.kill();
    let (status, body, _) = rt.block_on(post(&url, initialize(), None));
    assert_eq!((status, body["error"]["code"].as_i64()), (503, Some(-32603)), "{body}");
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    for _ in 0..2 {
        // Twice: both live instances answer alike.
        let (status, body, _) = rt.block_on(post(&url, ping.clone(), Some(&sid)));
        assert_eq!((status, body["error"]["code"].as_i64()), (503, Some(-32603)), "{body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("Redis"), "{body}");
    }
    let out = Script::python(&url, &["--mode", "modern", "--calls", "4"]).finish();
    assert_eq!(out["echoes"], echoes(4));

    // Redis is back (empty: no persistence): new legacy sessions work, on both instances,
    // including what crosses instances through Redis: elicitation answers POSTed to the other
    // instance than the waiting call, resource updates produced without the GET stream.
    let (redis, _) = fleet::tools("scale-out").unwrap();
    let _redis_again = fleet::start_redis(&redis, f.redis_port, &f.dir);
    let mark = f.log().len();
    let out =
        Script::python(&url, &["--mode", "legacy", "--calls", "6", "--mrtr", "3", "--updates", "3"]).finish();
    assert_eq!(out["echoes"], echoes(6));
    let served = upstreams_of(f.log()[mark..].iter().filter(|l| l.http_method == "POST"));
    assert_eq!(served.len(), 2, "{served:?}");
    assert_eq!(out["mrtr"], json!(["Hello, Ann!", "Hello, Ann!", "Hello, Ann!"]), "{out}");
    let watched = "test://watched-resource";
    assert_eq!(out["updates"], json!([watched, watched, watched]), "{out}");
}

/// Runs the workspace binary `name` with `args`, `MCPCORE_STATE_KEY` set to `key` only when
/// given; its exit code and stderr.
fn refused(name: &str, args: &[&str], key: Option<&str>) -> (Option<i32>, String) {
    let mut cmd = Command::new(bin(name));
    cmd.args(args).env_remove("MCPCORE_STATE_KEY").stdout(Stdio::null()).stderr(Stdio::piped());
    if let Some(k) = key {
        cmd.env("MCPCORE_STATE_KEY", k);
    }
    let out = cmd.output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn a_store_without_a_shared_state_key_or_with_a_bad_url_is_refused_at_startup() {
    for (name, flag, code) in [("mcpcore", "--listen", 1), ("echo_server", "--http", 2)] {
        let base: Vec<&str> = if name == "mcpcore" {
            vec!["conformance-server", flag, "127.0.0.1:0"]
        } else {
            vec![flag, "127.0.0.1:0"]
        };
        let with =
            |extra: &[&'static str]| base.iter().copied().chain(extra.iter().copied()).collect::<Vec<_>>();
        let (status, err) = refused(name, &with(&["--store", "redis://127.0.0.1:1"]), None);
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("--store needs MCPCORE_STATE_KEY"), "{name}: {err}");
        let (status, err) = refused(name, &with(&["--store", "redis://127.0.0.1:1"]), Some("abcd"));
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("at least 32 bytes"), "{name}: {err}");
        let (status, err) = refused(name, &with(&["--store", "redis://"]), Some(STATE_KEY));
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("bad Redis URL"), "{name}: {err}");
        let (status, err) = refused(name, &with(&["--allowed-host", "http://x"]), None);
        assert_eq!(status, Some(code), "{name}: {err}");
        assert!(err.contains("--allowed-host needs NAME[:PORT]"), "{name}: {err}");
    }
}

/// How long a test may wait for Redis to answer after it was killed.
const QUICKLY: Duration = Duration::from_secs(5);

#[test]
fn the_redis_session_store_keeps_records_under_namespaced_keys_with_the_idle_ttl() {
    use mcpcore::session::{SessionKind, SessionRecord, SessionStore};
    use mcpcore::store::redis::RedisSessionStore;
    let Some(redis) = fleet::redis_tool("redis session store") else { return };
    let scratch = fleet::Scratch::new("redis-session-store");
    let port = fleet::free_port();
    let mut server = fleet::start_redis(&redis, port, &scratch.0);
    let cmd = |c: &str| fleet::redis_cmd(port, c);
    let pttl = |key: &str| -> i64 { cmd(&format!("PTTL {key}"))[1..].parse().unwrap() };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        for bad in ["127.0.0.1:6379", "redis://", "http://127.0.0.1:6379", "redis://h:notaport"] {
            assert!(RedisSessionStore::new(bad, Duration::from_secs(60)).is_err(), "{bad:?} accepted");
        }
        let ttl = Duration::from_secs(600);
        let store = RedisSessionStore::new(&format!("redis://127.0.0.1:{port}/0"), ttl).unwrap();
        assert!(store.shared());
        let now = std::time::SystemTime::now();
        let record = SessionRecord::new(SessionKind::Streamable);
        assert!(store.create("abc", &record, now).await.unwrap());
        assert!((590_000..=600_000).contains(&pttl("mcpcore:session:abc")));
        assert_eq!(cmd("PEXPIRE mcpcore:session:abc 1000"), ":1");
        assert_eq!(store.load("abc", now).await.unwrap(), Some(record.clone()));
        assert!(pttl("mcpcore:session:abc") > 590_000, "load pushes the expiry out");
        assert_eq!(cmd("PEXPIRE mcpcore:session:abc 1000"), ":1");
        store.touch("abc", now).await.unwrap();
        assert!(pttl("mcpcore:session:abc") > 590_000, "touch pushes the expiry out");
        let mut changed = record.clone();
        changed.kind = SessionKind::Sse;
        store.store("abc", &changed, now).await.unwrap();
        assert_eq!(store.load("abc", now).await.unwrap(), Some(changed.clone()));

        // The replay log: a Redis stream per session, bounded, with the session's TTL; a
        // message announcing a change is kept once per change id.
        assert_eq!(store.head("abc").await.unwrap().as_deref(), Some("0-0"));
        let mut sub = store.subscribe("abc", mcpcore::session::Topic::ToClient).await.unwrap().unwrap();
        let first = store.append("abc", r#"{"n":1}"#.into(), None).await.unwrap().unwrap();
        let second = store.append("abc", r#"{"n":2}"#.into(), Some("i-7")).await.unwrap().unwrap();
        assert_eq!(
            store.append("abc", r#"{"n":2}"#.into(), Some("i-7")).await.unwrap(),
            None,
            "once per change"
        );
        assert_eq!(sub.recv().await.unwrap(), format!(r#"{first} {{"n":1}}"#));
        assert_eq!(sub.recv().await.unwrap(), format!(r#"{second} {{"n":2}}"#));
        assert_eq!(store.head("abc").await.unwrap(), Some(second.clone()));
        assert_eq!(store.replay("abc", "0-0").await.unwrap().len(), 2);
        assert_eq!(store.replay("abc", &first).await.unwrap(), [(second.clone(), r#"{"n":2}"#.to_owned())]);
        assert!(store.replay("abc", &second).await.unwrap().is_empty());
        assert_eq!(cmd("TYPE mcpcore:session:abc:events"), "+stream");
        assert!((590_000..=600_000).contains(&pttl("mcpcore:session:abc:events")));
        assert!((50_000..=60_000).contains(&pttl("mcpcore:session:abc:seen:i-7")));
        let small = store.clone().with_replay(1);
        for i in 0..500 {
            small.append("abc", format!(r#"{{"i":{i}}}"#), None).await.unwrap();
        }
        let kept: i64 = cmd("XLEN mcpcore:session:abc:events")[1..].parse().unwrap();
        assert!(kept < 250, "MAXLEN ~ 1 keeps the log short: {kept}");

        assert!(store.delete("abc").await.unwrap());
        assert_eq!(cmd("EXISTS mcpcore:session:abc:events"), ":0", "the log goes with the session");
        assert!(!store.delete("abc").await.unwrap());
        store.store("abc", &changed, now).await.unwrap();
        assert_eq!(store.load("abc", now).await.unwrap(), None, "a deleted session stays deleted");
        assert_eq!(cmd("SET mcpcore:session:bad {"), "+OK");
        let e = store.load("bad", now).await.unwrap_err();
        assert_eq!(e.code, mcpcore::ErrorCode::INTERNAL_ERROR);
        // Redis down: every call fails, quickly, with -32603 naming Redis.
        server.kill();
        let started = Instant::now();
        let e = store.load("abc", now).await.unwrap_err();
        assert_eq!(e.code, mcpcore::ErrorCode::INTERNAL_ERROR);
        assert!(e.message.contains("Redis at 127.0.0.1:"), "{e}");
        assert!(store.create("x", &record, now).await.is_err());
        assert!(started.elapsed() < QUICKLY, "{:?}", started.elapsed());
        // Back up: the next call succeeds, with no new store.
        let mut again = fleet::start_redis(&redis, port, &scratch.0);
        assert!(store.create("after", &record, now).await.unwrap());
        // Restarted between two calls: the first call on the dropped connection succeeds too.
        again.kill();
        let _again = fleet::start_redis(&redis, port, &scratch.0);
        assert_eq!(store.load("after", now).await.unwrap(), None, "no persistence: a new, empty Redis");
        let prefixed = store.clone().with_prefix("other");
        assert_eq!(prefixed.key("after"), "other:session:after");
        assert_eq!(prefixed.load("after", now).await.unwrap(), None);
    });
}

#[test]
fn the_redis_task_store_state_ledger_and_change_bus_are_shared_and_atomic() {
    use mcpcore::changes::{Announcement, Change, ChangeBus};
    use mcpcore::state::{Claim, StateLedger};
    use mcpcore::store::redis::Redis;
    use mcpcore::tasks::{TaskRecord, TaskStore};
    let Some(redis) = fleet::redis_tool("redis stores") else { return };
    let scratch = fleet::Scratch::new("redis-stores");
    let port = fleet::free_port();
    let _server = fleet::start_redis(&redis, port, &scratch.0);
    let cmd = |c: &str| fleet::redis_cmd(port, c);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let url = format!("redis://127.0.0.1:{port}/0");
        // Two "instances": separate connections to one database.
        let (a, b) = (Redis::open(&url).unwrap(), Redis::open(&url).unwrap());
        let (ta, tb) = (a.tasks(), b.tasks());
        let now = std::time::SystemTime::now();
        let ttl = Duration::from_secs(120);
        ta.create(TaskRecord::new("t1".into(), now, Some(ttl), None), now).await.unwrap();
        let seen = tb.get("t1", now).await.unwrap().expect("the other instance reads the task");
        assert_eq!(seen.status, mcpcore::protocol::tasks_ext::TaskStatus::Working);
        let pttl: i64 = cmd("PTTL mcpcore:task:t1")[1..].parse().unwrap();
        assert!((110_000..=120_000).contains(&pttl), "the task's TTL: {pttl}");
        assert!(tb.get("t1", now + ttl).await.unwrap().is_none(), "expired at its TTL");
        // 40 changes from both instances at once, each adding one input key: none is lost.
        let mut jobs = Vec::new();
        for i in 0..40 {
            let store = if i % 2 == 0 { ta.clone() } else { tb.clone() };
            jobs.push(tokio::spawn(async move {
                let mut add = |r: &mut TaskRecord| {
                    r.issued_keys.insert(format!("k{i}"));
                };
                store.modify("t1", now, &mut add).await.unwrap().unwrap();
            }));
        }
        for j in jobs {
            j.await.unwrap();
        }
        let r = ta.get("t1", now).await.unwrap().unwrap();
        assert_eq!(r.issued_keys.len(), 40, "every concurrent change counted");
        let mut finish = |r: &mut TaskRecord| {
            r.complete(serde_json::Map::new(), now);
        };
        tb.modify("t1", now, &mut finish).await.unwrap().unwrap();
        assert!(ta.get("t1", now).await.unwrap().unwrap().result.is_some(), "the result is shared");
        assert!(ta.modify("nope", now, &mut |_| {}).await.unwrap().is_none());

        // Single-use requestState: the first claim wins on every instance; it expires with
        // the state.
        let claim = Claim { id: "s1".into(), expires: now + Duration::from_secs(300) };
        assert!(a.state_ledger().claim(&claim, now).await.unwrap());
        assert!(!b.state_ledger().claim(&claim, now).await.unwrap());
        assert!(!a.state_ledger().claim(&claim, now).await.unwrap());
        let pttl: i64 = cmd("PTTL mcpcore:state:s1")[1..].parse().unwrap();
        assert!((290_000..=300_000).contains(&pttl), "the claim lives as long as the state: {pttl}");

        // Changes: what one instance announces, the other hears (and so does the sender).
        let mut heard = b.changes().subscribe().await.unwrap();
        let sent =
            Announcement { origin: "a".into(), seq: 1, change: Change::ResourceUpdated("x://1".into()) };
        a.changes().publish(&sent).await.unwrap();
        assert_eq!(Announcement::parse(&heard.recv().await.unwrap()), Some(sent));
    });
}

#[tokio::test]
async fn one_instance_replays_a_resumed_get_stream_from_memory() {
    use mcpcore::engine::ServerConfig;
    use mcpcore::http::server::HttpServerConfig;
    use mcpcore::protocol::{CallToolResult, Tool};
    use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
    use mcpcore_tests::http::{open, read_until, sse_events, Raw};
    let tools = std::sync::Arc::new(ToolRegistry::new());
    let add = |name: &str| {
        tools
            .register(
                Tool::new(name, name, json!({"type": "object"})),
                |_: Arguments, _: ToolContext| async { Ok(CallToolResult::text("x")) },
            )
            .unwrap()
    };
    let server = mcpcore::server::Server::new(ServerConfig::new("resume", "1"), tools.clone());
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = Raw::new(&serving.url());
    let session = raw.legacy_session("2025-11-25").await;
    let get = |last: Option<&str>| {
        let rb = raw
            .http
            .get(&raw.url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25");
        match last {
            Some(id) => rb.header("last-event-id", id),
            None => rb,
        }
    };
    // A 2025-11-25 stream starts with its priming event: the id to resume from and the delay.
    let mut stream = open(get(None)).await;
    assert_eq!(stream.status(), 200);
    let text = read_until(&mut stream, |t| t.contains("\n\n")).await;
    assert!(text.starts_with("id: get:0-0\nretry: 1000\ndata: \n\n"), "{text:?}");
    // A plain second GET while it is open is refused; each message carries its event id.
    assert_eq!(open(get(None)).await.status(), 409);
    add("first");
    let text = read_until(&mut stream, |t| t.contains("list_changed")).await;
    assert!(text.starts_with("id: get:0-1\n"), "{text:?}");
    // The client goes away; what the server sends meanwhile waits in the session's log.
    drop(stream);
    add("second");
    add("third");
    let mut resumed = open(get(Some("get:0-1"))).await;
    assert_eq!(resumed.status(), 200);
    let text = read_until(&mut resumed, |t| t.matches("list_changed").count() == 2).await;
    assert!(text.starts_with("id: get:0-1\nretry: 1000\ndata: \n\n"), "{text:?}");
    let ids: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("id: ")).collect();
    assert_eq!(ids, ["get:0-1", "get:0-2", "get:0-3"], "{text:?}");
    let events = sse_events(&text);
    assert!(events[1..].iter().all(|e| e.data.contains("notifications/tools/list_changed")), "{events:?}");
    // Resuming takes the stream over: the resumed one is the session's stream now.
    add("fourth");
    let text = read_until(&mut resumed, |t| t.contains("get:0-4")).await;
    assert!(text.contains("id: get:0-4\n"), "{text:?}");
    serving.shutdown().await.unwrap();
}
