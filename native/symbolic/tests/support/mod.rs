//! Shared setup of the explorer's tests: compile a fixture, instrument
//! every class, start an executor that runs the instrumented classes, and
//! describe the originals to the interpreter.

// Each test crate (and the recorder example) that includes this module
// uses a part of it.
#![allow(dead_code)]

use std::path::PathBuf;

use testgen_classfile::ClassFile;
use testgen_exec::{Executor, ExecutorConfig};
use testgen_probes::{instrument, Instrumented, ProbeIds};
use testgen_project::Program;

pub struct Fixture {
    /// What the executor's class path holds (the uninstrumented classes).
    pub classpath: Vec<PathBuf>,
    /// (binary name, original bytes, instrumented) per class.
    pub classes: Vec<(String, Vec<u8>, Instrumented)>,
}

impl Fixture {
    pub fn compile(name: &str) -> Fixture {
        let classes_dir = testgen_testkit::compile_fixture(name);
        let classes = testgen_testkit::classes_in(&classes_dir);
        Fixture::new(classes, vec![classes_dir], "fixtures/")
    }

    /// `classes` as (internal name, bytes); those whose name starts with
    /// `project` are the code under test.
    pub fn new(classes: Vec<(String, Vec<u8>)>, classpath: Vec<PathBuf>, project: &str) -> Fixture {
        let mut ids = ProbeIds::default();
        let classes = classes
            .into_iter()
            .filter(|(internal, _)| internal.starts_with(project))
            .filter_map(|(internal, bytes)| {
                let binary = internal.replace('/', ".");
                let instrumented =
                    instrument(&bytes, &mut ids, &|n| n.starts_with(project)).ok()?;
                Some((binary, bytes, instrumented))
            })
            .collect();
        Fixture { classpath, classes }
    }

    pub fn program(&self) -> Program<'_> {
        let mut program = Program::new();
        for (_, bytes, instrumented) in &self.classes {
            let class = ClassFile::parse(bytes).unwrap();
            program.add_instrumented(class, instrumented).unwrap();
        }
        program
    }

    pub fn executor(&self) -> Executor {
        let cache = std::env::temp_dir()
            .join("testgen-tests")
            .join("executor-cache");
        let mut executor =
            Executor::start(ExecutorConfig::new("java", self.classpath.clone(), cache)).unwrap();
        let defined: Vec<(String, Vec<u8>)> = self
            .classes
            .iter()
            .map(|(binary, _, instrumented)| (binary.clone(), instrumented.bytes.clone()))
            .collect();
        executor.define(&defined).unwrap();
        executor
    }
}
