//! Every class of every jar under /usr/share/java writes back byte for byte,
//! at three levels: the whole class (`ClassFile::write`), every attribute
//! from its typed form (`AttributeInfo::write_info`) and every instruction
//! (`Instruction::encode`).
//!
//! The instruction model leaves out bytes the JVMS fixes (switch padding,
//! the zero operand bytes of `invokeinterface` and `invokedynamic`), which
//! old compilers did not always write as zeros. Instructions that differ only
//! there are counted apart, by reason, and printed; everything else must
//! match.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use testgen_classfile::instruction::opcode;
use testgen_classfile::{Attribute, AttributeInfo, ByteWriter, ClassFile, Code, Instruction};

/// How many examples of each kind of difference to print.
const EXAMPLES: usize = 5;

#[derive(Default)]
struct Tally {
    jars: usize,
    classes: usize,
    attributes: usize,
    /// How many attributes of each name were checked, to show coverage.
    attribute_names: BTreeMap<String, usize>,
    instructions: usize,
    /// Unexpected: reading failures and mismatches, by kind.
    failures: Differences,
    /// Instructions whose only difference is in bytes the model leaves out.
    unmodelled: Differences,
}

/// Count and first examples per kind.
#[derive(Default)]
struct Differences(BTreeMap<&'static str, (usize, Vec<String>)>);

impl Differences {
    fn add(&mut self, kind: &'static str, example: impl FnOnce() -> String) {
        let (count, examples) = self.0.entry(kind).or_default();
        *count += 1;
        if examples.len() < EXAMPLES {
            examples.push(example());
        }
    }

    fn merge(&mut self, other: Differences) {
        for (kind, (count, examples)) in other.0 {
            let (total, kept) = self.0.entry(kind).or_default();
            *total += count;
            kept.extend(examples);
            kept.truncate(EXAMPLES);
        }
    }

    fn total(&self) -> usize {
        self.0.values().map(|(count, _)| count).sum()
    }

    fn report(&self) -> String {
        self.0
            .iter()
            .map(|(kind, (count, examples))| {
                format!("  {count} x {kind}, e.g.\n    {}", examples.join("\n    "))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.jars += other.jars;
        self.classes += other.classes;
        self.attributes += other.attributes;
        for (name, count) in other.attribute_names {
            *self.attribute_names.entry(name).or_default() += count;
        }
        self.instructions += other.instructions;
        self.failures.merge(other.failures);
        self.unmodelled.merge(other.unmodelled);
        self
    }
}

#[test]
fn every_class_under_usr_share_java_writes_back_byte_for_byte() {
    let started = Instant::now();
    let jars = support::jars_under(Path::new("/usr/share/java"));
    assert!(
        jars.len() >= 100,
        "only {} jars under /usr/share/java; run scripts/setup.sh",
        jars.len()
    );
    let tally = jars
        .par_iter()
        .map(|jar| {
            let mut tally = Tally {
                jars: 1,
                ..Tally::default()
            };
            match support::jar_classes(jar) {
                Err(error) => tally
                    .failures
                    .add("unreadable jar", || format!("{}: {error}", jar.display())),
                Ok(classes) => {
                    for (name, bytes) in &classes {
                        let location = format!("{}!/{name}", jar.display());
                        check_class(&location, bytes, &mut tally);
                    }
                }
            }
            tally
        })
        .reduce(Tally::default, Tally::merge);

    tally.print("/usr/share/java", started);
    assert!(
        tally.classes >= 10_000,
        "suspiciously few classes: {}",
        tally.classes
    );
    tally.assert_no_failures();
}

/// The jars above are Java 11 at the newest; javac 17 output adds records,
/// sealed classes and the attributes that go with them.
#[test]
fn every_fixture_class_writes_back_byte_for_byte() {
    let started = Instant::now();
    let mut tally = Tally::default();
    for (name, bytes) in support::fixture_classes() {
        check_class(&name, &bytes, &mut tally);
    }
    tally.print("fixtures", started);
    for name in [
        "Record",
        "PermittedSubclasses",
        "MethodParameters",
        "NestMembers",
        "BootstrapMethods",
    ] {
        assert!(
            tally.attribute_names.contains_key(name),
            "no {name} attribute among the fixtures"
        );
    }
    tally.assert_no_failures();
}

impl Tally {
    fn print(&self, corpus: &str, started: Instant) {
        let jars = match self.jars {
            0 => String::new(),
            jars => format!("{jars} jars, "),
        };
        println!(
            "round trip of {corpus}: {jars}{} classes, {} attributes, {} instructions checked; \
             {} mismatches, {} instructions differing only in unmodelled bytes; {:.1} s",
            self.classes,
            self.attributes,
            self.instructions,
            self.failures.total(),
            self.unmodelled.total(),
            started.elapsed().as_secs_f64()
        );
        let names: Vec<String> = self
            .attribute_names
            .iter()
            .map(|(name, count)| format!("{name} {count}"))
            .collect();
        println!("attributes checked by name: {}", names.join(", "));
        if self.unmodelled.total() > 0 {
            println!(
                "instructions differing only in bytes the model leaves out:\n{}",
                self.unmodelled.report()
            );
        }
    }

    fn assert_no_failures(&self) {
        assert!(
            self.failures.total() == 0,
            "mismatches:\n{}",
            self.failures.report()
        );
    }
}

fn check_class(location: &str, bytes: &[u8], tally: &mut Tally) {
    let class = match ClassFile::parse(bytes) {
        Ok(class) => class,
        Err(error) => {
            tally
                .failures
                .add("class does not parse", || format!("{location}: {error}"));
            return;
        }
    };
    tally.classes += 1;
    let written = class.write();
    if written != bytes {
        tally.failures.add("class written differently", || {
            format!(
                "{location}: first difference at byte {:#x}",
                first_difference(&written, bytes)
            )
        });
    }
    let members = class.fields.iter().chain(&class.methods);
    for attributes in std::iter::once(&class.attributes).chain(members.map(|m| &m.attributes)) {
        check_attributes(&class, attributes, location, tally);
    }
}

/// Checks each attribute and, recursively, the attributes and instructions
/// inside Code and Record.
fn check_attributes(
    class: &ClassFile<'_>,
    attributes: &[Attribute<'_>],
    location: &str,
    tally: &mut Tally,
) {
    for attribute in attributes {
        tally.attributes += 1;
        let name = attribute.name(class).unwrap_or_default();
        *tally.attribute_names.entry(name.to_string()).or_default() += 1;
        let info = match attribute.parse(class) {
            Ok(info) => info,
            Err(error) => {
                tally.failures.add("attribute does not parse", || {
                    format!("{location}: {name}: {error}")
                });
                continue;
            }
        };
        let mut out = ByteWriter::new();
        match info.write_info(&mut out, class.has_old_code_layout()) {
            Err(error) => tally.failures.add("attribute cannot be written", || {
                format!("{location}: {name}: {error}")
            }),
            Ok(()) if out.as_slice() != attribute.info => {
                tally.failures.add("attribute written differently", || {
                    format!(
                        "{location}: {name} at {:#x}: first difference at byte {:#x} of its content",
                        attribute.offset,
                        first_difference(out.as_slice(), attribute.info)
                    )
                })
            }
            Ok(()) => {}
        }
        match &info {
            AttributeInfo::Code(code) => {
                check_instructions(code, location, tally);
                check_attributes(class, &code.attributes, location, tally);
            }
            AttributeInfo::Record(components) => {
                for component in components {
                    check_attributes(class, &component.attributes, location, tally);
                }
            }
            _ => {}
        }
    }
}

/// Encodes the instructions one after the other into a fresh code array, so
/// that each sits at its original offset (switch padding depends on it), and
/// compares each with the bytes it was decoded from.
fn check_instructions(code: &Code<'_>, location: &str, tally: &mut Tally) {
    let mut encoded = Vec::with_capacity(code.bytecode.len());
    for instruction in code.instructions() {
        let instruction = match instruction {
            Ok(instruction) => instruction,
            Err(error) => {
                tally.failures.add("instruction does not decode", || {
                    format!("{location}: {error}")
                });
                return;
            }
        };
        tally.instructions += 1;
        let start = instruction.offset as usize;
        let original = &code.bytecode[start..start + instruction.len() as usize];
        let describe = || {
            format!(
                "{location}: {} at {:#x} in the file: {original:02x?}",
                instruction.name(),
                code.bytecode_offset + start
            )
        };
        match instruction.encode(&mut encoded) {
            Err(error) => tally.failures.add("instruction cannot be encoded", || {
                format!("{}: {error}", describe())
            }),
            Ok(()) if encoded[start..] == *original => continue,
            Ok(()) => {
                let written = &encoded[start..];
                match unmodelled_difference(&instruction, original, written) {
                    Some(reason) => tally.unmodelled.add(reason, || {
                        format!("{} written as {written:02x?}", describe())
                    }),
                    None => tally.failures.add("instruction encoded differently", || {
                        format!("{} written as {written:02x?}", describe())
                    }),
                }
            }
        }
        // Whatever was written, carry on from the original bytes, so that
        // the next instruction is encoded at its own offset.
        encoded.truncate(start);
        encoded.extend_from_slice(original);
    }
}

/// Why `written` differs from `original`, if it differs only in bytes that
/// the JVMS fixes and the instruction model therefore leaves out.
fn unmodelled_difference(
    instruction: &Instruction<'_>,
    original: &[u8],
    written: &[u8],
) -> Option<&'static str> {
    if original.len() != written.len() {
        return None;
    }
    // Indices into the instruction's bytes, and the reason they may differ.
    let (ignored, reason) = match instruction.opcode {
        opcode::TABLESWITCH | opcode::LOOKUPSWITCH => {
            let padding = 3 - instruction.offset as usize % 4;
            (1..1 + padding, "non-zero switch padding")
        }
        opcode::INVOKEINTERFACE => (4..5, "non-zero fourth operand byte of invokeinterface"),
        opcode::INVOKEDYNAMIC => (3..5, "non-zero reserved operand bytes of invokedynamic"),
        _ => return None,
    };
    let same_elsewhere = original
        .iter()
        .zip(written)
        .enumerate()
        .all(|(index, (a, b))| a == b || ignored.contains(&index));
    same_elsewhere.then_some(reason)
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}
