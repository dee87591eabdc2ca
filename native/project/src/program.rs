//! The code under test as testgen sees it: the parsed classes (their
//! original bytes) by name, and the instrumenter's tables that tie probe
//! events to methods and bytecode offsets.

use std::collections::BTreeMap;

use testgen_classfile::access::AccessFlags;
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::{ClassFile, Constant, Member};
use testgen_probes::{Instrumented, SiteKind};

use crate::names::{ClassName, MethodId};

/// Where a probe site is: its method's probe id and the original offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteAt {
    pub method: i32,
    /// The opcode of the watched instruction.
    pub opcode: u8,
    pub offset: u32,
    pub external_call: bool,
}

/// Parsed classes of the code under test plus the probe tables.
#[derive(Default)]
pub struct Program<'a> {
    classes: BTreeMap<ClassName, ClassFile<'a>>,
    methods: BTreeMap<i32, MethodId>,
    ids: BTreeMap<MethodId, i32>,
    sites: BTreeMap<i32, SiteAt>,
    external_sites: BTreeMap<(i32, u32), i32>,
}

impl<'a> Program<'a> {
    pub fn new() -> Self {
        Program::default()
    }

    /// Adds a class (its original, uninstrumented bytes); returns its name.
    pub fn add_class(
        &mut self,
        class: ClassFile<'a>,
    ) -> Result<ClassName, testgen_classfile::ParseError> {
        let name = ClassName::internal(class.name()?.into_owned());
        self.classes.insert(name.clone(), class);
        Ok(name)
    }

    /// Adds a class (its original bytes, parsed) with the tables of its
    /// instrumented version: its methods' probe ids and its probe sites.
    pub fn add_instrumented(
        &mut self,
        class: ClassFile<'a>,
        instrumented: &Instrumented,
    ) -> Result<ClassName, testgen_classfile::ParseError> {
        let name = self.add_class(class)?;
        for method in &instrumented.methods {
            self.add_method(
                method.id as i32,
                MethodId::new(name.clone(), method.name.clone(), method.descriptor.clone()),
            );
        }
        for site in &instrumented.sites {
            let (opcode, external_call) = match &site.kind {
                SiteKind::Branch { opcode }
                | SiteKind::Switch { opcode }
                | SiteKind::Compare { opcode } => (*opcode, false),
                SiteKind::ExternalCall { .. } => (0, true),
                SiteKind::Throw | SiteKind::Catch => (0, false),
            };
            self.add_site(
                site.id as i32,
                SiteAt {
                    method: site.method as i32,
                    opcode,
                    offset: site.offset,
                    external_call,
                },
            );
        }
        Ok(name)
    }

    /// Adds the instrumenter's probe id of a method.
    pub fn add_method(&mut self, id: i32, method: MethodId) {
        self.ids.insert(method.clone(), id);
        self.methods.insert(id, method);
    }

    pub fn add_site(&mut self, id: i32, at: SiteAt) {
        if at.external_call {
            self.external_sites.insert((at.method, at.offset), id);
        }
        self.sites.insert(id, at);
    }

    pub fn class(&self, name: &ClassName) -> Option<&ClassFile<'a>> {
        self.classes.get(name)
    }

    /// The class with internal name `internal`, for names read off bytecode.
    pub fn class_named(&self, internal: &str) -> Option<&ClassFile<'a>> {
        self.classes.get(&ClassName::internal(internal))
    }

    pub fn contains(&self, name: &ClassName) -> bool {
        self.classes.contains_key(name)
    }

    /// Every class, by name.
    pub fn classes(&self) -> impl Iterator<Item = (&ClassName, &ClassFile<'a>)> {
        self.classes.iter()
    }

    /// The method a probe id stands for.
    pub fn method_of_probe(&self, id: i32) -> Option<&MethodId> {
        self.methods.get(&id)
    }

    /// The probe id of a method.
    pub fn probe_of(&self, method: &MethodId) -> Option<i32> {
        self.ids.get(method).copied()
    }

    pub fn site(&self, id: i32) -> Option<SiteAt> {
        self.sites.get(&id).copied()
    }

    /// The probe site `id` with the method it is in.
    pub fn site_in_method(&self, id: i32) -> Option<(&MethodId, SiteAt)> {
        let at = self.site(id)?;
        Some((self.method_of_probe(at.method)?, at))
    }

    /// The probe site watching the external call at `offset` of `method`.
    pub fn external_site(&self, method: i32, offset: u32) -> Option<i32> {
        self.external_sites.get(&(method, offset)).copied()
    }

    /// The method itself, declared in `method.class`.
    pub fn method(&self, method: &MethodId) -> Option<(&ClassFile<'a>, &Member<'a>)> {
        let class = self.classes.get(&method.class)?;
        let member = class.methods.iter().find(|m| {
            m.name(class).is_ok_and(|n| n == method.name)
                && m.descriptor(class).is_ok_and(|d| d == method.descriptor)
        })?;
        Some((class, member))
    }

    /// Whether the method is declared `static`.
    pub fn is_static(&self, method: &MethodId) -> Option<bool> {
        self.method(method)
            .map(|(_, member)| member.access_flags.is_static())
    }

    /// The instruction at `offset` of a method.
    pub fn instruction_at(&self, method: &MethodId, offset: u32) -> Option<Instruction<'a>> {
        let (class, member) = self.method(method)?;
        let code = member.code(class).ok()??;
        code.instructions()
            .filter_map(|i| i.ok())
            .find(|i| i.offset == offset)
    }

    pub fn opcode_at(&self, method: &MethodId, offset: u32) -> Option<u8> {
        self.instruction_at(method, offset).map(|i| i.opcode)
    }

    /// Whether the switch at `offset` has a case for `key` (else the key
    /// goes to its default).
    pub fn switch_has_case(&self, method: &MethodId, offset: u32, key: i32) -> bool {
        match self.instruction_at(method, offset).map(|i| i.operands) {
            Some(Operands::TableSwitch(table)) => table.targets().any(|(k, _)| k == key),
            Some(Operands::LookupSwitch(lookup)) => lookup.targets().any(|(k, _)| k == key),
            _ => false,
        }
    }

    /// An enum's constants in declaration order (empty for anything else).
    pub fn enum_constants(&self, class: &ClassName) -> Vec<String> {
        let Some(file) = self.classes.get(class) else {
            return Vec::new();
        };
        file.fields
            .iter()
            .filter(|f| f.access_flags.contains(AccessFlags::ENUM))
            .filter_map(|f| f.name(file).ok().map(|n| n.into_owned()))
            .collect()
    }

    /// For a synthetic `$SwitchMap$...` array (javac's enum switch), the
    /// enum and the value stored for each of its constants, read off the
    /// holder's `<clinit>`:
    /// `getstatic map; getstatic Enum.C; invokevirtual ordinal; push k; iastore`.
    pub fn switch_map(
        &self,
        holder: &ClassName,
        field: &str,
    ) -> Option<(ClassName, BTreeMap<String, i32>)> {
        let file = self.classes.get(holder)?;
        let clinit = file
            .methods
            .iter()
            .find(|m| m.name(file).is_ok_and(|n| n == "<clinit>"))?;
        let code = clinit.code(file).ok()??;
        let instructions: Vec<_> = code.instructions().collect::<Result<_, _>>().ok()?;
        let mut mapping = BTreeMap::new();
        let mut enum_class = None;
        for window in instructions.windows(5) {
            let [load, constant, _ordinal, push, store] = window else {
                continue;
            };
            if load.opcode != opcode::GETSTATIC || store.opcode != opcode::IASTORE {
                continue;
            }
            let (Operands::Constant(map_ref), Operands::Constant(constant_ref)) =
                (load.operands, constant.operands)
            else {
                continue;
            };
            let map = file.constant_pool.member_ref(map_ref).ok()?;
            if map.name != field {
                continue;
            }
            let constant = file.constant_pool.member_ref(constant_ref).ok()?;
            let value = match (push.opcode, push.operands) {
                (opcode::ICONST_0..=opcode::ICONST_5, _) => {
                    i32::from(push.opcode) - i32::from(opcode::ICONST_0)
                }
                (_, Operands::Byte(v)) => i32::from(v),
                (_, Operands::Short(v)) => i32::from(v),
                (_, Operands::Constant(index)) => match file.constant_pool.get(index).ok()? {
                    Constant::Integer(v) => *v,
                    _ => continue,
                },
                _ => continue,
            };
            enum_class = Some(ClassName::internal(constant.class.into_owned()));
            mapping.insert(constant.name.into_owned(), value);
        }
        Some((enum_class?, mapping))
    }
}
