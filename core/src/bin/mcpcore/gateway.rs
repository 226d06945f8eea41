//! `mcpcore gateway --config mcp.json [--listen IP:PORT [--allowed-host NAME]...]`: every server of an `mcpServers`
//! config behind one endpoint (see `mcpcore::gateway`), served on stdio or on Streamable HTTP.

use mcpcore::gateway::{Gateway, GatewayConfig};
use mcpcore::http::server::{HostPolicy, HttpServerConfig};
use std::net::SocketAddr;
use std::process::ExitCode;

pub(crate) const ABOUT: &str =
    "Connects every server of an `mcpServers` config (the Claude Desktop / Cursor / VS Code file) and
serves them as one MCP server: on stdio (default), or with --listen on Streamable HTTP at
http://IP:PORT/mcp (2026-07-28 and the initialize-based revisions on one endpoint, 2024-11-05
HTTP+SSE on /sse). A tool, prompt or resource template `x` of the entry `name` is served as
`name__x` unless the entry sets \"prefix\" (\"\" for none), and its resource URIs as `name+<uri>`.

config, per entry:
  \"command\", \"args\", \"env\", \"cwd\"        a stdio server (a child process)
  \"url\", \"headers\", \"type\"                an HTTP server; type \"http\" (or \"streamable-http\")
                                          or \"sse\" (2024-11-05); none: try http, then sse
  \"oauth\"                                 the gateway's own OAuth client at an HTTP upstream:
                                          {\"clientId\", \"clientSecret\", \"scopes\", \"tokenStore\",
                                          \"dpop\": true (DPoP-bound tokens; default: bearer)}
                                          (client credentials; callers' tokens are never passed on)
    \"onBehalfOf\": {\"tokenEndpoint\",       calls go as each caller: its token exchanged
      \"audience\", \"resource\", \"scopes\"}    (RFC 8693) for one of its own for this upstream
  \"prefix\"                                default \"<name>__\"
  \"uriPrefix\"                             before resource URIs; default \"<name>+\" (\"\" when
                                          \"prefix\" is \"\")
  \"protocolVersion\" | \"lineage\"           pin the upstream connection (e.g. \"2025-11-25\", \"legacy\")
  \"include\", \"exclude\"                    tool names to take / leave out (`*` is a wildcard)
  \"timeoutMs\"                             timeout of each request to the upstream
  \"start\": \"eager\" | \"lazy\"               connect before serving (default; a failure stops
                                          the start), or in the background after it
  \"restart\": false                        do not start an upstream again when it exits
                                          (default: again, after a backoff of 250 ms..30 s;
                                          its tools answer with an error meanwhile)
  \"disabled\": true                        leave the entry out
top level:
  \"collision\": \"error\" | \"skip\" | \"prefix\"  two entries with one name: refuse to start (default),
                                          keep the first (by entry name), or rename the later one
                                          to <entry>_<name>
  \"auth\": {\"jwksUrl\", \"issuer\", \"resource\", callers need a bearer token (on stdio:
    \"requiredScopes\", \"toolScopes\",          MCP_ACCESS_TOKEN); \"visibility\" rules hide tools and
    \"visibility\": [{\"tools\": [\"a__*\"],       prompts per caller, by scope or token claim
      \"allow\"|\"deny\": {\"scopes\", \"claims\"}}]} (hidden: unlisted, unsearchable, unknown)
Other fields are ignored. SIGINT / SIGTERM (or the end of stdin on stdio) close every upstream
(stdio children are stopped) and exit.";

/// `gateway --config mcp.json [--listen IP:PORT]`.
#[derive(clap::Args)]
pub(crate) struct GatewayArgs {
    /// The mcpServers config (Claude Desktop / Cursor / VS Code JSON).
    #[arg(long, value_name = "FILE")]
    config: String,
    #[command(flatten)]
    listen: Listen,
}

impl GatewayArgs {
    /// How many runtime threads to serve with (see [`Listen::threads`]).
    pub(crate) fn threads(&self) -> usize {
        self.listen.threads()
    }
}

/// `--listen IP:PORT [--allowed-host NAME[:PORT]]... [--allowed-origin ORIGIN]...`, shared by
/// `gateway` and `serve`.
#[derive(clap::Args)]
pub(crate) struct Listen {
    /// Serve Streamable HTTP at http://IP:PORT/mcp, or on the Unix socket PATH (mode 0600),
    /// instead of stdio.
    #[arg(long, value_name = "IP:PORT | unix:PATH")]
    listen: Option<ListenAddr>,
    /// A `Host` to answer (repeatable; replaces the default: loopback names on a loopback bind,
    /// else localhost and IP addresses). The DNS names clients reach this server by.
    #[arg(long = "allowed-host", value_name = "NAME[:PORT]", requires = "listen")]
    allowed_hosts: Vec<String>,
    /// A browser `Origin` to answer (repeatable), e.g. https://app.example.com.
    #[arg(long = "allowed-origin", value_name = "SCHEME://NAME[:PORT]", requires = "listen")]
    allowed_origins: Vec<String>,
    /// Runtime threads: 1 serves everything on one thread (the default on stdio), more spreads
    /// the work of many clients over that many (default 2 with --listen).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
    threads: Option<u16>,
}

impl Listen {
    /// How many runtime threads to serve with: `--threads`, else one on stdio (one client,
    /// frames in order) and two with `--listen`.
    pub(crate) fn threads(&self) -> usize {
        usize::from(self.threads.unwrap_or(if self.listen.is_none() { 1 } else { 2 }))
    }
}

/// Where `--listen` serves.
#[derive(Clone, Debug)]
pub(crate) enum ListenAddr {
    /// A TCP address.
    Tcp(SocketAddr),
    /// A Unix domain socket's path.
    Unix(std::path::PathBuf),
}

impl std::str::FromStr for ListenAddr {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.strip_prefix("unix:") {
            Some("") => Err("unix: needs a socket path, e.g. unix:/run/mcp.sock".into()),
            Some(path) => Ok(ListenAddr::Unix(path.into())),
            None => {
                s.parse().map(ListenAddr::Tcp).map_err(|_| format!("{s:?} is neither IP:PORT nor unix:PATH"))
            }
        }
    }
}

impl Listen {
    /// The HTTP server's settings: the DNS-rebinding allow-lists when given.
    fn http_config(&self) -> HttpServerConfig {
        let mut config = HttpServerConfig::default();
        if !self.allowed_hosts.is_empty() || !self.allowed_origins.is_empty() {
            config.hosts = HostPolicy::Allow {
                hosts: self.allowed_hosts.clone(),
                origins: self.allowed_origins.clone(),
            };
        }
        config
    }
}

/// Runs the gateway.
pub(crate) async fn main(args: GatewayArgs) -> ExitCode {
    let config = match GatewayConfig::from_file(&args.config) {
        Ok(c) => c,
        Err(e) => {
            crate::report(&e);
            return ExitCode::from(1);
        }
    };
    match serve(config, &args.listen, "gateway").await {
        Ok(code) => code,
        Err(e) => {
            crate::report(&e);
            ExitCode::from(1)
        }
    }
}

/// Serves `server` over HTTP on `addr`.
async fn serve_on(
    server: &mcpcore::server::Server,
    addr: &ListenAddr,
    config: HttpServerConfig,
) -> mcpcore::Result<mcpcore::http::server::HttpServing> {
    match addr {
        ListenAddr::Tcp(a) => server.serve_http(*a, config).await,
        #[cfg(unix)]
        ListenAddr::Unix(p) => server.serve_http_unix(p, 0o600, config).await,
        #[cfg(not(unix))]
        ListenAddr::Unix(_) => Err(mcpcore::Error::invalid_input("unix: sockets need a Unix platform")),
    }
}

/// Starts every upstream of `config` and serves them as one server on stdio or `listen`, until
/// a signal (or, on stdio, the end of stdin); then closes every upstream. `what` names it in
/// the start-up line.
pub(crate) async fn serve(config: GatewayConfig, listen: &Listen, what: &str) -> mcpcore::Result<ExitCode> {
    // OpenTelemetry from the standard OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT…): spans of
    // what the gateway serves and of its upstream calls, exported over OTLP/HTTP.
    let otlp = mcpcore::telemetry::Otlp::from_env(&format!("mcpcore-{what}"))?;
    let config = if otlp.is_some() { config.with_telemetry() } else { config };
    let outcome = serve_gateway(config, listen, what).await;
    if let Some(otlp) = &otlp {
        otlp.shutdown();
    }
    outcome
}

async fn serve_gateway(config: GatewayConfig, listen: &Listen, what: &str) -> mcpcore::Result<ExitCode> {
    let obo = config.on_behalf_upstreams();
    if !obo.is_empty() && config.auth.is_none() {
        return Err(mcpcore::Error::invalid_input(format!(
            "{} called on behalf of each caller (\"onBehalfOf\"), which needs the callers' tokens: add \"auth\" to the config",
            obo.join(", ")
        )));
    }
    let mut signals = crate::signals::Signals::catch()?;
    // A signal while connecting drops the half-started upstreams (their process groups die).
    let gateway = tokio::select! {
        g = Gateway::start(&config) => g?,
        code = signals.next() => return Ok(code),
    };
    eprintln!(
        "mcpcore {what}: {} upstreams ({}), {} tools",
        gateway.upstreams().len(),
        gateway.upstreams().join(", "),
        gateway.tools().len()
    );
    let server = gateway.server();
    let mut http = listen.http_config();
    http.auth = config.auth.clone();
    let outcome = match &listen.listen {
        None => tokio::select! {
            r = async {
                match &config.auth {
                    // Credentials from the environment on stdio (MCP_ACCESS_TOKEN).
                    Some(auth) => server.serve_stdio_with_auth(auth).await,
                    None => server.serve_stdio().await,
                }
            } => r.map(|()| ExitCode::SUCCESS),
            code = signals.next() => Ok(code),
        },
        Some(addr) => match serve_on(&server, addr, http).await {
            Ok(serving) => {
                println!("listening on {}", serving.url());
                let code = signals.next().await;
                serving.shutdown().await.map(|()| code)
            }
            Err(e) => Err(e),
        },
    };
    gateway.shutdown().await;
    outcome
}
