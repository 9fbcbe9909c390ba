//! Expressions over symbolic inputs and read variables, kept in a per-execution arena.
//!
//! A symbolic value carries an [`ExprId`] into its execution's [`Arena`]: a handle, not a
//! pointer graph, so values stay `Copy` and an execution's expressions are freed all at once.
//! The arena is also what the trace serialises (see `trace::format`); what its nodes mean is
//! [`super::eval`], the reference semantics every engine must agree with.

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
