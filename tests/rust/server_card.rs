//! The Server Card (SEP-2127; issue 34): `GET <endpoint>/server-card` over real HTTP, its
//! headers (media type, CORS, cache, strong ETag and 304), the CORS preflight, and the client
//! fetching it before connecting (over TCP and over a Unix socket).

use mcpcore::engine::ServerConfig;
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::HttpServerConfig;
use mcpcore::protocol::Implementation;
use mcpcore::server::Server;
use mcpcore_tests::http::fixture_registry;
use serde_json::{json, Value};
use std::sync::Arc;

fn server() -> Server {
    let mut config = ServerConfig::new("fixture", "1.2.3");
    config.info = Implementation {
        title: Some("The Fixture".into()),
        description: Some("Tools for tests: echo, add, slow.".into()),
        website_url: Some("https://example.com/fixture".into()),
        ..Implementation::new("fixture", "1.2.3")
    };
    Server::new(config, Arc::new(fixture_registry()))
}

#[tokio::test]
async fn the_card_is_served_with_cors_cache_and_a_strong_etag() {
    let serving =
        server().serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let addr = serving.local_addr();
    let http = mcpcore_tests::http::client_builder().build().unwrap();
    let url = format!("{}/server-card", serving.url());
    let r = http.get(&url).header("accept", "application/mcp-server-card+json").send().await.unwrap();
    assert_eq!(r.status(), 200);
    let h = r.headers().clone();
    assert_eq!(h["content-type"], "application/mcp-server-card+json");
    assert_eq!(h["access-control-allow-origin"], "*");
    assert_eq!(h["access-control-expose-headers"], "ETag");
    assert_eq!(h["cache-control"], "public, max-age=3600");
    let etag = h["etag"].to_str().unwrap().to_owned();
    assert!(etag.starts_with('"') && !etag.starts_with("W/"), "a strong ETag: {etag}");
    let card: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
    assert_eq!(card["$schema"], "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json");
    assert_eq!(card["name"], "127.0.0.1/fixture");
    assert_eq!((card["version"].as_str(), card["title"].as_str()), (Some("1.2.3"), Some("The Fixture")));
    assert_eq!(card["description"], "Tools for tests: echo, add, slow.");
    assert_eq!(card["websiteUrl"], "https://example.com/fixture");
    assert_eq!(card["remotes"][0]["type"], "streamable-http");
    assert_eq!(card["remotes"][0]["url"], format!("http://{addr}/mcp"));
    let versions = card["remotes"][0]["supportedProtocolVersions"].as_array().unwrap();
    assert!(versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")), "{card}");
    assert!(!versions.contains(&json!("2024-11-05")), "2024-11-05 is the sse remote's: {card}");
    assert_eq!(
        card["remotes"][1],
        json!({"type": "sse", "url": format!("http://{addr}/sse"),
        "supportedProtocolVersions": ["2024-11-05"]})
    );
    // Conditional: the same ETag gets 304 with no body; another gets the card.
    let r = http.get(&url).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(r.status(), 304);
    assert_eq!(r.headers()["etag"].to_str().unwrap(), etag);
    assert!(r.bytes().await.unwrap().is_empty());
    let r = http.get(&url).header("if-none-match", "\"other\"").send().await.unwrap();
    assert_eq!(r.status(), 200);
    // A browser's preflight.
    let r = http
        .request(reqwest::Method::OPTIONS, &url)
        .header("origin", "https://app.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(r.headers()["access-control-allow-methods"], "GET");
    // The client fetches it before connecting.
    let fetched = mcpcore::client::server_card(&serving.url(), &HttpOptions::default()).await.unwrap();
    assert_eq!(fetched, card);
    serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_over_a_unix_socket_and_a_missing_one_is_a_404() {
    let dir = std::env::temp_dir().join(format!("mcpcore-card-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let socket = dir.join("card.sock");
    let _ = std::fs::remove_file(&socket);
    let serving = server().serve_http_unix(&socket, 0o600, HttpServerConfig::default()).await.unwrap();
    let card = mcpcore::client::server_card(&format!("unix:{}", socket.display()), &HttpOptions::default())
        .await
        .unwrap();
    assert_eq!(card["name"], "localhost/fixture");
    assert_eq!(card["remotes"][0]["url"], "http://localhost/mcp");
    serving.shutdown().await.unwrap();
    // An endpoint with no card (a plain listener answering 404).
    let none = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = none.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = none.accept().await {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf).await;
            let _ = s
                .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                .await;
        }
    });
    let e = mcpcore::client::server_card(&format!("http://{addr}/mcp"), &HttpOptions::default())
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(404), "{e}");
}

#[tokio::test]
async fn the_ai_catalog_at_the_well_known_paths_names_the_card() {
    let serving =
        server().serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let addr = serving.local_addr();
    let http = mcpcore_tests::http::client_builder().build().unwrap();
    for path in ["/.well-known/ai-catalog.json", "/.well-known/mcp/catalog.json"] {
        let r = http.get(format!("http://{addr}{path}")).send().await.unwrap();
        assert_eq!(r.status(), 200, "{path}");
        let h = r.headers().clone();
        assert_eq!(h["content-type"], "application/ai-catalog+json");
        assert_eq!(h["access-control-allow-origin"], "*");
        let etag = h["etag"].to_str().unwrap().to_owned();
        let catalog: Value = serde_json::from_slice(&r.bytes().await.unwrap()).unwrap();
        assert_eq!(
            catalog,
            json!({"specVersion": "1.0", "entries": [{
                "identifier": "urn:air:127.0.0.1:mcp:fixture",
                "type": "application/mcp-server-card+json",
                "url": format!("http://{addr}/mcp/server-card"),
            }]})
        );
        // The entry's URL is the card's, and a client following it gets the card.
        let card = http.get(catalog["entries"][0]["url"].as_str().unwrap()).send().await.unwrap();
        assert_eq!(card.status(), 200);
        let again =
            http.get(format!("http://{addr}{path}")).header("if-none-match", &etag).send().await.unwrap();
        assert_eq!(again.status(), 304);
    }
    serving.shutdown().await.unwrap();
}
