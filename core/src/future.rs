//! The one future type of the API: boxed and `Send`, so trait objects can return it.

use std::future::Future;
use std::pin::Pin;

/// A boxed, `Send` future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
