//! `mcp.server.session.duration` (issue 35, OpenTelemetry): a server with telemetry on records
//! one point per legacy session when it ends, with `mcp.protocol.version` and
//! `network.transport` (`tcp` over HTTP: our client's session, ended by its DELETE; `pipe` on a
//! channel, as stdio: the connection closing), and none for 2026-07-28 requests, which belong to
//! no session. The OpenTelemetry SDK's in-memory exporter reads them. One test per process: the
//! providers are global.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::jsonrpc;
use mcpcore::prelude::*;
use mcpcore::protocol::ProtocolVersion;
use mcpcore::transport::{Channel, TransportEvent};
use opentelemetry::global;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{
    InMemoryMetricExporter, InMemoryMetricExporterBuilder, PeriodicReader, SdkMeterProvider, Temporality,
};
use serde_json::json;
use std::time::Duration;

/// Returns the text unchanged.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// One histogram point: its attributes as sorted (key, value) strings, its count and its sum.
type Point = (Vec<(String, String)>, u64, f64);

/// The server's session-duration points since the last look: (attributes as (key, value)
/// strings, count, sum).
fn session_points(metrics: &InMemoryMetricExporter, meters: &SdkMeterProvider) -> Vec<Point> {
    metric_points(metrics, meters, "mcp.server.session.duration")
}

fn metric_points(metrics: &InMemoryMetricExporter, meters: &SdkMeterProvider, name: &str) -> Vec<Point> {
    meters.force_flush().unwrap();
    let mut out = Vec::new();
    for rm in metrics.get_finished_metrics().unwrap() {
        for sm in rm.scope_metrics() {
            for m in sm.metrics().filter(|m| m.name() == name) {
                assert_eq!(m.unit(), "s");
                let AggregatedMetrics::F64(MetricData::Histogram(h)) = m.data() else {
                    panic!("not an f64 histogram: {:?}", m.data())
                };
                for p in h.data_points() {
                    let mut attrs: Vec<(String, String)> =
                        p.attributes().map(|kv| (kv.key.to_string(), kv.value.to_string())).collect();
                    attrs.sort();
                    out.push((attrs, p.count(), p.sum()));
                }
            }
        }
    }
    out
}

fn attrs(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    v.sort();
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sessions_record_their_duration_when_they_end_and_modern_requests_none() {
    // Delta: each flush holds only what ended since the last one.
    let metrics = InMemoryMetricExporterBuilder::new().with_temporality(Temporality::Delta).build();
    let meters =
        SdkMeterProvider::builder().with_reader(PeriodicReader::builder(metrics.clone()).build()).build();
    global::set_meter_provider(meters.clone());
    let server = Server::builder("otel", "1.0").tool(echo).telemetry().build().unwrap();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();

    // A 2026-07-28 client: requests, no session, no point.
    let options = ClientOptions { version: Some(ProtocolVersion::V2026_07_28), ..Default::default() };
    let modern = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
    modern.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    modern.close().await;
    assert_eq!(session_points(&metrics, &meters), vec![]);
    metrics.reset();

    // A 2025-11-25 session over HTTP: one point once the client's DELETE ends it.
    let options =
        ClientOptions { version: Some(ProtocolVersion::V2025_11_25), telemetry: true, ..Default::default() };
    let legacy = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
    legacy.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    legacy.close().await;
    let mut points = Vec::new();
    for _ in 0..100 {
        points = session_points(&metrics, &meters);
        if !points.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let http = attrs(&[
        ("mcp.protocol.version", "2025-11-25"),
        ("network.protocol.name", "http"),
        ("network.transport", "tcp"),
    ]);
    assert_eq!(points.len(), 1, "{points:?}");
    assert_eq!((&points[0].0, points[0].1), (&http, 1));
    assert!(points[0].2 >= 0.05 && points[0].2 < 10.0, "the session's seconds: {}", points[0].2);
    // Our client (telemetry on) records its side of the session when it closes.
    let client = metric_points(&metrics, &meters, "mcp.client.session.duration");
    assert_eq!(client.iter().map(|p| (&p.0, p.1)).collect::<Vec<_>>(), vec![(&http, 1)], "{client:?}");
    metrics.reset();
    serving.shutdown().await.unwrap();

    // A legacy session on a channel (as stdio): initialize, then the connection closes.
    let (in_tx, in_rx) = tokio::sync::mpsc::unbounded_channel();
    let (out_tx, mut out_rx) = tokio::sync::mpsc::unbounded_channel();
    let served = tokio::spawn({
        let server = server.clone();
        async move {
            server
                .serve_channel(Channel { tx: out_tx.into(), rx: in_rx, flushed: None, in_place: None })
                .await
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    in_tx.send(TransportEvent::Frame(jsonrpc::parse(init.to_string().as_bytes()))).unwrap();
    assert!(out_rx.recv().await.is_some(), "initialize answered");
    in_tx.send(TransportEvent::Closed("the client went away".into())).unwrap();
    served.await.unwrap().unwrap();
    let points = session_points(&metrics, &meters);
    let pipe = attrs(&[("mcp.protocol.version", "2025-06-18"), ("network.transport", "pipe")]);
    assert_eq!(points.iter().map(|p| (&p.0, p.1)).collect::<Vec<_>>(), vec![(&pipe, 1)], "{points:?}");
}
