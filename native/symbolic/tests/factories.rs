//! Objects whose class has no public constructor are built through its
//! public static factories, both as parameters and as receivers, or taken
//! from its public constants when it has neither.

mod support;

use testgen_construct::Recipes;
use testgen_exec::Statement;
use testgen_project::{Goal, MethodId, Outcome};
use testgen_symbolic::explore::{explore, ExploreOptions};

#[test]
fn parameters_and_receivers_come_from_static_factories() {
    let fixture = support::Fixture::compile("factory");
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let mut executor = fixture.executor();
    let options = ExploreOptions::default();

    let describe = MethodId::of(
        "fixtures/factory/Wallet",
        "describe",
        "(Lfixtures/factory/Money;)Ljava/lang/String;",
    );
    let found = explore(&mut executor, &recipes, &describe, &options).unwrap();
    assert_eq!(found.failure, None);
    // `money == null` both ways, `cents() >= 10000` both ways.
    let outcomes: Vec<Outcome> = found
        .reached
        .iter()
        .filter(|r| r.method == describe)
        .map(|r| r.outcome)
        .collect();
    assert_eq!(outcomes.len(), 4, "reached {:?}", found.reached);
    let uses_factory = found.tree.covering_inputs().iter().any(|plan| {
        plan.statements.iter().any(|s| {
            matches!(s, Statement::CallStatic { class, name, .. }
                if class == "fixtures.factory.Money" && name == "of")
        })
    });
    assert!(uses_factory, "a plan builds its Money with Money.of");

    let is_large = MethodId::of("fixtures/factory/Money", "isLarge", "()Z");
    let found = explore(&mut executor, &recipes, &is_large, &options).unwrap();
    assert_eq!(found.failure, None);
    for outcome in [Outcome::Taken, Outcome::NotTaken] {
        let reached = found
            .reached
            .iter()
            .any(|r: &Goal| r.method == is_large && r.outcome == outcome);
        assert!(reached, "isLarge {outcome:?}: {:?}", found.reached);
    }
    executor.shutdown().ok();
}

#[test]
fn receivers_come_from_constants_when_nothing_else_builds_them() {
    let fixture = support::Fixture::compile("factory");
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let mut executor = fixture.executor();
    let to_whole = MethodId::of("fixtures/factory/Rounding", "toWhole", "(J)J");
    let found = explore(
        &mut executor,
        &recipes,
        &to_whole,
        &ExploreOptions::default(),
    )
    .unwrap();
    assert_eq!(found.failure, None);
    // `cents < 0` (the first branch, at offset 3 after `lcmp`) and
    // `cents % 100 >= 50` both ways: branches on the argument are steered
    // although the receiver's state is not known to the replay.
    for (offset, outcome) in [
        (3, Outcome::Taken),
        (3, Outcome::NotTaken),
        (42, Outcome::Taken),
        (42, Outcome::NotTaken),
    ] {
        let reached = found
            .reached
            .iter()
            .any(|r| r.method == to_whole && r.offset == offset && r.outcome == outcome);
        assert!(reached, "toWhole {offset} {outcome:?}: {:?}", found.reached);
    }
    let uses_constant = found.tree.covering_inputs().iter().any(|plan| {
        plan.statements.iter().any(|s| {
            matches!(s, Statement::GetField { class, name, receiver: None, .. }
                if class == "fixtures.factory.Rounding" && name == "HALF_UP")
        })
    });
    assert!(
        uses_constant,
        "a plan takes its receiver from Rounding.HALF_UP"
    );
    executor.shutdown().ok();
}
