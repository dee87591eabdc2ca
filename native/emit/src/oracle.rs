//! What a test asserts, chosen before anything is printed: assertions as
//! data ([`Assertion`]: what is looked at, and the check), from what every
//! run of the test case saw ([`Seen`]). Where the runs disagree nothing is
//! asserted, and the disagreement's cause is noted.

use std::collections::BTreeSet;

use testgen_classfile::descriptor::BaseType;
use testgen_exec::{PropertyOutcome, RenderedValue};

use crate::literal;
use crate::model::Cause;
use crate::names;
use crate::runs::{looks_nondeterministic, same, Seen, Thrown};
use crate::types::{self, JType};

/// At most this many assertion lines on one act.
const MAX_ASSERTIONS: usize = 12;

/// What an assertion looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Actual {
    /// The act's result.
    Result,
    /// An arrange local.
    Local(String),
    /// A getter of a value: `of.name()`.
    Getter { of: Box<Actual>, name: String },
    /// The value as a class of the test's package, which its static type
    /// does not name: `((class) of)`.
    Cast { class: String, of: Box<Actual> },
    /// The value as the array type it is: `((type) of)`.
    ArrayCast { array: JType, of: Box<Actual> },
    /// An array's length: `of.length`.
    Length(Box<Actual>),
    /// A string with the platform's line separators as `\n`:
    /// `String.valueOf(of).replace(System.lineSeparator(), "\n")`.
    Lines(Box<Actual>),
}

impl Actual {
    pub fn getter(self, name: &str) -> Actual {
        Actual::Getter {
            of: Box::new(self),
            name: name.to_string(),
        }
    }
}

/// A check on an [`Actual`].
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// The same object as an arrange local.
    Same {
        local: String,
    },
    NotNull,
    Null,
    True,
    False,
    /// Equal to a Java literal.
    Equals {
        expected: String,
    },
    /// Exactly this `float` or `double` (NaN and the sign of zero included).
    Floating(FloatingValue),
    /// Element by element equal to these literals.
    ArrayEquals {
        element: JType,
        items: Vec<String>,
    },
    /// A string of which only the beginning is known: it starts with
    /// `prefix` and is `length` UTF-16 units long.
    StartsWith {
        prefix: String,
        length: u32,
    },
}

impl Check {
    /// Lines the check prints as.
    fn lines(&self) -> usize {
        match self {
            Check::StartsWith { .. } => 2,
            _ => 1,
        }
    }
}

/// An exact floating-point expectation.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatingValue {
    /// The wrapper class: `java.lang.Float` or `java.lang.Double`.
    pub class: &'static str,
    /// The expected value as a Java literal.
    pub expected: String,
    pub nan: bool,
    pub zero: bool,
    /// The wrapper's method giving the bits (`floatToIntBits`).
    pub to_bits: &'static str,
    /// A zero delta of the type, for JUnit 4.
    pub delta: &'static str,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Assertion {
    pub actual: Actual,
    pub check: Check,
}

/// What a test that expects an exception asserts about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThrownCheck {
    /// Binary name of the exception's class.
    pub exception: String,
    /// `Some(message)` when every run threw it with the same message (which
    /// may be none), and the message is the code's, not the JVM's.
    pub message: Option<Option<String>>,
}

/// An arrange local that assertions may name.
#[derive(Clone, Debug)]
pub struct Named<'v> {
    pub name: String,
    /// The local's value in every run.
    pub seen: Option<Seen<'v>>,
}

/// Chooses the assertions of one test case.
pub struct Oracle<'v> {
    /// The package of the test class (a class of it can be cast to).
    pub package: &'v str,
    /// The arrange locals, by statement.
    pub locals: Vec<Option<Named<'v>>>,
    /// Assertion lines so far.
    lines: usize,
    /// Causes of assertions left out because runs disagreed.
    pub left_out: BTreeSet<Cause>,
}

impl<'v> Oracle<'v> {
    pub fn new(package: &'v str, locals: Vec<Option<Named<'v>>>) -> Oracle<'v> {
        Oracle {
            package,
            locals,
            lines: 0,
            left_out: BTreeSet::new(),
        }
    }

    /// What to check of the exception the act threw in every run.
    pub fn thrown(&mut self, thrown: &Thrown<'_>) -> ThrownCheck {
        let first = thrown.first;
        // The JVM's own messages for these change between JDK versions and
        // options (helpful NullPointerException messages, class loader names).
        let jvm_message = matches!(
            first.class.as_str(),
            "java.lang.NullPointerException" | "java.lang.ClassCastException"
        );
        // A message written inside the JDK (`substring`'s "String index out
        // of range: -1", "begin -1, end 3, length 3" in later versions) is
        // the JDK's wording, not the code's: the type is asserted, not it.
        let jdk_message = first
            .frames
            .first()
            .is_some_and(|frame| is_jdk_class(&frame.class));
        let message_agrees = !jvm_message
            && !jdk_message
            && first
                .message
                .as_deref()
                .is_none_or(|m| !looks_nondeterministic(m))
            && match thrown.message_agreement() {
                Ok(()) => true,
                Err(cause) => {
                    self.left_out.insert(cause);
                    false
                }
            };
        ThrownCheck {
            exception: first.class.clone(),
            message: message_agrees.then(|| first.message.clone()),
        }
    }

    /// Assertions that `actual` (static type `ty` if known) holds the value
    /// every run saw; nothing where they disagree.
    pub fn value(
        &mut self,
        seen: &Seen<'_>,
        ty: Option<&JType>,
        actual: Actual,
        depth: u32,
        out: &mut Vec<Assertion>,
    ) {
        if self.lines >= MAX_ASSERTIONS {
            return;
        }
        if let Some(local) = self.same_object_as(seen) {
            self.push(out, actual, Check::Same { local });
            return;
        }
        match seen.first {
            RenderedValue::Object { class, .. } => {
                if let Err(cause) = seen.shape_agreement() {
                    self.left_out.insert(cause);
                    return;
                }
                let before = out.len();
                let collection = types::package_of(class) == "java.util";
                let access = self
                    .object_access(actual.clone(), ty, seen.first, depth)
                    .or_else(|| {
                        // Collections are used through their interfaces.
                        (collection && ty.is_some_and(|t| !t.is_object())).then(|| actual.clone())
                    });
                if let Some(access) = access {
                    for (name, property) in seen.properties() {
                        if collection && !matches!(name, "size" | "isEmpty") {
                            continue;
                        }
                        self.value(&property, None, access.clone().getter(name), depth + 1, out);
                    }
                }
                if out.len() == before && depth == 0 {
                    self.push(out, actual, Check::NotNull);
                }
            }
            RenderedValue::Array { class, length, .. } => {
                if let Err(cause) = seen.shape_agreement() {
                    self.left_out.insert(cause);
                    return;
                }
                let Some(runtime) = JType::from_array_class_name(class) else {
                    return;
                };
                let typed = if ty == Some(&runtime) {
                    actual
                } else {
                    Actual::ArrayCast {
                        array: runtime.clone(),
                        of: Box::new(actual),
                    }
                };
                let literals: Option<Vec<String>> = seen.elements().and_then(|elements| {
                    elements
                        .iter()
                        .map(|element| match element.agreement() {
                            Ok(()) => literal::of_rendered(element.first),
                            Err(cause) => {
                                self.left_out.insert(cause);
                                None
                            }
                        })
                        .collect()
                });
                match (literals, &runtime) {
                    (Some(items), JType::Array(element)) => self.push(
                        out,
                        typed,
                        Check::ArrayEquals {
                            element: element.as_ref().clone(),
                            items,
                        },
                    ),
                    _ => self.push(
                        out,
                        Actual::Length(Box::new(typed)),
                        Check::Equals {
                            expected: length.to_string(),
                        },
                    ),
                }
            }
            value => match seen.agreement() {
                Ok(()) => {
                    if let Some(check) = literal_check(value, ty) {
                        self.push(out, actual, check);
                    }
                }
                Err(cause) => match lines_apart_from_separators(seen) {
                    // Text that differs only where the machine's line
                    // separator went: asserted with it made `\n`.
                    Some(text) => self.push(
                        out,
                        Actual::Lines(Box::new(actual)),
                        Check::Equals {
                            expected: literal::string(&text),
                        },
                    ),
                    None => {
                        self.left_out.insert(cause);
                    }
                },
            },
        }
    }

    /// The state after the act of each observed object: the properties
    /// that changed since the object was made, or, for the receiver of a
    /// void act that changed no observed object, all of them; and those in `also`
    /// whatever they are. Returns the first change asserted (else the first
    /// property asserted as kept), for the test's name.
    pub fn observations(
        &mut self,
        observed: &[Observed<'_>],
        void_act: bool,
        also: &BTreeSet<String>,
        out: &mut Vec<Assertion>,
    ) -> Option<StateSeen> {
        let mut first_change: Option<StateSeen> = None;
        let nothing_changed = !observed.iter().any(Observed::changed);
        for object in observed {
            let Observed {
                local,
                ty,
                after,
                receiver,
                ..
            } = object;
            let before = object.before();
            let Some(access) =
                self.object_access(Actual::Local(local.clone()), Some(ty), after.first, 0)
            else {
                continue;
            };
            let properties = after.properties();
            let changed = |name: &str, value: &RenderedValue| changed_since(&before, name, value);
            // A void act that changed nothing: its receiver's state, all of it.
            let all = *receiver && void_act && nothing_changed;
            for (name, seen) in properties {
                if !changed(name, seen.first) && !all && !also.contains(name) {
                    continue;
                }
                // Bytes beyond ASCII may be text in the default charset,
                // which another machine's JDK 17 may not share.
                if name == "toByteArray" && !ascii_bytes(seen.first) {
                    continue;
                }
                if let Err(cause) = seen.agreement() {
                    // Text apart from line separators is still asserted.
                    if lines_apart_from_separators(&seen).is_none() {
                        self.left_out.insert(cause);
                        continue;
                    }
                }
                let before_len = out.len();
                self.value(&seen, None, access.clone().getter(name), 1, out);
                let asserted = out.len() > before_len && !before.is_empty();
                let changed = changed(name, seen.first);
                // The first change asserted, else the first property kept.
                if asserted && first_change.as_ref().is_none_or(|f| !f.changed && changed) {
                    first_change = Some(StateSeen {
                        property: names::property_name(name),
                        value: names::describe_rendered(seen.first),
                        changed,
                    });
                }
            }
        }
        first_change
    }

    fn push(&mut self, out: &mut Vec<Assertion>, actual: Actual, check: Check) {
        self.lines += check.lines();
        out.push(Assertion { actual, check });
    }

    /// The arrange local holding the same object as `seen` in every run,
    /// if any: identity hashes differ between runs, but which statement
    /// made an object does not.
    fn same_object_as(&self, seen: &Seen<'_>) -> Option<String> {
        let identities = seen.identities()?;
        self.locals.iter().flatten().find_map(|local| {
            let made = local.seen.as_ref()?.identities()?;
            (made == identities).then(|| local.name.clone())
        })
    }

    /// How to call getters on `actual` (runtime value `value`, static type
    /// `ty` if known), or `None` if the code cannot do so safely.
    fn object_access(
        &self,
        actual: Actual,
        ty: Option<&JType>,
        value: &RenderedValue,
        depth: u32,
    ) -> Option<Actual> {
        let RenderedValue::Object { class, .. } = value else {
            return None;
        };
        if ty == Some(&JType::Class(class.clone())) {
            return Some(actual);
        }
        let nameable = !class
            .split('$')
            .skip(1)
            .any(|part| part.starts_with(|c: char| c.is_ascii_digit()));
        if nameable && types::package_of(class) == self.package {
            return Some(if depth == 0 {
                Actual::Cast {
                    class: class.clone(),
                    of: Box::new(actual),
                }
            } else {
                actual
            });
        }
        None
    }
}

/// The first run's string, when it holds `\n` and no `\r`, and every other
/// run saw it as it is or, under the `\r\n` line separator, with each `\n`
/// written `\r\n`: output written with `println` or
/// `System.lineSeparator()`. Asserted with the machine's separator made
/// `\n`, it holds on either.
fn lines_apart_from_separators(seen: &Seen<'_>) -> Option<String> {
    let text = |value: &RenderedValue| match value {
        RenderedValue::String {
            value,
            full_length: None,
        } => value.as_str().map(str::to_string),
        _ => None,
    };
    let first = text(seen.first).filter(|t| t.contains('\n') && !t.contains('\r'))?;
    let crlf = first.replace('\n', "\r\n");
    let only_separators = seen
        .others
        .iter()
        .all(|(cause, other)| match other.and_then(text) {
            Some(other) => other == first || (*cause == Cause::LineSeparator && other == crlf),
            None => false,
        });
    only_separators.then_some(first)
}

/// Whether `value` is an array of bytes below 128.
fn ascii_bytes(value: &RenderedValue) -> bool {
    match value {
        RenderedValue::Array {
            elements: Some(elements),
            ..
        } => elements
            .iter()
            .all(|element| matches!(element, RenderedValue::Byte { value } if *value >= 0)),
        _ => false,
    }
}

/// Whether the class (binary name) belongs to the JDK.
fn is_jdk_class(class: &str) -> bool {
    ["java.", "javax.", "jdk.", "sun.", "com.sun."]
        .iter()
        .any(|prefix| class.starts_with(prefix))
}

/// The check that a value (of static type `ty` if known) is exactly the
/// literal value every run saw.
fn literal_check(value: &RenderedValue, ty: Option<&JType>) -> Option<Check> {
    Some(match value {
        RenderedValue::Null => Check::Null,
        RenderedValue::Boolean { value } if ty.is_none_or(JType::is_primitive) => {
            if *value {
                Check::True
            } else {
                Check::False
            }
        }
        RenderedValue::Float { bits } => {
            let v = f32::from_bits(*bits);
            Check::Floating(FloatingValue {
                class: "java.lang.Float",
                expected: literal::float(*bits),
                nan: v.is_nan(),
                zero: v == 0.0,
                to_bits: "floatToIntBits",
                delta: "0.0f",
            })
        }
        RenderedValue::Double { bits } => {
            let v = f64::from_bits(*bits);
            Check::Floating(FloatingValue {
                class: "java.lang.Double",
                expected: literal::double(*bits),
                nan: v.is_nan(),
                zero: v == 0.0,
                to_bits: "doubleToLongBits",
                delta: "0.0",
            })
        }
        RenderedValue::String {
            value,
            full_length: Some(full),
        } => Check::StartsWith {
            prefix: literal::string_units(&value.to_utf16()),
            length: *full,
        },
        other => Check::Equals {
            expected: literal::of_rendered(other)?,
        },
    })
}

/// The first property of a new object that every run saw the same and
/// that can be written as a literal, for the test's name.
pub fn first_property(seen: &Seen<'_>) -> Option<(String, String)> {
    described_properties(seen).into_iter().next()
}

/// The properties of `seen`'s object that every run agrees on and a
/// literal can state, named and described (`Quantity`, `0`).
pub fn described_properties(seen: &Seen<'_>) -> Vec<(String, String)> {
    seen.properties()
        .into_iter()
        .filter(|(_, property)| {
            property.agreement().is_ok() && literal::of_rendered(property.first).is_some()
        })
        .map(|(name, property)| {
            (
                names::property_name(name),
                names::describe_rendered(property.first),
            )
        })
        .collect()
}

/// An object whose state after the act the test may assert.
pub struct Observed<'v> {
    /// The local that holds it.
    pub local: String,
    pub ty: JType,
    /// What the first run saw when it was made.
    pub made: Option<&'v RenderedValue>,
    /// What every run saw after the act.
    pub after: Seen<'v>,
    /// The act's receiver (else an argument).
    pub receiver: bool,
}

impl Observed<'_> {
    /// The properties the first run saw when the object was made.
    fn before(&self) -> Vec<testgen_exec::Property> {
        match self.made {
            Some(RenderedValue::Object {
                properties: Some(before),
                ..
            }) => before.clone(),
            _ => Vec::new(),
        }
    }

    /// Whether some property is not what it was when the object was made.
    fn changed(&self) -> bool {
        let before = self.before();
        self.after
            .properties()
            .iter()
            .any(|(name, seen)| changed_since(&before, name, seen.first))
    }
}

/// Whether property `name` is `value` now and was otherwise (or absent) in
/// `before`.
fn changed_since(before: &[testgen_exec::Property], name: &str, value: &RenderedValue) -> bool {
    !before.iter().any(|b| {
        b.name == name
            && matches!(&b.outcome, PropertyOutcome::Value { value: old } if same(old, value))
    })
}

/// A property asserted after the act, for the test's name.
pub struct StateSeen {
    /// `ArgName`, from the getter.
    pub property: String,
    /// `Arg`, the value described.
    pub value: String,
    /// The act changed it (else it is as the object was made).
    pub changed: bool,
}

/// The primitive type of a rendered value, if it is one.
pub fn primitive_kind(value: &RenderedValue) -> Option<BaseType> {
    Some(match value {
        RenderedValue::Boolean { .. } => BaseType::Boolean,
        RenderedValue::Byte { .. } => BaseType::Byte,
        RenderedValue::Short { .. } => BaseType::Short,
        RenderedValue::Char { .. } => BaseType::Char,
        RenderedValue::Int { .. } => BaseType::Int,
        RenderedValue::Long { .. } => BaseType::Long,
        RenderedValue::Float { .. } => BaseType::Float,
        RenderedValue::Double { .. } => BaseType::Double,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use testgen_exec::{ExceptionInfo, StackFrame};

    fn thrown_in(class: &str, exception: &str, message: &str) -> ExceptionInfo {
        ExceptionInfo {
            class: exception.into(),
            message: Some(message.into()),
            frames: vec![StackFrame {
                class: class.into(),
                method: "m".into(),
                file: None,
                line: None,
            }],
            cause: None,
        }
    }

    fn check(exception: &ExceptionInfo) -> ThrownCheck {
        let mut oracle = Oracle::new("p", Vec::new());
        oracle.thrown(&Thrown {
            first: exception,
            others: vec![(Cause::Nondeterminism, exception)],
        })
    }

    #[test]
    fn a_message_the_code_wrote_is_asserted_one_the_jdk_wrote_is_not() {
        let own = thrown_in(
            "p.Account",
            "java.lang.IllegalArgumentException",
            "amount must be positive",
        );
        assert_eq!(
            check(&own).message,
            Some(Some("amount must be positive".to_string()))
        );
        let jdk = thrown_in(
            "java.lang.String",
            "java.lang.StringIndexOutOfBoundsException",
            "String index out of range: -1",
        );
        let checked = check(&jdk);
        assert_eq!(
            checked.exception,
            "java.lang.StringIndexOutOfBoundsException"
        );
        assert_eq!(checked.message, None);
    }
}
