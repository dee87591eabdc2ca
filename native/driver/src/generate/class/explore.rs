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

/// The share of a class's `--budget` that exploring may spend: it covers
/// what it models in few runs, and then enumerates paths that cover
/// nothing new; search takes over from there.
pub const EXPLORE_SHARE: (u32, u32) = (2, 5);

/// The share of the budget that exploring and searching together may
/// spend; the rest is for running, minimising and validating the tests.
pub const GENERATE_SHARE: (u32, u32) = (4, 5);

/// [`GENERATE_SHARE`] when mutants are analysed: the next tenth of the
/// budget, [`CHOOSING_SHARE`], is theirs to choose tests.
pub const GENERATE_SHARE_WITH_MUTANTS: (u32, u32) = (7, 10);
pub const CHOOSING_SHARE: (u32, u32) = (1, 10);

/// Explores every target of the class within its share of the budget, in
/// two rounds (a quarter of the runs each, then the rest where paths are
/// left), each splitting what is left evenly among the methods left, so
/// that a method that overshoots its part takes it from the others, not
/// from the class;
/// reusing the explorations in `reuse` (by `name(descriptor)`). A method
/// the budget leaves no time for is not explored, and says so.
pub fn explore_methods(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    mut reuse: BTreeMap<String, Exploration>,
    effort: &mut Effort,
) -> Result<Explored, ExecError> {
    let started = Instant::now();
    let targets = targets(job.file, &job.name);
    // With no search after it, exploring has the time search would have.
    let (share, of) = if job.options.max_evaluations == 0 {
        GENERATE_SHARE
    } else {
        EXPLORE_SHARE
    };
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
    let mut explore_one = |method: &MethodId, budget: Duration, max_runs: usize, earlier| {
        let method_options = ExploreOptions {
            budget,
            max_runs,
            run_timeout: run_timeout(budget, options.run_timeout),
            ..options.clone()
        };
        explore_knowing(
            runner.executor(),
            job.recipes,
            method,
            &method_options,
            &mut hangs,
            earlier,
        )
    };
    // First every method its first runs, which cover most of what it can
    // reach; then the time left goes to the methods with paths left, so
    // that methods early in the class cannot take the later ones' share.
    let first_round_runs = (options.max_runs / FIRST_ROUND_PART).max(1);
    let mut explored_now = Vec::new();
    let count = targets.len();
    for (index, method) in targets.into_iter().enumerate() {
        if let Some(found) = reuse.remove(&method.signature()) {
            effort.methods_reused += 1;
            methods.push((method, found));
            continue;
        }
        let left = exploring_budget.saturating_sub(started.elapsed());
        // Every method gets a first look while the class has time, even
        // when the methods before it took exploring's share: a method
        // never called hides every branch it has, and one look costs a
        // run (commons-io's IOUtils, 250 methods in 12 s of exploring,
        // left 97 of them uncalled).
        let budget = (left / (count - index) as u32).max(FIRST_LOOK);
        let found = if job.out_of_time() {
            Exploration {
                failure: Some(Blocker::Budget),
                ..Exploration::default()
            }
        } else {
            explore_one(&method, budget, first_round_runs, Exploration::default())?
        };
        explored_now.push(methods.len());
        methods.push((method, found));
    }
    let open: Vec<usize> = explored_now
        .iter()
        .copied()
        .filter(|&index| {
            let found = &methods[index].1;
            found.failure.is_none()
                && found.runs < options.max_runs
                && found.tree.stats().unexplored > 0
        })
        .collect();
    for (k, &index) in open.iter().enumerate() {
        let left = exploring_budget.saturating_sub(started.elapsed());
        let budget = left / (open.len() - k) as u32;
        let (method, found) = &mut methods[index];
        if budget.is_zero() {
            found.blockers.insert(Blocker::Budget);
            continue;
        }
        let earlier = std::mem::take(found);
        *found = explore_one(method, budget, options.max_runs, earlier)?;
    }
    for &index in &explored_now {
        let found = &methods[index].1;
        effort.runs += found.runs;
        effort.paths += found.runs;
        effort.solver_seconds += found.solver_seconds;
        effort.explore_seconds += found.seconds;
    }
    effort.methods_explored = methods.len();
    Ok(Explored { methods, options })
}

/// The first round gives each method this part of its `--max-runs`.
const FIRST_ROUND_PART: usize = 4;

/// The least time a method's first look gets, whatever exploring's share
/// has left: enough for its first inputs and run.
const FIRST_LOOK: Duration = Duration::from_millis(50);

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

/// The methods and constructors worth a test (all but private ones), in
/// class-file order.
pub fn targets(file: &ClassFile<'_>, class: &ClassName) -> Vec<MethodId> {
    let class_flags = file.access_flags;
    let is_enum = class_flags.contains(AccessFlags::ENUM);
    let mut targets = Vec::new();
    for method in &file.methods {
        let flags = method.access_flags;
        let (Ok(name), Ok(descriptor)) = (method.name(file), method.descriptor(file)) else {
            continue;
        };
        // Generated tests live in the class's package: package-private and
        // protected members are theirs to call, private ones are not.
        let skip = flags.contains(AccessFlags::PRIVATE)
            || flags.is_abstract()
            || flags.contains(AccessFlags::BRIDGE)
            || flags.contains(AccessFlags::SYNTHETIC)
            || flags.contains(AccessFlags::NATIVE)
            || name == "<clinit>"
            // An interface's default methods need an implementation; an
            // abstract class's instance methods run on the subclasses
            // the recipes find (or are not explorable, and say so).
            || (class_flags.is_interface() && !flags.is_static())
            // An abstract class's constructor runs only as a subclass's
            // `super(..)`: no test can call it.
            || (class_flags.is_abstract() && name == "<init>")
            || (is_enum
                && (name == "values" && descriptor.starts_with("()")
                    || name == "valueOf" && descriptor.starts_with("(Ljava/lang/String;)")));
        if !skip {
            targets.push(MethodId::new(class.clone(), name, descriptor));
        }
    }
    targets
}
