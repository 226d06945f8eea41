//! The stdio ceiling: the least a JSON-RPC server can do per line. Reads one JSON-RPC request per
//! line with serde_json, answers a `tools/call` echo (and `initialize`) with the smallest valid
//! result, ignores notifications. No MCP library; the physical limit of pipes + serde_json here.

use serde_json::{json, Value};
use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else { continue };
        let Some(id) = msg.get("id").cloned() else { continue };
        let result = match msg["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "0"}
            }),
            _ => json!({"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}]}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if serde_json::to_writer(&mut out, &reply).is_err()
            || out.write_all(b"\n").is_err()
            || out.flush().is_err()
        {
            break;
        }
    }
}
