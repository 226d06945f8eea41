//! Roots kept by the client itself: the host gives a list at connect
//! ([`ClientOptions::roots`](super::ClientOptions::roots)), the client answers `roots/list`
//! from it on both lineages (legacy server→client requests, 2026-07-28 MRTR input requests),
//! and [`Client::set_roots`] replaces it and tells a legacy server
//! (`notifications/roots/list_changed`; spec 2025-11-25 client/roots, "Root List Changes").

use super::input::{BoxFuture, InputHandler, InputKinds};
use super::Client;
use crate::error::{Error, Result};
use crate::protocol::elicitation::{ElicitRequestParams, ElicitResult};
use crate::protocol::roots::{ListRootsResult, Root};
use crate::protocol::sampling::{CreateMessageRequestParams, CreateMessageResult};
use std::sync::{Arc, RwLock};

/// The current roots, shared by the client handle and its input handler.
pub(crate) type RootList = Arc<RwLock<Vec<Root>>>;

/// The host's input handler (if any), with `roots/list` answered from the client's list.
pub(crate) struct WithRoots {
    pub(crate) inner: Option<Arc<dyn InputHandler>>,
    pub(crate) roots: RootList,
}

impl InputHandler for WithRoots {
    fn kinds(&self) -> InputKinds {
        let inner = self.inner.as_ref().map(|h| h.kinds()).unwrap_or_default();
        InputKinds { roots: true, roots_list_changed: true, ..inner }
    }

    fn elicit(&self, params: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult>> {
        match &self.inner {
            Some(h) => h.elicit(params),
            None => Box::pin(async { Err(Error::invalid_input("this client does not support elicitation")) }),
        }
    }

    fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult>> {
        match &self.inner {
            Some(h) => h.create_message(params),
            None => Box::pin(async { Err(Error::invalid_input("this client does not support sampling")) }),
        }
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<ListRootsResult>> {
        let roots = self.roots.read().expect("lock").clone();
        Box::pin(async move { Ok(ListRootsResult { roots, meta: None }) })
    }
}

impl Client {
    /// The roots the client answers `roots/list` with, when it was connected with
    /// [`ClientOptions::roots`](super::ClientOptions::roots).
    pub fn roots(&self) -> Option<Vec<Root>> {
        self.inner.roots.as_ref().map(|r| r.read().expect("lock").clone())
    }

    /// Replaces the roots and, on a legacy session, sends `notifications/roots/list_changed`
    /// (the server then asks `roots/list` again); on 2026-07-28 the next input request reads
    /// the new list. Fails when the client was connected without
    /// [`ClientOptions::roots`](super::ClientOptions::roots) (an input handler answering roots
    /// itself tells the server with [`Client::roots_changed`]).
    pub fn set_roots(&self, roots: Vec<Root>) -> Result<()> {
        let Some(list) = &self.inner.roots else {
            return Err(Error::invalid_input(
                "this client was connected without a roots list (ClientOptions::roots): it cannot change it",
            ));
        };
        *list.write().expect("lock") = roots;
        self.roots_changed()
    }
}
