//! OTLP export configured the standard way, from the `OTEL_*` environment variables (feature
//! `otlp`): with `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or
//! `OTEL_TRACES_EXPORTER=otlp`) set, [`Otlp::from_env`] installs the OpenTelemetry SDK's
//! tracer and meter providers with OTLP/HTTP exporters (`OTEL_EXPORTER_OTLP_PROTOCOL`
//! `http/protobuf`, the default, or `http/json`; endpoint, headers and timeouts from the SDK's
//! own variables) and the W3C Trace Context propagator, as the global providers that
//! [`OtelMiddleware`](super::OtelMiddleware) and client spans record with.

use opentelemetry::global;
use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

/// The installed providers; [`Otlp::shutdown`] (or dropping it) flushes what is buffered.
#[derive(Debug)]
pub struct Otlp {
    traces: SdkTracerProvider,
    metrics: SdkMeterProvider,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

impl Otlp {
    /// Installs OTLP export when the environment asks for it (see the module docs), with
    /// `service` as `service.name` unless `OTEL_SERVICE_NAME` says otherwise; `None` when it
    /// does not. Runs on a thread of its own: the exporter's blocking HTTP client must not be
    /// made or dropped on an async runtime.
    pub fn from_env(service: &str) -> crate::Result<Option<Otlp>> {
        let wanted = env("OTEL_EXPORTER_OTLP_ENDPOINT").is_some()
            || env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").is_some()
            || env("OTEL_TRACES_EXPORTER").as_deref() == Some("otlp");
        if !wanted {
            return Ok(None);
        }
        let service = service.to_owned();
        std::thread::spawn(move || Otlp::install(&service))
            .join()
            .unwrap_or_else(|_| Err(crate::Error::invalid_input("installing the OTLP exporter panicked")))
            .map(Some)
    }

    fn install(service: &str) -> crate::Result<Otlp> {
        crate::tls::install_provider();
        let protocol = match env("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() {
            None | Some("http/protobuf") => Protocol::HttpBinary,
            Some("http/json") => Protocol::HttpJson,
            Some(other) => {
                return Err(crate::Error::invalid_input(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={other}: this build exports http/protobuf or http/json"
                )))
            }
        };
        let failed = |e: opentelemetry_otlp::ExporterBuildError| {
            crate::Error::invalid_input(format!("the OTLP exporter could not be made: {e}"))
        };
        let spans = SpanExporter::builder().with_http().with_protocol(protocol).build().map_err(failed)?;
        let metrics =
            MetricExporter::builder().with_http().with_protocol(protocol).build().map_err(failed)?;
        let mut resource = Resource::builder();
        if env("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(service.to_owned());
        }
        let resource = resource.build();
        let traces =
            SdkTracerProvider::builder().with_batch_exporter(spans).with_resource(resource.clone()).build();
        let metrics =
            SdkMeterProvider::builder().with_periodic_exporter(metrics).with_resource(resource).build();
        global::set_tracer_provider(traces.clone());
        global::set_meter_provider(metrics.clone());
        global::set_text_map_propagator(TraceContextPropagator::new());
        Ok(Otlp { traces, metrics })
    }

    /// Exports what is buffered and stops the exporters (on a thread of its own, as making them).
    pub fn shutdown(&self) {
        let (traces, metrics) = (self.traces.clone(), self.metrics.clone());
        let _ = std::thread::spawn(move || {
            let _ = traces.shutdown();
            let _ = metrics.shutdown();
        })
        .join();
    }
}
