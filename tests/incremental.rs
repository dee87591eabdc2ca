//! Incremental `testgen generate` with the per-class cache, end to end with
//! the real binary, javac and JUnit, on a copy of `fixtures/demo`:
//!
//! - an unchanged re-run reports every class `unchanged`, starts no JVM
//!   (`--java` is a wrapper that logs every start of java and javac) and
//!   leaves every file as it was; a deleted generated file is written again;
//! - after one method body changed, only its class is generated again, and
//!   the trees of its unchanged methods are reused;
//! - a change in a class another depends on revalidates the other one;
//! - a damaged cache entry gives a warning and is rebuilt;
//! - a class that is gone loses its generated file and its cache entry;
//! - two runs on one cache at the same time both finish (the second waits)
//!   and leave the cache intact; `--jobs 1` and `--jobs 2` write the same
//!   files.
//!
//! Registered as an integration test of `testgen_cli` (so that Cargo builds
//! the binary) by a `[[test]]` entry in `native/cli/Cargo.toml`.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use testgen_testkit::{files_under, java_sources, javac, repo_root, scratch_dir};

/// Enough runs per method for the demo's branches, few enough to be quick.
const MAX_RUNS: &str = "30";

/// A project directory: `src/` (a copy of fixtures/demo), `classes/`,
/// `out/`, `report/`, `cache/` and `bin/` (logging java and javac wrappers).
struct Project {
    dir: PathBuf,
}

impl Project {
    fn new(tag: &str) -> Project {
        let dir = scratch_dir(tag);
        let src = dir.join("src/demo");
        fs::create_dir_all(&src).unwrap();
        for source in java_sources(&repo_root().join("fixtures/demo/src/demo")) {
            fs::copy(&source, src.join(source.file_name().unwrap())).unwrap();
        }
        let project = Project { dir };
        project.compile();
        project.install_wrappers();
        project
    }

    fn compile(&self) {
        javac(
            &java_sources(&self.dir.join("src")),
            &self.dir.join("classes"),
        );
    }

    /// `bin/java` and `bin/javac` log their arguments to `jvm.log`, then run
    /// the real tools.
    fn install_wrappers(&self) {
        let bin = self.dir.join("bin");
        fs::create_dir_all(&bin).unwrap();
        let real_bin = real_java_bin();
        for tool in ["java", "javac"] {
            let wrapper = bin.join(tool);
            fs::write(
                &wrapper,
                format!(
                    "#!/bin/sh\necho \"{tool} $*\" >> '{}'\nexec '{}' \"$@\"\n",
                    self.jvm_log().display(),
                    real_bin.join(tool).display()
                ),
            )
            .unwrap();
            fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    fn jvm_log(&self) -> PathBuf {
        self.dir.join("jvm.log")
    }

    /// How many times java or javac started since the last call.
    fn jvm_starts(&self) -> usize {
        let log = fs::read_to_string(self.jvm_log()).unwrap_or_default();
        let _ = fs::remove_file(self.jvm_log());
        log.lines().count()
    }

    fn out(&self) -> PathBuf {
        self.dir.join("out")
    }

    fn cache(&self) -> PathBuf {
        self.dir.join("cache")
    }

    fn command(&self, extra: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_testgen"));
        command
            .arg("generate")
            .arg("--classes")
            .arg(self.dir.join("classes"))
            .arg("--out")
            .arg(self.out())
            .arg("--report")
            .arg(self.dir.join("report"))
            .arg("--cache")
            .arg(self.cache())
            .arg("--java")
            .arg(self.dir.join("bin/java"))
            .args(["--release", "17", "--seed", "0"])
            .args(extra);
        if !extra.contains(&"--max-runs") {
            command.args(["--max-runs", MAX_RUNS]);
        }
        command
    }

    /// Runs `testgen generate` and returns its report and stderr.
    fn generate(&self, extra: &[&str]) -> Run {
        let output = self.command(extra).output().expect("testgen runs");
        Run::of(output, &self.dir.join("report"))
    }

    fn files(&self) -> BTreeMap<String, Vec<u8>> {
        files_under(&self.out())
    }
}

struct Run {
    report: Value,
    stderr: String,
}

impl Run {
    fn of(output: Output, report_dir: &Path) -> Run {
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        eprintln!("{stderr}");
        assert!(
            output.status.success(),
            "testgen generate failed:\n{stderr}"
        );
        let text = fs::read_to_string(report_dir.join("testgen-report.json")).unwrap();
        Run {
            report: serde_json::from_str(&text).unwrap(),
            stderr,
        }
    }

    fn class(&self, name: &str) -> &Value {
        self.report["classes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["class"] == name)
            .unwrap_or_else(|| panic!("{name} is not in {:#}", self.report))
    }

    fn status(&self, name: &str) -> &str {
        self.class(name)["status"].as_str().unwrap()
    }

    /// Every class's status, by name.
    fn statuses(&self) -> BTreeMap<String, String> {
        self.report["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["class"].as_str().unwrap().to_string(),
                    c["status"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    }
}

/// The directory of the JDK's real `java` and `javac`.
fn real_java_bin() -> PathBuf {
    let java = match std::env::var_os("JAVA_HOME") {
        Some(home) if Path::new(&home).join("bin/java").is_file() => {
            Path::new(&home).join("bin/java")
        }
        _ => PathBuf::from(
            String::from_utf8(
                Command::new("sh")
                    .args(["-c", "command -v java"])
                    .output()
                    .unwrap()
                    .stdout,
            )
            .unwrap()
            .trim(),
        ),
    };
    fs::canonicalize(&java)
        .expect("java must be installed (make test runs scripts/setup.sh)")
        .parent()
        .unwrap()
        .to_path_buf()
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{} has no `{from}`", path.display());
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn incremental_runs_redo_only_what_changed() {
    let project = Project::new("incremental");
    let first = project.generate(&["--jobs", "2"]);
    let all = |status: &str| {
        first
            .statuses()
            .keys()
            .map(|class| (class.clone(), status.to_string()))
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(first.statuses(), all("generated"));
    let written = project.files();
    assert_eq!(written.len(), 4, "{:?}", written.keys());
    assert!(project.jvm_starts() > 0, "the first run starts JVMs");

    // Nothing changed: nothing runs, nothing is written.
    let unchanged = project.generate(&["--jobs", "2"]);
    assert_eq!(unchanged.statuses(), all("unchanged"));
    assert_eq!(project.jvm_starts(), 0, "an unchanged run starts no JVM");
    assert_eq!(project.files(), written);
    assert_eq!(
        unchanged.report["summary"]["tests"],
        first.report["summary"]["tests"]
    );
    assert_eq!(
        unchanged.report["summary"]["branches_covered"],
        first.report["summary"]["branches_covered"]
    );

    // A deleted generated file is written again, the same.
    fs::remove_file(project.out().join("demo/GradesGeneratedTest.java")).unwrap();
    let restored = project.generate(&[]);
    assert_eq!(restored.status("demo.Grades"), "unchanged");
    assert_eq!(project.jvm_starts(), 0);
    assert_eq!(project.files(), written);

    // One method body changes: only its class is generated again, and the
    // trees of its other methods are reused.
    edit(
        &project.dir.join("src/demo/Thermostat.java"),
        "targetTenths - 30",
        "targetTenths - 40",
    );
    project.compile();
    let changed = project.generate(&[]);
    let mut expected = all("unchanged");
    expected.insert("demo.Thermostat".into(), "generated".into());
    assert_eq!(changed.statuses(), expected);
    let thermostat = changed.class("demo.Thermostat");
    let explored = thermostat["methods_explored"].as_u64().unwrap();
    let reused = thermostat["methods_reused"].as_u64().unwrap();
    assert!(
        reused >= 1 && reused < explored,
        "action(int) explored again, the other methods reused: {thermostat:#}"
    );
    assert!(thermostat["paths"].as_u64().unwrap() > 0, "{thermostat:#}");
    let thermostat_test = "demo/ThermostatGeneratedTest.java";
    for (file, bytes) in project.files() {
        if file != thermostat_test {
            assert_eq!(bytes, written[&file], "{file} was rewritten");
        }
    }
    project.jvm_starts();

    // A class Account depends on changes without changing what Account's
    // tests see: Account's tests are run again and kept.
    edit(
        &project.dir.join("src/demo/InsufficientFundsException.java"),
        "    public long getMissingCents() {",
        "    public boolean isLarge() {\n        return missingCents > 10_000;\n    }\n\n    public long getMissingCents() {",
    );
    project.compile();
    let dependency = project.generate(&[]);
    assert_eq!(dependency.status("demo.Account"), "revalidated");
    assert_eq!(
        dependency.status("demo.InsufficientFundsException"),
        "generated"
    );
    assert_eq!(dependency.status("demo.Grades"), "unchanged");
    assert_eq!(
        project.files()["demo/AccountGeneratedTest.java"],
        written["demo/AccountGeneratedTest.java"]
    );

    // A damaged entry: a warning, and the class is generated again.
    let entry = project.cache().join("classes/demo.Grades.json");
    let text = fs::read(&entry).unwrap();
    fs::write(&entry, &text[..text.len() / 3]).unwrap();
    let damaged = project.generate(&[]);
    assert!(
        damaged
            .stderr
            .contains("warning: the cache entry of demo.Grades is damaged"),
        "{}",
        damaged.stderr
    );
    assert_eq!(damaged.status("demo.Grades"), "generated");
    assert_eq!(
        project.files()["demo/GradesGeneratedTest.java"],
        written["demo/GradesGeneratedTest.java"],
        "the same tests as the first time"
    );
    let rebuilt = project.generate(&[]);
    assert_eq!(rebuilt.status("demo.Grades"), "unchanged");

    // A class that is gone: its file and its cache entry go too.
    fs::remove_file(project.dir.join("classes/demo/Grades.class")).unwrap();
    let gone = project.generate(&[]);
    assert_eq!(gone.status("demo.Grades"), "removed");
    assert!(!project.out().join("demo/GradesGeneratedTest.java").exists());
    assert!(
        !entry.exists(),
        "the entry of a class that is gone is pruned"
    );
}

#[test]
fn two_runs_at_once_take_turns_and_jobs_do_not_change_the_output() {
    let project = Project::new("at-once");
    let two_classes = ["--include", "demo.Grades", "--include", "demo.Thermostat"];
    let one_job = [&two_classes[..], &["--jobs", "1"]].concat();
    let spawn = || {
        project
            .command(&one_job)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (spawn(), spawn());
    let first = first.wait_with_output().unwrap();
    let second = second.wait_with_output().unwrap();
    let (first_err, second_err) = (
        String::from_utf8_lossy(&first.stderr),
        String::from_utf8_lossy(&second.stderr),
    );
    assert!(first.status.success(), "{first_err}");
    assert!(second.status.success(), "{second_err}");
    let waited = format!("{first_err}{second_err}");
    assert!(
        waited.contains("another testgen run is using the cache"),
        "one run waited for the other:\n{waited}"
    );
    // One of them generated, the other found the classes unchanged; either
    // way the cache is intact: a third run has nothing to do.
    let third = project.generate(&one_job);
    assert_eq!(third.status("demo.Grades"), "unchanged");
    assert_eq!(third.status("demo.Thermostat"), "unchanged");
    let with_one_job = project.files();
    assert_eq!(with_one_job.len(), 2, "{:?}", with_one_job.keys());

    // The same classes with two workers, from scratch, in another project.
    let other = Project::new("at-once-jobs");
    let two_jobs = [&two_classes[..], &["--jobs", "2", "--mode", "full"]].concat();
    let run = other.generate(&two_jobs);
    assert_eq!(run.status("demo.Grades"), "generated");
    assert_eq!(other.files(), with_one_job);
}

#[test]
fn nightly_runs_explore_open_classes_deeper_until_nothing_new_is_found() {
    let project = Project::new("nightly");
    // fixtures.explore.IncreasingCheck: a loop whose last branch outcome is
    // infeasible but not provable within the limits, so it stays open.
    let dir = &project.dir;
    fs::remove_dir_all(dir.join("classes")).unwrap();
    javac(
        &java_sources(&repo_root().join("fixtures/explore/src")),
        &dir.join("classes"),
    );
    let only = [
        "--include",
        "fixtures.explore.IncreasingCheck",
        "--max-runs",
        "4",
    ];
    let class = "fixtures.explore.IncreasingCheck";
    let daily = project.generate(&only);
    assert_eq!(daily.status(class), "generated");
    let covered = |run: &Run| run.class(class)["branches_covered"].as_u64().unwrap();
    let open = |run: &Run| {
        let c = run.class(class);
        c["branches"].as_u64().unwrap()
            - c["branches_covered"].as_u64().unwrap()
            - c["branches_infeasible"].as_u64().unwrap()
    };
    assert!(open(&daily) > 0, "{:#}", daily.class(class));

    let nightly = [&only[..], &["--mode", "nightly", "--total-budget", "600"]].concat();
    let mut fruitless = 0;
    let mut best = covered(&daily);
    let mut runs = 0;
    // Deeper runs until two in a row find nothing new; then the class is
    // skipped (bounded: each run either covers more or counts as fruitless).
    loop {
        runs += 1;
        assert!(runs <= 12, "nightly runs never settled");
        let run = project.generate(&nightly);
        assert_eq!(run.report["summary"]["mode"], "nightly");
        assert_eq!(run.report["summary"]["total_budget_seconds"], 600.0);
        let reason = run.class(class)["reason"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if fruitless == 2 {
            assert_eq!(run.status(class), "unchanged");
            assert!(reason.contains("nightly: skipped"), "{reason}");
            assert_eq!(project.jvm_starts(), 0, "a skipped class starts no JVM");
            break;
        }
        if covered(&run) > best {
            assert_eq!(run.status(class), "generated");
            assert!(reason.contains("covered"), "{reason}");
            best = covered(&run);
            fruitless = 0;
        } else {
            assert_eq!(run.status(class), "unchanged", "{reason}");
            assert!(reason.contains("covered nothing new"), "{reason}");
            assert_eq!(covered(&run), best, "the cached tests stand");
            fruitless += 1;
        }
        project.jvm_starts();
    }
    // A daily run leaves the class alone.
    let daily_again = project.generate(&only);
    assert_eq!(daily_again.status(class), "unchanged");
}
