//! One small change to one method's code, laid out the way probes are: the
//! instructions a mutant inserts before an instruction or puts in its place
//! (`pop; iconst_0` before an `ireturn`, `pop; pop` for a removed call).
//!
//! The same rules as for probes keep the class valid: what is inserted
//! neither jumps nor is jumped to (a jump to the edited instruction lands on
//! what was inserted before it), so the stack map frames only move.

use testgen_classfile::instruction::Instruction;
use testgen_classfile::ClassFile;

use crate::plan::{MethodPlan, Patch, Snippet};
use crate::pool::PoolExtension;
use crate::relocate::Relocator;
use crate::{write_class, InstrumentError};

/// An instruction an edit inserts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inserted {
    /// One byte without operands that neither jumps nor reads the constant
    /// pool (`pop`, `pop2`, `iconst_0`, `lconst_0`, `aconst_null`, ...).
    Opcode(u8),
    /// `ldc_w ""`: the empty string.
    EmptyString,
}

/// Where and what: the method by its index in the class's `methods`, the
/// instruction by its offset in that method's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeEdit {
    pub method: usize,
    pub offset: u32,
    /// Run before the instruction, on every path into it.
    pub before: Vec<Inserted>,
    /// Runs in place of the instruction, when given.
    pub replacement: Option<Vec<Inserted>>,
}

/// Why an edit could not be made.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error(transparent)]
    Class(#[from] InstrumentError),
    #[error("the class has no method {0} with code")]
    NoSuchMethod(usize),
    #[error("offset {0} does not start an instruction")]
    NoSuchInstruction(u32),
    #[error("the edited method cannot be laid out: {0}")]
    Layout(String),
}

impl From<testgen_classfile::ParseError> for EditError {
    fn from(error: testgen_classfile::ParseError) -> Self {
        EditError::Class(InstrumentError::Parse(error))
    }
}

/// The class in `bytes` with `edit` made; every other method is copied as
/// it was.
pub fn edit_code(bytes: &[u8], edit: &CodeEdit) -> Result<Vec<u8>, EditError> {
    let class = ClassFile::parse(bytes)?;
    let method = class
        .methods
        .get(edit.method)
        .ok_or(EditError::NoSuchMethod(edit.method))?;
    let code = method
        .code(&class)?
        .ok_or(EditError::NoSuchMethod(edit.method))?;
    let instructions: Vec<Instruction<'_>> = code.instructions().collect::<Result<_, _>>()?;
    let target = instructions
        .iter()
        .position(|instruction| instruction.offset == edit.offset)
        .ok_or(EditError::NoSuchInstruction(edit.offset))?;

    let mut pool = PoolExtension::new(class.constant_pool.len() as u16);
    let mut snippets = |inserted: &[Inserted]| -> Result<Vec<Snippet>, EditError> {
        inserted
            .iter()
            .map(|&inserted| match inserted {
                Inserted::Opcode(opcode) => Ok(Snippet::Opcode(opcode)),
                Inserted::EmptyString => pool
                    .empty_string()
                    .map(Snippet::LdcW)
                    .map_err(|_| EditError::Class(InstrumentError::PoolFull)),
            })
            .collect()
    };
    let mut patches = vec![Patch::default(); instructions.len()];
    patches[target].before = snippets(&edit.before)?;
    patches[target].replacement = edit.replacement.as_deref().map(&mut snippets).transpose()?;
    let plan = MethodPlan {
        head: Vec::new(),
        patches,
    };
    let new_code = Relocator::new(&code, &instructions, &plan)
        .rewrite(&class, &code)
        .map_err(|unsafe_| EditError::Layout(unsafe_.0))?;
    let mut codes: Vec<_> = (0..class.methods.len()).map(|_| None).collect();
    codes[edit.method] = Some(new_code);
    Ok(write_class(&class, &pool, &codes)?)
}
