//! A class's mutable static state and the methods that might reset it, on
//! javac 17 output (`fixtures/analysis/Statics`).

mod support;

use testgen_analysis::{mutable_static_fields, reset_candidates, ClassAccess, Mutability};
use testgen_classfile::ClassFile;

#[test]
fn assigned_fields_and_used_containers_are_state_tables_and_constants_are_not() {
    let class = ClassFile::parse(support::fixture("fixtures/analysis/Statics")).unwrap();
    let access = ClassAccess::of(&class).unwrap();
    let fields = mutable_static_fields(&class, &access).unwrap();
    let found: Vec<(&str, Mutability)> = fields.iter().map(|f| (f.name.as_str(), f.why)).collect();
    assert_eq!(
        found,
        [
            ("calls", Mutability::Assigned),
            ("CACHE", Mutability::Container),
            ("LOG", Mutability::Container),
        ]
    );
    let resets: Vec<String> = reset_candidates(&class, &access, &fields)
        .unwrap()
        .into_iter()
        .map(|method| method.name)
        .collect();
    assert_eq!(resets, ["reset"]);
}

#[test]
fn a_static_setter_makes_state_and_a_class_without_statics_has_none() {
    let person = ClassFile::parse(support::fixture("fixtures/analysis/Person")).unwrap();
    let access = ClassAccess::of(&person).unwrap();
    let fields = mutable_static_fields(&person, &access).unwrap();
    assert_eq!(fields.len(), 1);
    assert_eq!(fields[0].name, "defaultName");
    // setDefaultName takes the value: not a reset.
    assert!(reset_candidates(&person, &access, &fields)
        .unwrap()
        .is_empty());

    let circle = ClassFile::parse(support::fixture("fixtures/analysis/Circle")).unwrap();
    let access = ClassAccess::of(&circle).unwrap();
    assert!(mutable_static_fields(&circle, &access).unwrap().is_empty());
}
