//! OpenTelemetry from our client to the official Python SDK server (issue 35): our client (with
//! telemetry on, under the OpenTelemetry SDK's in-memory exporter) calls `mcp==2.3.0`'s HTTP
//! server (tests/interop/python/sdk_otel_server.py), whose own OpenTelemetry middleware records
//! a SERVER span per request; on both lineages that span is the child of our CLIENT span (same
//! trace, parent = our span id): our client carries its context in `params._meta` as the SDK
//! reads it. One test per process: the providers are global.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::Lineage;
use opentelemetry::global;
use opentelemetry::trace::{FutureExt, SpanKind, TraceContextExt, Tracer};
use opentelemetry::Context;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{json, Value};
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::Duration;

fn python() -> String {
    std::env::var("MCPCORE_PYTHON").unwrap_or_else(|_| {
        mcpcore_tests::workspace().join(".venv/bin/python").to_string_lossy().into_owned()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_sdk_servers_span_is_the_child_of_our_client_span() {
    let local = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(local.clone()).build();
    global::set_tracer_provider(provider.clone());
    let spans_file = std::env::temp_dir().join(format!("mcpcore-sdk-spans-{}.json", std::process::id()));
    let script = mcpcore_tests::workspace().join("tests/interop/python/sdk_otel_server.py");
    let mut child = Command::new(python())
        .arg(script)
        .args(["--port", "0"])
        .env("MCPCORE_OTEL_SPANS", &spans_file)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the official SDK server runs (.venv with mcp==2.3.0)");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url =
        line.trim().strip_prefix("READY ").unwrap_or_else(|| panic!("the server said {line:?}")).to_owned();

    let mut ours = Vec::new();
    for lineage in [Lineage::Modern, Lineage::Legacy] {
        let options =
            ClientOptions { lineage: Some(lineage), telemetry: true, cache: false, ..Default::default() };
        let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
        let parent = global::tracer("test").start("agent turn");
        let cx = Context::current_with_span(parent);
        let r =
            async { client.call_tool("echo", json!({"text": "hi"})).await }.with_context(cx.clone()).await;
        assert_eq!(r.unwrap().first_text(), Some("hi"), "{lineage:?}");
        cx.span().end();
        client.close().await;
        provider.force_flush().unwrap();
        let span = local
            .get_finished_spans()
            .unwrap()
            .into_iter()
            .filter(|s| s.span_kind == SpanKind::Client && s.name == "tools/call echo")
            .find(|s| {
                !ours.iter().any(|o: &(String, String, Lineage)| o.1 == s.span_context.span_id().to_string())
            })
            .expect("our client span");
        ours.push((
            span.span_context.trace_id().to_string(),
            span.span_context.span_id().to_string(),
            lineage,
        ));
    }

    // SIGINT: the server stops gracefully and flushes its exporters.
    mcpcore_tests::interrupt_and_wait(&mut child, Duration::from_secs(15), "the SDK server").await;
    let theirs: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&spans_file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&spans_file);
    for (trace, span, lineage) in ours {
        let served = theirs
            .iter()
            .find(|s| s["kind"] == "SERVER" && s["name"] == "tools/call echo" && s["trace"] == trace.as_str())
            .unwrap_or_else(|| panic!("{lineage:?}: no SDK server span in our trace {trace}: {theirs:?}"));
        assert_eq!(served["parent"], span.as_str(), "{lineage:?}: the SDK's span is our client span's child");
        assert_eq!(served["attributes"]["gen_ai.tool.name"], "echo");
    }
}
