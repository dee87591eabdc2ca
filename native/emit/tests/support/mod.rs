//! Shared by the emitter's integration tests: the fixtures compiled with
//! javac, an executor JVM that runs plans on them, and a validator.
#![allow(dead_code)] // each test binary uses a different part

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use testgen_emit::{JUnit, TestCase, TestClass, Validator};
use testgen_exec::{Executor, ExecutorConfig, Plan, Statement, Value};
use testgen_testkit::{compile_fixture, java_sources, javac, repo_root, scratch_dir};

/// `JAVA_HOME`, else the JDK of the `javac` on PATH.
pub fn java() -> PathBuf {
    if let Some(home) = env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home).join("bin/java");
    }
    let javac = env::var_os("PATH")
        .iter()
        .flat_map(env::split_paths)
        .map(|dir| dir.join("javac"))
        .find(|javac| javac.is_file())
        .expect("a JDK must be installed (make test runs scripts/setup.sh)");
    let javac = fs::canonicalize(&javac).unwrap_or(javac);
    javac.parent().unwrap().join("java")
}

/// The classes under test: `fixtures/explore`, `Person` and `Color` of
/// `fixtures/executor`, and this crate's `tests/java`.
pub fn classpath() -> &'static [PathBuf] {
    static CLASSES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let explore = compile_fixture("explore");
        let executor = scratch_dir("emit-executor-classes");
        let people = repo_root().join("fixtures/executor/src/fixtures/executor");
        javac(
            &[people.join("Person.java"), people.join("Color.java")],
            &executor,
        );
        let own = scratch_dir("emit-classes");
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java");
        javac(&java_sources(&root), &own);
        vec![explore, executor, own]
    })
}

pub fn executor() -> Executor {
    let cache = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("emit-exec-cache");
    let mut config = ExecutorConfig::new(java(), classpath().to_vec(), cache);
    config.scratch_dir = scratch_dir("emit-exec-work");
    config.plan_timeout = Duration::from_secs(20);
    Executor::start(config).expect("the executor starts")
}

pub fn validator(junit: JUnit) -> Validator {
    Validator::new(
        java(),
        classpath().to_vec(),
        junit,
        scratch_dir("emit-validate"),
    )
    .expect("JUnit's jars are installed")
}

/// Runs `statements` twice (the state after the act observed) into a test case.
pub fn case(executor: &mut Executor, statements: Vec<Statement>, parameters: &[&str]) -> TestCase {
    let plan = testgen_emit::with_state_observed(&Plan::new(statements));
    let first = executor.run(&plan).expect("the plan runs");
    let second = executor.run(&plan).expect("the plan runs again");
    TestCase {
        plan,
        first,
        second,
        reruns: Vec::new(),
        parameter_names: parameters.iter().map(|p| p.to_string()).collect(),
        erased_types: false,
        also_assert: Default::default(),
    }
}

pub fn class(name: &str, junit: JUnit, tests: Vec<TestCase>) -> TestClass {
    TestClass {
        class_under_test: name.to_string(),
        sha256: "0123abcd".to_string(),
        testgen_version: "0.1.0".to_string(),
        junit,
        tests,
        static_reset: None,
        signatures: Default::default(),
    }
}

pub fn call_static(class: &str, name: &str, descriptor: &str, args: Vec<Value>) -> Statement {
    Statement::CallStatic {
        class: class.into(),
        name: name.into(),
        descriptor: descriptor.into(),
        args,
    }
}

pub fn call(
    receiver: usize,
    class: &str,
    name: &str,
    descriptor: &str,
    args: Vec<Value>,
) -> Statement {
    Statement::Call {
        receiver: Value::Ref {
            statement: receiver,
        },
        class: class.into(),
        name: name.into(),
        descriptor: descriptor.into(),
        args,
    }
}

pub fn new(class: &str, descriptor: &str, args: Vec<Value>) -> Statement {
    Statement::New {
        class: class.into(),
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
