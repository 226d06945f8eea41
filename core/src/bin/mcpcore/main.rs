#![allow(clippy::disallowed_methods)] // a binary: it may read the clock and sleep
//! `mcpcore`: talk to any MCP server from the command line, over stdio or HTTP (list and call
//! its tools, read its resources, get its prompts), serve a config or a stdio server again
//! (`serve`, `gateway`), and the conformance fixture server and client the official suite
//! drives. `mcpcore --help` and `mcpcore SUBCOMMAND --help` say the rest.
//!
//! Exit codes: 0 ok, 1 failure (a message on stderr, with the JSON-RPC code and data or the
//! HTTP status), 2 a tool result with `isError: true`, 130 / 143 interrupted by SIGINT / SIGTERM
//! (the call in flight is cancelled and a stdio server stopped in order).

mod args;
mod commands;
mod conformance_auth;
mod conformance_catalog;
mod conformance_client;
mod conformance_input;
mod conformance_server;
mod conformance_skills;
mod conformance_tasks;
mod connect;
mod doctor;
mod events_cmd;
mod gateway;
mod interactive;
mod output;
mod serve;
mod signals;
mod task_call;

use clap::{CommandFactory, Parser, Subcommand};
use commands::Listing;
use std::process::ExitCode;

/// mimalloc on x86_64 Linux with glibc: a gateway's forwarded call allocates about a hundred times, and
/// with glibc's allocator malloc and free were a third of its instructions (bench/NOTES.md, "The
/// CLI's allocator").
#[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const AFTER_HELP: &str = "\
Examples:
  mcpcore tools -- npx -y @modelcontextprotocol/server-everything
  mcpcore call add a=2 b=40 http://127.0.0.1:8080/mcp
  mcpcore call echo '{\"text\": \"hi\"}' --lineage legacy -- ./echo_server
  mcpcore serve --listen 127.0.0.1:8080 -- python my_server.py
  mcpcore events stream tick -- ./echo_server --events
  mcpcore doctor https://mcp.example.com/mcp
  mcpcore completions bash > /etc/bash_completion.d/mcpcore

Output is text on a terminal and JSON otherwise (--json / --human choose).
Exit codes: 0 ok, 1 failure, 2 the tool returned isError, 130/143 interrupted by SIGINT/SIGTERM.";

/// Talk to MCP servers, serve them, and gateway them: both protocol lineages, stdio and HTTP.
#[derive(Parser)]
#[command(name = "mcpcore", version, after_help = AFTER_HELP, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the tools of a server.
    Tools(commands::ListArgs),
    /// Call a tool and print its result (a progress bar while it reports progress; a tool that
    /// runs only as a task is run as one, its status shown).
    Call(commands::CallArgs),
    /// List the resources and resource templates of a server.
    Resources(commands::ListArgs),
    /// Read a resource.
    Read(commands::ReadArgs),
    /// List the prompts of a server.
    Prompts(commands::ListArgs),
    /// Get a prompt, rendered with its arguments.
    Get(commands::GetArgs),
    /// Check that a server answers.
    Ping(commands::ListArgs),
    /// Examine a server: revisions and transports, capabilities, tool schemas, TLS and
    /// authorization metadata, DNS-rebinding protection, latency; each finding with its remedy
    /// (exit 1 when a check failed).
    Doctor(doctor::DoctorArgs),
    /// The event types of a server (MCP Events): list them, poll one, or stream one.
    Events {
        /// What to do.
        #[command(subcommand)]
        command: events_cmd::EventsCommand,
    },
    /// Serve a config, or a stdio server command, as one server on stdio or HTTP.
    Serve(serve::ServeArgs),
    /// Serve every server of an mcpServers config as one (stdio, or HTTP at /mcp).
    #[command(long_about = gateway::ABOUT)]
    Gateway(gateway::GatewayArgs),
    /// Print a completion script for a shell.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// The official conformance suite's fixture server (endpoint /mcp).
    ConformanceServer(conformance_server::Args),
    /// The official conformance suite's client (scenario in MCP_CONFORMANCE_SCENARIO).
    ConformanceClient {
        /// The server's URL (the last argument).
        #[arg(required = true, num_args = 1.., allow_hyphen_values = true, value_name = "URL")]
        args: Vec<String>,
    },
}

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

/// Prints a mistake in the command line.
pub(crate) fn usage_error(message: &str) {
    eprintln!("mcpcore: {message}\n(see mcpcore --help)");
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // --help and --version print and succeed; a usage mistake is exit 1 (2 is isError).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    if let Command::Completions { shell } = cli.command {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "mcpcore", &mut script);
        // A closed pipe (`| head`) is not a failure worth a panic.
        let _ = std::io::Write::write_all(&mut std::io::stdout(), &script);
        return ExitCode::SUCCESS;
    }
    // Serving stdio (one client, frames in order), every task runs on one thread: a multi-thread
    // runtime handed each forwarded call between its workers, about 18 thread wake-ups (futex)
    // a call through the gateway instead of none (bench/NOTES.md, "The gateway on one thread").
    // `--threads` chooses; the other commands are one-shot clients on two workers.
    let threads = match &cli.command {
        Command::Gateway(a) => a.threads(),
        Command::Serve(a) => a.threads(),
        _ => 2,
    };
    let rt = if threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_all().build()
    }
    .expect("tokio runtime");
    let code = rt.block_on(async move {
        match cli.command {
            Command::Tools(a) => commands::list(Listing::Tools, a).await,
            Command::Resources(a) => commands::list(Listing::Resources, a).await,
            Command::Prompts(a) => commands::list(Listing::Prompts, a).await,
            Command::Ping(a) => commands::list(Listing::Ping, a).await,
            Command::Call(a) => commands::call(a).await,
            Command::Read(a) => commands::read(a).await,
            Command::Get(a) => commands::get(a).await,
            Command::Doctor(a) => doctor::main(a).await,
            Command::Events { command } => events_cmd::main(command).await,
            Command::Serve(a) => serve::main(a).await,
            Command::Gateway(a) => gateway::main(a).await,
            Command::ConformanceServer(a) => conformance_server::main(a).await,
            Command::ConformanceClient { args } => {
                conformance_client::main(args.last().cloned().unwrap_or_default()).await
            }
            Command::Completions { .. } => unreachable!("handled above"),
        }
    });
    // A terminal prompt may still wait on stdin (Ctrl-C during a question): do not wait for it.
    rt.shutdown_background();
    code
}
