//! `mcpcore serve`: a config (`--config mcp.json`, every server of it as one) or a stdio server
//! command (`-- CMD ARGS...`) served again on stdio or, with `--listen`, on Streamable HTTP
//! (both lineages on `/mcp`, 2024-11-05 HTTP+SSE on `/sse`) whatever the upstream speaks:
//! e.g. a stdio-only server made reachable over HTTP.

use mcpcore::gateway::GatewayConfig;
use serde_json::json;
use std::process::ExitCode;

/// `serve (--config FILE | -- CMD ARGS...) [--listen IP:PORT]`.
#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// An mcpServers config: every server of it, as one (like `mcpcore gateway`).
    #[arg(long, value_name = "FILE", conflicts_with = "command")]
    config: Option<String>,
    #[command(flatten)]
    listen: crate::gateway::Listen,
    /// A stdio server to serve again: its command and arguments, after `--` (its tools keep
    /// their names).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

impl ServeArgs {
    /// How many runtime threads to serve with (see `gateway::Listen::threads`).
    pub(crate) fn threads(&self) -> usize {
        self.listen.threads()
    }
}

/// Runs `serve`.
pub(crate) async fn main(a: ServeArgs) -> ExitCode {
    let config = match (a.config, a.command.split_first()) {
        (Some(path), _) => GatewayConfig::from_file(path),
        (None, Some((program, args))) => GatewayConfig::from_value(json!({"mcpServers": {
            "server": {"command": program, "args": args, "prefix": ""}
        }})),
        (None, None) => {
            crate::usage_error("give --config FILE or a server command after `--`");
            return ExitCode::from(1);
        }
    };
    let outcome = match config {
        Ok(c) => crate::gateway::serve(c, &a.listen, "serve").await,
        Err(e) => Err(e),
    };
    outcome.unwrap_or_else(|e| {
        crate::report(&e);
        ExitCode::from(1)
    })
}
