//! The constant pool (JVMS 4.4): every tag up to Java 25, kept in file order.
//!
//! Entries are decoded eagerly but cheaply (numbers and indices; strings stay
//! as borrowed bytes). References between entries are checked when they are
//! followed, and all of them by [`crate::ClassFile::check`].

use std::borrow::Cow;

use crate::error::{ErrorKind, ParseError, Result};
use crate::mutf8;
use crate::reader::Reader;
use crate::writer::{expect_fits, u16_length, ByteWriter, WriteError};

/// One constant pool slot. Slot 0 and the slot after a `Long` or `Double`
/// hold [`Constant::Unusable`], so indices match the class file's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Constant<'a> {
    Unusable,
    /// Raw modified UTF-8; decode with [`ConstantPool::utf8`].
    Utf8(&'a [u8]),
    Integer(i32),
    /// The IEEE 754 bits, so NaN payloads survive.
    Float(u32),
    Long(i64),
    /// The IEEE 754 bits, so NaN payloads survive.
    Double(u64),
    Class {
        name_index: u16,
    },
    String {
        string_index: u16,
    },
    FieldRef {
        class_index: u16,
        name_and_type_index: u16,
    },
    MethodRef {
        class_index: u16,
        name_and_type_index: u16,
    },
    InterfaceMethodRef {
        class_index: u16,
        name_and_type_index: u16,
    },
    NameAndType {
        name_index: u16,
        descriptor_index: u16,
    },
    MethodHandle {
        reference_kind: u8,
        reference_index: u16,
    },
    MethodType {
        descriptor_index: u16,
    },
    Dynamic {
        bootstrap_method_attr_index: u16,
        name_and_type_index: u16,
    },
    InvokeDynamic {
        bootstrap_method_attr_index: u16,
        name_and_type_index: u16,
    },
    Module {
        name_index: u16,
    },
    Package {
        name_index: u16,
    },
}

impl Constant<'_> {
    /// The tag byte as written in the class file (0 for unusable slots).
    pub fn tag(&self) -> u8 {
        match self {
            Constant::Unusable => 0,
            Constant::Utf8(_) => 1,
            Constant::Integer(_) => 3,
            Constant::Float(_) => 4,
            Constant::Long(_) => 5,
            Constant::Double(_) => 6,
            Constant::Class { .. } => 7,
            Constant::String { .. } => 8,
            Constant::FieldRef { .. } => 9,
            Constant::MethodRef { .. } => 10,
            Constant::InterfaceMethodRef { .. } => 11,
            Constant::NameAndType { .. } => 12,
            Constant::MethodHandle { .. } => 15,
            Constant::MethodType { .. } => 16,
            Constant::Dynamic { .. } => 17,
            Constant::InvokeDynamic { .. } => 18,
            Constant::Module { .. } => 19,
            Constant::Package { .. } => 20,
        }
    }

    /// Writes the tag and the payload; an unusable slot writes nothing, so
    /// writing every slot in order gives the pool's entries.
    ///
    /// # Panics
    ///
    /// For a `Utf8` entry longer than 65535 bytes, which no parsed pool
    /// holds; [`try_write`](Self::try_write) returns that as an error.
    pub fn write(&self, out: &mut ByteWriter) {
        expect_fits(self.try_write(out));
    }

    /// Like [`write`](Self::write), with an error instead of the panic.
    pub fn try_write(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        if let Constant::Unusable = self {
            return Ok(());
        }
        out.atomic(|out| {
            out.u8(self.tag());
            match *self {
                Constant::Unusable => {}
                Constant::Utf8(bytes) => {
                    out.u16(u16_length("Utf8 constant", bytes.len())?);
                    out.bytes(bytes);
                }
                Constant::Integer(value) => out.i32(value),
                Constant::Float(bits) => out.u32(bits),
                Constant::Long(value) => out.u64(value as u64),
                Constant::Double(bits) => out.u64(bits),
                Constant::Class { name_index: index }
                | Constant::String {
                    string_index: index,
                }
                | Constant::MethodType {
                    descriptor_index: index,
                }
                | Constant::Module { name_index: index }
                | Constant::Package { name_index: index } => out.u16(index),
                Constant::FieldRef {
                    class_index: first,
                    name_and_type_index: second,
                }
                | Constant::MethodRef {
                    class_index: first,
                    name_and_type_index: second,
                }
                | Constant::InterfaceMethodRef {
                    class_index: first,
                    name_and_type_index: second,
                }
                | Constant::NameAndType {
                    name_index: first,
                    descriptor_index: second,
                }
                | Constant::Dynamic {
                    bootstrap_method_attr_index: first,
                    name_and_type_index: second,
                }
                | Constant::InvokeDynamic {
                    bootstrap_method_attr_index: first,
                    name_and_type_index: second,
                } => {
                    out.u16(first);
                    out.u16(second);
                }
                Constant::MethodHandle {
                    reference_kind,
                    reference_index,
                } => {
                    out.u8(reference_kind);
                    out.u16(reference_index);
                }
            }
            Ok(())
        })
    }

    /// The JVMS name of the entry's kind, for messages.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Constant::Unusable => "an unusable slot",
            Constant::Utf8(_) => "Utf8",
            Constant::Integer(_) => "Integer",
            Constant::Float(_) => "Float",
            Constant::Long(_) => "Long",
            Constant::Double(_) => "Double",
            Constant::Class { .. } => "Class",
            Constant::String { .. } => "String",
            Constant::FieldRef { .. } => "Fieldref",
            Constant::MethodRef { .. } => "Methodref",
            Constant::InterfaceMethodRef { .. } => "InterfaceMethodref",
            Constant::NameAndType { .. } => "NameAndType",
            Constant::MethodHandle { .. } => "MethodHandle",
            Constant::MethodType { .. } => "MethodType",
            Constant::Dynamic { .. } => "Dynamic",
            Constant::InvokeDynamic { .. } => "InvokeDynamic",
            Constant::Module { .. } => "Module",
            Constant::Package { .. } => "Package",
        }
    }
}

/// A field or method reference resolved to names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberRef<'a> {
    /// Internal name of the class or interface, e.g. `java/lang/String`.
    pub class: Cow<'a, str>,
    pub name: Cow<'a, str>,
    pub descriptor: Cow<'a, str>,
}

#[derive(Clone, Debug)]
pub struct ConstantPool<'a> {
    entries: Vec<Constant<'a>>,
    /// The pool's bytes, from `constant_pool_count` on. Error messages find
    /// an entry's offset by reading them again, which keeps the common,
    /// error-free path from recording offsets it never needs.
    bytes: &'a [u8],
    /// File offset of `bytes[0]`.
    start: usize,
}

impl<'a> ConstantPool<'a> {
    pub(crate) fn parse(reader: &mut Reader<'a>) -> Result<Self> {
        let start = reader.offset();
        let mut pool_reader = reader.clone();
        let count = reader.u16()?;
        // The smallest entry (an empty Utf8 or a Class) takes 3 bytes.
        let capacity = reader.capacity_for(usize::from(count), 3) + 1;
        let mut entries = Vec::with_capacity(capacity);
        entries.push(Constant::Unusable);
        while entries.len() < usize::from(count) {
            let offset = reader.offset();
            let constant = parse_constant(reader)?;
            entries.push(constant);
            if matches!(constant, Constant::Long(_) | Constant::Double(_)) {
                // A long or double takes two slots (JVMS 4.4.5); the second
                // must still be inside the pool.
                if entries.len() >= usize::from(count) {
                    return Err(ParseError::new(
                        offset,
                        ErrorKind::Invalid("long or double constant in the last pool slot"),
                    ));
                }
                entries.push(Constant::Unusable);
            }
        }
        let bytes = pool_reader.take(reader.offset() - start)?;
        Ok(ConstantPool {
            entries,
            bytes,
            start,
        })
    }

    /// Number of slots including slot 0, i.e. `constant_pool_count`.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.len() <= 1
    }

    /// The slots with their indices, unusable ones included.
    pub fn iter(&self) -> impl Iterator<Item = (u16, &Constant<'a>)> {
        (0u16..).zip(self.entries.iter())
    }

    /// File offset of the entry at `index` (of the pool itself when out of
    /// range). Reads the pool again: meant for error messages.
    pub fn offset_of(&self, index: u16) -> usize {
        if index == 0 || usize::from(index) >= self.entries.len() {
            return self.start;
        }
        let mut reader = Reader::at(self.bytes, self.start);
        let mut slot = 1;
        let _count = reader.u16();
        loop {
            let offset = reader.offset();
            let Ok(constant) = parse_constant(&mut reader) else {
                return self.start;
            };
            let slots = if matches!(constant, Constant::Long(_) | Constant::Double(_)) {
                2
            } else {
                1
            };
            if index < slot + slots {
                return offset;
            }
            slot += slots;
        }
    }

    /// Writes `constant_pool_count`, then the entries, encoded from the
    /// model (not copied), in slot order.
    ///
    /// A pool is only ever built by parsing, so it has at most 65535 slots
    /// and its `Utf8` entries fit their length field: this cannot fail. (A
    /// `constant_pool_count` of 0, which the JVMS forbids, is written as 1:
    /// slot 0 always counts.)
    pub fn write(&self, out: &mut ByteWriter) {
        expect_fits(out.u16_count("constant pool slots", self.entries.len()));
        for constant in &self.entries {
            constant.write(out);
        }
    }

    /// Size in bytes of the pool in the class file, `constant_pool_count`
    /// included.
    pub(crate) fn byte_len(&self) -> usize {
        self.bytes.len()
    }

    /// The raw modified UTF-8 bytes of a `Utf8` entry.
    pub fn utf8_bytes(&self, index: u16) -> Result<&'a [u8]> {
        match *self.get(index)? {
            Constant::Utf8(bytes) => Ok(bytes),
            ref other => Err(self.wrong(index, "Utf8", other)),
        }
    }

    pub fn get(&self, index: u16) -> Result<&Constant<'a>> {
        match self.entries.get(usize::from(index)) {
            Some(Constant::Unusable) | None => Err(ParseError::new(
                self.start,
                ErrorKind::ConstantIndexOutOfRange {
                    index,
                    count: self.entries.len() as u16,
                },
            )),
            Some(constant) => Ok(constant),
        }
    }

    fn wrong(&self, index: u16, expected: &'static str, found: &Constant) -> ParseError {
        ParseError::new(
            self.offset_of(index),
            ErrorKind::WrongConstant {
                index,
                expected,
                found: found.kind_name(),
            },
        )
    }

    /// The decoded text of a `Utf8` entry.
    pub fn utf8(&self, index: u16) -> Result<Cow<'a, str>> {
        mutf8::decode(self.utf8_bytes(index)?)
            .ok_or_else(|| ParseError::new(self.offset_of(index), ErrorKind::BadUtf8(index)))
    }

    /// The internal name of a `Class` entry, e.g. `java/util/Map$Entry` or,
    /// for array classes, a descriptor such as `[Ljava/lang/String;`.
    pub fn class_name(&self, index: u16) -> Result<Cow<'a, str>> {
        match *self.get(index)? {
            Constant::Class { name_index } => self.utf8(name_index),
            ref other => Err(self.wrong(index, "Class", other)),
        }
    }

    /// Like [`Self::class_name`], but index 0 means "none" (as for the super
    /// class of `java/lang/Object` or an anonymous inner class's outer class).
    pub fn optional_class_name(&self, index: u16) -> Result<Option<Cow<'a, str>>> {
        if index == 0 {
            Ok(None)
        } else {
            self.class_name(index).map(Some)
        }
    }

    /// The name and descriptor of a `NameAndType` entry.
    pub fn name_and_type(&self, index: u16) -> Result<(Cow<'a, str>, Cow<'a, str>)> {
        match *self.get(index)? {
            Constant::NameAndType {
                name_index,
                descriptor_index,
            } => Ok((self.utf8(name_index)?, self.utf8(descriptor_index)?)),
            ref other => Err(self.wrong(index, "NameAndType", other)),
        }
    }

    /// A `Fieldref`, `Methodref` or `InterfaceMethodref`, resolved to names.
    pub fn member_ref(&self, index: u16) -> Result<MemberRef<'a>> {
        match *self.get(index)? {
            Constant::FieldRef {
                class_index,
                name_and_type_index,
            }
            | Constant::MethodRef {
                class_index,
                name_and_type_index,
            }
            | Constant::InterfaceMethodRef {
                class_index,
                name_and_type_index,
            } => {
                let (name, descriptor) = self.name_and_type(name_and_type_index)?;
                Ok(MemberRef {
                    class: self.class_name(class_index)?,
                    name,
                    descriptor,
                })
            }
            ref other => Err(self.wrong(index, "a field or method reference", other)),
        }
    }

    /// Checks that every reference between entries points at an entry of the
    /// kind JVMS requires, and that every `Utf8` entry decodes.
    pub fn check(&self) -> Result<()> {
        for (index, constant) in self.iter() {
            let expect = |target: u16, expected: &'static str, ok: fn(&Constant) -> bool| {
                let found = self.get(target)?;
                if ok(found) {
                    Ok(())
                } else {
                    Err(self.wrong(target, expected, found))
                }
            };
            let is_utf8 = |c: &Constant| matches!(c, Constant::Utf8(_));
            let is_class = |c: &Constant| matches!(c, Constant::Class { .. });
            let is_name_and_type = |c: &Constant| matches!(c, Constant::NameAndType { .. });
            match *constant {
                Constant::Unusable
                | Constant::Integer(_)
                | Constant::Float(_)
                | Constant::Long(_)
                | Constant::Double(_) => {}
                Constant::Utf8(_) => {
                    self.utf8(index)?;
                }
                Constant::Class { name_index: utf8 }
                | Constant::String { string_index: utf8 }
                | Constant::MethodType {
                    descriptor_index: utf8,
                }
                | Constant::Module { name_index: utf8 }
                | Constant::Package { name_index: utf8 } => expect(utf8, "Utf8", is_utf8)?,
                Constant::NameAndType {
                    name_index,
                    descriptor_index,
                } => {
                    expect(name_index, "Utf8", is_utf8)?;
                    expect(descriptor_index, "Utf8", is_utf8)?;
                }
                Constant::FieldRef {
                    class_index,
                    name_and_type_index,
                }
                | Constant::MethodRef {
                    class_index,
                    name_and_type_index,
                }
                | Constant::InterfaceMethodRef {
                    class_index,
                    name_and_type_index,
                } => {
                    expect(class_index, "Class", is_class)?;
                    expect(name_and_type_index, "NameAndType", is_name_and_type)?;
                }
                Constant::Dynamic {
                    name_and_type_index,
                    ..
                }
                | Constant::InvokeDynamic {
                    name_and_type_index,
                    ..
                } => expect(name_and_type_index, "NameAndType", is_name_and_type)?,
                Constant::MethodHandle {
                    reference_kind,
                    reference_index,
                } => {
                    let target = self.get(reference_index)?;
                    let fits = match reference_kind {
                        1..=4 => matches!(target, Constant::FieldRef { .. }),
                        5 | 8 => matches!(target, Constant::MethodRef { .. }),
                        // Since Java 8 (52.0), static and special handles may
                        // also name interface methods.
                        6 | 7 => matches!(
                            target,
                            Constant::MethodRef { .. } | Constant::InterfaceMethodRef { .. }
                        ),
                        9 => matches!(target, Constant::InterfaceMethodRef { .. }),
                        _ => {
                            return Err(ParseError::new(
                                self.offset_of(index),
                                ErrorKind::Invalid(
                                    "method handle with a reference kind outside 1..=9",
                                ),
                            ))
                        }
                    };
                    if !fits {
                        return Err(self.wrong(
                            reference_index,
                            "the reference its kind requires",
                            target,
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

fn parse_constant<'a>(reader: &mut Reader<'a>) -> Result<Constant<'a>> {
    let tag_offset = reader.offset();
    let tag = reader.u8()?;
    let constant = match tag {
        1 => {
            let len = usize::from(reader.u16()?);
            Constant::Utf8(reader.take(len)?)
        }
        3 => Constant::Integer(reader.i32()?),
        4 => Constant::Float(reader.u32()?),
        5 => Constant::Long(reader.u64()? as i64),
        6 => Constant::Double(reader.u64()?),
        7 => Constant::Class {
            name_index: reader.u16()?,
        },
        8 => Constant::String {
            string_index: reader.u16()?,
        },
        9 => Constant::FieldRef {
            class_index: reader.u16()?,
            name_and_type_index: reader.u16()?,
        },
        10 => Constant::MethodRef {
            class_index: reader.u16()?,
            name_and_type_index: reader.u16()?,
        },
        11 => Constant::InterfaceMethodRef {
            class_index: reader.u16()?,
            name_and_type_index: reader.u16()?,
        },
        12 => Constant::NameAndType {
            name_index: reader.u16()?,
            descriptor_index: reader.u16()?,
        },
        15 => Constant::MethodHandle {
            reference_kind: reader.u8()?,
            reference_index: reader.u16()?,
        },
        16 => Constant::MethodType {
            descriptor_index: reader.u16()?,
        },
        17 => Constant::Dynamic {
            bootstrap_method_attr_index: reader.u16()?,
            name_and_type_index: reader.u16()?,
        },
        18 => Constant::InvokeDynamic {
            bootstrap_method_attr_index: reader.u16()?,
            name_and_type_index: reader.u16()?,
        },
        19 => Constant::Module {
            name_index: reader.u16()?,
        },
        20 => Constant::Package {
            name_index: reader.u16()?,
        },
        other => {
            return Err(ParseError::new(
                tag_offset,
                ErrorKind::UnknownConstantTag(other),
            ))
        }
    };
    Ok(constant)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(bytes: &[u8]) -> Result<ConstantPool<'_>> {
        ConstantPool::parse(&mut Reader::new(bytes))
    }

    #[test]
    fn long_takes_two_slots() {
        #[rustfmt::skip]
        let bytes = [
            0, 5,                                   // count: slots 1..=4
            5, 0, 0, 0, 0, 0, 0, 0, 42,             // 1-2: Long 42
            1, 0, 3, b'a', b'b', b'c',              // 3: Utf8 "abc"
            7, 0, 3,                                // 4: Class "abc"
        ];
        let pool = pool(&bytes).unwrap();
        assert_eq!(pool.len(), 5);
        assert_eq!(pool.get(1).unwrap(), &Constant::Long(42));
        assert!(pool.get(2).is_err());
        assert_eq!(pool.class_name(4).unwrap(), "abc");
        pool.check().unwrap();
    }

    #[test]
    fn long_in_last_slot_is_an_error() {
        let bytes = [0, 2, 5, 0, 0, 0, 0, 0, 0, 0, 1];
        assert!(pool(&bytes).is_err());
    }

    #[test]
    fn wrong_kind_names_index_and_kinds() {
        let bytes = [0, 3, 3, 0, 0, 0, 7, 7, 0, 1];
        let pool = pool(&bytes).unwrap();
        let error = pool.check().unwrap_err();
        assert_eq!(
            *error.kind(),
            ErrorKind::WrongConstant {
                index: 1,
                expected: "Utf8",
                found: "Integer"
            }
        );
        assert_eq!(error.offset(), 2);
    }

    #[test]
    fn unknown_tag_and_huge_count_fail_cleanly() {
        assert_eq!(
            pool(&[0, 2, 2, 0]).unwrap_err().kind(),
            &ErrorKind::UnknownConstantTag(2)
        );
        // 65535 slots announced, none present.
        assert!(matches!(
            pool(&[0xff, 0xff]).unwrap_err().kind(),
            ErrorKind::UnexpectedEnd { .. }
        ));
    }

    #[test]
    fn every_kind_of_entry_writes_back_as_read() {
        #[rustfmt::skip]
        let bytes = [
            0, 20,                                  // count: slots 1..=19
            1, 0, 2, 0xc0, 0x80,                    // 1: Utf8 "\0" in modified UTF-8
            3, 0xff, 0xff, 0xff, 0xfe,              // 2: Integer -2
            4, 0x7f, 0xc0, 0, 1,                    // 3: Float, a NaN with a payload
            5, 0x80, 0, 0, 0, 0, 0, 0, 0,           // 4-5: Long i64::MIN
            6, 0x7f, 0xf8, 0, 0, 0, 0, 0, 1,        // 6-7: Double, a NaN with a payload
            7, 0, 1,                                // 8: Class
            8, 0, 1,                                // 9: String
            9, 0, 8, 0, 13,                         // 10: Fieldref
            10, 0, 8, 0, 13,                        // 11: Methodref
            11, 0, 8, 0, 13,                        // 12: InterfaceMethodref
            12, 0, 1, 0, 1,                         // 13: NameAndType
            15, 6, 0, 11,                           // 14: MethodHandle invokeStatic
            16, 0, 1,                               // 15: MethodType
            17, 0, 0, 0, 13,                        // 16: Dynamic
            18, 0, 1, 0, 13,                        // 17: InvokeDynamic
            19, 0, 1,                               // 18: Module
            20, 0, 1,                               // 19: Package
        ];
        let pool = pool(&bytes).unwrap();
        pool.check().unwrap();
        assert_eq!(pool.len(), 20);
        let mut out = ByteWriter::new();
        pool.write(&mut out);
        assert_eq!(out.as_slice(), bytes);
    }

    #[test]
    fn a_utf8_entry_too_long_for_its_length_is_an_error() {
        let text = vec![b'a'; 65_536];
        let mut out = ByteWriter::new();
        assert_eq!(
            Constant::Utf8(&text).try_write(&mut out),
            Err(WriteError::TooLong {
                what: "Utf8 constant",
                len: 65_536,
                max: 65_535
            })
        );
        assert!(out.is_empty(), "not even the tag is written");
        Constant::Utf8(&text[1..]).try_write(&mut out).unwrap();
        assert_eq!(out.as_slice()[..3], [1, 0xff, 0xff]);
    }
}
