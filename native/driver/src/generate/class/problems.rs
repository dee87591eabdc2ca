//! Covana's analysis (Xiao et al., ICSE 2011), adapted to bytecode: for an
//! outcome nothing reached, what the values its branch tests come from
//! ([`testgen_analysis::dependence`]) say about why.
//!
//! - An **external-call problem**: the branch tests what a call outside
//!   the program returned, and no model lets the solver steer it
//!   (`File.exists()`, `System.getenv(..)`): the test cannot choose it.
//! - An **object-creation problem**: the branch tests a field of an object
//!   (several reads deep: `this.buffer.count`, or through the program's
//!   getters), and no test built the object in that state; the report
//!   names the chain and the methods that write its last field (none:
//!   nothing a test can call sets it).
//!
//! A call on an object read from a field (`this.items.size()`) is the
//! object's state, not the environment. Anything else stays with the
//! exploration's typed blockers.

use testgen_analysis::{branch_operands, popped, ClassAccess, FieldRef, MethodRef, Origin};
use testgen_classfile::{AccessFlags, MethodDescriptor};
use testgen_project::{ClassName, Culprit, Goal, MethodId, Program};

/// What Covana's analysis blames for `goal`, if anything.
pub fn culprit(program: &Program<'_>, goal: &Goal) -> Option<Culprit> {
    let (file, member) = program.method(&goal.method)?;
    let operands = branch_operands(file, member, goal.offset).ok()?;
    let lines = member
        .code(file)
        .ok()
        .flatten()
        .map(|code| code.line_numbers(file))
        .unwrap_or_default();
    let origins: Vec<&Origin> = operands.iter().flat_map(Origin::walk).collect();
    // The environment first: the test cannot choose what it returns.
    for origin in &origins {
        if let Origin::Call {
            offset,
            method,
            receiver,
            arguments,
        } = origin
        {
            // javac's `$assertionsDisabled`: the JVM's -ea, nothing a
            // developer wrote.
            if !is_external(program, method) || method.name == "desiredAssertionStatus" {
                continue;
            }
            // What a call on an object read from a field returns is that
            // object's state; what a collection or an iterator the test
            // passed returns is the test's input. Only the environment is
            // beyond the test's reach.
            let receiver = receiver.as_deref();
            let on_state = receiver.is_some_and(|receiver| chain(program, receiver).is_some());
            let on_input = receiver.into_iter().chain(arguments).any(|input| {
                input
                    .walk()
                    .iter()
                    .any(|o| matches!(o, Origin::Parameter(_) | Origin::This))
            });
            if !on_state && (!on_input || is_environment(&method.owner)) {
                return Some(Culprit::ExternalCall {
                    call: java_call(method),
                    line: lines.line_at(*offset),
                });
            }
        }
    }
    origins
        .iter()
        .find_map(|origin| object_state(program, origin))
}

/// A call into code that is neither the program's (followed by the
/// replay) nor modelled.
fn is_external(program: &Program<'_>, method: &MethodRef) -> bool {
    let id = MethodId::of(&method.owner, &method.name, &method.descriptor);
    !program.contains(&id.class) && !testgen_symbolic::is_modelled(&id)
}

/// Classes whose methods answer from outside the program: the file system,
/// the process's environment and properties, the network, the clock,
/// threads, databases, class loading.
fn is_environment(owner: &str) -> bool {
    const ENVIRONMENT: [&str; 14] = [
        "java/io/File",
        "java/nio/file/",
        "java/lang/System",
        "java/lang/Runtime",
        "java/lang/Process",
        "java/lang/Thread",
        "java/lang/Class",
        "java/lang/ClassLoader",
        "java/net/",
        "java/sql/",
        "java/time/Clock",
        "java/util/concurrent/ThreadLocalRandom",
        "java/util/Random",
        "javax/naming/",
    ];
    ENVIRONMENT.iter().any(|prefix| owner.starts_with(prefix))
}

/// The object state a value is, if it is one: the class holding the chain's
/// first field and the chain's fields, outermost first, with the last
/// field's reference.
struct Chain {
    class: ClassName,
    fields: Vec<FieldRef>,
}

/// The chain of program fields (read directly, or through a getter of the
/// program) a value was read along; a call outside the program on such an
/// object (`this.items.size()`) is that object's state too. Synthetic
/// fields (`$SwitchMap$...`, `$assertionsDisabled`) are no state.
fn chain(program: &Program<'_>, origin: &Origin) -> Option<Chain> {
    let (field, object) = match origin {
        Origin::Field { field, object, .. } => (field.clone(), object.as_deref()),
        Origin::Call {
            method, receiver, ..
        } => match getter_field(program, method) {
            Some(field) => (field, receiver.as_deref()),
            None if is_external(program, method) => return chain(program, receiver.as_deref()?),
            None => return None,
        },
        _ => return None,
    };
    if field.name.starts_with('$') || !program.contains(&ClassName::internal(field.owner.clone())) {
        return None;
    }
    match object.and_then(|object| chain(program, object)) {
        Some(mut outer) => {
            outer.fields.push(field);
            Some(outer)
        }
        None => Some(Chain {
            class: ClassName::internal(field.owner.clone()),
            fields: vec![field],
        }),
    }
}

/// The field a program method returns, if it is a getter: an instance
/// method without parameters whose own code reads exactly one field.
fn getter_field(program: &Program<'_>, method: &MethodRef) -> Option<FieldRef> {
    let file = program.class_named(&method.owner)?;
    let parsed = MethodDescriptor::parse(&method.descriptor).ok()?;
    if !parsed.parameters.is_empty() || parsed.return_type.is_none() {
        return None;
    }
    let access = ClassAccess::of(file).ok()?;
    let facts = access.method(&method.name, &method.descriptor)?;
    if facts.is_static() || !facts.calls.is_empty() {
        return None;
    }
    let reads = facts.reads();
    match reads.into_iter().collect::<Vec<_>>().as_slice() {
        [field] if !facts.field_accesses.iter().any(|a| a.is_write()) => Some((*field).clone()),
        _ => None,
    }
}

/// An object-creation problem, if `origin` is a chain of program fields.
fn object_state(program: &Program<'_>, origin: &Origin) -> Option<Culprit> {
    let chain = chain(program, origin)?;
    let last = chain.fields.last()?;
    let setters = setters_of(program, last);
    Some(Culprit::ObjectState {
        class: chain.class.to_binary(),
        fields: chain
            .fields
            .iter()
            .map(|field| field.name.clone())
            .collect(),
        setters,
    })
}

/// The methods and constructors of the field's class that write it and
/// that a test in the class's package may call (not private), as
/// `name(Type, ...)`; the class initialiser does not count.
fn setters_of(program: &Program<'_>, field: &FieldRef) -> Vec<String> {
    let Some(file) = program.class_named(&field.owner) else {
        return Vec::new();
    };
    let Ok(access) = ClassAccess::of(file) else {
        return Vec::new();
    };
    let class = ClassName::internal(field.owner.clone());
    access
        .writers_of(field)
        .iter()
        .filter(|writer| !writer.access_flags.contains(AccessFlags::PRIVATE))
        .filter(|writer| writer.method.name != "<clinit>")
        .map(|writer| {
            let name = if writer.method.is_constructor() {
                class
                    .simple()
                    .rsplit('$')
                    .next()
                    .unwrap_or_default()
                    .to_string()
            } else {
                writer.method.name.clone()
            };
            format!("{name}({})", java_parameters(&writer.method.descriptor))
        })
        .collect()
}

/// `java.io.File.exists()`: how a Java developer names a call.
fn java_call(method: &MethodRef) -> String {
    format!(
        "{}.{}({})",
        ClassName::internal(method.owner.clone()),
        method.name,
        java_parameters(&method.descriptor)
    )
}

/// `String, int[]`: a descriptor's parameter types as Java writes them,
/// without packages.
fn java_parameters(descriptor: &str) -> String {
    let Ok(parsed) = MethodDescriptor::parse(descriptor) else {
        return String::new();
    };
    parsed
        .parameters
        .iter()
        .map(|parameter| {
            let text = parameter.to_string();
            match text.rsplit_once('.') {
                Some((_, simple)) => simple.to_string(),
                None => text,
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether the decision at `offset` of `method` tests state other calls could change: an
/// object's field (whichever constructor, factory or setter put it there),
/// or a static field that a method other than the class initialiser
/// writes, or that code outside its class may write (neither private nor
/// final), read directly or by a program method the branch calls.
/// Exploring builds objects through a few call sequences only, so a proof
/// that such a branch cannot go one way holds for those objects, not for
/// the class.
pub fn tests_mutable_state(program: &Program<'_>, method: &MethodId, offset: u32) -> bool {
    let Some((file, member)) = program.method(method) else {
        return true;
    };
    // A decision is a branch, or an instruction that may throw (its array
    // and index, its receiver, its divisor): what it pops decides it.
    let Ok(operands) = popped(file, member, offset) else {
        return true;
    };
    operands
        .iter()
        .flat_map(Origin::walk)
        .any(|origin| match origin {
            Origin::Field { field, .. } => is_mutable(program, field),
            Origin::Call { method, .. } => {
                let Some(file) = program.class_named(&method.owner) else {
                    return false;
                };
                let Ok(access) = ClassAccess::of(file) else {
                    return true;
                };
                access
                    .merged(&method.name, &method.descriptor)
                    .is_some_and(|merged| {
                        merged.reads.iter().any(|field| is_mutable(program, field))
                    })
            }
            _ => false,
        })
}

/// Whether a field may hold other values in other tests: any instance
/// field, and a static one its class initialiser is not the only one to
/// write.
fn is_mutable(program: &Program<'_>, field: &FieldRef) -> bool {
    let Some(file) = program.class_named(&field.owner) else {
        return true;
    };
    let declared = file.fields.iter().find(|member| {
        member.name(file).is_ok_and(|name| name == field.name)
            && member
                .descriptor(file)
                .is_ok_and(|descriptor| descriptor == field.descriptor)
    });
    let Some(declared) = declared else {
        // Inherited: its class's writers are not indexed here.
        return true;
    };
    let flags = declared.access_flags;
    if !flags.contains(AccessFlags::PRIVATE) && !flags.contains(AccessFlags::FINAL) {
        return true;
    }
    let Ok(access) = ClassAccess::of(file) else {
        return true;
    };
    let initialiser = if flags.is_static() {
        "<clinit>"
    } else {
        "<init>"
    };
    access
        .writers_of(field)
        .iter()
        .any(|writer| writer.method.name != initialiser)
}
