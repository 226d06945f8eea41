//! Prompts a server offers: descriptors with arguments, each rendered by a host handler, with
//! completion for arguments and change announcements.
//!
//! ```
//! use mcpcore::protocol::prompts::{GetPromptResult, Prompt};
//! use mcpcore::prompts::{PromptArguments, PromptRegistry};
//! let prompts = PromptRegistry::new();
//! let prompt = Prompt::new("greet").description("Greets someone").argument("who", "Whom to greet", true);
//! prompts.add(prompt, |args: PromptArguments, _ctx| async move {
//!     Ok(GetPromptResult::user_text(format!("Say hello to {}", args["who"])))
//! }).unwrap();
//! ```

use crate::changes::{Change, ChangeFeed};
use crate::completion::Completer;
use crate::error::{Error, ErrorData, Result};
use crate::protocol::prompts::{GetPromptResult, Prompt};
use crate::registry::{page_of, BoxFuture, ToolContext};
use serde_json::json;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, RwLock};

/// The arguments of a `prompts/get`, by name.
pub type PromptArguments = BTreeMap<String, String>;

/// Renders a prompt. Implemented for every `Fn(PromptArguments, ToolContext) -> impl Future`
/// closure. An error with [`crate::ErrorKind::Rpc`] is sent as is; any other becomes `-32603`.
pub trait PromptHandler: Send + Sync + 'static {
    /// Renders the prompt with `arguments` (required ones are checked before).
    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<GetPromptResult>>;
}

impl<F, Fut> PromptHandler for F
where
    F: Fn(PromptArguments, ToolContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<GetPromptResult>> + Send + 'static,
{
    fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<GetPromptResult>> {
        Box::pin(self(arguments, ctx))
    }
}

/// A registered prompt: descriptor, handler and argument completers.
pub struct RegisteredPrompt {
    prompt: Prompt,
    handler: Arc<dyn PromptHandler>,
    completers: BTreeMap<String, Arc<dyn Completer>>,
}

impl std::fmt::Debug for RegisteredPrompt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredPrompt").field("name", &self.prompt.name).finish_non_exhaustive()
    }
}

impl RegisteredPrompt {
    /// The descriptor.
    pub fn prompt(&self) -> &Prompt {
        &self.prompt
    }

    /// Checks that every required argument is present: `-32602` naming the missing ones.
    pub fn check_arguments(&self, arguments: &PromptArguments) -> Result<(), ErrorData> {
        let missing: Vec<&str> = self
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(ErrorData::invalid_params(format!(
            "Invalid params: prompt {} needs the argument(s) {}",
            self.prompt.name,
            missing.join(", ")
        ))
        .with_data(json!({ "prompt": self.prompt.name, "missing": missing })))
    }

    /// Runs the handler.
    pub fn get(
        &self,
        arguments: PromptArguments,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<GetPromptResult>> {
        self.handler.get(arguments, ctx)
    }

    /// The completer of `argument`, if any.
    pub fn completer(&self, argument: &str) -> Option<Arc<dyn Completer>> {
        self.completers.get(argument).cloned()
    }
}

/// The prompts of a server. Cheap to share behind an `Arc`; adding or removing announces
/// [`Change::PromptsListChanged`].
#[derive(Default)]
pub struct PromptRegistry {
    prompts: RwLock<BTreeMap<String, Arc<RegisteredPrompt>>>,
    changes: ChangeFeed,
}

impl std::fmt::Debug for PromptRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.prompts.read().expect("lock").keys()).finish()
    }
}

impl PromptRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a prompt rendered by `handler`; fails when the name is empty or taken.
    pub fn add(&self, prompt: Prompt, handler: impl PromptHandler) -> Result<()> {
        if prompt.name.is_empty() {
            return Err(Error::invalid_input("a prompt needs a name"));
        }
        let mut prompts = self.prompts.write().expect("lock");
        if prompts.contains_key(&prompt.name) {
            return Err(Error::invalid_input(format!(
                "a prompt named {:?} is already registered",
                prompt.name
            )));
        }
        let entry = RegisteredPrompt { prompt, handler: Arc::new(handler), completers: BTreeMap::new() };
        prompts.insert(entry.prompt.name.clone(), Arc::new(entry));
        drop(prompts);
        self.changes.send(Change::PromptsListChanged);
        Ok(())
    }

    /// Attaches a completer to `argument` of prompt `name`.
    pub fn complete_argument(&self, name: &str, argument: &str, completer: Arc<dyn Completer>) -> Result<()> {
        let mut prompts = self.prompts.write().expect("lock");
        let Some(p) = prompts.get(name) else {
            return Err(Error::invalid_input(format!("no prompt named {name:?}")));
        };
        if !p.prompt.arguments.iter().flatten().any(|a| a.name == argument) {
            return Err(Error::invalid_input(format!("prompt {name:?} has no argument {argument:?}")));
        }
        let mut completers = p.completers.clone();
        completers.insert(argument.to_owned(), completer);
        let updated = RegisteredPrompt { prompt: p.prompt.clone(), handler: p.handler.clone(), completers };
        prompts.insert(name.to_owned(), Arc::new(updated));
        Ok(())
    }

    /// Removes prompt `name`; false when there was none.
    pub fn remove(&self, name: &str) -> bool {
        let removed = self.prompts.write().expect("lock").remove(name).is_some();
        if removed {
            self.changes.send(Change::PromptsListChanged);
        }
        removed
    }

    /// A prompt by name.
    pub fn get(&self, name: &str) -> Option<Arc<RegisteredPrompt>> {
        self.prompts.read().expect("lock").get(name).cloned()
    }

    /// True when no prompt is registered.
    pub fn is_empty(&self) -> bool {
        self.prompts.read().expect("lock").is_empty()
    }

    /// One page of prompts (by name) and the next cursor; a bad cursor is `-32602`.
    pub fn page(
        &self,
        cursor: Option<&str>,
        size: usize,
    ) -> Result<(Vec<Prompt>, Option<String>), ErrorData> {
        self.page_where(cursor, size, |_| true)
    }

    /// [`PromptRegistry::page`] of the prompts `keep` accepts (a caller's own catalogue).
    pub fn page_where(
        &self,
        cursor: Option<&str>,
        size: usize,
        keep: impl Fn(&Prompt) -> bool,
    ) -> Result<(Vec<Prompt>, Option<String>), ErrorData> {
        page_of(&self.prompts.read().expect("lock"), cursor, size, |p| keep(&p.prompt), |p| p.prompt.clone())
    }

    /// The feed of this registry's changes.
    pub fn changes(&self) -> &ChangeFeed {
        &self.changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::prompts::PromptMessage;
    use crate::protocol::Role;

    fn prompt() -> Prompt {
        serde_json::from_value(
            json!({"name": "p", "arguments": [{"name": "a", "required": true}, {"name": "b"}]}),
        )
        .unwrap()
    }

    #[tokio::test]
    async fn required_arguments_are_checked_and_handlers_render() {
        let r = PromptRegistry::new();
        r.add(prompt(), |args: PromptArguments, _| async move {
            Ok(GetPromptResult {
                messages: vec![PromptMessage::text(Role::User, args["a"].clone())],
                ..Default::default()
            })
        })
        .unwrap();
        assert!(r.add(prompt(), |_: PromptArguments, _| async { Ok(GetPromptResult::default()) }).is_err());
        let p = r.get("p").unwrap();
        let err = p.check_arguments(&PromptArguments::new()).unwrap_err();
        assert_eq!(err.code, crate::ErrorCode::INVALID_PARAMS);
        assert!(err.message.contains("a"));
        let args = PromptArguments::from([("a".to_owned(), "hi".to_owned())]);
        p.check_arguments(&args).unwrap();
        let out = p.get(args, ToolContext::local()).await.unwrap();
        assert_eq!(out.messages.len(), 1);
        assert!(r.complete_argument("p", "zzz", crate::completion::complete_from(["x"])).is_err());
        r.complete_argument("p", "b", crate::completion::complete_from(["x"])).unwrap();
        assert!(r.get("p").unwrap().completer("b").is_some());
    }
}
