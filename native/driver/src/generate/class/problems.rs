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
//! object's state, not the environment; a call on what the test passed is
//! the test's input. Anything else stays with the exploration's typed
//! blockers.
//!
//! The same dependence tells the infeasibility audit which decisions test
//! state that other call sequences could change
//! ([`tests_mutable_state`]).

use testgen_analysis::{branch_operands, popped, FieldRef, MethodRef, Origin};
use testgen_classfile::{AccessFlags, ClassFile, Member, MethodDescriptor};
use testgen_construct::Recipes;
use testgen_project::{ClassName, Culprit, Goal, MethodId};

/// What Covana's analysis blames for `goal`, if anything.
pub fn culprit(recipes: &Recipes<'_, '_>, goal: &Goal) -> Option<Culprit> {
    let program = recipes.program();
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
        let Origin::Call {
            offset,
            method,
            receiver,
            arguments,
        } = origin
        else {
            continue;
        };
        // javac's `$assertionsDisabled`: the JVM's -ea, nothing a developer
        // wrote.
        if !is_external(recipes, method) || method.name == "desiredAssertionStatus" {
            continue;
        }
        let receiver = receiver.as_deref();
        let on_state = receiver.is_some_and(|receiver| chain(recipes, receiver).is_some());
        let on_input = receiver.into_iter().chain(arguments).any(|input| {
            input
                .walk()
                .iter()
                .any(|o| matches!(o, Origin::Parameter(_) | Origin::This))
        });
        if !on_state && (!on_input || is_environment(method)) {
            return Some(Culprit::ExternalCall {
                call: java_call(method),
                line: lines.line_at(*offset),
            });
        }
    }
    origins
        .iter()
        .find_map(|origin| object_state(recipes, origin))
}

/// A call into code that is neither the program's (followed by the
/// replay) nor modelled.
fn is_external(recipes: &Recipes<'_, '_>, method: &MethodRef) -> bool {
    let id = MethodId::of(&method.owner, &method.name, &method.descriptor);
    !recipes.program().contains(&id.class) && !testgen_symbolic::is_modelled(&id)
}

/// Methods that answer from outside the program: the file system, the
/// process's environment and properties, the network, the clock, threads,
/// databases, class loading.
fn is_environment(method: &MethodRef) -> bool {
    const CLASSES: [&str; 10] = [
        "java/io/File",
        "java/lang/System",
        "java/lang/Runtime",
        "java/lang/Process",
        "java/lang/ProcessBuilder",
        "java/lang/Thread",
        "java/lang/ClassLoader",
        "java/time/Clock",
        "java/util/Random",
        "java/util/concurrent/ThreadLocalRandom",
    ];
    const PACKAGES: [&str; 4] = ["java/nio/file/", "java/net/", "java/sql/", "javax/naming/"];
    let owner = method.owner.as_str();
    CLASSES.contains(&owner)
        || PACKAGES.iter().any(|package| owner.starts_with(package))
        || (owner == "java/lang/Class"
            && matches!(
                method.name.as_str(),
                "forName" | "getResource" | "getResourceAsStream"
            ))
}

/// The object state a value is, if it is one: the class holding the chain's
/// first field and the chain's fields, outermost first.
struct Chain {
    class: ClassName,
    fields: Vec<FieldRef>,
}

/// The chain of program fields (read directly, or through a getter of the
/// program) a value was read along; a call outside the program on such an
/// object (`this.items.size()`) is that object's state too. Synthetic
/// fields (`$SwitchMap$...`, `$assertionsDisabled`) and constants (a
/// `static final` object such as a `Pattern` or a logger) are no state.
fn chain(recipes: &Recipes<'_, '_>, origin: &Origin) -> Option<Chain> {
    let (field, object) = match origin {
        Origin::Field { field, object, .. } => (field.clone(), object.as_deref()),
        Origin::Call {
            method, receiver, ..
        } => match getter_field(recipes, method) {
            Some(field) => (field, receiver.as_deref()),
            None if is_external(recipes, method) => return chain(recipes, receiver.as_deref()?),
            None => return None,
        },
        _ => return None,
    };
    let file = recipes.program().class_named(&field.owner)?;
    let constant = declared(file, &field).is_some_and(|member| {
        let flags = member.access_flags;
        flags.is_static() && flags.contains(AccessFlags::FINAL)
    });
    if field.name.starts_with('$') || constant {
        return None;
    }
    match object.and_then(|object| chain(recipes, object)) {
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
/// method without parameters whose own code reads exactly one field and
/// calls nothing.
fn getter_field(recipes: &Recipes<'_, '_>, method: &MethodRef) -> Option<FieldRef> {
    let parsed = MethodDescriptor::parse(&method.descriptor).ok()?;
    if !parsed.parameters.is_empty() || parsed.return_type.is_none() {
        return None;
    }
    let access = recipes.access(&ClassName::internal(method.owner.clone()))?;
    let facts = access.method(&method.name, &method.descriptor)?;
    if facts.is_static() || !facts.calls.is_empty() {
        return None;
    }
    match facts.reads().into_iter().collect::<Vec<_>>().as_slice() {
        [field] if !facts.field_accesses.iter().any(|a| a.is_write()) => Some((*field).clone()),
        _ => None,
    }
}

/// An object-creation problem, if `origin` is a chain of program fields.
fn object_state(recipes: &Recipes<'_, '_>, origin: &Origin) -> Option<Culprit> {
    let chain = chain(recipes, origin)?;
    let last = chain.fields.last()?;
    let setters = setters_of(recipes, last);
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
fn setters_of(recipes: &Recipes<'_, '_>, field: &FieldRef) -> Vec<String> {
    let class = ClassName::internal(field.owner.clone());
    let Some(access) = recipes.access(&class) else {
        return Vec::new();
    };
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

/// Whether the decision at `offset` of `method` (a branch, or an
/// instruction that may throw) tests state other call sequences could
/// change, or a value the analysis lost track of: an object's field (or
/// what a call outside the program answers about it), a static field other
/// than an enum constant or a synthetic switch map, a program method
/// reading such a field (or one whose body is not known), and, where the
/// method is not explored with inputs of its own (`parameters_are_inputs`
/// false: a private helper), its parameters, which its callers may fill
/// from state. Exploring builds objects through a few call sequences only,
/// so a proof that such a decision cannot go one way holds for those
/// objects, not for the class.
pub fn tests_mutable_state(
    recipes: &Recipes<'_, '_>,
    method: &MethodId,
    offset: u32,
    parameters_are_inputs: bool,
) -> bool {
    let program = recipes.program();
    let Some((file, member)) = program.method(method) else {
        return true;
    };
    let Ok(operands) = popped(file, member, offset) else {
        return true;
    };
    operands
        .iter()
        .flat_map(Origin::walk)
        .any(|origin| match origin {
            Origin::Lost => true,
            Origin::Parameter(_) => !parameters_are_inputs,
            Origin::Field { field, .. } => is_mutable(recipes, field),
            Origin::Call { method, .. } => {
                let class = ClassName::internal(method.owner.clone());
                if !program.contains(&class) {
                    // Outside the program: what it answers about its
                    // receiver and arguments, whose own origins are
                    // walked too.
                    return false;
                }
                let Some(access) = recipes.access(&class) else {
                    return true;
                };
                match access.merged(&method.name, &method.descriptor) {
                    Some(merged) => merged.reads.iter().any(|field| is_mutable(recipes, field)),
                    // An interface or inherited method: its body is
                    // elsewhere.
                    None => true,
                }
            }
            _ => false,
        })
}

/// Whether a field may hold other values in other tests: every instance
/// field, and every static one but an enum's constants, javac's switch
/// maps (fixed by the enum's ordinals) and `$assertionsDisabled` (the
/// replay's constant for the build's -ea). A `static final` set in the
/// class initialiser may still come from the environment or hold an
/// object whose contents change.
fn is_mutable(recipes: &Recipes<'_, '_>, field: &FieldRef) -> bool {
    if field.name.starts_with("$SwitchMap$") || field.name == "$assertionsDisabled" {
        return false;
    }
    let Some(file) = recipes.program().class_named(&field.owner) else {
        return true;
    };
    let Some(declared) = declared(file, field) else {
        // Inherited: its declaring class is not looked up here.
        return true;
    };
    !declared.access_flags.contains(AccessFlags::ENUM)
}

/// The member of `file` that declares `field`, if `file` does.
fn declared<'f, 'a>(file: &'f ClassFile<'a>, field: &FieldRef) -> Option<&'f Member<'a>> {
    file.fields.iter().find(|member| {
        member.name(file).is_ok_and(|name| name == field.name)
            && member
                .descriptor(file)
                .is_ok_and(|descriptor| descriptor == field.descriptor)
    })
}
