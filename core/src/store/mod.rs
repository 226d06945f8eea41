//! Stores on an external database, shared by several server instances behind one load
//! balancer. With the `redis` feature, [`redis`] keeps in Redis (or Valkey) legacy sessions
//! (so any instance serves any message of any session, and a GET stream resumes on any
//! instance), tasks, single-use `requestState` claims, and the changes every instance
//! announces. [`SharedStores`] opens them all on one URL; [`ScaleOut`] reads the settings
//! every front end takes for that (store URL, shared `requestState` keys, public host names).

#[cfg(feature = "redis")]
pub mod redis;
mod scale_out;

pub use scale_out::{parse_state_keys, session_store, ScaleOut, SharedStores, SESSION_TTL, STATE_KEY_ENV};
