//! Stage 5: the cases emitted, compiled and run with JUnit; what passed
//! every run is kept, with what it covers.

use std::collections::BTreeSet;
use std::path::PathBuf;

use testgen_emit::{validate_and_prune, TestCase, TestClass, ValidateError, Validator};

use super::cases::Cases;
use super::select::Coverage;
use crate::generate::portability::Portability;

/// The tests that passed, ready to write.
#[derive(Debug, Default)]
pub struct Kept {
    /// The source and its path relative to `--out`; `None` when no test
    /// passed.
    pub source: Option<(PathBuf, String)>,
    pub tests: usize,
    /// javac's raw-type and unchecked warnings about `source`.
    pub javac_warnings: usize,
    /// The kept cases' model, to run again when a dependency changes.
    pub class: Option<TestClass>,
    /// What the kept tests cover together.
    pub covered: Coverage,
    /// Why the others were dropped (`method: reason`, first line).
    pub dropped: Vec<String>,
    pub portability: Portability,
}

pub fn validate(cases: &Cases, validator: &Validator) -> Result<Kept, ValidateError> {
    let mut kept = Kept::default();
    if cases.class.tests.is_empty() {
        return Ok(kept);
    }
    let validated = validate_and_prune(&cases.class, validator)?;
    for method in &validated.emitted.methods {
        kept.covered
            .extend(cases.coverage[method.case].iter().copied());
    }
    kept.portability = Portability::of(&validated);
    kept.dropped = validated
        .dropped
        .iter()
        .map(|d| {
            let reason = d.reason.lines().next().unwrap_or("");
            if d.method.is_empty() {
                reason.to_string()
            } else {
                format!("{}: {reason}", d.method)
            }
        })
        .collect();
    kept.tests = validated.emitted.methods.len();
    kept.javac_warnings = validated.warnings.len();
    if kept.tests > 0 {
        let passed: BTreeSet<usize> = validated.emitted.methods.iter().map(|m| m.case).collect();
        let mut class = cases.class.clone();
        class.tests = passed
            .into_iter()
            .map(|case| TestCase {
                erased_types: validated.erased.contains(&case),
                ..cases.class.tests[case].clone()
            })
            .collect();
        kept.class = Some(class);
        kept.source = Some((validated.emitted.path, validated.emitted.source));
    }
    Ok(kept)
}
