//! Which occurrences of a type reach which subscription, and in what shape (SEP-3415, Appendix
//! A "SDK Guidance", "Broadcast emit": the author's `match(ctx, event, arguments)` decides
//! whether a subscription receives an occurrence, and `transform(ctx, event, arguments)` shapes
//! its payload for that subscription; without them, every subscription of the type receives
//! every occurrence as emitted; the SDK applies both to poll, push and webhook alike). A match
//! is declared two ways:
//! [`Matching::filter_on`] names subscription arguments that must equal the same member of the
//! occurrence's `data` when the subscription gives them (JSON, so every binding declares it),
//! and [`Matching::custom`] is a Rust closure for anything else.

use crate::protocol::events::EventOccurrence;
use serde_json::Value;
use std::sync::Arc;

/// A custom match: the occurrence, the subscription's arguments; true when it is delivered.
pub type MatchFn = dyn Fn(&EventOccurrence, &Value) -> bool + Send + Sync;

/// A transform: the occurrence as one subscription (its arguments) receives it, for example
/// with fields redacted that its arguments ask to leave out.
pub type TransformFn = dyn Fn(EventOccurrence, &Value) -> EventOccurrence + Send + Sync;

/// How a type's occurrences are matched to subscriptions (default: every one to every
/// subscription).
#[derive(Clone, Default)]
pub struct Matching {
    /// Argument names compared with `data`: a subscription whose arguments give `name`
    /// receives only occurrences whose `data[name]` equals it (an argument it leaves out, or
    /// gives as `null`, filters nothing).
    pub filter_on: Vec<String>,
    /// A further test, after `filter_on`.
    pub custom: Option<Arc<MatchFn>>,
    /// How a subscription receives an occurrence that reaches it (default: as emitted).
    pub transform: Option<Arc<TransformFn>>,
}

impl std::fmt::Debug for Matching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Matching")
            .field("filter_on", &self.filter_on)
            .field("custom", &self.custom.as_ref().map(|_| "Fn"))
            .field("transform", &self.transform.as_ref().map(|_| "Fn"))
            .finish()
    }
}

impl Matching {
    /// True when `occurrence` reaches a subscription with `arguments`.
    pub fn matches(&self, occurrence: &EventOccurrence, arguments: &Value) -> bool {
        let fits = |name: &String| match arguments.get(name) {
            None | Some(Value::Null) => true,
            Some(want) => occurrence.data.get(name) == Some(want),
        };
        self.filter_on.iter().all(fits) && self.custom.as_ref().is_none_or(|f| f(occurrence, arguments))
    }

    /// The occurrence as a subscription with `arguments` receives it; `None` when it does not
    /// reach that subscription.
    pub fn deliver(&self, occurrence: EventOccurrence, arguments: &Value) -> Option<EventOccurrence> {
        if !self.matches(&occurrence, arguments) {
            return None;
        }
        Some(match &self.transform {
            Some(f) => f(occurrence, arguments),
            None => occurrence,
        })
    }
}
