//! Where a request came from, as handlers learn it ([`Origin`]): its headers, the identity the
//! authorization layer verified, the session and the request's extensions; shared by every
//! HTTP transport of the server (Streamable HTTP, both lineages, and the 2024-11-05 SSE one).

use crate::context::{Identity, Origin};
use axum::http::request::Parts;
use std::sync::Arc;

/// What handlers learn of where a request came from: its headers, the identity the
/// authorization layer verified (an `Arc<Identity>` request extension), the session, and the
/// request's extensions.
pub(crate) fn origin(parts: &Parts, session: Option<&str>) -> Arc<Origin> {
    Arc::new(Origin {
        headers: Some(parts.headers.clone()),
        identity: parts.extensions.get::<Arc<Identity>>().cloned(),
        session_id: session.map(str::to_owned),
        extensions: parts.extensions.clone(),
        peer: parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0),
    })
}

/// [`origin`] of a request in `session` (if any), taking its headers and extensions (no copy).
pub(crate) fn into_origin(parts: Parts, session: Option<String>) -> Arc<Origin> {
    Arc::new(Origin {
        identity: parts.extensions.get::<Arc<Identity>>().cloned(),
        peer: parts.extensions.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0),
        headers: Some(parts.headers),
        session_id: session,
        extensions: parts.extensions,
    })
}

/// The client a request comes from, for per-client limits ([`Origin::client_key`]).
pub(crate) fn client_key(ext: &axum::http::Extensions) -> Option<crate::context::ClientKey> {
    let origin = Origin {
        identity: ext.get::<Arc<Identity>>().cloned(),
        peer: ext.get::<axum::extract::ConnectInfo<std::net::SocketAddr>>().map(|c| c.0),
        ..Origin::default()
    };
    origin.client_key()
}
