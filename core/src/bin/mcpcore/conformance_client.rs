//! `mcpcore conformance-client URL`: the client the official conformance suite drives in client
//! mode. The suite names the scenario in `MCP_CONFORMANCE_SCENARIO`, the revision in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` and extra data in `MCP_CONFORMANCE_CONTEXT` (see
//! tests/conformance/NOTES.md §7). Every scenario uses the ordinary client API.

use mcpcore::client::{BoxFuture, Client, ClientOptions, InputHandler, InputKinds, TaskOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcpcore::protocol::Tool;
use mcpcore::{Error, ProtocolVersion};
use serde_json::{json, Map, Value};
use std::process::ExitCode;
use std::sync::Arc;

/// Runs the scenario against the URL (the last argument).
pub(crate) async fn main(url: String) -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance-client: scenario {scenario:?} failed");
            crate::report(&e);
            ExitCode::from(1)
        }
    }
}

/// Accepts every form elicitation without filling anything in: the client adds the schema's
/// defaults (SEP-1034), which is what `elicitation-sep1034-client-defaults` checks.
struct AcceptDefaults;

impl InputHandler for AcceptDefaults {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, ..InputKinds::default() }
    }
    fn elicit(&self, _params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        Box::pin(async { Ok(ElicitResult::new(ElicitAction::Accept)) })
    }
}

/// The client options for `scenario`. Only the elicitation scenarios get an input handler: with
/// one, a legacy HTTP client opens the GET stream right after `initialize` (servers may send their
/// requests there), and the `sse-retry` mock counts any GET as the reconnection it measures.
fn options(scenario: &str) -> ClientOptions {
    let mut o = ClientOptions::default();
    o.info.name = "mcpcore-conformance-client".into();
    if scenario.starts_with("elicitation") || scenario.starts_with("sep-2322") {
        o.input = Some(Arc::new(AcceptDefaults));
    }
    if scenario == "legacy-extensions" {
        o.capabilities.extensions = Some(object(crate::conformance_server::LEGACY_CLIENT_EXTENSIONS));
    }
    // The Tasks extension (SEP-2663) is a 2026-07-28 extension: its client scenarios carry no
    // base revision, so the suite names its default (2025-11-25), while the mock serves
    // `server/discover` and the suite's own client declares the extension per request. Pinning
    // 2025-11-25 there would test the 2025-11-25 tasks utility instead.
    if !scenario.starts_with("tasks-client") {
        o.version =
            std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok().and_then(|v| ProtocolVersion::parse(&v));
    }
    o
}

/// A JSON object written in the source.
fn object(text: &str) -> Map<String, Value> {
    serde_json::from_str(text).expect("a JSON object")
}

fn context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null)
}

/// Plausible arguments for a tool: a value of the declared type for each property.
fn sample_arguments(tool: &Tool) -> Value {
    let mut args = Map::new();
    if let Some(props) = tool.input_schema.get("properties").and_then(Value::as_object) {
        for (name, schema) in props {
            let v = match schema.get("type").and_then(Value::as_str) {
                Some("string") => json!("us-west-1"),
                Some("integer") => json!(1),
                Some("number") => json!(1.5),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => continue,
            };
            args.insert(name.clone(), v);
        }
    }
    Value::Object(args)
}

async fn run(scenario: &str, url: &str) -> mcpcore::Result<()> {
    let http = HttpOptions {
        auth: crate::conformance_auth::oauth_for(scenario, &context()),
        ..HttpOptions::default()
    };
    let client = Client::connect_http(url, http, options(scenario)).await?;
    let outcome = scenario_body(&client, scenario).await;
    client.close().await;
    outcome
}

async fn scenario_body(client: &Client, scenario: &str) -> mcpcore::Result<()> {
    match scenario {
        "initialize" => Ok(()),
        "tools_call" => {
            client.list_tools().await?;
            let r = client.call_tool("add_numbers", json!({"a": 2, "b": 3})).await?;
            if r.is_error() {
                return Err(Error::tool(format!("add_numbers failed: {:?}", r.first_text())));
            }
            Ok(())
        }
        // The legacy-extensions fixture (conformance docs/sdk-integration.md, spec PR #3364):
        // the server's extension settings, as this client read them from `initialize`, go back
        // to the server's echo tool.
        "legacy-extensions" => {
            let extensions = client.negotiated().capabilities.extensions.unwrap_or_default();
            client
                .call_tool("test_legacy_extension_capabilities", json!({ "extensions": extensions }))
                .await?;
            Ok(())
        }
        "sse-retry" => {
            client.call_tool("test_reconnection", json!({})).await?;
            Ok(())
        }
        "http-custom-headers" => {
            client.list_tools().await?;
            let ctx = context();
            let calls = ctx.get("toolCalls").and_then(Value::as_array).cloned().unwrap_or_default();
            for call in calls {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                let args = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                client.call_tool(name, args).await?;
            }
            Ok(())
        }
        "http-invalid-tool-headers" => {
            // Tools with invalid x-mcp-header annotations never reach the list (spec 2026-07-28 basic/transports/streamable-http, value encoding).
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, sample_arguments(&tool)).await?;
            }
            Ok(())
        }
        "http-standard-headers" => exercise_everything(client).await,
        "elicitation-sep1034-client-defaults" => {
            client.list_tools().await?;
            client.call_tool("test_client_elicitation_defaults", json!({})).await?;
            Ok(())
        }
        "sep-2322-client-request-state" => {
            // MRTR: the elicitation is answered by the handler and the call retried with a new
            // id and the echoed requestState; the unrelated call carries neither.
            for tool in [
                "test_mrtr_echo_state",
                "test_mrtr_unrelated",
                "test_mrtr_no_state",
                "test_mrtr_no_result_type",
            ] {
                client.call_tool(tool, json!({})).await?;
            }
            Ok(())
        }
        "json-schema-2020-12-preservation" => {
            let tools = client.list_tools().await?;
            let tool = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or_else(|| Error::protocol("json_schema_2020_12_tool is not listed"))?;
            client.call_tool("json_schema_echo", json!({ "schema": tool.input_schema })).await?;
            Ok(())
        }
        // Skills (SEP-2640): a host lists the skills and fetches nothing more until one is
        // loaded; loading reads SKILL.md and verifies it (size, digest, frontmatter) before it
        // reads any supporting file, so a tampered SKILL.md stops the load with an error.
        "sep-2640-client-no-prefetch" => {
            if client.skills_support().is_some() {
                client.list_skills().await?;
            }
            Ok(())
        }
        s if s.starts_with("sep-2640-client-") => {
            for skill in client.list_skills().await? {
                client.load_skill(&skill).await?;
                for file in skill.resources.files().unwrap_or_default() {
                    if file.uri != skill.uri {
                        client.read_skill_file(&skill, &file.uri).await?;
                    }
                }
            }
            Ok(())
        }
        // The Tasks extension (SEP-2663), declared up front rather than after a -32021: each tool
        // is called as a task, a server-directed task (`resultType: "task"`) is followed with
        // tasks/get at its pollIntervalMs until it ends, and its result read.
        "tasks-client-lifecycle" => tasks_lifecycle(client).await,
        s if s.starts_with("tasks-client") => {
            for tool in client.list_tools().await? {
                let task = client
                    .call_tool_as_task(&tool.name, sample_arguments(&tool), TaskOptions::default())
                    .await?;
                task.result().await?;
            }
            Ok(())
        }
        // Authorization: the first request gets a 401 and runs the flow; `tools/call` is where
        // step-up (403 insufficient_scope) and authorization-server migration show.
        s if s.starts_with("auth/") => {
            for tool in client.list_tools().await? {
                client.call_tool(&tool.name, sample_arguments(&tool)).await?;
            }
            Ok(())
        }
        _ => {
            client.list_tools().await?;
            Ok(())
        }
    }
}

/// The script of `tasks-client-lifecycle` (conformance PR #387, SEP-2663): a task run to its
/// end, a plain result, a failed task surfaced without polling it again, a running task
/// cancelled with tasks/cancel (never notifications/cancelled), and a task result for `ping`
/// refused as invalid.
async fn tasks_lifecycle(client: &Client) -> mcpcore::Result<()> {
    client.list_tools().await?;
    let task = |name: &'static str| client.call_tool_as_task(name, json!({}), TaskOptions::default());
    task("quick_task").await?.result().await?;
    task("sync_echo").await?.result().await?;
    match task("failing_task").await?.result().await {
        Err(e) => eprintln!("conformance-client: failing_task failed as it should: {}", e.message()),
        Ok(r) => return Err(Error::protocol(format!("failing_task did not fail: {r:?}"))),
    }
    let running = task("cancel_task").await?;
    // One poll at the server's pace, then the cancellation and its confirmation.
    let pace = running.created().and_then(|i| i.poll_interval).unwrap_or_default();
    tokio::time::sleep(pace.min(std::time::Duration::from_secs(5))).await;
    running.status().await?;
    running.cancel().await?;
    let after = running.status().await?;
    eprintln!("conformance-client: cancel_task is {:?} after tasks/cancel", after.status);
    match client.request("ping", json!({})).await {
        Err(e) => eprintln!("conformance-client: a task result for ping refused: {}", e.message()),
        Ok(v) => return Err(Error::protocol(format!("a task result for ping was taken: {v}"))),
    }
    Ok(())
}

/// Lists and uses every tool, resource and prompt (one request of each method).
async fn exercise_everything(client: &Client) -> mcpcore::Result<()> {
    for tool in client.list_tools().await? {
        client.call_tool(&tool.name, sample_arguments(&tool)).await?;
    }
    for r in client.list_resources().await? {
        client.read_resource(&r.uri).await?;
    }
    for p in client.list_prompts().await? {
        client.get_prompt(&p.name, None).await?;
    }
    Ok(())
}
