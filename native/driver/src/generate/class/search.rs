//! Stage: search (DynaMOSA) for the goals exploring left open, within the
//! exploring share of the budget that exploring did not use and within
//! `--max-evaluations` runs. Its tests join the selection as candidates.

use std::time::{Duration, Instant};

use testgen_construct::contexts::contexts;
use testgen_construct::template::Template;
use testgen_exec::{ExecError, Plan, PlanStatus, StatementOutcome, TraceEvent};
use testgen_project::MethodId;
use testgen_search::genome::{Constants, Genome};
use testgen_search::{search, Evaluated, Evaluator, GoalGraph, Problem, SearchOptions, Stop};

use super::explore::Explored;
use super::runner::PlanRunner;
use super::select::{linkage_error, Coverage};
use super::ClassJob;

/// A test search found: the method it calls and what it covers (goal ids
/// of the class, and the method's pseudo-goal).
pub struct Searched {
    pub method: MethodId,
    pub plan: Plan,
    pub coverage: Coverage,
}

/// What the search stage did, for the report.
#[derive(Default)]
pub struct SearchEffort {
    pub evaluations: usize,
    pub seconds: f64,
    /// Whether time, not the count bound or the goals, ended the search.
    pub stopped_by_time: bool,
}

/// Searches for tests of the goals `covered` (goal ids, pseudo-goals of the
/// methods included) leaves open, until `until`.
pub fn search_open_goals(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_>,
    explored: &Explored,
    covered: &Coverage,
    until: Instant,
) -> Result<(Vec<Searched>, SearchEffort), ExecError> {
    let started = Instant::now();
    let program = job.recipes.program();
    let methods: Vec<&MethodId> = explored.methods.iter().map(|(method, _)| method).collect();
    let mut templates = Vec::new();
    let mut method_of = Vec::new();
    // Per method, the template of each of its contexts (`None`: none made).
    let mut template_of_context: Vec<Vec<Option<usize>>> = vec![Vec::new(); methods.len()];
    for (index, method) in methods.iter().enumerate() {
        let Some(is_static) = program.is_static(method) else {
            continue;
        };
        for prefix in contexts(program, method, is_static, &explored.options.contexts) {
            let made = Template::new(
                job.recipes,
                (*method).clone(),
                is_static,
                &prefix,
                explored.options.bounds.clone(),
            );
            let made = made.ok().map(|template| {
                templates.push(template);
                method_of.push(index);
                templates.len() - 1
            });
            template_of_context[index].push(made);
        }
    }
    // The concolic runs that reached new goals, one per method in turn
    // (the first of each method's, then the second, ...).
    let mut seeds = Vec::new();
    let longest = explored
        .methods
        .iter()
        .map(|(_, found)| found.seeds.len())
        .max()
        .unwrap_or(0);
    for round in 0..longest {
        for (index, (_, found)) in explored.methods.iter().enumerate() {
            let Some(seed) = found.seeds.get(round) else {
                continue;
            };
            if let Some(Some(template)) = template_of_context[index].get(seed.context) {
                seeds.push((*template, Genome::from(seed.holes.clone())));
            }
        }
    }
    let graph = GoalGraph::of(job.file, &job.name, &job.goals);
    let problem = Problem {
        program,
        goals: &job.goals,
        graph: &graph,
        templates: &templates,
        method_of: &method_of,
        methods: methods.len(),
        constants: Constants::of_class(job.file),
        seeds,
    };
    let options = SearchOptions {
        max_evaluations: job.options.max_evaluations,
        seed: job.options.seed,
        ..SearchOptions::default()
    };
    let mut evaluator = Runs {
        job,
        runner,
        until,
        timeout: run_timeout(until.saturating_duration_since(started)),
    };
    let outcome = search(&problem, covered, &options, &mut evaluator)?;
    let searched = outcome
        .found
        .into_iter()
        .map(|found| Searched {
            method: templates[found.template].target.clone(),
            plan: found.plan,
            coverage: found.covers,
        })
        .collect();
    Ok((
        searched,
        SearchEffort {
            evaluations: outcome.evaluations,
            seconds: started.elapsed().as_secs_f64(),
            stopped_by_time: outcome.stopped == Stop::Time,
        },
    ))
}

/// The longest one search run may take: a search runs many plans, and
/// one that loops must not take the time of the rest.
fn run_timeout(time: Duration) -> Duration {
    (time / 10).clamp(Duration::from_millis(100), Duration::from_secs(2))
}

/// Runs search's plans on the class's runner, until the search's time is
/// up.
struct Runs<'r, 'j, 'e, 'x, 'p, 'a> {
    job: &'j ClassJob<'x, 'p, 'a>,
    runner: &'r mut PlanRunner<'e>,
    until: Instant,
    timeout: Duration,
}

impl Evaluator for Runs<'_, '_, '_, '_, '_, '_> {
    type Error = ExecError;

    fn evaluate(&mut self, plan: &Plan) -> Result<Option<Evaluated>, ExecError> {
        let outcome = self.runner.run_limited(plan, self.timeout)?;
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
                    TraceEvent::Branch { .. } | TraceEvent::Compare { .. }
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
