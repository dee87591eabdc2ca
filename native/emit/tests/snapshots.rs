//! Snapshot tests of the emitted Java: each recorded test model under
//! `fixtures/emit/models` is emitted for JUnit 5 and JUnit 4 and compared
//! with the expected source next to it, byte for byte. No JVM runs: a
//! change to the oracle or the printer shows as a changed expected file,
//! reviewed like code.
//!
//! `TESTGEN_UPDATE_SNAPSHOTS=1` writes the expected files anew instead of
//! comparing. `scripts/record-emit-models.sh` records the models (after a
//! change to `TestClass`'s serialised form, with `TEST_CLASS_FORMAT`
//! bumped).

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use testgen_emit::{emit, JUnit, TestClass, TEST_CLASS_FORMAT};

/// A recorded model as stored: its format, then the model.
#[derive(Deserialize)]
struct Recorded {
    format: u32,
    class: serde_json::Value,
}

fn snapshots_dir() -> PathBuf {
    testgen_testkit::repo_root().join("fixtures/emit")
}

fn models() -> Vec<PathBuf> {
    let mut models: Vec<PathBuf> = fs::read_dir(snapshots_dir().join("models"))
        .expect("fixtures/emit/models exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .collect();
    models.sort();
    models
}

fn read_model(path: &Path) -> TestClass {
    let recorded: Recorded = serde_json::from_slice(&fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: not a recorded model: {e}", path.display()));
    assert_eq!(
        recorded.format,
        TEST_CLASS_FORMAT,
        "{} was recorded in test model format {}, this is format {}: record the models \
         again (scripts/record-emit-models.sh)",
        path.display(),
        recorded.format,
        TEST_CLASS_FORMAT
    );
    let class: TestClass = serde_json::from_value(recorded.class.clone()).unwrap_or_else(|e| {
        panic!(
            "{} no longer reads as a TestClass ({e}): its serialised form changed without \
             TEST_CLASS_FORMAT being bumped (bump it, then record the models again with \
             scripts/record-emit-models.sh)",
            path.display()
        )
    });
    // Written back, the model is what was recorded: a field added, renamed
    // or dropped is a change of form, as a field that no longer reads is.
    assert_eq!(
        serde_json::to_value(&class).unwrap(),
        recorded.class,
        "{}: a TestClass no longer writes as it was recorded; bump TEST_CLASS_FORMAT and \
         record the models again (scripts/record-emit-models.sh)",
        path.display()
    );
    class
}

/// The first line where `actual` and `expected` differ, for the message.
fn first_difference(actual: &str, expected: &str) -> String {
    let (mut a, mut e) = (actual.lines(), expected.lines());
    for line in 1.. {
        match (a.next(), e.next()) {
            (None, None) => break,
            (x, y) if x == y => {}
            (x, y) => {
                return format!(
                    "line {line}:\n  expected: {}\n  actual:   {}",
                    y.unwrap_or("<end>"),
                    x.unwrap_or("<end>")
                )
            }
        }
    }
    "only in line endings".into()
}

#[test]
fn emitted_java_matches_the_reviewed_snapshots() {
    let update = std::env::var_os("TESTGEN_UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let models = models();
    assert!(models.len() >= 4, "the recorded models are present");
    let mut differences = Vec::new();
    for path in &models {
        let mut class = read_model(path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        for (junit, suffix) in [(JUnit::Five, "junit5"), (JUnit::Four, "junit4")] {
            class.junit = junit;
            let emitted = emit(&class);
            assert!(!emitted.methods.is_empty(), "{stem}: every model has tests");
            let expected_path = snapshots_dir()
                .join("expected")
                .join(format!("{stem}.{suffix}.java"));
            if update {
                fs::create_dir_all(expected_path.parent().unwrap()).unwrap();
                fs::write(&expected_path, &emitted.source).unwrap();
                continue;
            }
            let expected = fs::read_to_string(&expected_path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (TESTGEN_UPDATE_SNAPSHOTS=1 writes it)",
                    expected_path.display()
                )
            });
            if emitted.source != expected {
                differences.push(format!(
                    "{}: {}",
                    expected_path.display(),
                    first_difference(&emitted.source, &expected)
                ));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "the emitted Java changed; review the change and, if it is intended, run the test \
         with TESTGEN_UPDATE_SNAPSHOTS=1 and commit the expected files:\n{}",
        differences.join("\n")
    );
}
