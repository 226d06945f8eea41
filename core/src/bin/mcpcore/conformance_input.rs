//! Fixture tools that ask the client for input (tests/conformance/NOTES.md §6.1): each is
//! written once with [`ToolContext::input`] and its helpers, so it sends real requests on a
//! legacy session and answers with `InputRequiredResult` (MRTR) on 2026-07-28.

use mcpcore::context::missing_capability;
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequest, ElicitRequestParams, ElicitResult};
use mcpcore::protocol::mrtr::{InputRequest, InputRequests, InputResponse};
use mcpcore::protocol::roots::ListRootsRequest;
use mcpcore::protocol::sampling::{CreateMessageRequest, CreateMessageRequestParams, SamplingMessage};
use mcpcore::protocol::{CallToolResult, Role, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::Result;
use serde_json::{json, Value};

fn form(message: &str, schema: Value) -> ElicitRequestParams {
    serde_json::from_value(json!({"message": message, "requestedSchema": schema}))
        .expect("fixture form is valid")
}

fn ask(message: &str, text: &str) -> CreateMessageRequestParams {
    let mut p = CreateMessageRequestParams::new(vec![SamplingMessage::text(Role::User, text)], 100);
    p.system_prompt = Some(message.to_owned());
    p
}

fn no_args(name: &str, description: &str) -> Tool {
    Tool::new(name, description, json!({"type": "object", "properties": {}}))
}

fn describe(r: &ElicitResult) -> String {
    let action = serde_json::to_value(r.action).unwrap_or_default();
    let content = serde_json::to_value(&r.content).unwrap_or_default();
    format!("User response: {}, {content}", action.as_str().unwrap_or("?"))
}

fn field(r: &ElicitResult, key: &str) -> String {
    match (&r.action, r.content.as_ref().and_then(|c| c.get(key))) {
        (ElicitAction::Accept, Some(v)) => serde_json::to_value(v).map(|v| v.to_string()).unwrap_or_default(),
        _ => "(none)".to_owned(),
    }
}

fn answer_text(resp: &InputResponse) -> String {
    match resp {
        InputResponse::Elicit(r) => describe(r),
        InputResponse::CreateMessage(m) => {
            format!("model {}: {}", m.model, serde_json::to_string(&m.content).unwrap_or_default())
        }
        InputResponse::ListRoots(r) => format!("{} root(s)", r.roots.len()),
    }
}

/// Registers the input fixtures.
pub(crate) fn register(tools: &ToolRegistry) -> Result<()> {
    // Legacy lineage: real server→client requests.
    tools.register(
        Tool::new(
            "test_sampling",
            "Asks the client's model to answer a prompt (sampling).",
            json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
        ),
        |args: Arguments, ctx: ToolContext| async move {
            let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default().to_owned();
            let params =
                CreateMessageRequestParams::new(vec![SamplingMessage::text(Role::User, prompt)], 100);
            let reply = ctx.create_message("sampling", params).await?;
            let text = reply.content.blocks().iter().find_map(|b| b.as_text()).unwrap_or_default().to_owned();
            Ok(CallToolResult::text(format!("LLM response: {text}")))
        },
    )?;
    tools.register(
        Tool::new(
            "test_elicitation",
            "Asks the user for a username and an email (elicitation).",
            json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}),
        ),
        |args: Arguments, ctx: ToolContext| async move {
            let message =
                args.get("message").and_then(Value::as_str).unwrap_or("Please provide your information");
            let schema = json!({"type": "object", "properties": {
                "username": {"type": "string", "description": "Your username"},
                "email": {"type": "string", "description": "Your email address"}},
                "required": ["username", "email"]});
            let r = ctx.elicit("user_info", form(message, schema)).await?;
            Ok(CallToolResult::text(describe(&r)))
        },
    )?;
    tools.register(
        no_args(
            "test_elicitation_sep1034_defaults",
            "Elicits a form whose fields carry defaults (SEP-1034).",
        ),
        |_: Arguments, ctx: ToolContext| async move {
            let schema = json!({"type": "object", "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}},
                "required": []});
            let r = ctx.elicit("defaults", form("Please review your profile", schema)).await?;
            Ok(CallToolResult::text(describe(&r)))
        },
    )?;
    tools.register(
        no_args("test_elicitation_sep1330_enums", "Elicits every enum form of SEP-1330."),
        |_: Arguments, ctx: ToolContext| async move {
            let schema = json!({"type": "object", "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "minItems": 1, "maxItems": 3,
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}]}}},
                "required": []});
            let r = ctx.elicit("enums", form("Pick your options", schema)).await?;
            Ok(CallToolResult::text(describe(&r)))
        },
    )?;
    register_mrtr(tools)
}

fn name_form() -> ElicitRequestParams {
    form(
        "What is your name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    )
}

fn confirm_form() -> ElicitRequestParams {
    form(
        "Please confirm",
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
    )
}

/// 2026-07-28 MRTR fixtures (they work on legacy sessions too).
fn register_mrtr(tools: &ToolRegistry) -> Result<()> {
    tools.register(
        no_args("test_input_required_result_elicitation", "Asks for the user's name, then greets them."),
        |_: Arguments, ctx: ToolContext| async move {
            let r = ctx.elicit("user_name", name_form()).await?;
            Ok(CallToolResult::text(format!("Hello, {}!", field(&r, "name").trim_matches('"'))))
        },
    )?;
    tools.register(
        no_args("test_input_required_result_sampling", "Asks the client's model a question."),
        |_: Arguments, ctx: ToolContext| async move {
            let params = ask("Answer briefly.", "What is the capital of France?");
            let m = ctx.create_message("capital_question", params).await?;
            let text = m.content.blocks().iter().find_map(|b| b.as_text()).unwrap_or_default().to_owned();
            Ok(CallToolResult::text(format!("The model said: {text}")))
        },
    )?;
    tools.register(
        no_args("test_input_required_result_list_roots", "Lists the client's roots."),
        |_: Arguments, ctx: ToolContext| async move {
            let roots = ctx.list_roots("client_roots").await?;
            let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
            Ok(CallToolResult::text(format!("Client roots: {}", uris.join(", "))))
        },
    )?;
    tools.register(
        no_args("test_input_required_result_request_state", "Keeps state across rounds in requestState."),
        |_: Arguments, ctx: ToolContext| async move {
            let state = ctx.request_state();
            if state.is_none() {
                ctx.set_request_state(json!("state-ok"));
            }
            let r = ctx.elicit("confirm", confirm_form()).await?;
            let state = state.and_then(|s| s.as_str().map(str::to_owned)).unwrap_or_else(|| "fresh".into());
            Ok(CallToolResult::text(format!("Confirmed ({}); request state: {state}", field(&r, "ok"))))
        },
    )?;
    tools.register(
        no_args("test_input_required_result_multiple_inputs", "Asks for three inputs at once."),
        |_: Arguments, ctx: ToolContext| async move {
            let mut requests = InputRequests::new();
            requests.insert("user_name".into(), InputRequest::Elicit(ElicitRequest::new(name_form())));
            requests.insert(
                "greeting".into(),
                InputRequest::CreateMessage(CreateMessageRequest::new(ask(
                    "Be kind.",
                    "Write a short greeting.",
                ))),
            );
            requests.insert("client_roots".into(), InputRequest::ListRoots(ListRootsRequest::default()));
            let answers = ctx.input(requests).await?;
            let parts: Vec<String> =
                answers.iter().map(|(k, v)| format!("{k}: {}", answer_text(v))).collect();
            Ok(CallToolResult::text(parts.join("; ")))
        },
    )?;
    tools.register(
        no_args("test_input_required_result_multi_round", "Asks for input in two rounds."),
        |_: Arguments, ctx: ToolContext| async move {
            let first = ctx
                .elicit(
                    "step1",
                    form(
                        "Step 1: your name?",
                        json!({"type": "object",
                "properties": {"name": {"type": "string"}}}),
                    ),
                )
                .await?;
            let second = ctx
                .elicit(
                    "step2",
                    form(
                        "Step 2: your city?",
                        json!({"type": "object",
                "properties": {"city": {"type": "string"}}}),
                    ),
                )
                .await?;
            Ok(CallToolResult::text(format!("Step 1: {}; step 2: {}", describe(&first), describe(&second))))
        },
    )?;
    tools.register(
        no_args(
            "test_input_required_result_tampered_state",
            "Needs a confirmation; rejects altered requestState.",
        ),
        |_: Arguments, ctx: ToolContext| async move {
            ctx.set_request_state(json!({"account": "alice", "action": "delete"}));
            let r = ctx.elicit("confirm", confirm_form()).await?;
            Ok(CallToolResult::text(format!("Confirmed: {}", field(&r, "ok"))))
        },
    )?;
    tools.register(
        no_args("test_input_required_result_capabilities", "Asks only for what the client declared."),
        |_: Arguments, ctx: ToolContext| async move {
            let caps = ctx.client_capabilities().cloned().unwrap_or_default();
            let mut requests = InputRequests::new();
            if caps.elicitation.is_some() {
                requests.insert("user_name".into(), InputRequest::Elicit(ElicitRequest::new(name_form())));
            }
            if caps.sampling.is_some() {
                requests.insert(
                    "greeting".into(),
                    InputRequest::CreateMessage(CreateMessageRequest::new(ask("Be kind.", "Say hi."))),
                );
            }
            if caps.roots.is_some() {
                requests.insert("client_roots".into(), InputRequest::ListRoots(ListRootsRequest::default()));
            }
            if requests.is_empty() {
                return Ok(CallToolResult::text("The client declared no input capability."));
            }
            let answers = ctx.input(requests).await?;
            Ok(CallToolResult::text(format!("Got {} answer(s)", answers.len())))
        },
    )?;
    tools.register(
        no_args("test_missing_capability", "Needs the sampling capability (-32021 without it)."),
        |_: Arguments, ctx: ToolContext| async move {
            let caps = ctx.client_capabilities().cloned().unwrap_or_default();
            if caps.sampling.is_none() {
                return Err(missing_capability(json!({"sampling": {}})));
            }
            Ok(CallToolResult::text("Success"))
        },
    )?;
    tools.register(
        no_args("test_streaming_elicitation", "Reports progress, then asks the user (MRTR on 2026-07-28)."),
        |_: Arguments, ctx: ToolContext| async move {
            ctx.progress(1.0, Some(2.0), Some("asking the user"));
            let r = ctx.elicit("user_name", name_form()).await?;
            Ok(CallToolResult::text(format!("Hello, {}!", field(&r, "name").trim_matches('"'))))
        },
    )?;
    Ok(())
}
