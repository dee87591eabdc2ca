//! Code that a generated test must never be: it exits, hangs, exhausts
//! memory, writes files, leaves threads behind, prints. Each is reported,
//! and the next plan on the same Executor runs normally.

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use support::*;
use testgen_exec::{
    Access, Executor, FileMode, NetworkAction, Plan, PlanStatus, RenderedValue, StatementOutcome,
};

/// A trivial plan that must work whatever came before.
fn still_works(executor: &mut Executor) {
    let outcome = run(
        executor,
        vec![call_static("Values", "id", "(I)I", vec![int(11)])],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(value_of(&outcome, 0), &RenderedValue::Int { value: 11 });
}

#[test]
fn system_exit_is_reported_not_obeyed() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            call_static("Hostile", "exit", "(I)V", vec![int(3)]),
            call_static("Thrower", "touch", "()V", vec![]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::ExitRequested { status: 3 });
    assert_eq!(
        outcome.statements,
        [
            StatementOutcome::ExitRequested { status: 3 },
            StatementOutcome::NotRun
        ]
    );
    still_works(&mut executor);

    // Swallowing the error does not hide the exit request.
    let outcome = run(
        &mut executor,
        vec![call_static(
            "Hostile",
            "swallowExit",
            "()Ljava/lang/String;",
            vec![],
        )],
    );
    assert_eq!(outcome.status, PlanStatus::ExitRequested { status: 7 });
    if executor.info().access_monitoring {
        assert_eq!(value_of(&outcome, 0).as_str(), Some("swallowed"));
    } else {
        // Without a SecurityManager the JVM really exits; the shutdown
        // hook reports it and the executor restarts.
        assert!(outcome.restarted);
    }
    still_works(&mut executor);
}

#[test]
fn an_endless_loop_times_out() {
    let mut executor = executor();
    let started = Instant::now();
    let outcome = executor
        .run_with_timeout(
            &Plan::new(vec![
                call_static("Thrower", "touch", "()V", vec![]),
                call_static("Hostile", "spin", "()V", vec![]),
                call_static("Thrower", "touch", "()V", vec![]),
            ]),
            Duration::from_millis(300),
        )
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.status, PlanStatus::TimedOut);
    assert_eq!(
        outcome.statements,
        [
            StatementOutcome::Void,
            StatementOutcome::TimedOut,
            StatementOutcome::NotRun
        ]
    );
    assert!(outcome.restarted);
    still_works(&mut executor);
    assert_eq!(executor.jvm_starts(), 2);
}

#[test]
fn running_out_of_memory_is_reported() {
    let mut config = config();
    config.max_heap = "64m".into();
    let mut executor = Executor::start(config).unwrap();
    let outcome = run(
        &mut executor,
        vec![
            call_static("Hostile", "hog", "()I", vec![]),
            call_static("Thrower", "touch", "()V", vec![]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::OutOfMemory, "{outcome:#?}");
    let StatementOutcome::Threw { exception } = &outcome.statements[0] else {
        panic!("{outcome:#?}")
    };
    assert_eq!(exception.class, "java.lang.OutOfMemoryError");
    assert_eq!(outcome.statements[1], StatementOutcome::NotRun);
    assert!(outcome.restarted);
    still_works(&mut executor);
}

#[test]
fn file_writes_are_reported_and_stay_in_the_working_directory() {
    let mut executor = executor();
    let work_dir = executor.work_dir().unwrap().to_path_buf();
    let name = "plan-output.txt";
    let outcome = run(
        &mut executor,
        vec![call_static(
            "Hostile",
            "writeFile",
            "(Ljava/lang/String;)Ljava/lang/String;",
            vec![string(name)],
        )],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    let written = Path::new(value_of(&outcome, 0).as_str().unwrap()).to_path_buf();
    assert_eq!(written, work_dir.join(name));
    assert!(written.is_file());
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    assert!(!repo.join(name).exists());
    assert!(!Path::new(env!("CARGO_MANIFEST_DIR")).join(name).exists());

    if executor.info().access_monitoring {
        assert!(
            outcome.accesses.contains(&Access::File {
                path: written.to_string_lossy().into_owned(),
                mode: FileMode::Write
            }),
            "{:#?}",
            outcome.accesses
        );
    } else {
        assert!(outcome.accesses.is_empty());
        assert!(executor.info().access_monitoring_note.is_some());
    }

    // The next plan finds the working directory empty again.
    still_works(&mut executor);
    assert!(!written.exists());
}

#[test]
fn reading_the_programs_own_resources_is_no_access_but_reading_a_file_is() {
    let mut executor = executor();
    let own = run(
        &mut executor,
        vec![call_static("Hostile", "readOwnResource", "()I", vec![])],
    );
    assert_eq!(own.status, PlanStatus::Completed, "{own:#?}");
    assert!(
        matches!(value_of(&own, 0), RenderedValue::Int { value } if *value > 0),
        "{own:#?}"
    );
    assert!(own.accesses.is_empty(), "{:#?}", own.accesses);

    let outside = std::env::temp_dir().join(format!("testgen-read-{}.txt", std::process::id()));
    std::fs::write(&outside, "not the program's").unwrap();
    let read = run(
        &mut executor,
        vec![call_static(
            "Hostile",
            "readFile",
            "(Ljava/lang/String;)I",
            vec![string(outside.to_str().unwrap())],
        )],
    );
    std::fs::remove_file(&outside).unwrap();
    assert_eq!(read.status, PlanStatus::Completed, "{read:#?}");
    if executor.info().access_monitoring {
        assert!(
            read.accesses.contains(&Access::File {
                path: outside.to_string_lossy().into_owned(),
                mode: FileMode::Read
            }),
            "{:#?}",
            read.accesses
        );
    }
    still_works(&mut executor);
}

#[test]
fn network_access_is_reported() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![call_static("Hostile", "connectLocally", "()I", vec![])],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    let RenderedValue::Int { value: port } = value_of(&outcome, 0) else {
        panic!()
    };
    if !executor.info().access_monitoring {
        return;
    }
    let connect = outcome.accesses.iter().find_map(|access| match access {
        Access::Network {
            port: Some(p),
            action: NetworkAction::Connect,
            ..
        } => Some(*p),
        _ => None,
    });
    assert_eq!(connect, Some(*port), "{:#?}", outcome.accesses);
    assert!(
        outcome.accesses.iter().any(|a| matches!(
            a,
            Access::Network {
                action: NetworkAction::Listen,
                ..
            }
        )),
        "{:#?}",
        outcome.accesses
    );
}

#[test]
fn threads_left_running_are_reported() {
    let mut executor = executor();
    // A thread that ends by itself is no leftover.
    let outcome = run(
        &mut executor,
        vec![call_static("Hostile", "startShortThread", "()V", vec![])],
    );
    assert!(outcome.leftover_threads.is_empty());
    assert!(!outcome.restarted);

    let outcome = run(
        &mut executor,
        vec![call_static("Hostile", "startThread", "()V", vec![])],
    );
    assert_eq!(outcome.status, PlanStatus::Completed);
    assert_eq!(outcome.leftover_threads, ["never-ends"]);
    assert!(outcome.restarted, "the thread could disturb later plans");
    still_works(&mut executor);
}

#[test]
fn a_plan_that_closes_standard_output_is_reported_and_the_next_one_prints() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![call_static("Hostile", "closeStandardOutput", "()V", vec![])],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(outcome.closed_streams, ["System.out"]);
    assert_eq!(outcome.stdout.text, "last words");
    let outcome = run(
        &mut executor,
        vec![call_static(
            "Hostile",
            "print",
            "()Ljava/lang/String;",
            vec![],
        )],
    );
    assert!(outcome.closed_streams.is_empty(), "{outcome:#?}");
    assert!(outcome.stdout.text.ends_with("no newline"), "{outcome:#?}");
    assert_eq!(executor.jvm_starts(), 1);
}

#[test]
fn output_is_captured_and_the_protocol_survives() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            call_static("Hostile", "print", "()Ljava/lang/String;", vec![]),
            call_static("Hostile", "readStdin", "()I", vec![]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(value_of(&outcome, 0).as_str(), Some("printed"));
    assert_eq!(
        outcome.stdout.text,
        "{\"id\":999,\"status\":{\"kind\":\"completed\"}}\nno newline"
    );
    assert_eq!(outcome.stdout.total_bytes, 51);
    assert!(!outcome.stdout.truncated);
    assert_eq!(outcome.stderr.text, "to stderr\n");
    // The code under test reads an empty stdin, not the protocol.
    assert_eq!(value_of(&outcome, 1), &RenderedValue::Int { value: -1 });
    still_works(&mut executor);
    assert_eq!(executor.jvm_starts(), 1);
}
