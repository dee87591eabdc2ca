//! Running a test class with the JUnit console launcher, and reading
//! per-method results from its XML reports.

use super::*;

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
    pub(super) fn other(message: impl Into<String>) -> Failed {
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
pub(super) fn run_once(
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
pub(super) fn run_bounded(
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
pub(super) fn record_failure(
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
pub(super) fn trace_has_assert_statement(trace: &str) -> bool {
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

pub(super) fn attribute(tag: &BytesStart<'_>, name: &[u8]) -> Option<String> {
    let attribute = tag.try_get_attribute(name).ok()??;
    attribute
        .unescape_value()
        .ok()
        .map(|value| value.into_owned())
}
