//! The example contract's echo server: tools `echo` and `add`, on stdio (default).
//!
//! ```text
//! echo_server                       # stdio, both lineages
//! echo_server --http 127.0.0.1:PORT # HTTP: both lineages on /mcp, 2024-11-05 SSE on /sse
//! echo_server --http 127.0.0.1:PORT --auth-jwks URL --auth-issuer ISS --auth-audience AUD [--dpop MODE [--dpop-nonce]]
//! MCP_ACCESS_TOKEN=JWT echo_server --auth-jwks URL --auth-issuer ISS --auth-audience AUD  # stdio
//! echo_server --http 127.0.0.1:PORT --store redis://HOST:PORT[/DB] [--allowed-host NAME[:PORT]]...
//! echo_server --http 127.0.0.1:PORT --tls-cert CHAIN.pem --tls-key KEY.pem   # HTTPS
//! echo_server --http 127.0.0.1:PORT --limit max_sessions_per_client=100 --limit max_in_flight=50
//! echo_server --unix /run/echo.sock   # HTTP on a Unix domain socket (mode 0600)
//! echo_server --apps                  # also `show_echo`, whose view is the app ui://echo/view.html
//! echo_server --tool-search --synthetic-tools 1000   # 1,000 more tools, found by search_tools
//! echo_server --rate-limit 5         # a rate limit per client (ready-made middleware)
//! echo_server --idempotency [--ledger FILE]   # `append(text, idempotency_key)`, once per key
//! echo_server --pass-through          # one middleware that passes every request on (bench W6)
//! echo_server --list-cache            # list pages answered from memory (ready-made middleware)
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 echo_server   # OpenTelemetry over OTLP/HTTP
//! echo_server --events [--events-heartbeat-ms N] [--events-allow-http-loopback]   # MCP Events
//! ```
//! `--events` (the Events extension, SEP-3415) declares two event types: `echoed`, one
//! occurrence `{"text"}` per `echo` call, delivered by poll (`events/poll`), push
//! (`events/stream`) and signed webhooks (`events/subscribe`); and `tick`, one `{"n"}` a second,
//! replayable from a cursor for the last 60, by poll and push. `--events-heartbeat-ms N` sets
//! how often a quiet stream hears a heartbeat (default 15 s). `--events-allow-http-loopback`
//! (development only) accepts `http` webhook callbacks on loopback addresses and subscribers
//! without a token; without it a callback must be `https` to a public address and a subscriber
//! authenticated.
//! `--synthetic-tools N` adds N generated tools (`create_invoice_for_one` … : every verb of a
//! business API on every kind of record, each answering `"<name> done"`); `--tool-search` lists
//! only `echo`, `add` and `search_tools`, which ranks the whole catalogue for a query (BM25) and
//! answers the best matches with their schemas. Every tool stays callable by name.
//! `--apps` (MCP Apps) adds the tool `show_echo(text)`, bound to the app `ui://echo/view.html`
//! (`examples/echo_view.html`, served as `text/html;profile=mcp-app`): a host that renders apps
//! shows the text in it; any other host gets the same text as the tool's result.
//! `--rate-limit N` limits each client to N requests a second (`RATE,BURST`: BURST at once,
//! refilled at RATE a second; `mcpcore::server::middleware::RateLimit`); one more is answered
//! `-32603` with `data.retryAfter` (HTTP: 429 and `Retry-After`). `--idempotency` adds the write
//! tool `append(text, idempotency_key)` (answers `{"length": n}`, the lines in the log, after
//! 200 ms; the log is FILE with `--ledger FILE`, else memory) and makes tool calls carrying an
//! `idempotency_key` act once per key (on the Redis store with `--store`, across instances).
//! With `OTEL_EXPORTER_OTLP_ENDPOINT` (the standard `OTEL_*` variables: protocol
//! `http/protobuf` or `http/json`, headers, `OTEL_SERVICE_NAME`…) it records a SERVER span per
//! request and `mcp.server.operation.duration` (the OpenTelemetry conventions for MCP) and
//! exports them over OTLP/HTTP; `--telemetry` records them on whatever providers are installed.
//! `--limit NAME=VALUE` (repeatable, HTTP only) sets one of the server's limits, named as in
//! `mcpcore::http::server::serve_settings` (`max_sessions`, `max_sessions_per_client`,
//! `max_backlog`, `max_in_flight`, `max_tasks_per_client`, `peer_request_timeout_ms`,
//! `header_timeout_ms`, …).
//! On HTTP it prints `listening on http://ADDR/mcp` once bound and stops cleanly on Ctrl-C.
//!
//! With the `--auth-*` options it is an OAuth resource server: every request needs a bearer JWT
//! signed by a key of the JWKS at URL, issued by ISS for the audience AUD (the server's
//! canonical URI, also the `resource` of its Protected Resource Metadata, which names ISS as
//! the authorization server). `echo` needs no scope; `add` needs `mcp:add` and is hidden from
//! `tools/list` (and unknown to `tools/call`) for tokens without it. On stdio the token is read
//! from the environment variable `MCP_ACCESS_TOKEN` once, at start (the spec's rule for stdio);
//! without a valid one the server exits with code 1 and says why. `--dpop allowed` also takes
//! DPoP-bound tokens (RFC 9449: `Authorization: DPoP` with a proof); `--dpop required` takes
//! only those (HTTP); `--dpop-nonce` also demands server-provided nonces (RFC 9449 §9).
//!
//! Behind a load balancer with several instances (no sticky routing): `--store redis://…`
//! keeps legacy sessions in Redis, so any instance serves any session; it needs
//! `MCPCORE_STATE_KEY` (hex `requestState` keys of at least 32 bytes, comma-separated, newest
//! first, the same on every instance), and refuses to start without it. `--allowed-host
//! NAME[:PORT]` (repeatable) adds the public host the proxy forwards to the Host/Origin
//! allow-list (DNS-rebinding protection).
//!
//! Over HTTP it runs on tokio's multi-thread runtime (one worker per core), the setup to copy
//! for production: handlers of different connections and calls run in parallel, so one slow
//! handler does not stall the others. On stdio, with one client and one pipe, it runs on a
//! current-thread runtime: every message then stays on one thread, which on a 2-core machine
//! serves sequential calls about twice as fast as the multi-thread runtime's cross-thread
//! wake-ups (bench W1). Either way, handlers that block (file or database I/O through a
//! blocking API, heavy computation) belong in `tokio::task::spawn_blocking`: a blocked worker
//! serves nobody else. `--current-thread` serves HTTP on a current-thread runtime too: one
//! core for the server, which is faster where the server shares two cores with its load
//! generator (the benchmark's W2), and the flavour the server had before issue 14's refactor.

use mcpcore::auth::server::{AuthConfig, DpopMode, JwtConfig, JwtVerifier};
use mcpcore::events::{EventDecl, EventRegistry};
use mcpcore::prelude::*;
use mcpcore::protocol::events::DeliveryMode;
use mcpcore::server::middleware::{Idempotency, RateLimit};
use mcpcore::store::ScaleOut;
use mcpcore::tls::ServerTls;
use std::process::ExitCode;
use std::sync::Arc;

/// Returns the text unchanged.
#[tool]
async fn echo(
    /** The text to return. */
    text: String,
) -> String {
    if let Some(events) = EVENTS.get() {
        // `echoed` is declared with a payload schema this always meets.
        let _ = events.emit("echoed", serde_json::json!({ "text": text }));
    }
    text
}

/// The event types of `--events`, once declared.
static EVENTS: std::sync::OnceLock<Arc<EventRegistry>> = std::sync::OnceLock::new();

/// `--events`: the registry with `echoed` and `tick`, and the task emitting a tick a second.
fn events(args: &[String]) -> Result<Arc<EventRegistry>, String> {
    let mut registry = EventRegistry::new();
    if let Some(ms) = option(args, "--events-heartbeat-ms") {
        let ms: u64 = ms.parse().map_err(|_| format!("--events-heartbeat-ms needs a number, not {ms:?}"))?;
        registry = registry.with_heartbeat(std::time::Duration::from_millis(ms));
    }
    let text = serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let n =
        serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let no_arguments = serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false});
    registry
        .declare(
            EventDecl::new("echoed", "Each text the echo tool returned.")
                .delivery([DeliveryMode::Poll, DeliveryMode::Push, DeliveryMode::Webhook])
                .input_schema(no_arguments.clone())
                .payload_schema(text)
                .poll_interval_ms(1_000),
        )
        .map_err(|e| e.to_string())?;
    registry
        .declare(
            EventDecl::new("tick", "One a second, counting up from 1; replayable for the last 60.")
                .input_schema(no_arguments)
                .payload_schema(n)
                .retain(60)
                .poll_interval_ms(1_000),
        )
        .map_err(|e| e.to_string())?;
    let registry = Arc::new(registry);
    if args.iter().any(|a| a == "--events-allow-http-loopback") {
        // Development only: loopback http callbacks, subscribers without a token.
        let policy = mcpcore::server::webhooks::WebhookPolicy::development();
        registry.set_webhooks(mcpcore::server::webhooks::Webhooks::new(&registry, policy));
    }
    let ticking = Arc::downgrade(&registry);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(1));
        every.tick().await;
        for n in 1u64.. {
            every.tick().await;
            let Some(events) = ticking.upgrade() else { break };
            let _ = events.emit("tick", serde_json::json!({ "n": n }));
        }
    });
    let _ = EVENTS.set(registry.clone());
    Ok(registry)
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

/// Shows the text in the echo view (MCP Apps). The result is the text itself (what a host
/// without apps shows) and `structuredContent` `{"text"}` (what the view reads).
#[tool]
async fn show_echo(
    /** The text to show. */
    text: String,
) -> CallToolResult {
    let mut result = CallToolResult::text(text.clone());
    result.structured_content = Some(serde_json::json!({ "text": text }));
    result
}

/// The echo view: `ui://echo/view.html`, the HTML every example server serves.
fn echo_view() -> mcpcore::resources::App {
    let mut app =
        mcpcore::resources::App::new("ui://echo/view.html", include_str!("../../../echo_view.html"));
    app.name = "echo_view".into();
    app.description = Some("Shows the text show_echo was given.".into());
    app.meta.prefers_border = Some(true);
    app
}

/// `n` generated tools: every verb on every kind of record, one at a time or in bulk.
fn synthetic_tools(n: usize) -> Vec<ToolDef> {
    const VERBS: [&str; 20] = [
        "create",
        "list",
        "get",
        "update",
        "delete",
        "search",
        "archive",
        "export",
        "import",
        "approve",
        "reject",
        "send",
        "schedule",
        "cancel",
        "assign",
        "merge",
        "tag",
        "comment_on",
        "duplicate",
        "restore",
    ];
    const NOUNS: [&str; 25] = [
        "invoice",
        "customer",
        "order",
        "payment",
        "refund",
        "ticket",
        "user",
        "report",
        "project",
        "task",
        "document",
        "contract",
        "shipment",
        "product",
        "supplier",
        "employee",
        "meeting",
        "campaign",
        "subscription",
        "quote",
        "expense",
        "lead",
        "asset",
        "budget",
        "calendar_event",
    ];
    let mut tools = Vec::with_capacity(n);
    'all: for scope in ["one", "many"] {
        for noun in NOUNS {
            for verb in VERBS {
                if tools.len() == n {
                    break 'all;
                }
                let name = format!("{verb}_{noun}_{}", if scope == "one" { "by_id" } else { "in_bulk" });
                let what = noun.replace('_', " ");
                let description = match scope {
                    "one" => format!("{} one {what} given its id.", sentence(verb)),
                    _ => format!("{} many {what}s at once, from a filter or a list of ids.", sentence(verb)),
                };
                let schema = serde_json::json!({
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "description": format!("The {what}'s id.")},
                        "note": {"type": "string", "description": "Why (kept in the audit log)."}
                    }
                });
                let done = format!("{name} done");
                let tool = mcpcore::protocol::Tool::new(name, description, schema);
                tools.push(ToolDef::from_parts(
                    tool,
                    move |_: mcpcore::registry::Arguments, _: mcpcore::registry::ToolContext| {
                        let done = done.clone();
                        async move { Ok(CallToolResult::text(done)) }
                    },
                ));
            }
        }
    }
    tools
}

/// `append(text, idempotency_key)`: appends `text` to the log (the file at `ledger` when given,
/// a side effect other processes can count; else memory) and answers `{"length": n}`, the
/// lines in the log, after 200 ms, so repeats of one key overlap the first call. With the
/// idempotency middleware a repeated key gets the first answer and appends nothing.
fn append_tool(ledger: Option<String>) -> ToolDef {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "The line to append."},
            "idempotency_key": {"type": "string", "description": "Repeat it to retry without appending twice."}
        },
        "required": ["text", "idempotency_key"]
    });
    let output = serde_json::json!({
        "type": "object",
        "properties": {"length": {"type": "integer", "description": "Lines in the log."}},
        "required": ["length"]
    });
    let mut tool = mcpcore::protocol::Tool::new(
        "append",
        "Appends a line to the log, once per idempotency key.",
        schema,
    );
    tool.output_schema = Some(output);
    let memory = Arc::new(std::sync::Mutex::new(0usize));
    ToolDef::from_parts(tool, move |args: mcpcore::registry::Arguments, _: mcpcore::registry::ToolContext| {
        let (ledger, memory) = (ledger.clone(), memory.clone());
        async move {
            use std::io::Write;
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let text = args.get("text").and_then(|t| t.as_str()).unwrap_or_default().replace('\n', " ");
            let length = match ledger {
                Some(path) => {
                    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
                    file.write_all(format!("{text}\n").as_bytes())?;
                    std::fs::read_to_string(&path)?.lines().count()
                }
                None => {
                    let mut n = memory.lock().expect("lock");
                    *n += 1;
                    *n
                }
            };
            let mut result = CallToolResult::text(format!("{{\"length\":{length}}}"));
            result.structured_content = Some(serde_json::json!({ "length": length }));
            Ok(result)
        }
    })
}

/// `verb` as the first word of a sentence (`comment_on` → `Comment on`).
fn sentence(verb: &str) -> String {
    let words = verb.replace('_', " ");
    let mut c = words.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// `N` (N a second, bursts of N) or `RATE,BURST`.
fn rate_limit(spec: &str) -> Option<(f64, u32)> {
    let (rate, burst) = match spec.split_once(',') {
        Some((r, b)) => (r.parse::<f64>().ok()?, b.parse::<u32>().ok()?),
        None => {
            let r = spec.parse::<f64>().ok()?;
            (r, r.ceil().clamp(1.0, u32::MAX as f64) as u32)
        }
    };
    (rate.is_finite() && rate > 0.0).then_some((rate, burst))
}

/// The value after `flag`, when given.
fn option(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).map(|i| args.get(i + 1).cloned().unwrap_or_default())
}

/// `--auth-jwks URL --auth-issuer ISS --auth-audience AUD`: all three or none; `--dpop
/// off|allowed|required` with them.
fn auth(args: &[String]) -> Result<Option<AuthConfig>, String> {
    let given = ["--auth-jwks", "--auth-issuer", "--auth-audience"].map(|f| option(args, f));
    let dpop = match option(args, "--dpop") {
        None => DpopMode::Off,
        Some(m) => DpopMode::parse(&m).ok_or(format!("--dpop takes off, allowed or required, not {m:?}"))?,
    };
    match given {
        [None, None, None] if dpop == DpopMode::Off => Ok(None),
        [Some(jwks), Some(issuer), Some(audience)]
            if ![&jwks, &issuer, &audience].iter().any(|v| v.is_empty()) =>
        {
            let verifier = JwtVerifier::new(JwtConfig::new(jwks, issuer.clone(), audience.clone()));
            let mut config = AuthConfig::new(Arc::new(verifier), audience, [issuer])
                .tool_scopes("add", ["mcp:add"])
                .dpop(dpop);
            if args.iter().any(|a| a == "--dpop-nonce") {
                config.dpop.nonce_window = Some(std::time::Duration::from_secs(60));
            }
            Ok(Some(config))
        }
        _ => Err(
            "--auth-jwks URL, --auth-issuer ISS and --auth-audience AUD go together (and --dpop with them)"
                .to_owned(),
        ),
    }
}

/// Every value of the repeatable `flag`.
fn options(args: &[String], flag: &str) -> Vec<String> {
    args.iter()
        .enumerate()
        .filter(|(_, a)| *a == flag)
        .map(|(i, _)| args.get(i + 1).cloned().unwrap_or_default())
        .collect()
}

async fn serve_http(
    server: Server,
    args: &[String],
    addr: &str,
    auth: Option<AuthConfig>,
    scale: &ScaleOut,
    tls: Option<ServerTls>,
) -> ExitCode {
    // `--unix PATH` (passed here as `unix:PATH`): the same endpoint on a Unix domain socket
    // that only this user may use; the core serves it in place of the address.
    let (addr, unix_socket) = match addr.strip_prefix("unix:") {
        Some(path) => {
            let socket = mcpcore::http::server::UnixSocket { path: path.into(), mode: 0o600 };
            (std::net::SocketAddr::from(([127, 0, 0, 1], 0)), Some(socket))
        }
        None => match addr.parse() {
            Ok(addr) => (addr, None),
            Err(_) => {
                eprintln!("echo_server: --http needs IP:PORT, e.g. 127.0.0.1:8080, not {addr:?}");
                return ExitCode::from(2);
            }
        },
    };
    let (base, limits) = match mcpcore::http::server::limit_options(&options(args, "--limit")) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(2);
        }
    };
    let server = server.configure(|c| limits.apply(c));
    let local = unix_socket.is_none().then_some(addr);
    let config = scale.http_config(HttpServerConfig { auth, tls, unix_socket, ..base }, local);
    let serving = match server.serve_http(addr, config).await {
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

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = option(&args, "--http").or_else(|| option(&args, "--unix").map(|p| format!("unix:{p}")));
    let auth = match auth(&args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(2);
        }
    };
    let one_thread = http.is_none() || args.iter().any(|a| a == "--current-thread");
    let runtime = if one_thread {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()
    };
    match runtime {
        Ok(rt) => rt.block_on(run(&args, http, auth)),
        Err(e) => {
            eprintln!("echo_server: cannot start the runtime: {e}");
            ExitCode::from(1)
        }
    }
}

async fn run(args: &[String], http: Option<String>, auth: Option<AuthConfig>) -> ExitCode {
    let store = option(args, "--store");
    let hosts = options(args, "--allowed-host");
    let (cert, key) = (option(args, "--tls-cert"), option(args, "--tls-key"));
    let limited = !options(args, "--limit").is_empty();
    if http.is_none() && (store.is_some() || !hosts.is_empty() || cert.is_some() || key.is_some() || limited)
    {
        eprintln!("echo_server: --store, --allowed-host, --tls-* and --limit need --http");
        return ExitCode::from(2);
    }
    let tls = match (cert, key) {
        (None, None) => None,
        (Some(c), Some(k)) => match ServerTls::from_files(c.as_ref(), k.as_ref(), None) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("echo_server: {e}");
                return ExitCode::from(2);
            }
        },
        _ => {
            eprintln!("echo_server: --tls-cert and --tls-key go together");
            return ExitCode::from(2);
        }
    };
    let scale = match ScaleOut::from_env(store.as_deref(), &hosts) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(2);
        }
    };
    // OpenTelemetry from the standard OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT…).
    let otlp = match mcpcore::telemetry::Otlp::from_env("mcpcore-echo") {
        Ok(o) => o,
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(2);
        }
    };
    let mut builder = Server::builder("mcpcore-echo", env!("CARGO_PKG_VERSION"))
        .config(|c| c.state_keys = scale.state_keys().clone())
        .tool(echo)
        .tool(add);
    if args.iter().any(|a| a == "--apps") {
        builder = builder.app(echo_view(), show_echo);
    }
    if args.iter().any(|a| a == "--events") {
        match events(args) {
            Ok(registry) => builder = builder.events(registry),
            Err(e) => {
                eprintln!("echo_server: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let synthetic = option(args, "--synthetic-tools").map(|n| n.parse::<usize>());
    match synthetic {
        Some(Ok(n)) => builder = synthetic_tools(n).into_iter().fold(builder, |b, t| b.tool(t)),
        Some(Err(_)) => {
            eprintln!("echo_server: --synthetic-tools needs a number");
            return ExitCode::from(2);
        }
        None => {}
    }
    if args.iter().any(|a| a == "--tool-search") {
        builder = builder.tool_search(["echo", "add"]);
    }
    if args.iter().any(|a| a == "--idempotency") {
        // On the shared store with --store: instances behind one balancer act once per key.
        builder = builder
            .middleware(Arc::new(Idempotency::on_scale_out(&scale)))
            .tool(append_tool(option(args, "--ledger")));
    }
    if otlp.is_some() || args.iter().any(|a| a == "--telemetry") {
        // SERVER spans and mcp.server.operation.duration (with --telemetry alone: on the
        // API's no-op providers, which measures the instrumentation's own cost).
        builder = builder.telemetry();
    }
    if args.iter().any(|a| a == "--pass-through") {
        // The cost of a middleware chain itself (bench W6): one middleware that only passes on.
        builder =
            builder.middleware(mcpcore::middleware::from_fn(|req, _ctx, next: mcpcore::middleware::Next| {
                next.run(req)
            }));
    }
    if args.iter().any(|a| a == "--list-cache") {
        // List pages from memory for their own ttlMs (legacy: a minute), emptied by any change.
        let cache = mcpcore::server::middleware::ListCache::new(std::time::Duration::from_secs(60), 1_000);
        builder = builder.middleware(Arc::new(cache));
    }
    if let Some(spec) = option(args, "--rate-limit") {
        let Some((rate, burst)) = rate_limit(&spec) else {
            eprintln!("echo_server: --rate-limit needs N or RATE,BURST, e.g. 5 or 5,10, not {spec:?}");
            return ExitCode::from(2);
        };
        // With --store the fleet shares each client's bucket.
        builder = builder.middleware(Arc::new(RateLimit::on_scale_out(rate, burst, &scale)));
    }
    let built = builder.build();
    let server = match built {
        // With --store: tasks, single-use claims and changes shared with the other instances.
        Ok(s) => s.with_scale_out(&scale),
        Err(e) => {
            eprintln!("echo_server: {e}");
            return ExitCode::from(1);
        }
    };
    let code = if let Some(addr) = http {
        serve_http(server, args, &addr, auth, &scale, tls).await
    } else {
        // On stdio the token comes from the environment (MCP_ACCESS_TOKEN), checked once.
        let served = match &auth {
            Some(auth) => server.serve_stdio_with_auth(auth).await,
            None => server.serve_stdio().await,
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("echo_server: {e}");
                ExitCode::from(1)
            }
        }
    };
    if let Some(otlp) = &otlp {
        // What is buffered goes out before the process ends.
        otlp.shutdown();
    }
    code
}
