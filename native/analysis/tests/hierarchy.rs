//! The class hierarchy of `fixtures/analysis`: Shape <- Polygon (interfaces),
//! AbstractShape implements Shape, Circle extends AbstractShape, Square
//! implements Polygon, Triangle extends AbstractShape implements Polygon
//! (with a private constructor).

mod support;

use testgen_analysis::Hierarchy;
use testgen_classfile::ClassFile;

fn hierarchy() -> Hierarchy {
    let classes: Vec<ClassFile<'_>> = support::fixture_classes()
        .iter()
        .map(|(_, bytes)| ClassFile::parse(bytes).unwrap())
        .collect();
    Hierarchy::new(&classes).unwrap()
}

fn pkg(names: &[&str]) -> Vec<String> {
    names
        .iter()
        .map(|name| format!("fixtures/analysis/{name}"))
        .collect()
}

#[test]
fn supertypes_and_kinds() {
    let h = hierarchy();
    assert_eq!(h.len(), support::fixture_classes().len());
    assert_eq!(
        h.super_class("fixtures/analysis/Circle"),
        Some("fixtures/analysis/AbstractShape")
    );
    assert_eq!(
        h.superclasses("fixtures/analysis/Circle"),
        ["fixtures/analysis/AbstractShape", "java/lang/Object"]
    );
    assert_eq!(
        h.supertypes("fixtures/analysis/Triangle"),
        [
            "fixtures/analysis/AbstractShape",
            "fixtures/analysis/Polygon",
            "fixtures/analysis/Shape",
            "java/lang/Object"
        ]
    );
    assert_eq!(h.interfaces("fixtures/analysis/Polygon"), pkg(&["Shape"]));
    assert_eq!(h.is_interface("fixtures/analysis/Shape"), Some(true));
    assert_eq!(
        h.is_interface("fixtures/analysis/AbstractShape"),
        Some(false)
    );
    assert_eq!(h.is_abstract("fixtures/analysis/AbstractShape"), Some(true));
    assert_eq!(h.is_abstract("fixtures/analysis/Shape"), Some(true));
    assert_eq!(h.is_abstract("fixtures/analysis/Circle"), Some(false));
    assert_eq!(h.is_abstract("java/util/List"), None);
    assert!(h.is_assignable("fixtures/analysis/Square", "fixtures/analysis/Shape"));
    assert!(!h.is_assignable("fixtures/analysis/Circle", "fixtures/analysis/Polygon"));
    assert!(h.is_assignable("fixtures/analysis/Circle", "java/lang/Object"));
}

#[test]
fn implementors_of_the_interfaces() {
    let h = hierarchy();
    // Through AbstractShape (Circle), through Polygon (Square), both
    // (Triangle).
    assert_eq!(
        h.implementors("fixtures/analysis/Shape"),
        pkg(&["AbstractShape", "Circle", "Square", "Triangle"])
    );
    assert_eq!(
        h.subtypes("fixtures/analysis/Shape"),
        pkg(&["AbstractShape", "Circle", "Polygon", "Square", "Triangle"])
    );
    assert_eq!(
        h.implementors("fixtures/analysis/Polygon"),
        pkg(&["Square", "Triangle"])
    );
    assert_eq!(
        h.direct_subclasses("fixtures/analysis/AbstractShape"),
        pkg(&["Circle", "Triangle"])
    );
    assert_eq!(
        h.subclasses("fixtures/analysis/AbstractShape"),
        pkg(&["Circle", "Triangle"])
    );
    // The enum of the switch fixture extends java/lang/Enum, outside the set.
    assert_eq!(
        h.direct_subclasses("java/lang/Enum"),
        pkg(&["Switches$Color"])
    );
}

#[test]
fn instantiable_types_need_a_concrete_class_and_a_public_constructor() {
    let h = hierarchy();
    // Not AbstractShape (abstract), not Triangle (private constructor).
    assert_eq!(
        h.instantiable("fixtures/analysis/Shape"),
        pkg(&["Circle", "Square"])
    );
    assert_eq!(
        h.instantiable("fixtures/analysis/Polygon"),
        pkg(&["Square"])
    );
    assert_eq!(h.instantiable("fixtures/analysis/Circle"), pkg(&["Circle"]));
    assert!(h.instantiable("fixtures/analysis/Triangle").is_empty());
    // Switches$1 (the switch map) has no constructor at all; the enum's is
    // private.
    let anything = h.instantiable("java/lang/Object");
    assert!(anything.contains(&"fixtures/analysis/Person"));
    assert!(!anything.contains(&"fixtures/analysis/Switches$1"));
    assert!(!anything.contains(&"fixtures/analysis/Switches$Color"));
}

#[test]
fn program_classes_below_jdk_types_are_found_through_them() {
    let h = hierarchy();
    // Rejected extends IllegalStateException, which the set does not hold.
    for jdk in [
        "java/lang/IllegalStateException",
        "java/lang/RuntimeException",
        "java/lang/Exception",
        "java/lang/Throwable",
    ] {
        assert_eq!(h.instantiable(jdk), pkg(&["Rejected"]), "{jdk}");
    }
    assert!(h
        .instantiable("java/lang/IllegalArgumentException")
        .is_empty());
    assert!(h.instantiable("java/lang/Error").is_empty());
}

#[test]
fn fields_resolve_to_their_declaring_class() {
    let h = hierarchy();
    assert_eq!(
        h.field_owner("fixtures/analysis/Circle", "label", "Ljava/lang/String;"),
        Some("fixtures/analysis/AbstractShape")
    );
    assert_eq!(
        h.field_owner("fixtures/analysis/Circle", "radius", "D"),
        Some("fixtures/analysis/Circle")
    );
    assert_eq!(
        h.field_owner("fixtures/analysis/Circle", "missing", "D"),
        None
    );
}
