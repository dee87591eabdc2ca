//! Runs testgen's jobs over a module's inputs. For now: `scan`, which reads
//! every class, hashes it and summarises its methods, and
//! `verify-instrumentation`, which proves that probed classes pass the JVM's
//! verifier, and `generate`, which writes validated JUnit tests.
//!
//! Architecture invariant: the driver owns process-level concerns (which JDK,
//! parallelism, output order, error reporting policy); the crates below it
//! are pure libraries that neither print nor exit.

pub mod generate;
pub mod jdk;
pub mod memory;
pub mod scan;
pub mod verify;
