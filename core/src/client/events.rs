//! Change notifications from the server, as the host sees them: legacy session notifications
//! (delivered to [`Client::on_notification`](super::Client::on_notification)) and the
//! notifications of a modern `subscriptions/listen` stream (delivered to its
//! [`Subscription`](super::Subscription)).

use crate::jsonrpc::Notification;
use crate::protocol::meta;
use crate::protocol::resources::ResourceUpdatedNotificationParams;
use crate::protocol::subscriptions::SubscriptionFilter;
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

/// Which of the server's notifications a handler wants ([`Client::on_notifications`]). On the
/// modern lineage (2026-07-28) it decides the filter of the listen stream the client keeps open
/// for its handler (spec 2026-07-28 basic/patterns/subscriptions: a server sends only what the
/// filter asks for); on legacy sessions the server sends everything and the client hands the
/// handler only these kinds.
///
/// [`Client::on_notifications`]: super::Client::on_notifications
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NotificationKinds {
    /// `notifications/tools/list_changed`.
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    pub resources_list_changed: bool,
    /// `notifications/resources/updated` of the resources subscribed to
    /// ([`Client::subscribe_resource`](super::Client::subscribe_resource)).
    pub resource_updated: bool,
    /// Any other notification that answers no request (legacy sessions only: a listen stream
    /// carries only the kinds above).
    pub other: bool,
}

impl NotificationKinds {
    /// Every kind.
    pub const ALL: NotificationKinds = NotificationKinds {
        tools_list_changed: true,
        prompts_list_changed: true,
        resources_list_changed: true,
        resource_updated: true,
        other: true,
    };

    /// The kinds named by wire methods (`notifications/tools/list_changed`, …); `"*"` is
    /// [`NotificationKinds::ALL`], any other method counts as [`NotificationKinds::other`].
    pub fn from_methods<'a>(methods: impl IntoIterator<Item = &'a str>) -> NotificationKinds {
        let mut k = NotificationKinds::default();
        for m in methods {
            match m {
                "*" => return NotificationKinds::ALL,
                "notifications/tools/list_changed" => k.tools_list_changed = true,
                "notifications/prompts/list_changed" => k.prompts_list_changed = true,
                "notifications/resources/list_changed" => k.resources_list_changed = true,
                "notifications/resources/updated" => k.resource_updated = true,
                _ => k.other = true,
            }
        }
        k
    }

    /// True when `event` is of a wanted kind.
    pub fn wants(&self, event: &ServerEvent) -> bool {
        match event {
            ServerEvent::ToolsListChanged => self.tools_list_changed,
            ServerEvent::PromptsListChanged => self.prompts_list_changed,
            ServerEvent::ResourcesListChanged => self.resources_list_changed,
            ServerEvent::ResourceUpdated(_) => self.resource_updated,
            ServerEvent::Other(_) => self.other,
        }
    }

    /// The listen filter for these kinds, with `uris` as the resource subscriptions (when
    /// [`NotificationKinds::resource_updated`] is set or no handler is registered, the caller
    /// decides); empty when nothing is wanted.
    pub(crate) fn filter(&self, uris: Vec<String>) -> SubscriptionFilter {
        let flag = |b: bool| b.then_some(true);
        SubscriptionFilter {
            tools_list_changed: flag(self.tools_list_changed),
            prompts_list_changed: flag(self.prompts_list_changed),
            resources_list_changed: flag(self.resources_list_changed),
            resource_subscriptions: (!uris.is_empty()).then_some(uris),
            task_ids: None,
            // `notifications/events/list_changed` (SEP-3415) arrives as `ServerEvent::Other`.
            events_list_changed: flag(self.other),
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
