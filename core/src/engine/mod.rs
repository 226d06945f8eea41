//! The server side of the protocol, both lineages, as pure functions.
//!
//! [`ServerEngine::handle`] takes one inbound message and the per-connection [`Connection`]
//! state and says what to do: reply now, run a tool call (the async shell runs it and hands the
//! outcome to [`ServerEngine::finish_call`]), cancel a call, or nothing. No I/O, no clock, no
//! spawning happens here, so every rule of both lineages is testable in memory.
//!
//! Lineage is chosen per request: a request whose `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion` is modern (stateless); `initialize` starts a legacy
//! session on this connection; anything else belongs to that legacy session.

mod shape;

use crate::error::{ErrorCode, ErrorData};
use crate::jsonrpc::{Message, Notification, Request, RequestId, Response};
use crate::protocol::capabilities::ListChangedCapability;
use crate::protocol::lifecycle::{InitializeRequestParams, UnsupportedVersionData};
use crate::protocol::logging::{LoggingLevel, SetLevelRequestParams};
use crate::protocol::{
    meta, CacheScope, CallToolRequestParams, CallToolResult, Implementation, ProtocolVersion,
};
use crate::protocol::{ClientCapabilities, ServerCapabilities};
use crate::registry::{Arguments, RegisteredTool, ToolRegistry};
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// Server settings that shape what the engine answers.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Name and version reported to clients.
    pub info: Implementation,
    /// Instructions for the model, sent in `initialize` / `server/discover`.
    pub instructions: Option<String>,
    /// Revisions served (default: all of them, both lineages).
    pub versions: Vec<ProtocolVersion>,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// `ttlMs` of modern list results and `server/discover`.
    pub ttl_ms: u64,
    /// `cacheScope` of modern cacheable results.
    pub cache_scope: CacheScope,
}

impl ServerConfig {
    /// Defaults for a server called `name` at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ServerConfig {
            info: Implementation::new(name, version),
            instructions: None,
            versions: ProtocolVersion::ALL.to_vec(),
            page_size: 100,
            ttl_ms: 60_000,
            cache_scope: CacheScope::Public,
        }
    }
}

/// Legacy session state of one connection (a stdio process, an HTTP session).
#[derive(Debug, Clone, PartialEq)]
pub struct LegacySession {
    /// The negotiated revision.
    pub version: ProtocolVersion,
    /// What the client declared in `initialize`.
    pub client_capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// `notifications/initialized` has arrived.
    pub initialized: bool,
    /// The level set by `logging/setLevel`; until then every level is sent.
    pub log_level: Option<LoggingLevel>,
}

/// Per-connection state. Modern requests leave it untouched.
#[derive(Debug, Clone, Default)]
pub struct Connection {
    legacy: Option<LegacySession>,
}

impl Connection {
    /// A fresh connection.
    pub fn new() -> Self {
        Self::default()
    }
    /// The legacy session, once `initialize` was answered.
    pub fn legacy(&self) -> Option<&LegacySession> {
        self.legacy.as_ref()
    }
}

/// A tool call the shell must run, then settle with [`ServerEngine::finish_call`].
#[derive(Debug)]
pub struct PendingCall {
    /// The request id.
    pub id: RequestId,
    /// The revision the request speaks.
    pub version: ProtocolVersion,
    /// The tool.
    pub tool: Arc<RegisteredTool>,
    /// Validated arguments.
    pub arguments: Arguments,
    /// `_meta.progressToken`, when the client wants progress.
    pub progress_token: Option<Value>,
    /// The lowest log level the caller wants from this call; `None`: no log messages.
    pub log_level: Option<LoggingLevel>,
}

/// What the shell must do with one inbound message.
#[derive(Debug)]
pub enum Action {
    /// Send this response.
    Reply(Response),
    /// Run this tool call.
    CallTool(PendingCall),
    /// Cancel the in-flight request with this id (ignore if unknown).
    Cancel(RequestId),
    /// A response from the client to a server→client request.
    PeerResponse(Response),
    /// Nothing to do (a notification was consumed).
    Nothing,
}

const LOG_LEVELS: [&str; 8] =
    ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/// The server protocol engine: configuration plus the tool registry.
#[derive(Debug, Clone)]
pub struct ServerEngine {
    config: ServerConfig,
    registry: Arc<ToolRegistry>,
    supported: Vec<String>,
}

impl ServerEngine {
    /// An engine serving `registry` with `config`.
    pub fn new(mut config: ServerConfig, registry: Arc<ToolRegistry>) -> Self {
        config.versions.sort_by(|a, b| b.cmp(a));
        config.versions.dedup();
        let supported = config.versions.iter().map(|v| v.as_str().to_owned()).collect();
        ServerEngine { config, registry, supported }
    }

    /// The configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The registry.
    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    /// True when a JSON-RPC batch is acceptable on `conn` (a 2025-03-26 session only).
    pub fn accepts_batch(&self, conn: &Connection) -> bool {
        conn.legacy.as_ref().is_some_and(|s| s.version.allows_batch())
    }

    /// The error owed for a batch that is not acceptable.
    pub fn batch_rejected() -> Response {
        Response::error(
            None,
            ErrorData::invalid_request(
                "Invalid Request: JSON-RPC batches are only accepted on a 2025-03-26 session",
            ),
        )
    }

    /// Decides what to do with one inbound message.
    pub fn handle(&self, conn: &mut Connection, msg: Message) -> Action {
        match msg {
            Message::Request(req) => self.handle_request(conn, req),
            Message::Notification(n) => self.handle_notification(conn, n),
            Message::Response(r) => Action::PeerResponse(r),
        }
    }

    fn handle_notification(&self, conn: &mut Connection, n: Notification) -> Action {
        match n.method.as_str() {
            "notifications/initialized" => {
                if let Some(s) = &mut conn.legacy {
                    s.initialized = true;
                }
                Action::Nothing
            }
            "notifications/cancelled" => {
                let id = n.params.as_ref().and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
                id.map(Action::Cancel).unwrap_or(Action::Nothing)
            }
            _ => Action::Nothing,
        }
    }

    fn handle_request(&self, conn: &mut Connection, req: Request) -> Action {
        let meta_version =
            req.params.as_ref().and_then(|p| p.get("_meta")).and_then(|m| m.get(meta::PROTOCOL_VERSION));
        if meta_version.is_some() {
            return self.modern(req);
        }
        if req.method == "initialize" {
            return self.initialize(conn, req);
        }
        let session = conn.legacy.as_ref().map(|s| (s.initialized, s.version, s.log_level));
        match session {
            Some((initialized, version, log_level)) if initialized || req.method == "ping" => {
                if req.method == "logging/setLevel" {
                    return self.set_level(conn, req, version);
                }
                self.legacy(req, version, Some(log_level.unwrap_or(LoggingLevel::Debug)))
            }
            Some(_) => reply_err(
                req.id,
                ErrorData::invalid_request(format!(
                    "Invalid Request: {} sent before notifications/initialized; finish the initialize handshake first",
                    req.method
                )),
            ),
            None if req.method == "ping" => Action::Reply(Response::result(req.id, json!({}))),
            None => reply_err(
                req.id,
                ErrorData::invalid_params(format!(
                    "Invalid params: {} carries no _meta[\"{}\"]; a 2026-07-28 request must carry \
                     _meta protocolVersion and clientCapabilities, a legacy client must send initialize first",
                    req.method,
                    meta::PROTOCOL_VERSION
                )),
            ),
        }
    }

    // ----- modern lineage -------------------------------------------------------------------

    fn unsupported_version_error(&self, requested: &str) -> ErrorData {
        let data =
            UnsupportedVersionData { supported: self.supported.clone(), requested: requested.to_owned() };
        ErrorData::new(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
            .with_data(serde_json::to_value(data).expect("serializable"))
    }

    /// Checks the `_meta` of a modern request (it names `protocolVersion`): the version is one we
    /// serve, `clientCapabilities` is an object, a log level is known. These are the errors an HTTP
    /// server answers with status 400 before dispatch (`-32022`, `-32602`).
    pub fn modern_precheck(&self, req: &Request) -> Result<ProtocolVersion, ErrorData> {
        let meta_obj = req.params.as_ref().and_then(|p| p.get("_meta")).and_then(Value::as_object);
        let Some(meta_obj) = meta_obj else {
            return Err(ErrorData::invalid_params("Invalid params: _meta must be an object"));
        };
        let Some(requested) = meta_obj.get(meta::PROTOCOL_VERSION).and_then(Value::as_str) else {
            return Err(ErrorData::invalid_params(format!(
                "Invalid params: _meta[\"{}\"] must be a string",
                meta::PROTOCOL_VERSION
            )));
        };
        let version = match ProtocolVersion::parse(requested) {
            Some(v) if v.is_modern() && self.config.versions.contains(&v) => v,
            _ => return Err(self.unsupported_version_error(requested)),
        };
        if !meta_obj.get(meta::CLIENT_CAPABILITIES).is_some_and(Value::is_object) {
            return Err(ErrorData::invalid_params(format!(
                "Invalid params: missing _meta[\"{}\"] (send {{}} when the client has no optional capabilities)",
                meta::CLIENT_CAPABILITIES
            )));
        }
        if let Some(level) = meta_obj.get(meta::LOG_LEVEL) {
            if !level.as_str().is_some_and(|l| LOG_LEVELS.contains(&l)) {
                return Err(ErrorData::invalid_params(format!("Invalid params: unknown log level {level}")));
            }
        }
        Ok(version)
    }

    fn modern(&self, req: Request) -> Action {
        let version = match self.modern_precheck(&req) {
            Ok(v) => v,
            Err(e) => return reply_err(req.id, e),
        };
        match req.method.as_str() {
            "server/discover" => {
                let result = json!({
                    "supportedVersions": self.supported,
                    "capabilities": self.capabilities(),
                    "ttlMs": self.config.ttl_ms,
                    "cacheScope": self.config.cache_scope,
                });
                let mut result = result;
                if let Some(i) = &self.config.instructions {
                    result["instructions"] = json!(i);
                }
                self.reply_ok(req.id, version, result)
            }
            "tools/list" => self.tools_list(req, version),
            "tools/call" => {
                // Modern: log messages only for requests that ask, at or above their level.
                let level = req
                    .params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get(meta::LOG_LEVEL))
                    .and_then(Value::as_str)
                    .and_then(LoggingLevel::parse);
                self.tools_call(req, version, level)
            }
            _ => reply_err(req.id, ErrorData::method_not_found(&req.method)),
        }
    }

    // ----- legacy lineage -------------------------------------------------------------------

    fn initialize(&self, conn: &mut Connection, req: Request) -> Action {
        if conn.legacy.is_some() {
            return reply_err(
                req.id,
                ErrorData::invalid_request(
                    "Invalid Request: initialize was already received on this connection",
                ),
            );
        }
        let params: InitializeRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let legacy: Vec<ProtocolVersion> =
            self.config.versions.iter().copied().filter(|v| !v.is_modern()).collect();
        let version = match ProtocolVersion::parse(&params.protocol_version) {
            Some(v) if legacy.contains(&v) => v,
            _ => match legacy.first() {
                Some(newest) => *newest,
                None => return reply_err(req.id, self.unsupported_version_error(&params.protocol_version)),
            },
        };
        conn.legacy = Some(LegacySession {
            version,
            client_capabilities: params.capabilities,
            client_info: params.client_info,
            initialized: false,
            log_level: None,
        });
        let mut result = json!({
            "protocolVersion": version.as_str(),
            "capabilities": self.capabilities(),
            "serverInfo": shape::implementation(serde_json::to_value(&self.config.info).expect("serializable"), version),
        });
        if let Some(i) = &self.config.instructions {
            result["instructions"] = json!(i);
        }
        self.reply_ok(req.id, version, result)
    }

    fn legacy(&self, req: Request, version: ProtocolVersion, log_level: Option<LoggingLevel>) -> Action {
        match req.method.as_str() {
            "ping" => self.reply_ok(req.id, version, json!({})),
            "tools/list" => self.tools_list(req, version),
            "tools/call" => self.tools_call(req, version, log_level),
            _ => reply_err(req.id, ErrorData::method_not_found(&req.method)),
        }
    }

    // ----- shared methods -------------------------------------------------------------------

    fn capabilities(&self) -> ServerCapabilities {
        ServerCapabilities {
            tools: Some(ListChangedCapability { list_changed: Some(false) }),
            logging: Some(serde_json::Map::new()),
            ..Default::default()
        }
    }

    fn tools_list(&self, req: Request, version: ProtocolVersion) -> Action {
        let cursor = match req.params.as_ref().and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => {
                return reply_err(
                    req.id,
                    ErrorData::invalid_params("Invalid params: cursor must be a string"),
                )
            }
        };
        let (tools, next) = match self.registry.page(cursor, self.config.page_size) {
            Ok(page) => page,
            Err(e) => return reply_err(req.id, e),
        };
        let tools: Vec<Value> = tools
            .into_iter()
            .map(|t| shape::tool(serde_json::to_value(t).expect("serializable"), version))
            .collect();
        let mut result = json!({ "tools": tools });
        if let Some(n) = next {
            result["nextCursor"] = json!(n);
        }
        if version.is_modern() {
            result["ttlMs"] = json!(self.config.ttl_ms);
            result["cacheScope"] = json!(self.config.cache_scope);
        }
        self.reply_ok(req.id, version, result)
    }

    /// Legacy `logging/setLevel`: remembers the session's level; the result is `{}`.
    fn set_level(&self, conn: &mut Connection, req: Request, version: ProtocolVersion) -> Action {
        let params: SetLevelRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        if let Some(s) = &mut conn.legacy {
            s.log_level = Some(params.level);
        }
        self.reply_ok(req.id, version, json!({}))
    }

    fn tools_call(&self, req: Request, version: ProtocolVersion, log_level: Option<LoggingLevel>) -> Action {
        let params: CallToolRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let Some(tool) = self.registry.get(&params.name) else {
            return reply_err(
                req.id,
                ErrorData::invalid_params(format!("Unknown tool: {}", params.name))
                    .with_data(json!({ "tool": params.name })),
            );
        };
        let arguments = Value::Object(params.arguments.unwrap_or_default());
        if let Err(e) = tool.validate_arguments(&arguments) {
            return reply_err(req.id, e);
        }
        let Value::Object(arguments) = arguments else { unreachable!("built as an object") };
        let progress_token = params.meta.as_ref().and_then(|m| m.get(meta::PROGRESS_TOKEN)).cloned();
        Action::CallTool(PendingCall { id: req.id, version, tool, arguments, progress_token, log_level })
    }

    /// Turns the outcome of a tool call into its response.
    pub fn finish_call(&self, call: &PendingCall, outcome: crate::Result<CallToolResult>) -> Response {
        match call.tool.settle(outcome) {
            Ok(result) => {
                let value = shape::call_tool_result(
                    serde_json::to_value(result).expect("serializable"),
                    call.version,
                );
                match self.reply_ok(call.id.clone(), call.version, value) {
                    Action::Reply(r) => r,
                    _ => unreachable!("reply_ok always replies"),
                }
            }
            Err(e) => Response::error(Some(call.id.clone()), e),
        }
    }

    /// The response for a tool call whose handler panicked or was lost.
    pub fn crashed_call(&self, call: &PendingCall, why: &str) -> Response {
        self.finish_call(
            call,
            Err(crate::Error::tool(format!("Tool {} crashed: {why}", call.tool.tool().name))),
        )
    }

    fn reply_ok(&self, id: RequestId, version: ProtocolVersion, mut result: Value) -> Action {
        if version.is_modern() {
            if let Value::Object(obj) = &mut result {
                obj.insert("resultType".into(), json!("complete"));
                let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(m) = meta {
                    m.insert(
                        meta::SERVER_INFO.into(),
                        serde_json::to_value(&self.config.info).expect("serializable"),
                    );
                }
            }
        }
        Action::Reply(Response::result(id, result))
    }
}

fn reply_err(id: RequestId, e: ErrorData) -> Action {
    Action::Reply(Response::error(Some(id), e))
}

fn parse_params<T: serde::de::DeserializeOwned>(req: &Request) -> Result<T, ErrorData> {
    let params = Value::Object(req.params.clone().unwrap_or_default());
    serde_json::from_value(params)
        .map_err(|e| ErrorData::invalid_params(format!("Invalid params for {}: {e}", req.method)))
}

#[cfg(test)]
mod tests;
