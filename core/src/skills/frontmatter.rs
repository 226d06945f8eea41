//! `SKILL.md` frontmatter: the YAML block between the leading `---` lines, read as a JSON
//! object (SEP-2640 "Frontmatter": the entry carries it verbatim), and the naming rule of the
//! Agent Skills specification that a skill's `name` obeys.

use serde_json::{Map, Value};

/// The frontmatter of a `SKILL.md` as a JSON object, with a non-empty string `name` and
/// `description` (the Agent Skills specification requires both). A leading byte-order mark and
/// CRLF line ends are accepted.
pub fn parse(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("SKILL.md does not begin with a `---` line opening its YAML frontmatter")?;
    let mut yaml_end = None;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            yaml_end = Some(at);
            break;
        }
        at += line.len();
    }
    let yaml = &rest[..yaml_end.ok_or("SKILL.md's frontmatter has no closing `---` line")?];
    let value: Value = if yaml.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        serde_yaml_ng::from_str(yaml).map_err(|e| format!("SKILL.md's frontmatter is not valid YAML: {e}"))?
    };
    let Value::Object(map) = value else {
        return Err("SKILL.md's frontmatter is not a YAML mapping".into());
    };
    for field in ["name", "description"] {
        match map.get(field) {
            Some(Value::String(s)) if !s.is_empty() => {}
            _ => return Err(format!("SKILL.md's frontmatter has no non-empty `{field}`")),
        }
    }
    Ok(map)
}

/// True when `name` obeys the Agent Skills naming rule: 1–64 characters of lowercase letters,
/// digits and hyphens, no hyphen first, last or twice in a row.
pub fn valid_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
        && !name.contains("--")
}

/// The fields where two frontmatters differ (a field missing on one side counts as `null`),
/// in key order: empty when they are the same field by field (SEP-2640 "Frontmatter
/// Verification").
pub fn differences(file: &Map<String, Value>, entry: &Map<String, Value>) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = file.keys().chain(entry.keys()).collect();
    keys.into_iter()
        .filter(|k| file.get(*k).unwrap_or(&Value::Null) != entry.get(*k).unwrap_or(&Value::Null))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_yaml_block_becomes_a_json_object_verbatim() {
        let md = "\u{feff}---\r\nname: pdf-processing\r\ndescription: Extract PDFs\r\nlicense: Apache-2.0\r\nmetadata:\r\n  version: \"2.1\"\r\n  tags: [a, b]\r\n---\r\n# Body\n---\n";
        let fm = parse(md).unwrap();
        assert_eq!(
            Value::Object(fm),
            json!({"name": "pdf-processing", "description": "Extract PDFs", "license": "Apache-2.0",
                   "metadata": {"version": "2.1", "tags": ["a", "b"]}})
        );
    }

    #[test]
    fn a_skill_md_without_frontmatter_or_its_fields_is_refused_with_the_reason() {
        assert!(parse("# no frontmatter").unwrap_err().contains("does not begin"));
        assert!(parse("---\nname: x\n").unwrap_err().contains("no closing"));
        assert!(parse("---\n- a\n---\n").unwrap_err().contains("not a YAML mapping"));
        assert!(parse("---\nname: x\n---\n").unwrap_err().contains("`description`"));
        assert!(parse("---\nname: x\ndescription: ''\n---\n").unwrap_err().contains("`description`"));
        assert!(parse("---\nname: [x\n---\n").unwrap_err().contains("not valid YAML"));
    }

    #[test]
    fn names_follow_the_agent_skills_rule() {
        for ok in ["a", "pdf-processing", "x9", &"a".repeat(64)] {
            assert!(valid_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a.b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn differences_name_each_field_that_differs() {
        let a = json!({"name": "x", "description": "d", "k": 1});
        let b = json!({"name": "x", "description": "e", "j": null});
        let (Value::Object(a), Value::Object(b)) = (a, b) else { unreachable!() };
        assert_eq!(differences(&a, &b), ["description", "k"]);
        assert!(differences(&a, &a).is_empty());
    }
}
