//! Name patterns of catalogue entries: `*` wildcards (gateway `include` / `exclude`,
//! visibility rules).

/// `*`-glob matching: `*` matches any run of characters (none included), everything else itself.
pub fn glob(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else { return false };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else { return rest.is_empty() };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob("echo", "echo"));
        assert!(!glob("echo", "echo2"));
        assert!(glob("*", ""));
        assert!(glob("get_*", "get_sum"));
        assert!(!glob("get_*", "xget_sum"));
        assert!(glob("*_debug", "a_debug"));
        assert!(glob("a*b*c", "aXbYc"));
        assert!(!glob("a*b*c", "aXcYb"));
        assert!(!glob("ab*ba", "aba"));
    }
}
