//! Asking the user with a built form: [`RequestContext::elicit_form`].

use crate::context::RequestContext;
use crate::error::Result;
use crate::protocol::elicitation::{ElicitForm, ElicitRequestParams, ElicitResult};

impl RequestContext {
    /// Asks the user to fill `form` (`elicitation/create`), under `key`: on a legacy session a
    /// request to the client, on 2026-07-28 an input request of this call (MRTR), so return
    /// its error with `?`. The same as [`RequestContext::elicit`] with a form.
    ///
    /// ```
    /// use mcpcore::prelude::*;
    /// # async fn tool(ctx: RequestContext) -> mcpcore::Result<String> {
    /// let answer = ctx.elicit_form("name", ElicitForm::new("Your name?").string("name", "Name", true)).await?;
    /// Ok(format!("Hello, {}!", answer.text("name").unwrap_or("stranger")))
    /// # }
    /// ```
    pub async fn elicit_form(&self, key: &str, form: ElicitForm) -> Result<ElicitResult> {
        self.elicit(key, ElicitRequestParams::Form(form)).await
    }
}
