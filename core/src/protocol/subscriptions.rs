//! Modern subscriptions (2026-07-28): `subscriptions/listen` and its acknowledgement.

use super::common::{Meta, ResultType};
use super::meta::SUBSCRIPTION_ID;
use crate::jsonrpc::RequestId;
use serde::{Deserialize, Serialize};

/// Which notifications a listen stream carries (`SubscriptionFilter`); omitted = not wanted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// URIs whose `notifications/resources/updated` are wanted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Tasks extension (`io.modelcontextprotocol/tasks`): task ids whose
    /// `notifications/tasks` are wanted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Events extension (SEP-3415 §Dynamic event types): `notifications/events/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events_list_changed: Option<bool>,
}

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenRequestParams {
    /// What to listen for.
    pub notifications: SubscriptionFilter,
    /// Request `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Result of `subscriptions/listen`, sent only when the server ends the subscription gracefully.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// `"complete"`.
    pub result_type: ResultType,
    /// `_meta`; holds `io.modelcontextprotocol/subscriptionId` (required).
    #[serde(rename = "_meta")]
    pub meta: Meta,
}

impl SubscriptionsListenResult {
    /// The graceful end of the subscription opened by the listen request `id`.
    pub fn new(id: &RequestId) -> Self {
        let mut meta = Meta::new();
        meta.insert(SUBSCRIPTION_ID.to_owned(), id.to_value());
        SubscriptionsListenResult { result_type: ResultType::Complete, meta }
    }
    /// The subscription id in `_meta`, when present and valid.
    pub fn subscription_id(&self) -> Option<RequestId> {
        self.meta.get(SUBSCRIPTION_ID).and_then(RequestId::from_value)
    }
}

/// Params of `notifications/subscriptions/acknowledged`: the part of the filter the server
/// honours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedNotificationParams {
    /// The accepted subset of the requested filter.
    pub notifications: SubscriptionFilter,
    /// `_meta`; holds `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}
