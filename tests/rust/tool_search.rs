//! Tool search for large catalogues (issue 35): `echo_server --tool-search --synthetic-tools
//! 1000` (a real child on stdio) lists only its pinned tools and `search_tools` on both lineages;
//! a search ranks the whole catalogue and answers the matches with their schemas; every tool,
//! listed or not, is callable by name.

use mcpcore::client::{Client, ClientOptions};
use mcpcore::protocol::ProtocolVersion;
use mcpcore::transport::child::StdioCommand;
use serde_json::{json, Value};

fn big_echo() -> StdioCommand {
    let args = ["--tool-search", "--synthetic-tools", "1000"].map(str::to_owned);
    StdioCommand::new(mcpcore_tests::bin("echo_server"), args.to_vec())
}

#[tokio::test]
async fn a_thousand_tools_are_searched_not_listed_and_all_callable() {
    for version in [ProtocolVersion::V2026_07_28, ProtocolVersion::V2025_11_25] {
        let options = ClientOptions { version: Some(version), ..Default::default() };
        let client = Client::connect_stdio(big_echo(), options).await.unwrap();
        let listed: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(listed, ["add", "echo", "search_tools"], "{version}");
        let r = client
            .call_tool("search_tools", json!({"query": "approve an expense", "limit": 3}))
            .await
            .unwrap();
        let found = r.structured_content.as_ref().unwrap()["tools"].as_array().unwrap().clone();
        assert_eq!(found.len(), 3);
        let top = found[0]["name"].as_str().unwrap();
        assert!(top.starts_with("approve_expense_"), "{version}: {found:?}");
        assert_eq!(found[0]["inputSchema"]["properties"]["id"]["type"], "string");
        let text = r.first_text().unwrap();
        assert!(text.lines().next().unwrap().starts_with(top), "{text}");
        // A tool that was never listed is callable by the name the search gave.
        let called = client.call_tool(top, json!({"id": "e-1"})).await.unwrap();
        assert_eq!(called.first_text(), Some(format!("{top} done").as_str()));
        // The regex mode.
        let r = client
            .call_tool("search_tools", json!({"query": "^merge_.*_in_bulk$", "regex": true, "limit": 50}))
            .await
            .unwrap();
        let names: Vec<&str> = r.structured_content.as_ref().unwrap()["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names.len(), 25, "one per kind of record: {names:?}");
        assert!(names.iter().all(|n| n.starts_with("merge_") && n.ends_with("_in_bulk")));
        let bad: Value = serde_json::to_value(
            client.call_tool("search_tools", json!({"query": "(", "regex": true})).await.unwrap(),
        )
        .unwrap();
        assert_eq!(bad["isError"], true);
        client.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_searches_the_tools_of_every_upstream() {
    use mcpcore::gateway::{Gateway, GatewayConfig};
    let echo = mcpcore_tests::bin("echo_server");
    let config = json!({
        "mcpServers": {
            "big": {"command": echo, "args": ["--synthetic-tools", "1000"]},
            "small": {"command": echo}
        },
        "toolSearch": {"pinned": ["small__echo"]}
    });
    let gateway = Gateway::start(&GatewayConfig::from_value(config).unwrap()).await.unwrap();
    assert!(gateway.tools().len() > 1000);
    let serving = mcpcore_tests::http::serve_gateway(&gateway).await;
    let client =
        Client::connect_http(&serving.url(), Default::default(), ClientOptions::default()).await.unwrap();
    let listed: Vec<String> = client.list_tools().await.unwrap().into_iter().map(|t| t.name).collect();
    assert_eq!(listed, ["search_tools", "small__echo"]);
    let r = client.call_tool("search_tools", json!({"query": "schedule a meeting"})).await.unwrap();
    let top = r.structured_content.unwrap()["tools"][0]["name"].as_str().unwrap().to_owned();
    assert!(top.starts_with("big__schedule_meeting_"), "{top}");
    let called = client.call_tool(&top, json!({})).await.unwrap();
    assert_eq!(called.first_text(), Some(format!("{} done", top.trim_start_matches("big__")).as_str()));
    client.close().await;
    serving.shutdown().await.unwrap();
    gateway.shutdown().await;
}

#[test]
fn the_gateway_config_takes_tool_search() {
    use mcpcore::gateway::GatewayConfig;
    let servers = json!({"a": {"command": "x"}});
    let with = |v: Value| GatewayConfig::from_value(json!({"mcpServers": servers, "toolSearch": v}));
    assert_eq!(with(json!(true)).unwrap().tool_search, Some(vec![]));
    assert_eq!(with(json!({"pinned": ["a__echo"]})).unwrap().tool_search, Some(vec!["a__echo".to_owned()]));
    assert_eq!(with(json!(false)).unwrap().tool_search, None);
    assert!(with(json!("yes")).unwrap_err().message().contains("toolSearch"));
}
