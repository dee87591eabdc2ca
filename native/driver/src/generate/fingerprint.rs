//! What a cached result depends on, as hashes: the incremental run compares
//! these with the cache to decide what to redo.
//!
//! - [`method_keys`]: one key per method, from its code with every
//!   constant-pool index replaced by the constant it names (so an unrelated
//!   edit elsewhere in the class, which renumbers the pool, keeps the key),
//!   plus the code of the same-class methods it calls and the class's public
//!   shape. A method whose key is unchanged keeps its constraint tree.
//! - [`dependencies`]: the other classes of the program a class names
//!   (supertypes, classes it calls or constructs, parameter types), whose
//!   hashes make up the class's fingerprint.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use sha2::{Digest, Sha256};

use super::program::hex;
use testgen_classfile::attribute::{AttributeInfo, BootstrapMethod};
use testgen_classfile::constant_pool::{Constant, ConstantPool};
use testgen_classfile::instruction::{Instructions, Operands};
use testgen_classfile::{ClassFile, Member};

/// `name(descriptor)` of each method with its key (hex SHA-256).
///
/// A key covers the method's own code and that of every method of the same
/// class it calls, directly or not, and the signatures of the class's
/// public members: instance methods are explored after other public calls
/// prepared the receiver, so adding or removing one changes what is
/// explored. The code of the calls that prepare the receiver is not part
/// of the key; a tree reused after one of them changed is still only a
/// source of candidate tests, each run and validated again.
pub fn method_keys(file: &ClassFile<'_>) -> BTreeMap<String, String> {
    let bootstraps = bootstrap_methods(file);
    let mut codes: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
    let mut shape = String::new();
    for method in &file.methods {
        let Some(signature) = signature(file, method) else {
            continue;
        };
        if method.access_flags.is_public() {
            let _ = writeln!(shape, "{:#06x} {signature}", method.access_flags.0);
        }
        codes.insert(signature, normalised_code(file, method, &bootstraps));
    }
    codes
        .keys()
        .map(|signature| {
            let mut hasher = Sha256::new();
            hasher.update(shape.as_bytes());
            for callee in same_class_closure(signature, &codes) {
                hasher.update(callee.as_bytes());
                hasher.update(codes[&callee].0.as_bytes());
            }
            (signature.clone(), hex(&hasher.finalize()))
        })
        .collect()
}

/// The internal names in `program` that `file` names anywhere in its
/// constant pool (as a class, in a descriptor or a signature), and its
/// supertypes; itself excluded.
pub fn dependencies(file: &ClassFile<'_>, program: &BTreeSet<&str>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let own = file.name().map(|n| n.into_owned()).unwrap_or_default();
    for (index, constant) in file.constant_pool.iter() {
        if !matches!(constant, Constant::Utf8(_)) {
            continue;
        }
        let Ok(text) = file.constant_pool.utf8(index) else {
            continue;
        };
        // A class entry's name is the whole string; descriptors and
        // signatures hold `Lname;` or `Lname<`.
        if program.contains(text.as_ref()) {
            found.insert(text.to_string());
        }
        for part in text.split('L').skip(1) {
            let name = part.split([';', '<']).next().unwrap_or("");
            if program.contains(name) {
                found.insert(name.to_string());
            }
        }
    }
    found.remove(&own);
    found
}

/// `name(descriptor)`, the key of a method in the cache.
pub fn signature(file: &ClassFile<'_>, method: &Member<'_>) -> Option<String> {
    Some(format!(
        "{}{}",
        method.name(file).ok()?,
        method.descriptor(file).ok()?
    ))
}

/// The method's flags and code as text, constants resolved, with the
/// signatures of the same-class methods it invokes.
fn normalised_code(
    file: &ClassFile<'_>,
    method: &Member<'_>,
    bootstraps: &[BootstrapMethod],
) -> (String, BTreeSet<String>) {
    let pool = &file.constant_pool;
    let own = file.name().map(|n| n.into_owned()).unwrap_or_default();
    let mut text = format!("{:#06x}\n", method.access_flags.0);
    let mut callees = BTreeSet::new();
    let Some(code) = method.attributes.iter().find_map(|a| match a.parse(file) {
        Ok(AttributeInfo::Code(code)) => Some(code),
        _ => None,
    }) else {
        return (text, callees);
    };
    for instruction in Instructions::new(code.bytecode, code.bytecode_offset) {
        let Ok(instruction) = instruction else {
            text.push_str("undecodable\n");
            break;
        };
        let _ = write!(text, "{} {}", instruction.offset, instruction.opcode);
        match instruction.operands {
            Operands::Constant(index)
            | Operands::InvokeInterface { index, .. }
            | Operands::MultiANewArray { index, .. } => {
                let _ = write!(text, " {}", resolve(pool, index, bootstraps, 0));
                if let Ok(member) = pool.member_ref(index) {
                    if member.class == own.as_str() {
                        callees.insert(format!("{}{}", member.name, member.descriptor));
                    }
                }
            }
            Operands::InvokeDynamic { index } => {
                let _ = write!(text, " {}", resolve(pool, index, bootstraps, 0));
            }
            other => {
                let _ = write!(text, " {other:?}");
            }
        }
        text.push('\n');
    }
    for handler in &code.exception_table {
        let _ = writeln!(
            text,
            "catch {} {} {} {}",
            handler.start_pc,
            handler.end_pc,
            handler.handler_pc,
            resolve(pool, handler.catch_type, bootstraps, 0)
        );
    }
    (text, callees)
}

/// `start` and every same-class method it reaches through calls, sorted.
fn same_class_closure(
    start: &str,
    codes: &BTreeMap<String, (String, BTreeSet<String>)>,
) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![start.to_string()];
    while let Some(next) = stack.pop() {
        if !codes.contains_key(&next) || !seen.insert(next.clone()) {
            continue;
        }
        stack.extend(codes[&next].1.iter().cloned());
    }
    seen
}

fn bootstrap_methods(file: &ClassFile<'_>) -> Vec<BootstrapMethod> {
    file.attributes
        .iter()
        .find_map(|a| match a.parse(file) {
            Ok(AttributeInfo::BootstrapMethods(methods)) => Some(methods),
            _ => None,
        })
        .unwrap_or_default()
}

/// A constant as text, every index it holds resolved (bootstrap methods
/// included), so the text does not depend on the pool's numbering.
fn resolve(
    pool: &ConstantPool<'_>,
    index: u16,
    bootstraps: &[BootstrapMethod],
    depth: u8,
) -> String {
    if index == 0 {
        return "-".into();
    }
    if depth > 8 {
        return "…".into();
    }
    let r = |i: u16| resolve(pool, i, bootstraps, depth + 1);
    match pool.get(index) {
        Err(_) | Ok(Constant::Unusable) => format!("#{index}?"),
        Ok(Constant::Utf8(_)) => format!("{:?}", pool.utf8(index).unwrap_or_default()),
        Ok(Constant::Integer(v)) => format!("int {v}"),
        Ok(Constant::Float(v)) => format!("float {v:#x}"),
        Ok(Constant::Long(v)) => format!("long {v}"),
        Ok(Constant::Double(v)) => format!("double {v:#x}"),
        Ok(Constant::Class { name_index }) => format!("class {}", r(*name_index)),
        Ok(Constant::String { string_index }) => format!("string {}", r(*string_index)),
        Ok(
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
            },
        ) => format!("{}.{}", r(*class_index), r(*name_and_type_index)),
        Ok(Constant::NameAndType {
            name_index,
            descriptor_index,
        }) => format!("{}:{}", r(*name_index), r(*descriptor_index)),
        Ok(Constant::MethodHandle {
            reference_kind,
            reference_index,
        }) => format!("handle {reference_kind} {}", r(*reference_index)),
        Ok(Constant::MethodType { descriptor_index }) => format!("type {}", r(*descriptor_index)),
        Ok(
            Constant::Dynamic {
                bootstrap_method_attr_index,
                name_and_type_index,
            }
            | Constant::InvokeDynamic {
                bootstrap_method_attr_index,
                name_and_type_index,
            },
        ) => {
            let bootstrap = match bootstraps.get(usize::from(*bootstrap_method_attr_index)) {
                Some(method) => {
                    let arguments: Vec<String> = method.arguments.iter().map(|&a| r(a)).collect();
                    format!("{}({})", r(method.method_ref), arguments.join(", "))
                }
                None => format!("bootstrap #{bootstrap_method_attr_index}?"),
            };
            format!("dynamic {} via {bootstrap}", r(*name_and_type_index))
        }
        Ok(Constant::Module { name_index }) => format!("module {}", r(*name_index)),
        Ok(Constant::Package { name_index }) => format!("package {}", r(*name_index)),
    }
}
