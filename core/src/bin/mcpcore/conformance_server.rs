//! `mcpcore conformance-server --listen 127.0.0.1:PORT` (or `--stdio`): the fixture the official conformance
//! suite drives in server mode (tool names and outputs from the suite's reference fixture; see
//! tests/conformance/NOTES.md §6). Both lineages on `/mcp`. For several instances behind one
//! load balancer: `--store redis://HOST:PORT[/DB]` (legacy sessions in Redis; needs the shared
//! `requestState` keys in `MCPCORE_STATE_KEY`) and `--allowed-host NAME[:PORT]` (repeatable:
//! the public host the proxy forwards, for the DNS-rebinding guard). `--limit NAME=VALUE`
//! (repeatable) sets one of the server's limits (`mcpcore::http::server::limit_options`).
//! Input tools (sampling, elicitation, roots; MRTR) are in `conformance_input.rs`; resources,
//! prompts and the list-change triggers in `conformance_catalog.rs`; the Tasks extension's
//! tools in `conformance_tasks.rs`.

use super::conformance_catalog::PNG;
use mcpcore::engine::ServerConfig;
use mcpcore::protocol::logging::LoggingLevel;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use mcpcore::store::ScaleOut;
use serde_json::{json, Value};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// A tiny WAV file.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

fn result(v: Value) -> mcpcore::Result<CallToolResult> {
    serde_json::from_value(v).map_err(|e| mcpcore::Error::tool(format!("fixture result: {e}")))
}

fn no_args(name: &str, description: &str) -> Tool {
    Tool::new(name, description, json!({"type": "object", "properties": {}}))
}

/// Registers a tool whose result is fixed content.
fn fixed(tools: &ToolRegistry, name: &str, description: &str, content: Value) -> mcpcore::Result<()> {
    tools.register(no_args(name, description), move |_: Arguments, _: ToolContext| {
        let content = content.clone();
        async move { result(content) }
    })
}

fn registry() -> mcpcore::Result<ToolRegistry> {
    let tools = ToolRegistry::new();
    fixed(
        &tools,
        "test_simple_text",
        "Returns a simple text response.",
        json!({"content": [{"type": "text", "text": "This is a simple text response for testing."}]}),
    )?;
    fixed(
        &tools,
        "test_image_content",
        "Returns a PNG image.",
        json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}),
    )?;
    fixed(
        &tools,
        "test_audio_content",
        "Returns a WAV clip.",
        json!({"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}),
    )?;
    fixed(
        &tools,
        "test_embedded_resource",
        "Returns an embedded text resource.",
        json!({"content": [{"type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content."}}]}),
    )?;
    fixed(
        &tools,
        "test_multiple_content_types",
        "Returns text, an image and an embedded resource.",
        json!({"content": [
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}]}),
    )?;
    fixed(
        &tools,
        "test_error_handling",
        "Always fails with a tool error.",
        json!({"isError": true, "content": [{"type": "text",
            "text": "This tool intentionally returns an error for testing"}]}),
    )?;
    tools.register(
        no_args("test_tool_with_progress", "Reports progress 0, 50, 100 of 100, then answers."),
        |_: Arguments, ctx: ToolContext| async move {
            for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.progress(p, Some(100.0), None);
            }
            Ok(CallToolResult::text("Progress test completed"))
        },
    )?;
    tools.register(
        Tool::new(
            "test_header_params",
            "Echoes arguments that travel as Mcp-Param-* headers on 2026-07-28 HTTP.",
            json!({"type": "object", "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "priority": {"type": "integer", "x-mcp-header": "Priority"},
                "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
                "query": {"type": "string"}}}),
        ),
        |args: Arguments, _: ToolContext| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
    )?;
    tools.register(
        no_args("test_tool_with_logging", "Sends three info log messages, then answers."),
        |_: Arguments, ctx: ToolContext| async move {
            let steps = ["Tool execution started", "Tool processing data", "Tool execution completed"];
            for (i, text) in steps.into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                ctx.log(LoggingLevel::Info, Some("conformance"), json!(text));
            }
            Ok(CallToolResult::text("Logging test completed"))
        },
    )?;
    tools.register(
        no_args("test_logging_tool", "Logs at info (sent only when the request asked for logs)."),
        |_: Arguments, ctx: ToolContext| async move {
            ctx.log(LoggingLevel::Info, Some("conformance"), json!("a log message"));
            Ok(CallToolResult::text("logged"))
        },
    )?;
    let schema_2020_12 = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"}, "email": {"type": "string"}},
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]}, "else": {"required": ["email"]},
        "additionalProperties": false});
    tools.register(
        Tool::new("json_schema_2020_12_tool", "Declares a JSON Schema 2020-12 input schema.", schema_2020_12),
        |args: Arguments, _: ToolContext| async move { Ok(CallToolResult::text(Value::Object(args).to_string())) },
    )?;
    tools.register(
        Tool::new(
            "echo",
            "Echoes `text` (optional), so a call with no arguments succeeds.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}}),
        ),
        |args: Arguments, _: ToolContext| async move {
            Ok(CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or("(nothing)")))
        },
    )?;
    register_pending(&tools)?;
    super::conformance_input::register(&tools)?;
    super::conformance_tasks::register(&tools)?;
    Ok(tools)
}

/// Tools of scenarios still in review in the conformance repository (issue 49):
/// `test_tool_slow` / `test_tool_fast` (PR #436, replaced by #450: the `cancellation` and
/// `progress-notifications` scenarios; #438's `http-stream-cancellation` uses them too) and the
/// SEP-2106 tools of PR #308 (`sep-2106-structured-content`: a non-object `outputSchema` and
/// `structuredContent`, which 2026-07-28 allows: schema.ts `CallToolResult.structuredContent`
/// "can be any JSON value").
fn register_pending(tools: &ToolRegistry) -> mcpcore::Result<()> {
    tools.register(
        Tool::new(
            "test_tool_slow",
            "Sleeps for durationMs (default 5000, at most 60000) before returning; reports progress every \
             500 ms when the request carries a progress token. Used for cancellation testing.",
            json!({"type": "object", "properties": {"durationMs": {"type": "number", "minimum": 0}}}),
        ),
        |args: Arguments, ctx: ToolContext| async move {
            let ms =
                args.get("durationMs").and_then(Value::as_f64).unwrap_or(5000.0).clamp(0.0, 60_000.0) as u64;
            let (start, step) = (tokio::time::Instant::now(), Duration::from_millis(500));
            let end = start + Duration::from_millis(ms);
            // Dropped (and so stopped) when the call is cancelled.
            while tokio::time::Instant::now() < end {
                ctx.progress(start.elapsed().as_millis() as f64, Some(ms as f64), None);
                tokio::time::sleep_until(end.min(tokio::time::Instant::now() + step)).await;
            }
            Ok(CallToolResult::text(format!("Slept for {ms}ms")))
        },
    )?;
    tools.register(
        no_args("test_tool_fast", "Returns immediately. Used to check that the server still serves."),
        |_: Arguments, _: ToolContext| async move { Ok(CallToolResult::text("Fast response")) },
    )?;
    let forecast = json!([
        {"hour": "09:00", "temp": 68, "conditions": "sunny"},
        {"hour": "10:00", "temp": 72, "conditions": "partly cloudy"},
        {"hour": "11:00", "temp": 75, "conditions": "cloudy"}]);
    let mut array_tool =
        no_args("sep_2106_array_output_tool", "Returns an hourly forecast: an array as structuredContent.");
    array_tool.output_schema = Some(json!({"type": "array", "items": {"type": "object",
        "properties": {"hour": {"type": "string"}, "temp": {"type": "number"}, "conditions": {"type": "string"}},
        "required": ["hour", "temp", "conditions"]}}));
    tools.register(array_tool, move |_: Arguments, _: ToolContext| {
        let forecast = forecast.clone();
        async move { result(json!({"content": [{"type": "text", "text": forecast.to_string()}], "structuredContent": forecast})) }
    })?;
    let mut primitive_tool =
        no_args("sep_2106_primitive_output_tool", "Returns the number 42 as structuredContent.");
    primitive_tool.output_schema = Some(json!({"type": "number"}));
    tools.register(primitive_tool, |_: Arguments, _: ToolContext| async move {
        result(json!({"content": [{"type": "text", "text": "42"}], "structuredContent": 42}))
    })?;
    Ok(())
}

/// The server's map of the legacy-extensions fixture (conformance `server-legacy-extensions`,
/// docs/sdk-integration.md; spec PR #3364): settings a 2025-11-25 client must read back
/// unchanged from `initialize`. Its `null` is not a 2026-07-28 `JSONObject` value, so the map
/// is advertised only under `--legacy-extensions`.
pub(crate) const LEGACY_SERVER_EXTENSIONS: &str = r#"{
    "io.modelcontextprotocol/ui": {},
    "com.example/conformance": {"nested": {"enabled": true, "limit": 3}, "values": [null, "b", 4]},
    "com.example/empty": {}
}"#;
/// The client's map of the same fixture (`legacy-extensions`), declared by `conformance-client`.
pub(crate) const LEGACY_CLIENT_EXTENSIONS: &str = r#"{
    "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
    "com.example/conformance": {"nested": {"enabled": false, "limit": 0}, "values": ["a", 2, null]},
    "com.example/empty": {}
}"#;

/// The legacy-extensions fixture's tool: the client's extension settings as the engine read
/// them (from `initialize`, or a 2026-07-28 request's `_meta`), as JSON text.
fn register_legacy_extensions(tools: &ToolRegistry) -> mcpcore::Result<()> {
    tools.register(
        no_args(
            "test_legacy_extension_capabilities",
            "Reports the client's extension capabilities as the server read them (legacy-extensions fixture).",
        ),
        |_: Arguments, ctx: ToolContext| async move {
            let extensions = ctx.client_capabilities().and_then(|c| c.extensions.clone());
            Ok(CallToolResult::text(json!({ "extensions": extensions }).to_string()))
        },
    )
}

/// The fixture server: tools, resources, prompts and skills; with `legacy_extensions`, the
/// legacy-extensions fixture's map and tool.
fn server(scale: &ScaleOut, legacy_extensions: bool) -> mcpcore::Result<Server> {
    let tools = Arc::new(registry()?);
    let prompts = Arc::new(super::conformance_catalog::prompts()?);
    let resources = Arc::new(super::conformance_catalog::resources()?);
    super::conformance_catalog::register_triggers(&tools, &prompts, &resources, scale.has_store())?;
    let skills = super::conformance_skills::skills(resources.clone())?;
    let mut config = ServerConfig::new("mcpcore-conformance", env!("CARGO_PKG_VERSION"));
    if legacy_extensions {
        config.extensions = serde_json::from_str(LEGACY_SERVER_EXTENSIONS).expect("a JSON object");
        register_legacy_extensions(&tools)?;
    }
    // With --store: requestState keys, tasks, single-use claims and changes shared.
    let server = Server::new(config, tools).with_resources(resources).with_prompts(prompts);
    Ok(server.with_skills(skills).with_scale_out(scale))
}

/// `conformance-server (--listen IP:PORT [--store URL] [--allowed-host NAME[:PORT]]... [--limit NAME=VALUE]... | --stdio) [--legacy-extensions]`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Serve Streamable HTTP at http://IP:PORT/mcp.
    #[arg(long, visible_alias = "http", value_name = "IP:PORT", required_unless_present = "stdio")]
    listen: Option<String>,
    /// Serve on stdin/stdout instead.
    #[arg(long, conflicts_with_all = ["listen", "store", "allowed_hosts", "limits"])]
    stdio: bool,
    /// Keep legacy sessions in Redis, shared by every instance (needs MCPCORE_STATE_KEY: hex
    /// requestState keys >= 32 bytes, comma-separated, newest first, the same on every instance).
    #[arg(long, value_name = "redis://HOST:PORT[/DB]")]
    store: Option<String>,
    /// The public host a proxy forwards (Host and Origin allow-list; repeatable).
    #[arg(long = "allowed-host", value_name = "NAME[:PORT]")]
    allowed_hosts: Vec<String>,
    /// One of the server's limits (max_sessions, max_sessions_per_client, max_backlog,
    /// max_in_flight, max_tasks_per_client, peer_request_timeout_ms, header_timeout_ms, ...;
    /// repeatable).
    #[arg(long = "limit", value_name = "NAME=VALUE")]
    limits: Vec<String>,
    /// Advertise the legacy-extensions fixture's extension settings and serve its echo tool
    /// (conformance `server-legacy-extensions`, a 2025-11-25 scenario: the map holds a `null`,
    /// which a 2026-07-28 `server/discover` may not carry).
    #[arg(long)]
    legacy_extensions: bool,
    /// How a request's answer is sent: `auto` (JSON unless the handler notifies first), `json`,
    /// or `sse` (every tool call answered as an SSE stream, as the TypeScript SDK does; the
    /// pending `http-stream-cancellation` scenario reads one).
    #[arg(long, value_enum, default_value_t = ResponseModeArg::Auto, conflicts_with = "stdio")]
    response_mode: ResponseModeArg,
}

/// `--response-mode`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ResponseModeArg {
    /// JSON unless the handler sends a notification before its result.
    Auto,
    /// Always one JSON body.
    Json,
    /// Always an SSE stream for tool calls.
    Sse,
}

/// Serves the fixture until Ctrl-C.
pub(crate) async fn main(args: Args) -> ExitCode {
    let scale = match ScaleOut::from_env(args.store.as_deref(), &args.allowed_hosts) {
        Ok(s) => s,
        Err(e) => {
            crate::report(&e);
            return ExitCode::from(1);
        }
    };
    let server = match server(&scale, args.legacy_extensions) {
        Ok(s) => s,
        Err(e) => {
            crate::report(&e);
            return ExitCode::from(1);
        }
    };
    let Some(listen) = args.listen else {
        return match server.serve_stdio().await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                crate::report(&e);
                ExitCode::from(1)
            }
        };
    };
    let Ok(addr) = listen.parse() else {
        eprintln!("mcpcore: --listen needs IP:PORT, not {listen:?}");
        return ExitCode::from(1);
    };
    let (base, limits) = match mcpcore::http::server::limit_options(&args.limits) {
        Ok(l) => l,
        Err(e) => {
            crate::report(&e);
            return ExitCode::from(1);
        }
    };
    let server = server.configure(|c| limits.apply(c));
    let mut config = scale.http_config(base, Some(addr));
    config.response_mode = match args.response_mode {
        ResponseModeArg::Auto => mcpcore::http::server::ResponseMode::Auto,
        ResponseModeArg::Json => mcpcore::http::server::ResponseMode::Json,
        ResponseModeArg::Sse => mcpcore::http::server::ResponseMode::Sse,
    };
    let serving = match server.serve_http(addr, config).await {
        Ok(s) => s,
        Err(e) => {
            crate::report(&e);
            return ExitCode::from(1);
        }
    };
    println!("listening on {}", serving.url());
    match serving.shutdown_on_signal().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::report(&e);
            ExitCode::from(1)
        }
    }
}
