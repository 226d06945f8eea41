//! `Skills`: the core's `SkillRegistry` (Skills extension, SEP-2640) over a `Resources`
//! registry (see `mcpcore.Server.skills`, `Server.add_skill`).

use crate::resources::Resources;
use crate::{errors, to_json};
use mcpcore::skills::{SkillFiles, SkillRegistry};
use pyo3::prelude::*;
use std::sync::Arc;

/// Skills served from memory, their files resources of `resources`.
#[pyclass(module = "mcpcore._native", frozen)]
pub struct Skills {
    pub(crate) inner: Arc<SkillRegistry>,
}

#[pymethods]
impl Skills {
    /// No skills yet; their files go into `resources`.
    #[new]
    fn new(resources: &Resources) -> Self {
        Skills { inner: Arc::new(SkillRegistry::new(resources.inner.clone())) }
    }

    /// Serves every skill under the directory `root` (each directory holding a `SKILL.md`);
    /// returns their entries as a JSON array. Nothing is served when one is refused.
    fn add_dir(&self, root: std::path::PathBuf) -> PyResult<String> {
        self.inner.add_dir(&root).map(|e| to_json(&e)).map_err(errors::to_py)
    }

    /// Serves the skill at `path` made of `files` (path in the skill → bytes); returns its
    /// entry as JSON.
    fn add(&self, path: String, files: Vec<(String, Vec<u8>)>) -> PyResult<String> {
        let skill = SkillFiles { path, files: files.into_iter().collect() };
        self.inner.add(skill).map(|e| to_json(&e)).map_err(errors::to_py)
    }

    /// Stops serving the skill whose `SKILL.md` is at `uri`; False when there was none.
    fn remove(&self, uri: &str) -> bool {
        self.inner.remove(uri)
    }

    /// The entry of the skill at `uri` as JSON, or None.
    fn get(&self, uri: &str) -> Option<String> {
        self.inner.get(uri).map(|s| to_json(&*s))
    }

    /// True when no skill is served.
    fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}
