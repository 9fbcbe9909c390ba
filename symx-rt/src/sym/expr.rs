//! Expressions over symbolic inputs and read variables, kept in a per-execution arena.
//!
//! A symbolic value carries an [`ExprId`] into its execution's [`Arena`]: a handle, not a
//! pointer graph, so values stay `Copy` and an execution's expressions are freed all at once.
//! The arena is also what the trace serialises (see `trace::format`), and [`eval`] is the
//! reference semantics every engine must agree with: wrapping arithmetic on the type's width,
//! which is what the concrete run computed whenever it did not panic on overflow.

use serde::{Deserialize, Serialize};

/// The type of a symbolic value: `bool` or a primitive integer. `isize`/`usize` are recorded
/// with the width of the machine the trace was made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ty {
    /// `bool`.
    Bool,
    /// `i8`.
    I8,
    /// `i16`.
    I16,
    /// `i32`.
    I32,
    /// `i64`.
    I64,
    /// `i128`.
    I128,
    /// `isize` (the recording machine's width).
    Isize,
    /// `u8`.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `u64`.
    U64,
    /// `u128`.
    U128,
    /// `usize` (the recording machine's width).
    Usize,
}

impl Ty {
    /// Width in bits (1 for `bool`).
    pub fn bits(self) -> u32 {
        match self {
            Ty::Bool => 1,
            Ty::I8 | Ty::U8 => 8,
            Ty::I16 | Ty::U16 => 16,
            Ty::I32 | Ty::U32 => 32,
            Ty::I64 | Ty::U64 => 64,
            Ty::I128 | Ty::U128 => 128,
            Ty::Isize | Ty::Usize => usize::BITS,
        }
    }

    /// Whether the type is a signed integer.
    pub fn signed(self) -> bool {
        matches!(
            self,
            Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64 | Ty::I128 | Ty::Isize
        )
    }

    /// The name Rust gives the type.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::I8 => "i8",
            Ty::I16 => "i16",
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::I128 => "i128",
            Ty::Isize => "isize",
            Ty::U8 => "u8",
            Ty::U16 => "u16",
            Ty::U32 => "u32",
            Ty::U64 => "u64",
            Ty::U128 => "u128",
            Ty::Usize => "usize",
        }
    }

    /// `bits` cut to the type's width (the canonical bit pattern of a value).
    pub fn truncate(self, bits: u128) -> u128 {
        match self.bits() {
            128 => bits,
            w => bits & ((1u128 << w) - 1),
        }
    }

    /// The canonical bit pattern of the mathematical value `v` (wrapping).
    pub fn from_i128(self, v: i128) -> u128 {
        self.truncate(v as u128)
    }

    /// The value a bit pattern stands for, as a number (`u128` values above `i128::MAX` come
    /// out negative: the trace format documents this one exception).
    pub fn to_i128(self, bits: u128) -> i128 {
        let w = self.bits();
        let bits = self.truncate(bits);
        if self.signed() && w < 128 && bits >> (w - 1) & 1 == 1 {
            (bits | !((1u128 << w) - 1)) as i128
        } else {
            bits as i128
        }
    }
}

/// Serde for `i128` values: a JSON number when it fits in 64 bits (every value of the types
/// up to 64 bits), a decimal string otherwise. Self-describing buffers (serde's internally
/// tagged enums, which the worker protocol uses) cannot hold 128-bit numbers.
pub(crate) mod wide {
    use serde::{de, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &i128, s: S) -> Result<S::Ok, S::Error> {
        if let Ok(small) = i64::try_from(*v) {
            s.serialize_i64(small)
        } else if let Ok(big) = u64::try_from(*v) {
            s.serialize_u64(big)
        } else {
            s.serialize_str(&v.to_string())
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        d.deserialize_any(Wide)
    }

    struct Wide;

    impl de::Visitor<'_> for Wide {
        type Value = i128;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an integer, or a decimal string for one beyond 64 bits")
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<i128, E> {
            Ok(v.into())
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<i128, E> {
            Ok(v.into())
        }
        fn visit_i128<E: de::Error>(self, v: i128) -> Result<i128, E> {
            Ok(v)
        }
        fn visit_u128<E: de::Error>(self, v: u128) -> Result<i128, E> {
            Ok(v as i128)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<i128, E> {
            v.parse()
                .map_err(|_| E::custom(format!("`{v}` is not an integer")))
        }
    }
}

/// [`wide`] for an optional `i128` (absent: `None`; use with `#[serde(default)]`).
pub(crate) mod wide_opt {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Wide(#[serde(with = "super::wide")] i128);

    pub fn serialize<S: Serializer>(v: &Option<i128>, s: S) -> Result<S::Ok, S::Error> {
        v.map(Wide).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i128>, D::Error> {
        Ok(Option::<Wide>::deserialize(d)?.map(|w| w.0))
    }
}

/// Index of an expression in its execution's arena.
pub type ExprId = u32;

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnOp {
    /// Arithmetic negation (wrapping).
    Neg,
    /// Bitwise not; logical not on `bool`.
    Not,
}

/// Binary operators whose result has the operands' type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BinOp {
    /// `a + b` (wrapping).
    Add,
    /// `a - b` (wrapping).
    Sub,
    /// `a * b` (wrapping).
    Mul,
    /// `a / b` (wrapping on signed overflow; a zero divisor is an evaluation error).
    Div,
    /// `a % b` (as `Div`).
    Rem,
    /// Bitwise and; logical and on `bool`.
    And,
    /// Bitwise or; logical or on `bool`.
    Or,
    /// Bitwise xor; logical xor on `bool`.
    Xor,
    /// Shift left by the right operand modulo the width (the right operand is a `u32`).
    Shl,
    /// Shift right (arithmetic for signed types) by the right operand modulo the width.
    Shr,
}

/// Comparisons; the result is a `bool`, the signedness is the operands'.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CmpOp {
    /// `a == b`.
    Eq,
    /// `a != b`.
    Ne,
    /// `a < b`.
    Lt,
    /// `a <= b`.
    Le,
    /// `a > b`.
    Gt,
    /// `a >= b`.
    Ge,
}

/// One node of the expression DAG.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Expr {
    /// A constant (the value as a number, see [`Ty::to_i128`]).
    Const {
        /// The constant's type.
        ty: Ty,
        /// The constant's value.
        #[serde(with = "wide")]
        value: i128,
    },
    /// The symbolic input with this index in the trace's input list.
    Input {
        /// The input's type.
        ty: Ty,
        /// The input's index in the trace's input list.
        input: u32,
    },
    /// The value returned by the read that introduced read variable `var`.
    Read {
        /// The read's type.
        ty: Ty,
        /// The read variable (see [`ReadRecord`](crate::trace::format::ReadRecord)).
        var: u32,
    },
    /// A unary operator applied to `a`.
    Unary {
        /// The result's type (the operand's).
        ty: Ty,
        /// The operator.
        un: UnOp,
        /// The operand.
        a: ExprId,
    },
    /// A binary operator applied to `a` and `b`.
    Binary {
        /// The result's type (the operands').
        ty: Ty,
        /// The operator.
        bin: BinOp,
        /// The left operand.
        a: ExprId,
        /// The right operand.
        b: ExprId,
    },
    /// A comparison of `a` and `b`; a `bool`.
    Compare {
        /// The comparison.
        cmp: CmpOp,
        /// The left operand.
        a: ExprId,
        /// The right operand.
        b: ExprId,
    },
    /// `a as ty` (Rust's `as` between integers; `bool as` integer gives 0 or 1).
    Cast {
        /// The target type.
        ty: Ty,
        /// The operand.
        a: ExprId,
    },
    /// An array of `ty` elements indexed by `usize` whose every element is `value` (a
    /// [`SymVec`](crate::SymVec)'s start; added within trace version 1).
    #[serde(rename = "const_array")]
    ConstArray {
        /// The elements' type.
        ty: Ty,
        /// Every element's value (as [`Const`](Expr::Const) writes it).
        #[serde(with = "wide")]
        value: i128,
    },
    /// Element `index` (a `usize` node) of the array node `array`.
    Select {
        /// The elements' type.
        ty: Ty,
        /// The array node.
        array: ExprId,
        /// The index (a `usize` node).
        index: ExprId,
    },
    /// The array node `array` with element `index` replaced by `value`.
    Store {
        /// The elements' type.
        ty: Ty,
        /// The array node before the store.
        array: ExprId,
        /// The index (a `usize` node).
        index: ExprId,
        /// The new element (a node of type `ty`).
        value: ExprId,
    },
}

impl Expr {
    /// The node's type; for the array nodes (`const_array`, `store`), their elements' type.
    pub fn ty(&self) -> Ty {
        match *self {
            Expr::Const { ty, .. }
            | Expr::Input { ty, .. }
            | Expr::Read { ty, .. }
            | Expr::Unary { ty, .. }
            | Expr::Binary { ty, .. }
            | Expr::Cast { ty, .. }
            | Expr::ConstArray { ty, .. }
            | Expr::Select { ty, .. }
            | Expr::Store { ty, .. } => ty,
            Expr::Compare { .. } => Ty::Bool,
        }
    }

    /// Whether the node is an array (its value is a map from `usize` to its type, not one
    /// value of it).
    pub fn is_array(&self) -> bool {
        matches!(self, Expr::ConstArray { .. } | Expr::Store { .. })
    }

    /// The nodes this one is computed from (always earlier in a well-formed DAG).
    pub fn operands(&self) -> impl Iterator<Item = ExprId> {
        let ops: [Option<ExprId>; 3] = match *self {
            Expr::Unary { a, .. } | Expr::Cast { a, .. } => [Some(a), None, None],
            Expr::Binary { a, b, .. } | Expr::Compare { a, b, .. } => [Some(a), Some(b), None],
            Expr::Select { array, index, .. } => [Some(array), Some(index), None],
            Expr::Store {
                array,
                index,
                value,
                ..
            } => [Some(array), Some(index), Some(value)],
            Expr::Const { .. }
            | Expr::Input { .. }
            | Expr::Read { .. }
            | Expr::ConstArray { .. } => [None; 3],
        };
        ops.into_iter().flatten()
    }
}

/// The expressions of one execution, in creation order (operands before the nodes using them).
#[derive(Clone, Debug, Default)]
pub(crate) struct Arena {
    pub nodes: Vec<Expr>,
}

impl Arena {
    pub fn push(&mut self, e: Expr) -> ExprId {
        self.nodes.push(e);
        (self.nodes.len() - 1) as ExprId
    }
}

/// Why an expression could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    /// An operand refers to a node that is not before it.
    Dangling(ExprId),
    /// An `Input` node names no input of the trace.
    UnknownInput(u32),
    /// A `Read` node names a read variable no event introduced.
    UnknownRead(u32),
    /// A division or remainder by zero.
    DivisionByZero,
    /// A `select` or `store` whose `array` operand is not an array node.
    NotAnArray(ExprId),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::Dangling(id) => write!(f, "expression {id} refers to a later node"),
            EvalError::UnknownInput(i) => write!(f, "input {i} is not in the input list"),
            EvalError::UnknownRead(r) => write!(f, "read variable {r} has no recorded value"),
            EvalError::DivisionByZero => write!(f, "division by zero"),
            EvalError::NotAnArray(id) => write!(f, "expression {id} is used as an array"),
        }
    }
}

/// Evaluates every node of `nodes` in order under the given input and read values (bit
/// patterns), returning each node's value as a bit pattern of its type.
pub fn eval_all(
    nodes: &[Expr],
    input: impl Fn(u32) -> Option<u128>,
    read: impl Fn(u32) -> Option<u128>,
) -> Result<Vec<u128>, EvalError> {
    let mut vals: Vec<u128> = Vec::with_capacity(nodes.len());
    for i in 0..nodes.len() {
        let v = node_value(nodes, i, &vals, &input, &read)?;
        vals.push(v);
    }
    Ok(vals)
}

/// The value of node `root` alone: only the nodes it depends on are evaluated, so reads and
/// inputs that other nodes use need no value (an engine replaying part of a trace).
pub fn eval(
    nodes: &[Expr],
    root: ExprId,
    input: impl Fn(u32) -> Option<u128>,
    read: impl Fn(u32) -> Option<u128>,
) -> Result<u128, EvalError> {
    let root = root as usize;
    if root >= nodes.len() {
        return Err(EvalError::Dangling(root as ExprId));
    }
    // The cone of `root`: operands always come before the nodes that use them.
    let mut needed = vec![false; root + 1];
    needed[root] = true;
    for i in (0..=root).rev() {
        if !needed[i] {
            continue;
        }
        for o in nodes[i].operands() {
            if o as usize >= i {
                return Err(EvalError::Dangling(o));
            }
            needed[o as usize] = true;
        }
    }
    let mut vals = vec![0u128; root + 1];
    for i in (0..=root).filter(|&i| needed[i]) {
        vals[i] = node_value(nodes, i, &vals[..i], &input, &read)?;
    }
    Ok(vals[root])
}

/// Node `i`'s value, given the values of the nodes before it (`earlier`). Array nodes have no
/// single value (they are 0 here); a `select` follows its array's chain of stores back to the
/// latest one at its index, or to the constant array it starts from.
fn node_value(
    nodes: &[Expr],
    i: usize,
    earlier: &[u128],
    input: &impl Fn(u32) -> Option<u128>,
    read: &impl Fn(u32) -> Option<u128>,
) -> Result<u128, EvalError> {
    let get = |id: ExprId| {
        if (id as usize) < i {
            Ok(earlier[id as usize])
        } else {
            Err(EvalError::Dangling(id))
        }
    };
    Ok(match nodes[i] {
        Expr::Const { ty, value } => ty.from_i128(value),
        Expr::Input { ty, input: n } => ty.truncate(input(n).ok_or(EvalError::UnknownInput(n))?),
        Expr::Read { ty, var } => ty.truncate(read(var).ok_or(EvalError::UnknownRead(var))?),
        Expr::Unary { ty, un, a } => unary(ty, un, get(a)?),
        Expr::Binary { ty, bin, a, b } => binary(ty, bin, get(a)?, get(b)?)?,
        Expr::Compare { cmp, a, b } => {
            let ty = node_ty(nodes, a)?;
            compare(ty, cmp, get(a)?, get(b)?) as u128
        }
        Expr::Cast { ty, a } => {
            let from = node_ty(nodes, a)?;
            ty.from_i128(from.to_i128(get(a)?))
        }
        Expr::ConstArray { .. } => 0,
        Expr::Store {
            array,
            index,
            value,
            ..
        } => {
            get(array)?;
            array_node(nodes, array)?;
            get(index)?;
            get(value)?;
            0
        }
        Expr::Select { ty, array, index } => {
            get(array)?;
            array_node(nodes, array)?;
            ty.truncate(select(nodes, earlier, array, get(index)?)?)
        }
    })
}

fn array_node(nodes: &[Expr], id: ExprId) -> Result<(), EvalError> {
    match nodes.get(id as usize) {
        Some(node) if node.is_array() => Ok(()),
        _ => Err(EvalError::NotAnArray(id)),
    }
}

/// Element `index` of the array node `array`, whose chain of stores has been evaluated.
fn select(
    nodes: &[Expr],
    vals: &[u128],
    mut array: ExprId,
    index: u128,
) -> Result<u128, EvalError> {
    loop {
        match nodes[array as usize] {
            Expr::Store {
                array: inner,
                index: at,
                value,
                ..
            } => {
                if vals[at as usize] == index {
                    return Ok(vals[value as usize]);
                }
                array = inner;
            }
            Expr::ConstArray { ty, value } => return Ok(ty.from_i128(value)),
            _ => return Err(EvalError::NotAnArray(array)),
        }
    }
}

fn node_ty(nodes: &[Expr], id: ExprId) -> Result<Ty, EvalError> {
    nodes
        .get(id as usize)
        .map(Expr::ty)
        .ok_or(EvalError::Dangling(id))
}

fn unary(ty: Ty, op: UnOp, a: u128) -> u128 {
    match op {
        UnOp::Neg => ty.truncate(a.wrapping_neg()),
        UnOp::Not => ty.truncate(!a),
    }
}

fn binary(ty: Ty, op: BinOp, a: u128, b: u128) -> Result<u128, EvalError> {
    let (sa, sb) = (ty.to_i128(a), ty.to_i128(b));
    let signed = ty.signed();
    let v = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::Div | BinOp::Rem if b == 0 => return Err(EvalError::DivisionByZero),
        BinOp::Div if signed => sa.wrapping_div(sb) as u128,
        BinOp::Div => a / b,
        BinOp::Rem if signed => sa.wrapping_rem(sb) as u128,
        BinOp::Rem => a % b,
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => a << (b as u32 % ty.bits()),
        BinOp::Shr if signed => (sa >> (b as u32 % ty.bits())) as u128,
        BinOp::Shr => a >> (b as u32 % ty.bits()),
    };
    Ok(ty.truncate(v))
}

fn compare(ty: Ty, op: CmpOp, a: u128, b: u128) -> bool {
    let ord = if ty.signed() {
        ty.to_i128(a).cmp(&ty.to_i128(b))
    } else {
        a.cmp(&b)
    };
    match op {
        CmpOp::Eq => ord.is_eq(),
        CmpOp::Ne => ord.is_ne(),
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(ty: Ty, value: i128) -> Expr {
        Expr::Const { ty, value }
    }

    fn eval_last(nodes: &[Expr]) -> u128 {
        *eval_all(nodes, |_| None, |_| None).unwrap().last().unwrap()
    }

    #[test]
    fn arithmetic_wraps_at_the_types_width() {
        let nodes = [
            c(Ty::U8, 250),
            c(Ty::U8, 10),
            Expr::Binary {
                ty: Ty::U8,
                bin: BinOp::Add,
                a: 0,
                b: 1,
            },
        ];
        assert_eq!(eval_last(&nodes), 4);
        let nodes = [
            c(Ty::I8, -128),
            Expr::Unary {
                ty: Ty::I8,
                un: UnOp::Neg,
                a: 0,
            },
        ];
        assert_eq!(Ty::I8.to_i128(eval_last(&nodes)), -128);
    }

    #[test]
    fn signedness_decides_division_shift_and_order() {
        let nodes = [
            c(Ty::I32, -7),
            c(Ty::I32, 2),
            Expr::Binary {
                ty: Ty::I32,
                bin: BinOp::Div,
                a: 0,
                b: 1,
            },
            Expr::Binary {
                ty: Ty::I32,
                bin: BinOp::Rem,
                a: 0,
                b: 1,
            },
            Expr::Binary {
                ty: Ty::I32,
                bin: BinOp::Shr,
                a: 0,
                b: 1,
            },
            Expr::Compare {
                cmp: CmpOp::Lt,
                a: 0,
                b: 1,
            },
        ];
        let v = eval_all(&nodes, |_| None, |_| None).unwrap();
        assert_eq!(Ty::I32.to_i128(v[2]), -7 / 2);
        assert_eq!(Ty::I32.to_i128(v[3]), -7 % 2);
        assert_eq!(Ty::I32.to_i128(v[4]), -7 >> 2);
        assert_eq!(v[5], 1);
        let nodes = [
            c(Ty::U32, 0xffff_fff9),
            c(Ty::U32, 2),
            Expr::Compare {
                cmp: CmpOp::Lt,
                a: 0,
                b: 1,
            },
        ];
        assert_eq!(eval_last(&nodes), 0);
    }

    #[test]
    fn casts_follow_rusts_as() {
        let nodes = [c(Ty::I16, -1), Expr::Cast { ty: Ty::U8, a: 0 }];
        assert_eq!(eval_last(&nodes), 255);
        let nodes = [c(Ty::U8, 200), Expr::Cast { ty: Ty::I8, a: 0 }];
        assert_eq!(Ty::I8.to_i128(eval_last(&nodes)), 200u8 as i8 as i128);
        let nodes = [c(Ty::Bool, 1), Expr::Cast { ty: Ty::U64, a: 0 }];
        assert_eq!(eval_last(&nodes), 1);
    }

    #[test]
    fn inputs_and_reads_come_from_the_assignment() {
        let nodes = [
            Expr::Input {
                ty: Ty::U16,
                input: 0,
            },
            Expr::Read {
                ty: Ty::U16,
                var: 3,
            },
            Expr::Binary {
                ty: Ty::U16,
                bin: BinOp::Mul,
                a: 0,
                b: 1,
            },
        ];
        let v = eval_all(&nodes, |_| Some(300), |r| (r == 3).then_some(300)).unwrap();
        assert_eq!(v[2], (300u32 * 300 % 65536) as u128);
        assert_eq!(
            eval_all(&nodes, |_| None, |_| None),
            Err(EvalError::UnknownInput(0))
        );
    }

    #[test]
    fn one_node_needs_values_only_for_its_own_cone() {
        let nodes = [
            Expr::Read { ty: Ty::U8, var: 0 },
            Expr::Read { ty: Ty::U8, var: 1 },
            c(Ty::U8, 3),
            Expr::Binary {
                ty: Ty::U8,
                bin: BinOp::Add,
                a: 0,
                b: 2,
            },
        ];
        let only_var_0 = |v| (v == 0).then_some(4);
        assert_eq!(eval(&nodes, 3, |_| None, only_var_0), Ok(7));
        assert_eq!(
            eval_all(&nodes, |_| None, only_var_0),
            Err(EvalError::UnknownRead(1))
        );
        assert_eq!(
            eval(&nodes, 9, |_| None, only_var_0),
            Err(EvalError::Dangling(9))
        );
    }

    #[test]
    fn forward_references_and_division_by_zero_are_errors() {
        let nodes = [Expr::Unary {
            ty: Ty::U8,
            un: UnOp::Not,
            a: 0,
        }];
        assert_eq!(
            eval_all(&nodes, |_| None, |_| None),
            Err(EvalError::Dangling(0))
        );
        let nodes = [
            c(Ty::U8, 1),
            c(Ty::U8, 0),
            Expr::Binary {
                ty: Ty::U8,
                bin: BinOp::Rem,
                a: 0,
                b: 1,
            },
        ];
        assert_eq!(
            eval_all(&nodes, |_| None, |_| None),
            Err(EvalError::DivisionByZero)
        );
    }

    #[test]
    fn a_select_finds_the_latest_store_at_its_index_or_the_constant() {
        let nodes = [
            Expr::ConstArray {
                ty: Ty::I8,
                value: -1,
            },
            Expr::Input {
                ty: Ty::Usize,
                input: 0,
            },
            c(Ty::I8, 4),
            Expr::Store {
                ty: Ty::I8,
                array: 0,
                index: 1,
                value: 2,
            },
            c(Ty::Usize, 2),
            c(Ty::I8, 9),
            Expr::Store {
                ty: Ty::I8,
                array: 3,
                index: 4,
                value: 5,
            },
            Expr::Select {
                ty: Ty::I8,
                array: 6,
                index: 4,
            },
            c(Ty::Usize, 7),
            Expr::Select {
                ty: Ty::I8,
                array: 6,
                index: 8,
            },
        ];
        let at = |i: u128| move |_| Some(i);
        // Input 7: the later store (index 2) misses, the earlier one (index 7) hits.
        assert_eq!(eval(&nodes, 9, at(7), |_| None), Ok(4));
        assert_eq!(eval(&nodes, 7, at(7), |_| None), Ok(9));
        // Input 2: the later store wins at 2; index 7 falls through to the constant.
        assert_eq!(eval(&nodes, 7, at(2), |_| None), Ok(9));
        assert_eq!(
            Ty::I8.to_i128(eval(&nodes, 9, at(2), |_| None).unwrap()),
            -1
        );
        let bad = [
            c(Ty::U8, 1),
            c(Ty::Usize, 0),
            Expr::Select {
                ty: Ty::U8,
                array: 0,
                index: 1,
            },
        ];
        assert_eq!(
            eval_all(&bad, |_| None, |_| None),
            Err(EvalError::NotAnArray(0))
        );
    }
}
