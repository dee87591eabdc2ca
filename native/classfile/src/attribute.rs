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

fn parse_local_variable(r: &mut Reader<'_>) -> Result<LocalVariable> {
    Ok(LocalVariable {
        start_pc: r.u16()?,
        length: r.u16()?,
        name_index: r.u16()?,
        type_index: r.u16()?,
        index: r.u16()?,
    })
}
