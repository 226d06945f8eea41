//! Asking before acting (issue 35 §4, "pending approval"): a write tool that needs a person's
//! yes asks through whatever the caller supports, with one call.
//!
//! [`RequestContext::approve`] asks the user with a confirmation form (`elicitation/create`:
//! on 2026-07-28 an `input_required` round, SEP-2322 MRTR; on the legacy lineage a request to
//! the client; 2025-11-25 `client/elicitation`), and when the tool can run as a task (Tasks
//! extension) it first becomes one, so the caller is not held while the person decides: the
//! question is then the task's `input_required`. A caller that cannot be asked (no
//! elicitation capability, an in-process call) gets [`Approval::Pending`]: the tool then answers
//! [`CallToolResult::pending_approval`](crate::protocol::CallToolResult::pending_approval) and
//! the approval happens elsewhere (a back office, another tool).

use super::RequestContext;
use crate::protocol::elicitation::{BooleanSchema, PrimitiveSchemaDefinition};
use crate::protocol::elicitation::{ElicitAction, ElicitForm, ElicitRequestParams, ElicitResult};
use crate::Result;

/// The form field carrying the answer (a boolean, `true` by default).
pub const APPROVE_FIELD: &str = "approve";

/// What came of asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// The person approved: act.
    Approved,
    /// The person declined or dismissed the question: do not act.
    Declined,
    /// Nobody could be asked here: do not act yet; answer `pending_approval`.
    Pending,
}

impl Approval {
    /// `"approved"`, `"declined"` or `"pending"` (what the bindings return).
    pub fn as_str(self) -> &'static str {
        match self {
            Approval::Approved => "approved",
            Approval::Declined => "declined",
            Approval::Pending => "pending",
        }
    }
}

/// The confirmation form for `action` (a sentence saying what will happen): one boolean
/// field, [`APPROVE_FIELD`], `true` by default, so confirming the form approves.
pub fn approval_form(action: &str) -> ElicitRequestParams {
    let field = BooleanSchema {
        title: Some("Approve".into()),
        description: Some(action.to_owned()),
        default: Some(true),
        ..Default::default()
    };
    ElicitRequestParams::Form(ElicitForm::new(action).field(
        APPROVE_FIELD,
        PrimitiveSchemaDefinition::Boolean(field),
        true,
    ))
}

/// The verdict of an answer to [`approval_form`]: approved when the form was accepted without
/// `approve: false`.
pub fn approval_of(answer: &ElicitResult) -> Approval {
    let unticked = answer
        .content
        .as_ref()
        .and_then(|c| c.get(APPROVE_FIELD))
        .is_some_and(|v| matches!(v, crate::protocol::elicitation::ElicitValue::Boolean(false)));
    match answer.action {
        ElicitAction::Accept if !unticked => Approval::Approved,
        _ => Approval::Declined,
    }
}

impl RequestContext {
    /// True when the caller declared it can be asked to fill a form (`elicitation`).
    pub fn can_elicit(&self) -> bool {
        self.client_capabilities().is_some_and(|c| c.elicitation.is_some())
    }

    /// Asks for approval of `action` under the input key `key` (see the [module
    /// docs](crate::context::approval)): becomes a task first when the call can, then asks the
    /// user; [`Approval::Pending`] when the caller cannot be asked. Errors as
    /// [`RequestContext::input`]: on 2026-07-28 the first round ends with
    /// [`ErrorKind::InputRequired`](crate::ErrorKind::InputRequired), return it with `?`.
    pub async fn approve(&self, key: &str, action: &str) -> Result<Approval> {
        if !self.can_elicit() {
            return Ok(Approval::Pending);
        }
        self.start_task().await?;
        Ok(approval_of(&self.elicit(key, approval_form(action)).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::elicitation::ElicitValue;
    use std::collections::BTreeMap;

    #[test]
    fn the_form_asks_one_boolean_and_the_answer_decides() {
        let form = serde_json::to_value(approval_form("Delete invoice 42")).unwrap();
        assert_eq!(form["message"], "Delete invoice 42");
        assert_eq!(form["requestedSchema"]["properties"]["approve"]["type"], "boolean");
        assert_eq!(form["requestedSchema"]["properties"]["approve"]["default"], true);
        assert_eq!(form["requestedSchema"]["required"], serde_json::json!(["approve"]));
        let with = |action, approve: Option<bool>| ElicitResult {
            content: approve.map(|b| BTreeMap::from([(APPROVE_FIELD.to_owned(), ElicitValue::Boolean(b))])),
            ..ElicitResult::new(action)
        };
        assert_eq!(approval_of(&with(ElicitAction::Accept, Some(true))), Approval::Approved);
        assert_eq!(approval_of(&with(ElicitAction::Accept, None)), Approval::Approved);
        assert_eq!(approval_of(&with(ElicitAction::Accept, Some(false))), Approval::Declined);
        assert_eq!(approval_of(&with(ElicitAction::Decline, None)), Approval::Declined);
        assert_eq!(approval_of(&with(ElicitAction::Cancel, None)), Approval::Declined);
    }

    #[tokio::test]
    async fn an_in_process_call_cannot_be_asked_and_is_pending() {
        let ctx = RequestContext::local();
        assert!(!ctx.can_elicit());
        assert_eq!(ctx.approve("ok", "Send the mail").await.unwrap(), Approval::Pending);
        assert_eq!(Approval::Pending.as_str(), "pending");
    }
}
