//! Change notifications: `subscriptions/listen` streams (2026-07-28
//! basic/patterns/subscriptions) and the notifications a legacy session receives
//! (`*/list_changed`, `resources/updated`).

use super::{parse_params, reply_err, Action, ServerEngine};
use crate::changes::{Change, ChangeFeed};
use crate::context::Origin;
use crate::jsonrpc::{Message, Notification, Request, RequestId, Response};
use crate::protocol::meta::SUBSCRIPTION_ID;
use crate::protocol::subscriptions::{SubscriptionFilter, SubscriptionsListenRequestParams};
use crate::protocol::tasks_ext::NOTIFICATION_METHOD;
use crate::protocol::{ClientCapabilities, ProtocolVersion};
use crate::session::LegacySession;
use crate::tasks::TaskRecord;
use crate::tasks::{declares_tasks, missing_tasks_capability};
use serde_json::{json, Map, Value};

/// An open `subscriptions/listen` stream: its id (the subscription id) and what it carries.
#[derive(Debug, Clone, PartialEq)]
pub struct Listen {
    /// The listen request's id.
    pub id: RequestId,
    /// The revision it speaks.
    pub version: ProtocolVersion,
    /// The notifications this server honours of those asked for.
    pub filter: SubscriptionFilter,
    /// Whose stream it is ([`Origin::owner`]): only this owner's tasks may be listened to.
    pub owner: Option<String>,
}

fn wanted(flag: Option<bool>, supported: bool) -> Option<bool> {
    (flag == Some(true) && supported).then_some(true)
}

/// True when an update of `changed` concerns a subscription to `subscribed` (the resource
/// itself or one below it).
fn covers(subscribed: &str, changed: &str) -> bool {
    changed == subscribed
        || changed
            .strip_prefix(subscribed)
            .is_some_and(|rest| subscribed.ends_with('/') || rest.starts_with('/'))
}

/// True when a legacy session's client declared the Events extension in `initialize`.
fn session_declares_events(session: &LegacySession) -> bool {
    let ext = session.client_capabilities.extensions.as_ref();
    ext.is_some_and(|e| e.contains_key(crate::protocol::events::EXTENSION_ID))
}

fn notification(method: &str, mut params: Map<String, Value>, subscription: Option<&RequestId>) -> Message {
    if let Some(id) = subscription {
        params.insert("_meta".into(), json!({ SUBSCRIPTION_ID: id.to_value() }));
    }
    Message::Notification(Notification { method: method.to_owned(), params: Some(params) })
}

fn change_message(change: &Change, subscription: Option<&RequestId>) -> Option<Message> {
    let (method, params) = match change {
        Change::ToolsListChanged => ("notifications/tools/list_changed", Map::new()),
        Change::PromptsListChanged => ("notifications/prompts/list_changed", Map::new()),
        Change::ResourcesListChanged => ("notifications/resources/list_changed", Map::new()),
        Change::EventsListChanged => (crate::protocol::events::LIST_CHANGED, Map::new()),
        Change::ResourceUpdated(uri) => {
            let mut p = Map::new();
            p.insert("uri".into(), json!(uri));
            ("notifications/resources/updated", p)
        }
        Change::Task(id) => {
            let mut p = Map::new();
            p.insert("taskId".into(), json!(id));
            (NOTIFICATION_METHOD, p)
        }
        // Occurrences go to their own streams (`events/stream`), not to listen streams.
        Change::Event(_) => return None,
    };
    Some(notification(method, params, subscription))
}

impl ServerEngine {
    /// `subscriptions/listen`: the accepted filter, `-32602` for a malformed one, `-32021` for
    /// task ids without the Tasks extension declared. Of the task ids, the runtime keeps the
    /// known ones (echoed in the acknowledgement) before the stream opens.
    ///
    /// Behind a per-identity catalogue ([`Origin::has_view`]) a resource URI is kept only when
    /// the caller may read it: a hidden resource is left out of the acknowledgement exactly
    /// like one that does not exist (no update of it reaches the caller).
    pub(super) fn listen(
        &self,
        req: Request,
        version: ProtocolVersion,
        caps: &ClientCapabilities,
        origin: &Origin,
    ) -> Action {
        let params: SubscriptionsListenRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let asked = params.notifications;
        let task_ids = match asked.task_ids {
            Some(ids) if !ids.is_empty() && !declares_tasks(caps) => {
                let why =
                    "listening for task notifications needs the Tasks extension declared on the request";
                return reply_err(req.id, missing_tasks_capability(why));
            }
            Some(ids) => (!ids.is_empty()).then_some(ids),
            None => None,
        };
        let resources = self.resources.is_some();
        let mut uris = asked.resource_subscriptions;
        if let (Some(r), Some(list)) = (&self.resources, uris.as_mut()) {
            if origin.has_view() {
                list.retain(|uri| self.may_subscribe(uri, origin));
            }
            for uri in list.iter() {
                r.subscribed(uri);
            }
        }
        let filter = SubscriptionFilter {
            tools_list_changed: wanted(asked.tools_list_changed, true),
            prompts_list_changed: wanted(asked.prompts_list_changed, self.prompts.is_some()),
            resources_list_changed: wanted(asked.resources_list_changed, resources),
            resource_subscriptions: uris.filter(|uris| resources && !uris.is_empty()),
            task_ids,
            events_list_changed: wanted(asked.events_list_changed, self.events.is_some()),
        };
        Action::Listen(Listen { id: req.id, version, filter, owner: origin.owner() })
    }

    /// The first message of a listen stream: `notifications/subscriptions/acknowledged`.
    pub fn listen_ack(&self, listen: &Listen) -> Message {
        let mut params = Map::new();
        params.insert("notifications".into(), serde_json::to_value(&listen.filter).expect("serializable"));
        notification("notifications/subscriptions/acknowledged", params, Some(&listen.id))
    }

    /// The `notifications/tasks` of a listen stream for the task in `record`: its full state
    /// (`DetailedTask`) as `tasks/get` would answer it now, tagged with the subscription id.
    pub fn task_notification(&self, listen: &Listen, record: &TaskRecord) -> Option<Message> {
        let Ok(Value::Object(params)) = serde_json::to_value(record.detailed()) else { return None };
        Some(notification(NOTIFICATION_METHOD, params, Some(&listen.id)))
    }

    /// True when a change of task `id` concerns the listen stream.
    pub fn listen_wants_task(&self, listen: &Listen, id: &str) -> bool {
        listen.filter.task_ids.iter().flatten().any(|t| t == id)
    }

    /// The notification `change` owes a listen stream, tagged with its subscription id. Task
    /// changes need the task's state: see [`ServerEngine::listen_wants_task`] and
    /// [`ServerEngine::task_notification`].
    pub fn listen_notification(&self, listen: &Listen, change: &Change) -> Option<Message> {
        let f = &listen.filter;
        let wanted = match change {
            Change::ToolsListChanged => f.tools_list_changed == Some(true),
            Change::PromptsListChanged => f.prompts_list_changed == Some(true),
            Change::ResourcesListChanged => f.resources_list_changed == Some(true),
            Change::EventsListChanged => f.events_list_changed == Some(true),
            Change::ResourceUpdated(uri) => f.resource_subscriptions.iter().flatten().any(|s| covers(s, uri)),
            Change::Task(_) | Change::Event(_) => false,
        };
        wanted.then(|| change_message(change, Some(&listen.id))).flatten()
    }

    /// The graceful end of a listen stream: its result.
    pub fn listen_end(&self, listen: &Listen) -> Response {
        let result = json!({ "resultType": "complete", "_meta": { SUBSCRIPTION_ID: listen.id.to_value() } });
        Response::result(listen.id.clone(), result)
    }

    /// The notification `change` owes a legacy session: list changes once initialized,
    /// resource updates for subscribed URIs.
    pub fn legacy_notification(&self, session: &LegacySession, change: &Change) -> Option<Message> {
        if !session.initialized {
            return None;
        }
        let wanted = match change {
            Change::ToolsListChanged => true,
            Change::PromptsListChanged => self.prompts.is_some(),
            Change::ResourcesListChanged => self.resources.is_some(),
            // The legacy dialect: sessions whose client declared the extension in `initialize`.
            Change::EventsListChanged => self.events.is_some() && session_declares_events(session),
            Change::ResourceUpdated(uri) => session.subscriptions.iter().any(|s| covers(s, uri)),
            Change::Task(_) | Change::Event(_) => false,
        };
        wanted.then(|| change_message(change, None)).flatten()
    }

    /// The change feeds of every catalog this engine serves.
    pub fn feeds(&self) -> Vec<&ChangeFeed> {
        let mut feeds = vec![self.registry.changes()];
        if let Some(p) = &self.prompts {
            feeds.push(p.changes());
        }
        if let Some(r) = &self.resources {
            feeds.push(r.changes());
        }
        if let Some(e) = &self.events {
            feeds.push(e.list_changes());
        }
        feeds
    }
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn updates_cover_the_resource_and_what_is_below_it() {
        assert!(covers("file:///a", "file:///a"));
        assert!(covers("file:///a", "file:///a/b"));
        assert!(covers("file:///a/", "file:///a/b"));
        assert!(!covers("file:///a", "file:///ab"));
        assert!(!covers("file:///a/b", "file:///a"));
    }
}
