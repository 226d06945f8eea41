//! Fixture resources, templates and prompts (tests/conformance/NOTES.md §6.2–§6.3), the
//! completions the suite asks for, and the tools that trigger list changes.

use mcpcore::changes::Change;
use mcpcore::completion::complete_from;
use mcpcore::prompts::{PromptArguments, PromptRegistry};
use mcpcore::protocol::prompts::{GetPromptResult, Prompt};
use mcpcore::protocol::resources::{Resource, ResourceContents, ResourceTemplate};
use mcpcore::protocol::{CallToolResult, Tool};
use mcpcore::registry::{Arguments, ToolContext, ToolRegistry};
use mcpcore::resources::{ReadRequest, ResourceRegistry};
use mcpcore::Result;
use serde_json::{json, Value};
use std::sync::{Arc, Weak};

/// A 1×1 red PNG.
pub(crate) const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn parse<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("fixture data is valid")
}

fn contents(v: Value) -> Result<Vec<ResourceContents>> {
    Ok(vec![parse(v)])
}

/// The fixture's resources.
pub(crate) fn resources() -> Result<ResourceRegistry> {
    let r = ResourceRegistry::new();
    r.add_text(
        "test://static-text",
        "static-text",
        "text/plain",
        "This is the content of the static text resource.",
    )?;
    let binary: Resource = parse(json!({"uri": "test://static-binary", "name": "static-binary",
        "description": "A 1x1 PNG image", "mimeType": "image/png"}));
    r.add(binary, |req: ReadRequest, _: ToolContext| async move {
        contents(json!({"uri": req.uri, "mimeType": "image/png", "blob": PNG}))
    })?;
    let watched: Resource = parse(json!({"uri": "test://watched-resource", "name": "watched-resource",
        "description": "A resource clients can subscribe to", "mimeType": "text/plain"}));
    r.add(watched, |req: ReadRequest, _: ToolContext| async move {
        contents(json!({"uri": req.uri, "mimeType": "text/plain", "text": "Watched resource content."}))
    })?;
    let template: ResourceTemplate = parse(json!({"uriTemplate": "test://template/{id}/data",
        "name": "template-data", "description": "Data for an id", "mimeType": "application/json"}));
    r.add_template(template, |req: ReadRequest, _: ToolContext| async move {
        let id = req.variables.get("id").cloned().unwrap_or_default();
        let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string();
        contents(json!({"uri": req.uri, "mimeType": "application/json", "text": text}))
    })?;
    r.complete_variable("test://template/{id}/data", "id", complete_from(["1", "2", "3", "123"]))?;
    Ok(r)
}

fn text_message(text: &str) -> Value {
    json!({"role": "user", "content": {"type": "text", "text": text}})
}

fn result(messages: Vec<Value>) -> Result<GetPromptResult> {
    Ok(parse(json!({ "messages": messages })))
}

/// The fixture's prompts.
pub(crate) fn prompts() -> Result<PromptRegistry> {
    let p = PromptRegistry::new();
    p.add(
        parse(json!({"name": "test_simple_prompt", "description": "A simple prompt without arguments"})),
        |_: PromptArguments, _: ToolContext| async {
            result(vec![text_message("This is a simple prompt for testing.")])
        },
    )?;
    p.add(
        parse(json!({"name": "test_prompt_with_arguments", "description": "A prompt with two required arguments",
            "arguments": [{"name": "arg1", "description": "First argument", "required": true},
                          {"name": "arg2", "description": "Second argument", "required": true}]})),
        |args: PromptArguments, _: ToolContext| async move {
            let text = format!("Prompt with arguments: arg1='{}', arg2='{}'", args["arg1"], args["arg2"]);
            result(vec![text_message(&text)])
        },
    )?;
    p.complete_argument(
        "test_prompt_with_arguments",
        "arg1",
        complete_from(["test", "testValue1", "paris"]),
    )?;
    p.add(
        parse(json!({"name": "test_prompt_with_embedded_resource", "description": "A prompt embedding a resource",
            "arguments": [{"name": "resourceUri", "description": "URI of the resource", "required": true}]})),
        |args: PromptArguments, _: ToolContext| async move {
            let resource = json!({"role": "user", "content": {"type": "resource", "resource": {
                "uri": args["resourceUri"], "mimeType": "text/plain",
                "text": "Embedded resource content for testing."}}});
            result(vec![resource, text_message("Please process the embedded resource above.")])
        },
    )?;
    p.add(
        parse(json!({"name": "test_prompt_with_image", "description": "A prompt with an image"})),
        |_: PromptArguments, _: ToolContext| async {
            let image = json!({"role": "user", "content": {"type": "image",
                "data": PNG, "mimeType": "image/png"}});
            result(vec![image, text_message("Please analyze the image above.")])
        },
    )?;
    p.add(
        parse(json!({"name": "test_input_required_result_prompt",
            "description": "Asks the user for context before rendering (MRTR on 2026-07-28)"})),
        |_: PromptArguments, ctx: ToolContext| async move {
            let form = parse(json!({"message": "What context should the prompt use?", "requestedSchema": {
                "type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}}));
            let r = ctx.elicit("user_context", form).await?;
            let context =
                r.content.as_ref().and_then(|c| c.get("context")).map(|v| json!(v)).unwrap_or(json!(""));
            result(vec![text_message(&format!("Use this context: {}", context.as_str().unwrap_or_default()))])
        },
    )?;
    Ok(p)
}

/// Tools that add or remove a tool or prompt, or announce a resource update, so changes reach
/// listening clients. With `fleet` (several instances sharing a store) the tool and prompt
/// triggers only announce the list change: a catalog is each instance's own, so adding a tool
/// on the one instance that ran the trigger would make `tools/list` differ between instances.
pub(crate) fn register_triggers(
    tools: &Arc<ToolRegistry>,
    prompts: &Arc<PromptRegistry>,
    resources: &Arc<ResourceRegistry>,
    fleet: bool,
) -> Result<()> {
    let weak: Weak<ToolRegistry> = Arc::downgrade(tools);
    tools.register(
        Tool::new(
            "test_trigger_tool_change",
            "Adds or removes a tool (tools/list_changed).",
            json!({"type": "object"}),
        ),
        move |_: Arguments, _: ToolContext| {
            let weak = weak.clone();
            async move {
                let Some(tools) = weak.upgrade() else { return Ok(CallToolResult::text("gone")) };
                if fleet {
                    tools.changes().send(Change::ToolsListChanged);
                } else if !tools.unregister("test_dynamic_tool") {
                    tools.register(
                        Tool::new("test_dynamic_tool", "Appears and disappears.", json!({"type": "object"})),
                        |_: Arguments, _: ToolContext| async { Ok(CallToolResult::text("dynamic")) },
                    )?;
                }
                Ok(CallToolResult::text("Tool list changed"))
            }
        },
    )?;
    let prompts = prompts.clone();
    tools.register(
        Tool::new(
            "test_trigger_prompt_change",
            "Adds or removes a prompt (prompts/list_changed).",
            json!({"type": "object"}),
        ),
        move |_: Arguments, _: ToolContext| {
            let prompts = prompts.clone();
            async move {
                if fleet {
                    prompts.changes().send(Change::PromptsListChanged);
                } else if !prompts.remove("test_dynamic_prompt") {
                    let prompt: Prompt = parse(
                        json!({"name": "test_dynamic_prompt", "description": "Appears and disappears."}),
                    );
                    prompts.add(prompt, |_: PromptArguments, _: ToolContext| async {
                        result(vec![text_message("dynamic")])
                    })?;
                }
                Ok(CallToolResult::text("Prompt list changed"))
            }
        },
    )?;
    let resources = resources.clone();
    tools.register(
        Tool::new(
            "test_trigger_resource_update",
            "Announces that the resource at `uri` changed (resources/updated).",
            json!({"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}),
        ),
        move |args: Arguments, _: ToolContext| {
            let resources = resources.clone();
            async move {
                let uri = args.get("uri").and_then(Value::as_str).unwrap_or_default();
                resources.notify_updated(uri);
                Ok(CallToolResult::text(format!("Updated {uri}")))
            }
        },
    )?;
    Ok(())
}
