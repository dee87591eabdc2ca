//! The fitness of a real run's trace: a fixture compiled, instrumented and
//! run on the executor.

#[path = "../../symbolic/tests/support/mod.rs"]
mod support;

use testgen_classfile::ClassFile;
use testgen_exec::{Plan, Statement, TraceEvent, Value};
use testgen_project::{ClassGoals, ClassName, Outcome, Program};
use testgen_search::distance::normalised;
use testgen_search::{fitness, GoalGraph};

fn clamp(x: i32, min: i32, max: i32) -> Plan {
    Plan::new(vec![Statement::CallStatic {
        class: "fixtures.explore.IntRules".into(),
        name: "clamp".into(),
        descriptor: "(III)I".into(),
        args: [x, min, max]
            .into_iter()
            .map(|value| Value::Int { value })
            .collect(),
    }])
}

/// `clamp`'s four goals as (branch offset, outcome, fitness), in goal order.
fn clamp_fitness(
    program: &Program<'_>,
    goals: &ClassGoals,
    graph: &GoalGraph,
    events: &[TraceEvent],
) -> Vec<(u32, Outcome, f64)> {
    let all = fitness(program, goals, graph, events);
    goals
        .iter()
        .filter(|(_, goal, _)| goal.method.name == "clamp")
        .map(|(id, goal, _)| (goal.offset, goal.outcome, all[id.0 as usize]))
        .collect()
}

#[test]
fn a_run_is_as_far_from_each_goal_as_its_operands_and_the_approach_level_say() {
    let fixture = support::Fixture::compile("explore");
    let program = fixture.program();
    let mut executor = fixture.executor();
    let (_, bytes, _) = fixture
        .classes
        .iter()
        .find(|(binary, _, _)| binary == "fixtures.explore.IntRules")
        .expect("the fixture has IntRules");
    let file = ClassFile::parse(bytes).unwrap();
    let class = ClassName::internal("fixtures/explore/IntRules");
    let goals = ClassGoals::of(&file, &class);
    let graph = GoalGraph::of(&file, &class, &goals);
    let mut events = |plan: &Plan| -> Vec<TraceEvent> {
        let outcome = executor.run(plan).expect("the plan runs");
        outcome.plan_events().cloned().collect()
    };

    // clamp(5, 0, 3): `x < min` fails by 6 (5 >= 0 holds), `x > max` holds
    // (5 > 3), 2 away from failing.
    let run = events(&clamp(5, 0, 3));
    let found = clamp_fitness(&program, &goals, &graph, &run);
    let fitness_of: Vec<f64> = found.iter().map(|(_, _, f)| *f).collect();
    assert_eq!(
        fitness_of.iter().filter(|&&f| f == 0.0).count(),
        2,
        "{found:?}"
    );
    assert!(fitness_of.contains(&normalised(6.0)), "{found:?}");
    assert!(fitness_of.contains(&normalised(2.0)), "{found:?}");

    // clamp(-1, 0, 3) returns at the first test: the second's goals are one
    // control-dependence level away, plus how far -1 was from 0.
    let run = events(&clamp(-1, 0, 3));
    let found = clamp_fitness(&program, &goals, &graph, &run);
    let second = found[2].0;
    for (offset, _, fitness) in &found {
        if *offset == second {
            assert_eq!(*fitness, 1.0 + normalised(1.0), "{found:?}");
        }
    }
}
