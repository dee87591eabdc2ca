//! What really happened when a plan ran, as the executor reports it.
//!
//! Apart from the trace (sent in a compact binary form and decoded in
//! `trace.rs`), these types' serde form is exactly what the executor writes.

use serde::{Deserialize, Serialize};

use crate::jstring::JavaString;
use crate::trace::{ThreadTrace, TraceEvent};

/// The name of the thread the executor runs a plan's statements on.
pub const PLAN_THREAD: &str = "testgen-plan";

/// The result of running one plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanOutcome {
    pub status: PlanStatus,
    /// One entry per statement of the plan, in order. Empty only when the
    /// executor could not say (status `Crashed`, or a timeout noticed by the
    /// Rust-side watchdog).
    pub statements: Vec<StatementOutcome>,
    /// What the code under test printed (the executor's protocol is never
    /// mixed with it).
    pub stdout: Captured,
    pub stderr: Captured,
    /// Files and network endpoints the code under test touched, in first-use
    /// order, without repeats. Always empty when access monitoring is
    /// unavailable (see [`ExecutorInfo::access_monitoring`]).
    pub accesses: Vec<Access>,
    /// More distinct accesses happened than were reported.
    pub accesses_truncated: bool,
    /// Names of threads the plan started that were still alive after it.
    pub leftover_threads: Vec<String>,
    /// The standard streams the plan closed (`System.out`, `System.err`):
    /// a test doing so would close its build's own output.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed_streams: Vec<String>,
    /// Probe events, one entry per thread that recorded any.
    pub trace: Vec<ThreadTrace>,
    /// Wall-clock time inside the JVM from handing the plan to its thread
    /// to writing the answer: the statements, the summaries of their
    /// results, the check for leftover threads.
    pub elapsed_micros: u64,
    /// The executor JVM was restarted after this plan (timeout, out of
    /// memory, leftover threads, exit, crash); the next plan runs on a new
    /// JVM, which is invisible to the caller apart from this flag.
    pub restarted: bool,
}

impl PlanOutcome {
    /// The probe events of the plan's own thread (`testgen-plan`), in the
    /// order recorded: what the plan's statements did, without what other
    /// threads did meanwhile.
    pub fn plan_events(&self) -> impl Iterator<Item = &TraceEvent> + '_ {
        self.trace
            .iter()
            .filter(|thread| thread.thread == PLAN_THREAD)
            .flat_map(|thread| thread.events.iter())
    }

    /// An outcome for which the executor gave no details.
    pub(crate) fn without_details(status: PlanStatus) -> Self {
        PlanOutcome {
            status,
            statements: Vec::new(),
            stdout: Captured::default(),
            stderr: Captured::default(),
            accesses: Vec::new(),
            accesses_truncated: false,
            leftover_threads: Vec::new(),
            closed_streams: Vec::new(),
            trace: Vec::new(),
            elapsed_micros: 0,
            restarted: true,
        }
    }
}

/// How a plan ended. When several apply, the first listed here wins except
/// that an exit request outranks everything: code may have swallowed the
/// error that ended it, and a test that exits must never be generated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PlanStatus {
    /// Every statement ran and none threw.
    Completed,
    /// Statement `statement` threw; later ones did not run.
    Exception { statement: usize },
    /// Statement `statement` could not be run as written (unknown class or
    /// member, wrong argument types, a reference to a statement without a
    /// value): a mistake in the plan, not behaviour of the code under test.
    Invalid { statement: usize },
    /// The plan did not finish within its time limit.
    TimedOut,
    /// The JVM ran out of memory during the plan.
    OutOfMemory,
    /// The code under test called `System.exit`, `Runtime.exit` or
    /// `Runtime.halt` (the JVM did not exit).
    ExitRequested { status: i32 },
    /// The JVM died or broke the protocol; `reason` says what is known.
    Crashed { reason: String },
}

/// What one statement did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StatementOutcome {
    /// Produced a value (a call of a non-void method, a field read, an
    /// object or array creation).
    Value { value: RenderedValue },
    /// Completed without a value (void call, field write, array store).
    Void,
    /// Threw `exception` (an exception of the code under test, or of the
    /// JVM on its behalf such as `ArrayIndexOutOfBoundsException`).
    Threw { exception: ExceptionInfo },
    /// Asked the JVM to exit with `status`.
    ExitRequested { status: i32 },
    /// Could not be run as written; `reason` says why.
    Invalid { reason: String },
    /// Was running when the time limit expired.
    TimedOut,
    /// Was not run because an earlier statement did not complete.
    NotRun,
}

/// A value as a typed literal, or a summary of an object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RenderedValue {
    Null,
    Boolean {
        value: bool,
    },
    Byte {
        value: i8,
    },
    Short {
        value: i16,
    },
    Char {
        value: u16,
    },
    Int {
        value: i32,
    },
    Long {
        value: i64,
    },
    Float {
        bits: u32,
    },
    Double {
        bits: u64,
    },
    String {
        value: JavaString,
        /// Set when `value` is only the beginning: the string's full length
        /// in UTF-16 code units.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        full_length: Option<u32>,
    },
    Enum {
        class: String,
        name: String,
    },
    /// A class a test can name (`String.class`, `int[].class`): its
    /// `Class.getName()`. Other classes render as opaque objects.
    Class {
        name: String,
    },
    /// A primitive wrapper (`Integer`, ...) where the static type is a
    /// reference type, e.g. the result of a method returning `Object`.
    Boxed {
        value: Box<RenderedValue>,
    },
    Array {
        /// `Class.getName()` of the array, e.g. `[I`, `[Ljava.lang.String;`.
        class: String,
        identity: i32,
        length: u32,
        /// The first elements (at most 16), each rendered one level deeper;
        /// `None` below the summary depth.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        elements: Option<Vec<RenderedValue>>,
    },
    Object {
        /// The runtime class's binary name.
        class: String,
        /// `System.identityHashCode`: tells whether two results are the same object.
        identity: i32,
        /// Public no-argument getters (`getX()`, `isX()`) and, for
        /// collections and maps, `size()`, sorted by name. `None` below the
        /// summary depth.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        properties: Option<Vec<Property>>,
    },
}

impl RenderedValue {
    /// The text of a rendered string, if this is one and it is well-formed.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            RenderedValue::String { value, .. } => value.as_str(),
            _ => None,
        }
    }
}

/// One getter's result in an object summary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Property {
    /// The method's name, e.g. `getName`, `isEmpty`, `size`.
    pub name: String,
    pub outcome: PropertyOutcome,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PropertyOutcome {
    Value { value: RenderedValue },
    Threw { exception: ExceptionInfo },
}

/// An exception, with the top of its stack (frames of the executor and of
/// reflection removed) and its causes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExceptionInfo {
    pub class: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub frames: Vec<StackFrame>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<Box<ExceptionInfo>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StackFrame {
    pub class: String,
    pub method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<i32>,
}

/// Output captured from `System.out` or `System.err` (bounded).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Captured {
    /// The first bytes printed, decoded as UTF-8.
    pub text: String,
    /// How many bytes were printed in all.
    pub total_bytes: u64,
    /// `text` holds only the beginning.
    pub truncated: bool,
}

/// An access to something outside the JVM.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Access {
    /// `path` is absolute (relative paths resolved against the working
    /// directory, a fresh temporary directory).
    File { path: String, mode: FileMode },
    /// `port` is absent for name resolution.
    Network {
        host: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        port: Option<i32>,
        action: NetworkAction,
    },
    /// Starting a process (or asking whether a file is executable, which
    /// the JVM checks the same way).
    Exec { command: String },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileMode {
    Read,
    Write,
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkAction {
    Connect,
    Listen,
    Accept,
    Resolve,
}

/// The verifier's verdict on one class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyOutcome {
    /// Binary name, as given.
    pub class: String,
    pub result: VerifyResult,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VerifyResult {
    /// Loaded and linked (which includes verification).
    Ok,
    /// The bytecode verifier rejected the class.
    VerifyError { message: String },
    /// Another linkage problem: a missing dependency
    /// (`NoClassDefFoundError`), a malformed class (`ClassFormatError`), an
    /// unsupported version, an incompatible change, ...
    LinkageError { error: String, message: String },
}

/// What the executor JVM said about itself when it started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecutorInfo {
    /// `java.version`, e.g. `17.0.15`.
    pub java_version: String,
    /// `java.vm.name`.
    pub vm_name: String,
    /// File, network and process accesses are monitored and
    /// `System.exit` from classes that were not instrumented is
    /// intercepted. Needs a SecurityManager, which JDK 24 and later cannot
    /// install.
    pub access_monitoring: bool,
    /// Why monitoring is unavailable, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_monitoring_note: Option<String>,
    /// A run can be given another line separator
    /// ([`crate::Environment::line_separator`]).
    #[serde(default)]
    pub line_separator_settable: bool,
}
