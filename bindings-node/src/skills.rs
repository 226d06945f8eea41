//! `Skills`: the core's `SkillRegistry` (Skills extension, SEP-2640) over a `Resources`
//! registry (see `Server.skills` and `Server.addSkill` in the JS API).

use crate::errors;
use crate::resources::Resources;
use mcpcore::skills::{SkillFiles, SkillRegistry};
use napi::bindgen_prelude::Buffer;
use napi_derive::napi;
use std::sync::Arc;

fn to_json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).expect("protocol values serialize")
}

/// Skills served from memory, their files resources of a `Resources`.
#[napi]
pub struct Skills {
    pub(crate) inner: Arc<SkillRegistry>,
}

#[napi]
impl Skills {
    /// No skills yet; their files go into `resources`.
    #[napi(constructor)]
    pub fn new(resources: &Resources) -> Self {
        Skills { inner: Arc::new(SkillRegistry::new(resources.inner.clone())) }
    }

    /// Serves every skill under the directory `root`; returns their entries as a JSON array.
    /// Nothing is served when one is refused.
    #[napi]
    pub fn add_dir(&self, root: String) -> napi::Result<String> {
        let entries = self.inner.add_dir(std::path::Path::new(&root)).map_err(errors::to_js)?;
        Ok(to_json(&entries))
    }

    /// Serves the skill at `path` whose files are `names[i]` → `contents[i]`; returns its entry
    /// as JSON.
    #[napi]
    pub fn add(&self, path: String, names: Vec<String>, contents: Vec<Buffer>) -> napi::Result<String> {
        let files = names.into_iter().zip(contents.into_iter().map(|b| b.to_vec())).collect();
        self.inner.add(SkillFiles { path, files }).map(|e| to_json(&e)).map_err(errors::to_js)
    }

    /// Stops serving the skill whose `SKILL.md` is at `uri`; false when there was none.
    #[napi]
    pub fn remove(&self, uri: String) -> bool {
        self.inner.remove(&uri)
    }

    /// True when no skill is served.
    #[napi]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}
