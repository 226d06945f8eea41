//! Skills a server serves (the Skills extension, SEP-2640, `io.modelcontextprotocol/skills`;
//! ext-skills `specification/stable/skills.mdx`): each skill is a tree of files with a
//! `SKILL.md` at its root, every file a resource `skill://<skill-path>/<file-path>` read with
//! `resources/read`; `skills/list` and `skills/get` give each skill's entry (its frontmatter and
//! the digest and size of every file); `resources/directory/read` lists a directory's children.
//!
//! Skills come from a directory ([`dir::load`]) or from memory ([`SkillFiles`]). Their bytes are
//! read once, at registration, and served from memory: a read can only reach a file that was
//! registered under its exact URI, so no URI (`..`, `%2e%2e`, `%2f`) reaches anything else.
//!
//! ```
//! use mcpcore::skills::{SkillFiles, SkillRegistry};
//! let skills = SkillRegistry::new(Default::default());
//! let md = "---\nname: git-workflow\ndescription: Our Git conventions\n---\nBranch from main.\n";
//! skills.add(SkillFiles::new("git-workflow").file("SKILL.md", md).file("refs/commits.md", "feat: …")).unwrap();
//! let skill = skills.get("skill://git-workflow/SKILL.md").unwrap();
//! assert_eq!(skill.name(), "git-workflow");
//! assert_eq!(skill.resources.files().unwrap().len(), 2);
//! assert!(skills.resources().resolve("skill://git-workflow/refs/commits.md").is_some());
//! ```

pub mod dir;
pub mod frontmatter;

use crate::error::{Error, ErrorData, Result};
use crate::protocol::resources::{BlobResourceContents, Resource, ResourceContents};
use crate::protocol::skills::{
    Skill, SkillResource, SkillResources, DIRECTORY_MIME, MAX_BYTES, MAX_FILES, SKILL_MD,
};
use crate::registry::{page_of, ToolContext};
use crate::resources::{ReadRequest, ResourceHandler, ResourceRegistry};
use base64::Engine as _;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, CONTROLS};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// The scheme of the skills served here (skills.mdx "Resource Mapping": servers SHOULD use it).
pub const SCHEME: &str = "skill://";

/// What a URI path segment may hold as is (RFC 3986 `pchar`); the rest is percent-encoded.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// One skill's files in memory, before [`SkillRegistry::add`] checks and serves them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillFiles {
    /// The skill path: `/`-separated segments, the last one the skill's `name`
    /// (`acme/billing/refunds`).
    pub path: String,
    /// Each file's bytes by its path in the skill (`/`-separated: `SKILL.md`,
    /// `references/FORMS.md`).
    pub files: BTreeMap<String, Vec<u8>>,
}

impl SkillFiles {
    /// No files yet for the skill at `path`.
    pub fn new(path: impl Into<String>) -> Self {
        SkillFiles { path: path.into(), files: BTreeMap::new() }
    }

    /// Adds (or replaces) the file at `path` in the skill.
    pub fn file(mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        self.files.insert(path.into(), bytes.into());
        self
    }
}

/// A served file: its descriptor and how many registered skills list it (a nested skill's
/// files belong to the skills around it too).
struct Served {
    resource: Resource,
    owners: usize,
    /// Registered in the resource registry by this registry (a forwarded skill's file that
    /// the resource registry already served is left to its registration).
    ours: bool,
}

/// The skills of a server and the resource registry their files are served from. Every method
/// takes `&self`; cheap to share behind an `Arc`.
pub struct SkillRegistry {
    skills: RwLock<BTreeMap<String, Arc<Skill>>>,
    files: RwLock<BTreeMap<String, Served>>,
    resources: Arc<ResourceRegistry>,
}

impl std::fmt::Debug for SkillRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let skills: Vec<String> = self.skills.read().expect("lock").keys().cloned().collect();
        f.debug_struct("SkillRegistry").field("skills", &skills).finish()
    }
}

impl SkillRegistry {
    /// No skills; their files will be served from `resources` (the server's resource registry).
    pub fn new(resources: Arc<ResourceRegistry>) -> Self {
        SkillRegistry { skills: RwLock::default(), files: RwLock::default(), resources }
    }

    /// The resource registry the skills' files are served from.
    pub fn resources(&self) -> &Arc<ResourceRegistry> {
        &self.resources
    }

    /// True when no skill is registered.
    pub fn is_empty(&self) -> bool {
        self.skills.read().expect("lock").is_empty()
    }

    /// Checks and serves one skill; returns its entry. Refused, with the reason: a path whose
    /// last segment is not a valid skill name or whose segments are empty, `.` or `..`; no
    /// `SKILL.md`, or one whose frontmatter lacks `name` or `description` or names another
    /// skill; more than 512 files or 16 MiB (SEP-2640 "Limits"); a skill or file URI already
    /// served.
    pub fn add(&self, skill: SkillFiles) -> Result<Skill> {
        let at = |m: String| Error::invalid_input(format!("skill {:?}: {m}", skill.path));
        let segments = check_path(&skill.path).map_err(at)?;
        let name = segments.last().expect("checked: one segment at least");
        if !frontmatter::valid_name(name) {
            return Err(at(format!(
                "{name:?} is not a valid skill name (1-64 lowercase letters, digits and single hyphens, not first or last)"
            )));
        }
        let md = skill.files.get(SKILL_MD).ok_or_else(|| at("no SKILL.md at its root".into()))?;
        let md = std::str::from_utf8(md).map_err(|_| at("SKILL.md is not UTF-8".into()))?;
        let front = frontmatter::parse(md).map_err(at)?;
        if front["name"] != name.as_str() {
            return Err(at(format!(
                "SKILL.md names the skill {}, but its directory is {name:?} (they must match)",
                front["name"]
            )));
        }
        if skill.files.len() > MAX_FILES {
            return Err(at(format!(
                "{} files, more than the {MAX_FILES} a skill may have",
                skill.files.len()
            )));
        }
        let total: u64 = skill.files.values().map(|b| b.len() as u64).sum();
        if total > MAX_BYTES {
            return Err(at(format!("{total} bytes of files, more than the {MAX_BYTES} a skill may have")));
        }
        let root = format!("{SCHEME}{}", encode(&segments));
        let mut manifest = Vec::with_capacity(skill.files.len());
        let mut descriptors = Vec::with_capacity(skill.files.len());
        for (path, bytes) in &skill.files {
            let file_segments = check_path(path).map_err(|m| at(format!("file {path:?}: {m}")))?;
            let uri = format!("{root}/{}", encode(&file_segments));
            manifest.push(SkillResource {
                uri: uri.clone(),
                digest: digest(bytes),
                size: bytes.len() as u64,
            });
            let mut resource = file_resource(&uri, file_segments.last().expect("one segment"), bytes);
            if path == SKILL_MD {
                as_skill_md(&mut resource, name, front["description"].as_str().unwrap_or_default());
            }
            descriptors.push((resource, Arc::<[u8]>::from(bytes.as_slice())));
        }
        let entry = Skill {
            uri: format!("{root}/{SKILL_MD}"),
            frontmatter: front,
            resources: SkillResources::Files(manifest),
        };
        let mut skills = self.skills.write().expect("lock");
        if skills.contains_key(&entry.uri) {
            return Err(at(format!("{} is already served", entry.uri)));
        }
        let mut files = self.files.write().expect("lock");
        let mut added: Vec<String> = Vec::new();
        for (resource, bytes) in descriptors {
            let mime = resource.mime_type.clone();
            let read = move |req: ReadRequest, _: ToolContext| {
                let contents = contents(req.uri, mime.clone(), &bytes);
                async move { Ok(vec![contents]) }
            };
            // resources/list shows each skill's SKILL.md (skills.mdx "Resource Metadata"); the
            // other files are read by URI, as their entry lists them.
            let listed = resource.uri.ends_with("/SKILL.md");
            self.take_file(&mut files, &mut added, resource, listed, Some(Arc::new(read))).map_err(&at)?;
        }
        skills.insert(entry.uri.clone(), Arc::new(entry.clone()));
        Ok(entry)
    }

    /// Serves every skill under the directory `root` ([`dir::load`]) and returns their entries;
    /// when one is refused, none of them stays served and its error is returned.
    pub fn add_dir(&self, root: &std::path::Path) -> Result<Vec<Skill>> {
        let mut entries: Vec<Skill> = Vec::new();
        for skill in dir::load(root)? {
            match self.add(skill) {
                Ok(entry) => entries.push(entry),
                Err(e) => {
                    for added in &entries {
                        self.remove(&added.uri);
                    }
                    return Err(e);
                }
            }
        }
        Ok(entries)
    }

    /// Serves an entry made elsewhere (another server's skill, forwarded by a gateway): its
    /// files are read through `reader`, except those the resource registry already serves
    /// (listed by the same server as resources). The entry is taken as it is, after the checks
    /// a host makes of it: a `SKILL.md` URI whose last path segment is the frontmatter's valid
    /// `name`, and every file inside the skill's directory.
    pub fn add_entry(&self, entry: Skill, reader: Arc<dyn ResourceHandler>) -> Result<()> {
        let at = |m: String| Error::invalid_input(format!("skill {}: {m}", entry.uri));
        let root = entry
            .uri
            .strip_suffix("/SKILL.md")
            .ok_or_else(|| at("the URI does not end in /SKILL.md".into()))?;
        let name = root.rsplit('/').next().unwrap_or_default();
        if !frontmatter::valid_name(name) || entry.name() != name {
            return Err(at(format!("{name:?} is not a valid skill name equal to frontmatter.name")));
        }
        let manifest = entry.resources.files().unwrap_or_default();
        let inside = format!("{root}/");
        if let Some(f) = manifest.iter().find(|f| !f.uri.starts_with(&inside)) {
            return Err(at(format!("{} is outside the skill's directory", f.uri)));
        }
        let mut skills = self.skills.write().expect("lock");
        if skills.contains_key(&entry.uri) {
            return Err(at("already served".into()));
        }
        let mut files = self.files.write().expect("lock");
        let mut added: Vec<String> = Vec::new();
        for f in manifest {
            let segment = f.uri.rsplit('/').next().unwrap_or_default();
            let name = percent_decode_str(segment).decode_utf8_lossy().into_owned();
            let mut resource = file_resource(&f.uri, &name, b"");
            resource.size = Some(f.size);
            let own_md = f.uri == entry.uri;
            if own_md {
                as_skill_md(&mut resource, entry.name(), entry.description());
            }
            // A file the resource registry already serves (the upstream listed it) keeps that
            // registration.
            let read = self.resources.resolve(&f.uri).is_none().then(|| reader.clone());
            self.take_file(&mut files, &mut added, resource, own_md, read).map_err(&at)?;
        }
        skills.insert(entry.uri.clone(), Arc::new(entry));
        Ok(())
    }

    /// Stops serving the skill whose `SKILL.md` is at `uri` (and the files no other skill
    /// lists); false when there was none.
    pub fn remove(&self, uri: &str) -> bool {
        let Some(skill) = self.skills.write().expect("lock").remove(uri) else { return false };
        let uris: Vec<String> =
            skill.resources.files().unwrap_or_default().iter().map(|r| r.uri.clone()).collect();
        release(&mut self.files.write().expect("lock"), &self.resources, &uris);
        true
    }

    /// The entry of the skill whose `SKILL.md` is at `uri`.
    pub fn get(&self, uri: &str) -> Option<Arc<Skill>> {
        self.skills.read().expect("lock").get(uri).cloned()
    }

    /// One page of entries (by URI order, each whole) that `keep` accepts, and the next cursor;
    /// a bad cursor is `-32602`.
    pub fn page_where(
        &self,
        cursor: Option<&str>,
        size: usize,
        keep: impl Fn(&Skill) -> bool,
    ) -> Result<(Vec<Arc<Skill>>, Option<String>), ErrorData> {
        page_of(&self.skills.read().expect("lock"), cursor, size, |s| keep(s), |s| s.clone())
    }

    /// One page of the direct children of the directory `uri` (written without a trailing
    /// slash): files with their resource metadata, subdirectories as `inode/directory`
    /// resources. `-32602` when `uri` is a file or no served directory (skills.mdx "Reading
    /// Directories").
    pub fn directory(
        &self,
        uri: &str,
        cursor: Option<&str>,
        size: usize,
    ) -> Result<(Vec<Resource>, Option<String>), ErrorData> {
        let files = self.files.read().expect("lock");
        if files.contains_key(uri) {
            return Err(ErrorData::invalid_params(format!("{uri} is not a directory resource"))
                .with_data(serde_json::json!({ "uri": uri })));
        }
        let prefix = format!("{uri}/");
        let mut children: BTreeMap<String, Resource> = BTreeMap::new();
        for (file, served) in files.range(prefix.clone()..) {
            let Some(rest) = file.strip_prefix(&prefix) else { break };
            match rest.split_once('/') {
                None => {
                    children.insert(file.clone(), served.resource.clone());
                }
                Some((dir, _)) => {
                    let dir_uri = format!("{prefix}{dir}");
                    children.entry(dir_uri.clone()).or_insert_with(|| directory_resource(dir_uri, dir));
                }
            }
        }
        if children.is_empty() {
            return Err(ErrorData::invalid_params(format!("No directory is served at {uri}"))
                .with_data(serde_json::json!({ "uri": uri })));
        }
        page_of(&children, cursor, size, |_| true, |r| r.clone())
    }
}

impl SkillRegistry {
    /// Counts one more skill listing `resource`'s file: registered in the resource registry
    /// (listed or not) with `read` the first time, when `read` is given; kept as the registry's
    /// own otherwise. On a refused registration, the files `added` so far for this skill are
    /// released and the registry's message is returned.
    fn take_file(
        &self,
        files: &mut BTreeMap<String, Served>,
        added: &mut Vec<String>,
        resource: Resource,
        listed: bool,
        read: Option<Arc<dyn ResourceHandler>>,
    ) -> std::result::Result<(), String> {
        let uri = resource.uri.clone();
        if let Some(served) = files.get_mut(&uri) {
            served.owners += 1;
            added.push(uri);
            return Ok(());
        }
        let ours = read.is_some();
        if let Some(read) = read {
            let read = move |req: ReadRequest, ctx: ToolContext| read.read(req, ctx);
            let outcome = match listed {
                true => self.resources.add(resource.clone(), read),
                false => self.resources.add_unlisted(resource.clone(), read),
            };
            if let Err(e) = outcome {
                release(files, &self.resources, added);
                return Err(e.message().to_owned());
            }
        }
        files.insert(uri.clone(), Served { resource, owners: 1, ours });
        added.push(uri);
        Ok(())
    }
}

/// Makes `resource` a skill's `SKILL.md` descriptor: named and described from its frontmatter,
/// `text/markdown` (skills.mdx "Resource Metadata").
fn as_skill_md(resource: &mut Resource, name: &str, description: &str) {
    resource.name = name.to_owned();
    resource.description = Some(description.to_owned());
    resource.mime_type = Some("text/markdown".into());
}

/// Stops serving each of `uris` that no other skill lists any more.
fn release(files: &mut BTreeMap<String, Served>, resources: &ResourceRegistry, uris: &[String]) {
    for uri in uris {
        let Some(served) = files.get_mut(uri) else { continue };
        served.owners -= 1;
        if served.owners == 0 {
            let ours = served.ours;
            files.remove(uri);
            if ours {
                resources.remove(uri);
            }
        }
    }
}

/// The segments of a `/`-separated path: none empty, `.` or `..`, none holding `\` or a
/// control character (a NUL above all: no file system name holds one, and a C API would cut
/// the path there; rmcp #1452).
fn check_path(path: &str) -> std::result::Result<Vec<String>, String> {
    if path.is_empty() {
        return Err("the path is empty".into());
    }
    path.split('/')
        .map(|s| match s {
            "" => Err(format!("{path:?} has an empty segment")),
            "." | ".." => Err(format!("{path:?} has a {s:?} segment")),
            s if s.contains('\\') => Err(format!("{path:?} has a backslash")),
            s if s.chars().any(char::is_control) => Err(format!("{path:?} has a control character")),
            s => Ok(s.to_owned()),
        })
        .collect()
}

/// The segments joined by `/`, each percent-encoded where it is not a URI `pchar`.
fn encode(segments: &[String]) -> String {
    let encoded: Vec<String> = segments.iter().map(|s| utf8_percent_encode(s, SEGMENT).to_string()).collect();
    encoded.join("/")
}

/// `sha256:` and the 64 lowercase hex digits of the SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(71);
    out.push_str("sha256:");
    for b in hash {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// A file's descriptor: its name, the MIME type its extension says (text/plain or
/// application/octet-stream when unknown, by whether it is UTF-8), its size.
fn file_resource(uri: &str, name: &str, bytes: &[u8]) -> Resource {
    Resource {
        uri: uri.to_owned(),
        name: name.to_owned(),
        title: None,
        description: None,
        mime_type: Some(mime_for(name, bytes).to_owned()),
        size: Some(bytes.len() as u64),
        annotations: None,
        icons: None,
        meta: None,
    }
}

fn directory_resource(uri: String, segment: &str) -> Resource {
    let name = percent_decode_str(segment).decode_utf8_lossy().into_owned();
    Resource {
        uri,
        name,
        title: None,
        description: None,
        mime_type: Some(DIRECTORY_MIME.into()),
        size: None,
        annotations: None,
        icons: None,
        meta: None,
    }
}

/// The contents of a read: text when the bytes are UTF-8 (the same bytes the digest covers),
/// base64 otherwise.
fn contents(uri: String, mime_type: Option<String>, bytes: &[u8]) -> ResourceContents {
    match std::str::from_utf8(bytes) {
        Ok(text) => ResourceContents::text(uri, mime_type, text),
        Err(_) => ResourceContents::Blob(BlobResourceContents {
            uri,
            mime_type,
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            meta: None,
        }),
    }
}

/// The MIME type of a file named `name`: by its extension, else by whether it is text.
pub fn mime_for(name: &str, bytes: &[u8]) -> &'static str {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "py" => "text/x-python",
        "sh" | "bash" => "text/x-shellscript",
        "js" | "mjs" | "cjs" => "text/javascript",
        "ts" => "text/x-typescript",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests;
