//! Test fixture server: the shared fixture tools (echo, add, fail, slow, progress, panic, exit)
//! with switches for the fallback paths.
//!
//! ```text
//! fixture_server [--versions V1,V2] [--page-size N] [--exit-unless-initialize] [--reject-first-call]
//!                [--shutdown-grace-ms MS]
//! ```
//! `--reject-first-call` answers the first modern `tools/call` with `-32022` (as a server
//! whose supported versions changed mid-session would), to exercise the client's retry.

use mcpcore::engine::ServerConfig;
use mcpcore::jsonrpc::{self, Inbound, Message};
use mcpcore::protocol::{CallToolResult, ProtocolVersion, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use mcpcore::transport::{framing, Channel, TransportEvent};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;
use tokio::sync::mpsc;

fn schema(props: serde_json::Value, required: &[&str]) -> serde_json::Value {
    json!({"type": "object", "properties": props, "required": required})
}

fn registry() -> ToolRegistry {
    let r = ToolRegistry::new();
    let text = || schema(json!({"text": {"type": "string"}}), &["text"]);
    r.register(
        Tool::new("echo", "Echo the text.", text()).with_title("Echo"),
        |a: Arguments, _c: ToolContext| async move {
            Ok(CallToolResult::text(a["text"].as_str().unwrap_or_default()))
        },
    )
    .unwrap();
    r.register(
        Tool::new(
            "add",
            "Add a and b.",
            schema(json!({"a": {"type": "number"}, "b": {"type": "number"}}), &["a", "b"]),
        )
        .with_output_schema(schema(json!({"sum": {"type": "number"}}), &["sum"])),
        |a: Arguments, _c: ToolContext| async move {
            Ok(CallToolResult::structured(
                json!({"sum": a["a"].as_f64().unwrap() + a["b"].as_f64().unwrap()}),
            ))
        },
    )
    .unwrap();
    r.register(Tool::new("fail", "Always fails.", text()), |a: Arguments, _c: ToolContext| async move {
        Err(mcpcore::Error::tool(format!("fail: {}", a["text"].as_str().unwrap_or_default())))
    })
    .unwrap();
    r.register(
        Tool::new("slow", "Sleeps for ms milliseconds.", schema(json!({"ms": {"type": "integer"}}), &["ms"])),
        |a: Arguments, _c: ToolContext| async move {
            tokio::time::sleep(Duration::from_millis(a["ms"].as_u64().unwrap_or(0))).await;
            Ok(CallToolResult::text("slept"))
        },
    )
    .unwrap();
    r.register(
        Tool::new("progress", "Reports n progress steps.", schema(json!({"n": {"type": "integer"}}), &["n"])),
        |a: Arguments, c: ToolContext| async move {
            let n = a["n"].as_u64().unwrap_or(0);
            for i in 1..=n {
                c.progress(i as f64, Some(n as f64), Some(&format!("step {i}")));
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Ok(CallToolResult::text(format!("{n} steps")))
        },
    )
    .unwrap();
    r.register(
        Tool::new("panic", "Panics.", schema(json!({}), &[])),
        |_a: Arguments, _c: ToolContext| async move {
            if std::env::var_os("NEVER_SET_BY_ANYONE").is_none() {
                panic!("deliberate panic in a tool");
            }
            Ok(CallToolResult::text("unreachable"))
        },
    )
    .unwrap();
    r.register(
        Tool::new(
            "exit",
            "Exits the process with code.",
            schema(json!({"code": {"type": "integer"}}), &["code"]),
        ),
        |a: Arguments, _c: ToolContext| async move {
            eprintln!("fixture_server: exiting on request");
            std::process::exit(a["code"].as_i64().unwrap_or(1) as i32)
        },
    )
    .unwrap();
    r
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut config = ServerConfig::new("fixture", "1.0.0");
    let mut strict = false;
    let mut reject_first_call = false;
    let mut grace = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--versions" => {
                config.versions = it
                    .next()
                    .unwrap()
                    .split(',')
                    .map(|v| ProtocolVersion::parse(v).expect("known version"))
                    .collect()
            }
            "--page-size" => config.page_size = it.next().unwrap().parse().unwrap(),
            "--exit-unless-initialize" => strict = true,
            "--reject-first-call" => reject_first_call = true,
            "--shutdown-grace-ms" => grace = Some(Duration::from_millis(it.next().unwrap().parse().unwrap())),
            other => panic!("unknown flag {other}"),
        }
    }
    let mut server = Server::new(config, Arc::new(registry()));
    if let Some(g) = grace {
        server = server.with_shutdown_grace(g);
    }
    if reject_first_call {
        return serve_rejecting_first_call(server).await;
    }
    if !strict {
        server.serve_stdio().await.unwrap();
        return;
    }
    // Like some legacy servers: exit unless the first message is `initialize`.
    let mut stdin = tokio::io::BufReader::new(tokio::io::stdin());
    let mut first = String::new();
    stdin.read_line(&mut first).await.unwrap();
    let frame = jsonrpc::parse(first.trim_end().as_bytes());
    let is_init = matches!(&frame, Ok(Inbound::Single(Message::Request(r))) if r.method == "initialize");
    if !is_init {
        eprintln!("fixture_server: first message was not initialize; exiting");
        std::process::exit(3);
    }
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    in_tx.send(TransportEvent::Frame(frame)).unwrap();
    tokio::spawn(async move {
        let _ = framing::pump_reader(stdin, &in_tx, 1 << 24).await;
        let _ = in_tx.send(TransportEvent::Closed("stdin closed".into()));
    });
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let flushed = tokio::spawn(async move {
        let _ = framing::pump_writer(tokio::io::stdout(), out_rx).await;
    });
    server.serve_channel(Channel { tx: out_tx, rx: in_rx, flushed: Some(flushed) }).await.unwrap();
}

async fn serve_rejecting_first_call(server: Server) {
    use mcpcore::jsonrpc::Response;
    use mcpcore::transport::OutFrame;
    let (raw_tx, mut raw_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let stdin = tokio::io::BufReader::new(tokio::io::stdin());
        let _ = framing::pump_reader(stdin, &raw_tx, 1 << 24).await;
        let _ = raw_tx.send(TransportEvent::Closed("stdin closed".into()));
    });
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let flushed = tokio::spawn(async move {
        let _ = framing::pump_writer(tokio::io::stdout(), out_rx).await;
    });
    let reject_tx = out_tx.clone();
    tokio::spawn(async move {
        let mut rejected = false;
        while let Some(event) = raw_rx.recv().await {
            if let TransportEvent::Frame(Ok(Inbound::Single(Message::Request(r)))) = &event {
                if r.method == "tools/call" && !rejected {
                    rejected = true;
                    let requested = r
                        .params
                        .as_ref()
                        .and_then(|p| p["_meta"].get("io.modelcontextprotocol/protocolVersion"))
                        .cloned();
                    let err = mcpcore::ErrorData::new(
                        mcpcore::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                        "Unsupported protocol version",
                    )
                    .with_data(json!({"supported": ["2026-07-28", "2025-11-25"], "requested": requested}));
                    let _ = reject_tx
                        .send(OutFrame::One(Message::Response(Response::error(Some(r.id.clone()), err))));
                    continue;
                }
            }
            if in_tx.send(event).is_err() {
                break;
            }
        }
    });
    server.serve_channel(Channel { tx: out_tx, rx: in_rx, flushed: Some(flushed) }).await.unwrap();
}
