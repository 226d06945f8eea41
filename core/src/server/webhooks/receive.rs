//! A webhook endpoint for the Rust router: [`receiver_router`] mounts an
//! [`events::receiver::Receiver`](crate::events::receiver::Receiver) on an axum `Router`.

use crate::events::receiver::{Delivery, Received, Receiver};
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use std::sync::Arc;

/// A router answering POST `/` with `receiver`: the verification challenge is answered, a
/// retry acknowledged, a forgery refused (400/401); every other delivery (an occurrence, a
/// gap, a termination) goes to `on_delivery` before the 200. Nest it where the callback URL
/// points (`Router::new().nest("/hooks/mcp", receiver_router(...))`).
pub fn receiver_router(
    receiver: Arc<Receiver>,
    on_delivery: impl Fn(Received) + Send + Sync + 'static,
) -> axum::Router {
    let on_delivery = Arc::new(on_delivery);
    axum::Router::new().route(
        "/",
        post(move |headers: HeaderMap, body: Bytes| {
            let (receiver, on_delivery) = (receiver.clone(), on_delivery.clone());
            async move {
                let header = |k: &str| headers.get(k).and_then(|v| v.to_str().ok()).map(str::to_owned);
                match receiver.receive_now(header, &body) {
                    Ok(received) => {
                        let answer = (StatusCode::OK, received.body.clone());
                        if !matches!(received.delivery, Delivery::Verification | Delivery::Duplicate) {
                            on_delivery(received);
                        }
                        answer
                    }
                    Err(refused) => {
                        tracing::info!(target: "mcpcore::events", reason = %refused.reason, "webhook delivery refused");
                        (StatusCode::from_u16(refused.status).unwrap_or(StatusCode::BAD_REQUEST), Vec::new())
                    }
                }
            }
        }),
    )
}
