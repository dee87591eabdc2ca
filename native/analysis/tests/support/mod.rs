//! Shared by the integration tests: real class files to analyse.
#![allow(dead_code)] // each test binary uses a different part

use std::sync::OnceLock;

use testgen_classfile::{ClassFile, Member};

/// Compiles `fixtures/analysis` with javac 17, once per test process, and
/// returns the class files as (internal class name, bytes), sorted by name.
pub fn fixture_classes() -> &'static [(String, Vec<u8>)] {
    static CLASSES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let dir = testgen_testkit::compile_fixture("analysis");
        let classes = testgen_testkit::classes_in(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        classes
    })
}

/// The bytes of the fixture class with internal name `name`.
pub fn fixture(name: &str) -> &'static [u8] {
    &fixture_classes()
        .iter()
        .find(|(class, _)| class == name)
        .unwrap_or_else(|| panic!("javac did not produce {name}"))
        .1
}

/// The only method of `class` called `name`.
pub fn method<'c, 'a>(class: &'c ClassFile<'a>, name: &str) -> &'c Member<'a> {
    let mut found = class
        .methods
        .iter()
        .filter(|method| method.name(class).unwrap() == name);
    let method = found.next().unwrap_or_else(|| panic!("no method {name}"));
    assert!(found.next().is_none(), "{name} is overloaded");
    method
}

#[allow(unused_imports)] // used by some of the test binaries only
pub use testgen_testkit::jar_classes;
