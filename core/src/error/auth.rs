//! [`AuthError`]: why an authorization step failed, as the host sees it (carried by
//! [`crate::Error`] with [`crate::ErrorKind::Auth`]).

use std::fmt;

/// An authorization failure: the OAuth `error` code (from the authorization server, the
/// resource server's `WWW-Authenticate` challenge, or one of mcpcore's own refusals listed as
/// constants below), its description and URI, and the HTTP status that carried it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    /// The OAuth `error` code (`invalid_grant`, `insufficient_scope`, `access_denied`…), or an
    /// mcpcore refusal (see the associated constants).
    pub error: String,
    /// The `error_description`, or mcpcore's explanation.
    pub description: Option<String>,
    /// The `error_uri`, when the peer sent one.
    pub uri: Option<String>,
    /// The HTTP status of the response that carried the error, when there was one.
    pub status: Option<u16>,
    /// The resource server's `WWW-Authenticate` challenge(s) as received (several headers
    /// joined by `, `), when a 401 or 403 carried one.
    pub challenge: Option<String>,
}

impl AuthError {
    /// The MCP server answered 401 and the client has no authorization configured.
    pub const UNAUTHORIZED: &'static str = "unauthorized";
    /// The MCP server answered 403 without naming an OAuth error (e.g. a refused `Origin`,
    /// or a policy of the server's own).
    pub const FORBIDDEN: &'static str = "forbidden";
    /// The protected resource metadata names another resource than the server we talk to.
    pub const RESOURCE_MISMATCH: &'static str = "resource_mismatch";
    /// Authorization server metadata whose `issuer` differs from the issuer used to find it.
    pub const ISSUER_MISMATCH: &'static str = "issuer_mismatch";
    /// No usable protected resource or authorization server metadata could be found.
    pub const METADATA_NOT_FOUND: &'static str = "metadata_not_found";
    /// The authorization server does not advertise PKCE with `S256`.
    pub const PKCE_UNSUPPORTED: &'static str = "pkce_unsupported";
    /// The authorization response's `state` is missing or differs from the one sent.
    pub const STATE_MISMATCH: &'static str = "state_mismatch";
    /// The authorization response's `iss` differs from the recorded issuer (RFC 9207).
    pub const ISS_MISMATCH: &'static str = "iss_mismatch";
    /// The authorization server advertises `iss` in responses but the response had none.
    pub const ISS_MISSING: &'static str = "iss_missing";
    /// No way to obtain a client id: nothing pre-registered, no Client ID Metadata Document
    /// support, no registration endpoint.
    pub const REGISTRATION_UNAVAILABLE: &'static str = "registration_unavailable";
    /// Pre-registered credentials belong to another authorization server than the one the
    /// server now names.
    pub const CREDENTIALS_FOR_OTHER_ISSUER: &'static str = "credentials_for_other_issuer";
    /// The user-interaction step failed or was abandoned (the host's hook returned an error,
    /// the loopback listener timed out).
    pub const INTERACTION_FAILED: &'static str = "interaction_failed";
    /// The server kept refusing after the retry limit (repeated 401, or 403 `insufficient_scope`).
    pub const RETRY_LIMIT: &'static str = "retry_limit";
    /// An authorization server answered something that is not OAuth (bad JSON, wrong status,
    /// unreachable).
    pub const INVALID_RESPONSE: &'static str = "invalid_response";
    /// The configuration cannot work (e.g. the authorization code grant without a redirect hook).
    pub const INVALID_CONFIG: &'static str = "invalid_config";

    /// An error with a code and a description.
    pub fn new(error: impl Into<String>, description: impl Into<String>) -> Self {
        AuthError {
            error: error.into(),
            description: Some(description.into()),
            uri: None,
            status: None,
            challenge: None,
        }
    }

    /// Sets the HTTP status.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "authorization failed: {}", self.error)?;
        if let Some(d) = &self.description {
            write!(f, ": {d}")?;
        }
        if let Some(s) = self.status {
            write!(f, " (HTTP {s})")?;
        }
        Ok(())
    }
}

impl std::error::Error for AuthError {}

impl From<AuthError> for crate::Error {
    fn from(e: AuthError) -> Self {
        crate::Error::auth(e)
    }
}
