//! Plans per second through one executor, for a trivial static call, with a
//! fresh class loader per plan and with one loader per batch of 1,000
//! plans. The difference is what isolation costs: defining, verifying and
//! initialising the class under test again for every plan, which grows
//! with the class (`Trivial` has one method, `Values` twenty).
//!
//! Run with `cargo bench -p testgen_exec --bench plans`. Prints figures;
//! asserts nothing about speed.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use support::*;
use testgen_exec::{Executor, Isolation, Plan, PlanStatus};

const WARM_UP: Duration = Duration::from_secs(2);
const MEASURE: Duration = Duration::from_secs(4);

fn main() {
    println!(
        "plans benchmark: one static call per plan, {MEASURE:?} per case after {WARM_UP:?} of warm-up"
    );
    let trivial = Plan::new(vec![call_static(
        "Trivial",
        "increment",
        "(I)I",
        vec![int(7)],
    )]);
    let values = Plan::new(vec![call_static("Values", "id", "(I)I", vec![int(7)])]);
    let batch = Isolation::PerBatch { plans: 1000 };
    for (label, plan, isolation) in [
        ("Trivial, loader per plan", &trivial, Isolation::PerPlan),
        ("Trivial, loader per 1,000", &trivial, batch),
        ("Values, loader per plan", &values, Isolation::PerPlan),
        ("Values, loader per 1,000", &values, batch),
    ] {
        let mut executor = executor_with(isolation);
        run_for(&mut executor, plan, WARM_UP);
        let (plans, elapsed, inside) = run_for(&mut executor, plan, MEASURE);
        let per_second = plans as f64 / elapsed.as_secs_f64();
        println!(
            "  {label:<26} {per_second:>7.0} plans/s  ({:>5.1} µs per plan, {:>5.1} µs of it inside the JVM; Java {})",
            1e6 / per_second,
            inside as f64 / plans as f64,
            executor.info().java_version
        );
    }
}

/// Runs `plan` over and over for `period`; returns how many ran, how long
/// it took, and the time the JVM reported spending on them (µs).
fn run_for(executor: &mut Executor, plan: &Plan, period: Duration) -> (u64, Duration, u64) {
    let start = Instant::now();
    let mut plans = 0u64;
    let mut inside = 0u64;
    while start.elapsed() < period {
        let outcome = executor.run(plan).expect("the executor answers");
        assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
        plans += 1;
        inside += outcome.elapsed_micros;
    }
    (plans, start.elapsed(), inside)
}
