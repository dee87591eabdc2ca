//! What every run of a test case saw at one place, and whether the runs
//! agree: a test asserts only what all of them saw, and a disagreement is
//! charged to the [`Cause`] of the first run that disagreed.

use testgen_exec::{ExceptionInfo, PropertyOutcome, RenderedValue, StatementOutcome};

use crate::model::{Cause, TestCase};

/// The value the first run saw at one place (a statement's result, a getter
/// of it, an array element), with what each other run saw there.
#[derive(Clone, Debug)]
pub(crate) struct Seen<'v> {
    pub first: &'v RenderedValue,
    /// Per other run, its cause and its value at the same place (`None`
    /// where it has none: it threw there, or its summary stopped earlier).
    pub others: Vec<(Cause, Option<&'v RenderedValue>)>,
}

impl<'v> Seen<'v> {
    /// Statement `index`'s value in every run of `case`; `None` when the
    /// first run has none.
    pub fn statement(case: &'v TestCase, index: usize) -> Option<Seen<'v>> {
        let first = value_of(case.first.statements.get(index))?;
        Some(Seen {
            first,
            others: case
                .other_runs()
                .map(|(cause, outcome)| (cause, value_of(outcome.statements.get(index))))
                .collect(),
        })
    }

    /// `Ok` when every run saw the same value (identity hashes aside), else
    /// the cause of the first run that did not.
    pub fn agreement(&self) -> Result<(), Cause> {
        first_disagreeing(&self.others, |other| same(self.first, other))
    }

    /// `Ok` when every run saw an object of the first's class (or an array
    /// of its class and length): the same shape, whatever its contents.
    pub fn shape_agreement(&self) -> Result<(), Cause> {
        first_disagreeing(&self.others, |other| match (self.first, other) {
            (RenderedValue::Object { class, .. }, RenderedValue::Object { class: c, .. }) => {
                class == c
            }
            (
                RenderedValue::Array { class, length, .. },
                RenderedValue::Array {
                    class: c,
                    length: l,
                    ..
                },
            ) => class == c && length == l,
            _ => false,
        })
    }

    /// The getters of the first run's object that returned a value that
    /// does not vary by itself (no identity hash in its text), in its
    /// summary's order, each with what the other runs' same getter returned.
    pub fn properties(&self) -> Vec<(&'v str, Seen<'v>)> {
        let RenderedValue::Object {
            properties: Some(first),
            ..
        } = self.first
        else {
            return Vec::new();
        };
        first
            .iter()
            .filter_map(|property| {
                let PropertyOutcome::Value { value } = &property.outcome else {
                    return None;
                };
                if !deterministic(value) {
                    return None;
                }
                let others = self
                    .others
                    .iter()
                    .map(|(cause, other)| {
                        (*cause, other.and_then(|o| property_of(o, &property.name)))
                    })
                    .collect();
                Some((
                    property.name.as_str(),
                    Seen {
                        first: value,
                        others,
                    },
                ))
            })
            .collect()
    }

    /// The elements of the first run's array with the other runs' elements
    /// at the same index; `None` unless every run rendered all of them.
    pub fn elements(&self) -> Option<Vec<Seen<'v>>> {
        let elements_of = |value: &'v RenderedValue| match value {
            RenderedValue::Array {
                length,
                elements: Some(elements),
                ..
            } if elements.len() == *length as usize => Some(elements),
            _ => None,
        };
        let first = elements_of(self.first)?;
        let others: Vec<(Cause, &'v Vec<RenderedValue>)> = self
            .others
            .iter()
            .map(|(cause, other)| Some((*cause, elements_of((*other)?)?)))
            .collect::<Option<_>>()?;
        if others
            .iter()
            .any(|(_, elements)| elements.len() != first.len())
        {
            return None;
        }
        Some(
            first
                .iter()
                .enumerate()
                .map(|(index, element)| Seen {
                    first: element,
                    others: others
                        .iter()
                        .map(|(cause, elements)| (*cause, elements.get(index)))
                        .collect(),
                })
                .collect(),
        )
    }

    /// The identity of the object or array in each run: the first run's and
    /// the others' (`None` where a run has no object there).
    pub fn identities(&self) -> Option<(i32, Vec<Option<i32>>)> {
        Some((
            identity(Some(self.first))?,
            self.others
                .iter()
                .map(|(_, other)| identity(*other))
                .collect(),
        ))
    }
}

/// The exception the first run's act threw, with the others'.
pub(crate) struct Thrown<'v> {
    pub first: &'v ExceptionInfo,
    pub others: Vec<(Cause, &'v ExceptionInfo)>,
}

impl Thrown<'_> {
    /// `Ok` when every run's exception has the first's message.
    pub fn message_agreement(&self) -> Result<(), Cause> {
        let others: Vec<(Cause, Option<&ExceptionInfo>)> =
            self.others.iter().map(|(c, e)| (*c, Some(*e))).collect();
        first_disagreeing(&others, |other| other.message == self.first.message)
    }
}

/// `Ok` when `agrees` holds for every other run's value, else the cause of
/// the first that does not (or has no value).
fn first_disagreeing<T: ?Sized>(
    others: &[(Cause, Option<&T>)],
    agrees: impl Fn(&T) -> bool,
) -> Result<(), Cause> {
    match others.iter().find(|(_, other)| !other.is_some_and(&agrees)) {
        Some((cause, _)) => Err(*cause),
        None => Ok(()),
    }
}

pub(crate) fn value_of(outcome: Option<&StatementOutcome>) -> Option<&RenderedValue> {
    match outcome {
        Some(StatementOutcome::Value { value }) => Some(value),
        _ => None,
    }
}

fn property_of<'v>(value: &'v RenderedValue, name: &str) -> Option<&'v RenderedValue> {
    let RenderedValue::Object {
        properties: Some(properties),
        ..
    } = value
    else {
        return None;
    };
    match &properties.iter().find(|p| p.name == name)?.outcome {
        PropertyOutcome::Value { value } => Some(value),
        PropertyOutcome::Threw { .. } => None,
    }
}

fn identity(value: Option<&RenderedValue>) -> Option<i32> {
    match value {
        Some(RenderedValue::Object { identity, .. } | RenderedValue::Array { identity, .. }) => {
            Some(*identity)
        }
        _ => None,
    }
}

/// Whether two rendered values are the same, apart from identity hashes.
pub(crate) fn same(a: &RenderedValue, b: &RenderedValue) -> bool {
    match (a, b) {
        (
            RenderedValue::Object {
                class, properties, ..
            },
            RenderedValue::Object {
                class: class2,
                properties: properties2,
                ..
            },
        ) => {
            class == class2
                && match (properties, properties2) {
                    (Some(x), Some(y)) => {
                        x.len() == y.len()
                            && x.iter().zip(y).all(|(p, q)| {
                                p.name == q.name && outcome_same(&p.outcome, &q.outcome)
                            })
                    }
                    (None, None) => true,
                    _ => false,
                }
        }
        (
            RenderedValue::Array {
                class,
                length,
                elements,
                ..
            },
            RenderedValue::Array {
                class: class2,
                length: length2,
                elements: elements2,
                ..
            },
        ) => {
            class == class2
                && length == length2
                && match (elements, elements2) {
                    (Some(x), Some(y)) => {
                        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
                    }
                    (None, None) => true,
                    _ => false,
                }
        }
        (RenderedValue::Boxed { value }, RenderedValue::Boxed { value: value2 }) => {
            same(value, value2)
        }
        _ => a == b,
    }
}

fn outcome_same(a: &PropertyOutcome, b: &PropertyOutcome) -> bool {
    match (a, b) {
        (PropertyOutcome::Value { value: x }, PropertyOutcome::Value { value: y }) => same(x, y),
        (PropertyOutcome::Threw { exception: x }, PropertyOutcome::Threw { exception: y }) => {
            x.class == y.class && x.message == y.message
        }
        _ => false,
    }
}

/// False for values that carry an identity hash in their text (the
/// default `toString()`, `Item@1b6d3586`).
fn deterministic(value: &RenderedValue) -> bool {
    match value {
        RenderedValue::String { value, .. } => !looks_nondeterministic(&value.to_string_lossy()),
        _ => true,
    }
}

/// `@` followed by 4 to 8 hex digits and then no further letter or digit.
pub(crate) fn looks_nondeterministic(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        if b != b'@' {
            return false;
        }
        let hex = bytes[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        let next = bytes.get(i + 1 + hex);
        (4..=8).contains(&hex) && !next.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_hashes_are_recognised() {
        assert!(looks_nondeterministic("fixtures.explore.Item@1b6d3586"));
        assert!(looks_nondeterministic("[I@7a81197d and more"));
        assert!(!looks_nondeterministic("user@example.com"));
        assert!(!looks_nondeterministic("a@b"));
        assert!(!looks_nondeterministic("price 12 @ 3"));
    }

    fn int(value: i32) -> RenderedValue {
        RenderedValue::Int { value }
    }

    #[test]
    fn the_first_disagreeing_run_names_the_cause() {
        let (one, two) = (int(1), int(2));
        let seen = Seen {
            first: &one,
            others: vec![
                (Cause::Nondeterminism, Some(&one)),
                (Cause::Locale, Some(&one)),
                (Cause::TimeZone, Some(&two)),
                (Cause::StaticState, Some(&two)),
            ],
        };
        assert_eq!(seen.agreement(), Err(Cause::TimeZone));
        let missing = Seen {
            first: &one,
            others: vec![(Cause::Nondeterminism, Some(&one)), (Cause::Order, None)],
        };
        assert_eq!(missing.agreement(), Err(Cause::Order));
        let agreed = Seen {
            first: &one,
            others: vec![(Cause::Nondeterminism, Some(&one))],
        };
        assert_eq!(agreed.agreement(), Ok(()));
    }
}
