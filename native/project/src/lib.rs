//! The code under test as testgen sees it, in the vocabulary every other
//! crate shares:
//!
//! - [`names`]: [`ClassName`] and [`MethodId`], one type for each kind of
//!   name, with both spellings of a class derived from one;
//! - [`program`]: the loaded [`Program`], parsed classes plus the probe
//!   tables that tie trace events to methods and offsets;
//! - [`goals`]: the [`Goal`]s of a class (its branch outcomes), and which a
//!   run reached, from its trace;
//! - [`blocker`]: why a goal stays open ([`Blocker`]), and what Covana's
//!   analysis blames for it ([`Culprit`]).
//!
//! Architecture invariants: no I/O; every collection ordered (`BTreeMap`),
//! so results do not depend on hash order.

pub mod blocker;
pub mod goals;
pub mod names;
pub mod program;

pub use blocker::{Blocker, Culprit, Site};
pub use goals::{branch_outcome, reached, ClassGoals, Condition, Goal, GoalId, Outcome};
pub use names::{ClassName, MethodId};
pub use program::{Program, SiteAt};
