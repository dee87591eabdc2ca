//! The symbolic JVM: bytecode semantics as z3 terms.
//!
//! So far: [`arith`], the JVM's primitive arithmetic, conversions and
//! comparisons with exact JVMS §6.5 semantics, checked against a real JVM;
//! and [`tree`], the constraint tree that remembers what exploring a method
//! found. The interpreter and the concolic loop build on both.
//!
//! z3 keeps one context per thread (the z3 crate's thread-local context), so
//! terms never cross threads; parallel exploration gives each worker its own.

pub mod arith;
pub mod explore;
mod ffi;
pub mod replay;
pub mod tree;
