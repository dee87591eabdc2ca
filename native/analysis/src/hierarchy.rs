//! The class hierarchy of a set of parsed classes (the project's, usually):
//! supertypes, subtypes, and the concrete classes a test can instantiate for
//! a declared type.
//!
//! Only the given classes are known. Their supertypes may be outside the
//! set (`java/util/AbstractList`) and are then known by name only: edges are
//! followed through them no further, except for the few JDK types ordinary
//! code extends and tests for ([`jdk_supertypes`]: exceptions, boxes,
//! `String`), whose place in the JDK is written down here, so a program's
//! `AppException extends IllegalStateException` is a `RuntimeException`.
//! `java/lang/Object` is special: every type is assignable to it, whether
//! or not the set holds it.
//!
//! Every list comes out sorted by internal name.

use std::collections::{BTreeMap, BTreeSet};

use testgen_classfile::{AccessFlags, ClassFile, Member};

use crate::error::Result;

const OBJECT: &str = "java/lang/Object";

/// What the hierarchy knows about one class or interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeInfo {
    /// Internal name, e.g. `org/example/Shape`.
    pub name: String,
    pub access_flags: AccessFlags,
    /// `None` only for `java/lang/Object` (interfaces name it too).
    pub super_name: Option<String>,
    /// Directly implemented (or, for an interface, extended) interfaces, in
    /// class-file order.
    pub interfaces: Vec<String>,
    /// Constructors in class-file order.
    pub constructors: Vec<MemberInfo>,
    /// Fields in class-file order.
    pub fields: Vec<MemberInfo>,
}

/// A field or constructor: descriptor and access flags (and name, which is
/// always `<init>` for a constructor).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberInfo {
    pub name: String,
    pub descriptor: String,
    pub access_flags: AccessFlags,
}

impl TypeInfo {
    /// What the hierarchy keeps of `class`; fails when a name or
    /// descriptor it needs does not read.
    pub fn of(class: &ClassFile<'_>) -> Result<TypeInfo> {
        let constructors = members(class, &class.methods, |name| name == "<init>")?;
        Ok(TypeInfo {
            name: class.name()?.into_owned(),
            access_flags: class.access_flags,
            super_name: class.super_name()?.map(|name| name.into_owned()),
            interfaces: class
                .interface_names()?
                .into_iter()
                .map(|name| name.into_owned())
                .collect(),
            constructors,
            fields: members(class, &class.fields, |_| true)?,
        })
    }

    pub fn is_interface(&self) -> bool {
        self.access_flags.is_interface()
    }

    /// Abstract classes and interfaces (which are always abstract).
    pub fn is_abstract(&self) -> bool {
        self.access_flags.is_abstract() || self.is_interface()
    }

    /// A class that can be instantiated: neither abstract nor an interface
    /// (nor an annotation, which is an interface).
    pub fn is_concrete(&self) -> bool {
        !self.is_abstract()
    }

    pub fn public_constructors(&self) -> impl Iterator<Item = &MemberInfo> + '_ {
        self.constructors
            .iter()
            .filter(|constructor| constructor.access_flags.is_public())
    }

    /// Every direct supertype: the super class, then the interfaces.
    fn direct_supertypes(&self) -> impl Iterator<Item = &str> + '_ {
        self.super_name
            .as_deref()
            .into_iter()
            .chain(self.interfaces.iter().map(String::as_str))
    }
}

/// The members of `list` whose name passes `wanted`, resolved to names.
fn members(
    class: &ClassFile<'_>,
    list: &[Member<'_>],
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<MemberInfo>> {
    let mut out = Vec::new();
    for member in list {
        let name = member.name(class)?;
        if wanted(&name) {
            out.push(MemberInfo {
                name: name.into_owned(),
                descriptor: member.descriptor(class)?.into_owned(),
                access_flags: member.access_flags,
            });
        }
    }
    Ok(out)
}

/// Supertype and subtype relations over a set of classes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Hierarchy {
    types: BTreeMap<String, TypeInfo>,
    /// Type name (known or not) -> the known types that name it as a direct
    /// supertype.
    direct_subtypes: BTreeMap<String, BTreeSet<String>>,
}

impl Hierarchy {
    /// The hierarchy of `classes`. When two classes have the same name the
    /// first is kept, as on a class path. `module-info` is left out.
    pub fn new<'c, 'a: 'c>(classes: impl IntoIterator<Item = &'c ClassFile<'a>>) -> Result<Self> {
        let mut hierarchy = Hierarchy::default();
        for class in classes {
            if class.is_module_info() {
                continue;
            }
            let info = TypeInfo::of(class)?;
            if hierarchy.types.contains_key(&info.name) {
                continue;
            }
            for supertype in info.direct_supertypes() {
                hierarchy
                    .direct_subtypes
                    .entry(supertype.to_owned())
                    .or_default()
                    .insert(info.name.clone());
            }
            hierarchy.types.insert(info.name.clone(), info);
        }
        Ok(hierarchy)
    }

    /// The known type called `name`.
    pub fn get(&self, name: &str) -> Option<&TypeInfo> {
        self.types.get(name)
    }

    /// Every known type, sorted by name.
    pub fn types(&self) -> impl Iterator<Item = &TypeInfo> + '_ {
        self.types.values()
    }

    pub fn len(&self) -> usize {
        self.types.len()
    }

    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// The super class of a known type.
    pub fn super_class(&self, name: &str) -> Option<&str> {
        self.get(name)?.super_name.as_deref()
    }

    /// The interfaces a known type names directly.
    pub fn interfaces(&self, name: &str) -> &[String] {
        self.get(name)
            .map_or(&[], |info| info.interfaces.as_slice())
    }

    /// `Some(true)` for a known interface, `None` for an unknown type.
    pub fn is_interface(&self, name: &str) -> Option<bool> {
        self.get(name).map(TypeInfo::is_interface)
    }

    /// `Some(true)` for a known abstract class or interface.
    pub fn is_abstract(&self, name: &str) -> Option<bool> {
        self.get(name).map(TypeInfo::is_abstract)
    }

    /// The super classes of `name`, nearest first, as far as they are known:
    /// the last one is the first unknown class (often `java/lang/Object`).
    pub fn superclasses(&self, name: &str) -> Vec<&str> {
        let mut chain: Vec<&str> = Vec::new();
        let mut current = self.super_class(name);
        while let Some(class) = current {
            // A cycle (only in hostile input) must not loop forever.
            if chain.contains(&class) || class == name {
                break;
            }
            chain.push(class);
            current = self.super_class(class);
        }
        chain
    }

    /// Every supertype of `name`, transitively: super classes and
    /// interfaces, known or named by a known type; `name` itself excluded.
    pub fn supertypes(&self, name: &str) -> Vec<&str> {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut work: Vec<&str> = vec![name];
        while let Some(current) = work.pop() {
            let Some(info) = self.get(current) else {
                continue;
            };
            for supertype in info.direct_supertypes() {
                if supertype != name && seen.insert(supertype) {
                    work.push(supertype);
                }
            }
        }
        seen.into_iter().collect()
    }

    /// Whether a value of type `sub` can be assigned to `sup` as far as the
    /// known classes tell (reflexive; everything is assignable to
    /// `java/lang/Object`).
    pub fn is_assignable(&self, sub: &str, sup: &str) -> bool {
        sub == sup || sup == OBJECT || self.supertypes(sub).contains(&sup)
    }

    /// Known classes whose super class is `name`.
    pub fn direct_subclasses(&self, name: &str) -> Vec<&str> {
        self.direct_subtypes(name)
            .filter(|sub| {
                self.get(sub).is_some_and(|info| {
                    !info.is_interface() && info.super_name.as_deref() == Some(name)
                })
            })
            .collect()
    }

    /// Known classes that extend `name`, directly or not.
    pub fn subclasses(&self, name: &str) -> Vec<&str> {
        self.subtypes(name)
            .into_iter()
            .filter(|sub| self.superclasses(sub).contains(&name))
            .collect()
    }

    /// Known classes (not interfaces) that implement the interface `name`,
    /// directly, through a sub-interface or through a super class.
    pub fn implementors(&self, name: &str) -> Vec<&str> {
        self.subtypes(name)
            .into_iter()
            .filter(|sub| self.is_interface(sub) == Some(false))
            .collect()
    }

    /// Every known type assignable to `name`, other than `name` itself:
    /// subclasses, sub-interfaces and implementing classes, transitively.
    pub fn subtypes(&self, name: &str) -> Vec<&str> {
        if name == OBJECT {
            return self
                .types
                .keys()
                .map(String::as_str)
                .filter(|&known| known != OBJECT)
                .collect();
        }
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut work = vec![name];
        while let Some(current) = work.pop() {
            let through_jdk: Vec<&'static str> = jdk_direct_subtypes(current).collect();
            for sub in self.direct_subtypes(current).chain(through_jdk) {
                if sub != name && seen.insert(sub) {
                    work.push(sub);
                }
            }
        }
        // The JDK types walked through are not the set's.
        seen.into_iter()
            .filter(|sub| self.types.contains_key(*sub))
            .collect()
    }

    /// The known concrete classes assignable to `name` (`name` included)
    /// that have a public constructor: what a test can `new` where `name` is
    /// expected. Sorted by name. Whether the class itself is accessible from
    /// the test's package is left to the caller ([`TypeInfo::access_flags`]).
    pub fn instantiable(&self, name: &str) -> Vec<&str> {
        std::iter::once(name)
            .chain(self.subtypes(name))
            .filter_map(|candidate| self.types.get_key_value(candidate))
            .filter(|(_, info)| info.is_concrete() && info.public_constructors().next().is_some())
            .map(|(known, _)| known.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// The known class that declares the field a `getfield`/`putfield`
    /// names as `owner.name:descriptor`, looked up as the JVM resolves fields
    /// (JVMS 5.4.3.2): the class itself, then its super-interfaces, then its
    /// super class, recursively. `None` when the search runs into an unknown
    /// type before finding it.
    pub fn field_owner(&self, owner: &str, name: &str, descriptor: &str) -> Option<&str> {
        let mut visited = BTreeSet::new();
        self.find_field(owner, name, descriptor, &mut visited)
    }

    fn find_field<'h>(
        &'h self,
        class: &str,
        name: &str,
        descriptor: &str,
        visited: &mut BTreeSet<&'h str>,
    ) -> Option<&'h str> {
        let (known, info) = self.types.get_key_value(class)?;
        if !visited.insert(known.as_str()) {
            return None;
        }
        if info
            .fields
            .iter()
            .any(|field| field.name == name && field.descriptor == descriptor)
        {
            return Some(known);
        }
        info.interfaces
            .iter()
            .chain(info.super_name.iter())
            .find_map(|supertype| self.find_field(supertype, name, descriptor, visited))
    }

    fn direct_subtypes(&self, name: &str) -> impl Iterator<Item = &str> + '_ {
        self.direct_subtypes
            .get(name)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }
}

/// The direct supertypes of the JDK types ordinary code extends and tests
/// for (in `instanceof`, casts and catch clauses), beyond any set of
/// classes: what the hierarchy knows of the JDK.
pub fn jdk_supertypes(class: &str) -> &'static [&'static str] {
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

/// Every JDK type [`jdk_supertypes`] knows.
const JDK_TYPES: &[&str] = &[
    "java/lang/String",
    "java/lang/Integer",
    "java/lang/Long",
    "java/lang/Short",
    "java/lang/Byte",
    "java/lang/Double",
    "java/lang/Float",
    "java/lang/Number",
    "java/lang/Boolean",
    "java/lang/Character",
    "java/lang/ArithmeticException",
    "java/lang/NullPointerException",
    "java/lang/ClassCastException",
    "java/lang/NegativeArraySizeException",
    "java/lang/ArrayStoreException",
    "java/lang/IllegalArgumentException",
    "java/lang/IllegalStateException",
    "java/lang/IndexOutOfBoundsException",
    "java/lang/UnsupportedOperationException",
    "java/lang/ArrayIndexOutOfBoundsException",
    "java/lang/StringIndexOutOfBoundsException",
    "java/lang/NumberFormatException",
    "java/lang/RuntimeException",
    "java/lang/Exception",
    "java/lang/Error",
    "java/lang/AssertionError",
    "java/lang/Throwable",
];

/// The JDK types [`jdk_supertypes`] names `class` a direct supertype of.
fn jdk_direct_subtypes(class: &str) -> impl Iterator<Item = &'static str> + '_ {
    JDK_TYPES
        .iter()
        .copied()
        .filter(move |jdk| jdk_supertypes(jdk).contains(&class))
}
