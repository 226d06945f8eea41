//! A stdio server that misbehaves on request, for the client's robustness tests: the fixture
//! tools plus
//!
//! - `stderr {bytes, binary}`: writes one stderr line of `bytes` bytes (`x`s, in 1 MiB writes),
//!   or with `binary` a line of bytes that are not UTF-8; exits with code 1 if stderr cannot be
//!   written (as a server dying of EPIPE would), else answers `written`;
//! - `big {bytes}`: answers with one text content of `bytes` bytes.

use mcpcore::engine::ServerConfig;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext};
use mcpcore::server::Server;
use mcpcore_tests::http::fixture_registry;
use serde_json::json;
use std::io::Write;
use std::sync::Arc;

fn write_stderr(bytes: u64, binary: bool) -> std::io::Result<()> {
    let mut err = std::io::stderr().lock();
    if binary {
        err.write_all(b"\xff\xfe not utf-8 \xc3\x28\n")?;
        return err.flush();
    }
    let chunk = vec![b'x'; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        err.write_all(&chunk[..n])?;
        left -= n as u64;
    }
    err.write_all(b"\n")?;
    err.flush()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = fixture_registry();
    let schema = |props: serde_json::Value| json!({"type": "object", "properties": props});
    tools
        .register(
            Tool::new(
                "stderr",
                "Writes one stderr line.",
                schema(json!({"bytes": {"type": "integer"}, "binary": {"type": "boolean"}})),
            ),
            |a: Arguments, _c: ToolContext| async move {
                let bytes = a.get("bytes").and_then(|b| b.as_u64()).unwrap_or(0);
                let binary = a.get("binary").and_then(|b| b.as_bool()).unwrap_or(false);
                if write_stderr(bytes, binary).is_err() {
                    std::process::exit(1);
                }
                Ok(CallToolResult::text("written"))
            },
        )
        .unwrap();
    tools
        .register(
            Tool::new(
                "big",
                "Answers with bytes bytes of text.",
                schema(json!({"bytes": {"type": "integer"}})),
            ),
            |a: Arguments, _c: ToolContext| async move {
                let n = a.get("bytes").and_then(|b| b.as_u64()).unwrap_or(0) as usize;
                Ok(CallToolResult::text("y".repeat(n)))
            },
        )
        .unwrap();
    let server = Server::new(ServerConfig::new("faulty", "1.0.0"), Arc::new(tools));
    server.serve_stdio().await.unwrap();
}
