//! Probe events of (hand-)instrumented code come back decoded, in order,
//! with their operands (the contract is PROBE_API.md; `Probed.java` calls the
//! probes the way rewritten classes will).

mod support;

use support::*;
use testgen_exec::{
    BranchOperands, CompareOperands, Executor, ExitCall, ExternalValue, PlanOutcome, PlanStatus,
    RenderedValue, Statement, StatementOutcome, ThreadTrace, TraceEvent, Value,
};

fn probed(name: &str, descriptor: &str, args: Vec<Value>) -> Statement {
    call_static("Probed", name, descriptor, args)
}

/// The plan thread's trace.
fn plan_trace(outcome: &PlanOutcome) -> &ThreadTrace {
    outcome
        .trace
        .iter()
        .find(|t| t.thread == "testgen-plan")
        .unwrap_or_else(|| panic!("no trace of the plan's thread: {outcome:#?}"))
}

fn branch(site: i32, operands: BranchOperands) -> TraceEvent {
    TraceEvent::Branch { site, operands }
}

fn compare(site: i32, operands: CompareOperands) -> TraceEvent {
    TraceEvent::Compare { site, operands }
}

fn result(site: i32, value: ExternalValue) -> TraceEvent {
    TraceEvent::ExternalResult { site, value }
}

fn statement(statement: u32) -> TraceEvent {
    TraceEvent::Statement { statement }
}

#[test]
fn branches_and_methods_in_order() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            probed("max", "(II)I", vec![int(3), int(9)]),
            probed("max", "(II)I", vec![int(i32::MIN), int(-1)]),
            probed("references", "(Ljava/lang/Object;)Z", vec![string("s")]),
            probed("references", "(Ljava/lang/Object;)Z", vec![Value::Null]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(value_of(&outcome, 0), &RenderedValue::Int { value: 9 });
    assert_eq!(outcome.trace.len(), 1, "only the plan's thread recorded");
    let trace = plan_trace(&outcome);
    assert!(!trace.truncated);
    assert_eq!(trace.dropped_events, 0);

    // The string's identity is whatever the JVM chose; learn it from the event.
    let TraceEvent::Branch {
        operands: BranchOperands::Ref { value: Some(s) },
        ..
    } = &trace.events[9]
    else {
        panic!("{:#?}", trace.events)
    };
    assert_eq!(s.class, "java.lang.String");
    assert_eq!(
        trace.events,
        [
            statement(0),
            TraceEvent::Enter { method: 1 },
            branch(10, BranchOperands::IntPair { left: 3, right: 9 }),
            TraceEvent::Exit { method: 1 },
            statement(1),
            TraceEvent::Enter { method: 1 },
            branch(
                10,
                BranchOperands::IntPair {
                    left: i32::MIN,
                    right: -1
                }
            ),
            TraceEvent::Exit { method: 1 },
            statement(2),
            branch(
                40,
                BranchOperands::Ref {
                    value: Some(s.clone())
                }
            ),
            branch(
                41,
                BranchOperands::RefPair {
                    left: Some(s.clone()),
                    right: None
                }
            ),
            statement(3),
            branch(40, BranchOperands::Ref { value: None }),
            branch(
                41,
                BranchOperands::RefPair {
                    left: None,
                    right: None
                }
            ),
        ]
    );
}

#[test]
fn comparisons_return_what_the_jvm_would() {
    let mut executor = executor();
    let nan32 = f32::NAN.to_bits();
    let nan64 = f64::NAN.to_bits();
    let outcome = run(
        &mut executor,
        vec![
            probed(
                "compareLongs",
                "(JJ)I",
                vec![Value::Long { value: 1 }, Value::Long { value: i64::MAX }],
            ),
            // fcmpl gives -1 for NaN, fcmpg +1: 10 * -1 + 1.
            probed(
                "compareFloats",
                "(FF)I",
                vec![Value::Float { bits: nan32 }, Value::float(1.0)],
            ),
            // -0.0 and 0.0 compare equal in the JVM.
            probed(
                "compareFloats",
                "(FF)I",
                vec![Value::float(-0.0), Value::float(0.0)],
            ),
            probed(
                "compareDoubles",
                "(DD)I",
                vec![Value::double(1.0), Value::Double { bits: nan64 }],
            ),
            probed(
                "compareDoubles",
                "(DD)I",
                vec![Value::double(2.0), Value::double(1.0)],
            ),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    let results: Vec<&RenderedValue> = (0..5).map(|i| value_of(&outcome, i)).collect();
    assert_eq!(
        results,
        [
            &RenderedValue::Int { value: -1 },
            &RenderedValue::Int { value: -9 },
            &RenderedValue::Int { value: 0 },
            &RenderedValue::Int { value: -9 },
            &RenderedValue::Int { value: 11 },
        ]
    );
    let one32 = 1.0f32.to_bits();
    let (one64, two64) = (1.0f64.to_bits(), 2.0f64.to_bits());
    assert_eq!(
        plan_trace(&outcome).events,
        [
            statement(0),
            TraceEvent::Enter { method: 2 },
            compare(
                20,
                CompareOperands::Lcmp {
                    left: 1,
                    right: i64::MAX
                }
            ),
            branch(21, BranchOperands::Int { value: -1 }),
            TraceEvent::Exit { method: 2 },
            statement(1),
            compare(
                30,
                CompareOperands::Fcmpl {
                    left: nan32,
                    right: one32
                }
            ),
            compare(
                31,
                CompareOperands::Fcmpg {
                    left: nan32,
                    right: one32
                }
            ),
            statement(2),
            compare(
                30,
                CompareOperands::Fcmpl {
                    left: 0x8000_0000,
                    right: 0
                }
            ),
            compare(
                31,
                CompareOperands::Fcmpg {
                    left: 0x8000_0000,
                    right: 0
                }
            ),
            statement(3),
            compare(
                32,
                CompareOperands::Dcmpl {
                    left: one64,
                    right: nan64
                }
            ),
            compare(
                33,
                CompareOperands::Dcmpg {
                    left: one64,
                    right: nan64
                }
            ),
            statement(4),
            compare(
                32,
                CompareOperands::Dcmpl {
                    left: two64,
                    right: one64
                }
            ),
            compare(
                33,
                CompareOperands::Dcmpg {
                    left: two64,
                    right: one64
                }
            ),
        ]
    );
}

#[test]
fn exceptions_and_results_of_outside_calls() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            probed("throwAndCatch", "()I", vec![]),
            probed("external", "()I", vec![]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    let events = &plan_trace(&outcome).events;
    let TraceEvent::Athrow {
        site: 50,
        exception: Some(thrown),
    } = &events[2]
    else {
        panic!("{events:#?}")
    };
    assert_eq!(thrown.class, "java.lang.IllegalStateException");
    let TraceEvent::ExternalResult {
        value: ExternalValue::Object { value: Some(tail) },
        ..
    } = &events[7]
    else {
        panic!("{events:#?}")
    };
    assert_eq!(tail.class, "java.lang.String");
    assert_eq!(
        events,
        &[
            statement(0),
            TraceEvent::Enter { method: 3 },
            TraceEvent::Athrow {
                site: 50,
                exception: Some(thrown.clone())
            },
            TraceEvent::Caught {
                site: 51,
                exception: Some(thrown.clone())
            },
            TraceEvent::Exit { method: 3 },
            statement(1),
            result(60, ExternalValue::Int { value: 3 }),
            result(
                61,
                ExternalValue::Object {
                    value: Some(tail.clone())
                }
            ),
            result(62, ExternalValue::Void),
            result(63, ExternalValue::Long { value: 1 << 40 }),
            result(
                64,
                ExternalValue::Double {
                    bits: (-0.0f64).to_bits()
                }
            ),
            result(
                65,
                ExternalValue::Float {
                    bits: f32::NAN.to_bits()
                }
            ),
            branch(66, BranchOperands::SwitchKey { key: 3 }),
        ][..]
    );
}

#[test]
fn exits_through_probes_end_the_plan() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            probed("exitThroughProbe", "(I)V", vec![int(4)]),
            probed("max", "(II)I", vec![int(1), int(2)]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::ExitRequested { status: 4 });
    assert_eq!(
        outcome.statements,
        [
            StatementOutcome::ExitRequested { status: 4 },
            StatementOutcome::NotRun
        ]
    );
    assert_eq!(
        plan_trace(&outcome).events,
        [
            statement(0),
            TraceEvent::ExitCall {
                call: ExitCall::SystemExit,
                status: 4
            }
        ]
    );
    // Swallowed, the exit request still decides the plan's status.
    let outcome = run(
        &mut executor,
        vec![probed("swallowProbeExit", "()Ljava/lang/String;", vec![])],
    );
    assert_eq!(outcome.status, PlanStatus::ExitRequested { status: 5 });
    assert_eq!(value_of(&outcome, 0).as_str(), Some("swallowed"));
    assert_eq!(
        plan_trace(&outcome).events[1],
        TraceEvent::ExitCall {
            call: ExitCall::RuntimeExit,
            status: 5
        }
    );
    // Instrumented exits never needed a restart.
    assert_eq!(executor.jvm_starts(), 1);
}

#[test]
fn other_threads_have_their_own_trace_and_getters_none() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            probed("onAnotherThread", "()I", vec![]),
            Statement::New {
                class: class("Probed"),
                descriptor: "(I)V".into(),
                args: vec![int(5)],
            },
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    let helper = outcome
        .trace
        .iter()
        .find(|t| t.thread == "probe-helper")
        .expect("the helper thread's trace");
    assert_eq!(
        helper.events,
        [
            TraceEvent::Enter { method: 70 },
            TraceEvent::Exit { method: 70 }
        ]
    );
    // getValue() ran to summarise the object, but its probes were not recorded.
    let RenderedValue::Object {
        properties: Some(properties),
        ..
    } = value_of(&outcome, 1)
    else {
        panic!()
    };
    assert_eq!(properties[0].name, "getValue");
    assert_eq!(plan_trace(&outcome).events, [statement(0), statement(1)]);
}

#[test]
fn the_event_budget_bounds_the_trace() {
    let mut config = config();
    config.trace_limit = 1000;
    let mut executor = Executor::start(config).unwrap();
    let outcome = run(&mut executor, vec![probed("loop", "(I)V", vec![int(5000)])]);
    assert_eq!(outcome.status, PlanStatus::Completed);
    let trace = plan_trace(&outcome);
    assert_eq!(trace.events.len(), 1000);
    assert_eq!(trace.dropped_events, 4001);
    assert!(trace.truncated);
    assert_eq!(
        trace.events[999],
        branch(
            80,
            BranchOperands::IntPair {
                left: 998,
                right: 5000
            }
        )
    );
}
