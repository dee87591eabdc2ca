//! `Math`, `Character`, the floating-point checks and the boxes.

use testgen_classfile::descriptor::BaseType;
use testgen_construct::boxed_base;
use z3::ast::{Bool, BV};

use super::strings::{chars, decimal, new_string, parses_as};
use super::{Assumed, Call, Heap};
use crate::arith::{self, IntOp, Primitive};
use crate::value::{HeapObject, Sym};

/// `Integer.parseInt(s)`: a fresh variable `r`, with `s` the decimal text
/// of `r`.
pub(super) fn assumed(heap: &mut impl Heap, call: &Call<'_>) -> Option<Assumed> {
    if (call.class(), call.name(), call.descriptor())
        != ("java/lang/Integer", "parseInt", "(Ljava/lang/String;)I")
    {
        return None;
    }
    let text = chars(heap, call.args.first()?)?;
    let name = heap.fresh_variable();
    let parsed = BV::new_const(name.as_str(), 32);
    Some(Assumed {
        result: Sym::Prim(Primitive::Int(parsed.clone())),
        clause: parses_as(&text, &parsed),
        declares: vec![format!("(declare-const |{name}| (_ BitVec 32))\n")],
    })
}

/// `Double.isNaN`, `isInfinite` and their `Float` twins.
pub(super) fn float_check(call: &Call<'_>) -> Option<Sym> {
    let value = match call.args.first()? {
        Sym::Prim(Primitive::Float(f) | Primitive::Double(f)) => f.clone(),
        _ => return None,
    };
    let condition = if call.name() == "isNaN" {
        value.is_nan()
    } else {
        value.is_infinite()
    };
    Some(Sym::from_bool(&condition))
}

/// `Integer.valueOf(int)`, `intValue()`, `Integer.toString(int)` and their
/// relatives.
pub(super) fn boxing(heap: &mut impl Heap, call: &Call<'_>) -> Option<Sym> {
    let (class, name, descriptor) = (call.class(), call.name(), call.descriptor());
    let base = boxed_base(class)?;
    if name == "valueOf" && descriptor.len() > 2 && !descriptor.starts_with("(Ljava") {
        let value = match call.args.first()? {
            Sym::Prim(p) => p.clone(),
            _ => return None,
        };
        return Some(heap.fresh(HeapObject::Boxed {
            class: class.to_string(),
            value,
            choice: None,
        }));
    }
    if name.ends_with("Value") && descriptor.starts_with("()") {
        if let Some(HeapObject::Boxed { value, .. }) = call.receiver.and_then(|r| heap.object(r)) {
            let wanted = BaseType::from_descriptor_char(descriptor.chars().nth(2)?)?;
            if wanted == base {
                return Some(Sym::Prim(value.clone()));
            }
        }
        return None;
    }
    if name == "toString" && descriptor == "(I)Ljava/lang/String;" {
        let chars = decimal(call.args[0].as_int()?);
        return Some(new_string(heap, chars));
    }
    None
}

/// `abs`, `min`, `max` and `floorMod` of ints and longs.
pub(super) fn math(call: &Call<'_>) -> Option<Sym> {
    let (name, args) = (call.name(), call.args);
    use Primitive as P;
    match (name, args) {
        ("abs", [Sym::Prim(P::Int(x))]) => {
            let zero = BV::from_i64(0, 32);
            Some(Sym::Prim(P::Int(x.bvslt(&zero).ite(&arith::int_neg(x), x))))
        }
        ("abs", [Sym::Prim(P::Long(x))]) => {
            let zero = BV::from_i64(0, 64);
            Some(Sym::Prim(P::Long(
                x.bvslt(&zero).ite(&arith::int_neg(x), x),
            )))
        }
        ("min" | "max", [Sym::Prim(P::Int(a)), Sym::Prim(P::Int(b))]) => {
            let a_first = if name == "min" {
                a.bvsle(b)
            } else {
                a.bvsge(b)
            };
            Some(Sym::Prim(P::Int(a_first.ite(a, b))))
        }
        ("min" | "max", [Sym::Prim(P::Long(a)), Sym::Prim(P::Long(b))]) => {
            let a_first = if name == "min" {
                a.bvsle(b)
            } else {
                a.bvsge(b)
            };
            Some(Sym::Prim(P::Long(a_first.ite(a, b))))
        }
        ("floorMod", [Sym::Prim(P::Int(a)), Sym::Prim(P::Int(b))]) => {
            let rem = arith::int_op(IntOp::Rem, a, b);
            let zero = BV::from_i64(0, 32);
            let adjust = Bool::and(&[&rem.eq(&zero).not(), &rem.bvslt(&zero).xor(b.bvslt(&zero))]);
            Some(Sym::Prim(P::Int(adjust.ite(&rem.bvadd(b), &rem))))
        }
        _ => None,
    }
}

/// `Character` statics on a char (or code point), exact for ASCII; beyond
/// ASCII the observed result stands.
pub(super) fn character(call: &Call<'_>, observed: Option<&Sym>) -> Option<Sym> {
    let (name, args) = (call.name(), call.args);
    let c = args.first()?.as_int()?;
    let observed = observed?;
    let in_range = |low: char, high: char| {
        Bool::and(&[
            &c.bvsge(BV::from_i64(low as i64, 32)),
            &c.bvsle(BV::from_i64(high as i64, 32)),
        ])
    };
    let ascii = c.bvult(BV::from_i64(128, 32));
    let (ascii_result, observed_value) = match name {
        "isDigit" => (
            Sym::from_bool(&in_range('0', '9')),
            observed.as_int()?.clone(),
        ),
        "isLetter" | "isAlphabetic" => (
            Sym::from_bool(&Bool::or(&[&in_range('a', 'z'), &in_range('A', 'Z')])),
            observed.as_int()?.clone(),
        ),
        "isUpperCase" => (
            Sym::from_bool(&in_range('A', 'Z')),
            observed.as_int()?.clone(),
        ),
        "isLowerCase" => (
            Sym::from_bool(&in_range('a', 'z')),
            observed.as_int()?.clone(),
        ),
        "isWhitespace" => {
            let space = Bool::or(&[
                &c.eq(BV::from_i64(32, 32)),
                &in_range('\u{9}', '\u{d}'),
                &in_range('\u{1c}', '\u{1f}'),
            ]);
            (Sym::from_bool(&space), observed.as_int()?.clone())
        }
        "toLowerCase" => (
            Sym::Prim(Primitive::Int(
                in_range('A', 'Z').ite(&c.bvadd(BV::from_i64(32, 32)), c),
            )),
            observed.as_int()?.clone(),
        ),
        "toUpperCase" => (
            Sym::Prim(Primitive::Int(
                in_range('a', 'z').ite(&c.bvsub(BV::from_i64(32, 32)), c),
            )),
            observed.as_int()?.clone(),
        ),
        _ => return None,
    };
    let ascii_value = ascii_result.as_int()?.clone();
    Some(Sym::Prim(Primitive::Int(
        ascii.ite(&ascii_value, &observed_value),
    )))
}
