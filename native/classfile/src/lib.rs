//! Reads JVM class files (JVMS chapter 4, Java 1.1 to 25) into a borrowed
//! model, and writes them back.
//!
//! [`ClassFile::parse`] reads the structure: constant pool, members and the
//! headers of their attributes. Everything costlier is decoded on demand from
//! the borrowed bytes: typed attributes ([`Attribute::parse`]), instructions
//! ([`Code::instructions`]), descriptors and generic signatures. Scanning a
//! jar therefore pays only for what it looks at.
//!
//! [`ClassFile::write`] and the other `write` methods ([`writer`]) encode the
//! model again: an unmodified class comes out byte for byte as it went in.
//!
//! Architecture invariants:
//! - No panics and no unbounded allocation on any input: every read is bounds
//!   checked and every allocation sized from a count is capped by the bytes
//!   that remain (see [`reader::Reader::counted`]).
//! - Lossless: the model keeps every byte's meaning (constant pool order and
//!   encodings, opcode choices such as `ldc` vs `ldc_w`, unknown attributes as
//!   raw bytes), so that a writer can reproduce the input exactly.
//! - No I/O: input is a byte slice.

pub mod access;
pub mod attribute;
mod check;
pub mod class;
pub mod code;
pub mod constant_pool;
pub mod descriptor;
pub mod error;
pub mod instruction;
pub mod mutf8;
pub mod reader;
pub mod signature;
pub mod stack_map;
pub mod writer;

pub use access::{AccessContext, AccessFlags};
pub use attribute::{Attribute, AttributeInfo, Code};
pub use class::{ClassFile, Member};
pub use constant_pool::{Constant, ConstantPool, MemberRef};
pub use descriptor::{FieldType, MethodDescriptor};
pub use error::{ErrorKind, ParseError, Result};
pub use instruction::{Instruction, Instructions, Opcodes, Operands};
pub use writer::{ByteWriter, WriteError};
