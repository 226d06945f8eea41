//! Skills on the client (the Skills extension, SEP-2640; ext-skills
//! `specification/stable/skills.mdx`): listing and getting entries, and reading a skill's files
//! lazily, each verified against the entry it came with before it is handed over.
//!
//! Nothing is fetched ahead of need: listing reads no file; [`Client::load_skill`] reads the
//! `SKILL.md` and checks its size, digest and frontmatter; [`Client::read_skill_file`] reads one
//! listed file and checks its size and digest. A file the entry does not list is refused without
//! a read, and a mismatch is an [`ErrorKind::Protocol`](crate::ErrorKind::Protocol) error
//! whose content is never returned: refresh the entry with [`Client::get_skill`] and ask the
//! user again, as the spec's "Integrity and Verification" asks.
//!
//! ```no_run
//! # async fn demo(client: mcpcore::client::Client) -> mcpcore::Result<()> {
//! for skill in client.list_skills().await? {
//!     println!("{}: {}", skill.name(), skill.description());
//! }
//! let entry = client.get_skill("skill://pdf-processing/SKILL.md").await?;
//! let instructions = client.load_skill(&entry).await?;
//! let forms = client.read_skill_file(&entry, "skill://pdf-processing/references/FORMS.md").await?;
//! # Ok(()) }
//! ```

use super::{all_pages, page_params, Client};
use crate::error::{Error, Result};
use crate::protocol::resources::{ReadResourceResult, Resource, ResourceContents};
use crate::protocol::skills::{
    ListSkillsResult, ReadResourceDirectoryResult, Skill, SkillResources, DIRECTORY_READ, EXTENSION_ID, GET,
    LIST, MAX_BYTES,
};
use crate::skills::{digest, frontmatter};
use serde_json::{json, Value};

/// What the server declared of the Skills extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillsSupport {
    /// The server answers `resources/directory/read`.
    pub directory_read: bool,
}

impl Client {
    /// The server's Skills extension settings, or `None` when it did not declare the extension
    /// (clients call `skills/*` only after seeing the declaration).
    pub fn skills_support(&self) -> Option<SkillsSupport> {
        let caps = self.negotiated().capabilities;
        let settings = caps.extensions.as_ref()?.get(EXTENSION_ID)?;
        Some(SkillsSupport { directory_read: settings.get("directoryRead") == Some(&Value::Bool(true)) })
    }

    /// One page of `skills/list`.
    pub async fn list_skills_page(&self, cursor: Option<String>) -> Result<ListSkillsResult> {
        let v = self.request(LIST, page_params(cursor)).await?;
        serde_json::from_value(v).map_err(|e| Error::protocol(format!("malformed {LIST} result: {e}")))
    }

    /// Every skill the server lists, following `nextCursor` (at most 1000 pages). An empty or
    /// partial listing does not prove a skill absent: [`Client::get_skill`] still finds it.
    pub async fn list_skills(&self) -> Result<Vec<Skill>> {
        all_pages(LIST, |c| self.list_skills_page(c), |p| (p.skills, p.next_cursor)).await
    }

    /// The entry of the skill whose `SKILL.md` is at `uri` (`-32602` from the server when it
    /// serves none there).
    pub async fn get_skill(&self, uri: &str) -> Result<Skill> {
        let v = self.request(GET, json!({ "uri": uri })).await?;
        let skill = v.get("skill").cloned().unwrap_or(Value::Null);
        serde_json::from_value(skill).map_err(|e| Error::protocol(format!("malformed {GET} result: {e}")))
    }

    /// The direct children of the directory resource `uri` (every page): files, and
    /// subdirectories with `mimeType` `inode/directory`. Only for a server whose
    /// [`SkillsSupport::directory_read`] is true; refused here otherwise, without a request.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Resource>> {
        if !self.skills_support().is_some_and(|s| s.directory_read) {
            return Err(Error::invalid_input(format!(
                "the server did not declare directoryRead, so {DIRECTORY_READ} may not be called"
            )));
        }
        let page = |cursor: Option<String>| async move {
            let mut params = json!({ "uri": uri });
            if let Some(c) = cursor {
                params["cursor"] = json!(c);
            }
            let v = self.request(DIRECTORY_READ, params).await?;
            serde_json::from_value::<ReadResourceDirectoryResult>(v)
                .map_err(|e| Error::protocol(format!("malformed {DIRECTORY_READ} result: {e}")))
        };
        all_pages(DIRECTORY_READ, page, |p| (p.resources, p.next_cursor)).await
    }

    /// Loads the skill of `entry`: reads its `SKILL.md` and returns the text once its size and
    /// digest match the entry (unless the skill is `"dynamic"`) and its frontmatter equals the
    /// entry's field by field. A skill past the spec's limits is refused before any read.
    pub async fn load_skill(&self, entry: &Skill) -> Result<String> {
        if let Some(files) = entry.resources.files() {
            let total: u64 = files.iter().map(|f| f.size).sum();
            if files.len() > crate::protocol::skills::MAX_FILES || total > MAX_BYTES {
                return Err(Error::protocol(format!(
                    "skill {} has {} files of {total} bytes, past the limits of 512 files and {MAX_BYTES} bytes",
                    entry.uri,
                    files.len()
                )));
            }
        }
        let bytes = self.read_skill_file(entry, &entry.uri).await?;
        let text = String::from_utf8(bytes)
            .map_err(|_| Error::protocol(format!("{} is not UTF-8 text", entry.uri)))?;
        let found = frontmatter::parse(&text).map_err(|e| Error::protocol(format!("{}: {e}", entry.uri)))?;
        let differ = frontmatter::differences(&found, &entry.frontmatter);
        if !differ.is_empty() {
            return Err(Error::protocol(format!(
                "{} failed verification: its frontmatter differs from the entry's in {} (the skill is not loaded)",
                entry.uri,
                differ.join(", ")
            )));
        }
        Ok(text)
    }

    /// Reads the file `uri` of the skill of `entry` and returns its bytes once they match the
    /// entry's size and digest. A URI the entry does not list is refused without a read (an
    /// unlisted file is a changed skill); a `"dynamic"` skill's files are read unverified, up to
    /// the 16 MiB limit.
    pub async fn read_skill_file(&self, entry: &Skill, uri: &str) -> Result<Vec<u8>> {
        let listed = match &entry.resources {
            SkillResources::Files(files) => Some(files.iter().find(|f| f.uri == uri).ok_or_else(|| {
                Error::protocol(format!(
                    "{uri} is not listed in the entry of {}: the skill changed, refresh it with skills/get",
                    entry.uri
                ))
            })?),
            SkillResources::Dynamic(_) => {
                if uri != entry.uri && !uri.starts_with(&format!("{}/", entry.root())) {
                    return Err(Error::invalid_input(format!(
                        "{uri} is not a file of the skill {}",
                        entry.uri
                    )));
                }
                None
            }
        };
        let bytes = self.read_bytes(uri).await?;
        let fail = |why: String| {
            Error::protocol(format!(
                "{uri} failed verification: {why}; its content is not used (refresh the entry with skills/get)"
            ))
        };
        match listed {
            Some(file) => {
                if bytes.len() as u64 != file.size {
                    return Err(fail(format!("{} bytes where the entry says {}", bytes.len(), file.size)));
                }
                let got = digest(&bytes);
                if got != file.digest {
                    return Err(fail(format!("digest {got} where the entry says {}", file.digest)));
                }
            }
            None if bytes.len() as u64 > MAX_BYTES => {
                return Err(fail(format!(
                    "{} bytes, past the {MAX_BYTES}-byte limit of a skill",
                    bytes.len()
                )));
            }
            None => {}
        }
        Ok(bytes)
    }

    /// The raw bytes of `uri` (text as UTF-8, a blob decoded), read past the cache so that a
    /// refreshed entry meets fresh content.
    async fn read_bytes(&self, uri: &str) -> Result<Vec<u8>> {
        let v = self
            .request("resources/read", json!({ "uri": uri }))
            .await
            .map_err(super::resources::read_error)?;
        let read: ReadResourceResult = serde_json::from_value(v)
            .map_err(|e| Error::protocol(format!("malformed resources/read result: {e}")))?;
        let contents = read.contents.into_iter().find(|c| c.uri() == uri).ok_or_else(|| {
            Error::protocol(format!("resources/read of {uri} returned no contents for that URI"))
        })?;
        match contents {
            ResourceContents::Text(t) => Ok(t.text.into_bytes()),
            ResourceContents::Blob(b) => b.bytes(),
        }
    }
}
