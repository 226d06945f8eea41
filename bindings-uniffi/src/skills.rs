//! Skills (the Skills extension, SEP-2640): [`Skills`] serves a directory of `SKILL.md` trees or
//! skills from memory beside a server's [`Resources`]; the [`Client`] methods list and get
//! entries and read a skill's files, each verified against its entry before it is returned.

use crate::catalog::Resources;
use crate::client::Client;
use crate::client_catalog::Resource;
use crate::errors::McpError;
use crate::rt;
use mcpcore::protocol::skills::Skill as CoreSkill;
use mcpcore::skills::{SkillFiles, SkillRegistry};
use std::collections::HashMap;
use std::sync::Arc;

/// One file of a skill: its resource URI, `sha256:<64 hex>` digest and size in bytes.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct SkillFile {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of its bytes.
    pub digest: String,
    /// Its size in bytes.
    pub size: u64,
}

/// A skill entry, the same in `skills/list` and `skills/get`.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// `frontmatter.name`.
    pub name: String,
    /// `frontmatter.description`.
    pub description: String,
    /// The whole frontmatter as JSON text.
    pub frontmatter_json: String,
    /// Every file of the skill, or null when the skill is `"dynamic"` (no digests).
    pub files: Option<Vec<SkillFile>>,
    /// The whole entry as JSON text (what the client methods verify against).
    pub json: String,
}

impl From<&CoreSkill> for Skill {
    fn from(s: &CoreSkill) -> Self {
        Skill {
            uri: s.uri.clone(),
            name: s.name().to_owned(),
            description: s.description().to_owned(),
            frontmatter_json: serde_json::to_string(&s.frontmatter).expect("serializes"),
            files: s.resources.files().map(|f| {
                f.iter()
                    .map(|r| SkillFile { uri: r.uri.clone(), digest: r.digest.clone(), size: r.size })
                    .collect()
            }),
            json: serde_json::to_string(s).expect("serializes"),
        }
    }
}

impl Skill {
    fn core(&self) -> Result<CoreSkill, McpError> {
        serde_json::from_str(&self.json).map_err(|e| {
            mcpcore::Error::invalid_input(format!("invalid skill entry {}: {e}", self.uri)).into()
        })
    }
}

/// What the server declared of the Skills extension.
#[derive(Debug, Clone, PartialEq, uniffi::Record)]
pub struct SkillsSupport {
    /// The server answers `resources/directory/read`.
    pub directory_read: bool,
}

/// The skills of a server, their files served as resources of a [`Resources`].
#[derive(uniffi::Object)]
pub struct Skills {
    pub(crate) inner: Arc<SkillRegistry>,
}

#[uniffi::export]
impl Skills {
    /// No skills yet; their files go into `resources` (give the server the same one).
    #[uniffi::constructor]
    pub fn new(resources: Arc<Resources>) -> Arc<Self> {
        Arc::new(Skills { inner: Arc::new(SkillRegistry::new(resources.inner.clone())) })
    }

    /// Serves every skill under the directory `root` (each directory holding a `SKILL.md`),
    /// read once, now; returns their entries. Throws `InvalidInput` naming the rule a skill
    /// breaks (frontmatter, naming, 512 files / 16 MiB, a link leaving `root`); then none is
    /// served.
    pub fn add_dir(&self, root: String) -> Result<Vec<Skill>, McpError> {
        let entries = self.inner.add_dir(std::path::Path::new(&root))?;
        Ok(entries.iter().map(Skill::from).collect())
    }

    /// Serves the skill at `path` (its last segment is its name) made of `files` (path in the
    /// skill → bytes; a `SKILL.md` with YAML frontmatter is required); returns its entry.
    pub fn add(&self, path: String, files: HashMap<String, Vec<u8>>) -> Result<Skill, McpError> {
        let entry = self.inner.add(SkillFiles { path, files: files.into_iter().collect() })?;
        Ok(Skill::from(&entry))
    }

    /// Stops serving the skill whose `SKILL.md` is at `uri`; false when there was none.
    pub fn remove(&self, uri: String) -> bool {
        self.inner.remove(&uri)
    }
}

#[uniffi::export]
impl Client {
    /// The server's Skills extension settings, or null when it did not declare the extension.
    pub fn skills_support(&self) -> Result<Option<SkillsSupport>, McpError> {
        let s = self.inner()?.skills_support();
        Ok(s.map(|s| SkillsSupport { directory_read: s.directory_read }))
    }

    /// Every skill entry the server lists (all pages); reads no file.
    pub async fn list_skills(&self) -> Result<Vec<Skill>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.list_skills().await?.iter().map(Skill::from).collect()) }).await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (unknown: `Rpc` with code -32602).
    pub async fn get_skill(&self, uri: String) -> Result<Skill, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(Skill::from(&c.get_skill(&uri).await?)) }).await
    }

    /// Loads the skill of `entry`: its `SKILL.md` text once its size, digest and frontmatter
    /// match the entry (`Protocol` otherwise, and the content is not returned).
    pub async fn load_skill(&self, entry: Skill) -> Result<String, McpError> {
        let (c, entry) = (self.inner()?, entry.core()?);
        rt::in_runtime(async move { Ok(c.load_skill(&entry).await?) }).await
    }

    /// The bytes of the file `uri` of the skill of `entry`, once they match its size and digest;
    /// a file the entry does not list throws `Protocol` without a read.
    pub async fn read_skill_file(&self, entry: Skill, uri: String) -> Result<Vec<u8>, McpError> {
        let (c, entry) = (self.inner()?, entry.core()?);
        rt::in_runtime(async move { Ok(c.read_skill_file(&entry, &uri).await?) }).await
    }

    /// The direct children of the directory resource `uri` (all pages; subdirectories have
    /// `mimeType` `inode/directory`). Needs the server's `directoryRead`.
    pub async fn read_directory(&self, uri: String) -> Result<Vec<Resource>, McpError> {
        let c = self.inner()?;
        rt::in_runtime(async move { Ok(c.read_directory(&uri).await?.iter().map(Resource::from).collect()) })
            .await
    }
}
