//! Credentials from the environment, for servers on stdio. The authorization spec is for HTTP;
//! "implementations using an STDIO transport SHOULD NOT follow this specification, and instead
//! retrieve credentials from the environment" (2025-11-25 `basic/authorization`, "Protocol
//! Requirements"; the same in 2026-07-28). So a stdio server with an [`AuthConfig`] reads its
//! caller's access token from an environment variable once, at start, checks it with the same
//! verifier and scopes as over HTTP, and serves every request as that identity, with the same
//! per-identity catalogue.

use super::{AuthConfig, Refusal, ScopeMode};
use crate::auth::AuthError;
use crate::context::{Identity, Origin};
use crate::error::{Error, Result};
use std::sync::Arc;

/// The environment variable a stdio server reads its caller's access token from by default.
pub const TOKEN_ENV: &str = "MCP_ACCESS_TOKEN";

impl AuthConfig {
    /// The origin every request of a stdio server gets: the identity of `token` (read from the
    /// environment by the caller, e.g. from [`TOKEN_ENV`]) and the catalogue it may see. A
    /// missing token, one the verifier refuses, or one without the required scopes is an
    /// [`ErrorKind::Auth`](crate::ErrorKind::Auth) error: the server should not start.
    ///
    /// A stdio server has no way to challenge for more scopes, so [`ScopeMode::StepUp`] acts as
    /// [`ScopeMode::Hide`] here: what the token does not reach does not exist for it.
    pub async fn stdio_origin(&self, token: Option<&str>) -> Result<Arc<Origin>> {
        let token = token.map(str::trim).filter(|t| !t.is_empty()).ok_or_else(|| {
            refused(401, "invalid_token", format!("no access token: set {TOKEN_ENV} for this stdio server"))
        })?;
        let identity: Identity = self.verifier.verify(token).await.map_err(|r| {
            let status = r.status();
            match r {
                Refusal::InvalidToken(d) => refused(status, "invalid_token", d),
                Refusal::InsufficientScope { description, .. } => {
                    refused(status, "insufficient_scope", description)
                }
                Refusal::Unavailable(d) => refused(status, "temporarily_unavailable", d),
            }
        })?;
        if !identity.has_scopes(self.required_scopes.iter().map(String::as_str)) {
            let why =
                format!("the token lacks a scope this server requires ({})", self.required_scopes.join(" "));
            return Err(refused(403, "insufficient_scope", why));
        }
        let mut hiding = self.clone();
        hiding.scope_mode = ScopeMode::Hide;
        let mut origin = Origin { identity: Some(Arc::new(identity)), ..Origin::default() };
        origin.extensions.insert(hiding.catalog_view());
        origin.extensions.insert(crate::context::CallerToken(token.into()));
        Ok(Arc::new(origin))
    }
}

fn refused(status: u16, error: &str, description: impl Into<String>) -> Error {
    Error::auth(AuthError::new(error, description).with_status(status))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Access, Entry};

    fn config() -> AuthConfig {
        let verifier = |token: String| async move {
            match token.as_str() {
                "reader" => Ok(Identity {
                    subject: Some("r".into()),
                    scopes: vec!["mcp:read".into()],
                    ..Default::default()
                }),
                "adder" => Ok(Identity {
                    subject: Some("a".into()),
                    scopes: vec!["mcp:read".into(), "mcp:add".into()],
                    ..Default::default()
                }),
                "down" => Err(Refusal::Unavailable("the issuer is down".into())),
                _ => Err(Refusal::InvalidToken("unknown token".into())),
            }
        };
        let mut c = AuthConfig::new(Arc::new(verifier), "https://mcp.example/mcp", ["https://as.example"]);
        c.tool_scopes.insert("add".into(), vec!["mcp:add".into()]);
        c.scope_mode = ScopeMode::StepUp;
        c
    }

    fn block<T>(f: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    #[test]
    fn the_token_decides_the_catalogue_even_under_step_up() {
        let c = config();
        let reader = block(c.stdio_origin(Some("reader"))).unwrap();
        assert_eq!(reader.identity.as_ref().unwrap().subject.as_deref(), Some("r"));
        assert!(!reader.allows(&Entry::Tool("add"), Access::List));
        assert!(!reader.allows(&Entry::Tool("add"), Access::Use));
        assert!(reader.allows(&Entry::Tool("echo"), Access::Use));
        let adder = block(c.stdio_origin(Some(" adder\n"))).unwrap();
        assert!(adder.allows(&Entry::Tool("add"), Access::Use));
    }

    #[test]
    fn refusals_are_auth_errors_with_their_status() {
        let c = config();
        for (token, status, error) in [
            (None, 401, "invalid_token"),
            (Some(""), 401, "invalid_token"),
            (Some("mallory"), 401, "invalid_token"),
            (Some("down"), 503, "temporarily_unavailable"),
        ] {
            let e = block(c.stdio_origin(token)).unwrap_err();
            assert_eq!(e.kind(), crate::ErrorKind::Auth, "{token:?}");
            let a = e.auth_error().unwrap();
            assert_eq!((a.status, a.error.as_str()), (Some(status), error), "{token:?}: {e}");
        }
        let mut strict = config();
        strict.required_scopes = vec!["mcp:admin".into()];
        let e = block(strict.stdio_origin(Some("adder"))).unwrap_err();
        assert_eq!(e.auth_error().unwrap().error, "insufficient_scope");
        assert!(e.to_string().contains("mcp:admin"), "{e}");
    }
}
