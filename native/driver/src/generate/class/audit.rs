//! Which claims of "proven infeasible" the class's report may make, and the
//! audit that checks them against every run.
//!
//! An exploration proves an outcome infeasible in its own tree: for the
//! method it explored, in the contexts it built, within its limits. That
//! is a proof for the class only when
//!
//! - the exploration rests on no approximation: it finished its tree and
//!   nothing cut it short (a loop bound, the path length, a replay that
//!   lost the run or met an instruction it does not model, a solver that
//!   gave up, a run that hung, the budget); its clauses on observed values
//!   are already no proof (`testgen_symbolic::explore`);
//! - every other exploration that came to the same decision agrees (a
//!   private helper called from two public methods is infeasible in one
//!   caller's context only, if the other caller reaches it);
//! - no exploration that might still reach it stopped early: an unfinished
//!   exploration of any method could call into the outcome's method;
//! - no decision on the way to it (a branch, or an instruction that may
//!   throw), its own included, tests state other call sequences could
//!   change (an object's field, a static field, a value the bytecode
//!   analysis lost, a private helper's parameter: see
//!   [`super::problems::tests_mutable_state`]): exploring builds objects
//!   through a few call sequences, and a stack 64 pushes deep is not among
//!   them, so "the stack is never full" is no proof;
//! - and no run of the class, whatever stage made it, reached it.
//!
//! The last point is also checked afterwards, against every run: a claim a
//! run contradicts is counted (it must never happen) and the outcome is
//! reported as reached.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use testgen_project::{Goal, MethodId};
use testgen_symbolic::explore::Exploration;
use testgen_symbolic::tree::Location;

use super::explore::Explored;

/// A branch instruction: where a goal's decision is made.
type Decision = (MethodId, u32);

/// The outcomes every exploration's evidence lets the class claim as
/// proven infeasible (before any run is checked against them);
/// `tests_state` says whether the branch at an offset of a method tests
/// mutable state ([`super::problems::tests_mutable_state`]): no proof may
/// go through such a branch, the outcome's own or one on the way to it.
pub fn provable(
    explored: &Explored,
    tests_state: impl Fn(&MethodId, u32) -> bool,
) -> BTreeSet<Goal> {
    let explorations: Vec<&Exploration> = explored.methods.iter().map(|(_, f)| f).collect();
    let known = RefCell::new(BTreeMap::new());
    let on_state = |at: &Location| {
        let Some(method) = &at.method else {
            return false;
        };
        *known
            .borrow_mut()
            .entry((method.clone(), at.offset))
            .or_insert_with(|| tests_state(method, at.offset))
    };
    let proofs: Vec<BTreeSet<Goal>> = explorations
        .iter()
        .map(|found| found.infeasible_unless(on_state))
        .collect();
    let everything_finished = explorations.iter().all(|found| rests_on_nothing(found));
    let own: BTreeMap<&MethodId, usize> = explored
        .methods
        .iter()
        .enumerate()
        .map(|(index, (method, _))| (method, index))
        .collect();
    let came_to: Vec<BTreeSet<Decision>> = explorations.iter().map(|f| decisions(f)).collect();
    let mut claims = BTreeSet::new();
    let proves = |index: usize, goal: &Goal| {
        rests_on_nothing(explorations[index]) && proofs[index].contains(goal)
    };
    for (index, found) in explorations.iter().enumerate() {
        if !rests_on_nothing(found) {
            continue;
        }
        for goal in &proofs[index] {
            let decision = (goal.method.clone(), goal.offset);
            let agreed = (0..explorations.len())
                .filter(|&other| came_to[other].contains(&decision))
                .all(|other| proves(other, goal));
            // Where the goal's own method was explored with inputs of its
            // own, its tree speaks for every caller; otherwise every
            // exploration must have finished (any of them might call it).
            let whole = match own.get(&goal.method) {
                Some(&own) => proves(own, goal),
                None => everything_finished,
            };
            let reached = explorations
                .iter()
                .any(|other| other.reached.contains(goal));
            if agreed && whole && !reached {
                claims.insert(goal.clone());
            }
        }
    }
    claims
}

/// Whether an exploration finished its tree with nothing cut short, so
/// that its proofs are proofs.
fn rests_on_nothing(found: &Exploration) -> bool {
    found.failure.is_none()
        && found.blockers.is_empty()
        && found.infeasible_so_far.is_empty()
        && found.tree.stats().unexplored == 0
}

/// The branch instructions an exploration's tree came to.
fn decisions(found: &Exploration) -> BTreeSet<Decision> {
    let mut decided = BTreeSet::new();
    found.tree.for_each_edge(|at, outcome, _, _| {
        if let Some(goal) = at.goal(outcome) {
            decided.insert((goal.method, goal.offset));
        }
    });
    decided
}

/// Claims checked against what the class's runs reached.
#[derive(Debug, Default)]
pub struct Audit {
    /// The claims no run contradicts.
    pub standing: BTreeSet<Goal>,
    /// Claims some run contradicted (each a defect to find and fix).
    pub contradicted: BTreeSet<Goal>,
}

/// Checks `claims` against `reached`: every goal any run of the class
/// reached, in exploring or after it.
pub fn audit(claims: BTreeSet<Goal>, reached: &BTreeSet<Goal>) -> Audit {
    let (contradicted, standing) = claims.into_iter().partition(|goal| reached.contains(goal));
    Audit {
        standing,
        contradicted,
    }
}

#[cfg(test)]
mod tests {
    use testgen_project::{Blocker, Outcome, Site};
    use testgen_symbolic::explore::ExploreOptions;
    use testgen_symbolic::tree::{Alternative, Decision, Leaf, Location, Step};

    use super::*;

    fn helper() -> MethodId {
        MethodId::of("p/C", "check", "(I)I")
    }

    fn goal(outcome: Outcome) -> Goal {
        Goal {
            method: helper(),
            offset: 5,
            outcome,
        }
    }

    /// An exploration that took the helper's branch at 5 one way and, if
    /// `proven`, proved the other way infeasible (else left it open).
    fn exploration(proven: bool) -> Exploration {
        let step = Step {
            taken: Decision {
                at: Location::of(helper(), 5),
                outcome: Outcome::Taken,
                clause: Some("(> x 0)".into()),
                declares: Vec::new(),
                observed: false,
            },
            alternatives: vec![Alternative {
                outcome: Outcome::NotTaken,
                clause: Some("(<= x 0)".into()),
                declares: Vec::new(),
                observed: false,
            }],
        };
        // A branch before it, at 2, decided one way only.
        let before = Step {
            taken: Decision {
                at: Location::of(helper(), 2),
                outcome: Outcome::Taken,
                clause: Some("(> y 0)".into()),
                declares: Vec::new(),
                observed: false,
            },
            alternatives: Vec::new(),
        };
        let mut found = Exploration::default();
        found.tree.record(&[before, step], Default::default());
        found.reached.insert(goal(Outcome::Taken));
        if proven {
            let leaf = found.tree.next_unexplored().expect("the other way");
            found.tree.settle(leaf, Leaf::Infeasible);
            found.infeasible.insert(goal(Outcome::NotTaken));
        } else {
            found.infeasible_so_far.insert(goal(Outcome::NotTaken));
        }
        found
    }

    fn explored(methods: Vec<(&str, Exploration)>) -> Explored {
        Explored {
            methods: methods
                .into_iter()
                .map(|(name, found)| (MethodId::of("p/C", name, "(I)I"), found))
                .collect(),
            options: ExploreOptions::default(),
        }
    }

    #[test]
    fn a_finished_proof_of_every_caller_stands() {
        let both = explored(vec![("a", exploration(true)), ("b", exploration(true))]);
        let claims = provable(&both, |_, _| false);
        assert_eq!(claims, BTreeSet::from([goal(Outcome::NotTaken)]));
        // Unless the branch, or one on the way to it, tests state other
        // call sequences could change.
        assert!(provable(&both, |_, offset| offset == 5).is_empty());
        assert!(provable(&both, |_, offset| offset == 2).is_empty());
    }

    #[test]
    fn one_callers_proof_is_no_proof_while_another_caller_is_unfinished() {
        let claims = provable(
            &explored(vec![("a", exploration(true)), ("b", exploration(false))]),
            |_, _| false,
        );
        assert!(claims.is_empty(), "{claims:?}");
    }

    #[test]
    fn a_proof_that_rests_on_a_loop_bound_is_no_proof() {
        let mut bounded = exploration(true);
        bounded.blockers.insert(Blocker::LoopBound {
            at: Site {
                method: helper(),
                offset: 9,
            },
        });
        assert!(provable(&explored(vec![("a", bounded)]), |_, _| false).is_empty());
    }

    #[test]
    fn a_run_that_reaches_a_claimed_outcome_contradicts_it() {
        let claims = BTreeSet::from([goal(Outcome::NotTaken), goal(Outcome::Taken)]);
        let audit = audit(claims, &BTreeSet::from([goal(Outcome::Taken)]));
        assert_eq!(audit.contradicted, BTreeSet::from([goal(Outcome::Taken)]));
        assert_eq!(audit.standing, BTreeSet::from([goal(Outcome::NotTaken)]));
    }
}
