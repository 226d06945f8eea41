//! Benchmark peer on the official Rust SDK (rmcp 3.11.0): the echo tool served and driven by rmcp.
//!
//! ```text
//! rmcp-echo server                         # stdio
//! rmcp-echo server --http 127.0.0.1:PORT   # Streamable HTTP on /mcp (SDK defaults)
//! rmcp-echo stdio N CONC PAYLOAD_BYTES PAYLOAD_N STARTS VERSION -- CMD [ARGS...]
//! rmcp-echo http URL VERSION N CONC
//! ```
//! The two driver modes print one JSON line in the bench driver format (bench/README.md).

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router, ClientLifecycleMode, ClientServiceExt, ServerHandler,
    ServiceExt,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    text: String,
}

#[derive(Debug, Clone)]
struct Echo {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    #[tool(description = "Returns the text unchanged.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }
}

#[tool_handler(router = self.tool_router)] // the stored router: the fast form (the default rebuilds it per call)
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn echo() -> Echo {
    Echo { tool_router: Echo::tool_router() }
}

type Client = RunningService<RoleClient, ()>;

fn lifecycle(version: &str) -> ClientLifecycleMode {
    if version >= "2026-07-28" {
        ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
    } else {
        ClientLifecycleMode::Initialize
    }
}

async fn call(client: &rmcp::Peer<RoleClient>, text: &str) -> Result<(), String> {
    let mut args = serde_json::Map::new();
    args.insert("text".into(), Value::String(text.to_owned()));
    let r = client
        .call_tool(CallToolRequestParams::new("echo").with_arguments(args))
        .await
        .map_err(|e| format!("call failed: {e}"))?;
    let got = r.content.first().and_then(|c| c.as_text()).map(|t| t.text.as_str());
    if r.is_error == Some(true) || got != Some(text) {
        return Err(format!("bad echo result: {:?}", r));
    }
    Ok(())
}

fn stats(mut lat: Vec<f64>, secs: f64, extra: Value) -> Value {
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let pick = |q: f64| lat.get(((lat.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(0.0);
    let mut v = json!({"n": lat.len(), "secs": secs, "p50_us": pick(0.5), "p99_us": pick(0.99)});
    if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
        m.extend(e);
    }
    v
}

async fn seq(peer: &rmcp::Peer<RoleClient>, n: usize, text: &str) -> Result<Value, String> {
    let mut lat = Vec::with_capacity(n);
    let t0 = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        call(peer, text).await?;
        lat.push(t.elapsed().as_secs_f64() * 1e6);
    }
    Ok(stats(lat, t0.elapsed().as_secs_f64(), json!({})))
}

async fn conc(peer: &rmcp::Peer<RoleClient>, n: usize, inflight: usize) -> Result<Value, String> {
    let t0 = Instant::now();
    let mut tasks = Vec::new();
    for w in 0..inflight {
        let peer = peer.clone();
        let count = n / inflight + usize::from(w < n % inflight);
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::with_capacity(count);
            for _ in 0..count {
                let t = Instant::now();
                call(&peer, "x").await?;
                lat.push(t.elapsed().as_secs_f64() * 1e6);
            }
            Ok::<_, String>(lat)
        }));
    }
    let mut all = Vec::with_capacity(n);
    for t in tasks {
        all.extend(t.await.map_err(|e| e.to_string())??);
    }
    Ok(stats(all, t0.elapsed().as_secs_f64(), json!({"inflight": inflight})))
}

async fn spawn(cmd: &[String], version: &str) -> Result<Client, String> {
    let mut c = tokio::process::Command::new(&cmd[0]);
    c.args(&cmd[1..]);
    let transport = TokioChildProcess::new(c).map_err(|e| format!("spawn: {e}"))?;
    ().serve_with_lifecycle(transport, lifecycle(version)).await.map_err(|e| format!("connect: {e}"))
}

async fn drive_stdio(a: &[String]) -> Result<Value, String> {
    let num = |i: usize| a[i].parse::<usize>().map_err(|e| format!("arg {i}: {e}"));
    let (n, inflight, pbytes, pn, starts) = (num(0)?, num(1)?, num(2)?, num(3)?, num(4)?);
    let version = a[5].clone();
    let cmd = &a[7..];
    let mut startup = Vec::new();
    for _ in 0..starts {
        let t = Instant::now();
        let c = spawn(cmd, &version).await?;
        call(c.peer(), "hello").await?;
        startup.push(t.elapsed().as_secs_f64() * 1e3);
        let _ = c.cancel().await;
    }
    let c = spawn(cmd, &version).await?;
    let peer = c.peer().clone();
    let protocol = peer.peer_info().map(|i| i.protocol_version.to_string()).unwrap_or_default();
    for _ in 0..20 {
        call(&peer, "warm-up").await?;
    }
    let s = seq(&peer, n, "x").await?;
    let cc = conc(&peer, n, inflight).await?;
    let big = "x".repeat(pbytes);
    let t = Instant::now();
    for _ in 0..pn {
        call(&peer, &big).await?;
    }
    let payload = json!({"bytes": pbytes, "n": pn, "secs": t.elapsed().as_secs_f64()});
    let _ = c.cancel().await;
    Ok(json!({"protocol": protocol, "startup_ms": startup, "seq": s, "conc": cc, "payload": payload}))
}

async fn drive_http(a: &[String]) -> Result<Value, String> {
    let (url, version) = (a[0].clone(), a[1].clone());
    let n: usize = a[2].parse().map_err(|e| format!("{e}"))?;
    let inflight: usize = a[3].parse().map_err(|e| format!("{e}"))?;
    let transport = StreamableHttpClientTransport::from_uri(url);
    let c =
        ().serve_with_lifecycle(transport, lifecycle(&version)).await.map_err(|e| format!("connect: {e}"))?;
    let peer = c.peer().clone();
    let protocol = peer.peer_info().map(|i| i.protocol_version.to_string()).unwrap_or_default();
    for _ in 0..20 {
        call(&peer, "warm-up").await?;
    }
    let s = seq(&peer, n, "x").await?;
    let cc = conc(&peer, n, inflight).await?;
    let _ = c.cancel().await;
    Ok(json!({"protocol": protocol, "seq": s, "conc": cc}))
}

async fn serve(a: &[String]) -> Result<(), String> {
    if let Some(i) = a.iter().position(|x| x == "--http") {
        let addr = a.get(i + 1).ok_or("--http needs IP:PORT")?;
        let service = StreamableHttpService::new(
            || Ok(echo()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| e.to_string())?;
        println!("listening on http://{}/mcp", listener.local_addr().map_err(|e| e.to_string())?);
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| e.to_string())
    } else {
        let running = echo().serve(rmcp::transport::stdio()).await.map_err(|e| e.to_string())?;
        running.waiting().await.map_err(|e| e.to_string())?;
        Ok(())
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let out = rt.block_on(async {
        match args.first().map(String::as_str) {
            Some("server") => serve(&args[1..]).await.map(|()| Value::Null),
            Some("stdio") => tokio::time::timeout(Duration::from_secs(600), drive_stdio(&args[1..]))
                .await
                .map_err(|_| "timed out".to_string())?,
            Some("http") => tokio::time::timeout(Duration::from_secs(600), drive_http(&args[1..]))
                .await
                .map_err(|_| "timed out".to_string())?,
            _ => Err("usage: rmcp-echo server [--http ADDR] | stdio ... | http ...".into()),
        }
    });
    match out {
        Ok(Value::Null) => {}
        Ok(v) => println!("{v}"),
        Err(e) => {
            eprintln!("rmcp-echo: {e}");
            std::process::exit(1);
        }
    }
    rt.shutdown_timeout(Duration::from_millis(100));
}
