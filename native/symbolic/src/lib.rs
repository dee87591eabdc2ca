//! The symbolic JVM: bytecode semantics as z3 terms.
//!
//! So far: [`arith`], the JVM's primitive arithmetic, conversions and
//! comparisons with exact JVMS §6.5 semantics, checked against a real JVM.
//! Path exploration and constraint trees build on it.
//!
//! z3 keeps one context per thread (the z3 crate's thread-local context), so
//! terms never cross threads; parallel exploration gives each worker its own.

pub mod arith;
mod ffi;
