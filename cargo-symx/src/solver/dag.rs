//! The trace's expression DAG as z3 bit-vectors, with the runtime's semantics
//! (`symx::trace::format::Expr`): every value is a bit-vector of its type's width (`bool` is
//! width 1), arithmetic wraps, `div`/`rem` truncate toward zero, shifts are taken modulo the
//! width, comparisons are signed or unsigned by the operands' type. The array nodes of a
//! `SymVec` (`const_array`, `store`, `select`) are z3 arrays from `usize` bit-vectors to their
//! element's bit-vectors; in the term list an array node stands as a placeholder (width 1), its
//! array is kept aside for the `select`s and `store`s that use it. `Read` leaves are the
//! pi-variables of `encode`; `Input` leaves are free variables (the model picks new inputs).

use std::collections::HashMap;
use symx::trace::format::{BinOp, CmpOp, Expr, Ty, UnOp};

use z3::ast::{Array, Bool, BV};
use z3::Sort;

/// A bit-vector constant of `ty` holding `value` (a number as the trace writes it).
pub fn constant(ty: Ty, value: i128) -> BV {
    let bits = ty.from_i128(value);
    BV::from_str(ty.bits(), &bits.to_string()).expect("a decimal numeral is a valid BV")
}

/// The name of the variable that stands for input `i`.
pub fn input_name(i: u32) -> String {
    format!("in{i}")
}

/// The z3 term of every node of `exprs`, in order; `read(var, done)` gives a read variable's
/// term, given the terms of the nodes before it (a read can stand for an earlier node's value).
/// Input `i` is the variable [`input_name`]`(i)`.
pub fn translate(exprs: &[Expr], read: impl FnMut(u32, &[BV]) -> BV) -> Vec<BV> {
    translate_leaves(
        exprs,
        |input, ty| BV::new_const(input_name(input), ty.bits()),
        read,
    )
}

/// [`translate`], with `input(i, ty)` giving input `i`'s term (an engine that compares traces
/// of several executions names inputs by their name, not their position in one trace).
pub fn translate_leaves(
    exprs: &[Expr],
    mut input: impl FnMut(u32, Ty) -> BV,
    mut read: impl FnMut(u32, &[BV]) -> BV,
) -> Vec<BV> {
    let mut out: Vec<BV> = Vec::with_capacity(exprs.len());
    let mut arrays: HashMap<u32, Array> = HashMap::new();
    for (i, node) in exprs.iter().enumerate() {
        if let Some(array) = array_term(node, |o| out[o as usize].clone(), |a| arrays[&a].clone()) {
            arrays.insert(i as u32, array);
            out.push(BV::from_u64(0, 1));
            continue;
        }
        let term = match *node {
            Expr::Input { ty, input: i } => input(i, ty),
            Expr::Read { var, .. } => read(var, &out),
            _ => operation(
                exprs,
                node,
                |o| out[o as usize].clone(),
                |a| arrays[&a].clone(),
            ),
        };
        out.push(term);
    }
    out
}

/// What a `Read` leaf stands for, to a [`Cone`].
pub enum Leaf {
    Term(BV),
    /// The value of an earlier node.
    Node(u32),
}

/// The terms of only the nodes that asked-for nodes need (their operands, transitively),
/// memoised: for a caller that needs a few nodes of a long DAG, many times over. Reads are
/// `read(var)`, inputs `input(i, ty)`.
pub struct Cone<'e, I, R> {
    exprs: &'e [Expr],
    input: I,
    read: R,
    terms: HashMap<u32, BV>,
    arrays: HashMap<u32, Array>,
    /// Reads that stand for another node.
    aliases: HashMap<u32, u32>,
}

impl<'e, I: FnMut(u32, Ty) -> BV, R: FnMut(u32) -> Leaf> Cone<'e, I, R> {
    pub fn new(exprs: &'e [Expr], input: I, read: R) -> Self {
        Cone {
            exprs,
            input,
            read,
            terms: HashMap::new(),
            arrays: HashMap::new(),
            aliases: HashMap::new(),
        }
    }

    /// Node `id`'s term (translating the nodes it needs first, without recursion: chains of
    /// operations can be as long as the execution).
    pub fn term(&mut self, id: u32) -> BV {
        let mut stack = vec![id];
        while let Some(&n) = stack.last() {
            if self.done(n) {
                stack.pop();
                continue;
            }
            let needs = self.needs(n);
            let missing: Vec<u32> = needs.into_iter().filter(|&d| !self.done(d)).collect();
            if self.done(n) {
                // A read that is a term of its own.
                stack.pop();
            } else if missing.is_empty() {
                self.build(n);
                stack.pop();
            } else {
                stack.extend(missing);
            }
        }
        self.terms[&id].clone()
    }

    fn done(&self, n: u32) -> bool {
        self.terms.contains_key(&n) || self.arrays.contains_key(&n)
    }

    /// The nodes `n`'s term is made of.
    fn needs(&mut self, n: u32) -> Vec<u32> {
        match self.exprs[n as usize] {
            Expr::Read { var, .. } => {
                if let Some(&a) = self.aliases.get(&n) {
                    return vec![a];
                }
                match (self.read)(var) {
                    Leaf::Term(t) => {
                        self.terms.insert(n, t);
                        Vec::new()
                    }
                    Leaf::Node(a) => {
                        self.aliases.insert(n, a);
                        vec![a]
                    }
                }
            }
            ref node => node.operands().collect(),
        }
    }

    /// Makes `n`'s term from its operands' (all done).
    fn build(&mut self, n: u32) {
        let node = &self.exprs[n as usize];
        let (terms, arrays) = (&self.terms, &self.arrays);
        let term = |o: u32| terms[&o].clone();
        let array = |a: u32| arrays[&a].clone();
        if let Some(a) = array_term(node, term, array) {
            self.arrays.insert(n, a);
            return;
        }
        let t = match *node {
            Expr::Input { ty, input } => (self.input)(input, ty),
            Expr::Read { .. } => terms[&self.aliases[&n]].clone(),
            _ => operation(self.exprs, node, term, array),
        };
        self.terms.insert(n, t);
    }
}

/// The term of an operation node, from its operands' terms (`term`) and arrays (`array`).
fn operation(
    exprs: &[Expr],
    node: &Expr,
    term: impl Fn(u32) -> BV,
    array: impl Fn(u32) -> Array,
) -> BV {
    match *node {
        Expr::Const { ty, value } => constant(ty, value),
        Expr::Unary { un, a, .. } => match un {
            UnOp::Neg => term(a).bvneg(),
            UnOp::Not => term(a).bvnot(),
        },
        Expr::Binary { ty, bin, a, b } => {
            binary(ty, bin, &term(a), &term(b), exprs[b as usize].ty())
        }
        Expr::Compare { cmp, a, b } => {
            bool_bv(&compare(exprs[a as usize].ty(), cmp, &term(a), &term(b)))
        }
        Expr::Cast { ty, a } => cast(exprs[a as usize].ty(), ty, &term(a)),
        Expr::Select {
            array: arr, index, ..
        } => array(arr)
            .select(&term(index))
            .as_bv()
            .expect("an array's elements are bit-vectors"),
        Expr::Input { .. } | Expr::Read { .. } => unreachable!("leaves are the caller's"),
        Expr::ConstArray { .. } | Expr::Store { .. } => unreachable!("array nodes are apart"),
    }
}

/// The z3 array of an array node (`None` for every other node).
fn array_term(
    node: &Expr,
    term: impl Fn(u32) -> BV,
    array: impl Fn(u32) -> Array,
) -> Option<Array> {
    match *node {
        Expr::ConstArray { ty, value } => Some(Array::const_array(
            &Sort::bitvector(Ty::Usize.bits()),
            &constant(ty, value),
        )),
        Expr::Store {
            array: arr,
            index,
            value,
            ..
        } => Some(array(arr).store(&term(index), &term(value))),
        _ => None,
    }
}

/// A width-1 bit-vector as a condition.
pub fn holds(bv: &BV) -> Bool {
    bv.eq(BV::from_u64(1, 1))
}

fn bool_bv(b: &Bool) -> BV {
    b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

fn binary(ty: Ty, op: BinOp, a: &BV, b: &BV, b_ty: Ty) -> BV {
    let signed = ty.signed();
    match op {
        BinOp::Add => a.bvadd(b),
        BinOp::Sub => a.bvsub(b),
        BinOp::Mul => a.bvmul(b),
        BinOp::Div if signed => a.bvsdiv(b),
        BinOp::Div => a.bvudiv(b),
        // Rust's `%` takes the dividend's sign: bvsrem, not bvsmod.
        BinOp::Rem if signed => a.bvsrem(b),
        BinOp::Rem => a.bvurem(b),
        BinOp::And => a.bvand(b),
        BinOp::Or => a.bvor(b),
        BinOp::Xor => a.bvxor(b),
        BinOp::Shl => a.bvshl(shift_amount(ty, b, b_ty)),
        BinOp::Shr if signed => a.bvashr(shift_amount(ty, b, b_ty)),
        BinOp::Shr => a.bvlshr(shift_amount(ty, b, b_ty)),
    }
}

/// `(b as u32) % width`, at `ty`'s width: the runtime's shift amount.
fn shift_amount(ty: Ty, b: &BV, b_ty: Ty) -> BV {
    let as_u32 = resize(b, b_ty.bits(), 32, false);
    let amount = as_u32.bvurem(BV::from_u64(ty.bits() as u64, 32));
    resize(&amount, 32, ty.bits(), false)
}

fn compare(ty: Ty, op: CmpOp, a: &BV, b: &BV) -> Bool {
    let s = ty.signed();
    match op {
        CmpOp::Eq => a.eq(b),
        CmpOp::Ne => a.eq(b).not(),
        CmpOp::Lt if s => a.bvslt(b),
        CmpOp::Lt => a.bvult(b),
        CmpOp::Le if s => a.bvsle(b),
        CmpOp::Le => a.bvule(b),
        CmpOp::Gt if s => a.bvsgt(b),
        CmpOp::Gt => a.bvugt(b),
        CmpOp::Ge if s => a.bvsge(b),
        CmpOp::Ge => a.bvuge(b),
    }
}

/// Rust's `as` between integer types (and `bool as` integer): truncate, or extend by the
/// source's signedness.
fn cast(from: Ty, to: Ty, a: &BV) -> BV {
    resize(a, from.bits(), to.bits(), from.signed())
}

fn resize(a: &BV, from: u32, to: u32, signed: bool) -> BV {
    use std::cmp::Ordering::*;
    match to.cmp(&from) {
        Equal => a.clone(),
        Less => a.extract(to - 1, 0),
        Greater if signed => a.sign_ext(to - from),
        Greater => a.zero_ext(to - from),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symx::trace::format::Expr as E;
    use z3::ast::Ast;
    use z3::{SatResult, Solver};

    /// Every node's z3 value equals the runtime's reference evaluation.
    fn agrees(nodes: &[Expr]) {
        let reference = symx::trace::eval_all(nodes, |_| None, |_| None).unwrap();
        let terms = translate(nodes, |_, _| unreachable!("no reads"));
        let s = Solver::new();
        assert_eq!(s.check(), SatResult::Sat);
        let m = s.get_model().unwrap();
        for (i, (t, node)) in terms.iter().zip(nodes).enumerate() {
            if node.is_array() {
                continue;
            }
            let got = m.eval(t, true).unwrap().simplify();
            let want = constant(node.ty(), node.ty().to_i128(reference[i]));
            let same = s.check_assumptions(&[got.eq(&want).not()]);
            assert_eq!(
                same,
                SatResult::Unsat,
                "node {i} {node:?}: z3 {got}, rust {want}"
            );
        }
    }

    fn c(ty: Ty, value: i128) -> Expr {
        E::Const { ty, value }
    }

    #[test]
    fn bit_vectors_follow_rusts_wrapping_signed_and_shift_semantics() {
        for (ty, x, y) in [
            (Ty::I8, -128, -1),
            (Ty::I32, -7, 2),
            (Ty::U8, 250, 10),
            (Ty::U32, 0xffff_fff9, 3),
            (Ty::I64, i64::MIN as i128, 63),
            (Ty::U128, -1, 129),
        ] {
            let mut nodes = vec![c(ty, x), c(ty, y)];
            for bin in [
                BinOp::Add,
                BinOp::Sub,
                BinOp::Mul,
                BinOp::Div,
                BinOp::Rem,
                BinOp::And,
                BinOp::Or,
                BinOp::Xor,
                BinOp::Shl,
                BinOp::Shr,
            ] {
                nodes.push(E::Binary {
                    ty,
                    bin,
                    a: 0,
                    b: 1,
                });
            }
            for cmp in [CmpOp::Lt, CmpOp::Ge, CmpOp::Eq] {
                nodes.push(E::Compare { cmp, a: 0, b: 1 });
            }
            nodes.push(E::Unary {
                ty,
                un: UnOp::Neg,
                a: 0,
            });
            for to in [Ty::I8, Ty::U16, Ty::I64, Ty::U128] {
                nodes.push(E::Cast { ty: to, a: 0 });
            }
            agrees(&nodes);
        }
    }

    /// `array[index] = value` over `u32` elements (operands by node number).
    fn store(array: u32, index: u32, value: u32) -> Expr {
        E::Store {
            ty: Ty::U32,
            array,
            index,
            value,
        }
    }

    /// `array[index]` over `u32` elements.
    fn select(array: u32, index: u32) -> Expr {
        E::Select {
            ty: Ty::U32,
            array,
            index,
        }
    }

    #[test]
    fn array_selects_agree_with_the_runtime() {
        let (u, us) = (Ty::U32, Ty::Usize);
        let nodes = [
            E::ConstArray { ty: u, value: 5 },
            c(us, 1),
            c(u, 70),
            store(0, 1, 2),
            c(us, 3),
            c(u, 11),
            store(3, 4, 5),
            select(6, 1),
            select(6, 4),
            c(us, 0),
            select(6, 9),
        ];
        agrees(&nodes);
    }

    /// The guarded load of Bergan et al.'s compound-pointer example, with no forking: `slots[1]
    /// = 70; slots[j] = 11; slots[i]` is `ite(i == j, 11, ite(i == 1, 70, 5))`, valid in z3.
    #[test]
    fn a_symbolic_slot_read_is_the_nested_ite() {
        let (u, us) = (Ty::U32, Ty::Usize);
        let nodes = [
            E::Input { ty: us, input: 0 },
            E::Input { ty: us, input: 1 },
            E::ConstArray { ty: u, value: 5 },
            c(us, 1),
            c(u, 70),
            store(2, 3, 4),
            c(u, 11),
            store(5, 1, 6),
            select(7, 0),
        ];
        let t = translate(&nodes, |_, _| unreachable!("no reads"));
        let (i, j) = (&t[0], &t[1]);
        let at = |k: u64| BV::from_u64(k, Ty::Usize.bits());
        let word = |k: u64| BV::from_u64(k, 32);
        let expected = i
            .eq(j)
            .ite(&word(11), &i.eq(at(1)).ite(&word(70), &word(5)));
        let s = Solver::new();
        s.assert(t[8].eq(&expected).not());
        assert_eq!(s.check(), SatResult::Unsat);
    }
}
