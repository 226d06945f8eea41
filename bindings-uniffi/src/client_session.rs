//! The rest of the client: `ping`, the log level, roots, resource subscriptions, the server's
//! notifications ([`NotificationListener`]), pages of the lists ([`ToolsPage`]...), and
//! task-augmented calls ([`Task`]).

use crate::client::{Client, Subscription};
use crate::client_catalog::{Prompt, Resource, ResourceTemplate};
use crate::errors::McpError;
use crate::results::{Tool, ToolResult};
use crate::{parse_json, rt};
use mcpcore::client::{ServerEvent, TaskHandle, TaskOptions};
use mcpcore::protocol::logging::LoggingLevel;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A notification of the server that answers no request.
#[derive(Debug, Clone, PartialEq, uniffi::Enum)]
pub enum ServerNotification {
    /// `notifications/tools/list_changed`.
    ToolsChanged,
    /// `notifications/prompts/list_changed`.
    PromptsChanged,
    /// `notifications/resources/list_changed`.
    ResourcesChanged,
    /// `notifications/resources/updated`: the resource at `uri` (subscribed to) changed.
    ResourceUpdated {
        /// Its URI.
        uri: String,
    },
    /// Any other notification.
    Other {
        /// The wire method.
        method: String,
        /// The params, as JSON text.
        params: String,
    },
}

impl From<ServerEvent> for ServerNotification {
    fn from(e: ServerEvent) -> Self {
        match e {
            ServerEvent::ToolsListChanged => ServerNotification::ToolsChanged,
            ServerEvent::PromptsListChanged => ServerNotification::PromptsChanged,
            ServerEvent::ResourcesListChanged => ServerNotification::ResourcesChanged,
            ServerEvent::ResourceUpdated(p) => ServerNotification::ResourceUpdated { uri: p.uri },
            other => ServerNotification::Other {
                method: other.method().to_owned(),
                params: other.params().to_string(),
            },
        }
    }
}

/// What a 2026-07-28 server agreed to send on the client's listen stream.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct ListenFilter {
    /// `notifications/tools/list_changed`.
    pub tools_list_changed: bool,
    /// `notifications/prompts/list_changed`.
    pub prompts_list_changed: bool,
    /// `notifications/resources/list_changed`.
    pub resources_list_changed: bool,
    /// The resources whose `notifications/resources/updated` it sends.
    pub resource_subscriptions: Vec<String>,
}

/// Receives the server's notifications (Kotlin: a `when` over [`ServerNotification`]).
#[uniffi::export(with_foreign)]
pub trait NotificationListener: Send + Sync {
    /// One notification.
    fn on_notification(&self, notification: ServerNotification);
}

/// One page of `tools/list`.
#[derive(Debug, Clone, uniffi::Record)]
pub struct ToolsPage {
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// One page of `resources/list`.
#[derive(Debug, Clone, uniffi::Record)]
pub struct ResourcesPage {
    /// The resources of this page.
    pub resources: Vec<Resource>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// One page of `resources/templates/list`.
#[derive(Debug, Clone, uniffi::Record)]
pub struct ResourceTemplatesPage {
    /// The templates of this page.
    pub templates: Vec<ResourceTemplate>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// One page of `prompts/list`.
#[derive(Debug, Clone, uniffi::Record)]
pub struct PromptsPage {
    /// The prompts of this page.
    pub prompts: Vec<Prompt>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// What a task is doing.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct TaskInfo {
    /// The task id.
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The server's words about the state.
    pub status_message: Option<String>,
    /// How often the server suggests polling.
    pub poll_interval: Option<Duration>,
    /// How long the server keeps the task after its creation (`None`: unlimited).
    pub ttl: Option<Duration>,
}

/// A task the server runs for a tool call ([`Client::call_tool_as_task`]).
#[derive(uniffi::Object)]
pub struct Task {
    /// Always set; taken only by `drop`.
    inner: Option<Arc<TaskHandle>>,
}

impl Drop for Task {
    fn drop(&mut self) {
        // The handle holds the connection; its last reference may go here.
        let _guard = rt::runtime().enter();
        self.inner.take();
    }
}

impl Task {
    fn handle(&self) -> Arc<TaskHandle> {
        self.inner.clone().expect("set until dropped")
    }
}

#[uniffi::export]
impl Task {
    /// The task id; `None` when the server answered at once instead of creating a task.
    pub fn id(&self) -> Option<String> {
        self.handle().id().map(str::to_owned)
    }

    /// Asks the server for the task's state.
    pub async fn status(&self) -> Result<TaskInfo, McpError> {
        let t = self.handle();
        rt::in_runtime(async move {
            let i = t.status().await?;
            let status = serde_json::to_value(i.status).ok().and_then(|v| v.as_str().map(str::to_owned));
            Ok(TaskInfo {
                task_id: i.task_id,
                status: status.unwrap_or_default(),
                status_message: i.status_message,
                poll_interval: i.poll_interval,
                ttl: i.ttl,
            })
        })
        .await
    }

    /// Waits for the task to end and returns the tool's result (input the task asks for is
    /// answered by the connection's `ClientInput`); a failed task throws its error, a cancelled
    /// one `Cancelled`.
    pub async fn result(&self) -> Result<ToolResult, McpError> {
        let t = self.handle();
        rt::in_runtime(async move { Ok(ToolResult::from(&t.result().await?)) }).await
    }

    /// Asks the server to cancel the task.
    pub async fn cancel(&self) -> Result<(), McpError> {
        let t = self.handle();
        rt::in_runtime(async move { Ok(t.cancel().await?) }).await
    }
}

#[uniffi::export]
impl Client {
    /// Checks that the server answers (`ping`; `server/discover` on 2026-07-28).
    pub async fn ping(&self) -> Result<(), McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.ping().await?) }).await
    }

    /// Asks for log messages at `level` (`debug` … `emergency`) and above, delivered to
    /// [`Client::on_log`]: `logging/setLevel` on a legacy session, each later request's `_meta`
    /// on 2026-07-28.
    pub async fn set_log_level(&self, level: String) -> Result<(), McpError> {
        let c = self.inner()?;
        let level = LoggingLevel::parse(&level)
            .ok_or_else(|| McpError::invalid(format!("unknown log level {level:?}")))?;
        rt::in_runtime(async move { Ok(c.set_log_level(level).await?) }).await
    }

    /// Replaces the roots given in `ConnectOptions.roots` and tells a legacy server.
    pub fn set_roots(&self, roots: Vec<crate::input::Root>) -> Result<(), McpError> {
        Ok(self.inner()?.set_roots(roots.iter().map(crate::input::Root::to_core).collect())?)
    }

    /// Updates of `uri` reach [`Client::on_notification`]: legacy `resources/subscribe`; on
    /// 2026-07-28 the URI joins the filter of the client's listen stream (returns once the
    /// server acknowledged it). An unknown or hidden resource is `McpError::ResourceNotFound`.
    pub async fn subscribe_resource(&self, uri: String) -> Result<(), McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.subscribe_resource(&uri).await?) }).await
    }

    /// Stops [`Client::subscribe_resource`].
    pub async fn unsubscribe_resource(&self, uri: String) -> Result<(), McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.unsubscribe_resource(&uri).await?) }).await
    }

    /// Delivers the server's notifications that answer no request (list changes, resource
    /// updates, others) to `listener` until the returned subscription is cancelled, closed or
    /// dropped. A later listener replaces this one. On legacy Streamable HTTP they travel on
    /// the GET stream the client keeps open; on 2026-07-28 on a `subscriptions/listen` stream
    /// the client opens for it (with the subscribed resources), keeps open, and closes when the
    /// subscription ends or the client closes ([`Client::notifications_ready`]).
    pub fn on_notification(
        self: Arc<Self>,
        listener: Arc<dyn NotificationListener>,
    ) -> Result<Arc<Subscription>, McpError> {
        use std::sync::atomic::Ordering;
        let c = self.inner()?;
        let slot: Arc<Mutex<Option<Arc<dyn NotificationListener>>>> = Arc::new(Mutex::new(Some(listener)));
        let reader = slot.clone();
        let number = self.listeners.fetch_add(1, Ordering::SeqCst) + 1;
        c.on_notification(move |e| {
            let listener = reader.lock().expect("lock").clone();
            if let Some(l) = listener {
                l.on_notification(e.into());
            }
        });
        let client = Arc::downgrade(&self);
        Ok(Subscription::new(Box::new(move || {
            slot.lock().expect("lock").take();
            // Still the current listener: the client stops asking for notifications.
            let current = client.upgrade().filter(|c| c.listeners.load(Ordering::SeqCst) == number);
            if let Some(c) = current.and_then(|c| c.inner().ok()) {
                c.remove_notification_handler();
            }
        })))
    }

    /// 2026-07-28: waits until the server acknowledged the client's listen stream as the
    /// notification listener and the subscribed resources want it now, and returns what it
    /// agreed to send (`null` when no stream is needed, and on legacy sessions).
    pub async fn notifications_ready(&self) -> Result<Option<ListenFilter>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let acked = c.notifications_ready().await?;
            Ok(acked.map(|f| ListenFilter {
                tools_list_changed: f.tools_list_changed == Some(true),
                prompts_list_changed: f.prompts_list_changed == Some(true),
                resources_list_changed: f.resources_list_changed == Some(true),
                resource_subscriptions: f.resource_subscriptions.unwrap_or_default(),
            }))
        })
        .await
    }

    /// One page of `tools/list` after `cursor` (served from the cache while fresh).
    #[uniffi::method(default(cursor = None))]
    pub async fn list_tools_page(&self, cursor: Option<String>) -> Result<ToolsPage, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let p = c.list_tools_page(cursor).await?;
            Ok(ToolsPage { tools: p.tools.iter().map(Tool::from).collect(), next_cursor: p.next_cursor })
        })
        .await
    }

    /// One page of `resources/list` after `cursor`.
    #[uniffi::method(default(cursor = None))]
    pub async fn list_resources_page(&self, cursor: Option<String>) -> Result<ResourcesPage, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let p = c.list_resources_page(cursor).await?;
            Ok(ResourcesPage {
                resources: p.resources.iter().map(Resource::from).collect(),
                next_cursor: p.next_cursor,
            })
        })
        .await
    }

    /// One page of `resources/templates/list` after `cursor`.
    #[uniffi::method(default(cursor = None))]
    pub async fn list_resource_templates_page(
        &self,
        cursor: Option<String>,
    ) -> Result<ResourceTemplatesPage, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let p = c.list_resource_templates_page(cursor).await?;
            let templates = p.resource_templates.iter().map(ResourceTemplate::from).collect();
            Ok(ResourceTemplatesPage { templates, next_cursor: p.next_cursor })
        })
        .await
    }

    /// One page of `prompts/list` after `cursor`.
    #[uniffi::method(default(cursor = None))]
    pub async fn list_prompts_page(&self, cursor: Option<String>) -> Result<PromptsPage, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move {
            let p = c.list_prompts_page(cursor).await?;
            Ok(PromptsPage {
                prompts: p.prompts.iter().map(Prompt::from).collect(),
                next_cursor: p.next_cursor,
            })
        })
        .await
    }

    /// Calls a tool as a task (2025-11-25 tasks, or the 2026-07-28 Tasks extension) and
    /// returns its [`Task`]; `ttl` asks the server to keep it that long, `wait` bounds
    /// [`Task::result`] (default: the request timeout). A tool that runs only as a task is run
    /// as one by `call_tool` too.
    #[uniffi::method(default(ttl = None, wait = None))]
    pub async fn call_tool_as_task(
        &self,
        name: String,
        arguments: String,
        ttl: Option<Duration>,
        wait: Option<Duration>,
    ) -> Result<Arc<Task>, McpError> {
        let c = self.inner()?;
        let args = parse_json("arguments", &arguments)?;
        rt::in_runtime(async move {
            let handle = c.call_tool_as_task(&name, args, TaskOptions { ttl, wait }).await?;
            Ok(Arc::new(Task { inner: Some(Arc::new(handle)) }))
        })
        .await
    }
}
