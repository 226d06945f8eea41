//! The arguments of `#[tool(...)]`.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::{LitBool, LitStr, Path};

/// What `#[tool(...)]` said.
#[derive(Default)]
pub(crate) struct ToolArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    /// `(setter, value)` for each annotation hint given.
    pub(crate) hints: Vec<(&'static str, bool)>,
    pub(crate) task: Option<LitStr>,
    pub(crate) krate: Option<Path>,
}

const HINTS: &[&str] = &["read_only", "destructive", "idempotent", "open_world"];

impl ToolArgs {
    pub(crate) fn parse(attr: TokenStream) -> syn::Result<ToolArgs> {
        let mut args = ToolArgs::default();
        if attr.is_empty() {
            return Ok(args);
        }
        let parser = syn::meta::parser(|meta| args.one(meta));
        syn::parse::Parser::parse2(parser, attr)?;
        Ok(args)
    }

    fn one(&mut self, meta: ParseNestedMeta<'_>) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().map(|i| i.to_string()) else {
            return Err(meta.error("expected an argument name such as `name` or `read_only`"));
        };
        match key.as_str() {
            "name" => self.name = Some(meta.value()?.parse()?),
            "title" => self.title = Some(meta.value()?.parse()?),
            "description" => self.description = Some(meta.value()?.parse()?),
            "task" => {
                let lit: LitStr = meta.value()?.parse()?;
                if !matches!(lit.value().as_str(), "optional" | "required") {
                    return Err(syn::Error::new(lit.span(), "`task` is \"optional\" or \"required\""));
                }
                self.task = Some(lit);
            }
            "crate" => {
                let lit: LitStr = meta.value()?.parse()?;
                self.krate = Some(lit.parse()?);
            }
            hint => {
                let Some(setter) = HINTS.iter().find(|h| **h == hint) else {
                    return Err(meta.error(format!(
                        "unknown `tool` argument `{hint}`; expected name, title, description, \
                         read_only, destructive, idempotent, open_world, task or crate"
                    )));
                };
                let value = if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitBool>()?.value
                } else {
                    true
                };
                self.hints.push((setter, value));
            }
        }
        Ok(())
    }
}
