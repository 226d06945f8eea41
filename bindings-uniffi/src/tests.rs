//! Conversions and the in-process call path, from Rust (the Kotlin and Swift sides are tested
//! on the JVM and with SwiftPM; see bindings-uniffi/README.md).

use crate::handler::reply_of;
use crate::{rt, McpError, Registry, ToolCall, ToolHandler, ToolResult};
use mcpcore::host::HostReply;
use mcpcore::protocol::CallToolResult;
use mcpcore::{Error, ErrorCode, ErrorData};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[test]
fn core_errors_keep_code_data_and_status() {
    let rpc = Error::rpc(ErrorData::new(ErrorCode(-32042), "no").with_data(json!({"why": 1})));
    assert_eq!(
        McpError::from(rpc),
        McpError::Rpc { code: -32042, reason: "no".into(), data: Some(r#"{"why":1}"#.into()) }
    );
    let timeout = McpError::from(Error::timeout("slow"));
    assert!(matches!(timeout, McpError::Timeout { code: -32001, .. }));
    let http = McpError::from(Error::http(503, "busy"));
    assert!(matches!(http, McpError::Http { status: 503, code: -32603, .. }));
    assert_eq!(McpError::invalid("bad").code(), -32602);
}

#[test]
fn handler_errors_become_rpc_errors_or_failures() {
    let sent = reply_of(McpError::Rpc { code: -32050, reason: "r".into(), data: Some("[1]".into()) });
    assert_eq!(sent, HostReply::Rpc(ErrorData::new(ErrorCode(-32050), "r").with_data(json!([1]))));
    let missing = reply_of(McpError::ResourceNotFound { code: -32002, reason: "gone".into(), data: None });
    assert_eq!(missing, HostReply::Rpc(ErrorData::new(ErrorCode(-32002), "gone")));
    let input = reply_of(McpError::InputRequired { code: -32603, reason: "ask".into(), data: None });
    assert_eq!(input, HostReply::InputRequired("ask".into()));
    let failed = reply_of(McpError::Timeout { code: -32001, reason: "late".into(), data: None });
    assert_eq!(failed, HostReply::Failure("late".into()));
}

#[test]
fn results_round_trip() {
    let core = CallToolResult::structured(json!({"sum": 3}));
    let ours = ToolResult::from(&core);
    assert_eq!(ours.structured_content.as_deref(), Some(r#"{"sum":3}"#));
    assert_eq!(ours.into_core().unwrap(), core);
    let link = json!({"type": "resource_link", "uri": "file:///a", "name": "a"});
    let core: CallToolResult = serde_json::from_value(json!({"content": [link]})).unwrap();
    assert_eq!(ToolResult::from(&core).into_core().unwrap(), core);
    let bad = ToolResult { content: vec![], structured_content: Some("{".into()), is_error: false };
    assert!(matches!(bad.into_core(), Err(McpError::InvalidInput { .. })));
}

/// A Rust implementation of the foreign trait: echoes, or sleeps until dropped.
struct Fixture {
    dropped: Arc<AtomicBool>,
}

struct SetOnDrop(Arc<AtomicBool>);
impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[async_trait::async_trait]
impl ToolHandler for Fixture {
    async fn call(&self, call: Arc<ToolCall>) -> Result<ToolResult, McpError> {
        if let Some(text) = call.string_arg("text".into()) {
            return Ok(crate::text_result(text));
        }
        let _guard = SetOnDrop(self.dropped.clone());
        tokio::time::sleep(Duration::from_secs(30)).await;
        Ok(crate::text_result("slept".into()))
    }
}

#[test]
fn registry_calls_validate_and_time_out() {
    let dropped = Arc::new(AtomicBool::new(false));
    let registry = Registry::new();
    let schema = r#"{"type":"object","properties":{"text":{"type":"string"}}}"#;
    registry
        .add_tool(
            "t".into(),
            "d".into(),
            schema.into(),
            Arc::new(Fixture { dropped: dropped.clone() }),
            None,
            None,
            None,
        )
        .unwrap();
    let clash = registry.add_tool(
        "t".into(),
        "d".into(),
        schema.into(),
        Arc::new(Fixture { dropped: dropped.clone() }),
        None,
        None,
        None,
    );
    assert!(matches!(clash, Err(McpError::InvalidInput { .. })));
    rt::runtime().block_on(async {
        let r = registry.call_tool("t".into(), r#"{"text":"hi"}"#.into(), None).await.unwrap();
        assert_eq!(r.first_text(), Some("hi"));
        // Refused by the schema: an isError result naming the field (SEP-1303), as over the wire.
        let invalid = registry.call_tool("t".into(), r#"{"text":5}"#.into(), None).await.unwrap();
        assert!(invalid.is_error);
        assert!(
            invalid.first_text().unwrap().starts_with("Invalid arguments for tool t: /text: "),
            "{invalid:?}"
        );
        let late = registry.call_tool("t".into(), "{}".into(), Some(Duration::from_millis(50))).await;
        assert!(matches!(late, Err(McpError::Timeout { code: -32001, .. })));
    });
    assert!(dropped.load(Ordering::SeqCst), "the timed-out tool's future was dropped");
}

/// A foreign tool answering with a fixed result.
struct Fixed(ToolResult);

#[async_trait::async_trait]
impl ToolHandler for Fixed {
    async fn call(&self, _call: Arc<ToolCall>) -> Result<ToolResult, McpError> {
        Ok(self.0.clone())
    }
}

#[test]
fn a_foreign_tool_result_passes_the_host_bridge_unchanged() {
    let cases = [
        ToolResult { content: vec![], structured_content: Some(r#"{"a":1}"#.into()), is_error: true },
        ToolResult { content: vec![], structured_content: None, is_error: false },
        crate::text_result("hi".into()),
        ToolResult {
            content: vec![crate::Content::Other {
                json: r#"{"type":"resource_link","uri":"file:///a","name":"a"}"#.into(),
            }],
            structured_content: Some("[1,2]".into()),
            is_error: false,
        },
    ];
    for (i, case) in cases.into_iter().enumerate() {
        let registry = Registry::new();
        registry
            .add_tool(
                "t".into(),
                "d".into(),
                r#"{"type":"object"}"#.into(),
                Arc::new(Fixed(case.clone())),
                None,
                None,
                None,
            )
            .unwrap();
        let got = rt::runtime().block_on(registry.call_tool("t".into(), "{}".into(), None)).unwrap();
        assert_eq!(got, case, "case {i}");
    }
}
