//! Benchmark peer on the official Rust SDK (rmcp 3.11.0): the echo tool served and driven by rmcp.
//!
//! ```text
//! rmcp-echo server [--catalogue]                  # stdio
//! rmcp-echo server --http 127.0.0.1:PORT [--best] [--catalogue | --tools N]
//! rmcp-echo stdio N CONC PAYLOAD_BYTES PAYLOAD_N STARTS VERSION -- CMD [ARGS...]
//! rmcp-echo http URL VERSION N CONC [PAYLOAD_BYTES PAYLOAD_N]
//! rmcp-echo unix SOCKET VERSION TEXT              # one echo call over HTTP on a Unix socket
//! ```
//! `unix` is rmcp's Unix-socket Streamable HTTP client (`transport-streamable-http-client-unix-socket`,
//! `StreamableHttpClientTransport::from_unix_socket(SOCKET, "http://localhost/mcp")`): it prints
//! `{"protocol", "echo"}` (tests/rust/unix_socket.rs runs it against mcpcore's server).
//! HTTP is Streamable HTTP on /mcp with the SDK's defaults (`StreamableHttpServerConfig::default()`:
//! stateful sessions, SSE answers, 15 s keep-alives), or with `--best` the configuration rmcp's
//! docs give for stateless JSON serving: `StreamableHttpServerConfig::default()
//! .with_legacy_session_mode(false).with_json_response(true).with_sse_keep_alive(None)`. Either way
//! the request body limit is raised to 64 MiB (W11 sends 16 MiB); so are the stdio line limit
//! (server and client) and the HTTP client's response limits. `--catalogue` adds the W9
//! catalogue: 1,000 tools `tool_0000`… and 10,000 resources `bench://catalogue/00000`…
//! (bench/README.md). The tool `touch` sends `notifications/tools/list_changed` to every open
//! `subscriptions/listen` stream and every initialized session (W10).
//! The two driver modes print one JSON line in the bench driver format (bench/README.md).

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListResourcesResult,
    PaginatedRequestParams, ProtocolVersion, Resource, SubscriptionFilter, Tool,
};
use rmcp::service::{
    NotificationContext, RequestContext, RoleClient, RoleServer, RunningService, SubscriptionContext,
};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{ServerCapabilities, ServerConfig},
    schemars, tool, tool_handler, tool_router, ClientLifecycleMode, ClientServiceExt, ServerHandler,
    ServiceExt,
};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// W10: every initialized session's peer (legacy GET streams) and the listen streams' signal.
static PEERS: Mutex<Vec<rmcp::Peer<RoleServer>>> = Mutex::new(Vec::new());
static CHANGED: OnceLock<tokio::sync::broadcast::Sender<()>> = OnceLock::new();
/// The router, built once (W9: with the 1,000 catalogue tools) and cloned per session.
static ROUTER: OnceLock<ToolRouter<Echo>> = OnceLock::new();
static RESOURCES: OnceLock<Vec<Resource>> = OnceLock::new();

fn changed() -> &'static tokio::sync::broadcast::Sender<()> {
    CHANGED.get_or_init(|| tokio::sync::broadcast::channel(16).0)
}

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

    #[tool(description = "Announces a tool-list change to every stream (W10).")]
    async fn touch(&self) -> CallToolResult {
        let _ = changed().send(());
        let peers: Vec<_> = PEERS.lock().unwrap().clone();
        let mut sent = 0;
        for p in peers {
            if p.notify_tool_list_changed().await.is_ok() {
                sent += 1;
            }
        }
        CallToolResult::success(vec![ContentBlock::text(format!("notified {sent} sessions"))])
    }
}

#[tool_handler(router = self.tool_router)] // the stored router: the fast form (the default rebuilds it per call)
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .build();
        ServerConfig::new(caps)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        Ok(ListResourcesResult::with_all_items(RESOURCES.get().cloned().unwrap_or_default()))
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut f = SubscriptionFilter::default();
        f.tools_list_changed = requested.tools_list_changed;
        Some(f)
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), rmcp::ErrorData> {
        let mut rx = changed().subscribe();
        loop {
            tokio::select! {
                _ = subscription.cancelled() => return Ok(()),
                got = rx.recv() => {
                    if got.is_err() || subscription.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        PEERS.lock().unwrap().push(context.peer);
    }
}

/// W9: tool `tool_NNNN` of the catalogue (the same descriptors in every bench server).
fn catalogue_tool(i: usize) -> Tool {
    let schema = json!({"type": "object", "properties": {
        "id": {"type": "string", "description": format!("The item of tool {i}.")},
        "count": {"type": "integer", "minimum": 0}}, "required": ["id"]});
    let Value::Object(schema) = schema else { unreachable!() };
    Tool::new(format!("tool_{i:04}"), format!("Catalogue tool {i}."), schema)
}

/// The router with the first `tools` catalogue tools (W9: 1,000; W12: 60), plus W9's 10,000
/// resources when `catalogue`.
fn build(catalogue: bool, tools: usize) {
    let mut router = Echo::tool_router();
    for i in 0..tools {
        router.add_route(ToolRoute::new_dyn(catalogue_tool(i), |ctx| {
            let name = ctx.name.to_string();
            Box::pin(async move {
                Ok(CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(name)])))
            })
        }));
    }
    if catalogue {
        let res = (0..10_000)
            .map(|j| {
                Resource::new(format!("bench://catalogue/{j:05}"), format!("r{j:05}"))
                    .with_mime_type("text/plain")
            })
            .collect();
        let _ = RESOURCES.set(res);
    }
    let _ = ROUTER.set(router);
}

fn echo() -> Echo {
    Echo { tool_router: ROUTER.get().expect("router built").clone() }
}

/// A client and the child it talks to (killed when dropped).
struct Client {
    service: RunningService<RoleClient, ()>,
    _child: tokio::process::Child,
}

impl Client {
    fn peer(&self) -> &rmcp::Peer<RoleClient> {
        self.service.peer()
    }
    async fn cancel(self) {
        let _ = self.service.cancel().await;
    }
}

/// W11 sends 16 MiB payloads: rmcp's stdio line limit (16 MiB by default, and an oversized
/// line is dropped without an answer) and its HTTP client's response limits are raised to this.
const LIMIT: usize = 64 << 20;

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
    // What TokioChildProcess does (AsyncRwTransport over the child's pipes), with the line limit
    // raised: TokioChildProcess has no setting for it.
    let mut child = tokio::process::Command::new(&cmd[0])
        .args(&cmd[1..])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let (stdout, stdin) = (child.stdout.take().ok_or("no stdout")?, child.stdin.take().ok_or("no stdin")?);
    let transport = AsyncRwTransport::<RoleClient, _, _>::new(stdout, stdin).with_max_line_length(LIMIT);
    let service =
        ().serve_with_lifecycle(transport, lifecycle(version)).await.map_err(|e| format!("connect: {e}"))?;
    Ok(Client { service, _child: child })
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
        c.cancel().await;
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
    c.cancel().await;
    Ok(json!({"protocol": protocol, "startup_ms": startup, "seq": s, "conc": cc, "payload": payload}))
}

async fn drive_http(a: &[String]) -> Result<Value, String> {
    let (url, version) = (a[0].clone(), a[1].clone());
    let n: usize = a[2].parse().map_err(|e| format!("{e}"))?;
    let inflight: usize = a[3].parse().map_err(|e| format!("{e}"))?;
    let pbytes: usize = a.get(4).map_or(Ok(0), |x| x.parse()).map_err(|e| format!("{e}"))?;
    let pn: usize = a.get(5).map_or(Ok(0), |x| x.parse()).map_err(|e| format!("{e}"))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.max_sse_event_size = LIMIT;
    config.max_json_response_size = LIMIT;
    let transport = StreamableHttpClientTransport::from_config(config);
    let c =
        ().serve_with_lifecycle(transport, lifecycle(&version)).await.map_err(|e| format!("connect: {e}"))?;
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
    Ok(json!({"protocol": protocol, "seq": s, "conc": cc, "payload": payload}))
}

async fn drive_unix(a: &[String]) -> Result<Value, String> {
    let (socket, version, text) = (a[0].as_str(), a[1].as_str(), a[2].as_str());
    let transport = StreamableHttpClientTransport::from_unix_socket(socket, "http://localhost/mcp");
    let c = ().serve_with_lifecycle(transport, lifecycle(version)).await.map_err(|e| format!("connect: {e}"))?;
    let peer = c.peer().clone();
    let protocol = peer.peer_info().map(|i| i.protocol_version.to_string()).unwrap_or_default();
    call(&peer, text).await?;
    let _ = c.cancel().await;
    Ok(json!({"protocol": protocol, "echo": text}))
}

async fn serve(a: &[String]) -> Result<(), String> {
    let catalogue = a.iter().any(|x| x == "--catalogue");
    let tools = match a.iter().position(|x| x == "--tools") {
        Some(i) => a.get(i + 1).and_then(|n| n.parse().ok()).ok_or("--tools needs a count")?,
        None if catalogue => 1000,
        None => 0,
    };
    build(catalogue, tools);
    if let Some(i) = a.iter().position(|x| x == "--http") {
        let addr = a.get(i + 1).ok_or("--http needs IP:PORT")?;
        let mut config = StreamableHttpServerConfig::default();
        if a.iter().any(|x| x == "--best") {
            config =
                config.with_legacy_session_mode(false).with_json_response(true).with_sse_keep_alive(None);
        }
        let config = config.with_max_request_body_bytes(64 << 20);
        let service =
            StreamableHttpService::new(|| Ok(echo()), Arc::new(LocalSessionManager::default()), config);
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
        let (stdin, stdout) = rmcp::transport::stdio();
        let transport = AsyncRwTransport::<RoleServer, _, _>::new(stdin, stdout).with_max_line_length(LIMIT);
        let running = echo().serve(transport).await.map_err(|e| e.to_string())?;
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
            Some("unix") if args.len() == 4 => {
                tokio::time::timeout(Duration::from_secs(60), drive_unix(&args[1..]))
                    .await
                    .map_err(|_| "timed out".to_string())?
            }
            _ => Err("usage: rmcp-echo server [--http ADDR] | stdio ... | http ... | unix SOCKET VERSION TEXT".into()),
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
