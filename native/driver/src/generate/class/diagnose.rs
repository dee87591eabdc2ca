//! Stage: what the kept tests cover, and why each goal they do not cover
//! stayed open.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use testgen_project::{Blocker, Culprit, Goal, MethodId};
use testgen_symbolic::explore::Exploration;

use super::explore::Explored;
use super::problems;
use super::select::Coverage;
use super::ClassJob;

/// A goal of the class the tests do not reach, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Uncovered {
    pub goal: Goal,
    /// Source line (0 when the class has no line numbers).
    pub line: u32,
    pub reason: UncoveredReason,
    /// What Covana's analysis blames, for an outcome nothing reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub culprit: Option<Culprit>,
}

impl Uncovered {
    /// The kind of reason the report gives: Covana's problem when its
    /// analysis names one, else the most specific blocker.
    pub fn kind(&self) -> ReasonKind {
        match (&self.culprit, &self.reason) {
            (Some(Culprit::ExternalCall { .. }), _) => ReasonKind::ExternalCall,
            (Some(Culprit::ObjectState { .. }), _) => ReasonKind::ObjectCreation,
            (None, UncoveredReason::ProvenInfeasible) => ReasonKind::ProvenInfeasible,
            (None, UncoveredReason::Dropped { .. }) => ReasonKind::Dropped,
            (None, UncoveredReason::NotKept) => ReasonKind::NotKept,
            (None, UncoveredReason::PossibleBug) => ReasonKind::PossibleBug,
            (None, UncoveredReason::NotReached) => ReasonKind::NotReached,
            (None, UncoveredReason::Blocked { blockers }) => blockers
                .iter()
                .max_by_key(|blocker| blocker.specificity())
                .map_or(ReasonKind::NotReached, ReasonKind::of_blocker),
        }
    }
}

/// Why an outcome stayed uncovered, as one word a report groups by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonKind {
    ProvenInfeasible,
    Dropped,
    NotKept,
    PossibleBug,
    /// Covana's external-call problem.
    ExternalCall,
    /// Covana's object-creation problem.
    ObjectCreation,
    ObjectNotBuilt,
    UnsupportedInstruction,
    ReplayDiverged,
    NotModelled,
    LoopBound,
    PathLength,
    SolverUnknown,
    RunHung,
    Budget,
    NotReachedFromPublicMethods,
    NotExplorable,
    NotReached,
}

impl ReasonKind {
    fn of_blocker(blocker: &Blocker) -> ReasonKind {
        match blocker {
            Blocker::ObjectNotBuilt { .. } => ReasonKind::ObjectNotBuilt,
            Blocker::UnsupportedInstruction { .. } => ReasonKind::UnsupportedInstruction,
            Blocker::ReplayDiverged { .. } => ReasonKind::ReplayDiverged,
            Blocker::NotModelled { .. } => ReasonKind::NotModelled,
            Blocker::LoopBound { .. } => ReasonKind::LoopBound,
            Blocker::PathLength { .. } => ReasonKind::PathLength,
            Blocker::SolverUnknown => ReasonKind::SolverUnknown,
            Blocker::RunHung => ReasonKind::RunHung,
            Blocker::Budget => ReasonKind::Budget,
            Blocker::NotReachedFromPublicMethods => ReasonKind::NotReachedFromPublicMethods,
            Blocker::NotExplorable { .. } => ReasonKind::NotExplorable,
        }
    }

    /// The word as the report's JSON spells it.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|value| value.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UncoveredReason {
    /// The solver proved every path to it contradictory.
    ProvenInfeasible,
    /// Reached while exploring; the test that reached it was dropped in
    /// validation (why, per dropped test).
    Dropped { why: Vec<String> },
    /// Reached while exploring, but no kept test covers it.
    NotKept,
    /// Covered only by tests that show a possible bug, which are reported
    /// and not written.
    PossibleBug,
    /// Not reached, and what kept exploring from it.
    Blocked { blockers: Vec<Blocker> },
    /// Not reached, for no reason exploring can name.
    NotReached,
}

impl fmt::Display for UncoveredReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UncoveredReason::ProvenInfeasible => f.write_str("proven infeasible"),
            UncoveredReason::Dropped { why } => {
                write!(f, "its test was dropped in validation ({})", why.join("; "))
            }
            UncoveredReason::NotKept => {
                f.write_str("reached while exploring, but no kept test covers it")
            }
            UncoveredReason::Blocked { blockers } => {
                let text: Vec<String> = blockers.iter().map(Blocker::to_string).collect();
                f.write_str(&text.join("; "))
            }
            UncoveredReason::PossibleBug => f.write_str(
                "covered only by a test that shows a possible bug (reported, not written)",
            ),
            UncoveredReason::NotReached => f.write_str("not reached"),
        }
    }
}

/// What the tests cover and why the rest is not.
pub struct Diagnosis {
    pub covered: usize,
    pub infeasible: usize,
    pub uncovered: Vec<Uncovered>,
}

/// `covered` holds the ids the kept tests cover; `proven` the claims of
/// infeasibility that stand (see [`super::audit`]); `reached_by_runs` what
/// the runs after exploring reached; `dropped` why tests were dropped in
/// validation.
pub fn diagnose(
    job: &ClassJob<'_, '_, '_>,
    explored: &Explored,
    proven: &BTreeSet<Goal>,
    reached_by_runs: &BTreeSet<Goal>,
    covered: &Coverage,
    dropped: &[String],
    shown_by_bugs: &Coverage,
) -> Diagnosis {
    let infeasible = proven;
    let reached: BTreeSet<&Goal> = explored
        .methods
        .iter()
        .flat_map(|(_, found)| found.reached.iter())
        .chain(reached_by_runs)
        .collect();
    let reached_by_hung_runs: BTreeSet<&Goal> = explored
        .methods
        .iter()
        .flat_map(|(_, found)| found.reached_by_hung_runs.iter())
        .filter(|goal| {
            // Only where no finished run of another method reached it.
            explored.methods.iter().all(|(_, found)| {
                !found.reached.contains(goal) || found.reached_by_hung_runs.contains(goal)
            }) && !reached_by_runs.contains(goal)
        })
        .collect();
    let evaluated: BTreeSet<(&MethodId, u32)> = reached
        .iter()
        .map(|goal| (&goal.method, goal.offset))
        .collect();
    let mut diagnosis = Diagnosis {
        covered: 0,
        infeasible: 0,
        uncovered: Vec::new(),
    };
    for (id, goal, line) in job.goals.iter() {
        if covered.contains(&id.0) {
            diagnosis.covered += 1;
            continue;
        }
        let reason = if infeasible.contains(goal) {
            diagnosis.infeasible += 1;
            UncoveredReason::ProvenInfeasible
        } else if reached_by_hung_runs.contains(goal) {
            UncoveredReason::Blocked {
                blockers: vec![Blocker::RunHung],
            }
        } else if shown_by_bugs.contains(&id.0) {
            UncoveredReason::PossibleBug
        } else if reached.contains(goal) {
            if dropped.is_empty() {
                UncoveredReason::NotKept
            } else {
                let mut why = dropped.to_vec();
                why.sort();
                why.dedup();
                UncoveredReason::Dropped { why }
            }
        } else {
            unreached(goal, explored)
        };
        // Covana's analysis, for what nothing reached at a branch some run
        // did evaluate (the other way): a branch inside code nothing
        // reached is no problem of its own.
        let culprit = match reason {
            UncoveredReason::Blocked { .. } | UncoveredReason::NotReached
                if evaluated.contains(&(&goal.method, goal.offset)) =>
            {
                problems::culprit(job.recipes, goal)
            }
            _ => None,
        };
        diagnosis.uncovered.push(Uncovered {
            goal: goal.clone(),
            line,
            reason,
            culprit,
        });
    }
    diagnosis
}

/// Why nothing reached `goal`, from the explorations: a method explored
/// itself speaks for itself; a private one for the public methods that call
/// it.
fn unreached(goal: &Goal, explored: &Explored) -> UncoveredReason {
    let own = explored
        .methods
        .iter()
        .find(|(method, _)| *method == goal.method);
    let relevant: Vec<&Exploration> = match own {
        Some((_, found)) => vec![found],
        None => explored.methods.iter().map(|(_, found)| found).collect(),
    };
    if let Some(failure) = relevant.iter().find_map(|f| f.failure.clone()) {
        return UncoveredReason::Blocked {
            blockers: vec![failure],
        };
    }
    // Everything known to have kept exploring from it, the budget too.
    let mut blockers: BTreeSet<Blocker> = relevant
        .iter()
        .flat_map(|f| f.blockers.iter().cloned())
        .collect();
    let options = &explored.options;
    let spent = relevant
        .iter()
        .any(|f| f.runs >= options.max_runs || f.seconds >= options.budget.as_secs_f64());
    if spent {
        blockers.insert(Blocker::Budget);
    }
    if !blockers.is_empty() {
        return UncoveredReason::Blocked {
            blockers: blockers.into_iter().collect(),
        };
    }
    if own.is_none() {
        UncoveredReason::Blocked {
            blockers: vec![Blocker::NotReachedFromPublicMethods],
        }
    } else {
        UncoveredReason::NotReached
    }
}
