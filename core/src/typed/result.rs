//! What a typed tool may return: [`IntoCallToolResult`], and [`Json`] for structured output.

use crate::error::{Error, Result};
use crate::protocol::{CallToolResult, ContentBlock};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Display;

/// A tool's return value, turned into its `CallToolResult`.
///
/// | returned | result |
/// |---|---|
/// | `String`, `&'static str` | one text block |
/// | [`ContentBlock`], `Vec<ContentBlock>` | those blocks |
/// | [`Json<T>`] | `structuredContent` plus the same JSON as text; `T`'s schema is the tool's `outputSchema` |
/// | [`CallToolResult`] | as is |
/// | `Result<T, E>` | `Ok`: as `T`; `Err` of [`crate::Error`]: passed through (`?` on a `ctx.elicit(..)` carries "input required", [`crate::ErrorKind::Rpc`] a JSON-RPC error); any other `Err`: an `isError` result with its message |
pub trait IntoCallToolResult: Send + 'static {
    /// The `outputSchema` this type's results conform to, if it declares one.
    fn output_schema() -> Option<Result<Value>> {
        None
    }

    /// The result. `Err` only for a [`crate::Error`] passed through.
    fn into_call_tool_result(self) -> Result<CallToolResult>;
}

impl IntoCallToolResult for CallToolResult {
    fn into_call_tool_result(self) -> Result<CallToolResult> {
        Ok(self)
    }
}

impl IntoCallToolResult for String {
    fn into_call_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoCallToolResult for &'static str {
    fn into_call_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoCallToolResult for ContentBlock {
    fn into_call_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult { content: vec![self], ..Default::default() })
    }
}

impl IntoCallToolResult for Vec<ContentBlock> {
    fn into_call_tool_result(self) -> Result<CallToolResult> {
        Ok(CallToolResult { content: self, ..Default::default() })
    }
}

/// Structured output: `T` serialized as the result's `structuredContent` (and, for clients
/// that read only content, as a text block), with `T`'s JSON Schema as the tool's
/// `outputSchema`. `T` must serialize to a JSON object.
///
/// ```
/// use mcpcore::typed::Json;
/// #[derive(serde::Serialize, schemars::JsonSchema)]
/// struct Sum {
///     /// a + b
///     sum: f64,
/// }
/// async fn add(a: f64, b: f64) -> Json<Sum> {
///     Json(Sum { sum: a + b })
/// }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Json<T>(pub T);

impl<T: Serialize + JsonSchema + Send + 'static> IntoCallToolResult for Json<T> {
    fn output_schema() -> Option<Result<Value>> {
        Some(super::schema::output_schema::<T>())
    }

    fn into_call_tool_result(self) -> Result<CallToolResult> {
        match serde_json::to_value(self.0) {
            Ok(value) => Ok(CallToolResult::structured(value)),
            Err(e) => Ok(CallToolResult::error(format!("the tool's output does not serialize: {e}"))),
        }
    }
}

impl<T, E> IntoCallToolResult for std::result::Result<T, E>
where
    T: IntoCallToolResult,
    E: Display + Send + 'static,
{
    fn output_schema() -> Option<Result<Value>> {
        T::output_schema()
    }

    fn into_call_tool_result(self) -> Result<CallToolResult> {
        match self {
            Ok(t) => t.into_call_tool_result(),
            Err(e) => {
                // mcpcore's own error passes through unchanged: its kind decides what the caller
                // sees (input required, a JSON-RPC error, or an isError result).
                let mut slot = Some(e);
                if let Some(own) = (&mut slot as &mut dyn std::any::Any).downcast_mut::<Option<Error>>() {
                    return Err(own.take().expect("set above"));
                }
                let e = slot.expect("not taken");
                Ok(CallToolResult::error(e.to_string()))
            }
        }
    }
}
