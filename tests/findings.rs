//! Possible bugs: `fixtures/findings` seeds three methods that let an
//! exception from inside the JDK escape without declaring it (`substring`
//! past the end, `Math.floorDiv` by zero, `List.get` before the first),
//! and three that do not (one checks its input, one declares the
//! exception, one fails in its own array access). testgen must report
//! the seeded ones and no other, write no test that expects them (unless
//! `--possible-bugs assert`), and say so in `testgen.sarif`, which must
//! validate against the SARIF 2.1.0 schema vendored in `fixtures/sarif`.
//! Registered as an integration test of `testgen_cli` in
//! `native/cli/Cargo.toml`.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use testgen_testkit::{compile_fixture, repo_root, scratch_dir};

/// The seeded possible bugs: method and (the end of) the exception's name.
const SEEDED: &[(&str, &str)] = &[
    (
        "prefix(Ljava/lang/String;I)Ljava/lang/String;",
        "java.lang.StringIndexOutOfBoundsException",
    ),
    ("perBox(II)I", "java.lang.ArithmeticException"),
    (
        "before(Ljava/util/List;I)Ljava/lang/String;",
        "IndexOutOfBoundsException",
    ),
];

/// Generates tests for the fixture; returns the report, the SARIF log and
/// the test source.
fn generate(dir: &Path, classes: &Path, extra: &[&str]) -> (Value, Value, String) {
    let out = dir.join("generated-tests");
    let report = dir.join("report");
    let output = Command::new(env!("CARGO_BIN_EXE_testgen"))
        .args(["generate", "--mode", "full", "--classes"])
        .arg(classes)
        .arg("--out")
        .arg(&out)
        .arg("--report")
        .arg(&report)
        .args(["--jobs", "1", "--budget", "15"])
        .args(extra)
        .output()
        .expect("testgen runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |name: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(report.join(name)).unwrap()).unwrap()
    };
    let source = fs::read_to_string(out.join("shop/LabelsGeneratedTest.java")).unwrap();
    (read("testgen-report.json"), read("testgen.sarif"), source)
}

/// The `(method, exception)` of each possible bug the report lists.
fn reported(report: &Value) -> BTreeSet<(String, String)> {
    report["classes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|class| {
            class["possible_bugs"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|bug| {
            (
                bug["method"].as_str().unwrap().to_string(),
                bug["exception"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The line of the fixture's source that holds `text`.
fn line_of(text: &str) -> u64 {
    let source =
        fs::read_to_string(repo_root().join("fixtures/findings/src/shop/Labels.java")).unwrap();
    let index = source
        .lines()
        .position(|line| line.contains(text))
        .unwrap_or_else(|| panic!("{text} is in the fixture"));
    index as u64 + 1
}

#[test]
fn seeded_possible_bugs_are_reported_and_not_asserted() {
    let classes = compile_fixture("findings");
    let dir = scratch_dir("findings");
    let (report, sarif, source) = generate(&dir, &classes, &[]);

    // The seeded possible bugs, no more (`List.get` throws an index
    // exception whose class depends on the list).
    let found = reported(&report);
    assert_eq!(found.len(), SEEDED.len(), "{found:?}");
    for (method, exception) in SEEDED {
        assert!(
            found
                .iter()
                .any(|(m, e)| m == method && e.ends_with(exception)),
            "{method} {exception} not in {found:?}"
        );
    }
    assert_eq!(report["summary"]["possible_bugs"], 3);
    // No written test expects a possible bug (a null input is another
    // matter; letterAt declares its exception, so a test may expect it).
    for call in ["Labels.prefix(", "Labels.perBox(", "Labels.before("] {
        let expects_bug = source.lines().any(|line| {
            line.contains("assertThrows(")
                && line.contains(call)
                && !line.contains("NullPointerException")
        });
        assert!(
            !expects_bug,
            "a written test expects a possible bug of {call}:\n{source}"
        );
    }
    // The methods that check their input still have their contract tested.
    assert!(
        source.contains("IllegalArgumentException"),
        "checkedPrefix's own exception is a test:\n{source}"
    );

    // Each bug carries the test that shows it, and where the JDK was called.
    let bugs = report["classes"][0]["possible_bugs"].as_array().unwrap();
    let prefix = bugs
        .iter()
        .find(|bug| bug["method"].as_str().unwrap().starts_with("prefix("))
        .unwrap();
    assert_eq!(prefix["file"], "shop/Labels.java");
    assert_eq!(prefix["line"], line_of("text.substring(0, width)"));
    assert!(
        prefix["test"]
            .as_str()
            .unwrap()
            .contains("assertThrows(StringIndexOutOfBoundsException.class, () -> Labels.prefix("),
        "{prefix}"
    );

    // testgen.sarif: valid SARIF 2.1.0, one result per possible bug.
    let schema: Value = serde_json::from_str(
        &fs::read_to_string(repo_root().join("fixtures/sarif/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|error| format!("{} at {}", error, error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "testgen.sarif is not valid SARIF 2.1.0: {errors:#?}"
    );
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for result in results {
        assert_eq!(result["ruleId"], "undeclared-jdk-exception");
        let location = &result["locations"][0];
        assert_eq!(
            location["physicalLocation"]["artifactLocation"]["uri"],
            "shop/Labels.java"
        );
        let name = location["logicalLocations"][0]["fullyQualifiedName"]
            .as_str()
            .unwrap();
        assert!(
            SEEDED
                .iter()
                .any(|(method, _)| name == format!("shop.Labels.{method}")),
            "{name}"
        );
        assert!(result["properties"]["test"]
            .as_str()
            .unwrap()
            .contains("@Test"));
    }
    // A check that can fail: a log missing its version is no SARIF.
    let mut broken = sarif.clone();
    broken.as_object_mut().unwrap().remove("version");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn asked_to_assert_them_testgen_writes_their_tests() {
    let classes = compile_fixture("findings");
    let dir = scratch_dir("findings-assert");
    let (report, _, source) = generate(&dir, &classes, &["--possible-bugs", "assert"]);
    assert_eq!(reported(&report).len(), 3, "still reported");
    assert!(
        source.contains("assertThrows(StringIndexOutOfBoundsException.class, () -> Labels.prefix("),
        "{source}"
    );
    assert!(source.contains("ArithmeticException"), "{source}");
}
