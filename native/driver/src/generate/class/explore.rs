//! Stage: explore each public method and constructor of the class, or take
//! the exploration the cache kept for a method that did not change.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use testgen_classfile::access::AccessFlags;
use testgen_classfile::ClassFile;
use testgen_exec::ExecError;
use testgen_project::{Blocker, ClassName, MethodId};
use testgen_symbolic::explore::{explore_knowing, Exploration, ExploreOptions, Hangs};
use testgen_symbolic::machine::ReplayOptions;

use super::runner::PlanRunner;
use super::ClassJob;
use crate::generate::report::Effort;

/// What exploring the class's methods found, in class-file order.
pub struct Explored {
    pub methods: Vec<(MethodId, Exploration)>,
    /// The limits each method was explored within.
    pub options: ExploreOptions,
}

/// The share of a class's `--budget` that exploring may spend; the rest is
/// for running, minimising and validating the tests.
const EXPLORE_SHARE: (u32, u32) = (4, 5);

/// Explores every target of the class within its share of the budget
/// (what is left split evenly among the methods left, so that a method
/// that overshoots its part takes it from the others, not from the class),
/// reusing the explorations in `reuse` (by `name(descriptor)`). A method
/// the budget leaves no time for is not explored, and says so.
pub fn explore_methods(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_>,
    mut reuse: BTreeMap<String, Exploration>,
    effort: &mut Effort,
) -> Result<Explored, ExecError> {
    let started = Instant::now();
    let targets = targets(job.file, &job.name);
    let (share, of) = EXPLORE_SHARE;
    let exploring_budget = job.options.budget * share / of;
    let even_split = exploring_budget
        .checked_div(targets.len().max(1) as u32)
        .unwrap_or(Duration::ZERO);
    let defaults = ExploreOptions::default();
    let options = ExploreOptions {
        max_runs: job.options.max_runs_per_method,
        budget: even_split,
        replay: ReplayOptions {
            assertions: job.options.test_jvm.assertions.clone(),
            ..defaults.replay.clone()
        },
        ..defaults
    };
    let mut methods = Vec::with_capacity(targets.len());
    let mut hangs = Hangs::default();
    let count = targets.len();
    for (index, method) in targets.into_iter().enumerate() {
        if let Some(found) = reuse.remove(&method.signature()) {
            effort.methods_reused += 1;
            methods.push((method, found));
            continue;
        }
        let left = exploring_budget.saturating_sub(started.elapsed());
        let budget = left / (count - index) as u32;
        if budget.is_zero() {
            let found = Exploration {
                failure: Some(Blocker::Budget),
                ..Exploration::default()
            };
            methods.push((method, found));
            continue;
        }
        let method_options = ExploreOptions {
            budget,
            run_timeout: run_timeout(budget, options.run_timeout),
            ..options.clone()
        };
        let found = explore_knowing(
            runner.executor(),
            job.recipes,
            &method,
            &method_options,
            &mut hangs,
        )?;
        effort.runs += found.runs;
        effort.paths += found.runs;
        effort.solver_seconds += found.solver_seconds;
        effort.explore_seconds += found.seconds;
        methods.push((method, found));
    }
    effort.methods_explored = methods.len();
    Ok(Explored { methods, options })
}

/// The shortest time limit of one run while exploring: a cold class's
/// first run (loading, static initialisers, instrumented code) takes up to
/// a tenth of a second on the development machine.
const SHORTEST_RUN_TIMEOUT: Duration = Duration::from_millis(250);

/// A run may take a third of its method's time, within
/// [`SHORTEST_RUN_TIMEOUT`] and `longest`: code that loops on the inputs
/// it got (a context call among them, which every method of the class
/// runs) would otherwise spend the budget of the methods after it.
fn run_timeout(method_budget: Duration, longest: Duration) -> Duration {
    (method_budget / 3).clamp(SHORTEST_RUN_TIMEOUT, longest.max(SHORTEST_RUN_TIMEOUT))
}

/// The public methods and constructors worth a test, in class-file order.
pub fn targets(file: &ClassFile<'_>, class: &ClassName) -> Vec<MethodId> {
    let class_flags = file.access_flags;
    let is_enum = class_flags.contains(AccessFlags::ENUM);
    let mut targets = Vec::new();
    for method in &file.methods {
        let flags = method.access_flags;
        let (Ok(name), Ok(descriptor)) = (method.name(file), method.descriptor(file)) else {
            continue;
        };
        let skip = !flags.is_public()
            || flags.is_abstract()
            || flags.contains(AccessFlags::BRIDGE)
            || flags.contains(AccessFlags::SYNTHETIC)
            || flags.contains(AccessFlags::NATIVE)
            || name == "<clinit>"
            // An interface's default methods need an implementation; an
            // abstract class's instance methods run on the subclasses
            // the recipes find (or are not explorable, and say so).
            || (class_flags.is_interface() && !flags.is_static())
            || (is_enum
                && (name == "values" && descriptor.starts_with("()")
                    || name == "valueOf" && descriptor.starts_with("(Ljava/lang/String;)")));
        if !skip {
            targets.push(MethodId::new(class.clone(), name, descriptor));
        }
    }
    targets
}
