//! The code under test as the interpreter sees it: parsed classes by
//! internal name, and the instrumenter's tables that tie trace events to
//! methods and bytecode offsets.

use std::collections::{BTreeMap, BTreeSet};

use testgen_classfile::access::AccessFlags;
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::{ClassFile, Constant, Member};

/// A method by class (internal name), name and descriptor.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MethodKey {
    pub class: String,
    pub name: String,
    pub descriptor: String,
}

impl MethodKey {
    pub fn new(class: &str, name: &str, descriptor: &str) -> MethodKey {
        MethodKey {
            class: class.to_string(),
            name: name.to_string(),
            descriptor: descriptor.to_string(),
        }
    }

    /// `pkg.Class.name(descriptor)`: how decisions name their method.
    pub fn label(&self) -> String {
        format!(
            "{}.{}{}",
            self.class.replace('/', "."),
            self.name,
            self.descriptor
        )
    }
}

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
    classes: BTreeMap<String, ClassFile<'a>>,
    methods: BTreeMap<i32, MethodKey>,
    ids: BTreeMap<MethodKey, i32>,
    sites: BTreeMap<i32, SiteAt>,
    external_sites: BTreeMap<(i32, u32), i32>,
}

impl<'a> Program<'a> {
    pub fn new() -> Self {
        Program::default()
    }

    /// Adds a class (its original, uninstrumented bytes).
    pub fn add_class(&mut self, class: ClassFile<'a>) -> Result<(), String> {
        let name = class.name().map_err(|e| e.to_string())?.into_owned();
        self.classes.insert(name, class);
        Ok(())
    }

    /// Adds the instrumenter's method id for a method of `class`.
    pub fn add_method(&mut self, id: i32, key: MethodKey) {
        self.ids.insert(key.clone(), id);
        self.methods.insert(id, key);
    }

    pub fn add_site(&mut self, id: i32, at: SiteAt) {
        if at.external_call {
            self.external_sites.insert((at.method, at.offset), id);
        }
        self.sites.insert(id, at);
    }

    pub fn class(&self, internal_name: &str) -> Option<&ClassFile<'a>> {
        self.classes.get(internal_name)
    }

    pub fn classes(&self) -> impl Iterator<Item = (&String, &ClassFile<'a>)> {
        self.classes.iter()
    }

    pub fn method_key(&self, id: i32) -> Option<&MethodKey> {
        self.methods.get(&id)
    }

    pub fn method_id(&self, key: &MethodKey) -> Option<i32> {
        self.ids.get(key).copied()
    }

    pub fn site(&self, id: i32) -> Option<SiteAt> {
        self.sites.get(&id).copied()
    }

    /// The probe site watching the external call at `offset` of `method`.
    pub fn external_site(&self, method: i32, offset: u32) -> Option<i32> {
        self.external_sites.get(&(method, offset)).copied()
    }

    /// The method itself, declared in `key.class`.
    pub fn method(&self, key: &MethodKey) -> Option<(&ClassFile<'a>, &Member<'a>)> {
        let class = self.classes.get(&key.class)?;
        let member = class.methods.iter().find(|m| {
            m.name(class).is_ok_and(|n| n == key.name)
                && m.descriptor(class).is_ok_and(|d| d == key.descriptor)
        })?;
        Some((class, member))
    }

    /// The fields of `key.class` that the method reads and writes, in its
    /// own code and in the methods of the same class it calls, directly or
    /// not: (read, written). Tells which calls can prepare a receiver for
    /// another (a setter writes what the method under test reads).
    pub fn field_accesses(&self, key: &MethodKey) -> (BTreeSet<String>, BTreeSet<String>) {
        let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
        let mut seen = BTreeSet::new();
        let mut pending = vec![key.clone()];
        while let Some(next) = pending.pop() {
            if !seen.insert(next.clone()) {
                continue;
            }
            let Some((class, member)) = self.method(&next) else {
                continue;
            };
            let Ok(Some(code)) = member.code(class) else {
                continue;
            };
            for instruction in code.instructions().filter_map(|i| i.ok()) {
                let Operands::Constant(index) = instruction.operands else {
                    continue;
                };
                let Ok(member) = class.constant_pool.member_ref(index) else {
                    continue;
                };
                if member.class != key.class.as_str() {
                    continue;
                }
                match instruction.opcode {
                    opcode::GETFIELD => {
                        read.insert(member.name.into_owned());
                    }
                    opcode::PUTFIELD => {
                        written.insert(member.name.into_owned());
                    }
                    opcode::INVOKEVIRTUAL | opcode::INVOKESPECIAL | opcode::INVOKESTATIC => {
                        pending.push(MethodKey::new(&key.class, &member.name, &member.descriptor));
                    }
                    _ => {}
                }
            }
        }
        (read, written)
    }

    /// The instruction at `offset` of a method.
    pub fn instruction_at(&self, key: &MethodKey, offset: u32) -> Option<Instruction<'a>> {
        let (class, member) = self.method(key)?;
        let code = member.code(class).ok()??;
        code.instructions()
            .filter_map(|i| i.ok())
            .find(|i| i.offset == offset)
    }

    pub fn opcode_at(&self, key: &MethodKey, offset: u32) -> Option<u8> {
        self.instruction_at(key, offset).map(|i| i.opcode)
    }

    /// Whether the switch at `offset` has a case for `key` (else the key
    /// goes to its default).
    pub fn switch_has_case(&self, method: &MethodKey, offset: u32, key: i32) -> bool {
        match self.instruction_at(method, offset).map(|i| i.operands) {
            Some(Operands::TableSwitch(table)) => table.targets().any(|(k, _)| k == key),
            Some(Operands::LookupSwitch(lookup)) => lookup.targets().any(|(k, _)| k == key),
            _ => false,
        }
    }

    /// The superclass chain and interfaces of `class`, itself first, as far
    /// as the program knows them, then what is known of the JDK's types.
    pub fn supertypes(&self, class: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut pending = vec![class.to_string()];
        while let Some(next) = pending.pop() {
            if found.contains(&next) {
                continue;
            }
            if let Some(file) = self.classes.get(&next) {
                if let Ok(Some(parent)) = file.super_name() {
                    pending.push(parent.into_owned());
                }
                if let Ok(interfaces) = file.interface_names() {
                    pending.extend(interfaces.into_iter().map(|i| i.into_owned()));
                }
            } else {
                pending.extend(jdk_supertypes(&next).iter().map(|s| s.to_string()));
            }
            found.push(next);
        }
        if !found.iter().any(|c| c == "java/lang/Object") {
            found.push("java/lang/Object".into());
        }
        found
    }

    /// Whether an object of runtime class `class` is an instance of `of`.
    pub fn is_subtype(&self, class: &str, of: &str) -> bool {
        class == of || of == "java/lang/Object" || self.supertypes(class).iter().any(|s| s == of)
    }

    /// Concrete classes of the program that are `of` or below it and have a
    /// public constructor, sorted by name.
    pub fn implementations(&self, of: &str) -> Vec<String> {
        self.classes
            .iter()
            .filter(|(name, class)| {
                let flags = class.access_flags;
                !flags.is_interface()
                    && !flags.is_abstract()
                    && flags.is_public()
                    && self.is_subtype(name, of)
                    && !public_constructors(class).is_empty()
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// Public static methods of `class` that return a `class`: (name,
    /// descriptor), in class-file order.
    pub fn static_factories(&self, class: &str) -> Vec<(String, String)> {
        let Some(file) = self.classes.get(class) else {
            return Vec::new();
        };
        if !file.access_flags.is_public() {
            return Vec::new();
        }
        let returns = format!(")L{class};");
        file.methods
            .iter()
            .filter(|m| m.access_flags.is_public() && m.access_flags.is_static())
            .filter(|m| !m.access_flags.contains(AccessFlags::SYNTHETIC))
            .filter_map(|m| {
                let name = m.name(file).ok()?.into_owned();
                let descriptor = m.descriptor(file).ok()?.into_owned();
                // An enum's valueOf is a factory in form only.
                let is_enum_lookup =
                    name == "valueOf" && file.access_flags.contains(AccessFlags::ENUM);
                (descriptor.ends_with(&returns) && !is_enum_lookup).then_some((name, descriptor))
            })
            .collect()
    }

    /// The public static final fields of `class` whose type is `class`
    /// itself (`CSVFormat.DEFAULT`), in declaration order; an enum's
    /// constants are not among them (they have choices of their own).
    pub fn static_constants(&self, class: &str) -> Vec<String> {
        let Some(file) = self.classes.get(class) else {
            return Vec::new();
        };
        if !file.access_flags.is_public() {
            return Vec::new();
        }
        let own_type = format!("L{class};");
        file.fields
            .iter()
            .filter(|f| {
                let flags = f.access_flags;
                flags.is_public()
                    && flags.is_static()
                    && flags.contains(AccessFlags::FINAL)
                    && !flags.contains(AccessFlags::ENUM)
                    && !flags.contains(AccessFlags::SYNTHETIC)
            })
            .filter_map(|f| {
                let descriptor = f.descriptor(file).ok()?;
                (descriptor == own_type.as_str())
                    .then(|| f.name(file).ok().map(|n| n.into_owned()))?
            })
            .collect()
    }

    /// An enum's constants in declaration order.
    pub fn enum_constants(&self, class: &str) -> Vec<String> {
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
    /// value stored for each constant, read off the holder's `<clinit>`:
    /// `getstatic map; getstatic Enum.C; invokevirtual ordinal; push k; iastore`.
    pub fn switch_map(&self, holder: &str, field: &str) -> Option<(String, BTreeMap<String, i32>)> {
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
            enum_class = Some(constant.class.into_owned());
            mapping.insert(constant.name.into_owned(), value);
        }
        Some((enum_class?, mapping))
    }
}

/// Descriptors of a class's public constructors, in class-file order.
pub fn public_constructors(class: &ClassFile<'_>) -> Vec<String> {
    class
        .methods
        .iter()
        .filter(|m| m.access_flags.is_public() && m.name(class).is_ok_and(|n| n == "<init>"))
        .filter_map(|m| m.descriptor(class).ok().map(|d| d.into_owned()))
        .collect()
}

/// What the interpreter needs to know of the JDK's type hierarchy: the
/// types that appear in `instanceof`, casts and catch clauses of ordinary
/// code.
fn jdk_supertypes(class: &str) -> &'static [&'static str] {
    match class {
        "java/lang/String" => &[
            "java/io/Serializable",
            "java/lang/Comparable",
            "java/lang/CharSequence",
        ],
        "java/lang/Integer" | "java/lang/Long" | "java/lang/Short" | "java/lang/Byte"
        | "java/lang/Double" | "java/lang/Float" => &["java/lang/Number", "java/lang/Comparable"],
        "java/lang/Number" => &["java/io/Serializable"],
        "java/lang/Boolean" | "java/lang/Character" => {
            &["java/io/Serializable", "java/lang/Comparable"]
        }
        "java/lang/ArithmeticException"
        | "java/lang/NullPointerException"
        | "java/lang/ClassCastException"
        | "java/lang/NegativeArraySizeException"
        | "java/lang/ArrayStoreException"
        | "java/lang/IllegalArgumentException"
        | "java/lang/IllegalStateException"
        | "java/lang/IndexOutOfBoundsException"
        | "java/lang/UnsupportedOperationException" => &["java/lang/RuntimeException"],
        "java/lang/ArrayIndexOutOfBoundsException"
        | "java/lang/StringIndexOutOfBoundsException" => &["java/lang/IndexOutOfBoundsException"],
        "java/lang/NumberFormatException" => &["java/lang/IllegalArgumentException"],
        "java/lang/RuntimeException" => &["java/lang/Exception"],
        "java/lang/Exception" | "java/lang/Error" => &["java/lang/Throwable"],
        "java/lang/AssertionError" => &["java/lang/Error"],
        "java/lang/Throwable" => &["java/io/Serializable"],
        _ => &[],
    }
}
