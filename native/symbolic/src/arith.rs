//! JVM arithmetic as z3 terms, exact to JVMS §6.5.
//!
//! `int`, `long` and the narrower integer types are bit-vectors of the JVM's
//! width (boolean, byte, char and short live on the operand stack as 32-bit
//! ints, as in the JVM), so overflow wraps exactly. `float` and `double` use
//! z3's IEEE 754 theory with the JVM's rounding (to nearest, ties to even)
//! and the JVM's rules where IEEE leaves a choice: NaN and saturation in
//! `f2i`/`d2l`, the result of a compare involving NaN.
//!
//! Division and remainder by zero throw `ArithmeticException` in the JVM:
//! [`divides_by_zero`] is the condition the explorer turns into a branch;
//! the quotient term itself is only meaningful when the divisor is non-zero.

use z3::ast::{Ast, Bool, Float, BV};
use z3::Sort;

use crate::ffi;

pub const INT_BITS: u32 = 32;
pub const LONG_BITS: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    /// Shifts take their distance as an `int`, even for `long` values.
    Shl,
    Shr,
    Ushr,
}

/// `left op right` for `int` (32-bit) or `long` (64-bit) operands.
pub fn int_op(op: IntOp, left: &BV, right: &BV) -> BV {
    match op {
        IntOp::Add => left.bvadd(right),
        IntOp::Sub => left.bvsub(right),
        IntOp::Mul => left.bvmul(right),
        // SMT-LIB's signed division truncates toward zero and its remainder
        // takes the dividend's sign: both as the JVM (MIN / -1 wraps to MIN).
        IntOp::Div => left.bvsdiv(right),
        IntOp::Rem => left.bvsrem(right),
        IntOp::And => left.bvand(right),
        IntOp::Or => left.bvor(right),
        IntOp::Xor => left.bvxor(right),
        IntOp::Shl => left.bvshl(shift_distance(right, left.get_size())),
        IntOp::Shr => left.bvashr(shift_distance(right, left.get_size())),
        IntOp::Ushr => left.bvlshr(shift_distance(right, left.get_size())),
    }
}

/// The JVM uses only the low 5 (int) or 6 (long) bits of a shift distance.
fn shift_distance(distance: &BV, width: u32) -> BV {
    let masked = distance.bvand(BV::from_u64(u64::from(width - 1), distance.get_size()));
    match width.checked_sub(masked.get_size()) {
        Some(extra) if extra > 0 => masked.zero_ext(extra),
        _ => masked,
    }
}

pub fn int_neg(value: &BV) -> BV {
    value.bvneg()
}

/// The condition under which `idiv`, `irem`, `ldiv` or `lrem` throws.
pub fn divides_by_zero(divisor: &BV) -> Bool {
    divisor.eq(BV::from_u64(0, divisor.get_size()))
}

/// `lcmp`: 0 if equal, -1 if `left < right`, 1 otherwise, as an int.
pub fn lcmp(left: &BV, right: &BV) -> BV {
    let int = |value: i64| BV::from_i64(value, INT_BITS);
    left.eq(right)
        .ite(&int(0), &left.bvslt(right).ite(&int(-1), &int(1)))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// `left op right` for `float` or `double` operands, rounded to nearest.
/// (`frem`/`drem` truncate like C's `fmod`, unlike IEEE's remainder; they
/// have no exact encoding here and are left to concrete execution.)
pub fn float_op(op: FloatOp, left: &Float, right: &Float) -> Float {
    let rounding = z3::ast::RoundingMode::round_nearest_ties_to_even();
    match op {
        FloatOp::Add => left.add_with_rounding_mode(right, &rounding),
        FloatOp::Sub => left.sub_with_rounding_mode(right, &rounding),
        FloatOp::Mul => left.mul_with_rounding_mode(right, &rounding),
        FloatOp::Div => left.div_with_rounding_mode(right, &rounding),
    }
}

pub fn float_neg(value: &Float) -> Float {
    value.unary_neg()
}

/// What a compare gives when either operand is NaN: `fcmpl`/`dcmpl` give
/// -1, `fcmpg`/`dcmpg` give 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NanResult {
    Less,
    Greater,
}

/// `fcmpl`, `fcmpg`, `dcmpl`, `dcmpg` as an int. Positive and negative zero
/// compare equal.
pub fn float_cmp(left: &Float, right: &Float, nan: NanResult) -> BV {
    let int = |value: i64| BV::from_i64(value, INT_BITS);
    let unordered = Bool::or(&[left.is_nan(), right.is_nan()]);
    let nan_value = match nan {
        NanResult::Less => int(-1),
        NanResult::Greater => int(1),
    };
    unordered.ite(
        &nan_value,
        &left
            .lt(right)
            .ite(&int(-1), &left.gt(right).ite(&int(1), &int(0))),
    )
}

/// Conversions between primitive types (JVMS §2.8, §6.5 `i2l` ... `d2f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    I2L,
    I2F,
    I2D,
    L2I,
    L2F,
    L2D,
    F2I,
    F2L,
    F2D,
    D2I,
    D2L,
    D2F,
    I2B,
    I2C,
    I2S,
}

/// A value of any primitive stack type.
#[derive(Clone, Debug)]
pub enum Primitive {
    Int(BV),
    Long(BV),
    Float(Float),
    Double(Float),
}

/// Applies a conversion. Panics if `value` is not of the conversion's source
/// type, which is a bug in the caller (the bytecode verifier guarantees it).
pub fn convert(conversion: Conversion, value: &Primitive) -> Primitive {
    use Conversion::*;
    use Primitive as P;
    let nearest = z3::ast::RoundingMode::round_nearest_ties_to_even();
    match (conversion, value) {
        (I2L, P::Int(v)) => P::Long(v.sign_ext(32)),
        (L2I, P::Long(v)) => P::Int(v.extract(31, 0)),
        (I2B, P::Int(v)) => P::Int(v.extract(7, 0).sign_ext(24)),
        (I2C, P::Int(v)) => P::Int(v.extract(15, 0).zero_ext(16)),
        (I2S, P::Int(v)) => P::Int(v.extract(15, 0).sign_ext(16)),
        (I2F, P::Int(v)) | (L2F, P::Long(v)) => {
            P::Float(ffi::signed_bv_to_float(v, &Sort::float32()))
        }
        (I2D, P::Int(v)) | (L2D, P::Long(v)) => {
            P::Double(ffi::signed_bv_to_float(v, &Sort::double()))
        }
        (F2D, P::Float(v)) => P::Double(v.to_fp_with_rounding_mode(&nearest, &Sort::double())),
        (D2F, P::Double(v)) => P::Float(v.to_fp_with_rounding_mode(&nearest, &Sort::float32())),
        (F2I, P::Float(v)) | (D2I, P::Double(v)) => P::Int(saturating_to_int(v, INT_BITS)),
        (F2L, P::Float(v)) | (D2L, P::Double(v)) => P::Long(saturating_to_int(v, LONG_BITS)),
        (conversion, value) => panic!("{conversion:?} applied to {value:?}"),
    }
}

/// `f2i`, `f2l`, `d2i`, `d2l`: NaN gives 0, values beyond the range give
/// its bound, everything else rounds toward zero.
fn saturating_to_int(value: &Float, bits: u32) -> BV {
    // ±2^(bits-1) are exact in both float formats.
    let bound = 2f64.powi(bits as i32 - 1);
    let same_format = |x: f64| match value.get_sort() {
        sort if sort == Sort::float32() => Float::from_f32(x as f32),
        _ => Float::from_f64(x),
    };
    let max = BV::from_i64(
        if bits == 64 {
            i64::MAX
        } else {
            i64::from(i32::MAX)
        },
        bits,
    );
    let min = BV::from_i64(
        if bits == 64 {
            i64::MIN
        } else {
            i64::from(i32::MIN)
        },
        bits,
    );
    let truncated =
        value.to_sbv_with_rounding_mode(&z3::ast::RoundingMode::round_towards_zero(), bits);
    value.is_nan().ite(
        &BV::from_u64(0, bits),
        &value
            .ge(same_format(bound))
            .ite(&max, &value.le(same_format(-bound)).ite(&min, &truncated)),
    )
}

/// The branch conditions of `if<cond>` (against zero) and `if_icmp<cond>`.
pub use testgen_project::Condition;

/// Whether `if_icmp<condition>` (or `if<condition>` with `right` = 0) jumps.
pub fn int_condition(condition: Condition, left: &BV, right: &BV) -> Bool {
    match condition {
        Condition::Eq => left.eq(right),
        Condition::Ne => left.eq(right).not(),
        Condition::Lt => left.bvslt(right),
        Condition::Ge => left.bvsge(right),
        Condition::Gt => left.bvsgt(right),
        Condition::Le => left.bvsle(right),
    }
}
