//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640, Final 2026-09-13;
//! `modelcontextprotocol/ext-skills` `specification/stable/skills.mdx`): skill entries, their
//! file manifests, `skills/list`, `skills/get` and `resources/directory/read`.

use super::resources::Resource;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The extension identifier, the key under `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";

/// `skills/list` (paginated).
pub const LIST: &str = "skills/list";

/// `skills/get` (`{uri}`).
pub const GET: &str = "skills/get";

/// `resources/directory/read` (`{uri, cursor?}`), behind the `directoryRead` setting.
pub const DIRECTORY_READ: &str = "resources/directory/read";

/// The `mimeType` of a directory resource (skills.mdx "Directory Resources").
pub const DIRECTORY_MIME: &str = "inode/directory";

/// The file every skill has at its root.
pub const SKILL_MD: &str = "SKILL.md";

/// The most files one skill may have, `SKILL.md` included (skills.mdx "Limits").
pub const MAX_FILES: usize = 512;

/// The most bytes one skill's files may add up to (16 MiB, skills.mdx "Limits").
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One file of a skill with the digest and size of its raw bytes (`SkillResource`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's resource URI.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits of the raw bytes.
    pub digest: String,
    /// Length of the raw bytes.
    pub size: u64,
}

/// A skill's files: the complete manifest, or `"dynamic"` when content is generated and has no
/// stable digests.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// Every file, each once, `SKILL.md` included.
    Files(Vec<SkillResource>),
    /// The string `"dynamic"`.
    Dynamic(Dynamic),
}

/// The string `"dynamic"` (and nothing else) as a [`SkillResources`] value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

impl SkillResources {
    /// The manifest, unless the skill is dynamic.
    pub fn files(&self) -> Option<&[SkillResource]> {
        match self {
            SkillResources::Files(f) => Some(f),
            SkillResources::Dynamic(_) => None,
        }
    }
}

/// The entry of one skill (`Skill`), the same in `skills/list` and `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The `SKILL.md` YAML frontmatter verbatim as a JSON object (`name` and `description`
    /// always there).
    pub frontmatter: Map<String, Value>,
    /// The skill's files.
    pub resources: SkillResources,
}

impl Skill {
    /// `frontmatter.name` (empty when missing).
    pub fn name(&self) -> &str {
        self.frontmatter.get("name").and_then(Value::as_str).unwrap_or_default()
    }

    /// `frontmatter.description` (empty when missing).
    pub fn description(&self) -> &str {
        self.frontmatter.get("description").and_then(Value::as_str).unwrap_or_default()
    }

    /// The skill's root directory URI: `uri` without `/SKILL.md`.
    pub fn root(&self) -> &str {
        self.uri.strip_suffix("/SKILL.md").unwrap_or(&self.uri)
    }
}

/// The result of `skills/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// The skills of this page, each entry whole.
    pub skills: Vec<Skill>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Freshness in milliseconds (2026-07-28 `CacheableResult`; required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope (2026-07-28; required there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<super::CacheScope>,
}

/// The result of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The entry.
    pub skill: Skill,
}

/// The result of `resources/directory/read`: the directory's direct children.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceDirectoryResult {
    /// Files with their resource metadata, subdirectories as `inode/directory` resources.
    pub resources: Vec<Resource>,
    /// The cursor of the next page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn resources_are_an_array_or_the_word_dynamic() {
        let s: Skill = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": "dynamic"
        }))
        .unwrap();
        assert_eq!(s.resources, SkillResources::Dynamic(Dynamic::Dynamic));
        assert_eq!(serde_json::to_value(&s).unwrap()["resources"], "dynamic");
        let bad = json!({"uri": "skill://a/SKILL.md", "frontmatter": {}, "resources": "static"});
        assert!(serde_json::from_value::<Skill>(bad).is_err());
        let missing = json!({"uri": "skill://a/SKILL.md", "frontmatter": {}});
        assert!(serde_json::from_value::<Skill>(missing).is_err());
        assert_eq!(s.root(), "skill://a");
        assert_eq!(s.name(), "a");
    }
}
