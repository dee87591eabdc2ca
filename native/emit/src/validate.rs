//! Checking generated test classes the way the user's build will: compile
//! with the JDK's `javac`, run with the JUnit console launcher (Jupiter for
//! JUnit 5, the vintage engine for JUnit 4), twice, and keep only the test
//! methods that passed both times.
//!
//! Per-method results come from the launcher's legacy XML reports
//! (`--reports-dir`). A class that does not compile is never returned:
//! compile errors inside a test method drop that method; any other compile
//! error is a [`ValidateError::Compile`] naming the file.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

use crate::emit::{emit_cases, EmittedClass, JUnit, TestClass};

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
    /// How many times every test must pass (2 catches most flakiness).
    pub runs: u32,
}

impl Validator {
    /// A validator with JUnit's jars from [`DEFAULT_JAR_DIR`].
    pub fn new(
        java: impl Into<PathBuf>,
        classpath: Vec<PathBuf>,
        junit: JUnit,
        scratch_dir: impl Into<PathBuf>,
    ) -> Result<Validator, ValidateError> {
        Ok(Validator {
            java: java.into(),
            classpath,
            junit: find_junit_jars(Path::new(DEFAULT_JAR_DIR), junit)?,
            scratch_dir: scratch_dir.into(),
            timeout: Duration::from_secs(120),
            runs: 2,
        })
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
    let javac = validator.javac()?;
    let output = Command::new(&javac)
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
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ValidateError::Spawn {
            program: javac.clone(),
            source,
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
    /// first failure's message.
    pub failed: BTreeMap<String, String>,
}

/// Runs the compiled test class `validator.runs` times.
pub fn run_tests(
    emitted: &EmittedClass,
    classes: &Path,
    validator: &Validator,
    dir: &Path,
) -> Result<RunReport, ValidateError> {
    let expected: Vec<String> = emitted.methods.iter().map(|m| m.name.clone()).collect();
    let mut report = RunReport::default();
    let mut failed: BTreeMap<String, String> = BTreeMap::new();
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
                        .unwrap_or_else(|| Err("timed out".to_string()));
                    results.insert(name.clone(), result);
                }
                results
            }
        };
        for name in &expected {
            match results.get(name) {
                Some(Ok(())) => {}
                Some(Err(message)) => {
                    failed
                        .entry(name.clone())
                        .or_insert_with(|| message.clone());
                }
                None => {
                    failed
                        .entry(name.clone())
                        .or_insert_with(|| "not run".to_string());
                }
            }
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

type MethodResults = BTreeMap<String, Result<(), String>>;

/// One launcher run; `None` if it timed out.
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
    let log_file = fs::File::create(&log).map_err(|e| io_error(&log, e))?;
    let log_err = log_file.try_clone().map_err(|e| io_error(&log, e))?;
    let class = emitted.binary_name();
    let engine = match emitted.junit {
        JUnit::Five => "junit-jupiter",
        JUnit::Four => "junit-vintage",
    };
    let mut command = Command::new(&validator.java);
    command
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
    let mut child = command
        .current_dir(dir)
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
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Ok(None);
            }
            Err(e) => return Err(io_error(&validator.java, e)),
        }
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

/// `(class, method, Ok or the failure message)` for every `<testcase>` of
/// a legacy (Ant-style) XML report.
pub fn parse_report(xml: &str) -> Vec<(String, String, Result<(), String>)> {
    let mut reader = Reader::from_str(xml);
    let mut cases = Vec::new();
    let mut current: Option<(String, String, Result<(), String>)> = None;
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
                if let Some((_, _, result)) = &mut current {
                    if result.is_ok() {
                        let kind = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
                        let message = attribute(&tag, b"message")
                            .or_else(|| attribute(&tag, b"type"))
                            .unwrap_or_default();
                        *result = Err(format!("{kind}: {message}"));
                    }
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

fn attribute(tag: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    let attribute = tag.try_get_attribute(name).ok()??;
    attribute
        .unescape_value()
        .ok()
        .map(|value| value.into_owned())
}

/// A test case left out of the final class, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// Index into [`TestClass::tests`].
    pub case: usize,
    /// The method's name when it was dropped (empty if it never had one).
    pub method: String,
    pub reason: String,
}

/// A test class that compiled and whose every method passed every run.
#[derive(Clone, Debug)]
pub struct Validated {
    pub emitted: EmittedClass,
    pub dropped: Vec<Dropped>,
    /// Compile-and-run attempts it took.
    pub rounds: u32,
}

/// Emits `class`, compiles and runs it, drops every test case whose method
/// did not compile or did not pass every run, and repeats until what is
/// left compiles and passes. May end with no methods at all.
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
        let report = run_tests(&emitted, &classes, validator, &dir)?;
        if report.failed.is_empty() {
            return Ok(Validated {
                emitted,
                dropped,
                rounds: round,
            });
        }
        for method in &emitted.methods {
            if let Some(message) = report.failed.get(&method.name) {
                dropped.push(Dropped {
                    case: method.case,
                    method: method.name.clone(),
                    reason: message.clone(),
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
                    Err("failure: expected: <1> but was: <2>".into())
                ),
                (
                    "p.ATest".into(),
                    "errs".into(),
                    Err("error: java.lang.IllegalStateException".into())
                ),
            ]
        );
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
