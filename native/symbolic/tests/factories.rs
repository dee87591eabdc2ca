//! Objects whose class has no public constructor are built through its
//! public static factories, both as parameters and as receivers.

mod support;

use testgen_exec::Statement;
use testgen_symbolic::explore::{explore, ExploreOptions, Reached};
use testgen_symbolic::program::MethodKey;
use testgen_symbolic::tree::Outcome;

#[test]
fn parameters_and_receivers_come_from_static_factories() {
    let fixture = support::Fixture::compile("factory");
    let program = fixture.program();
    let mut executor = fixture.executor();
    let options = ExploreOptions::default();

    let describe = MethodKey::new(
        "fixtures/factory/Wallet",
        "describe",
        "(Lfixtures/factory/Money;)Ljava/lang/String;",
    );
    let found = explore(&mut executor, &program, &describe, &options).unwrap();
    assert_eq!(found.failure, None);
    // `money == null` both ways, `cents() >= 10000` both ways.
    let outcomes: Vec<Outcome> = found
        .reached
        .iter()
        .filter(|r| r.method == describe.label())
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

    let is_large = MethodKey::new("fixtures/factory/Money", "isLarge", "()Z");
    let found = explore(&mut executor, &program, &is_large, &options).unwrap();
    assert_eq!(found.failure, None);
    for outcome in [Outcome::Taken, Outcome::NotTaken] {
        let reached = found
            .reached
            .iter()
            .any(|r: &Reached| r.method == is_large.label() && r.outcome == outcome);
        assert!(reached, "isLarge {outcome:?}: {:?}", found.reached);
    }
    executor.shutdown().ok();
}
