//! OpenTelemetry (issue 35): our client and our server over real HTTP on 127.0.0.1, both with
//! telemetry on, under the OpenTelemetry SDK with in-memory exporters. The client's CLIENT span
//! is a child of the caller's span; the server's SERVER span is a child of the client's span
//! (its context carried in `params._meta`), both named `tools/call echo` with the conventions'
//! attributes; a refused call records `error.type`; the duration histograms are recorded.
//! Through a gateway with `"telemetry": true` the upstream call's CLIENT span is the child of the
//! gateway's SERVER span. One test per process: the providers are global.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::prelude::*;
use mcpcore::protocol::ProtocolVersion;
use opentelemetry::trace::{FutureExt, SpanKind, TraceContextExt, Tracer};
use opentelemetry::{global, Context, Value as OtelValue};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;

/// Returns the text unchanged.
#[tool]
async fn echo(
    /** The text. */
    text: String,
) -> String {
    text
}

/// Sleeps (to be cancelled).
#[tool]
async fn slow(
    /** Seconds. */
    secs: f64,
) -> String {
    tokio::time::sleep(std::time::Duration::from_secs_f64(secs)).await;
    "woke".into()
}

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_and_server_spans_form_one_trace_on_both_lineages() {
    let spans = InMemorySpanExporter::default();
    let tracing = SdkTracerProvider::builder().with_simple_exporter(spans.clone()).build();
    global::set_tracer_provider(tracing.clone());
    let metrics = InMemoryMetricExporter::default();
    let meters =
        SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
    global::set_meter_provider(meters.clone());

    let server = Server::builder("otel", "1.0").tool(echo).tool(slow).telemetry().build().unwrap();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        spans.reset();
        let options = ClientOptions { version: Some(version), telemetry: true, ..Default::default() };
        let client = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
        let tracer = global::tracer("test");
        let parent = tracer.start("agent turn");
        let parent_cx = Context::current_with_span(parent);
        let text = async { client.call_tool("echo", json!({"text": "hi"})).await }
            .with_context(parent_cx.clone())
            .await
            .unwrap();
        assert_eq!(text.first_text(), Some("hi"));
        let refused = client.call_tool("missing", json!({})).await;
        assert!(refused.is_err() || refused.as_ref().unwrap().is_error());
        parent_cx.span().end();
        client.close().await;
        tracing.force_flush().unwrap();

        let finished = spans.get_finished_spans().unwrap();
        let named = |kind: SpanKind, name: &str| {
            finished.iter().find(|s| s.span_kind == kind && s.name == name).cloned().unwrap_or_else(|| {
                let all: Vec<_> =
                    finished.iter().map(|s| (s.name.to_string(), s.span_kind.clone())).collect();
                panic!("{version}: no {kind:?} span {name:?} in {all:?}")
            })
        };
        let agent = named(SpanKind::Internal, "agent turn");
        let client_span = named(SpanKind::Client, "tools/call echo");
        let server_span = named(SpanKind::Server, "tools/call echo");
        let trace = agent.span_context.trace_id();
        assert_eq!(client_span.span_context.trace_id(), trace, "{version}");
        assert_eq!(client_span.parent_span_id, agent.span_context.span_id(), "{version}");
        assert_eq!(server_span.span_context.trace_id(), trace, "{version}: the server joined the trace");
        assert_eq!(server_span.parent_span_id, client_span.span_context.span_id(), "{version}");
        assert!(server_span.parent_span_is_remote, "{version}");
        for span in [&client_span, &server_span] {
            assert_eq!(attr(span, "mcp.method.name"), Some(&OtelValue::from("tools/call")));
            assert_eq!(attr(span, "gen_ai.tool.name"), Some(&OtelValue::from("echo")));
            assert_eq!(attr(span, "mcp.protocol.version"), Some(&OtelValue::from(version.as_str())));
        }
        assert_eq!(attr(&server_span, "network.transport"), Some(&OtelValue::from("tcp")));
        assert_eq!(attr(&server_span, "mcp.session.id").is_some(), !version.is_modern(), "{version}");
        let failed = named(SpanKind::Server, "tools/call missing");
        assert!(attr(&failed, "error.type").is_some(), "{version}: {:?}", failed.attributes);
        // The session's own requests (discovery, initialize) have spans of their own too.
        assert!(finished.iter().any(|s| s.span_kind == SpanKind::Client && s.name != "tools/call echo"));
    }
    // A request the client gives up on: its server span ends as cancelled, with its duration.
    spans.reset();
    let client =
        Client::connect_http(&serving.url(), Default::default(), ClientOptions::default()).await.unwrap();
    let quick = mcpcore::client::CallOptions {
        timeout: Some(std::time::Duration::from_millis(200)),
        ..Default::default()
    };
    assert!(client.call_tool_with("slow", json!({"secs": 10}), &quick).await.is_err());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let cancelled = loop {
        tracing.force_flush().unwrap();
        let found = spans.get_finished_spans().unwrap().into_iter().find(|s| s.name == "tools/call slow");
        if let Some(s) = found {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the cancelled request's span never ended");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(attr(&cancelled, "error.type"), Some(&OtelValue::from("cancelled")));
    client.close().await;
    serving.shutdown().await.unwrap();

    // Through a gateway with telemetry: our CLIENT span → the gateway's SERVER span → its
    // CLIENT span to the upstream (a real echo_server child on stdio), one trace.
    spans.reset();
    let config = json!({
        "mcpServers": {"up": {"command": mcpcore_tests::bin("echo_server")}},
        "telemetry": true
    });
    let gateway =
        mcpcore::gateway::Gateway::start(&mcpcore::gateway::GatewayConfig::from_value(config).unwrap())
            .await
            .unwrap();
    let front = gateway
        .server()
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default())
        .await
        .unwrap();
    let options = ClientOptions { telemetry: true, ..Default::default() };
    let client = Client::connect_http(&front.url(), Default::default(), options).await.unwrap();
    let tool =
        client.list_tools().await.unwrap().into_iter().find(|t| t.name.ends_with("echo")).unwrap().name;
    assert_eq!(client.call_tool(&tool, json!({"text": "via"})).await.unwrap().first_text(), Some("via"));
    client.close().await;
    tracing.force_flush().unwrap();
    let finished = spans.get_finished_spans().unwrap();
    let call = format!("tools/call {tool}");
    let ours =
        finished.iter().find(|s| s.span_kind == SpanKind::Client && s.name == call).expect("our client span");
    let served = finished
        .iter()
        .find(|s| s.span_kind == SpanKind::Server && s.name == call)
        .expect("the gateway's span");
    let upstream = finished
        .iter()
        .find(|s| s.span_kind == SpanKind::Client && s.name == "tools/call echo")
        .unwrap_or_else(|| {
            panic!("the gateway's upstream span: {:?}", finished.iter().map(|s| &s.name).collect::<Vec<_>>())
        });
    assert_eq!(served.parent_span_id, ours.span_context.span_id());
    assert_eq!(
        upstream.parent_span_id,
        served.span_context.span_id(),
        "the upstream call is the served span's child"
    );
    assert_eq!(upstream.span_context.trace_id(), ours.span_context.trace_id());
    front.shutdown().await.unwrap();
    gateway.shutdown().await;

    meters.force_flush().unwrap();
    let names: Vec<String> = metrics
        .get_finished_metrics()
        .unwrap()
        .iter()
        .flat_map(|rm| {
            rm.scope_metrics().flat_map(|sm| sm.metrics().map(|m| m.name().to_owned())).collect::<Vec<_>>()
        })
        .collect();
    assert!(names.contains(&"mcp.server.operation.duration".to_owned()), "{names:?}");
    assert!(names.contains(&"mcp.client.operation.duration".to_owned()), "{names:?}");
}
