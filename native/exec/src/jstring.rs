//! Java strings, which are UTF-16 and may hold lone surrogates that no Rust
//! `String` can.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Java string. Well-formed strings (nearly all) are kept as UTF-8; a
/// string with a lone surrogate is kept as its UTF-16 code units. On the wire
/// the first is a JSON string, the second an array of numbers.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct JavaString(Repr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Text(String),
    /// Only for sequences that are not valid UTF-16, so that equal strings
    /// always have equal representations.
    Units(Vec<u16>),
}

impl JavaString {
    pub fn from_utf16(units: Vec<u16>) -> Self {
        match String::from_utf16(&units) {
            Ok(text) => JavaString(Repr::Text(text)),
            Err(_) => JavaString(Repr::Units(units)),
        }
    }

    /// The text, unless the string holds a lone surrogate.
    pub fn as_str(&self) -> Option<&str> {
        match &self.0 {
            Repr::Text(text) => Some(text),
            Repr::Units(_) => None,
        }
    }

    pub fn to_utf16(&self) -> Vec<u16> {
        match &self.0 {
            Repr::Text(text) => text.encode_utf16().collect(),
            Repr::Units(units) => units.clone(),
        }
    }

    /// The text with lone surrogates replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        match &self.0 {
            Repr::Text(text) => Cow::Borrowed(text),
            Repr::Units(units) => Cow::Owned(String::from_utf16_lossy(units)),
        }
    }

    /// The length in UTF-16 code units, as Java's `String.length()`.
    pub fn java_length(&self) -> usize {
        match &self.0 {
            Repr::Text(text) => text.encode_utf16().count(),
            Repr::Units(units) => units.len(),
        }
    }
}

impl From<&str> for JavaString {
    fn from(text: &str) -> Self {
        JavaString(Repr::Text(text.to_owned()))
    }
}

impl From<String> for JavaString {
    fn from(text: String) -> Self {
        JavaString(Repr::Text(text))
    }
}

impl PartialEq<str> for JavaString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for JavaString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl fmt::Debug for JavaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Text(text) => fmt::Debug::fmt(text, f),
            Repr::Units(units) => write!(f, "utf16{units:04x?}"),
        }
    }
}

impl fmt::Display for JavaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string_lossy())
    }
}

impl Serialize for JavaString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Text(text) => serializer.serialize_str(text),
            Repr::Units(units) => units.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for JavaString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct JavaStringVisitor;

        impl<'de> Visitor<'de> for JavaStringVisitor {
            type Value = JavaString;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an array of UTF-16 code units")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<JavaString, E> {
                Ok(JavaString::from(text))
            }

            fn visit_string<E: de::Error>(self, text: String) -> Result<JavaString, E> {
                Ok(JavaString::from(text))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<JavaString, A::Error> {
                let mut units = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 16));
                while let Some(unit) = seq.next_element::<u16>()? {
                    units.push(unit);
                }
                Ok(JavaString::from_utf16(units))
            }
        }

        deserializer.deserialize_any(JavaStringVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_formed_strings_are_json_strings() {
        let s = JavaString::from_utf16("a\"\n😀".encode_utf16().collect());
        assert_eq!(s, "a\"\n😀");
        assert_eq!(serde_json::to_string(&s).unwrap(), r#""a\"\n😀""#);
        assert_eq!(s.java_length(), 5);
    }

    #[test]
    fn lone_surrogates_travel_as_code_units() {
        let s = JavaString::from_utf16(vec![0x61, 0xd800]);
        assert_eq!(s.as_str(), None);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "[97,55296]");
        let back: JavaString = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.to_string_lossy(), "a\u{fffd}");
        // An array that happens to be well-formed becomes text again.
        let text: JavaString = serde_json::from_str("[104,105]").unwrap();
        assert_eq!(text, "hi");
    }
}
