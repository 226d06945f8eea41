//! A `SKILL.md`'s YAML frontmatter (`skills::frontmatter::parse`, SEP-2640 "Frontmatter"), which
//! a client reads from any server's skill files when it verifies an entry. Input: the file text.
//! Properties: no panic, bounded time and memory (YAML aliases included: the parser's repetition
//! limit); an accepted frontmatter has non-empty string `name` and `description`, and compares
//! equal to itself field by field; `valid_name` never accepts a name the naming rule forbids.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpcore::skills::frontmatter::{differences, parse, valid_name};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(map) = parse(&text) {
        for field in ["name", "description"] {
            assert!(matches!(map.get(field), Some(Value::String(s)) if !s.is_empty()), "{field}");
        }
        assert!(differences(&map, &map).is_empty());
    }
    let name = text.lines().next().unwrap_or_default();
    if valid_name(name) {
        assert!(!name.is_empty() && name.len() <= 64 && !name.starts_with('-') && !name.ends_with('-'));
        assert!(name.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-'));
        assert!(!name.contains("--"));
    }
});
