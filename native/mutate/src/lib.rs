//! Mutants of a class: the class with one small fault, the kind a person
//! makes (a `<` that should be `<=`, a `+` that should be `-`, a call left
//! out). A generated test that fails on a mutant would catch that fault;
//! the share of mutants the tests catch says how much their assertions are
//! worth, which coverage does not.
//!
//! [`mutations`] lists every mutation of a class's methods, in method and
//! offset order; [`apply`] makes one. Besides PIT's default operators, a
//! removed field write stands for the missing reset or update, a fault
//! the others cannot seed. The standard operators (those of PIT
//! and of the mutation-testing literature) are [`Operator`]s; which
//! instruction each one changes and into what is in `operators.rs`.
//!
//! Invariants: a mutant differs from the class in one instruction (and, for
//! a replaced return value or a removed call, the few stack-neutral
//! instructions that go with it), so its stack map frames stay valid; the
//! JVM still verifies each one before a test runs against it (the caller's
//! job: this crate does no I/O). Output is deterministic.

mod operators;

use serde::{Deserialize, Serialize};
use testgen_classfile::{ClassFile, ParseError};
use testgen_probes::edit::{edit_code, CodeEdit, EditError, Inserted};

pub use operators::mutations_of_method;

/// The kinds of fault a mutant seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Operator {
    /// A condition negated: `==` for `!=`, `<` for `>=`, null for non-null.
    NegateConditional,
    /// A boundary shifted: `<` for `<=`, `>` for `>=` and back.
    ConditionalBoundary,
    /// An arithmetic or bitwise operator replaced: `+` and `-`, `*` and
    /// `/`, `%` for `*`, `&` and `|`, `^` for `&`, shifts for each other.
    Math,
    /// A constant changed: 0 and 1 for each other, any other by one.
    InlineConstant,
    /// An increment negated: `i++` for `i--`, `i += 2` for `i -= 2`.
    Increment,
    /// A returned value replaced: 0, `false`/`true`, `null`, `""`.
    ReturnValue,
    /// A call of a method that returns nothing removed.
    VoidCall,
    /// A write of a field removed: a reset or an update that never happens.
    FieldWrite,
}

impl Operator {
    /// The name used in reports (`negate_conditional`).
    pub fn name(self) -> &'static str {
        match self {
            Operator::NegateConditional => "negate_conditional",
            Operator::ConditionalBoundary => "conditional_boundary",
            Operator::Math => "math",
            Operator::InlineConstant => "inline_constant",
            Operator::Increment => "increment",
            Operator::ReturnValue => "return_value",
            Operator::VoidCall => "void_call",
            Operator::FieldWrite => "field_write",
        }
    }
}

/// How the instruction changes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The opcode becomes another with the same operands (`iflt` ->
    /// `ifle`, `iadd` -> `isub`, `iconst_0` -> `iconst_1`).
    Opcode(u8),
    /// The value operand of `bipush`, `sipush` or `iinc` becomes another.
    Operand(i16),
    /// Instructions inserted before it or put in its place.
    Edit {
        before: Vec<Inserted>,
        replacement: Option<Vec<Inserted>>,
    },
}

/// One mutant, described; [`apply`] makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutation {
    /// Index of the method in the class's `methods`.
    pub method_index: usize,
    pub method_name: String,
    pub descriptor: String,
    /// Offset of the changed instruction in the method's code.
    pub offset: u32,
    /// Its source line; 0 when the class has no line numbers.
    pub line: u32,
    pub operator: Operator,
    pub change: Change,
    /// What changed, for a person: `< became <=`, `removed call to log`.
    pub description: String,
}

/// Why a mutant could not be made.
#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    #[error("cannot read the class: {0}")]
    Parse(#[from] ParseError),
    #[error("the mutation does not fit the class: {0}")]
    Mismatch(String),
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// Every mutation of the methods of the class in `bytes` that tests can
/// reach: not abstract, native, synthetic or bridge methods, nor the static
/// initialiser (it runs once per class loader, before any test's choices).
pub fn mutations(bytes: &[u8]) -> Result<Vec<Mutation>, ParseError> {
    use testgen_classfile::AccessFlags;
    let class = ClassFile::parse(bytes)?;
    let mut all = Vec::new();
    for (index, method) in class.methods.iter().enumerate() {
        let flags = method.access_flags;
        if flags.contains(AccessFlags::SYNTHETIC) || flags.contains(AccessFlags::BRIDGE) {
            continue;
        }
        if method.name(&class)? == "<clinit>" {
            continue;
        }
        let Some(code) = method.code(&class)? else {
            continue;
        };
        all.extend(mutations_of_method(&class, index, &code)?);
    }
    Ok(all)
}

/// The class in `bytes` with `mutation` made.
pub fn apply(bytes: &[u8], mutation: &Mutation) -> Result<Vec<u8>, MutateError> {
    match &mutation.change {
        Change::Opcode(_) | Change::Operand(_) => patch_in_place(bytes, mutation),
        Change::Edit {
            before,
            replacement,
        } => Ok(edit_code(
            bytes,
            &CodeEdit {
                method: mutation.method_index,
                offset: mutation.offset,
                before: before.clone(),
                replacement: replacement.clone(),
            },
        )?),
    }
}

/// Changes of the same length are made on a copy of the bytes: nothing
/// moves, so nothing else needs rewriting.
fn patch_in_place(bytes: &[u8], mutation: &Mutation) -> Result<Vec<u8>, MutateError> {
    let class = ClassFile::parse(bytes)?;
    let mismatch =
        |what: &str| MutateError::Mismatch(format!("{what} at offset {}", mutation.offset));
    let code = class
        .methods
        .get(mutation.method_index)
        .ok_or_else(|| mismatch("no such method"))?
        .code(&class)?
        .ok_or_else(|| mismatch("no code"))?;
    let instruction = code
        .instructions()
        .find(|instruction| {
            instruction
                .as_ref()
                .map_or(true, |instruction| instruction.offset == mutation.offset)
        })
        .ok_or_else(|| mismatch("no instruction"))??;
    let at = code.bytecode_offset + mutation.offset as usize;
    let mut mutant = bytes.to_vec();
    // A `wide` instruction's opcode follows the prefix.
    let opcode_at = at + usize::from(instruction.wide);
    match mutation.change {
        Change::Opcode(opcode) => mutant[opcode_at] = opcode,
        Change::Operand(value) => {
            use testgen_classfile::instruction::{opcode as op, Operands};
            match (instruction.opcode, instruction.operands) {
                (op::BIPUSH, Operands::Byte(_)) => {
                    let byte = i8::try_from(value).map_err(|_| mismatch("bipush value"))?;
                    mutant[at + 1] = byte as u8;
                }
                (op::SIPUSH, Operands::Short(_)) => {
                    mutant[at + 1..at + 3].copy_from_slice(&value.to_be_bytes());
                }
                (op::IINC, Operands::Iinc { .. }) if instruction.wide => {
                    // wide iinc: index (2 bytes) then delta (2 bytes).
                    mutant[at + 4..at + 6].copy_from_slice(&value.to_be_bytes());
                }
                (op::IINC, Operands::Iinc { .. }) => {
                    let byte = i8::try_from(value).map_err(|_| mismatch("iinc delta"))?;
                    mutant[at + 2] = byte as u8;
                }
                _ => return Err(mismatch("no operand to change")),
            }
        }
        Change::Edit { .. } => unreachable!("edits are not patched in place"),
    }
    Ok(mutant)
}
