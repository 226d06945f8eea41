//! RFC 6570 URI templates, matched in reverse: which variable values make a template expand to
//! a given URI. Supports the expressions resource templates use: `{var}`, `{+var}`, `{#var}`,
//! `{/var}`, `{.var}`, `{;var}` and the query forms `{?a,b}` / `{&a}`; `*` explode modifiers
//! are accepted (matched as one value) and prefix modifiers (`:n`) are ignored.

use std::collections::BTreeMap;

/// The variables a URI matched with, percent-decoded.
pub type Variables = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Expr { op: Option<char>, names: Vec<String> },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `template`; an unclosed or empty `{}` is an error.
    pub fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let close =
                rest[open..].find('}').ok_or_else(|| format!("unclosed '{{' in {template:?}"))? + open;
            let mut body = &rest[open + 1..close];
            let op = body.chars().next().filter(|c| "+#./;?&".contains(*c));
            if let Some(c) = op {
                body = &body[c.len_utf8()..];
            }
            let names: Vec<String> = body
                .split(',')
                .map(|n| n.trim_end_matches('*').split(':').next().unwrap_or("").to_owned())
                .collect();
            if names.iter().any(String::is_empty) {
                return Err(format!("empty variable in {template:?}"));
            }
            parts.push(Part::Expr { op, names });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { source: template.to_owned(), parts })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The variable names, in order.
    pub fn variables(&self) -> Vec<&str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expr { names, .. } => names.iter().map(String::as_str).collect(),
                Part::Literal(_) => Vec::new(),
            })
            .collect()
    }

    /// The variables that make this template expand to `uri`, or `None` when it cannot.
    pub fn matches(&self, uri: &str) -> Option<Variables> {
        let mut vars = Variables::new();
        match_parts(&self.parts, uri, &mut vars).then_some(vars)
    }
}

/// Characters a value of each operator may contain when matched (so a simple `{id}` never
/// swallows a `/`, while `{+path}` may).
fn allowed(op: Option<char>, c: char) -> bool {
    match op {
        Some('+') | Some('#') => true,
        Some('?') | Some('&') => c != '#',
        _ => !matches!(c, '/' | '?' | '#' | '&' | ','),
    }
}

fn match_parts(parts: &[Part], uri: &str, vars: &mut Variables) -> bool {
    let Some((first, rest)) = parts.split_first() else { return uri.is_empty() };
    match first {
        Part::Literal(lit) => {
            uri.strip_prefix(lit.as_str()).is_some_and(|tail| match_parts(rest, tail, vars))
        }
        Part::Expr { op: Some(q @ ('?' | '&')), names } => {
            // Query forms: `?a=1&b=2` (any order, any subset), up to a fragment.
            let Some(tail) = uri.strip_prefix(*q) else { return match_parts(rest, uri, vars) };
            let end = tail.find('#').unwrap_or(tail.len());
            for pair in tail[..end].split('&') {
                let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                if names.iter().any(|n| n == k) {
                    vars.insert(k.to_owned(), decode(v));
                }
            }
            match_parts(rest, &tail[end..], vars)
        }
        Part::Expr { op, names } => {
            let (prefix, sep) = match op {
                Some('#') => ("#", ','),
                Some('/') => ("/", '/'),
                Some('.') => (".", '.'),
                Some(';') => (";", ';'),
                _ => ("", ','),
            };
            let Some(body) = uri.strip_prefix(prefix) else { return false };
            // Try every end position, longest first, so later literals can still match.
            let limit = body
                .char_indices()
                .find(|(_, c)| !allowed(*op, *c) && *c != sep)
                .map_or(body.len(), |(i, _)| i);
            let mut ends: Vec<usize> = body[..limit].char_indices().map(|(i, _)| i).skip(1).collect();
            ends.push(limit);
            for end in ends.into_iter().rev() {
                let value = &body[..end];
                let values: Vec<&str> =
                    if names.len() > 1 { value.split(sep).collect() } else { vec![value] };
                if values.len() != names.len() || values.iter().any(|v| v.is_empty()) {
                    continue;
                }
                let mut trial = vars.clone();
                for (n, v) in names.iter().zip(values) {
                    let v = if *op == Some(';') { v.strip_prefix(&format!("{n}=")).unwrap_or(v) } else { v };
                    trial.insert(n.clone(), decode(v));
                }
                if match_parts(rest, &body[end..], &mut trial) {
                    *vars = trial;
                    return true;
                }
            }
            false
        }
    }
}

/// Percent-decodes `s` (invalid escapes are kept as they are).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(s.get(i + 1..i + 3).unwrap_or(""), 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(t: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(t).unwrap().matches(uri).map(|v| v.into_iter().collect())
    }

    fn pairs(p: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(p.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect())
    }

    #[test]
    fn simple_variables_stop_at_slashes() {
        assert_eq!(m("test://template/{id}/data", "test://template/123/data"), pairs(&[("id", "123")]));
        assert_eq!(m("test://template/{id}/data", "test://template/1/2/data"), None);
        assert_eq!(m("test://template/{id}/data", "test://template//data"), None);
        assert_eq!(
            m("users://{user}/posts/{post}", "users://ann/posts/7"),
            pairs(&[("post", "7"), ("user", "ann")])
        );
        assert_eq!(m("file:///{name}.txt", "file:///a%20b.txt"), pairs(&[("name", "a b")]));
        assert_eq!(m("x://{a}", "y://b"), None);
    }

    #[test]
    fn reserved_path_and_query_forms() {
        assert_eq!(m("file:///{+path}", "file:///etc/hosts"), pairs(&[("path", "etc/hosts")]));
        assert_eq!(
            m("repo://x{/owner,name}", "repo://x/me/proj"),
            pairs(&[("name", "proj"), ("owner", "me")])
        );
        assert_eq!(
            m("search://q{?term,page}", "search://q?page=2&term=rust"),
            pairs(&[("page", "2"), ("term", "rust")])
        );
        assert_eq!(m("search://q{?term}", "search://q"), pairs(&[]));
        assert_eq!(m("doc://{id}{#frag}", "doc://7#intro"), pairs(&[("frag", "intro"), ("id", "7")]));
    }

    #[test]
    fn bad_templates_and_variable_names() {
        assert!(UriTemplate::parse("x://{id").is_err());
        assert!(UriTemplate::parse("x://{}").is_err());
        assert_eq!(UriTemplate::parse("a://{x}/{+y}{?q*}").unwrap().variables(), vec!["x", "y", "q"]);
    }
}
