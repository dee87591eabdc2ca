//! How fully exploring built the inputs of a class's methods: whether some
//! run called a method with every argument non-null, and which parameters
//! never got a value. A parameter that is only ever null hides every branch
//! behind it, so this is the first figure of "every type has a value".
//!
//! Read from what each method's exploration noted of the runs that got as
//! far as the call under test ([`ArgumentsGiven`]; a run whose receiver or
//! arguments could not be built does not count), which the cache keeps, so
//! a class whose explorations come from the cache gives the same figures.

use serde::{Deserialize, Serialize};

use testgen_symbolic::explore::{ArgumentsGiven, Exploration};

/// The inputs figures of one class, or of a whole run added up.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputsBuilt {
    /// Public methods and constructors under test.
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
            let ArgumentsGiven {
                called,
                all_given,
                arity,
                given,
            } = &exploration.arguments;
            if *all_given {
                built.fully_built += 1;
                continue;
            }
            built.lacking.push(Lacking {
                method: method.to_string(),
                never_called: !called,
                parameters: (0..*arity).filter(|p| !given.contains(p)).collect(),
            });
        }
        built
    }

    /// The figures of a class from its explorations by `name(descriptor)`,
    /// of the methods in `counted` (its public ones).
    pub fn of_explorations(
        explorations: &[(String, Exploration)],
        counted: &std::collections::BTreeSet<String>,
    ) -> Self {
        Self::of(
            explorations
                .iter()
                .filter(|(method, _)| counted.contains(method))
                .map(|(method, found)| (method.as_str(), found)),
        )
    }

    /// Adds another class's counts (not its list of lacking methods).
    pub fn add(&mut self, other: &InputsBuilt) {
        self.methods += other.methods;
        self.fully_built += other.fully_built;
    }
}

#[cfg(test)]
mod tests {
    use testgen_exec::{Plan, Statement, StatementOutcome, Value};

    use super::*;

    fn call(args: Vec<Value>) -> Plan {
        Plan::new(vec![
            Statement::New {
                class: "p.D".into(),
                descriptor: "()V".into(),
                args: Vec::new(),
            },
            Statement::CallStatic {
                class: "p.C".into(),
                name: "m".into(),
                descriptor: "(Ljava/lang/String;Ljava/lang/Object;I)V".into(),
                args,
            },
        ])
    }

    /// An exploration that ran each plan, each ending as `last` says.
    fn explored(runs: Vec<(Plan, StatementOutcome)>) -> Exploration {
        let mut found = Exploration::default();
        for (plan, last) in runs {
            found.arguments.note(&plan, &[StatementOutcome::Void, last]);
        }
        found
    }

    #[test]
    fn a_method_is_fully_built_when_one_call_that_ran_has_no_null_argument() {
        let string = Value::String { value: "a".into() };
        let number = Value::Int { value: 1 };
        let full_args = vec![string.clone(), Value::Ref { statement: 0 }, number.clone()];
        let full = explored(vec![(call(full_args.clone()), StatementOutcome::Void)]);
        let half = explored(vec![
            (
                call(vec![string, Value::Null, number]),
                StatementOutcome::Void,
            ),
            // Every argument, but building them failed: the call never ran.
            (call(full_args), StatementOutcome::NotRun),
        ]);
        let none = explored(Vec::new());
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
