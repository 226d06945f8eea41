//! Per-identity ownership beyond the catalogue, with real tokens from a real authorization
//! server (`oauth2-mock-server` through tests/interop/oauth/issuer.mjs): a task (Tasks
//! extension, 2026-07-28) belongs to the identity that created it, and `tasks/get`,
//! `tasks/update`, `tasks/cancel` and a listen filter naming it answer another identity exactly
//! as for an unknown task; subscribing to a resource the caller's catalogue hides (legacy
//! `resources/subscribe`, a 2026-07-28 listen filter) is refused exactly like an unknown one.
//!
//! The test command runs `npm ci` in tests/interop/oauth; a missing peer fails the test.

use mcpcore::auth::server::{AuthConfig, JwtConfig, JwtVerifier};
use mcpcore::client::{CallOptions, Client, ClientOptions, TaskOptions};
use mcpcore::context::ToolContext;
use mcpcore::http::client::HttpOptions;
use mcpcore::http::server::{HttpServerConfig, HttpServing};
use mcpcore::prelude::*;
use mcpcore::protocol::subscriptions::SubscriptionFilter;
use mcpcore::protocol::tasks_ext::EXTENSION_ID;
use mcpcore::tasks::TaskPolicy;
use mcpcore::{Lineage, ResourceRegistry};
use mcpcore_tests::issuer::Issuer;
use serde_json::{json, Value};
use std::sync::Arc;

/// A protected server: `forever` runs only as a task (until cancelled); `mem://secret` needs
/// the scope `r:secret`, `mem://open` none.
async fn serve(issuer: &Issuer) -> (HttpServing, String) {
    let tools = ToolRegistry::new();
    tools
        .register_with_tasks(
            Tool::new("forever", "Runs until cancelled.", json!({"type": "object"})),
            TaskPolicy::required(),
            |_: Arguments, _: ToolContext| async {
                std::future::pending::<mcpcore::Result<CallToolResult>>().await
            },
        )
        .unwrap();
    let resources = Arc::new(ResourceRegistry::new());
    resources.add_text("mem://open", "open", "text/plain", "o").unwrap();
    resources.add_text("mem://secret", "secret", "text/plain", "s").unwrap();
    let server = Server::new(ServerConfig::new("owners", "1.0"), Arc::new(tools)).with_resources(resources);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let verifier = JwtVerifier::new(JwtConfig::new(issuer.jwks(), issuer.url.clone(), url.clone()));
    let auth = AuthConfig::new(Arc::new(verifier), url.clone(), [issuer.url.clone()])
        .resource_scopes("mem://secret", ["r:secret"]);
    let config = HttpServerConfig { auth: Some(auth), ..Default::default() };
    let serving = server.serve_http(format!("127.0.0.1:{port}").parse().unwrap(), config).await.unwrap();
    (serving, url)
}

/// A client holding `token`, declaring the Tasks extension.
async fn client(url: &str, token: &str, lineage: Lineage) -> Client {
    let http = HttpOptions { bearer_token: Some(token.to_owned()), ..Default::default() };
    let mut options = ClientOptions { lineage: Some(lineage), cache: false, ..Default::default() };
    options.capabilities.extensions = Some([(EXTENSION_ID.to_owned(), json!({}))].into_iter().collect());
    Client::connect_http(url, http, options).await.expect("connects with a valid token")
}

/// The JSON-RPC error `c` gets for `method` on task `id`, with `id` written as `<id>`.
async fn task_error(c: &Client, method: &str, id: &str) -> Value {
    let mut params = json!({"taskId": id});
    if method == "tasks/update" {
        params["inputResponses"] = json!({"k": {"action": "decline"}});
    }
    let opts = CallOptions { tasks: true, ..Default::default() };
    let e = c.request_with(method, params, &opts).await.expect_err("refused");
    let data = e.rpc_error().unwrap_or_else(|| panic!("{method}: not a JSON-RPC error: {e}"));
    let text = serde_json::to_string(data).unwrap();
    serde_json::from_str(&text.replace(id, "<id>")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_identitys_task_is_an_unknown_task() {
    let issuer = Issuer::start();
    let (serving, url) = serve(&issuer).await;
    let alice = client(&url, &issuer.token(&url, "profile", json!({"sub": "alice"})), Lineage::Modern).await;
    let bob = client(&url, &issuer.token(&url, "profile", json!({"sub": "bob"})), Lineage::Modern).await;
    let task = alice.call_tool_as_task("forever", json!({}), TaskOptions::default()).await.unwrap();
    let id = task.id().expect("a task").to_owned();
    // An id of the same shape that names no task.
    let unknown: String = id.chars().rev().map(|c| if c == '0' { '1' } else { '0' }).collect();

    for method in ["tasks/get", "tasks/update", "tasks/cancel"] {
        let theirs = task_error(&bob, method, &id).await;
        assert_eq!(theirs, task_error(&bob, method, &unknown).await, "{method}: an oracle");
        assert_eq!(theirs["code"], -32602, "{method}: {theirs}");
    }
    // Bob's cancel did nothing; alice still sees her task.
    assert_eq!(task.status().await.unwrap().status, mcpcore::protocol::tasks_ext::TaskStatus::Working);

    // A listen filter naming it: left out of the acknowledgement, as an unknown id is.
    let ids = |id: &str| SubscriptionFilter { task_ids: Some(vec![id.to_owned()]), ..Default::default() };
    assert_eq!(bob.listen(ids(&id)).await.unwrap().acknowledged().task_ids, None);
    assert_eq!(bob.listen(ids(&unknown)).await.unwrap().acknowledged().task_ids, None);
    let mut mine = alice.listen(ids(&id)).await.unwrap();
    assert_eq!(mine.acknowledged().task_ids, Some(vec![id.clone()]));
    task.cancel().await.unwrap();
    let note = mine.next().await.expect("notifications/tasks");
    assert_eq!(note.method(), "notifications/tasks");
    drop(mine);
    for c in [alice, bob] {
        c.close().await;
    }
    serving.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribing_to_a_hidden_resource_is_refused_like_an_unknown_one() {
    let issuer = Issuer::start();
    let (serving, url) = serve(&issuer).await;
    let plain = issuer.token(&url, "profile", json!({"sub": "bob"}));
    let allowed = issuer.token(&url, "profile r:secret", json!({"sub": "alice"}));
    for lineage in [Lineage::Legacy, Lineage::Modern] {
        let bob = client(&url, &plain, lineage).await;
        let refusal = |e: mcpcore::Error, uri: &str| {
            let mut v = serde_json::to_value(e.rpc_error().expect("a JSON-RPC error")).unwrap();
            assert!(e.is_resource_not_found(), "{lineage:?}: {v}");
            let text = v.to_string().replace(uri, "<uri>");
            v = serde_json::from_str(&text).unwrap();
            v
        };
        let hidden = refusal(bob.subscribe_resource("mem://secret").await.unwrap_err(), "mem://secret");
        let unknown = refusal(bob.subscribe_resource("mem://nothing").await.unwrap_err(), "mem://nothing");
        assert_eq!(hidden, unknown, "{lineage:?}: an oracle");
        bob.subscribe_resource("mem://open").await.unwrap();
        let alice = client(&url, &allowed, lineage).await;
        alice.subscribe_resource("mem://secret").await.unwrap();
        for c in [alice, bob] {
            c.close().await;
        }
    }
    serving.shutdown().await.unwrap();
}
