//! Every official 2026-07-28 example (`tests/spec/2026-07-28/examples/<TypeName>/*.json`)
//! deserializes into the Rust type named by its folder and serializes back to the same JSON.
//!
//! One `#[test]` per file. Full JSON-RPC envelopes go through `mcpcore::jsonrpc::from_value`;
//! their params/result/error data are typed, then the envelope is rebuilt. `coverage_guard`
//! fails when a file exists that no test names. Regenerate the list below when examples change.

use mcpcore::jsonrpc::{self, Message, Notification, Request, Response};
use mcpcore::protocol::capabilities::{ClientCapabilities, ServerCapabilities};
use mcpcore::protocol::common::PaginatedRequestParams;
use mcpcore::protocol::completion::{CompleteRequestParams, CompleteResult};
use mcpcore::protocol::content::ContentBlock as Cb;
use mcpcore::protocol::elicitation::{
    BooleanSchema, ElicitRequestFormParams, ElicitRequestParams, ElicitRequestURLParams, ElicitResult,
    NumberSchema, PrimitiveSchemaDefinition as Psd, StringSchema, TitledMultiSelectEnumSchema,
    TitledSingleSelectEnumSchema, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
use mcpcore::protocol::errors::MissingRequiredClientCapabilityData;
use mcpcore::protocol::lifecycle::{DiscoverResult, UnsupportedVersionData};
use mcpcore::protocol::logging::LoggingMessageNotificationParams;
use mcpcore::protocol::messages::{
    CallToolRequest, CancelledNotification, CompleteRequest, DiscoverRequest, GetPromptRequest,
    ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest,
    LoggingMessageNotification, NotificationType, ProgressNotification, PromptListChangedNotification,
    ReadResourceRequest, RequestType, ResourceListChangedNotification, ResourceUpdatedNotification,
    SubscriptionsAcknowledgedNotification, SubscriptionsListenRequest, ToolListChangedNotification,
};
use mcpcore::protocol::mrtr::{
    InputRequest, InputRequests, InputRequiredResult, InputResponse, InputResponses, ResultOrInputRequired,
};
use mcpcore::protocol::notifications::{CancelledNotificationParams, ProgressNotificationParams};
use mcpcore::protocol::prompts::{GetPromptRequestParams, GetPromptResult, ListPromptsResult};
use mcpcore::protocol::resources::{
    BlobResourceContents, ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceUpdatedNotificationParams, TextResourceContents,
};
use mcpcore::protocol::roots::{ListRootsResult, Root};
use mcpcore::protocol::sampling::{
    CreateMessageRequestParams, CreateMessageResult, ModelPreferences, SamplingMessage,
    SamplingMessageContentBlock as Smcb,
};
use mcpcore::protocol::subscriptions::SubscriptionsListenResult;
use mcpcore::protocol::tools::{CallToolRequestParams, CallToolResult, ListToolsResult, Tool};
use mcpcore::protocol::ResultType;
use mcpcore::{ErrorCode, ErrorData};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/2026-07-28/examples")
}

fn load(rel: &str) -> Value {
    let path = examples_dir().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: invalid JSON: {e}"))
}

/// Deserializes `v` as `T`, serializes it back and asserts the JSON is unchanged.
fn typed<T: DeserializeOwned + Serialize>(what: &str, v: &Value) -> T {
    let t: T = serde_json::from_value(v.clone())
        .unwrap_or_else(|e| panic!("{what}: does not deserialize as {}: {e}", std::any::type_name::<T>()));
    let back = serde_json::to_value(&t).expect("serializes");
    assert_eq!(&back, v, "{what}: {} does not round-trip", std::any::type_name::<T>());
    t
}

fn to_map<T: Serialize>(t: &T) -> Map<String, Value> {
    match serde_json::to_value(t).expect("serializes") {
        Value::Object(m) => m,
        other => panic!("params/result must serialize to an object, got {other}"),
    }
}

fn parse_message(rel: &str) -> (Value, Message) {
    let v = load(rel);
    let msg =
        jsonrpc::from_value(v.clone()).unwrap_or_else(|e| panic!("{rel}: not a JSON-RPC message: {e:?}"));
    (v, msg)
}

fn assert_envelope(rel: &str, original: &Value, rebuilt: Message) {
    assert_eq!(&rebuilt.to_value(), original, "{rel}: rebuilt envelope differs");
}

/// A bare type.
fn plain<T: DeserializeOwned + Serialize>(rel: &str) {
    typed::<T>(rel, &load(rel));
}

/// A JSON-RPC request of kind `K`.
fn request<K: RequestType>(rel: &str) {
    let (v, msg) = parse_message(rel);
    let Message::Request(Request { id, method, params }) = msg else { panic!("{rel}: not a request") };
    assert_eq!(method, K::METHOD, "{rel}: method");
    let params = Value::Object(params.unwrap_or_else(|| panic!("{rel}: params missing")));
    let typed_params = typed::<K::Params>(rel, &params);
    let rebuilt = Request { id, method, params: Some(to_map(&typed_params)) };
    assert_envelope(rel, &v, Message::Request(rebuilt));
}

/// A JSON-RPC notification of kind `K`.
fn notification<K: NotificationType>(rel: &str) {
    let (v, msg) = parse_message(rel);
    let Message::Notification(Notification { method, params }) = msg else {
        panic!("{rel}: not a notification")
    };
    assert_eq!(method, K::METHOD, "{rel}: method");
    let params = params.map(|p| to_map(&typed::<K::Params>(rel, &Value::Object(p))));
    assert_envelope(rel, &v, Message::Notification(Notification { method, params }));
}

/// A JSON-RPC result response whose result is a `T`.
fn response<T: DeserializeOwned + Serialize>(rel: &str) {
    let (v, msg) = parse_message(rel);
    let Message::Response(Response { id: Some(id), outcome: Ok(result) }) = msg else {
        panic!("{rel}: not a result response")
    };
    let result = typed::<T>(rel, &result);
    let rebuilt = Response::result(id, serde_json::to_value(&result).expect("serializes"));
    assert_envelope(rel, &v, Message::Response(rebuilt));
}

/// A JSON-RPC error response with `code` whose `data` is a `D`.
fn error_response<D: DeserializeOwned + Serialize>(code: ErrorCode) -> impl Fn(&str) {
    move |rel| {
        let (v, msg) = parse_message(rel);
        let Message::Response(Response { id, outcome: Err(error) }) = msg else {
            panic!("{rel}: not an error response")
        };
        assert_eq!(error.code, code, "{rel}: code");
        let data = error.data.as_ref().map(|d| serde_json::to_value(typed::<D>(rel, d)).expect("serializes"));
        let rebuilt = Response::error(id, ErrorData { data, ..error });
        assert_envelope(rel, &v, Message::Response(rebuilt));
    }
}

/// A bare JSON-RPC error object with `code`.
fn error_object(code: ErrorCode) -> impl Fn(&str) {
    move |rel| {
        let e = typed::<ErrorData>(rel, &load(rel));
        assert_eq!(e.code, code, "{rel}: code");
    }
}

/// A content block (the folder names the variant).
fn content(is: impl Fn(&Cb) -> bool) -> impl Fn(&str) {
    move |rel| assert!(is(&typed::<Cb>(rel, &load(rel))), "{rel}: wrong ContentBlock variant")
}

/// A sampling content block (the folder names the variant).
fn sampling_block(is: impl Fn(&Smcb) -> bool) -> impl Fn(&str) {
    move |rel| assert!(is(&typed::<Smcb>(rel, &load(rel))), "{rel}: wrong sampling block variant")
}

/// An elicitation field schema: as `T` and as the right `PrimitiveSchemaDefinition` variant.
fn primitive<T: DeserializeOwned + Serialize>(is: impl Fn(&Psd) -> bool) -> impl Fn(&str) {
    move |rel| {
        let v = load(rel);
        typed::<T>(rel, &v);
        assert!(is(&typed::<Psd>(rel, &v)), "{rel}: wrong PrimitiveSchemaDefinition variant");
    }
}

/// Elicitation params: as `T` and as the right `ElicitRequestParams` variant.
fn elicit_params<T: DeserializeOwned + Serialize>(
    is: impl Fn(&ElicitRequestParams) -> bool,
) -> impl Fn(&str) {
    move |rel| {
        let v = load(rel);
        typed::<T>(rel, &v);
        assert!(is(&typed::<ElicitRequestParams>(rel, &v)), "{rel}: wrong ElicitRequestParams variant");
    }
}

/// An MRTR input request (the folder names the variant).
fn input_request(is: impl Fn(&InputRequest) -> bool) -> impl Fn(&str) {
    move |rel| assert!(is(&typed::<InputRequest>(rel, &load(rel))), "{rel}: wrong InputRequest variant")
}

/// An MRTR input response: as `T` and as the right `InputResponse` variant.
fn input_response<T: DeserializeOwned + Serialize>(is: impl Fn(&InputResponse) -> bool) -> impl Fn(&str) {
    move |rel| {
        let v = load(rel);
        typed::<T>(rel, &v);
        assert!(is(&typed::<InputResponse>(rel, &v)), "{rel}: wrong InputResponse variant");
    }
}

/// An `InputRequiredResult`, also through `ResultOrInputRequired`.
fn input_required(rel: &str) {
    let v = load(rel);
    let r = typed::<InputRequiredResult>(rel, &v);
    assert_eq!(r.result_type, ResultType::InputRequired);
    let either = typed::<ResultOrInputRequired<CallToolResult>>(rel, &v);
    assert!(
        matches!(either, ResultOrInputRequired::InputRequired(_)),
        "{rel}: not classified as input_required"
    );
}

macro_rules! variant {
    ($p:path) => {
        |x: &_| matches!(x, $p(_))
    };
}

macro_rules! examples {
    ($($name:ident: $path:literal => $check:expr;)*) => {
        $(
            #[test]
            fn $name() {
                let check = $check;
                check($path);
            }
        )*
        /// Every example file some test above covers.
        const COVERED: &[&str] = &[$($path),*];
    };
}

examples! {
    audio_content_audio_wav_content: "AudioContent/audio-wav-content.json" => content(variant!(Cb::Audio));
    blob_resource_contents_image_file_contents: "BlobResourceContents/image-file-contents.json" =>
        plain::<BlobResourceContents>;
    boolean_schema_boolean_input_schema: "BooleanSchema/boolean-input-schema.json" =>
        primitive::<BooleanSchema>(variant!(Psd::Boolean));
    call_tool_request_call_tool_request: "CallToolRequest/call-tool-request.json" =>
        request::<CallToolRequest>;
    call_tool_request_params_get_weather_tool_call_params:
        "CallToolRequestParams/get-weather-tool-call-params.json" => plain::<CallToolRequestParams>;
    call_tool_request_params_tool_call_params_with_progress_token:
        "CallToolRequestParams/tool-call-params-with-progress-token.json" => plain::<CallToolRequestParams>;
    call_tool_result_invalid_tool_input_error: "CallToolResult/invalid-tool-input-error.json" =>
        plain::<CallToolResult>;
    call_tool_result_result_with_array_structured_content:
        "CallToolResult/result-with-array-structured-content.json" => plain::<CallToolResult>;
    call_tool_result_result_with_structured_content: "CallToolResult/result-with-structured-content.json" =>
        plain::<CallToolResult>;
    call_tool_result_result_with_unstructured_text: "CallToolResult/result-with-unstructured-text.json" =>
        plain::<CallToolResult>;
    call_tool_result_response_call_tool_result_response:
        "CallToolResultResponse/call-tool-result-response.json" =>
        response::<ResultOrInputRequired<CallToolResult>>;
    cancelled_notification_user_requested_cancellation:
        "CancelledNotification/user-requested-cancellation.json" => notification::<CancelledNotification>;
    cancelled_notification_params_user_requested_cancellation:
        "CancelledNotificationParams/user-requested-cancellation.json" =>
        plain::<CancelledNotificationParams>;
    client_capabilities_elicitation_form_and_url_mode_support:
        "ClientCapabilities/elicitation-form-and-url-mode-support.json" => plain::<ClientCapabilities>;
    client_capabilities_elicitation_form_only_implicit:
        "ClientCapabilities/elicitation-form-only-implicit.json" => plain::<ClientCapabilities>;
    client_capabilities_extensions_ui_mime_types: "ClientCapabilities/extensions-ui-mime-types.json" =>
        plain::<ClientCapabilities>;
    client_capabilities_roots_minimum_baseline_support:
        "ClientCapabilities/roots-minimum-baseline-support.json" => plain::<ClientCapabilities>;
    client_capabilities_sampling_context_inclusion_support_deprecated:
        "ClientCapabilities/sampling-context-inclusion-support-deprecated.json" =>
        plain::<ClientCapabilities>;
    client_capabilities_sampling_minimum_baseline_support:
        "ClientCapabilities/sampling-minimum-baseline-support.json" => plain::<ClientCapabilities>;
    client_capabilities_sampling_tool_use_support: "ClientCapabilities/sampling-tool-use-support.json" =>
        plain::<ClientCapabilities>;
    complete_request_completion_request: "CompleteRequest/completion-request.json" =>
        request::<CompleteRequest>;
    complete_request_params_prompt_argument_completion_with_context:
        "CompleteRequestParams/prompt-argument-completion-with-context.json" =>
        plain::<CompleteRequestParams>;
    complete_request_params_prompt_argument_completion:
        "CompleteRequestParams/prompt-argument-completion.json" => plain::<CompleteRequestParams>;
    complete_result_multiple_completion_values_with_more_available:
        "CompleteResult/multiple-completion-values-with-more-available.json" => plain::<CompleteResult>;
    complete_result_single_completion_value: "CompleteResult/single-completion-value.json" =>
        plain::<CompleteResult>;
    complete_result_response_completion_result_response:
        "CompleteResultResponse/completion-result-response.json" => response::<CompleteResult>;
    create_message_request_sampling_request: "CreateMessageRequest/sampling-request.json" =>
        input_request(variant!(InputRequest::CreateMessage));
    create_message_request_params_basic_request: "CreateMessageRequestParams/basic-request.json" =>
        plain::<CreateMessageRequestParams>;
    create_message_request_params_follow_up_with_tool_results:
        "CreateMessageRequestParams/follow-up-with-tool-results.json" => plain::<CreateMessageRequestParams>;
    create_message_request_params_request_with_tools: "CreateMessageRequestParams/request-with-tools.json" =>
        plain::<CreateMessageRequestParams>;
    create_message_result_final_response: "CreateMessageResult/final-response.json" =>
        input_response::<CreateMessageResult>(variant!(InputResponse::CreateMessage));
    create_message_result_text_response: "CreateMessageResult/text-response.json" =>
        input_response::<CreateMessageResult>(variant!(InputResponse::CreateMessage));
    create_message_result_tool_use_response: "CreateMessageResult/tool-use-response.json" =>
        input_response::<CreateMessageResult>(variant!(InputResponse::CreateMessage));
    discover_request_server_discover_request: "DiscoverRequest/server-discover-request.json" =>
        request::<DiscoverRequest>;
    discover_result_server_capabilities_discovery: "DiscoverResult/server-capabilities-discovery.json" =>
        plain::<DiscoverResult>;
    discover_result_response_discover_result_response:
        "DiscoverResultResponse/discover-result-response.json" => response::<DiscoverResult>;
    elicit_request_elicitation_request: "ElicitRequest/elicitation-request.json" =>
        input_request(variant!(InputRequest::Elicit));
    elicit_request_form_params_elicit_multiple_fields:
        "ElicitRequestFormParams/elicit-multiple-fields.json" =>
        elicit_params::<ElicitRequestFormParams>(variant!(ElicitRequestParams::Form));
    elicit_request_form_params_elicit_single_field: "ElicitRequestFormParams/elicit-single-field.json" =>
        elicit_params::<ElicitRequestFormParams>(variant!(ElicitRequestParams::Form));
    elicit_request_url_params_elicit_sensitive_data: "ElicitRequestURLParams/elicit-sensitive-data.json" =>
        elicit_params::<ElicitRequestURLParams>(variant!(ElicitRequestParams::Url));
    elicit_result_accept_url_mode_no_content: "ElicitResult/accept-url-mode-no-content.json" =>
        input_response::<ElicitResult>(variant!(InputResponse::Elicit));
    elicit_result_input_multiple_fields: "ElicitResult/input-multiple-fields.json" =>
        input_response::<ElicitResult>(variant!(InputResponse::Elicit));
    elicit_result_input_single_field: "ElicitResult/input-single-field.json" =>
        input_response::<ElicitResult>(variant!(InputResponse::Elicit));
    embedded_resource_embedded_file_resource_with_annotations:
        "EmbeddedResource/embedded-file-resource-with-annotations.json" => content(variant!(Cb::Resource));
    get_prompt_request_get_prompt_request: "GetPromptRequest/get-prompt-request.json" =>
        request::<GetPromptRequest>;
    get_prompt_request_params_get_code_review_prompt: "GetPromptRequestParams/get-code-review-prompt.json" =>
        plain::<GetPromptRequestParams>;
    get_prompt_result_code_review_prompt: "GetPromptResult/code-review-prompt.json" =>
        plain::<GetPromptResult>;
    get_prompt_result_response_get_prompt_result_response:
        "GetPromptResultResponse/get-prompt-result-response.json" =>
        response::<ResultOrInputRequired<GetPromptResult>>;
    header_mismatch_error_header_mismatch: "HeaderMismatchError/header-mismatch.json" =>
        error_response::<Value>(ErrorCode::HEADER_MISMATCH);
    image_content_image_png_content_with_annotations:
        "ImageContent/image-png-content-with-annotations.json" => content(variant!(Cb::Image));
    input_requests_elicitation_and_sampling_input_requests:
        "InputRequests/elicitation-and-sampling-input-requests.json" => plain::<InputRequests>;
    input_required_result_input_required_result_with_elicitation_and_sampling_and_request_state:
        "InputRequiredResult/input-required-result-with-elicitation-and-sampling-and-request-state.json" =>
        input_required;
    input_required_result_input_required_result_with_request_state_only:
        "InputRequiredResult/input-required-result-with-request-state-only.json" => input_required;
    input_responses_elicitation_and_sampling_input_responses:
        "InputResponses/elicitation-and-sampling-input-responses.json" => plain::<InputResponses>;
    internal_error_unexpected_error: "InternalError/unexpected-error.json" =>
        error_object(ErrorCode::INTERNAL_ERROR);
    invalid_params_error_invalid_cursor: "InvalidParamsError/invalid-cursor.json" =>
        error_object(ErrorCode::INVALID_PARAMS);
    invalid_params_error_invalid_tool_arguments: "InvalidParamsError/invalid-tool-arguments.json" =>
        error_object(ErrorCode::INVALID_PARAMS);
    invalid_params_error_unknown_prompt: "InvalidParamsError/unknown-prompt.json" =>
        error_object(ErrorCode::INVALID_PARAMS);
    invalid_params_error_unknown_tool: "InvalidParamsError/unknown-tool.json" =>
        error_object(ErrorCode::INVALID_PARAMS);
    list_prompts_request_list_prompts_request: "ListPromptsRequest/list-prompts-request.json" =>
        request::<ListPromptsRequest>;
    list_prompts_result_prompts_list_with_cursor_and_ttl:
        "ListPromptsResult/prompts-list-with-cursor-and-ttl.json" => plain::<ListPromptsResult>;
    list_prompts_result_response_list_prompts_result_response:
        "ListPromptsResultResponse/list-prompts-result-response.json" => response::<ListPromptsResult>;
    list_resource_templates_request_list_resource_templates_request:
        "ListResourceTemplatesRequest/list-resource-templates-request.json" =>
        request::<ListResourceTemplatesRequest>;
    list_resource_templates_result_resource_templates_list_with_cursor_and_ttl:
        "ListResourceTemplatesResult/resource-templates-list-with-cursor-and-ttl.json" =>
        plain::<ListResourceTemplatesResult>;
    list_resource_templates_result_response_list_resource_templates_result_response:
        "ListResourceTemplatesResultResponse/list-resource-templates-result-response.json" =>
        response::<ListResourceTemplatesResult>;
    list_resources_request_list_resources_request: "ListResourcesRequest/list-resources-request.json" =>
        request::<ListResourcesRequest>;
    list_resources_result_resources_list_with_cursor_and_ttl:
        "ListResourcesResult/resources-list-with-cursor-and-ttl.json" => plain::<ListResourcesResult>;
    list_resources_result_response_list_resources_result_response:
        "ListResourcesResultResponse/list-resources-result-response.json" => response::<ListResourcesResult>;
    list_roots_request_list_roots_request: "ListRootsRequest/list-roots-request.json" =>
        input_request(variant!(InputRequest::ListRoots));
    list_roots_result_multiple_root_directories: "ListRootsResult/multiple-root-directories.json" =>
        input_response::<ListRootsResult>(variant!(InputResponse::ListRoots));
    list_roots_result_single_root_directory: "ListRootsResult/single-root-directory.json" =>
        input_response::<ListRootsResult>(variant!(InputResponse::ListRoots));
    list_tools_request_list_tools_request: "ListToolsRequest/list-tools-request.json" =>
        request::<ListToolsRequest>;
    list_tools_result_tools_list_with_cursor_and_ttl: "ListToolsResult/tools-list-with-cursor-and-ttl.json" =>
        plain::<ListToolsResult>;
    list_tools_result_response_list_tools_result_response:
        "ListToolsResultResponse/list-tools-result-response.json" => response::<ListToolsResult>;
    logging_message_notification_log_database_connection_failed:
        "LoggingMessageNotification/log-database-connection-failed.json" =>
        notification::<LoggingMessageNotification>;
    logging_message_notification_params_log_database_connection_failed:
        "LoggingMessageNotificationParams/log-database-connection-failed.json" =>
        plain::<LoggingMessageNotificationParams>;
    method_not_found_error_prompts_not_supported: "MethodNotFoundError/prompts-not-supported.json" =>
        error_object(ErrorCode::METHOD_NOT_FOUND);
    missing_required_client_capability_error_missing_elicitation_capability:
        "MissingRequiredClientCapabilityError/missing-elicitation-capability.json" =>
        error_response::<MissingRequiredClientCapabilityData>(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    model_preferences_with_hints_and_priorities: "ModelPreferences/with-hints-and-priorities.json" =>
        plain::<ModelPreferences>;
    number_schema_number_input_schema: "NumberSchema/number-input-schema.json" =>
        primitive::<NumberSchema>(variant!(Psd::Number));
    paginated_request_params_list_with_cursor: "PaginatedRequestParams/list-with-cursor.json" =>
        plain::<PaginatedRequestParams>;
    parse_error_invalid_json: "ParseError/invalid-json.json" => error_object(ErrorCode::PARSE_ERROR);
    progress_notification_progress_message: "ProgressNotification/progress-message.json" =>
        notification::<ProgressNotification>;
    progress_notification_params_progress_message: "ProgressNotificationParams/progress-message.json" =>
        plain::<ProgressNotificationParams>;
    prompt_list_changed_notification_prompts_list_changed:
        "PromptListChangedNotification/prompts-list-changed.json" =>
        notification::<PromptListChangedNotification>;
    read_resource_request_read_resource_request: "ReadResourceRequest/read-resource-request.json" =>
        request::<ReadResourceRequest>;
    read_resource_result_file_resource_contents: "ReadResourceResult/file-resource-contents.json" =>
        plain::<ReadResourceResult>;
    read_resource_result_response_read_resource_result_response_with_ttl:
        "ReadResourceResultResponse/read-resource-result-response-with-ttl.json" =>
        response::<ResultOrInputRequired<ReadResourceResult>>;
    read_resource_result_response_read_resource_result_response:
        "ReadResourceResultResponse/read-resource-result-response.json" =>
        response::<ResultOrInputRequired<ReadResourceResult>>;
    resource_file_resource_with_annotations: "Resource/file-resource-with-annotations.json" =>
        plain::<Resource>;
    resource_link_file_resource_link: "ResourceLink/file-resource-link.json" =>
        content(variant!(Cb::ResourceLink));
    resource_list_changed_notification_resources_list_changed:
        "ResourceListChangedNotification/resources-list-changed.json" =>
        notification::<ResourceListChangedNotification>;
    resource_updated_notification_file_resource_updated_notification:
        "ResourceUpdatedNotification/file-resource-updated-notification.json" =>
        notification::<ResourceUpdatedNotification>;
    resource_updated_notification_params_file_resource_updated:
        "ResourceUpdatedNotificationParams/file-resource-updated.json" =>
        plain::<ResourceUpdatedNotificationParams>;
    root_project_directory: "Root/project-directory.json" => plain::<Root>;
    sampling_message_multiple_content_blocks: "SamplingMessage/multiple-content-blocks.json" =>
        plain::<SamplingMessage>;
    sampling_message_single_content_block: "SamplingMessage/single-content-block.json" =>
        plain::<SamplingMessage>;
    server_capabilities_completions_minimum_baseline_support:
        "ServerCapabilities/completions-minimum-baseline-support.json" => plain::<ServerCapabilities>;
    server_capabilities_extensions_tasks: "ServerCapabilities/extensions-tasks.json" =>
        plain::<ServerCapabilities>;
    server_capabilities_logging_minimum_baseline_support:
        "ServerCapabilities/logging-minimum-baseline-support.json" => plain::<ServerCapabilities>;
    server_capabilities_prompts_list_changed_notifications:
        "ServerCapabilities/prompts-list-changed-notifications.json" => plain::<ServerCapabilities>;
    server_capabilities_prompts_minimum_baseline_support:
        "ServerCapabilities/prompts-minimum-baseline-support.json" => plain::<ServerCapabilities>;
    server_capabilities_resources_all_notifications: "ServerCapabilities/resources-all-notifications.json" =>
        plain::<ServerCapabilities>;
    server_capabilities_resources_list_changed_notifications_only:
        "ServerCapabilities/resources-list-changed-notifications-only.json" => plain::<ServerCapabilities>;
    server_capabilities_resources_minimum_baseline_support:
        "ServerCapabilities/resources-minimum-baseline-support.json" => plain::<ServerCapabilities>;
    server_capabilities_resources_subscription_to_individual_resource_updates_only:
        "ServerCapabilities/resources-subscription-to-individual-resource-updates-only.json" =>
        plain::<ServerCapabilities>;
    server_capabilities_tools_list_changed_notifications:
        "ServerCapabilities/tools-list-changed-notifications.json" => plain::<ServerCapabilities>;
    server_capabilities_tools_minimum_baseline_support:
        "ServerCapabilities/tools-minimum-baseline-support.json" => plain::<ServerCapabilities>;
    string_schema_email_input_schema: "StringSchema/email-input-schema.json" =>
        primitive::<StringSchema>(variant!(Psd::String));
    subscriptions_acknowledged_notification_listen_acknowledged:
        "SubscriptionsAcknowledgedNotification/listen-acknowledged.json" =>
        notification::<SubscriptionsAcknowledgedNotification>;
    subscriptions_listen_request_listen_for_list_changes:
        "SubscriptionsListenRequest/listen-for-list-changes.json" => request::<SubscriptionsListenRequest>;
    subscriptions_listen_result_listen_closed: "SubscriptionsListenResult/listen-closed.json" =>
        plain::<SubscriptionsListenResult>;
    subscriptions_listen_result_response_listen_closed_response:
        "SubscriptionsListenResultResponse/listen-closed-response.json" =>
        response::<SubscriptionsListenResult>;
    text_content_text_content: "TextContent/text-content.json" => content(variant!(Cb::Text));
    text_resource_contents_text_file_contents: "TextResourceContents/text-file-contents.json" =>
        plain::<TextResourceContents>;
    titled_multi_select_enum_schema_titled_color_multi_select_schema:
        "TitledMultiSelectEnumSchema/titled-color-multi-select-schema.json" =>
        primitive::<TitledMultiSelectEnumSchema>(variant!(Psd::TitledMultiSelectEnum));
    titled_single_select_enum_schema_titled_color_select_schema:
        "TitledSingleSelectEnumSchema/titled-color-select-schema.json" =>
        primitive::<TitledSingleSelectEnumSchema>(variant!(Psd::TitledSingleSelectEnum));
    tool_tool_with_array_output_schema: "Tool/tool-with-array-output-schema.json" => plain::<Tool>;
    tool_tool_with_composition_input_schema: "Tool/tool-with-composition-input-schema.json" => plain::<Tool>;
    tool_with_default_2020_12_input_schema: "Tool/with-default-2020-12-input-schema.json" => plain::<Tool>;
    tool_with_explicit_draft_07_input_schema: "Tool/with-explicit-draft-07-input-schema.json" =>
        plain::<Tool>;
    tool_with_no_parameters: "Tool/with-no-parameters.json" => plain::<Tool>;
    tool_with_output_schema_for_structured_content: "Tool/with-output-schema-for-structured-content.json" =>
        plain::<Tool>;
    tool_list_changed_notification_tools_list_changed:
        "ToolListChangedNotification/tools-list-changed.json" => notification::<ToolListChangedNotification>;
    tool_result_content_get_weather_tool_result: "ToolResultContent/get-weather-tool-result.json" =>
        sampling_block(variant!(Smcb::ToolResult));
    tool_use_content_get_weather_tool_use: "ToolUseContent/get-weather-tool-use.json" =>
        sampling_block(variant!(Smcb::ToolUse));
    unsupported_protocol_version_error_unsupported_version:
        "UnsupportedProtocolVersionError/unsupported-version.json" =>
        error_response::<UnsupportedVersionData>(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION);
    untitled_multi_select_enum_schema_color_multi_select_schema:
        "UntitledMultiSelectEnumSchema/color-multi-select-schema.json" =>
        primitive::<UntitledMultiSelectEnumSchema>(variant!(Psd::UntitledMultiSelectEnum));
    untitled_single_select_enum_schema_color_select_schema:
        "UntitledSingleSelectEnumSchema/color-select-schema.json" =>
        primitive::<UntitledSingleSelectEnumSchema>(variant!(Psd::UntitledSingleSelectEnum));
}

#[test]
fn coverage_guard() {
    let mut on_disk = BTreeSet::new();
    for folder in std::fs::read_dir(examples_dir()).expect("examples dir") {
        let folder = folder.expect("dir entry");
        if !folder.file_type().expect("file type").is_dir() {
            continue;
        }
        for file in std::fs::read_dir(folder.path()).expect("type dir") {
            let file = file.expect("dir entry");
            let name =
                format!("{}/{}", folder.file_name().to_string_lossy(), file.file_name().to_string_lossy());
            on_disk.insert(name);
        }
    }
    let covered: BTreeSet<String> = COVERED.iter().map(|s| s.to_string()).collect();
    assert_eq!(covered.len(), COVERED.len(), "a file is listed twice");
    let missing: Vec<_> = on_disk.difference(&covered).collect();
    let stale: Vec<_> = covered.difference(&on_disk).collect();
    assert!(missing.is_empty(), "example files without a round-trip test: {missing:?}");
    assert!(stale.is_empty(), "tests naming files that do not exist: {stale:?}");
    assert_eq!(on_disk.len(), 129, "the 2026-07-28 example set changed size");
}
