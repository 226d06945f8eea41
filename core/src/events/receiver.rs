//! The receiving end of webhook deliveries (SEP-3415 §Webhook delivery; Standard Webhooks
//! "Verifying webhooks"): what a client's HTTP endpoint does with each POST. It checks the
//! signature (any of the receiver's secrets, so a secret can rotate) and the timestamp (5
//! minutes either way by default), answers the verification challenge itself, drops a
//! delivery whose `webhook-id` it already took (a retry), and hands over the rest: an
//! occurrence, a `gap`, a `terminated`. Pure: the caller passes the time; mount it in any HTTP
//! stack (the runtime's [`Receiver::receive_now`] reads the clock; the bindings mount it in
//! ASGI and Node's HTTP servers).

use super::webhook::{parse_secret, verify};
use crate::error::{Error, Result};
use crate::protocol::events::EventOccurrence;
use serde_json::{json, Value};
use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// How many delivery ids a receiver remembers to drop retries of (the oldest go first).
pub const REMEMBERED_IDS: usize = 10_000;

/// What a delivery carried.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// The server checks the endpoint before delivering (answered by the receiver itself).
    Verification,
    /// An occurrence.
    Event(EventOccurrence),
    /// Occurrences were dropped; resume from `cursor`.
    Gap {
        /// The fresh cursor.
        cursor: Option<String>,
    },
    /// The subscription ended, with this error.
    Terminated {
        /// `{code, message, data?}`.
        error: Value,
    },
    /// A delivery already taken (a retry): acknowledged, not handed over again.
    Duplicate,
}

/// A checked delivery: what it carried, the subscription it is for, and the answer owed.
#[derive(Debug, Clone, PartialEq)]
pub struct Received {
    /// What it carried.
    pub delivery: Delivery,
    /// `X-MCP-Subscription-Id`.
    pub subscription_id: Option<String>,
    /// The `webhook-id`.
    pub id: String,
    /// The HTTP status to answer with (200).
    pub status: u16,
    /// The body to answer with (JSON; empty but for a verification).
    pub body: Vec<u8>,
}

/// A refused delivery: the HTTP status to answer with and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// 400 (malformed) or 401 (signature, timestamp).
    pub status: u16,
    /// Why, for the receiver's log (never worth sending back in detail).
    pub reason: String,
}

/// Checks webhook deliveries for one subscriber (see the module's documentation).
#[derive(Debug)]
pub struct Receiver {
    secrets: Vec<Vec<u8>>,
    tolerance: Duration,
    seen: Mutex<(HashSet<String>, VecDeque<String>)>,
}

impl Receiver {
    /// A receiver for deliveries signed with `secret` (`whsec_` and base64 of 24 to 64 bytes).
    pub fn new(secret: &str) -> Result<Self> {
        Receiver::with_secrets([secret])
    }

    /// A receiver for deliveries signed with any of `secrets` (at least one; more while a
    /// refresh rotates the secret): what the bindings build.
    pub fn with_secrets<S: AsRef<str>>(secrets: impl IntoIterator<Item = S>) -> Result<Self> {
        let secrets = secrets.into_iter().map(|s| key(s.as_ref())).collect::<Result<Vec<_>>>()?;
        if secrets.is_empty() {
            return Err(Error::invalid_input("give a webhook secret"));
        }
        Ok(Receiver { secrets, tolerance: Duration::from_secs(300), seen: Mutex::default() })
    }

    /// Also accepts deliveries signed with `secret` (while a refresh rotates the secret).
    pub fn also_accept(mut self, secret: &str) -> Result<Self> {
        self.secrets.push(key(secret)?);
        Ok(self)
    }

    /// Accepts timestamps at most `tolerance` from now (default 5 minutes).
    pub fn with_tolerance(mut self, tolerance: Duration) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// Checks one POST: `header` reads a request header (case-insensitive name), `body` is
    /// the raw body as received.
    pub fn receive(
        &self,
        header: impl Fn(&str) -> Option<String>,
        body: &[u8],
        now: SystemTime,
    ) -> std::result::Result<Received, Refused> {
        let refuse = |status: u16, reason: &str| Refused { status, reason: reason.to_owned() };
        let (Some(id), Some(ts), Some(sig)) =
            (header("webhook-id"), header("webhook-timestamp"), header("webhook-signature"))
        else {
            return Err(refuse(400, "missing webhook-id, webhook-timestamp or webhook-signature"));
        };
        let ts: u64 = ts.trim().parse().map_err(|_| refuse(400, "webhook-timestamp is not a number"))?;
        let now_s = now.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if now_s.abs_diff(ts) > self.tolerance.as_secs() {
            return Err(refuse(401, "webhook-timestamp is too old or too new"));
        }
        if !self.secrets.iter().any(|k| verify(k, &id, ts, body, &sig)) {
            return Err(refuse(401, "no signature matches"));
        }
        let v: Value = serde_json::from_slice(body).map_err(|_| refuse(400, "the body is not JSON"))?;
        let subscription_id = header("x-mcp-subscription-id");
        let ok = |delivery: Delivery, body: Vec<u8>| Received {
            delivery,
            subscription_id: subscription_id.clone(),
            id: id.clone(),
            status: 200,
            body,
        };
        if v["type"] == "verification" {
            let challenge =
                v["challenge"].as_str().ok_or_else(|| refuse(400, "a verification without a challenge"))?;
            let answer = serde_json::to_vec(&json!({ "challenge": challenge })).expect("serializable");
            return Ok(ok(Delivery::Verification, answer));
        }
        if !self.remember(&id) {
            return Ok(ok(Delivery::Duplicate, Vec::new()));
        }
        let delivery = match v["type"].as_str() {
            Some("gap") => Delivery::Gap { cursor: v["cursor"].as_str().map(str::to_owned) },
            Some("terminated") => Delivery::Terminated { error: v["error"].clone() },
            Some(_) => return Err(refuse(400, "an envelope of an unknown type")),
            None => Delivery::Event(serde_json::from_value(v).map_err(|_| refuse(400, "not an occurrence"))?),
        };
        Ok(ok(delivery, Vec::new()))
    }

    /// True when `id` is new (and now remembered).
    fn remember(&self, id: &str) -> bool {
        let mut seen = self.seen.lock().expect("lock");
        if seen.0.contains(id) {
            return false;
        }
        seen.0.insert(id.to_owned());
        seen.1.push_back(id.to_owned());
        if seen.1.len() > REMEMBERED_IDS {
            if let Some(old) = seen.1.pop_front() {
                seen.0.remove(&old);
            }
        }
        true
    }
}

/// The bytes of a `whsec_` secret, or the error naming the rule.
fn key(secret: &str) -> Result<Vec<u8>> {
    parse_secret(secret)
        .ok_or_else(|| Error::invalid_input("a webhook secret is whsec_ and the base64 of 24 to 64 bytes"))
}

impl Delivery {
    /// The delivery as the bindings hand it over: `{"type": "event", …occurrence}`,
    /// `{"type": "gap", "cursor"}`, `{"type": "terminated", "error"}`, `{"type":
    /// "verification"}`, `{"type": "duplicate"}`.
    pub fn to_json(&self) -> Value {
        match self {
            Delivery::Verification => json!({ "type": "verification" }),
            Delivery::Duplicate => json!({ "type": "duplicate" }),
            Delivery::Gap { cursor } => json!({ "type": "gap", "cursor": cursor }),
            Delivery::Terminated { error } => json!({ "type": "terminated", "error": error }),
            Delivery::Event(o) => {
                let mut v = serde_json::to_value(o).expect("serializable");
                v["type"] = json!("event");
                v
            }
        }
    }
}
