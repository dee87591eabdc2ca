//! What plans can and cannot see of each other, and of classes given with
//! `define`; verification of class files.

mod support;

use support::*;
use testgen_exec::{
    Assertions, Environment, Executor, Isolation, LoaderChoice, Plan, PlanStatus, RenderedValue,
    RunSettings, VerifyResult,
};

fn next() -> testgen_exec::Statement {
    call_static("Counter", "next", "()I", vec![])
}

#[test]
fn static_state_does_not_leak_between_plans() {
    let mut executor = executor();
    for _ in 0..2 {
        let outcome = run(&mut executor, vec![next()]);
        assert_eq!(value_of(&outcome, 0), &RenderedValue::Int { value: 1 });
    }
    // Within a plan, state carries on as in any Java program.
    let outcome = run(&mut executor, vec![next(), next()]);
    assert_eq!(value_of(&outcome, 1), &RenderedValue::Int { value: 2 });
}

#[test]
fn a_batch_shares_one_class_loader() {
    let mut executor = executor_with(Isolation::PerBatch { plans: 3 });
    let seen: Vec<RenderedValue> = (0..5)
        .map(|_| value_of(&run(&mut executor, vec![next()]), 0).clone())
        .collect();
    let ints: Vec<i32> = seen
        .iter()
        .map(|v| match v {
            RenderedValue::Int { value } => *value,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ints, [1, 2, 3, 1, 2]);
}

#[test]
fn system_properties_are_restored_between_plans() {
    let mut executor = executor_with(Isolation::PerBatch { plans: 10 });
    let get = || {
        call_static(
            "Hostile",
            "getProperty",
            "(Ljava/lang/String;)Ljava/lang/String;",
            vec![string("testgen.test")],
        )
    };
    let outcome = run(
        &mut executor,
        vec![
            call_static(
                "Hostile",
                "setProperty",
                "(Ljava/lang/String;Ljava/lang/String;)V",
                vec![string("testgen.test"), string("set")],
            ),
            get(),
        ],
    );
    assert_eq!(value_of(&outcome, 1).as_str(), Some("set"));
    let outcome = run(&mut executor, vec![get()]);
    assert_eq!(value_of(&outcome, 0), &RenderedValue::Null);
}

fn version() -> testgen_exec::Statement {
    call_static("Shadowed", "version", "()Ljava/lang/String;", vec![])
}

#[test]
fn defined_classes_override_the_classpath_and_survive_restarts() {
    let mut executor = executor_with(Isolation::PerBatch { plans: 100 });
    let outcome = run(&mut executor, vec![version()]);
    assert_eq!(value_of(&outcome, 0).as_str(), Some("classpath"));

    let name = class("Shadowed");
    let bytes = class_bytes(&fixtures().overrides, &name);
    executor.define(&[(name, bytes)]).unwrap();
    // A define starts a new class loader even within a batch.
    let outcome = run(&mut executor, vec![version()]);
    assert_eq!(value_of(&outcome, 0).as_str(), Some("defined"));

    // A plan that makes the JVM restart; the definition is sent again.
    let outcome = run(
        &mut executor,
        vec![call_static("Hostile", "startThread", "()V", vec![])],
    );
    assert!(outcome.restarted);
    let outcome = run(&mut executor, vec![version()]);
    assert_eq!(value_of(&outcome, 0).as_str(), Some("defined"));
    assert_eq!(executor.jvm_starts(), 2);
}

#[test]
fn verify_reports_each_class() {
    let mut executor = executor();
    let good_name = class("VerifyMe");
    let good = class_bytes(&fixtures().classes, &good_name);

    // identity(int) is `iload_0; ireturn`: make it `aload_0; ireturn`.
    let mut broken = good.clone();
    let at: Vec<usize> = broken
        .windows(2)
        .enumerate()
        .filter(|(_, w)| w == &[0x1a, 0xac])
        .map(|(i, _)| i)
        .collect();
    assert_eq!(at.len(), 1, "the pattern is unique");
    broken[at[0]] = 0x2a;

    let ghostly = "fixtures.executor.verify.UsesGhost".to_string();
    let ghostly_bytes = class_bytes(&fixtures().verify, &ghostly);

    let results = executor
        .verify(&[
            (good_name.clone(), good),
            (ghostly.clone(), ghostly_bytes),
            (
                "fixtures.executor.Garbage".into(),
                b"\xca\xfe\xba\xbe\0".to_vec(),
            ),
        ])
        .unwrap();
    assert_eq!(results.len(), 3);
    assert_eq!(results[0].class, good_name);
    assert_eq!(results[0].result, VerifyResult::Ok);
    let VerifyResult::LinkageError { error, message } = &results[1].result else {
        panic!("{results:#?}")
    };
    assert_eq!(error, "java.lang.NoClassDefFoundError");
    assert!(
        message.contains("fixtures/executor/verify/Ghost"),
        "{message}"
    );
    let VerifyResult::LinkageError { error, .. } = &results[2].result else {
        panic!("{results:#?}")
    };
    assert_eq!(error, "java.lang.ClassFormatError");

    let results = executor.verify(&[(good_name.clone(), broken)]).unwrap();
    let VerifyResult::VerifyError { message } = &results[0].result else {
        panic!("{results:#?}")
    };
    assert!(message.contains("identity"), "{message}");

    // Verification leaves the plans' classes alone.
    let outcome = run(
        &mut executor,
        vec![call_static("VerifyMe", "identity", "(I)I", vec![int(3)])],
    );
    assert_eq!(outcome.status, PlanStatus::Completed);
    assert_eq!(value_of(&outcome, 0), &RenderedValue::Int { value: 3 });
}

fn conditions(name: &str, args: Vec<testgen_exec::Value>) -> testgen_exec::Statement {
    let descriptor = match args.len() {
        0 => "()Ljava/lang/String;",
        1 => "(Ljava/lang/String;)Ljava/lang/String;",
        _ => "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;",
    };
    call_static("Conditions", name, descriptor, args)
}

#[test]
fn assertions_follow_the_jvm_switches() {
    let positive = || call_static("Conditions", "positive", "(I)I", vec![int(-1)]);
    let mut enabled = executor();
    let outcome = run(&mut enabled, vec![positive()]);
    assert_eq!(outcome.status, PlanStatus::Exception { statement: 0 });

    let mut config = config();
    config.assertions = Assertions::disabled();
    let mut disabled = Executor::start(config).unwrap();
    let outcome = run(&mut disabled, vec![positive()]);
    assert_eq!(value_of(&outcome, 0), &RenderedValue::Int { value: -1 });

    // A package switch of the build's options wins over the default.
    let mut config = support::config();
    config.assertions = Assertions::enabled().with_switches_from(&["-da:fixtures.executor..."]);
    let mut package_off = Executor::start(config).unwrap();
    let outcome = run(&mut package_off, vec![positive()]);
    assert_eq!(outcome.status, PlanStatus::Completed);
}

#[test]
fn a_run_can_see_another_machines_defaults_and_the_next_one_sees_ours() {
    let mut executor = executor();
    assert!(executor.info().line_separator_settable);
    let other = Environment {
        locale: Some("tr-TR".into()),
        time_zone: Some("Asia/Kathmandu".into()),
        line_separator: Some("\r\n".into()),
    };
    let plan = Plan::new(vec![
        conditions("shout", vec![string("title")]),
        conditions("locale", vec![]),
        conditions("timeZone", vec![]),
        conditions("lines", vec![string("a"), string("b")]),
    ]);
    let settings = RunSettings {
        environment: other,
        ..RunSettings::default()
    };
    let varied = executor.run_with(&plan, &settings).unwrap();
    assert_eq!(value_of(&varied, 0).as_str(), Some("T\u{130}TLE"));
    assert_eq!(value_of(&varied, 1).as_str(), Some("tr-TR"));
    assert_eq!(value_of(&varied, 2).as_str(), Some("Asia/Kathmandu"));
    assert_eq!(value_of(&varied, 3).as_str(), Some("a\r\nb"));

    let ours = executor.run(&plan).unwrap();
    assert_eq!(value_of(&ours, 0).as_str(), Some("TITLE"));
    assert_ne!(value_of(&ours, 1).as_str(), Some("tr-TR"));
    assert_ne!(value_of(&ours, 2).as_str(), Some("Asia/Kathmandu"));
    assert_eq!(value_of(&ours, 3).as_str(), Some("a\nb"));
}

#[test]
fn a_shared_loader_keeps_static_state_until_a_fresh_one_is_asked_for() {
    let mut executor = executor();
    let on = |executor: &mut Executor, loader| {
        let outcome = executor
            .run_with(
                &Plan::new(vec![next()]),
                &RunSettings {
                    loader,
                    ..RunSettings::default()
                },
            )
            .unwrap();
        value_of(&outcome, 0).clone()
    };
    assert_eq!(
        on(&mut executor, LoaderChoice::Fresh),
        RenderedValue::Int { value: 1 }
    );
    assert_eq!(
        on(&mut executor, LoaderChoice::Shared),
        RenderedValue::Int { value: 2 }
    );
    assert_eq!(
        on(&mut executor, LoaderChoice::Shared),
        RenderedValue::Int { value: 3 }
    );
    assert_eq!(
        on(&mut executor, LoaderChoice::Fresh),
        RenderedValue::Int { value: 1 }
    );
    // The configured isolation (a fresh loader per plan) is the default.
    assert_eq!(
        on(&mut executor, LoaderChoice::Configured),
        RenderedValue::Int { value: 1 }
    );
}
