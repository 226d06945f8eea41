//! [`FrameTx`]: how peer logic hands a transport its outbound frames. Either a queue read by
//! the transport's writer task (HTTP, Windows pipes, channels a host builds), or a
//! [`DirectWriter`] that writes the frame on the caller's own thread when nothing waits before
//! it (a child's stdin on Unix): a client's request then leaves from the thread that made it,
//! with no writer task woken for it (issue 47 step 2, bench/NOTES.md "A client writes its
//! request from the calling thread").

use super::direct::DirectWriter;
use super::OutFrame;
use std::sync::{Arc, Weak};
use tokio::sync::mpsc;

/// Sends frames to a transport. Cheap to clone; once the last clone is dropped the transport
/// writes what it was given and then ends its outbound stream (a child's stdin is closed).
#[derive(Debug, Clone)]
pub struct FrameTx(Arc<Kind>);

/// A [`FrameTx`] that does not keep the transport open ([`FrameTx::downgrade`]).
#[derive(Debug, Clone)]
pub struct WeakFrameTx(Weak<Kind>);

/// The transport is gone: the frame was not sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendError;

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the transport is closed")
    }
}

impl std::error::Error for SendError {}

#[derive(Debug)]
enum Kind {
    Queue(mpsc::UnboundedSender<OutFrame>),
    Direct(DirectWriter),
}

impl Drop for Kind {
    fn drop(&mut self) {
        // A queue's reader sees its end when the sender drops; a direct writer is told.
        if let Kind::Direct(w) = self {
            w.close();
        }
    }
}

impl FrameTx {
    /// Frames written on the caller's thread by `writer` (see [`DirectWriter`]).
    pub fn direct(writer: DirectWriter) -> FrameTx {
        FrameTx(Arc::new(Kind::Direct(writer)))
    }

    /// Sends `frame` ([`OutFrame::Close`] ends the outbound stream after what came before).
    pub fn send(&self, frame: OutFrame) -> Result<(), SendError> {
        match &*self.0 {
            Kind::Queue(tx) => tx.send(frame).map_err(|_| SendError),
            Kind::Direct(w) => match frame {
                OutFrame::Close => {
                    w.close();
                    Ok(())
                }
                frame => w.try_send(&frame).then_some(()).ok_or(SendError),
            },
        }
    }

    /// A handle that sends while some [`FrameTx`] lives, without keeping the transport open.
    pub fn downgrade(&self) -> WeakFrameTx {
        WeakFrameTx(Arc::downgrade(&self.0))
    }
}

impl From<mpsc::UnboundedSender<OutFrame>> for FrameTx {
    fn from(tx: mpsc::UnboundedSender<OutFrame>) -> FrameTx {
        FrameTx(Arc::new(Kind::Queue(tx)))
    }
}

impl WeakFrameTx {
    /// The sender, while a [`FrameTx`] lives.
    pub fn upgrade(&self) -> Option<FrameTx> {
        self.0.upgrade().map(FrameTx)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::jsonrpc::{Message, Notification};
    use tokio::io::AsyncReadExt;

    fn note(i: usize) -> OutFrame {
        let params = serde_json::json!({ "i": i });
        OutFrame::One(Message::Notification(Notification {
            method: "n".into(),
            params: params.as_object().cloned(),
        }))
    }

    /// Frames go out in order; dropping the last sender ends the stream (the reader sees its
    /// end) and later sends through a weak handle fail.
    #[tokio::test]
    async fn the_last_sender_dropped_ends_the_stream() {
        let (tx, mut rx) = tokio::net::unix::pipe::pipe().unwrap();
        let (writer, task) = DirectWriter::pipe(tx, "a test pipe");
        let task = tokio::spawn(task);
        let tx = FrameTx::direct(writer);
        let weak = tx.downgrade();
        let second = tx.clone();
        tx.send(note(1)).unwrap();
        second.send(note(2)).unwrap();
        drop(tx);
        weak.upgrade().expect("a clone lives").send(note(3)).unwrap();
        drop(second);
        assert!(weak.upgrade().is_none());
        let mut got = String::new();
        rx.read_to_string(&mut got).await.unwrap();
        task.await.unwrap();
        let is: Vec<u64> = got
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["params"]["i"].as_u64().unwrap())
            .collect();
        assert_eq!(is, [1, 2, 3]);
    }

    /// A reader that went away: the send fails, so a client fails its call rather than wait.
    #[tokio::test]
    async fn a_send_to_a_gone_reader_fails() {
        let (tx, rx) = tokio::net::unix::pipe::pipe().unwrap();
        drop(rx);
        let (writer, task) = DirectWriter::pipe(tx, "a test pipe");
        let task = tokio::spawn(task);
        let tx = FrameTx::direct(writer);
        // The first frame may wait for the reactor to learn the pipe's state (tokio reports
        // a fresh registration not ready); the failure then comes from the task.
        let mut sent = 0;
        while tx.send(note(sent)).is_ok() {
            sent += 1;
            assert!(sent < 1000, "sends to a pipe nobody reads kept succeeding");
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        tokio::time::timeout(std::time::Duration::from_secs(5), task).await.unwrap().unwrap();
        let queued: FrameTx = tokio::sync::mpsc::unbounded_channel().0.into();
        assert_eq!(queued.send(note(1)), Err(SendError), "a queue whose reader is gone");
    }
}
