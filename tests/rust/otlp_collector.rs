//! OTLP export into a real OpenTelemetry Collector (issue 35): the collector's own modules from
//! the Go module proxy (`go.opentelemetry.io/collector` v0.165.0: the OTLP receiver and the debug
//! exporter; tests/interop/otelcol, built by scripts/test.sh into `target/peers/otelcol`, or
//! where `MCPCORE_OTELCOL` says). The Rust `echo_server`, a real child with only the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set (so the default protocol, OTLP/HTTP protobuf), exports its
//! SERVER span and `mcp.server.operation.duration`; the collector receives them, the span in the
//! trace of our client's CLIENT span (its context carried in `params._meta`).

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::ProtocolVersion;
use opentelemetry::global;
use opentelemetry::trace::SpanKind;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use serde_json::json;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The collector, killed on drop; what it printed is read from its stderr file.
struct Collector {
    child: Child,
    log: PathBuf,
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

impl Collector {
    fn start(port: u16) -> Collector {
        let bin = std::env::var_os("MCPCORE_OTELCOL")
            .map(PathBuf::from)
            .unwrap_or_else(|| mcpcore_tests::workspace().join("target/peers/otelcol"));
        assert!(bin.exists(), "the collector is missing at {} (scripts/test.sh builds it)", bin.display());
        let dir = std::env::temp_dir();
        let config = dir.join(format!("mcpcore-otelcol-{}.yaml", std::process::id()));
        let log = dir.join(format!("mcpcore-otelcol-{}.log", std::process::id()));
        std::fs::write(
            &config,
            format!(
                "receivers:\n  otlp:\n    protocols:\n      http:\n        endpoint: 127.0.0.1:{port}\n\
                 exporters:\n  debug:\n    verbosity: detailed\n\
                 service:\n  pipelines:\n    traces: {{receivers: [otlp], exporters: [debug]}}\n\
                 \x20   metrics: {{receivers: [otlp], exporters: [debug]}}\n  telemetry:\n    metrics:\n      level: none\n"
            ),
        )
        .unwrap();
        let child = Command::new(bin)
            .arg("--config")
            .arg(format!("file:{}", config.display()))
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("the collector starts");
        let collector = Collector { child, log };
        collector.wait_for("Everything is ready", Duration::from_secs(30));
        let _ = std::fs::remove_file(config);
        collector
    }

    fn output(&self) -> String {
        let mut s = String::new();
        let _ = std::fs::File::open(&self.log).and_then(|mut f| f.read_to_string(&mut s));
        s
    }

    fn wait_for(&self, text: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let out = self.output();
            if out.contains(text) {
                return out;
            }
            assert!(Instant::now() < deadline, "the collector never printed {text:?}:\n{out}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_collector_receives_the_servers_span_in_the_callers_trace_and_its_metric() {
    let local = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(local.clone()).build();
    global::set_tracer_provider(provider.clone());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let collector = Collector::start(port);
    let (mut child, url) = mcpcore_tests::spawn_listening(
        Command::new(mcpcore_tests::bin("echo_server"))
            .args(["--http", "127.0.0.1:0"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", format!("http://127.0.0.1:{port}"))
            .env_remove("OTEL_EXPORTER_OTLP_PROTOCOL")
            .env("OTEL_SERVICE_NAME", "echo-under-test")
            .env("OTEL_BSP_SCHEDULE_DELAY", "50"),
    );
    let options =
        ClientOptions { version: Some(ProtocolVersion::V2026_07_28), telemetry: true, ..Default::default() };
    let client = Client::connect_http(&url, Default::default(), options).await.unwrap();
    let r = client.call_tool("echo", json!({"text": "collected"})).await.unwrap();
    assert_eq!(r.first_text(), Some("collected"));
    client.close().await;
    provider.force_flush().unwrap();
    let ours = local
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .find(|s| s.span_kind == SpanKind::Client && s.name == "tools/call echo")
        .expect("our client span");
    let trace = format!("{}", ours.span_context.trace_id());

    // SIGINT: the server stops gracefully and flushes its exporters.
    mcpcore_tests::interrupt_and_wait(&mut child, Duration::from_secs(10), "echo_server").await;
    let out = collector.wait_for("mcp.server.operation.duration", Duration::from_secs(10));
    // The debug exporter prints each span's Trace ID line before its Name line.
    let lines: Vec<&str> = out.lines().collect();
    let named =
        lines.iter().position(|l| l.trim_start().starts_with("Name") && l.ends_with(": tools/call echo"));
    let named = named.unwrap_or_else(|| panic!("no span tools/call echo in:\n{out}"));
    let trace_line = lines[..named].iter().rev().find(|l| l.trim_start().starts_with("Trace ID")).unwrap();
    assert!(trace_line.ends_with(&trace), "{trace_line} is not our trace {trace}");
    assert!(out.contains("service.name: Str(echo-under-test)"), "the resource names the service");
    assert!(out.contains("-> gen_ai.tool.name: Str(echo)"));
}
