//! The runtime: everything that touches the clock, entropy, tasks and channels, and the one
//! driver loop that pumps a [`ServerConnection`](crate::engine::ServerConnection) for every
//! transport.
//!
//! The layers below (data, rules, context, catalogs, engine) are pure: they never read the
//! clock, draw entropy, sleep or spawn (CI enforces it with clippy's `disallowed-methods`).
//! This module supplies those: [`clock`] (the time, real or manual for tests), [`entropy`]
//! (session ids, task ids, `requestState` keys), [`changes`] (async listeners on the catalogs'
//! change feeds), [`fanout`] (changes shared with other instances), [`tasks`] (running task handlers), the job runner (host code for one
//! request, with its [`RequestContext`](crate::context::RequestContext)) and [`driver`].

pub mod changes;
pub mod clock;
pub mod driver;
pub mod entropy;
pub(crate) mod env;
mod events;
pub mod fanout;
pub(crate) mod inbox;
pub(crate) mod jobs;
pub(crate) mod peer;
pub(crate) mod queue;
pub(crate) mod single;
pub mod tasks;
pub(crate) mod unwind;

pub use clock::{Clock, ManualClock, SystemClock};
pub use driver::{Driver, DriverHandle, JobAbort, JobSpawner, Outbound};
pub use env::Env;
