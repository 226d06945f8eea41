//! Validation against the official `schema.json` of each revision (`tests/spec/<version>/`).
//!
//! [`validate`] checks a value against one named definition; [`validate_message`] checks a
//! whole JSON-RPC message a client or server emitted: requests and notifications against the
//! definition for their method (found in the schema's `ClientRequest`/`ServerRequest`/
//! `ClientNotification`/`ServerNotification` unions), results against the result type of the
//! request they answer plus the result envelope, errors against the error envelope (and, where
//! the revision names one, the definition for the error code).
//!
//! 2025-11-25 and 2026-07-28 are JSON Schema 2020-12 documents with `$defs`; older revisions are
//! draft-07 with `definitions`. Each schema is read once; compiled validators are cached.

use mcpcore::ProtocolVersion;
use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// One revision's schema document and what was derived from it.
struct Spec {
    version: ProtocolVersion,
    /// The whole `schema.json`.
    doc: Value,
    /// `"$defs"` or `"definitions"`.
    defs_key: &'static str,
    /// Request method → definition name (e.g. `tools/call` → `CallToolRequest`).
    requests: HashMap<String, String>,
    /// Notification method → definition name.
    notifications: HashMap<String, String>,
    /// Compiled validators by definition name.
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

static SPECS: [OnceLock<Spec>; 5] = [const { OnceLock::new() }; 5];

fn spec(version: ProtocolVersion) -> &'static Spec {
    let index = ProtocolVersion::ALL.iter().position(|v| *v == version).expect("a known version");
    SPECS[index].get_or_init(|| Spec::load(version))
}

impl Spec {
    fn load(version: ProtocolVersion) -> Spec {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("spec").join(version.as_str()).join("schema.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let defs_key = if doc.get("$defs").is_some() { "$defs" } else { "definitions" };
        let mut spec = Spec {
            version,
            doc,
            defs_key,
            requests: HashMap::new(),
            notifications: HashMap::new(),
            validators: Mutex::new(HashMap::new()),
        };
        let requests = spec.union_methods(&["ClientRequest", "ServerRequest"]);
        let notifications = spec.union_methods(&["ClientNotification", "ServerNotification"]);
        assert!(!requests.is_empty(), "{version}: no request definitions found");
        spec.requests = requests;
        spec.notifications = notifications;
        spec
    }

    fn def(&self, name: &str) -> Option<&Value> {
        self.doc.get(self.defs_key).and_then(|d| d.get(name))
    }

    fn has(&self, name: &str) -> bool {
        self.def(name).is_some()
    }

    /// The definition names a `$ref` value points at (`#/$defs/X` → `X`).
    fn ref_name(r: &Value) -> Option<&str> {
        r.get("$ref").and_then(Value::as_str).and_then(|s| s.rsplit('/').next())
    }

    /// Method → definition name over the members of the named unions (a union is an
    /// `anyOf`/`oneOf` of `$ref`s, or a single `$ref` when it has one member).
    fn union_methods(&self, unions: &[&str]) -> HashMap<String, String> {
        let mut out = HashMap::new();
        for union in unions {
            let Some(u) = self.def(union) else { continue };
            let members: Vec<&str> = match u.get("anyOf").or_else(|| u.get("oneOf")) {
                Some(Value::Array(items)) => items.iter().filter_map(Self::ref_name).collect(),
                _ => Self::ref_name(u).into_iter().collect(),
            };
            for name in members {
                let method = self
                    .def(name)
                    .and_then(|d| d.pointer("/properties/method/const"))
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| panic!("{}: {name} has no method const", self.version));
                out.insert(method.to_owned(), name.to_owned());
            }
        }
        out
    }

    fn validator(&self, def: &str) -> Result<Arc<jsonschema::Validator>, String> {
        if !self.has(def) {
            return Err(format!("{}: the schema has no definition {def:?}", self.version));
        }
        let mut cache = self.validators.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = cache.get(def) {
            return Ok(v.clone());
        }
        let mut schema = self.doc.clone();
        schema
            .as_object_mut()
            .expect("schema.json is an object")
            .insert("$ref".to_owned(), Value::String(format!("#/{}/{def}", self.defs_key)));
        let validator = jsonschema::options()
            .build(&schema)
            .map_err(|e| format!("{}: cannot compile {def}: {e}", self.version))?;
        let validator = Arc::new(validator);
        cache.insert(def.to_owned(), validator.clone());
        Ok(validator)
    }

    fn validate(&self, def: &str, value: &Value) -> Result<(), String> {
        let validator = self.validator(def)?;
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() { "(root)".to_owned() } else { path };
                format!("{path}: {e}")
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!("{} {def}: {}", self.version, errors.join("; ")))
        }
    }

    /// The definition a result answering a request of definition `request_def` must match.
    fn result_def(&self, method: &str, request_def: &str, result: &Value) -> Result<String, String> {
        let base = request_def.strip_suffix("Request").unwrap_or(request_def);
        let complete = format!("{base}Result");
        let result_type = result.get("resultType").and_then(Value::as_str);
        if result_type == Some("input_required") && self.has("InputRequiredResult") {
            // Only methods whose `…ResultResponse` admits an InputRequiredResult (MRTR).
            let mrtr = self
                .def(&format!("{complete}Response"))
                .is_some_and(|d| d.to_string().contains("InputRequiredResult"));
            return if mrtr {
                Ok("InputRequiredResult".to_owned())
            } else {
                Err(format!("{}: {method} may not answer with an InputRequiredResult", self.version))
            };
        }
        let task_augmentable =
            matches!(method, "tools/call" | "sampling/createMessage" | "elicitation/create");
        if task_augmentable && result.get("task").is_some() && self.has("CreateTaskResult") {
            return Ok("CreateTaskResult".to_owned());
        }
        if self.has(&complete) {
            Ok(complete)
        } else {
            Ok("EmptyResult".to_owned())
        }
    }

    /// Definitions an error response with `code` must also match: `(definition, whole message?)`.
    fn error_defs(&self, code: i64) -> Vec<(&'static str, bool)> {
        let candidates: &[(&'static str, bool)] = match code {
            -32700 => &[("ParseError", false)],
            -32600 => &[("InvalidRequestError", false)],
            -32601 => &[("MethodNotFoundError", false)],
            -32602 => &[("InvalidParamsError", false)],
            -32603 => &[("InternalError", false)],
            -32020 => &[("HeaderMismatchError", true)],
            -32021 => &[("MissingRequiredClientCapabilityError", true)],
            -32022 => &[("UnsupportedProtocolVersionError", true)],
            -32042 => &[("URLElicitationRequiredError", true)],
            _ => &[],
        };
        candidates.iter().copied().filter(|(d, _)| self.has(d)).collect()
    }

    fn validate_single(&self, message: &Value, request_method: Option<&str>) -> Result<(), String> {
        let v = self.version;
        let obj = message.as_object().ok_or_else(|| format!("{v}: a message must be a JSON object"))?;
        let mut checks: Vec<Result<(), String>> = Vec::new();
        if let Some(method) = obj.get("method") {
            let method = method.as_str().ok_or_else(|| format!("{v}: method must be a string"))?;
            let (envelope, table, kind) = if obj.contains_key("id") {
                ("JSONRPCRequest", &self.requests, "request")
            } else {
                ("JSONRPCNotification", &self.notifications, "notification")
            };
            let def = table.get(method).ok_or_else(|| format!("{v}: unknown {kind} method {method:?}"))?;
            checks.push(self.validate(envelope, message));
            checks.push(self.validate(def, message));
        } else if let Some(result) = obj.get("result") {
            let method = request_method.ok_or_else(|| {
                format!("{v}: validating a result needs the method of the request it answers")
            })?;
            let request_def =
                self.requests.get(method).ok_or_else(|| format!("{v}: unknown request method {method:?}"))?;
            let envelope =
                if self.has("JSONRPCResultResponse") { "JSONRPCResultResponse" } else { "JSONRPCResponse" };
            checks.push(self.validate(envelope, message));
            let result_def = self.result_def(method, request_def, result)?;
            checks.push(self.validate(&result_def, result));
        } else if let Some(error) = obj.get("error") {
            let envelope =
                if self.has("JSONRPCErrorResponse") { "JSONRPCErrorResponse" } else { "JSONRPCError" };
            checks.push(self.validate(envelope, message));
            if let Some(code) = error.get("code").and_then(Value::as_i64) {
                for (def, whole) in self.error_defs(code) {
                    checks.push(self.validate(def, if whole { message } else { error }));
                }
            }
        } else {
            return Err(format!("{v}: not a request, notification, result or error"));
        }
        let errors: Vec<String> = checks.into_iter().filter_map(Result::err).collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors.join("\n"))
        }
    }
}

/// Validates `value` against the definition `def` of `version`'s `schema.json`. The error lists
/// every failing instance path.
pub fn validate(version: ProtocolVersion, def: &str, value: &Value) -> Result<(), String> {
    spec(version).validate(def, value)
}

/// Validates a whole JSON-RPC message a client or server emitted on `version`.
///
/// - request / notification: the envelope and the definition for its method; an unknown (or,
///   on this revision, removed) method is an error;
/// - result: the result envelope and the result definition of `request_method` (the method of
///   the request it answers; required): `XRequest` → `XResult`, else `EmptyResult`
///   (`ping`, `logging/setLevel`, `resources/subscribe`…); an `input_required` result must be
///   an `InputRequiredResult` of a method that allows one; a 2025-11-25 task-augmented answer
///   (`{"task": …}`) must be a `CreateTaskResult`;
/// - error: the error envelope, plus the revision's definition for the error code if any.
///
/// A JSON array is a batch: allowed on 2025-03-26 only; each element is validated on its own
/// (`request_method` then applies to every result in it).
pub fn validate_message(
    version: ProtocolVersion,
    message: &Value,
    request_method: Option<&str>,
) -> Result<(), String> {
    let spec = spec(version);
    let Value::Array(items) = message else {
        return spec.validate_single(message, request_method);
    };
    if !version.allows_batch() {
        return Err(format!("{version}: JSON-RPC batches are not part of this revision"));
    }
    if items.is_empty() {
        return Err(format!("{version}: an empty batch"));
    }
    let errors: Vec<String> = items
        .iter()
        .enumerate()
        .filter_map(|(i, m)| spec.validate_single(m, request_method).err().map(|e| format!("[{i}] {e}")))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("\n"))
    }
}

/// The definition name of the request `method` on `version` (e.g. `tools/call` →
/// `CallToolRequest`), if the revision has it.
pub fn request_definition(version: ProtocolVersion, method: &str) -> Option<&'static str> {
    spec(version).requests.get(method).map(String::as_str)
}

/// The definition name of the notification `method` on `version`, if the revision has it.
pub fn notification_definition(version: ProtocolVersion, method: &str) -> Option<&'static str> {
    spec(version).notifications.get(method).map(String::as_str)
}
