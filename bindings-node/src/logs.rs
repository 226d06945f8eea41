//! The engine's log records (its `tracing` events, through the `log` crate: the HTTP server's
//! request log at debug level, target `mcpcore::http`) delivered to a JS callback
//! (`setLogger()` in lib/mcpcore.js, and the `DEBUG=mcpcore` namespace). With no callback the
//! maximum level is off, so an event costs one level check.

use crate::bad_option;
use napi::bindgen_prelude::{FnArgs, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use napi_derive::napi;
use std::sync::RwLock;

type SinkArgs = FnArgs<(String, String, String)>;
type Sink = ThreadsafeFunction<SinkArgs, Unknown<'static>, SinkArgs, Status, false, true>;

static SINK: RwLock<Option<Sink>> = RwLock::new(None);
static BRIDGE: Bridge = Bridge;

struct Bridge;

impl log::Log for Bridge {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        if let Some(sink) = SINK.read().expect("lock").as_ref() {
            let level = record.level().as_str().to_ascii_lowercase();
            let args = FnArgs::from((level, record.target().to_owned(), record.args().to_string()));
            sink.call(args, ThreadsafeFunctionCallMode::NonBlocking);
        }
    }

    fn flush(&self) {}
}

/// Delivers the engine's log records at `level` (`error`, `warn`, `info`, `debug`, `trace`;
/// default `debug`) and above to `handler(level, target, message)`; `null` stops.
#[napi(
    ts_args_type = "handler: ((level: string, target: string, message: string) => void) | null, level?: string | null"
)]
pub fn set_log_handler(handler: Option<Sink>, level: Option<String>) -> napi::Result<()> {
    let filter = match level.as_deref().unwrap_or("debug") {
        "error" => log::LevelFilter::Error,
        "warn" | "warning" => log::LevelFilter::Warn,
        "info" => log::LevelFilter::Info,
        "debug" => log::LevelFilter::Debug,
        "trace" => log::LevelFilter::Trace,
        other => return Err(bad_option("level", "error, warn, info, debug or trace", other)),
    };
    // The first call installs the bridge; another logger already installed wins (and gets the records).
    let _ = log::set_logger(&BRIDGE);
    let on = handler.is_some();
    *SINK.write().expect("lock") = handler;
    log::set_max_level(if on { filter } else { log::LevelFilter::Off });
    Ok(())
}

/// The target of the marker [`flush_log_handler`] sends.
const FLUSH_TARGET: &str = "mcpcore::flush";

/// Queues a marker record (target `mcpcore::flush`) behind every record already queued for the
/// handler: when the handler sees it, everything logged before this call has been delivered.
/// False when no handler is set.
#[napi]
pub fn flush_log_handler() -> bool {
    match SINK.read().expect("lock").as_ref() {
        Some(sink) => {
            let args = FnArgs::from(("trace".to_owned(), FLUSH_TARGET.to_owned(), String::new()));
            sink.call(args, ThreadsafeFunctionCallMode::NonBlocking) == Status::Ok
        }
        None => false,
    }
}
