//! Stage: choose which explored plans become tests. Every covering plan
//! is a candidate with what its constraint-tree path says it covers (an
//! estimate: a replay that stopped early records a shorter path); a greedy
//! cover is chosen on the estimates, those plans are run and measured, and
//! goals the explorations reached that the chosen plans miss are looked for
//! among the other candidates.

use std::collections::{BTreeMap, BTreeSet};

use testgen_emit::{select_covering_with_costs, with_state_observed};
use testgen_exec::{ExecError, Plan, PlanOutcome, PlanStatus, StatementOutcome, TraceEvent};
use testgen_project::{Goal, MethodId};
use testgen_symbolic::tree::{ConstraintTree, Leaf, Node};

use super::explore::Explored;
use super::runner::PlanRunner;
use super::ClassJob;

/// What a run covers: goal ids of the class ([`testgen_project::GoalId`]),
/// and for each explored method a pseudo-goal (the class's goal count plus
/// the method's index), so that every method keeps at least one test.
pub type Coverage = BTreeSet<u32>;

/// How many candidates that do not promise a missing goal on their path
/// are run in search of it.
const MAX_EXTRA_MEASUREMENTS: usize = 20;

/// A chosen plan, run once, with what it covers.
pub struct Chosen {
    pub plan: Plan,
    pub first: PlanOutcome,
    pub coverage: Coverage,
    /// Properties to assert after the act even where it did not change
    /// them ([`testgen_emit::TestCase::also_assert`]).
    pub also_assert: BTreeSet<String>,
}

/// What the selection found.
pub struct Selection {
    pub chosen: Vec<Chosen>,
    /// Distinct covering plans the explorations offered.
    pub candidates: usize,
    /// The plans not chosen (the state after the act observed), each with its method's
    /// pseudo-goal: what else a test could be (mutants choose among them).
    pub unchosen: Vec<(Plan, u32)>,
    /// Why some runs could not use a class (it or one it needs could not be
    /// loaded or initialised), if that happened.
    pub load_error: Option<String>,
}

/// A covering plan of an exploration (with the state after the act observed).
struct Candidate {
    plan: Plan,
    /// The pseudo-goal of the explored method.
    act: u32,
    estimate: Coverage,
    /// Not run yet (`None`); run but no use for a test (`Some(None)`); run,
    /// with what the probes saw (`Some(Some(..))`).
    runs: Option<Option<(PlanOutcome, Coverage)>>,
}

pub fn select(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    explored: &Explored,
) -> Result<Selection, ExecError> {
    let goals = job.goals.len() as u32;
    let act_of: BTreeMap<&MethodId, u32> = explored
        .methods
        .iter()
        .enumerate()
        .map(|(index, (method, _))| (method, goals + index as u32))
        .collect();
    let id = |goal: &Goal| job.goals.id(goal).map(|id| id.0);
    let mut seen = BTreeSet::new();
    let mut candidates = Vec::new();
    for (method, found) in &explored.methods {
        for (plan, path) in covered_paths(&found.tree) {
            let Ok(text) = serde_json::to_string(plan) else {
                continue;
            };
            if !seen.insert(text) {
                continue;
            }
            let act = act_of[method];
            let mut estimate: Coverage = path.iter().filter_map(id).collect();
            estimate.insert(act);
            candidates.push(Candidate {
                plan: with_state_observed(plan),
                act,
                estimate,
                runs: None,
            });
        }
    }
    let reached: Coverage = explored
        .methods
        .iter()
        .flat_map(|(_, found)| found.reached.iter())
        .filter_map(id)
        // A method's pseudo-goal only where it has a plan to cover it.
        .chain(candidates.iter().map(|c| c.act))
        .collect();

    // Choose by the estimates, then run the chosen plans and measure what
    // they really cover.
    let estimates: Vec<Coverage> = candidates.iter().map(|c| c.estimate.clone()).collect();
    let costs: Vec<usize> = candidates.iter().map(|c| c.plan.statements.len()).collect();
    let mut chosen = select_covering_with_costs(&estimates, &costs);
    let mut load_error = None;
    let mut covered: Coverage = BTreeSet::new();
    for &index in &chosen {
        if let Some(coverage) = measure(job, runner, &mut candidates[index], &mut load_error)? {
            covered.extend(coverage);
        }
    }
    let mut missing: Coverage = reached.difference(&covered).copied().collect();
    // Candidates whose path promises a missing goal first, then a few
    // others (a goal reached inside a callee is not on the caller's path):
    // measuring every candidate of a class with hundreds of them cost
    // minutes.
    let (promising, others): (Vec<usize>, Vec<usize>) = (0..candidates.len())
        .filter(|index| !chosen.contains(index))
        .partition(|&index| !candidates[index].estimate.is_disjoint(&missing));
    let order = promising
        .into_iter()
        .chain(others.into_iter().take(MAX_EXTRA_MEASUREMENTS));
    for index in order {
        if missing.is_empty() || job.out_of_time() {
            break;
        }
        if candidates[index].runs.is_some() {
            continue;
        }
        if let Some(coverage) = measure(job, runner, &mut candidates[index], &mut load_error)? {
            if coverage.iter().any(|id| missing.contains(id)) {
                missing.retain(|id| !coverage.contains(id));
                chosen.push(index);
            }
        }
    }
    chosen.sort_unstable();
    let count = candidates.len();
    let unchosen = (0..candidates.len())
        .filter(|index| chosen.binary_search(index).is_err())
        .map(|index| (candidates[index].plan.clone(), candidates[index].act))
        .collect();
    let chosen = chosen
        .into_iter()
        .filter_map(|index| {
            let candidate = &candidates[index];
            let (first, coverage) = candidate.runs.clone().flatten()?;
            Some(Chosen {
                plan: candidate.plan.clone(),
                first,
                coverage,
                also_assert: BTreeSet::new(),
            })
        })
        .collect();
    Ok(Selection {
        chosen,
        candidates: count,
        unchosen,
        load_error,
    })
}

/// A plan made elsewhere (by search) for the method with pseudo-goal
/// `act`, run and measured as a candidate (with the state after the act observed);
/// `None` when the run is of no use for a test.
pub fn measure_plan(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    plan: &Plan,
    act: u32,
) -> Result<Option<Chosen>, ExecError> {
    let mut candidate = Candidate {
        plan: with_state_observed(plan),
        act,
        estimate: Coverage::new(),
        runs: None,
    };
    let mut load_error = None;
    measure(job, runner, &mut candidate, &mut load_error)?;
    Ok(candidate.runs.flatten().map(|(first, coverage)| Chosen {
        plan: candidate.plan,
        first,
        coverage,
        also_assert: BTreeSet::new(),
    }))
}

/// Runs a candidate once (if not done yet) and returns what it covers, or
/// `None` when it hung, exited, crashed or could not load a class (no test
/// is made of it).
fn measure(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    candidate: &mut Candidate,
    load_error: &mut Option<String>,
) -> Result<Option<Coverage>, ExecError> {
    if candidate.runs.is_none() {
        let first = runner.run(&candidate.plan)?;
        let linkage = linkage_error(&first);
        let usable = linkage.is_none()
            && matches!(
                first.status,
                PlanStatus::Completed | PlanStatus::Exception { .. }
            );
        if let (Some(error), None) = (linkage, &load_error) {
            *load_error = Some(error);
        }
        candidate.runs = Some(usable.then(|| {
            let mut coverage = covered_ids(job, &first);
            coverage.insert(candidate.act);
            (first, coverage)
        }));
    }
    Ok(candidate
        .runs
        .as_ref()
        .and_then(|runs| runs.as_ref().map(|(_, coverage)| coverage.clone())))
}

/// The ids of the class's goals that a run's probes saw (on the plan's own
/// thread).
pub fn covered_ids(job: &ClassJob<'_, '_, '_>, outcome: &PlanOutcome) -> Coverage {
    let events = outcome
        .plan_events()
        .filter(|event| matches!(event, TraceEvent::Branch { .. }));
    testgen_project::reached(job.recipes.program(), events)
        .iter()
        .filter_map(|goal| job.goals.id(goal).map(|id| id.0))
        .collect()
}

/// The error of a statement that failed because a class could not be
/// loaded, linked or initialised (`NoClassDefFoundError`,
/// `ExceptionInInitializerError`, ...). No test is made of such a run: what
/// it throws depends on which test touched the class first (the first gets
/// `ExceptionInInitializerError`, later ones `NoClassDefFoundError`), so it
/// would pass or fail with the order JUnit runs the tests in.
pub(super) fn linkage_error(outcome: &PlanOutcome) -> Option<String> {
    const LINKAGE_ERRORS: [&str; 7] = [
        "java.lang.NoClassDefFoundError",
        "java.lang.ExceptionInInitializerError",
        "java.lang.UnsatisfiedLinkError",
        "java.lang.VerifyError",
        "java.lang.IncompatibleClassChangeError",
        "java.lang.ClassFormatError",
        "java.lang.LinkageError",
    ];
    outcome
        .statements
        .iter()
        .find_map(|statement| match statement {
            StatementOutcome::Threw { exception }
                if LINKAGE_ERRORS.contains(&exception.class.as_str()) =>
            {
                Some(match &exception.message {
                    Some(message) => format!("{}: {message}", exception.class),
                    None => exception.class.clone(),
                })
            }
            _ => None,
        })
}

/// Leaves out each test whose act throws `NullPointerException` (a null
/// input rejected) when every goal it covers, its method's pseudo-goal
/// among them, is covered by another test: a reviewer reads a test that
/// only shows a method rejects `null` as noise beside the method's other
/// tests, and a method no other test calls keeps its one. Returns the plans
/// left out with their method's pseudo-goal (the first id at or above
/// `goals`), for mutants to bring back one that catches what the rest do
/// not.
pub fn group_null_checks(chosen: &mut Vec<Chosen>, goals: u32) -> Vec<(Plan, u32)> {
    let null_check_of = |chosen: &Chosen| -> Option<u32> {
        let threw_null = chosen.first.statements.iter().any(|statement| {
            matches!(statement, StatementOutcome::Threw { exception }
                if exception.class == "java.lang.NullPointerException")
        });
        let act = chosen.coverage.range(goals..).next().copied();
        act.filter(|_| threw_null)
    };
    let mut dropped = Vec::new();
    let mut index = 0;
    while index < chosen.len() {
        let Some(act) = null_check_of(&chosen[index]) else {
            index += 1;
            continue;
        };
        let others: Coverage = chosen
            .iter()
            .enumerate()
            .filter(|(other, _)| *other != index)
            .flat_map(|(_, other)| other.coverage.iter().copied())
            .collect();
        if chosen[index].coverage.is_subset(&others) {
            let left_out = chosen.remove(index);
            dropped.push((left_out.plan, act));
        } else {
            index += 1;
        }
    }
    dropped
}

/// The inputs of every covered path with the goals on the path, in tree
/// order.
fn covered_paths(tree: &ConstraintTree<Plan>) -> Vec<(&Plan, BTreeSet<Goal>)> {
    let mut found = Vec::new();
    let mut stack = vec![(ConstraintTree::<Plan>::ROOT, BTreeSet::new())];
    while let Some((at, path)) = stack.pop() {
        match tree.node(at) {
            Node::Leaf(Leaf::Covered { inputs }) => found.push((inputs, path)),
            Node::Leaf(_) => {}
            Node::Branch { at, edges } => {
                for edge in edges.iter().rev() {
                    let mut longer = path.clone();
                    longer.extend(at.goal(edge.outcome));
                    stack.push((edge.child, longer));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chosen test whose last statement threw `exception` (or returned),
    /// covering `goals` plus its method's pseudo-goal `act`.
    fn chosen(tag: i32, exception: Option<&str>, goals: &[u32], act: u32) -> Chosen {
        let last = match exception {
            Some(class) => {
                serde_json::json!({"kind": "threw", "exception": {"class": class, "frames": []}})
            }
            None => serde_json::json!({"kind": "void"}),
        };
        let first: PlanOutcome = serde_json::from_value(serde_json::json!({
            "status": {"kind": "completed"},
            "statements": [last],
            "stdout": {"text": "", "total_bytes": 0, "truncated": false},
            "stderr": {"text": "", "total_bytes": 0, "truncated": false},
            "accesses": [],
            "accesses_truncated": false,
            "leftover_threads": [],
            "trace": [],
            "elapsed_micros": 0,
            "restarted": false,
        }))
        .unwrap();
        let plan = Plan::new(vec![testgen_exec::Statement::CallStatic {
            class: "p.C".into(),
            name: "m".into(),
            descriptor: "(I)V".into(),
            args: vec![testgen_exec::Value::Int { value: tag }],
        }]);
        Chosen {
            plan,
            first,
            coverage: goals.iter().copied().chain([act]).collect(),
            also_assert: BTreeSet::new(),
        }
    }

    #[test]
    fn a_null_check_stays_only_where_it_covers_what_no_other_test_does() {
        const NPE: Option<&str> = Some("java.lang.NullPointerException");
        let mut tests = vec![
            chosen(0, NPE, &[1], 10),
            chosen(1, NPE, &[1], 10),
            chosen(2, NPE, &[2], 10),
            chosen(3, NPE, &[1], 11),
            chosen(4, Some("java.lang.IllegalArgumentException"), &[1], 10),
            chosen(5, None, &[1], 10),
        ];
        let left_out = group_null_checks(&mut tests, 10);
        let kept: Vec<i32> = tests
            .iter()
            .map(|test| match &test.plan.statements[0] {
                testgen_exec::Statement::CallStatic { args, .. } => match args[0] {
                    testgen_exec::Value::Int { value } => value,
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            })
            .collect();
        // Method 10's first two null checks cover nothing the others do not;
        // the third covers goal 2; method 11 has no other test.
        assert_eq!(kept, [2, 3, 4, 5]);
        assert_eq!(left_out.len(), 2);
        assert!(left_out.iter().all(|(_, act)| *act == 10));
    }
}
