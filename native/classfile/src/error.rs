//! The one error type of the reader: what went wrong and at which byte.

use std::fmt;

/// A class file (or a part of one) that does not follow JVMS chapter 4.
///
/// [`ParseError::offset`] is the byte offset in the class file where reading
/// failed, so a message can point at the exact spot (`xxd -s OFFSET` shows
/// it). The details are boxed: every `Result` of the reader then stays small,
/// which matters on the hot path, and errors are rare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(Box<Details>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Details {
    offset: usize,
    kind: ErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ErrorKind {
    #[error("unexpected end of data: needed {needed} more bytes")]
    UnexpectedEnd { needed: usize },
    #[error("bad magic number {0:#010x} (a class file starts with 0xcafebabe)")]
    BadMagic(u32),
    #[error("unsupported class file version {major}.{minor}")]
    UnsupportedVersion { major: u16, minor: u16 },
    #[error("unknown constant pool tag {0}")]
    UnknownConstantTag(u8),
    #[error("constant pool index {index} is out of range (the pool has {count} slots)")]
    ConstantIndexOutOfRange { index: u16, count: u16 },
    #[error("constant pool entry {index} is {found}, expected {expected}")]
    WrongConstant {
        index: u16,
        expected: &'static str,
        found: &'static str,
    },
    #[error("attribute {name} has {left} bytes left over after its content")]
    AttributeTrailingBytes { name: &'static str, left: usize },
    #[error("{0} bytes of data after the end of the class file")]
    TrailingBytes(usize),
    #[error("unknown opcode {0:#04x}")]
    UnknownOpcode(u8),
    #[error("wide prefix before opcode {0:#04x}, which cannot be widened")]
    BadWideOpcode(u8),
    #[error("tableswitch with low {low} greater than high {high}")]
    BadTableSwitch { low: i32, high: i32 },
    #[error("lookupswitch with negative pair count {0}")]
    BadLookupSwitch(i32),
    #[error("unknown stack map frame type {0}")]
    UnknownFrameType(u8),
    #[error("unknown verification type tag {0}")]
    UnknownVerificationType(u8),
    #[error("invalid {what} {text:?}: {reason}")]
    BadSignature {
        what: &'static str,
        text: String,
        reason: &'static str,
    },
    #[error("bad modified UTF-8 in constant pool entry {0}")]
    BadUtf8(u16),
    #[error("{0}")]
    Invalid(&'static str),
}

impl ParseError {
    #[cold]
    pub fn new(offset: usize, kind: ErrorKind) -> Self {
        ParseError(Box::new(Details { offset, kind }))
    }

    /// Byte offset in the class file where reading failed.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {:#x})", self.0.kind, self.0.offset)
    }
}

impl std::error::Error for ParseError {}

pub type Result<T, E = ParseError> = std::result::Result<T, E>;
