//! Search-based test generation, the second engine beside concolic
//! exploration (DynaMOSA, Panichella et al., TSE 2018). It needs no model
//! of the code, only a fitness per goal from what the probes recorded.
//!
//! - [`distance`]: how far a branch's operands were from taking each way
//!   (branch distance, Korel's and Tracey's rules, normalised).
//! - [`fitness`]: the goals of a class with the goals each is control
//!   dependent on ([`GoalGraph`]), and one run's fitness per goal: 0 when
//!   covered, the normalised distance when its branch ran the other way,
//!   else the approach level (control-dependence levels between the goal
//!   and the closest branch the run reached) plus that branch's distance.
//!
//! - [`engine`]: the loop: a population of template-and-genome tests,
//!   offspring by crossover and mutation, survivors by preference rank,
//!   an archive of the covering tests; plans run by the caller's
//!   [`Evaluator`].
//! - [`archive`]: DynaMOSA's bookkeeping: the shortest test per covered
//!   goal, the current targets (uncovered goals a covered goal or nothing
//!   controls), and the preference ranking of a population on them.
//! - [`genome`]: a test as concrete values for the holes of a `construct`
//!   template, with seeded mutation (per hole kind: numbers near, small,
//!   constant or boundary; strings one edit away or a constant; null; another
//!   choice) and uniform crossover. [`rng`]: a seeded SplitMix64.
//!
//! Architecture invariants: pure functions of parsed classes and decoded
//! traces; no I/O, no clocks; deterministic.

pub mod archive;
pub mod distance;
pub mod engine;
pub mod fitness;
pub mod genome;
pub mod rng;

pub use engine::{
    search, Evaluated, Evaluator, Found, Problem, SearchMethod, SearchOptions, SearchOutcome, Seed,
    Stop,
};
pub use fitness::{fitness, GoalGraph, NEVER_REACHED};
