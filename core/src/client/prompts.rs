//! Prompts and argument completion on the client: `prompts/list` (cached while fresh),
//! `prompts/get` (with MRTR on the modern lineage) and `completion/complete`.
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! use mcpcore::protocol::completion::{CompleteArgument, CompletionReference, PromptReference};
//! let prompts = client.list_prompts().await?;
//! let args = [("language".to_owned(), "rust".to_owned())].into_iter().collect();
//! let prompt = client.get_prompt("code_review", Some(args)).await?;
//! println!("{} messages", prompt.messages.len());
//! let reference = CompletionReference::Prompt(PromptReference { name: "code_review".into(), title: None });
//! let argument = CompleteArgument { name: "language".into(), value: "ru".into() };
//! let values = client.complete(reference, argument, None).await?.completion.values;
//! # Ok(()) }
//! ```

use super::{all_pages, page_params, CallOptions, Client};
use crate::error::{Error, Result};
use crate::protocol::completion::{
    CompleteArgument, CompleteContext, CompleteRequestParams, CompleteResult, CompletionReference,
};
use crate::protocol::prompts::{GetPromptResult, ListPromptsResult, Prompt};
use serde_json::json;
use std::collections::BTreeMap;

impl Client {
    /// One page of `prompts/list` (served from the cache while fresh).
    pub async fn list_prompts_page(&self, cursor: Option<String>) -> Result<ListPromptsResult> {
        self.typed_cached("prompts/list", page_params(cursor)).await
    }

    /// Every prompt, following `nextCursor` (at most 1000 pages).
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>> {
        all_pages("prompts/list", |c| self.list_prompts_page(c), |p| (p.prompts, p.next_cursor)).await
    }

    /// Gets a prompt with its argument values.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<BTreeMap<String, String>>,
    ) -> Result<GetPromptResult> {
        self.get_prompt_with(name, arguments, &CallOptions::default()).await
    }

    /// [`Client::get_prompt`] with per-call options.
    pub async fn get_prompt_with(
        &self,
        name: &str,
        arguments: Option<BTreeMap<String, String>>,
        opts: &CallOptions,
    ) -> Result<GetPromptResult> {
        let mut params = json!({ "name": name });
        if let Some(a) = arguments {
            params["arguments"] = json!(a);
        }
        let v = self.request_with("prompts/get", params, opts).await?;
        serde_json::from_value(v).map_err(|e| Error::protocol(format!("malformed prompts/get result: {e}")))
    }

    /// `completion/complete`: suggestions for `argument` of a prompt or resource template, given
    /// the values of other arguments in `context` (2025-06-18+).
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: CompleteArgument,
        context: Option<CompleteContext>,
    ) -> Result<CompleteResult> {
        let params = CompleteRequestParams { reference, argument, context, meta: None };
        let v =
            self.request("completion/complete", serde_json::to_value(params).expect("serializable")).await?;
        serde_json::from_value(v)
            .map_err(|e| Error::protocol(format!("malformed completion/complete result: {e}")))
    }
}
