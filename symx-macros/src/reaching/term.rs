//! The values of the reaching-definitions analysis: the paper's symbolic expressions
//! (Figure 2.17's `eval`, which folds `r1 ← r2 + 5` with `r2 ↦ x` into `r1 ↦ x + 5`),
//! over integer constants and the values locals had when the definition ran.
//!
//! A [`Term::Var`] names a local whose value the analysis does not know but which has not
//! changed since: the flow function kills every term that mentions a local when that local
//! is assigned or borrowed mutably, so a surviving `x + 5` still speaks of `x`'s value.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{BinOp, Expr, ExprLit, Lit, UnOp};

/// A must-reach value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Term {
    Const(i128),
    /// The (unchanged) value of a local.
    Var(String),
    Add(Box<Term>, Box<Term>),
    Sub(Box<Term>, Box<Term>),
    Mul(Box<Term>, Box<Term>),
}

impl Term {
    /// Folds constants: a term without locals is a constant.
    fn op(op: &BinOp, l: Term, r: Term) -> Option<Term> {
        if let (Term::Const(a), Term::Const(b)) = (&l, &r) {
            return match op {
                BinOp::Add(_) => a.checked_add(*b),
                BinOp::Sub(_) => a.checked_sub(*b),
                BinOp::Mul(_) => a.checked_mul(*b),
                _ => None,
            }
            .map(Term::Const);
        }
        let (l, r) = (Box::new(l), Box::new(r));
        match op {
            BinOp::Add(_) => Some(Term::Add(l, r)),
            BinOp::Sub(_) => Some(Term::Sub(l, r)),
            BinOp::Mul(_) => Some(Term::Mul(l, r)),
            _ => None,
        }
    }

    /// Whether the term mentions local `x`.
    pub(crate) fn mentions(&self, x: &str) -> bool {
        match self {
            Term::Const(_) => false,
            Term::Var(v) => v == x,
            Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) => a.mentions(x) || b.mentions(x),
        }
    }

    /// The locals the term mentions.
    pub(crate) fn vars(&self) -> Vec<String> {
        match self {
            Term::Const(_) => Vec::new(),
            Term::Var(v) => vec![v.clone()],
            Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) => {
                let mut v = a.vars();
                v.extend(b.vars());
                v
            }
        }
    }

    fn has_const(&self) -> bool {
        match self {
            Term::Const(_) => true,
            Term::Var(_) => false,
            Term::Add(a, b) | Term::Sub(a, b) | Term::Mul(a, b) => a.has_const() || b.has_const(),
        }
    }

    /// A term that relates locals and says what type they have: it mentions a local and an
    /// integer literal, and an integer literal only combines with integers (a bare copy
    /// `y = x` could be of any type, and is not a fact the checkpoint can state).
    pub(crate) fn is_relational(&self) -> bool {
        !self.vars().is_empty() && self.has_const()
    }

    /// The term as a Rust expression over its locals (`x + 5`), for the checkpoint.
    pub(crate) fn tokens(&self) -> TokenStream {
        match self {
            Term::Const(c) => {
                let lit = proc_macro2::Literal::i128_unsuffixed(c.unsigned_abs() as i128);
                if *c < 0 {
                    quote!((-#lit))
                } else {
                    quote!(#lit)
                }
            }
            Term::Var(v) => {
                let ident = syn::Ident::new(v, proc_macro2::Span::call_site());
                quote!(#ident)
            }
            Term::Add(a, b) => bin(a, quote!(+), b),
            Term::Sub(a, b) => bin(a, quote!(-), b),
            Term::Mul(a, b) => bin(a, quote!(*), b),
        }
    }
}

fn bin(a: &Term, op: TokenStream, b: &Term) -> TokenStream {
    let (a, b) = (a.tokens(), b.tokens());
    quote!((#a #op #b))
}

/// The term `e` evaluates to, given the terms of the locals `known` maps: an integer literal,
/// a local (its term, or itself when it has none), `+ - *` and negation of those; casts,
/// `.into()` and `Sym::from` of constants. `None` for anything else.
pub(crate) fn eval(known: &dyn Fn(&str) -> Option<Term>, e: &Expr) -> Option<Term> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().ok().map(Term::Const),
        Expr::Path(p) if p.qself.is_none() => {
            let x = p.path.get_ident()?.to_string();
            Some(known(&x).unwrap_or(Term::Var(x)))
        }
        Expr::Paren(p) => eval(known, &p.expr),
        Expr::Group(g) => eval(known, &g.expr),
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match eval(known, &u.expr)? {
            Term::Const(c) => c.checked_neg().map(Term::Const),
            _ => None,
        },
        Expr::Binary(b) => Term::op(&b.op, eval(known, &b.left)?, eval(known, &b.right)?),
        // A cast or a conversion changes the type: only a constant survives it.
        Expr::Cast(c) => constant(eval(known, &c.expr)?),
        Expr::MethodCall(m) if m.method == "into" && m.args.is_empty() => {
            constant(eval(known, &m.receiver)?)
        }
        Expr::Call(c) if c.args.len() == 1 && is_sym_from(&c.func) => {
            constant(eval(known, &c.args[0])?)
        }
        _ => None,
    }
}

fn constant(t: Term) -> Option<Term> {
    matches!(t, Term::Const(_)).then_some(t)
}

/// `Sym::from` (any path ending so).
fn is_sym_from(f: &Expr) -> bool {
    let Expr::Path(p) = f else { return false };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    segs.ends_with(&["Sym".to_string(), "from".to_string()])
}
