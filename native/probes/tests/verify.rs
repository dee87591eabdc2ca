//! Instrumented classes pass the JVM's verifier: real jars and the javac 17
//! fixtures are instrumented, written out, and linked by a real JVM.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use testgen_classfile::instruction::opcode;
use testgen_classfile::ClassFile;
use testgen_probes::{instrument, ProbeIds, SiteKind};
use testgen_testkit::{classes_in, compile_fixture, java_sources, javac, repo_root, scratch_dir};

/// The classes of a jar as (internal name, bytes), without versioned
/// entries and module descriptors.
fn jar_classes(jar: &str) -> Vec<(String, Vec<u8>)> {
    testgen_testkit::installed_jar_classes(jar)
        .into_iter()
        .filter(|(name, _)| !name.starts_with("META-INF/") && !name.ends_with("module-info.class"))
        .map(|(name, bytes)| (name.trim_end_matches(".class").to_string(), bytes))
        .collect()
}

struct Figures {
    classes: usize,
    methods: usize,
    sites: usize,
    skipped: usize,
}

/// Instruments `classes` (all of them the code under test) into `out`.
fn instrument_all(classes: &[(String, Vec<u8>)], out: &Path) -> Figures {
    let project: BTreeSet<&str> = classes.iter().map(|(name, _)| name.as_str()).collect();
    let is_project = |name: &str| project.contains(name);
    let mut ids = ProbeIds::default();
    let mut figures = Figures {
        classes: 0,
        methods: 0,
        sites: 0,
        skipped: 0,
    };
    for (name, bytes) in classes {
        let instrumented =
            instrument(bytes, &mut ids, &is_project).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Our own reader must accept the result, every part of it.
        let parsed =
            ClassFile::parse(&instrumented.bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        parsed
            .check()
            .unwrap_or_else(|e| panic!("{name} after instrumentation: {e}"));
        let path = out.join(format!("{name}.class"));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &instrumented.bytes).unwrap();
        figures.classes += 1;
        figures.methods += instrumented.methods.len();
        figures.sites += instrumented.sites.len();
        for skipped in &instrumented.skipped {
            println!(
                "skipped {name}.{}{}: {}",
                skipped.name, skipped.descriptor, skipped.reason
            );
        }
        figures.skipped += instrumented.skipped.len();
    }
    figures
}

/// Links every class under `dir` in a JVM; returns the failure lines.
fn link_failures(dir: &Path) -> Vec<String> {
    let harness = scratch_dir("link-check");
    javac(
        &java_sources(&repo_root().join("fixtures/probes/harness")),
        &harness,
    );
    let output = Command::new("java")
        .arg("-cp")
        .arg(&harness)
        .arg("LinkCheck")
        .arg(dir)
        .output()
        .expect("java runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.lines().any(|l| l.starts_with("ok ")),
        "nothing was linked:\n{stdout}"
    );
    stdout
        .lines()
        .filter(|l| !l.starts_with("ok "))
        .map(String::from)
        .collect()
}

#[test]
fn instrumented_fixtures_verify() {
    let compiled = compile_fixture("classfile");
    let classes = classes_in(&compiled);
    let out = scratch_dir("fixtures-instrumented");
    let figures = instrument_all(&classes, &out);
    assert_eq!(figures.skipped, 0);
    assert!(figures.sites > 50, "{} sites", figures.sites);
    let failures = link_failures(&out);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn instrumented_library_jars_verify() {
    for jar in [
        "/usr/share/java/commons-cli.jar",
        "/usr/share/java/commons-codec.jar",
        "/usr/share/java/commons-csv.jar",
        "/usr/share/java/commons-collections4.jar",
    ] {
        let classes = jar_classes(jar);
        let out = scratch_dir(Path::new(jar).file_stem().unwrap().to_str().unwrap());
        let figures = instrument_all(&classes, &out);
        let failures = link_failures(&out);
        println!(
            "{jar}: {} classes, {} methods instrumented, {} sites, {} skipped, {} failed to verify",
            figures.classes,
            figures.methods,
            figures.sites,
            figures.skipped,
            failures.len()
        );
        assert!(failures.is_empty(), "{jar}: {failures:#?}");
    }
}

/// The harness must be able to fail: a class whose stack map is broken on
/// purpose is reported.
#[test]
fn the_link_check_catches_a_broken_stack_map() {
    let compiled = compile_fixture("classfile");
    let out = scratch_dir("broken-instrumented");
    instrument_all(&classes_in(&compiled), &out);
    // Take back the probes' extra stack in `dense(int)`, whose own code needs
    // one slot: the `dup` and site id before its `tableswitch` then overflow.
    let path = out.join("fixtures/classfile/Kitchen.class");
    let mut broken = fs::read(&path).unwrap();
    let class = ClassFile::parse(&broken).unwrap();
    let method = class
        .methods
        .iter()
        .find(|m| m.name(&class).unwrap() == "dense")
        .unwrap();
    let max_stack_at = method.code(&class).unwrap().unwrap().bytecode_offset - 8;
    let max_stack = u16::from_be_bytes([broken[max_stack_at], broken[max_stack_at + 1]]);
    broken[max_stack_at..max_stack_at + 2].copy_from_slice(&(max_stack - 3).to_be_bytes());
    fs::write(&path, broken).unwrap();
    let failures = link_failures(&out);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(
        failures[0].contains("Kitchen") && failures[0].contains("VerifyError"),
        "{failures:?}"
    );
}

#[test]
fn every_branch_switch_and_compare_gets_a_site() {
    let compiled = compile_fixture("classfile");
    let mut ids = ProbeIds::default();
    for (name, bytes) in classes_in(&compiled) {
        let class = ClassFile::parse(&bytes).unwrap();
        let mut expected = 0;
        for method in &class.methods {
            let Some(code) = method.code(&class).unwrap() else {
                continue;
            };
            for op in code.opcodes() {
                let (_, op) = op.unwrap();
                let watched = opcode::is_conditional_branch(op)
                    || opcode::is_switch(op)
                    || matches!(
                        op,
                        opcode::LCMP
                            | opcode::FCMPL
                            | opcode::FCMPG
                            | opcode::DCMPL
                            | opcode::DCMPG
                    );
                expected += usize::from(watched);
            }
        }
        let instrumented = instrument(&bytes, &mut ids, &|_| true).unwrap();
        let watched = instrumented
            .sites
            .iter()
            .filter(|s| {
                matches!(
                    s.kind,
                    SiteKind::Branch { .. } | SiteKind::Switch { .. } | SiteKind::Compare { .. }
                )
            })
            .count();
        assert_eq!(watched, expected, "{name}");
    }
    assert!(ids.next_site > 0 && ids.next_method > 0);
}
