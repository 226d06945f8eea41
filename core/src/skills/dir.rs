//! Skills from a directory: every directory under the root that holds a `SKILL.md` is a skill,
//! its path below the root is the skill path (a `SKILL.md` at the root itself makes the root's
//! own name the path), and every file below it is one of its files, nested skills' files
//! included (SEP-2640 "Nested Skills": completeness extends to them).
//!
//! Read once, when the server is set up: names starting with `.` (`.git`, `.DS_Store`) are
//! skipped; a symbolic link is followed only when its target stays inside the root (a link
//! leaving it is refused, naming the link); the walk is bounded in depth and entries, and a
//! skill past SEP-2640's limits (512 files, 16 MiB) is refused before its files are read.

use super::SkillFiles;
use crate::error::{Error, Result};
use crate::protocol::skills::{MAX_BYTES, MAX_FILES, SKILL_MD};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// How deep the walk goes below the root.
const MAX_DEPTH: usize = 32;

/// The most directory entries the walk looks at.
const MAX_ENTRIES: usize = 100_000;

/// Reads every skill under `root`, in skill-path order.
pub fn load(root: &Path) -> Result<Vec<SkillFiles>> {
    let fail = |m: String| Error::invalid_input(format!("skills directory {}: {m}", root.display()));
    let base = root.canonicalize().map_err(|e| fail(e.to_string()))?;
    if !base.is_dir() {
        return Err(fail("not a directory".into()));
    }
    let mut walk = Walk { base: base.clone(), files: BTreeMap::new(), seen: BTreeSet::new(), entries: 0 };
    walk.dir(&base, &[], 0).map_err(fail)?;
    let top = base.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut skills = Vec::new();
    for (rel, _) in walk.files.iter().filter(|(rel, _)| rel.last().is_some_and(|n| n == SKILL_MD)) {
        let dir = &rel[..rel.len() - 1];
        let skill_path = if dir.is_empty() { top.clone() } else { dir.join("/") };
        let inside: Vec<(&Vec<String>, &(PathBuf, u64))> =
            walk.files.iter().filter(|(f, _)| f.starts_with(dir)).collect();
        if inside.len() > MAX_FILES {
            return Err(fail(format!(
                "skill {skill_path:?} has {} files, more than the {MAX_FILES} a skill may have",
                inside.len()
            )));
        }
        let total: u64 = inside.iter().map(|(_, (_, size))| size).sum();
        if total > MAX_BYTES {
            return Err(fail(format!(
                "skill {skill_path:?} has {total} bytes of files, more than the {MAX_BYTES} a skill may have"
            )));
        }
        let mut skill = SkillFiles::new(skill_path);
        for (f, (path, _)) in inside {
            let bytes = std::fs::read(path).map_err(|e| fail(format!("{}: {e}", path.display())))?;
            skill.files.insert(f[dir.len()..].join("/"), bytes);
        }
        skills.push(skill);
    }
    Ok(skills)
}

/// The walk's state: the files found (path below the root → real path and size).
struct Walk {
    base: PathBuf,
    files: BTreeMap<Vec<String>, (PathBuf, u64)>,
    /// Real directories entered (a link back up would loop).
    seen: BTreeSet<PathBuf>,
    entries: usize,
}

impl Walk {
    fn dir(&mut self, real: &Path, rel: &[String], depth: usize) -> std::result::Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("{} is more than {MAX_DEPTH} directories deep", rel.join("/")));
        }
        if !self.seen.insert(real.to_path_buf()) {
            return Ok(());
        }
        let list = std::fs::read_dir(real).map_err(|e| format!("{}: {e}", real.display()))?;
        for entry in list {
            let entry = entry.map_err(|e| format!("{}: {e}", real.display()))?;
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                return Err(format!("more than {MAX_ENTRIES} entries"));
            }
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(format!("{}: a file name that is not UTF-8", entry.path().display()));
            };
            if name.starts_with('.') {
                continue;
            }
            let path = entry.path();
            let target = path.canonicalize().map_err(|e| format!("{}: {e}", path.display()))?;
            if !target.starts_with(&self.base) {
                return Err(format!(
                    "{} is a link to {}, outside the skills directory",
                    path.display(),
                    target.display()
                ));
            }
            let mut child = rel.to_vec();
            child.push(name.to_owned());
            let meta = std::fs::metadata(&target).map_err(|e| format!("{}: {e}", path.display()))?;
            if meta.is_dir() {
                self.dir(&target, &child, depth + 1)?;
            } else if meta.is_file() {
                self.files.insert(child, (target, meta.len()));
            }
        }
        Ok(())
    }
}
