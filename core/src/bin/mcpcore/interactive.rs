//! The server asks, the person at the terminal answers: sampling (they play the model) and form
//! elicitation, declared when stdin is a terminal or with `--interactive` (then, with stdin
//! piped, one line per answer). Prompts go to stderr, so stdout stays the result.

use mcpcore::client::{BoxFuture, InputHandler, InputKinds};
use mcpcore::protocol::elicitation::{ElicitAction, ElicitRequestParams, ElicitResult};
use mcpcore::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use mcpcore::Error;
use serde_json::{json, Map, Value};
use std::io::{BufRead, Write};

/// Answers on this process's terminal (stdin and stderr), one question at a time.
pub(crate) struct Terminal {
    lock: tokio::sync::Mutex<()>,
}

impl Terminal {
    pub(crate) fn new() -> Self {
        Terminal { lock: tokio::sync::Mutex::new(()) }
    }
}

/// Prints `prompt` to stderr and reads one line of stdin (without its newline); `None` at EOF.
async fn ask(prompt: String) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "{prompt}");
        let _ = err.flush();
        let mut line = String::new();
        match std::io::stdin().lock().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}

fn say(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// The text of a sampling message's content (other blocks named by their type).
fn content_text(content: &Value) -> String {
    let blocks = match content {
        Value::Array(items) => items.clone(),
        one => vec![one.clone()],
    };
    blocks
        .iter()
        .map(|b| match b.get("text").and_then(Value::as_str) {
            Some(t) => t.to_owned(),
            None => format!("[{}]", b.get("type").and_then(Value::as_str).unwrap_or("content")),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One form field's answer, typed by its schema; `Ok(None)` leaves it out.
fn field_value(schema: &Value, answer: &str) -> Result<Option<Value>, String> {
    if answer.is_empty() {
        return Ok(None);
    }
    let options: Vec<String> = schema
        .get("enum")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|o| {
                    o.as_str().or_else(|| o.get("const").and_then(Value::as_str)).map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    if !options.is_empty() {
        if let Ok(i) = answer.parse::<usize>() {
            if (1..=options.len()).contains(&i) {
                return Ok(Some(Value::String(options[i - 1].clone())));
            }
        }
        return if options.iter().any(|o| o == answer) {
            Ok(Some(Value::String(answer.to_owned())))
        } else {
            Err(format!("choose one of {}", options.join(", ")))
        };
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("boolean") => match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" | "1" => Ok(Some(Value::Bool(true))),
            "n" | "no" | "false" | "0" => Ok(Some(Value::Bool(false))),
            _ => Err("answer yes or no".into()),
        },
        Some("integer") => {
            answer.parse::<i64>().map(|n| Some(json!(n))).map_err(|_| "an integer, please".into())
        }
        Some("number") => {
            answer.parse::<f64>().map(|n| Some(json!(n))).map_err(|_| "a number, please".into())
        }
        Some("array") => Ok(Some(json!(answer.split(',').map(str::trim).collect::<Vec<_>>()))),
        _ => Ok(Some(Value::String(answer.to_owned()))),
    }
}

impl InputHandler for Terminal {
    fn kinds(&self) -> InputKinds {
        InputKinds { elicitation: true, sampling: true, ..InputKinds::default() }
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, mcpcore::Result<ElicitResult>> {
        Box::pin(async move {
            let _one = self.lock.lock().await;
            let p = serde_json::to_value(&params).unwrap_or_default();
            say(&format!("\nThe server asks: {}", p.get("message").and_then(Value::as_str).unwrap_or("")));
            if let Some(url) = p.get("url").and_then(Value::as_str) {
                say(&format!("  open: {url}"));
            }
            let action = loop {
                match ask("Answer? [a]ccept, [d]ecline, [c]ancel (a): ".into()).await.as_deref() {
                    None => break "cancel",
                    Some("" | "a" | "accept") => break "accept",
                    Some("d" | "decline") => break "decline",
                    Some("c" | "cancel") => break "cancel",
                    Some(_) => continue,
                }
            };
            let mut content = Map::new();
            let schema = p.get("requestedSchema").cloned().unwrap_or_default();
            if action == "accept" {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let empty = Map::new();
                let props = schema.get("properties").and_then(Value::as_object).unwrap_or(&empty);
                for (name, field) in props {
                    let mut label = name.clone();
                    if let Some(d) =
                        field.get("description").or_else(|| field.get("title")).and_then(Value::as_str)
                    {
                        label = format!("{name} ({d})");
                    }
                    if let Some(opts) = field.get("enum").and_then(Value::as_array) {
                        let list: Vec<String> = opts
                            .iter()
                            .enumerate()
                            .map(|(i, o)| format!("{}={}", i + 1, o.as_str().unwrap_or("")))
                            .collect();
                        label = format!("{label} [{}]", list.join(" "));
                    }
                    if let Some(d) = field.get("default") {
                        label = format!("{label} (default {d})");
                    }
                    let mark = if required.contains(&name.as_str()) { "*" } else { "" };
                    loop {
                        let Some(answer) = ask(format!("  {label}{mark}: ")).await else {
                            return Ok(ElicitResult::new(ElicitAction::Cancel));
                        };
                        match field_value(field, answer.trim()) {
                            Ok(Some(v)) => {
                                content.insert(name.clone(), v);
                                break;
                            }
                            Ok(None) if mark.is_empty() || field.get("default").is_some() => break,
                            Ok(None) => say("    required"),
                            Err(why) => say(&format!("    {why}")),
                        }
                    }
                }
            }
            let mut result = json!({ "action": action });
            if action == "accept" {
                result["content"] = Value::Object(content);
            }
            serde_json::from_value(result).map_err(|e| Error::invalid_input(format!("bad answer: {e}")))
        })
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, mcpcore::Result<CreateMessageResult>> {
        Box::pin(async move {
            let _one = self.lock.lock().await;
            let p = serde_json::to_value(&params).unwrap_or_default();
            say("\nThe server asks for a completion (you are the model):");
            if let Some(system) = p.get("systemPrompt").and_then(Value::as_str) {
                say(&format!("  system: {system}"));
            }
            for m in p.get("messages").and_then(Value::as_array).into_iter().flatten() {
                let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
                say(&format!("  {role}: {}", content_text(m.get("content").unwrap_or(&Value::Null))));
            }
            let Some(reply) = ask("Reply (empty to refuse): ".into()).await.filter(|r| !r.is_empty()) else {
                return Err(Error::invalid_input("the user refused the sampling request"));
            };
            let result = json!({"role": "assistant", "content": {"type": "text", "text": reply},
                "model": "human at the mcpcore CLI", "stopReason": "endTurn"});
            serde_json::from_value(result).map_err(|e| Error::invalid_input(format!("bad answer: {e}")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_answers_are_typed_by_the_schema() {
        let pick = json!({"type": "string", "enum": ["red", "green"]});
        assert_eq!(field_value(&pick, "2").unwrap(), Some(json!("green")));
        assert_eq!(field_value(&pick, "red").unwrap(), Some(json!("red")));
        assert!(field_value(&pick, "blue").is_err());
        assert_eq!(field_value(&json!({"type": "boolean"}), "y").unwrap(), Some(json!(true)));
        assert_eq!(field_value(&json!({"type": "integer"}), "42").unwrap(), Some(json!(42)));
        assert!(field_value(&json!({"type": "integer"}), "4.2").is_err());
        assert_eq!(field_value(&json!({"type": "string"}), "").unwrap(), None);
    }
}
