//! W9 (catalogue scale) for mcpcore_driver: the listing client and the in-process registration cost.
//!
//! ```text
//! mcpcore_driver catalogue URL VERSION ROUNDS TOOLS RESOURCES
//! mcpcore_driver register N
//! ```
//! `catalogue` connects to a server the harness has just spawned (retrying until it answers), lists
//! every page of `tools/list` and `resources/list`, and prints `ready_unix` (wall-clock seconds
//! when the first complete listing arrived: the harness subtracts the spawn time), then the
//! latency of ROUNDS complete listings of each. Every listing is checked: all TOOLS catalogue
//! tools and all RESOURCES resources, by name. `register` times registering N catalogue tools in a
//! fresh `ToolRegistry`, once with the catalogue's schemas and once with the same schemas plus a
//! `format` (which takes jsonschema's full path, meta-schema check included).

use mcpcore::client::Client;
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

type Res<T> = Result<T, String>;

/// The catalogue's tool `i` (the same descriptor in every bench server).
pub(crate) fn catalogue_schema(i: usize, format: bool) -> Value {
    let mut id = json!({"type": "string", "description": format!("The item of tool {i}.")});
    if format {
        id["format"] = json!("uuid");
    }
    json!({"type": "object", "properties": {"id": id, "count": {"type": "integer", "minimum": 0}}, "required": ["id"]})
}

fn check(tools: &[String], resources: &[String], nt: usize, nr: usize) -> Res<()> {
    let t: HashSet<&str> = tools.iter().map(String::as_str).collect();
    for i in 0..nt {
        if !t.contains(format!("tool_{i:04}").as_str()) {
            return Err(format!("tools/list lacks tool_{i:04} ({} tools listed)", tools.len()));
        }
    }
    let r: HashSet<&str> = resources.iter().map(String::as_str).collect();
    if resources.len() != nr {
        return Err(format!("resources/list gave {} resources, not {nr}", resources.len()));
    }
    for j in 0..nr {
        if !r.contains(format!("bench://catalogue/{j:05}").as_str()) {
            return Err(format!("resources/list lacks bench://catalogue/{j:05}"));
        }
    }
    Ok(())
}

async fn list(c: &Client) -> Res<(Vec<String>, Vec<String>, f64, f64)> {
    let t = Instant::now();
    let tools = c.list_tools().await.map_err(|e| format!("tools/list: {e}"))?;
    let tt = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let res = c.list_resources().await.map_err(|e| format!("resources/list: {e}"))?;
    let rt = t.elapsed().as_secs_f64() * 1e3;
    Ok((tools.into_iter().map(|t| t.name).collect(), res.into_iter().map(|r| r.uri).collect(), tt, rt))
}

fn ms_stats(mut v: Vec<f64>) -> Value {
    v.sort_by(|a, b| a.total_cmp(b));
    let median = if v.is_empty() { 0.0 } else { v[v.len() / 2] };
    json!({"n": v.len(), "median_ms": median, "min_ms": v.first().copied().unwrap_or(0.0)})
}

pub(crate) async fn drive(a: &[String], options: mcpcore::client::ClientOptions) -> Res<Value> {
    let [url, _version, rounds, nt, nr] = a else {
        return Err("usage: catalogue URL VERSION ROUNDS TOOLS RESOURCES".into());
    };
    let num = |s: &String| s.parse::<usize>().map_err(|e| format!("{s}: {e}"));
    let (rounds, nt, nr) = (num(rounds)?, num(nt)?, num(nr)?);
    let deadline = Instant::now() + Duration::from_secs(120);
    let c = loop {
        match Client::connect_http(url, HttpOptions::default(), options.clone()).await {
            Ok(c) => break c,
            Err(e) if Instant::now() > deadline => return Err(format!("connect: {e}")),
            Err(_) => tokio::time::sleep(Duration::from_millis(2)).await,
        }
    };
    let (tools, res, first_tools_ms, first_res_ms) = list(&c).await?;
    let ready = SystemTime::now().duration_since(UNIX_EPOCH).map_err(|e| e.to_string())?.as_secs_f64();
    check(&tools, &res, nt, nr)?;
    let (mut tl, mut rl) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (tools, res, tt, rt) = list(&c).await?;
        check(&tools, &res, nt, nr)?;
        tl.push(tt);
        rl.push(rt);
    }
    c.close().await;
    Ok(json!({"ready_unix": ready, "first_tools_ms": first_tools_ms, "first_resources_ms": first_res_ms,
              "tools": ms_stats(tl), "resources": ms_stats(rl), "tool_count": tools.len(), "resource_count": res.len()}))
}

pub(crate) fn register(a: &[String]) -> Res<Value> {
    let n: usize = a.first().ok_or("usage: register N")?.parse().map_err(|e| format!("N: {e}"))?;
    let time = |format: bool| -> Res<f64> {
        let reg = ToolRegistry::new();
        let t = Instant::now();
        for i in 0..n {
            let tool = Tool::new(
                format!("tool_{i:04}"),
                format!("Catalogue tool {i}."),
                catalogue_schema(i, format),
            );
            reg.register(tool, |_a: Arguments, _c: ToolContext| async { Ok(CallToolResult::text("x")) })
                .map_err(|e| e.to_string())?;
        }
        Ok(t.elapsed().as_secs_f64() * 1e3)
    };
    let simple = time(false)?;
    let full = time(true)?;
    Ok(json!({"n": n, "simple_ms": simple, "full_ms": full}))
}
