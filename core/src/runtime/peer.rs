//! Legacy server→client requests of one job, sent through its driver: the driver asks the
//! connection to send the request (which allocates its id and times it out) and hands the
//! answer back.

use super::inbox::{Inbox, Input};
use crate::context::{BoxFuture, PeerLink};
use crate::engine::JobId;
use crate::error::{Error, Result};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

/// The [`PeerLink`] of one job.
pub(crate) struct DriverPeer {
    pub(crate) job: JobId,
    pub(crate) inbox: Inbox,
}

impl PeerLink for DriverPeer {
    fn request(
        &self,
        method: String,
        params: Option<Map<String, Value>>,
    ) -> BoxFuture<'static, Result<Value>> {
        let (reply, answer) = oneshot::channel();
        let sent =
            self.inbox.send(Input::PeerRequest { job: self.job, method: method.clone(), params, reply });
        Box::pin(async move {
            if sent.is_err() {
                return Err(Error::closed(format!(
                    "the connection closed before the client answered {method}"
                )));
            }
            match answer.await {
                Ok(Ok(v)) => Ok(v),
                Ok(Err(e)) if e.code == crate::ErrorCode::REQUEST_TIMEOUT => Err(Error::timeout(e.message)),
                Ok(Err(e)) => Err(Error::rpc(e)),
                Err(_) => {
                    Err(Error::closed(format!("the connection closed before the client answered {method}")))
                }
            }
        })
    }
}
