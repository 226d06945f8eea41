//! The Skills extension's methods (SEP-2640, ext-skills `specification/stable/skills.mdx`):
//! `skills/list`, `skills/get` and `resources/directory/read`, on both lineages (the extension
//! is specified against 2026-07-28; a legacy session gets the same methods, without the caching
//! hints its revision does not define). A caller with a catalogue view sees the skills whose
//! `SKILL.md` it may list, and reads the directories of those it may use.

use super::catalog::cursor;
use super::{reply_err, Action, ServerEngine};
use crate::context::{Access, Entry, Origin};
use crate::error::ErrorData;
use crate::jsonrpc::Request;
use crate::protocol::skills::Skill;
use crate::protocol::{CacheScope, ProtocolVersion};
use serde_json::{json, Value};

impl ServerEngine {
    pub(super) fn skills_list(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let skills = self.skills.as_ref().expect("checked by the caller");
        let page = cursor(&req)
            .and_then(|c| skills.page_where(c, self.config.page_size, |s| allowed(origin, s, Access::List)));
        let (entries, next) = match page {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        let entries: Vec<&Skill> = entries.iter().map(|s| &**s).collect();
        let mut result = json!({ "skills": entries });
        if let Some(n) = next {
            result["nextCursor"] = json!(n);
        }
        self.skill_cache_hints(&mut result, version, origin);
        self.reply_ok(req.id, version, result)
    }

    pub(super) fn skills_get(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let skills = self.skills.as_ref().expect("checked by the caller");
        let Some(uri) = uri_param(&req) else {
            return reply_err(
                req.id,
                ErrorData::invalid_params("Invalid params: skills/get needs a string uri"),
            );
        };
        // A skill the caller may not use is refused exactly like one that is not served.
        let Some(skill) = skills.get(uri).filter(|s| allowed(origin, s, Access::Use)) else {
            let e = ErrorData::invalid_params(format!("No skill is served at {uri}"))
                .with_data(json!({ "uri": uri }));
            return reply_err(req.id, e);
        };
        let mut result = json!({ "skill": &*skill });
        self.skill_cache_hints(&mut result, version, origin);
        self.reply_ok(req.id, version, result)
    }

    pub(super) fn directory_read(&self, req: Request, version: ProtocolVersion, origin: &Origin) -> Action {
        let skills = self.skills.as_ref().expect("checked by the caller");
        let Some(uri) = uri_param(&req) else {
            return reply_err(
                req.id,
                ErrorData::invalid_params("Invalid params: resources/directory/read needs a string uri"),
            );
        };
        let uri = uri.strip_suffix('/').unwrap_or(uri);
        let page = cursor(&req).and_then(|c| skills.directory(uri, c, self.config.page_size));
        let (mut children, next) = match page {
            Ok(p) => p,
            Err(e) => return reply_err(req.id, e),
        };
        if origin.has_view() {
            children.retain(|r| {
                r.mime_type.as_deref() == Some(crate::protocol::skills::DIRECTORY_MIME)
                    || origin.allows(&Entry::Resource { uri: &r.uri, template: None }, Access::List)
            });
        }
        let mut result = json!({ "resources": children });
        if let Some(n) = next {
            result["nextCursor"] = json!(n);
        }
        // Not required by skills.mdx (`ReadResourceDirectoryResult extends PaginatedResult`),
        // but the TypeScript SDK 2.4.0 client refuses a 2026-07-28 directory result without
        // them, and they are true of it.
        self.skill_cache_hints(&mut result, version, origin);
        self.reply_ok(req.id, version, result)
    }

    /// `ttlMs` and `cacheScope` on 2026-07-28 (`ListSkillsResult` and `GetSkillResult` extend
    /// `CacheableResult`); private for a caller with its own catalogue view.
    fn skill_cache_hints(&self, result: &mut Value, version: ProtocolVersion, origin: &Origin) {
        if version.is_modern() {
            self.cache_hints(result);
            if origin.has_view() {
                result["cacheScope"] = json!(CacheScope::Private);
            }
        }
    }
}

fn uri_param(req: &Request) -> Option<&str> {
    req.params.as_ref()?.get("uri")?.as_str()
}

/// Whether `origin` may list or use `skill`: the same as for its `SKILL.md` resource.
fn allowed(origin: &Origin, skill: &Skill, access: Access) -> bool {
    !origin.has_view() || origin.allows(&Entry::Resource { uri: &skill.uri, template: None }, access)
}
