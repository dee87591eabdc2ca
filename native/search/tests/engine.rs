//! The search loop on a real class: a fixture compiled, instrumented and
//! run on the executor, with goals no constant or default value covers.

#[path = "../../symbolic/tests/support/mod.rs"]
mod support;

use std::collections::BTreeSet;

use testgen_classfile::ClassFile;
use testgen_construct::template::{Bounds, Template};
use testgen_construct::FilledHoles;
use testgen_construct::{preparing_calls, Recipes};
use testgen_exec::{Executor, Plan, PlanStatus, StatementOutcome, TraceEvent};
use testgen_project::{ClassGoals, ClassName, Goal, MethodId, Outcome};
use testgen_search::genome::{Constants, Genome};
use testgen_search::{
    search, Evaluated, Evaluator, GoalGraph, Problem, SearchMethod, SearchOptions, Seed, Stop,
};

/// Runs every plan on the executor, with no clock: the count bound stops
/// the search.
struct Runs<'e> {
    executor: &'e mut Executor,
}

impl Evaluator for Runs<'_> {
    type Error = testgen_exec::ExecError;

    fn evaluate(&mut self, plan: &Plan) -> Result<Option<Evaluated>, Self::Error> {
        let outcome = self.executor.run(plan)?;
        if !matches!(
            outcome.status,
            PlanStatus::Completed | PlanStatus::Exception { .. }
        ) {
            return Ok(None);
        }
        Ok(Some(Evaluated {
            events: outcome
                .plan_events()
                .filter(|e| matches!(e, TraceEvent::Branch { .. } | TraceEvent::Compare { .. }))
                .cloned()
                .collect(),
            returned: matches!(
                outcome.statements.last(),
                Some(StatementOutcome::Value { .. } | StatementOutcome::Void)
            ),
        }))
    }

    fn out_of_time(&self) -> bool {
        false
    }
}

#[test]
fn search_covers_goals_by_their_fitness_alone_and_repeats_itself_with_the_same_seed() {
    let fixture = support::Fixture::compile("search");
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let mut executor = fixture.executor();
    let class = ClassName::internal("fixtures/search/Hidden");
    let file: &ClassFile<'_> = program.class(&class).expect("Hidden is in the program");
    let goals = ClassGoals::of(file, &class);
    let graph = GoalGraph::of(file, &class, &goals);
    let methods = [
        ("near", "(I)Ljava/lang/String;", true),
        ("bucketThree", "(Ljava/lang/String;)Z", true),
        ("add", "(I)V", false),
        ("full", "()Z", false),
    ];
    // Each method starts from the bare call: `full` is reached only once
    // mutations insert `add` calls before it.
    let search_methods: Vec<SearchMethod> = methods
        .iter()
        .map(|(name, descriptor, is_static)| {
            let id = MethodId::new(class.clone(), *name, *descriptor);
            SearchMethod {
                calls: preparing_calls(&program, &id, *is_static).calls,
                id,
                is_static: *is_static,
                contexts: vec![Vec::new()],
            }
        })
        .collect();
    assert_eq!(search_methods[3].calls.len(), 1, "{search_methods:?}");
    let problem = Problem {
        recipes: &recipes,
        bounds: Bounds::default(),
        goals: &goals,
        graph: &graph,
        methods: search_methods,
        constants: Constants::of_class(file),
        seeds: Vec::new(),
    };
    let options = SearchOptions {
        max_evaluations: 3_000,
        ..SearchOptions::default()
    };
    let mut runs = Runs {
        executor: &mut executor,
    };
    let first = search(&problem, &BTreeSet::new(), &options, &mut runs).unwrap();

    let id = |name: &str, nth_branch: usize, outcome: Outcome| {
        let offsets: BTreeSet<u32> = goals
            .iter()
            .filter(|(_, goal, _)| goal.method.name == name)
            .map(|(_, goal, _)| goal.offset)
            .collect();
        let offset = *offsets.iter().nth(nth_branch).expect("the branch");
        let goal = Goal {
            method: MethodId::new(
                class.clone(),
                name,
                methods.iter().find(|m| m.0 == name).unwrap().1,
            ),
            offset,
            outcome,
        };
        goals.id(&goal).expect("a goal of the class").0
    };
    let covered: BTreeSet<u32> = first
        .found
        .iter()
        .flat_map(|f| f.covers.iter().copied())
        .collect();
    // `y == 4000`: x = 1331, which no constant names (`if_icmpne` not taken).
    assert!(
        covered.contains(&id("near", 0, Outcome::NotTaken)),
        "{first:#?}"
    );
    // The hash: some string in bucket 3 (`ifne` of the `==` not taken).
    assert!(
        covered.contains(&id("bucketThree", 1, Outcome::NotTaken)),
        "{first:#?}"
    );
    // `total > 100` after `add` calls before `full` (`if_icmple` not taken).
    assert!(
        covered.contains(&id("full", 0, Outcome::NotTaken)),
        "{first:#?}"
    );
    assert_eq!(
        first.stopped,
        Stop::NoTargets,
        "every goal of Hidden is feasible: {first:#?}"
    );
    assert!(first.evaluations < options.max_evaluations);
    // `full` was covered after inserted calls.
    let full = first
        .found
        .iter()
        .find(|found| found.covers.contains(&id("full", 0, Outcome::NotTaken)))
        .unwrap();
    assert!(full.plan.statements.len() > 2, "{full:?}");
    // Each found test is the archive's for the goals it lists, and runs.
    for found in &first.found {
        assert!(!found.covers.is_empty());
        let run = runs.evaluate(&found.plan).unwrap().expect("the test runs");
        let scores = testgen_search::fitness(&program, &goals, &graph, &run.events);
        for &goal in &found.covers {
            match scores.get(goal as usize) {
                Some(score) => assert_eq!(*score, 0.0, "{found:?}"),
                // A method's goal: its call returned.
                None => assert!(run.returned, "{found:?}"),
            }
        }
    }

    let again = search(&problem, &BTreeSet::new(), &options, &mut runs).unwrap();
    assert_eq!(
        again.found, first.found,
        "the same seed finds the same tests"
    );
    assert_eq!(again.evaluations, first.evaluations);

    // Goals covered before search are not searched for: with every goal
    // but `near`'s covered, the tests found are `near`'s only.
    let near_goals: BTreeSet<u32> = goals
        .iter()
        .filter(|(_, goal, _)| goal.method.name == "near")
        .map(|(id, _, _)| id.0)
        .collect();
    let others: BTreeSet<u32> = (0..(goals.len() + methods.len()) as u32)
        .filter(|id| !near_goals.contains(id))
        .collect();
    let only_near = search(&problem, &others, &options, &mut runs).unwrap();
    assert!(!only_near.found.is_empty());
    for found in &only_near.found {
        assert_eq!(problem.methods[found.method].id.name, "near");
        assert!(found.covers.is_subset(&near_goals), "{found:?}");
    }

    // A seed (a concolic run's inputs) is where the search starts: x = 1331
    // covers `y == 4000` at the first run.
    let x_is = |value: i32| {
        let mut holes = FilledHoles::default();
        holes
            .primitives
            .insert("p0".into(), testgen_exec::Value::Int { value });
        Genome::from(holes)
    };
    let seeded = Problem {
        seeds: vec![Seed {
            method: 0,
            prefix: Vec::new(),
            genome: x_is(1331),
        }],
        ..problem
    };
    let from_seed = search(&seeded, &others, &options, &mut runs).unwrap();
    let hit = from_seed
        .found
        .iter()
        .find(|found| found.covers.contains(&id("near", 0, Outcome::NotTaken)))
        .expect("the seed covers near's hit");
    let template = Template::new(
        &recipes,
        seeded.methods[0].id.clone(),
        true,
        &[],
        Bounds::default(),
    )
    .unwrap();
    assert_eq!(hit.plan, template.instantiate(&x_is(1331)).plan);
    // The seed is the first run: its goal is covered at once.
    assert_eq!(from_seed.found[0], *hit);
}
