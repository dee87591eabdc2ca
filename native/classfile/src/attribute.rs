//! Attributes (JVMS 4.7): read as (name, bytes) with the class, decoded into
//! typed form on demand by [`Attribute::parse`].
//!
//! Attributes testgen does not interpret (annotations, `Module`,
//! `SourceDebugExtension`, vendor attributes) stay raw bytes in
//! [`AttributeInfo::Other`], so a writer can copy them unchanged.

use std::borrow::Cow;

use crate::class::ClassFile;
use crate::error::{ErrorKind, Result};
use crate::reader::Reader;
use crate::writer::{expect_fits, u32_length, ByteWriter, WriteError};

pub use crate::code::{Code, ExceptionHandler};
pub use crate::stack_map::{StackMapFrame, VerificationType};

/// An attribute as it stands in the class file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute<'a> {
    pub name_index: u16,
    pub info: &'a [u8],
    /// File offset of `info[0]`.
    pub offset: usize,
}

/// The decoded content of an attribute. Indices point into the constant pool.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeInfo<'a> {
    ConstantValue(u16),
    Code(Code<'a>),
    StackMapTable(Vec<StackMapFrame>),
    /// The checked exceptions a method declares (`Class` entries).
    Exceptions(Vec<u16>),
    InnerClasses(Vec<InnerClass>),
    EnclosingMethod {
        class_index: u16,
        /// 0 when the class is not enclosed by a method (e.g. in an initializer).
        method_index: u16,
    },
    Synthetic,
    /// A `Utf8` entry holding a generic signature (JVMS 4.7.9.1).
    Signature(u16),
    SourceFile(u16),
    LineNumberTable(Vec<LineNumber>),
    LocalVariableTable(Vec<LocalVariable>),
    /// Like `LocalVariableTable`, with signatures instead of descriptors.
    LocalVariableTypeTable(Vec<LocalVariable>),
    Deprecated,
    BootstrapMethods(Vec<BootstrapMethod>),
    MethodParameters(Vec<MethodParameter>),
    NestHost(u16),
    NestMembers(Vec<u16>),
    Record(Vec<RecordComponent<'a>>),
    PermittedSubclasses(Vec<u16>),
    Other(&'a [u8]),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerClass {
    pub inner_class_info_index: u16,
    /// 0 for local and anonymous classes.
    pub outer_class_info_index: u16,
    /// 0 for anonymous classes.
    pub inner_name_index: u16,
    pub inner_class_access_flags: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineNumber {
    pub start_pc: u16,
    pub line_number: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalVariable {
    pub start_pc: u16,
    pub length: u16,
    pub name_index: u16,
    /// A descriptor in `LocalVariableTable`, a signature in `LocalVariableTypeTable`.
    pub type_index: u16,
    /// The local variable slot.
    pub index: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BootstrapMethod {
    /// A `MethodHandle` entry.
    pub method_ref: u16,
    pub arguments: Vec<u16>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodParameter {
    /// 0 for a parameter without a name.
    pub name_index: u16,
    pub access_flags: u16,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordComponent<'a> {
    pub name_index: u16,
    pub descriptor_index: u16,
    pub attributes: Vec<Attribute<'a>>,
}

impl<'a> Attribute<'a> {
    /// Reads `attributes_count` followed by that many attributes.
    pub(crate) fn parse_list(reader: &mut Reader<'a>) -> Result<Vec<Self>> {
        // An attribute header takes 6 bytes.
        reader.counted(6, |r| {
            let name_index = r.u16()?;
            let len = r.u32()? as usize;
            let offset = r.offset();
            let info = r.take(len)?;
            Ok(Attribute {
                name_index,
                info,
                offset,
            })
        })
    }

    /// Writes `attributes_count` followed by the attributes, raw. On error
    /// `out` is left as it was.
    pub(crate) fn write_list(
        attributes: &[Attribute<'_>],
        out: &mut ByteWriter,
    ) -> Result<(), WriteError> {
        out.atomic(|out| out.u16_table("attributes", attributes, Attribute::try_write))
    }

    /// Writes the name index, the length and the raw content.
    ///
    /// # Panics
    ///
    /// If `info` is longer than `u32::MAX` bytes, which no parsed attribute
    /// is; [`try_write`](Self::try_write) returns that as an error.
    pub fn write(&self, out: &mut ByteWriter) {
        expect_fits(self.try_write(out));
    }

    /// Like [`write`](Self::write), with an error instead of the panic.
    pub fn try_write(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        let length = u32_length("attribute", self.info.len())?;
        out.u16(self.name_index);
        out.u32(length);
        out.bytes(self.info);
        Ok(())
    }

    pub fn name(&self, class: &ClassFile<'a>) -> Result<Cow<'a, str>> {
        class.constant_pool.utf8(self.name_index)
    }

    /// Whether the attribute is called `name`. Compares the raw bytes (the
    /// JVMS names are ASCII, the same in modified UTF-8), which is cheaper
    /// than decoding every name on every lookup.
    pub fn is_named(&self, class: &ClassFile<'a>, name: &str) -> Result<bool> {
        Ok(class.constant_pool.utf8_bytes(self.name_index)? == name.as_bytes())
    }

    /// Decodes the attribute by its name. The content must fill the
    /// attribute's length exactly.
    pub fn parse(&self, class: &ClassFile<'a>) -> Result<AttributeInfo<'a>> {
        let name = self.name(class)?;
        let mut reader = Reader::at(self.info, self.offset);
        let r = &mut reader;
        let (info, label) = match name.as_ref() {
            "ConstantValue" => (AttributeInfo::ConstantValue(r.u16()?), "ConstantValue"),
            "Code" => (AttributeInfo::Code(Code::parse(r, class)?), "Code"),
            "StackMapTable" => (
                AttributeInfo::StackMapTable(StackMapFrame::parse_table(r)?),
                "StackMapTable",
            ),
            "Exceptions" => (
                AttributeInfo::Exceptions(r.counted(2, |r| r.u16())?),
                "Exceptions",
            ),
            "InnerClasses" => (
                AttributeInfo::InnerClasses(r.counted(8, |r| {
                    Ok(InnerClass {
                        inner_class_info_index: r.u16()?,
                        outer_class_info_index: r.u16()?,
                        inner_name_index: r.u16()?,
                        inner_class_access_flags: r.u16()?,
                    })
                })?),
                "InnerClasses",
            ),
            "EnclosingMethod" => (
                AttributeInfo::EnclosingMethod {
                    class_index: r.u16()?,
                    method_index: r.u16()?,
                },
                "EnclosingMethod",
            ),
            "Synthetic" => (AttributeInfo::Synthetic, "Synthetic"),
            "Signature" => (AttributeInfo::Signature(r.u16()?), "Signature"),
            "SourceFile" => (AttributeInfo::SourceFile(r.u16()?), "SourceFile"),
            "LineNumberTable" => (
                AttributeInfo::LineNumberTable(r.counted(4, |r| {
                    Ok(LineNumber {
                        start_pc: r.u16()?,
                        line_number: r.u16()?,
                    })
                })?),
                "LineNumberTable",
            ),
            "LocalVariableTable" => (
                AttributeInfo::LocalVariableTable(r.counted(10, parse_local_variable)?),
                "LocalVariableTable",
            ),
            "LocalVariableTypeTable" => (
                AttributeInfo::LocalVariableTypeTable(r.counted(10, parse_local_variable)?),
                "LocalVariableTypeTable",
            ),
            "Deprecated" => (AttributeInfo::Deprecated, "Deprecated"),
            "BootstrapMethods" => (
                AttributeInfo::BootstrapMethods(r.counted(4, |r| {
                    Ok(BootstrapMethod {
                        method_ref: r.u16()?,
                        arguments: r.counted(2, |r| r.u16())?,
                    })
                })?),
                "BootstrapMethods",
            ),
            "MethodParameters" => {
                // The only table with a one-byte count.
                let count = usize::from(r.u8()?);
                let mut parameters = Vec::with_capacity(r.capacity_for(count, 4));
                for _ in 0..count {
                    parameters.push(MethodParameter {
                        name_index: r.u16()?,
                        access_flags: r.u16()?,
                    });
                }
                (
                    AttributeInfo::MethodParameters(parameters),
                    "MethodParameters",
                )
            }
            "NestHost" => (AttributeInfo::NestHost(r.u16()?), "NestHost"),
            "NestMembers" => (
                AttributeInfo::NestMembers(r.counted(2, |r| r.u16())?),
                "NestMembers",
            ),
            "Record" => (
                AttributeInfo::Record(r.counted(6, |r| {
                    Ok(RecordComponent {
                        name_index: r.u16()?,
                        descriptor_index: r.u16()?,
                        attributes: Attribute::parse_list(r)?,
                    })
                })?),
                "Record",
            ),
            "PermittedSubclasses" => (
                AttributeInfo::PermittedSubclasses(r.counted(2, |r| r.u16())?),
                "PermittedSubclasses",
            ),
            _ => return Ok(AttributeInfo::Other(self.info)),
        };
        if !reader.is_empty() {
            return Err(reader.error(ErrorKind::AttributeTrailingBytes {
                name: label,
                left: reader.remaining(),
            }));
        }
        Ok(info)
    }
}

impl AttributeInfo<'_> {
    /// The attribute's content (what follows `attribute_length`), encoded
    /// from the typed form. `old_code_layout` is
    /// [`ClassFile::has_old_code_layout`] of the class the attribute is for;
    /// only a Code attribute depends on it. Attributes nested in Code and
    /// Record are written raw. On error `out` is left as it was.
    pub fn write_info(
        &self,
        out: &mut ByteWriter,
        old_code_layout: bool,
    ) -> Result<(), WriteError> {
        out.atomic(|out| {
            match self {
                AttributeInfo::ConstantValue(index)
                | AttributeInfo::Signature(index)
                | AttributeInfo::SourceFile(index)
                | AttributeInfo::NestHost(index) => out.u16(*index),
                AttributeInfo::Code(code) => code.write_info(out, old_code_layout)?,
                AttributeInfo::StackMapTable(frames) => {
                    crate::stack_map::write_stack_map_table(frames, out)?
                }
                AttributeInfo::Exceptions(classes) => out.u16_list("exceptions", classes)?,
                AttributeInfo::InnerClasses(classes) => {
                    out.u16_rows("inner classes", classes, InnerClass::write)?
                }
                AttributeInfo::EnclosingMethod {
                    class_index,
                    method_index,
                } => {
                    out.u16(*class_index);
                    out.u16(*method_index);
                }
                AttributeInfo::Synthetic | AttributeInfo::Deprecated => {}
                AttributeInfo::LineNumberTable(lines) => {
                    out.u16_rows("line numbers", lines, LineNumber::write)?
                }
                AttributeInfo::LocalVariableTable(variables)
                | AttributeInfo::LocalVariableTypeTable(variables) => {
                    out.u16_rows("local variables", variables, LocalVariable::write)?
                }
                AttributeInfo::BootstrapMethods(methods) => {
                    out.u16_table("bootstrap methods", methods, BootstrapMethod::try_write)?
                }
                AttributeInfo::MethodParameters(parameters) => {
                    // The only table with a one-byte count.
                    let count =
                        u8::try_from(parameters.len()).map_err(|_| WriteError::TooMany {
                            what: "method parameters",
                            count: parameters.len(),
                            max: u8::MAX.into(),
                        })?;
                    out.u8(count);
                    parameters.iter().for_each(|parameter| parameter.write(out));
                }
                AttributeInfo::NestMembers(classes) => out.u16_list("nest members", classes)?,
                AttributeInfo::Record(components) => {
                    out.u16_table("record components", components, RecordComponent::try_write)?
                }
                AttributeInfo::PermittedSubclasses(classes) => {
                    out.u16_list("permitted subclasses", classes)?
                }
                AttributeInfo::Other(bytes) => out.bytes(bytes),
            }
            Ok(())
        })
    }
}

impl InnerClass {
    pub fn write(&self, out: &mut ByteWriter) {
        out.u16(self.inner_class_info_index);
        out.u16(self.outer_class_info_index);
        out.u16(self.inner_name_index);
        out.u16(self.inner_class_access_flags);
    }
}

impl LineNumber {
    pub fn write(&self, out: &mut ByteWriter) {
        out.u16(self.start_pc);
        out.u16(self.line_number);
    }
}

impl LocalVariable {
    pub fn write(&self, out: &mut ByteWriter) {
        out.u16(self.start_pc);
        out.u16(self.length);
        out.u16(self.name_index);
        out.u16(self.type_index);
        out.u16(self.index);
    }
}

impl BootstrapMethod {
    /// # Panics
    ///
    /// With more than 65535 arguments, which no parsed entry has;
    /// [`try_write`](Self::try_write) returns that as an error.
    pub fn write(&self, out: &mut ByteWriter) {
        expect_fits(self.try_write(out));
    }

    /// Like [`write`](Self::write), with an error instead of the panic. On
    /// error `out` is left as it was.
    pub fn try_write(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        out.atomic(|out| {
            out.u16(self.method_ref);
            out.u16_list("bootstrap arguments", &self.arguments)
        })
    }
}

impl MethodParameter {
    pub fn write(&self, out: &mut ByteWriter) {
        out.u16(self.name_index);
        out.u16(self.access_flags);
    }
}

impl RecordComponent<'_> {
    /// Writes the component with its attributes raw.
    ///
    /// # Panics
    ///
    /// With more than 65535 attributes, which no parsed component has;
    /// [`try_write`](Self::try_write) returns that as an error.
    pub fn write(&self, out: &mut ByteWriter) {
        expect_fits(self.try_write(out));
    }

    /// Like [`write`](Self::write), with an error instead of the panic. On
    /// error `out` is left as it was.
    pub fn try_write(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        out.atomic(|out| {
            out.u16(self.name_index);
            out.u16(self.descriptor_index);
            Attribute::write_list(&self.attributes, out)
        })
    }
}

fn parse_local_variable(r: &mut Reader<'_>) -> Result<LocalVariable> {
    Ok(LocalVariable {
        start_pc: r.u16()?,
        length: r.u16()?,
        name_index: r.u16()?,
        type_index: r.u16()?,
        index: r.u16()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(attribute: &AttributeInfo<'_>) -> Result<Vec<u8>, WriteError> {
        let mut out = ByteWriter::new();
        attribute.write_info(&mut out, false)?;
        Ok(out.into_bytes())
    }

    #[test]
    fn writes_the_header_and_the_raw_content() {
        let attribute = Attribute {
            name_index: 0x0102,
            info: &[7, 8, 9],
            offset: 40,
        };
        let mut out = ByteWriter::new();
        attribute.write(&mut out);
        assert_eq!(out.as_slice(), [1, 2, 0, 0, 0, 3, 7, 8, 9]);
    }

    #[test]
    fn encodes_typed_attributes_as_the_jvms_lays_them_out() {
        let cases: Vec<(AttributeInfo<'_>, Vec<u8>)> = vec![
            (AttributeInfo::Synthetic, vec![]),
            (AttributeInfo::Deprecated, vec![]),
            (AttributeInfo::NestHost(0x0a0b), vec![0x0a, 0x0b]),
            (
                AttributeInfo::EnclosingMethod {
                    class_index: 3,
                    method_index: 0,
                },
                vec![0, 3, 0, 0],
            ),
            (
                AttributeInfo::MethodParameters(vec![
                    MethodParameter {
                        name_index: 5,
                        access_flags: 0x10,
                    },
                    MethodParameter {
                        name_index: 0,
                        access_flags: 0x1000,
                    },
                ]),
                // A one-byte count.
                vec![2, 0, 5, 0, 0x10, 0, 0, 0x10, 0],
            ),
            (
                AttributeInfo::BootstrapMethods(vec![BootstrapMethod {
                    method_ref: 9,
                    arguments: vec![10, 11],
                }]),
                vec![0, 1, 0, 9, 0, 2, 0, 10, 0, 11],
            ),
            (
                AttributeInfo::Record(vec![RecordComponent {
                    name_index: 4,
                    descriptor_index: 5,
                    attributes: vec![Attribute {
                        name_index: 6,
                        info: &[0, 7],
                        offset: 0,
                    }],
                }]),
                vec![0, 1, 0, 4, 0, 5, 0, 1, 0, 6, 0, 0, 0, 2, 0, 7],
            ),
            (
                AttributeInfo::LocalVariableTypeTable(vec![LocalVariable {
                    start_pc: 1,
                    length: 2,
                    name_index: 3,
                    type_index: 4,
                    index: 5,
                }]),
                vec![0, 1, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5],
            ),
            (AttributeInfo::Other(&[1, 2, 3]), vec![1, 2, 3]),
        ];
        for (attribute, expected) in cases {
            assert_eq!(info(&attribute).unwrap(), expected, "{attribute:?}");
        }
    }

    #[test]
    fn tables_too_long_for_their_counts_are_errors() {
        let too_many = |what, count, max| WriteError::TooMany { what, count, max };
        let parameter = MethodParameter {
            name_index: 1,
            access_flags: 0,
        };
        let cases = [
            (
                AttributeInfo::MethodParameters(vec![parameter; 256]),
                too_many("method parameters", 256, 255),
            ),
            (
                AttributeInfo::Exceptions(vec![1; 65_536]),
                too_many("exceptions", 65_536, 65_535),
            ),
            (
                // The error is inside the second entry.
                AttributeInfo::BootstrapMethods(vec![
                    BootstrapMethod {
                        method_ref: 1,
                        arguments: vec![],
                    },
                    BootstrapMethod {
                        method_ref: 1,
                        arguments: vec![2; 65_536],
                    },
                ]),
                too_many("bootstrap arguments", 65_536, 65_535),
            ),
        ];
        for (attribute, expected) in cases {
            let mut out = ByteWriter::new();
            out.u8(0xee);
            assert_eq!(attribute.write_info(&mut out, false), Err(expected));
            assert_eq!(out.as_slice(), [0xee], "a failed attribute leaves nothing");
        }
        assert_eq!(
            info(&AttributeInfo::MethodParameters(vec![parameter; 255]))
                .unwrap()
                .len(),
            1 + 255 * 4
        );
    }

    #[test]
    #[should_panic(expected = "try_write")]
    fn a_record_component_with_too_many_attributes_panics_in_write() {
        let attribute = Attribute {
            name_index: 1,
            info: &[],
            offset: 0,
        };
        let component = RecordComponent {
            name_index: 1,
            descriptor_index: 2,
            attributes: vec![attribute; 65_536],
        };
        assert!(component.try_write(&mut ByteWriter::new()).is_err());
        component.write(&mut ByteWriter::new());
    }
}
