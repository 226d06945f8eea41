//! Client input inside a task: the handler's requests become the task's `inputRequests`
//! (`input_required`), and the handler waits until `tasks/update` has answered all of them.

use super::Tasks;
use crate::changes::Change;
use crate::context::{BoxFuture, TaskInput};
use crate::error::{Error, ErrorData, Result};
use crate::protocol::mrtr::{InputRequests, InputResponse};
use crate::runtime::changes::ChangeListener;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The task a handler's input goes through.
#[derive(Debug, Clone)]
pub(crate) struct TaskLink {
    pub(crate) tasks: Arc<Tasks>,
    pub(crate) id: String,
}

fn gone() -> Error {
    Error::cancelled("the task ended or expired while waiting for client input")
}

impl TaskInput for TaskLink {
    fn ask(&self, requests: InputRequests) -> BoxFuture<'static, Result<BTreeMap<String, InputResponse>>> {
        let link = self.clone();
        Box::pin(async move { link.ask_now(requests).await })
    }
}

impl TaskLink {
    /// Issues `requests` on the task and waits for every answer.
    async fn ask_now(&self, requests: InputRequests) -> Result<BTreeMap<String, InputResponse>> {
        let methods: BTreeMap<String, &'static str> =
            requests.iter().map(|(k, r)| (k.clone(), r.method())).collect();
        // Listen before issuing, so no answer can slip between the check and the wait.
        let mut changes = ChangeListener::new([self.tasks.changes(), self.tasks.remote_changes()]);
        let keys =
            self.tasks.request_inputs(&self.id, requests).await.map_err(Error::rpc)?.ok_or_else(gone)?;
        if keys.len() != methods.len() {
            return Err(gone());
        }
        let wire: Vec<String> = keys.values().cloned().collect();
        loop {
            let taken = self.tasks.take_responses(&self.id, &wire).await.map_err(Error::rpc)?;
            if let Some(mut answers) = taken.ok_or_else(gone)? {
                let mut out = BTreeMap::new();
                for (key, wire_key) in &keys {
                    let method = methods[key];
                    let value = answers.remove(wire_key).unwrap_or(Value::Null);
                    let resp = InputResponse::from_value_for(method, value).map_err(|e| {
                        Error::rpc(ErrorData::invalid_params(format!(
                            "Invalid params: inputResponses[{wire_key:?}] is not a valid {method} result: {e}"
                        )))
                    })?;
                    out.insert(key.clone(), resp);
                }
                return Ok(out);
            }
            // Wait for a change of this task; look again at least every second (a listener that
            // fell behind may have dropped the announcement).
            let id = &self.id;
            let _ = tokio::time::timeout(Duration::from_secs(1), async {
                loop {
                    match changes.recv().await {
                        Some(Change::Task(t)) if &t == id => return,
                        Some(_) => {}
                        None => std::future::pending::<()>().await,
                    }
                }
            })
            .await;
        }
    }
}
