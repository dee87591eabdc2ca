//! Why a goal stays open: what stopped exploring from reaching it, as data
//! the report (and, later, a developer) can act on.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::names::{ClassName, MethodId};

/// An instruction of a method: where something happened.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Site {
    pub method: MethodId,
    pub offset: u32,
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at offset {}", self.method, self.offset)
    }
}

/// What kept exploring from a goal.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Blocker {
    /// No public constructor, factory or constant builds an object the
    /// method needs (its receiver, say).
    ObjectNotBuilt { class: ClassName },
    /// The replay does not interpret this instruction, so nothing after it
    /// on the path is modelled.
    UnsupportedInstruction { at: Site, instruction: String },
    /// The replay lost the run: the probe trace and the bytecode disagree
    /// at `at` (something the replay does not model happened there).
    ReplayDiverged { at: Option<Site>, detail: String },
    /// A run solved for a path took another one at this decision: the
    /// branch depends on something the model does not capture.
    NotModelled { at: Site },
    /// The loop at this branch was unrolled as far as the bound allows;
    /// outcomes needing more iterations were not offered.
    LoopBound { at: Site },
    /// Paths were followed for this many decisions at most.
    PathLength { limit: usize },
    /// The solver could not decide a path's condition within its limits.
    SolverUnknown,
    /// A run did not finish within its time limit (the code loops or waits
    /// on the inputs it got), so no test can take that path.
    RunHung,
    /// Exploring stopped (runs, queries or time) with paths left to try.
    Budget,
    /// The goal is in a method no public method or constructor was seen to
    /// reach.
    NotReachedFromPublicMethods,
    /// The method could not be explored at all (it is malformed, or its
    /// inputs' own constraints have no solution).
    NotExplorable { reason: String },
}

impl fmt::Display for Blocker {
    /// One line, for the console and the report's `reason`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocker::ObjectNotBuilt { class } => {
                write!(f, "no public constructor builds a {class}")
            }
            Blocker::UnsupportedInstruction { at, instruction } => {
                write!(f, "not modelled: {instruction} in {at}")
            }
            Blocker::ReplayDiverged {
                at: Some(at),
                detail,
            } => {
                write!(f, "not modelled: {detail} ({at})")
            }
            Blocker::ReplayDiverged { at: None, detail } => write!(f, "not modelled: {detail}"),
            Blocker::NotModelled { at } => {
                write!(
                    f,
                    "not modelled: a run took another path than predicted at {at}"
                )
            }
            Blocker::LoopBound { at } => write!(f, "loop bound reached at {at}"),
            Blocker::PathLength { limit } => {
                write!(f, "paths longer than {limit} decisions were cut")
            }
            Blocker::SolverUnknown => f.write_str("the solver gave up"),
            Blocker::RunHung => {
                f.write_str("a run did not finish in time (the code loops or waits)")
            }
            Blocker::Budget => f.write_str("budget exhausted"),
            Blocker::NotReachedFromPublicMethods => {
                f.write_str("not reached from the public methods")
            }
            Blocker::NotExplorable { reason } => f.write_str(reason),
        }
    }
}

impl Blocker {
    /// How much a developer learns from this blocker, highest first: when
    /// several kept exploring from an outcome, the report names the most
    /// specific (the budget is nearly always among them).
    pub fn specificity(&self) -> u8 {
        match self {
            Blocker::ObjectNotBuilt { .. } => 10,
            Blocker::NotExplorable { .. } => 9,
            Blocker::UnsupportedInstruction { .. } => 8,
            Blocker::NotModelled { .. } => 7,
            Blocker::ReplayDiverged { .. } => 6,
            Blocker::RunHung => 5,
            Blocker::LoopBound { .. } => 4,
            Blocker::PathLength { .. } => 3,
            Blocker::SolverUnknown => 2,
            Blocker::NotReachedFromPublicMethods => 1,
            Blocker::Budget => 0,
        }
    }
}

/// What Covana's analysis blames for an outcome nothing reached: a call
/// outside the program whose result decides the branch (an external-call
/// problem), or the state of an object no test built (an object-creation
/// problem).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Culprit {
    /// The branch tests what this call returned.
    ExternalCall {
        /// `java.io.File.exists()`-style: binary class name, method, and
        /// the parameter types as Java writes them.
        call: String,
        /// The call's source line (0 without line numbers).
        line: u32,
    },
    /// The branch tests a field of an object, reached from `root` through
    /// `fields`; `setters` are the methods and constructors a test may call
    /// that write the last of them (none: nothing public sets it).
    ObjectState {
        /// The class whose object holds the first field of the chain
        /// (binary name).
        class: String,
        fields: Vec<String>,
        setters: Vec<String>,
    },
}

impl fmt::Display for Culprit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Culprit::ExternalCall { call, line: 0 } => {
                write!(f, "depends on what {call} returns")
            }
            Culprit::ExternalCall { call, line } => {
                write!(f, "depends on what {call} returns (line {line})")
            }
            Culprit::ObjectState { class, fields, .. } => {
                write!(
                    f,
                    "needs a {class} whose {} is in another state",
                    fields.join(".")
                )
            }
        }
    }
}

impl Culprit {
    /// What a developer can do about it, in one sentence.
    pub fn suggestion(&self) -> String {
        match self {
            Culprit::ExternalCall { call, .. } => format!(
                "make {call} replaceable in tests (pass its result or the object in, or put it \
                 behind an interface a test can implement), or give the test the environment it reads"
            ),
            Culprit::ObjectState {
                class,
                fields,
                setters,
            } if setters.is_empty() => format!(
                "nothing a test can call sets {class}'s {}: add a constructor parameter, a \
                 setter or a factory that does",
                fields.join(".")
            ),
            Culprit::ObjectState {
                class,
                fields,
                setters,
            } => format!(
                "build a {class} whose {} is in the state the branch tests, through {}; a \
                 factory that makes such an object would let testgen use it",
                fields.join("."),
                setters.join(", ")
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blockers_are_tagged_data_and_read_as_one_line() {
        let at = Site {
            method: MethodId::of("a/B", "f", "(I)I"),
            offset: 7,
        };
        let blocker = Blocker::LoopBound { at };
        let json = serde_json::to_value(&blocker).unwrap();
        assert_eq!(json["kind"], "loop_bound");
        assert_eq!(json["at"]["offset"], 7);
        assert_eq!(
            blocker.to_string(),
            "loop bound reached at a.B.f(I)I at offset 7"
        );
        let back: Blocker = serde_json::from_value(json).unwrap();
        assert_eq!(back, blocker);
    }
}
