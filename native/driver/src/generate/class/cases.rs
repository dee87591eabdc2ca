//! Stage: the chosen plans become test cases: each shrunk to the
//! statements it needs, run again under the same conditions and under
//! another machine's defaults, with the names of its act's parameters; then
//! the class's cases run after one another for static state.

use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::descriptor::MethodDescriptor;
use testgen_classfile::{ClassFile, Member};
use testgen_emit::{TestCase, TestClass};
use testgen_exec::{Environment, ExecError, Plan, PlanOutcome, Statement, StatementOutcome};
use testgen_project::{ClassName, MethodId, Program};

use super::readable::readable_values;
use super::runner::PlanRunner;
use super::select::{covered_ids, Chosen, Coverage};
use super::shrink::shrink;
use super::signatures::signatures_of;
use super::ClassJob;
use crate::generate::portability::{environment_reruns, share_static_state, StaticState};

/// The test class of the chosen plans, what each case covers, and what the
/// class's static state made of them.
pub struct Cases {
    pub class: TestClass,
    /// Parallel to `class.tests`.
    pub coverage: Vec<Coverage>,
    pub static_state: StaticState,
}

pub fn make_cases(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    chosen: Vec<Chosen>,
    varied: &Environment,
) -> Result<Cases, ExecError> {
    let mut tests: Vec<TestCase> = Vec::with_capacity(chosen.len());
    let mut coverage: Vec<Coverage> = Vec::with_capacity(chosen.len());
    for Chosen {
        plan,
        first,
        coverage: covered,
        also_assert,
    } in chosen
    {
        // Out of time, a test keeps the statements and values its plan had.
        let (plan, first) = if job.out_of_time() {
            (plan, first)
        } else {
            let (plan, first) = shrink(runner, plan, first, |outcome| covered_ids(job, outcome))?;
            let measure = |outcome: &PlanOutcome| covered_ids(job, outcome);
            readable_values(runner, plan, first, measure, || job.out_of_time())?
        };
        let covered: Coverage = covered.union(&covered_ids(job, &first)).copied().collect();
        // Shrinking can make two tests the same (both reduced to the call
        // that throws); one of them is enough.
        if let Some(same) = tests.iter().position(|test| test.plan == plan) {
            coverage[same].extend(covered);
            continue;
        }
        let second = runner.run(&plan)?;
        let reruns = environment_reruns(runner, &plan, varied)?;
        tests.push(TestCase {
            parameter_names: act_of(&plan, &first)
                .map(|method| parameter_names(job.recipes.program(), &method))
                .unwrap_or_default(),
            plan,
            first,
            second,
            reruns,
            erased_types: false,
            also_assert,
        });
        coverage.push(covered);
    }
    let mut class = TestClass {
        class_under_test: job.name.to_binary(),
        sha256: job.class.sha256.clone(),
        testgen_version: env!("CARGO_PKG_VERSION").to_string(),
        junit: job.options.junit,
        signatures: signatures_of(job.recipes.program(), &tests),
        tests,
        static_reset: None,
    };
    let static_state = share_static_state(runner, job.file, &mut class)?;
    Ok(Cases {
        class,
        coverage,
        static_state,
    })
}

/// The method the emitted test is about: the first statement that did not
/// complete (it becomes the act), else the last one before the observations.
pub(super) fn act_of(plan: &Plan, outcome: &PlanOutcome) -> Option<MethodId> {
    let stopped = outcome
        .statements
        .iter()
        .position(|s| !matches!(s, StatementOutcome::Value { .. } | StatementOutcome::Void));
    let last = plan.statements.iter().rposition(|s| {
        !matches!(s, Statement::CallStatic { class, name, .. }
            if class == "java.util.Objects" && name == "requireNonNull")
    });
    let (class, name, descriptor) = plan.statements.get(stopped.or(last)?)?.callee()?;
    Some(MethodId::new(ClassName::binary(class), name, descriptor))
}

/// The act's parameter names from `MethodParameters` or its local variable
/// table (javac `-g`); empty when the class file has neither.
fn parameter_names(program: &Program<'_>, method: &MethodId) -> Vec<String> {
    let Some((class, member)) = program.method(method) else {
        return Vec::new();
    };
    from_method_parameters(class, member)
        .or_else(|| from_local_variables(class, member, &method.descriptor))
        .unwrap_or_default()
}

fn from_method_parameters(class: &ClassFile<'_>, member: &Member<'_>) -> Option<Vec<String>> {
    let Ok(Some(AttributeInfo::MethodParameters(parameters))) =
        member.attribute(class, "MethodParameters")
    else {
        return None;
    };
    parameters
        .iter()
        .map(|p| {
            (p.name_index != 0)
                .then(|| class.constant_pool.utf8(p.name_index).ok())
                .flatten()
                .map(|n| n.into_owned())
        })
        .collect()
}

fn from_local_variables(
    class: &ClassFile<'_>,
    member: &Member<'_>,
    descriptor: &str,
) -> Option<Vec<String>> {
    let code = member.code(class).ok()??;
    let Ok(Some(AttributeInfo::LocalVariableTable(locals))) =
        code.attribute(class, "LocalVariableTable")
    else {
        return None;
    };
    let parsed = MethodDescriptor::parse(descriptor).ok()?;
    let mut slot: u16 = if member.access_flags.is_static() {
        0
    } else {
        1
    };
    let mut names = Vec::with_capacity(parsed.parameters.len());
    for parameter in &parsed.parameters {
        let local = locals.iter().find(|l| l.index == slot && l.start_pc == 0)?;
        names.push(
            class
                .constant_pool
                .utf8(local.name_index)
                .ok()?
                .into_owned(),
        );
        slot += u16::from(parameter.slots());
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use testgen_emit::with_state_observed;

    fn outcome(statements: Vec<StatementOutcome>) -> PlanOutcome {
        serde_json::from_value(serde_json::json!({
            "status": {"kind": "completed"},
            "statements": statements,
            "stdout": {"text": "", "total_bytes": 0, "truncated": false},
            "stderr": {"text": "", "total_bytes": 0, "truncated": false},
            "accesses": [],
            "accesses_truncated": false,
            "leftover_threads": [],
            "trace": [],
            "elapsed_micros": 0,
            "restarted": false,
        }))
        .unwrap()
    }

    #[test]
    fn the_act_is_the_statement_that_threw_else_the_last_call() {
        let new = Statement::New {
            class: "p.Account".into(),
            descriptor: "(Ljava/lang/String;J)V".into(),
            args: vec![
                testgen_exec::Value::Null,
                testgen_exec::Value::Long { value: 0 },
            ],
        };
        let deposit = Statement::Call {
            receiver: testgen_exec::Value::Ref { statement: 0 },
            class: "p.Account".into(),
            name: "deposit".into(),
            descriptor: "(J)V".into(),
            args: vec![testgen_exec::Value::Long { value: 1 }],
        };
        let plan = with_state_observed(&Plan::new(vec![new, deposit]));
        assert_eq!(plan.statements.len(), 3);
        let summary = StatementOutcome::Value {
            value: serde_json::from_value(serde_json::json!({"kind": "null"})).unwrap(),
        };
        let completed = outcome(vec![
            summary.clone(),
            StatementOutcome::Void,
            summary.clone(),
        ]);
        assert_eq!(
            act_of(&plan, &completed),
            Some(MethodId::of("p/Account", "deposit", "(J)V"))
        );
        let threw = outcome(vec![
            StatementOutcome::Invalid { reason: "x".into() },
            StatementOutcome::NotRun,
            StatementOutcome::NotRun,
        ]);
        assert_eq!(
            act_of(&plan, &threw),
            Some(MethodId::of(
                "p/Account",
                "<init>",
                "(Ljava/lang/String;J)V"
            ))
        );
    }
}
