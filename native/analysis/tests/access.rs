//! Field and call facts of javac 17 output (`fixtures/analysis/Person` and
//! friends): what each method reads and writes, the Palus merge over
//! private callees and constructors, and which parameters reach which fields.

mod support;

use std::collections::BTreeSet;

use testgen_analysis::{ClassAccess, FieldRef, FieldWriter, MethodFacts, MethodKey};
use testgen_classfile::instruction::opcode;
use testgen_classfile::ClassFile;

const PERSON: &str = "fixtures/analysis/Person";
const STRING: &str = "Ljava/lang/String;";

fn person() -> ClassAccess {
    let class = ClassFile::parse(support::fixture(PERSON)).unwrap();
    ClassAccess::of(&class).unwrap()
}

fn field(name: &str, descriptor: &str) -> FieldRef {
    FieldRef {
        owner: PERSON.to_owned(),
        name: name.to_owned(),
        descriptor: descriptor.to_owned(),
    }
}

fn names(fields: impl IntoIterator<Item = impl std::borrow::Borrow<FieldRef>>) -> Vec<String> {
    fields
        .into_iter()
        .map(|field| field.borrow().name.clone())
        .collect()
}

/// (method name, descriptor, parameters) of each writer.
fn described(writers: &[FieldWriter]) -> Vec<(&str, &str, Vec<u16>)> {
    writers
        .iter()
        .map(|w| {
            (
                w.method.name.as_str(),
                w.method.descriptor.as_str(),
                w.parameters.clone(),
            )
        })
        .collect()
}

#[test]
fn own_reads_writes_and_calls() {
    let access = person();
    assert_eq!(access.class_name, PERSON);
    let set_age = access.method("setAge", "(I)V").unwrap();
    assert_eq!(names(set_age.writes()), ["age"]);
    assert!(set_age.reads().is_empty());
    let calls: Vec<(u32, u8, &str, &str)> = set_age
        .calls
        .iter()
        .map(|c| {
            (
                c.offset,
                c.opcode,
                c.target.owner.as_str(),
                c.target.name.as_str(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            (
                10,
                opcode::INVOKESPECIAL,
                "java/lang/IllegalArgumentException",
                "<init>"
            ),
            (20, opcode::INVOKEVIRTUAL, PERSON, "touch"),
        ]
    );

    let touch = access.method("touch", "()V").unwrap();
    assert_eq!(names(touch.reads()), ["defaultName", "name"]);
    assert_eq!(names(touch.writes()), ["modified", "name"]);
    let opcodes: Vec<u8> = touch.field_accesses.iter().map(|a| a.opcode).collect();
    assert_eq!(
        opcodes,
        [
            opcode::PUTFIELD,
            opcode::GETFIELD,
            opcode::GETSTATIC,
            opcode::PUTFIELD
        ]
    );
    assert!(touch.field_accesses[2].is_static());
}

#[test]
fn setters_store_their_parameter() {
    let access = person();
    let set_name = access.method("setName", STRING_SETTER).unwrap();
    let stores: Vec<(String, u16, u16)> = set_name
        .parameter_stores
        .iter()
        .map(|s| (s.field.name.clone(), s.parameter, s.local))
        .collect();
    // `aload_0; aload_1; putfield name`: parameter 0, in local slot 1.
    assert_eq!(stores, [("name".to_owned(), 0, 1)]);

    let name_writers = access.writers_of(&field("name", STRING));
    let set_name = name_writers
        .iter()
        .find(|w| w.method == MethodKey::new("setName", STRING_SETTER))
        .unwrap();
    assert!(set_name.directly);
    assert_eq!(set_name.parameters, [0]);
    assert!(set_name.access_flags.is_public());

    // A static setter: `aload_0; putstatic defaultName`.
    let writers = access.writers_of(&field("defaultName", STRING));
    assert_eq!(
        described(writers),
        [
            ("setDefaultName", "(Ljava/lang/String;)V", vec![0]),
            ("<clinit>", "()V", vec![]),
        ]
    );
}

const STRING_SETTER: &str = "(Ljava/lang/String;)V";

#[test]
fn constructor_parameters_map_to_fields_through_this_calls() {
    let access = person();
    let flows = |descriptor: &str| -> Vec<(String, u16)> {
        access
            .merged("<init>", descriptor)
            .unwrap()
            .parameter_flows
            .iter()
            .map(|(field, parameter)| (field.name.clone(), *parameter))
            .collect()
    };
    assert_eq!(
        flows("(Ljava/lang/String;I)V"),
        [("age".to_owned(), 1), ("name".to_owned(), 0)]
    );
    // `this(name, 0)`: the constant is no parameter.
    assert_eq!(flows("(Ljava/lang/String;)V"), [("name".to_owned(), 0)]);
    // `this(name, -1); this.id = id;` with `long id` in slots 1 and 2 and
    // `name` in slot 3.
    assert_eq!(
        flows("(JLjava/lang/String;)V"),
        [("id".to_owned(), 0), ("name".to_owned(), 1)]
    );
    let own = access.method("<init>", "(JLjava/lang/String;)V").unwrap();
    assert_eq!(own.parameter_stores.len(), 1);
    assert_eq!(
        (
            own.parameter_stores[0].parameter,
            own.parameter_stores[0].local
        ),
        (0, 1)
    );

    // Every constructor writes `age`; only the first does so itself.
    let age = access.writers_of(&field("age", "I"));
    let constructors: Vec<(&str, bool, Vec<u16>)> = age
        .iter()
        .filter(|w| w.method.is_constructor())
        .map(|w| {
            (
                w.method.descriptor.as_str(),
                w.directly,
                w.parameters.clone(),
            )
        })
        .collect();
    assert_eq!(
        constructors,
        [
            ("(Ljava/lang/String;I)V", true, vec![1]),
            ("(Ljava/lang/String;)V", false, vec![]),
            ("(JLjava/lang/String;)V", false, vec![]),
        ]
    );
}

#[test]
fn private_callees_are_merged_transitively() {
    let access = person();
    // resetAge -> storeAge (private) -> touch (private)
    let reset = access.merged("resetAge", "(I)V").unwrap();
    assert_eq!(names(&reset.writes), ["age", "modified", "name"]);
    assert_eq!(names(&reset.reads), ["defaultName", "name"]);
    let callees: Vec<&str> = reset.callees.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(callees, ["storeAge", "touch"]);
    // The argument passed to storeAge is resetAge's parameter 0.
    let flows: BTreeSet<(String, u16)> = reset
        .parameter_flows
        .iter()
        .map(|(f, p)| (f.name.clone(), *p))
        .collect();
    assert_eq!(flows, BTreeSet::from([("age".to_owned(), 0)]));
    let own: &MethodFacts = access.method("resetAge", "(I)V").unwrap();
    assert!(own.writes().is_empty());

    // Public callees are not merged: `copyAge` calls `setAge` and
    // `getAge`, which a subclass may override.
    let copy = access
        .merged("copyAge", "(Lfixtures/analysis/Person;)V")
        .unwrap();
    assert!(copy.reads.is_empty() && copy.writes.is_empty() && copy.callees.is_empty());
    // Nor are constructors of other classes (here Object.<init>).
    let first = access.merged("<init>", "(Ljava/lang/String;I)V").unwrap();
    assert!(first.callees.is_empty());
    let delegating = access.merged("<init>", "(Ljava/lang/String;)V").unwrap();
    assert_eq!(names(&delegating.writes), ["age", "name"]);

    // The merged writer index sees `modified` written through `touch`.
    let modified = access.writers_of(&field("modified", "Z"));
    let writers: Vec<(&str, bool)> = modified
        .iter()
        .map(|w| (w.method.name.as_str(), w.directly))
        .collect();
    assert_eq!(
        writers,
        [
            ("setName", false),
            ("setAge", false),
            ("resetAge", false),
            ("storeAge", false),
            ("touch", true),
        ]
    );
}

#[test]
fn computed_or_reassigned_values_are_not_parameter_flows() {
    let access = person();
    // `this.name = name.trim()`
    let rename = access.method("rename", STRING_SETTER).unwrap();
    assert_eq!(names(rename.writes()), ["name"]);
    assert!(rename.parameter_stores.is_empty());
    // `age = Math.max(age, 0); this.age = age;`: slot 1 is reassigned.
    let clamp = access.method("clampAge", "(I)V").unwrap();
    assert!(clamp.parameter_stores.is_empty());
    // `setAge` stores after a branch: the store is still in one block.
    let set_age = access.method("setAge", "(I)V").unwrap();
    assert_eq!(set_age.parameter_stores.len(), 1);
}

#[test]
fn dynamic_calls_and_superclass_fields() {
    // AbstractShape.toString concatenates with invokedynamic.
    let class = ClassFile::parse(support::fixture("fixtures/analysis/AbstractShape")).unwrap();
    let access = ClassAccess::of(&class).unwrap();
    let to_string = access.method("toString", "()Ljava/lang/String;").unwrap();
    assert_eq!(to_string.dynamic_calls.len(), 1);
    assert_eq!(to_string.dynamic_calls[0].name, "makeConcatWithConstants");
    let constructor = access.merged("<init>", STRING_SETTER).unwrap();
    assert_eq!(
        constructor.parameter_flows,
        BTreeSet::from([(
            FieldRef {
                owner: "fixtures/analysis/AbstractShape".to_owned(),
                name: "label".to_owned(),
                descriptor: STRING.to_owned(),
            },
            0
        )])
    );

    // Circle's constructor calls super("circle"): a call into another
    // class, not merged, so `label` is not among its writes.
    let class = ClassFile::parse(support::fixture("fixtures/analysis/Circle")).unwrap();
    let access = ClassAccess::of(&class).unwrap();
    let constructor = access.merged("<init>", "(D)V").unwrap();
    assert_eq!(names(&constructor.writes), ["radius"]);
    assert_eq!(constructor.parameter_flows.len(), 1);
}

#[test]
fn every_fixture_class_has_facts() {
    for (name, bytes) in support::fixture_classes() {
        let class = ClassFile::parse(bytes).unwrap();
        let access = ClassAccess::of(&class).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(access.methods().len(), class.methods.len(), "{name}");
    }
}
