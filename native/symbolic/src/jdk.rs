//! Models of the JDK methods ordinary code decides branches on: `String`
//! and `StringBuilder` over z3 sequences, `Math`, boxing, the `Integer`,
//! `Long`, `Double` and `Character` statics, `Objects.equals` and
//! `requireNonNull`. A call without a model takes the value the run
//! observed (the replay is concolic), so its result is exact for this run
//! but cannot be steered by the solver.
//!
//! Where the JDK's behaviour depends on Unicode tables (`Character`), the
//! model is exact for ASCII and takes the observed result beyond it.

use testgen_classfile::descriptor::{BaseType, FieldType};
use z3::ast::{Bool, Float, Int, Seq, BV};

use crate::arith::{self, IntOp, Primitive};
use crate::ffi;
use crate::inputs::boxed_base;
use crate::machine::Replay;
use crate::program::MethodKey;
use crate::value::{char_at, concat, length, position, string_literal, to_bv, HeapObject, Sym};

/// Bound on the string length up to which `hashCode` is modelled exactly.
const HASH_MODEL_LENGTH: i64 = 8;

/// A library call modelled by an assumption over a fresh variable: the
/// result is `result` wherever `clause` holds (`Integer.parseInt(s)` is `r`
/// where `s` is `r` in decimal).
pub(crate) struct Assumed {
    pub result: Sym,
    pub clause: Bool,
    pub declares: Vec<String>,
}

impl Replay<'_, '_> {
    /// Calls modelled by an assumption rather than a term.
    pub(crate) fn assumed_call(
        &mut self,
        key: &MethodKey,
        receiver: Option<&Sym>,
        args: &[Sym],
    ) -> Option<Assumed> {
        match (
            key.class.as_str(),
            key.name.as_str(),
            key.descriptor.as_str(),
        ) {
            ("java/lang/Integer", "parseInt", "(Ljava/lang/String;)I") => {
                let text = self.chars(args.first()?)?;
                let name = self.fresh_variable();
                let parsed = BV::new_const(name.as_str(), 32);
                Some(Assumed {
                    result: Sym::Prim(Primitive::Int(parsed.clone())),
                    clause: parses_as(&text, &parsed),
                    declares: vec![format!("(declare-const |{name}| (_ BitVec 32))\n")],
                })
            }
            ("java/lang/String", "trim" | "strip", "()Ljava/lang/String;") => {
                // Exact for strings without surrounding whitespace, the only
                // ones the solver is then asked for.
                let text = self.chars(receiver?)?;
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
                if !self.holds(&clause) {
                    return None;
                }
                let result = self.new_string(text);
                Some(Assumed {
                    result,
                    clause,
                    declares: Vec::new(),
                })
            }
            _ => None,
        }
    }

    /// The characters of a string (or builder) value, if modelled.
    fn chars(&self, value: &Sym) -> Option<Seq> {
        match self.object(value)? {
            HeapObject::Str { chars, .. } | HeapObject::Builder { chars } => Some(chars.clone()),
            _ => None,
        }
    }

    fn new_string(&mut self, chars: Seq) -> Sym {
        self.fresh(HeapObject::Str {
            chars,
            choice: None,
        })
    }

    /// When a JDK call throws, over the inputs (`None`: it never throws, or
    /// the condition is not modelled).
    pub(crate) fn model_throws(
        &self,
        key: &MethodKey,
        receiver: Option<&Sym>,
        args: &[Sym],
    ) -> Option<Bool> {
        let zero = Int::from_i64(0);
        match (
            key.class.as_str(),
            key.name.as_str(),
            key.descriptor.as_str(),
        ) {
            ("java/lang/String", "charAt", "(I)C") => {
                let s = self.chars(receiver?)?;
                let index = position(args[0].as_int()?);
                Some(Bool::or(&[&index.lt(&zero), &index.ge(s.length())]))
            }
            ("java/lang/String", "substring", "(I)Ljava/lang/String;") => {
                let s = self.chars(receiver?)?;
                let begin = position(args[0].as_int()?);
                Some(Bool::or(&[&begin.lt(&zero), &begin.gt(s.length())]))
            }
            ("java/lang/String", "substring", "(II)Ljava/lang/String;") => {
                let s = self.chars(receiver?)?;
                let (begin, end) = (position(args[0].as_int()?), position(args[1].as_int()?));
                Some(Bool::or(&[
                    &begin.lt(&zero),
                    &end.gt(s.length()),
                    &begin.gt(&end),
                ]))
            }
            ("java/util/Objects", "requireNonNull", _) => Some(args[0].as_ref()?.is_null.clone()),
            (
                "java/lang/String",
                "equals" | "startsWith" | "endsWith" | "contains" | "indexOf" | "concat",
                _,
            ) if !key.descriptor.starts_with("(I") && !key.descriptor.starts_with("(C") => {
                // A null argument throws, except for equals.
                if key.name == "equals" {
                    return None;
                }
                Some(args[0].as_ref()?.is_null.clone())
            }
            _ => None,
        }
    }

    /// The result of a JDK call, if modelled. `observed` is what the run
    /// returned (absent when the call site has no probe).
    pub(crate) fn model_call(
        &mut self,
        key: &MethodKey,
        receiver: Option<&Sym>,
        args: &[Sym],
        observed: Option<&Sym>,
    ) -> Option<Sym> {
        // Enum constants chosen by an input, whatever class declares the call.
        if let Some(HeapObject::EnumConstant { ordinal, .. }) =
            receiver.and_then(|r| self.object(r))
        {
            if key.name == "ordinal" && key.descriptor == "()I" {
                return Some(Sym::Prim(Primitive::Int(ordinal.clone())));
            }
        }
        if key.class.starts_with('[') && key.name == "clone" {
            let copy = self.object(receiver?)?.clone();
            return Some(self.fresh(copy));
        }
        let class = key.class.as_str();
        let name = key.name.as_str();
        let descriptor = key.descriptor.as_str();
        match class {
            "java/lang/String" => self.string_call(name, descriptor, receiver, args, observed),
            "java/lang/StringBuilder" => self.builder_call(name, descriptor, receiver, args),
            "java/lang/Math" | "java/lang/StrictMath" => math_call(name, args),
            "java/util/Objects" => self.objects_call(name, args),
            "java/lang/Character" => character_call(name, args, observed),
            "java/lang/Double" | "java/lang/Float" if name == "isNaN" || name == "isInfinite" => {
                let value = float_arg(args.first()?)?;
                let condition = if name == "isNaN" {
                    value.is_nan()
                } else {
                    value.is_infinite()
                };
                Some(Sym::from_bool(&condition))
            }
            _ => self.boxing_call(class, name, descriptor, receiver, args),
        }
    }

    fn string_call(
        &mut self,
        name: &str,
        descriptor: &str,
        receiver: Option<&Sym>,
        args: &[Sym],
        observed: Option<&Sym>,
    ) -> Option<Sym> {
        if name == "valueOf" {
            let chars = self.to_chars(args.first()?, descriptor.as_bytes().get(1).copied()?)?;
            return Some(self.new_string(chars));
        }
        let s = self.chars(receiver?)?;
        Some(match (name, descriptor) {
            ("length", "()I") => Sym::Prim(Primitive::Int(length(&s))),
            ("isEmpty", "()Z") => Sym::from_bool(&s.length().eq(Int::from_i64(0))),
            ("charAt", "(I)C") => Sym::Prim(Primitive::Int(char_at(&s, args[0].as_int()?))),
            ("equals", "(Ljava/lang/Object;)Z") => {
                let other = args[0].as_ref()?;
                match other.object {
                    None => Sym::from_bool(&Bool::from_bool(false)),
                    Some(id) => match &self.heap[id] {
                        HeapObject::Str { chars, .. } => {
                            Sym::from_bool(&Bool::and(&[&other.is_null.not(), &s.eq(chars)]))
                        }
                        HeapObject::Opaque { class } if class == "java/lang/String" => return None,
                        _ => Sym::from_bool(&Bool::from_bool(false)),
                    },
                }
            }
            ("hashCode", "()I") => {
                // Beyond the modelled length, the observed hash stands.
                let beyond = observed?.as_int()?.clone();
                Sym::Prim(Primitive::Int(hash_code(&s, &beyond)))
            }
            ("startsWith", "(Ljava/lang/String;)Z") => {
                Sym::from_bool(&ffi::seq_prefix(&self.chars(&args[0])?, &s))
            }
            ("endsWith", "(Ljava/lang/String;)Z") => {
                Sym::from_bool(&ffi::seq_suffix(&self.chars(&args[0])?, &s))
            }
            ("contains", "(Ljava/lang/CharSequence;)Z") => {
                Sym::from_bool(&s.contains(&self.chars(&args[0])?))
            }
            ("indexOf", "(I)I") => {
                let unit = Seq::unit(&args[0].as_int()?.extract(15, 0));
                // A code point beyond the BMP is not one char: not modelled.
                let in_bmp = args[0].as_int()?.bvule(BV::from_i64(0xffff, 32));
                let found = to_bv(&ffi::seq_index(&s, &unit, &Int::from_i64(0)));
                Sym::Prim(Primitive::Int(in_bmp.ite(&found, &BV::from_i64(-1, 32))))
            }
            ("indexOf", "(Ljava/lang/String;)I") => Sym::Prim(Primitive::Int(to_bv(
                &ffi::seq_index(&s, &self.chars(&args[0])?, &Int::from_i64(0)),
            ))),
            ("substring", "(I)Ljava/lang/String;") => {
                let begin = position(args[0].as_int()?);
                let rest = Int::sub(&[&s.length(), &begin]);
                let part = ffi::seq_extract(&s, &begin, &rest);
                self.new_string(part)
            }
            ("substring", "(II)Ljava/lang/String;") => {
                let begin = position(args[0].as_int()?);
                let end = position(args[1].as_int()?);
                let part = ffi::seq_extract(&s, &begin, &Int::sub(&[&end, &begin]));
                self.new_string(part)
            }
            ("concat", "(Ljava/lang/String;)Ljava/lang/String;") => {
                let other = self.chars(&args[0])?;
                self.new_string(concat(&[s, other]))
            }
            ("toString", "()Ljava/lang/String;") | ("intern", "()Ljava/lang/String;") => {
                receiver?.clone()
            }
            _ => return None,
        })
    }

    fn builder_call(
        &mut self,
        name: &str,
        descriptor: &str,
        receiver: Option<&Sym>,
        args: &[Sym],
    ) -> Option<Sym> {
        let receiver = receiver?;
        let id = receiver.as_ref()?.object?;
        let current = self.chars(receiver)?;
        match name {
            "<init>" => {
                let chars = match descriptor {
                    "()V" | "(I)V" => string_literal(&[]),
                    "(Ljava/lang/String;)V" | "(Ljava/lang/CharSequence;)V" => {
                        self.chars(&args[0])?
                    }
                    _ => return None,
                };
                self.heap[id] = HeapObject::Builder { chars };
                Some(Sym::Unknown { wide: false })
            }
            "append" => {
                let kind = descriptor.as_bytes().get(1).copied()?;
                let added = self.to_chars(&args[0], kind)?;
                self.heap[id] = HeapObject::Builder {
                    chars: concat(&[current, added]),
                };
                Some(receiver.clone())
            }
            "toString" => Some(self.new_string(current)),
            "length" => Some(Sym::Prim(Primitive::Int(length(&current)))),
            _ => None,
        }
    }

    /// A value as `String.valueOf` renders it; `kind` is its descriptor's
    /// first character.
    fn to_chars(&self, value: &Sym, kind: u8) -> Option<Seq> {
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
                        let chars = self.chars(value)?;
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
        &mut self,
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
                parts.push(self.to_chars(args.get(next)?, kind)?);
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
        Some(self.new_string(concat(&parts)))
    }

    fn objects_call(&mut self, name: &str, args: &[Sym]) -> Option<Sym> {
        match name {
            "requireNonNull" => Some(args[0].clone()),
            "equals" => {
                let (a, b) = (args[0].as_ref()?, args[1].as_ref()?);
                let both_null = Bool::and(&[&a.is_null, &b.is_null]);
                let equal_contents = match (a.object, b.object) {
                    (Some(_), Some(_)) => {
                        let (x, y) = (self.chars(&args[0])?, self.chars(&args[1])?);
                        x.eq(&y)
                    }
                    // One of them is null in this run: equal only if both are.
                    _ => Bool::from_bool(false),
                };
                let neither_null = Bool::and(&[&a.is_null.not(), &b.is_null.not()]);
                Some(Sym::from_bool(&Bool::or(&[
                    &both_null,
                    &Bool::and(&[&neither_null, &equal_contents]),
                ])))
            }
            "isNull" | "nonNull" => {
                let is_null = args[0].as_ref()?.is_null.clone();
                Some(Sym::from_bool(&if name == "isNull" {
                    is_null
                } else {
                    is_null.not()
                }))
            }
            _ => None,
        }
    }

    /// `Integer.valueOf(int)`, `intValue()` and their relatives.
    fn boxing_call(
        &mut self,
        class: &str,
        name: &str,
        descriptor: &str,
        receiver: Option<&Sym>,
        args: &[Sym],
    ) -> Option<Sym> {
        let base = boxed_base(class)?;
        if name == "valueOf" && descriptor.len() > 2 && !descriptor.starts_with("(Ljava") {
            let value = match args.first()? {
                Sym::Prim(p) => p.clone(),
                _ => return None,
            };
            return Some(self.fresh(HeapObject::Boxed {
                class: class.to_string(),
                value,
                choice: None,
            }));
        }
        if name.ends_with("Value") && descriptor.starts_with("()") {
            if let Some(HeapObject::Boxed { value, .. }) = receiver.and_then(|r| self.object(r)) {
                let wanted = BaseType::from_descriptor_char(descriptor.chars().nth(2)?)?;
                if wanted == base || matches!((wanted, base), (BaseType::Int, BaseType::Int)) {
                    return Some(Sym::Prim(value.clone()));
                }
            }
            return None;
        }
        if name == "toString" && descriptor == "(I)Ljava/lang/String;" {
            let chars = decimal(args[0].as_int()?);
            return Some(self.new_string(chars));
        }
        None
    }
}

fn float_arg(value: &Sym) -> Option<Float> {
    match value {
        Sym::Prim(Primitive::Float(f) | Primitive::Double(f)) => Some(f.clone()),
        _ => None,
    }
}

fn math_call(name: &str, args: &[Sym]) -> Option<Sym> {
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
fn character_call(name: &str, args: &[Sym], observed: Option<&Sym>) -> Option<Sym> {
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
fn parses_as(text: &Seq, value: &BV) -> Bool {
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
pub(crate) fn decimal(value: &BV) -> Seq {
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
    let mut body = concat(&(0..max_digits).rev().map(digit).collect::<Vec<_>>());
    for digits in (1..max_digits).rev() {
        let limit = BV::from_u64(10u64.pow(digits), width);
        let text = concat(&(0..digits).rev().map(digit).collect::<Vec<_>>());
        body = magnitude.bvult(&limit).ite(&text, &body);
    }
    let minus = string_literal(&[u16::from(b'-')]);
    negative.ite(&concat(&[minus, body.clone()]), &body)
}
