//! Change notifications from the server, as the host sees them: legacy session notifications
//! (delivered to [`Client::on_notification`](super::Client::on_notification)) and the
//! notifications of a modern `subscriptions/listen` stream (delivered to its
//! [`Subscription`](super::Subscription)).

use crate::jsonrpc::Notification;
use crate::protocol::meta;
use crate::protocol::resources::ResourceUpdatedNotificationParams;
use serde_json::Value;

/// A change the server announced.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerEvent {
    /// `notifications/tools/list_changed`.
    ToolsListChanged,
    /// `notifications/prompts/list_changed`.
    PromptsListChanged,
    /// `notifications/resources/list_changed`.
    ResourcesListChanged,
    /// `notifications/resources/updated`: the resource at this URI (or under it) changed.
    ResourceUpdated(ResourceUpdatedNotificationParams),
    /// Any other notification (e.g. the Tasks extension's `notifications/tasks`), unchanged.
    Other(Notification),
}

impl ServerEvent {
    /// Reads a notification; `None` for the ones the client consumes itself (progress, log
    /// messages, cancellation, listen acknowledgements).
    pub(crate) fn from_notification(n: Notification) -> Option<ServerEvent> {
        Some(match n.method.as_str() {
            "notifications/tools/list_changed" => ServerEvent::ToolsListChanged,
            "notifications/prompts/list_changed" => ServerEvent::PromptsListChanged,
            "notifications/resources/list_changed" => ServerEvent::ResourcesListChanged,
            "notifications/resources/updated" => {
                let params = n.params.clone().map(Value::Object).and_then(|p| serde_json::from_value(p).ok());
                match params {
                    Some(p) => ServerEvent::ResourceUpdated(p),
                    None => ServerEvent::Other(n),
                }
            }
            "notifications/progress"
            | "notifications/message"
            | "notifications/cancelled"
            | "notifications/subscriptions/acknowledged" => return None,
            _ => ServerEvent::Other(n),
        })
    }

    /// The wire method.
    pub fn method(&self) -> &str {
        match self {
            ServerEvent::ToolsListChanged => "notifications/tools/list_changed",
            ServerEvent::PromptsListChanged => "notifications/prompts/list_changed",
            ServerEvent::ResourcesListChanged => "notifications/resources/list_changed",
            ServerEvent::ResourceUpdated(_) => "notifications/resources/updated",
            ServerEvent::Other(n) => &n.method,
        }
    }
}

impl ServerEvent {
    /// The wire params (`{}` for the list changes), for hosts that take notifications as JSON.
    pub fn params(&self) -> Value {
        match self {
            ServerEvent::ResourceUpdated(p) => serde_json::to_value(p).expect("serializable"),
            ServerEvent::Other(n) => {
                n.params.clone().map(Value::Object).unwrap_or_else(|| serde_json::json!({}))
            }
            _ => serde_json::json!({}),
        }
    }
}

/// The `subscriptionId` a modern listen stream tags its notifications with.
pub(crate) fn subscription_id(n: &Notification) -> Option<crate::jsonrpc::RequestId> {
    n.params
        .as_ref()?
        .get("_meta")?
        .get(meta::SUBSCRIPTION_ID)
        .and_then(crate::jsonrpc::RequestId::from_value)
}
