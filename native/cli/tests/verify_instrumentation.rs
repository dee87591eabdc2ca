//! `testgen verify-instrumentation` through the real binary and a real JVM.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn testgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_testgen"))
        .args(args)
        .output()
        .expect("the testgen binary runs")
}

fn cache() -> String {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cache")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn commons_libraries_and_fixtures_verify_after_instrumentation() {
    // The javac 17 fixtures: records, sealed types, switches, wide, lambdas.
    let fixtures = testgen_testkit::compile_fixture("classfile");

    let output = testgen(&[
        "verify-instrumentation",
        "--cache",
        &cache(),
        "--classes",
        "/usr/share/java/commons-cli.jar",
        "/usr/share/java/commons-codec.jar",
        "/usr/share/java/commons-csv.jar",
        "/usr/share/java/commons-collections4.jar",
        fixtures.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    println!("{stdout}");
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = stdout.lines().next().unwrap();
    assert!(summary.starts_with("verified "), "{summary}");
    assert!(
        summary.contains(", 0 failed, 0 methods skipped, 0 classes not instrumented"),
        "{summary}"
    );
    let verified: usize = summary["verified ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(verified >= 673 + 10, "{summary}");
}

#[test]
fn a_class_the_verifier_rejects_is_reported_and_fails_the_run() {
    // Option.class from commons-cli with its first constructor's leading
    // `aload_0` turned into `iconst_0`: `invokespecial <init>` then receives
    // an int, which no instrumentation can make verify.
    let dir = testgen_testkit::scratch_dir("broken");
    let (_, mut bytes) = testgen_testkit::installed_jar_classes("/usr/share/java/commons-cli.jar")
        .into_iter()
        .find(|(name, _)| name == "org/apache/commons/cli/Option.class")
        .unwrap();
    let at = testgen_classfile_offsets::first_constructor_code(&bytes);
    assert_eq!(bytes[at], 0x2a, "the constructor starts with aload_0");
    bytes[at] = 0x03;
    let package = dir.join("org/apache/commons/cli");
    fs::create_dir_all(&package).unwrap();
    fs::write(package.join("Option.class"), &bytes).unwrap();

    let output = testgen(&[
        "verify-instrumentation",
        "--cache",
        &cache(),
        "--classes",
        dir.to_str().unwrap(),
        "--classpath",
        "/usr/share/java/commons-cli.jar",
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!output.status.success(), "{stdout}");
    assert!(stdout.contains(", 1 failed,"), "{stdout}");
    assert!(
        stdout.contains("failed org.apache.commons.cli.Option: VerifyError"),
        "{stdout}"
    );
}

mod testgen_classfile_offsets {
    /// File offset of the first constructor's bytecode.
    pub fn first_constructor_code(bytes: &[u8]) -> usize {
        let class = testgen_classfile::ClassFile::parse(bytes).unwrap();
        let constructor = class
            .methods
            .iter()
            .find(|method| method.name(&class).unwrap() == "<init>")
            .expect("a constructor");
        constructor.code(&class).unwrap().unwrap().bytecode_offset
    }
}
