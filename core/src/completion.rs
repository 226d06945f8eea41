//! Argument completion (`completion/complete`): completers attached to prompt arguments and
//! resource-template variables.

use crate::protocol::completion::Completion;
use crate::registry::BoxFuture;
use crate::Result;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

/// What is being completed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompletionRequest {
    /// The argument or template variable name.
    pub argument: String,
    /// What the user typed so far.
    pub value: String,
    /// Values of the other arguments, when the client sent them.
    pub context: BTreeMap<String, String>,
}

/// Suggests values for one argument. Implemented for every
/// `Fn(CompletionRequest) -> impl Future<Output = Result<Completion>>` closure.
pub trait Completer: Send + Sync + 'static {
    /// Suggests values (at most 100 are sent).
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'static, Result<Completion>>;
}

impl<F, Fut> Completer for F
where
    F: Fn(CompletionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Completion>> + Send + 'static,
{
    fn complete(&self, request: CompletionRequest) -> BoxFuture<'static, Result<Completion>> {
        Box::pin(self(request))
    }
}

/// The most values one completion result carries (the spec's limit).
pub const MAX_VALUES: usize = 100;

/// Completion from a fixed list: the values starting with what was typed (case-insensitive).
pub fn complete_from<I, S>(values: I) -> Arc<dyn Completer>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let values: Arc<Vec<String>> = Arc::new(values.into_iter().map(Into::into).collect());
    Arc::new(move |req: CompletionRequest| {
        let values = values.clone();
        async move { Ok(filter_prefix(&values, &req.value)) }
    })
}

/// The values of `values` starting with `prefix`, capped at [`MAX_VALUES`] with `total` and
/// `hasMore` set.
pub fn filter_prefix(values: &[String], prefix: &str) -> Completion {
    let prefix = prefix.to_lowercase();
    let hits: Vec<&String> = values.iter().filter(|v| v.to_lowercase().starts_with(&prefix)).collect();
    let total = hits.len();
    Completion {
        values: hits.into_iter().take(MAX_VALUES).cloned().collect(),
        total: Some(total as u64),
        has_more: Some(total > MAX_VALUES),
    }
}

/// Caps a host's completion at [`MAX_VALUES`], keeping `total`/`hasMore` truthful.
pub(crate) fn cap(mut c: Completion) -> Completion {
    if c.values.len() > MAX_VALUES {
        let total = c.total.unwrap_or(c.values.len() as u64).max(c.values.len() as u64);
        c.values.truncate(MAX_VALUES);
        c.total = Some(total);
        c.has_more = Some(true);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn fixed_lists_filter_by_prefix_and_cap_at_100() {
        let c = complete_from(["python", "pytorch", "rust"]);
        let req =
            |v: &str| CompletionRequest { argument: "a".into(), value: v.into(), context: BTreeMap::new() };
        assert_eq!(c.complete(req("Py")).await.unwrap().values, vec!["python", "pytorch"]);
        let many: Vec<String> = (0..150).map(|i| format!("v{i}")).collect();
        let got = filter_prefix(&many, "v");
        assert_eq!((got.values.len(), got.total, got.has_more), (100, Some(150), Some(true)));
        let capped = cap(Completion { values: many, total: None, has_more: None });
        assert_eq!((capped.values.len(), capped.total, capped.has_more), (100, Some(150), Some(true)));
    }
}
