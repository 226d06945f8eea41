//! The remote's `notifications/message` relayed to the caller of the forwarded call it belongs
//! to. A log message names no request: on 2026-07-28 it travels on that request's response
//! stream (2026-07-28 server/utilities/logging), which stdio does not have, and a legacy
//! session's messages follow the session's level (2025-11-25 server/utilities/logging). So a
//! message is relayed only while exactly one forwarded call is in flight on the connection;
//! with several in flight it is dropped rather than risk handing one caller another's messages.
//! The caller's own level filters it ([`RequestContext::log`]).

use crate::client::Client;
use crate::context::RequestContext;
use crate::protocol::logging::{LoggingLevel, LoggingMessageNotificationParams};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The forwarded calls in flight on one connection.
#[derive(Default)]
pub(crate) struct LogRoute {
    calls: Mutex<BTreeMap<u64, RequestContext>>,
    next: AtomicU64,
}

impl std::fmt::Debug for LogRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogRoute").field("in_flight", &self.calls.lock().expect("lock").len()).finish()
    }
}

impl LogRoute {
    /// Makes this route receive `client`'s log messages (replacing its [`Client::on_log`]
    /// handler).
    pub(crate) fn attach(self: &Arc<Self>, client: &Client) {
        let weak = Arc::downgrade(self);
        client.on_log(move |p| {
            if let Some(route) = weak.upgrade() {
                route.deliver(p);
            }
        });
    }

    fn deliver(&self, p: LoggingMessageNotificationParams) {
        let only = {
            let calls = self.calls.lock().expect("lock");
            if calls.len() != 1 {
                return;
            }
            calls.values().next().cloned()
        };
        if let Some(ctx) = only {
            ctx.log(p.level, p.logger.as_deref(), p.data);
        }
    }

    /// Marks a forwarded call for `ctx` in flight until the guard drops.
    pub(crate) fn enter(self: &Arc<Self>, ctx: &RequestContext) -> InFlight {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.calls.lock().expect("lock").insert(id, ctx.clone());
        InFlight { route: self.clone(), id }
    }
}

/// The least severe level `ctx`'s caller asked for, if it asked for logs.
pub(crate) fn wanted(ctx: &RequestContext) -> Option<LoggingLevel> {
    LoggingLevel::ALL.into_iter().find(|l| ctx.wants_log(*l))
}

/// One forwarded call in flight (see [`LogRoute::enter`]).
pub(crate) struct InFlight {
    route: Arc<LogRoute>,
    id: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.route.calls.lock().expect("lock").remove(&self.id);
    }
}
