//! Skills from a directory: every directory under the root that holds a `SKILL.md` is a skill,
//! its path below the root is the skill path (a `SKILL.md` at the root itself makes the root's
//! own name the path), and every file below it is one of its files, nested skills' files
//! included (SEP-2640 "Nested Skills": completeness extends to them).
//!
//! Read once, when the server is set up: names starting with `.` (`.git`, `.DS_Store`) are
//! skipped; a symbolic link is followed only when its target stays inside the root (a link
//! leaving it is refused, naming the link); the walk is bounded in depth and entries, and a
//! skill past SEP-2640's limits (512 files, 16 MiB) is refused before its files are read.
//! Between the walk and the reads a file could be swapped for a link out of the root (a time of
//! check to time of use race; rmcp #1431): each file is opened without following a final link
//! and must be the very file the walk saw (device and inode on Unix) with the size it had, so a
//! swapped file is refused, never read.

use super::SkillFiles;
use crate::error::{Error, Result};
use crate::protocol::skills::{MAX_BYTES, MAX_FILES, SKILL_MD};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// How deep the walk goes below the root.
const MAX_DEPTH: usize = 32;

/// The most directory entries the walk looks at.
const MAX_ENTRIES: usize = 100_000;

/// Reads every skill under `root`, in skill-path order.
pub fn load(root: &Path) -> Result<Vec<SkillFiles>> {
    read(root, &scan(root)?)
}

/// What the walk of a skills directory found (its files are read by [`read`]).
struct Scan {
    base: PathBuf,
    files: BTreeMap<Vec<String>, Found>,
}

/// A file the walk found: its real path, size and identity.
struct Found {
    path: PathBuf,
    size: u64,
    id: Option<(u64, u64)>,
}

fn failure(root: &Path, m: String) -> Error {
    Error::invalid_input(format!("skills directory {}: {m}", root.display()))
}

/// Walks `root` (no file is read yet).
fn scan(root: &Path) -> Result<Scan> {
    let fail = |m: String| failure(root, m);
    let base = root.canonicalize().map_err(|e| fail(e.to_string()))?;
    if !base.is_dir() {
        return Err(fail("not a directory".into()));
    }
    let mut walk = Walk { base: base.clone(), files: BTreeMap::new(), seen: BTreeSet::new(), entries: 0 };
    walk.dir(&base, &[], 0).map_err(fail)?;
    Ok(Scan { base, files: walk.files })
}

/// The identity of a file (device and inode on Unix).
fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Reads `found`: opened without following a final link, it must still be the file the walk
/// saw, with the size it had.
fn read_found(found: &Found) -> std::result::Result<Vec<u8>, String> {
    let changed = || format!("{} changed while the skills were loading", found.path.display());
    let mut open = std::fs::OpenOptions::new();
    open.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        open.custom_flags(libc::O_NOFOLLOW);
    }
    let file = open.open(&found.path).map_err(|e| match e.raw_os_error() {
        #[cfg(unix)]
        Some(libc::ELOOP) => changed(),
        _ => format!("{}: {e}", found.path.display()),
    })?;
    let meta = file.metadata().map_err(|e| format!("{}: {e}", found.path.display()))?;
    if !meta.is_file() || identity(&meta) != found.id || meta.len() != found.size {
        return Err(changed());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(found.size).unwrap_or(0));
    file.take(found.size + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {e}", found.path.display()))?;
    if bytes.len() as u64 != found.size {
        return Err(changed());
    }
    Ok(bytes)
}

/// Reads the skills of a [`scan`] of `root`.
fn read(root: &Path, scan: &Scan) -> Result<Vec<SkillFiles>> {
    let fail = |m: String| failure(root, m);
    let (base, walk) = (&scan.base, scan);
    let top = base.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut skills = Vec::new();
    for (rel, _) in walk.files.iter().filter(|(rel, _)| rel.last().is_some_and(|n| n == SKILL_MD)) {
        let dir = &rel[..rel.len() - 1];
        let skill_path = if dir.is_empty() { top.clone() } else { dir.join("/") };
        let inside: Vec<(&Vec<String>, &Found)> =
            walk.files.iter().filter(|(f, _)| f.starts_with(dir)).collect();
        if inside.len() > MAX_FILES {
            return Err(fail(format!(
                "skill {skill_path:?} has {} files, more than the {MAX_FILES} a skill may have",
                inside.len()
            )));
        }
        let total: u64 = inside.iter().map(|(_, found)| found.size).sum();
        if total > MAX_BYTES {
            return Err(fail(format!(
                "skill {skill_path:?} has {total} bytes of files, more than the {MAX_BYTES} a skill may have"
            )));
        }
        let mut skill = SkillFiles::new(skill_path);
        for (f, found) in inside {
            skill.files.insert(f[dir.len()..].join("/"), read_found(found).map_err(fail)?);
        }
        skills.push(skill);
    }
    Ok(skills)
}

/// The walk's state: the files found (path below the root → what was found there).
struct Walk {
    base: PathBuf,
    files: BTreeMap<Vec<String>, Found>,
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
                self.files.insert(child, Found { path: target, size: meta.len(), id: identity(&meta) });
            }
        }
        Ok(())
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A file swapped for a link out of the root between the walk and the read is refused, and
    /// nothing of the link's target is read (rmcp #1431).
    #[test]
    fn a_file_swapped_for_a_link_after_the_walk_is_refused() {
        let top = std::env::temp_dir().join(format!("mcpcore-skills-toctou-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&top);
        let root = top.join("skills");
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::write(root.join("notes/SKILL.md"), "---\nname: notes\ndescription: d\n---\n").unwrap();
        std::fs::write(root.join("notes/extra.md"), "inside").unwrap();
        std::fs::write(top.join("secret"), "outside").unwrap();
        let found = scan(&root).unwrap();
        assert_eq!(read(&root, &found).unwrap()[0].files["extra.md"], b"inside");
        // The swap: the file becomes a link to a file outside the root.
        std::fs::remove_file(root.join("notes/extra.md")).unwrap();
        std::os::unix::fs::symlink(top.join("secret"), root.join("notes/extra.md")).unwrap();
        let e = read(&root, &found).unwrap_err();
        assert!(e.message().contains("changed while the skills were loading"), "{e}");
        // A file that grew after the walk is refused too (its size is not the one checked).
        std::fs::remove_file(root.join("notes/extra.md")).unwrap();
        std::fs::write(root.join("notes/extra.md"), "inside, and much more").unwrap();
        assert!(read(&root, &found).is_err());
        // A fresh load reads the directory as it is now.
        assert_eq!(load(&root).unwrap()[0].files["extra.md"], b"inside, and much more");
        std::fs::remove_dir_all(&top).unwrap();
    }
}
