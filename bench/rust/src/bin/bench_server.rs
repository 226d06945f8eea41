//! The mcpcore Rust server of the scale workloads (W9 catalogue, W10 streams, W11 payloads).
//!
//! ```text
//! bench_server [--catalogue]                               # stdio
//! bench_server --http 127.0.0.1:PORT [--catalogue]         # Streamable HTTP on /mcp
//! bench_server --http 127.0.0.1:PORT --tools 60 --multi-thread   # W12
//! ```
//! Tools: `echo` (as examples/rust echo_server) and `touch` (registers one more tool, so every
//! open `subscriptions/listen` stream and legacy GET stream gets `notifications/tools/list_changed`).
//! `--catalogue` adds 1,000 tools `tool_0000`… and 10,000 resources `bench://catalogue/00000`…
//! (the same descriptors in every bench server; bench/README.md). `--tools N` adds only the first
//! N catalogue tools and no resources (W12's realistic stateless server). `--multi-thread` serves
//! on tokio's multi-thread runtime, as examples/rust echo_server does (W2, W12); the default is
//! a current-thread runtime. Limits are raised for W11's
//! 16 MiB payloads: 64 MiB frames on stdio, 64 MiB bodies on HTTP; the per-client session quota
//! is raised for W10, whose 1,000 streams all come from one address. Everything else is the
//! library's defaults.
#![allow(clippy::print_stdout)]

use mcpcore::engine::ServerConfig;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::resources::{Resource, ResourceContents};
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::resources::{ReadRequest, ResourceRegistry};
use mcpcore::server::Server;
use serde_json::json;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Sessions one client address may hold here: W10's streams all come from 127.0.0.1.
const W10_SESSIONS: usize = 100_000;

const LIMIT: usize = 64 << 20;

/// W9: tool `tool_NNNN` of the catalogue.
fn catalogue_tool(i: usize) -> Tool {
    Tool::new(
        format!("tool_{i:04}"),
        format!("Catalogue tool {i}."),
        json!({"type": "object", "properties": {
            "id": {"type": "string", "description": format!("The item of tool {i}.")},
            "count": {"type": "integer", "minimum": 0}}, "required": ["id"]}),
    )
}

fn tools(catalogue: usize) -> mcpcore::Result<Arc<ToolRegistry>> {
    let tools = Arc::new(ToolRegistry::new());
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
    let weak = Arc::downgrade(&tools);
    let touched = Arc::new(AtomicUsize::new(0));
    tools.register(
        Tool::new("touch", "Changes the tool list (W10).", json!({"type": "object"})),
        move |_args: Arguments, _ctx: ToolContext| {
            let (weak, touched) = (weak.clone(), touched.clone());
            async move {
                let n = touched.fetch_add(1, Ordering::Relaxed);
                if let Some(tools) = weak.upgrade() {
                    tools.register(
                        Tool::new(format!("touched_{n}"), "Added by touch.", json!({"type": "object"})),
                        |_a: Arguments, _c: ToolContext| async { Ok(CallToolResult::text("touched")) },
                    )?;
                }
                Ok(CallToolResult::text(format!("touched {n}")))
            }
        },
    )?;
    for i in 0..catalogue {
        tools.register(catalogue_tool(i), move |_a: Arguments, _c: ToolContext| async move {
            Ok(CallToolResult::text(format!("tool_{i:04}")))
        })?;
    }
    Ok(tools)
}

fn resources() -> mcpcore::Result<Arc<ResourceRegistry>> {
    let res = Arc::new(ResourceRegistry::new());
    for j in 0..10_000 {
        let uri = format!("bench://catalogue/{j:05}");
        let r = Resource {
            uri: uri.clone(),
            name: format!("r{j:05}"),
            title: None,
            description: None,
            mime_type: Some("text/plain".to_owned()),
            size: None,
            annotations: None,
            icons: None,
            meta: None,
        };
        let contents = ResourceContents::text(&uri, Some("text/plain".to_owned()), &r.name);
        res.add(r, move |_req: ReadRequest, _ctx: ToolContext| {
            let contents = contents.clone();
            async move { Ok(vec![contents]) }
        })?;
    }
    Ok(res)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runtime = if args.iter().any(|a| a == "--multi-thread") {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    };
    match runtime {
        Ok(rt) => rt.block_on(serve(args)),
        Err(e) => {
            eprintln!("bench_server: runtime: {e}");
            ExitCode::from(1)
        }
    }
}

async fn serve(args: Vec<String>) -> ExitCode {
    let catalogue = args.iter().any(|a| a == "--catalogue");
    let count = match args.iter().position(|a| a == "--tools") {
        Some(i) => match args.get(i + 1).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => n,
            None => {
                eprintln!("bench_server: --tools needs a count");
                return ExitCode::from(2);
            }
        },
        None if catalogue => 1000,
        None => 0,
    };
    let http = args.iter().position(|a| a == "--http").map(|i| args.get(i + 1).cloned().unwrap_or_default());
    let built = tools(count).and_then(|t| Ok((t, if catalogue { Some(resources()?) } else { None })));
    let (tools, res) = match built {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bench_server: {e}");
            return ExitCode::from(1);
        }
    };
    let mut server = Server::new(ServerConfig::new("mcpcore-bench", env!("CARGO_PKG_VERSION")), tools)
        .with_max_frame(LIMIT);
    if let Some(res) = res {
        server = server.with_resources(res);
    }
    let outcome = match http {
        None => server.serve_stdio().await,
        Some(addr) => {
            let Ok(addr) = addr.parse() else {
                eprintln!("bench_server: --http needs IP:PORT, not {addr:?}");
                return ExitCode::from(2);
            };
            // W10 opens its 1,000 streams (and one more session to trigger the change) from one
            // address, which the default per-client session quota (1,000) would refuse.
            let config = HttpServerConfig {
                max_body: LIMIT,
                max_sessions_per_client: W10_SESSIONS,
                ..HttpServerConfig::default()
            };
            match server.serve_http(addr, config).await {
                Ok(serving) => {
                    println!("listening on {}", serving.url());
                    serving.shutdown_on_signal().await
                }
                Err(e) => Err(e),
            }
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_server: {e}");
            ExitCode::from(1)
        }
    }
}
