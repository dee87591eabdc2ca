//! Identifiers: Java-safe names for locals and test methods, and the short
//! descriptions of values that test names are made of (`Negative5`,
//! `BulkItem`, `NaN`).

use testgen_exec::{RenderedValue, Value};

/// Java's reserved words and literals, which no identifier may be.
const RESERVED: &[&str] = &[
    "_",
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "var",
    "void",
    "volatile",
    "while",
];

/// A valid Java identifier made of `text`'s ASCII letters, digits and
/// underscores: never empty, never starting with a digit, never a keyword.
pub fn identifier(text: &str) -> String {
    let mut out: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if out.is_empty() {
        out.push_str("value");
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if RESERVED.contains(&out.as_str()) {
        out.push('_');
    }
    out
}

/// `Item` -> `item`, `URLParser` -> `urlParser`, `int[]` -> `intArray`.
pub fn local_name(simple_type_name: &str) -> String {
    let (base, arrays) = match simple_type_name.find("[]") {
        Some(at) => (&simple_type_name[..at], "Array"),
        None => (simple_type_name, ""),
    };
    let chars: Vec<char> = base.chars().collect();
    // Lower the leading run of capitals, keeping the last one of a run that
    // starts a word (`URLParser` -> `urlParser`).
    let mut upper = chars.iter().take_while(|c| c.is_ascii_uppercase()).count();
    if upper > 1 && upper < chars.len() {
        upper -= 1;
    }
    let name: String = chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if i < upper.max(1) {
                c.to_ascii_lowercase()
            } else {
                *c
            }
        })
        .collect();
    let name = format!("{name}{arrays}");
    if RESERVED.contains(&name.as_str()) {
        format!("{name}Value")
    } else {
        identifier(&name)
    }
}

/// `bulk item` -> `BulkItem`, `SMALL_BOX` -> `SmallBox`: words of ASCII
/// letters and digits, each capitalised, at most `max_words`.
pub fn camel_words(text: &str, max_words: usize) -> String {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(max_words)
        .collect();
    let all_upper = words
        .iter()
        .all(|w| !w.chars().any(|c| c.is_ascii_lowercase()));
    words
        .iter()
        .map(|word| {
            let mut chars = word.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            let rest: String = if all_upper {
                chars.map(|c| c.to_ascii_lowercase()).collect()
            } else {
                chars.collect()
            };
            first.into_iter().chain(rest.chars()).collect::<String>()
        })
        .collect()
}

/// Capitalises the first letter: `total` -> `Total`.
pub fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// A property name from a getter: `getTotalQuarters` -> `TotalQuarters`,
/// `isBulk` -> `Bulk`, `size` -> `Size`.
pub fn property_name(getter: &str) -> String {
    let stripped = getter
        .strip_prefix("get")
        .or_else(|| getter.strip_prefix("is"))
        .filter(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        .unwrap_or(getter);
    capitalise(&identifier(stripped))
}

fn describe_integer(value: i64) -> String {
    if value < 0 {
        format!("Negative{}", value.unsigned_abs())
    } else {
        value.to_string()
    }
}

fn describe_char(unit: u16) -> String {
    match char::from_u32(u32::from(unit)) {
        Some(c) if c.is_ascii_alphanumeric() => format!("Char{}", c.to_ascii_uppercase()),
        _ => format!("Char{unit}"),
    }
}

fn describe_floating(
    text: String,
    nan: bool,
    infinite: bool,
    negative: bool,
    zero: bool,
) -> String {
    let sign = if negative { "Negative" } else { "" };
    if nan {
        "NaN".to_string()
    } else if infinite {
        format!("{sign}Infinity")
    } else if zero {
        format!("{sign}Zero")
    } else {
        // `text` is the literal (shortest round trip, scientific when tiny
        // or huge); long mantissas are cut, the exponent is kept.
        let text = text.trim_start_matches('-').trim_end_matches('f');
        // A named constant: `Double.MIN_NORMAL` -> `MinNormal`.
        if let Some((_, constant)) = text.rsplit_once('.') {
            if constant.starts_with(|c: char| c.is_ascii_uppercase()) {
                return format!("{sign}{}", camel_words(constant, 4));
            }
        }
        let (mantissa, exponent) = match text.split_once('e') {
            Some((m, e)) => (m, format!("E{}", e.replace('-', "Minus"))),
            None => (text, String::new()),
        };
        let mantissa: String = mantissa.chars().take(8).collect();
        format!("{sign}{}{exponent}", mantissa.replace('.', "Point"))
    }
}

/// A short token spelled out, symbols by their names (`DashDashA`,
/// `EqualsSign`); else the words of a string (`BulkItem`); else its length
/// (`StringOfLength5`), so that the description is never a type posing as
/// a value.
fn describe_string(text: &str, full_length: Option<u32>) -> String {
    if text.is_empty() {
        return "EmptyString".to_string();
    }
    // A short token, symbols and all: `--a` -> `DashDashA`, `-0.5` ->
    // `Minus0Point5`.
    if text.chars().count() <= 4 && text.chars().any(|c| symbol_name(c).is_some()) {
        if let Some(spelled) = spell(text) {
            return spelled;
        }
    }
    let words = camel_words(text, 4);
    if !words.is_empty() {
        return words.chars().take(32).collect();
    }
    let symbols: Option<Vec<&str>> = text.chars().map(symbol_name).collect();
    match symbols {
        Some(symbols) if symbols.len() <= 3 => symbols.concat(),
        _ => {
            let length = full_length.map_or_else(|| text.encode_utf16().count(), |n| n as usize);
            format!("StringOfLength{length}")
        }
    }
}

/// `text` with its letters and digits kept (each run capitalised) and its
/// symbols named; `None` if it holds anything else.
fn spell(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let digit_at = |i: usize| chars.get(i).is_some_and(|c| c.is_ascii_digit());
    let mut out = String::new();
    let mut word_start = true;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            out.push(if word_start {
                c.to_ascii_uppercase()
            } else {
                c
            });
            word_start = false;
            continue;
        }
        word_start = true;
        let name = match c {
            '-' if digit_at(i + 1) || chars.get(i + 1) == Some(&'.') => "Minus",
            '.' if (i > 0 && digit_at(i - 1)) || digit_at(i + 1) => "Point",
            _ => symbol_name(c)?,
        };
        out.push_str(name);
    }
    Some(out)
}

/// The name of a printable ASCII symbol.
fn symbol_name(c: char) -> Option<&'static str> {
    Some(match c {
        ' ' => "Space",
        '!' => "Bang",
        '"' => "Quote",
        '#' => "Hash",
        '$' => "Dollar",
        '%' => "Percent",
        '&' => "Ampersand",
        '\'' => "Apostrophe",
        '(' => "OpenParen",
        ')' => "CloseParen",
        '*' => "Star",
        '+' => "Plus",
        ',' => "Comma",
        '-' => "Dash",
        '.' => "Dot",
        '/' => "Slash",
        ':' => "Colon",
        ';' => "Semicolon",
        '<' => "LessThan",
        '=' => "EqualsSign",
        '>' => "GreaterThan",
        '?' => "QuestionMark",
        '@' => "At",
        '[' => "OpenBracket",
        '\\' => "Backslash",
        ']' => "CloseBracket",
        '^' => "Caret",
        '_' => "Underscore",
        '`' => "Backtick",
        '{' => "OpenBrace",
        '|' => "Bar",
        '}' => "CloseBrace",
        '~' => "Tilde",
        '\t' => "Tab",
        '\n' => "Newline",
        '\r' => "CarriageReturn",
        _ => return None,
    })
}

/// A few identifier characters saying what a result is: `10`,
/// `Negative5`, `BulkItem`, `Null`, `NaN`, `Winter`, `Item`.
pub fn describe_rendered(value: &RenderedValue) -> String {
    match value {
        RenderedValue::Null => "Null".to_string(),
        RenderedValue::Boolean { value } => capitalise(&value.to_string()),
        RenderedValue::Byte { value } => describe_integer(i64::from(*value)),
        RenderedValue::Short { value } => describe_integer(i64::from(*value)),
        RenderedValue::Int { value } => describe_integer(i64::from(*value)),
        RenderedValue::Long { value } => describe_integer(*value),
        RenderedValue::Char { value } => describe_char(*value),
        RenderedValue::Float { bits } => {
            let v = f32::from_bits(*bits);
            describe_floating(
                crate::literal::float(*bits),
                v.is_nan(),
                v.is_infinite(),
                v.is_sign_negative(),
                v == 0.0,
            )
        }
        RenderedValue::Double { bits } => {
            let v = f64::from_bits(*bits);
            describe_floating(
                crate::literal::double(*bits),
                v.is_nan(),
                v.is_infinite(),
                v.is_sign_negative(),
                v == 0.0,
            )
        }
        RenderedValue::String { value, full_length } => {
            describe_string(&value.to_string_lossy(), *full_length)
        }
        RenderedValue::Enum { name, .. } => camel_words(name, 4),
        RenderedValue::Class { name } if name.starts_with('[') => "ArrayClass".to_string(),
        RenderedValue::Class { name } => {
            let simple = name.rsplit(['.', '$']).next().unwrap_or(name);
            format!("{}Class", camel_words(simple, 4))
        }
        RenderedValue::Boxed { value } => describe_rendered(value),
        RenderedValue::Array { length, .. } => {
            if *length == 0 {
                "EmptyArray".to_string()
            } else {
                format!("ArrayOfLength{length}")
            }
        }
        // A lambda's class is hidden and named anew in every JVM.
        RenderedValue::Object { class, .. } if class.contains("$$Lambda") => "Lambda".to_string(),
        RenderedValue::Object { class, .. } => identifier(crate::types::simple_name(class)),
    }
}

/// The same for an argument of a plan; `None` for references.
pub fn describe_value(value: &Value) -> Option<String> {
    crate::literal::rendered_of(value).map(|rendered| describe_rendered(&rendered))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_safe() {
        assert_eq!(identifier("class"), "class_");
        assert_eq!(identifier("3d"), "_3d");
        assert_eq!(identifier("a-b c"), "abc");
        assert_eq!(identifier(""), "value");
        assert_eq!(local_name("Item"), "item");
        assert_eq!(local_name("CoinBox"), "coinBox");
        assert_eq!(local_name("URLParser"), "urlParser");
        assert_eq!(local_name("int[]"), "intArray");
        assert_eq!(local_name("Default"), "defaultValue");
        assert_eq!(local_name("X"), "x");
    }

    #[test]
    fn values_describe_themselves() {
        let d = |v: RenderedValue| describe_rendered(&v);
        assert_eq!(d(RenderedValue::Int { value: 10 }), "10");
        assert_eq!(d(RenderedValue::Int { value: -5 }), "Negative5");
        assert_eq!(
            d(RenderedValue::Long { value: i64::MIN }),
            "Negative9223372036854775808"
        );
        assert_eq!(d(RenderedValue::Null), "Null");
        assert_eq!(d(RenderedValue::Boolean { value: true }), "True");
        assert_eq!(
            d(RenderedValue::Double {
                bits: 1.5f64.to_bits()
            }),
            "1Point5"
        );
        assert_eq!(
            d(RenderedValue::Double {
                bits: (-0.0f64).to_bits()
            }),
            "NegativeZero"
        );
        assert_eq!(
            d(RenderedValue::Float {
                bits: f32::NAN.to_bits()
            }),
            "NaN"
        );
        assert_eq!(
            d(RenderedValue::Double {
                bits: 1e-7f64.to_bits()
            }),
            "1EMinus7"
        );
        assert_eq!(
            d(RenderedValue::Double {
                bits: (-f64::MIN_POSITIVE).to_bits()
            }),
            "NegativeMinNormal"
        );
        assert_eq!(
            d(RenderedValue::Double {
                bits: (f64::MIN_POSITIVE / 2.0).to_bits()
            }),
            "1Point112536EMinus308"
        );
        assert_eq!(
            d(RenderedValue::String {
                value: "bulk item".into(),
                full_length: None
            }),
            "BulkItem"
        );
        assert_eq!(
            d(RenderedValue::String {
                value: "Hello, stranger".into(),
                full_length: None
            }),
            "HelloStranger"
        );
        assert_eq!(
            d(RenderedValue::String {
                value: "".into(),
                full_length: None
            }),
            "EmptyString"
        );
        let string = |text: &str| {
            d(RenderedValue::String {
                value: text.into(),
                full_length: None,
            })
        };
        assert_eq!(string("="), "EqualsSign");
        assert_eq!(string("--"), "DashDash");
        assert_eq!(string("\u{0}="), "StringOfLength2");
        assert_eq!(string("-----"), "StringOfLength5");
        assert_eq!(string("--a"), "DashDashA");
        assert_eq!(string(";-ab"), "SemicolonDashAb");
        assert_eq!(string("-0.5"), "Minus0Point5");
        assert_eq!(string("--all"), "All");
        assert_eq!(
            d(RenderedValue::String {
                value: "+inf".into(),
                full_length: None
            }),
            "PlusInf"
        );
        assert_eq!(
            d(RenderedValue::Enum {
                class: "a.Season".into(),
                name: "WINTER".into()
            }),
            "Winter"
        );
        assert_eq!(
            d(RenderedValue::Char {
                value: u16::from(b'a')
            }),
            "CharA"
        );
        assert_eq!(property_name("getTotalQuarters"), "TotalQuarters");
        assert_eq!(property_name("isBulk"), "Bulk");
        assert_eq!(property_name("size"), "Size");
        assert_eq!(camel_words("SMALL_BOX", 4), "SmallBox");
    }
}
