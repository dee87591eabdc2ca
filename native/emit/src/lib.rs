//! Test emission: JUnit 5 / JUnit 4 source for executed plans
//! ([`emit`](mod@emit)), choosing a covering subset of tests ([`minimise`]),
//! and checking generated classes with the JDK's `javac` and the JUnit
//! console launcher ([`validate`]).
//!
//! Generated tests depend on JUnit and nothing else, read arrange / act /
//! assert, and are byte-identical for identical input.

pub mod emit;
pub mod generics;
mod literal;
pub mod minimise;
pub mod model;
mod names;
mod oracle;
mod printer;
mod runs;
mod test_jvm;
mod test_names;
mod types;
pub mod validate;

pub use emit::{emit, emit_cases};
pub use minimise::{select_covering, select_covering_with_costs};
pub use model::{
    header_line, observe, parse_header, test_class_name, with_state_observed, Cause, EmittedClass,
    EmittedMethod, Header, JUnit, Rerun, Skipped, StaticReset, TestCase, TestClass,
    TEST_CLASS_FORMAT,
};
pub use test_jvm::{single_defaults, IgnoredOption, TestJvm};
pub use validate::{
    find_junit_jars, validate_and_prune, Dropped, Failed, Failure, JUnitJars, RunReport,
    ValidateError, Validated, Validator,
};
