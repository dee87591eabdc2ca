//! The top level of a class file (JVMS 4.1): version, constant pool, names of
//! this class and its supertypes, fields, methods and attributes.

use std::borrow::Cow;

use crate::access::AccessFlags;
use crate::attribute::{Attribute, AttributeInfo, Code};
use crate::constant_pool::ConstantPool;
use crate::error::{ErrorKind, ParseError, Result};
use crate::reader::Reader;
use crate::writer::{expect_fits, ByteWriter, WriteError};

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

    /// The whole class file. For a parsed, unmodified class these are the
    /// bytes it was parsed from: the constant pool is encoded from the
    /// model, attributes are copied raw.
    ///
    /// # Panics
    ///
    /// If a table has grown past what its count can say (more than 65535
    /// interfaces, fields, methods or attributes, for instance), which no
    /// parsed class has; [`try_write`](Self::try_write) returns that as an
    /// error.
    pub fn write(&self) -> Vec<u8> {
        let mut out = ByteWriter::with_capacity(self.size_hint());
        expect_fits(self.write_into(&mut out));
        out.into_bytes()
    }

    /// Like [`write`](Self::write), with an error instead of the panic.
    pub fn try_write(&self) -> Result<Vec<u8>, WriteError> {
        let mut out = ByteWriter::with_capacity(self.size_hint());
        self.write_into(&mut out)?;
        Ok(out.into_bytes())
    }

    fn write_into(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        out.u32(MAGIC);
        out.u16(self.minor_version);
        out.u16(self.major_version);
        self.constant_pool.write(out);
        out.u16(self.access_flags.0);
        out.u16(self.this_class);
        out.u16(self.super_class);
        out.u16_list("interfaces", &self.interfaces)?;
        out.u16_table("fields", &self.fields, Member::try_write)?;
        out.u16_table("methods", &self.methods, Member::try_write)?;
        Attribute::write_list(&self.attributes, out)
    }

    /// The size of the class file, exact unless the model was edited to hold
    /// more than its counts can say; spares the output buffer's regrowth.
    fn size_hint(&self) -> usize {
        let attributes = |list: &[Attribute<'_>]| {
            2 + list
                .iter()
                .map(|attribute| 6 + attribute.info.len())
                .sum::<usize>()
        };
        let members = |list: &[Member<'_>]| {
            2 + list
                .iter()
                .map(|member| 6 + attributes(&member.attributes))
                .sum::<usize>()
        };
        8 + self.constant_pool.byte_len()
            + 6
            + 2
            + 2 * self.interfaces.len()
            + members(&self.fields)
            + members(&self.methods)
            + attributes(&self.attributes)
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
    /// Writes the member with its attributes raw.
    ///
    /// # Panics
    ///
    /// With more than 65535 attributes, which no parsed member has;
    /// [`try_write`](Self::try_write) returns that as an error.
    pub fn write(&self, out: &mut ByteWriter) {
        expect_fits(self.try_write(out));
    }

    /// Like [`write`](Self::write), with an error instead of the panic. On
    /// error `out` is left as it was.
    pub fn try_write(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        out.atomic(|out| {
            out.u16(self.access_flags.0);
            out.u16(self.name_index);
            out.u16(self.descriptor_index);
            Attribute::write_list(&self.attributes, out)
        })
    }

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

/// The typed form of the attribute called `name` in `attributes`, if any.
pub(crate) fn find_attribute<'a>(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constant_pool::Constant;
    use crate::instruction::opcode::{ICONST_1, ISTORE_0, RETURN};

    /// A Java 1.0.2 class file (45.0), assembled by hand: `public class A`
    /// with `static void f() { int i = 1; }`, whose Code attribute has
    /// one-byte `max_stack` and `max_locals` and a two-byte `code_length`.
    fn java_1_0_class() -> Vec<u8> {
        let mut out = ByteWriter::new();
        out.u32(MAGIC);
        out.u16(0);
        out.u16(45);
        let pool = [
            Constant::Utf8(b"Code"),
            Constant::Utf8(b"A"),
            Constant::Class { name_index: 2 },
            Constant::Utf8(b"java/lang/Object"),
            Constant::Class { name_index: 4 },
            Constant::Utf8(b"f"),
            Constant::Utf8(b"()V"),
        ];
        out.u16(pool.len() as u16 + 1);
        pool.iter().for_each(|constant| constant.write(&mut out));
        out.u16(AccessFlags::PUBLIC | AccessFlags::SUPER);
        out.u16(3); // this_class
        out.u16(5); // super_class
        out.u16(0); // interfaces
        out.u16(0); // fields
        out.u16(1); // methods
        out.u16(AccessFlags::STATIC);
        out.u16(6);
        out.u16(7);
        out.u16(1); // the method's attributes
        out.u16(1); // "Code"
        out.with_u32_length(|out| {
            out.u8(1); // max_stack
            out.u8(1); // max_locals
            out.u16(3); // code_length
            out.bytes(&[ICONST_1, ISTORE_0, RETURN]);
            out.u16(0); // exception table
            out.u16(0); // attributes
        });
        out.u16(0); // the class's attributes
        out.into_bytes()
    }

    #[test]
    fn a_java_1_0_class_writes_back_in_the_old_code_layout() {
        let bytes = java_1_0_class();
        let class = ClassFile::parse(&bytes).unwrap();
        class.check().unwrap();
        assert!(class.has_old_code_layout());
        assert_eq!(class.write(), bytes);

        let method = &class.methods[0];
        let code = method.code(&class).unwrap().unwrap();
        assert_eq!((code.max_stack, code.max_locals), (1, 1));
        assert_eq!(code.bytecode, [ICONST_1, ISTORE_0, RETURN]);

        let attribute = &method.attributes[0];
        assert_eq!(attribute.info.len(), 1 + 1 + 2 + 3 + 2 + 2);
        let mut out = ByteWriter::new();
        attribute
            .parse(&class)
            .unwrap()
            .write_info(&mut out, class.has_old_code_layout())
            .unwrap();
        assert_eq!(out.as_slice(), attribute.info);
    }

    #[test]
    fn an_edited_class_checks_its_counts() {
        let bytes = java_1_0_class();
        let mut class = ClassFile::parse(&bytes).unwrap();
        class.interfaces = vec![5; 65_535];
        assert_eq!(class.try_write().unwrap().len(), bytes.len() + 2 * 65_535);

        class.methods = vec![class.methods[0].clone(); 65_536];
        assert_eq!(
            class.try_write(),
            Err(WriteError::TooMany {
                what: "methods",
                count: 65_536,
                max: 65_535
            })
        );

        let mut method = class.methods[0].clone();
        method.attributes = vec![method.attributes[0]; 65_536];
        let mut out = ByteWriter::new();
        assert!(method.try_write(&mut out).is_err());
        assert!(out.is_empty(), "a failed member leaves nothing");
    }

    #[test]
    #[should_panic(expected = "70000 fields do not fit a count of at most 65535")]
    fn write_panics_where_try_write_returns_an_error() {
        let bytes = java_1_0_class();
        let mut class = ClassFile::parse(&bytes).unwrap();
        class.fields = vec![class.methods[0].clone(); 70_000];
        class.write();
    }
}
