//! Stage: search (DynaMOSA) for the goals the chosen plans leave open,
//! until four fifths of the class's budget are spent or `--max-evaluations`
//! plans have run. Its tests join the chosen ones.

use std::time::{Duration, Instant};

use testgen_construct::{contexts, preparing_calls};
use testgen_exec::{ExecError, LoaderChoice, Plan, PlanStatus, StatementOutcome, TraceEvent};
use testgen_search::genome::{Constants, Genome};
use testgen_search::{
    search, Evaluated, Evaluator, GoalGraph, Problem, SearchMethod, SearchOptions, Seed, Stop,
};

use super::explore::Explored;
use super::runner::PlanRunner;
use super::select::{linkage_error, Coverage};
use super::ClassJob;

/// A test search found: the method it calls and what it covers (goal ids
/// of the class, and the method's pseudo-goal).
pub struct Searched {
    /// An index into the explored methods.
    pub method: usize,
    pub plan: Plan,
    pub coverage: Coverage,
}

/// What the search stage did, for the report.
#[derive(Default)]
pub struct SearchEffort {
    pub evaluations: usize,
    pub seconds: f64,
    /// Of those, the seconds spent waiting for the executor's runs (the
    /// rest is search's own bookkeeping: fitness, ranking, making plans).
    pub executor_seconds: f64,
    /// Whether time, not the count bound or the goals, ended the search.
    pub stopped_by_time: bool,
}

/// Searches for tests of the goals `covered` (goal ids, pseudo-goals of the
/// methods included) leaves open, until `until`.
pub fn search_open_goals(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    explored: &Explored,
    covered: &Coverage,
    until: Instant,
) -> Result<(Vec<Searched>, SearchEffort), ExecError> {
    let started = Instant::now();
    let program = job.recipes.program();
    let mut methods = Vec::with_capacity(explored.methods.len());
    let mut seeds = Vec::new();
    for (method, found) in &explored.methods {
        // A method the program does not have cannot be called: its place
        // is kept (goal ids follow the explored methods' order) with no
        // way in.
        let is_static = program.is_static(method);
        let contexts = is_static
            .map(|is_static| contexts(program, method, is_static, &explored.options.contexts))
            .unwrap_or_default();
        let index = methods.len();
        let method_seeds: Vec<Seed> = found
            .seeds
            .iter()
            .filter_map(|seed| {
                Some(Seed {
                    method: index,
                    prefix: contexts.get(seed.context)?.clone(),
                    genome: Genome::from(seed.holes.clone()),
                })
            })
            .collect();
        seeds.push(method_seeds.into_iter());
        methods.push(SearchMethod {
            id: method.clone(),
            is_static: is_static.unwrap_or(true),
            calls: is_static
                .map(|is_static| preparing_calls(program, method, is_static).calls)
                .unwrap_or_default(),
            contexts,
        });
    }
    let graph = GoalGraph::of(job.file, &job.name, &job.goals);
    let problem = Problem {
        recipes: job.recipes,
        bounds: explored.options.bounds.clone(),
        goals: &job.goals,
        graph: &graph,
        methods,
        constants: Constants::of_class(job.file),
        seeds: interleaved(seeds),
    };
    let options = SearchOptions {
        max_evaluations: job.options.max_evaluations,
        seed: job.options.seed,
        ..SearchOptions::default()
    };
    // A class loader of its own per run costs loading, linking and a cold
    // JIT each time (most of a run, in a search's thousands of short
    // ones); runs of a program without static state may share one. What
    // search keeps is measured on a fresh one like every candidate.
    let loader = if job.recipes.program_keeps_static_state() {
        LoaderChoice::Fresh
    } else {
        LoaderChoice::Shared
    };
    let mut evaluator = Runs {
        job,
        runner,
        until,
        timeout: run_timeout(until.saturating_duration_since(started)),
        loader,
        executing: Duration::ZERO,
    };
    let outcome = search(&problem, covered, &options, &mut evaluator)?;
    let searched = outcome
        .found
        .into_iter()
        .map(|found| Searched {
            method: found.method,
            plan: found.plan,
            coverage: found.covers,
        })
        .collect();
    Ok((
        searched,
        SearchEffort {
            evaluations: outcome.evaluations,
            seconds: started.elapsed().as_secs_f64(),
            executor_seconds: evaluator.executing.as_secs_f64(),
            stopped_by_time: outcome.stopped == Stop::Time,
        },
    ))
}

/// The first item of each list, then the second of each, ...: the
/// concolic runs of every method get a place among the first seeds.
fn interleaved<T>(lists: Vec<impl Iterator<Item = T>>) -> Vec<T> {
    let mut lists: Vec<_> = lists.into_iter().map(Iterator::peekable).collect();
    let mut out = Vec::new();
    while lists.iter_mut().any(|list| list.peek().is_some()) {
        for list in &mut lists {
            out.extend(list.next());
        }
    }
    out
}

/// The longest one search run may take: a search runs thousands of plans
/// (a few milliseconds each once the class is loaded), and one that loops
/// (a help printer given width 0) must not take the time of hundreds. A
/// run that times out costs about a quarter of a second more: the
/// executor's JVM is restarted (commons-cli's `HelpFormatter`: 25 of 435
/// runs timed out and took 10 of the search's 12 s).
fn run_timeout(time: Duration) -> Duration {
    (time / 100).clamp(Duration::from_millis(100), Duration::from_secs(1))
}

/// Runs search's plans on the class's runner, until the search's time is
/// up.
struct Runs<'r, 'j, 'e, 'g, 'x, 'p, 'a> {
    job: &'j ClassJob<'x, 'p, 'a>,
    runner: &'r mut PlanRunner<'e, 'g>,
    until: Instant,
    timeout: Duration,
    loader: LoaderChoice,
    /// Time spent in runs so far.
    executing: Duration,
}

impl Evaluator for Runs<'_, '_, '_, '_, '_, '_, '_> {
    type Error = ExecError;

    fn evaluate(&mut self, plan: &Plan) -> Result<Option<Evaluated>, ExecError> {
        let running = Instant::now();
        let outcome = self.runner.run_limited(plan, self.timeout, self.loader);
        self.executing += running.elapsed();
        let outcome = outcome?;
        let usable = linkage_error(&outcome).is_none()
            && matches!(
                outcome.status,
                PlanStatus::Completed | PlanStatus::Exception { .. }
            );
        if !usable {
            return Ok(None);
        }
        let events = outcome
            .plan_events()
            .filter(|event| {
                matches!(
                    event,
                    TraceEvent::Branch { .. }
                        | TraceEvent::Compare { .. }
                        | TraceEvent::CallDistance { .. }
                )
            })
            .cloned()
            .collect();
        // The call under test is the plan's last statement.
        let returned = matches!(
            outcome.statements.last(),
            Some(StatementOutcome::Value { .. } | StatementOutcome::Void)
        );
        Ok(Some(Evaluated { events, returned }))
    }

    fn out_of_time(&self) -> bool {
        Instant::now() >= self.until || self.job.out_of_time()
    }
}
