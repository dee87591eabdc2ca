//! `String` and `StringBuilder` over z3 sequences of UTF-16 units, and
//! the text of numbers and concatenations.

use testgen_classfile::descriptor::FieldType;
use z3::ast::{Bool, Int, Seq, BV};

use super::{Assumed, Call, Heap};
use crate::arith::{self, IntOp, Primitive};
use crate::ffi;
use crate::value::{
    char_at, concat as join, length, position, string_literal, to_bv, HeapObject, Sym,
};

/// Bound on the string length up to which `hashCode` is modelled exactly.
const HASH_MODEL_LENGTH: i64 = 8;

/// The characters of a string (or builder) value, if modelled.
pub(super) fn chars(heap: &impl Heap, value: &Sym) -> Option<Seq> {
    match heap.object(value)? {
        HeapObject::Str { chars, .. } | HeapObject::Builder { chars } => Some(chars.clone()),
        _ => None,
    }
}

pub(super) fn new_string(heap: &mut impl Heap, chars: Seq) -> Sym {
    heap.fresh(HeapObject::Str {
        chars,
        choice: None,
    })
}

/// `trim` and `strip`, exact for strings without surrounding whitespace,
/// the only ones the solver is then asked for.
pub(super) fn assumed(heap: &mut impl Heap, call: &Call<'_>) -> Option<Assumed> {
    if !matches!(call.name(), "trim" | "strip") || call.descriptor() != "()Ljava/lang/String;" {
        return None;
    }
    let text = chars(heap, call.receiver?)?;
    let n = text.length();
    let space = BV::from_i64(0x20, 16);
    let unit = |at: &Int| text.nth(at.clone()).as_bv().expect("16-bit characters");
    let last = Int::sub(&[&n, &Int::from_i64(1)]);
    let clause = Bool::or(&[
        &n.eq(Int::from_i64(0)),
        &Bool::and(&[
            &unit(&Int::from_i64(0)).bvugt(&space),
            &unit(&last).bvugt(&space),
        ]),
    ]);
    if !heap.holds(&clause) {
        return None;
    }
    let result = new_string(heap, text);
    Some(Assumed {
        result,
        clause,
        declares: Vec::new(),
    })
}

/// When a `String` method throws: an index out of range, a null argument.
pub(super) fn throws(heap: &impl Heap, call: &Call<'_>) -> Option<Bool> {
    let zero = Int::from_i64(0);
    let args = call.args;
    match (call.name(), call.descriptor()) {
        ("charAt", "(I)C") => {
            let s = chars(heap, call.receiver?)?;
            let index = position(args[0].as_int()?);
            Some(Bool::or(&[&index.lt(&zero), &index.ge(s.length())]))
        }
        ("substring", "(I)Ljava/lang/String;") => {
            let s = chars(heap, call.receiver?)?;
            let begin = position(args[0].as_int()?);
            Some(Bool::or(&[&begin.lt(&zero), &begin.gt(s.length())]))
        }
        ("substring", "(II)Ljava/lang/String;") => {
            let s = chars(heap, call.receiver?)?;
            let (begin, end) = (position(args[0].as_int()?), position(args[1].as_int()?));
            Some(Bool::or(&[
                &begin.lt(&zero),
                &end.gt(s.length()),
                &begin.gt(&end),
            ]))
        }
        // A null argument throws (equals takes null).
        ("startsWith" | "endsWith" | "contains" | "indexOf" | "concat", descriptor)
            if !descriptor.starts_with("(I") && !descriptor.starts_with("(C") =>
        {
            Some(args[0].as_ref()?.is_null.clone())
        }
        _ => None,
    }
}

/// The result of a `String` method.
pub(super) fn string(heap: &mut impl Heap, call: &Call<'_>, observed: Option<&Sym>) -> Option<Sym> {
    let (name, descriptor, args) = (call.name(), call.descriptor(), call.args);
    if name == "valueOf" {
        let chars = to_chars(heap, args.first()?, descriptor.as_bytes().get(1).copied()?)?;
        return Some(new_string(heap, chars));
    }
    let receiver = call.receiver?;
    let s = chars(heap, receiver)?;
    Some(match (name, descriptor) {
        ("length", "()I") => Sym::Prim(Primitive::Int(length(&s))),
        ("isEmpty", "()Z") => Sym::from_bool(&s.length().eq(Int::from_i64(0))),
        ("charAt", "(I)C") => Sym::Prim(Primitive::Int(char_at(&s, args[0].as_int()?))),
        ("equals", "(Ljava/lang/Object;)Z") => {
            let other = args[0].as_ref()?;
            match other.object.and_then(|_| heap.object(&args[0])) {
                None => Sym::from_bool(&Bool::from_bool(false)),
                Some(HeapObject::Str { chars, .. }) => {
                    Sym::from_bool(&Bool::and(&[&other.is_null.not(), &s.eq(chars)]))
                }
                Some(HeapObject::Opaque { class }) if class == "java/lang/String" => return None,
                Some(_) => Sym::from_bool(&Bool::from_bool(false)),
            }
        }
        ("hashCode", "()I") => {
            // Beyond the modelled length, the observed hash stands.
            let beyond = observed?.as_int()?.clone();
            Sym::Prim(Primitive::Int(hash_code(&s, &beyond)))
        }
        ("startsWith", "(Ljava/lang/String;)Z") => {
            Sym::from_bool(&ffi::seq_prefix(&chars(heap, &args[0])?, &s))
        }
        ("endsWith", "(Ljava/lang/String;)Z") => {
            Sym::from_bool(&ffi::seq_suffix(&chars(heap, &args[0])?, &s))
        }
        ("contains", "(Ljava/lang/CharSequence;)Z") => {
            Sym::from_bool(&s.contains(&chars(heap, &args[0])?))
        }
        ("indexOf", "(I)I") => {
            let unit = Seq::unit(&args[0].as_int()?.extract(15, 0));
            // A code point beyond the BMP is not one char: not modelled.
            let in_bmp = args[0].as_int()?.bvule(BV::from_i64(0xffff, 32));
            let found = to_bv(&ffi::seq_index(&s, &unit, &Int::from_i64(0)));
            Sym::Prim(Primitive::Int(in_bmp.ite(&found, &BV::from_i64(-1, 32))))
        }
        ("indexOf", "(Ljava/lang/String;)I") => Sym::Prim(Primitive::Int(to_bv(&ffi::seq_index(
            &s,
            &chars(heap, &args[0])?,
            &Int::from_i64(0),
        )))),
        ("substring", "(I)Ljava/lang/String;") => {
            let begin = position(args[0].as_int()?);
            let rest = Int::sub(&[&s.length(), &begin]);
            let part = ffi::seq_extract(&s, &begin, &rest);
            new_string(heap, part)
        }
        ("substring", "(II)Ljava/lang/String;") => {
            let begin = position(args[0].as_int()?);
            let end = position(args[1].as_int()?);
            let part = ffi::seq_extract(&s, &begin, &Int::sub(&[&end, &begin]));
            new_string(heap, part)
        }
        ("concat", "(Ljava/lang/String;)Ljava/lang/String;") => {
            let other = chars(heap, &args[0])?;
            new_string(heap, join(&[s, other]))
        }
        ("toString", "()Ljava/lang/String;") | ("intern", "()Ljava/lang/String;") => {
            receiver.clone()
        }
        _ => return None,
    })
}

/// The result of a `StringBuilder` method (its contents updated in place).
pub(super) fn builder(heap: &mut impl Heap, call: &Call<'_>) -> Option<Sym> {
    let (name, descriptor, args) = (call.name(), call.descriptor(), call.args);
    let receiver = call.receiver?;
    let id = receiver.as_ref()?.object?;
    let current = chars(heap, receiver)?;
    match name {
        "<init>" => {
            let chars = match descriptor {
                "()V" | "(I)V" => string_literal(&[]),
                "(Ljava/lang/String;)V" | "(Ljava/lang/CharSequence;)V" => chars(heap, &args[0])?,
                _ => return None,
            };
            heap.set_object(id, HeapObject::Builder { chars });
            Some(Sym::Unknown { wide: false })
        }
        "append" => {
            let kind = descriptor.as_bytes().get(1).copied()?;
            let added = to_chars(heap, &args[0], kind)?;
            heap.set_object(
                id,
                HeapObject::Builder {
                    chars: join(&[current, added]),
                },
            );
            Some(receiver.clone())
        }
        "toString" => Some(new_string(heap, current)),
        "length" => Some(Sym::Prim(Primitive::Int(length(&current)))),
        _ => None,
    }
}

/// A value as `String.valueOf` renders it; `kind` is its descriptor's
/// first character.
fn to_chars(heap: &impl Heap, value: &Sym, kind: u8) -> Option<Seq> {
    match (kind, value) {
        (b'C', Sym::Prim(Primitive::Int(c))) => Some(Seq::unit(&c.extract(15, 0))),
        (b'Z', Sym::Prim(Primitive::Int(b))) => {
            let text = |t: &str| string_literal(&t.encode_utf16().collect::<Vec<_>>());
            Some(b.eq(BV::from_i64(0, 32)).ite(&text("false"), &text("true")))
        }
        (b'I' | b'S' | b'B', Sym::Prim(Primitive::Int(i))) => Some(decimal(i)),
        (b'J', Sym::Prim(Primitive::Long(l))) => Some(decimal(l)),
        (_, Sym::Ref(reference)) => {
            let null = string_literal(&"null".encode_utf16().collect::<Vec<_>>());
            match reference.object {
                None => Some(null),
                Some(_) => {
                    let chars = chars(heap, value)?;
                    Some(reference.is_null.ite(&null, &chars))
                }
            }
        }
        _ => None,
    }
}

/// A string concatenation compiled to `makeConcatWithConstants`:
/// `\u{1}` in the recipe is the next argument.
pub(crate) fn concat(
    heap: &mut impl Heap,
    recipe: &[u16],
    args: &[Sym],
    types: &[FieldType<'_>],
) -> Option<Sym> {
    let mut parts = Vec::new();
    let mut literal = Vec::new();
    let mut next = 0;
    for &unit in recipe {
        if unit == 1 {
            if !literal.is_empty() {
                parts.push(string_literal(&literal));
                literal.clear();
            }
            let kind = match types.get(next)? {
                FieldType::Base(base) => base.descriptor_char() as u8,
                _ => b'L',
            };
            parts.push(to_chars(heap, args.get(next)?, kind)?);
            next += 1;
        } else if unit == 2 {
            // A constant argument of the bootstrap method: not modelled.
            return None;
        } else {
            literal.push(unit);
        }
    }
    if !literal.is_empty() {
        parts.push(string_literal(&literal));
    }
    Some(new_string(heap, join(&parts)))
}

/// `String.hashCode()`: `s[0]*31^(n-1) + ... + s[n-1]`, exact for strings
/// up to [`HASH_MODEL_LENGTH`] characters.
fn hash_code(s: &Seq, beyond: &BV) -> BV {
    let n = s.length();
    let mut result = beyond.clone();
    // Build from the longest length down so the ite chain picks the sum for
    // the string's actual length.
    for len in (0..=HASH_MODEL_LENGTH).rev() {
        let mut sum = BV::from_i64(0, 32);
        for i in 0..len {
            let unit = char_at(s, &BV::from_i64(i, 32));
            sum = arith::int_op(IntOp::Mul, &sum, &BV::from_i64(31, 32)).bvadd(&unit);
        }
        result = n.eq(Int::from_i64(len)).ite(&sum, &result);
    }
    result
}

/// `Integer.parseInt(text)` returns `value`: an optional `-` then one to
/// nine decimal digits whose value, with the sign, is `value`. Written over
/// the characters one by one (not as a string equation), which z3 solves
/// quickly; leading zeros are allowed, as `parseInt` allows them. Nine
/// digits keep the arithmetic within an int (an under-approximation: the
/// solver never proposes a ten-digit number).
pub(super) fn parses_as(text: &Seq, value: &BV) -> Bool {
    let n = text.length();
    let unit = |i: i64| char_at(text, &BV::from_i64(i, 32));
    let is_digit = |i: i64| {
        Bool::and(&[
            &unit(i).bvuge(BV::from_i64(i64::from(b'0'), 32)),
            &unit(i).bvule(BV::from_i64(i64::from(b'9'), 32)),
        ])
    };
    let negative = unit(0).eq(BV::from_i64(i64::from(b'-'), 32));
    let mut cases = Vec::new();
    for len in 1..=10i64 {
        for signed in [false, true] {
            let first = i64::from(signed);
            if len - first < 1 || len - first > 9 {
                continue;
            }
            let mut magnitude = BV::from_i64(0, 32);
            let mut digits = vec![n.eq(Int::from_i64(len))];
            digits.push(if signed {
                negative.clone()
            } else {
                negative.not()
            });
            for i in first..len {
                digits.push(is_digit(i));
                let d = unit(i).bvsub(BV::from_i64(i64::from(b'0'), 32));
                magnitude = magnitude.bvmul(BV::from_i64(10, 32)).bvadd(&d);
            }
            let signed_value = if signed { magnitude.bvneg() } else { magnitude };
            digits.push(signed_value.eq(value));
            let refs: Vec<&Bool> = digits.iter().collect();
            cases.push(Bool::and(&refs));
        }
    }
    let refs: Vec<&Bool> = cases.iter().collect();
    Bool::or(&refs)
}

/// The decimal text of an int or long, as `Integer.toString` writes it.
pub(super) fn decimal(value: &BV) -> Seq {
    let width = value.get_size();
    let zero = BV::from_i64(0, width);
    let negative = value.bvslt(&zero);
    // The magnitude as an unsigned number (MIN_VALUE's too).
    let magnitude = negative.ite(&value.bvneg(), value);
    let max_digits = if width == 32 { 10 } else { 19 };
    let digit = |k: u32| {
        let divisor = BV::from_u64(10u64.pow(k), width);
        let d = magnitude.bvudiv(&divisor).bvurem(BV::from_u64(10, width));
        Seq::unit(&d.extract(15, 0).bvadd(BV::from_u64(u64::from(b'0'), 16)))
    };
    let mut body = join(&(0..max_digits).rev().map(digit).collect::<Vec<_>>());
    for digits in (1..max_digits).rev() {
        let limit = BV::from_u64(10u64.pow(digits), width);
        let text = join(&(0..digits).rev().map(digit).collect::<Vec<_>>());
        body = magnitude.bvult(&limit).ite(&text, &body);
    }
    let minus = string_literal(&[u16::from(b'-')]);
    negative.ite(&join(&[minus, body.clone()]), &body)
}
