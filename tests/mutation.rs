//! Do the generated tests catch faults? Tests are generated for the correct
//! classes of `fixtures/mutation` (JTestCraft's coin box and a price list),
//! compiled with javac, and run with JUnit against:
//!
//! - the seeded faults of `fixtures/mutation/faults.txt` (off-by-one
//!   boundaries, swapped operators, wrong constants, missing resets), each
//!   compiled from the source with one change: at least 90% must make a
//!   test fail;
//! - every mutant `testgen_mutate` makes of the classes: the report's
//!   verdicts (killed, survived, unreached) must be what JUnit finds, the
//!   mutants JUnit's tests fail on being exactly the killed ones.
//!
//! All versions run in one JVM (`fixtures/mutation/tools/RunAgainst.java`,
//! a class loader per version). Registered as an integration test of
//! `testgen_cli` in `native/cli/Cargo.toml`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use testgen_testkit::{classes_in, compile_fixture, files_under, javac, repo_root, scratch_dir};

const JARS: &str = "/usr/share/java";

fn jar(name: &str) -> PathBuf {
    Path::new(JARS).join(name)
}

fn classpath(entries: &[PathBuf]) -> String {
    std::env::join_paths(entries)
        .unwrap()
        .into_string()
        .unwrap()
}

fn fixture_dir() -> PathBuf {
    repo_root().join("fixtures/mutation")
}

/// Generates tests for `classes` and compiles them; returns the report,
/// the compiled tests and their binary names.
fn generate_and_compile(dir: &Path, classes: &Path) -> (Value, PathBuf, Vec<String>) {
    let out = dir.join("generated-tests");
    let report = dir.join("report");
    let output = Command::new(env!("CARGO_BIN_EXE_testgen"))
        .args(["generate", "--classes"])
        .arg(classes)
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .args(["--jobs", "2", "--budget", "20", "--max-runs", "60"])
        .output()
        .expect("testgen runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value =
        serde_json::from_str(&fs::read_to_string(report.join("testgen-report.json")).unwrap())
            .unwrap();

    let sources: Vec<PathBuf> = files_under(&out)
        .keys()
        .map(|name| out.join(name))
        .collect();
    let names: Vec<String> = files_under(&out)
        .keys()
        .map(|name| name.trim_end_matches(".java").replace('/', "."))
        .collect();
    assert_eq!(names.len(), 2, "a test class per fixture class: {names:?}");
    let test_classes = dir.join("test-classes");
    fs::create_dir_all(&test_classes).unwrap();
    let mut compile_path = vec![classes.to_path_buf()];
    compile_path.extend(
        [
            "junit-jupiter-api.jar",
            "apiguardian-api.jar",
            "opentest4j.jar",
            "junit-platform-commons.jar",
        ]
        .map(jar),
    );
    let compiled = Command::new("javac")
        .args(["-encoding", "UTF-8", "-d"])
        .arg(&test_classes)
        .arg("-cp")
        .arg(classpath(&compile_path))
        .args(&sources)
        .output()
        .expect("javac runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    (report, test_classes, names)
}

/// Runs the tests against each version directory; failed tests per version.
fn failures_against(test_classes: &Path, tests: &[String], versions: &[PathBuf]) -> Vec<u32> {
    let output = Command::new("java")
        .arg("-cp")
        .arg(jar("junit-platform-console-standalone.jar"))
        .arg(fixture_dir().join("tools/RunAgainst.java"))
        .arg(test_classes)
        .arg(tests.join(","))
        .args(versions)
        .output()
        .expect("java runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines: Vec<&str> = stdout.lines().filter(|l| l.contains(" tests ")).collect();
    assert_eq!(lines.len(), versions.len(), "{stdout}");
    lines
        .iter()
        .zip(versions)
        .map(|(line, version)| {
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(Path::new(words[0]), version.as_path(), "{line}");
            let tests: u32 = words[2].parse().unwrap();
            assert!(tests > 0, "no test ran against {line}");
            words[4].parse().unwrap()
        })
        .collect()
}

struct Fault {
    file: String,
    original: String,
    faulty: String,
    kind: String,
}

fn faults() -> Vec<Fault> {
    fs::read_to_string(fixture_dir().join("faults.txt"))
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let parts: Vec<String> = line
                .split(" | ")
                .map(|part| part.replace("\\n", "\n"))
                .collect();
            assert_eq!(parts.len(), 4, "{line}");
            Fault {
                file: parts[0].clone(),
                original: parts[1].clone(),
                faulty: parts[2].clone(),
                kind: parts[3].clone(),
            }
        })
        .collect()
}

/// The fixture compiled with `fault` seeded into its source.
fn compile_faulty(dir: &Path, fault: &Fault) -> PathBuf {
    let source_dir = dir.join("src/fixtures/mutation");
    fs::create_dir_all(&source_dir).unwrap();
    let mut sources = Vec::new();
    for (name, _) in files_under(&fixture_dir().join("src/fixtures/mutation")) {
        let mut text =
            fs::read_to_string(fixture_dir().join("src/fixtures/mutation").join(&name)).unwrap();
        if name == fault.file {
            assert_eq!(
                text.matches(&fault.original).count(),
                1,
                "{}: `{}` must occur once",
                fault.file,
                fault.original
            );
            text = text.replace(&fault.original, &fault.faulty);
        }
        let path = source_dir.join(&name);
        fs::write(&path, text).unwrap();
        sources.push(path);
    }
    let classes = dir.join("classes");
    fs::create_dir_all(&classes).unwrap();
    javac(&sources, &classes);
    classes
}

#[test]
fn the_generated_tests_catch_seeded_faults_and_the_mutants_the_report_says_they_kill() {
    let classes = compile_fixture("mutation");
    let dir = scratch_dir("mutation-generated");
    let (report, test_classes, tests) = generate_and_compile(&dir, &classes);

    // Seeded faults; the correct version first, which must pass.
    let faults = faults();
    let mut versions = vec![classes.clone()];
    for (index, fault) in faults.iter().enumerate() {
        versions.push(compile_faulty(
            &scratch_dir(&format!("mutation-fault-{index}")),
            fault,
        ));
    }
    let failed = failures_against(&test_classes, &tests, &versions);
    assert_eq!(failed[0], 0, "the tests fail on the correct classes");
    let mut caught = 0;
    for (fault, failed) in faults.iter().zip(&failed[1..]) {
        let verdict = if *failed > 0 { "caught" } else { "MISSED" };
        println!(
            "{verdict:6} {} ({}): {} -> {} ({failed} tests failed)",
            fault.file,
            fault.kind,
            fault.original.trim(),
            fault.faulty.trim()
        );
        caught += usize::from(*failed > 0);
    }
    println!("seeded faults caught: {caught} of {}", faults.len());
    assert!(
        caught * 10 >= faults.len() * 9,
        "{caught} of {} seeded faults caught (at least 90% required)",
        faults.len()
    );

    // Every mutant, against the report's verdicts.
    let originals = classes_in(&classes);
    let mut mutant_dirs = Vec::new();
    let mut keys = Vec::new();
    for (name, bytes) in &originals {
        for (index, mutation) in testgen_mutate::mutations(bytes).unwrap().iter().enumerate() {
            let version = scratch_dir(&format!("mutant-{}-{index}", name.replace('/', "-")));
            for (other, other_bytes) in &originals {
                let path = version.join(format!("{other}.class"));
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                let written = if other == name {
                    testgen_mutate::apply(bytes, mutation).unwrap()
                } else {
                    other_bytes.clone()
                };
                fs::write(path, written).unwrap();
            }
            mutant_dirs.push(version);
            keys.push((
                name.replace('/', "."),
                format!("{}{}", mutation.method_name, mutation.descriptor),
                mutation.line,
                mutation.operator.name().to_string(),
                mutation.description.clone(),
            ));
        }
    }
    let failed = failures_against(&test_classes, &tests, &mutant_dirs);
    let mut surviving_by_junit: BTreeMap<_, usize> = BTreeMap::new();
    let mut killed_by_junit = 0;
    for (key, failed) in keys.iter().zip(&failed) {
        if *failed > 0 {
            killed_by_junit += 1;
        } else {
            *surviving_by_junit.entry(key.clone()).or_default() += 1;
        }
    }
    let mut killed = 0;
    let mut unreached = 0;
    let mut survivors: BTreeMap<_, usize> = BTreeMap::new();
    for class in report["classes"].as_array().unwrap() {
        let score = &class["mutation"];
        assert_eq!(score["rejected"], 0, "{score}");
        assert_eq!(score["not_analysed"], 0, "{score}");
        killed += score["killed"].as_u64().unwrap() as usize;
        unreached += score["unreached"].as_u64().unwrap() as usize;
        for survivor in score["survivors"].as_array().unwrap() {
            let key = (
                class["class"].as_str().unwrap().to_string(),
                survivor["method"].as_str().unwrap().to_string(),
                survivor["line"].as_u64().unwrap() as u32,
                survivor["operator"].as_str().unwrap().to_string(),
                survivor["change"].as_str().unwrap().to_string(),
            );
            *survivors.entry(key).or_default() += 1;
        }
    }
    println!(
        "mutants: {} made, JUnit's tests fail on {killed_by_junit}; the report: {killed} killed, {} survived, {unreached} unreached",
        keys.len(),
        survivors.values().sum::<usize>()
    );
    assert_eq!(
        killed_by_junit, killed,
        "killed mutants: JUnit against the report"
    );
    for (key, count) in &survivors {
        assert!(
            surviving_by_junit.get(key).copied().unwrap_or(0) >= *count,
            "the report says {key:?} survived, but JUnit's tests fail on it"
        );
    }
    assert_eq!(
        surviving_by_junit.values().sum::<usize>(),
        survivors.values().sum::<usize>() + unreached
    );
    assert!(
        killed * 10 >= keys.len() * 6,
        "{killed} of {} killed",
        keys.len()
    );
}
