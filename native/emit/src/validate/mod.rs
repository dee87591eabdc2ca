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
use crate::generics;
use crate::model::{Cause, EmittedClass, JUnit, TestClass};
use crate::test_jvm::{single_defaults, TestJvm};

mod javac;
mod junit;
mod varied;

pub use javac::{compile, CompileError, Compiled, Rejected};
pub use junit::{parse_report, run_tests, Failed, Failure, RunReport};
use varied::{
    attribute_varied, install_runner, other_environment, run_varied, runner_classpath, RUNNER_CLASS,
};

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
    /// The cases javac accepted only with erased types (indices into the
    /// class's tests).
    pub erased: BTreeSet<usize>,
    /// javac's raw-type and unchecked warnings about the kept source.
    pub warnings: Vec<CompileError>,
}

/// Emits `class`, compiles and runs it (twice under the build's
/// conditions, then once varied), drops every test case whose method did
/// not compile or did not pass every run, and repeats until what is left
/// compiles and passes. A case whose type arguments javac rejects is
/// printed once more with erased types before it is dropped. May end with
/// no methods at all.
pub fn validate_and_prune(
    class: &TestClass,
    validator: &Validator,
) -> Result<Validated, ValidateError> {
    let mut class = class.clone();
    let mut cases: Vec<usize> = (0..class.tests.len()).collect();
    let mut dropped = Vec::new();
    let mut round = 0u32;
    loop {
        round += 1;
        let emitted = emit_cases(&class, &cases);
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
        let Compiled { classes, warnings } = match compile(&emitted, validator, &dir)? {
            Ok(compiled) => compiled,
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
                    let test = &mut class.tests[case];
                    let has_type_arguments =
                        || !generics::infer(&test.plan, &class.signatures).is_empty();
                    if !test.erased_types && has_type_arguments() {
                        test.erased_types = true;
                        continue;
                    }
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
        let erased = cases
            .iter()
            .copied()
            .filter(|&case| class.tests[case].erased_types)
            .collect();
        if emitted.methods.is_empty() {
            return Ok(Validated {
                emitted,
                dropped,
                rounds: round,
                erased,
                warnings,
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
                    erased,
                    warnings,
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
    use super::javac::diagnostics;
    use super::junit::trace_has_assert_statement;
    use super::varied::shuffle;
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
        let output = "/tmp/x/src/p/ATest.java:12: error: cannot find symbol\n  symbol: x\n/tmp/x/src/p/ATest.java:20: warning: [rawtypes] found raw type: List\n/tmp/x/src/p/ATest.java:30: error: incompatible types\n1 error\n";
        assert_eq!(
            diagnostics(output, source, "warning"),
            [CompileError {
                line: 20,
                message: "[rawtypes] found raw type: List".into()
            }]
        );
        assert_eq!(
            diagnostics(output, source, "error"),
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
