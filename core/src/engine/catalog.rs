//! Lists, reads and renders: `resources/*`, `prompts/*`, `completion/complete`, and the list
//! replies every `*/list` method shares (pagination, caching hints).

use super::{parse_params, reply_err, shape, Action, At, ListKind, PendingCall, ServerEngine, Who, Work};
use crate::completion::CompletionRequest;
use crate::context::{Access, Entry, InputSeed, Origin};
use crate::error::{ErrorCode, ErrorData};
use crate::jsonrpc::{Request, RequestId};
use crate::prompts::PromptArguments;
use crate::protocol::completion::{CompleteRequestParams, CompletionReference};
use crate::protocol::logging::LoggingLevel;
use crate::protocol::{meta, ProtocolVersion};
use crate::resources::ResourceRegistry;
use crate::state::Binding;
use serde_json::{json, Value};
use std::time::SystemTime;

/// The `cursor` param: absent/null, or a string (`-32602` otherwise).
pub(super) fn cursor(req: &Request) -> Result<Option<&str>, ErrorData> {
    match req.params.as_ref().and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(_) => Err(ErrorData::invalid_params("Invalid params: cursor must be a string")),
    }
}

/// A page of descriptors, each serialized and shaped to `version`.
pub(super) fn shaped<T: serde::Serialize>(
    page: Result<(Vec<T>, Option<String>), ErrorData>,
    version: ProtocolVersion,
    shape: fn(Value, ProtocolVersion) -> Value,
) -> Result<(Vec<Value>, Option<String>), ErrorData> {
    page.map(|(items, next)| {
        let items = items.into_iter().map(|i| shape(serde_json::to_value(i).expect("serializable"), version));
        (items.collect(), next)
    })
}

fn progress_token(req: &Request) -> Option<Value> {
    req.params.as_ref()?.get("_meta")?.get(meta::PROGRESS_TOKEN).cloned()
}

impl ServerEngine {
    /// `{<key>: items, nextCursor?}` plus caching hints on modern; a per-caller listing
    /// (`origin` carries a catalogue view) is `cacheScope: private` (2026-07-28: only within
    /// the same authorization context), whatever the server's default.
    pub(super) fn list_reply(
        &self,
        id: RequestId,
        version: ProtocolVersion,
        list: ListKind,
        page: Result<(Vec<Value>, Option<String>), ErrorData>,
        origin: &Origin,
    ) -> Action {
        let key = match list {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
        };
        let (items, next) = match page {
            Ok(p) => p,
            Err(e) => return reply_err(id, e),
        };
        let mut result = json!({ key: items });
        if let Some(n) = next {
            result["nextCursor"] = json!(n);
        }
        if version.is_modern() {
            let hint = self.config.aggregate.as_ref().map(|a| a.list_hint(list)).unwrap_or_default();
            self.merged_cache_hints(&mut result, hint);
            if origin.has_view() {
                result["cacheScope"] = json!(crate::protocol::CacheScope::Private);
            }
        }
        self.reply_ok(id, version, result)
    }

    /// How a request's handler gets client input, and what a sealed state binds to.
    pub(super) fn input_for(
        &self,
        req: &Request,
        who: Who,
        target: &str,
        arguments: &Value,
        now: SystemTime,
    ) -> Result<(InputSeed, Option<Binding>), ErrorData> {
        match who {
            Who::Legacy(c) => Ok((InputSeed::Legacy { capabilities: c.client_capabilities.clone() }, None)),
            Who::Modern(c) => {
                let capabilities = c.client_capabilities.clone();
                // A tool call's binding (a digest of its arguments) is needed only to open a
                // state it carries or, later, to seal one (`input_required` makes it from the
                // call then): most calls need neither, so it is not made here for them.
                let has_state = req.params.as_ref().is_some_and(|p| p.contains_key("requestState"));
                let mut binding = (has_state || req.method != "tools/call")
                    .then(|| Binding::new(&req.method, target, arguments));
                let (seed, claim) = super::mrtr::modern_seed(
                    &self.config,
                    req.params.as_ref(),
                    binding.as_ref(),
                    capabilities,
                    now,
                )?;
                if let Some(b) = binding.as_mut() {
                    b.claim = claim;
                }
                Ok((seed, binding))
            }
        }
    }

    pub(super) fn resources_list(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let registry = self.resources.as_ref().expect("checked by the caller");
        let size = self.config.page_size;
        let page = cursor(&req).and_then(|c| match origin.has_view() {
            false => registry.page(c, size),
            true => registry.page_where(c, size, |r| {
                origin.allows(&Entry::Resource { uri: &r.uri, template: None }, Access::List)
            }),
        });
        let page = shaped(page, version, shape::descriptor);
        self.list_reply(req.id, version, ListKind::Resources, page, origin)
    }

    pub(super) fn templates_list(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let registry = self.resources.as_ref().expect("checked by the caller");
        let size = self.config.page_size;
        let page = cursor(&req).and_then(|c| match origin.has_view() {
            false => registry.templates_page(c, size),
            true => registry.templates_page_where(c, size, |t| {
                origin.allows(&Entry::ResourceTemplate(&t.uri_template), Access::List)
            }),
        });
        let page = shaped(page, version, shape::descriptor);
        self.list_reply(req.id, version, ListKind::Templates, page, origin)
    }

    pub(super) fn resources_read(
        &self,
        req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        who: Who,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let registry = self.resources.as_ref().expect("checked by the caller");
        let Some(uri) =
            req.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned)
        else {
            return reply_err(
                req.id,
                ErrorData::invalid_params("Invalid params: resources/read needs a string uri"),
            );
        };
        // A resource the caller may not read is refused exactly like one that does not exist.
        let usable = !origin.has_view() || {
            let template = registry.template_of(&uri);
            origin.allows(&Entry::Resource { uri: &uri, template: template.as_deref() }, Access::Use)
        };
        let Some((handler, request)) = registry.resolve(&uri).filter(|_| usable) else {
            // 2026-07-28: -32602 (SEP-2164); earlier revisions: -32002.
            let code = if version.is_modern() {
                ErrorCode::INVALID_PARAMS
            } else {
                ErrorCode::RESOURCE_NOT_FOUND_LEGACY
            };
            return reply_err(
                req.id,
                ErrorData::new(code, format!("Resource not found: {uri}")).with_data(json!({ "uri": uri })),
            );
        };
        let caller = who.caller().clone();
        let (input, binding) = match self.input_for(&req, who, &uri, &Value::Null, now) {
            Ok(x) => x,
            Err(e) => return reply_err(req.id, e),
        };
        Action::CallTool(Box::new(PendingCall {
            progress_token: progress_token(&req),
            id: req.id,
            version,
            caller,
            work: Work::Resource { handler, request },
            log_level,
            input: Some(input),
            binding,
            task: None,
        }))
    }

    pub(super) fn prompts_list(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let registry = self.prompts.as_ref().expect("checked by the caller");
        let size = self.config.page_size;
        let page = cursor(&req).and_then(|c| match origin.has_view() {
            false => registry.page(c, size),
            true => registry.page_where(c, size, |p| origin.allows(&Entry::Prompt(&p.name), Access::List)),
        });
        let page = shaped(page, version, shape::descriptor);
        self.list_reply(req.id, version, ListKind::Prompts, page, origin)
    }

    pub(super) fn prompts_get(
        &self,
        req: Request,
        version: ProtocolVersion,
        log_level: Option<LoggingLevel>,
        who: Who,
        now: SystemTime,
        origin: &Origin,
    ) -> Action {
        let registry = self.prompts.as_ref().expect("checked by the caller");
        let params = req.params.clone().unwrap_or_default();
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return reply_err(
                req.id,
                ErrorData::invalid_params("Invalid params: prompts/get needs a string name"),
            );
        };
        let usable = origin.allows(&Entry::Prompt(name), Access::Use);
        let Some(prompt) = registry.get(name).filter(|_| usable) else {
            return reply_err(
                req.id,
                ErrorData::invalid_params(format!("Unknown prompt: {name}"))
                    .with_data(json!({ "prompt": name })),
            );
        };
        let raw_args = params.get("arguments").cloned().unwrap_or(Value::Null);
        let arguments: PromptArguments = match &raw_args {
            Value::Null => PromptArguments::new(),
            v => match serde_json::from_value(v.clone()) {
                Ok(a) => a,
                Err(_) => {
                    return reply_err(
                        req.id,
                        ErrorData::invalid_params(
                            "Invalid params: prompt arguments must be an object of strings",
                        ),
                    )
                }
            },
        };
        if let Err(e) = prompt.check_arguments(&arguments) {
            return reply_err(req.id, e);
        }
        let caller = who.caller().clone();
        let (input, binding) = match self.input_for(&req, who, name, &raw_args, now) {
            Ok(x) => x,
            Err(e) => return reply_err(req.id, e),
        };
        Action::CallTool(Box::new(PendingCall {
            progress_token: progress_token(&req),
            id: req.id,
            version,
            caller,
            work: Work::Prompt { prompt, arguments },
            log_level,
            input: Some(input),
            binding,
            task: None,
        }))
    }

    pub(super) fn complete(
        &self,
        req: Request,
        version: ProtocolVersion,
        who: Who,
        origin: &Origin,
    ) -> Action {
        let params: CompleteRequestParams = match parse_params(&req) {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let completer = match &params.reference {
            CompletionReference::Prompt(p) => match self
                .prompts
                .as_ref()
                .and_then(|r| r.get(&p.name))
                .filter(|_| origin.allows(&Entry::Prompt(&p.name), Access::Use))
            {
                Some(prompt) => prompt.completer(&params.argument.name),
                None => {
                    return reply_err(
                        req.id,
                        ErrorData::invalid_params(format!("Unknown prompt: {}", p.name)),
                    )
                }
            },
            CompletionReference::Resource(r) => {
                // The reference names a template or a URI it matches: the policy sees the template.
                let usable = |reg: &ResourceRegistry| {
                    !origin.has_view() || {
                        let template = reg.template_of(&r.uri).unwrap_or_else(|| r.uri.clone());
                        origin.allows(&Entry::ResourceTemplate(&template), Access::Use)
                    }
                };
                match self.resources.as_ref().filter(|reg| reg.has_template(&r.uri) && usable(reg)) {
                    Some(reg) => reg.completer(&r.uri, &params.argument.name),
                    None => {
                        return reply_err(
                            req.id,
                            ErrorData::invalid_params(format!("Unknown resource template: {}", r.uri)),
                        )
                    }
                }
            }
        };
        let request = CompletionRequest {
            argument: params.argument.name,
            value: params.argument.value,
            context: params.context.and_then(|c| c.arguments).unwrap_or_default(),
        };
        Action::CallTool(Box::new(PendingCall {
            id: req.id,
            version,
            caller: who.caller().clone(),
            work: Work::Complete { completer, request },
            progress_token: None,
            log_level: None,
            input: None,
            binding: None,
            task: None,
        }))
    }

    /// True when the caller may hear of updates of `uri`: it names a resource (fixed, or read
    /// through a template) the caller may read.
    pub(super) fn may_subscribe(&self, uri: &str, origin: &Origin) -> bool {
        let Some(registry) = &self.resources else { return false };
        let template = registry.template_of(uri);
        registry.resolve(uri).is_some()
            && origin.allows(&Entry::Resource { uri, template: template.as_deref() }, Access::Use)
    }

    /// Legacy `resources/subscribe` / `resources/unsubscribe`: remembered on the session.
    /// Behind a per-identity catalogue ([`Origin::has_view`]) subscribing to a resource the
    /// caller may not read is refused exactly like one that does not exist (`-32002`).
    pub(super) fn subscribe(&self, at: &mut At<'_>, req: Request, version: ProtocolVersion) -> Action {
        if self.resources.is_none() {
            return reply_err(req.id, ErrorData::method_not_found(&req.method));
        }
        let Some(uri) =
            req.params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str).map(str::to_owned)
        else {
            return reply_err(
                req.id,
                ErrorData::invalid_params(format!("Invalid params: {} needs a string uri", req.method)),
            );
        };
        if req.method == "resources/subscribe" && at.origin.has_view() && !self.may_subscribe(&uri, at.origin)
        {
            let error =
                ErrorData::new(ErrorCode::RESOURCE_NOT_FOUND_LEGACY, format!("Resource not found: {uri}"))
                    .with_data(json!({ "uri": uri }));
            return reply_err(req.id, error);
        }
        if let Some(s) = at.session.as_mut() {
            if req.method == "resources/subscribe" {
                if let Some(r) = &self.resources {
                    r.subscribed(&uri);
                }
                s.subscriptions.insert(uri);
            } else {
                s.subscriptions.remove(&uri);
            }
        }
        self.reply_ok(req.id, version, json!({}))
    }
}
