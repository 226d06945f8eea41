//! The server of the memory-after-bursts measurement (`bench/memory/run.sh`): tool `slow`
//! (`{ms, bytes}`: sleeps, then answers `bytes` of text) on Streamable HTTP at
//! `127.0.0.1:PORT/mcp`, with the library's defaults except a connection cap above the burst.
//!
//! ```text
//! burst_server [--trim]    # prints "listening on URL"; --trim: glibc malloc_trim(0) once a second while idle
//! ```
//! Built with the `mimalloc` feature of this crate it runs on mimalloc instead of the system
//! allocator; `bench/memory/run.sh` measures each variant's RSS.
#![allow(clippy::print_stdout)]

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use mcpcore::engine::ServerConfig;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[tokio::main]
async fn main() -> mcpcore::Result<()> {
    let trim = std::env::args().any(|a| a == "--trim");
    let running = Arc::new(AtomicUsize::new(0));
    let tools = Arc::new(ToolRegistry::new());
    let r = running.clone();
    tools.register(
        Tool::new(
            "slow",
            "Sleeps ms milliseconds, then answers bytes of text.",
            json!({"type": "object", "properties": {"ms": {"type": "integer"}, "bytes": {"type": "integer"}}}),
        ),
        move |args: Arguments, _ctx: ToolContext| {
            let r = r.clone();
            async move {
                r.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(args["ms"].as_u64().unwrap_or(0))).await;
                let text = "x".repeat(args["bytes"].as_u64().unwrap_or(0) as usize);
                r.fetch_sub(1, Ordering::Relaxed);
                Ok(CallToolResult::text(text))
            }
        },
    )?;
    let server = Server::new(ServerConfig::new("burst", "1"), tools);
    let config = HttpServerConfig { max_connections: 15_000, ..Default::default() };
    let serving = server.serve_http("127.0.0.1:0".parse().expect("addr"), config).await?;
    println!("listening on {}", serving.url());
    if trim {
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                if running.load(Ordering::Relaxed) == 0 {
                    // SAFETY: malloc_trim only returns free heap memory to the OS.
                    #[cfg(all(target_os = "linux", target_env = "gnu"))]
                    unsafe {
                        libc::malloc_trim(0);
                    }
                }
            }
        });
    }
    serving.shutdown_on_signal().await
}
