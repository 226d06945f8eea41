//! The server side of resources, prompts, completion, client input (legacy requests and MRTR)
//! and subscriptions, on the wire: the `mcpcore conformance-server` fixture as a real child
//! process over stdio and HTTP, each lineage, every emitted message checked against the schema
//! of the revision spoken.

use mcpcore::ProtocolVersion::{V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28};
use mcpcore_tests::http::{modern_headers, open, read_until, sse_events};
use mcpcore_tests::wire::{Via, Wire};
use serde_json::{json, Value};

const BOTH: [Via; 2] = [Via::Stdio, Via::Http];
const ALL_CAPS: &str = r#"{"elicitation": {}, "sampling": {}, "roots": {}}"#;

fn caps() -> Value {
    serde_json::from_str(ALL_CAPS).unwrap()
}

fn code(r: &Value) -> i64 {
    r["error"]["code"].as_i64().unwrap_or_else(|| panic!("expected an error: {r}"))
}

#[tokio::test]
async fn resources_prompts_and_completion_in_every_lineage() {
    for via in BOTH {
        for version in [V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25, V2026_07_28] {
            let what = format!("{via:?} {version}");
            let mut w = Wire::open(via, version, json!({})).await;
            let r = w.call("resources/list", json!({})).await;
            let uris: Vec<&str> = r["result"]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["uri"].as_str().unwrap())
                .collect();
            assert_eq!(
                uris,
                [
                    "skill://acme/billing/refunds/SKILL.md",
                    "skill://pdf-processing/SKILL.md",
                    "test://static-binary",
                    "test://static-text",
                    "test://watched-resource"
                ],
                "{what}"
            );
            assert_eq!(r["result"]["ttlMs"].is_u64(), version.is_modern(), "{what}: {r}");

            let r = w.call("resources/read", json!({"uri": "test://static-text"})).await;
            assert_eq!(
                r["result"]["contents"][0]["text"], "This is the content of the static text resource.",
                "{what}"
            );
            let r = w.call("resources/read", json!({"uri": "test://template/123/data"})).await;
            let text = r["result"]["contents"][0]["text"].as_str().unwrap();
            assert_eq!(serde_json::from_str::<Value>(text).unwrap()["id"], "123", "{what}");
            let r = w.call("resources/read", json!({"uri": "test://nope"})).await;
            assert_eq!(code(&r), if version.is_modern() { -32602 } else { -32002 }, "{what}: {r}");
            assert_eq!(r["error"]["data"]["uri"], "test://nope", "{what}");
            let r = w.call("resources/templates/list", json!({})).await;
            assert_eq!(
                r["result"]["resourceTemplates"][0]["uriTemplate"], "test://template/{id}/data",
                "{what}"
            );

            let r = w.call("prompts/list", json!({})).await;
            assert!(
                r["result"]["prompts"].as_array().unwrap().iter().all(|p| p["description"].is_string()),
                "{what}"
            );
            let args = json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}});
            let r = w.call("prompts/get", args).await;
            assert_eq!(
                r["result"]["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'",
                "{what}"
            );
            let r = w
                .call(
                    "prompts/get",
                    json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}}),
                )
                .await;
            assert_eq!(code(&r), -32602, "{what}: {r}");
            assert!(r["error"]["message"].as_str().unwrap().contains("arg2"), "{what}: {r}");
            let r = w.call("prompts/get", json!({"name": "test_prompt_with_image"})).await;
            assert_eq!(r["result"]["messages"][0]["content"]["type"], "image", "{what}");
            let r = w.call("prompts/get", json!({"name": "nope"})).await;
            assert_eq!(code(&r), -32602, "{what}");

            let r = w
                .call(
                    "completion/complete",
                    json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                    "argument": {"name": "arg1", "value": "te"}}),
                )
                .await;
            assert_eq!(r["result"]["completion"]["values"], json!(["test", "testValue1"]), "{what}: {r}");
            let r = w
                .call(
                    "completion/complete",
                    json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
                    "argument": {"name": "id", "value": "1"}}),
                )
                .await;
            assert_eq!(r["result"]["completion"]["values"], json!(["1", "123"]), "{what}: {r}");
        }
    }
}

fn answer(method: &str, params: &Value) -> Value {
    match method {
        "sampling/createMessage" => {
            let asked = params["messages"][0]["content"]["text"].as_str().unwrap_or_default();
            json!({"role": "assistant", "content": {"type": "text", "text": format!("re: {asked}")},
                "model": "test-model", "stopReason": "endTurn"})
        }
        "elicitation/create" => {
            json!({"action": "accept", "content": {"username": "ann", "email": "a@x.io", "name": "Ann"}})
        }
        "roots/list" => json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
        other => panic!("unexpected server request {other}"),
    }
}

#[tokio::test]
async fn legacy_sessions_get_real_requests_and_the_tool_gets_the_answers() {
    for via in BOTH {
        let mut w = Wire::open(via, V2025_11_25, caps()).await;
        let r = w
            .call_answering(
                "tools/call",
                json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}),
                &answer,
            )
            .await;
        assert_eq!(r["result"]["content"][0]["text"], "LLM response: re: hi", "{via:?}: {r}");
        let r = w
            .call_answering(
                "tools/call",
                json!({"name": "test_elicitation", "arguments": {"message": "who?"}}),
                &answer,
            )
            .await;
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("User response: accept,") && text.contains("ann"), "{via:?}: {r}");
        // The same MRTR-style tool, written once, sends real requests on a legacy session.
        let r = w
            .call_answering(
                "tools/call",
                json!({"name": "test_input_required_result_multiple_inputs"}),
                &answer,
            )
            .await;
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("client_roots: 1 root(s)") && text.contains("user_name: User response: accept"),
            "{text}"
        );
    }
    // A client that declared no sampling gets a tool error, not a request.
    let mut w = Wire::open(Via::Stdio, V2025_11_25, json!({})).await;
    let r = w.call("tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}})).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("sampling"), "{r}");
}

fn ask(w: &mut Wire, tool: &str, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            params[k] = v;
        }
    }
    w.body("tools/call", params)
}

async fn tool(w: &mut Wire, name: &str, extra: Value) -> (Value, u16) {
    let body = ask(w, name, extra);
    send(w, body).await
}

async fn send(w: &mut Wire, body: Value) -> (Value, u16) {
    w.exchange(body, &|m, _| panic!("a modern server sent a request ({m})")).await
}

#[tokio::test]
async fn mrtr_rounds_state_and_rejections() {
    for via in BOTH {
        let mut w = Wire::open(via, V2026_07_28, caps()).await;
        // One round: the answer under the server's key completes the call.
        let (r, _) = tool(&mut w, "test_input_required_result_elicitation", json!({})).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{via:?}: {r}");
        assert_eq!(r["result"]["inputRequests"]["user_name"]["method"], "elicitation/create");
        let state = r["result"]["requestState"].as_str().unwrap().to_owned();
        let retry = json!({"inputResponses": {"user_name": {"action": "accept", "content": {"name": "Alice"}},
            "unrelated": {"x": 1}}, "requestState": state});
        let (r, _) = tool(&mut w, "test_input_required_result_elicitation", retry.clone()).await;
        assert_eq!(r["result"]["content"][0]["text"], "Hello, Alice!", "{via:?}: {r}");
        assert_eq!(r["result"]["resultType"], "complete");
        // A wrong key asks again; a malformed answer or inputResponses is -32602.
        let wrong = json!({"inputResponses": {"wrong_key": {"action": "accept"}}, "requestState": state});
        let (r, _) = tool(&mut w, "test_input_required_result_elicitation", wrong).await;
        assert_eq!(r["result"]["resultType"], "input_required", "{r}");
        let bad = json!({"inputResponses": {"user_name": 12345}, "requestState": state});
        let (r, _) = tool(&mut w, "test_input_required_result_elicitation", bad).await;
        assert_eq!(code(&r), -32602, "{r}");
        let (r, _) =
            tool(&mut w, "test_input_required_result_elicitation", json!({"inputResponses": null})).await;
        assert_eq!(code(&r), -32602, "{r}");
        // Tampered, replayed to another tool, or to other arguments: rejected with a reason.
        let mut tampered = retry.clone();
        tampered["requestState"] = json!(format!("{state}-TAMPERED"));
        let (r, _) = tool(&mut w, "test_input_required_result_elicitation", tampered).await;
        assert_eq!(code(&r), -32602, "{r}");
        assert!(r["error"]["message"].as_str().unwrap().contains("integrity"), "{r}");
        let (r, _) = tool(&mut w, "test_streaming_elicitation", retry.clone()).await;
        assert!(r["error"]["message"].as_str().unwrap().contains("issued for tools/call"), "{r}");
        let mut other_args = ask(&mut w, "test_input_required_result_elicitation", retry.clone());
        other_args["params"]["arguments"] = json!({"extra": 1});
        let (r, _) = send(&mut w, other_args).await;
        assert!(r["error"]["message"].as_str().unwrap().contains("different arguments"), "{r}");

        // Two rounds: the second state differs and carries the first answer.
        let (r1, _) = tool(&mut w, "test_input_required_result_multi_round", json!({})).await;
        let s1 = r1["result"]["requestState"].as_str().unwrap().to_owned();
        let step1 = json!({"inputResponses": {"step1": {"action": "accept", "content": {"name": "Bo"}}}, "requestState": s1});
        let (r2, _) = tool(&mut w, "test_input_required_result_multi_round", step1).await;
        assert!(r2["result"]["inputRequests"]["step2"].is_object(), "{r2}");
        let s2 = r2["result"]["requestState"].as_str().unwrap().to_owned();
        assert_ne!(s1, s2);
        let step2 = json!({"inputResponses": {"step2": {"action": "accept", "content": {"city": "Oslo"}}}, "requestState": s2});
        let (r3, _) = tool(&mut w, "test_input_required_result_multi_round", step2).await;
        let text = r3["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("Bo") && text.contains("Oslo"), "{text}");

        // The handler's own state survives the round sealed.
        let (r, _) = tool(&mut w, "test_input_required_result_request_state", json!({})).await;
        let retry = json!({"inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
            "requestState": r["result"]["requestState"]});
        let (r, _) = tool(&mut w, "test_input_required_result_request_state", retry).await;
        assert!(r["result"]["content"][0]["text"].as_str().unwrap().contains("state-ok"), "{r}");

        // prompts/get and resources/read may need input too (prompts here).
        let body = w.body("prompts/get", json!({"name": "test_input_required_result_prompt"}));
        let (r, _) = send(&mut w, body).await;
        let retry = json!({"name": "test_input_required_result_prompt", "requestState": r["result"]["requestState"],
            "inputResponses": {"user_context": {"action": "accept", "content": {"context": "tea"}}}});
        let body = w.body("prompts/get", retry);
        let (r, _) = send(&mut w, body).await;
        assert_eq!(r["result"]["messages"][0]["content"]["text"], "Use this context: tea", "{r}");
    }
}

#[tokio::test]
async fn an_undeclared_capability_is_32021_and_400_on_http() {
    for via in BOTH {
        let mut w = Wire::open(via, V2026_07_28, json!({"sampling": {}})).await;
        // Only what the client declared is asked for.
        let (r, _) = tool(&mut w, "test_input_required_result_capabilities", json!({})).await;
        let keys: Vec<&String> = r["result"]["inputRequests"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["greeting"], "{r}");
        // A tool that needs elicitation from a client without it: -32021 naming it.
        let (r, status) = tool(&mut w, "test_input_required_result_elicitation", json!({})).await;
        assert_eq!(code(&r), -32021, "{r}");
        assert_eq!(r["error"]["data"]["requiredCapabilities"], json!({"elicitation": {}}));
        if via == Via::Http {
            assert_eq!(status, 400);
        }
    }
}

#[tokio::test]
async fn an_expired_request_state_is_rejected() {
    use mcpcore::engine::ServerConfig;
    use mcpcore::http::server::HttpServerConfig;
    use mcpcore::protocol::{CallToolResult, Tool};
    use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
    let tools = ToolRegistry::new();
    tools
        .register(
            Tool::new("ask", "asks", json!({"type": "object"})),
            |_: Arguments, ctx: ToolContext| async move {
                let form = serde_json::from_value(
                    json!({"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}),
                )
                .unwrap();
                ctx.elicit("ok", form).await?;
                Ok(CallToolResult::text("done"))
            },
        )
        .unwrap();
    let mut config = ServerConfig::new("short", "1");
    config.input_state_ttl = std::time::Duration::from_millis(50);
    let server = mcpcore::server::Server::new(config, std::sync::Arc::new(tools));
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let raw = mcpcore_tests::http::Raw::new(&serving.url());
    let call = |extra: Value| {
        let mut params = json!({"name": "ask", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    };
    let r = mcpcore_tests::http::send(raw.post_modern(&call(json!({})))).await;
    let state = r.json["result"]["requestState"].clone();
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    let retry =
        call(json!({"requestState": state, "inputResponses": {"ok": {"action": "accept", "content": {}}}}));
    let r = mcpcore_tests::http::send(raw.post_modern(&retry)).await;
    assert_eq!(r.error_code(), Some(-32602), "{r:?}");
    assert!(r.json["error"]["message"].as_str().unwrap().contains("expired"), "{r:?}");
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn legacy_sessions_hear_list_changes_and_subscribed_updates_on_stdio() {
    let mut w = Wire::open(Via::Stdio, V2025_11_25, json!({})).await;
    let r = w.call("resources/subscribe", json!({"uri": "test://watched-resource"})).await;
    assert_eq!(r["result"], json!({}));
    w.call(
        "tools/call",
        json!({"name": "test_trigger_resource_update", "arguments": {"uri": "test://static-text"}}),
    )
    .await;
    w.call(
        "tools/call",
        json!({"name": "test_trigger_resource_update", "arguments": {"uri": "test://watched-resource"}}),
    )
    .await;
    let n = w.next_note("notifications/resources/updated").await;
    assert_eq!(n["params"]["uri"], "test://watched-resource", "unsubscribed URIs are not announced: {n}");
    w.call("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    w.next_note("notifications/tools/list_changed").await;
    let r = w.call("resources/unsubscribe", json!({"uri": "test://watched-resource"})).await;
    assert_eq!(r["result"], json!({}));
}

#[tokio::test]
async fn modern_listen_on_stdio_is_acknowledged_tagged_filtered_and_cancelled() {
    let mut w = Wire::open(Via::Stdio, V2026_07_28, json!({})).await;
    let listen = w.body(
        "subscriptions/listen",
        json!({"notifications": {"promptsListChanged": true,
        "resourceSubscriptions": ["test://watched-resource"]}}),
    );
    let listen_id = listen["id"].clone();
    w.send_only(&listen).await;
    let ack = w.next_note("notifications/subscriptions/acknowledged").await;
    assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen_id);
    assert_eq!(ack["params"]["notifications"]["promptsListChanged"], true);
    w.call("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    w.call("tools/call", json!({"name": "test_trigger_prompt_change", "arguments": {}})).await;
    w.call(
        "tools/call",
        json!({"name": "test_trigger_resource_update", "arguments": {"uri": "test://watched-resource"}}),
    )
    .await;
    let n = w.next_note("notifications/prompts/list_changed").await;
    assert_eq!(n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen_id);
    let n = w.next_note("notifications/resources/updated").await;
    assert_eq!(n["params"]["uri"], "test://watched-resource");
    assert!(
        w.notes.iter().all(|n| n["method"] != "notifications/tools/list_changed"),
        "filter ignored: {:?}",
        w.notes
    );
    w.notify("notifications/cancelled", json!({"requestId": listen_id})).await;
    w.call("tools/call", json!({"name": "test_trigger_prompt_change", "arguments": {}})).await;
    let r = w.call("tools/list", json!({})).await;
    assert!(r["result"]["tools"].is_array());
    assert!(w.notes.iter().all(|n| n["method"] != "notifications/prompts/list_changed"), "{:?}", w.notes);
}

#[tokio::test]
async fn modern_listen_over_http_streams_until_closed() {
    let mut w = Wire::open(Via::Http, V2026_07_28, json!({})).await;
    let listen = w.body("subscriptions/listen", json!({"notifications": {"toolsListChanged": true}}));
    let (raw, _) = w.http().unwrap();
    let mut rb = raw.post(listen.to_string());
    for (k, v) in modern_headers(&listen) {
        rb = rb.header(k, v);
    }
    let mut stream = open(rb).await;
    let text = read_until(&mut stream, |t| t.contains("acknowledged")).await;
    let first: Value = serde_json::from_str(&sse_events(&text)[0].data).unwrap();
    assert_eq!(first["method"], "notifications/subscriptions/acknowledged");
    w.call("tools/call", json!({"name": "test_trigger_tool_change", "arguments": {}})).await;
    let text = read_until(&mut stream, |t| t.contains("tools/list_changed")).await;
    let note = sse_events(&text).into_iter().find(|e| e.data.contains("list_changed")).unwrap();
    let note: Value = serde_json::from_str(&note.data).unwrap();
    assert_eq!(note["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], listen["id"]);
    drop(stream);
    // The server goes on serving after the client closed its stream.
    let r = w.call("tools/list", json!({})).await;
    assert!(r["result"]["tools"].is_array());
}

/// The legacy-extensions fixture (conformance `server-legacy-extensions`, spec PR #3364): under
/// `--legacy-extensions`, a 2025-11-25 session reads the server's extension settings unchanged
/// in `initialize`, and the echo tool reports the client's own unchanged (as the engine read
/// them); without it, neither the settings nor the tool are there.
#[tokio::test]
async fn legacy_extension_settings_survive_both_ways() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut child = tokio::process::Command::new(mcpcore_tests::bin("mcpcore"))
        .args(["conformance-server", "--stdio", "--legacy-extensions"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let client = json!({
        "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
        "com.example/conformance": {"nested": {"enabled": false, "limit": 0}, "values": ["a", 2, null]},
        "com.example/empty": {}
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {"extensions": client}, "clientInfo": {"name": "legacy-extension-conformance", "version": "1.0.0"}}});
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_legacy_extension_capabilities", "arguments": {}}});
    for m in [init, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), call] {
        stdin.write_all(format!("{m}\n").as_bytes()).await.unwrap();
    }
    let mut next = async || -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let r = next().await;
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
    let ext = &r["result"]["capabilities"]["extensions"];
    assert_eq!(ext["io.modelcontextprotocol/ui"], json!({}), "{r}");
    assert_eq!(
        ext["com.example/conformance"],
        json!({"nested": {"enabled": true, "limit": 3}, "values": [null, "b", 4]})
    );
    assert_eq!(ext["com.example/empty"], json!({}));
    let r = next().await;
    let text = r["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{r}"));
    let echoed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(echoed, json!({"extensions": client}));
}

/// Without `--legacy-extensions` the conformance server advertises no `com.example/*` settings
/// on either lineage (its 2026-07-28 `server/discover` must stay valid for that schema), and
/// the fixture's tool is absent.
#[tokio::test]
async fn legacy_extension_fixture_is_opt_in() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut child = tokio::process::Command::new(mcpcore_tests::bin("mcpcore"))
        .args(["conformance-server", "--stdio"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}});
    let init = json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "test_legacy_extension_capabilities", "arguments": {}}});
    for m in [discover, init, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}), call] {
        stdin.write_all(format!("{m}\n").as_bytes()).await.unwrap();
    }
    for _ in 0..3 {
        let line = tokio::time::timeout(std::time::Duration::from_secs(10), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let r: Value = serde_json::from_str(&line).unwrap();
        match r["id"].as_u64() {
            Some(1) | Some(2) => {
                let ext = r["result"]["capabilities"]["extensions"].as_object();
                assert!(ext.is_some_and(|e| e.keys().all(|k| !k.starts_with("com.example/"))), "{r}");
            }
            _ => assert!(r["error"].is_object() || r["result"]["isError"] == json!(true), "{r}"),
        }
    }
}

#[tokio::test]
async fn non_object_output_is_served_on_2026_07_28_and_left_out_of_legacy_sessions() {
    // The SEP-2106 tools of the pending conformance PR #308 (tests/conformance/expected-pending.txt):
    // 2026-07-28 allows any JSON as structuredContent and any schema as outputSchema (schema.ts
    // `CallToolResult.structuredContent`, `Tool.outputSchema`); 2025-11-25 requires objects, so a
    // legacy session gets neither.
    let mut w = Wire::open(Via::Http, V2026_07_28, json!({})).await;
    let r = w.call("tools/list", json!({})).await;
    let tools = r["result"]["tools"].as_array().unwrap();
    let schema = |name: &str| tools.iter().find(|t| t["name"] == name).map(|t| t["outputSchema"].clone());
    assert_eq!(schema("sep_2106_primitive_output_tool"), Some(json!({"type": "number"})));
    assert_eq!(schema("sep_2106_array_output_tool").unwrap()["type"], "array");
    let (r, _) = tool(&mut w, "sep_2106_primitive_output_tool", json!({})).await;
    assert_eq!(r["result"]["structuredContent"], 42, "{r}");
    let (r, _) = tool(&mut w, "sep_2106_array_output_tool", json!({})).await;
    assert_eq!(r["result"]["structuredContent"][1]["hour"], "10:00", "{r}");

    let mut w = Wire::open(Via::Http, V2025_11_25, json!({})).await;
    let r = w.call("tools/list", json!({})).await;
    let t = r["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "sep_2106_array_output_tool")
        .cloned();
    assert_eq!(t.map(|t| t.get("outputSchema").is_none()), Some(true), "{r}");
    let r = w.call("tools/call", json!({"name": "sep_2106_primitive_output_tool", "arguments": {}})).await;
    assert!(r["result"].get("structuredContent").is_none(), "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "42");
}
