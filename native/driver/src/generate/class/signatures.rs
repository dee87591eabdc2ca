//! The generic signatures a test class's plans need for the type
//! arguments of their source: of every program method they call and of the
//! program classes those methods and values belong to, with supertypes.

use std::collections::BTreeSet;

use testgen_construct::generics::{
    class_signature_text, declared_method_signature, program_supertypes,
};
use testgen_emit::generics::{MethodSignatureOf, Signatures};
use testgen_emit::TestCase;
use testgen_exec::Statement;
use testgen_project::{ClassName, MethodId, Program};

pub fn signatures_of(program: &Program<'_>, tests: &[TestCase]) -> Signatures {
    let mut methods = BTreeSet::new();
    let mut classes = BTreeSet::new();
    for statement in tests.iter().flat_map(|test| &test.plan.statements) {
        let (class, call) = match (statement, statement.callee()) {
            (_, Some((class, name, descriptor))) => (class, Some((name, descriptor))),
            (Statement::Lambda { interface, .. }, None) => (interface.as_str(), None),
            _ => continue,
        };
        classes.insert(class.to_string());
        if let Some((name, descriptor)) = call {
            methods.insert((class.to_string(), name.to_string(), descriptor.to_string()));
        }
    }
    let mut signatures = Signatures::default();
    for (class, name, descriptor) in methods {
        let method = MethodId::new(ClassName::binary(&class), name.clone(), descriptor.clone());
        if let Some((declaring, signature)) = declared_method_signature(program, &method) {
            classes.insert(declaring.to_binary());
            signatures.methods.push(MethodSignatureOf {
                class,
                name,
                descriptor,
                declaring: declaring.to_binary(),
                signature,
            });
        }
    }
    for class in classes {
        for supertype in program_supertypes(program, &ClassName::binary(&class)) {
            if let Some(text) = class_signature_text(program, &supertype) {
                signatures.classes.insert(supertype.to_binary(), text);
            }
        }
    }
    signatures
}
