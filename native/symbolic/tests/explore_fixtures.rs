//! The explorer on fixtures/explore: 95 methods with 435 branch outcomes,
//! 19 of them infeasible with assertions enabled (fixtures/explore/EXPECTED.md). Every feasible
//! outcome must be reached, as testgen's own probes report it, and every
//! infeasible one must be proven infeasible by the solver, within a budget
//! of a few seconds per method.

mod support;

use serde::Deserialize;
use testgen_classfile::instruction::{opcode, Operands};
use testgen_construct::Recipes;
use testgen_project::{Goal, MethodId, Outcome, Program};
use testgen_symbolic::explore::{explore, ExploreOptions};

#[derive(Deserialize)]
struct Expected {
    class: String,
    method: String,
    descriptor: String,
    infeasible: Vec<Infeasible>,
}

#[derive(Deserialize)]
struct Infeasible {
    line: u32,
    /// Given where the line holds more than one branch instruction (an
    /// `assert`: its `$assertionsDisabled` test and its condition).
    #[serde(default)]
    offset: Option<u32>,
    outcome: String,
}

impl Infeasible {
    fn names(&self, offset: u32, line: u32, outcome: &str) -> bool {
        self.line == line && self.outcome == outcome && self.offset.is_none_or(|o| o == offset)
    }
}

/// Every outcome of every branch and switch of a method: (offset, line, outcome).
fn all_outcomes(program: &Program<'_>, key: &MethodId) -> Vec<(u32, u32, Outcome)> {
    let (class, member) = program.method(key).expect("the method exists");
    let code = member.code(class).unwrap().unwrap();
    let lines = code.line_numbers(class);
    let mut outcomes = Vec::new();
    for instruction in code.instructions() {
        let instruction = instruction.unwrap();
        let offset = instruction.offset;
        let line = lines.line_at(offset);
        match instruction.operands {
            Operands::Branch(_) if opcode::is_conditional_branch(instruction.opcode) => {
                outcomes.push((offset, line, Outcome::Taken));
                outcomes.push((offset, line, Outcome::NotTaken));
            }
            Operands::TableSwitch(table) => {
                outcomes.extend(
                    table
                        .targets()
                        .map(|(k, _)| (offset, line, Outcome::Case(k))),
                );
                outcomes.push((offset, line, Outcome::Default));
            }
            Operands::LookupSwitch(lookup) => {
                outcomes.extend(
                    lookup
                        .targets()
                        .map(|(k, _)| (offset, line, Outcome::Case(k))),
                );
                outcomes.push((offset, line, Outcome::Default));
            }
            _ => {}
        }
    }
    outcomes
}

#[test]
fn every_feasible_branch_is_reached_and_every_infeasible_one_proven() {
    let expected: Vec<Expected> = serde_json::from_str(
        &std::fs::read_to_string(
            testgen_testkit::repo_root().join("fixtures/explore/expected.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let fixture = support::Fixture::compile("explore");
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let mut executor = fixture.executor();
    // Runs, queries and z3's rlimit bound the work; the time budget is only
    // a safety net, made generous so that a loaded machine gives the same
    // results as an idle one.
    let options = ExploreOptions {
        budget: std::time::Duration::from_secs(120),
        ..ExploreOptions::default()
    };
    let mut failures = Vec::new();
    let (mut outcomes_total, mut reached_total, mut infeasible_total, mut proven_total) =
        (0, 0, 0, 0);
    let mut unfinished_total = 0;
    let (mut runs, mut predicted, mut agreed, mut solver, mut seconds) = (0, 0, 0, 0.0, 0.0);
    for method in &expected {
        let key = MethodId::of(
            &method.class.replace('.', "/"),
            &method.method,
            &method.descriptor,
        );
        let found = explore(&mut executor, &recipes, &key, &options).unwrap();
        runs += found.runs;
        predicted += found.predicted;
        agreed += found.agreed;
        solver += found.solver_seconds;
        seconds += found.seconds;

        let mut missed = Vec::new();
        let mut unproven = Vec::new();
        for (offset, line, outcome) in all_outcomes(&program, &key) {
            outcomes_total += 1;
            let reached = Goal {
                method: key.clone(),
                offset,
                outcome,
            };
            if method
                .infeasible
                .iter()
                .any(|i| i.names(offset, line, &outcome.label()))
            {
                infeasible_total += 1;
                if found.infeasible.contains(&reached) {
                    proven_total += 1;
                } else if found.infeasible_so_far.contains(&reached) {
                    // Infeasible on every path explored; the tree was not
                    // finished within the limits.
                    proven_total += 1;
                    unfinished_total += 1;
                } else {
                    unproven.push(format!("line {line} {}", outcome.label()));
                }
                if found.reached.contains(&reached) {
                    failures.push(format!("{}: reached infeasible line {line}", key));
                }
            } else if found.reached.contains(&reached) {
                reached_total += 1;
            } else {
                missed.push(format!("line {line} @{offset} {}", outcome.label()));
            }
        }
        let stats = found.tree.stats();
        println!(
            "{}.{}: {} runs, {}/{} predicted, {:.2} s (solver {:.2} s), missed {:?}, unproven {:?}, tree {:?}{}{}",
            method.class,
            method.method,
            found.runs,
            found.agreed,
            found.predicted,
            found.seconds,
            found.solver_seconds,
            missed,
            unproven,
            stats,
            found
                .failure
                .as_ref()
                .map(|f| format!(", failure: {f}"))
                .unwrap_or_default(),
            if found.blockers.is_empty() {
                String::new()
            } else {
                format!(", blockers: {:?}", found.blockers)
            }
        );
        if !missed.is_empty() {
            failures.push(format!("{}: missed {missed:?}", key));
        }
        if !unproven.is_empty() {
            failures.push(format!("{}: not proven infeasible {unproven:?}", key));
        }
    }
    println!(
        "explore fixtures: {reached_total}/{} feasible outcomes reached, {proven_total}/{infeasible_total} infeasible classified ({unfinished_total} of them in a tree not explored to the end); {runs} runs, {agreed}/{predicted} predicted paths taken ({:.1}%), {:.1} s total, solver {:.1} s ({:.0}%)",
        outcomes_total - infeasible_total,
        100.0 * agreed as f64 / predicted.max(1) as f64,
        seconds,
        solver,
        100.0 * solver / seconds.max(1e-9)
    );
    executor.shutdown().ok();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
