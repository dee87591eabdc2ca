//! The call sequences that prepare a receiver before the call under test
//! (the JTestCraft thesis' candidate sequences): a coin box needs two
//! `addQuarter()` calls before `vend()` can succeed.
//!
//! Candidates are the class's non-private instance methods other than getters
//! and `equals`/`hashCode`/`toString`; those that write a field the method
//! under test reads (through same-class calls too) come first.

use std::collections::BTreeSet;

use testgen_analysis::{ClassAccess, MethodFacts, MethodKey};
use testgen_classfile::access::AccessFlags;
use testgen_classfile::instruction::opcode;
use testgen_project::{MethodId, Program};

/// How many receiver-preparing sequences, and how long.
#[derive(Clone, Debug)]
pub struct ContextBounds {
    /// Calls made on the receiver before the call under test, at most.
    pub max_prefix_length: usize,
    /// Sequences tried at most (the empty one included).
    pub max_contexts: usize,
    /// The same call repeated up to this many times is a sequence of its own
    /// (for a call that reads a field it writes).
    pub max_repeated_calls: usize,
}

impl Default for ContextBounds {
    fn default() -> Self {
        ContextBounds {
            max_prefix_length: 3,
            max_contexts: 24,
            max_repeated_calls: 5,
        }
    }
}

/// The empty sequence, then each call once or, when its effect builds on
/// itself, repeated (a counter that needs several increments), then every
/// sequence, shortest first, each group in
/// the candidates' order, up to `bounds.max_contexts` in all. Only the empty
/// sequence for static methods and constructors.
pub fn contexts(
    program: &Program<'_>,
    target: &MethodId,
    is_static: bool,
    bounds: &ContextBounds,
) -> Vec<Vec<MethodId>> {
    let mut contexts = vec![Vec::new()];
    if bounds.max_prefix_length == 0 {
        return contexts;
    }
    let PreparingCalls {
        calls,
        accumulating,
    } = preparing_calls(program, target, is_static);
    for call in &calls {
        let repeats = if accumulating.contains(call) {
            bounds.max_repeated_calls
        } else {
            1
        };
        for times in 1..=repeats {
            if contexts.len() >= bounds.max_contexts {
                return contexts;
            }
            contexts.push(vec![call.clone(); times]);
        }
    }
    let mut frontier: Vec<Vec<MethodId>> = vec![Vec::new()];
    for _ in 0..bounds.max_prefix_length {
        let mut longer = Vec::new();
        for prefix in &frontier {
            for call in &calls {
                if prefix.last() == Some(call) && !accumulating.contains(call) {
                    continue;
                }
                let mut extended = prefix.clone();
                extended.push(call.clone());
                longer.push(extended);
            }
        }
        for prefix in &longer {
            if contexts.len() >= bounds.max_contexts {
                return contexts;
            }
            if !contexts.contains(prefix) {
                contexts.push(prefix.clone());
            }
        }
        frontier = longer;
    }
    contexts
}

/// The calls that may prepare a receiver of `target`, those that write a
/// field it reads first, and which of them build on their own effect.
#[derive(Clone, Debug, Default)]
pub struct PreparingCalls {
    pub calls: Vec<MethodId>,
    /// Calls that read a field they write (a counter, a list they add
    /// to): repeating one reaches what its first call did not.
    pub accumulating: BTreeSet<MethodId>,
}

/// The class's instance methods but private ones that may prepare a receiver of
/// `target` (none for a static method or a constructor): not getters, not
/// `equals`/`hashCode`/`toString`, not a call that certainly changes
/// nothing; those writing a field `target` reads first, then by name.
pub fn preparing_calls(
    program: &Program<'_>,
    target: &MethodId,
    is_static: bool,
) -> PreparingCalls {
    if is_static || target.is_constructor() {
        return PreparingCalls::default();
    }
    let Some(class) = program.class(&target.class) else {
        return PreparingCalls::default();
    };
    let mut calls: Vec<MethodId> = class
        .methods
        .iter()
        // Tests live in the class's package: its package-private and
        // protected methods are theirs to call (`CommandLine.addOption`).
        .filter(|m| {
            let flags = m.access_flags;
            !flags.contains(AccessFlags::PRIVATE)
                && !flags.is_static()
                && !flags.is_abstract()
                && !flags.contains(AccessFlags::SYNTHETIC)
                && !flags.contains(AccessFlags::BRIDGE)
        })
        .filter_map(|m| {
            let name = m.name(class).ok()?.into_owned();
            let descriptor = m.descriptor(class).ok()?.into_owned();
            let getter =
                (name.starts_with("get") || name.starts_with("is")) && descriptor.starts_with("()");
            let skip = name.starts_with('<')
                || getter
                || matches!(name.as_str(), "equals" | "hashCode" | "toString");
            (!skip).then(|| MethodId::new(target.class.clone(), name, descriptor))
        })
        .collect();
    // Calls whose effect builds on itself (they read a field they write:
    // a counter, a list they add to); repeating any other call reaches
    // nothing its first call did not. Unknown without the class's accesses.
    let mut accumulating: BTreeSet<MethodId> = BTreeSet::new();
    if let Ok(access) = ClassAccess::of(class) {
        // A call that changes nothing prepares nothing.
        calls.retain(|call| !leaves_state_alone(&access, call));
        let (target_reads, _) = instance_field_accesses(&access, target);
        let mut prepares = BTreeSet::new();
        for call in &calls {
            let (reads, writes) = instance_field_accesses(&access, call);
            if !writes.is_disjoint(&target_reads) {
                prepares.insert(call.clone());
            }
            if !writes.is_disjoint(&reads) {
                accumulating.insert(call.clone());
            }
        }
        calls.sort_by_cached_key(|call| {
            (
                !prepares.contains(call),
                call.name.clone(),
                call.descriptor.clone(),
            )
        });
    } else {
        calls.sort_by(|a, b| (&a.name, &a.descriptor).cmp(&(&b.name, &b.descriptor)));
        accumulating.extend(calls.iter().cloned());
    }
    PreparingCalls {
        calls,
        accumulating,
    }
}

/// The facts of `method` and of the methods of its class it calls,
/// directly or not (any of them: a public callee acts on the same receiver
/// too); `None` for one the class does not define (abstract, inherited).
fn with_same_class_callees<'a>(
    access: &'a ClassAccess,
    method: &MethodId,
) -> Vec<Option<&'a MethodFacts>> {
    let class = method.class.as_internal();
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    let mut pending = vec![MethodKey::new(&method.name, &method.descriptor)];
    while let Some(next) = pending.pop() {
        if !seen.insert(next.clone()) {
            continue;
        }
        let facts = access.method(&next.name, &next.descriptor);
        for call in facts.iter().flat_map(|facts| &facts.calls) {
            if call.target.owner == class
                && matches!(
                    call.opcode,
                    opcode::INVOKEVIRTUAL | opcode::INVOKESPECIAL | opcode::INVOKESTATIC
                )
            {
                pending.push(MethodKey::new(&call.target.name, &call.target.descriptor));
            }
        }
        found.push(facts);
    }
    found
}

/// Whether `method` certainly changes no state: neither it nor the
/// methods of its class it calls write a field, call another class's
/// method (or a lambda's) or read an array from a field (which they could
/// store into).
fn leaves_state_alone(access: &ClassAccess, method: &MethodId) -> bool {
    let class = method.class.as_internal();
    with_same_class_callees(access, method)
        .into_iter()
        .all(|facts| {
            // Abstract or not this class's: anything may happen.
            let Some(facts) = facts else {
                return false;
            };
            let changes_a_field = facts
                .field_accesses
                .iter()
                .any(|field| field.is_write() || field.field.descriptor.starts_with('['));
            let calls_out = facts
                .calls
                .iter()
                .any(|call| call.target.owner != class || call.opcode == opcode::INVOKEINTERFACE);
            !changes_a_field && !calls_out && facts.dynamic_calls.is_empty()
        })
}

/// The instance fields of `method`'s class that it reads and writes, in
/// its own code and in the methods of the same class it calls.
fn instance_field_accesses(
    access: &ClassAccess,
    method: &MethodId,
) -> (BTreeSet<String>, BTreeSet<String>) {
    let class = method.class.as_internal();
    let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
    for facts in with_same_class_callees(access, method)
        .into_iter()
        .flatten()
    {
        for field in &facts.field_accesses {
            if field.field.owner != class {
                continue;
            }
            match field.opcode {
                opcode::GETFIELD => {
                    read.insert(field.field.name.clone());
                }
                opcode::PUTFIELD => {
                    written.insert(field.field.name.clone());
                }
                _ => {}
            }
        }
    }
    (read, written)
}
