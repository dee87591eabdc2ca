//! `testgen verify-instrumentation`: instrument every class of the inputs
//! and have the executor JVM load and link each one (linking verifies)
//! without running its static initialiser.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use testgen_classfile::ClassFile;
use testgen_classpath::Input;
use testgen_exec::{ExecError, Executor, ExecutorConfig, VerifyResult};
use testgen_probes::{instrument, ProbeIds, SkippedMethod};

#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Directories and jars whose classes are instrumented.
    pub inputs: Vec<PathBuf>,
    /// What those classes need at link time (their dependencies).
    pub classpath: Vec<PathBuf>,
    pub java: PathBuf,
    /// Java feature version for multi-release jars.
    pub release: u16,
    /// Where the executor's own classes are installed.
    pub cache_dir: PathBuf,
}

#[derive(Clone, Debug, Default)]
pub struct VerifyReport {
    /// Binary names of the classes that linked.
    pub verified: Vec<String>,
    /// Classes the JVM rejected, with its message.
    pub failed: Vec<(String, String)>,
    /// Methods left as they were, per class.
    pub skipped_methods: Vec<(String, SkippedMethod)>,
    /// Classes or entries that could not be read or instrumented at all.
    pub not_instrumented: Vec<(String, String)>,
    pub instrument_time: Duration,
    pub verify_time: Duration,
}

impl VerifyReport {
    /// One human line: `verified N classes, M failed, K methods skipped, ...`.
    pub fn summary_line(&self) -> String {
        let classes = self.verified.len() + self.failed.len();
        format!(
            "verified {} of {classes} instrumented classes, {} failed, {} methods skipped, {} classes not instrumented; instrumenting took {:.2} s ({:.0} classes/s), verifying {:.2} s",
            self.verified.len(),
            self.failed.len(),
            self.skipped_methods.len(),
            self.not_instrumented.len(),
            self.instrument_time.as_secs_f64(),
            classes as f64 / self.instrument_time.as_secs_f64().max(1e-9),
            self.verify_time.as_secs_f64(),
        )
    }
}

/// Classes per verify request: keeps each request and answer moderate.
const BATCH: usize = 256;

pub fn verify_instrumentation(options: &VerifyOptions) -> Result<VerifyReport, VerifyError> {
    let mut report = VerifyReport::default();
    let mut classes = Vec::new();
    for path in &options.inputs {
        let input = Input::open(path).map_err(|e| VerifyError::Input(e.to_string()))?;
        let entries = input
            .classes(options.release)
            .map_err(|e| VerifyError::Input(e.to_string()))?;
        for entry in entries {
            match entry {
                Ok(class) => classes.push(class),
                Err(error) => report
                    .not_instrumented
                    .push((error.location.to_string(), error.reason)),
            }
        }
    }

    // The code under test is every class of the inputs; calls to anything
    // else count as leaving it.
    let mut project = BTreeSet::new();
    let mut named = Vec::with_capacity(classes.len());
    for class in classes {
        let name = ClassFile::parse(&class.bytes)
            .and_then(|file| Ok((file.name()?.into_owned(), file.is_module_info())));
        match name {
            Ok((_, true)) => {}
            Ok((name, false)) => {
                project.insert(name.clone());
                named.push((name, class));
            }
            Err(error) => report
                .not_instrumented
                .push((class.location.to_string(), error.to_string())),
        }
    }

    let started = Instant::now();
    let mut ids = ProbeIds::default();
    let is_project = |name: &str| project.contains(name);
    let mut instrumented = Vec::with_capacity(named.len());
    for (name, class) in &named {
        match instrument(&class.bytes, &mut ids, &is_project) {
            Ok(done) => {
                let binary = name.replace('/', ".");
                for skipped in done.skipped {
                    report.skipped_methods.push((binary.clone(), skipped));
                }
                instrumented.push((binary, done.bytes));
            }
            Err(error) => report
                .not_instrumented
                .push((class.location.to_string(), error.to_string())),
        }
    }
    report.instrument_time = started.elapsed();

    let started = Instant::now();
    let mut config = ExecutorConfig::new(
        &options.java,
        [options.inputs.clone(), options.classpath.clone()].concat(),
        &options.cache_dir,
    );
    config.plan_timeout = Duration::from_secs(60);
    let mut executor = Executor::start(config)?;
    for batch in instrumented.chunks(BATCH) {
        for outcome in executor.verify(batch)? {
            match outcome.result {
                VerifyResult::Ok => report.verified.push(outcome.class),
                VerifyResult::VerifyError { message } => report
                    .failed
                    .push((outcome.class, format!("VerifyError: {message}"))),
                VerifyResult::LinkageError { error, message } => report
                    .failed
                    .push((outcome.class, format!("{error}: {message}"))),
            }
        }
    }
    let _ = executor.shutdown();
    report.verify_time = started.elapsed();
    Ok(report)
}

#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Executor(#[from] ExecError),
}
