//! The example contract's echo server: tools `echo` and `add`, on stdio (default).
//!
//! ```text
//! echo_server                       # stdio, both lineages
//! echo_server --http 127.0.0.1:PORT # Streamable HTTP (arrives with the HTTP transport)
//! ```

use mcpcore::engine::ServerConfig;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use serde_json::json;
use std::process::ExitCode;
use std::sync::Arc;

fn registry() -> mcpcore::Result<ToolRegistry> {
    let tools = ToolRegistry::new();
    tools.register(
        Tool::new(
            "echo",
            "Returns the text unchanged.",
            json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        ),
        |args: Arguments, _ctx: ToolContext| async move {
            Ok(CallToolResult::text(args["text"].as_str().unwrap_or_default()))
        },
    )?;
    tools.register(
        Tool::new(
            "add",
            "Adds two numbers.",
            json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        )
        .with_output_schema(json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]})),
        |args: Arguments, _ctx: ToolContext| async move {
            let sum = args["a"].as_f64().unwrap_or_default() + args["b"].as_f64().unwrap_or_default();
            Ok(CallToolResult::structured(json!({ "sum": sum })))
        },
    )?;
    Ok(tools)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--http") {
        let addr = args.get(i + 1).map(String::as_str).unwrap_or("");
        eprintln!("echo_server: --http {addr}: the Streamable HTTP transport is not built yet; use stdio");
        return ExitCode::from(2);
    }
    let tools = match registry() {
        Ok(t) => Arc::new(t),
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(1);
        }
    };
    let server = Server::new(ServerConfig::new("mcpcore-echo", env!("CARGO_PKG_VERSION")), tools);
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("echo_server: {e}");
            ExitCode::from(1)
        }
    }
}
