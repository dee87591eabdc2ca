//! A test as search sees it: concrete values for the holes of one of the
//! construct crate's templates. A genome is what mutation and crossover
//! change; the template turns it into a plan (`Template::instantiate`),
//! the same way the symbolic engine's solved inputs do, so both engines
//! build their tests from the same templates.
//!
//! A hole with no gene takes a default (see [`FilledHoles`]): zero, an
//! empty string, the first choice, never null, and an object of its own.

use std::collections::{BTreeMap, BTreeSet};

use testgen_classfile::constant_pool::Constant;
use testgen_classfile::descriptor::BaseType;
use testgen_classfile::instruction::Operands;
use testgen_classfile::ClassFile;
use testgen_construct::filled::{live_holes, FilledHoles};
use testgen_construct::template::{Choice, HoleKind, Template};
use testgen_construct::HoleValues;
use testgen_exec::Value;

use crate::rng::Rng;

/// Values a search starts its mutations from: the constants of the class
/// under test, and values runs compared inputs against.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constants {
    pub integers: Vec<i64>,
    pub doubles: Vec<f64>,
    /// As UTF-16 units, as Java strings are.
    pub strings: Vec<Vec<u16>>,
}

/// Constants kept per kind at most: a class's pool can be large.
const MAX_CONSTANTS: usize = 256;

impl Constants {
    /// The literals of `file`: its constant pool's numbers and strings and
    /// the small numbers its code pushes (`bipush`, `sipush`), each once,
    /// in ascending order.
    pub fn of_class(file: &ClassFile<'_>) -> Constants {
        let mut integers = BTreeSet::new();
        let mut doubles = Vec::new();
        let mut strings = BTreeSet::new();
        for (_, constant) in file.constant_pool.iter() {
            match constant {
                Constant::Integer(value) => {
                    integers.insert(i64::from(*value));
                }
                Constant::Long(value) => {
                    integers.insert(*value);
                }
                Constant::Float(bits) => doubles.push(f64::from(f32::from_bits(*bits))),
                Constant::Double(bits) => doubles.push(f64::from_bits(*bits)),
                Constant::String { string_index } => {
                    if let Ok(text) = file.constant_pool.utf8(*string_index) {
                        strings.insert(text.encode_utf16().collect::<Vec<u16>>());
                    }
                }
                _ => {}
            }
        }
        for method in &file.methods {
            let Ok(Some(code)) = method.code(file) else {
                continue;
            };
            for instruction in code.instructions().map_while(Result::ok) {
                match instruction.operands {
                    Operands::Byte(value) => {
                        integers.insert(i64::from(value));
                    }
                    Operands::Short(value) => {
                        integers.insert(i64::from(value));
                    }
                    _ => {}
                }
            }
        }
        doubles.sort_by(f64::total_cmp);
        doubles.dedup_by(|a, b| a.to_bits() == b.to_bits());
        doubles.truncate(MAX_CONSTANTS);
        Constants {
            integers: integers.into_iter().take(MAX_CONSTANTS).collect(),
            doubles,
            strings: strings.into_iter().take(MAX_CONSTANTS).collect(),
        }
    }
}

impl Constants {
    /// Adds `value` to the integers (kept sorted, each once, at most
    /// [`MAX_CONSTANTS`]; a full list takes no more).
    pub fn add_integer(&mut self, value: i64) {
        if let Err(at) = self.integers.binary_search(&value) {
            if self.integers.len() < MAX_CONSTANTS {
                self.integers.insert(at, value);
            }
        }
    }
}

impl Constants {
    /// Adds `text` to the strings, as [`Constants::add_integer`] does numbers.
    pub fn add_string(&mut self, text: &str) {
        let units: Vec<u16> = text.encode_utf16().collect();
        if let Err(at) = self.strings.binary_search(&units) {
            if self.strings.len() < MAX_CONSTANTS {
                self.strings.insert(at, units);
            }
        }
    }
}

/// Concrete values for a template's holes, by hole path: what mutation
/// and crossover change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Genome {
    holes: FilledHoles,
}

/// Strings and arrays search makes stay this short.
const MAX_LENGTH: usize = 16;

impl HoleValues for Genome {
    fn primitive(&self, hole: &str, base: BaseType) -> Value {
        self.holes.primitive(hole, base)
    }

    fn is_null(&self, hole: &str) -> bool {
        self.holes.is_null(hole)
    }

    fn choice(&self, hole: &str) -> usize {
        self.holes.choice(hole)
    }

    fn address(&self, hole: &str) -> u64 {
        self.holes.address(hole)
    }

    fn string(&self, hole: &str, choice: usize) -> Vec<u16> {
        self.holes.string(hole, choice)
    }

    fn boxed(&self, hole: &str, choice: usize, base: BaseType) -> Value {
        self.holes.boxed(hole, choice, base)
    }

    fn ordinal(&self, hole: &str) -> usize {
        self.holes.ordinal(hole)
    }

    fn length(&self, hole: &str) -> i32 {
        self.holes.length(hole)
    }

    fn element(&self, hole: &str, index: i32, base: BaseType) -> Value {
        self.holes.element(hole, index, base)
    }
}

impl From<FilledHoles> for Genome {
    /// A genome starting from given values (a concolic run's inputs).
    fn from(holes: FilledHoles) -> Genome {
        Genome { holes }
    }
}

impl Genome {
    /// Changes one hole of `template`, chosen at random, in one of the ways
    /// its kind allows; false when the template has no holes.
    pub fn mutate(&mut self, template: &Template, constants: &Constants, rng: &mut Rng) -> bool {
        let holes = live_holes(template, self);
        let Some(hole) = rng.pick(&holes) else {
            return false;
        };
        let path = hole.path.clone();
        match &hole.kind {
            HoleKind::Primitive(base) => {
                let current = self.primitive(&path, *base);
                self.holes
                    .primitives
                    .insert(path, mutated_number(&current, *base, constants, rng));
            }
            HoleKind::Reference { nullable, choices } => {
                let roll = rng.below(10);
                if *nullable && (roll == 0 || choices.is_empty()) {
                    let null = !self.is_null(&path);
                    self.holes.nulls.insert(path, null);
                } else if choices.len() > 1 && roll <= 2 {
                    self.holes.nulls.insert(path.clone(), false);
                    self.holes.choices.insert(path, rng.below(choices.len()));
                } else if let Some(choice) = choices
                    .len()
                    .checked_sub(1)
                    .and_then(|last| choices.get(self.choice(&path).min(last)))
                {
                    self.holes.nulls.insert(path.clone(), false);
                    self.mutate_choice(&path, choice, constants, rng);
                }
            }
        }
        true
    }

    /// Gives every entry of each collection in use the choices of its first
    /// entry (by position: a map's keys one way, its values another), so
    /// that a collection holds one class of element, as its type argument
    /// asks: a `Map<K, V>` whose keys were an `Integer` and a `String`
    /// compiled only with raw types, and its test threw a
    /// `ClassCastException` no typed caller can cause.
    pub fn align_entries(&mut self, template: &Template) {
        let mut aligned = Vec::new();
        for hole in live_holes(template, self) {
            let HoleKind::Reference { choices, .. } = &hole.kind else {
                continue;
            };
            let Some(Choice::Collection { entries, .. }) = choices
                .len()
                .checked_sub(1)
                .map(|last| &choices[self.choice(&hole.path).min(last)])
            else {
                continue;
            };
            let Some((first, rest)) = entries.split_first() else {
                continue;
            };
            for entry in rest {
                for (model, other) in first.iter().zip(entry) {
                    aligned.push((model.path.clone(), other.path.clone()));
                }
            }
        }
        for (model, other) in aligned {
            let choice = self.choice(&model);
            self.holes.choices.insert(other, choice);
        }
    }

    /// Changes what the chosen way of filling hole `path` holds.
    fn mutate_choice(&mut self, path: &str, choice: &Choice, constants: &Constants, rng: &mut Rng) {
        match choice {
            Choice::Str => {
                let current = self.string(path, 0);
                self.holes
                    .strings
                    .insert(path.to_string(), mutated_string(current, constants, rng));
            }
            Choice::Boxed { base, .. } => {
                let current = self.holes.boxed(path, 0, *base);
                self.holes.boxed.insert(
                    path.to_string(),
                    mutated_number(&current, *base, constants, rng),
                );
            }
            Choice::Enum {
                constants: names, ..
            } => {
                self.holes
                    .ordinals
                    .insert(path.to_string(), rng.below(names.len().max(1)));
            }
            Choice::PrimitiveArray { element } => {
                let length = self.length(path);
                if rng.chance(0.5) || length == 0 {
                    self.holes
                        .lengths
                        .insert(path.to_string(), resized(length, MAX_LENGTH, rng));
                } else {
                    let index = rng.below(length as usize) as i32;
                    let current = self.element(path, index, *element);
                    self.holes.elements.insert(
                        (path.to_string(), index),
                        mutated_number(&current, *element, constants, rng),
                    );
                }
            }
            Choice::ReferenceArray { elements, .. } => {
                let length = self.length(path);
                self.holes
                    .lengths
                    .insert(path.to_string(), resized(length, elements.len(), rng));
            }
            Choice::Collection { place, entries, .. } => {
                // How many entries are added; what they hold is in their
                // own holes, mutated on their own.
                let length = self.length(place);
                self.holes
                    .lengths
                    .insert(place.clone(), resized(length, entries.len(), rng));
            }
            // What these build is in their own holes, mutated on their own.
            _ => {}
        }
    }

    /// Each gene from `self` or `other`, at even odds where both have it,
    /// from the one that has it otherwise (uniform crossover of two genomes
    /// of one template).
    pub fn crossover(&self, other: &Genome, rng: &mut Rng) -> Genome {
        let (a, b) = (&self.holes, &other.holes);
        Genome {
            holes: FilledHoles {
                primitives: mixed(&a.primitives, &b.primitives, rng),
                nulls: mixed(&a.nulls, &b.nulls, rng),
                choices: mixed(&a.choices, &b.choices, rng),
                strings: mixed(&a.strings, &b.strings, rng),
                boxed: mixed(&a.boxed, &b.boxed, rng),
                ordinals: mixed(&a.ordinals, &b.ordinals, rng),
                lengths: mixed(&a.lengths, &b.lengths, rng),
                elements: mixed(&a.elements, &b.elements, rng),
            },
        }
    }
}

fn mixed<K: Ord + Clone, V: Clone>(
    a: &BTreeMap<K, V>,
    b: &BTreeMap<K, V>,
    rng: &mut Rng,
) -> BTreeMap<K, V> {
    let mut out = BTreeMap::new();
    for key in a.keys().chain(b.keys()) {
        if out.contains_key(key) {
            continue;
        }
        let (first, second) = if rng.chance(0.5) { (a, b) } else { (b, a) };
        if let Some(value) = first.get(key).or_else(|| second.get(key)) {
            out.insert(key.clone(), value.clone());
        }
    }
    out
}

/// A length one step from `length` (or anywhere up to `max`), in `0..=max`.
fn resized(length: i32, max: usize, rng: &mut Rng) -> i32 {
    let max = max as i64;
    let next = match rng.below(3) {
        0 => i64::from(length) + 1,
        1 => i64::from(length) - 1,
        _ => rng.between(0, max),
    };
    next.clamp(0, max) as i32
}

/// `n` as a value of `base`, wrapped as Java narrows it.
fn whole(n: i64, base: BaseType) -> Value {
    match base {
        BaseType::Boolean => Value::Boolean { value: n & 1 == 1 },
        BaseType::Byte => Value::Byte { value: n as i8 },
        BaseType::Short => Value::Short { value: n as i16 },
        BaseType::Char => Value::Char { value: n as u16 },
        BaseType::Int => Value::Int { value: n as i32 },
        BaseType::Long => Value::Long { value: n },
        BaseType::Float => Value::float(n as f32),
        BaseType::Double => Value::double(n as f64),
    }
}

fn as_integer(value: &Value) -> i64 {
    match value {
        Value::Boolean { value } => i64::from(*value),
        Value::Byte { value } => i64::from(*value),
        Value::Short { value } => i64::from(*value),
        Value::Char { value } => i64::from(*value),
        Value::Int { value } => i64::from(*value),
        Value::Long { value } => *value,
        Value::Float { bits } => f32::from_bits(*bits) as i64,
        Value::Double { bits } => f64::from_bits(*bits) as i64,
        _ => 0,
    }
}

/// A number near `current`, a small one, a constant of the class, or a
/// boundary of its type.
fn mutated_number(current: &Value, base: BaseType, constants: &Constants, rng: &mut Rng) -> Value {
    if base == BaseType::Boolean {
        return Value::Boolean {
            value: as_integer(current) == 0,
        };
    }
    if matches!(base, BaseType::Float | BaseType::Double) {
        let now = match current {
            Value::Float { bits } => f64::from(f32::from_bits(*bits)),
            Value::Double { bits } => f64::from_bits(*bits),
            _ => 0.0,
        };
        let next = match rng.below(6) {
            0 | 1 => now + (rng.between(-100, 100) as f64) / 10.0,
            2 => rng.between(-100, 100) as f64,
            3 => rng.pick(&constants.doubles).copied().unwrap_or(0.0),
            4 => *rng
                .pick(&[0.0, -0.0, 1.0, -1.0, f64::NAN, f64::INFINITY])
                .unwrap_or(&0.0),
            _ => now * 2.0,
        };
        return match base {
            BaseType::Float => Value::float(next as f32),
            _ => Value::double(next),
        };
    }
    let now = as_integer(current);
    let (min, max) = match base {
        BaseType::Byte => (i64::from(i8::MIN), i64::from(i8::MAX)),
        BaseType::Short => (i64::from(i16::MIN), i64::from(i16::MAX)),
        BaseType::Char => (0, i64::from(u16::MAX)),
        BaseType::Int => (i64::from(i32::MIN), i64::from(i32::MAX)),
        _ => (i64::MIN, i64::MAX),
    };
    let next = match rng.below(8) {
        0..=2 => now.saturating_add(rng.between(-10, 10)),
        // A step of any power of two, up or down: a goal's distance far
        // off closes in few generations.
        7 => {
            let step = 1i64 << rng.below(if base == BaseType::Long { 62 } else { 30 });
            if rng.chance(0.5) {
                now.saturating_add(step)
            } else {
                now.saturating_sub(step)
            }
        }
        3 if base == BaseType::Char => rng.between(0x20, 0x7e),
        3 => rng.between(-100, 100),
        4 => rng.pick(&constants.integers).copied().unwrap_or(0),
        5 => *rng.pick(&[0, 1, -1, min, max]).unwrap_or(&0),
        _ => now.saturating_add(rng.between(-1, 1)),
    };
    whole(next.clamp(min, max), base)
}

/// A string one edit from `current` (a character inserted, removed,
/// replaced or moved a few code units up or down, which a call distance
/// rewards step by step), a constant of the class, one spliced in, or empty.
fn mutated_string(mut current: Vec<u16>, constants: &Constants, rng: &mut Rng) -> Vec<u16> {
    let printable = |rng: &mut Rng| rng.between(0x20, 0x7e) as u16;
    match rng.below(8) {
        6 if !current.is_empty() => {
            let at = rng.below(current.len());
            let step = 1u16 << rng.below(4);
            let unit = current[at];
            let moved = if rng.below(2) == 0 {
                unit.saturating_add(step)
            } else {
                unit.saturating_sub(step)
            };
            // ASCII stays readable: tab to tilde.
            current[at] = if unit <= 0x7e {
                moved.clamp(0x09, 0x7e)
            } else {
                moved
            };
        }
        7 => {
            if let Some(constant) = rng.pick(&constants.strings) {
                let at = rng.below(current.len() + 1);
                current.splice(at..at, constant.iter().copied());
                current.truncate(MAX_LENGTH.max(constant.len()));
            }
        }
        0 | 1 if current.len() < MAX_LENGTH => {
            let at = rng.below(current.len() + 1);
            let unit = printable(rng);
            current.insert(at, unit);
        }
        2 if !current.is_empty() => {
            current.remove(rng.below(current.len()));
        }
        3 if !current.is_empty() => {
            let at = rng.below(current.len());
            current[at] = printable(rng);
        }
        4 => {
            if let Some(constant) = rng.pick(&constants.strings) {
                current = constant.clone();
            }
        }
        5 => current.clear(),
        _ => {
            let unit = printable(rng);
            current.push(unit);
            current.truncate(MAX_LENGTH);
        }
    }
    current
}

#[cfg(test)]
mod tests {
    use testgen_construct::template::{Bounds, Hole};
    use testgen_exec::Statement;
    use testgen_project::{ClassName, MethodId};

    use super::*;

    fn template() -> Template {
        Template {
            target: MethodId::new(
                ClassName::internal("p/Rules"),
                "check",
                "(ILjava/lang/String;)Z",
            ),
            receiver: None,
            prefix: Vec::new(),
            args: vec![
                Hole {
                    path: "p0".into(),
                    kind: HoleKind::Primitive(BaseType::Int),
                },
                Hole {
                    path: "p1".into(),
                    kind: HoleKind::Reference {
                        nullable: true,
                        choices: vec![Choice::Str],
                    },
                },
            ],
            bounds: Bounds::default(),
        }
    }

    fn arguments(genome: &Genome) -> Vec<Value> {
        match &template().instantiate(genome).plan.statements[..] {
            [.., Statement::CallStatic { args, .. }] => args.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_genome_without_genes_makes_zero_and_an_empty_string() {
        assert_eq!(
            arguments(&Genome::default()),
            [Value::Int { value: 0 }, Value::string("")]
        );
    }

    #[test]
    fn mutations_are_seeded_valid_and_reach_every_hole() {
        let template = template();
        let constants = Constants {
            integers: vec![42],
            doubles: Vec::new(),
            strings: vec!["key".encode_utf16().collect()],
        };
        let run = |seed| {
            let mut rng = Rng::new(seed);
            let mut genome = Genome::default();
            let mut seen = Vec::new();
            for _ in 0..200 {
                assert!(genome.mutate(&template, &constants, &mut rng));
                seen.push(arguments(&genome));
            }
            (genome, seen)
        };
        let (genome, seen) = run(3);
        assert_eq!(genome, run(3).0, "the same seed mutates the same way");
        assert!(seen.iter().all(|args| matches!(args[0], Value::Int { .. })));
        assert!(seen.iter().any(|args| args[0] == Value::Int { value: 42 }));
        assert!(seen.iter().any(|args| args[1] == Value::Null));
        assert!(seen.iter().any(|args| args[1] == Value::string("key")));
        assert!(seen
            .iter()
            .any(|args| matches!(&args[1], Value::String { value } if value.java_length() > 1)));
    }

    #[test]
    fn a_hole_nothing_can_fill_is_left_as_it_is() {
        // A hole that may not be null and has no way to be built (an
        // entry of a collection of a type nothing makes).
        let mut template = template();
        template.args[1].kind = HoleKind::Reference {
            nullable: false,
            choices: Vec::new(),
        };
        let mut rng = Rng::new(1);
        let mut genome = Genome::default();
        for _ in 0..100 {
            assert!(genome.mutate(&template, &Constants::default(), &mut rng));
        }
        assert!(!genome.is_null("p1"));
    }

    #[test]
    fn every_entry_of_a_collection_takes_the_first_entrys_class() {
        let entry = |i: usize| {
            vec![Hole {
                path: format!("p1.c0.e{i}"),
                kind: HoleKind::Reference {
                    nullable: false,
                    choices: vec![
                        Choice::Str,
                        Choice::Boxed {
                            class: ClassName::internal("java/lang/Integer"),
                            base: BaseType::Int,
                        },
                    ],
                },
            }]
        };
        let mut template = template();
        template.args[1].kind = HoleKind::Reference {
            nullable: true,
            choices: vec![Choice::Collection {
                place: "p1.c0".into(),
                class: ClassName::internal("java/util/ArrayList"),
                add: MethodId::new(
                    ClassName::internal("java/util/ArrayList"),
                    "add",
                    "(Ljava/lang/Object;)Z",
                ),
                entries: vec![entry(0), entry(1)],
            }],
        };
        let mut genome = Genome::default();
        genome.holes.lengths.insert("p1.c0".into(), 2);
        genome.holes.choices.insert("p1.c0.e1".into(), 1);
        genome.align_entries(&template);
        assert_eq!(genome.choice("p1.c0.e1"), 0);
        genome.holes.choices.insert("p1.c0.e0".into(), 1);
        genome.align_entries(&template);
        assert_eq!(genome.choice("p1.c0.e1"), 1);
    }

    #[test]
    fn a_classs_constants_are_its_literals_once_each() {
        let classes = testgen_testkit::compile_fixture("explore");
        let read = |name: &str| {
            std::fs::read(classes.join(format!("fixtures/explore/{name}.class"))).unwrap()
        };
        let bytes = read("IntRules");
        let constants = Constants::of_class(&ClassFile::parse(&bytes).unwrap());
        // `grams < 1000` (sipush), `km < 100` (bipush)
        assert!(constants.integers.contains(&1000), "{constants:?}");
        assert!(constants.integers.contains(&100), "{constants:?}");
        assert!(constants.integers.windows(2).all(|w| w[0] < w[1]));
        let bytes = read("TextRules");
        let constants = Constants::of_class(&ClassFile::parse(&bytes).unwrap());
        let dots: Vec<u16> = "..".encode_utf16().collect();
        assert!(constants.strings.contains(&dots), "{constants:?}");
    }

    #[test]
    fn crossover_takes_each_gene_from_one_parent() {
        let template = template();
        let constants = Constants::default();
        let mut rng = Rng::new(9);
        let (mut a, mut b) = (Genome::default(), Genome::default());
        for _ in 0..20 {
            a.mutate(&template, &constants, &mut rng);
            b.mutate(&template, &constants, &mut rng);
        }
        let child = a.crossover(&b, &mut rng);
        let (a, b, child) = (&a.holes, &b.holes, &child.holes);
        for (hole, value) in &child.primitives {
            assert!(a.primitives.get(hole) == Some(value) || b.primitives.get(hole) == Some(value));
        }
        for (hole, value) in &child.strings {
            assert!(a.strings.get(hole) == Some(value) || b.strings.get(hole) == Some(value));
        }
    }

    #[test]
    fn values_captured_from_another_source_make_the_same_plan() {
        let template = template();
        let constants = Constants::default();
        let mut rng = Rng::new(5);
        let mut genome = Genome::default();
        for _ in 0..50 {
            genome.mutate(&template, &constants, &mut rng);
            let captured = Genome::from(FilledHoles::capture(&template, &genome));
            assert_eq!(
                template.instantiate(&captured).plan,
                template.instantiate(&genome).plan
            );
        }
    }
}
