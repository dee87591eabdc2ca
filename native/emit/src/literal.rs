//! Java source literals for values: exact, and written the way a person
//! would write them (`123L`, `0.1`, `Integer.MIN_VALUE`, `(byte) -3`,
//! `'\n'`, `"tab\t"`).
//!
//! Generated sources are pure ASCII: everything else is a `\uXXXX` escape,
//! except where Java processes unicode escapes before lexing (a `\u000a`
//! inside a literal would end the line), which use the short escapes.

use testgen_exec::{RenderedValue, Value};

use testgen_classfile::descriptor::BaseType;

use crate::types::{type_ref, JType};

/// `int` literal.
pub fn int(value: i32) -> String {
    match value {
        i32::MIN => format!("{}.MIN_VALUE", type_ref("java.lang.Integer")),
        i32::MAX => format!("{}.MAX_VALUE", type_ref("java.lang.Integer")),
        _ => value.to_string(),
    }
}

/// `long` literal.
pub fn long(value: i64) -> String {
    match value {
        i64::MIN => format!("{}.MIN_VALUE", type_ref("java.lang.Long")),
        i64::MAX => format!("{}.MAX_VALUE", type_ref("java.lang.Long")),
        _ => format!("{value}L"),
    }
}

/// `byte` expression (`(byte) -3`): an int literal needs the cast wherever
/// it is not a constant assignment, e.g. as a method argument.
pub fn byte(value: i8) -> String {
    match value {
        i8::MIN => format!("{}.MIN_VALUE", type_ref("java.lang.Byte")),
        i8::MAX => format!("{}.MAX_VALUE", type_ref("java.lang.Byte")),
        _ => format!("(byte) {value}"),
    }
}

/// `short` expression (`(short) 7`).
pub fn short(value: i16) -> String {
    match value {
        i16::MIN => format!("{}.MIN_VALUE", type_ref("java.lang.Short")),
        i16::MAX => format!("{}.MAX_VALUE", type_ref("java.lang.Short")),
        _ => format!("(short) {value}"),
    }
}

pub fn boolean(value: bool) -> String {
    value.to_string()
}

/// `char` literal of one UTF-16 code unit (`'a'`, `'\n'`, `'\u00e9'`).
pub fn char(unit: u16) -> String {
    let mut out = String::from("'");
    escape_unit(unit, '\'', &mut out);
    out.push('\'');
    out
}

/// String literal of UTF-16 code units, lone surrogates included.
pub fn string_units(units: &[u16]) -> String {
    let mut out = String::with_capacity(units.len() + 2);
    out.push('"');
    for &unit in units {
        escape_unit(unit, '"', &mut out);
    }
    out.push('"');
    out
}

/// String literal of Rust text.
pub fn string(text: &str) -> String {
    string_units(&text.encode_utf16().collect::<Vec<u16>>())
}

fn escape_unit(unit: u16, quote: char, out: &mut String) {
    match unit {
        0x08 => out.push_str("\\b"),
        0x09 => out.push_str("\\t"),
        0x0a => out.push_str("\\n"),
        0x0c => out.push_str("\\f"),
        0x0d => out.push_str("\\r"),
        0x5c => out.push_str("\\\\"),
        0x20..=0x7e => {
            let c = char::from(unit as u8);
            if c == quote {
                out.push('\\');
            }
            out.push(c);
        }
        _ => out.push_str(&format!("\\u{unit:04x}")),
    }
}

/// `float` expression from its IEEE bits.
pub fn float(bits: u32) -> String {
    floating(f32::from_bits(bits))
}

/// `double` expression from its IEEE bits.
pub fn double(bits: u64) -> String {
    floating(f64::from_bits(bits))
}

/// What `float` and `double` literals need to know about their type.
trait Ieee: Copy + PartialEq + std::fmt::Display + std::fmt::LowerExp {
    const CLASS: &'static str;
    const SUFFIX: &'static str;
    /// Magnitudes written as constants of `CLASS`.
    const NAMED: [(Self, &'static str); 4];
    fn abs(self) -> Self;
    fn is_nan(self) -> bool;
    fn is_sign_negative(self) -> bool;
    /// Far from 1: written in scientific notation.
    fn is_extreme(self) -> bool;
    /// The expression of a NaN other than the canonical one.
    fn unusual_nan(self) -> Option<String>;
}

impl Ieee for f32 {
    const CLASS: &'static str = "java.lang.Float";
    const SUFFIX: &'static str = "f";
    const NAMED: [(f32, &'static str); 4] = [
        (f32::INFINITY, "POSITIVE_INFINITY"),
        (f32::MAX, "MAX_VALUE"),
        (f32::from_bits(1), "MIN_VALUE"),
        (f32::MIN_POSITIVE, "MIN_NORMAL"),
    ];
    fn abs(self) -> f32 {
        f32::abs(self)
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn is_sign_negative(self) -> bool {
        f32::is_sign_negative(self)
    }
    fn is_extreme(self) -> bool {
        let m = self.abs();
        m >= 1e7 || (m != 0.0 && m < 1e-3)
    }
    fn unusual_nan(self) -> Option<String> {
        let bits = self.to_bits();
        (self.is_nan() && bits != f32::NAN.to_bits())
            .then(|| format!("{}.intBitsToFloat(0x{bits:08x})", type_ref(Self::CLASS)))
    }
}

impl Ieee for f64 {
    const CLASS: &'static str = "java.lang.Double";
    const SUFFIX: &'static str = "";
    const NAMED: [(f64, &'static str); 4] = [
        (f64::INFINITY, "POSITIVE_INFINITY"),
        (f64::MAX, "MAX_VALUE"),
        (f64::from_bits(1), "MIN_VALUE"),
        (f64::MIN_POSITIVE, "MIN_NORMAL"),
    ];
    fn abs(self) -> f64 {
        f64::abs(self)
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn is_sign_negative(self) -> bool {
        f64::is_sign_negative(self)
    }
    fn is_extreme(self) -> bool {
        let m = self.abs();
        m >= 1e7 || (m != 0.0 && m < 1e-3)
    }
    fn unusual_nan(self) -> Option<String> {
        let bits = self.to_bits();
        (self.is_nan() && bits != f64::NAN.to_bits())
            .then(|| format!("{}.longBitsToDouble(0x{bits:016x}L)", type_ref(Self::CLASS)))
    }
}

fn floating<T: Ieee>(value: T) -> String {
    if let Some(nan) = value.unusual_nan() {
        return nan;
    }
    let class = type_ref(T::CLASS);
    if value.is_nan() {
        return format!("{class}.NaN");
    }
    let negative = value.is_sign_negative();
    let magnitude = value.abs();
    match T::NAMED.iter().find(|(constant, _)| magnitude == *constant) {
        Some((_, "POSITIVE_INFINITY")) if negative => format!("{class}.NEGATIVE_INFINITY"),
        Some((_, name)) => {
            let sign = if negative { "-" } else { "" };
            format!("{sign}{class}.{name}")
        }
        None => {
            let text = decimal(format!("{value}"), format!("{value:e}"), value.is_extreme());
            format!("{text}{}", T::SUFFIX)
        }
    }
}

/// The shortest round-trip decimal (Rust's formatting of floats is exactly
/// that), in plain or scientific notation, always with a `.` or an exponent
/// so that Java reads it as floating point.
fn decimal(plain: String, scientific: String, use_scientific: bool) -> String {
    let text = if use_scientific { scientific } else { plain };
    if text.contains(['.', 'e', 'E']) {
        text
    } else {
        format!("{text}.0")
    }
}

/// A plan's literal argument as the executor would render it; `None` for
/// references to earlier statements.
pub fn rendered_of(value: &Value) -> Option<RenderedValue> {
    Some(match value {
        Value::Null => RenderedValue::Null,
        Value::Boolean { value } => RenderedValue::Boolean { value: *value },
        Value::Byte { value } => RenderedValue::Byte { value: *value },
        Value::Short { value } => RenderedValue::Short { value: *value },
        Value::Char { value } => RenderedValue::Char { value: *value },
        Value::Int { value } => RenderedValue::Int { value: *value },
        Value::Long { value } => RenderedValue::Long { value: *value },
        Value::Float { bits } => RenderedValue::Float { bits: *bits },
        Value::Double { bits } => RenderedValue::Double { bits: *bits },
        Value::String { value } => RenderedValue::String {
            value: value.clone(),
            full_length: None,
        },
        Value::Enum { class, name } => RenderedValue::Enum {
            class: class.clone(),
            name: name.clone(),
        },
        Value::Class { name } => RenderedValue::Class { name: name.clone() },
        Value::Ref { .. } => return None,
    })
}

/// The Java expression of a value that has one: primitives, strings (not
/// cut short), enum constants, `null`, boxes (`Integer.valueOf(5)`).
pub fn of_rendered(value: &RenderedValue) -> Option<String> {
    Some(match value {
        RenderedValue::Null => "null".to_string(),
        RenderedValue::Boolean { value } => boolean(*value),
        RenderedValue::Byte { value } => byte(*value),
        RenderedValue::Short { value } => short(*value),
        RenderedValue::Char { value } => char(*value),
        RenderedValue::Int { value } => int(*value),
        RenderedValue::Long { value } => long(*value),
        RenderedValue::Float { bits } => float(*bits),
        RenderedValue::Double { bits } => double(*bits),
        RenderedValue::String {
            value,
            full_length: None,
        } => string_units(&value.to_utf16()),
        RenderedValue::Enum { class, name } => format!("{}.{name}", type_ref(class)),
        RenderedValue::Class { name } => class_literal(name)?,
        RenderedValue::Boxed { value } => {
            let inner = of_rendered(value)?;
            match value.as_ref() {
                RenderedValue::Boolean { value } => {
                    let constant = if *value { "TRUE" } else { "FALSE" };
                    format!("{}.{constant}", type_ref("java.lang.Boolean"))
                }
                other => format!("{}.valueOf({inner})", type_ref(wrapper(other)?)),
            }
        }
        RenderedValue::String { .. }
        | RenderedValue::Array { .. }
        | RenderedValue::Object { .. } => return None,
    })
}

const PRIMITIVES: [BaseType; 8] = [
    BaseType::Boolean,
    BaseType::Byte,
    BaseType::Char,
    BaseType::Short,
    BaseType::Int,
    BaseType::Long,
    BaseType::Float,
    BaseType::Double,
];

/// `String.class`, `int.class`, `int[].class` for a `Class.getName()`.
pub fn class_literal(name: &str) -> Option<String> {
    let source = if name.starts_with('[') {
        JType::from_array_class_name(name)?.source()
    } else if PRIMITIVES.iter().any(|base| base.java_name() == name) {
        name.to_string()
    } else {
        type_ref(name)
    };
    Some(format!("{source}.class"))
}

/// The wrapper class of a primitive value.
pub fn wrapper(value: &RenderedValue) -> Option<&'static str> {
    Some(match value {
        RenderedValue::Boolean { .. } => "java.lang.Boolean",
        RenderedValue::Byte { .. } => "java.lang.Byte",
        RenderedValue::Short { .. } => "java.lang.Short",
        RenderedValue::Char { .. } => "java.lang.Character",
        RenderedValue::Int { .. } => "java.lang.Integer",
        RenderedValue::Long { .. } => "java.lang.Long",
        RenderedValue::Float { .. } => "java.lang.Float",
        RenderedValue::Double { .. } => "java.lang.Double",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expression as a class in package `p` reads it.
    fn plain(text: String) -> String {
        crate::types::resolve(&text, "p", "T").0
    }

    #[test]
    fn integers() {
        assert_eq!(plain(int(i32::MIN)), "Integer.MIN_VALUE");
        assert_eq!(plain(int(i32::MAX)), "Integer.MAX_VALUE");
        assert_eq!(int(-5), "-5");
        assert_eq!(long(123), "123L");
        assert_eq!(plain(long(i64::MIN)), "Long.MIN_VALUE");
        assert_eq!(byte(-3), "(byte) -3");
        assert_eq!(plain(byte(-128)), "Byte.MIN_VALUE");
        assert_eq!(short(7), "(short) 7");
    }

    #[test]
    fn chars_and_strings() {
        assert_eq!(char(u16::from(b'a')), "'a'");
        assert_eq!(char(0x0a), "'\\n'");
        assert_eq!(char(0), "'\\u0000'");
        assert_eq!(char(u16::from(b'\'')), "'\\''");
        assert_eq!(char(u16::from(b'"')), "'\"'");
        assert_eq!(char(0xe9), "'\\u00e9'");
        assert_eq!(char(0x5c), "'\\\\'");
        assert_eq!(string("tab\t"), "\"tab\\t\"");
        assert_eq!(string("say \"hi\"\r\n"), "\"say \\\"hi\\\"\\r\\n\"");
        assert_eq!(string("it's"), "\"it's\"");
        assert_eq!(string("é😀"), "\"\\u00e9\\ud83d\\ude00\"");
        assert_eq!(string_units(&[0x61, 0xd800]), "\"a\\ud800\"");
        assert_eq!(string("\u{7f}\u{1}"), "\"\\u007f\\u0001\"");
    }

    #[test]
    fn floats() {
        assert_eq!(float(1.5f32.to_bits()), "1.5f");
        assert_eq!(float(0.1f32.to_bits()), "0.1f");
        assert_eq!(float(3.0f32.to_bits()), "3.0f");
        assert_eq!(float((-0.0f32).to_bits()), "-0.0f");
        assert_eq!(float(0.0f32.to_bits()), "0.0f");
        assert_eq!(float(1e30f32.to_bits()), "1e30f");
        assert_eq!(plain(float(f32::NAN.to_bits())), "Float.NaN");
        assert_eq!(
            plain(float(0x7fc0_0001)),
            "Float.intBitsToFloat(0x7fc00001)"
        );
        assert_eq!(plain(float(f32::from_bits(1).to_bits())), "Float.MIN_VALUE");
        assert_eq!(plain(float((-f32::MAX).to_bits())), "-Float.MAX_VALUE");
        assert_eq!(
            plain(float(f32::NEG_INFINITY.to_bits())),
            "Float.NEGATIVE_INFINITY"
        );
    }

    #[test]
    fn doubles() {
        assert_eq!(double(0.1f64.to_bits()), "0.1");
        assert_eq!(double(1.0f64.to_bits()), "1.0");
        assert_eq!(double((-0.0f64).to_bits()), "-0.0");
        assert_eq!(double(1e-7f64.to_bits()), "1e-7");
        assert_eq!(double(1.5e300f64.to_bits()), "1.5e300");
        assert_eq!(double(123456.789f64.to_bits()), "123456.789");
        assert_eq!(plain(double(f64::NAN.to_bits())), "Double.NaN");
        assert_eq!(
            plain(double(0x7ff8_0000_0000_0001)),
            "Double.longBitsToDouble(0x7ff8000000000001L)"
        );
        assert_eq!(
            plain(double(f64::INFINITY.to_bits())),
            "Double.POSITIVE_INFINITY"
        );
        assert_eq!(
            plain(double(f64::from_bits(1).to_bits())),
            "Double.MIN_VALUE"
        );
        assert_eq!(
            plain(double(f64::MIN_POSITIVE.to_bits())),
            "Double.MIN_NORMAL"
        );
    }
}
