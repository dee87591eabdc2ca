//! Concrete values for a template's holes, held by hole path: what a
//! search mutates, and what a solver's model of one run is captured as, so
//! that one engine's inputs can seed the other's.

use std::collections::BTreeMap;

use testgen_classfile::descriptor::BaseType;
use testgen_exec::Value;

use crate::instantiate::HoleValues;
use crate::template::{Choice, Hole, HoleKind, Template};

/// A value per hole (by path). A hole with none takes a default: zero, an
/// empty string, the first choice, never null, an object of its own (no
/// aliasing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilledHoles {
    pub primitives: BTreeMap<String, Value>,
    pub nulls: BTreeMap<String, bool>,
    pub choices: BTreeMap<String, usize>,
    /// A hole's string choice's text, as UTF-16 units.
    pub strings: BTreeMap<String, Vec<u16>>,
    /// A hole's boxed choice's value.
    pub boxed: BTreeMap<String, Value>,
    pub ordinals: BTreeMap<String, usize>,
    /// Array lengths and collection sizes (by the choice's place).
    pub lengths: BTreeMap<String, i32>,
    pub elements: BTreeMap<(String, i32), Value>,
}

impl HoleValues for FilledHoles {
    fn primitive(&self, hole: &str, base: BaseType) -> Value {
        fitted(self.primitives.get(hole), base)
    }

    fn is_null(&self, hole: &str) -> bool {
        self.nulls.get(hole).copied().unwrap_or(false)
    }

    fn choice(&self, hole: &str) -> usize {
        self.choices.get(hole).copied().unwrap_or(0)
    }

    fn address(&self, hole: &str) -> u64 {
        // An object of its own: FNV-1a of the path.
        hole.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    fn string(&self, hole: &str, _choice: usize) -> Vec<u16> {
        self.strings.get(hole).cloned().unwrap_or_default()
    }

    fn boxed(&self, hole: &str, _choice: usize, base: BaseType) -> Value {
        fitted(self.boxed.get(hole), base)
    }

    fn ordinal(&self, hole: &str) -> usize {
        self.ordinals.get(hole).copied().unwrap_or(0)
    }

    fn length(&self, hole: &str) -> i32 {
        self.lengths.get(hole).copied().unwrap_or(0)
    }

    fn element(&self, hole: &str, index: i32, base: BaseType) -> Value {
        fitted(self.elements.get(&(hole.to_string(), index)), base)
    }
}

impl FilledHoles {
    /// What `values` put in the holes of `template` that make a difference
    /// (its [`live_holes`]). Not which holes share an object: a solver puts
    /// every hole it need not tell apart at one address, and a search that
    /// started from that would only ever try one object.
    pub fn capture(template: &Template, values: &impl HoleValues) -> FilledHoles {
        let mut filled = FilledHoles::default();
        for hole in live_holes(template, values) {
            let path = hole.path.clone();
            let choices = match &hole.kind {
                HoleKind::Primitive(base) => {
                    filled
                        .primitives
                        .insert(path, values.primitive(&hole.path, *base));
                    continue;
                }
                HoleKind::Reference { nullable, choices } => {
                    if *nullable && values.is_null(&path) {
                        filled.nulls.insert(path, true);
                        continue;
                    }
                    choices
                }
            };
            let Some(index) = chosen(values, hole, choices) else {
                continue;
            };
            filled.choices.insert(path.clone(), index);
            match &choices[index] {
                Choice::Str => {
                    filled
                        .strings
                        .insert(path.clone(), values.string(&path, index));
                }
                Choice::Boxed { base, .. } => {
                    filled
                        .boxed
                        .insert(path.clone(), values.boxed(&path, index, *base));
                }
                Choice::Enum { .. } => {
                    filled.ordinals.insert(path.clone(), values.ordinal(&path));
                }
                Choice::PrimitiveArray { element } => {
                    let length = values.length(&path).max(0);
                    filled.lengths.insert(path.clone(), length);
                    for i in 0..length.min(MAX_CAPTURED_ELEMENTS) {
                        filled
                            .elements
                            .insert((path.clone(), i), values.element(&path, i, *element));
                    }
                }
                Choice::ReferenceArray { .. } => {
                    filled.lengths.insert(path.clone(), values.length(&path));
                }
                Choice::Collection { place, .. } => {
                    filled.lengths.insert(place.clone(), values.length(place));
                }
                _ => {}
            }
        }
        filled
    }
}

/// Elements of a primitive array captured at most (a solver may choose a
/// long array; what is past this reads as zero).
const MAX_CAPTURED_ELEMENTS: i32 = 64;

/// Which of `choices` fills `hole` under `values` (clamped as
/// instantiating clamps it); `None` when there are none.
fn chosen(values: &impl HoleValues, hole: &Hole, choices: &[Choice]) -> Option<usize> {
    (!choices.is_empty()).then(|| values.choice(&hole.path).min(choices.len() - 1))
}

/// The holes of `template` whose values make a difference under `values`:
/// the roots, and within each reference hole not null only those of its
/// current choice (the elements and entries in use), depth first. A hole
/// of a choice not taken changes nothing.
pub fn live_holes<'t>(template: &'t Template, values: &impl HoleValues) -> Vec<&'t Hole> {
    let mut live = Vec::new();
    let mut stack: Vec<&Hole> = template
        .receiver
        .iter()
        .chain(template.prefix.iter().flat_map(|call| call.args.iter()))
        .chain(template.args.iter())
        .rev()
        .collect();
    while let Some(hole) = stack.pop() {
        live.push(hole);
        let HoleKind::Reference { nullable, choices } = &hole.kind else {
            continue;
        };
        if *nullable && values.is_null(&hole.path) {
            continue;
        }
        let Some(index) = chosen(values, hole, choices) else {
            continue;
        };
        let inner: Vec<&Hole> = match &choices[index] {
            Choice::ReferenceArray { elements, .. } => {
                let used = values.length(&hole.path).clamp(0, elements.len() as i32);
                elements.iter().take(used as usize).collect()
            }
            Choice::Collection { place, entries, .. } => {
                let used = (values.length(place).max(1) as usize).min(entries.len());
                entries.iter().take(used).flatten().collect()
            }
            other => other.inner_holes(),
        };
        stack.extend(inner.into_iter().rev());
    }
    live
}

/// `value` as a value of `base` (zero when there is none, or it is of
/// another kind).
fn fitted(value: Option<&Value>, base: BaseType) -> Value {
    match (value, base) {
        (Some(v @ Value::Boolean { .. }), BaseType::Boolean)
        | (Some(v @ Value::Byte { .. }), BaseType::Byte)
        | (Some(v @ Value::Short { .. }), BaseType::Short)
        | (Some(v @ Value::Char { .. }), BaseType::Char)
        | (Some(v @ Value::Int { .. }), BaseType::Int)
        | (Some(v @ Value::Long { .. }), BaseType::Long)
        | (Some(v @ Value::Float { .. }), BaseType::Float)
        | (Some(v @ Value::Double { .. }), BaseType::Double) => v.clone(),
        _ => zero(base),
    }
}

/// Zero of `base`.
pub fn zero(base: BaseType) -> Value {
    match base {
        BaseType::Boolean => Value::Boolean { value: false },
        BaseType::Byte => Value::Byte { value: 0 },
        BaseType::Short => Value::Short { value: 0 },
        BaseType::Char => Value::Char { value: 0 },
        BaseType::Int => Value::Int { value: 0 },
        BaseType::Long => Value::Long { value: 0 },
        BaseType::Float => Value::float(0.0),
        BaseType::Double => Value::double(0.0),
    }
}
