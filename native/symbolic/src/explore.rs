//! The concolic loop for one method: build inputs, run the plan on the
//! executor, replay the run symbolically, record the path in the method's
//! constraint tree, pick an unexplored leaf, solve its path for new inputs,
//! and so on until nothing is left or the budget is spent.
//!
//! An instance method is explored in several *contexts*: the receiver made
//! by a constructor alone, or followed by short sequences of the class's
//! other public methods (the JTestCraft thesis' candidate sequences), so
//! that state only a sequence reaches (a coin box with two quarters) is
//! reachable. The context is the first decision of every path, so one tree
//! holds them all.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use testgen_construct::{contexts, ContextBounds, Recipes, TemplateError};
use testgen_exec::{ExecError, Executor, Plan, PlanOutcome, PlanStatus, TraceEvent};
use testgen_project::{reached, Blocker, Goal, MethodId};
use z3::{Params, SatResult, Solver};

use crate::encode::{special_values, InputBounds, InputModel, Valuation};
use crate::machine::{replay, ReplayOptions, Replayed};
use crate::tree::{
    Alternative, ConstraintTree, Decision, Leaf, Location, Node, NodeId, Outcome, Step,
};

/// Limits of exploring one method. The counted limits (runs, queries, the
/// solver's resource limit) make results reproducible on any machine; the
/// times are safety nets for a slow or overloaded one.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    /// Runs of the method at most.
    pub max_runs: usize,
    /// Solver queries at most.
    pub max_queries: usize,
    /// z3's deterministic resource limit per query (about 1.4 million units
    /// per second on the development machine).
    pub solver_rlimit: u32,
    /// Time for the whole method.
    pub budget: Duration,
    /// Time for one solver query.
    pub solver_timeout: Duration,
    /// Time for one run of the method (a loop that does not end).
    pub run_timeout: Duration,
    pub replay: ReplayOptions,
    pub bounds: InputBounds,
    /// The receiver-preparing call sequences (contexts) tried.
    pub contexts: ContextBounds,
    /// Keep every run's inputs and trace ([`Exploration::recorded`]), for
    /// replay tests that need no JVM.
    pub record: bool,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            max_runs: 200,
            max_queries: 300,
            solver_rlimit: 4_000_000,
            budget: Duration::from_secs(20),
            solver_timeout: Duration::from_secs(10),
            run_timeout: Duration::from_secs(2),
            replay: ReplayOptions::default(),
            bounds: InputBounds::default(),
            contexts: ContextBounds::default(),
            record: false,
        }
    }
}

/// The version of [`Exploration`]'s serialised form, stored with it (the
/// driver's cache): bumped whenever that form or its meaning changes, so
/// that an exploration written by another testgen is explored again rather
/// than misread. `tests/replay_recorded.rs` holds it to a recorded sample.
pub const EXPLORATION_FORMAT: u32 = 4;

/// What exploring found, with the self-check figures.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Exploration {
    pub tree: ConstraintTree<Plan>,
    /// The receiver-preparing calls of each context, by index.
    pub contexts: Vec<Vec<MethodId>>,
    pub runs: usize,
    /// Runs whose inputs came from the solver, aimed at an unexplored leaf.
    pub predicted: usize,
    /// Of those, runs that took the predicted path.
    pub agreed: usize,
    pub solver_queries: usize,
    /// Seconds spent in the solver.
    pub solver_seconds: f64,
    pub seconds: f64,
    /// Every branch outcome the probes reported, in any method of the program.
    pub reached: BTreeSet<Goal>,
    /// The outcomes among `reached` that only runs which did not finish in
    /// time reached: no test can take them that way.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub reached_by_hung_runs: BTreeSet<Goal>,
    /// Which arguments the runs that got as far as calling the method
    /// under test gave it.
    pub arguments: ArgumentsGiven,
    /// Outcomes the solver proved unreachable on every path that leads to
    /// them, in a tree explored to the end.
    pub infeasible: BTreeSet<Goal>,
    /// Outcomes unreachable on every path explored, where exploring stopped
    /// (runs, queries or time) before the tree was finished: other paths or
    /// contexts might still reach them.
    pub infeasible_so_far: BTreeSet<Goal>,
    /// Sets of clauses proven contradictory, to settle the same question on
    /// other paths without the solver.
    #[serde(skip)]
    pub unsat_slices: BTreeSet<Vec<String>>,
    /// Every decision a replay saw taken, including implicit exceptions.
    #[serde(skip)]
    pub decided: BTreeSet<Goal>,
    /// What kept replays from following paths to the end: why a replay
    /// stopped early, where a loop bound cut alternatives (each once).
    pub blockers: BTreeSet<Blocker>,
    /// Why the method could not be explored at all, if so.
    pub failure: Option<Blocker>,
    /// Every run, when [`ExploreOptions::record`] asked for them.
    #[serde(skip)]
    pub recorded: Vec<RecordedRun>,
    /// The clause choosing the way of building the receiver that let the
    /// call run after the first way threw (see `next_receiver_way`), for
    /// the rest of the exploration (its second round too).
    #[serde(skip)]
    pub receiver_way: Option<String>,
    /// The inputs of the runs that reached a goal no earlier run had, for
    /// a search to start from (not cached: a reused exploration has none).
    #[serde(skip)]
    pub seeds: Vec<Seed>,
}

impl Exploration {
    /// The outcomes of [`Exploration::infeasible`] that stay proven when no
    /// proof may go through a branch `approximate` names (one whose clauses
    /// hold for the objects exploring built, not for every object: the
    /// caller knows which those are).
    pub fn infeasible_unless(&self, approximate: impl Fn(&Location) -> bool) -> BTreeSet<Goal> {
        infeasible_outcomes(&self.tree, &self.reached, approximate)
            .intersection(&self.infeasible)
            .cloned()
            .collect()
    }
}

/// One run's inputs: its context (an index into `contexts`) and the values
/// the solver put in that context's template's holes.
#[derive(Clone, Debug)]
pub struct Seed {
    pub context: usize,
    pub holes: testgen_construct::FilledHoles,
}

/// Seeds kept per method at most.
const MAX_SEEDS: usize = 32;

/// Which arguments the runs that called a method gave it: a run whose
/// building of the receiver or arguments failed does not count.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentsGiven {
    /// Some run called the method.
    pub called: bool,
    /// Some run called it with no argument null.
    pub all_given: bool,
    /// The method's parameters.
    pub arity: usize,
    /// The parameters (from 0) some run gave a value other than null.
    pub given: BTreeSet<usize>,
}

impl ArgumentsGiven {
    /// Notes one run of `plan` (the call under test last) that ended as
    /// `statements` say, if the call under test ran (completed, threw or
    /// ran out of time).
    pub fn note(&mut self, plan: &Plan, statements: &[testgen_exec::StatementOutcome]) {
        use testgen_exec::{Statement, StatementOutcome, Value};
        let Some(last) = plan.statements.last() else {
            return;
        };
        let (Statement::New { args, .. }
        | Statement::CallStatic { args, .. }
        | Statement::Call { args, .. }) = last
        else {
            return;
        };
        let ran = matches!(
            statements.get(plan.statements.len() - 1),
            Some(
                StatementOutcome::Value { .. }
                    | StatementOutcome::Void
                    | StatementOutcome::Threw { .. }
                    | StatementOutcome::ExitRequested { .. }
                    | StatementOutcome::TimedOut
            )
        );
        if !ran {
            return;
        }
        self.called = true;
        self.arity = args.len();
        let given: Vec<usize> = (0..args.len())
            .filter(|&i| args[i] != Value::Null)
            .collect();
        self.all_given |= given.len() == args.len();
        self.given.extend(given);
    }
}

/// One run of an exploration, as a replay needs it: which context, the
/// inputs (assertions that pin the solver's variables) and the trace of the
/// plan's thread. With the program's classes this is enough to replay the
/// run again without a JVM ([`replay_recorded`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordedRun {
    pub method: MethodId,
    pub context: usize,
    /// An SMT-LIB script that pins every variable ([`Valuation::pinned`]).
    pub inputs: String,
    /// The plan that ran, which the inputs must give again.
    pub plan: Plan,
    pub events: Vec<TraceEvent>,
}

/// Plan prefixes seen to hang: statements before the call under test that
/// ran until the time limit stopped them. The methods of one class share
/// their contexts, so a context call that loops on the inputs the solver
/// first gives it would cost every method a run timeout; with this, only
/// the first.
#[derive(Clone, Debug, Default)]
pub struct Hangs {
    prefixes: Vec<Vec<testgen_exec::Statement>>,
}

impl Hangs {
    /// Notes where `plan` hung, if a statement before its last one did.
    fn note(&mut self, plan: &Plan, outcome: &PlanOutcome) {
        let hung = outcome
            .statements
            .iter()
            .position(|s| *s == testgen_exec::StatementOutcome::TimedOut);
        if let Some(at) = hung.filter(|&at| at + 1 < plan.statements.len()) {
            self.prefixes.push(plan.statements[..=at].to_vec());
        }
    }

    /// Whether `plan` starts with statements seen to hang (the same calls
    /// with the same arguments on fresh objects: they would hang again).
    fn known(&self, plan: &Plan) -> bool {
        self.prefixes
            .iter()
            .any(|prefix| plan.statements.starts_with(prefix))
    }
}

/// Explores `target`'s paths, building its inputs from `recipes`.
pub fn explore(
    executor: &mut Executor,
    recipes: &Recipes<'_, '_>,
    target: &MethodId,
    options: &ExploreOptions,
) -> Result<Exploration, ExecError> {
    explore_knowing(
        executor,
        recipes,
        target,
        options,
        &mut Hangs::default(),
        Exploration::default(),
    )
}

/// [`explore`], skipping the runs whose plans start with a prefix in
/// `hangs` and adding the prefixes that hang to it. Exploring goes on from
/// `earlier` (an exploration of the same method with the same options,
/// stopped by its runs or time), and its limits count what it spent.
pub fn explore_knowing(
    executor: &mut Executor,
    recipes: &Recipes<'_, '_>,
    target: &MethodId,
    options: &ExploreOptions,
    hangs: &mut Hangs,
    earlier: Exploration,
) -> Result<Exploration, ExecError> {
    // A z3 context of its own: the models z3 finds depend on the terms a
    // context has seen before, so a shared context would make the inputs
    // depend on which methods this thread explored earlier.
    // The executor is not `Sync`, which z3's scoped context asks of the
    // closure; a mutex makes the borrow shareable (nothing else locks it).
    let executor = std::sync::Mutex::new(executor);
    z3::with_z3_config(&z3::Config::new(), || {
        let mut executor = executor.lock().unwrap_or_else(|e| e.into_inner());
        explore_in_fresh_context(&mut executor, recipes, target, options, hangs, earlier)
    })
}

fn explore_in_fresh_context(
    executor: &mut Executor,
    recipes: &Recipes<'_, '_>,
    target: &MethodId,
    options: &ExploreOptions,
    hangs: &mut Hangs,
    earlier: Exploration,
) -> Result<Exploration, ExecError> {
    let program = recipes.program();
    let started = Instant::now();
    let resumed = earlier.runs > 0;
    let mut found = earlier;
    let Some(is_static) = program.is_static(target) else {
        found.failure = Some(Blocker::NotExplorable {
            reason: format!("{target} is not in the program"),
        });
        return Ok(found);
    };
    found.contexts = contexts(program, target, is_static, &options.contexts);
    let models: Vec<InputModel> = match found
        .contexts
        .iter()
        .map(|prefix| {
            InputModel::new(
                recipes,
                target.clone(),
                is_static,
                prefix,
                options.bounds.clone(),
            )
        })
        .collect::<Result<_, _>>()
    {
        Ok(models) => models,
        Err(error) => {
            found.failure = Some(match error {
                TemplateError::ObjectNotBuilt { class } => Blocker::ObjectNotBuilt { class },
                other => Blocker::NotExplorable {
                    reason: other.to_string(),
                },
            });
            return Ok(found);
        }
    };
    let mut receiver_ways_tried = 0;
    // The way of building the receiver on trial (see `receiver_way`).
    let mut way_on_trial: Option<String> = None;
    let mut next = if resumed {
        next_inputs(&mut found, &models, options, started)
    } else {
        first_inputs(&models[0], options, started, &mut found)
    };
    while let Some((context, valuation, aimed)) = next.take() {
        if found.runs >= options.max_runs {
            break;
        }
        // A method's first inputs always run: its budget is for the paths
        // after them.
        if found.runs > 0 && started.elapsed() >= options.budget {
            // Paths were left open for want of time.
            found.blockers.insert(Blocker::Budget);
            break;
        }
        let realised = models[context].realise(&valuation);
        if let Some(leaf) = aimed.filter(|_| hangs.known(&realised.plan)) {
            found.tree.settle(leaf, Leaf::Hung);
            found.blockers.insert(Blocker::RunHung);
            next = next_inputs(&mut found, &models, options, started);
            continue;
        }
        let outcome = executor.run_with_timeout(&realised.plan, options.run_timeout)?;
        hangs.note(&realised.plan, &outcome);
        found.runs += 1;
        found.arguments.note(&realised.plan, &outcome.statements);
        let building_threw = building_threw(target, &realised.plan, &outcome);
        if let Some(way) = way_on_trial.take() {
            if reached_the_call(&realised.plan, &outcome) {
                found.receiver_way = Some(way);
            }
        }
        let events = plan_events(&outcome);
        let goals = reached(program, &events);
        if outcome.status == PlanStatus::TimedOut {
            let new = goals
                .difference(&found.reached)
                .cloned()
                .collect::<Vec<_>>();
            found.reached_by_hung_runs.extend(new);
        } else {
            found
                .reached_by_hung_runs
                .retain(|goal| !goals.contains(goal));
            let reached_more = goals.iter().any(|goal| !found.reached.contains(goal));
            if reached_more && found.seeds.len() < MAX_SEEDS {
                found.seeds.push(Seed {
                    context,
                    holes: testgen_construct::FilledHoles::capture(
                        &models[context].template,
                        &valuation,
                    ),
                });
            }
        }
        found.reached.extend(goals);
        let replayed = replay(
            program,
            recipes.hierarchy(),
            &realised.acts,
            &events,
            &valuation,
            &options.replay,
        );
        if options.record {
            found.recorded.push(RecordedRun {
                method: target.clone(),
                context,
                inputs: valuation.pinned(),
                plan: realised.plan.clone(),
                events: events.clone(),
            });
        }
        found.blockers.extend(replayed.stopped);
        found.blockers.extend(
            replayed
                .loop_bounds
                .into_iter()
                .map(|at| Blocker::LoopBound { at }),
        );
        let mut steps = Vec::with_capacity(replayed.steps.len() + 1);
        if found.contexts.len() > 1 {
            steps.push(context_step(context, found.contexts.len()));
        }
        for step in &replayed.steps {
            found.decided.extend(step.taken.at.goal(step.taken.outcome));
        }
        steps.extend(replayed.steps);
        if outcome.status == PlanStatus::TimedOut {
            found.tree.record_hung(&steps);
            found.blockers.insert(Blocker::RunHung);
        } else {
            found.tree.record(&steps, realised.plan);
        }
        if let Some(leaf) = aimed {
            found.predicted += 1;
            match found.tree.node(leaf) {
                // The run was stopped before it got there: the path is
                // not known to differ from the prediction.
                Node::Leaf(Leaf::Unexplored) if outcome.status == PlanStatus::TimedOut => {
                    found.tree.settle(leaf, Leaf::Hung);
                }
                Node::Leaf(Leaf::Unexplored) => {
                    // The run did not take the path it was solved for: the
                    // leaf depends on something not modelled.
                    let blocker = found.tree.settle_not_modelled(leaf);
                    found.blockers.insert(blocker);
                }
                _ => found.agreed += 1,
            }
        }
        if !found.arguments.called && building_threw {
            // Building the receiver threw, on a check the path cannot
            // model (a JDK call refused the algorithm name the solver
            // gave): the receiver's other ways get a run each, before the
            // tree is followed further.
            if let Some((way, valuation)) = next_receiver_way(
                &models[context],
                &mut receiver_ways_tried,
                options,
                started,
                &mut found,
            ) {
                way_on_trial = Some(way);
                next = Some((context, valuation, None));
                continue;
            }
        }
        next = next_inputs(&mut found, &models, options, started);
    }
    settle_from_known_slices(&mut found);
    let infeasible = infeasible_outcomes(&found.tree, &found.reached, |_| false);
    if found.tree.stats().unexplored == 0 {
        found.infeasible = infeasible;
    } else {
        found.infeasible_so_far = infeasible;
    }
    found.seconds += started.elapsed().as_secs_f64();
    Ok(found)
}

/// The inputs of the first run: any that meet the inputs' own constraints.
fn first_inputs(
    model: &InputModel,
    options: &ExploreOptions,
    started: Instant,
    found: &mut Exploration,
) -> Option<(usize, Valuation, Option<NodeId>)> {
    let preferred = preferences(found, model);
    if !preferred.is_empty() {
        if let Solved::Inputs(valuation) =
            solve(model, "", &preferred, limits(options, started), found)
        {
            return Some((0, valuation, None));
        }
    }
    match solve(model, "", &[], limits(options, started), found) {
        Solved::Inputs(valuation) => Some((0usize, valuation, None)),
        Solved::Infeasible => {
            found.failure = Some(Blocker::NotExplorable {
                reason: "the inputs' own constraints have no solution".into(),
            });
            None
        }
        // Undecided is not unsatisfiable: the method was not explored for
        // want of time or of the solver's effort, and says which.
        Solved::Unknown if started.elapsed() >= options.budget => {
            found.failure = Some(Blocker::Budget);
            None
        }
        Solved::Unknown => {
            found.failure = Some(Blocker::SolverUnknown);
            None
        }
    }
}

/// Why a recorded run cannot be replayed in this program.
#[derive(Debug, thiserror::Error)]
pub enum RecordedRunError {
    #[error("{0} is not in the program")]
    NotInProgram(MethodId),
    #[error("{method} has no context {context}")]
    NoContext { method: MethodId, context: usize },
    #[error("no template for {0}: {1}")]
    Template(MethodId, Box<TemplateError>),
    #[error("the recorded inputs of {0} do not read or do not solve")]
    InputsUnsolvable(MethodId),
    #[error("the recorded inputs of {0} no longer make the plan that ran")]
    PlanDiffers(MethodId),
}

/// Replays a recorded run as exploring replayed it: the same context and
/// template, the inputs solved back from the record, the recorded trace.
pub fn replay_recorded(
    recipes: &Recipes<'_, '_>,
    run: &RecordedRun,
    options: &ExploreOptions,
) -> Result<Replayed, RecordedRunError> {
    let program = recipes.program();
    let target = &run.method;
    let is_static = program
        .is_static(target)
        .ok_or_else(|| RecordedRunError::NotInProgram(target.clone()))?;
    let prefixes = contexts(program, target, is_static, &options.contexts);
    let prefix = prefixes
        .get(run.context)
        .ok_or_else(|| RecordedRunError::NoContext {
            method: target.clone(),
            context: run.context,
        })?;
    let model = InputModel::new(
        recipes,
        target.clone(),
        is_static,
        prefix,
        options.bounds.clone(),
    )
    .map_err(|error| RecordedRunError::Template(target.clone(), Box::new(error)))?;
    z3::with_z3_config(&z3::Config::new(), || {
        let solver = Solver::new();
        let unsolvable = || RecordedRunError::InputsUnsolvable(target.clone());
        if !read_script(&solver, &run.inputs) || solver.check() != SatResult::Sat {
            return Err(unsolvable());
        }
        let valuation = Valuation::new(solver.get_model().ok_or_else(unsolvable)?);
        let realised = model.realise(&valuation);
        if realised.plan != run.plan {
            return Err(RecordedRunError::PlanDiffers(target.clone()));
        }
        Ok(replay(
            program,
            recipes.hierarchy(),
            &realised.acts,
            &run.events,
            &valuation,
            &options.replay,
        ))
    })
}

/// The explorer's own first decision: which context the path runs in.
fn context_step(context: usize, count: usize) -> Step {
    let case = |k: usize| Outcome::Case(k as i32);
    Step {
        taken: Decision {
            at: Location::context(),
            outcome: case(context),
            clause: Some("true".into()),
            declares: Vec::new(),
            observed: false,
        },
        alternatives: (0..count)
            .filter(|&k| k != context)
            .map(|k| Alternative {
                outcome: case(k),
                clause: Some("true".into()),
                declares: Vec::new(),
                observed: false,
            })
            .collect(),
    }
}

fn plan_events(outcome: &PlanOutcome) -> Vec<TraceEvent> {
    outcome.plan_events().cloned().collect()
}

/// Outcomes whose every offered leaf was proven infeasible and that no run
/// reached. A proof on a path through a clause that rests on an observed
/// value (pinned to what one run saw), or through a branch `approximate`
/// names, is no proof.
fn infeasible_outcomes(
    tree: &ConstraintTree<Plan>,
    reached: &BTreeSet<Goal>,
    approximate: impl Fn(&Location) -> bool,
) -> BTreeSet<Goal> {
    let mut proven: BTreeMap<Goal, bool> = BTreeMap::new();
    tree.for_each_edge_marking(approximate, |at, outcome, child, observed| {
        let Some(key) = at.goal(outcome) else {
            return;
        };
        let infeasible = !observed && matches!(child, Node::Leaf(Leaf::Infeasible));
        let entry = proven.entry(key).or_insert(true);
        *entry &= infeasible;
    });
    proven
        .into_iter()
        .filter(|(key, all_infeasible)| *all_infeasible && !reached.contains(key))
        .map(|(key, _)| key)
        .collect()
}

/// The next leaf to aim at: branch outcomes no run has shown yet first (the
/// shallowest of them, so that one loop's unrolling does not starve the
/// branches next to it), then untried contexts, then exceptions not seen
/// yet, then the deepest of the rest (finishing one path's neighbourhood,
/// as depth-first search does); ties in tree order. Deterministic.
fn pick_leaf(found: &Exploration) -> Option<NodeId> {
    let leaves = found.tree.unexplored_leaves();
    let rank = |(_, depth, at, outcome): &(NodeId, usize, Location, Outcome)| {
        let Some(key) = at.goal(*outcome) else {
            // An untried context.
            return (1, 0);
        };
        let seen = found.reached.contains(&key) || found.decided.contains(&key);
        let implicit = matches!(outcome, Outcome::Throws | Outcome::Proceeds);
        match (seen, implicit) {
            (false, false) => (0, *depth),
            (false, true) => (2, *depth),
            (true, _) => (3, usize::MAX - *depth),
        }
    };
    leaves
        .iter()
        .enumerate()
        .min_by_key(|(index, leaf)| (rank(leaf), *index))
        .map(|(_, (id, ..))| *id)
}

/// Whether the plan's last statement, the call under test, ran.
fn reached_the_call(plan: &Plan, outcome: &PlanOutcome) -> bool {
    !matches!(
        outcome
            .statements
            .get(plan.statements.len().saturating_sub(1)),
        None | Some(testgen_exec::StatementOutcome::NotRun)
    )
}

/// Whether a statement building the receiver or an argument threw (not a
/// call of the target's class on the receiver, a preparing call: another
/// way of building the receiver would not help that; nor a run that only
/// ran out of time).
fn building_threw(target: &MethodId, plan: &Plan, outcome: &PlanOutcome) -> bool {
    let PlanStatus::Exception { statement } = outcome.status else {
        return false;
    };
    let class = target.class.to_binary();
    match plan.statements.get(statement) {
        Some(testgen_exec::Statement::Call { class: owner, .. }) => *owner != class,
        Some(_) => statement + 1 < plan.statements.len(),
        None => false,
    }
}

/// Inputs that build the receiver by its next way not yet tried (the
/// first was the one that failed); `None` when none is left or solves.
fn next_receiver_way(
    model: &InputModel,
    tried: &mut usize,
    options: &ExploreOptions,
    started: Instant,
    found: &mut Exploration,
) -> Option<(String, Valuation)> {
    loop {
        *tried += 1;
        let clause = model.receiver_built_by(*tried)?;
        if started.elapsed() >= options.budget || found.solver_queries >= options.max_queries {
            return None;
        }
        if let Solved::Inputs(valuation) = solve(
            model,
            "",
            std::slice::from_ref(&clause),
            limits(options, started),
            found,
        ) {
            return Some((clause, valuation));
        }
    }
}

/// What each query asks for first: the receiver built the way that worked
/// (see `receiver_way`), and every object a different one. Only
/// preferences: a path they do not allow is solved again without them, and
/// never settled infeasible for them.
fn preferences(found: &Exploration, model: &InputModel) -> Vec<String> {
    found
        .receiver_way
        .iter()
        .cloned()
        .chain(model.distinct_objects().map(str::to_string))
        .collect()
}

/// Solves unexplored leaves until one gives inputs.
fn next_inputs(
    found: &mut Exploration,
    models: &[InputModel],
    options: &ExploreOptions,
    started: Instant,
) -> Option<(usize, Valuation, Option<NodeId>)> {
    while let Some(leaf) = pick_leaf(found) {
        if started.elapsed() >= options.budget || found.solver_queries >= options.max_queries {
            return None;
        }
        let path = found.tree.path_to(leaf);
        let context = if models.len() > 1 {
            match path.first().map(|edge| edge.outcome) {
                Some(Outcome::Case(k)) => k as usize,
                _ => 0,
            }
        } else {
            0
        };
        let mut clauses: Vec<String> = Vec::new();
        for edge in &path {
            for declaration in &edge.declares {
                if !clauses.contains(declaration) {
                    clauses.push(declaration.clone());
                }
            }
        }
        // Declarations go first, as they are; the rest are asserted.
        let declared = clauses.len();
        clauses.extend(path.iter().filter_map(|edge| edge.clause.clone()));
        let (declarations, clauses) = clauses.split_at(declared);
        let clauses: Vec<String> = clauses.to_vec();
        let declarations = declarations.concat();
        if clauses.iter().any(|c| c == "false") {
            // Proven by simplification alone.
            found.tree.settle(leaf, Leaf::Infeasible);
            continue;
        }
        if let Some(last) = clauses.last() {
            let slice = relevant_slice(&clauses, last);
            if slice.len() < clauses.len() {
                if found.unsat_slices.contains(&slice) {
                    found.tree.settle(leaf, Leaf::Infeasible);
                    continue;
                }
                let solved = solve(
                    &models[context],
                    &declarations,
                    &slice,
                    limits(options, started),
                    found,
                );
                if let Solved::Infeasible = solved {
                    found.unsat_slices.insert(slice);
                    found.tree.settle(leaf, Leaf::Infeasible);
                    continue;
                }
            }
        }
        let preferred = preferences(found, &models[context]);
        if !preferred.is_empty() {
            let mut with_preferences = clauses.clone();
            with_preferences.extend(preferred);
            if let Solved::Inputs(valuation) = solve(
                &models[context],
                &declarations,
                &with_preferences,
                limits(options, started),
                found,
            ) {
                return Some((context, valuation, Some(leaf)));
            }
        }
        match solve(
            &models[context],
            &declarations,
            &clauses,
            limits(options, started),
            found,
        ) {
            Solved::Inputs(valuation) => return Some((context, valuation, Some(leaf))),
            Solved::Infeasible => found.tree.settle(leaf, Leaf::Infeasible),
            Solved::Unknown => {
                let deadline = started + options.budget;
                match search_special_values(
                    &models[context],
                    &declarations,
                    &clauses,
                    found,
                    deadline,
                ) {
                    Some(valuation) => return Some((context, valuation, Some(leaf))),
                    // The budget ran out, not the solver: the leaf stays
                    // open (the report says budget).
                    None if Instant::now() >= deadline => return None,
                    None => {
                        found.tree.settle(leaf, Leaf::TimedOut);
                        found.blockers.insert(Blocker::SolverUnknown);
                    }
                }
            }
        }
    }
    None
}

/// When exploring stops with leaves left, settles those whose question was
/// already answered: a constant `false` or a slice proven unsatisfiable on
/// another path. No solver call, so it costs nothing against the limits.
fn settle_from_known_slices(found: &mut Exploration) {
    for (leaf, ..) in found.tree.unexplored_leaves() {
        let clauses: Vec<String> = found
            .tree
            .path_to(leaf)
            .iter()
            .filter_map(|edge| edge.clause.clone())
            .collect();
        let Some(last) = clauses.last() else {
            continue;
        };
        if clauses.iter().any(|c| c == "false")
            || found.unsat_slices.contains(&relevant_slice(&clauses, last))
        {
            found.tree.settle(leaf, Leaf::Infeasible);
        }
    }
}

/// The clauses that share variables, directly or through others, with
/// `goal` (KLEE's independent-constraint slicing): the rest of a path was
/// satisfied by the run that took it, so only this slice can make the goal
/// infeasible.
fn relevant_slice(clauses: &[String], goal: &str) -> Vec<String> {
    let variables: Vec<BTreeSet<&str>> = clauses.iter().map(|c| symbols(c)).collect();
    let mut wanted: BTreeSet<&str> = symbols(goal);
    let mut taken = vec![false; clauses.len()];
    loop {
        let mut grew = false;
        for (index, vars) in variables.iter().enumerate() {
            if !taken[index] && !vars.is_disjoint(&wanted) {
                taken[index] = true;
                wanted.extend(vars.iter().copied());
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    clauses
        .iter()
        .zip(taken)
        .filter(|(_, t)| *t)
        .map(|(c, _)| c.clone())
        .collect()
}

/// The input variables a clause mentions (by testgen's naming: `p0`,
/// `p1.len`, `r.c0.a1`, `q0.a0`, `x3`).
fn symbols(clause: &str) -> BTreeSet<&str> {
    clause
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .map(|token| token.trim_matches('|'))
        .filter(|token| {
            let mut chars = token.chars();
            match (chars.next(), chars.next()) {
                (Some('p' | 'q' | 'x'), Some(d)) => d.is_ascii_digit(),
                (Some('r'), None | Some('.')) => true,
                _ => false,
            }
        })
        .collect()
}

/// When the solver gives up (typically on floating-point division), tries
/// the values that decide most branches by hand: zero, one, minus one, the
/// extremes, NaN and the infinities, in a fixed order. Each try fixes every
/// primitive argument, which leaves z3 only evaluation to do. Stops at
/// `deadline` (the method's budget).
fn search_special_values(
    model: &InputModel,
    declarations: &str,
    clauses: &[String],
    found: &mut Exploration,
    deadline: Instant,
) -> Option<Valuation> {
    const TRIES: usize = 160;
    let variables = model.primitive_arguments();
    if variables.is_empty() {
        return None;
    }
    let pools: Vec<Vec<String>> = variables
        .iter()
        .map(|(_, base)| special_values(*base))
        .collect();
    let mut odometer = vec![0usize; variables.len()];
    for _ in 0..TRIES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return None;
        }
        let mut fixed: Vec<String> = clauses.to_vec();
        for ((name, _), (pool, at)) in variables.iter().zip(pools.iter().zip(&odometer)) {
            fixed.push(format!("(= |{name}| {})", pool[*at]));
        }
        if let Solved::Inputs(valuation) = solve(
            model,
            declarations,
            &fixed,
            (Duration::from_secs(2).min(left), 200_000),
            found,
        ) {
            return Some(valuation);
        }
        // Next combination: the first argument varies fastest.
        let mut position = 0;
        loop {
            if position == odometer.len() {
                return None;
            }
            odometer[position] += 1;
            if odometer[position] < pools[position].len() {
                break;
            }
            odometer[position] = 0;
            position += 1;
        }
    }
    None
}

/// The solver's limits for one query: its own timeout and resource limit,
/// but never past the method's budget (one query used to run ten seconds
/// over a budget of one).
fn limits(options: &ExploreOptions, started: Instant) -> (Duration, u32) {
    let left = options.budget.saturating_sub(started.elapsed());
    (
        options
            .solver_timeout
            .min(left)
            .max(Duration::from_millis(1)),
        options.solver_rlimit,
    )
}

enum Solved {
    Inputs(Valuation),
    Infeasible,
    Unknown,
}

fn solve(
    model: &InputModel,
    declarations: &str,
    clauses: &[String],
    limits: (Duration, u32),
    found: &mut Exploration,
) -> Solved {
    let (timeout, rlimit) = limits;
    let started = Instant::now();
    let solver = Solver::new();
    let mut params = Params::new();
    params.set_u32(
        "timeout",
        timeout.as_millis().min(u128::from(u32::MAX)) as u32,
    );
    params.set_u32("rlimit", rlimit);
    solver.set_params(&params);
    let mut script = model.declarations();
    script.push_str(declarations);
    for clause in clauses {
        script.push_str(&format!("(assert {clause})\n"));
    }
    if !read_script(&solver, &script) {
        found.solver_queries += 1;
        return Solved::Unknown;
    }
    let result = match solver.check() {
        SatResult::Unsat => Solved::Infeasible,
        SatResult::Unknown => Solved::Unknown,
        SatResult::Sat => match solver.get_model() {
            Some(m) => Solved::Inputs(Valuation::new(m)),
            None => Solved::Unknown,
        },
    };
    found.solver_queries += 1;
    found.solver_seconds += started.elapsed().as_secs_f64();
    result
}

/// Gives `script` to `solver`; false when z3 could not read all of it (it
/// then drops the whole script without a word, and an empty solver would
/// answer "satisfiable" to anything).
fn read_script(solver: &Solver, script: &str) -> bool {
    solver.from_string(script);
    let asserted = script.matches("(assert ").count();
    solver.get_assertions().len() == asserted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_never_runs_past_the_methods_budget() {
        let options = ExploreOptions {
            budget: Duration::from_secs(1),
            solver_timeout: Duration::from_secs(10),
            ..ExploreOptions::default()
        };
        let half_spent = Instant::now() - Duration::from_millis(500);
        let (timeout, rlimit) = limits(&options, half_spent);
        assert!(timeout <= Duration::from_millis(500), "{timeout:?}");
        assert_eq!(rlimit, options.solver_rlimit);
        // Spent: a millisecond, never a zero timeout.
        let spent = Instant::now() - Duration::from_secs(2);
        assert_eq!(limits(&options, spent).0, Duration::from_millis(1));
        // Plenty left: the solver's own timeout.
        let fresh = ExploreOptions {
            budget: Duration::from_secs(60),
            ..options
        };
        assert_eq!(limits(&fresh, Instant::now()).0, Duration::from_secs(10));
    }
}
