//! Typed tools: handlers taking a `Deserialize + JsonSchema` argument struct, with the
//! `inputSchema` generated from it and the `outputSchema` from the return type.
//!
//! Three ways to the same [`ToolDef`], each registered with [`ToolRegistry::add`] or
//! [`ServerBuilder::tool`](crate::builder::ServerBuilder::tool):
//!
//! * the `#[tool]` attribute macro on an `async fn` with plain parameters (feature `macros`,
//!   on by default; see [`macro@crate::tool`]), which writes the argument struct for you;
//! * [`ToolDef::typed`] with an async closure or fn taking your own argument struct;
//! * [`ToolDef::from_parts`] with a hand-written [`Tool`] and a raw [`ToolHandler`].
//!
//! ```
//! use mcpcore::prelude::*;
//!
//! #[derive(serde::Deserialize, schemars::JsonSchema)]
//! struct Greet {
//!     /// Who to greet.
//!     name: String,
//!     /// How many times (default 1).
//!     times: Option<u32>,
//! }
//!
//! let tools = ToolRegistry::new();
//! tools.add(ToolDef::typed("greet", "Greets someone.", |g: Greet| async move {
//!     format!("Hello, {}!", g.name).repeat(g.times.unwrap_or(1) as usize)
//! }))?;
//! let greet = tools.get("greet").unwrap();
//! let schema = &greet.tool().input_schema;
//! assert_eq!(schema["properties"]["name"]["description"], "Who to greet.");
//! assert_eq!(schema["required"], serde_json::json!(["name"]));
//! # Ok::<(), mcpcore::Error>(())
//! ```
//!
//! The registry checks the arguments against the generated `inputSchema` before the handler
//! runs (`-32602` with the failing fields); a value the schema accepts but the struct does not
//! decode gives the same `-32602` ([`decode`]).

mod handler;
mod input;
mod result;
pub mod schema;

pub use handler::{decode, ArgsAndContext, ArgsOnly, TypedHandler};
pub use result::{IntoCallToolResult, Json};

use crate::error::{Error, Result};
use crate::protocol::{Tool, ToolAnnotations};
use crate::registry::{CollisionPolicy, ToolHandler, ToolOrigin, ToolRegistry};
use crate::tasks::TaskPolicy;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use std::marker::PhantomData;
use std::sync::Arc;

/// A tool ready to register: its descriptor, its handler and its task policy. A problem found
/// while building it (a schema that is not an object) is kept and reported by the registration.
#[derive(Clone)]
pub struct ToolDef {
    tool: Tool,
    handler: Arc<dyn ToolHandler>,
    task: Option<TaskPolicy>,
    problem: Option<Error>,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef").field("tool", &self.tool).field("problem", &self.problem).finish()
    }
}

impl ToolDef {
    /// A tool named `name` whose handler takes the arguments decoded as `A` (and, if it wants,
    /// the [`RequestContext`](crate::context::RequestContext)). The `inputSchema` is `A`'s
    /// schema ([`schema::input_schema`]); the `outputSchema` is the return type's (a [`Json<T>`]
    /// return, or a `Result` of one), if any. An empty `description` leaves it out.
    pub fn typed<A, M, H>(name: impl Into<String>, description: impl Into<String>, handler: H) -> ToolDef
    where
        A: DeserializeOwned + JsonSchema + 'static,
        M: 'static,
        H: TypedHandler<A, M>,
    {
        let name = name.into();
        let mut problem = None;
        let input = schema::input_schema::<A>().unwrap_or_else(|e| {
            problem = Some(e);
            serde_json::json!({"type": "object"})
        });
        let mut tool = Tool::new(name.clone(), description, input);
        if tool.description.as_deref() == Some("") {
            tool.description = None;
        }
        match H::Output::output_schema() {
            Some(Ok(output)) => tool.output_schema = Some(output),
            Some(Err(e)) => problem = problem.or(Some(e)),
            None => {}
        }
        let handler = handler::Typed { tool: name.into(), handler, args: PhantomData };
        ToolDef { tool, handler: Arc::new(handler), task: None, problem }
    }

    /// A tool from a hand-written descriptor and a raw handler (arguments as a JSON object).
    pub fn from_parts(tool: Tool, handler: impl ToolHandler) -> ToolDef {
        ToolDef { tool, handler: Arc::new(handler), task: None, problem: None }
    }

    /// The descriptor, as `tools/list` will show it.
    pub fn tool(&self) -> &Tool {
        &self.tool
    }

    /// The problem that will make the registration fail, if any.
    pub fn problem(&self) -> Option<&Error> {
        self.problem.as_ref()
    }

    /// Sets the display title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.tool.title = Some(title.into());
        self
    }

    /// Replaces the description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.tool.description = Some(description.into());
        self
    }

    /// Binds the tool to the app at `resource_uri` (MCP Apps `_meta.ui`; `visibility` `None`:
    /// model and app). Hosts without apps call it as any tool: its result must still say in
    /// text what the app shows.
    pub fn ui(
        mut self,
        resource_uri: &str,
        visibility: Option<&[crate::protocol::apps::Visibility]>,
    ) -> Self {
        crate::protocol::apps::bind_tool(&mut self.tool, resource_uri, visibility);
        self
    }

    /// Replaces the `outputSchema` (or sets one for a raw handler).
    pub fn output_schema(mut self, schema: serde_json::Value) -> Self {
        self.tool.output_schema = Some(schema);
        self
    }

    fn hints(&mut self) -> &mut ToolAnnotations {
        self.tool.annotations.get_or_insert_with(ToolAnnotations::default)
    }

    /// Hints that the tool does not modify its environment (`readOnlyHint`).
    pub fn read_only(mut self, yes: bool) -> Self {
        self.hints().read_only_hint = Some(yes);
        self
    }

    /// Hints whether the tool may perform destructive updates (`destructiveHint`).
    pub fn destructive(mut self, yes: bool) -> Self {
        self.hints().destructive_hint = Some(yes);
        self
    }

    /// Hints that repeated calls with the same arguments have no further effect
    /// (`idempotentHint`).
    pub fn idempotent(mut self, yes: bool) -> Self {
        self.hints().idempotent_hint = Some(yes);
        self
    }

    /// Hints whether the tool reaches an open world of external entities (`openWorldHint`).
    pub fn open_world(mut self, yes: bool) -> Self {
        self.hints().open_world_hint = Some(yes);
        self
    }

    /// Lets or makes the tool run as a task (Tasks extension, [`crate::tasks`]).
    pub fn task(mut self, policy: TaskPolicy) -> Self {
        self.task = Some(policy);
        self
    }
}

/// Anything that makes a [`ToolDef`]: a `ToolDef`, or the function `#[tool]` generates
/// (`fn() -> ToolDef`), so `tools.add(echo)` registers the tool `echo`.
pub trait IntoToolDef {
    /// The definition.
    fn into_tool_def(self) -> ToolDef;
}

impl IntoToolDef for ToolDef {
    fn into_tool_def(self) -> ToolDef {
        self
    }
}

impl<F: FnOnce() -> ToolDef> IntoToolDef for F {
    fn into_tool_def(self) -> ToolDef {
        self()
    }
}

impl ToolRegistry {
    /// Registers a typed tool (a [`ToolDef`], or a `#[tool]` function); fails when its schema
    /// is not an object, or its name is invalid or taken.
    pub fn add(&self, tool: impl IntoToolDef) -> Result<()> {
        let ToolDef { tool, handler, task, problem } = tool.into_tool_def();
        if let Some(e) = problem {
            return Err(Error::invalid_input(format!("tool {}: {}", tool.name, e.message())));
        }
        match task {
            Some(policy) => self.register_with_tasks(tool, policy, SharedHandler(handler)),
            None => self.register_with(tool, handler, ToolOrigin::Local, CollisionPolicy::Error).map(|_| ()),
        }
    }
}

/// An already shared handler, registered as is.
struct SharedHandler(Arc<dyn ToolHandler>);

impl ToolHandler for SharedHandler {
    fn call(
        &self,
        arguments: crate::context::Arguments,
        ctx: crate::context::RequestContext,
    ) -> crate::context::BoxFuture<'static, Result<crate::protocol::CallToolResult>> {
        self.0.call(arguments, ctx)
    }
}

/// What the `#[tool]` macro's expansion uses; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use schemars;
    pub use serde;

    /// A doc comment's lines as one description: the one space after `///` dropped, blank
    /// lines at either end trimmed.
    pub fn doc_text(lines: &[&str]) -> String {
        let text: Vec<&str> = lines.iter().map(|l| l.strip_prefix(' ').unwrap_or(l).trim_end()).collect();
        text.join("\n").trim().to_owned()
    }
}

#[cfg(test)]
mod tests;
