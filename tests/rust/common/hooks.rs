//! A webhook receiver for MCP Events tests (issue 48): an axum server on 127.0.0.1 that answers
//! verification challenges and records every POST (its `webhook-id` and JSON body), for the
//! fleet tests (`scale_out_events.rs`, `fleet_chaos_webhooks.rs`).

use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a receiver got: each POST's `webhook-id` and JSON body, in order.
#[derive(Default)]
pub struct Received(Mutex<Vec<(String, Value)>>);

impl Received {
    /// The texts of the `echoed` occurrences delivered, in order (repeats included).
    pub fn texts(&self) -> Vec<String> {
        let got = self.0.lock().unwrap();
        got.iter().filter_map(|(_, b)| b["data"]["text"].as_str().map(str::to_owned)).collect()
    }

    /// How many verification challenges came.
    pub fn verifications(&self) -> usize {
        self.0.lock().unwrap().iter().filter(|(_, b)| b["type"] == "verification").count()
    }

    /// The `webhook-id`s of the occurrences delivered (repeats included).
    pub fn ids(&self) -> Vec<String> {
        let got = self.0.lock().unwrap();
        got.iter().filter(|(_, b)| b.get("eventId").is_some()).map(|(id, _)| id.clone()).collect()
    }

    /// Waits (at most `limit`) until `text` was delivered; true when it was.
    pub async fn wait_for(&self, text: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.texts().iter().any(|t| t == text) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        false
    }

    /// Waits (at most `limit`) until at least `n` occurrence texts came; the texts then.
    pub async fn wait_count(&self, n: usize, limit: Duration) -> Vec<String> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline && self.texts().len() < n {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        self.texts()
    }
}

/// Starts a receiver at `http://127.0.0.1:PORT/hook`; (what it got, its URL).
pub async fn receiver() -> (Arc<Received>, String) {
    use axum::extract::State;
    use axum::http::HeaderMap;
    use axum::response::IntoResponse;
    let got = Arc::new(Received::default());
    let hook = |State(r): State<Arc<Received>>, headers: HeaderMap, body: axum::body::Bytes| async move {
        let v: Value = serde_json::from_slice(&body).unwrap_or_default();
        let id = headers.get("webhook-id").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        r.0.lock().unwrap().push((id, v.clone()));
        match v["type"].as_str() {
            Some("verification") => {
                let answer = json!({ "challenge": v["challenge"] }).to_string();
                ([(axum::http::header::CONTENT_TYPE, "application/json")], answer).into_response()
            }
            _ => axum::http::StatusCode::NO_CONTENT.into_response(),
        }
    };
    let app = axum::Router::new().route("/hook", axum::routing::post(hook)).with_state(got.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (got, url)
}

/// A `whsec_` secret of 32 bytes of `byte`.
pub fn secret(byte: u8) -> String {
    use base64::Engine as _;
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode([byte; 32]))
}
