//! The tool registry: host callbacks and remote tools, one namespace, called alike.
//!
//! Pure bookkeeping (no I/O): tools are kept ordinal by name, so `tools/list` is deterministic
//! and pagination is stable. Arguments are validated against each tool's `inputSchema` before
//! the handler runs; `structuredContent` is checked against `outputSchema` after.

mod glob;
mod handler;
mod inline;
pub mod paging;
pub(crate) mod schema;
pub mod search;
mod simple_schema;

pub use crate::context::{Arguments, BoxFuture, NotificationSink, RequestContext, ToolContext};
pub use glob::glob;
pub use handler::ToolHandler;
pub use inline::inline_refs;
pub(crate) use schema::invalid_arguments;

use crate::error::{Error, ErrorData, ErrorKind, Result};
use crate::protocol::{CallToolResult, Tool};
use schema::CompiledSchema;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// Where a registered tool comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOrigin {
    /// A host callback in this process.
    Local,
    /// A tool of a connected server, forwarded by [`crate::remote::RemoteServer`].
    Remote {
        /// The id the host gave that server.
        server: String,
        /// The tool's name on that server.
        remote_name: String,
    },
}

/// What to do when a tool name is already taken. Never silent: `Skip` and `Prefix` are
/// reported back in [`Registration`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CollisionPolicy {
    /// Refuse the new tool with an error (the default).
    #[default]
    Error,
    /// Keep the existing tool and skip the new one.
    Skip,
    /// Register the new tool as `{server}_{name}` (remote tools; local ones fall back to `Error`).
    Prefix,
}

/// The outcome of registering one tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    /// Registered under this name.
    Registered(String),
    /// Registered under a prefixed name because the original was taken.
    Renamed {
        /// The name the tool asked for.
        requested: String,
        /// The name it got.
        name: String,
    },
    /// Not registered: the name was taken and the policy was `Skip`.
    Skipped(String),
}

impl Registration {
    /// The name the tool is callable under, unless skipped.
    pub fn name(&self) -> Option<&str> {
        match self {
            Registration::Registered(n) | Registration::Renamed { name: n, .. } => Some(n),
            Registration::Skipped(_) => None,
        }
    }
}

/// A tool in the registry: its descriptor, handler and compiled schemas.
pub struct RegisteredTool {
    tool: Tool,
    handler: Arc<dyn ToolHandler>,
    input: CompiledSchema,
    output: Option<CompiledSchema>,
    origin: ToolOrigin,
    task: crate::tasks::TaskPolicy,
    /// The handler's [`ToolHandler::returns_json`], asked once.
    json: bool,
}

impl std::fmt::Debug for RegisteredTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredTool").field("tool", &self.tool.name).field("origin", &self.origin).finish()
    }
}

impl RegisteredTool {
    /// The descriptor, as listed.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }
    /// Where it comes from.
    pub fn origin(&self) -> &ToolOrigin {
        &self.origin
    }
    /// How it takes part in tasks (Tasks extension; forbidden unless registered with
    /// [`ToolRegistry::register_with_tasks`]).
    pub fn task_policy(&self) -> crate::tasks::TaskPolicy {
        self.task
    }
    /// Checks arguments against `inputSchema`: `-32602` with the failing fields in `data`.
    pub fn validate_arguments(&self, arguments: &Value) -> Result<(), ErrorData> {
        let errors = self.input.errors(arguments);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(schema::invalid_arguments(&self.tool.name, errors))
        }
    }
    /// Runs the handler (arguments must already be valid).
    pub fn invoke(
        &self,
        arguments: crate::context::Arguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<CallToolResult>> {
        self.handler.call(arguments, ctx)
    }
    /// True when [`RegisteredTool::invoke_json`] is the handler's own way to be called.
    pub fn returns_json(&self) -> bool {
        self.json
    }
    /// Runs the handler for its result as JSON ([`ToolHandler::call_json`]); settle it with
    /// [`RegisteredTool::settle_json`].
    pub fn invoke_json(
        &self,
        arguments: crate::context::Arguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<Value>> {
        self.handler.call_json(arguments, ctx)
    }
    /// [`RegisteredTool::settle`] for a result given as JSON: one that is not a
    /// `CallToolResult` object, or whose structured content breaks `outputSchema`, becomes an
    /// `isError: true` result.
    pub fn settle_json(
        &self,
        outcome: Result<Value>,
        version: crate::protocol::ProtocolVersion,
    ) -> Result<Value, ErrorData> {
        let typed = |r: CallToolResult| serde_json::to_value(r).expect("a tool result serializes");
        let mut result = match outcome {
            Ok(v) => v,
            Err(e) => return self.settle(Err(e), version).map(typed),
        };
        // As the typed result reads them: a `null` member is one left out.
        if let Value::Object(obj) = &mut result {
            obj.retain(|k, v| {
                !(v.is_null() && matches!(k.as_str(), "isError" | "structuredContent" | "_meta"))
            });
        }
        if let Some(problem) = malformed(&result) {
            return Ok(typed(self.failed(problem)));
        }
        let is_error = result.get("isError") == Some(&Value::Bool(true));
        match self.output_refusal(is_error, result.get("structuredContent")) {
            Some(refusal) => Ok(typed(refusal)),
            None => Ok(result),
        }
    }
    /// Turns a handler outcome into what goes on the wire for `version`: a JSON-RPC error for
    /// [`ErrorKind::Rpc`] (forwarded remote errors), and for arguments the handler found
    /// invalid ([`Error::invalid_arguments`]) where the revision makes them protocol errors;
    /// any other failure, and structured content that breaks `outputSchema`, becomes an
    /// `isError: true` result.
    pub fn settle(
        &self,
        outcome: Result<CallToolResult>,
        version: crate::protocol::ProtocolVersion,
    ) -> Result<CallToolResult, ErrorData> {
        match outcome {
            Ok(result) => Ok(self.check_output(result)),
            Err(e) if e.is_invalid_arguments() && !version.tool_input_errors_are_results() => {
                Err(e.rpc_error().cloned().expect("invalid arguments carry their error"))
            }
            Err(e) if e.kind() == ErrorKind::Rpc => {
                Err(e.rpc_error().cloned().unwrap_or_else(|| ErrorData::internal(e.message())))
            }
            Err(e) => Ok(CallToolResult::error(e.message().to_owned())),
        }
    }
    fn check_output(&self, result: CallToolResult) -> CallToolResult {
        self.output_refusal(result.is_error(), result.structured_content.as_ref()).unwrap_or(result)
    }
    /// The `isError` result owed when the tool declares an `outputSchema` and a successful
    /// result's `structuredContent` is missing or breaks it; `None` when the result may go as
    /// it is. Shared by the typed and the JSON results.
    fn output_refusal(&self, is_error: bool, structured: Option<&Value>) -> Option<CallToolResult> {
        let schema = self.output.as_ref().filter(|_| !is_error)?;
        let problem = match structured {
            None => "the tool declares an outputSchema but returned no structuredContent".to_owned(),
            Some(v) => {
                let errors = schema.errors(v);
                if errors.is_empty() {
                    return None;
                }
                format!("structuredContent does not match the tool's outputSchema: {}", Value::from(errors))
            }
        };
        Some(self.failed(&problem))
    }
    /// The `isError` result for a tool that failed because of `problem`.
    fn failed(&self, problem: &str) -> CallToolResult {
        CallToolResult::error(format!("Tool {} failed: {problem}", self.tool.name))
    }
}

/// Why `result` is not a `CallToolResult` object (2025-11-25 schema: `content` an array of
/// content blocks, each with a `type`; `isError` a boolean), or `None` when it is one.
fn malformed(result: &Value) -> Option<&'static str> {
    let Value::Object(obj) = result else { return Some("the result is not an object") };
    let Some(Value::Array(blocks)) = obj.get("content") else {
        return Some("the result has no content array");
    };
    if !blocks.iter().all(|b| b.get("type").is_some_and(Value::is_string)) {
        return Some("a content block has no type");
    }
    if obj.get("isError").is_some_and(|v| !v.is_boolean()) {
        return Some("isError is not a boolean");
    }
    None
}

/// The registry. Cheap to share behind an `Arc`; every method takes `&self`.
#[derive(Default)]
pub struct ToolRegistry {
    tools: RwLock<BTreeMap<String, Arc<RegisteredTool>>>,
    changes: crate::changes::ChangeFeed,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// Checks a tool name: 1–128 characters of `A-Z a-z 0-9 _ - .` (the spec's rule).
pub fn validate_tool_name(name: &str) -> Result<()> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if name.is_empty() || name.len() > 128 || !name.chars().all(ok_char) {
        return Err(Error::invalid_input(format!(
            "invalid tool name {name:?}: use 1-128 characters of A-Z, a-z, 0-9, '_', '-', '.'"
        )));
    }
    Ok(())
}

const CURSOR_PREFIX: &str = "t1.";

fn encode_cursor(last_name: &str) -> String {
    let hex: String = last_name.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{CURSOR_PREFIX}{hex}")
}

fn decode_cursor(cursor: &str) -> Option<String> {
    let hex = cursor.strip_prefix(CURSOR_PREFIX)?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> =
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()).collect();
    String::from_utf8(bytes?).ok()
}

/// One page of the entries of `map` that `keep` accepts, after the key named by `cursor`
/// (opaque `t1.<hex>` cursors), mapped by `f`, and the cursor of the next page; an unreadable
/// cursor is `-32602`.
pub(crate) fn page_of<V, T>(
    map: &BTreeMap<String, V>,
    cursor: Option<&str>,
    page_size: usize,
    keep: impl Fn(&V) -> bool,
    f: impl Fn(&V) -> T,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let after = match cursor {
        None => None,
        Some(c) => Some(
            decode_cursor(c).ok_or_else(|| ErrorData::invalid_params(format!("Invalid cursor: {c:?}")))?,
        ),
    };
    let size = page_size.max(1);
    let iter: Box<dyn Iterator<Item = (&String, &V)>> = match &after {
        None => Box::new(map.iter()),
        Some(a) => Box::new(
            map.range::<String, _>((std::ops::Bound::Excluded(a.clone()), std::ops::Bound::Unbounded)),
        ),
    };
    let mut iter = iter.filter(|(_, v)| keep(v));
    let page: Vec<(&String, &V)> = iter.by_ref().take(size).collect();
    let next = if iter.next().is_some() { page.last().map(|(k, _)| encode_cursor(k)) } else { None };
    Ok((page.into_iter().map(|(_, v)| f(v)).collect(), next))
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a local tool; fails if the name is invalid or taken.
    pub fn register(&self, tool: Tool, handler: impl ToolHandler) -> Result<()> {
        self.register_with(tool, Arc::new(handler), ToolOrigin::Local, CollisionPolicy::Error).map(|_| ())
    }

    /// Registers a local tool that may or must run as a task (Tasks extension, see
    /// [`crate::tasks`]); fails if the name is invalid or taken.
    ///
    /// ```
    /// use mcpcore::protocol::{CallToolResult, Tool};
    /// use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
    /// use mcpcore::tasks::TaskPolicy;
    /// let tools = ToolRegistry::new();
    /// let tool = Tool::new("report", "Builds a long report.", serde_json::json!({"type": "object"}));
    /// tools.register_with_tasks(tool, TaskPolicy::optional(), |_: Arguments, _: ToolContext| async move {
    ///     Ok(CallToolResult::text("the report"))
    /// }).unwrap();
    /// ```
    pub fn register_with_tasks(
        &self,
        tool: Tool,
        task: crate::tasks::TaskPolicy,
        handler: impl ToolHandler,
    ) -> Result<()> {
        self.insert(tool, Arc::new(handler), ToolOrigin::Local, CollisionPolicy::Error, task).map(|_| ())
    }

    /// Registers a tool with an origin and a collision policy.
    pub fn register_with(
        &self,
        tool: Tool,
        handler: Arc<dyn ToolHandler>,
        origin: ToolOrigin,
        policy: CollisionPolicy,
    ) -> Result<Registration> {
        self.insert(tool, handler, origin, policy, crate::tasks::TaskPolicy::default())
    }

    /// [`ToolRegistry::register_with`] for a tool that may also run as a task (a forwarded
    /// tool whose server offers the Tasks extension).
    pub(crate) fn register_with_task(
        &self,
        tool: Tool,
        handler: Arc<dyn ToolHandler>,
        origin: ToolOrigin,
        policy: CollisionPolicy,
        task: crate::tasks::TaskPolicy,
    ) -> Result<Registration> {
        self.insert(tool, handler, origin, policy, task)
    }

    fn insert(
        &self,
        tool: Tool,
        handler: Arc<dyn ToolHandler>,
        origin: ToolOrigin,
        policy: CollisionPolicy,
        task: crate::tasks::TaskPolicy,
    ) -> Result<Registration> {
        validate_tool_name(&tool.name)?;
        if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(Error::invalid_input(format!(
                "tool {}: inputSchema must be a JSON Schema object with \"type\": \"object\"",
                tool.name
            )));
        }
        let input = CompiledSchema::compile(&tool.input_schema)
            .map_err(|e| Error::invalid_input(format!("tool {}: invalid inputSchema: {e}", tool.name)))?;
        let output = match &tool.output_schema {
            None => None,
            Some(s) => Some(CompiledSchema::compile(s).map_err(|e| {
                Error::invalid_input(format!("tool {}: invalid outputSchema: {e}", tool.name))
            })?),
        };
        let mut tools = self.tools.write().expect("registry lock poisoned");
        let requested = tool.name.clone();
        let json = handler.returns_json();
        let mut entry = RegisteredTool { tool, handler, input, output, origin, task, json };
        if !tools.contains_key(&requested) {
            tools.insert(requested.clone(), Arc::new(entry));
            self.changes.send(crate::changes::Change::ToolsListChanged);
            return Ok(Registration::Registered(requested));
        }
        match (policy, &entry.origin) {
            (CollisionPolicy::Skip, _) => Ok(Registration::Skipped(requested)),
            (CollisionPolicy::Prefix, ToolOrigin::Remote { server, .. }) => {
                let name = format!("{server}_{requested}");
                validate_tool_name(&name)?;
                if tools.contains_key(&name) {
                    return Err(Error::invalid_input(format!(
                        "tool {requested:?} collides, and its prefixed name {name:?} is taken too"
                    )));
                }
                entry.tool.name = name.clone();
                tools.insert(name.clone(), Arc::new(entry));
                self.changes.send(crate::changes::Change::ToolsListChanged);
                Ok(Registration::Renamed { requested, name })
            }
            _ => {
                let from = |o: &ToolOrigin| match o {
                    ToolOrigin::Local => "a local tool".to_owned(),
                    ToolOrigin::Remote { server, remote_name } => {
                        format!("tool {remote_name:?} of server {server:?}")
                    }
                };
                let holder = from(&tools[&requested].origin);
                Err(Error::invalid_input(format!(
                    "a tool named {requested:?} is already registered ({} collides with {holder})",
                    from(&entry.origin)
                )))
            }
        }
    }

    /// Removes a tool; false when there was none.
    pub fn unregister(&self, name: &str) -> bool {
        let removed = self.tools.write().expect("registry lock poisoned").remove(name).is_some();
        if removed {
            self.changes.send(crate::changes::Change::ToolsListChanged);
        }
        removed
    }

    /// Removes every tool forwarded from `server`; returns their names.
    pub fn unregister_server(&self, server: &str) -> Vec<String> {
        let mut tools = self.tools.write().expect("registry lock poisoned");
        let names: Vec<String> = tools
            .iter()
            .filter(|(_, t)| matches!(&t.origin, ToolOrigin::Remote { server: s, .. } if s == server))
            .map(|(n, _)| n.clone())
            .collect();
        for n in &names {
            tools.remove(n);
        }
        if !names.is_empty() {
            self.changes.send(crate::changes::Change::ToolsListChanged);
        }
        names
    }

    /// A registered tool by name.
    pub fn get(&self, name: &str) -> Option<Arc<RegisteredTool>> {
        self.tools.read().expect("registry lock poisoned").get(name).cloned()
    }

    /// Every name, in listing order.
    pub fn names(&self) -> Vec<String> {
        self.tools.read().expect("registry lock poisoned").keys().cloned().collect()
    }

    /// Every descriptor, in listing order.
    pub fn list(&self) -> Vec<Tool> {
        self.tools.read().expect("registry lock poisoned").values().map(|t| t.tool.clone()).collect()
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools.read().expect("registry lock poisoned").len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One page of descriptors after `cursor`, and the cursor of the next page.
    /// An unreadable cursor is `-32602`.
    pub fn page(
        &self,
        cursor: Option<&str>,
        page_size: usize,
    ) -> Result<(Vec<Tool>, Option<String>), ErrorData> {
        self.page_where(cursor, page_size, |_| true)
    }

    /// [`ToolRegistry::page`] of the tools `keep` accepts (a caller's own catalogue): pages stay
    /// full and cursors stable.
    pub fn page_where(
        &self,
        cursor: Option<&str>,
        page_size: usize,
        keep: impl Fn(&Tool) -> bool,
    ) -> Result<(Vec<Tool>, Option<String>), ErrorData> {
        let tools = self.tools.read().expect("registry lock poisoned");
        page_of(&tools, cursor, page_size, |t| keep(&t.tool), |t| t.tool.clone())
    }

    /// The feed announcing tool-list changes (tools registered or removed).
    pub fn changes(&self) -> &crate::changes::ChangeFeed {
        &self.changes
    }

    /// Calls a tool in-process, as a peer's `tools/call` of the newest revision would:
    /// arguments that fail the `inputSchema` and a failing handler give an `isError` result
    /// with the message (SEP-1303); an unknown tool or arguments that are not an object give
    /// `Err` (`-32602`).
    pub async fn call(&self, name: &str, arguments: Value, ctx: ToolContext) -> Result<CallToolResult> {
        let tool = self
            .get(name)
            .ok_or_else(|| Error::rpc(ErrorData::invalid_params(format!("Unknown tool: {name}"))))?;
        let arguments = match arguments {
            Value::Null => serde_json::Map::new(),
            Value::Object(m) => m,
            _ => return Err(Error::rpc(ErrorData::invalid_params("tool arguments must be a JSON object"))),
        };
        let as_value = Value::Object(arguments);
        if let Err(e) = tool.validate_arguments(&as_value) {
            return Ok(CallToolResult::error(e.message));
        }
        let Value::Object(arguments) = as_value else { unreachable!("checked above") };
        let outcome = tool.invoke(arguments, ctx).await;
        tool.settle(outcome, crate::protocol::ProtocolVersion::LATEST).map_err(Error::rpc)
    }
}

#[cfg(test)]
mod tests;
