//! `WWW-Authenticate` challenges (sans-IO): parsing what a resource server sends with 401 and
//! 403 (RFC 9110 §11.6.1 syntax; the `Bearer` parameters of RFC 6750 §3 and RFC 9728 §5.1;
//! the `DPoP` scheme of RFC 9449 §7.1).
//!
//! A header value may hold several challenges and several headers may be present:
//! `Bearer realm="x", scope="a b", DPoP algs="ES256"` is two challenges. Parameter names and
//! schemes compare case-insensitively; quoted values lose their quotes and `\` escapes.

/// One challenge: a scheme and its parameters (or a `token68`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The auth scheme as sent (`Bearer`, `DPoP`…).
    pub scheme: String,
    /// `name=value` parameters in order; names lowercased.
    pub params: Vec<(String, String)>,
    /// A `token68` instead of parameters (rare for OAuth schemes).
    pub token68: Option<String>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive), if present.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// True for the `Bearer` and `DPoP` schemes, which carry the OAuth parameters MCP uses.
    pub fn is_oauth(&self) -> bool {
        self.scheme.eq_ignore_ascii_case("bearer") || self.scheme.eq_ignore_ascii_case("dpop")
    }
}

/// What a resource server's challenges tell an OAuth client, merged over every `Bearer` and
/// `DPoP` challenge (the first value of each parameter wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthChallenge {
    /// The RFC 9728 `resource_metadata` URL.
    pub resource_metadata: Option<String>,
    /// The `scope` the request needs (space-separated).
    pub scope: Option<String>,
    /// The `error` code (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`…).
    pub error: Option<String>,
    /// The `error_description`.
    pub error_description: Option<String>,
    /// A `DPoP` challenge was present (RFC 9449 §7.1).
    pub dpop: bool,
    /// Some `Bearer` or `DPoP` challenge was present at all.
    pub present: bool,
}

impl OAuthChallenge {
    /// Merges the OAuth challenges of every `WWW-Authenticate` header value.
    pub fn from_headers<'a>(values: impl IntoIterator<Item = &'a str>) -> OAuthChallenge {
        let mut out = OAuthChallenge::default();
        for c in values.into_iter().flat_map(parse).filter(Challenge::is_oauth) {
            out.present = true;
            out.dpop |= c.scheme.eq_ignore_ascii_case("dpop");
            let take = |slot: &mut Option<String>, name: &str| {
                if slot.is_none() {
                    *slot = c.param(name).map(str::to_owned);
                }
            };
            take(&mut out.resource_metadata, "resource_metadata");
            take(&mut out.scope, "scope");
            take(&mut out.error, "error");
            take(&mut out.error_description, "error_description");
        }
        out
    }

    /// The challenged scopes, split on spaces.
    pub fn scopes(&self) -> Vec<String> {
        self.scope.as_deref().map(split_scopes).unwrap_or_default()
    }
}

/// Splits a space-separated scope string (RFC 6749 §3.3), dropping empty parts.
pub fn split_scopes(s: &str) -> Vec<String> {
    s.split(' ').filter(|p| !p.is_empty()).map(str::to_owned).collect()
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

/// Parses one `WWW-Authenticate` field value into its challenges. Malformed pieces are skipped
/// rather than failing the whole value (a client should still find `resource_metadata` in a
/// header with one odd parameter).
pub fn parse(value: &str) -> Vec<Challenge> {
    let b = value.as_bytes();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && (b[*i] == b' ' || b[*i] == b'\t') {
            *i += 1;
        }
    };
    let mut i = 0;
    let mut out: Vec<Challenge> = Vec::new();
    while i < b.len() {
        skip_ws(&mut i);
        if i < b.len() && b[i] == b',' {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_tchar(b[i]) {
            i += 1;
        }
        if start == i {
            i += 1; // not a token: skip the byte
            continue;
        }
        let word = &value[start..i];
        let mut j = i;
        skip_ws(&mut j);
        if j < b.len() && b[j] == b'=' {
            // `name=value`: a parameter of the current challenge (dropped before any scheme).
            j += 1;
            skip_ws(&mut j);
            let (v, next) = read_value(value, j);
            i = next;
            if let Some(c) = out.last_mut() {
                c.params.push((word.to_ascii_lowercase(), v));
            }
            continue;
        }
        // A new challenge: the scheme, then parameters or one token68.
        out.push(Challenge { scheme: word.to_owned(), params: Vec::new(), token68: None });
        let mut k = i;
        skip_ws(&mut k);
        if k == i {
            continue; // a comma or the end follows the scheme
        }
        let t_start = k;
        while k < b.len() && is_token68_char(b[k]) {
            k += 1;
        }
        let run_end = k;
        while k < b.len() && b[k] == b'=' {
            k += 1;
        }
        let mut after = k;
        skip_ws(&mut after);
        if run_end > t_start && (after == b.len() || b[after] == b',') {
            out.last_mut().expect("pushed").token68 = Some(value[t_start..k].to_owned());
            i = after;
            continue;
        }
        i = t_start; // parameters: the loop reads them
    }
    out
}

/// Reads a token or a quoted-string starting at `i`; returns the value and the index after it.
fn read_value(s: &str, mut i: usize) -> (String, usize) {
    let b = s.as_bytes();
    if i < b.len() && b[i] == b'"' {
        i += 1;
        let mut v = String::new();
        let mut chars = s[i..].char_indices();
        while let Some((off, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, n)) = chars.next() {
                        v.push(n);
                    }
                }
                '"' => return (v, i + off + 1),
                c => v.push(c),
            }
        }
        return (v, b.len()); // unterminated: take the rest
    }
    let start = i;
    while i < b.len() && b[i] != b',' && b[i] != b' ' && b[i] != b'\t' {
        i += 1;
    }
    (s[start..i].to_owned(), i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_example_with_resource_metadata_and_scope() {
        let v = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#;
        let c = parse(v);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].scheme, "Bearer");
        assert_eq!(
            c[0].param("resource_metadata"),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(c[0].param("SCOPE"), Some("files:read"));
    }

    #[test]
    fn insufficient_scope_with_description_and_escapes() {
        let v = r#"Bearer error="insufficient_scope", scope="files:write mcp:x", error_description="needs \"write\", sorry""#;
        let o = OAuthChallenge::from_headers([v]);
        assert_eq!(o.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(o.scopes(), vec!["files:write", "mcp:x"]);
        assert_eq!(o.error_description.as_deref(), Some(r#"needs "write", sorry"#));
        assert!(!o.dpop && o.present);
    }

    #[test]
    fn several_challenges_in_one_value_and_token_values() {
        let v = r#"Basic realm="x", DPoP algs="ES256 PS256", error=use_dpop_nonce, Bearer scope="a""#;
        let c = parse(v);
        let schemes: Vec<&str> = c.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Basic", "DPoP", "Bearer"]);
        assert_eq!(c[1].param("algs"), Some("ES256 PS256"));
        assert_eq!(c[1].param("error"), Some("use_dpop_nonce"));
        assert_eq!(c[2].param("scope"), Some("a"));
        let o = OAuthChallenge::from_headers([v]);
        assert!(o.dpop);
        assert_eq!(o.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(o.scope.as_deref(), Some("a"));
    }

    #[test]
    fn merges_several_headers_first_value_wins() {
        let o = OAuthChallenge::from_headers([
            r#"Negotiate"#,
            r#"Bearer realm="r""#,
            r#"Bearer resource_metadata="https://a/x", scope="s1""#,
            r#"Bearer scope="s2""#,
        ]);
        assert_eq!(o.resource_metadata.as_deref(), Some("https://a/x"));
        assert_eq!(o.scope.as_deref(), Some("s1"));
    }

    #[test]
    fn scheme_alone_token68_and_bws_around_equals() {
        let c = parse("Bearer");
        assert_eq!(c, vec![Challenge { scheme: "Bearer".into(), params: vec![], token68: None }]);
        let c = parse("Basic dXNlcjpwYXNz==, Bearer scope = \"a\"");
        assert_eq!(c[0].token68.as_deref(), Some("dXNlcjpwYXNz=="));
        assert_eq!(c[1].param("scope"), Some("a"));
        let c = parse("Newauth abc");
        assert_eq!(c[0].token68.as_deref(), Some("abc"));
    }

    #[test]
    fn malformed_input_does_not_panic_and_keeps_what_it_can() {
        for v in
            ["", ",,,", "=", "Bearer =", "Bearer scope=\"unterminated", "\u{e9}t\u{e9} x=y", "Bearer a=b=c"]
        {
            let _ = parse(v);
        }
        let o = OAuthChallenge::from_headers(["Bearer scope=\"unterminated"]);
        assert_eq!(o.scope.as_deref(), Some("unterminated"));
        assert!(!OAuthChallenge::from_headers(["Basic realm=x"]).present);
    }
}
