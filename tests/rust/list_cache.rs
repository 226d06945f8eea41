//! The ready-made list cache (issue 35 §2): a server over real HTTP on 127.0.0.1, our client on
//! both lineages (its own cache off). Repeated `tools/list` pages are answered from the cache
//! (a counting middleware inside it sees one request); adding a tool empties it at once (the
//! next list has the tool); results with `ttlMs: 0` are never kept; other methods pass.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::http::server::HttpServerConfig;
use mcpcore::middleware::{from_fn, Middleware};
use mcpcore::prelude::*;
use mcpcore::protocol::{Lineage, Tool};
use mcpcore::registry::{Arguments, ToolContext};
use mcpcore::server::middleware::ListCache;
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Returns the text unchanged.
#[tool]
async fn echo(text: String) -> String {
    text
}

/// Counts the `tools/list` requests that get past the cache.
fn counter(seen: Arc<AtomicUsize>) -> Arc<dyn Middleware> {
    from_fn(move |req, _ctx, next| {
        if req.method == "tools/list" {
            seen.fetch_add(1, Ordering::SeqCst);
        }
        next.run(req)
    })
}

async fn names(c: &Client) -> Vec<String> {
    c.list_tools().await.unwrap().into_iter().map(|t| t.name).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_come_from_the_cache_until_the_catalogue_changes() {
    let seen = Arc::new(AtomicUsize::new(0));
    let cache = Arc::new(ListCache::new(Duration::from_secs(60), 100));
    let server = Server::builder("cached", "1.0")
        .tool(echo)
        .middleware(cache.clone())
        .middleware(counter(seen.clone()))
        .build()
        .unwrap();
    let tools = server.engine().registry().clone();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    for (n, lineage) in [Lineage::Modern, Lineage::Legacy].into_iter().enumerate() {
        let options = ClientOptions { lineage: Some(lineage), cache: false, ..Default::default() };
        let c = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
        let before = seen.load(Ordering::SeqCst);
        for _ in 0..3 {
            assert!(names(&c).await.contains(&"echo".to_owned()));
        }
        assert_eq!(seen.load(Ordering::SeqCst) - before, 1, "{lineage:?}: one list reached the server");
        // A new tool empties the cache: the next list has it.
        let name = format!("added_{n}");
        let tool = Tool::new(&name, "Added later.", json!({"type": "object"}));
        tools
            .register(tool, |_: Arguments, _: ToolContext| async { Ok(CallToolResult::text("ok")) })
            .unwrap();
        assert!(names(&c).await.contains(&name), "{lineage:?}");
        assert_eq!(seen.load(Ordering::SeqCst) - before, 2, "{lineage:?}");
        assert!(names(&c).await.contains(&name));
        assert_eq!(seen.load(Ordering::SeqCst) - before, 2, "{lineage:?}: cached again");
        // Calls pass through untouched.
        let r = c.call_tool("echo", json!({"text": "hi"})).await.unwrap();
        assert_eq!(r.first_text(), Some("hi"));
        c.close().await;
    }
    assert!(!cache.is_empty());
    serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_whose_ttl_is_zero_is_never_kept() {
    let seen = Arc::new(AtomicUsize::new(0));
    let cache = Arc::new(ListCache::new(Duration::from_secs(60), 100));
    let server = Server::builder("uncached", "1.0")
        .tool(echo)
        .middleware(cache.clone())
        .middleware(counter(seen.clone()))
        .config(|c| c.ttl_ms = 0)
        .build()
        .unwrap();
    let serving =
        server.serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let options = ClientOptions { lineage: Some(Lineage::Modern), cache: false, ..Default::default() };
    let c = Client::connect_http(&serving.url(), Default::default(), options).await.unwrap();
    for _ in 0..3 {
        names(&c).await;
    }
    assert_eq!(seen.load(Ordering::SeqCst), 3, "ttlMs 0: every list reaches the server");
    assert!(cache.is_empty());
    c.close().await;
    serving.shutdown().await.unwrap();
}
