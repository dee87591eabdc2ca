//! Mutable static state of a class: static fields that hold something one
//! call can change for the next, so that two tests of the class may see each
//! other's traces when they run in one JVM; and the methods that might put
//! that state back (a `reset()`, a `clear()`).
//!
//! A static field is mutable state when
//! - a method other than the class initialiser assigns it (`putstatic`), or
//! - it is declared with a mutable container type (a `java.util` collection
//!   or map, a `java.util.concurrent` one, an atomic, a `StringBuilder`) and
//!   a method other than the class initialiser reads it, so it may add to
//!   or clear what it holds.
//!
//! Not counted: arrays (almost always lookup tables filled once), enum
//! constants, synthetic fields (`$assertionsDisabled`), and state kept in
//! other classes.

use testgen_classfile::{AccessFlags, ClassFile};

use crate::access::{ClassAccess, FieldRef, MethodKey};
use crate::error::Result;

/// A static field of the class that is mutable state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticField {
    pub name: String,
    pub descriptor: String,
    pub why: Mutability,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mutability {
    /// Assigned outside the class initialiser.
    Assigned,
    /// A mutable container read outside the class initialiser.
    Container,
}

/// The class's mutable static fields, in declaration order.
pub fn mutable_static_fields(
    class: &ClassFile<'_>,
    access: &ClassAccess,
) -> Result<Vec<StaticField>> {
    let owner = class.name()?.into_owned();
    let mut fields = Vec::new();
    for field in &class.fields {
        let flags = field.access_flags;
        if !flags.is_static()
            || flags.contains(AccessFlags::SYNTHETIC)
            || flags.contains(AccessFlags::ENUM)
        {
            continue;
        }
        let name = field.name(class)?.into_owned();
        let descriptor = field.descriptor(class)?.into_owned();
        let reference = FieldRef {
            owner: owner.clone(),
            name: name.clone(),
            descriptor: descriptor.clone(),
        };
        let assigned = access
            .writers_of(&reference)
            .iter()
            .any(|writer| !is_initialiser(&writer.method));
        let why = if assigned {
            Mutability::Assigned
        } else if is_mutable_container(&descriptor) && read_after_initialisation(access, &reference)
        {
            Mutability::Container
        } else {
            continue;
        };
        fields.push(StaticField {
            name,
            descriptor,
            why,
        });
    }
    Ok(fields)
}

/// Public static methods without parameters or result that touch the
/// mutable static `fields` (assign one, or read a container one): the
/// methods that might put the state back, in class-file order. Whether one
/// really does is for running to tell.
pub fn reset_candidates(
    class: &ClassFile<'_>,
    access: &ClassAccess,
    fields: &[StaticField],
) -> Result<Vec<MethodKey>> {
    let owner = class.name()?.into_owned();
    let touches = |name: &str, descriptor: &str| {
        let Some(merged) = access.merged(name, descriptor) else {
            return false;
        };
        fields.iter().any(|field| {
            let reference = FieldRef {
                owner: owner.clone(),
                name: field.name.clone(),
                descriptor: field.descriptor.clone(),
            };
            merged.writes.contains(&reference)
                || (field.why == Mutability::Container && merged.reads.contains(&reference))
        })
    };
    Ok(access
        .methods()
        .iter()
        .filter(|facts| {
            facts.access_flags.is_static()
                && facts.access_flags.is_public()
                && facts.key.descriptor == "()V"
                && !is_initialiser(&facts.key)
                && touches(&facts.key.name, &facts.key.descriptor)
        })
        .map(|facts| facts.key.clone())
        .collect())
}

fn is_initialiser(method: &MethodKey) -> bool {
    method.name == "<clinit>"
}

fn read_after_initialisation(access: &ClassAccess, field: &FieldRef) -> bool {
    access.methods().iter().any(|facts| {
        !is_initialiser(&facts.key)
            && access
                .merged(&facts.key.name, &facts.key.descriptor)
                .is_some_and(|merged| merged.reads.contains(field))
    })
}

/// Collections, maps, atomics and string builders: objects a static final
/// field can hold and every call can change.
fn is_mutable_container(descriptor: &str) -> bool {
    const UTIL: [&str; 31] = [
        "Collection",
        "List",
        "ArrayList",
        "LinkedList",
        "Vector",
        "Stack",
        "Set",
        "HashSet",
        "LinkedHashSet",
        "TreeSet",
        "SortedSet",
        "NavigableSet",
        "Map",
        "HashMap",
        "LinkedHashMap",
        "TreeMap",
        "SortedMap",
        "NavigableMap",
        "Hashtable",
        "Properties",
        "IdentityHashMap",
        "WeakHashMap",
        "EnumMap",
        "Queue",
        "Deque",
        "ArrayDeque",
        "PriorityQueue",
        "BitSet",
        "EnumSet",
        "Random",
        "Iterator",
    ];
    let Some(class) = descriptor
        .strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
    else {
        return false;
    };
    if let Some(concurrent) = class.strip_prefix("java/util/concurrent/") {
        return concurrent.starts_with("atomic/")
            || ["Map", "Queue", "Deque", "List", "Set"]
                .iter()
                .any(|kind| concurrent.ends_with(kind));
    }
    if let Some(simple) = class.strip_prefix("java/util/") {
        return UTIL.contains(&simple);
    }
    matches!(class, "java/lang/StringBuilder" | "java/lang/StringBuffer")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containers_are_recognised_by_type() {
        assert!(is_mutable_container("Ljava/util/HashMap;"));
        assert!(is_mutable_container("Ljava/util/List;"));
        assert!(is_mutable_container(
            "Ljava/util/concurrent/ConcurrentHashMap;"
        ));
        assert!(is_mutable_container(
            "Ljava/util/concurrent/atomic/AtomicInteger;"
        ));
        assert!(is_mutable_container("Ljava/lang/StringBuilder;"));
        assert!(!is_mutable_container("Ljava/util/regex/Pattern;"));
        assert!(!is_mutable_container("Ljava/util/Locale;"));
        assert!(!is_mutable_container("[I"));
        assert!(!is_mutable_container("Ljava/lang/String;"));
        assert!(!is_mutable_container("I"));
    }
}
