//! What a method's generic parameters hold, from its `Signature`
//! attribute: a `List<Money>` parameter gets `Money` elements, a
//! `Map<K, V>` with `K extends Comparable<K>` gets `Comparable` keys. The
//! descriptor alone says only `List` and `Map`.

use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::signature::{
    ClassSignature, JavaTypeSignature, MethodSignature, ReferenceTypeSignature, TypeArgument,
    TypeParameter,
};
use testgen_classfile::{ClassFile, Member};
use testgen_project::{ClassName, MethodId, Program};

/// The type arguments of a reference type, each as the descriptor of a
/// class whose values meet it (`None` where nothing narrower than `Object`
/// is known: a `?`, an unbounded type variable).
pub type TypeArguments = Vec<Option<String>>;

/// The type arguments of each of `method`'s parameters, in descriptor
/// order; empty lists where the method has no usable signature (not
/// generic, or its parameters do not line up with the descriptor's).
pub fn parameter_type_arguments(
    program: &Program<'_>,
    method: &MethodId,
    parameters: usize,
) -> Vec<TypeArguments> {
    let unknown = vec![Vec::new(); parameters];
    let Some(file) = program.class(&method.class) else {
        return unknown;
    };
    let Some(text) = method_signature(file, method) else {
        return unknown;
    };
    let Ok(signature) = MethodSignature::parse(&text) else {
        return unknown;
    };
    if signature.parameters.len() != parameters {
        return unknown;
    }
    let class_text = class_signature(file);
    let class_parameters = class_text
        .as_deref()
        .and_then(|text| ClassSignature::parse(text).ok())
        .map(|signature| signature.type_parameters)
        .unwrap_or_default();
    let scope = Scope {
        method: &signature.type_parameters,
        class: &class_parameters,
    };
    signature
        .parameters
        .iter()
        .map(|parameter| match parameter {
            JavaTypeSignature::Reference(ReferenceTypeSignature::Class(class)) => {
                let innermost = class.suffixes.last().unwrap_or(&class.simple);
                innermost
                    .type_arguments
                    .iter()
                    .map(|argument| scope.argument(argument))
                    .collect()
            }
            _ => Vec::new(),
        })
        .collect()
}

/// The type variables in scope: the method's, then its class's.
struct Scope<'s, 'a> {
    method: &'s [TypeParameter<'a>],
    class: &'s [TypeParameter<'a>],
}

impl Scope<'_, '_> {
    fn argument(&self, argument: &TypeArgument<'_>) -> Option<String> {
        match argument {
            TypeArgument::Any => None,
            // A value of T meets `T`, `? extends T` and `? super T` alike.
            TypeArgument::Exact(bound)
            | TypeArgument::Extends(bound)
            | TypeArgument::Super(bound) => self.erasure(bound, 0),
        }
    }

    /// The class a value must be of to meet `ty`; a type variable by its
    /// first bound (followed a few steps: `T extends U`).
    fn erasure(&self, ty: &ReferenceTypeSignature<'_>, depth: u32) -> Option<String> {
        match ty {
            ReferenceTypeSignature::Class(class) => {
                let mut name = format!("{}{}", class.package, class.simple.name);
                for suffix in &class.suffixes {
                    name.push('$');
                    name.push_str(suffix.name);
                }
                (name != "java/lang/Object").then(|| format!("L{name};"))
            }
            ReferenceTypeSignature::TypeVariable(variable) => {
                if depth > 4 {
                    return None;
                }
                let parameter = self
                    .method
                    .iter()
                    .chain(self.class)
                    .find(|p| p.name == *variable)?;
                let bound = parameter
                    .class_bound
                    .as_ref()
                    .or(parameter.interface_bounds.first())?;
                self.erasure(bound, depth + 1)
            }
            ReferenceTypeSignature::Array(_) => None,
        }
    }
}

fn method_signature(file: &ClassFile<'_>, method: &MethodId) -> Option<String> {
    let found = find_method(file, method)?;
    match found.attribute(file, "Signature").ok()?? {
        AttributeInfo::Signature(index) => {
            file.constant_pool.utf8(index).ok().map(|s| s.into_owned())
        }
        _ => None,
    }
}

fn class_signature(file: &ClassFile<'_>) -> Option<String> {
    match file.attribute("Signature").ok()?? {
        AttributeInfo::Signature(index) => {
            file.constant_pool.utf8(index).ok().map(|s| s.into_owned())
        }
        _ => None,
    }
}

/// The `Signature` attribute of the program class `class`, if it has one
/// (only generic classes and those with generic supertypes do).
pub fn class_signature_text(program: &Program<'_>, class: &ClassName) -> Option<String> {
    class_signature(program.class(class)?)
}

/// The program class that declares `method` (its own class, else the
/// nearest supertype in the program that does) and the method's
/// `Signature` attribute, if it has one.
pub fn declared_method_signature(
    program: &Program<'_>,
    method: &MethodId,
) -> Option<(ClassName, String)> {
    let (class, signature) = program_supertypes(program, &method.class)
        .into_iter()
        .find_map(|class| {
            let file = program.class(&class)?;
            let here = MethodId::new(
                class.clone(),
                method.name.clone(),
                method.descriptor.clone(),
            );
            find_method(file, &here)?;
            Some((class, method_signature(file, &here)))
        })?;
    Some((class, signature?))
}

/// The program classes among `class` and its supertypes, nearest first.
pub fn program_supertypes(program: &Program<'_>, class: &ClassName) -> Vec<ClassName> {
    let mut found = Vec::new();
    let mut queue = std::collections::VecDeque::from([class.clone()]);
    while let Some(next) = queue.pop_front() {
        if found.len() >= 64 || found.contains(&next) {
            continue;
        }
        let Some(file) = program.class(&next) else {
            continue;
        };
        queue.extend(file.super_name().ok().flatten().map(ClassName::internal));
        queue.extend(
            file.interface_names()
                .unwrap_or_default()
                .into_iter()
                .map(ClassName::internal),
        );
        found.push(next);
    }
    found
}

fn find_method<'f, 'a>(file: &'f ClassFile<'a>, method: &MethodId) -> Option<&'f Member<'a>> {
    file.methods.iter().find(|m| {
        m.name(file).is_ok_and(|n| n == method.name.as_str())
            && m.descriptor(file)
                .is_ok_and(|d| d == method.descriptor.as_str())
    })
}
