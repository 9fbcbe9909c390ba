//! `#[symx::fragment]`: a function whose tail, or the rest of one iteration of a loop of it,
//! can be resumed in the middle with its captures given (the arbitrary-context paper's
//! "lexically scoped fragments", Bergan, Grossman, Ceze, OOPSLA 2014, §2.3).
//!
//! `symx::start_here!(a, b: T, …)` marks the resume point: a statement at the top level of
//! the function's body, or at the top level of the body of a `for x in a..b`, `while` or
//! `loop` that is itself a statement of the body. The attribute removes the mark from the
//! function and adds `resume_<name>(captures…)` beside it, which runs the rest of the tail;
//! or the rest of the current iteration, then the loop's remaining iterations (a `for` over a
//! range resumes at the captured loop variable), then the statements after the loop. As in
//! the paper, when the resumed function returns, its thread is done: no caller frame is
//! rebuilt.
//!
//! Restrictions, each a compile error at the offending tokens: one mark per function, at one
//! of those places (not in a closure, an `async` block, a match arm or a nested block); no
//! `async fn`; captures are locals named plainly (`x` or `x: T`), each with a type (written
//! there, or on the parameter or `let` that binds it); no capture's type borrows (captures
//! are owned, `Copy`, `Arc` or `&'static`); every local bound before the mark and used after
//! it is captured; a `for` loop is over a range and its variable is captured.
//!
//! Finding the mark and its errors is [`mark`]'s job. A lock guard alive at the mark is taken
//! again when the fragment resumes ([`guards`]): the resumed thread holds what the function
//! held there.

mod guards;
mod mark;

use std::collections::BTreeSet;

use proc_macro2::{Spacing, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::parse::{Parse, ParseStream};
use syn::{Expr, FnArg, Ident, ItemFn, Local, Pat, Stmt, Token, Type};

use crate::syntax::is_punct;
use mark::{find, loop_body, refuse_other_marks, take_mark};

/// One capture of the mark: `x` or `x: T`.
struct Capture {
    name: Ident,
    ty: Option<Type>,
}

impl Parse for Capture {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "a capture is a local's name, or `name: Type`")
        })?;
        let ty = if input.peek(Token![:]) {
            input.parse::<Token![:]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        Ok(Capture { name, ty })
    }
}

/// Where the mark is.
enum Place {
    /// Statement `at` of the function's body.
    Tail { at: usize },
    /// Statement `at` of the body of the loop that is statement `looped` of the function's.
    Loop { looped: usize, at: usize },
}

pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if !args.is_empty() {
        return syn::Error::new_spanned(args, "`#[symx::fragment]` takes no arguments")
            .into_compile_error();
    }
    let f: ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => return e.into_compile_error(),
    };
    match fragment(f) {
        Ok(tokens) => tokens,
        Err(e) => e.into_compile_error(),
    }
}

fn fragment(mut f: ItemFn) -> syn::Result<TokenStream> {
    if let Some(a) = &f.sig.asyncness {
        return Err(syn::Error::new_spanned(
            a,
            "a fragment cannot be an `async fn`: its resume point would be inside a future",
        ));
    }
    let place = find(&f).map_err(|none| {
        // A mark in a place fragments do not allow says so rather than "no mark".
        refuse_other_marks(&mut f.block.clone())
            .err()
            .unwrap_or(none)
    })?;
    let (mark, captures) = take_mark(&mut f, &place)?;
    refuse_other_marks(&mut f.block)?;
    let resume = resume_fn(&f, &place, &mark, &captures)?;
    Ok(quote!(#f #resume))
}

/// The names a pattern binds, with the type it states for a plain `name: T`.
fn bound(p: &Pat, out: &mut Vec<(Ident, Option<Type>)>) {
    match p {
        Pat::Ident(i) => out.push((i.ident.clone(), None)),
        Pat::Type(t) => match &*t.pat {
            Pat::Ident(i) => out.push((i.ident.clone(), Some((*t.ty).clone()))),
            other => bound(other, out),
        },
        Pat::Tuple(t) => t.elems.iter().for_each(|e| bound(e, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|e| bound(e, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| bound(&f.pat, out)),
        Pat::Reference(r) => bound(&r.pat, out),
        Pat::Slice(s) => s.elems.iter().for_each(|e| bound(e, out)),
        _ => {}
    }
}

/// The names the `let`s of `stmts` bind.
fn lets(stmts: &[Stmt]) -> Vec<(Ident, Option<Type>)> {
    let mut out = Vec::new();
    for s in stmts {
        if let Stmt::Local(Local { pat, .. }) = s {
            bound(pat, &mut out);
        }
    }
    out
}

/// The locals bound before the mark: (name, stated type), the loop variable last.
struct Before {
    outer: Vec<(Ident, Option<Type>)>,
    inner: Vec<(Ident, Option<Type>)>,
}

fn before(f: &ItemFn, place: &Place) -> syn::Result<Before> {
    let mut outer = Vec::new();
    for arg in &f.sig.inputs {
        match arg {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(i) => outer.push((i.ident.clone(), Some((*t.ty).clone()))),
                other => bound(other, &mut outer),
            },
            FnArg::Receiver(r) => {
                return Err(syn::Error::new_spanned(
                    r,
                    "a fragment is a free function: its resume function has no `self`",
                ))
            }
        }
    }
    let (upto, inner) = match *place {
        Place::Tail { at } => (at, Vec::new()),
        Place::Loop { looped, at } => {
            let body = loop_body(&f.block.stmts[looped]).expect("a loop");
            let mut inner = lets(&body.stmts[..at]);
            if let Stmt::Expr(Expr::ForLoop(l), _) = &f.block.stmts[looped] {
                bound(&l.pat, &mut inner);
            }
            (looped, inner)
        }
    };
    outer.extend(lets(&f.block.stmts[..upto]));
    Ok(Before { outer, inner })
}

/// Identifiers of `tokens` used as plain names (not after `.` or `::`, not a field name
/// before `:`).
fn uses(tokens: TokenStream, out: &mut Vec<Ident>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Group(g) => uses(g.stream(), out),
            TokenTree::Ident(i) => {
                let after_dot = k > 0 && is_punct(trees.get(k - 1), &['.', ':']);
                let field = matches!(
                    trees.get(k + 1),
                    Some(TokenTree::Punct(p)) if p.as_char() == ':' && p.spacing() == Spacing::Alone
                );
                if !after_dot && !field {
                    out.push(i.clone());
                }
            }
            _ => {}
        }
    }
}

fn resume_fn(
    f: &ItemFn,
    place: &Place,
    mark: &Span,
    captures: &[Capture],
) -> syn::Result<TokenStream> {
    let known = before(f, place)?;
    let captured: BTreeSet<String> = captures.iter().map(|c| c.name.to_string()).collect();
    let mut params = Vec::new();
    for c in captures {
        let stated = (known.inner.iter().chain(&known.outer))
            .rev()
            .find(|(n, _)| *n == c.name)
            .map(|(_, t)| t.clone());
        let ty = match (&c.ty, stated) {
            (Some(t), _) => t.clone(),
            (None, Some(Some(t))) => t,
            (None, Some(None)) => {
                return Err(syn::Error::new_spanned(
                    &c.name,
                    format!(
                        "capture `{}` needs a type: write `{}: T` here or state it where it is \
                         bound",
                        c.name, c.name
                    ),
                ))
            }
            (None, None) => {
                return Err(syn::Error::new_spanned(
                    &c.name,
                    format!("`{}` is not a local bound before the resume point", c.name),
                ))
            }
        };
        refuse_borrow(&c.name, &ty)?;
        params.push((c.name.clone(), ty));
    }
    let (rest, again, tail, looped) = split(f, place);
    let held = held_at(f, place)?;
    let (outer_guards, inner_guards) = (&held.outer, &held.inner);
    // Everything bound before the mark and used after it must be captured, the locks of the
    // guards taken again included.
    let mut used = Vec::new();
    uses(rest.clone(), &mut used);
    uses(quote!(#(#inner_guards)*), &mut used);
    let mut later = Vec::new();
    uses(again.clone(), &mut later);
    uses(tail.clone(), &mut later);
    match looped {
        None => uses(quote!(#(#outer_guards)*), &mut used),
        Some(_) => uses(quote!(#(#outer_guards)*), &mut later),
    }
    let inner: BTreeSet<String> = known.inner.iter().map(|(n, _)| n.to_string()).collect();
    let outer: BTreeSet<String> = known.outer.iter().map(|(n, _)| n.to_string()).collect();
    let mut rebound: BTreeSet<String> = after_lets(f, place);
    rebound.extend(held.names());
    let missing = (used.iter())
        .filter(|i| {
            let n = i.to_string();
            (inner.contains(&n) || outer.contains(&n)) && !rebound.contains(&n)
        })
        .chain(later.iter().filter(|i| {
            let n = i.to_string();
            outer.contains(&n) && !inner.contains(&n) && !rebound.contains(&n)
        }))
        .find(|i| !captured.contains(&i.to_string()));
    if let Some(i) = missing {
        return Err(syn::Error::new_spanned(
            i,
            format!("`{i}` is bound before the resume point and used after it: capture it"),
        ));
    }
    if let Some(Stmt::Expr(Expr::ForLoop(l), _)) = looped {
        let var = match &*l.pat {
            Pat::Ident(i) => i.ident.to_string(),
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "a fragment resumes a `for` loop whose variable is a plain name",
                ))
            }
        };
        if !captured.contains(&var) {
            return Err(syn::Error::new(
                *mark,
                format!("capture the loop variable `{var}`: the loop resumes from it"),
            ));
        }
    }
    let name = format_ident!("resume_{}", f.sig.ident);
    let (vis, attrs, output) = (&f.vis, &f.attrs, &f.sig.output);
    let (generics, where_clause) = (&f.sig.generics, &f.sig.generics.where_clause);
    let names: Vec<&Ident> = params.iter().map(|(n, _)| n).collect();
    let types: Vec<&Type> = params.iter().map(|(_, t)| t).collect();
    let body = match looped {
        None => quote!(#(#outer_guards)* #rest #tail),
        Some(s) => {
            let first = quote!(#(#inner_guards)* #rest);
            let resumed = resumed_loop(s, &first, &tail, &known, &captured)?;
            quote!(#(#outer_guards)* #resumed)
        }
    };
    let mut doc = format!(
        "Resumes `{}` at its `start_here!` with the captured values.",
        f.sig.ident
    );
    if !held.names().is_empty() {
        doc += &format!(
            " First takes again the locks held there: {}.",
            (outer_guards.iter().chain(inner_guards))
                .map(|g| format!("`{}`", g.to_token_stream()))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(quote! {
        #[doc = #doc]
        #(#attrs)*
        #[allow(unused_mut, unused_variables, clippy::too_many_arguments)]
        #vis fn #name #generics (#(mut #names: #types),*) #output #where_clause {
            #body
        }
    })
}

/// The guards held at the mark (module [`guards`]): bound in the function's body before the
/// mark or its loop, and in the loop's body before the mark.
fn held_at(f: &ItemFn, place: &Place) -> syn::Result<guards::Held> {
    let stmts = &f.block.stmts;
    match *place {
        Place::Tail { at } => guards::held(&stmts[..at], &[]),
        Place::Loop { looped, at } => {
            let body = loop_body(&stmts[looped]).expect("a loop");
            guards::held(&stmts[..looped], &body.stmts[..at])
        }
    }
}

/// Names `let`s after the mark bind (their later uses are not the earlier locals').
fn after_lets(f: &ItemFn, place: &Place) -> BTreeSet<String> {
    let after: Vec<Stmt> = match *place {
        Place::Tail { at } => f.block.stmts[at..].to_vec(),
        Place::Loop { looped, at } => {
            let body = loop_body(&f.block.stmts[looped]).expect("a loop");
            (body.stmts[at..].iter())
                .chain(&f.block.stmts[looped + 1..])
                .cloned()
                .collect()
        }
    };
    lets(&after)
        .into_iter()
        .map(|(n, _)| n.to_string())
        .collect()
}

/// The tokens after the mark: the rest (of the tail, or of the iteration), the loop's whole
/// body for later iterations (with its header), the statements after the loop, and the loop.
fn split<'f>(
    f: &'f ItemFn,
    place: &Place,
) -> (TokenStream, TokenStream, TokenStream, Option<&'f Stmt>) {
    let stmts = &f.block.stmts;
    match *place {
        Place::Tail { at } => {
            let rest = &stmts[at + 1..];
            (
                quote!(#(#rest)*),
                TokenStream::new(),
                TokenStream::new(),
                None,
            )
        }
        Place::Loop { looped, at } => {
            let s = &stmts[looped];
            let body = loop_body(s).expect("a loop");
            let rest = &body.stmts[at + 1..];
            let whole = &body.stmts;
            let header = match s {
                Stmt::Expr(Expr::ForLoop(l), _) => l.expr.to_token_stream(),
                Stmt::Expr(Expr::While(l), _) => l.cond.to_token_stream(),
                _ => TokenStream::new(),
            };
            let tail = &stmts[looped + 1..];
            (
                quote!(#(#rest)*),
                quote!(#header #(#whole)*),
                quote!(#(#tail)*),
                Some(s),
            )
        }
    }
}

/// The loop resumed: the rest of this iteration with the captured values of the body's
/// locals, then the remaining iterations of the whole body.
fn resumed_loop(
    s: &Stmt,
    rest: &TokenStream,
    tail: &TokenStream,
    known: &Before,
    captured: &BTreeSet<String>,
) -> syn::Result<TokenStream> {
    // The body's locals the rest of this iteration needs, moved in once.
    let carried: Vec<&Ident> = (known.inner.iter())
        .map(|(n, _)| n)
        .filter(|n| captured.contains(&n.to_string()))
        .collect();
    let slots: Vec<Ident> = carried
        .iter()
        .map(|n| format_ident!("__symx_resumed_{}", n))
        .collect();
    let first = quote! {
        #(let mut #carried = #slots.take().expect("moved in once");)*
        #rest
    };
    let whole = match s {
        Stmt::Expr(Expr::ForLoop(l), _) => {
            let body = &l.body.stmts;
            quote!(#(#body)*)
        }
        Stmt::Expr(Expr::While(l), _) => {
            let (cond, body) = (&l.cond, &l.body.stmts);
            quote!(if !(#cond) { break; } #(#body)*)
        }
        Stmt::Expr(Expr::Loop(l), _) => {
            let body = &l.body.stmts;
            quote!(#(#body)*)
        }
        _ => unreachable!("a loop statement"),
    };
    let (label, next) = match s {
        Stmt::Expr(Expr::ForLoop(l), _) => {
            let var = match &*l.pat {
                Pat::Ident(i) => &i.ident,
                _ => unreachable!("checked"),
            };
            let range = match &*l.expr {
                Expr::Range(r) => r,
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "a fragment resumes a `for` loop over a range `a..b` or `a..=b`",
                    ))
                }
            };
            let (limits, end) = (&range.limits, &range.end);
            (
                &l.label,
                quote! {
                    let mut __symx_range = #var #limits #end;
                    let __symx_next = &mut __symx_range;
                },
            )
        }
        Stmt::Expr(Expr::While(l), _) => (&l.label, TokenStream::new()),
        Stmt::Expr(Expr::Loop(l), _) => (&l.label, TokenStream::new()),
        _ => unreachable!("a loop statement"),
    };
    let step = match s {
        Stmt::Expr(Expr::ForLoop(l), _) => {
            let var = &l.pat;
            quote!(let ::core::option::Option::Some(#var) = ::core::iter::Iterator::next(__symx_next) else { break; };)
        }
        _ => TokenStream::new(),
    };
    Ok(quote! {
        #(let mut #slots = ::core::option::Option::Some(#carried);)*
        #next
        let mut __symx_first = true;
        #label loop {
            #step
            if __symx_first {
                __symx_first = false;
                #first
            } else {
                #whole
            }
        }
        #tail
    })
}

/// A capture's type must not borrow (except for `'static`).
fn refuse_borrow(name: &Ident, ty: &Type) -> syn::Result<()> {
    if let Type::Reference(r) = ty {
        if r.lifetime.as_ref().is_none_or(|l| l.ident != "static") {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "capture `{name}` borrows: a resume point cannot keep a borrow across \
                     it; capture an owned value, a `Copy` one, an `Arc` or a `&'static`"
                ),
            ));
        }
    }
    Ok(())
}
