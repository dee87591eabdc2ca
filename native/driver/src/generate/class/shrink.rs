//! Dropping the statements a test does not need: a receiver-preparing call
//! or an argument object that changes neither what the call under test
//! does nor what the test covers only makes the test harder to read.
//!
//! Each statement that no later statement refers to is removed in turn,
//! from the last to the first; the shorter plan is run, and kept when the
//! act and the observed state after it come out the same (identity hashes
//! aside) and its coverage is not smaller.

use std::collections::BTreeSet;

use serde_json::Value as Json;
use testgen_emit::observe;
use testgen_exec::{ExecError, Plan, PlanOutcome, PlanStatus, Statement, Value};

use super::runner::PlanRunner;

/// The shortest plan found, with its outcome; `measure` gives the coverage
/// of an outcome.
pub fn shrink(
    runner: &mut PlanRunner<'_, '_>,
    plan: Plan,
    first: PlanOutcome,
    measure: impl Fn(&PlanOutcome) -> BTreeSet<u32>,
) -> Result<(Plan, PlanOutcome), ExecError> {
    let Some(act) = act_index(&plan) else {
        return Ok((plan, first));
    };
    let coverage = measure(&first);
    let expected = behaviour(&first, act);
    let (mut plan, mut first, mut act) = (plan, first, act);
    for index in (0..act).rev() {
        if is_referenced(&plan, index) {
            continue;
        }
        let trial = without(&plan, index);
        let outcome = runner.run(&trial)?;
        let usable = matches!(
            outcome.status,
            PlanStatus::Completed | PlanStatus::Exception { .. }
        );
        if usable
            && behaviour(&outcome, act - 1) == expected
            && measure(&outcome).is_superset(&coverage)
        {
            plan = trial;
            first = outcome;
            act -= 1;
        }
    }
    Ok((plan, first))
}

/// The call under test: the last statement that only observes nothing.
fn act_index(plan: &Plan) -> Option<usize> {
    plan.statements
        .iter()
        .rposition(|statement| !is_observation(statement))
}

pub(super) fn is_observation(statement: &Statement) -> bool {
    match statement {
        Statement::CallStatic { args, .. } => match args.as_slice() {
            [Value::Ref { statement: target }] => *statement == observe(*target),
            _ => false,
        },
        _ => false,
    }
}

/// What a test asserts on: the act's outcome and the observations after it,
/// without identity hashes (they differ from run to run anyway).
fn behaviour(outcome: &PlanOutcome, act: usize) -> Vec<Json> {
    outcome.statements[act.min(outcome.statements.len())..]
        .iter()
        .map(|statement| {
            let mut json = serde_json::to_value(statement).unwrap_or(Json::Null);
            strip_identities(&mut json);
            json
        })
        .collect()
}

fn strip_identities(json: &mut Json) {
    match json {
        Json::Object(map) => {
            map.remove("identity");
            // Where an exception was thrown from changes with the statement
            // numbers; its class and message do not.
            map.remove("frames");
            map.values_mut().for_each(strip_identities);
        }
        Json::Array(items) => items.iter_mut().for_each(strip_identities),
        _ => {}
    }
}

/// Whether a later statement uses the result of statement `index`.
fn is_referenced(plan: &Plan, index: usize) -> bool {
    let mut found = false;
    for statement in &plan.statements[index + 1..] {
        let mut statement = statement.clone();
        for_each_value(&mut statement, &mut |value| {
            if *value == (Value::Ref { statement: index }) {
                found = true;
            }
        });
    }
    found
}

/// `plan` without statement `index`; later references shift down by one.
fn without(plan: &Plan, index: usize) -> Plan {
    let mut shorter = plan.clone();
    shorter.statements.remove(index);
    for statement in &mut shorter.statements[index..] {
        for_each_value(statement, &mut |value| {
            if let Value::Ref { statement } = value {
                if *statement > index {
                    *statement -= 1;
                }
            }
        });
    }
    shorter
}

/// Visits every value `statement` passes, receivers included, in a fixed
/// order.
pub(super) fn for_each_value(statement: &mut Statement, visit: &mut impl FnMut(&mut Value)) {
    match statement {
        Statement::New { args, .. } | Statement::CallStatic { args, .. } => {
            args.iter_mut().for_each(visit)
        }
        Statement::Call { receiver, args, .. } => {
            visit(receiver);
            args.iter_mut().for_each(visit);
        }
        Statement::GetField { receiver, .. } => receiver.iter_mut().for_each(visit),
        Statement::PutField {
            receiver, value, ..
        } => {
            receiver.iter_mut().for_each(&mut *visit);
            visit(value);
        }
        Statement::NewArray { .. } => {}
        Statement::ArrayStore { array, value, .. } => {
            visit(array);
            visit(value);
        }
        Statement::Lambda { result, .. } => result.iter_mut().for_each(visit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(receiver: usize, name: &str) -> Statement {
        Statement::Call {
            receiver: Value::Ref {
                statement: receiver,
            },
            class: "a.B".into(),
            name: name.into(),
            descriptor: "()V".into(),
            args: Vec::new(),
        }
    }

    #[test]
    fn removing_a_statement_renumbers_later_references() {
        let plan = Plan::new(vec![
            Statement::New {
                class: "a.B".into(),
                descriptor: "()V".into(),
                args: Vec::new(),
            },
            Statement::NewArray {
                element: "I".into(),
                length: 1,
            },
            call(0, "act"),
            observe(0),
        ]);
        assert_eq!(act_index(&plan), Some(2));
        assert!(is_referenced(&plan, 0));
        assert!(!is_referenced(&plan, 1));
        let shorter = without(&plan, 1);
        assert_eq!(shorter.statements[1], call(0, "act"));
        assert_eq!(shorter.statements[2], observe(0));
        assert_eq!(act_index(&shorter), Some(1));
    }
}
