//! The expansion of `#[tool]`.

use crate::attr::ToolArgs;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, FnArg, Ident, ItemFn, Pat, Type};

/// One parameter of the tool function.
struct Param {
    /// The name the argument has on the wire (the parameter's name).
    ident: Ident,
    ty: Type,
    /// Attributes for the argument struct's field (doc comments, `serde`, `schemars`).
    field_attrs: Vec<Attribute>,
    /// True for the `RequestContext` parameter.
    is_ctx: bool,
}

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = ToolArgs::parse(attr)?;
    let mut func: ItemFn = syn::parse2(item)?;
    check_signature(&func)?;
    let params = take_params(&mut func)?;
    let krate = args.krate.clone().map(|p| quote!(#p)).unwrap_or_else(|| quote!(::mcpcore));

    let fn_name = func.sig.ident.clone();
    let vis = func.vis.clone();
    let (docs, other_attrs): (Vec<Attribute>, Vec<Attribute>) =
        func.attrs.drain(..).partition(|a| a.path().is_ident("doc"));
    let cfgs: Vec<&Attribute> = other_attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();

    let name = match &args.name {
        Some(n) => quote!(#n),
        None => {
            let n = fn_name.to_string();
            let n = n.strip_prefix("r#").unwrap_or(&n).to_owned();
            quote!(#n)
        }
    };
    let description = match &args.description {
        Some(d) => quote!(#d),
        None => {
            let lines = docs.iter().filter_map(doc_expr);
            quote!(#krate::typed::__private::doc_text(&[#(#lines),*]))
        }
    };

    let args_struct = format_ident!("__McpcoreToolArgs");
    let body_fn = format_ident!("__mcpcore_tool_body");
    let fields = params.iter().filter(|p| !p.is_ctx).map(|p| {
        let (ident, ty, attrs) = (&p.ident, &p.ty, &p.field_attrs);
        quote!(#(#attrs)* #ident: #ty)
    });
    let no_fields = params.iter().all(|p| p.is_ctx);
    // A tool without parameters takes `{}` only (the 2025-11-25 server/tools recommendation:
    // `{"type": "object", "additionalProperties": false}`).
    let deny = no_fields.then(|| quote!(#[serde(deny_unknown_fields)]));
    let call_args = params.iter().map(|p| {
        let ident = &p.ident;
        if p.is_ctx {
            quote!(__mcpcore_ctx)
        } else {
            quote!(__mcpcore_args.#ident)
        }
    });

    let mut setters = Vec::new();
    if let Some(t) = &args.title {
        setters.push(quote!(.title(#t)));
    }
    for (hint, value) in &args.hints {
        let setter = Ident::new(hint, Span::call_site());
        setters.push(quote!(.#setter(#value)));
    }
    if let Some(task) = &args.task {
        let policy = Ident::new(&task.value(), task.span());
        setters.push(quote!(.task(#krate::tasks::TaskPolicy::#policy())));
    }

    // The body keeps its own signature (minus the attributes moved to the struct) and name
    // spans, so errors in it point at the user's code.
    func.sig.ident = body_fn.clone();
    func.vis = syn::Visibility::Inherited;
    let body = &func;
    let serde_path = format!("{krate}::typed::__private::serde").replace(' ', "");
    let schemars_path = format!("{krate}::typed::__private::schemars").replace(' ', "");
    let ret_span = func.sig.output.span();
    let handler = quote_spanned! {ret_span=>
        |__mcpcore_args: #args_struct, __mcpcore_ctx: #krate::context::RequestContext| {
            #body_fn(#(#call_args),*)
        }
    };
    Ok(quote! {
        #(#docs)*
        #(#cfgs)*
        #vis fn #fn_name() -> #krate::typed::ToolDef {
            #[derive(#krate::typed::__private::serde::Deserialize, #krate::typed::__private::schemars::JsonSchema)]
            #[serde(crate = #serde_path)]
            #[schemars(crate = #schemars_path)]
            #deny
            struct #args_struct { #(#fields,)* }

            #(#other_attrs)*
            #body

            #krate::typed::ToolDef::typed(#name, #description, #handler) #(#setters)*
        }
    })
}

/// The expression of a `#[doc = ...]` attribute (a literal, or e.g. `include_str!(...)`).
fn doc_expr(attr: &Attribute) -> Option<&Expr> {
    match &attr.meta {
        syn::Meta::NameValue(nv) => Some(&nv.value),
        _ => None,
    }
}

fn check_signature(func: &ItemFn) -> syn::Result<()> {
    let sig = &func.sig;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new(sig.fn_token.span, "#[tool] needs an `async fn`"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new(sig.generics.span(), "a #[tool] function cannot be generic"));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new(v.span(), "a #[tool] function cannot be variadic"));
    }
    if matches!(sig.output, syn::ReturnType::Default) {
        return Err(syn::Error::new(
            sig.paren_token.span.close(),
            "a #[tool] function returns its result: String, CallToolResult, Json<T> or Result<T, E>",
        ));
    }
    Ok(())
}

/// Reads the parameters and strips the attributes that belong to the argument struct from the
/// signature (doc comments, `serde`, `schemars`: rustc would refuse them on parameters).
fn take_params(func: &mut ItemFn) -> syn::Result<Vec<Param>> {
    let mut params = Vec::new();
    for input in func.sig.inputs.iter_mut() {
        let typed = match input {
            FnArg::Receiver(r) => {
                return Err(syn::Error::new(r.span(), "#[tool] goes on a free `async fn`, not a method"))
            }
            FnArg::Typed(t) => t,
        };
        let Pat::Ident(pat) = &*typed.pat else {
            return Err(syn::Error::new(
                typed.pat.span(),
                "a #[tool] parameter needs a plain name: it becomes the argument's name",
            ));
        };
        if let Type::Reference(r) = &*typed.ty {
            return Err(syn::Error::new(
                r.span(),
                "a #[tool] parameter is decoded from JSON: take an owned type (e.g. String, not &str)",
            ));
        }
        let ident = pat.ident.clone();
        let is_ctx = is_context(&typed.ty);
        let (field_attrs, keep): (Vec<Attribute>, Vec<Attribute>) = typed.attrs.drain(..).partition(|a| {
            a.path().is_ident("doc") || a.path().is_ident("serde") || a.path().is_ident("schemars")
        });
        if is_ctx && !field_attrs.is_empty() {
            return Err(syn::Error::new(
                field_attrs[0].span(),
                "the RequestContext parameter is not an argument: it takes no doc comment or serde attribute",
            ));
        }
        typed.attrs = keep;
        params.push(Param { ident, ty: (*typed.ty).clone(), field_attrs, is_ctx });
    }
    if params.iter().filter(|p| p.is_ctx).count() > 1 {
        return Err(syn::Error::new(func.sig.inputs.span(), "a #[tool] takes at most one RequestContext"));
    }
    Ok(params)
}

/// True for `RequestContext` / `ToolContext` (any path ending so).
fn is_context(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "RequestContext" || s.ident == "ToolContext")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(attr: TokenStream, item: TokenStream) -> String {
        expand(attr, item).unwrap().to_string()
    }

    fn error(attr: TokenStream, item: TokenStream) -> String {
        match expand(attr, item) {
            Ok(t) => panic!("expected an error, got {t}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn names_description_and_hints_come_from_the_attribute_and_the_docs() {
        let out = expanded(
            quote!(name = "plus", title = "Plus", read_only, open_world = false, task = "optional"),
            quote! {
                /// Adds.
                pub async fn add(/// First.
                                 a: f64, b: f64, ctx: RequestContext) -> String { String::new() }
            },
        );
        assert!(out.contains("pub fn add () -> :: mcpcore :: typed :: ToolDef"), "{out}");
        assert!(out.contains("ToolDef :: typed (\"plus\""), "{out}");
        assert!(out.contains(". title (\"Plus\")"), "{out}");
        assert!(out.contains(". read_only (true)") && out.contains(". open_world (false)"), "{out}");
        assert!(out.contains("TaskPolicy :: optional ()"), "{out}");
        assert!(out.contains("# [doc = r\" First.\"] a : f64"), "{out}");
        assert!(out.contains("__mcpcore_tool_body (__mcpcore_args . a , __mcpcore_args . b , __mcpcore_ctx)"));
        assert!(!out.contains("ctx : RequestContext ,"), "the context is no field: {out}");
        assert!(!out.contains("deny_unknown_fields"), "{out}");
    }

    #[test]
    fn a_tool_without_parameters_takes_no_unknown_fields_and_a_renamed_crate_is_used() {
        let out = expanded(
            quote!(crate = "my_mcp"),
            quote!(
                async fn ping() -> String {
                    "pong".into()
                }
            ),
        );
        assert!(out.contains("deny_unknown_fields"), "{out}");
        assert!(out.contains("my_mcp :: typed :: ToolDef :: typed (\"ping\""), "{out}");
        assert!(out.contains("serde (crate = \"my_mcp::typed::__private::serde\")"), "{out}");
    }

    #[test]
    fn bad_signatures_are_refused_with_a_reason() {
        assert!(error(
            quote!(),
            quote!(
                fn f(a: u8) -> String {
                    a.to_string()
                }
            )
        )
        .contains("async fn"));
        assert!(error(
            quote!(),
            quote!(
                async fn f<T>(a: T) -> String {
                    todo!()
                }
            )
        )
        .contains("generic"));
        assert!(error(
            quote!(),
            quote!(
                async fn f(a: &str) -> String {
                    a.into()
                }
            )
        )
        .contains("owned"));
        assert!(error(
            quote!(),
            quote!(
                async fn f((a, b): (u8, u8)) -> String {
                    todo!()
                }
            )
        )
        .contains("plain name"));
        assert!(error(
            quote!(),
            quote!(
                async fn f(a: u8) {}
            )
        )
        .contains("returns its result"));
        assert!(error(
            quote!(colour = "red"),
            quote!(
                async fn f() -> String {
                    todo!()
                }
            )
        )
        .contains("unknown"));
        assert!(error(
            quote!(task = "sometimes"),
            quote!(
                async fn f() -> String {
                    todo!()
                }
            )
        )
        .contains("task"));
        let two = quote!(
            async fn f(a: RequestContext, b: ToolContext) -> String {
                todo!()
            }
        );
        assert!(error(quote!(), two).contains("at most one"));
    }
}
