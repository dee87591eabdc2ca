//! The symbolic JVM: bytecode semantics as z3 terms, and the concolic loop
//! that explores a method's paths with them.
//!
//! - [`arith`]: the JVM's primitive arithmetic, conversions and comparisons
//!   with exact JVMS §6.5 semantics, checked against a real JVM.
//! - [`value`]: symbolic values and the heap (strings as z3 sequences).
//! - [`encode`]: a template's holes (`testgen_construct`) as solver
//!   variables, and how a solution becomes a plan and what it means.
//! - [`machine`]: replays a run over z3 terms along its trace.
//! - `jdk`: models of the JDK methods branches depend on.
//! - `types`: subtyping for dispatch and type checks (the program's
//!   hierarchy, and the JDK types ordinary code tests for).
//! - [`tree`]: the constraint tree that remembers what exploring found.
//! - [`explore`]: the concolic loop.
//!
//! z3 keeps one context per thread (the z3 crate's thread-local context), so
//! terms never cross threads; parallel exploration gives each worker its own.

pub mod arith;
pub mod encode;
pub mod explore;
mod ffi;
mod jdk;
pub mod machine;
pub mod tree;
mod types;
pub mod value;

pub use jdk::is_modelled;
