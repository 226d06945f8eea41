//! The example contract's echo server: tools `echo` and `add`, on stdio (default).
//!
//! ```text
//! echo_server                       # stdio, both lineages
//! echo_server --http 127.0.0.1:PORT # HTTP: both lineages on /mcp, 2024-11-05 SSE on /sse
//! ```
//! On HTTP it prints `listening on http://ADDR/mcp` once bound and stops cleanly on Ctrl-C.
//!
//! It runs on tokio's multi-thread runtime (`#[tokio::main]`, one worker per core), the setup
//! to copy for production: handlers of different connections and calls run in parallel, so one
//! slow handler does not stall the others. Handlers that block (file or database I/O through
//! a blocking API, heavy computation) still belong in `tokio::task::spawn_blocking`: a blocked
//! worker serves nobody else.

use mcpcore::prelude::*;
use std::process::ExitCode;

/// Returns the text unchanged.
#[tool]
async fn echo(
    /** The text to return. */
    text: String,
) -> String {
    text
}

/// The result of `add`.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

/// Adds two numbers.
#[tool]
async fn add(
    /** The first addend. */
    a: f64,
    /** The second addend. */
    b: f64,
) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

async fn serve_http(server: Server, addr: &str) -> ExitCode {
    let Ok(addr) = addr.parse() else {
        eprintln!("echo_server: --http needs IP:PORT, e.g. 127.0.0.1:8080, not {addr:?}");
        return ExitCode::from(2);
    };
    let serving = match server.serve_http(addr, HttpServerConfig::default()).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(1);
        }
    };
    println!("listening on {}", serving.url());
    match serving.shutdown_on_signal().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("echo_server: {e}");
            ExitCode::from(1)
        }
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = args.iter().position(|a| a == "--http").map(|i| args.get(i + 1).cloned().unwrap_or_default());
    let server = match Server::builder("mcpcore-echo", env!("CARGO_PKG_VERSION")).tool(echo).tool(add).build()
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(addr) = http {
        return serve_http(server, &addr).await;
    }
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("echo_server: {e}");
            ExitCode::from(1)
        }
    }
}
