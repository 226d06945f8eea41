#![allow(clippy::disallowed_methods)] // a binary: it may read the clock and sleep
//! `mcpcore`: list and call the tools of any MCP server from the command line, over stdio or
//! HTTP; also the conformance fixture server and client the official suite drives.
//!
//! ```text
//! mcpcore tools [OPTIONS] -- CMD [ARGS…]
//! mcpcore tools URL [OPTIONS]
//! mcpcore call TOOL 'JSON-ARGS' [OPTIONS] (URL | -- CMD [ARGS…])
//! mcpcore conformance-server --listen 127.0.0.1:PORT
//! mcpcore conformance-client URL
//! mcpcore gateway --config mcp.json [--listen 127.0.0.1:PORT]
//! ```
//! Results are JSON on stdout; failures are a message on stderr and exit code 1; a tool result
//! with `isError: true` exits with 2; SIGINT / SIGTERM stop the server in order and exit 130 / 143.

mod cli;
mod conformance_auth;
mod conformance_catalog;
mod conformance_client;
mod conformance_input;
mod conformance_server;
mod conformance_tasks;
mod gateway;
mod signals;

use std::process::ExitCode;

/// Prints an error with its JSON-RPC code and data, or its HTTP status.
pub(crate) fn report(e: &mcpcore::Error) {
    if let Some(a) = e.auth_error() {
        eprintln!("mcpcore: {a}");
        return;
    }
    match (e.rpc_error(), e.http_status()) {
        (Some(rpc), _) => eprintln!(
            "mcpcore: {} (JSON-RPC code {}{})",
            e.message(),
            rpc.code,
            rpc.data.as_ref().map(|d| format!(", data {d}")).unwrap_or_default()
        ),
        (None, Some(status)) => eprintln!("mcpcore: {} (HTTP {status})", e.message()),
        (None, None) => eprintln!("mcpcore: {}", e.message()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gateway = args.first().map(String::as_str) == Some("gateway");
    // `mcpcore gateway --help` is the gateway's own usage.
    let help = !gateway && args.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h");
    if args.is_empty() || help {
        println!("{}", cli::USAGE);
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("--version") {
        println!("mcpcore {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let rest = args[1..].to_vec();
    match args[0].as_str() {
        "conformance-server" => rt.block_on(conformance_server::main(rest)),
        "conformance-client" => rt.block_on(conformance_client::main(rest)),
        "gateway" => rt.block_on(gateway::main(rest)),
        _ => rt.block_on(cli::main(args)),
    }
}
