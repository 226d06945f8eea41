//! The gateway's configuration: the de-facto `mcpServers` JSON of Claude Desktop, Cursor and
//! VS Code (`servers` there), plus per-entry options of the gateway.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] },
//!     "echo": { "url": "http://127.0.0.1:8081/mcp", "type": "http", "prefix": "", "include": ["echo"] }
//!   },
//!   "collision": "error"
//! }
//! ```
//!
//! An entry with `command` (and `args`, `env`, `cwd`) is a stdio child; one with `url` (and
//! `headers`) is remote: `type` `http` / `streamable-http` is Streamable HTTP, `sse` the
//! 2024-11-05 HTTP+SSE transport, no `type` tries Streamable HTTP then SSE. Gateway options per
//! entry: `prefix` (default `<name>__`, `""` for none), `uriPrefix` (put in front of the
//! entry's resource URIs and URI templates; default `<name>+`, e.g. `everything+demo://x`,
//! and `""` when `prefix` is `""`; see [`Mount`]), `protocolVersion` or `lineage`
//! (`modern` / `legacy`) to pin the upstream connection, `include` / `exclude` (tool names,
//! `*` as a wildcard), `timeoutMs` (each request to the upstream), `disabled`, `start`
//! (`eager`, the default: connected before the gateway serves; `lazy`: connected in the
//! background once it serves), `restart` (default `true`: a stdio upstream that exits is
//! started again, with backoff). Top level:
//! `collision` (`error`, the default: refuse to start; `skip`: the entry whose name sorts
//! first keeps the name; `prefix`: the later one becomes `<entry>_<name>`); `telemetry`
//! (`true`: OpenTelemetry spans for what the gateway serves and sends upstream); `toolSearch`
//! (`{"pinned": ["local names"]}` or `true`: `tools/list` shows the pinned tools and
//! `search_tools`, which searches the tools of every upstream); `auth` (the gateway's own
//! authorization and per-caller catalogue, see [`GatewayConfig::auth`]). Other fields
//! (editors put their own keys there) are ignored; a bad shape is an error naming the entry.
//!
//! Every string of an entry may name environment variables as the editors write them:
//! `${env:NAME}` (VS Code, Cursor) or `${NAME}` (Claude Code), each with an optional
//! `:-default`; an unset variable without a default is an error naming it and the entry.

use crate::error::{Error, Result};
use crate::http::client::HttpTransport;
use crate::protocol::{Lineage, ProtocolVersion};
use crate::registry::CollisionPolicy;
use crate::remote::{Mount, ToolFilter};
use crate::transport::child::StdioCommand;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What the gateway serves: its upstreams (in name order) and the collision policy.
#[derive(Debug, Clone)]
pub struct GatewayConfig {
    /// The upstream servers, sorted by name (disabled entries left out).
    pub upstreams: Vec<Upstream>,
    /// What to do when two upstreams' entries get the same local name.
    pub collision: CollisionPolicy,
    /// Tool search over the union of the upstreams (top-level `"toolSearch": {"pinned":
    /// [names]}`, or `true` for none pinned): `tools/list` shows the pinned tools and
    /// `search_tools` only ([`crate::registry::search`]).
    pub tool_search: Option<Vec<String>>,
    /// OpenTelemetry (top-level `"telemetry": true`): a SERVER span per request the gateway
    /// serves, and a CLIENT span, its child, per request it sends an upstream, whose context
    /// travels on in `params._meta` ([`crate::telemetry`]).
    pub telemetry: bool,
    /// The gateway's own authorization (top-level `"auth"`: the settings the bindings take,
    /// in camelCase, e.g. `{"jwksUrl", "issuer", "resource", "requiredScopes", "toolScopes",
    /// "visibility"}`, see [`crate::auth::server::auth_config`]). `mcpcore gateway` checks
    /// callers' bearer tokens with it on HTTP (on stdio: `MCP_ACCESS_TOKEN`), and each caller
    /// sees its own catalogue ([`crate::auth::server::Visibility`]); a host serving
    /// [`Gateway::server`](super::Gateway::server) itself passes it to
    /// `HttpServerConfig::auth` (or `Server::serve_stdio_with_auth`). Default: none.
    pub auth: Option<crate::auth::server::AuthConfig>,
}

/// One upstream server.
#[derive(Debug, Clone)]
pub struct Upstream {
    /// The entry's name in the config (also the id of its tools' origin).
    pub name: String,
    /// How to reach it.
    pub transport: UpstreamTransport,
    /// The prefix and tool filter its entries are mounted with (`mount.policy` is the
    /// config's collision policy).
    pub mount: Mount,
    /// Exactly this revision on the upstream connection.
    pub version: Option<ProtocolVersion>,
    /// Only this lineage on the upstream connection.
    pub lineage: Option<Lineage>,
    /// The timeout of each request to the upstream.
    pub timeout: Option<Duration>,
    /// When the upstream is connected.
    pub start: Start,
    /// Whether a stdio upstream that exits is started again (with backoff).
    pub restart: bool,
    /// Record a CLIENT span per request to it (the config's top-level `telemetry`).
    pub telemetry: bool,
}

/// When an upstream is connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Start {
    /// Before the gateway serves: an upstream that cannot be reached stops the start.
    #[default]
    Eager,
    /// After the gateway serves, in the background (retried with backoff while it fails):
    /// its entries appear, announced as list changes, once it is connected.
    Lazy,
}

/// How an upstream is reached.
#[derive(Debug, Clone)]
pub enum UpstreamTransport {
    /// A child process speaking MCP on its stdin and stdout.
    Stdio(StdioCommand),
    /// An HTTP endpoint.
    Http {
        /// The endpoint (`…/mcp` for Streamable HTTP, `…/sse` for 2024-11-05 SSE).
        url: String,
        /// Extra headers on every request (credentials for the upstream go here).
        headers: Vec<(String, String)>,
        /// Streamable HTTP, SSE, or the first that works.
        transport: HttpTransport,
        /// OAuth credentials of the gateway at this upstream (its own client: the gateway's
        /// callers' tokens are never passed on).
        oauth: Option<UpstreamOAuth>,
    },
}

/// The gateway's OAuth client at one upstream (entry key `oauth`): the client credentials
/// grant with a pre-registered client (`clientId`, `clientSecret`; none: a public client),
/// optional `scopes`, tokens kept in memory or in the file `tokenStore` (0600 JSON). The
/// core's OAuth client does the rest: discovery from the upstream's 401, the token request
/// with `resource`, refresh, step-up on 403 `insufficient_scope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamOAuth {
    /// The pre-registered client id.
    pub client_id: String,
    /// Its secret (`client_secret_basic`/`_post`); `None`: a public client.
    pub client_secret: Option<String>,
    /// Scopes to ask for instead of the spec's selection.
    pub scopes: Option<Vec<String>>,
    /// Where tokens are kept (default: memory).
    pub token_store: Option<PathBuf>,
    /// DPoP-bound tokens (RFC 9449) whenever the authorization server offers them (`"dpop":
    /// true`). By default (false) only when the upstream's Protected Resource Metadata also
    /// says it takes them (`dpop_signing_alg_values_supported`), so an authorization server
    /// that offers DPoP to every client (Keycloak) does not send DPoP tokens to an upstream
    /// that takes only bearer tokens.
    pub dpop: bool,
    /// Calls on behalf of each caller (`"onBehalfOf"`): tool calls, prompts and resource reads
    /// go with a token of the caller's own, exchanged for the caller's token at this endpoint
    /// (RFC 8693) as this client; the client credentials above still list the catalogue.
    pub on_behalf_of: Option<OnBehalfOf>,
}

/// `"onBehalfOf": {"tokenEndpoint", "audience", "resource", "scopes"}` of an upstream's
/// `oauth` (see [`crate::remote::obo`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OnBehalfOf {
    /// The authorization server's token endpoint.
    pub token_endpoint: String,
    /// RFC 8693 `audience` of the exchanged token (the upstream, as the server names it).
    pub audience: Option<String>,
    /// RFC 8707 `resource` (the upstream's URL), when the server takes resource indicators.
    pub resource: Option<String>,
    /// Scopes to ask for.
    pub scopes: Option<Vec<String>>,
}

/// The `oauth` object of an entry, as written.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OAuthEntry {
    client_id: String,
    client_secret: Option<String>,
    scopes: Option<Vec<String>>,
    token_store: Option<PathBuf>,
    #[serde(default)]
    dpop: bool,
    on_behalf_of: Option<OnBehalfOf>,
}

/// One entry as written (fields the gateway does not know are ignored).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    prefix: Option<String>,
    uri_prefix: Option<String>,
    protocol_version: Option<String>,
    lineage: Option<String>,
    #[serde(default)]
    include: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
    timeout_ms: Option<u64>,
    #[serde(default)]
    disabled: bool,
    start: Option<String>,
    restart: Option<bool>,
    oauth: Option<OAuthEntry>,
}

impl GatewayConfig {
    /// The same config with OpenTelemetry on (as top-level `"telemetry": true` says).
    pub fn with_telemetry(mut self) -> Self {
        self.telemetry = true;
        for u in &mut self.upstreams {
            u.telemetry = true;
        }
        self
    }

    /// Reads the config file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<GatewayConfig> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::invalid_input(format!("cannot read {}: {e}", path.display())))?;
        GatewayConfig::from_json(&text)
            .map_err(|e| Error::invalid_input(format!("{}: {}", path.display(), e.message())))
    }

    /// Parses a config from JSON text.
    pub fn from_json(text: &str) -> Result<GatewayConfig> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| Error::invalid_input(format!("not valid JSON: {e}")))?;
        GatewayConfig::from_value(value)
    }

    /// The upstreams called on behalf of each caller (`oauth.onBehalfOf`), by name.
    pub fn on_behalf_upstreams(&self) -> Vec<&str> {
        self.upstreams
            .iter()
            .filter(|u| {
                matches!(&u.transport, UpstreamTransport::Http { oauth: Some(o), .. } if o.on_behalf_of.is_some())
            })
            .map(|u| u.name.as_str())
            .collect()
    }

    /// Refuses a config with `"auth"` where the host serves the gateway itself (a binding's
    /// gateway or mount), which would otherwise ignore it: `remedy` says where the host's
    /// authorization goes instead.
    pub fn refuse_auth(&self, remedy: &str) -> Result<()> {
        match self.auth {
            None => Ok(()),
            Some(_) => Err(Error::invalid_input(format!(
                "the config's \"auth\" is read by `mcpcore gateway` only; {remedy}"
            ))),
        }
    }

    /// Parses a config from a JSON value.
    pub fn from_value(value: Value) -> Result<GatewayConfig> {
        let Value::Object(top) = value else {
            return Err(Error::invalid_input("the config must be a JSON object with \"mcpServers\""));
        };
        let (key, servers) = match (top.get("mcpServers"), top.get("servers")) {
            (Some(s), _) => ("mcpServers", s),
            (None, Some(s)) => ("servers", s),
            (None, None) => return Err(Error::invalid_input("the config has no \"mcpServers\" object")),
        };
        let Value::Object(servers) = servers else {
            return Err(Error::invalid_input(format!("\"{key}\" must be an object of named servers")));
        };
        let collision = collision(&top)?;
        let mut upstreams = Vec::new();
        let mut sorted: Vec<(&String, &Value)> = servers.iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        for (name, v) in sorted {
            let fail = |m: String| Error::invalid_input(format!("{key}.{name}: {m}"));
            let v = interpolate(v.clone(), &|var| std::env::var(var).ok()).map_err(fail)?;
            let entry: Entry = serde_json::from_value(v).map_err(|e| fail(e.to_string()))?;
            if entry.disabled {
                continue;
            }
            upstreams.push(upstream(name, entry, collision).map_err(fail)?);
        }
        if upstreams.is_empty() {
            return Err(Error::invalid_input(format!("\"{key}\" names no (enabled) server")));
        }
        let tool_search = tool_search(&top)?;
        let telemetry = match top.get("telemetry") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(Error::invalid_input("\"telemetry\" must be true or false")),
        };
        for u in &mut upstreams {
            u.telemetry = telemetry;
        }
        let auth = match top.get("auth") {
            None | Some(Value::Null) => None,
            Some(v @ Value::Object(_)) => {
                let v = interpolate(v.clone(), &|var| std::env::var(var).ok())
                    .map_err(|m| Error::invalid_input(format!("auth: {m}")))?;
                let spelling = crate::auth::server::Spelling::Camel;
                Some(crate::auth::server::auth_config(&v.to_string(), spelling, None)?)
            }
            Some(_) => return Err(Error::invalid_input("\"auth\" must be an object of settings")),
        };
        Ok(GatewayConfig { upstreams, collision, tool_search, telemetry, auth })
    }
}

/// `value` with `${env:NAME}` / `${NAME}` (optionally `:-default`) replaced in every string, as
/// `lookup` gives the variables; an unset one without a default is an error naming it.
fn interpolate(value: Value, lookup: &dyn Fn(&str) -> Option<String>) -> std::result::Result<Value, String> {
    Ok(match value {
        Value::String(s) => Value::String(expand(&s, lookup)?),
        Value::Array(items) => Value::Array(
            items.into_iter().map(|v| interpolate(v, lookup)).collect::<std::result::Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| Ok((k, interpolate(v, lookup)?)))
                .collect::<std::result::Result<_, String>>()?,
        ),
        other => other,
    })
}

fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> std::result::Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &rest[start + 2..start + len];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let name = name.strip_prefix("env:").unwrap_or(name);
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            // Not a variable (`${input:x}` of VS Code, or plain text): left as it is.
            out.push_str(&rest[start..start + len + 1]);
        } else {
            match (lookup(name), default) {
                (Some(v), _) => out.push_str(&v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => {
                    return Err(format!("the environment variable {name} is not set (used as ${{{inner}}})"))
                }
            }
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn tool_search(top: &Map<String, Value>) -> Result<Option<Vec<String>>> {
    let bad = || Error::invalid_input("\"toolSearch\" must be true, false or {\"pinned\": [tool names]}");
    match top.get("toolSearch") {
        None | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(Some(Vec::new())),
        Some(Value::Object(o)) => match o.get("pinned") {
            None => Ok(Some(Vec::new())),
            Some(Value::Array(names)) => names
                .iter()
                .map(|n| n.as_str().map(str::to_owned).ok_or_else(bad))
                .collect::<Result<_>>()
                .map(Some),
            Some(_) => Err(bad()),
        },
        Some(_) => Err(bad()),
    }
}

fn collision(top: &Map<String, Value>) -> Result<CollisionPolicy> {
    Ok(match top.get("collision") {
        None => CollisionPolicy::Error,
        Some(Value::String(s)) if s == "error" => CollisionPolicy::Error,
        Some(Value::String(s)) if s == "skip" => CollisionPolicy::Skip,
        Some(Value::String(s)) if s == "prefix" => CollisionPolicy::Prefix,
        Some(other) => {
            return Err(Error::invalid_input(format!(
                "\"collision\" must be \"error\", \"skip\" or \"prefix\", not {other}"
            )))
        }
    })
}

fn upstream(name: &str, e: Entry, policy: CollisionPolicy) -> std::result::Result<Upstream, String> {
    if e.oauth.is_some() && e.url.is_none() {
        return Err("\"oauth\" needs a \"url\" (an HTTP upstream)".into());
    }
    let transport = match (e.command, e.url) {
        (Some(_), Some(_)) => return Err("give either \"command\" or \"url\", not both".into()),
        (None, None) => return Err("needs \"command\" (a stdio server) or \"url\" (an HTTP server)".into()),
        (Some(program), None) => {
            if !matches!(e.kind.as_deref(), None | Some("stdio")) {
                return Err(format!(
                    "\"type\" {:?} does not fit a \"command\" (use \"stdio\")",
                    e.kind.unwrap()
                ));
            }
            let mut cmd = StdioCommand::new(program, e.args);
            cmd.env = e.env.into_iter().collect();
            cmd.cwd = e.cwd;
            UpstreamTransport::Stdio(cmd)
        }
        (None, Some(url)) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(format!("\"url\" must be http:// or https://, not {url:?}"));
            }
            let transport = match e.kind.as_deref() {
                None => HttpTransport::Auto,
                Some("http" | "streamable-http" | "streamableHttp") => HttpTransport::Streamable,
                Some("sse") => HttpTransport::Sse,
                Some(other) => {
                    return Err(format!(
                        "\"type\" must be \"http\", \"streamable-http\" or \"sse\", not {other:?}"
                    ))
                }
            };
            let oauth = e.oauth.map(|o| UpstreamOAuth {
                client_id: o.client_id,
                client_secret: o.client_secret,
                scopes: o.scopes,
                token_store: o.token_store,
                dpop: o.dpop,
                on_behalf_of: o.on_behalf_of,
            });
            UpstreamTransport::Http { url, headers: e.headers.into_iter().collect(), transport, oauth }
        }
    };
    let version = match e.protocol_version {
        None => None,
        Some(v) => Some(v.parse::<ProtocolVersion>().map_err(|err| format!("\"protocolVersion\": {err}"))?),
    };
    let lineage = match e.lineage.as_deref() {
        None => None,
        Some("modern") => Some(Lineage::Modern),
        Some("legacy") => Some(Lineage::Legacy),
        Some(other) => return Err(format!("\"lineage\" must be \"modern\" or \"legacy\", not {other:?}")),
    };
    let timeout = match e.timeout_ms {
        Some(0) => return Err("\"timeoutMs\" must be positive".into()),
        t => t.map(Duration::from_millis),
    };
    for pattern in e.include.iter().chain(&e.exclude) {
        if pattern.is_empty() {
            return Err("an empty tool name in \"include\" / \"exclude\"".into());
        }
    }
    let start = match e.start.as_deref() {
        None | Some("eager") => Start::Eager,
        Some("lazy") => Start::Lazy,
        Some(other) => return Err(format!("\"start\" must be \"eager\" or \"lazy\", not {other:?}")),
    };
    let prefix = e.prefix.unwrap_or_else(|| format!("{name}__"));
    let uri_prefix = match e.uri_prefix {
        Some(p) => {
            let scheme = p.starts_with(|c: char| c.is_ascii_alphabetic())
                && p.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
            if !p.is_empty() && !scheme {
                return Err(format!(
                    "\"uriPrefix\" must start a URI scheme (a letter, then letters, digits, '+', '-', '.'), not {p:?}"
                ));
            }
            p
        }
        None if prefix.is_empty() => String::new(),
        None => Mount::uri_prefix_for(name),
    };
    let tools = ToolFilter { include: e.include, exclude: e.exclude };
    Ok(Upstream {
        name: name.to_owned(),
        transport,
        mount: Mount { prefix, uri_prefix, tools, policy },
        version,
        lineage,
        timeout,
        start,
        restart: e.restart.unwrap_or(true),
        telemetry: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_the_editor_shapes() {
        let c = GatewayConfig::from_value(json!({
            "mcpServers": {
                "b": {"url": "http://127.0.0.1:1/mcp", "type": "sse", "headers": {"X-Key": "k"},
                      "prefix": "", "include": ["echo"], "autoApprove": ["x"],
                      "oauth": {"clientId": "gw", "clientSecret": "s", "scopes": ["mcp:tools"]}},
                "a": {"command": "node", "args": ["s.js"], "env": {"K": "V"}, "cwd": "/tmp",
                      "protocolVersion": "2025-11-25", "timeoutMs": 1500, "exclude": ["get-*"],
                      "start": "lazy", "restart": false},
                "off": {"command": "x", "disabled": true}
            },
            "collision": "skip",
            "globalShortcut": "x"
        }))
        .unwrap();
        assert_eq!(c.collision, CollisionPolicy::Skip);
        let names: Vec<_> = c.upstreams.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        let a = &c.upstreams[0];
        assert_eq!(a.mount.prefix, "a__");
        assert_eq!(a.mount.uri_prefix, "a+");
        assert_eq!(a.mount.policy, CollisionPolicy::Skip);
        assert_eq!(a.version, Some(ProtocolVersion::V2025_11_25));
        assert_eq!(a.timeout, Some(Duration::from_millis(1500)));
        assert_eq!((a.start, a.restart), (Start::Lazy, false));
        assert!(!a.mount.tools.admits("get-sum") && a.mount.tools.admits("echo"));
        let UpstreamTransport::Stdio(cmd) = &a.transport else { panic!("stdio") };
        assert_eq!((cmd.program.as_str(), cmd.args.clone()), ("node", vec!["s.js".to_owned()]));
        assert_eq!(cmd.env, [("K".to_owned(), "V".to_owned())]);
        let b = &c.upstreams[1];
        assert_eq!(b.mount.prefix, "");
        assert_eq!(b.mount.uri_prefix, "", "no prefix, URIs as they are");
        assert_eq!((b.start, b.restart), (Start::Eager, true));
        let UpstreamTransport::Http { transport, headers, oauth, .. } = &b.transport else { panic!("http") };
        assert_eq!(*transport, HttpTransport::Sse);
        assert_eq!(headers, &[("X-Key".to_owned(), "k".to_owned())]);
        let o = oauth.as_ref().unwrap();
        assert_eq!((o.client_id.as_str(), o.client_secret.as_deref()), ("gw", Some("s")));
        assert_eq!(o.scopes, Some(vec!["mcp:tools".to_owned()]));
    }

    #[test]
    fn environment_variables_are_interpolated() {
        let lookup = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
        let v = interpolate(
            json!({"headers": {"Authorization": "Bearer ${env:TOKEN}"}, "args": ["${TOKEN}", "${HOME_X:-/h}",
                   "${input:key}", "$plain", "${env:UNSET:-}"], "timeoutMs": 5}),
            &lookup,
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"headers": {"Authorization": "Bearer s3cret"}, "args": ["s3cret", "/h", "${input:key}", "$plain", ""],
                   "timeoutMs": 5})
        );
        let e = interpolate(json!({"url": "http://h/${env:MISSING}"}), &lookup).unwrap_err();
        assert!(e.contains("MISSING is not set"), "{e}");
        let e = GatewayConfig::from_value(
            json!({"mcpServers": {"e": {"command": "x", "env": {"K": "${env:MCPCORE_TEST_SURELY_UNSET}"}}}}),
        )
        .unwrap_err();
        assert!(
            e.message().starts_with("mcpServers.e: the environment variable MCPCORE_TEST_SURELY_UNSET"),
            "{e}"
        );
    }

    #[test]
    fn vs_code_servers_key() {
        let c =
            GatewayConfig::from_value(json!({"servers": {"x": {"type": "stdio", "command": "y"}}})).unwrap();
        assert_eq!(c.collision, CollisionPolicy::Error);
        assert_eq!(c.upstreams[0].name, "x");
    }

    #[test]
    fn bad_shapes_name_the_entry() {
        let cases = [
            (json!({"mcpServers": {"e": {"command": 3}}}), "mcpServers.e: invalid type"),
            (json!({"mcpServers": {"e": {}}}), "mcpServers.e: needs \"command\""),
            (json!({"mcpServers": {"e": {"command": "x", "url": "http://h"}}}), "mcpServers.e: give either"),
            (json!({"mcpServers": {"e": {"url": "ftp://h"}}}), "mcpServers.e: \"url\" must be"),
            (
                json!({"mcpServers": {"e": {"url": "http://h", "type": "ws"}}}),
                "mcpServers.e: \"type\" must be",
            ),
            (
                json!({"mcpServers": {"e": {"command": "x", "protocolVersion": "1999"}}}),
                "mcpServers.e: \"protocolVersion\"",
            ),
            (json!({"mcpServers": {"e": {"command": "x", "timeoutMs": 0}}}), "mcpServers.e: \"timeoutMs\""),
            (
                json!({"mcpServers": {"e": {"command": "x", "start": "later"}}}),
                "mcpServers.e: \"start\" must be",
            ),
            (
                json!({"mcpServers": {"e": {"command": "x", "uriPrefix": "1x:"}}}),
                "mcpServers.e: \"uriPrefix\" must",
            ),
            (
                json!({"mcpServers": {"e": {"command": "x", "oauth": {"clientId": "c"}}}}),
                "mcpServers.e: \"oauth\" needs",
            ),
            (
                json!({"mcpServers": {"e": {"url": "http://h", "oauth": {"client": "c"}}}}),
                "mcpServers.e: unknown field",
            ),
            (json!({"mcpServers": {"e": {"command": "x", "include": "echo"}}}), "mcpServers.e: invalid type"),
            (json!({"mcpServers": {}}), "names no"),
            (json!({"mcpServers": []}), "must be an object"),
            (json!({"other": {}}), "no \"mcpServers\""),
            (json!({"mcpServers": {"e": {"command": "x"}}, "collision": "merge"}), "\"collision\" must be"),
        ];
        for (config, wanted) in cases {
            let e = GatewayConfig::from_value(config.clone()).unwrap_err();
            assert!(e.message().contains(wanted), "{config}: {e}");
        }
        assert!(GatewayConfig::from_json("{").unwrap_err().message().contains("not valid JSON"));
    }
}
