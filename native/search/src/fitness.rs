//! One run's fitness for each goal of a class, and the control dependence
//! between the goals that DynaMOSA needs.
//!
//! A goal is a branch outcome ([`Goal`]). Its fitness for a run is 0 when
//! the run covered it; the normalised branch distance when its branch ran
//! but went another way (the closest of its executions); else one more
//! than the best fitness of a goal it is control dependent on (approach
//! level plus that branch's distance, DynaMOSA's measure); and
//! [`NEVER_REACHED`] when nothing on the way to it ran.

use std::collections::BTreeMap;

use testgen_analysis::{Cfg, ControlDependence, EdgeKind};
use testgen_classfile::ClassFile;
use testgen_exec::TraceEvent;
use testgen_project::{ClassGoals, ClassName, Goal, GoalId, MethodId, Outcome, Program};

use crate::distance;

/// The fitness of a goal no run came near: its method did not run, or
/// nothing it depends on.
pub const NEVER_REACHED: f64 = 1e6;

/// Per goal of a class, the goals it is control dependent on: the branch
/// outcomes that decide whether its branch runs at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GoalGraph {
    parents: Vec<Vec<GoalId>>,
}

impl GoalGraph {
    pub fn of(file: &ClassFile<'_>, class: &ClassName, goals: &ClassGoals) -> GoalGraph {
        let mut parents = vec![Vec::new(); goals.len()];
        let mut by_method: BTreeMap<&MethodId, Vec<(GoalId, u32)>> = BTreeMap::new();
        for (id, goal, _) in goals.iter() {
            by_method
                .entry(&goal.method)
                .or_default()
                .push((id, goal.offset));
        }
        for member in &file.methods {
            let (Ok(name), Ok(descriptor)) = (member.name(file), member.descriptor(file)) else {
                continue;
            };
            let method = MethodId::new(class.clone(), name, descriptor);
            let Some(own) = by_method.get(&method) else {
                continue;
            };
            let Ok(Some(cfg)) = Cfg::of_method(file, member) else {
                continue;
            };
            let control = ControlDependence::compute(&cfg);
            for &(id, offset) in own {
                let Some(block) = cfg.block_containing(offset) else {
                    continue;
                };
                let deciding = control.of(block).iter().filter_map(|&edge| {
                    let edge = cfg.edge(edge);
                    let outcome = match edge.kind {
                        EdgeKind::BranchTaken => Outcome::Taken,
                        EdgeKind::BranchNotTaken => Outcome::NotTaken,
                        EdgeKind::SwitchCase(key) => Outcome::Case(key),
                        EdgeKind::SwitchDefault => Outcome::Default,
                        _ => return None,
                    };
                    goals.id(&Goal {
                        method: method.clone(),
                        offset: cfg.block(edge.from).last_instruction(),
                        outcome,
                    })
                });
                let list = &mut parents[id.0 as usize];
                for parent in deciding {
                    if parent != id && !list.contains(&parent) {
                        list.push(parent);
                    }
                }
            }
        }
        GoalGraph { parents }
    }

    /// The same graph with `extra` more goals that depend on nothing (a
    /// method's goals beyond its branches: a run that returns).
    pub fn extended(&self, extra: usize) -> GoalGraph {
        let mut parents = self.parents.clone();
        parents.extend(std::iter::repeat_with(Vec::new).take(extra));
        GoalGraph { parents }
    }

    /// The goals `goal` is control dependent on; empty when its branch
    /// runs whenever its method does.
    pub fn parents(&self, goal: GoalId) -> &[GoalId] {
        &self.parents[goal.0 as usize]
    }
}

/// The fitness of every goal of `goals` (by id) for a run that recorded
/// `events`; lower is better, 0 is covered.
pub fn fitness(
    program: &Program<'_>,
    goals: &ClassGoals,
    graph: &GoalGraph,
    events: &[TraceEvent],
) -> Vec<f64> {
    let mut best = vec![NEVER_REACHED; goals.len()];
    let improve = |best: &mut [f64], goal: &Goal, value: f64| {
        if let Some(id) = goals.id(goal) {
            let slot = &mut best[id.0 as usize];
            *slot = slot.min(value);
        }
    };
    for (index, event) in events.iter().enumerate() {
        let TraceEvent::Branch { site, operands } = event else {
            continue;
        };
        let Some((method, at)) = program.site_in_method(*site) else {
            continue;
        };
        let goal = |outcome| Goal {
            method: method.clone(),
            offset: at.offset,
            outcome,
        };
        if let testgen_exec::BranchOperands::SwitchKey { key } = operands {
            for (id, candidate, _) in goals.iter() {
                if candidate.method != *method || candidate.offset != at.offset {
                    continue;
                }
                let value = match candidate.outcome {
                    Outcome::Case(case) => distance::switch_case(*key, case),
                    Outcome::Default if program.switch_has_case(method, at.offset, *key) => {
                        distance::normalised(1.0)
                    }
                    _ => 0.0,
                };
                let slot = &mut best[id.0 as usize];
                *slot = slot.min(value);
            }
            continue;
        }
        let before = index.checked_sub(1).map(|before| &events[before]);
        let compared = match before {
            Some(TraceEvent::Compare { operands, .. }) => Some(operands),
            _ => None,
        };
        // A measured call just before, in the same method, is what an
        // `ifeq`/`ifne` tests (the probes measure no other).
        let call = match before {
            Some(TraceEvent::CallDistance { site, to_true, .. })
                if program
                    .site(*site)
                    .is_some_and(|call| call.method == at.method) =>
            {
                distance::tested_call(at.opcode, *to_true)
            }
            _ => None,
        };
        if let Some((taken, not_taken)) =
            call.or_else(|| distance::branch(at.opcode, operands, compared))
        {
            improve(&mut best, &goal(Outcome::Taken), taken);
            improve(&mut best, &goal(Outcome::NotTaken), not_taken);
        }
    }
    // Goals whose branch never ran: one level more than the closest goal
    // they depend on, as far as the dependences reach.
    let mut fitness = best.clone();
    for _ in 0..goals.len().min(64) {
        let mut changed = false;
        for (id, _, _) in goals.iter() {
            let index = id.0 as usize;
            if best[index] < NEVER_REACHED {
                continue;
            }
            let through_parents = graph
                .parents(id)
                .iter()
                .map(|parent| fitness[parent.0 as usize])
                .filter(|&f| f < NEVER_REACHED)
                .fold(NEVER_REACHED, |closest, f| closest.min(1.0 + f));
            if through_parents < fitness[index] {
                fitness[index] = through_parents;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    fitness
}

#[cfg(test)]
mod tests {
    use super::*;
    use testgen_testkit::compile_fixture;

    #[test]
    fn the_second_test_of_clamp_depends_on_the_first_failing() {
        let classes = compile_fixture("explore");
        let bytes = std::fs::read(classes.join("fixtures/explore/IntRules.class")).unwrap();
        let file = ClassFile::parse(&bytes).unwrap();
        let class = ClassName::internal("fixtures/explore/IntRules");
        let goals = ClassGoals::of(&file, &class);
        let graph = GoalGraph::of(&file, &class, &goals);
        let clamp: Vec<(GoalId, &Goal)> = goals
            .iter()
            .filter(|(_, goal, _)| goal.method.name == "clamp")
            .map(|(id, goal, _)| (id, goal))
            .collect();
        // `if (x < min)`, then `if (x > max)`: two goals each.
        assert_eq!(clamp.len(), 4, "{clamp:#?}");
        let (first, second) = (clamp[0].1.offset, clamp[2].1.offset);
        assert!(first < second);
        for (id, goal) in &clamp {
            let parents: Vec<&Goal> = graph.parents(*id).iter().map(|p| goals.goal(*p)).collect();
            if goal.offset == first {
                assert!(parents.is_empty(), "{goal:?}: {parents:?}");
            } else {
                // The second test runs only when the first did not return.
                assert_eq!(parents.len(), 1, "{goal:?}: {parents:?}");
                assert_eq!(parents[0].offset, first);
            }
        }
    }
}
