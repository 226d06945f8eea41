//! The server side of stdio: frames on our own stdin/stdout. Logs belong on stderr.

use super::{framing, Channel, TransportEvent};
use tokio::sync::mpsc;

/// Starts reading stdin and writing stdout; the channel closes when stdin reaches end of file.
pub fn own_stdio(max_frame: usize) -> Channel {
    let (in_tx, in_rx) = mpsc::unbounded_channel();
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let stdin = tokio::io::BufReader::with_capacity(64 * 1024, tokio::io::stdin());
        let reason = match framing::pump_reader(stdin, &in_tx, max_frame).await {
            Ok(()) => "stdin closed".to_owned(),
            Err(e) => format!("reading stdin failed: {e}"),
        };
        let _ = in_tx.send(TransportEvent::Closed(reason));
    });
    let flushed = tokio::spawn(async move {
        if let Err(e) = framing::pump_writer(tokio::io::stdout(), out_rx).await {
            eprintln!("mcpcore: writing stdout failed: {e}");
        }
    });
    Channel { tx: out_tx, rx: in_rx, flushed: Some(flushed) }
}
