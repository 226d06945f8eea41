//! `mcpcore`: list and call the tools of any MCP server from the command line.
//!
//! ```text
//! mcpcore tools [OPTIONS] -- CMD [ARGS…]
//! mcpcore call TOOL 'JSON-ARGS' [OPTIONS] -- CMD [ARGS…]
//! ```
//! Options: `--protocol-version V`, `--lineage modern|legacy`, `--timeout SECONDS`,
//! `--server-stderr` (show the server's stderr). Results are JSON on stdout; failures are a
//! message on stderr and exit code 1; a tool result with `isError: true` exits with 2.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::{Error, ProtocolVersion};
use serde_json::{json, Value};
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage:
  mcpcore tools [OPTIONS] -- CMD [ARGS...]            list the tools of a stdio server
  mcpcore call TOOL 'JSON-ARGS' [OPTIONS] -- CMD [ARGS...]   call one tool, print the result
options:
  --protocol-version V     use exactly this revision (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)
  --lineage modern|legacy  use only this lineage
  --timeout SECONDS        per-request timeout (default 60)
  --server-stderr          copy the server's stderr to ours
exit codes: 0 ok, 1 failure, 2 the tool returned isError";

struct Cli {
    command: String,
    positional: Vec<String>,
    options: ClientOptions,
    target: StdioCommand,
}

fn parse(args: Vec<String>) -> Result<Cli, String> {
    let split =
        args.iter().position(|a| a == "--").ok_or("missing `-- CMD [ARGS...]` naming the server to run")?;
    let (mine, target) = args.split_at(split);
    let target = &target[1..];
    let (program, rest) = target.split_first().ok_or("missing the server command after `--`")?;
    let mut cmd = StdioCommand::new(program.clone(), rest.iter().cloned());
    let mut options = ClientOptions::default();
    options.info.name = "mcpcore-cli".into();
    let mut positional = Vec::new();
    let mut it = mine.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--protocol-version" => {
                let v = value(a)?;
                options.version = Some(v.parse::<ProtocolVersion>().map_err(|e| e.to_string())?);
            }
            "--lineage" => {
                options.lineage = Some(match value(a)?.as_str() {
                    "modern" => Lineage::Modern,
                    "legacy" => Lineage::Legacy,
                    other => return Err(format!("--lineage must be modern or legacy, not {other:?}")),
                })
            }
            "--timeout" => {
                let secs: f64 = value(a)?.parse().map_err(|_| "--timeout needs a number of seconds")?;
                if !(secs.is_finite() && secs > 0.0) {
                    return Err("--timeout must be positive".into());
                }
                options.request_timeout = Duration::from_secs_f64(secs);
            }
            "--server-stderr" => cmd.inherit_stderr = true,
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => positional.push(a.clone()),
        }
    }
    let command = if positional.is_empty() { String::new() } else { positional.remove(0) };
    Ok(Cli { command, positional, options, target: cmd })
}

async fn run(cli: Cli) -> Result<ExitCode, Error> {
    let (tool, args) = match (cli.command.as_str(), cli.positional.as_slice()) {
        ("tools", []) => (None, Value::Null),
        ("call", [tool]) => (Some(tool.clone()), json!({})),
        ("call", [tool, args]) => {
            let v: Value = serde_json::from_str(args)
                .map_err(|e| Error::invalid_input(format!("JSON-ARGS is not valid JSON: {e}")))?;
            if !v.is_object() {
                return Err(Error::invalid_input("JSON-ARGS must be a JSON object"));
            }
            (Some(tool.clone()), v)
        }
        _ => return Err(Error::invalid_input(USAGE)),
    };
    let client = Client::connect_stdio(cli.target, cli.options).await?;
    let negotiated = client.negotiated();
    let out = match tool {
        None => {
            let tools = client.list_tools().await?;
            json!({ "protocolVersion": negotiated.version, "serverInfo": negotiated.server_info, "tools": tools })
        }
        Some(name) => {
            let result = client.call_tool(&name, args).await?;
            let code = if result.is_error() { 2 } else { 0 };
            println!("{}", serde_json::to_string_pretty(&result).expect("serializable"));
            client.close().await;
            return Ok(ExitCode::from(code));
        }
    };
    println!("{}", serde_json::to_string_pretty(&out).expect("serializable"));
    client.close().await;
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if args.first().map(String::as_str) == Some("--version") {
        println!("mcpcore {}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    let cli = match parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mcpcore: {e}\n{USAGE}");
            return ExitCode::from(1);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    match rt.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            match e.rpc_error() {
                Some(rpc) => eprintln!(
                    "mcpcore: {} (JSON-RPC code {}{})",
                    e.message(),
                    rpc.code,
                    rpc.data.as_ref().map(|d| format!(", data {d}")).unwrap_or_default()
                ),
                None => eprintln!("mcpcore: {}", e.message()),
            }
            ExitCode::from(1)
        }
    }
}
