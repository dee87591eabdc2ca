//! Shared by the executor's integration tests and benchmark: a JDK, the
//! fixtures of `fixtures/executor` compiled with its javac, and executors
//! running on them.
#![allow(dead_code)] // each test binary uses a different part

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use sha2::{Digest, Sha256};

use testgen_exec::{
    install_executor_classes, Executor, ExecutorConfig, Isolation, Plan, PlanOutcome,
    RenderedValue, Statement, StatementOutcome, Value,
};

/// `TESTGEN_TEST_JAVA_HOME` (to run the suite on another JDK), else
/// `JAVA_HOME`, else the JDK of the `javac` on PATH.
pub fn java_home() -> PathBuf {
    for var in ["TESTGEN_TEST_JAVA_HOME", "JAVA_HOME"] {
        if let Some(home) = env::var_os(var).filter(|h| !h.is_empty()) {
            return PathBuf::from(home);
        }
    }
    let javac = env::var_os("PATH")
        .iter()
        .flat_map(env::split_paths)
        .map(|dir| dir.join("javac"))
        .find(|javac| javac.is_file())
        .expect("a JDK must be installed (make test runs scripts/setup.sh)");
    let javac = fs::canonicalize(&javac).unwrap_or(javac);
    javac.parent().unwrap().parent().unwrap().to_path_buf()
}

pub fn java() -> PathBuf {
    java_home().join("bin/java")
}

fn javac() -> PathBuf {
    java_home().join("bin/javac")
}

fn tmp_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

pub fn cache_dir() -> PathBuf {
    tmp_root().join("exec-cache")
}

pub fn scratch_dir() -> PathBuf {
    tmp_root().join("exec-scratch")
}

/// The compiled fixtures, once per process.
pub struct Fixtures {
    /// The classpath of the tests' executors (`fixtures/executor/src`).
    pub classes: PathBuf,
    /// `override/`: another `Shadowed`.
    pub overrides: PathBuf,
    /// `verify/`: `Ghost` and `UsesGhost`.
    pub verify: PathBuf,
}

pub fn fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(compile_fixtures)
}

/// Compiles the fixtures into a directory named by a hash of the sources,
/// the JDK and the executor's classes, so that test processes (which may run
/// at the same time) share one compilation and nothing piles up.
fn compile_fixtures() -> Fixtures {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/executor");
    let executor_classes = install_executor_classes(&cache_dir()).unwrap();
    let mut sources = Vec::new();
    collect(&root, "java", &mut sources);
    let mut hasher = Sha256::new();
    hasher.update(java_home().to_string_lossy().as_bytes());
    hasher.update(executor_classes.to_string_lossy().as_bytes());
    for source in &sources {
        hasher.update(
            source
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .as_bytes(),
        );
        hasher.update(fs::read(source).unwrap());
    }
    let hash: String = hasher.finalize()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let out = tmp_root().join(format!("executor-fixtures-{hash}"));
    let fixtures = Fixtures {
        classes: out.join("classes"),
        overrides: out.join("override"),
        verify: out.join("verify"),
    };
    if out.is_dir() {
        return fixtures;
    }
    let building = tmp_root().join(format!("executor-fixtures-tmp-{}", std::process::id()));
    let _ = fs::remove_dir_all(&building);
    for part in ["src", "override", "verify"] {
        let target = if part == "src" { "classes" } else { part };
        compile(&root.join(part), &building.join(target), &executor_classes);
    }
    // Another test process may have finished first; its result is as good.
    if fs::rename(&building, &out).is_err() {
        let _ = fs::remove_dir_all(&building);
        assert!(out.is_dir(), "cannot create {}", out.display());
    }
    fixtures
}

fn compile(sources: &Path, out: &Path, classpath: &Path) {
    let mut files = Vec::new();
    collect(sources, "java", &mut files);
    assert!(!files.is_empty(), "no sources under {}", sources.display());
    fs::create_dir_all(out).unwrap();
    let status = Command::new(javac())
        .args(["--release", "11", "-g", "-encoding", "UTF-8", "-cp"])
        .arg(classpath)
        .arg("-d")
        .arg(out)
        .args(&files)
        .status()
        .expect("javac runs");
    assert!(status.success(), "javac failed on {}", sources.display());
}

fn collect(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, extension, found);
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
}

/// The bytes of a compiled fixture class, by binary name.
pub fn class_bytes(dir: &Path, binary_name: &str) -> Vec<u8> {
    fs::read(dir.join(binary_name.replace('.', "/") + ".class")).unwrap()
}

pub fn config() -> ExecutorConfig {
    let mut config = ExecutorConfig::new(java(), vec![fixtures().classes.clone()], cache_dir());
    config.scratch_dir = scratch_dir();
    config.plan_timeout = Duration::from_secs(20);
    config
}

pub fn executor() -> Executor {
    Executor::start(config()).expect("the executor starts")
}

pub fn executor_with(isolation: Isolation) -> Executor {
    let mut config = config();
    config.isolation = isolation;
    Executor::start(config).expect("the executor starts")
}

// Building plans.

pub const FIXTURE: &str = "fixtures.executor";

pub fn class(name: &str) -> String {
    format!("{FIXTURE}.{name}")
}

pub fn call_static(class_name: &str, name: &str, descriptor: &str, args: Vec<Value>) -> Statement {
    Statement::CallStatic {
        class: class(class_name),
        name: name.into(),
        descriptor: descriptor.into(),
        args,
    }
}

pub fn int(value: i32) -> Value {
    Value::Int { value }
}

pub fn string(value: &str) -> Value {
    Value::string(value)
}

pub fn reference(statement: usize) -> Value {
    Value::Ref { statement }
}

pub fn run(executor: &mut Executor, statements: Vec<Statement>) -> PlanOutcome {
    executor
        .run(&Plan::new(statements))
        .expect("the executor answers")
}

/// The value statement `index` produced; panics with the outcome otherwise.
pub fn value_of(outcome: &PlanOutcome, index: usize) -> &RenderedValue {
    match &outcome.statements[index] {
        StatementOutcome::Value { value } => value,
        other => panic!("statement {index}: expected a value, got {other:?}\n{outcome:#?}"),
    }
}
