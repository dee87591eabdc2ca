//! The top level of a class file (JVMS 4.1): version, constant pool, names of
//! this class and its supertypes, fields, methods and attributes.

use std::borrow::Cow;

use crate::access::AccessFlags;
use crate::attribute::{Attribute, AttributeInfo, Code};
use crate::constant_pool::ConstantPool;
use crate::error::{ErrorKind, ParseError, Result};
use crate::reader::Reader;

pub const MAGIC: u32 = 0xcafe_babe;
/// Java 1.0.2 and 1.1.
pub const OLDEST_MAJOR_VERSION: u16 = 45;
/// Java 25.
pub const NEWEST_MAJOR_VERSION: u16 = 69;
/// Minor version that marks a class file using preview features (Java 12+).
pub const PREVIEW_MINOR_VERSION: u16 = 0xffff;

#[derive(Clone, Debug)]
pub struct ClassFile<'a> {
    pub minor_version: u16,
    pub major_version: u16,
    pub constant_pool: ConstantPool<'a>,
    pub access_flags: AccessFlags,
    pub this_class: u16,
    /// 0 for `java/lang/Object` and for `module-info`.
    pub super_class: u16,
    pub interfaces: Vec<u16>,
    pub fields: Vec<Member<'a>>,
    pub methods: Vec<Member<'a>>,
    pub attributes: Vec<Attribute<'a>>,
}

/// A field or a method (JVMS 4.5, 4.6): both have the same layout.
#[derive(Clone, Debug)]
pub struct Member<'a> {
    pub access_flags: AccessFlags,
    pub name_index: u16,
    pub descriptor_index: u16,
    pub attributes: Vec<Attribute<'a>>,
}

impl<'a> ClassFile<'a> {
    /// Reads the structure of a class file. Attributes, instructions,
    /// descriptors and signatures are decoded later, on demand; call
    /// [`ClassFile::check`] to decode and validate all of them.
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let mut reader = Reader::new(bytes);
        let magic = reader.u32()?;
        if magic != MAGIC {
            return Err(ParseError::new(0, ErrorKind::BadMagic(magic)));
        }
        let minor_version = reader.u16()?;
        let major_version = reader.u16()?;
        check_version(major_version, minor_version)?;
        let constant_pool = ConstantPool::parse(&mut reader)?;
        let access_flags = AccessFlags(reader.u16()?);
        let this_class = reader.u16()?;
        let super_class = reader.u16()?;
        let interfaces = reader.counted(2, |r| r.u16())?;
        // A member without attributes takes 8 bytes.
        let fields = reader.counted(8, parse_member)?;
        let methods = reader.counted(8, parse_member)?;
        let attributes = Attribute::parse_list(&mut reader)?;
        if !reader.is_empty() {
            return Err(reader.error(ErrorKind::TrailingBytes(reader.remaining())));
        }
        Ok(ClassFile {
            minor_version,
            major_version,
            constant_pool,
            access_flags,
            this_class,
            super_class,
            interfaces,
            fields,
            methods,
            attributes,
        })
    }

    /// Internal name of this class, e.g. `org/example/Foo$Bar`.
    pub fn name(&self) -> Result<Cow<'a, str>> {
        self.constant_pool.class_name(self.this_class)
    }

    /// Internal name of the super class; `None` for `java/lang/Object` and
    /// `module-info`.
    pub fn super_name(&self) -> Result<Option<Cow<'a, str>>> {
        self.constant_pool.optional_class_name(self.super_class)
    }

    pub fn interface_names(&self) -> Result<Vec<Cow<'a, str>>> {
        self.interfaces
            .iter()
            .map(|&index| self.constant_pool.class_name(index))
            .collect()
    }

    pub fn is_module_info(&self) -> bool {
        self.access_flags.contains(AccessFlags::MODULE)
    }

    /// The typed form of the class's attribute called `name`, if present.
    pub fn attribute(&self, name: &str) -> Result<Option<AttributeInfo<'a>>> {
        find_attribute(self, &self.attributes, name)
    }

    /// The `SourceFile` attribute's file name, if present.
    pub fn source_file(&self) -> Result<Option<Cow<'a, str>>> {
        match self.attribute("SourceFile")? {
            Some(AttributeInfo::SourceFile(index)) => self.constant_pool.utf8(index).map(Some),
            _ => Ok(None),
        }
    }

    /// Whether this class file's Code attributes use the layout of Java 1.0.2
    /// and earlier (one-byte stack and locals sizes, two-byte code length).
    pub fn has_old_code_layout(&self) -> bool {
        self.major_version == OLDEST_MAJOR_VERSION && self.minor_version < 3
    }
}

impl<'a> Member<'a> {
    pub fn name(&self, class: &ClassFile<'a>) -> Result<Cow<'a, str>> {
        class.constant_pool.utf8(self.name_index)
    }

    pub fn descriptor(&self, class: &ClassFile<'a>) -> Result<Cow<'a, str>> {
        class.constant_pool.utf8(self.descriptor_index)
    }

    /// The typed form of this member's attribute called `name`, if present.
    pub fn attribute(
        &self,
        class: &ClassFile<'a>,
        name: &str,
    ) -> Result<Option<AttributeInfo<'a>>> {
        find_attribute(class, &self.attributes, name)
    }

    /// The method's Code attribute; `None` for abstract and native methods
    /// (and for fields).
    pub fn code(&self, class: &ClassFile<'a>) -> Result<Option<Code<'a>>> {
        match self.attribute(class, "Code")? {
            Some(AttributeInfo::Code(code)) => Ok(Some(code)),
            _ => Ok(None),
        }
    }
}

fn find_attribute<'a>(
    class: &ClassFile<'a>,
    attributes: &[Attribute<'a>],
    name: &str,
) -> Result<Option<AttributeInfo<'a>>> {
    for attribute in attributes {
        if attribute.is_named(class, name)? {
            return attribute.parse(class).map(Some);
        }
    }
    Ok(None)
}

fn check_version(major: u16, minor: u16) -> Result<()> {
    let supported = match major {
        OLDEST_MAJOR_VERSION..=55 => true,
        // From Java 12 (56) on, the minor version is 0 or marks preview features.
        56..=NEWEST_MAJOR_VERSION => minor == 0 || minor == PREVIEW_MINOR_VERSION,
        _ => false,
    };
    if supported {
        Ok(())
    } else {
        Err(ParseError::new(
            4,
            ErrorKind::UnsupportedVersion { major, minor },
        ))
    }
}

fn parse_member<'a>(reader: &mut Reader<'a>) -> Result<Member<'a>> {
    Ok(Member {
        access_flags: AccessFlags(reader.u16()?),
        name_index: reader.u16()?,
        descriptor_index: reader.u16()?,
        attributes: Attribute::parse_list(reader)?,
    })
}
