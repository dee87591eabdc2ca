//! The Code attribute (JVMS 4.7.3): a method's bytecode, its exception table
//! and its own attributes (line numbers, local variables, stack map frames).

use crate::attribute::{Attribute, AttributeInfo, LineNumber};
use crate::class::ClassFile;
use crate::error::Result;
use crate::instruction::{Instructions, Opcodes};
use crate::reader::Reader;
use crate::writer::{u16_length, u32_length, ByteWriter, WriteError};

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

    /// Writes the attribute's content: sizes, the bytecode as stored, the
    /// exception table and the attributes (raw). `old_code_layout` is
    /// [`ClassFile::has_old_code_layout`]: Java 1.0.2 class files have
    /// one-byte `max_stack` and `max_locals` and a two-byte `code_length`.
    /// On error `out` is left as it was.
    ///
    /// Only the fields' sizes are checked: the JVM's own limits (code under
    /// 64 KiB in every layout) are for the verifier to enforce.
    pub fn write_info(
        &self,
        out: &mut ByteWriter,
        old_code_layout: bool,
    ) -> Result<(), WriteError> {
        out.atomic(|out| {
            if old_code_layout {
                out.u8(old_layout_size("max_stack", self.max_stack)?);
                out.u8(old_layout_size("max_locals", self.max_locals)?);
                out.u16(u16_length("code", self.bytecode.len())?);
            } else {
                out.u16(self.max_stack);
                out.u16(self.max_locals);
                out.u32(u32_length("code", self.bytecode.len())?);
            }
            out.bytes(self.bytecode);
            out.u16_rows(
                "exception handlers",
                &self.exception_table,
                ExceptionHandler::write,
            )?;
            Attribute::write_list(&self.attributes, out)
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
        crate::class::find_attribute(class, &self.attributes, name)
    }

    /// The source lines of the code, from its `LineNumberTable` (none when
    /// the class was compiled without line numbers or the table is bad).
    pub fn line_numbers(&self, class: &ClassFile<'a>) -> LineNumbers {
        match self.attribute(class, "LineNumberTable") {
            Ok(Some(AttributeInfo::LineNumberTable(lines))) => LineNumbers(lines),
            _ => LineNumbers(Vec::new()),
        }
    }
}

/// A method's `LineNumberTable`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineNumbers(Vec<LineNumber>);

impl LineNumbers {
    /// The source line of the instruction at `offset`: that of the last
    /// entry starting at or before it; 0 when no entry does.
    pub fn line_at(&self, offset: u32) -> u32 {
        self.0
            .iter()
            .filter(|l| u32::from(l.start_pc) <= offset)
            .max_by_key(|l| l.start_pc)
            .map_or(0, |l| u32::from(l.line_number))
    }
}

impl ExceptionHandler {
    pub fn write(&self, out: &mut ByteWriter) {
        out.u16(self.start_pc);
        out.u16(self.end_pc);
        out.u16(self.handler_pc);
        out.u16(self.catch_type);
    }
}

/// `max_stack` or `max_locals` in the one-byte field of the old layout.
fn old_layout_size(what: &'static str, value: u16) -> Result<u8, WriteError> {
    u8::try_from(value).map_err(|_| WriteError::TooLarge {
        what,
        value: value.into(),
        max: u8::MAX.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instruction::opcode::{ICONST_1, ISTORE_0, RETURN};

    fn code(max_stack: u16, max_locals: u16, bytecode: &[u8]) -> Code<'_> {
        Code {
            max_stack,
            max_locals,
            bytecode,
            bytecode_offset: 0,
            exception_table: vec![ExceptionHandler {
                start_pc: 0,
                end_pc: 2,
                handler_pc: 2,
                catch_type: 9,
            }],
            attributes: vec![Attribute {
                name_index: 4,
                info: &[0xab],
                offset: 0,
            }],
        }
    }

    fn written(code: &Code<'_>, old_code_layout: bool) -> Result<Vec<u8>, WriteError> {
        let mut out = ByteWriter::new();
        code.write_info(&mut out, old_code_layout)?;
        Ok(out.into_bytes())
    }

    #[test]
    fn the_two_layouts_differ_only_in_the_size_fields() {
        let bytecode = [ICONST_1, ISTORE_0, RETURN];
        let code = code(1, 2, &bytecode);
        #[rustfmt::skip]
        let tail = [
            ICONST_1, ISTORE_0, RETURN,
            0, 1, 0, 0, 0, 2, 0, 2, 0, 9, // one handler
            0, 1, 0, 4, 0, 0, 0, 1, 0xab, // one attribute, raw
        ];
        let current = [&[0, 1, 0, 2, 0, 0, 0, 3][..], &tail].concat();
        let old = [&[1, 2, 0, 3][..], &tail].concat();
        assert_eq!(written(&code, false).unwrap(), current);
        assert_eq!(written(&code, true).unwrap(), old);
    }

    #[test]
    fn what_the_old_layout_cannot_hold_is_an_error() {
        let bytecode = [RETURN];
        let cases = [
            (code(300, 0, &bytecode), "max_stack", 300),
            (code(0, 256, &bytecode), "max_locals", 256),
        ];
        for (code, what, value) in cases {
            let mut out = ByteWriter::new();
            assert_eq!(
                code.write_info(&mut out, true),
                Err(WriteError::TooLarge {
                    what,
                    value,
                    max: 255
                })
            );
            assert!(out.is_empty(), "a failed write leaves nothing");
            // The current layout has room for both.
            written(&code, false).unwrap();
        }

        let long = vec![RETURN; 65_536];
        assert_eq!(
            written(&code(1, 1, &long), true),
            Err(WriteError::TooLong {
                what: "code",
                len: 65_536,
                max: 65_535
            })
        );
        // Sizes, 65535 bytes of code, one handler, one attribute.
        let just_fits = written(&code(1, 1, &long[1..]), true).unwrap();
        assert_eq!(just_fits.len(), 4 + 65_535 + 10 + 9);
        assert_eq!(just_fits[2..4], [0xff, 0xff]);
    }

    #[test]
    fn a_table_too_long_for_its_count_is_an_error() {
        let bytecode = [RETURN];
        let mut code = code(1, 1, &bytecode);
        code.exception_table = vec![code.exception_table[0]; 65_536];
        let mut out = ByteWriter::new();
        assert_eq!(
            code.write_info(&mut out, false),
            Err(WriteError::TooMany {
                what: "exception handlers",
                count: 65_536,
                max: 65_535
            })
        );
        assert!(out.is_empty());
    }
}
