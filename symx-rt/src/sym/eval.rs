//! The reference semantics of the expression arena ([`super::expr`]): every engine, and the
//! trace checker, must agree with [`eval`]. Wrapping arithmetic on the type's width, which is
//! what the concrete run computed whenever it did not panic on overflow; a `select` follows its
//! array's chain of stores.

use super::expr::{BinOp, CmpOp, Expr, ExprId, Ty, UnOp};

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
