//! How fully exploring built the inputs of a class's methods: whether some
//! run called a method with every argument non-null, and which parameters
//! never got a value. A parameter that is only ever null hides every branch
//! behind it, so this is the first figure of "every type has a value".
//!
//! Read from the plans at the covered leaves of each method's exploration
//! (the call under test is a plan's last statement), so a class whose
//! explorations come from the cache gives the same figures.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use testgen_exec::{Plan, Statement, Value};
use testgen_symbolic::explore::Exploration;

/// The inputs figures of one class, or of a whole run added up.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputsBuilt {
    /// Methods and constructors under test.
    pub methods: usize,
    /// Of those, the ones some run called with every argument non-null.
    pub fully_built: usize,
    /// The others, in class-file order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lacking: Vec<Lacking>,
}

/// A method no run called with every argument non-null.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lacking {
    /// `name(descriptor)`.
    pub method: String,
    /// No run called it at all (no receiver was built, or exploring it
    /// failed).
    pub never_called: bool,
    /// Parameters (from 0) that were null in every run that called it.
    pub parameters: Vec<usize>,
}

impl InputsBuilt {
    /// The figures of a class from what exploring each of its methods found
    /// (`name(descriptor)` and exploration, in class-file order).
    pub fn of<'e>(explorations: impl IntoIterator<Item = (&'e str, &'e Exploration)>) -> Self {
        let mut built = InputsBuilt::default();
        for (method, exploration) in explorations {
            built.methods += 1;
            let calls: Vec<&[Value]> = exploration
                .tree
                .covering_inputs()
                .into_iter()
                .filter_map(call_arguments)
                .collect();
            if calls
                .iter()
                .any(|args| args.iter().all(|arg| *arg != Value::Null))
            {
                built.fully_built += 1;
                continue;
            }
            let given: BTreeSet<usize> = calls
                .iter()
                .flat_map(|args| {
                    args.iter()
                        .enumerate()
                        .filter(|(_, arg)| **arg != Value::Null)
                        .map(|(position, _)| position)
                })
                .collect();
            let arity = calls.first().map_or(0, |args| args.len());
            built.lacking.push(Lacking {
                method: method.to_string(),
                never_called: calls.is_empty(),
                parameters: (0..arity).filter(|p| !given.contains(p)).collect(),
            });
        }
        built
    }

    /// The figures of a class from its explorations by `name(descriptor)`.
    pub fn of_explorations(explorations: &[(String, Exploration)]) -> Self {
        Self::of(
            explorations
                .iter()
                .map(|(method, found)| (method.as_str(), found)),
        )
    }

    /// Adds another class's counts (not its list of lacking methods).
    pub fn add(&mut self, other: &InputsBuilt) {
        self.methods += other.methods;
        self.fully_built += other.fully_built;
    }
}

/// The arguments of the call under test: the last statement of the plan.
fn call_arguments(plan: &Plan) -> Option<&[Value]> {
    match plan.statements.last()? {
        Statement::New { args, .. }
        | Statement::CallStatic { args, .. }
        | Statement::Call { args, .. } => Some(args),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use testgen_symbolic::tree::{ConstraintTree, Leaf};

    use super::*;

    fn call(args: Vec<Value>) -> Plan {
        Plan::new(vec![Statement::CallStatic {
            class: "p.C".into(),
            name: "m".into(),
            descriptor: "(Ljava/lang/String;Ljava/lang/Object;I)V".into(),
            args,
        }])
    }

    /// An exploration with one covered path (or none) that ran `plan`.
    fn explored(plan: Option<Plan>) -> Exploration {
        let mut tree = ConstraintTree::new();
        if let Some(plan) = plan {
            tree.settle(ConstraintTree::<Plan>::ROOT, Leaf::Covered { inputs: plan });
        }
        Exploration {
            tree,
            ..Exploration::default()
        }
    }

    #[test]
    fn a_method_is_fully_built_when_one_run_has_no_null_argument() {
        let string = Value::String { value: "a".into() };
        let number = Value::Int { value: 1 };
        let full = explored(Some(call(vec![
            string.clone(),
            Value::Ref { statement: 0 },
            number.clone(),
        ])));
        let half = explored(Some(call(vec![string, Value::Null, number])));
        let none = explored(None);
        let built = InputsBuilt::of([("m(full)", &full), ("m(half)", &half), ("m(none)", &none)]);
        assert_eq!(built.methods, 3);
        assert_eq!(built.fully_built, 1);
        assert_eq!(
            built.lacking,
            vec![
                Lacking {
                    method: "m(half)".into(),
                    never_called: false,
                    parameters: vec![1],
                },
                Lacking {
                    method: "m(none)".into(),
                    never_called: true,
                    parameters: Vec::new(),
                },
            ]
        );
    }
}
