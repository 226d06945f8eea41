//! The Rust API on top of the engine: `#[tool]` functions (their generated schemas and
//! descriptors), then a server built with `Server::builder` from them, a prompt and an
//! elicitation form, served over real HTTP on 127.0.0.1 and called by mcpcore's client in both
//! lineages.

use mcpcore::client::{BoxFuture, InputHandler, InputKinds};
use mcpcore::prelude::*;
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitValue};
use mcpcore::protocol::Lineage;
use mcpcore::tasks::TaskPolicy;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// Returns the text unchanged.
#[tool]
async fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
}

/// The sum of two numbers.
#[derive(Serialize, schemars::JsonSchema)]
struct Sum {
    /// a + b.
    sum: f64,
}

/// Adds two numbers.
#[tool(idempotent)]
async fn add(a: f64, b: f64) -> Json<Sum> {
    Json(Sum { sum: a + b })
}

/// Temperature units.
#[derive(Deserialize, schemars::JsonSchema, Debug, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A place on Earth.
#[derive(Deserialize, schemars::JsonSchema, Debug)]
struct Place {
    /// City name.
    city: String,
    /// ISO 3166 country code.
    #[allow(dead_code)] // in the schema; the forecast does not need it
    country: Option<String>,
}

#[derive(Serialize, schemars::JsonSchema)]
struct Report {
    /// Where the forecast is for.
    city: String,
    /// Degrees, in the unit asked for.
    degrees: Vec<f64>,
}

/// Forecasts the temperature.
///
/// One value per day.
#[tool(name = "weather.forecast", title = "Forecast", read_only, open_world = false)]
async fn forecast(
    /// Where.
    place: Place,
    /// Which unit.
    unit: Unit,
    /// Days ahead (default 1, at most 7).
    #[serde(default = "one")]
    days: u8,
    verbose: Option<bool>,
) -> Result<Json<Report>, String> {
    if days > 7 {
        return Err(format!("cannot forecast {days} days ahead"));
    }
    let base = match unit {
        Unit::Celsius => 20.0,
        Unit::Fahrenheit => 68.0,
    };
    let _ = verbose;
    Ok(Json(Report { city: place.city, degrees: (0..days).map(|d| base + f64::from(d)).collect() }))
}

fn one() -> u8 {
    1
}

/// Answers pong.
#[tool(description = "Checks the server is alive.")]
async fn ping() -> &'static str {
    "pong"
}

/// Asks the caller's name, then greets.
#[tool]
async fn greet(
    ctx: RequestContext,
    /** Greeting word. */
    word: Option<String>,
) -> Result<String> {
    let form = ElicitForm::new("Your name?").string("name", "Name", true).boolean("formal", "Formal?", false);
    let answer = ctx.elicit_form("name", form).await?;
    if !answer.accepted() {
        return Ok("Maybe later.".into());
    }
    let word = word.unwrap_or_else(|| "Hello".into());
    let name = answer.text("name").unwrap_or("stranger");
    Ok(if answer.boolean("formal") == Some(true) {
        format!("{word}, dear {name}.")
    } else {
        format!("{word}, {name}!")
    })
}

/// Builds a long report.
#[tool(task = "optional", destructive = false)]
async fn report(r#type: String) -> String {
    format!("a {type} report", type = r#type)
}

#[tool]
async fn undocumented(count: i64, mut label: String) -> String {
    label.push_str(&count.to_string());
    label
}

#[test]
fn the_macro_writes_the_descriptor_and_schema_from_the_signature() {
    let bare = undocumented();
    assert_eq!(bare.tool().description, None, "no doc comment, no description");
    assert_eq!(
        bare.tool().input_schema,
        json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX},
                "label": {"type": "string"}
            },
            "required": ["count", "label"]
        })
    );

    let echo = echo();
    let tool = echo.tool();
    assert_eq!(tool.name, "echo");
    assert_eq!(tool.description.as_deref(), Some("Returns the text unchanged."));
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {"text": {"description": "The text to return.", "type": "string"}},
            "required": ["text"]
        })
    );
    assert_eq!(tool.output_schema, None);
    assert_eq!(tool.annotations, None);

    let add = add();
    assert_eq!(
        add.tool().input_schema["properties"],
        json!({"a": {"type": "number"}, "b": {"type": "number"}})
    );
    assert_eq!(add.tool().input_schema["required"], json!(["a", "b"]));
    assert_eq!(
        add.tool().output_schema,
        Some(json!({
            "type": "object",
            "properties": {"sum": {"description": "a + b.", "type": "number"}},
            "required": ["sum"]
        }))
    );
    assert_eq!(add.tool().annotations.as_ref().unwrap().idempotent_hint, Some(true));

    let forecast = forecast();
    let tool = forecast.tool();
    assert_eq!(tool.name, "weather.forecast");
    assert_eq!(tool.title.as_deref(), Some("Forecast"));
    assert_eq!(tool.description.as_deref(), Some("Forecasts the temperature.\n\nOne value per day."));
    assert_eq!(
        serde_json::to_value(tool.annotations.as_ref().unwrap()).unwrap(),
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        tool.input_schema,
        json!({
            "type": "object",
            "properties": {
                "place": {
                    "description": "Where.",
                    "type": "object",
                    "properties": {
                        "city": {"description": "City name.", "type": "string"},
                        "country": {"description": "ISO 3166 country code.", "type": ["string", "null"]}
                    },
                    "required": ["city"]
                },
                "unit": {"description": "Which unit.", "type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {
                    "description": "Days ahead (default 1, at most 7).",
                    "type": "integer", "minimum": 0, "maximum": 255, "default": 1
                },
                "verbose": {"type": ["boolean", "null"]}
            },
            "required": ["place", "unit"]
        })
    );
    assert_eq!(
        tool.output_schema.as_ref().unwrap()["properties"]["degrees"],
        json!({"description": "Degrees, in the unit asked for.", "type": "array", "items": {"type": "number"}})
    );

    let ping = ping();
    assert_eq!(ping.tool().description.as_deref(), Some("Checks the server is alive."));
    assert_eq!(
        ping.tool().input_schema,
        json!({
            "type": "object",
            "additionalProperties": false
        })
    );

    let greet = greet();
    assert_eq!(
        greet.tool().input_schema["properties"],
        json!({"word": {"description": "Greeting word.", "type": ["string", "null"]}}),
        "the context is no argument"
    );
    let report = report();
    assert_eq!(report.tool().input_schema["required"], json!(["type"]));
    assert_eq!(report.tool().annotations.as_ref().unwrap().destructive_hint, Some(false));
}

#[tokio::test]
async fn macro_tools_register_and_run_in_process() {
    let tools = ToolRegistry::new();
    tools.add(echo).unwrap();
    tools.add(add).unwrap();
    tools.add(forecast).unwrap();
    tools.add(report).unwrap();
    tools.add(undocumented).unwrap();
    assert!(tools.add(echo).is_err(), "the name is taken");
    assert_eq!(tools.get("report").unwrap().task_policy(), TaskPolicy::optional());
    let local = RequestContext::local;
    let r = tools.call("echo", json!({"text": "hi"}), local()).await.unwrap();
    assert_eq!(r.first_text(), Some("hi"));
    let r = tools.call("add", json!({"a": 2, "b": 0.5}), local()).await.unwrap();
    assert_eq!(r.structured_content, Some(json!({"sum": 2.5})));
    let args = json!({"place": {"city": "Oslo"}, "unit": "celsius", "days": 2});
    let r = tools.call("weather.forecast", args, local()).await.unwrap();
    assert_eq!(r.structured_content, Some(json!({"city": "Oslo", "degrees": [20.0, 21.0]})));
    let args = json!({"place": {"city": "Oslo"}, "unit": "celsius", "days": 9});
    let r = tools.call("weather.forecast", args, local()).await.unwrap();
    assert!(r.is_error());
    assert_eq!(r.first_text(), Some("cannot forecast 9 days ahead"));
    let r = tools.call("report", json!({"type": "yearly"}), local()).await.unwrap();
    assert_eq!(r.first_text(), Some("a yearly report"));
    let r = tools.call("undocumented", json!({"count": 7, "label": "n="}), local()).await.unwrap();
    assert_eq!(r.first_text(), Some("n=7"));
}

/// Answers every form with name "Ada", formal.
struct Ada;

impl InputHandler for Ada {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, ..InputKinds::default() }
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult>> {
        Box::pin(async move {
            let ElicitRequestParams::Form(form) = params else { panic!("a form") };
            assert_eq!(form.message, "Your name?");
            let schema = serde_json::to_value(&form.requested_schema).unwrap();
            assert_eq!(
                schema,
                json!({"type": "object", "properties": {
                    "name": {"type": "string", "title": "Name"},
                    "formal": {"type": "boolean", "title": "Formal?"}
                }, "required": ["name"]})
            );
            let mut answer = ElicitResult::new(ElicitAction::Accept);
            answer.content = Some(
                [
                    ("name".to_owned(), ElicitValue::String("Ada".into())),
                    ("formal".to_owned(), ElicitValue::Boolean(true)),
                ]
                .into(),
            );
            Ok(answer)
        })
    }
}

fn server() -> Server {
    Server::builder("typed-demo", "1.0.0")
        .instructions("Try echo.")
        .tool(echo)
        .tool(add)
        .tool(forecast)
        .tool(ping)
        .tool(greet)
        .prompt(
            Prompt::new("summarize").description("Summarizes a topic.").argument(
                "topic",
                "What to summarize",
                true,
            ),
            |args: PromptArguments, _ctx: RequestContext| async move {
                Ok(GetPromptResult::user_text(format!("Summarize {}.", args["topic"]))
                    .assistant("Here is a summary.")
                    .with_description("A summary"))
            },
        )
        .text_resource("memo://today", "today", "text/plain", "Buy milk")
        .build()
        .unwrap()
}

async fn round_trip(lineage: Lineage) {
    let serving =
        server().serve_http("127.0.0.1:0".parse().unwrap(), HttpServerConfig::default()).await.unwrap();
    let options =
        ClientOptions { input: Some(Arc::new(Ada)), lineage: Some(lineage), ..ClientOptions::default() };
    let client = Client::connect_http(&serving.url(), HttpOptions::default(), options).await.unwrap();
    assert_eq!(client.lineage(), lineage);

    let listed = client.list_tools().await.unwrap();
    let names: Vec<&str> = listed.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "echo", "greet", "ping", "weather.forecast"]);
    let wire_forecast = listed.iter().find(|t| t.name == "weather.forecast").unwrap();
    assert_eq!(wire_forecast.input_schema, forecast().tool().input_schema);
    assert_eq!(wire_forecast.output_schema, forecast().tool().output_schema);

    let r = client.call_tool("echo", json!({"text": "round trip"})).await.unwrap();
    assert_eq!(r.first_text(), Some("round trip"));
    let r = client.call_tool("add", json!({"a": 40, "b": 2})).await.unwrap();
    assert_eq!(r.structured_content, Some(json!({"sum": 42.0})));
    assert_eq!(r.first_text(), Some(r#"{"sum":42.0}"#));

    // Arguments the schema refuses, before the handler runs: from 2025-11-25 on (SEP-1303) an
    // isError result naming the field, which the model can read and correct.
    let r = client.call_tool("weather.forecast", json!({"place": {"city": "Oslo"}, "unit": "kelvin"})).await;
    let r = r.unwrap();
    assert!(r.is_error());
    let text = r.first_text().unwrap();
    assert!(text.starts_with("Invalid arguments for tool weather.forecast: /unit: "), "{text}");
    let r = client.call_tool("ping", json!({"extra": 1})).await.unwrap();
    assert!(r.is_error(), "a tool without parameters takes none: {:?}", r.first_text());
    let r = client.call_tool("ping", json!({})).await.unwrap();
    assert_eq!(r.first_text(), Some("pong"));
    // A handler's own error: an isError result the model can read.
    let args = json!({"place": {"city": "Oslo"}, "unit": "fahrenheit", "days": 8});
    let r = client.call_tool("weather.forecast", args).await.unwrap();
    assert!(r.is_error());
    assert_eq!(r.first_text(), Some("cannot forecast 8 days ahead"));

    // Elicitation with a built form: a server→client request on legacy, MRTR on 2026-07-28.
    let r = client.call_tool("greet", json!({"word": "Welcome"})).await.unwrap();
    assert_eq!(r.first_text(), Some("Welcome, dear Ada."), "{r:?}");

    let prompts = client.list_prompts().await.unwrap();
    assert_eq!(
        serde_json::to_value(&prompts).unwrap(),
        json!([{"name": "summarize", "description": "Summarizes a topic.",
                "arguments": [{"name": "topic", "description": "What to summarize", "required": true}]}])
    );
    let got =
        client.get_prompt("summarize", Some([("topic".to_owned(), "MCP".to_owned())].into())).await.unwrap();
    assert_eq!(got.description.as_deref(), Some("A summary"));
    let texts: Vec<Value> = got.messages.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
    assert_eq!(
        texts,
        [
            json!({"role": "user", "content": {"type": "text", "text": "Summarize MCP."}}),
            json!({"role": "assistant", "content": {"type": "text", "text": "Here is a summary."}})
        ]
    );
    let e = client.get_prompt("summarize", None).await.unwrap_err();
    assert_eq!(e.code(), ErrorCode::INVALID_PARAMS);
    let memo = client.read_resource("memo://today").await.unwrap();
    assert!(serde_json::to_string(&memo).unwrap().contains("Buy milk"));
    serving.shutdown().await.unwrap();
}

#[tokio::test]
async fn typed_tools_round_trip_over_http_on_2026_07_28() {
    round_trip(Lineage::Modern).await;
}

#[tokio::test]
async fn typed_tools_round_trip_over_http_on_a_legacy_session() {
    round_trip(Lineage::Legacy).await;
}

#[test]
fn the_builder_reports_the_first_registration_error() {
    let e = Server::builder("x", "1").tool(echo).tool(echo).build().unwrap_err();
    assert!(e.message().contains("already registered"), "{e}");
    let e = Server::builder("x", "1")
        .prompt(Prompt::new(""), |_: PromptArguments, _: RequestContext| async {
            Ok(GetPromptResult::default())
        })
        .build()
        .unwrap_err();
    assert!(e.message().contains("needs a name"), "{e}");
}
