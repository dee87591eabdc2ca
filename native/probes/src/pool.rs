//! Constants the probes need, appended after the class's own constant pool
//! so that every existing index stays valid.

use std::collections::BTreeMap;

use testgen_classfile::writer::ByteWriter;

use crate::probe::{ProbeMethod, PROBE_CLASS};

#[derive(Clone, Debug)]
enum NewConstant {
    Utf8(&'static str),
    Class { name: u16 },
    NameAndType { name: u16, descriptor: u16 },
    MethodRef { class: u16, name_and_type: u16 },
    Integer(i32),
    String { utf8: u16 },
}

/// The appended constants, in the order they were first asked for, so the
/// output is deterministic.
#[derive(Clone, Debug)]
pub(crate) struct PoolExtension {
    /// `constant_pool_count` of the original class.
    original_count: u16,
    entries: Vec<NewConstant>,
    probe_class: Option<u16>,
    methods: BTreeMap<ProbeMethod, u16>,
    integers: BTreeMap<i32, u16>,
    empty_string: Option<u16>,
}

/// The constant pool would exceed 65535 slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PoolFull;

impl PoolExtension {
    pub(crate) fn new(original_count: u16) -> Self {
        PoolExtension {
            original_count,
            entries: Vec::new(),
            probe_class: None,
            methods: BTreeMap::new(),
            integers: BTreeMap::new(),
            empty_string: None,
        }
    }

    /// Slot count after the additions, i.e. the new `constant_pool_count`.
    pub(crate) fn count(&self) -> usize {
        usize::from(self.original_count) + self.entries.len()
    }

    fn push(&mut self, constant: NewConstant) -> Result<u16, PoolFull> {
        let index = self.count();
        // The count itself must fit a u16, so the last usable index is 65534.
        if index >= usize::from(u16::MAX) {
            return Err(PoolFull);
        }
        self.entries.push(constant);
        Ok(index as u16)
    }

    /// A `Methodref` to the recorder method.
    pub(crate) fn probe_method(&mut self, method: ProbeMethod) -> Result<u16, PoolFull> {
        if let Some(&index) = self.methods.get(&method) {
            return Ok(index);
        }
        let class = match self.probe_class {
            Some(index) => index,
            None => {
                let name = self.push(NewConstant::Utf8(PROBE_CLASS))?;
                let class = self.push(NewConstant::Class { name })?;
                self.probe_class = Some(class);
                class
            }
        };
        let name = self.push(NewConstant::Utf8(method.name()))?;
        let descriptor = self.push(NewConstant::Utf8(method.descriptor()))?;
        let name_and_type = self.push(NewConstant::NameAndType { name, descriptor })?;
        let index = self.push(NewConstant::MethodRef {
            class,
            name_and_type,
        })?;
        self.methods.insert(method, index);
        Ok(index)
    }

    /// An `Integer` constant, for ids too large for `sipush`.
    pub(crate) fn integer(&mut self, value: i32) -> Result<u16, PoolFull> {
        if let Some(&index) = self.integers.get(&value) {
            return Ok(index);
        }
        let index = self.push(NewConstant::Integer(value))?;
        self.integers.insert(value, index);
        Ok(index)
    }

    /// A `String` constant of `""`, for a mutant that returns it.
    pub(crate) fn empty_string(&mut self) -> Result<u16, PoolFull> {
        if let Some(index) = self.empty_string {
            return Ok(index);
        }
        let utf8 = self.push(NewConstant::Utf8(""))?;
        let index = self.push(NewConstant::String { utf8 })?;
        self.empty_string = Some(index);
        Ok(index)
    }

    /// Writes the appended entries (the original ones come first).
    pub(crate) fn write_entries(&self, out: &mut ByteWriter) {
        for entry in &self.entries {
            match *entry {
                NewConstant::Utf8(text) => {
                    // ASCII names: modified UTF-8 and UTF-8 agree.
                    out.u8(1);
                    out.u16(text.len() as u16);
                    out.bytes(text.as_bytes());
                }
                NewConstant::Class { name } => {
                    out.u8(7);
                    out.u16(name);
                }
                NewConstant::NameAndType { name, descriptor } => {
                    out.u8(12);
                    out.u16(name);
                    out.u16(descriptor);
                }
                NewConstant::MethodRef {
                    class,
                    name_and_type,
                } => {
                    out.u8(10);
                    out.u16(class);
                    out.u16(name_and_type);
                }
                NewConstant::Integer(value) => {
                    out.u8(3);
                    out.i32(value);
                }
                NewConstant::String { utf8 } => {
                    out.u8(8);
                    out.u16(utf8);
                }
            }
        }
    }
}
