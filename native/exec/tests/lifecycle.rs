//! Starting, dying, hanging and restarting: the JVM's troubles are reported
//! on the plan that caused them and are invisible to the plans after.

mod support;

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use support::*;
use testgen_exec::{ExecError, Executor, Plan, PlanStatus, RenderedValue};

fn still_works(executor: &mut Executor) {
    let outcome = run(
        executor,
        vec![call_static("Values", "id", "(I)I", vec![int(5)])],
    );
    assert_eq!(value_of(&outcome, 0), &RenderedValue::Int { value: 5 });
}

fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn the_jvm_describes_itself() {
    let executor = executor();
    let info = executor.info().clone();
    println!("executor JVM: {info:?}");
    let release = fs::read_to_string(java_home().join("release")).unwrap();
    assert!(
        release.contains(&format!("JAVA_VERSION=\"{}\"", info.java_version)),
        "{info:?}"
    );
    assert!(!info.vm_name.is_empty());
    assert_eq!(
        info.access_monitoring,
        info.access_monitoring_note.is_none()
    );
    let feature: u32 = info
        .java_version
        .split('.')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(info.access_monitoring, feature < 24, "{info:?}");
    let work_dir = executor.work_dir().unwrap().to_path_buf();
    assert!(work_dir.starts_with(scratch_dir()));
    executor.shutdown().unwrap();
    assert!(!work_dir.exists(), "the working directory is removed");
}

#[test]
fn a_missing_java_is_a_clear_error() {
    let mut missing = config();
    missing.java = PathBuf::from("/nonexistent/bin/java");
    match Executor::start(missing) {
        Err(ExecError::Spawn { java, .. }) => {
            assert_eq!(java, PathBuf::from("/nonexistent/bin/java"))
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("started without java"),
    }
    let mut broken = config();
    broken.jvm_options = vec!["-XX:+NoSuchOption".into()];
    let Err(ExecError::Startup(reason)) = Executor::start(broken) else {
        panic!("a JVM that cannot start")
    };
    assert!(reason.contains("NoSuchOption"), "{reason}");
}

/// A `java` whose JDK version cannot be read from a `release` file: the
/// executor tries with the SecurityManager flag and, where the JVM refuses
/// it (JDK 24 and later), without.
#[test]
fn a_jdk_of_unknown_version_still_starts() {
    use std::os::unix::fs::PermissionsExt;

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("wrapped-jdk-{}", std::process::id()))
        .join("bin");
    fs::create_dir_all(&dir).unwrap();
    let wrapper = dir.join("java");
    fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec '{}' \"$@\"\n", java().display()),
    )
    .unwrap();
    fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
    let mut config = config();
    config.java = wrapper;
    // A test thread that forks while the script is open for writing keeps
    // it open in its child until that execs: "text file busy" for a moment.
    let mut executor = (0..50)
        .find_map(|_| match Executor::start(config.clone()) {
            Err(ExecError::Spawn { source, .. })
                if source.kind() == std::io::ErrorKind::ExecutableFileBusy =>
            {
                std::thread::sleep(Duration::from_millis(100));
                None
            }
            other => Some(other),
        })
        .expect("the script is free within five seconds")
        .unwrap();
    still_works(&mut executor);
    assert_eq!(
        executor.info().java_version,
        self::executor().info().java_version
    );
    fs::remove_dir_all(dir.parent().unwrap()).unwrap();
}

#[test]
fn a_jvm_crash_is_reported_and_survived() {
    let mut config = config();
    config.jvm_options = vec!["-XX:-CreateCoredumpOnCrash".into()];
    let mut executor = Executor::start(config).unwrap();
    let outcome = run(
        &mut executor,
        vec![call_static("Hostile", "crash", "()V", vec![])],
    );
    let PlanStatus::Crashed { reason } = &outcome.status else {
        panic!("{outcome:#?}")
    };
    assert!(reason.contains("fatal error"), "{reason}");
    assert!(outcome.restarted);
    still_works(&mut executor);
    assert_eq!(executor.jvm_starts(), 2);
}

#[test]
fn a_jvm_killed_between_plans_is_replaced_quietly() {
    let mut executor = executor();
    still_works(&mut executor);
    let pid = executor.jvm_pid().unwrap();
    signal(pid, "KILL");
    std::thread::sleep(Duration::from_millis(100));
    still_works(&mut executor);
    assert_eq!(executor.jvm_starts(), 2);
}

#[test]
fn a_jvm_that_stops_answering_is_replaced() {
    let mut executor = executor();
    let pid = executor.jvm_pid().unwrap();
    signal(pid, "STOP");
    let started = Instant::now();
    let outcome = executor
        .run_with_timeout(
            &Plan::new(vec![call_static("Thrower", "touch", "()V", vec![])]),
            Duration::from_millis(100),
        )
        .unwrap();
    assert_eq!(outcome.status, PlanStatus::TimedOut);
    assert!(outcome.statements.is_empty(), "the JVM could not say");
    assert!(started.elapsed() < Duration::from_secs(10));
    still_works(&mut executor);
    assert_ne!(executor.jvm_pid(), Some(pid));
}
