//! The symbolic replay on recorded runs, with no JVM: each run under
//! `fixtures/replay/runs` (inputs and trace, recorded from a real executor
//! by `examples/record_replays.rs`) is replayed over the stored class files
//! and its steps are compared with the reviewed expectation in
//! `fixtures/replay/expected`. A change to the machine, the JDK models or
//! the encoding shows here as a changed path condition, before any
//! exploration test runs.
//!
//! `TESTGEN_UPDATE_SNAPSHOTS=1` writes the expectations anew instead of
//! comparing; `scripts/record-replays.sh` records the runs again (needed
//! when the instrumentation's probe numbering or the templates change).

mod support;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use support::Fixture;
use testgen_construct::Recipes;
use testgen_symbolic::explore::{
    replay_recorded, Exploration, ExploreOptions, RecordedRun, EXPLORATION_FORMAT,
};
use testgen_symbolic::machine::Replayed;
use testgen_symbolic::tree::Location;

fn recorded_dir() -> PathBuf {
    testgen_testkit::repo_root().join("fixtures/replay")
}

fn files(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

/// The stored class files, as the recording instrumented them.
fn fixture() -> Fixture {
    let classes = testgen_testkit::classes_in(&recorded_dir().join("classes"));
    assert!(
        !classes.is_empty(),
        "fixtures/replay/classes holds the classes"
    );
    Fixture::new(classes, Vec::new(), "fixtures/")
}

fn at(location: &Location) -> String {
    match &location.method {
        Some(method) => format!("{method} @{}", location.offset),
        None => "context".into(),
    }
}

fn clause(clause: &Option<String>) -> String {
    match clause {
        Some(clause) => format!(" when {clause}"),
        None => " (not modelled)".into(),
    }
}

/// A replay as reviewable text: each decision with its condition, each
/// alternative with the condition that selects it, then why it stopped.
fn describe(index: usize, run: &RecordedRun, replayed: &Replayed, out: &mut String) {
    let _ = writeln!(out, "run {index}: context {}", run.context);
    for step in &replayed.steps {
        let taken = &step.taken;
        let _ = writeln!(
            out,
            "  {} {}{}",
            at(&taken.at),
            taken.outcome.label(),
            clause(&taken.clause)
        );
        for alternative in &step.alternatives {
            let _ = writeln!(
                out,
                "    else {}{}",
                alternative.outcome.label(),
                clause(&alternative.clause)
            );
        }
    }
    for site in &replayed.loop_bounds {
        let _ = writeln!(out, "  loop bound at {site}");
    }
    if let Some(stopped) = &replayed.stopped {
        let _ = writeln!(out, "  stopped: {stopped}");
    }
}

#[test]
fn recorded_runs_replay_to_the_reviewed_steps() {
    let update = std::env::var_os("TESTGEN_UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let fixture = fixture();
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let options = ExploreOptions::default();
    let recorded = files(&recorded_dir().join("runs"), "json");
    assert!(recorded.len() >= 5, "the recorded runs are present");
    let mut differences = Vec::new();
    let mut steps_total = 0;
    for path in &recorded {
        let runs: Vec<RecordedRun> = serde_json::from_slice(&fs::read(path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut text = String::new();
        for (index, run) in runs.iter().enumerate() {
            let replayed = replay_recorded(&recipes, run, &options)
                .unwrap_or_else(|e| panic!("{}, run {index}: {e}", path.display()));
            steps_total += replayed.steps.len();
            describe(index, run, &replayed, &mut text);
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let expected_path = recorded_dir()
            .join("expected")
            .join(format!("{stem}.steps"));
        if update {
            fs::create_dir_all(expected_path.parent().unwrap()).unwrap();
            fs::write(&expected_path, &text).unwrap();
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (TESTGEN_UPDATE_SNAPSHOTS=1 writes it)",
                expected_path.display()
            )
        });
        if text != expected {
            let line = text
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .map_or_else(|| "the length".to_string(), |n| format!("line {}", n + 1));
            differences.push(format!("{} differs at {line}", expected_path.display()));
        }
    }
    assert!(steps_total > 0, "the recorded runs make decisions");
    assert!(
        differences.is_empty(),
        "the replay of recorded runs changed; review the change and, if it is intended, run \
         the test with TESTGEN_UPDATE_SNAPSHOTS=1 and commit the expected files:\n{}",
        differences.join("\n")
    );
}

/// The stored exploration reads as an [`Exploration`] and writes back the
/// same: a change to its serialised form must bump `EXPLORATION_FORMAT`
/// (the cache then explores again instead of misreading old entries).
#[test]
fn the_exploration_format_is_pinned_by_a_recorded_sample() {
    #[derive(Deserialize)]
    struct Stored {
        format: u32,
        exploration: serde_json::Value,
    }
    let path = recorded_dir().join("exploration.json");
    let stored: Stored = serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(
        stored.format,
        EXPLORATION_FORMAT,
        "{} was recorded in exploration format {}, this is {}: record it again \
         (scripts/record-replays.sh)",
        path.display(),
        stored.format,
        EXPLORATION_FORMAT
    );
    let read: Exploration =
        serde_json::from_value(stored.exploration.clone()).unwrap_or_else(|e| {
            panic!(
                "{} no longer reads as an Exploration ({e}): bump EXPLORATION_FORMAT and record \
             it again",
                path.display()
            )
        });
    assert!(
        read.runs > 0 && !read.reached.is_empty(),
        "a real exploration"
    );
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        stored.exploration,
        "an Exploration no longer writes as it did: bump EXPLORATION_FORMAT and record the \
         sample again (scripts/record-replays.sh)"
    );
}
