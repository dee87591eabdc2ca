//! The search loop (DynaMOSA): a population of tests, each a template of
//! one method under test with a genome in its holes, evolved by mutation
//! and crossover, ranked by preference on the current targets; every test
//! that covers a goal first (or more shortly) is kept in the archive.
//!
//! Running a plan is the caller's: the loop asks an [`Evaluator`], so that
//! this crate stays free of I/O and clocks.

use std::collections::{BTreeMap, BTreeSet};

use testgen_construct::template::{Bounds, Template};
use testgen_construct::Recipes;
use testgen_exec::{BranchOperands, CompareOperands, Plan, TraceEvent};
use testgen_project::{ClassGoals, GoalId, MethodId};

use crate::archive::{preference_ranks, Archive, Targets};
use crate::fitness::{fitness, GoalGraph, NEVER_REACHED};
use crate::genome::{Constants, Genome};
use crate::rng::Rng;

/// What one run of a plan showed search.
#[derive(Clone, Debug, Default)]
pub struct Evaluated {
    /// The branch and compare events on the plan's own thread, in order.
    pub events: Vec<TraceEvent>,
    /// Whether the call under test returned (rather than threw, or was
    /// never reached).
    pub returned: bool,
}

/// Runs plans for the search; the caller owns the executor and the clock.
pub trait Evaluator {
    type Error;
    /// Runs `plan`: what the probes saw, or `None` when the run is of no
    /// use (it hung, crashed, or could not load a class).
    fn evaluate(&mut self, plan: &Plan) -> Result<Option<Evaluated>, Self::Error>;
    /// Whether search must stop now (the time it was given is spent).
    fn out_of_time(&self) -> bool;
}

/// The limits of one search.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Individuals kept from one generation to the next.
    pub population: usize,
    /// Plans run at most: the count bound that keeps results the same on
    /// any machine (time is only the safety net).
    pub max_evaluations: usize,
    pub seed: u64,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            population: 24,
            max_evaluations: 1_000,
            seed: 0,
        }
    }
}

/// What search is asked to do: the class's goals, and its methods under
/// test with the calls that may prepare their receivers.
pub struct Problem<'r, 'p, 'a> {
    pub recipes: &'r Recipes<'p, 'a>,
    /// The limits of every template made.
    pub bounds: Bounds,
    pub goals: &'r ClassGoals,
    pub graph: &'r GoalGraph,
    /// Each has a goal beyond the class's branch goals (the class's goal
    /// count plus its index): a run of it that returns.
    pub methods: Vec<SearchMethod>,
    pub constants: Constants,
    /// Tests to start from: the inputs of the runs by which concolic
    /// exploration reached new goals.
    pub seeds: Vec<Seed>,
}

/// A method under test as search sees it.
#[derive(Clone, Debug)]
pub struct SearchMethod {
    pub id: MethodId,
    pub is_static: bool,
    /// The calls a test may make on the receiver before the call under
    /// test (none for static methods and constructors).
    pub calls: Vec<MethodId>,
    /// The call sequences the first generation starts from (the empty one
    /// first).
    pub contexts: Vec<Vec<MethodId>>,
}

/// A test to start from: a method, the calls before it, and the values
/// of that template's holes.
#[derive(Clone, Debug)]
pub struct Seed {
    pub method: usize,
    pub prefix: Vec<MethodId>,
    pub genome: Genome,
}

/// A test search kept: the plan, the method it calls (an index into
/// [`Problem::methods`]), and the goals it is the archive's test for.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub method: usize,
    pub plan: Plan,
    /// Branch goals (ids below the class's goal count) and method goals
    /// (the class's goal count plus the method's index).
    pub covers: BTreeSet<u32>,
}

/// What a search did.
#[derive(Clone, Debug, Default)]
pub struct SearchOutcome {
    /// The archive's tests for goals that were not covered before, each
    /// plan once, in order of the first goal each covers.
    pub found: Vec<Found>,
    pub evaluations: usize,
    pub generations: usize,
    pub stopped: Stop,
}

/// Why a search stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stop {
    /// No target left: every goal covered (or under one nothing covers).
    #[default]
    NoTargets,
    /// It ran `max_evaluations` plans.
    Evaluations,
    /// The evaluator said its time was up.
    Time,
    /// No run of any template was of use (each hung, crashed or could not
    /// load a class).
    NoUsableRun,
}

/// One individual: a template (an index into the bank), a genome, and
/// what its run scored.
#[derive(Clone)]
struct Individual {
    template: usize,
    genome: Genome,
    plan: Plan,
    fitness: Vec<f64>,
}

/// Calls before the call under test that a mutation makes at most.
const MAX_PREFIX: usize = 6;

/// Templates made at most in one search (each a few kilobytes); past it,
/// a sequence mutation only reuses the ones made.
const MAX_TEMPLATES: usize = 1_024;

/// The templates made so far, by method and receiver-preparing calls,
/// each made once and only when a test needs it.
struct Bank<'s, 'r, 'p, 'a> {
    problem: &'s Problem<'r, 'p, 'a>,
    templates: Vec<Template>,
    keys: Vec<(usize, Vec<MethodId>)>,
    /// `None`: no template can be made of that key.
    index: BTreeMap<(usize, Vec<MethodId>), Option<usize>>,
}

impl Bank<'_, '_, '_, '_> {
    /// The template of calling method `method` after `prefix`.
    fn get(&mut self, method: usize, prefix: Vec<MethodId>) -> Option<usize> {
        let key = (method, prefix);
        if let Some(known) = self.index.get(&key) {
            return *known;
        }
        if self.templates.len() >= MAX_TEMPLATES {
            return None;
        }
        let target = &self.problem.methods[method];
        let made = Template::new(
            self.problem.recipes,
            target.id.clone(),
            target.is_static,
            &key.1,
            self.problem.bounds.clone(),
        )
        .ok()
        .map(|template| {
            self.templates.push(template);
            self.keys.push(key.clone());
            self.templates.len() - 1
        });
        self.index.insert(key, made);
        made
    }
}

/// Searches for tests covering the goals not in `covered` (what concolic
/// exploration covered, by goal id, method goals included). Stops when no
/// target is left, after `max_evaluations` runs, or when the evaluator is
/// out of time.
pub fn search<E: Evaluator>(
    problem: &Problem<'_, '_, '_>,
    covered: &BTreeSet<u32>,
    options: &SearchOptions,
    evaluator: &mut E,
) -> Result<SearchOutcome, E::Error> {
    let branch_goals = problem.goals.len();
    let methods = problem.methods.len();
    let graph = problem.graph.extended(methods);
    let mut outcome = SearchOutcome::default();
    let mut state = State {
        problem,
        bank: Bank {
            problem,
            templates: Vec::new(),
            keys: Vec::new(),
            index: BTreeMap::new(),
        },
        archive: Archive::default(),
        targets: Targets::new(graph, branch_goals + methods, |goal| {
            covered.contains(&goal.0)
        }),
        covered_before: covered.clone(),
        constants: problem.constants.clone(),
        rng: Rng::new(options.seed ^ 0x5ea2_c4ed),
        evaluations: 0,
        first_cover: BTreeMap::new(),
    };
    let stop = |state: &State<'_, '_, '_, '_>, evaluator: &E| {
        state.targets.is_empty()
            || state.evaluations >= options.max_evaluations
            || evaluator.out_of_time()
    };
    // Every method's contexts, in turn: the first of each, then the
    // second of each, ...
    let mut starts = Vec::new();
    let most = problem.methods.iter().map(|m| m.contexts.len()).max();
    for k in 0..most.unwrap_or(0) {
        for (method, search_method) in problem.methods.iter().enumerate() {
            if let Some(prefix) = search_method.contexts.get(k) {
                starts.extend(state.bank.get(method, prefix.clone()));
            }
        }
    }
    if starts.is_empty() {
        outcome.stopped = Stop::NoUsableRun;
        return Ok(outcome);
    }

    // The first generation: the seeds (up to half of it), then each
    // starting template with its default values, then with a few
    // mutations each, round robin, until the population is full.
    let size = options.population.max(2);
    let mut population = Vec::with_capacity(size);
    for seed in problem.seeds.iter().take(size / 2) {
        if stop(&state, evaluator) {
            break;
        }
        if seed.method >= problem.methods.len() {
            continue;
        }
        let Some(template) = state.bank.get(seed.method, seed.prefix.clone()) else {
            continue;
        };
        if let Some(individual) = state.evaluate(template, seed.genome.clone(), evaluator)? {
            population.push(individual);
        }
    }
    let seeded = population.len();
    for k in 0..starts.len().max(size.saturating_sub(seeded)) {
        if stop(&state, evaluator) {
            break;
        }
        let template = starts[k % starts.len()];
        let mut genome = Genome::default();
        for _ in 0..k / starts.len() {
            genome.mutate(
                &state.bank.templates[template],
                &state.constants,
                &mut state.rng,
            );
        }
        if let Some(individual) = state.evaluate(template, genome, evaluator)? {
            population.push(individual);
        }
    }

    while !stop(&state, evaluator) && !population.is_empty() {
        outcome.generations += 1;
        let ranks = state.ranks(&population);
        let mut offspring = Vec::with_capacity(size);
        while offspring.len() < size && !stop(&state, evaluator) {
            let first = tournament(&ranks, &mut state.rng);
            let second = tournament(&ranks, &mut state.rng);
            let (template, genome) = state.child(&population[first], &population[second]);
            if let Some(individual) = state.evaluate(template, genome, evaluator)? {
                offspring.push(individual);
            }
        }
        population.extend(offspring);
        let ranks = state.ranks(&population);
        let mut order: Vec<usize> = (0..population.len()).collect();
        order.sort_by_key(|&index| (ranks[index], index));
        // Each target's best individual survives even past the population
        // size: cut, a method whose individuals all ranked late would drop
        // out and never be tried again.
        let best = ranks.iter().filter(|&&rank| rank == 0).count();
        order.truncate(size.max(best));
        order.sort_unstable();
        let mut kept = Vec::with_capacity(size);
        for (index, individual) in population.into_iter().enumerate() {
            if order.binary_search(&index).is_ok() {
                kept.push(individual);
            }
        }
        population = kept;
    }
    outcome.evaluations = state.evaluations;
    outcome.stopped = if state.targets.is_empty() {
        Stop::NoTargets
    } else if state.evaluations >= options.max_evaluations {
        Stop::Evaluations
    } else if evaluator.out_of_time() {
        Stop::Time
    } else {
        Stop::NoUsableRun
    };
    outcome.found = state.found();
    Ok(outcome)
}

/// The search's state between generations.
struct State<'s, 'r, 'p, 'a> {
    problem: &'s Problem<'r, 'p, 'a>,
    bank: Bank<'s, 'r, 'p, 'a>,
    archive: Archive<(usize, Plan)>,
    targets: Targets,
    covered_before: BTreeSet<u32>,
    constants: Constants,
    rng: Rng,
    evaluations: usize,
    /// When each goal search covered was first covered (evaluation count),
    /// to list the found tests in a stable, meaningful order.
    first_cover: BTreeMap<GoalId, usize>,
}

impl State<'_, '_, '_, '_> {
    /// Runs the plan of `genome` in `template` and offers it to the
    /// archive; `None` when the run was of no use.
    fn evaluate<E: Evaluator>(
        &mut self,
        template: usize,
        mut genome: Genome,
        evaluator: &mut E,
    ) -> Result<Option<Individual>, E::Error> {
        let problem = self.problem;
        genome.align_entries(&self.bank.templates[template]);
        let plan = self.bank.templates[template].instantiate(&genome).plan;
        self.evaluations += 1;
        let Some(run) = evaluator.evaluate(&plan)? else {
            return Ok(None);
        };
        self.constants.observe(&run.events);
        let mut scores = fitness(
            problem.recipes.program(),
            problem.goals,
            problem.graph,
            &run.events,
        );
        let method = self.bank.keys[template].0;
        for index in 0..problem.methods.len() {
            scores.push(match (index == method, run.returned) {
                (true, true) => 0.0,
                (true, false) => 1.0,
                (false, _) => NEVER_REACHED,
            });
        }
        // Goals covered before search are not the archive's to keep.
        let mut offered = scores.clone();
        for &goal in &self.covered_before {
            if let Some(score) = offered.get_mut(goal as usize) {
                *score = NEVER_REACHED;
            }
        }
        let newly = self
            .archive
            .offer(&(method, plan.clone()), plan.statements.len(), &offered);
        if !newly.is_empty() {
            for goal in &newly {
                self.first_cover.insert(*goal, self.evaluations);
            }
            let (archive, before) = (&self.archive, &self.covered_before);
            self.targets.update(&newly, |goal| {
                archive.is_covered(goal) || before.contains(&goal.0)
            });
        }
        Ok(Some(Individual {
            template,
            genome,
            plan,
            fitness: scores,
        }))
    }

    /// The preference ranks of `population` on the current targets.
    fn ranks(&self, population: &[Individual]) -> Vec<usize> {
        let fitness: Vec<Vec<f64>> = population.iter().map(|i| i.fitness.clone()).collect();
        let lengths: Vec<usize> = population.iter().map(|i| i.plan.statements.len()).collect();
        preference_ranks(&fitness, &lengths, self.targets.current())
    }

    /// A child of two parents: their crossover when they share a template
    /// (else the first parent), now and then with a call on the receiver
    /// inserted, removed or changed (a template of its own, the genes that
    /// fit kept), mutated once or more.
    fn child(&mut self, first: &Individual, second: &Individual) -> (usize, Genome) {
        let mut template = first.template;
        let mut genome = if first.template == second.template && self.rng.chance(0.75) {
            first.genome.crossover(&second.genome, &mut self.rng)
        } else {
            first.genome.clone()
        };
        if self.rng.chance(0.2) {
            if let Some(other) = self.changed_sequence(template) {
                template = other;
            }
        }
        loop {
            genome.mutate(
                &self.bank.templates[template],
                &self.constants,
                &mut self.rng,
            );
            if !self.rng.chance(0.5) {
                break;
            }
        }
        (template, genome)
    }

    /// The template of `template`'s method with one receiver-preparing call
    /// inserted, removed or replaced; `None` when its method takes none or
    /// no such template can be made.
    fn changed_sequence(&mut self, template: usize) -> Option<usize> {
        let (method, prefix) = self.bank.keys[template].clone();
        let calls = &self.problem.methods[method].calls;
        if calls.is_empty() {
            return None;
        }
        let mut prefix = prefix;
        let call = self.rng.pick(calls)?.clone();
        match self.rng.below(3) {
            0 if prefix.len() < MAX_PREFIX => {
                let at = self.rng.below(prefix.len() + 1);
                prefix.insert(at, call);
            }
            1 if !prefix.is_empty() => {
                prefix.remove(self.rng.below(prefix.len()));
            }
            _ if !prefix.is_empty() => {
                let at = self.rng.below(prefix.len());
                prefix[at] = call;
            }
            _ => prefix.push(call),
        }
        self.bank.get(method, prefix)
    }

    /// The archive's tests for the goals search covered, each plan once.
    fn found(&self) -> Vec<Found> {
        let mut by_plan: Vec<Found> = Vec::new();
        let mut goals: Vec<GoalId> = self.archive.covered().collect();
        goals.sort_by_key(|goal| (self.first_cover.get(goal).copied(), *goal));
        for goal in goals {
            let Some((method, plan)) = self.archive.test(goal) else {
                continue;
            };
            match by_plan.iter_mut().find(|found| found.plan == *plan) {
                Some(found) => {
                    found.covers.insert(goal.0);
                }
                None => by_plan.push(Found {
                    method: *method,
                    plan: plan.clone(),
                    covers: BTreeSet::from([goal.0]),
                }),
            }
        }
        by_plan
    }
}

/// Binary tournament on ranks (lower wins; ties to the first drawn).
fn tournament(ranks: &[usize], rng: &mut Rng) -> usize {
    let a = rng.below(ranks.len());
    let b = rng.below(ranks.len());
    if ranks[b] < ranks[a] {
        b
    } else {
        a
    }
}

impl Constants {
    /// Adds the numbers runs compared something against (both operands of
    /// each two-operand branch and comparison) and the strings measured
    /// calls compared against, so that mutation can try values the code
    /// itself looked for.
    pub fn observe(&mut self, events: &[TraceEvent]) {
        for event in events {
            let pair = match event {
                TraceEvent::CallDistance {
                    argument: Some(argument),
                    ..
                } => {
                    self.add_string(argument);
                    continue;
                }
                TraceEvent::Branch {
                    operands: BranchOperands::IntPair { left, right },
                    ..
                } => (i64::from(*left), i64::from(*right)),
                TraceEvent::Compare {
                    operands: CompareOperands::Lcmp { left, right },
                    ..
                } => (*left, *right),
                _ => continue,
            };
            for value in [pair.0, pair.1] {
                self.add_integer(value);
            }
        }
    }
}
