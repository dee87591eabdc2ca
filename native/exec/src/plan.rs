//! What the executor is asked to run: a plan, a list of statements whose
//! arguments are literals or the results of earlier statements.
//!
//! Classes are named by their binary name with dots (`a.b.Outer$Inner`);
//! methods and constructors additionally by their JVM descriptor, so the
//! executor resolves exactly one member and never guesses between overloads.
//! The serde form of these types is the wire format (see PROTOCOL.md), and
//! the form in which the cache stores plans.

use serde::{Deserialize, Serialize};

use crate::jstring::JavaString;

/// A sequence of statements run in order on one thread. After the first
/// statement that throws (or is invalid), the rest are not run.
///
/// Whether `assert` statements run is not part of a plan: it is the
/// executor JVM's (see [`crate::Assertions`]), as it is the test JVM's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub statements: Vec<Statement>,
}

impl Plan {
    pub fn new(statements: Vec<Statement>) -> Self {
        Plan { statements }
    }
}

/// One step of a plan. Every statement that produces a value (all but
/// `PutField`, `ArrayStore` and calls of `void` methods) can be referred to by
/// later statements with [`Value::Ref`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Statement {
    /// `new class(args)`; `descriptor` is the constructor's, e.g. `(ILjava/lang/String;)V`.
    New {
        class: String,
        descriptor: String,
        args: Vec<Value>,
    },
    /// `class.name(args)` for a static method.
    CallStatic {
        class: String,
        name: String,
        descriptor: String,
        args: Vec<Value>,
    },
    /// `receiver.name(args)`; the method is looked up in `class` and its
    /// supertypes, then dispatched virtually as Java does.
    Call {
        receiver: Value,
        class: String,
        name: String,
        descriptor: String,
        args: Vec<Value>,
    },
    /// Reads a field: static when `receiver` is absent. `field_type`, the
    /// field's declared type as a descriptor when the plan's maker knows
    /// it, is what a test declares the value as (`StandardCharsets.UTF_8`
    /// is a `Charset`, though its class is not one a test can name).
    GetField {
        class: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        receiver: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        field_type: Option<String>,
    },
    /// Writes a field: static when `receiver` is absent.
    PutField {
        class: String,
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        receiver: Option<Value>,
        value: Value,
    },
    /// `new T[length]`; `element` is the element type's descriptor (`I`,
    /// `Ljava/lang/String;`, `[J`).
    NewArray { element: String, length: i32 },
    /// `array[index] = value`.
    ArrayStore {
        array: Value,
        index: i32,
        value: Value,
    },
    /// An object of the functional interface `interface` whose one
    /// abstract method (`method`, `descriptor`) returns `result` whatever
    /// its arguments, and nothing for a void method: in a test, a lambda
    /// such as `x -> true` or `(x, y) -> {}`. Its other (default) methods
    /// run the interface's code.
    Lambda {
        interface: String,
        method: String,
        descriptor: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
    },
}

impl Statement {
    /// The constructor or method a `New`, `Call` or `CallStatic` calls: its
    /// class (binary name), name (`<init>` for a constructor) and
    /// descriptor.
    pub fn callee(&self) -> Option<(&str, &str, &str)> {
        match self {
            Statement::New {
                class, descriptor, ..
            } => Some((class, "<init>", descriptor)),
            Statement::Call {
                class,
                name,
                descriptor,
                ..
            }
            | Statement::CallStatic {
                class,
                name,
                descriptor,
                ..
            } => Some((class, name, descriptor)),
            _ => None,
        }
    }
}

/// An argument: a literal or the result of an earlier statement.
///
/// Floating-point values travel as their IEEE bits so that NaN payloads and
/// `-0.0` survive exactly; `char` as its UTF-16 code unit, so lone surrogates
/// are expressible.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Value {
    Null,
    Boolean {
        value: bool,
    },
    Byte {
        value: i8,
    },
    Short {
        value: i16,
    },
    Char {
        value: u16,
    },
    Int {
        value: i32,
    },
    Long {
        value: i64,
    },
    Float {
        bits: u32,
    },
    Double {
        bits: u64,
    },
    String {
        value: JavaString,
    },
    /// An enum constant, e.g. `java.time.DayOfWeek` / `MONDAY`.
    Enum {
        class: String,
        name: String,
    },
    /// A class literal (`String.class`): the class's binary name.
    Class {
        name: String,
    },
    /// The result of statement number `statement` (0-based) of the same plan.
    Ref {
        statement: usize,
    },
}

impl Value {
    pub fn float(value: f32) -> Value {
        Value::Float {
            bits: value.to_bits(),
        }
    }

    pub fn double(value: f64) -> Value {
        Value::Double {
            bits: value.to_bits(),
        }
    }

    pub fn string(value: impl Into<JavaString>) -> Value {
        Value::String {
            value: value.into(),
        }
    }

    /// A `char` given as a Rust char outside the surrogate range; chars
    /// beyond the BMP do not fit one Java `char` and give `None`.
    pub fn char(value: char) -> Option<Value> {
        u16::try_from(u32::from(value))
            .ok()
            .map(|value| Value::Char { value })
    }

    pub fn enum_constant(class: impl Into<String>, name: impl Into<String>) -> Value {
        Value::Enum {
            class: class.into(),
            name: name.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_have_a_readable_wire_form() {
        let plan = Plan::new(vec![
            Statement::New {
                class: "a.Point".into(),
                descriptor: "(II)V".into(),
                args: vec![Value::Int { value: 1 }, Value::Int { value: 2 }],
            },
            Statement::GetField {
                class: "a.Point".into(),
                name: "x".into(),
                receiver: Some(Value::Ref { statement: 0 }),
                field_type: None,
            },
            Statement::GetField {
                class: "a.Point".into(),
                name: "ORIGIN".into(),
                receiver: None,
                field_type: None,
            },
        ]);
        let json = serde_json::to_string(&plan).unwrap();
        assert_eq!(
            json,
            r#"{"statements":[{"op":"new","class":"a.Point","descriptor":"(II)V","args":[{"kind":"int","value":1},{"kind":"int","value":2}]},{"op":"get_field","class":"a.Point","name":"x","receiver":{"kind":"ref","statement":0}},{"op":"get_field","class":"a.Point","name":"ORIGIN"}]}"#
        );
        assert_eq!(serde_json::from_str::<Plan>(&json).unwrap(), plan);
    }

    #[test]
    fn float_bits_are_exact() {
        let nan = f64::from_bits(0x7ff8_0000_0000_0001);
        let Value::Double { bits } = Value::double(nan) else {
            unreachable!()
        };
        assert_eq!(bits, 0x7ff8_0000_0000_0001);
        let json = serde_json::to_string(&Value::double(-0.0)).unwrap();
        assert_eq!(json, r#"{"kind":"double","bits":9223372036854775808}"#);
    }

    #[test]
    fn chars_beyond_the_bmp_are_not_one_java_char() {
        assert_eq!(Value::char('\0'), Some(Value::Char { value: 0 }));
        assert_eq!(Value::char('😀'), None);
    }
}
