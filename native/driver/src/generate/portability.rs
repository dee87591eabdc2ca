//! Tests that pass wherever the user's build runs them. Every kept plan is
//! run again under another machine's defaults, one at a time (locale, time
//! zone, line separator), and after the class's other tests on one class
//! loader, in their order and in reverse; the emitter asserts only what
//! every run agrees on and drops a test whose act itself behaves
//! differently. When the class under test keeps static state that its tests
//! would pass on to one another, a public reset method of its own is called
//! around every test, if one makes them agree.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use testgen_analysis::{mutable_static_fields, reset_candidates, ClassAccess};
use testgen_classfile::ClassFile;
use testgen_emit::{emit, single_defaults, Cause, Rerun, StaticReset, TestClass, Validated};
use testgen_exec::{Environment, ExecError, LoaderChoice, Plan, PlanOutcome, Statement};

use super::class::runner::PlanRunner;

/// Runs `plan` again under each default of `environment` alone (the line
/// separator only where the executor can change it).
pub fn environment_reruns(
    runner: &mut PlanRunner<'_, '_>,
    plan: &Plan,
    environment: &Environment,
) -> Result<Vec<Rerun>, ExecError> {
    let settable = runner.info().line_separator_settable;
    let mut reruns = Vec::new();
    for (cause, single) in single_defaults(environment) {
        if cause == Cause::LineSeparator && !settable {
            continue;
        }
        let outcome = runner.run_with(plan, LoaderChoice::Fresh, single)?;
        reruns.push(Rerun {
            exposes: cause,
            outcome,
        });
    }
    Ok(reruns)
}

/// The class's mutable static state, and the reset used if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticState {
    /// Names of the class's mutable static fields, in declaration order.
    pub fields: Vec<String>,
    /// `name()` of the public static method called before and after every
    /// test, when one made the tests independent of one another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reset: Option<String>,
}

impl StaticState {
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.reset.is_none()
    }
}

/// At most this many reset candidates are tried.
const MAX_RESET_CANDIDATES: usize = 3;

/// Adds to each test a rerun after the class's other tests on one class
/// loader. If the tests then disagree with their first runs and a reset
/// candidate of the class under test makes them agree, it becomes the
/// class's [`TestClass::static_reset`]. Returns what the report says of the
/// class's static state.
pub fn share_static_state(
    runner: &mut PlanRunner<'_, '_>,
    file: &ClassFile<'_>,
    class: &mut TestClass,
) -> Result<StaticState, ExecError> {
    let (fields, candidates) = static_facts(file);
    let mut state = StaticState {
        fields: fields.clone(),
        reset: None,
    };
    if class.tests.is_empty() {
        return Ok(state);
    }
    let plans: Vec<Plan> = class.tests.iter().map(|t| t.plan.clone()).collect();
    let plain = shared_runs(runner, &plans, None)?;
    let with_plain = with_shared_reruns(class, plain);
    if !depends_on_static_state(&with_plain) {
        *class = with_plain;
        return Ok(state);
    }
    for method in candidates.into_iter().take(MAX_RESET_CANDIDATES) {
        let reset = Plan::new(vec![Statement::CallStatic {
            class: class.class_under_test.clone(),
            name: method.clone(),
            descriptor: "()V".into(),
            args: Vec::new(),
        }]);
        let runs = shared_runs(runner, &plans, Some(&reset))?;
        let mut trial = with_shared_reruns(class, runs);
        trial.static_reset = Some(StaticReset {
            class: class.class_under_test.clone(),
            method: method.clone(),
        });
        if !depends_on_static_state(&trial) {
            *class = trial;
            state.reset = Some(format!("{method}()"));
            return Ok(state);
        }
    }
    *class = with_plain;
    Ok(state)
}

/// The class's mutable static fields and its reset candidates (nothing
/// when the class cannot be analysed).
fn static_facts(file: &ClassFile<'_>) -> (Vec<String>, Vec<String>) {
    let Ok(access) = ClassAccess::of(file) else {
        return (Vec::new(), Vec::new());
    };
    let Ok(fields) = mutable_static_fields(file, &access) else {
        return (Vec::new(), Vec::new());
    };
    let candidates = reset_candidates(file, &access, &fields).unwrap_or_default();
    (
        fields.into_iter().map(|f| f.name).collect(),
        candidates.into_iter().map(|m| m.name).collect(),
    )
}

/// Each plan's outcome after others on one class loader: after itself
/// (after what one more test of its kind, a hand-written one say, would
/// leave behind), in the given order (after those before it) and in
/// reverse (after those after it); with `reset` run before every plan.
fn shared_runs(
    runner: &mut PlanRunner<'_, '_>,
    plans: &[Plan],
    reset: Option<&Plan>,
) -> Result<Vec<Vec<PlanOutcome>>, ExecError> {
    let mut outcomes: Vec<Vec<PlanOutcome>> = vec![Vec::new(); plans.len()];
    for (index, plan) in plans.iter().enumerate() {
        run_after(runner, plan, reset, LoaderChoice::Fresh)?;
        outcomes[index].push(run_after(runner, plan, reset, LoaderChoice::Shared)?);
    }
    if plans.len() < 2 {
        return Ok(outcomes);
    }
    let forward: Vec<usize> = (0..plans.len()).collect();
    let backward: Vec<usize> = forward.iter().rev().copied().collect();
    for order in [forward, backward] {
        for (position, &index) in order.iter().enumerate() {
            let loader = if position == 0 {
                LoaderChoice::Fresh
            } else {
                LoaderChoice::Shared
            };
            outcomes[index].push(run_after(runner, &plans[index], reset, loader)?);
        }
    }
    Ok(outcomes)
}

/// Runs `plan` (after `reset`, if any) with the first of them on `loader`
/// and the second on the same one.
fn run_after(
    runner: &mut PlanRunner<'_, '_>,
    plan: &Plan,
    reset: Option<&Plan>,
    loader: LoaderChoice,
) -> Result<PlanOutcome, ExecError> {
    let mut loader = loader;
    if let Some(reset) = reset {
        runner.run_with(reset, loader, Environment::unchanged())?;
        loader = LoaderChoice::Shared;
    }
    runner.run_with(plan, loader, Environment::unchanged())
}

/// `class` with each test's shared-loader outcomes added as reruns.
fn with_shared_reruns(class: &TestClass, runs: Vec<Vec<PlanOutcome>>) -> TestClass {
    let mut class = class.clone();
    for (test, outcomes) in class.tests.iter_mut().zip(runs) {
        test.reruns
            .retain(|rerun| rerun.exposes != Cause::StaticState);
        test.reruns
            .extend(outcomes.into_iter().map(|outcome| Rerun {
                exposes: Cause::StaticState,
                outcome,
            }));
    }
    class
}

/// Whether some test of `class` would lose an assertion, or its act,
/// because it behaved differently after the others.
fn depends_on_static_state(class: &TestClass) -> bool {
    let emitted = emit(class);
    emitted
        .skipped
        .iter()
        .any(|skipped| skipped.cause == Some(Cause::StaticState))
        || emitted
            .methods
            .iter()
            .any(|method| method.left_out.contains(&Cause::StaticState))
}

/// Tests dropped, and tests with assertions left out, so that the rest
/// pass wherever the build runs them: how many, per cause.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Portability {
    pub dropped: BTreeMap<Cause, usize>,
    pub repaired: BTreeMap<Cause, usize>,
}

impl Portability {
    /// What validation dropped and what the kept tests left out.
    pub fn of(validated: &Validated) -> Portability {
        let mut portability = Portability::default();
        for dropped in &validated.dropped {
            if let Some(cause) = dropped.cause {
                *portability.dropped.entry(cause).or_default() += 1;
            }
        }
        for method in &validated.emitted.methods {
            for &cause in &method.left_out {
                *portability.repaired.entry(cause).or_default() += 1;
            }
        }
        portability
    }

    pub fn add(&mut self, other: &Portability) {
        for (cause, count) in &other.dropped {
            *self.dropped.entry(*cause).or_default() += count;
        }
        for (cause, count) in &other.repaired {
            *self.repaired.entry(*cause).or_default() += count;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.dropped.is_empty() && self.repaired.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portability_adds_up_per_cause() {
        let mut total = Portability::default();
        let one = Portability {
            dropped: [(Cause::Locale, 1)].into_iter().collect(),
            repaired: [(Cause::StaticState, 2)].into_iter().collect(),
        };
        total.add(&one);
        total.add(&one);
        assert_eq!(total.dropped[&Cause::Locale], 2);
        assert_eq!(total.repaired[&Cause::StaticState], 4);
        let json = serde_json::to_string(&total).unwrap();
        assert_eq!(
            json,
            r#"{"dropped":{"locale":2},"repaired":{"static_state":4}}"#
        );
    }
}
