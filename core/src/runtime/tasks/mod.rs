//! Running tasks (Tasks extension, [`crate::tasks`]): the [`Tasks`] service (store, running
//! handlers, change feed), the runner of calls that may become tasks, and client input inside a
//! task (`tasks/update`).

pub(crate) mod input;
pub(crate) mod run;
mod service;

pub use service::Tasks;

#[cfg(test)]
mod tests;
