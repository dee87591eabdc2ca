//! The one error type of the analyses.

use testgen_classfile::ParseError;

/// Why a method or class could not be analysed.
///
/// Offsets are code offsets (relative to the start of the method's
/// bytecode), as `javap -c` prints them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalysisError {
    /// The class file itself is broken (a bad constant, undecodable code).
    #[error(transparent)]
    ClassFile(#[from] ParseError),
    /// A Code attribute without instructions, which no verifier accepts.
    #[error("the method's code is empty")]
    EmptyCode,
    /// A branch or switch whose target is not the start of an instruction.
    #[error("the instruction at {at} jumps to {target}, which is not an instruction")]
    BadBranchTarget { at: u32, target: i64 },
    /// Execution would run past the last instruction.
    #[error("control falls off the end of the code after the instruction at {at}")]
    FallsOffEnd { at: u32 },
    /// An exception table row whose range or handler does not sit on
    /// instruction boundaries, or whose range is empty.
    #[error(
        "exception table row {row} (from {start_pc} to {end_pc}, handler {handler_pc}) \
         does not cover whole instructions"
    )]
    BadExceptionRange {
        row: usize,
        start_pc: u16,
        end_pc: u16,
        handler_pc: u16,
    },
    /// One method of a class failed; `source` says why.
    #[error("method {name}{descriptor}: {source}")]
    Method {
        name: String,
        descriptor: String,
        source: Box<AnalysisError>,
    },
}

impl AnalysisError {
    /// Wraps `self` with the method it happened in.
    pub(crate) fn in_method(self, name: &str, descriptor: &str) -> Self {
        AnalysisError::Method {
            name: name.to_owned(),
            descriptor: descriptor.to_owned(),
            source: Box::new(self),
        }
    }
}

pub type Result<T, E = AnalysisError> = std::result::Result<T, E>;
