//! The attribute macros of [mcpcore](https://example.invalid/mcpcore); use them through
//! `mcpcore` (`mcpcore::tool`, also in `mcpcore::prelude`), which re-exports them behind its
//! default `macros` feature.
//!
//! `#[tool]` turns an `async fn` with plain typed parameters into an MCP tool:
//!
//! ```ignore
//! use mcpcore::prelude::*;
//!
//! /// Adds two numbers.                       // the tool's description
//! #[tool(read_only)]
//! async fn add(/** The first addend. */ a: f64, /** The second. */ b: f64) -> String {
//!     (a + b).to_string()
//! }
//!
//! let tools = ToolRegistry::new();
//! tools.add(add)?;                            // or Server::builder("demo", "1.0").tool(add)
//! ```
//!
//! What it generates, in place of the function (same name and visibility):
//!
//! * a function `add() -> mcpcore::typed::ToolDef`: the tool's descriptor and handler, which
//!   `ToolRegistry::add` and `ServerBuilder::tool` take (so `tools.add(add)` registers it);
//! * inside it, an argument struct with one field per parameter, deriving `serde::Deserialize`
//!   and `schemars::JsonSchema` (through mcpcore's re-exports: the caller needs neither crate),
//!   so the `inputSchema` comes from the parameter types — draft 2020-12, `type: object`,
//!   `Option<T>` parameters not required, doc comments on parameters as property
//!   `description`s, `#[serde(...)]` and `#[schemars(...)]` attributes on parameters applied to
//!   their fields;
//! * the original body as an inner `async fn`, called with the decoded arguments.
//!
//! The return type is anything `mcpcore::typed::IntoCallToolResult` accepts (`String`,
//! `CallToolResult`, `Json<T>` for `structuredContent` with an `outputSchema`, `Result<T, E>`).
//! A parameter of type `RequestContext` (or its old name `ToolContext`) receives the request's
//! context instead of an argument.
//!
//! Attribute arguments, all optional: `name = "..."` (default: the function's name),
//! `title = "..."`, `description = "..."` (default: the doc comment), the annotation hints
//! `read_only`, `destructive`, `idempotent`, `open_world` (each alone for `true`, or
//! `= true|false`), `task = "optional" | "required"` (Tasks extension), and
//! `crate = "path"` when mcpcore is renamed in `Cargo.toml`.

#![warn(missing_docs)]

mod attr;
mod tool;

use proc_macro::TokenStream;

/// Makes an MCP tool of an `async fn`; see the [crate docs](crate).
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    match tool::expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}
