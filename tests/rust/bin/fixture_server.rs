//! Test fixture server: the shared fixture tools (echo, add, fail, slow, progress, panic, exit)
//! with switches for the fallback paths, over stdio or HTTP.
//!
//! ```text
//! fixture_server [--versions V1,V2] [--page-size N] [--exit-unless-initialize] [--reject-first-call]
//!                [--shutdown-grace-ms MS] [--http 127.0.0.1:PORT] [--response-mode auto|json|sse]
//!                [--tasks] [--auth-jwks URL --auth-issuer ISS --auth-audience AUD]
//! ```
//! `--tasks` adds the task tools of `mcpcore_tests::http::add_task_tools` (Tasks extension).
//! `--reject-first-call` answers the first modern `tools/call` with `-32022` (as a server
//! whose supported versions changed mid-session would), to exercise the client's retry.
//!
//! `--http ADDR` (port 0 allowed) serves the same tools over HTTP instead of stdio: Streamable
//! HTTP on `/mcp` (both lineages) and the 2024-11-05 HTTP+SSE transport on `/sse` when that
//! version is served. Once bound it prints one line, `listening on http://ADDR/mcp`, and serves
//! until SIGTERM or SIGINT, then shuts down gracefully (exit code 0). `--response-mode` picks
//! JSON or SSE answers (default `auto`). The other switches work on HTTP too:
//! `--shutdown-grace-ms` bounds how long shutdown waits for in-flight requests;
//! `--reject-first-call` answers the first modern `tools/call` with an in-band `-32022`;
//! `--exit-unless-initialize` exits with code 3 unless the first HTTP request is an
//! `initialize` POST (a front listener checks it, then relays bytes to the HTTP server).
//! `--auth-*` (with `--http`) makes it a resource server: every request needs a bearer JWT
//! signed by a key of the JWKS at URL, issued by ISS for the audience AUD (so each task
//! belongs to the token's subject).

use mcpcore::engine::ServerConfig;
use mcpcore::http::server::{HostPolicy, HttpServerConfig, ResponseMode};
use mcpcore::jsonrpc::{self, Inbound, Message};
use mcpcore::protocol::ProtocolVersion;
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::server::Server;
use mcpcore::transport::{framing, Channel, TransportEvent};
use mcpcore_tests::http::{add_task_tools, fixture_registry};
use serde_json::json;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut config = ServerConfig::new("fixture", "1.0.0");
    let mut strict = false;
    let mut reject_first_call = false;
    let mut grace = None;
    let mut http_addr: Option<SocketAddr> = None;
    let mut response_mode = None;
    let mut tasks = false;
    let (mut jwks, mut issuer, mut audience) = (None, None, None);
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
            "--tasks" => tasks = true,
            "--auth-jwks" => jwks = it.next().cloned(),
            "--auth-issuer" => issuer = it.next().cloned(),
            "--auth-audience" => audience = it.next().cloned(),
            "--http" => http_addr = Some(it.next().unwrap().parse().expect("--http wants IP:PORT")),
            "--response-mode" => {
                response_mode = Some(match it.next().map(String::as_str) {
                    Some("auto") => ResponseMode::Auto,
                    Some("json") => ResponseMode::Json,
                    Some("sse") => ResponseMode::Sse,
                    other => panic!("--response-mode wants auto, json or sse, got {other:?}"),
                })
            }
            other => panic!("unknown flag {other}"),
        }
    }
    if let Some(addr) = http_addr {
        let mut http =
            HttpServerConfig { response_mode: response_mode.unwrap_or_default(), ..Default::default() };
        if let Some(g) = grace {
            http.shutdown_grace = g;
        }
        if let (Some(jwks), Some(issuer), Some(audience)) = (jwks, issuer, audience) {
            use mcpcore::auth::server::{AuthConfig, JwtConfig, JwtVerifier};
            let verifier = JwtVerifier::new(JwtConfig::new(jwks, issuer.clone(), audience.clone()));
            http.auth = Some(AuthConfig::new(Arc::new(verifier), audience, [issuer]));
        }
        let tools =
            if reject_first_call { reject_first_modern_call(fixture_registry()) } else { fixture_registry() };
        if tasks {
            add_task_tools(&tools);
        }
        return serve_http(Server::new(config, Arc::new(tools)), addr, http, strict).await;
    }
    assert!(response_mode.is_none(), "--response-mode needs --http");
    let tools = fixture_registry();
    if tasks {
        add_task_tools(&tools);
    }
    let mut server = Server::new(config, Arc::new(tools));
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
    server
        .serve_channel(Channel { tx: out_tx.into(), rx: in_rx, flushed: Some(flushed), in_place: None })
        .await
        .unwrap();
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
    server
        .serve_channel(Channel { tx: out_tx.into(), rx: in_rx, flushed: Some(flushed), in_place: None })
        .await
        .unwrap();
}

// ----- HTTP -----------------------------------------------------------------------------------

/// Serves over HTTP until SIGTERM or SIGINT, then shuts down gracefully.
async fn serve_http(server: Server, addr: SocketAddr, mut http: HttpServerConfig, strict: bool) {
    let path = http.path.clone();
    let (serving, public) = if strict {
        // A front listener on `addr` checks the first request, then relays bytes to the server,
        // which therefore accepts the Host and Origin values of the front's address.
        let front = TcpListener::bind(addr).await.unwrap_or_else(|e| panic!("cannot listen on {addr}: {e}"));
        let public = front.local_addr().unwrap();
        http.hosts = loopback_hosts(public);
        let serving = server.serve_http(SocketAddr::new(public.ip(), 0), http).await.unwrap();
        tokio::spawn(exit_unless_initialize(front, serving.local_addr()));
        (serving, public)
    } else {
        let serving = server.serve_http(addr, http).await.unwrap();
        let public = serving.local_addr();
        (serving, public)
    };
    println!("listening on http://{public}{path}");
    serving.shutdown_on_signal().await.unwrap();
}

/// What `HostPolicy::Auto` accepts for a server bound to `addr`.
fn loopback_hosts(addr: SocketAddr) -> HostPolicy {
    if addr.ip().is_loopback() {
        HostPolicy::loopback(addr.port())
    } else {
        HostPolicy::Any
    }
}

/// Relays connections from `front` to `inner`; the first request must be an `initialize` POST,
/// else the process exits with code 3 (like some legacy servers do on stdio).
async fn exit_unless_initialize(front: TcpListener, inner: SocketAddr) {
    let mut first = true;
    loop {
        let Ok((mut sock, _)) = front.accept().await else { continue };
        let check = std::mem::replace(&mut first, false);
        tokio::spawn(async move {
            let Ok(mut upstream) = TcpStream::connect(inner).await else { return };
            if check {
                let request = read_request(&mut sock).await;
                if !request.as_deref().is_some_and(is_initialize_post) {
                    eprintln!("fixture_server: first HTTP request was not an initialize POST; exiting");
                    std::process::exit(3);
                }
                if upstream.write_all(&request.unwrap()).await.is_err() {
                    return;
                }
            }
            let _ = tokio::io::copy_bidirectional(&mut sock, &mut upstream).await;
        });
    }
}

fn header_end(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Reads one whole HTTP/1.1 request (head plus a `Content-Length` body, at most 1 MiB).
async fn read_request(sock: &mut TcpStream) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = header_end(&buf) {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if buf.len() >= end + len {
                return Some(buf);
            }
        }
        if buf.len() > 1 << 20 {
            return None;
        }
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

fn is_initialize_post(request: &[u8]) -> bool {
    let Some(end) = header_end(request) else { return false };
    let body = jsonrpc::parse(&request[end..]);
    request.starts_with(b"POST ")
        && matches!(body, Ok(Inbound::Single(Message::Request(r))) if r.method == "initialize")
}

/// Wraps every tool so that the first modern call is answered with `-32022`.
fn reject_first_modern_call(tools: ToolRegistry) -> ToolRegistry {
    let out = ToolRegistry::new();
    let rejected = Arc::new(AtomicBool::new(false));
    for name in tools.names() {
        let registered = tools.get(&name).unwrap();
        let rejected = rejected.clone();
        let handler = move |a: Arguments, c: ToolContext| {
            let registered = registered.clone();
            let rejected = rejected.clone();
            async move {
                let version = c.protocol_version();
                if version.is_some_and(|v| v.is_modern()) && !rejected.swap(true, Ordering::SeqCst) {
                    let err = mcpcore::ErrorData::new(
                        mcpcore::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
                        "Unsupported protocol version",
                    )
                    .with_data(json!({
                        "supported": ["2026-07-28", "2025-11-25"],
                        "requested": version.map(|v| v.as_str()),
                    }));
                    return Err(mcpcore::Error::rpc(err));
                }
                registered.invoke(a, c).await
            }
        };
        out.register(tools.get(&name).unwrap().tool().clone(), handler).unwrap();
    }
    out
}
