//! The example contract's echo client.
//!
//! ```text
//! echo_client [TEXT] -- CMD [ARGS...]   spawn CMD as a stdio server
//! echo_client URL [TEXT]                HTTP: Streamable HTTP, or 2024-11-05 SSE, detected
//! ```
//! Connects with automatic lineage negotiation, calls `echo`, prints the text and the
//! negotiated protocol version, exits non-zero on any failure.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::HttpOptions;
use mcpcore::transport::child::StdioCommand;
use serde_json::json;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mine, target) = match args.iter().position(|a| a == "--") {
        Some(i) => (args[..i].to_vec(), args[i + 1..].to_vec()),
        None => (args.clone(), Vec::new()),
    };
    let text =
        mine.iter().find(|a| !a.starts_with("http")).cloned().unwrap_or_else(|| "hello from mcpcore".into());
    let url = mine.iter().find(|a| a.starts_with("http://") || a.starts_with("https://"));
    let connected = match (url, target.split_first()) {
        (Some(url), _) => Client::connect_http(url, HttpOptions::default(), ClientOptions::default()).await,
        (None, Some((program, rest))) => {
            let cmd = StdioCommand::new(program.clone(), rest.iter().cloned());
            Client::connect_stdio(cmd, ClientOptions::default()).await
        }
        (None, None) => {
            eprintln!("usage: echo_client URL [TEXT] | echo_client [TEXT] -- CMD [ARGS...]");
            return ExitCode::from(2);
        }
    };
    let client = match connected {
        Ok(c) => c,
        Err(e) => {
            eprintln!("echo_client: connect failed: {e}");
            return ExitCode::from(1);
        }
    };
    let code = match client.call_tool("echo", json!({ "text": text })).await {
        Ok(r) if !r.is_error() => {
            println!("{}", r.first_text().unwrap_or_default());
            println!("protocol {}", client.protocol_version());
            ExitCode::SUCCESS
        }
        Ok(r) => {
            eprintln!("echo_client: the tool failed: {}", r.first_text().unwrap_or_default());
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("echo_client: echo failed: {e}");
            ExitCode::from(1)
        }
    };
    client.close().await;
    code
}
