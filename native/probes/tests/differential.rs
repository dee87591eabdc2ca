//! Instrumentation changes nothing the code under test can observe: the same
//! plans, run on the original and on the instrumented classes in real JVMs,
//! give the same outcomes (values, exceptions with their stack traces and
//! line numbers, exit requests, output); only the instrumented run reports
//! probe events.

use std::fs;
use std::path::Path;

use serde_json::Value as Json;
use testgen_exec::{
    BranchOperands, Executor, ExecutorConfig, Plan, PlanOutcome, PlanStatus, Statement, TraceEvent,
    Value,
};
use testgen_probes::{instrument, Instrumented, ProbeIds, SiteKind};

const MIXED: &str = "fixtures.differential.Mixed";

fn executor(classes: &Path) -> Executor {
    let cache = std::env::temp_dir()
        .join("testgen-tests")
        .join("executor-cache");
    let config = ExecutorConfig::new("java", vec![classes.to_path_buf()], cache);
    Executor::start(config).expect("the executor starts")
}

fn call(name: &str, descriptor: &str, args: Vec<Value>) -> Statement {
    Statement::CallStatic {
        class: MIXED.into(),
        name: name.into(),
        descriptor: descriptor.into(),
        args,
    }
}

fn int(value: i32) -> Value {
    Value::Int { value }
}

fn long(value: i64) -> Value {
    Value::Long { value }
}

fn plans() -> Vec<Plan> {
    let mut plans = Vec::new();
    let mut single = |statement: Statement| plans.push(Plan::new(vec![statement]));
    for x in [-5, 0, 5, 10, 15] {
        single(call("clamp", "(III)I", vec![int(x), int(0), int(10)]));
    }
    for (a, b) in [
        (0, 0),
        (i64::MIN, i64::MAX),
        (5, -5),
        (1 << 40, (1 << 40) + 1),
    ] {
        single(call("compareLongs", "(JJ)I", vec![long(a), long(b)]));
    }
    for f in [f32::NAN, 1.5, -2.0, 0.0, -0.0, f32::INFINITY] {
        single(call(
            "classifyFloat",
            "(F)Ljava/lang/String;",
            vec![Value::float(f)],
        ));
    }
    for (a, b) in [(1.0, 0.0), (1.0, f64::NAN), (3.0, 2.0), (-0.0, 5.0)] {
        single(call(
            "safeRatio",
            "(DD)D",
            vec![Value::double(a), Value::double(b)],
        ));
    }
    for d in [1, 2, 3, 100, 7, i32::MIN] {
        single(call("day", "(I)Ljava/lang/String;", vec![int(d)]));
    }
    for word in [Some("Aa"), Some("BB"), Some("zebra"), Some("x"), None] {
        let arg = word.map_or(Value::Null, Value::string);
        single(call("word", "(Ljava/lang/String;)I", vec![arg]));
    }
    for text in [
        Some("--help"),
        Some(""),
        Some("-Dx=1"),
        Some("-Dx"),
        Some("7"),
        Some("-"),
        None,
    ] {
        let arg = text.map_or(Value::Null, Value::string);
        single(call("option", "(Ljava/lang/String;)I", vec![arg]));
    }
    for (a, b) in [
        (None, None),
        (Some("a"), Some("a")),
        (Some("a"), None),
        (None, Some("b")),
    ] {
        let value = |s: Option<&str>| s.map_or(Value::Null, Value::string);
        single(call(
            "same",
            "(Ljava/lang/Object;Ljava/lang/Object;)Z",
            vec![value(a), value(b)],
        ));
    }
    for (a, b) in [(6, 3), (1, 0), (42, 7), (42, 0)] {
        single(call("divide", "(II)I", vec![int(a), int(b)]));
    }
    for limit in [0, 2, 30] {
        single(call("primes", "(I)Ljava/util/List;", vec![int(limit)]));
    }
    for status in [-1, 0, 3] {
        single(call("quit", "(I)V", vec![int(status)]));
    }
    plans.push(Plan::new(vec![
        Statement::NewArray {
            element: "I".into(),
            length: 3,
        },
        Statement::ArrayStore {
            array: Value::Ref { statement: 0 },
            index: 0,
            value: int(i32::MAX),
        },
        Statement::ArrayStore {
            array: Value::Ref { statement: 0 },
            index: 2,
            value: int(i32::MAX),
        },
        call("sum", "([I)J", vec![Value::Ref { statement: 0 }]),
    ]));
    let on_mixed = |name: &str, descriptor: &str, args: Vec<Value>| Statement::Call {
        receiver: Value::Ref { statement: 0 },
        class: MIXED.into(),
        name: name.into(),
        descriptor: descriptor.into(),
        args,
    };
    plans.push(Plan::new(vec![
        Statement::New {
            class: MIXED.into(),
            descriptor: "()V".into(),
            args: vec![],
        },
        on_mixed("count", "()I", vec![]),
        on_mixed("count", "()I", vec![]),
        on_mixed("describe", "(I)Ljava/lang/String;", vec![int(0)]),
        on_mixed("describe", "(I)Ljava/lang/String;", vec![int(5)]),
    ]));
    plans
}

/// What the code under test can observe, as JSON without identity hashes
/// (those differ from JVM to JVM, instrumented or not).
fn observable(outcome: &PlanOutcome) -> Json {
    fn strip(value: &mut Json) {
        match value {
            Json::Object(map) => {
                map.remove("identity");
                map.values_mut().for_each(strip);
            }
            Json::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let mut json = serde_json::json!({
        "status": outcome.status,
        "statements": outcome.statements,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
    });
    strip(&mut json);
    json
}

/// Events from probes (the executor's own statement markers aside).
fn probe_events(outcome: &PlanOutcome) -> usize {
    outcome
        .trace
        .iter()
        .flat_map(|thread| &thread.events)
        .filter(|event| !matches!(event, TraceEvent::Statement { .. }))
        .count()
}

/// The compiled fixture's directory and `Mixed` with probes.
fn instrumented_mixed() -> (std::path::PathBuf, Instrumented) {
    let classes = testgen_testkit::compile_fixture("differential");
    let bytes = fs::read(classes.join("fixtures/differential/Mixed.class")).unwrap();
    let instrumented = instrument(&bytes, &mut ProbeIds::default(), &|name| {
        name.starts_with("fixtures/differential/")
    })
    .unwrap();
    (classes, instrumented)
}

#[test]
fn instrumented_and_original_classes_behave_the_same() {
    let (classes, instrumented) = instrumented_mixed();
    assert!(instrumented.skipped.is_empty());

    let mut original = executor(&classes);
    let mut probed = executor(&classes);
    probed
        .define(&[(MIXED.to_string(), instrumented.bytes.clone())])
        .unwrap();

    let plans = plans();
    let (mut exits, mut exceptions, mut events) = (0, 0, 0);
    for (number, plan) in plans.iter().enumerate() {
        let expected = original.run(plan).unwrap();
        let actual = probed.run(plan).unwrap();
        assert_eq!(
            observable(&actual),
            observable(&expected),
            "plan {number}: {plan:?}"
        );
        assert_eq!(
            probe_events(&expected),
            0,
            "the original class has no probes"
        );
        let recorded = probe_events(&actual);
        assert!(recorded > 0, "plan {number} recorded no probe events");
        events += recorded;
        exits += usize::from(matches!(expected.status, PlanStatus::ExitRequested { .. }));
        exceptions += usize::from(matches!(expected.status, PlanStatus::Exception { .. }));
    }
    // The first plan is clamp(-5, 0, 10): its first branch event must name
    // the `if_icmpge` at offset 2 of clamp, with the operands -5 and 0.
    let first = probed.run(&plans[0]).unwrap();
    let (site, operands) = first
        .trace
        .iter()
        .flat_map(|thread| &thread.events)
        .find_map(|event| match event {
            TraceEvent::Branch { site, operands } => Some((*site, operands.clone())),
            _ => None,
        })
        .expect("clamp branches");
    let site = instrumented
        .sites
        .iter()
        .find(|s| s.id as i32 == site)
        .expect("a known site");
    let method = instrumented
        .methods
        .iter()
        .find(|m| m.id == site.method)
        .unwrap();
    assert_eq!((method.name.as_str(), site.offset), ("clamp", 2));
    assert_eq!(site.kind, SiteKind::Branch { opcode: 0xa2 }, "if_icmpge");
    assert_eq!(operands, BranchOperands::IntPair { left: -5, right: 0 });

    // divide(1, 0) catches its ArithmeticException and returns; divide(42, 7)
    // throws out of its finally block: an exceptional exit.
    let method_of_site = |site: i32| {
        let site = instrumented.sites.iter().find(|s| s.id as i32 == site)?;
        Some(site.method as i32)
    };
    let divide_id = instrumented
        .methods
        .iter()
        .find(|m| m.name == "divide")
        .unwrap()
        .id as i32;
    for (a, b, exceptional) in [(1, 0, false), (42, 7, true)] {
        let plan = Plan::new(vec![call("divide", "(II)I", vec![int(a), int(b)])]);
        let outcome = probed.run(&plan).unwrap();
        let exits = outcome.trace[0].method_exits(method_of_site);
        let divide = exits
            .iter()
            .find(|exit| exit.method == divide_id)
            .expect("divide ended");
        assert_eq!(
            divide.exceptional, exceptional,
            "divide({a}, {b}): {exits:?}"
        );
    }

    println!(
        "differential: {} plans agree ({exceptions} threw, {exits} asked to exit), {events} probe events",
        plans.len()
    );
    assert!(exits >= 2, "System.exit is intercepted on both sides");
    assert!(exceptions >= 2, "exceptions are compared too");
}

#[test]
fn tested_string_and_character_calls_record_how_far_they_were_from_true() {
    let (classes, instrumented) = instrumented_mixed();
    let mut probed = executor(&classes);
    probed
        .define(&[(MIXED.to_string(), instrumented.bytes.clone())])
        .unwrap();
    let mut distances = |text: &str| -> Vec<(String, f64, Option<String>)> {
        let plan = Plan::new(vec![call(
            "option",
            "(Ljava/lang/String;)I",
            vec![Value::string(text)],
        )]);
        let outcome = probed.run(&plan).unwrap();
        outcome.trace[0]
            .events
            .iter()
            .filter_map(|event| match event {
                TraceEvent::CallDistance {
                    site,
                    to_true,
                    argument,
                } => {
                    let site = instrumented.sites.iter().find(|s| s.id as i32 == *site)?;
                    let SiteKind::ExternalCall { name, .. } = &site.kind else {
                        panic!("a call distance at {site:?}")
                    };
                    Some((name.clone(), *to_true, argument.clone()))
                }
                _ => None,
            })
            .collect()
    };
    let help = Some("--help".to_string());
    // "--hel" is one character short of "--help": 1 (unequal) + 1.
    assert_eq!(
        distances("--hel"),
        [
            ("equals".into(), 2.0, help.clone()),
            ("isEmpty".into(), 5.0, None),
            ("startsWith".into(), 1.0 + 23.0 / 24.0, Some("-D".into())),
            ("isDigit".into(), 3.0, None),
            ("equals".into(), 5.0, Some("-".into())),
        ]
    );
    assert_eq!(distances("--help"), [("equals".into(), 0.0, help)]);
    // The closest window of "-Dx" to "=" is "D" (68 against 61).
    let contains = distances("-Dx");
    assert_eq!(contains[2], ("startsWith".into(), 0.0, Some("-D".into())));
    assert_eq!(
        contains[3],
        ("contains".into(), 1.0 + 7.0 / 8.0, Some("=".into()))
    );
}
