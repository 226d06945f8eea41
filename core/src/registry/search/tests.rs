use super::*;
use crate::registry::{Arguments, ToolContext};

fn add(r: &ToolRegistry, name: &str, description: &str, args: &[&str]) {
    let props: serde_json::Map<String, Value> =
        args.iter().map(|a| (a.to_string(), json!({"type": "string"}))).collect();
    let tool = Tool::new(name, description, json!({"type": "object", "properties": props}));
    r.register(tool, |_: Arguments, _: ToolContext| async { Ok(CallToolResult::text("ok")) }).unwrap();
}

fn catalogue() -> Arc<ToolRegistry> {
    let r = Arc::new(ToolRegistry::new());
    add(&r, "echo", "Returns the text unchanged.", &["text"]);
    add(&r, "create_invoice", "Creates an invoice for a customer.", &["customer_id", "amount"]);
    add(&r, "list_invoices", "Lists the invoices of a customer, newest first.", &["customer_id"]);
    add(&r, "send_email", "Sends an email to an address.", &["to", "subject", "body"]);
    add(&r, "getWeatherForecast", "The weather forecast for a city.", &["city"]);
    r
}

#[test]
fn bm25_ranks_by_what_tools_do() {
    let r = catalogue();
    let s = ToolSearch::install(&r, ["echo"]).unwrap();
    let names = |q: &str| {
        s.search(&r, q, 5, false, &|_| true).unwrap().into_iter().map(|t| t.name).collect::<Vec<_>>()
    };
    assert_eq!(names("invoice")[..2], ["create_invoice", "list_invoices"]);
    assert_eq!(names("create an invoice")[0], "create_invoice");
    assert_eq!(names("weather in Paris")[0], "getWeatherForecast", "camelCase names split");
    assert_eq!(names("email someone")[0], "send_email");
    assert!(names("zzz nothing").is_empty());
    assert!(!names("tool").contains(&SEARCH_TOOL.to_owned()), "the search tool is not a result");
    assert_eq!(s.search(&r, "invoice", 1, false, &|_| true).unwrap().len(), 1);
    let re = |q: &str| {
        s.search(&r, q, 5, true, &|_| true).map(|v| v.into_iter().map(|t| t.name).collect::<Vec<_>>())
    };
    assert_eq!(re("^send_").unwrap(), ["send_email"]);
    assert!(re("(unclosed").unwrap_err().message().contains("not a regular expression"));
    assert!(re(&"a".repeat(600)).is_err());
}

#[tokio::test]
async fn the_search_tool_answers_and_sees_changes() {
    let r = catalogue();
    let s = ToolSearch::install(&r, ["echo"]).unwrap();
    assert!(s.listed("echo") && s.listed(SEARCH_TOOL) && !s.listed("send_email"));
    let call = |q: Value| {
        let tool = r.get(SEARCH_TOOL).unwrap();
        let Value::Object(args) = q else { unreachable!() };
        async move { tool.invoke(args, ToolContext::local()).await.unwrap() }
    };
    let got = call(json!({"query": "list the invoices of a customer", "limit": 1})).await;
    let found = &got.structured_content.as_ref().unwrap()["tools"];
    assert_eq!(found.as_array().unwrap().len(), 1);
    assert_eq!(found[0]["name"], "list_invoices");
    assert!(
        found[0]["inputSchema"]["properties"]["customer_id"].is_object(),
        "schemas come with the matches"
    );
    assert!(got.first_text().unwrap().starts_with("list_invoices: "));
    // A tool added later is found at the next search.
    add(&r, "refund_payment", "Refunds a card payment.", &["payment_id"]);
    let got = call(json!({"query": "refund"})).await;
    assert_eq!(got.structured_content.unwrap()["tools"][0]["name"], "refund_payment");
    let bad = call(json!({"limit": 3})).await;
    assert!(bad.is_error());
}

/// Shows the caller no invoice tool (as a per-identity catalogue would).
struct NoInvoices;
impl crate::context::CatalogFilter for NoInvoices {
    fn allows(&self, _: Option<&crate::context::Identity>, entry: &Entry<'_>, _: Access) -> bool {
        !matches!(entry, Entry::Tool(n) if n.contains("invoice"))
    }
}

#[tokio::test]
async fn a_search_finds_only_what_the_callers_catalogue_shows() {
    let r = catalogue();
    let _s = ToolSearch::install(&r, ["echo"]).unwrap();
    let mut origin = crate::context::Origin::default();
    origin.extensions.insert(crate::context::CatalogView(Arc::new(NoInvoices)));
    let ctx = ToolContext::local().with_origin(Arc::new(origin));
    let tool = r.get(SEARCH_TOOL).unwrap();
    let ask = |q: Value, ctx: ToolContext| {
        let Value::Object(args) = q else { unreachable!() };
        let tool = tool.clone();
        async move { tool.invoke(args, ctx).await.unwrap() }
    };
    let names = |got: CallToolResult| {
        let tools = got.structured_content.unwrap()["tools"].as_array().unwrap().clone();
        tools.iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect::<Vec<_>>()
    };
    let hidden = names(ask(json!({"query": "invoice customer"}), ctx.clone()).await);
    assert!(hidden.iter().all(|n| !n.contains("invoice")), "{hidden:?}");
    let regex = names(ask(json!({"query": "invoice", "regex": true}), ctx).await);
    assert!(regex.is_empty(), "{regex:?}");
    let open = names(ask(json!({"query": "invoice customer"}), ToolContext::local()).await);
    assert_eq!(open[..2], ["create_invoice", "list_invoices"]);
}
