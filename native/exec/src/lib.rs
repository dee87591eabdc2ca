//! Running plans on a JVM: testgen's executor.
//!
//! Rust decides what to run; a small, long-lived JVM program (the executor,
//! Java sources under `java/`, embedded in this crate) runs *plans* —
//! sequences of statements with concrete values — against the code under
//! test and reports what really happened: values, exceptions, output, file
//! and network accesses, probe events of instrumented classes.
//!
//! ```no_run
//! use testgen_exec::{Executor, ExecutorConfig, Plan, Statement, Value};
//!
//! let config = ExecutorConfig::new("java", vec!["target/classes".into()], ".testgen/cache");
//! let mut executor = Executor::start(config)?;
//! let outcome = executor.run(&Plan::new(vec![Statement::CallStatic {
//!     class: "java.lang.Math".into(),
//!     name: "abs".into(),
//!     descriptor: "(I)I".into(),
//!     args: vec![Value::Int { value: -3 }],
//! }]))?;
//! println!("{:?}", outcome.statements[0]);
//! # Ok::<(), testgen_exec::ExecError>(())
//! ```
//!
//! The protocol between the two sides is in `PROTOCOL.md`; the probe API
//! that instrumented classes call is in `PROBE_API.md`.

mod base64;
mod conditions;
mod executor;
mod install;
mod jstring;
mod outcome;
mod plan;
mod trace;
mod wire;

pub use conditions::{Assertions, Environment};
pub use executor::{
    ExecError, Executor, ExecutorConfig, GettersWithEffects, Isolation, LoaderChoice, RunSettings,
};
pub use install::install_executor_classes;
pub use jstring::JavaString;
pub use outcome::{
    Access, Captured, ExceptionInfo, ExecutorInfo, FileMode, NetworkAction, PlanOutcome,
    PlanStatus, Property, PropertyOutcome, RenderedValue, StackFrame, StatementOutcome,
    VerifyOutcome, VerifyResult,
};
pub use plan::{Plan, Statement, Value};
pub use trace::{
    BranchOperands, CompareOperands, ExitCall, ExternalValue, MethodExit, ObjectRef, ThreadTrace,
    TraceEvent,
};
