//! Which of the program's getters may change state when called.
//!
//! The executor describes every value a plan makes by calling its getters
//! (`getX()`, `isX()`) right after the statement that made it, and the
//! emitter compares those with the values after the act. A getter that
//! consumes input or advances a cursor (`CSVParser.getRecords()` reads the
//! whole stream) would change the object the plan's next statements use:
//! the run would no longer be the test's, and a parser would look empty to
//! every later call. Such getters are left out of the description.
//!
//! A getter is kept only when no method it runs, its own or a program
//! method it calls (up to [`MOST_METHODS`], resolved up the superclasses),
//! writes a field, has no body the analysis can read (abstract, native,
//! beyond the bound), or calls outside the program anything but a
//! constructor, a method known to leave its receiver and arguments as they
//! were ([`is_known_reader`]), or a method of an object the getter made
//! itself (`new StringBuilder().append(..)`, a copy it fills and returns).
//! Conservative: a getter left out loses an assertion, never a test.

use std::collections::{BTreeSet, VecDeque};

use testgen_analysis::dependence::{popped, Origin};
use testgen_analysis::{CallSite, MethodKey};
use testgen_classfile::access::AccessFlags;
use testgen_classfile::descriptor::MethodDescriptor;
use testgen_classfile::instruction::opcode::INVOKESTATIC;
use testgen_exec::GettersWithEffects;
use testgen_project::{ClassName, MethodId};

use crate::Recipes;

/// Methods looked at, at most, for one getter.
const MOST_METHODS: usize = 64;

impl Recipes<'_, '_> {
    /// Per program class (binary name): the names of its public getters
    /// that may change state, for the executor not to call when it
    /// describes a value.
    pub fn getters_with_effects(&self) -> GettersWithEffects {
        let mut found = GettersWithEffects::new();
        for (name, file) in self.program().classes() {
            for method in &file.methods {
                let (Ok(method_name), Ok(descriptor)) =
                    (method.name(file), method.descriptor(file))
                else {
                    continue;
                };
                let flags = method.access_flags;
                if !flags.is_public() || flags.is_static() || !is_getter_name(&method_name) {
                    continue;
                }
                let Ok(parsed) = MethodDescriptor::parse(&descriptor) else {
                    continue;
                };
                if !parsed.parameters.is_empty() || parsed.return_type.is_none() {
                    continue;
                }
                let id = MethodId::new(name.clone(), method_name.as_ref(), descriptor.as_ref());
                if self.may_change_state(&id) {
                    found
                        .entry(name.to_binary())
                        .or_default()
                        .insert(method_name.into_owned());
                }
            }
        }
        found
    }

    /// Whether running `method` may write a field, directly or through the
    /// methods it calls (see the module documentation).
    pub fn may_change_state(&self, method: &MethodId) -> bool {
        let mut seen = BTreeSet::new();
        let mut pending = VecDeque::from([(
            method.class.clone(),
            MethodKey::new(&method.name, &method.descriptor),
        )]);
        while let Some((owner, key)) = pending.pop_front() {
            if !seen.insert((owner.clone(), key.clone())) {
                continue;
            }
            if seen.len() > MOST_METHODS {
                return true;
            }
            let Some((declaring, facts)) = self.declaration(&owner, &key) else {
                return true;
            };
            let flags = facts.access_flags;
            if flags.is_abstract() || flags.contains(AccessFlags::NATIVE) {
                return true;
            }
            if facts.field_accesses.iter().any(|access| access.is_write()) {
                return true;
            }
            for call in &facts.calls {
                let callee = ClassName::internal(call.target.owner.as_str());
                if self.program().class(&callee).is_some() {
                    pending.push_back((
                        callee,
                        MethodKey::new(&call.target.name, &call.target.descriptor),
                    ));
                } else if call.target.name != "<init>"
                    && !is_known_reader(&call.target.owner, &call.target.name)
                    && !self.receiver_is_made_here(&declaring, &key, call)
                {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the receiver of `call` in method `key` of `class` is an
    /// object that method made (`new`), so that the call changes nothing
    /// that existed before.
    fn receiver_is_made_here(&self, class: &ClassName, key: &MethodKey, call: &CallSite) -> bool {
        if call.opcode == INVOKESTATIC {
            return false;
        }
        let Some(file) = self.program().class(class) else {
            return false;
        };
        let Some(member) = file.methods.iter().find(|member| {
            member.name(file).is_ok_and(|name| name == key.name)
                && member
                    .descriptor(file)
                    .is_ok_and(|descriptor| descriptor == key.descriptor)
        }) else {
            return false;
        };
        popped(file, member, call.offset)
            .ok()
            .and_then(|origins| origins.into_iter().next())
            .is_some_and(|receiver| matches!(receiver, Origin::New { .. }))
    }

    /// The facts of `key` as `owner` or its nearest program superclass
    /// declares it.
    fn declaration(
        &self,
        owner: &ClassName,
        key: &MethodKey,
    ) -> Option<(ClassName, testgen_analysis::MethodFacts)> {
        let mut class = owner.clone();
        for _ in 0..MOST_METHODS {
            let access = self.access(&class)?;
            if let Some(facts) = access.method(&key.name, &key.descriptor) {
                return Some((class, facts.clone()));
            }
            let parent = self.hierarchy().super_class(class.as_internal())?;
            class = ClassName::internal(parent);
            self.program().class(&class)?;
        }
        None
    }
}

/// `getX`/`isX` with an upper-case letter (or digit) next, as the executor
/// recognises getters.
fn is_getter_name(name: &str) -> bool {
    let rest = name.strip_prefix("get").or_else(|| name.strip_prefix("is"));
    rest.and_then(|rest| rest.chars().next())
        .is_some_and(|first| !first.is_lowercase())
}

/// A JDK method that changes none of the objects it is given (its receiver
/// included), or only a builder or iterator a getter makes for itself:
/// value types, text, arithmetic, and the reading methods of collections.
fn is_known_reader(owner: &str, name: &str) -> bool {
    const VALUE_CLASSES: &[&str] = &[
        "java/lang/Object",
        "java/lang/String",
        "java/lang/StringBuilder",
        "java/lang/StringBuffer",
        "java/lang/CharSequence",
        "java/lang/Character",
        "java/lang/Boolean",
        "java/lang/Byte",
        "java/lang/Short",
        "java/lang/Integer",
        "java/lang/Long",
        "java/lang/Float",
        "java/lang/Double",
        "java/lang/Number",
        "java/lang/Math",
        "java/lang/StrictMath",
        "java/lang/Enum",
        "java/lang/Class",
        "java/util/Objects",
        "java/util/Optional",
        "java/math/BigInteger",
        "java/math/BigDecimal",
        "java/util/regex/Pattern",
        "java/util/regex/Matcher",
    ];
    const COLLECTION_READERS: &[&str] = &[
        "size",
        "isEmpty",
        "get",
        "getOrDefault",
        "contains",
        "containsKey",
        "containsValue",
        "indexOf",
        "lastIndexOf",
        "keySet",
        "values",
        "entrySet",
        "getKey",
        "getValue",
        "iterator",
        "listIterator",
        "hasNext",
        "next",
        "stream",
        "toArray",
        "subList",
        "peek",
        "peekFirst",
        "peekLast",
        "getFirst",
        "getLast",
        "first",
        "last",
        "firstKey",
        "lastKey",
        "headMap",
        "tailMap",
        "subMap",
        "headSet",
        "tailSet",
        "comparator",
        "equals",
        "hashCode",
        "toString",
        "of",
        "copyOf",
        "emptyList",
        "emptySet",
        "emptyMap",
        "singletonList",
        "singleton",
        "singletonMap",
        "unmodifiableList",
        "unmodifiableSet",
        "unmodifiableMap",
        "unmodifiableCollection",
        "unmodifiableSortedSet",
        "unmodifiableSortedMap",
        "asList",
        "copyOfRange",
        "deepEquals",
        "deepHashCode",
        "deepToString",
    ];
    if VALUE_CLASSES.contains(&owner) {
        return true;
    }
    owner.starts_with("java/util/") && COLLECTION_READERS.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getter_names_follow_the_executors_rule() {
        assert!(is_getter_name("getRecords"));
        assert!(is_getter_name("isClosed"));
        assert!(!is_getter_name("get"));
        assert!(!is_getter_name("getaway"));
        assert!(!is_getter_name("island"));
    }

    #[test]
    fn readers_are_value_classes_and_collection_reads_only() {
        assert!(is_known_reader("java/lang/String", "substring"));
        assert!(is_known_reader("java/util/ArrayList", "size"));
        assert!(!is_known_reader("java/util/ArrayList", "clear"));
        assert!(!is_known_reader("java/io/Reader", "read"));
        assert!(!is_known_reader("java/util/Random", "nextInt"));
    }
}
