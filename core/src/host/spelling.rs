//! How a binding's users spell settings names (`jwks_url` in Python, `jwksUrl` in JavaScript):
//! settings objects a binding passes as JSON are read once in the core, in the users' spelling,
//! and the errors about them use that spelling too.

use serde_json::{Map, Value};

/// How a binding's users spell the settings' names (`max_body` or `maxBody`), which errors
/// then use too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spelling {
    /// Python: `jwks_url`, `scope_mode="step_up"`.
    Snake,
    /// JavaScript: `jwksUrl`, `scopeMode: 'stepUp'`.
    Camel,
}

impl Spelling {
    /// `snake` (a settings name in snake case) as the users spell it.
    pub fn name(self, snake: &str) -> String {
        match self {
            Spelling::Snake => snake.to_owned(),
            Spelling::Camel => {
                let mut out = String::with_capacity(snake.len());
                let mut upper = false;
                for c in snake.chars() {
                    match (c, upper) {
                        ('_', _) => upper = true,
                        (c, true) => {
                            out.extend(c.to_uppercase());
                            upper = false;
                        }
                        (c, false) => out.push(c),
                    }
                }
                out
            }
        }
    }

    /// A settings object's top-level names in snake case: camel-case names are converted, and
    /// names spelled otherwise are dropped (ignored like any unknown name).
    pub fn to_snake(self, raw: Map<String, Value>) -> Map<String, Value> {
        match self {
            Spelling::Snake => raw,
            Spelling::Camel => raw
                .into_iter()
                .filter(|(k, _)| !k.contains('_'))
                .map(|(k, v)| (camel_to_snake(&k), v))
                .collect(),
        }
    }
}

fn camel_to_snake(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(Spelling::Camel.name("authorization_servers"), "authorizationServers");
        assert_eq!(Spelling::Snake.name("max_body"), "max_body");
        let raw: Map<String, Value> =
            serde_json::from_str(r#"{"maxBody": 1, "max_body": 2, "path": "/x"}"#).unwrap();
        let snake = Spelling::Camel.to_snake(raw);
        assert_eq!(snake.get("max_body"), Some(&Value::from(1)));
        assert_eq!(snake.len(), 2);
    }
}
