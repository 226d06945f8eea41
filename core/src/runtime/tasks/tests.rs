//! Tasks end to end through a one-request connection and the job runner: which calls become
//! tasks, polling, input through `tasks/update`, cancellation, listen notifications, and the
//! task TTL on a manual clock.

use crate::context::{NotificationSink, Origin, RequestContext};
use crate::engine::{Event, Job, RouteId, ServerConfig, ServerConnection, ServerEngine};
use crate::jsonrpc::{from_value, Message};
use crate::protocol::{CallToolResult, Tool};
use crate::registry::{Arguments, ToolRegistry};
use crate::runtime::{jobs, Env, ManualClock};
use crate::state::StateKey;
use crate::tasks::{MemoryTaskStore, TaskPolicy, TaskSettings};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

fn env(clock: &ManualClock) -> Arc<Env> {
    let reg = ToolRegistry::new();
    let t = |n: &str| Tool::new(n, n, json!({"type": "object"}));
    reg.register(t("plain"), |_: Arguments, _: RequestContext| async move { Ok(CallToolResult::text("p")) })
        .unwrap();
    reg.register_with_tasks(
        t("maybe"),
        TaskPolicy::optional(),
        |_: Arguments, _: RequestContext| async move { Ok(CallToolResult::text("done")) },
    )
    .unwrap();
    reg.register_with_tasks(
        t("must"),
        TaskPolicy::required(),
        |_: Arguments, _: RequestContext| async move {
            std::future::pending::<()>().await;
            Ok(CallToolResult::text("never"))
        },
    )
    .unwrap();
    reg.register_with_tasks(
        t("ask"),
        TaskPolicy::optional(),
        |_: Arguments, ctx: RequestContext| async move {
            let form = serde_json::from_value(json!({"message": "name?", "requestedSchema":
            {"type": "object", "properties": {"name": {"type": "string"}}}}))
            .unwrap();
            let r = ctx.elicit("name", form).await?;
            Ok(CallToolResult::text(format!("hi {:?}", r.content.unwrap()["name"])))
        },
    )
    .unwrap();
    let mut config = ServerConfig::new("test", "1.0");
    config.state_keys = StateKey::new(vec![1u8; 32]).into();
    let settings = TaskSettings { ttl: Some(Duration::from_secs(60)), ..TaskSettings::default() };
    let engine = Arc::new(ServerEngine::new(config, Arc::new(reg)));
    let tasks = Arc::new(super::Tasks::with_clock(
        Arc::new(MemoryTaskStore::default()),
        settings,
        Arc::new(clock.clone()),
    ));
    Env::new(engine, tasks, Arc::new(clock.clone()))
}

fn clock() -> ManualClock {
    ManualClock::new(UNIX_EPOCH + Duration::from_secs(1_800_000_000))
}

fn caps(tasks: bool) -> Value {
    let mut c = json!({"elicitation": {}});
    if tasks {
        c["extensions"] = json!({"io.modelcontextprotocol/tasks": {}});
    }
    c
}

fn request(id: u64, method: &str, mut params: Value, tasks: bool) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps(tasks)});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Serves one request to its response, running its job.
async fn serve(env: &Arc<Env>, req: Value) -> Value {
    let mut conn = ServerConnection::new(env.engine.clone());
    let frame = Ok(crate::jsonrpc::Inbound::Single(from_value(req).unwrap()));
    conn.handle(frame, RouteId(1), &Origin::default(), env.now());
    while let Some(event) = conn.poll_event() {
        match event {
            Event::Send { message, .. } => return message.to_value(),
            Event::Start { work: Job::Call(call), .. } => {
                let sink: NotificationSink = Arc::new(|_| {});
                let resp = jobs::run_call(env.clone(), call, Origin::none(), sink, None).await;
                return Message::Response(resp).to_value();
            }
            _ => {}
        }
    }
    panic!("no answer")
}

async fn ask(env: &Arc<Env>, id: u64, method: &str, params: Value) -> Value {
    serve(env, request(id, method, params, true)).await
}

async fn until(env: &Arc<Env>, task: &str, status: &str) -> Value {
    for _ in 0..1000 {
        let r = ask(env, 1, "tasks/get", json!({"taskId": task})).await;
        if r["result"]["status"] == status {
            return r["result"].clone();
        }
        tokio::task::yield_now().await;
    }
    panic!("task {task} never reached {status}")
}

#[tokio::test]
async fn the_extension_is_advertised_and_gated() {
    let e = env(&clock());
    let r = ask(&e, 1, "server/discover", json!({})).await;
    assert_eq!(r["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/tasks"], json!({}));
    for method in ["tasks/get", "tasks/cancel", "tasks/update"] {
        let params = json!({"taskId": "x", "inputResponses": {}});
        let r = serve(&e, request(2, method, params.clone(), false)).await;
        assert_eq!(r["error"]["code"], -32021, "{method}");
        assert_eq!(
            r["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
            json!({})
        );
        let r = ask(&e, 3, method, params).await;
        assert_eq!(r["error"]["code"], -32602, "{method}: unknown task");
    }
    let listen = request(4, "subscriptions/listen", json!({"notifications": {"taskIds": ["x"]}}), false);
    assert_eq!(serve(&e, listen).await["error"]["code"], -32021);
}

#[tokio::test]
async fn which_calls_become_tasks() {
    let e = env(&clock());
    let kind = |r: Value| {
        r["result"]["resultType"].as_str().map(str::to_owned).unwrap_or(r["error"]["code"].to_string())
    };
    assert_eq!(kind(ask(&e, 1, "tools/call", json!({"name": "plain"})).await), "complete");
    assert_eq!(kind(serve(&e, request(1, "tools/call", json!({"name": "maybe"}), false)).await), "complete");
    assert_eq!(kind(ask(&e, 1, "tools/call", json!({"name": "maybe"})).await), "task");
    assert_eq!(kind(serve(&e, request(1, "tools/call", json!({"name": "must"}), false)).await), "-32021");
    assert_eq!(kind(ask(&e, 1, "tools/call", json!({"name": "must"})).await), "task");
}

#[tokio::test]
async fn a_task_completes_and_is_polled() {
    let e = env(&clock());
    let created = ask(&e, 9, "tools/call", json!({"name": "maybe"})).await;
    let r = &created["result"];
    assert_eq!(r["resultType"], "task");
    assert!(r.get("task").is_none() && r.get("result").is_none());
    assert!(r["ttlMs"].as_u64().is_some() && r["pollIntervalMs"].as_u64().is_some());
    let done = until(&e, r["taskId"].as_str().unwrap(), "completed").await;
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "done");
}

#[tokio::test]
async fn input_inside_a_task_waits_for_tasks_update() {
    let e = env(&clock());
    let created = ask(&e, 9, "tools/call", json!({"name": "ask"})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = until(&e, &id, "input_required").await;
    assert_eq!(waiting["inputRequests"]["name"]["method"], "elicitation/create");
    let answer = json!({"name": {"action": "accept", "content": {"name": "Ada"}}, "other": {}});
    let ack = ask(&e, 5, "tasks/update", json!({"taskId": id, "inputResponses": answer})).await;
    assert_eq!(ack["result"]["resultType"], "complete");
    assert!(ack["result"].get("status").is_none());
    let done = until(&e, &id, "completed").await;
    assert!(done["result"]["content"][0]["text"].as_str().unwrap().contains("Ada"));
}

#[tokio::test]
async fn cancelling_stops_the_task_is_idempotent_and_is_notified() {
    let e = env(&clock());
    let created = ask(&e, 9, "tools/call", json!({"name": "must"})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    for _ in 0..2 {
        let ack = ask(&e, 6, "tasks/cancel", json!({"taskId": id})).await;
        assert_eq!(ack["result"], json!({"resultType": "complete", "_meta": ack["result"]["_meta"]}));
    }
    let cancelled = until(&e, &id, "cancelled").await;
    assert!(cancelled.get("result").is_none() && cancelled.get("error").is_none());
    let record = e.tasks.get(&id).await.unwrap().unwrap();
    let listen = crate::engine::Listen {
        id: crate::jsonrpc::RequestId::Number(7),
        version: crate::ProtocolVersion::V2026_07_28,
        filter: crate::protocol::subscriptions::SubscriptionFilter {
            task_ids: Some(vec![id.clone()]),
            ..Default::default()
        },
        owner: None,
    };
    assert!(e.engine.listen_wants_task(&listen, &id));
    let note = e.engine.task_notification(&listen, &record).unwrap().to_value();
    assert_eq!(note["method"], "notifications/tasks");
    assert_eq!(note["params"]["status"], "cancelled");
    assert_eq!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
}

#[tokio::test]
async fn a_task_expires_after_its_ttl_on_the_clock() {
    let c = clock();
    let e = env(&c);
    let created = ask(&e, 9, "tools/call", json!({"name": "maybe"})).await;
    let id = created["result"]["taskId"].as_str().unwrap().to_owned();
    until(&e, &id, "completed").await;
    c.advance(Duration::from_secs(59));
    assert_eq!(ask(&e, 1, "tasks/get", json!({"taskId": id})).await["result"]["status"], "completed");
    c.advance(Duration::from_secs(1));
    let r = ask(&e, 1, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(r["error"]["code"], -32602, "expired after its 60 s ttl: {r}");
}
