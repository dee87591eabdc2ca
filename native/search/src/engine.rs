//! The search loop (DynaMOSA): a population of tests, each a template of
//! one method under test with a genome in its holes, evolved by mutation
//! and crossover, ranked by preference on the current targets; every test
//! that covers a goal first (or more shortly) is kept in the archive.
//!
//! Running a plan is the caller's: the loop asks an [`Evaluator`], so that
//! this crate stays free of I/O and clocks.

use std::collections::{BTreeMap, BTreeSet};

use testgen_construct::template::Template;
use testgen_exec::{BranchOperands, CompareOperands, Plan, TraceEvent};
use testgen_project::{ClassGoals, GoalId, Program};

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

/// What search is asked to do: the class's goals, and the ways of calling
/// each of its methods.
pub struct Problem<'p, 'a> {
    pub program: &'p Program<'a>,
    pub goals: &'p ClassGoals,
    pub graph: &'p GoalGraph,
    /// Every way of calling a method under test (several per method: one
    /// per context of receiver-preparing calls).
    pub templates: &'p [Template],
    /// Which method under test each template calls (an index into the
    /// class's methods under test, which have a goal each beyond the
    /// class's branch goals: a run of it that returns).
    pub method_of: &'p [usize],
    pub methods: usize,
    pub constants: Constants,
    /// Tests to start from (a template and its values): the inputs of the
    /// runs by which concolic exploration reached new goals.
    pub seeds: Vec<(usize, Genome)>,
}

/// A test search kept: the plan, the template it came from, and the goals
/// it is the archive's test for.
#[derive(Clone, Debug, PartialEq)]
pub struct Found {
    pub template: usize,
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

/// One individual: a template, a genome, and what its run scored.
#[derive(Clone)]
struct Individual {
    template: usize,
    genome: Genome,
    plan: Plan,
    fitness: Vec<f64>,
}

/// Searches for tests covering the goals not in `covered` (what concolic
/// exploration covered, by goal id, method goals included). Stops when no
/// target is left, after `max_evaluations` runs, or when the evaluator is
/// out of time.
pub fn search<E: Evaluator>(
    problem: &Problem<'_, '_>,
    covered: &BTreeSet<u32>,
    options: &SearchOptions,
    evaluator: &mut E,
) -> Result<SearchOutcome, E::Error> {
    let branch_goals = problem.goals.len();
    let all_goals = branch_goals + problem.methods;
    let graph = problem.graph.extended(problem.methods);
    let mut outcome = SearchOutcome::default();
    if problem.templates.is_empty() {
        return Ok(outcome);
    }
    let mut state = State {
        problem,
        archive: Archive::default(),
        targets: Targets::new(graph, all_goals, |goal| covered.contains(&goal.0)),
        covered_before: covered.clone(),
        constants: problem.constants.clone(),
        rng: Rng::new(options.seed ^ 0x5ea2_c4ed),
        evaluations: 0,
        first_cover: BTreeMap::new(),
    };
    let stop = |state: &State<'_, '_, '_>, evaluator: &E| {
        state.targets.is_empty()
            || state.evaluations >= options.max_evaluations
            || evaluator.out_of_time()
    };

    // The first generation: the seeds (up to half of it), then each
    // template with its default values, then with a few mutations each,
    // round robin, until the population is full.
    let size = options.population.max(2);
    let mut population = Vec::with_capacity(size);
    for (template, genome) in problem.seeds.iter().take(size / 2) {
        if stop(&state, evaluator) {
            break;
        }
        if let Some(individual) = state.evaluate(*template, genome.clone(), evaluator)? {
            population.push(individual);
        }
    }
    let seeded = population.len();
    for k in 0..size.max(problem.templates.len()).saturating_sub(seeded) {
        if stop(&state, evaluator) {
            break;
        }
        let template = k % problem.templates.len();
        let mut genome = Genome::default();
        for _ in 0..k / problem.templates.len() {
            genome.mutate(
                &problem.templates[template],
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
        order.truncate(size);
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
struct State<'s, 'p, 'a> {
    problem: &'s Problem<'p, 'a>,
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

impl State<'_, '_, '_> {
    /// Runs the plan of `genome` in `template` and offers it to the
    /// archive; `None` when the run was of no use.
    fn evaluate<E: Evaluator>(
        &mut self,
        template: usize,
        genome: Genome,
        evaluator: &mut E,
    ) -> Result<Option<Individual>, E::Error> {
        let problem = self.problem;
        let plan = problem.templates[template].instantiate(&genome).plan;
        self.evaluations += 1;
        let Some(run) = evaluator.evaluate(&plan)? else {
            return Ok(None);
        };
        self.constants.observe(&run.events);
        let mut scores = fitness(problem.program, problem.goals, problem.graph, &run.events);
        let method = problem.method_of[template];
        for index in 0..problem.methods {
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
            .offer(&(template, plan.clone()), plan.statements.len(), &offered);
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
    /// (else the first parent), mutated once or more; now and then moved to
    /// another template of the same method (other receiver-preparing
    /// calls: statements inserted or removed), keeping the genes that fit.
    fn child(&mut self, first: &Individual, second: &Individual) -> (usize, Genome) {
        let templates = self.problem.templates;
        let mut template = first.template;
        let mut genome = if first.template == second.template && self.rng.chance(0.75) {
            first.genome.crossover(&second.genome, &mut self.rng)
        } else {
            first.genome.clone()
        };
        if self.rng.chance(0.1) {
            let method = self.problem.method_of[template];
            let siblings: Vec<usize> = (0..templates.len())
                .filter(|&t| t != template && self.problem.method_of[t] == method)
                .collect();
            if let Some(&other) = self.rng.pick(&siblings) {
                template = other;
            }
        }
        loop {
            genome.mutate(&templates[template], &self.constants, &mut self.rng);
            if !self.rng.chance(0.5) {
                break;
            }
        }
        (template, genome)
    }

    /// The archive's tests for the goals search covered, each plan once.
    fn found(&self) -> Vec<Found> {
        let mut by_plan: Vec<Found> = Vec::new();
        let mut goals: Vec<GoalId> = self.archive.covered().collect();
        goals.sort_by_key(|goal| (self.first_cover.get(goal).copied(), *goal));
        for goal in goals {
            let Some((template, plan)) = self.archive.test(goal) else {
                continue;
            };
            match by_plan.iter_mut().find(|found| found.plan == *plan) {
                Some(found) => {
                    found.covers.insert(goal.0);
                }
                None => by_plan.push(Found {
                    template: *template,
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
    /// each two-operand branch and comparison), so that mutation can try
    /// values the code itself looked for.
    pub fn observe(&mut self, events: &[TraceEvent]) {
        for event in events {
            let pair = match event {
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
