//! A stdio client whose child's stdout the host reads on its own thread
//! (`transport::child::spawn_host_read`, what the Node binding does with libuv): frames are
//! dispatched on the reading thread, the end of the stream closes the connection with the
//! process's exit reason, and a respawn during negotiation gets a new reader.

#![cfg(unix)]

use mcpcore::client::{Client, ClientOptions, Spawn};
use mcpcore::transport::child::{self, StdioCommand};
use mcpcore::transport::host_read::HostRead;
use mcpcore_tests::bin;
use serde_json::json;
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Reads `read`'s descriptor on a thread of its own (blocking reads, inside the runtime's
/// context as a host's event loop would be), pushing each chunk and then the end.
fn read_on_a_thread(read: Arc<HostRead>, rt: tokio::runtime::Handle, chunks: Arc<AtomicUsize>) {
    let fd = read.take_fd().expect("the descriptor, once");
    assert!(read.take_fd().is_none(), "the descriptor is given once");
    std::thread::spawn(move || {
        let _rt = rt.enter();
        let mut file = std::fs::File::from(fd);
        let mut buf = vec![0u8; 7]; // small reads: frames arrive split across pushes
        loop {
            match file.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    chunks.fetch_add(1, Ordering::Relaxed);
                    read.push(&buf[..n]);
                }
            }
        }
        read.end();
        read.end(); // a second end changes nothing
    });
}

/// A spawner whose every child's stdout is read by [`read_on_a_thread`]; counts the spawns.
fn spawner(spawns: Arc<AtomicUsize>, chunks: Arc<AtomicUsize>) -> Spawn {
    let rt = tokio::runtime::Handle::current();
    Arc::new(move |cmd: &StdioCommand, max| {
        spawns.fetch_add(1, Ordering::Relaxed);
        let (channel, process, read) = child::spawn_host_read(cmd, max)?;
        read_on_a_thread(read, rt.clone(), chunks.clone());
        Ok((channel, process))
    })
}

#[tokio::test]
async fn calls_are_answered_through_the_hosts_reader() {
    let (spawns, chunks) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let cmd = StdioCommand::new(bin("echo_server"), Vec::<String>::new());
    let client =
        Client::connect_stdio_with(cmd, ClientOptions::default(), spawner(spawns.clone(), chunks.clone()))
            .await
            .unwrap();
    let mut calls = Vec::new();
    for i in 0..20 {
        let c = client.clone();
        calls
            .push(tokio::spawn(async move { c.call_tool("echo", json!({ "text": format!("n{i}") })).await }));
    }
    for (i, call) in calls.into_iter().enumerate() {
        let r = call.await.unwrap().unwrap();
        assert_eq!(r.first_text(), Some(format!("n{i}").as_str()));
    }
    assert_eq!(spawns.load(Ordering::Relaxed), 1);
    assert!(chunks.load(Ordering::Relaxed) > 20, "the answers came through the host's reads");
    client.close().await;
}

#[tokio::test]
async fn the_end_of_stdout_fails_calls_with_the_exit_reason() {
    let (spawns, chunks) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    // Answers initialize (legacy), then exits with code 3 on the next request.
    let script = r#"read -r line; echo '{"jsonrpc":"2.0","id":'"$(echo "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')"',"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}'; read -r line; read -r line; echo bye >&2; exit 3"#;
    let cmd = StdioCommand::new("sh", ["-c", script]);
    let options =
        ClientOptions { version: mcpcore::ProtocolVersion::parse("2025-11-25"), ..ClientOptions::default() };
    let client = Client::connect_stdio_with(cmd, options, spawner(spawns, chunks)).await.unwrap();
    let err = tokio::time::timeout(Duration::from_secs(10), client.call_tool("echo", json!({})))
        .await
        .expect("the call ends when stdout does")
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("exited with code 3") && text.contains("bye"), "{text}");
}
