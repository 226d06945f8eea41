//! The schema validator (`mcpcore_tests::schema`) accepts the official examples and rejects
//! broken messages, on the modern and the legacy revisions.

use mcpcore::protocol::mrtr::ResultOrInputRequired;
use mcpcore::protocol::tools::CallToolResult;
use mcpcore::protocol::ResultType;
use mcpcore::ProtocolVersion::{self, V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28};
use mcpcore_tests::schema::{notification_definition, request_definition, validate, validate_message};
use serde_json::{json, Value};
use std::path::Path;

fn examples() -> Vec<(String, String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/2026-07-28/examples");
    let mut out = Vec::new();
    for folder in std::fs::read_dir(&dir).expect("examples dir") {
        let folder = folder.expect("entry").path();
        let def = folder.file_name().unwrap().to_string_lossy().into_owned();
        for file in std::fs::read_dir(&folder).expect("type dir") {
            let file = file.expect("entry").path();
            let text = std::fs::read_to_string(&file).expect("readable");
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            out.push((def.clone(), name, serde_json::from_str(&text).expect("JSON")));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    assert_eq!(out.len(), 129);
    out
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn rejects(r: Result<(), String>, what: &str) -> String {
    match r {
        Ok(()) => panic!("accepted {what}"),
        Err(e) => e,
    }
}

#[test]
fn every_2026_example_validates_against_its_folder_definition() {
    let failures: Vec<String> = examples()
        .into_iter()
        .filter_map(|(def, name, v)| {
            validate(V2026_07_28, &def, &v).err().map(|e| format!("{def}/{name}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_2026_envelope_example_validates_as_a_message() {
    // (folder, method of the request a response answers)
    let answers = [
        ("CallToolResultResponse", "tools/call"),
        ("CompleteResultResponse", "completion/complete"),
        ("DiscoverResultResponse", "server/discover"),
        ("GetPromptResultResponse", "prompts/get"),
        ("ListPromptsResultResponse", "prompts/list"),
        ("ListResourceTemplatesResultResponse", "resources/templates/list"),
        ("ListResourcesResultResponse", "resources/list"),
        ("ListToolsResultResponse", "tools/list"),
        ("ReadResourceResultResponse", "resources/read"),
        ("SubscriptionsListenResultResponse", "subscriptions/listen"),
    ];
    // Examples that contradict the normative schema.ts. This one omits `ttlMs`/`cacheScope`,
    // which `ReadResourceResult extends CacheableResult` requires; schema.json's
    // `ReadResourceResultResponse` only accepts it through its loose `InputRequiredResult`
    // branch (which requires nothing but a string `resultType`).
    let known_bad = [("ReadResourceResultResponse", "read-resource-result-response.json")];
    let mut checked = 0;
    let mut failures = Vec::new();
    for (def, name, v) in examples() {
        if v.get("jsonrpc").is_none() {
            continue;
        }
        let method = answers.iter().find(|(d, _)| *d == def).map(|(_, m)| *m);
        if v.get("result").is_some() {
            assert!(method.is_some(), "{def}/{name}: no method listed for this response");
        }
        checked += 1;
        let result = validate_message(V2026_07_28, &v, method);
        if known_bad.contains(&(def.as_str(), name.as_str())) {
            let e = rejects(result, &format!("{def}/{name} (known to contradict schema.ts)"));
            assert!(e.contains("ttlMs") && e.contains("cacheScope"), "{e}");
        } else if let Err(e) = result {
            failures.push(format!("{def}/{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 30, "only {checked} envelopes checked");
}

#[test]
fn method_tables_come_from_the_unions() {
    assert_eq!(request_definition(V2026_07_28, "tools/call"), Some("CallToolRequest"));
    assert_eq!(request_definition(V2026_07_28, "server/discover"), Some("DiscoverRequest"));
    assert_eq!(request_definition(V2026_07_28, "initialize"), None);
    assert_eq!(request_definition(V2026_07_28, "ping"), None);
    assert_eq!(
        notification_definition(V2026_07_28, "notifications/cancelled"),
        Some("CancelledNotification")
    );
    assert_eq!(notification_definition(V2026_07_28, "notifications/initialized"), None);
    for v in [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25] {
        assert_eq!(request_definition(v, "initialize"), Some("InitializeRequest"), "{v}");
        assert_eq!(request_definition(v, "ping"), Some("PingRequest"), "{v}");
        assert_eq!(request_definition(v, "sampling/createMessage"), Some("CreateMessageRequest"), "{v}");
        assert_eq!(notification_definition(v, "notifications/initialized"), Some("InitializedNotification"));
        assert_eq!(request_definition(v, "server/discover"), None, "{v}");
    }
    assert_eq!(request_definition(V2025_03_26, "elicitation/create"), None);
    assert_eq!(request_definition(V2025_06_18, "elicitation/create"), Some("ElicitRequest"));
    assert_eq!(request_definition(V2025_11_25, "tasks/result"), Some("GetTaskPayloadRequest"));
}

#[test]
fn modern_request_without_meta_is_rejected() {
    let good = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "x", "arguments": {}, "_meta": meta()}});
    validate_message(V2026_07_28, &good, None).unwrap();
    let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}});
    let e = rejects(validate_message(V2026_07_28, &bad, None), "tools/call without _meta");
    assert!(e.contains("_meta"), "{e}");
    // The same request is fine on a legacy revision.
    validate_message(V2025_06_18, &bad, None).unwrap();
    // `_meta` without the required protocolVersion key.
    let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                     "params": {"_meta": {"io.modelcontextprotocol/clientCapabilities": {}}}});
    rejects(validate_message(V2026_07_28, &bad, None), "_meta without protocolVersion");
    // No params at all.
    let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    rejects(validate_message(V2026_07_28, &bad, None), "tools/list without params");
}

#[test]
fn modern_result_without_result_type_is_rejected() {
    let bad = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "hi"}]}});
    let e = rejects(validate_message(V2026_07_28, &bad, Some("tools/call")), "CallToolResult w/o resultType");
    assert!(e.contains("resultType"), "{e}");
    rejects(validate(V2026_07_28, "CallToolResult", &bad["result"]), "bare CallToolResult w/o resultType");
    // Legacy revisions have no resultType.
    validate_message(V2025_11_25, &bad, Some("tools/call")).unwrap();
    validate_message(V2024_11_05, &bad, Some("tools/call")).unwrap();
    let mut good = bad.clone();
    good["result"]["resultType"] = json!("complete");
    validate_message(V2026_07_28, &good, Some("tools/call")).unwrap();
    // A cacheable result needs ttlMs and cacheScope.
    let list = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete", "tools": []}});
    rejects(validate_message(V2026_07_28, &list, Some("tools/list")), "ListToolsResult w/o ttlMs");
}

#[test]
fn legacy_initialize_result_without_server_info_is_rejected() {
    for v in [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25] {
        let good = json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": v.as_str(), "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        validate_message(v, &good, Some("initialize")).unwrap_or_else(|e| panic!("{v}: {e}"));
        let mut bad = good.clone();
        bad["result"].as_object_mut().unwrap().remove("serverInfo");
        let e = rejects(validate_message(v, &bad, Some("initialize")), "InitializeResult w/o serverInfo");
        assert!(e.contains("serverInfo"), "{v}: {e}");
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": v.as_str(), "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}});
        validate_message(v, &init, None).unwrap_or_else(|e| panic!("{v}: {e}"));
        let inited = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        validate_message(v, &inited, None).unwrap_or_else(|e| panic!("{v}: {e}"));
    }
    // initialize does not exist on the modern revision.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}});
    rejects(validate_message(V2026_07_28, &init, None), "initialize on 2026-07-28");
    rejects(
        validate_message(V2026_07_28, &json!({"jsonrpc": "2.0", "id": 0, "result": {}}), Some("initialize")),
        "an initialize result on 2026-07-28",
    );
}

#[test]
fn unknown_and_removed_methods_are_rejected() {
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
    validate_message(V2025_11_25, &ping, None).unwrap();
    rejects(validate_message(V2026_07_28, &ping, None), "ping on 2026-07-28");
    let nope = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/nope", "params": {"_meta": meta()}});
    rejects(validate_message(V2026_07_28, &nope, None), "an unknown method");
    let n = json!({"jsonrpc": "2.0", "method": "notifications/nope"});
    rejects(validate_message(V2025_06_18, &n, None), "an unknown notification");
    let r = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}});
    rejects(validate_message(V2026_07_28, &r, Some("tools/nope")), "a result of an unknown method");
    rejects(validate_message(V2026_07_28, &r, None), "a result without its method");
    rejects(validate_message(V2026_07_28, &json!({"jsonrpc": "2.0", "id": 1}), None), "no kind");
    rejects(validate_message(V2026_07_28, &json!(5), None), "not an object");
    // ping answers with an EmptyResult on legacy revisions.
    validate_message(V2025_03_26, &json!({"jsonrpc": "2.0", "id": 1, "result": {}}), Some("ping")).unwrap();
}

#[test]
fn input_required_only_where_mrtr_is_allowed() {
    let ir =
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "requestState": "s"}});
    for m in ["tools/call", "prompts/get", "resources/read"] {
        validate_message(V2026_07_28, &ir, Some(m)).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    rejects(validate_message(V2026_07_28, &ir, Some("tools/list")), "input_required on tools/list");
    let bad = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {
        "k": {"method": "elicitation/create", "params": {"message": "m"}}}}});
    rejects(
        validate_message(V2026_07_28, &bad, Some("tools/call")),
        "an elicitation without requestedSchema",
    );
}

#[test]
fn errors_are_checked_per_code() {
    let e = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported protocol version",
        "data": {"supported": ["2026-07-28"], "requested": "1900-01-01"}}});
    validate_message(V2026_07_28, &e, None).unwrap();
    let mut bad = e.clone();
    bad["error"]["data"].as_object_mut().unwrap().remove("requested");
    rejects(validate_message(V2026_07_28, &bad, None), "-32022 without data.requested");
    let no_message = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601}});
    for v in ProtocolVersion::ALL {
        rejects(validate_message(v, &no_message, None), "an error without message");
    }
    // Modern error responses may omit an unreadable id; legacy ones before 2025-11-25 may not.
    let no_id = json!({"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}});
    validate_message(V2026_07_28, &no_id, None).unwrap();
    validate_message(V2025_11_25, &no_id, None).unwrap();
    rejects(validate_message(V2025_06_18, &no_id, None), "a 2025-06-18 error without id");
}

#[test]
fn batches_only_on_2025_03_26() {
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"}
    ]);
    validate_message(V2025_03_26, &batch, None).unwrap();
    rejects(validate_message(V2025_06_18, &batch, None), "a batch on 2025-06-18");
    rejects(validate_message(V2025_03_26, &json!([]), None), "an empty batch");
    rejects(
        validate_message(V2025_03_26, &json!([{"jsonrpc": "2.0", "id": 1, "method": "x"}]), None),
        "a batch with an unknown method",
    );
}

#[test]
fn typed_results_serialize_to_valid_messages() {
    // A typed CallToolResult, tagged `complete`, is a valid modern answer.
    let mut r = CallToolResult::text("hi");
    r.result_type = Some(ResultType::Complete);
    let msg = json!({"jsonrpc": "2.0", "id": "a", "result": serde_json::to_value(&r).unwrap()});
    validate_message(V2026_07_28, &msg, Some("tools/call")).unwrap();
    let either: ResultOrInputRequired<CallToolResult> =
        serde_json::from_value(msg["result"].clone()).unwrap();
    assert!(matches!(either, ResultOrInputRequired::Complete(_)));
    // Untagged, it is a valid legacy answer and an invalid modern one.
    let r = CallToolResult::structured(json!({"t": 1}));
    let msg = json!({"jsonrpc": "2.0", "id": "a", "result": serde_json::to_value(&r).unwrap()});
    validate_message(V2025_06_18, &msg, Some("tools/call")).unwrap();
    rejects(validate_message(V2026_07_28, &msg, Some("tools/call")), "an untagged modern result");
}

/// Typed legacy (server→client, tasks, logging) messages serialize to schema-valid JSON.
#[test]
fn typed_legacy_messages_validate() {
    use mcpcore::protocol::common::Role;
    use mcpcore::protocol::elicitation::{
        ElicitAction, ElicitRequestFormParams, ElicitRequestParams, ElicitResult, ElicitValue,
        PrimitiveSchemaDefinition, RequestedSchema, StringSchema,
    };
    use mcpcore::protocol::logging::{LoggingLevel, LoggingMessageNotificationParams, SetLevelRequestParams};
    use mcpcore::protocol::roots::{ListRootsResult, Root};
    use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult, SamplingMessage};
    use mcpcore::protocol::tasks::{CreateTaskResult, GetTaskResult, Task, TaskStatus};
    use std::collections::BTreeMap;

    let req =
        |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let res = |result: Value| json!({"jsonrpc": "2.0", "id": 7, "result": result});
    fn to<T: serde::Serialize>(t: &T) -> Value {
        serde_json::to_value(t).expect("serializes")
    }

    let sampling = CreateMessageRequestParams::new(vec![SamplingMessage::text(Role::User, "hi")], 100);
    let sampled = CreateMessageResult {
        role: Role::Assistant,
        content: SamplingMessage::text(Role::Assistant, "yo").content,
        model: "m".into(),
        stop_reason: Some("endTurn".into()),
        meta: None,
    };
    let mut properties = BTreeMap::new();
    properties.insert("name".to_owned(), PrimitiveSchemaDefinition::String(StringSchema::default()));
    let form = ElicitRequestParams::Form(ElicitRequestFormParams {
        mode: None,
        message: "who?".into(),
        requested_schema: RequestedSchema {
            properties,
            required: Some(vec!["name".into()]),
            ..Default::default()
        },
        task: None,
        meta: None,
    });
    let mut content = BTreeMap::new();
    content.insert("name".to_owned(), ElicitValue::String("octocat".into()));
    let answer = ElicitResult { content: Some(content), ..ElicitResult::new(ElicitAction::Accept) };
    let roots = ListRootsResult { roots: vec![Root::new("file:///p", Some("p".into()))], meta: None };
    for v in [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25] {
        let ok = |m: Value, method: Option<&str>| {
            validate_message(v, &m, method).unwrap_or_else(|e| panic!("{e}"))
        };
        ok(req("sampling/createMessage", to(&sampling)), None);
        ok(res(to(&sampled)), Some("sampling/createMessage"));
        ok(res(to(&roots)), Some("roots/list"));
        ok(req("roots/list", json!({})), None);
        ok(
            req("logging/setLevel", to(&SetLevelRequestParams { level: LoggingLevel::Warning, meta: None })),
            None,
        );
        let log = LoggingMessageNotificationParams {
            level: LoggingLevel::Error,
            logger: None,
            data: json!({"x": 1}),
            meta: None,
        };
        ok(json!({"jsonrpc": "2.0", "method": "notifications/message", "params": to(&log)}), None);
        if v >= V2025_06_18 {
            ok(req("elicitation/create", to(&form)), None);
            ok(res(to(&answer)), Some("elicitation/create"));
        }
    }
    let task = Task {
        task_id: "t1".into(),
        status: TaskStatus::Working,
        status_message: None,
        created_at: "2025-11-25T00:00:00Z".into(),
        last_updated_at: "2025-11-25T00:00:00Z".into(),
        ttl: None,
        poll_interval: Some(500),
    };
    let created = CreateTaskResult { task: task.clone(), meta: None };
    validate_message(V2025_11_25, &res(to(&created)), Some("tools/call")).unwrap();
    let got = GetTaskResult { task, meta: None };
    validate_message(V2025_11_25, &res(to(&got)), Some("tasks/get")).unwrap();
    validate_message(V2025_11_25, &req("tasks/get", json!({"taskId": "t1"})), None).unwrap();
}
