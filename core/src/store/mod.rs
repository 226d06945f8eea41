//! Stores on an external database, shared by several server instances behind one load
//! balancer. With the `redis` feature: [`redis::RedisSessionStore`] keeps legacy sessions in
//! Redis (or Valkey), so any instance serves any message of any session. [`ScaleOut`] reads
//! the settings every front end takes for that (store URL, shared `requestState` keys, public
//! host names).

#[cfg(feature = "redis")]
pub mod redis;
mod scale_out;

pub use scale_out::{parse_state_keys, session_store, ScaleOut, SESSION_TTL, STATE_KEY_ENV};
