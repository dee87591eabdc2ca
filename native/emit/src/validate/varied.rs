//! The varied run: testgen's runner (`java/dev/testgen/validate/TestRunner.java`)
//! runs the methods shuffled on one class loader and then each alone, under
//! another machine's defaults; a failure is attributed to the condition
//! that causes it.

use super::javac::run_javac;
use super::junit::run_bounded;
use super::*;

/// testgen's runner of shuffled and isolated test methods, compiled on
/// first use (it needs JUnit's launcher API, which only the JUnit jars of
/// the machine have).
pub(super) const RUNNER_SOURCE: &str =
    include_str!("../../java/dev/testgen/validate/TestRunner.java");
pub(super) const RUNNER_CLASS: &str = "dev.testgen.validate.TestRunner";

/// What the varied run said, per method.
#[derive(Clone, Debug, Default)]
pub(super) struct VariedReport {
    /// Failures when the methods ran one after another (shuffled) on one
    /// class loader.
    shared: BTreeMap<String, Failed>,
    /// Failures when each method ran alone.
    alone: BTreeMap<String, Failed>,
}

impl VariedReport {
    pub(super) fn failing(&self) -> BTreeSet<&str> {
        self.shared
            .keys()
            .chain(self.alone.keys())
            .map(String::as_str)
            .collect()
    }
}

/// Runs the test class with testgen's runner under `environment`: every
/// method in a shuffled order on one class loader, then each alone.
pub(super) fn run_varied(
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
pub(super) fn attribute_varied(
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
pub(super) fn install_runner(validator: &Validator) -> Result<PathBuf, ValidateError> {
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
pub(super) fn runner_classpath(validator: &Validator, runner: &Path) -> std::ffi::OsString {
    let mut entries = vec![runner.to_path_buf(), validator.junit.launcher.clone()];
    entries.extend(validator.junit.classpath.iter().cloned());
    std::env::join_paths(entries).unwrap_or_default()
}

/// Another machine's defaults than `defaults` (the runner's `defaults`
/// output): Turkish (dotless i, comma decimals), a time zone 5:45 ahead of
/// UTC, Windows line ends; or others where the machine already has those.
pub(super) fn other_environment(defaults: &str) -> Environment {
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
pub(super) fn shuffle<T>(items: &mut [T], seed: u64) {
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
pub(super) fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
