//! [`ServerBuilder`]: a server, its tools, prompts and resources in one expression.
//!
//! ```no_run
//! use mcpcore::prelude::*;
//!
//! /// Returns the text unchanged.
//! #[tool]
//! async fn echo(/** The text to return. */ text: String) -> String {
//!     text
//! }
//!
//! # async fn serve() -> mcpcore::Result<()> {
//! Server::builder("demo", "1.0").tool(echo).build()?.serve_stdio().await
//! # }
//! ```

use crate::completion::Completer;
use crate::engine::ServerConfig;
use crate::error::{Error, Result};
use crate::prompts::{PromptHandler, PromptRegistry};
use crate::protocol::prompts::Prompt;
use crate::protocol::resources::Resource;
use crate::registry::ToolRegistry;
use crate::resources::{ResourceHandler, ResourceRegistry};
use crate::server::Server;
use crate::skills::{SkillFiles, SkillRegistry};
use crate::typed::IntoToolDef;
use std::sync::Arc;

/// Collects a server's configuration and catalogs; [`build`](ServerBuilder::build) makes the
/// [`Server`]. The first registration that fails (a bad schema, a taken name) is what `build`
/// returns.
#[derive(Debug)]
pub struct ServerBuilder {
    config: ServerConfig,
    tools: Arc<ToolRegistry>,
    prompts: Option<Arc<PromptRegistry>>,
    resources: Option<Arc<ResourceRegistry>>,
    skills: Option<Arc<SkillRegistry>>,
    events: Option<Arc<crate::events::EventRegistry>>,
    problem: Option<Error>,
}

impl Server {
    /// Starts building a server called `name` at `version` (see [`ServerBuilder`]).
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            config: ServerConfig::new(name, version),
            tools: Arc::new(ToolRegistry::new()),
            prompts: None,
            resources: None,
            skills: None,
            events: None,
            problem: None,
        }
    }
}

impl ServerBuilder {
    fn keep(&mut self, outcome: Result<()>) {
        if let Err(e) = outcome {
            self.problem.get_or_insert(e);
        }
    }

    /// Adds a tool: a `#[tool]` function or a [`ToolDef`](crate::typed::ToolDef).
    pub fn tool(mut self, tool: impl IntoToolDef) -> Self {
        let outcome = self.tools.add(tool);
        self.keep(outcome);
        self
    }

    /// Adds a prompt rendered by `handler`.
    pub fn prompt(mut self, prompt: Prompt, handler: impl PromptHandler) -> Self {
        let outcome = self.prompts.get_or_insert_with(Default::default).add(prompt, handler);
        self.keep(outcome);
        self
    }

    /// Attaches a completer to `argument` of the prompt `name` (added before).
    pub fn complete_prompt_argument(
        mut self,
        name: &str,
        argument: &str,
        completer: Arc<dyn Completer>,
    ) -> Self {
        let outcome =
            self.prompts.get_or_insert_with(Default::default).complete_argument(name, argument, completer);
        self.keep(outcome);
        self
    }

    /// Adds a resource read by `handler`.
    pub fn resource(mut self, resource: Resource, handler: impl ResourceHandler) -> Self {
        let outcome = self.resources.get_or_insert_with(Default::default).add(resource, handler);
        self.keep(outcome);
        self
    }

    /// Adds a fixed text resource.
    pub fn text_resource(mut self, uri: &str, name: &str, mime_type: &str, text: &str) -> Self {
        let outcome =
            self.resources.get_or_insert_with(Default::default).add_text(uri, name, mime_type, text);
        self.keep(outcome);
        self
    }

    /// Serves an app (MCP Apps: a `ui://` HTML resource) and `tool`, bound to it
    /// ([`ToolDef::ui`](crate::typed::ToolDef::ui) with the default visibility, unless the tool
    /// is bound already).
    pub fn app(mut self, app: crate::resources::App, tool: impl IntoToolDef) -> Self {
        let uri = app.uri.clone();
        let outcome = self.resources.get_or_insert_with(Default::default).add_app(app);
        self.keep(outcome);
        let mut def = tool.into_tool_def();
        if crate::protocol::apps::tool_ui(def.tool()).is_none() {
            def = def.ui(&uri, None);
        }
        self.tool(def)
    }

    /// Serves one skill from memory (the Skills extension, [`crate::skills`]).
    pub fn skill(mut self, skill: SkillFiles) -> Self {
        let outcome = self.skill_registry().add(skill).map(|_| ());
        self.keep(outcome);
        self
    }

    /// Serves every skill under the directory `root` ([`SkillRegistry::add_dir`]: each
    /// directory holding a `SKILL.md`).
    pub fn skills_dir(mut self, root: impl AsRef<std::path::Path>) -> Self {
        let outcome = self.skill_registry().add_dir(root.as_ref()).map(|_| ());
        self.keep(outcome);
        self
    }

    /// Serves the event types of `events` (the Events extension, [`crate::events`]); keep a
    /// clone of the `Arc` to emit into it.
    pub fn events(mut self, events: Arc<crate::events::EventRegistry>) -> Self {
        self.events = Some(events);
        self
    }

    fn skill_registry(&mut self) -> Arc<SkillRegistry> {
        let resources = self.resources.get_or_insert_with(Default::default).clone();
        self.skills.get_or_insert_with(|| Arc::new(SkillRegistry::new(resources))).clone()
    }

    /// Tool search for a large catalogue: `tools/list` shows `pinned` and `search_tools`, which
    /// ranks every tool for a query ([`crate::registry::search`]); every tool stays callable.
    pub fn tool_search<I, S>(mut self, pinned: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        match crate::registry::search::ToolSearch::install(&self.tools, pinned) {
            Ok(search) => self.config.tool_search = Some(search),
            Err(e) => self.keep(Err(e)),
        }
        self
    }

    /// Adds `middleware` around every dispatched request, inside those added before
    /// ([`crate::middleware`]; ready-made ones in [`crate::server::middleware`]).
    pub fn middleware(mut self, middleware: Arc<dyn crate::middleware::Middleware>) -> Self {
        self.config.middleware = self.config.middleware.with(middleware);
        self
    }

    /// Records every dispatched request with OpenTelemetry (the global providers of the
    /// `opentelemetry` crate; install them first): a SERVER span per request, parented by the
    /// context in `params._meta`, and `mcp.server.operation.duration` ([`crate::telemetry`]).
    /// Outermost in the middleware chain, so it times the others too.
    pub fn telemetry(mut self) -> Self {
        let otel = Arc::new(crate::telemetry::OtelMiddleware::new());
        self.config.middleware = self.config.middleware.with_outermost(otel);
        self
    }

    /// Sets the instructions for the model (`initialize` / `server/discover`).
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.config.instructions = Some(instructions.into());
        self
    }

    /// Changes any other setting of the [`ServerConfig`].
    pub fn config(mut self, change: impl FnOnce(&mut ServerConfig)) -> Self {
        change(&mut self.config);
        self
    }

    /// The tool registry being filled (for tools added or removed later, remote tools…).
    pub fn tools(&self) -> &Arc<ToolRegistry> {
        &self.tools
    }

    /// The server, or the first registration error.
    pub fn build(self) -> Result<Server> {
        if let Some(e) = self.problem {
            return Err(e);
        }
        let mut server = Server::new(self.config, self.tools);
        if let Some(prompts) = self.prompts {
            server = server.with_prompts(prompts);
        }
        if let Some(resources) = self.resources {
            server = server.with_resources(resources);
        }
        if let Some(skills) = self.skills {
            server = server.with_skills(skills);
        }
        if let Some(events) = self.events {
            server = server.with_events(events);
        }
        Ok(server)
    }
}
