//! `mcpcore tools|call`: list and call the tools of any MCP server, over stdio or HTTP.

use mcpcore::auth::client::{
    ClientAuth, FileTokenStore, LoopbackRedirect, OAuth, OAuthConfig, PreRegistered,
};
use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::{Error, ProtocolVersion};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

pub(crate) const USAGE: &str = "usage:
  mcpcore tools [OPTIONS] -- CMD [ARGS...]                   list the tools of a stdio server
  mcpcore tools URL [OPTIONS]                                list the tools of an HTTP server
  mcpcore call TOOL 'JSON-ARGS' [OPTIONS] -- CMD [ARGS...]   call one tool, print the result
  mcpcore call TOOL 'JSON-ARGS' URL [OPTIONS]                the same over HTTP
  mcpcore conformance-server --listen 127.0.0.1:PORT        the conformance fixture (endpoint /mcp)
      [--store redis://HOST:PORT[/DB]]                       legacy sessions in Redis, shared by every
                                                             instance (needs MCPCORE_STATE_KEY: hex
                                                             requestState keys >= 32 bytes, comma-
                                                             separated, newest first, on every instance)
      [--allowed-host NAME[:PORT]]...                        the public host a proxy forwards (Host and
                                                             Origin allow-list; repeatable)
      [--limit NAME=VALUE]...                                one limit (max_sessions, max_sessions_per_client,
                                                             max_backlog, max_in_flight, max_tasks_per_client,
                                                             peer_request_timeout_ms, header_timeout_ms, ...)
  mcpcore conformance-client URL                             the conformance client (scenario in
                                                             MCP_CONFORMANCE_SCENARIO)
  mcpcore gateway --config mcp.json [--listen IP:PORT]      serve every server of an mcpServers config
                                                             as one (stdio, or HTTP at /mcp); see
                                                             `mcpcore gateway --help`
options:
  --protocol-version V     use exactly this revision (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)
  --lineage modern|legacy  use only this lineage
  --timeout SECONDS        per-request timeout (default 60)
  --server-stderr          copy the server's stderr to ours (stdio)
  --transport auto|streamable|sse   HTTP transport (default auto: Streamable HTTP, then 2024-11-05 SSE)
  --header 'NAME: VALUE'   extra HTTP header (repeatable)
  --bearer TOKEN           send Authorization: Bearer TOKEN
  --oauth                  authorize with OAuth 2.1 when the server asks (401): opens the browser
                           ($BROWSER, else xdg-open/open) on a 127.0.0.1 redirect listener; tokens
                           and registrations are kept in --token-store
  --client-id ID           a pre-registered OAuth client id (implies --oauth; else the client
                           registers itself)
  --client-secret SECRET   its secret (client_secret_basic or _post, as the server supports)
  --scope SCOPE            request this scope instead of the server's (repeatable, or space-separated)
  --ca-cert FILE           HTTPS: also trust the CA certificates in this PEM file (the system's
                           roots are always trusted)
  --client-cert FILE       HTTPS: present this PEM client certificate (with --client-key)
  --client-key FILE        its PEM private key
  --token-store PATH       where OAuth state lives (default $MCPCORE_TOKEN_STORE, else
                           $XDG_CONFIG_HOME/mcpcore/oauth.json or ~/.config/mcpcore/oauth.json)
exit codes: 0 ok, 1 failure, 2 the tool returned isError, 130/143 interrupted by SIGINT/SIGTERM";

/// Where the server is.
enum Target {
    Stdio(StdioCommand),
    Http(String, HttpOptions),
}

struct Cli {
    command: String,
    positional: Vec<String>,
    options: ClientOptions,
    target: Target,
}

fn parse(args: Vec<String>) -> Result<Cli, String> {
    let split = args.iter().position(|a| a == "--").unwrap_or(args.len());
    let (mine, target) = args.split_at(split);
    let mut stdio = match target.get(1..).and_then(|t| t.split_first()) {
        Some((program, rest)) => Some(StdioCommand::new(program.clone(), rest.iter().cloned())),
        None if !target.is_empty() => return Err("missing the server command after `--`".into()),
        None => None,
    };
    let mut http = HttpOptions::default();
    let mut options = ClientOptions::default();
    let mut tls_files: (Option<PathBuf>, Option<PathBuf>, Option<PathBuf>) = (None, None, None);
    options.info.name = "mcpcore-cli".into();
    let mut positional = Vec::new();
    let mut oauth = OAuthArgs::default();
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
            "--server-stderr" => {
                if let Some(c) = stdio.as_mut() {
                    c.inherit_stderr = true;
                }
            }
            "--transport" => {
                http.transport = match value(a)?.as_str() {
                    "auto" => HttpTransport::Auto,
                    "streamable" => HttpTransport::Streamable,
                    "sse" => HttpTransport::Sse,
                    other => {
                        return Err(format!("--transport must be auto, streamable or sse, not {other:?}"))
                    }
                }
            }
            "--header" => {
                let h = value(a)?;
                let (k, v) = h.split_once(':').ok_or(format!("--header needs 'NAME: VALUE', got {h:?}"))?;
                http.headers.push((k.trim().to_owned(), v.trim().to_owned()));
            }
            "--bearer" => http.bearer_token = Some(value(a)?),
            "--oauth" => oauth.enabled = true,
            "--client-id" => oauth.client_id = Some(value(a)?),
            "--client-secret" => oauth.client_secret = Some(value(a)?),
            "--scope" => {
                oauth.scopes.extend(value(a)?.split(' ').filter(|s| !s.is_empty()).map(str::to_owned))
            }
            "--token-store" => oauth.store = Some(PathBuf::from(value(a)?)),
            "--ca-cert" => tls_files.0 = Some(PathBuf::from(value(a)?)),
            "--client-cert" => tls_files.1 = Some(PathBuf::from(value(a)?)),
            "--client-key" => tls_files.2 = Some(PathBuf::from(value(a)?)),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => positional.push(a.clone()),
        }
    }
    let command = if positional.is_empty() { String::new() } else { positional.remove(0) };
    let url = positional.iter().position(|p| p.starts_with("http://") || p.starts_with("https://"));
    if tls_files != (None, None, None) {
        if url.is_none() {
            return Err("--ca-cert, --client-cert and --client-key need an https:// server URL".into());
        }
        let (ca, cert, key) = &tls_files;
        http.tls = mcpcore::tls::TlsOptions::from_files(ca.as_deref(), cert.as_deref(), key.as_deref())
            .map_err(|e| e.to_string())?;
    }
    if oauth.wanted() {
        if url.is_none() {
            return Err(
                "OAuth options need an HTTP server URL (stdio servers take credentials from the environment)"
                    .into(),
            );
        }
        http.auth = Some(oauth.build()?);
    }
    let target = match (url, stdio) {
        (Some(_), Some(_)) => return Err("give either a URL or `-- CMD`, not both".into()),
        (Some(i), None) => Target::Http(positional.remove(i), http),
        (None, Some(cmd)) => Target::Stdio(cmd),
        (None, None) => return Err("missing the server: a URL, or `-- CMD [ARGS...]`".into()),
    };
    Ok(Cli { command, positional, options, target })
}

/// The OAuth options.
#[derive(Default)]
struct OAuthArgs {
    enabled: bool,
    client_id: Option<String>,
    client_secret: Option<String>,
    scopes: Vec<String>,
    store: Option<PathBuf>,
}

impl OAuthArgs {
    fn wanted(&self) -> bool {
        self.enabled || self.client_id.is_some() || self.client_secret.is_some() || !self.scopes.is_empty()
    }

    /// The authorization code grant through the loopback listener, with the file store.
    fn build(self) -> Result<OAuth, String> {
        if self.client_secret.is_some() && self.client_id.is_none() {
            return Err("--client-secret needs --client-id".into());
        }
        let redirect = LoopbackRedirect::bind()
            .map_err(|e| format!("cannot listen on 127.0.0.1 for the OAuth redirect: {e}"))?;
        let mut config = OAuthConfig::authorization_code(Arc::new(redirect));
        config.client_name = "mcpcore CLI".into();
        let path = self
            .store
            .or_else(FileTokenStore::default_path)
            .ok_or("no place for the OAuth token store: set --token-store, MCPCORE_TOKEN_STORE or HOME")?;
        config.store = Arc::new(FileTokenStore::new(path));
        if let Some(client_id) = self.client_id {
            let auth = self.client_secret.map(ClientAuth::Secret).unwrap_or(ClientAuth::None);
            config.pre_registered = Some(PreRegistered { client_id, auth, issuer: None });
        }
        if !self.scopes.is_empty() {
            config.scopes = Some(self.scopes);
        }
        Ok(OAuth::new(config))
    }
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
    // Caught from here on: a signal while connecting drops the connection (killing the server's
    // group), one during the call cancels it and shuts the server down in order.
    let mut signals = crate::signals::Signals::catch()?;
    let connect = async {
        match cli.target {
            Target::Stdio(cmd) => Client::connect_stdio(cmd, cli.options).await,
            Target::Http(url, http) => Client::connect_http(&url, http, cli.options).await,
        }
    };
    let client = tokio::select! {
        c = connect => c?,
        code = signals.next() => return Ok(code),
    };
    let work = async {
        let negotiated = client.negotiated();
        Ok::<_, Error>(match tool {
            None => {
                let tools = client.list_tools().await?;
                let out = json!({ "protocolVersion": negotiated.version, "serverInfo": negotiated.server_info, "tools": tools });
                (out, ExitCode::SUCCESS)
            }
            Some(name) => {
                let result = client.call_tool(&name, args).await?;
                let code = if result.is_error() { 2 } else { 0 };
                (serde_json::to_value(&result).expect("serializable"), ExitCode::from(code))
            }
        })
    };
    let outcome = tokio::select! {
        r = work => r,
        code = signals.next() => {
            // The call future is gone (its request got notifications/cancelled); stop the server.
            tokio::select! {
                () = client.close() => {}
                _ = signals.next() => {}
            }
            return Ok(code);
        }
    };
    let (out, code) = match outcome {
        Ok(done) => done,
        Err(e) => {
            client.close().await;
            return Err(e);
        }
    };
    println!("{}", serde_json::to_string_pretty(&out).expect("serializable"));
    client.close().await;
    Ok(code)
}

/// Runs `tools` or `call` with the arguments after the program name.
pub(crate) async fn main(args: Vec<String>) -> ExitCode {
    let cli = match parse(args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mcpcore: {e}\n{USAGE}");
            return ExitCode::from(1);
        }
    };
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            crate::report(&e);
            ExitCode::from(1)
        }
    }
}
