//! The Code attribute (JVMS 4.7.3): a method's bytecode, its exception table
//! and its own attributes (line numbers, local variables, stack map frames).

use crate::attribute::{Attribute, AttributeInfo};
use crate::class::ClassFile;
use crate::error::Result;
use crate::instruction::{Instructions, Opcodes};
use crate::reader::Reader;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Code<'a> {
    pub max_stack: u16,
    pub max_locals: u16,
    /// The bytecode; instruction offsets are relative to its start.
    pub bytecode: &'a [u8],
    /// File offset of `bytecode[0]`.
    pub bytecode_offset: usize,
    pub exception_table: Vec<ExceptionHandler>,
    pub attributes: Vec<Attribute<'a>>,
}

/// One row of the exception table: `handler_pc` catches `catch_type`
/// (0 = any, as for `finally`) thrown between `start_pc` and `end_pc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExceptionHandler {
    pub start_pc: u16,
    pub end_pc: u16,
    pub handler_pc: u16,
    pub catch_type: u16,
}

impl<'a> Code<'a> {
    pub(crate) fn parse(reader: &mut Reader<'a>, class: &ClassFile<'a>) -> Result<Self> {
        let (max_stack, max_locals, code_length) = if class.has_old_code_layout() {
            (
                u16::from(reader.u8()?),
                u16::from(reader.u8()?),
                reader.u16()? as usize,
            )
        } else {
            (reader.u16()?, reader.u16()?, reader.u32()? as usize)
        };
        let bytecode_offset = reader.offset();
        let bytecode = reader.take(code_length)?;
        let exception_table = reader.counted(8, |r| {
            Ok(ExceptionHandler {
                start_pc: r.u16()?,
                end_pc: r.u16()?,
                handler_pc: r.u16()?,
                catch_type: r.u16()?,
            })
        })?;
        let attributes = Attribute::parse_list(reader)?;
        Ok(Code {
            max_stack,
            max_locals,
            bytecode,
            bytecode_offset,
            exception_table,
            attributes,
        })
    }

    /// Decodes the bytecode one instruction at a time; stops after the first
    /// error.
    pub fn instructions(&self) -> Instructions<'a> {
        Instructions::new(self.bytecode, self.bytecode_offset)
    }

    /// Offsets and opcodes only; cheaper than [`Code::instructions`] when
    /// the operands do not matter.
    pub fn opcodes(&self) -> Opcodes<'a> {
        Opcodes::new(self.bytecode, self.bytecode_offset)
    }

    /// The typed form of this Code's attribute called `name`, if present.
    pub fn attribute(
        &self,
        class: &ClassFile<'a>,
        name: &str,
    ) -> Result<Option<AttributeInfo<'a>>> {
        for attribute in &self.attributes {
            if attribute.is_named(class, name)? {
                return attribute.parse(class).map(Some);
            }
        }
        Ok(None)
    }
}
