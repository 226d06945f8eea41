//! Our client against our server for resources, prompts, completion, client input, change
//! notifications and the result cache: `mcpcore conformance-server` as a real child process,
//! over stdio and over HTTP on 127.0.0.1, in both lineages.

use mcpcore::client::{
    BoxFuture, Client, ClientOptions, InputHandler, InputKinds, NotificationKinds, ServerEvent,
};
use mcpcore::http::client::HttpOptions;
use mcpcore::protocol::completion::{CompleteArgument, CompletionReference, PromptReference};
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcpcore::protocol::resources::ResourceContents;
use mcpcore::protocol::roots::{ListRootsResult, Root};
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpcore::protocol::subscriptions::SubscriptionFilter;
use mcpcore::protocol::{Lineage, ProtocolVersion};
use mcpcore::transport::child::StdioCommand;
use mcpcore::ErrorKind;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncBufReadExt;

/// Answers every kind of input, like a user and a model would.
struct Host;

impl InputHandler for Host {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, sampling: true, roots: true, ..Default::default() }
    }
    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        Box::pin(async move {
            let mut r = ElicitResult::new(ElicitAction::Accept);
            let content = json!({"name": "Ann", "context": "tea", "ok": true, "city": params.message()});
            r.content = Some(serde_json::from_value(content).unwrap());
            Ok(r)
        })
    }
    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        Box::pin(async move {
            let asked = params.messages[0].content.blocks()[0].as_text().unwrap_or_default().to_owned();
            let r = json!({"role": "assistant", "content": {"type": "text", "text": format!("re: {asked}")},
                "model": "host-model"});
            Ok(serde_json::from_value(r).unwrap())
        })
    }
    fn list_roots(&self) -> BoxFuture<'_, mcpcore::Result<ListRootsResult>> {
        Box::pin(async { Ok(ListRootsResult { roots: vec![Root::new("file:///work", None)], meta: None }) })
    }
}

#[derive(Debug, Clone, Copy)]
enum Via {
    Stdio,
    Http,
}

/// A client of a fresh fixture server (the HTTP server child lives as long as the guard).
async fn connect(via: Via, lineage: Lineage, cache: bool) -> (Client, Option<tokio::process::Child>) {
    let options = ClientOptions {
        lineage: Some(lineage),
        input: Some(Arc::new(Host)),
        cache,
        request_timeout: Duration::from_secs(10),
        ..Default::default()
    };
    let bin = mcpcore_tests::bin("mcpcore");
    match via {
        Via::Stdio => {
            let cmd = StdioCommand::new(bin, ["conformance-server".to_owned(), "--stdio".to_owned()]);
            (Client::connect_stdio(cmd, options).await.expect("connect over stdio"), None)
        }
        Via::Http => {
            let mut child = tokio::process::Command::new(bin)
                .args(["conformance-server", "--listen", "127.0.0.1:0"])
                .stdout(std::process::Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .expect("spawn");
            let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
            let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let url = line.strip_prefix("listening on ").unwrap().to_owned();
            let client =
                Client::connect_http(&url, HttpOptions::default(), options).await.expect("connect over HTTP");
            (client, Some(child))
        }
    }
}

const CASES: [(Via, Lineage); 4] = [
    (Via::Stdio, Lineage::Legacy),
    (Via::Stdio, Lineage::Modern),
    (Via::Http, Lineage::Legacy),
    (Via::Http, Lineage::Modern),
];

fn text(c: &ResourceContents) -> &str {
    match c {
        ResourceContents::Text(t) => &t.text,
        ResourceContents::Blob(_) => panic!("expected text"),
    }
}

#[tokio::test]
async fn resources_prompts_and_completion() {
    for (via, lineage) in CASES {
        let what = format!("{via:?} {lineage:?}");
        let (client, _server) = connect(via, lineage, true).await;
        let uris: Vec<String> = client.list_resources().await.unwrap().into_iter().map(|r| r.uri).collect();
        assert_eq!(
            uris,
            [
                "skill://acme/billing/refunds/SKILL.md",
                "skill://pdf-processing/SKILL.md",
                "test://static-binary",
                "test://static-text",
                "test://watched-resource"
            ],
            "{what}"
        );
        let r = client.read_resource("test://template/7/data").await.unwrap();
        assert!(text(&r.contents[0]).contains("\"7\""), "{what}");
        let templates = client.list_resource_templates().await.unwrap();
        assert_eq!(templates[0].uri_template, "test://template/{id}/data", "{what}");
        let e = client.read_resource("test://missing").await.unwrap_err();
        assert_eq!(e.kind(), ErrorKind::ResourceNotFound, "{what}: {e}");
        let expected = if lineage == Lineage::Modern { -32602 } else { -32002 };
        assert_eq!(e.code().0, expected, "{what}");

        let args = BTreeMap::from([("arg1".to_owned(), "x".to_owned()), ("arg2".to_owned(), "y".to_owned())]);
        let p = client.get_prompt("test_prompt_with_arguments", Some(args)).await.unwrap();
        assert_eq!(
            serde_json::to_value(&p.messages[0].content).unwrap()["text"],
            "Prompt with arguments: arg1='x', arg2='y'"
        );
        let e = client.get_prompt("test_prompt_with_arguments", None).await.unwrap_err();
        assert_eq!(e.code().0, -32602, "{what}");
        let reference = CompletionReference::Prompt(PromptReference {
            name: "test_prompt_with_arguments".into(),
            title: None,
        });
        let c = client
            .complete(reference, CompleteArgument { name: "arg1".into(), value: "te".into() }, None)
            .await
            .unwrap();
        assert_eq!(c.completion.values, ["test", "testValue1"], "{what}");
        client.close().await;
    }
}

#[tokio::test]
async fn input_reaches_the_host_in_both_lineages() {
    for (via, lineage) in CASES {
        let what = format!("{via:?} {lineage:?}");
        let (client, _server) = connect(via, lineage, true).await;
        // Legacy: real requests answered by the handler; modern: MRTR rounds run by the client.
        let r = client.call_tool("test_input_required_result_elicitation", json!({})).await.unwrap();
        assert_eq!(r.first_text(), Some("Hello, Ann!"), "{what}");
        let r = client.call_tool("test_input_required_result_multiple_inputs", json!({})).await.unwrap();
        let t = r.first_text().unwrap();
        assert!(
            t.contains("client_roots: 1 root(s)") && t.contains("re: Write a short greeting."),
            "{what}: {t}"
        );
        let r = client.call_tool("test_input_required_result_multi_round", json!({})).await.unwrap();
        let t = r.first_text().unwrap();
        assert!(t.contains("Step 1: your name?") && t.contains("Step 2: your city?"), "{what}: {t}");
        let p = client.get_prompt("test_input_required_result_prompt", None).await.unwrap();
        assert_eq!(
            serde_json::to_value(&p.messages[0].content).unwrap()["text"],
            "Use this context: tea",
            "{what}"
        );
        client.close().await;
    }
}

#[tokio::test]
async fn changes_reach_listeners_and_subscribers() {
    for via in [Via::Stdio, Via::Http] {
        // Legacy: subscribe, then updates and list changes arrive as events.
        let (client, _server) = connect(via, Lineage::Legacy, true).await;
        let events = Arc::new(Mutex::new(Vec::new()));
        let sink = events.clone();
        client.on_notification(move |e| sink.lock().unwrap().push(e));
        client.subscribe_resource("test://watched-resource").await.unwrap();
        client
            .call_tool("test_trigger_resource_update", json!({"uri": "test://watched-resource"}))
            .await
            .unwrap();
        client.call_tool("test_trigger_prompt_change", json!({})).await.unwrap();
        let seen =
            mcpcore_tests::http::eventually(Duration::from_secs(5), || events.lock().unwrap().len() >= 2)
                .await;
        let got = events.lock().unwrap().clone();
        assert!(seen, "{via:?}: {got:?}");
        assert!(got
            .iter()
            .any(|e| matches!(e, ServerEvent::ResourceUpdated(p) if p.uri == "test://watched-resource")));
        assert!(got.contains(&ServerEvent::PromptsListChanged), "{got:?}");
        client.close().await;

        // Modern: a listen stream, acknowledged and filtered.
        let (client, _server) = connect(via, Lineage::Modern, true).await;
        let filter = SubscriptionFilter { tools_list_changed: Some(true), ..Default::default() };
        let mut sub = client.listen(filter).await.unwrap();
        assert_eq!(sub.acknowledged().tools_list_changed, Some(true));
        client.call_tool("test_trigger_prompt_change", json!({})).await.unwrap();
        client.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
        let next = tokio::time::timeout(Duration::from_secs(5), sub.next()).await.expect("an event in time");
        assert_eq!(next, Some(ServerEvent::ToolsListChanged), "{via:?}: prompts were not asked for");
        drop(sub);
        client.close().await;
    }
}

#[tokio::test]
async fn list_results_are_cached_for_their_ttl_unless_the_host_turns_caching_off() {
    for via in [Via::Stdio, Via::Http] {
        for cache in [true, false] {
            let (client, _server) = connect(via, Lineage::Modern, cache).await;
            let before = client.list_prompts().await.unwrap().len();
            // Adds a prompt; without a listen stream the client hears nothing of it.
            client.call_tool("test_trigger_prompt_change", json!({})).await.unwrap();
            let after = client.list_prompts().await.unwrap().len();
            if cache {
                assert_eq!(after, before, "{via:?}: within ttlMs the cached list is served");
                client.clear_cache();
                assert_eq!(client.list_prompts().await.unwrap().len(), before + 1, "{via:?}");
            } else {
                assert_eq!(after, before + 1, "{via:?}: caching off asks the server every time");
            }
            client.close().await;
        }
    }
    // Legacy results carry no ttlMs and are never cached.
    let (client, _server) = connect(Via::Stdio, Lineage::Legacy, true).await;
    let before = client.list_prompts().await.unwrap().len();
    client.call_tool("test_trigger_prompt_change", json!({})).await.unwrap();
    assert_eq!(client.list_prompts().await.unwrap().len(), before + 1);
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
}

/// The next event a handler got (bounded, so a lost notification fails instead of hanging).
async fn next_event(rx: &mut tokio::sync::mpsc::UnboundedReceiver<ServerEvent>, what: &str) -> ServerEvent {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .unwrap_or_else(|_| panic!("{what}: no notification"))
        .expect("the handler is alive")
}

#[tokio::test]
async fn modern_handlers_hear_through_the_clients_own_listen_stream() {
    for via in [Via::Stdio, Via::Http] {
        let what = format!("{via:?}");
        let (client, _server) = connect(via, Lineage::Modern, true).await;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        // Tools and resource updates, not prompts: the stream's filter says so.
        let kinds =
            NotificationKinds { tools_list_changed: true, resource_updated: true, ..Default::default() };
        client.on_notifications(kinds, move |e| {
            let _ = tx.send(e);
        });
        let acked = client.notifications_ready().await.unwrap().expect("a stream is needed");
        assert_eq!(acked.tools_list_changed, Some(true), "{what}");
        assert_eq!(acked.prompts_list_changed, None, "{what}");
        // The cache learns of changes from the stream too.
        let before = client.list_tools().await.unwrap().len();

        client.subscribe_resource("test://watched-resource").await.unwrap();
        client.call_tool("test_trigger_prompt_change", json!({})).await.unwrap();
        client
            .call_tool("test_trigger_resource_update", json!({"uri": "test://watched-resource"}))
            .await
            .unwrap();
        // One stream carries them in order: the prompt change was never sent.
        match next_event(&mut rx, &what).await {
            ServerEvent::ResourceUpdated(p) => assert_eq!(p.uri, "test://watched-resource", "{what}"),
            other => panic!("{what}: {other:?}"),
        }
        client.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
        assert_eq!(next_event(&mut rx, &what).await, ServerEvent::ToolsListChanged, "{what}");
        assert_eq!(
            client.list_tools().await.unwrap().len(),
            before + 1,
            "{what}: the cached list was dropped"
        );

        // Unsubscribed: the update is not asked for any more, the tool change still is.
        client.unsubscribe_resource("test://watched-resource").await.unwrap();
        client
            .call_tool("test_trigger_resource_update", json!({"uri": "test://watched-resource"}))
            .await
            .unwrap();
        client.call_tool("test_trigger_tool_change", json!({})).await.unwrap();
        assert_eq!(next_event(&mut rx, &what).await, ServerEvent::ToolsListChanged, "{what}");

        // Without a handler nor a subscription no stream is needed; closing ends everything.
        client.remove_notification_handler();
        assert_eq!(client.notifications_ready().await.unwrap(), None, "{what}");
        client.on_notification(|_| {});
        client.notifications_ready().await.unwrap().expect("open again");
        client.close().await;
        assert!(client.notifications_ready().await.is_err(), "{what}: closed with the client");
    }
}

#[tokio::test]
async fn the_listen_stream_is_opened_again_when_the_server_ends_it() {
    use mcpcore::{ResourceRegistry, Server, ServerConfig, ToolRegistry};
    // One server, then another on the same port after the first shut down (which ends its
    // listen streams); each tells the test when a client listens to `memo://a`.
    async fn serve(
        addr: std::net::SocketAddr,
    ) -> (
        mcpcore::http::server::HttpServing,
        Arc<ResourceRegistry>,
        tokio::sync::mpsc::UnboundedReceiver<String>,
    ) {
        let resources = Arc::new(ResourceRegistry::new());
        resources.add_text("memo://a", "a", "text/plain", "a").unwrap();
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        resources.on_subscribe(move |uri| {
            let _ = tx.send(uri.to_owned());
        });
        let server = Server::new(ServerConfig::new("restarting", "1.0"), Arc::new(ToolRegistry::new()))
            .with_resources(resources.clone())
            .with_shutdown_grace(Duration::from_millis(100));
        let serving = server.serve_http(addr, Default::default()).await.expect("serve");
        (serving, resources, rx)
    }
    let (first, resources, mut listening) = serve("127.0.0.1:0".parse().unwrap()).await;
    let addr = first.local_addr();
    let options = ClientOptions { lineage: Some(Lineage::Modern), ..Default::default() };
    let client =
        Client::connect_http(&format!("http://{addr}/mcp"), HttpOptions::default(), options).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    client.on_notification(move |e| {
        let _ = tx.send(e);
    });
    client.subscribe_resource("memo://a").await.unwrap();
    assert_eq!(listening.recv().await.as_deref(), Some("memo://a"));
    resources.notify_updated("memo://a");
    assert!(matches!(next_event(&mut rx, "first server").await, ServerEvent::ResourceUpdated(_)));

    first.shutdown().await.unwrap();
    let (second, resources, mut listening) = serve(addr).await;
    // The client listens again by itself, with the same filter.
    let again =
        tokio::time::timeout(Duration::from_secs(20), listening.recv()).await.expect("listened again");
    assert_eq!(again.as_deref(), Some("memo://a"));
    client.notifications_ready().await.unwrap().expect("acknowledged by the second server");
    resources.notify_updated("memo://a");
    assert!(matches!(next_event(&mut rx, "second server").await, ServerEvent::ResourceUpdated(_)));
    client.close().await;
    second.shutdown().await.unwrap();
}

/// `f`, failing the test if it takes more than 10 s (a hang).
async fn bounded<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), f).await.expect("no hang")
}

#[tokio::test]
async fn a_dead_server_fails_what_waits_for_the_listen_stream() {
    // Killed while a stream is open, and while none is.
    for open_first in [true, false] {
        let (client, _server) = connect(Via::Stdio, Lineage::Modern, true).await;
        if open_first {
            client.on_notification(|_| {});
            client.notifications_ready().await.unwrap().expect("listening");
        }
        let pid = client.server_pid().expect("a spawned server") as i32;
        // SAFETY: kill(2) on the child this test spawned.
        assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
        client.closed().await;
        let e = bounded(client.subscribe_resource("test://watched-resource")).await;
        assert!(e.is_err(), "{e:?}");
        client.on_notification(|_| {});
        assert!(bounded(client.notifications_ready()).await.is_err());
    }
}
