//! Shared by the reader's integration tests: real class files to read.
#![allow(dead_code)] // each test binary uses a different part

use std::sync::OnceLock;

#[allow(unused_imports)] // used by some of the test binaries only
pub use testgen_testkit::{jar_classes, jars_under};

/// `fixtures/classfile` compiled by javac 17, once per test process, as
/// (internal class name, bytes) sorted by name.
pub fn fixture_classes() -> Vec<(String, Vec<u8>)> {
    static CLASSES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CLASSES
        .get_or_init(|| {
            let dir = testgen_testkit::compile_fixture("classfile");
            let classes = testgen_testkit::classes_in(&dir);
            let _ = std::fs::remove_dir_all(&dir);
            classes
        })
        .clone()
}
