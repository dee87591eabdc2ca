//! Checking generated test classes the way the user's build will, and in
//! the ways it might: compile with the JDK's `javac`; run with the JUnit
//! console launcher (Jupiter for JUnit 5, the vintage engine for JUnit 4)
//! twice under the build's test JVM ([`TestJvm`]: assertion switches,
//! options, system properties, working directory); then once more under
//! another machine's defaults (locale, time zone, line separator) with
//! testgen's own runner (`java/dev/testgen/validate/TestRunner.java`),
//! which runs the methods in a shuffled order on one class loader and then
//! each alone on a class loader of its own. Only test methods that passed
//! every run are kept; each one dropped says why, with the [`Cause`] when
//! it is one of those conditions.
//!
//! Per-method results come from the launcher's legacy XML reports
//! (`--reports-dir`) and from the runner's results file. A class that does
//! not compile is never returned: compile errors inside a test method drop
//! that method; any other compile error is a [`ValidateError::Compile`]
//! naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use testgen_exec::Environment;

use crate::emit::emit_cases;
use crate::model::{Cause, EmittedClass, JUnit, TestClass};
use crate::test_jvm::{single_defaults, TestJvm};

/// testgen's runner of shuffled and isolated test methods, compiled on
/// first use (it needs JUnit's launcher API, which only the JUnit jars of
/// the machine have).
const RUNNER_SOURCE: &str = include_str!("../java/dev/testgen/validate/TestRunner.java");
const RUNNER_CLASS: &str = "dev.testgen.validate.TestRunner";

/// Where Debian (and `scripts/setup.sh`) puts JUnit's jars.
pub const DEFAULT_JAR_DIR: &str = "/usr/share/java";

#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    #[error("{path}: {what} not found ({hint})")]
    Missing {
        path: PathBuf,
        what: String,
        hint: &'static str,
    },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("cannot run {program}: {source}")]
    Spawn { program: PathBuf, source: io::Error },
    #[error("{file}: does not compile:\n{output}")]
    Compile { file: PathBuf, output: String },
    #[error("the JUnit launcher wrote no report for {class}:\n{output}")]
    Launcher { class: String, output: String },
    #[error("testgen's test runner failed: {0}")]
    Runner(String),
}

/// JUnit's jars: what generated tests compile against, and the launcher
/// that runs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JUnitJars {
    /// On the classpath of `javac` and of the tests' run.
    pub classpath: Vec<PathBuf>,
    /// `junit-platform-console-standalone.jar` (includes the Jupiter and
    /// vintage engines).
    pub launcher: PathBuf,
}

/// Finds the jars for `junit` under `dir` (normally [`DEFAULT_JAR_DIR`]).
pub fn find_junit_jars(dir: &Path, junit: JUnit) -> Result<JUnitJars, ValidateError> {
    let find = |name: &str| {
        let path = dir.join(name);
        if path.is_file() {
            Ok(path)
        } else {
            Err(ValidateError::Missing {
                path,
                what: "JUnit jar".to_string(),
                hint: "install the Debian packages junit5, junit4 and libhamcrest-java (scripts/setup.sh), or pass the jars explicitly",
            })
        }
    };
    let names: &[&str] = match junit {
        JUnit::Five => &[
            "junit-jupiter-api.jar",
            "junit-platform-commons.jar",
            "opentest4j.jar",
            "apiguardian-api.jar",
        ],
        JUnit::Four => &["junit4.jar", "hamcrest-core.jar"],
    };
    Ok(JUnitJars {
        classpath: names.iter().map(|n| find(n)).collect::<Result<_, _>>()?,
        launcher: find("junit-platform-console-standalone.jar")?,
    })
}

/// How to compile and run generated tests.
#[derive(Clone, Debug)]
pub struct Validator {
    /// The `java` executable; `javac` is taken from the same directory.
    pub java: PathBuf,
    /// The classes under test and their dependencies.
    pub classpath: Vec<PathBuf>,
    pub junit: JUnitJars,
    /// Where sources, classes and reports are written (a subdirectory per
    /// attempt).
    pub scratch_dir: PathBuf,
    /// The longest one run of a test class may take.
    pub timeout: Duration,
    /// How many times every test must pass under the build's conditions
    /// (2 catches most flakiness).
    pub runs: u32,
    /// How the build runs its tests.
    pub test_jvm: TestJvm,
    /// Seeds the shuffled order of the varied run.
    pub seed: u64,
    /// Where testgen's test runner is compiled (a directory per version).
    pub runner_dir: PathBuf,
    /// The varied run's environment, once asked for (shared by clones).
    varied: Arc<OnceLock<Result<Environment, String>>>,
}

impl Validator {
    /// A validator with JUnit's jars from [`DEFAULT_JAR_DIR`].
    pub fn new(
        java: impl Into<PathBuf>,
        classpath: Vec<PathBuf>,
        junit: JUnit,
        scratch_dir: impl Into<PathBuf>,
    ) -> Result<Validator, ValidateError> {
        let scratch_dir = scratch_dir.into();
        Ok(Validator {
            java: java.into(),
            classpath,
            junit: find_junit_jars(Path::new(DEFAULT_JAR_DIR), junit)?,
            runner_dir: scratch_dir.join("runner"),
            scratch_dir,
            timeout: Duration::from_secs(120),
            runs: 2,
            test_jvm: TestJvm::default(),
            seed: 0,
            varied: Arc::default(),
        })
    }

    /// The same validator, with its scratch files in `dir` (a worker's own).
    pub fn in_dir(mut self, dir: impl Into<PathBuf>) -> Validator {
        self.scratch_dir = dir.into();
        self
    }

    /// The environment of the varied run: another locale, time zone and
    /// line separator than this JVM's defaults (`tr-TR`,
    /// `Asia/Kathmandu`, `\r\n`, or others where those are the defaults),
    /// without what the build pins. Asked of the JVM once (one short run of
    /// testgen's runner), then remembered by this validator and its clones.
    pub fn varied_environment(&self) -> Result<Environment, ValidateError> {
        self.varied
            .get_or_init(|| {
                let runner = install_runner(self).map_err(|e| e.to_string())?;
                let output = Command::new(&self.java)
                    .args(self.test_jvm.test_options())
                    .arg("-cp")
                    .arg(runner_classpath(self, &runner))
                    .arg(RUNNER_CLASS)
                    .arg("defaults")
                    .stdin(Stdio::null())
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", self.java.display()))?;
                if !output.status.success() {
                    return Err(String::from_utf8_lossy(&output.stderr).into_owned());
                }
                let defaults = String::from_utf8_lossy(&output.stdout);
                Ok(self.test_jvm.unpinned(other_environment(&defaults)))
            })
            .clone()
            .map_err(ValidateError::Runner)
    }

    /// `javac` next to `java` (following a symbolic link such as
    /// `/usr/bin/java` to the JDK's `bin/`).
    pub fn javac(&self) -> Result<PathBuf, ValidateError> {
        let name = format!("javac{}", std::env::consts::EXE_SUFFIX);
        let beside = |java: &Path| java.parent().map(|bin| bin.join(&name));
        let candidates = [
            fs::canonicalize(&self.java).ok().and_then(|j| beside(&j)),
            beside(&self.java),
        ];
        candidates
            .into_iter()
            .flatten()
            .find(|javac| javac.is_file())
            .ok_or_else(|| ValidateError::Missing {
                path: self.java.clone(),
                what: "javac beside this java".to_string(),
                hint: "a JDK is needed, not only a JRE",
            })
    }

    fn classpath_with(&self, classes: Option<&Path>) -> std::ffi::OsString {
        let mut entries: Vec<PathBuf> = classes.map(Path::to_path_buf).into_iter().collect();
        entries.extend(self.classpath.iter().cloned());
        entries.extend(self.junit.classpath.iter().cloned());
        std::env::join_paths(entries).unwrap_or_default()
    }
}

/// A compile error at a line of the generated file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub line: usize,
    pub message: String,
}

/// What javac said about a source it rejected.
#[derive(Clone, Debug)]
pub struct Rejected {
    /// The source file written.
    pub file: PathBuf,
    /// Everything javac printed.
    pub output: String,
    pub errors: Vec<CompileError>,
}

/// Writes `emitted` under `dir/src` and compiles it into `dir/classes`
/// (returned); `Ok(Err(..))` when javac rejected the source.
pub fn compile(
    emitted: &EmittedClass,
    validator: &Validator,
    dir: &Path,
) -> Result<Result<PathBuf, Rejected>, ValidateError> {
    let source = dir.join("src").join(&emitted.path);
    let classes = dir.join("classes");
    for made in [source.parent().unwrap_or(dir), &classes] {
        fs::create_dir_all(made).map_err(|e| io_error(made, e))?;
    }
    fs::write(&source, &emitted.source).map_err(|e| io_error(&source, e))?;
    let output = run_javac(validator, |javac| {
        javac
            .args([
                "-encoding",
                "UTF-8",
                "-nowarn",
                "-proc:none",
                "-implicit:none",
            ])
            .args(["-Xmaxerrs", "10000", "-d"])
            .arg(&classes)
            .arg("-cp")
            .arg(validator.classpath_with(None))
            .arg(&source)
    })?;
    if output.status.success() {
        return Ok(Ok(classes));
    }
    let text = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    Ok(Err(Rejected {
        errors: compile_errors(&text, &source),
        file: source,
        output: text,
    }))
}

/// Runs the `javac` beside the validator's `java` with the arguments
/// `arguments` adds.
fn run_javac(
    validator: &Validator,
    arguments: impl FnOnce(&mut Command) -> &mut Command,
) -> Result<std::process::Output, ValidateError> {
    let javac = validator.javac()?;
    let mut command = Command::new(&javac);
    arguments(&mut command);
    command
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ValidateError::Spawn {
            program: javac,
            source,
        })
}

/// `File.java:12: error: message` lines about `source`.
fn compile_errors(output: &str, source: &Path) -> Vec<CompileError> {
    let prefix = format!("{}:", source.display());
    output
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(&prefix)?;
            let (number, message) = rest.split_once(": error: ")?;
            Some(CompileError {
                line: number.parse().ok()?,
                message: message.to_string(),
            })
        })
        .collect()
}

/// Per-method results of running a test class `runs` times.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Methods that passed in every run.
    pub passed: BTreeSet<String>,
    /// Methods that failed (or were not reported) in some run, with the
    /// first failure.
    pub failed: BTreeMap<String, Failure>,
}

/// Why a test method failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub message: String,
    /// The condition it failed under, when that is why: `Assertions` for an
    /// `AssertionError` from an `assert` statement of the code under test,
    /// `Nondeterminism` for one that passed in another run, ...
    pub cause: Option<Cause>,
}

/// What one run said of one method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failed {
    pub message: String,
    /// An `AssertionError` thrown by an `assert` statement outside JUnit.
    pub assert_statement: bool,
}

impl Failed {
    fn other(message: impl Into<String>) -> Failed {
        Failed {
            message: message.into(),
            assert_statement: false,
        }
    }

    fn cause(&self) -> Option<Cause> {
        self.assert_statement.then_some(Cause::Assertions)
    }
}

/// Runs the compiled test class `validator.runs` times under the build's
/// conditions.
pub fn run_tests(
    emitted: &EmittedClass,
    classes: &Path,
    validator: &Validator,
    dir: &Path,
) -> Result<RunReport, ValidateError> {
    let expected: Vec<String> = emitted.methods.iter().map(|m| m.name.clone()).collect();
    let mut report = RunReport::default();
    let mut failed: BTreeMap<String, Failure> = BTreeMap::new();
    let mut passes: BTreeMap<&str, u32> = BTreeMap::new();
    for run in 1..=validator.runs.max(1) {
        let results = run_once(
            emitted,
            classes,
            validator,
            &dir.join(format!("run-{run}")),
            None,
        )?;
        let results = match results {
            Some(results) => results,
            // Timed out: run each method on its own to find the culprit.
            None => {
                let mut results = BTreeMap::new();
                for (i, name) in expected.iter().enumerate() {
                    let alone = dir.join(format!("run-{run}-method-{i}"));
                    let outcome = run_once(emitted, classes, validator, &alone, Some(name))?;
                    let result = outcome
                        .and_then(|mut r| r.remove(name))
                        .unwrap_or_else(|| Err(Failed::other("timed out")));
                    results.insert(name.clone(), result);
                }
                results
            }
        };
        for name in &expected {
            let failure = match results.get(name) {
                Some(Ok(())) => {
                    *passes.entry(name).or_default() += 1;
                    continue;
                }
                Some(Err(failed)) => Failure {
                    message: failed.message.clone(),
                    cause: failed.cause(),
                },
                None => Failure {
                    message: "not run".to_string(),
                    cause: None,
                },
            };
            failed.entry(name.clone()).or_insert(failure);
        }
    }
    for (name, failure) in &mut failed {
        // Passed once, failed once: the outcome is not deterministic.
        if failure.cause.is_none() && passes.contains_key(name.as_str()) {
            failure.cause = Some(Cause::Nondeterminism);
        }
    }
    for name in expected {
        if !failed.contains_key(&name) {
            report.passed.insert(name);
        }
    }
    report.failed = failed;
    Ok(report)
}

type MethodResults = BTreeMap<String, Result<(), Failed>>;

/// One launcher run under the build's conditions; `None` if it timed out.
fn run_once(
    emitted: &EmittedClass,
    classes: &Path,
    validator: &Validator,
    dir: &Path,
    method: Option<&str>,
) -> Result<Option<MethodResults>, ValidateError> {
    let reports = dir.join("reports");
    fs::create_dir_all(&reports).map_err(|e| io_error(&reports, e))?;
    let log = dir.join("launcher.log");
    let class = emitted.binary_name();
    let engine = match emitted.junit {
        JUnit::Five => "junit-jupiter",
        JUnit::Four => "junit-vintage",
    };
    let mut command = Command::new(&validator.java);
    command
        .args(validator.test_jvm.test_options())
        .arg("-jar")
        .arg(&validator.junit.launcher)
        .args([
            "--disable-banner",
            "--disable-ansi-colors",
            "--details=none",
        ])
        .args(["--include-engine", engine])
        .arg("--class-path")
        .arg(validator.classpath_with(Some(classes)))
        .arg("--reports-dir")
        .arg(&reports);
    match method {
        Some(name) => command.arg(format!("--select-method={class}#{name}")),
        None => command.arg(format!("--select-class={class}")),
    };
    let working_dir = validator.test_jvm.working_dir.as_deref().unwrap_or(dir);
    if !run_bounded(command, working_dir, &log, validator)? {
        return Ok(None);
    }
    let mut results = BTreeMap::new();
    let mut found = false;
    let entries = fs::read_dir(&reports).map_err(|e| io_error(&reports, e))?;
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    for file in files {
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        if !(name.starts_with("TEST-") && name.ends_with(".xml")) {
            continue;
        }
        let xml = fs::read_to_string(&file).map_err(|e| io_error(&file, e))?;
        for (test_class, test, result) in parse_report(&xml) {
            if test_class == class {
                results.insert(test, result);
            }
        }
        found = true;
    }
    if !found {
        return Err(ValidateError::Launcher {
            class,
            output: fs::read_to_string(&log).unwrap_or_default(),
        });
    }
    Ok(Some(results))
}

/// Runs `command` in `working_dir` with its output in `log`, within the
/// validator's time limit; false if it timed out (and was killed).
fn run_bounded(
    mut command: Command,
    working_dir: &Path,
    log: &Path,
    validator: &Validator,
) -> Result<bool, ValidateError> {
    let log_file = fs::File::create(log).map_err(|e| io_error(log, e))?;
    let log_err = log_file.try_clone().map_err(|e| io_error(log, e))?;
    let mut child = command
        .current_dir(working_dir)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err)
        .spawn()
        .map_err(|source| ValidateError::Spawn {
            program: validator.java.clone(),
            source,
        })?;
    let deadline = Instant::now() + validator.timeout;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return Ok(true),
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(false);
            }
            Err(e) => return Err(io_error(&validator.java, e)),
        }
    }
}

/// `(class, method, Ok or the failure)` for every `<testcase>` of a legacy
/// (Ant-style) XML report.
pub fn parse_report(xml: &str) -> Vec<(String, String, Result<(), Failed>)> {
    let mut reader = Reader::from_str(xml);
    let mut cases = Vec::new();
    let mut current: Option<(String, String, Result<(), Failed>)> = None;
    // The failure being read: its type and the stack trace in its text.
    let mut failure: Option<(String, String, String)> = None;
    while let Ok(event) = reader.read_event() {
        let empty = matches!(event, Event::Empty(_));
        match event {
            Event::Start(tag) | Event::Empty(tag) if tag.name().as_ref() == b"testcase" => {
                if let Some(done) = current.take() {
                    cases.push(done);
                }
                let name = attribute(&tag, b"name").unwrap_or_default();
                let name = name.strip_suffix("()").unwrap_or(&name).to_string();
                let class = attribute(&tag, b"classname").unwrap_or_default();
                current = Some((class, name, Ok(())));
                if empty {
                    cases.extend(current.take());
                }
            }
            Event::Start(tag) | Event::Empty(tag)
                if matches!(tag.name().as_ref(), b"failure" | b"error" | b"skipped") =>
            {
                let kind = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
                let message = attribute(&tag, b"message")
                    .or_else(|| attribute(&tag, b"type"))
                    .unwrap_or_default();
                let failed = (format!("{kind}: {message}"), String::new(), String::new());
                if empty {
                    record_failure(&mut current, failed);
                } else {
                    failure = Some(failed);
                }
            }
            Event::Text(text) => {
                if let Some((_, _, trace)) = &mut failure {
                    trace.push_str(&text.unescape().unwrap_or_default());
                }
            }
            Event::CData(text) => {
                if let Some((_, _, trace)) = &mut failure {
                    trace.push_str(&String::from_utf8_lossy(&text));
                }
            }
            Event::End(tag)
                if matches!(tag.name().as_ref(), b"failure" | b"error" | b"skipped") =>
            {
                if let Some(failed) = failure.take() {
                    record_failure(&mut current, failed);
                }
            }
            Event::End(tag) if tag.name().as_ref() == b"testcase" => {
                cases.extend(current.take());
            }
            Event::Eof => break,
            _ => {}
        }
    }
    cases.extend(current);
    cases
}

/// Marks the current test case failed, unless a failure came first.
fn record_failure(
    current: &mut Option<(String, String, Result<(), Failed>)>,
    (message, _, trace): (String, String, String),
) {
    if let Some((_, _, result)) = current {
        if result.is_ok() {
            *result = Err(Failed {
                message,
                assert_statement: trace_has_assert_statement(&trace),
            });
        }
    }
}

/// Whether a Java stack trace (with `Caused by:` sections) holds an
/// `AssertionError` thrown outside JUnit's code: by an `assert` statement.
fn trace_has_assert_statement(trace: &str) -> bool {
    let mut lines = trace.lines().map(str::trim);
    while let Some(line) = lines.next() {
        let header = line.strip_prefix("Caused by: ").unwrap_or(line);
        let class = header.split(':').next().unwrap_or("").trim();
        if class != "java.lang.AssertionError" {
            continue;
        }
        let origin = lines
            .by_ref()
            .find_map(|l| l.strip_prefix("at "))
            .unwrap_or("");
        if !["org.junit.", "junit.", "org.opentest4j."]
            .iter()
            .any(|prefix| origin.starts_with(prefix))
        {
            return true;
        }
    }
    false
}

fn attribute(tag: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    let attribute = tag.try_get_attribute(name).ok()??;
    attribute
        .unescape_value()
        .ok()
        .map(|value| value.into_owned())
}

/// What the varied run said, per method.
#[derive(Clone, Debug, Default)]
struct VariedReport {
    /// Failures when the methods ran one after another (shuffled) on one
    /// class loader.
    shared: BTreeMap<String, Failed>,
    /// Failures when each method ran alone.
    alone: BTreeMap<String, Failed>,
}

impl VariedReport {
    fn failing(&self) -> BTreeSet<&str> {
        self.shared
            .keys()
            .chain(self.alone.keys())
            .map(String::as_str)
            .collect()
    }
}

/// Runs the test class with testgen's runner under `environment`: every
/// method in a shuffled order on one class loader, then each alone.
fn run_varied(
    emitted: &EmittedClass,
    classes: &Path,
    validator: &Validator,
    environment: &Environment,
    dir: &Path,
) -> Result<VariedReport, ValidateError> {
    let runner = install_runner(validator)?;
    fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    let mut order: Vec<&str> = emitted.methods.iter().map(|m| m.name.as_str()).collect();
    shuffle(&mut order, validator.seed ^ fnv(&emitted.binary_name()));
    let results = dir.join("results.tsv");
    let mut entries: Vec<PathBuf> = vec![classes.to_path_buf()];
    entries.extend(validator.classpath.iter().cloned());
    let mut command = Command::new(&validator.java);
    command
        .args(validator.test_jvm.test_options())
        .args(environment.jvm_options())
        .arg("-cp")
        .arg(runner_classpath(validator, &runner))
        .arg(RUNNER_CLASS)
        .arg("run")
        .arg(&results)
        .arg(emitted.binary_name())
        .arg(order.join(","))
        .arg(std::env::join_paths(entries).unwrap_or_default());
    // Another working directory than the build's, too.
    let finished = run_bounded(command, dir, &dir.join("runner.log"), validator)?;
    let text = fs::read_to_string(&results).unwrap_or_default();
    let mut report = VariedReport::default();
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.splitn(5, '\t').collect();
        let (phase, method, status) = match fields.as_slice() {
            [phase, method, status, ..] => (*phase, *method, *status),
            _ => continue,
        };
        seen.insert((phase.to_string(), method.to_string()));
        if status == "pass" {
            continue;
        }
        let failed = Failed {
            message: fields.get(4).unwrap_or(&"").to_string(),
            assert_statement: fields.get(3) == Some(&"assert_statement"),
        };
        match phase {
            "shared" => report.shared.insert(method.to_string(), failed),
            _ => report.alone.insert(method.to_string(), failed),
        };
    }
    // A method without a result did not finish (or the runner broke).
    let why = if finished {
        "no result from testgen's runner"
    } else {
        "did not finish in time"
    };
    for method in &order {
        for (phase, failures) in [("shared", &mut report.shared), ("alone", &mut report.alone)] {
            if !seen.contains(&(phase.to_string(), method.to_string())) {
                failures
                    .entry(method.to_string())
                    .or_insert_with(|| Failed::other(why));
            }
        }
    }
    if finished && seen.is_empty() && !order.is_empty() {
        return Err(ValidateError::Runner(
            fs::read_to_string(dir.join("runner.log")).unwrap_or_default(),
        ));
    }
    Ok(report)
}

/// Why each method that failed the varied run failed, by running again
/// with one condition at a time: without the other environment (then the
/// order or the static state is to blame), else with each of its defaults
/// alone.
fn attribute_varied(
    emitted: &EmittedClass,
    classes: &Path,
    validator: &Validator,
    environment: &Environment,
    varied: &VariedReport,
    dir: &Path,
) -> Result<BTreeMap<String, Failure>, ValidateError> {
    let mut causes: BTreeMap<String, Failure> = BTreeMap::new();
    let same_machine = run_varied(
        emitted,
        classes,
        validator,
        &Environment::unchanged(),
        &dir.join("same-machine"),
    )?;
    let mut unexplained = Vec::new();
    for method in varied.failing() {
        let (cause, failed) = if let Some(failed) = same_machine.alone.get(method) {
            (Cause::StaticState, failed)
        } else if let Some(failed) = same_machine.shared.get(method) {
            (Cause::Order, failed)
        } else {
            unexplained.push(method);
            continue;
        };
        let cause = if failed.assert_statement {
            Cause::Assertions
        } else {
            cause
        };
        causes.insert(
            method.to_string(),
            Failure {
                message: failed.message.clone(),
                cause: Some(cause),
            },
        );
    }
    if unexplained.is_empty() {
        return Ok(causes);
    }
    let single = single_defaults(environment);
    let mut reports = Vec::new();
    for (cause, alone) in &single {
        let report = run_varied(emitted, classes, validator, alone, &dir.join(cause.name()))?;
        reports.push((*cause, report));
    }
    for method in unexplained {
        let found = reports.iter().find_map(|(cause, report)| {
            let failed = report.alone.get(method).or(report.shared.get(method))?;
            Some((*cause, failed))
        });
        let (cause, message) = match found {
            Some((cause, failed)) => (cause, failed.message.clone()),
            None => (
                Cause::Environment,
                varied
                    .alone
                    .get(method)
                    .or(varied.shared.get(method))
                    .map(|f| f.message.clone())
                    .unwrap_or_default(),
            ),
        };
        causes.insert(
            method.to_string(),
            Failure {
                message,
                cause: Some(cause),
            },
        );
    }
    Ok(causes)
}

/// The runner's class directory under `validator.runner_dir`, compiled
/// there if it is not yet (written under a temporary name, then renamed).
fn install_runner(validator: &Validator) -> Result<PathBuf, ValidateError> {
    let target = validator
        .runner_dir
        .join(format!("{:016x}", fnv(RUNNER_SOURCE)));
    if target
        .join("dev/testgen/validate/TestRunner.class")
        .is_file()
    {
        return Ok(target);
    }
    let staging = validator.runner_dir.join(format!(
        ".staging-{}-{:x}",
        std::process::id(),
        fnv(&format!("{:?}", thread::current().id()))
    ));
    let _ = fs::remove_dir_all(&staging);
    let source = staging.join("src/TestRunner.java");
    let classes = staging.join("classes");
    for made in [staging.join("src"), classes.clone()] {
        fs::create_dir_all(&made).map_err(|e| io_error(&made, e))?;
    }
    fs::write(&source, RUNNER_SOURCE).map_err(|e| io_error(&source, e))?;
    let output = run_javac(validator, |javac| {
        javac
            .args(["--release", "11", "-encoding", "UTF-8", "-nowarn", "-d"])
            .arg(&classes)
            .arg("-cp")
            .arg(&validator.junit.launcher)
            .arg(&source)
    })?;
    if !output.status.success() {
        let _ = fs::remove_dir_all(&staging);
        return Err(ValidateError::Runner(format!(
            "javac cannot compile it:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    let renamed = fs::rename(&classes, &target);
    let _ = fs::remove_dir_all(&staging);
    match renamed {
        Ok(()) => Ok(target),
        // Another worker installed it first.
        Err(_) if target.is_dir() => Ok(target),
        Err(e) => Err(io_error(&target, e)),
    }
}

/// The runner's JVM class path: the runner, JUnit's launcher and engines,
/// and the JUnit jars the tests compile against (JUnit 4 itself for the
/// vintage engine).
fn runner_classpath(validator: &Validator, runner: &Path) -> std::ffi::OsString {
    let mut entries = vec![runner.to_path_buf(), validator.junit.launcher.clone()];
    entries.extend(validator.junit.classpath.iter().cloned());
    std::env::join_paths(entries).unwrap_or_default()
}

/// Another machine's defaults than `defaults` (the runner's `defaults`
/// output): Turkish (dotless i, comma decimals), a time zone 5:45 ahead of
/// UTC, Windows line ends; or others where the machine already has those.
fn other_environment(defaults: &str) -> Environment {
    let default = |key: &str| {
        defaults
            .lines()
            .find_map(|line| line.strip_prefix(key)?.strip_prefix('\t'))
            .unwrap_or("")
            .to_string()
    };
    let locale = if default("locale").starts_with("tr") {
        "de-DE"
    } else {
        "tr-TR"
    };
    let time_zone = if default("time_zone") == "Asia/Kathmandu" {
        "America/St_Johns"
    } else {
        "Asia/Kathmandu"
    };
    let line_separator = if default("line_separator") == "\\r\\n" {
        "\n"
    } else {
        "\r\n"
    };
    Environment {
        locale: Some(locale.to_string()),
        time_zone: Some(time_zone.to_string()),
        line_separator: Some(line_separator.to_string()),
    }
}

/// Fisher-Yates with a small deterministic generator (splitmix64).
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = (next() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// FNV-1a: a stable hash for names (not for security).
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A test case left out of the final class, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// Index into [`TestClass::tests`].
    pub case: usize,
    /// The method's name when it was dropped (empty if it never had one).
    pub method: String,
    pub reason: String,
    /// The condition it failed under, when that is why.
    pub cause: Option<Cause>,
}

/// A test class that compiled and whose every method passed every run.
#[derive(Clone, Debug)]
pub struct Validated {
    pub emitted: EmittedClass,
    pub dropped: Vec<Dropped>,
    /// Compile-and-run attempts it took.
    pub rounds: u32,
}

/// Emits `class`, compiles and runs it (twice under the build's
/// conditions, then once varied), drops every test case whose method did
/// not compile or did not pass every run, and repeats until what is left
/// compiles and passes. May end with no methods at all.
pub fn validate_and_prune(
    class: &TestClass,
    validator: &Validator,
) -> Result<Validated, ValidateError> {
    let mut cases: Vec<usize> = (0..class.tests.len()).collect();
    let mut dropped = Vec::new();
    let mut round = 0u32;
    loop {
        round += 1;
        let emitted = emit_cases(class, &cases);
        for skipped in &emitted.skipped {
            dropped.push(Dropped {
                case: skipped.case,
                method: String::new(),
                reason: skipped.reason.clone(),
                cause: skipped.cause,
            });
            cases.retain(|&c| c != skipped.case);
        }
        let dir = validator
            .scratch_dir
            .join(format!("{}-round-{round}", emitted.class_name));
        let _ = fs::remove_dir_all(&dir);
        let classes = match compile(&emitted, validator, &dir)? {
            Ok(classes) => classes,
            Err(Rejected {
                file,
                output,
                errors,
            }) => {
                let mut culprits = BTreeMap::new();
                for error in &errors {
                    match emitted.method_at_line(error.line) {
                        Some(method) => {
                            culprits
                                .entry(method.case)
                                .or_insert_with(|| (method.name.clone(), error.message.clone()));
                        }
                        None => return Err(ValidateError::Compile { file, output }),
                    }
                }
                if culprits.is_empty() {
                    return Err(ValidateError::Compile { file, output });
                }
                for (case, (method, message)) in culprits {
                    dropped.push(Dropped {
                        case,
                        method,
                        reason: format!("does not compile: {message}"),
                        cause: None,
                    });
                    cases.retain(|&c| c != case);
                }
                continue;
            }
        };
        if emitted.methods.is_empty() {
            return Ok(Validated {
                emitted,
                dropped,
                rounds: round,
            });
        }
        let mut failed = run_tests(&emitted, &classes, validator, &dir)?.failed;
        if failed.is_empty() {
            let environment = validator.varied_environment()?;
            let varied_dir = dir.join("varied");
            let varied = run_varied(&emitted, &classes, validator, &environment, &varied_dir)?;
            if varied.failing().is_empty() {
                return Ok(Validated {
                    emitted,
                    dropped,
                    rounds: round,
                });
            }
            failed = attribute_varied(
                &emitted,
                &classes,
                validator,
                &environment,
                &varied,
                &varied_dir,
            )?;
        }
        for method in &emitted.methods {
            if let Some(failure) = failed.get(&method.name) {
                dropped.push(Dropped {
                    case: method.case,
                    method: method.name.clone(),
                    reason: match failure.cause {
                        Some(cause) => format!("fails ({}): {}", cause.name(), failure.message),
                        None => failure.message.clone(),
                    },
                    cause: failure.cause,
                });
                cases.retain(|&c| c != method.case);
            }
        }
    }
}

fn io_error(path: &Path, source: io::Error) -> ValidateError {
    ValidateError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_give_per_method_results() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="JUnit Jupiter" tests="3">
<testcase name="passes()" classname="p.ATest" time="0.01"/>
<testcase name="fails()" classname="p.ATest" time="0.01">
<failure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError">trace</failure>
<system-out><![CDATA[x]]></system-out>
</testcase>
<testcase name="errs" classname="p.ATest"><error type="java.lang.IllegalStateException"/></testcase>
</testsuite>"#;
        let cases = parse_report(xml);
        assert_eq!(
            cases,
            [
                ("p.ATest".into(), "passes".into(), Ok(())),
                (
                    "p.ATest".into(),
                    "fails".into(),
                    Err(Failed::other("failure: expected: <1> but was: <2>"))
                ),
                (
                    "p.ATest".into(),
                    "errs".into(),
                    Err(Failed::other("error: java.lang.IllegalStateException"))
                ),
            ]
        );
    }

    #[test]
    fn assert_statements_are_told_from_junit_assertions() {
        let statement = "java.lang.AssertionError: weight must be positive\n\tat demo.Bmi.category(Bmi.java:12)\n\tat demo.BmiGeneratedTest.lambda$0(BmiGeneratedTest.java:20)";
        assert!(trace_has_assert_statement(statement));
        let junit4 = "java.lang.AssertionError: expected:<1> but was:<2>\n\tat org.junit.Assert.fail(Assert.java:89)\n\tat demo.BmiGeneratedTest.t(BmiGeneratedTest.java:20)";
        assert!(!trace_has_assert_statement(junit4));
        let wrapped = "org.opentest4j.AssertionFailedError: Unexpected exception type thrown\n\tat org.junit.jupiter.api.AssertThrows.assertThrows(AssertThrows.java:67)\nCaused by: java.lang.AssertionError\n\tat demo.Bmi.category(Bmi.java:12)";
        assert!(trace_has_assert_statement(wrapped));
        let xml = r#"<testsuite><testcase name="t()" classname="p.T"><failure message="m" type="java.lang.AssertionError">java.lang.AssertionError: m
	at p.Bmi.category(Bmi.java:3)
</failure></testcase></testsuite>"#;
        let cases = parse_report(xml);
        assert_eq!(
            cases[0].2,
            Err(Failed {
                message: "failure: m".into(),
                assert_statement: true
            })
        );
    }

    #[test]
    fn other_machines_differ_from_this_one() {
        let here = "locale\ten-US\ntime_zone\tUTC\nline_separator\t\\n\n";
        let other = other_environment(here);
        assert_eq!(other.locale.as_deref(), Some("tr-TR"));
        assert_eq!(other.time_zone.as_deref(), Some("Asia/Kathmandu"));
        assert_eq!(other.line_separator.as_deref(), Some("\r\n"));
        let turkish_windows = "locale\ttr-TR\ntime_zone\tAsia/Kathmandu\nline_separator\t\\r\\n\n";
        let other = other_environment(turkish_windows);
        assert_eq!(other.locale.as_deref(), Some("de-DE"));
        assert_eq!(other.time_zone.as_deref(), Some("America/St_Johns"));
        assert_eq!(other.line_separator.as_deref(), Some("\n"));
    }

    #[test]
    fn shuffles_are_deterministic_permutations() {
        let mut a: Vec<u32> = (0..20).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        assert_ne!(a, (0..20).collect::<Vec<_>>());
        a.sort_unstable();
        assert_eq!(a, (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn compile_errors_are_found_by_line() {
        let source = Path::new("/tmp/x/src/p/ATest.java");
        let output = "/tmp/x/src/p/ATest.java:12: error: cannot find symbol\n  symbol: x\n/tmp/x/src/p/ATest.java:30: error: incompatible types\n1 error\n";
        assert_eq!(
            compile_errors(output, source),
            [
                CompileError {
                    line: 12,
                    message: "cannot find symbol".into()
                },
                CompileError {
                    line: 30,
                    message: "incompatible types".into()
                },
            ]
        );
    }

    #[test]
    fn missing_jars_say_what_to_install() {
        let error = find_junit_jars(Path::new("/nonexistent"), JUnit::Five).unwrap_err();
        assert!(
            error.to_string().contains("junit-jupiter-api.jar"),
            "{error}"
        );
        assert!(error.to_string().contains("junit5"), "{error}");
    }
}
