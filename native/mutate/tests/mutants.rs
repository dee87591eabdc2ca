//! Mutants are real faults: every operator finds its instructions, every
//! mutant passes our reader's checks and the JVM's verifier, and running a
//! mutant shows the changed behaviour.

use std::collections::BTreeMap;
use std::path::Path;

use testgen_classfile::ClassFile;
use testgen_exec::{
    Executor, ExecutorConfig, Plan, PlanOutcome, RenderedValue, Statement, StatementOutcome, Value,
    VerifyResult,
};
use testgen_mutate::{apply, mutations, Mutation, Operator};
use testgen_testkit::{classes_in, compile_fixture};

const OPERATORS: &str = "fixtures.mutate.Operators";

fn executor(classpath: &Path) -> Executor {
    let cache = std::env::temp_dir()
        .join("testgen-tests")
        .join("executor-cache");
    Executor::start(ExecutorConfig::new(
        "java",
        vec![classpath.to_path_buf()],
        cache,
    ))
    .expect("the executor starts")
}

fn operators_class() -> (std::path::PathBuf, Vec<u8>) {
    let compiled = compile_fixture("mutate");
    let bytes = classes_in(&compiled)
        .into_iter()
        .find(|(name, _)| name == "fixtures/mutate/Operators")
        .expect("the fixture compiles")
        .1;
    (compiled, bytes)
}

/// Makes every mutant of `bytes`, checks it with our reader and has the JVM
/// verify it; returns the failures.
fn verify_all(executor: &mut Executor, binary: &str, bytes: &[u8]) -> Vec<String> {
    let mut failures = Vec::new();
    for mutation in mutations(bytes).unwrap() {
        let mutant = match apply(bytes, &mutation) {
            Ok(mutant) => mutant,
            Err(error) => {
                failures.push(format!("{binary} {}: {error}", shown(&mutation)));
                continue;
            }
        };
        assert_ne!(mutant, bytes, "{}", shown(&mutation));
        if let Err(error) = ClassFile::parse(&mutant).and_then(|class| class.check()) {
            failures.push(format!("{binary} {}: {error}", shown(&mutation)));
            continue;
        }
        let results = executor.verify(&[(binary.to_string(), mutant)]).unwrap();
        if results[0].result != VerifyResult::Ok {
            failures.push(format!(
                "{binary} {}: {:?}",
                shown(&mutation),
                results[0].result
            ));
        }
    }
    failures
}

fn shown(mutation: &Mutation) -> String {
    format!(
        "{}{} @{} {:?}: {}",
        mutation.method_name,
        mutation.descriptor,
        mutation.offset,
        mutation.operator,
        mutation.description
    )
}

#[test]
fn every_operator_finds_its_instructions_and_every_mutant_verifies() {
    let (compiled, bytes) = operators_class();
    let found = mutations(&bytes).unwrap();
    let mut by_operator: BTreeMap<Operator, usize> = BTreeMap::new();
    for mutation in &found {
        *by_operator.entry(mutation.operator).or_default() += 1;
        assert!(mutation.line > 0, "{}", shown(mutation));
    }
    println!("{by_operator:?}");
    for operator in [
        Operator::NegateConditional,
        Operator::ConditionalBoundary,
        Operator::Math,
        Operator::InlineConstant,
        Operator::Increment,
        Operator::ReturnValue,
        Operator::VoidCall,
        Operator::FieldWrite,
    ] {
        assert!(
            by_operator.contains_key(&operator),
            "no {operator:?} mutant"
        );
    }
    // `assert` compiles to a test of $assertionsDisabled, which is left
    // alone; its own condition (entry != null) is mutated.
    let in_note: Vec<&Mutation> = found.iter().filter(|m| m.method_name == "note").collect();
    assert!(
        in_note.iter().all(|m| m.description != "ifne became ifeq"),
        "{:#?}",
        in_note.iter().map(|m| shown(m)).collect::<Vec<_>>()
    );
    assert!(in_note
        .iter()
        .any(|m| m.operator == Operator::NegateConditional));
    // `return 0` is mutated to return 1, not to the 0 it already returns.
    let zero: Vec<String> = found
        .iter()
        .filter(|m| m.method_name == "zero" && m.operator == Operator::ReturnValue)
        .map(|m| m.description.clone())
        .collect();
    assert_eq!(zero, ["returned 1 instead"]);
    // The constructor's call of Object.<init> is never removed.
    assert!(found
        .iter()
        .all(|m| !(m.method_name == "<init>" && m.operator == Operator::VoidCall)));

    let mut executor = executor(&compiled);
    let failures = verify_all(&mut executor, OPERATORS, &bytes);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_mutants_of_a_released_library_verify() {
    let jar = Path::new("/usr/share/java/commons-cli.jar");
    let mut executor = executor(jar);
    let mut mutants = 0;
    let mut failures = Vec::new();
    for (name, bytes) in testgen_testkit::installed_jar_classes(jar.to_str().unwrap()) {
        let Some(internal) = name.strip_suffix(".class") else {
            continue;
        };
        if name.starts_with("META-INF/") || internal.ends_with("module-info") {
            continue;
        }
        mutants += mutations(&bytes).unwrap().len();
        failures.extend(verify_all(
            &mut executor,
            &internal.replace('/', "."),
            &bytes,
        ));
    }
    println!("commons-cli: {mutants} mutants, {} failed", failures.len());
    assert!(mutants > 500, "{mutants} mutants");
    assert!(failures.is_empty(), "{failures:#?}");
}

fn call(receiver: Value, name: &str, descriptor: &str, args: Vec<Value>) -> Statement {
    Statement::Call {
        receiver,
        class: OPERATORS.into(),
        name: name.into(),
        descriptor: descriptor.into(),
        args,
    }
}

/// `new Operators(new ArrayList<>())`, then `statements` on it (statement 2).
fn plan_on_receiver(statements: Vec<Statement>) -> Plan {
    let mut all = vec![
        Statement::New {
            class: "java.util.ArrayList".into(),
            descriptor: "()V".into(),
            args: vec![],
        },
        Statement::New {
            class: OPERATORS.into(),
            descriptor: "(Ljava/util/List;)V".into(),
            args: vec![Value::Ref { statement: 0 }],
        },
    ];
    all.extend(statements);
    Plan::new(all)
}

fn returned(outcome: &PlanOutcome, statement: usize) -> &RenderedValue {
    match &outcome.statements[statement] {
        StatementOutcome::Value { value } => value,
        other => panic!("statement {statement}: {other:?}"),
    }
}

#[test]
fn a_mutant_behaves_differently_where_its_instruction_runs() {
    let (compiled, bytes) = operators_class();
    let mut executor = executor(&compiled);
    let receiver = Value::Ref { statement: 1 };
    let max = plan_on_receiver(vec![call(
        receiver.clone(),
        "max",
        "(II)I",
        vec![Value::Int { value: 3 }, Value::Int { value: 8 }],
    )]);
    let record = plan_on_receiver(vec![
        call(
            receiver.clone(),
            "record",
            "(Ljava/lang/String;JD)V",
            vec![
                Value::String { value: "a".into() },
                Value::Long { value: 5 },
                Value::Double {
                    bits: 2.0f64.to_bits(),
                },
            ],
        ),
        call(receiver, "total", "()J", vec![]),
    ]);
    let original_max = executor.run(&max).unwrap();
    let original_total = executor.run(&record).unwrap();
    assert_eq!(returned(&original_max, 2), &RenderedValue::Int { value: 8 });
    assert_eq!(
        returned(&original_total, 3),
        &RenderedValue::Long { value: 10 }
    );

    let found = mutations(&bytes).unwrap();
    let mutant_of = |method: &str, operator: Operator| {
        let mutation = found
            .iter()
            .find(|m| m.method_name == method && m.operator == operator)
            .unwrap_or_else(|| panic!("a {operator:?} mutant of {method}"));
        apply(&bytes, mutation).unwrap()
    };

    // max with its condition negated returns the smaller.
    executor
        .define(&[(
            OPERATORS.into(),
            mutant_of("max", Operator::NegateConditional),
        )])
        .unwrap();
    assert_eq!(
        returned(&executor.run(&max).unwrap(), 2),
        &RenderedValue::Int { value: 3 }
    );
    // record without its first void call (log.add) still totals; without
    // the call of add(amount, weight), a long and a double, nothing is added.
    let removed: Vec<&Mutation> = found
        .iter()
        .filter(|m| m.method_name == "record" && m.operator == Operator::VoidCall)
        .collect();
    assert_eq!(
        removed.len(),
        2,
        "log.add returns a boolean; add and note are void"
    );
    executor
        .define(&[(OPERATORS.into(), apply(&bytes, removed[0]).unwrap())])
        .unwrap();
    assert_eq!(
        returned(&executor.run(&record).unwrap(), 3),
        &RenderedValue::Long { value: 0 },
        "{}",
        removed[0].description
    );
    // total() returning 0 in place of the field.
    executor
        .define(&[(OPERATORS.into(), mutant_of("total", Operator::ReturnValue))])
        .unwrap();
    assert_eq!(
        returned(&executor.run(&record).unwrap(), 3),
        &RenderedValue::Long { value: 0 }
    );
    // And the original again, as the mutation stage leaves the executor.
    executor
        .define(&[(OPERATORS.into(), bytes.clone())])
        .unwrap();
    assert_eq!(
        returned(&executor.run(&max).unwrap(), 2),
        &RenderedValue::Int { value: 8 }
    );
}
