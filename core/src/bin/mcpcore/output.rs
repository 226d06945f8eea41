//! What the client subcommands print: JSON (`--json`, the default when stdout is not a
//! terminal) or text for people (the default on a terminal).

use serde_json::Value;
use std::fmt::Write;

/// Prints `value` as pretty JSON.
pub(crate) fn json(value: &Value) {
    out(&format!("{}\n", serde_json::to_string_pretty(value).expect("serializable")));
}

/// Prints text for people.
pub(crate) fn human(text: &str) {
    out(text);
}

/// Writes `text` to stdout. A reader that went away (`mcpcore tools ... | head`) ends the
/// process quietly, as other command-line tools do, instead of a panic and its backtrace.
fn out(text: &str) {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            eprintln!("mcpcore: cannot write the output: {e}");
            std::process::exit(1);
        }
    }
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// The first line of a description.
fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// `server NAME VERSION · protocol V`.
pub(crate) fn header(server: &Value, version: &str) -> String {
    let name = str_of(server, "name");
    let v = str_of(server, "version");
    format!("{} {} · protocol {version}\n", if name.is_empty() { "server" } else { name }, v)
}

/// The type of a schema, as a person reads it (`number`, `string[]`, `"a" | "b"`).
fn type_name(schema: &Value) -> String {
    if let Some(options) = schema.get("enum").and_then(Value::as_array) {
        return options.iter().map(Value::to_string).collect::<Vec<_>>().join(" | ");
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            format!("{}[]", schema.get("items").map(type_name).unwrap_or_else(|| "any".into()))
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | "),
        _ if schema.get("anyOf").is_some() => "any of several".into(),
        _ => "any".into(),
    }
}

/// The tools, with their parameters.
pub(crate) fn tools(tools: &[Value]) -> String {
    let mut out = String::new();
    for t in tools {
        let _ = writeln!(out, "\n{}  {}", str_of(t, "name"), first_line(str_of(t, "description")));
        let schema = &t["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = schema["properties"].as_object() {
            for (name, p) in props {
                let need = if required.contains(&name.as_str()) { "" } else { "?" };
                let desc = first_line(str_of(p, "description"));
                let sep = if desc.is_empty() { "" } else { "  " };
                let _ = writeln!(out, "    {name}{need}: {}{sep}{desc}", type_name(p));
            }
        }
    }
    out
}

/// Content blocks (a tool result, prompt messages, resource contents) as text.
pub(crate) fn content(blocks: &[Value]) -> String {
    let mut out = String::new();
    for b in blocks {
        match str_of(b, "type") {
            "text" => {
                let _ = writeln!(out, "{}", str_of(b, "text"));
            }
            "image" | "audio" => {
                let bytes = str_of(b, "data").len() / 4 * 3;
                let _ =
                    writeln!(out, "[{} {}, about {bytes} bytes]", str_of(b, "type"), str_of(b, "mimeType"));
            }
            "resource_link" => {
                let _ = writeln!(out, "[link {} {}]", str_of(b, "uri"), str_of(b, "name"));
            }
            "resource" => out.push_str(&contents(std::slice::from_ref(&b["resource"]))),
            other => {
                let _ = writeln!(out, "[{other}]");
            }
        }
    }
    out
}

/// Resource contents as text (blobs summarized).
pub(crate) fn contents(items: &[Value]) -> String {
    let mut out = String::new();
    for c in items {
        match c.get("text").and_then(Value::as_str) {
            Some(t) => {
                let _ = writeln!(out, "{t}");
            }
            None => {
                let bytes = str_of(c, "blob").len() / 4 * 3;
                let _ =
                    writeln!(out, "[{} {}, about {bytes} bytes]", str_of(c, "uri"), str_of(c, "mimeType"));
            }
        }
    }
    out
}

/// A tool result: its content, and its structured content when there is no text.
pub(crate) fn call_result(result: &Value) -> String {
    let blocks = result["content"].as_array().cloned().unwrap_or_default();
    let mut out = content(&blocks);
    if let Some(s) = result.get("structuredContent") {
        if out.trim().is_empty() {
            out = format!("{}\n", serde_json::to_string_pretty(s).expect("serializable"));
        }
    }
    if result["isError"] == Value::Bool(true) {
        out = format!("error: {out}");
    }
    out
}

/// Resources and templates.
pub(crate) fn resources(resources: &[Value], templates: &[Value]) -> String {
    let mut out = String::new();
    for r in resources {
        let mime = str_of(r, "mimeType");
        let _ = writeln!(
            out,
            "{}  {}{}",
            str_of(r, "uri"),
            str_of(r, "name"),
            if mime.is_empty() { String::new() } else { format!(" ({mime})") }
        );
    }
    if !templates.is_empty() {
        let _ = writeln!(out, "templates:");
        for t in templates {
            let _ = writeln!(out, "  {}  {}", str_of(t, "uriTemplate"), str_of(t, "name"));
        }
    }
    out
}

/// Prompts with their arguments.
pub(crate) fn prompts(prompts: &[Value]) -> String {
    let mut out = String::new();
    for p in prompts {
        let _ = writeln!(out, "{}  {}", str_of(p, "name"), first_line(str_of(p, "description")));
        for a in p["arguments"].as_array().into_iter().flatten() {
            let need = if a["required"] == Value::Bool(true) { "" } else { "?" };
            let _ =
                writeln!(out, "    {}{need}  {}", str_of(a, "name"), first_line(str_of(a, "description")));
        }
    }
    out
}

/// A rendered prompt: `role: text` per message.
pub(crate) fn prompt_messages(result: &Value) -> String {
    let mut out = String::new();
    for m in result["messages"].as_array().into_iter().flatten() {
        let text = content(std::slice::from_ref(&m["content"]));
        let _ = write!(out, "{}: {text}", str_of(m, "role"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_read_as_signatures() {
        let t = json!([{"name": "add", "description": "Adds.\nMore.", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "number", "description": "left"}, "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"enum": ["x", "y"]}}, "required": ["a"]}}]);
        assert_eq!(
            tools(t.as_array().unwrap()),
            "\nadd  Adds.\n    a: number  left\n    mode?: \"x\" | \"y\"\n    tags?: string[]\n"
        );
    }

    #[test]
    fn results_read_as_their_content() {
        let r = json!({"content": [{"type": "text", "text": "hi"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"}]});
        assert_eq!(call_result(&r), "hi\n[image image/png, about 3 bytes]\n");
        let s = json!({"content": [], "structuredContent": {"sum": 3}, "isError": true});
        assert_eq!(call_result(&s), "error: {\n  \"sum\": 3\n}\n");
    }
}
