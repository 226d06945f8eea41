//! OTLP export (issue 35): the Rust `echo_server` (a real child) with the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` and `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` exports its SERVER
//! spans and `mcp.server.operation.duration` over OTLP/HTTP to a receiver this test runs on
//! 127.0.0.1; the exported span is the child of our client's CLIENT span (its context carried
//! in `params._meta`), in the client's trace.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::ProtocolVersion;
use opentelemetry::global;
use opentelemetry::trace::SpanKind;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::{json, Value};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

type Received = Arc<Mutex<Vec<(String, Value)>>>;

/// A minimal OTLP/HTTP JSON receiver: keeps each POST's path and body, answers `{}`.
async fn receiver() -> (u16, Received) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let got: Received = Arc::default();
    let keep = got.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let keep = keep.clone();
            tokio::spawn(async move {
                let mut stream = tokio::io::BufReader::new(stream);
                loop {
                    let mut line = String::new();
                    if stream.read_line(&mut line).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                    let mut length = 0usize;
                    loop {
                        let mut h = String::new();
                        if stream.read_line(&mut h).await.unwrap_or(0) == 0 {
                            return;
                        }
                        if h == "\r\n" {
                            break;
                        }
                        if let Some((k, v)) = h.split_once(':') {
                            if k.eq_ignore_ascii_case("content-length") {
                                length = v.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0; length.min(16 << 20)];
                    if stream.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    if let Ok(v) = serde_json::from_slice(&body) {
                        keep.lock().unwrap().push((path, v));
                    }
                    let answer =
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}";
                    if stream.get_mut().write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, got)
}

fn spans(got: &Received) -> Vec<Value> {
    let all = got.lock().unwrap();
    all.iter()
        .filter(|(p, _)| p == "/v1/traces")
        .flat_map(|(_, v)| {
            v["resourceSpans"].as_array().cloned().unwrap_or_default().into_iter().flat_map(|rs| {
                rs["scopeSpans"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|ss| ss["spans"].as_array().cloned().unwrap_or_default())
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_server_exports_its_spans_over_otlp_in_the_callers_trace() {
    let local = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(local.clone()).build();
    global::set_tracer_provider(provider.clone());
    let (port, got) = receiver().await;
    let (mut child, url) = mcpcore_tests::spawn_listening(
        Command::new(mcpcore_tests::bin("echo_server"))
            .args(["--http", "127.0.0.1:0"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://127.0.0.1:{port}"))
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
            .env("OTEL_SERVICE_NAME", "echo-under-test")
            .env("OTEL_BSP_SCHEDULE_DELAY", "50"),
    );

    let options =
        ClientOptions { version: Some(ProtocolVersion::V2026_07_28), telemetry: true, ..Default::default() };
    let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
    assert_eq!(
        client.call_tool("echo", json!({"text": "traced"})).await.unwrap().first_text(),
        Some("traced")
    );
    client.close().await;
    provider.force_flush().unwrap();
    let ours = local
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .find(|s| s.span_kind == SpanKind::Client && s.name == "tools/call echo")
        .expect("our client span");

    // SIGINT: the server stops gracefully and flushes its exporters.
    mcpcore_tests::interrupt_and_wait(&mut child, Duration::from_secs(10), "echo_server").await;
    let exported = spans(&got);
    let served = exported
        .iter()
        .find(|s| s["name"] == "tools/call echo")
        .unwrap_or_else(|| panic!("no exported server span: {exported:?}"));
    assert_eq!(served["kind"], 2, "SPAN_KIND_SERVER");
    assert_eq!(served["traceId"].as_str().unwrap(), ours.span_context.trace_id().to_string());
    assert_eq!(served["parentSpanId"].as_str().unwrap(), ours.span_context.span_id().to_string());
    let attrs: Vec<&str> =
        served["attributes"].as_array().unwrap().iter().filter_map(|a| a["key"].as_str()).collect();
    assert!(attrs.contains(&"mcp.method.name") && attrs.contains(&"gen_ai.tool.name"), "{attrs:?}");
    let service =
        got.lock().unwrap().iter().find(|(p, _)| p == "/v1/traces").map(|(_, v)| v.to_string()).unwrap();
    assert!(service.contains("echo-under-test"), "service.name from OTEL_SERVICE_NAME");
    let metrics = got
        .lock()
        .unwrap()
        .iter()
        .filter(|(p, _)| p == "/v1/metrics")
        .map(|(_, v)| v.to_string())
        .collect::<String>();
    assert!(metrics.contains("mcp.server.operation.duration"), "the histogram was exported: {metrics}");
}
