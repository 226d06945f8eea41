//! Typed request and notification kinds: each ties a method name to its params and result
//! types and to the revisions in which it is a JSON-RPC message.
//!
//! Request kinds are empty marker types named after the schema's request types (e.g.
//! [`CallToolRequest`]); the three MRTR input requests ([`CreateMessageRequest`],
//! [`ListRootsRequest`], [`ElicitRequest`]) are real structs on 2026-07-28 and also implement
//! [`RequestType`] for their legacy JSON-RPC form.

use super::common::{EmptyResult, Meta, PaginatedRequestParams};
use super::completion::{CompleteRequestParams, CompleteResult};
use super::elicitation::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationCompleteNotificationParams,
};
use super::lifecycle::{DiscoverResult, InitializeRequestParams, InitializeResult};
use super::logging::{LoggingMessageNotificationParams, SetLevelRequestParams};
use super::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use super::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use super::resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams, ReadResourceResult,
    ResourceRequestParams, ResourceUpdatedNotificationParams,
};
use super::roots::{ListRootsRequest, ListRootsRequestParams, ListRootsResult};
use super::sampling::{CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult};
use super::subscriptions::{
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
use super::tasks::{
    CancelTaskResult, GetTaskResult, ListTasksResult, TaskIdParams, TaskStatusNotificationParams,
};
use super::tools::{CallToolRequestParams, CallToolResult, ListToolsResult};
use super::version::ProtocolVersion;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use ProtocolVersion::{V2024_11_05, V2025_06_18, V2025_11_25, V2026_07_28};

/// Params that carry only `_meta` (`RequestParams`): `server/discover`, `ping`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestParams {
    /// Request `_meta` (required on 2026-07-28).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// Params that carry only `_meta` (`NotificationParams`): `notifications/initialized`,
/// `notifications/*/list_changed`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NotificationParams {
    /// `_meta` (modern: `io.modelcontextprotocol/subscriptionId` on a listen stream).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// A request method: its name, params, result, and the revisions where it is a JSON-RPC request.
pub trait RequestType {
    /// The method name.
    const METHOD: &'static str;
    /// The first revision with this JSON-RPC request.
    const SINCE: ProtocolVersion = V2024_11_05;
    /// The last revision with this JSON-RPC request.
    const UNTIL: ProtocolVersion = ProtocolVersion::LATEST;
    /// Whether a 2026-07-28 server may answer with an `InputRequiredResult` (MRTR).
    const MAY_REQUIRE_INPUT: bool = false;
    /// The params type.
    type Params: Serialize + DeserializeOwned;
    /// The (complete) result type.
    type Result: Serialize + DeserializeOwned;
    /// Whether this is a JSON-RPC request of revision `v`.
    fn exists_in(v: ProtocolVersion) -> bool {
        Self::SINCE <= v && v <= Self::UNTIL
    }
}

/// A notification method: its name, params, and the revisions where it exists.
pub trait NotificationType {
    /// The method name.
    const METHOD: &'static str;
    /// The first revision with this notification.
    const SINCE: ProtocolVersion = V2024_11_05;
    /// The last revision with this notification.
    const UNTIL: ProtocolVersion = ProtocolVersion::LATEST;
    /// The params type.
    type Params: Serialize + DeserializeOwned;
    /// Whether this is a notification of revision `v`.
    fn exists_in(v: ProtocolVersion) -> bool {
        Self::SINCE <= v && v <= Self::UNTIL
    }
}

macro_rules! kinds {
    ($trait:ident { $(
        $(#[$doc:meta])* $name:ident = $method:literal, $params:ty $(=> $result:ty)?
        $(; since $since:ident)? $(; until $until:ident)? $(; mrtr $mrtr:literal)?
    ),* $(,)? }) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}
        impl $trait for $name {
            const METHOD: &'static str = $method;
            $(const SINCE: ProtocolVersion = $since;)?
            $(const UNTIL: ProtocolVersion = $until;)?
            $(const MAY_REQUIRE_INPUT: bool = $mrtr;)?
            type Params = $params;
            $(type Result = $result;)?
        }
    )*};
}

kinds!(RequestType {
    /// `initialize` (legacy).
    InitializeRequest = "initialize", InitializeRequestParams => InitializeResult; until V2025_11_25,
    /// `ping` (legacy, both directions).
    PingRequest = "ping", RequestParams => EmptyResult; until V2025_11_25,
    /// `server/discover` (modern).
    DiscoverRequest = "server/discover", RequestParams => DiscoverResult; since V2026_07_28,
    /// `tools/list`.
    ListToolsRequest = "tools/list", PaginatedRequestParams => ListToolsResult,
    /// `tools/call`.
    CallToolRequest = "tools/call", CallToolRequestParams => CallToolResult; mrtr true,
    /// `prompts/list`.
    ListPromptsRequest = "prompts/list", PaginatedRequestParams => ListPromptsResult,
    /// `prompts/get`.
    GetPromptRequest = "prompts/get", GetPromptRequestParams => GetPromptResult; mrtr true,
    /// `resources/list`.
    ListResourcesRequest = "resources/list", PaginatedRequestParams => ListResourcesResult,
    /// `resources/templates/list`.
    ListResourceTemplatesRequest = "resources/templates/list", PaginatedRequestParams
        => ListResourceTemplatesResult,
    /// `resources/read`.
    ReadResourceRequest = "resources/read", ReadResourceRequestParams => ReadResourceResult; mrtr true,
    /// `resources/subscribe` (legacy).
    SubscribeRequest = "resources/subscribe", ResourceRequestParams => EmptyResult; until V2025_11_25,
    /// `resources/unsubscribe` (legacy).
    UnsubscribeRequest = "resources/unsubscribe", ResourceRequestParams => EmptyResult; until V2025_11_25,
    /// `subscriptions/listen` (modern).
    SubscriptionsListenRequest = "subscriptions/listen", SubscriptionsListenRequestParams
        => SubscriptionsListenResult; since V2026_07_28,
    /// `completion/complete`.
    CompleteRequest = "completion/complete", CompleteRequestParams => CompleteResult,
    /// `logging/setLevel` (legacy).
    SetLevelRequest = "logging/setLevel", SetLevelRequestParams => EmptyResult; until V2025_11_25,
    /// `tasks/get` (2025-11-25 legacy tasks).
    GetTaskRequest = "tasks/get", TaskIdParams => GetTaskResult; since V2025_11_25; until V2025_11_25,
    /// `tasks/result` (2025-11-25 legacy tasks): the original request's result.
    GetTaskPayloadRequest = "tasks/result", TaskIdParams => Map<String, Value>; since V2025_11_25;
        until V2025_11_25,
    /// `tasks/list` (2025-11-25 legacy tasks).
    ListTasksRequest = "tasks/list", PaginatedRequestParams => ListTasksResult; since V2025_11_25;
        until V2025_11_25,
    /// `tasks/cancel` (2025-11-25 legacy tasks).
    CancelTaskRequest = "tasks/cancel", TaskIdParams => CancelTaskResult; since V2025_11_25;
        until V2025_11_25,
});

kinds!(NotificationType {
    /// `notifications/initialized` (legacy).
    InitializedNotification = "notifications/initialized", NotificationParams; until V2025_11_25,
    /// `notifications/cancelled`.
    CancelledNotification = "notifications/cancelled", CancelledNotificationParams,
    /// `notifications/progress`.
    ProgressNotification = "notifications/progress", ProgressNotificationParams,
    /// `notifications/message`.
    LoggingMessageNotification = "notifications/message", LoggingMessageNotificationParams,
    /// `notifications/resources/updated`.
    ResourceUpdatedNotification = "notifications/resources/updated", ResourceUpdatedNotificationParams,
    /// `notifications/resources/list_changed`.
    ResourceListChangedNotification = "notifications/resources/list_changed", NotificationParams,
    /// `notifications/tools/list_changed`.
    ToolListChangedNotification = "notifications/tools/list_changed", NotificationParams,
    /// `notifications/prompts/list_changed`.
    PromptListChangedNotification = "notifications/prompts/list_changed", NotificationParams,
    /// `notifications/roots/list_changed` (legacy).
    RootsListChangedNotification = "notifications/roots/list_changed", NotificationParams; until V2025_11_25,
    /// `notifications/subscriptions/acknowledged` (modern).
    SubscriptionsAcknowledgedNotification = "notifications/subscriptions/acknowledged",
        SubscriptionsAcknowledgedNotificationParams; since V2026_07_28,
    /// `notifications/elicitation/complete` (2025-11-25 only).
    ElicitationCompleteNotification = "notifications/elicitation/complete",
        ElicitationCompleteNotificationParams; since V2025_11_25; until V2025_11_25,
    /// `notifications/tasks/status` (2025-11-25 legacy tasks).
    TaskStatusNotification = "notifications/tasks/status", TaskStatusNotificationParams;
        since V2025_11_25; until V2025_11_25,
});

/// `sampling/createMessage` as a legacy server→client JSON-RPC request.
impl RequestType for CreateMessageRequest {
    const METHOD: &'static str = super::tags::CreateMessageMethod::VALUE;
    const UNTIL: ProtocolVersion = V2025_11_25;
    type Params = CreateMessageRequestParams;
    type Result = CreateMessageResult;
}

/// `roots/list` as a legacy server→client JSON-RPC request.
impl RequestType for ListRootsRequest {
    const METHOD: &'static str = super::tags::ListRootsMethod::VALUE;
    const UNTIL: ProtocolVersion = V2025_11_25;
    type Params = ListRootsRequestParams;
    type Result = ListRootsResult;
}

/// `elicitation/create` as a legacy server→client JSON-RPC request (2025-06-18+).
impl RequestType for ElicitRequest {
    const METHOD: &'static str = super::tags::ElicitMethod::VALUE;
    const SINCE: ProtocolVersion = V2025_06_18;
    const UNTIL: ProtocolVersion = V2025_11_25;
    type Params = ElicitRequestParams;
    type Result = ElicitResult;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn availability() {
        assert!(InitializeRequest::exists_in(V2024_11_05));
        assert!(!InitializeRequest::exists_in(V2026_07_28));
        assert!(DiscoverRequest::exists_in(V2026_07_28));
        assert!(!DiscoverRequest::exists_in(V2025_11_25));
        assert!(CallToolRequest::exists_in(V2026_07_28));
        const { assert!(CallToolRequest::MAY_REQUIRE_INPUT && !ListToolsRequest::MAY_REQUIRE_INPUT) };
        assert!(!ElicitRequest::exists_in(ProtocolVersion::V2025_03_26));
        assert!(GetTaskRequest::exists_in(V2025_11_25) && !GetTaskRequest::exists_in(V2026_07_28));
        assert_eq!(<CreateMessageRequest as RequestType>::METHOD, "sampling/createMessage");
        assert!(!RootsListChangedNotification::exists_in(V2026_07_28));
    }
}
