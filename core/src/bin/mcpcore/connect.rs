//! What every client subcommand shares: where the server is (a URL, or `-- CMD ARGS...`), how
//! to reach it (lineage, timeout, HTTP transport, headers, TLS, OAuth), and how to print.

use crate::interactive::Terminal;
use clap::{Args, ValueEnum};
use mcpcore::auth::client::{
    ClientAuth, FileTokenStore, LoopbackRedirect, OAuth, OAuthConfig, PreRegistered,
};
use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::client::{HttpOptions, HttpTransport};
use mcpcore::protocol::Lineage;
use mcpcore::transport::child::StdioCommand;
use mcpcore::{Error, ProtocolVersion};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// `--lineage`.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum LineageArg {
    /// 2026-07-28 (stateless, `server/discover`).
    Modern,
    /// The `initialize`-based revisions (2025-11-25 ... 2024-11-05).
    Legacy,
}

/// `--transport`.
#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum TransportArg {
    /// Streamable HTTP, then the 2024-11-05 HTTP+SSE transport.
    Auto,
    /// Streamable HTTP only.
    Streamable,
    /// The 2024-11-05 HTTP+SSE transport only.
    Sse,
}

/// The options of every client subcommand.
#[derive(Args)]
pub(crate) struct Conn {
    /// Use exactly this revision (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05).
    #[arg(long, value_name = "V", help_heading = "Connection")]
    protocol_version: Option<String>,
    /// Use only this lineage (default: negotiate).
    #[arg(long, value_enum, help_heading = "Connection")]
    lineage: Option<LineageArg>,
    /// Timeout of the whole connect, and of each request.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, help_heading = "Connection")]
    timeout: f64,
    /// Copy a stdio server's stderr to ours.
    #[arg(long, help_heading = "Connection")]
    server_stderr: bool,
    /// The HTTP transport.
    #[arg(long, value_enum, default_value_t = TransportArg::Auto, help_heading = "HTTP")]
    transport: TransportArg,
    /// An extra HTTP header (repeatable).
    #[arg(long = "header", value_name = "NAME: VALUE", help_heading = "HTTP")]
    headers: Vec<String>,
    /// Send `Authorization: Bearer TOKEN`.
    #[arg(long, value_name = "TOKEN", help_heading = "HTTP")]
    bearer: Option<String>,
    /// HTTPS: also trust the CA certificates in this PEM file (the system's roots are always trusted).
    #[arg(long, value_name = "FILE", help_heading = "HTTP")]
    ca_cert: Option<PathBuf>,
    /// HTTPS: present this PEM client certificate (with --client-key).
    #[arg(long, value_name = "FILE", help_heading = "HTTP")]
    client_cert: Option<PathBuf>,
    /// HTTPS: the client certificate's PEM private key.
    #[arg(long, value_name = "FILE", help_heading = "HTTP")]
    client_key: Option<PathBuf>,
    /// Authorize with OAuth 2.1 when the server asks (401): opens the browser ($BROWSER, else
    /// xdg-open/open) on a 127.0.0.1 redirect listener; tokens are kept in --token-store.
    #[arg(long, help_heading = "OAuth")]
    oauth: bool,
    /// A pre-registered OAuth client id (implies --oauth; else the client registers itself).
    #[arg(long, value_name = "ID", help_heading = "OAuth")]
    client_id: Option<String>,
    /// The client's secret (client_secret_basic or _post, as the server supports).
    #[arg(long, value_name = "SECRET", help_heading = "OAuth")]
    client_secret: Option<String>,
    /// Request this scope instead of the server's (repeatable, or space-separated).
    #[arg(long = "scope", value_name = "SCOPE", help_heading = "OAuth")]
    scopes: Vec<String>,
    /// Where OAuth state lives (default $MCPCORE_TOKEN_STORE, else
    /// $XDG_CONFIG_HOME/mcpcore/oauth.json or ~/.config/mcpcore/oauth.json).
    #[arg(long, value_name = "PATH", help_heading = "OAuth")]
    token_store: Option<PathBuf>,
    /// Print JSON (the default when stdout is not a terminal).
    #[arg(long, help_heading = "Output")]
    pub(crate) json: bool,
    /// Print for people (the default on a terminal).
    #[arg(long, conflicts_with = "json", help_heading = "Output")]
    human: bool,
    /// Answer the server's sampling and elicitation requests on this terminal (default when
    /// stdin is a terminal); with stdin piped, one line per answer.
    #[arg(long, help_heading = "Output")]
    interactive: bool,
    /// Declare no sampling or elicitation, even on a terminal.
    #[arg(long, conflicts_with = "interactive", help_heading = "Output")]
    no_interactive: bool,
    /// A stdio server to spawn: its command and arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// Where the server is.
enum Target {
    Stdio(StdioCommand),
    Http(String, HttpOptions),
}

/// A parsed connection: ready to connect.
pub(crate) struct Connection {
    target: Target,
    options: ClientOptions,
    /// JSON output.
    pub(crate) json: bool,
}

/// True when `arg` names an HTTP endpoint: `http://`, `https://`, or a Unix socket
/// (`unix:PATH`, `http+unix://ENCODED_PATH/mcp`).
pub(crate) fn is_endpoint(arg: &str) -> bool {
    ["http://", "https://", "http+unix://", "unix:"].iter().any(|p| arg.starts_with(p))
}

impl Conn {
    /// Reads the options with `url` (a positional argument, if any) as the server.
    /// True when the output is JSON (`--json`, or not `--human` and stdout is not a terminal).
    pub(crate) fn wants_json(&self) -> bool {
        self.json || (!self.human && !std::io::stdout().is_terminal())
    }

    pub(crate) fn resolve(self, url: Option<String>) -> Result<Connection, String> {
        if let Some(u) = &url {
            if !is_endpoint(u) {
                return Err(format!(
                    "unsupported URL scheme in {u:?}: give an http://, https:// or unix:PATH URL, or `-- CMD [ARGS...]`"
                ));
            }
        }
        let json = self.json || (!self.human && !std::io::stdout().is_terminal());
        let mut options = ClientOptions::default();
        options.info.name = "mcpcore-cli".into();
        if let Some(v) = &self.protocol_version {
            options.version = Some(v.parse::<ProtocolVersion>().map_err(|e| e.to_string())?);
        }
        options.lineage = self.lineage.map(|l| match l {
            LineageArg::Modern => Lineage::Modern,
            LineageArg::Legacy => Lineage::Legacy,
        });
        if !(self.timeout.is_finite() && self.timeout > 0.0) {
            return Err("--timeout must be positive".into());
        }
        options.request_timeout = Duration::from_secs_f64(self.timeout);
        let interactive = self.interactive || (!self.no_interactive && std::io::stdin().is_terminal());
        if interactive {
            options.input = Some(Arc::new(Terminal::new()));
        }
        let oauth_wanted =
            self.oauth || self.client_id.is_some() || self.client_secret.is_some() || !self.scopes.is_empty();
        let tls_wanted = self.ca_cert.is_some() || self.client_cert.is_some() || self.client_key.is_some();
        let target = match (url, self.command.split_first()) {
            (Some(_), Some(_)) => return Err("give either a URL or `-- CMD`, not both".into()),
            (None, None) => return Err("missing the server: a URL, or `-- CMD [ARGS...]`".into()),
            (None, Some((program, args))) => {
                if oauth_wanted {
                    return Err("OAuth options need an HTTP server URL (stdio servers take credentials from the environment)".into());
                }
                if tls_wanted {
                    return Err(
                        "--ca-cert, --client-cert and --client-key need an https:// server URL".into()
                    );
                }
                let mut cmd = StdioCommand::new(program.clone(), args.iter().cloned());
                cmd.inherit_stderr = self.server_stderr;
                Target::Stdio(cmd)
            }
            (Some(url), None) => {
                let mut http = HttpOptions {
                    transport: match self.transport {
                        TransportArg::Auto => HttpTransport::Auto,
                        TransportArg::Streamable => HttpTransport::Streamable,
                        TransportArg::Sse => HttpTransport::Sse,
                    },
                    bearer_token: self.bearer.clone(),
                    ..HttpOptions::default()
                };
                for h in &self.headers {
                    let (k, v) =
                        h.split_once(':').ok_or(format!("--header needs 'NAME: VALUE', got {h:?}"))?;
                    http.headers.push((k.trim().to_owned(), v.trim().to_owned()));
                }
                if tls_wanted {
                    http.tls = mcpcore::tls::TlsOptions::from_files(
                        self.ca_cert.as_deref(),
                        self.client_cert.as_deref(),
                        self.client_key.as_deref(),
                    )
                    .map_err(|e| e.to_string())?;
                }
                if oauth_wanted {
                    http.auth = Some(self.oauth()?);
                }
                Target::Http(url, http)
            }
        };
        Ok(Connection { target, options, json })
    }

    /// The authorization code grant through the loopback listener, with the file store.
    fn oauth(&self) -> Result<OAuth, String> {
        if self.client_secret.is_some() && self.client_id.is_none() {
            return Err("--client-secret needs --client-id".into());
        }
        let redirect = LoopbackRedirect::bind()
            .map_err(|e| format!("cannot listen on 127.0.0.1 for the OAuth redirect: {e}"))?;
        let mut config = OAuthConfig::authorization_code(Arc::new(redirect));
        config.client_name = "mcpcore CLI".into();
        let path =
            self.token_store.clone().or_else(FileTokenStore::default_path).ok_or(
                "no place for the OAuth token store: set --token-store, MCPCORE_TOKEN_STORE or HOME",
            )?;
        config.store = Arc::new(FileTokenStore::new(path));
        if let Some(client_id) = self.client_id.clone() {
            let auth = self.client_secret.clone().map(ClientAuth::Secret).unwrap_or(ClientAuth::None);
            config.pre_registered = Some(PreRegistered { client_id, auth, issuer: None });
        }
        let scopes: Vec<String> = self
            .scopes
            .iter()
            .flat_map(|s| s.split(' '))
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        if !scopes.is_empty() {
            config.scopes = Some(scopes);
        }
        Ok(OAuth::new(config))
    }
}

impl Connection {
    /// What `mcpcore doctor` examines, and how it connects (answering no server questions).
    pub(crate) fn into_doctor(self) -> (mcpcore::doctor::Subject, ClientOptions) {
        let mut options = self.options;
        options.input = None;
        let subject = match self.target {
            Target::Stdio(cmd) => mcpcore::doctor::Subject::Stdio(cmd),
            Target::Http(url, options) => mcpcore::doctor::Subject::Http { url, options },
        };
        (subject, options)
    }

    /// Connects (spawning a stdio server in its own process group).
    pub(crate) async fn connect(self) -> Result<Client, Error> {
        match self.target {
            Target::Stdio(cmd) => Client::connect_stdio(cmd, self.options).await,
            Target::Http(url, http) => Client::connect_http(&url, http, self.options).await,
        }
    }
}
