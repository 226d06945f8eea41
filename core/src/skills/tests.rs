use super::*;
use crate::protocol::resources::ResourceContents;
use serde_json::json;

const PDF: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: \"2.1.0\"\n---\n# PDF\nSee references/FORMS.md.\n";

fn md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill\n---\nBody.\n")
}

fn pdf() -> SkillFiles {
    SkillFiles::new("pdf-processing")
        .file("SKILL.md", PDF)
        .file("references/FORMS.md", "Forms.\n")
        .file("templates/invoice.md", "Invoice\n")
        .file("templates/regional/eu invoice.md", "EU\n")
        .file("scripts/logo.png", vec![0x89, b'P', b'N', b'G', 0xff, 0xfe])
}

#[test]
fn an_entry_lists_every_file_with_its_digest_and_size() {
    let skills = SkillRegistry::new(Default::default());
    let entry = skills.add(pdf()).unwrap();
    assert_eq!(entry.uri, "skill://pdf-processing/SKILL.md");
    assert_eq!(entry.frontmatter["metadata"], json!({"version": "2.1.0"}));
    let files = entry.resources.files().unwrap();
    let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/references/FORMS.md",
            "skill://pdf-processing/scripts/logo.png",
            "skill://pdf-processing/templates/invoice.md",
            "skill://pdf-processing/templates/regional/eu%20invoice.md",
        ]
    );
    let md = &files[0];
    assert_eq!(md.size, PDF.len() as u64);
    // sha256 of the bytes, lowercase hex (checked against a second implementation: sha2 of the
    // same bytes computed apart from the registry).
    let hex: String = sha2::Sha256::digest(PDF.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(md.digest, format!("sha256:{hex}"));
    assert_eq!(md.digest.len(), 71);
}

#[tokio::test]
async fn files_are_resources_skill_md_named_from_its_frontmatter() {
    let skills = SkillRegistry::new(Default::default());
    skills.add(pdf()).unwrap();
    let (page, _) = skills.resources().page(None, 100).unwrap();
    let md = page.iter().find(|r| r.uri.ends_with("/SKILL.md")).unwrap();
    assert_eq!(md.name, "pdf-processing");
    assert_eq!(md.description.as_deref(), Some("Extract, fill, and assemble PDF documents"));
    assert_eq!(md.mime_type.as_deref(), Some("text/markdown"));
    let (h, req) = skills.resources().resolve("skill://pdf-processing/SKILL.md").unwrap();
    let got = h.read(req, ToolContext::local()).await.unwrap();
    assert!(matches!(&got[0], ResourceContents::Text(t) if t.text == PDF));
    let (h, req) = skills.resources().resolve("skill://pdf-processing/scripts/logo.png").unwrap();
    let got = h.read(req, ToolContext::local()).await.unwrap();
    assert!(
        matches!(&got[0], ResourceContents::Blob(b) if b.blob == "iVBOR//+" && b.mime_type.as_deref() == Some("image/png"))
    );
    for traversal in [
        "skill://pdf-processing/../pdf-processing/SKILL.md",
        "skill://pdf-processing/%2e%2e/pdf-processing/SKILL.md",
        "skill://pdf-processing/templates%2finvoice.md",
        "skill://pdf-processing/templates/regional/eu invoice.md",
    ] {
        assert!(skills.resources().resolve(traversal).is_none(), "{traversal}");
    }
}

#[test]
fn directories_list_their_direct_children() {
    let skills = SkillRegistry::new(Default::default());
    skills.add(pdf()).unwrap();
    let (children, next) = skills.directory("skill://pdf-processing/templates", None, 100).unwrap();
    assert!(next.is_none());
    let got: Vec<(&str, &str, Option<&str>)> =
        children.iter().map(|r| (r.uri.as_str(), r.name.as_str(), r.mime_type.as_deref())).collect();
    assert_eq!(
        got,
        [
            ("skill://pdf-processing/templates/invoice.md", "invoice.md", Some("text/markdown")),
            ("skill://pdf-processing/templates/regional", "regional", Some("inode/directory")),
        ]
    );
    let (root, _) = skills.directory("skill://pdf-processing", None, 2).unwrap();
    assert_eq!(root.len(), 2);
    let e = skills.directory("skill://pdf-processing/SKILL.md", None, 10).unwrap_err();
    assert_eq!(
        (e.code.0, e.message.as_str()),
        (-32602, "skill://pdf-processing/SKILL.md is not a directory resource")
    );
    assert_eq!(skills.directory("skill://pdf-processing/nope", None, 10).unwrap_err().code.0, -32602);
    assert_eq!(skills.directory("skill://pdf-processin", None, 10).unwrap_err().code.0, -32602);
}

#[test]
fn pages_hold_whole_entries_and_nested_skills_share_files() {
    let skills = SkillRegistry::new(Default::default());
    skills
        .add(
            SkillFiles::new("acme")
                .file("SKILL.md", md("acme"))
                .file("billing/refunds/SKILL.md", md("refunds")),
        )
        .unwrap();
    skills.add(SkillFiles::new("acme/billing/refunds").file("SKILL.md", md("refunds"))).unwrap();
    skills.add(SkillFiles::new("zeta").file("SKILL.md", md("zeta"))).unwrap();
    let (first, next) = skills.page_where(None, 2, |_| true).unwrap();
    assert_eq!(first.len(), 2);
    let (second, last) = skills.page_where(next.as_deref(), 2, |_| true).unwrap();
    assert_eq!((second.len(), last), (1, None));
    assert_eq!(first[0].resources.files().unwrap().len(), 2);
    // The nested SKILL.md is served once, and stays while the skill around it lists it.
    assert!(skills.remove("skill://acme/billing/refunds/SKILL.md"));
    assert!(skills.resources().resolve("skill://acme/billing/refunds/SKILL.md").is_some());
    assert!(skills.remove("skill://acme/SKILL.md"));
    assert!(skills.resources().resolve("skill://acme/billing/refunds/SKILL.md").is_none());
    assert!(!skills.remove("skill://acme/SKILL.md"));
}

#[test]
fn a_skill_that_breaks_a_rule_is_refused_with_the_rule() {
    let skills = SkillRegistry::new(Default::default());
    let refused = |s: SkillFiles| skills.add(s).unwrap_err().message().to_owned();
    assert!(refused(SkillFiles::new("Bad_Name").file("SKILL.md", md("x"))).contains("not a valid skill name"));
    assert!(refused(SkillFiles::new("a").file("README.md", "x")).contains("no SKILL.md"));
    assert!(refused(SkillFiles::new("a").file("SKILL.md", md("b"))).contains("must match"));
    assert!(refused(SkillFiles::new("a").file("SKILL.md", "no frontmatter")).contains("does not begin"));
    assert!(refused(SkillFiles::new("x/../a").file("SKILL.md", md("a"))).contains("\"..\" segment"));
    assert!(refused(SkillFiles::new("a").file("SKILL.md", md("a")).file("../etc", "x"))
        .contains("\"..\" segment"));
    assert!(refused(SkillFiles::new("a").file("SKILL.md", md("a")).file("a\0b", "x"))
        .contains("control character"));
    assert!(refused(SkillFiles::new("a").file("SKILL.md", md("a")).file("notes/x\n.md", "x"))
        .contains("control character"));
    let mut many = SkillFiles::new("a").file("SKILL.md", md("a"));
    for i in 0..512 {
        many = many.file(format!("f{i}"), "x");
    }
    assert!(refused(many).contains("513 files, more than the 512"));
    let big = SkillFiles::new("a").file("SKILL.md", md("a")).file("big", vec![b'x'; 16 * 1024 * 1024]);
    assert!(refused(big).contains("more than the 16777216"));
    skills.add(SkillFiles::new("a").file("SKILL.md", md("a"))).unwrap();
    assert!(refused(SkillFiles::new("a").file("SKILL.md", md("a"))).contains("already served"));
    assert!(skills.get("skill://a/SKILL.md").is_some());
}

/// A fresh directory under the system's temporary directory.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpcore-skills-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

use std::path::PathBuf;

fn write(root: &std::path::Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_directory_of_skill_trees_loads_every_skill_with_its_files() {
    let root = scratch("load");
    write(&root, "pdf-processing/SKILL.md", PDF);
    write(&root, "pdf-processing/references/FORMS.md", "Forms.\n");
    write(&root, "pdf-processing/.DS_Store", "junk");
    write(&root, "acme/billing/refunds/SKILL.md", &md("refunds"));
    write(&root, "acme/billing/refunds/examples/email.md", "Dear …\n");
    write(&root, "notes.txt", "not in any skill");
    let loaded = dir::load(&root).unwrap();
    let paths: Vec<&str> = loaded.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths, ["acme/billing/refunds", "pdf-processing"]);
    let files: Vec<&String> = loaded[1].files.keys().collect();
    assert_eq!(files, ["SKILL.md", "references/FORMS.md"]);
    let skills = SkillRegistry::new(Default::default());
    for s in loaded {
        skills.add(s).unwrap();
    }
    assert!(skills.get("skill://acme/billing/refunds/SKILL.md").is_some());
    // A SKILL.md at the root makes the root itself the skill.
    let single = scratch("single").join("git-workflow");
    write(&single, "SKILL.md", &md("git-workflow"));
    assert_eq!(dir::load(&single).unwrap()[0].path, "git-workflow");
    let _ = std::fs::remove_dir_all(root);
}

#[cfg(unix)]
#[test]
fn a_link_out_of_the_skills_directory_is_refused_and_one_inside_is_followed() {
    let root = scratch("links");
    let outside = scratch("outside");
    write(&outside, "secret.txt", "password");
    write(&root, "a/SKILL.md", &md("a"));
    write(&root, "shared/style.md", "Style.\n");
    std::os::unix::fs::symlink(root.join("shared/style.md"), root.join("a/style.md")).unwrap();
    std::os::unix::fs::symlink(root.join("a"), root.join("a/loop")).unwrap();
    let loaded = dir::load(&root).unwrap();
    assert_eq!(loaded[0].files["style.md"], b"Style.\n");
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("a/secret.txt")).unwrap();
    let e = dir::load(&root).unwrap_err();
    assert!(e.message().contains("outside the skills directory"), "{e:?}");
    let _ = std::fs::remove_dir_all(root);
    let _ = std::fs::remove_dir_all(outside);
}

#[test]
fn a_tree_past_the_limits_is_refused_before_its_files_are_read() {
    let root = scratch("limits");
    write(&root, "big/SKILL.md", &md("big"));
    std::fs::write(root.join("big/blob.bin"), vec![0u8; 16 * 1024 * 1024]).unwrap();
    let e = dir::load(&root).unwrap_err();
    assert!(e.message().contains("more than the 16777216"), "{e:?}");
    let _ = std::fs::remove_dir_all(root);
}

#[test]
fn a_directory_is_served_whole_or_not_at_all() {
    let root = scratch("whole");
    write(&root, "alpha/SKILL.md", &md("alpha"));
    write(&root, "beta/SKILL.md", &md("not-beta"));
    let skills = SkillRegistry::new(Default::default());
    let e = skills.add_dir(&root).unwrap_err();
    assert!(e.message().contains("must match"), "{e:?}");
    assert!(skills.is_empty() && skills.resources().is_empty(), "alpha was taken back");
    write(&root, "beta/SKILL.md", &md("beta"));
    let entries = skills.add_dir(&root).unwrap();
    assert_eq!(entries.iter().map(|s| s.name()).collect::<Vec<_>>(), ["alpha", "beta"]);
    let _ = std::fs::remove_dir_all(root);
}
