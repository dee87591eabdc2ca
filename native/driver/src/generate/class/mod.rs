//! Tests for one class, in named stages over one [`ClassJob`]:
//!
//! 1. goals: every branch outcome of the class ([`ClassGoals`]);
//! 2. [`explore`](explore::explore_methods): each public method and
//!    constructor, concolically (or its cached exploration);
//! 3. [`select`](select::select): the plans that cover what exploring
//!    reached, run and measured;
//! 4. [`search`](search::search_open_goals): many-objective search for
//!    the goals the chosen plans leave open (but the proven infeasible),
//!    until four fifths of the budget; its tests join the chosen ones;
//! 5. [`cases`](cases::make_cases): each shrunk, run again under the same
//!    and under other conditions, the class's static state handled;
//! 6. [`findings`](findings::possible_bugs): a case that shows a possible
//!    bug (an undeclared exception from inside the JDK) is reported, not
//!    written (unless `--possible-bugs assert`);
//! 7. [`validate`](validate::validate): emitted, compiled and run with JUnit;
//! 8. [`diagnose`](diagnose::diagnose): what the kept tests cover and why
//!    the rest stayed open;
//! 9. [`mutation`](mutation::analyse): which of the class's mutants the
//!    kept tests catch (`--mutation report`).
//!
//! Every plan after exploring runs through one [`PlanRunner`], which
//! counts it for the report.

mod audit;
mod cases;
mod diagnose;
mod explore;
mod findings;
mod mutation;
mod problems;
mod readable;
pub mod runner;
mod search;
mod select;
mod shrink;
mod signatures;
mod validate;

use std::collections::BTreeMap;
use std::time::Instant;

use testgen_classfile::ClassFile;
use testgen_construct::Recipes;
use testgen_emit::{TestClass, Validator};
use testgen_exec::{Environment, ExecError, Executor};
use testgen_project::{Blocker, ClassGoals, ClassName};
use testgen_symbolic::explore::Exploration;

use super::inputs::InputsBuilt;
use super::options::{GenerateOptions, MutationMode};
use super::portability::{Portability, StaticState};
use super::program::LoadedClass;
use super::report::{Effort, Status};
pub use diagnose::{ReasonKind, Uncovered, UncoveredReason};
pub use findings::PossibleBug;
pub use mutation::{MutationScore, MutationSummary, Survivor};
use runner::PlanRunner;

/// What generating for one class produced, before anything is written.
#[derive(Debug)]
pub struct ClassOutcome {
    pub binary: String,
    pub sha256: String,
    /// `generated`, or (from the cache) `unchanged` or `revalidated`.
    pub status: Status,
    /// The validated source and its path relative to `--out`; `None` when
    /// no test passed (or generation failed).
    pub source: Option<(std::path::PathBuf, String)>,
    pub tests: usize,
    /// javac's raw-type and unchecked warnings about the written tests.
    pub javac_warnings: usize,
    pub branches: usize,
    pub branches_covered: usize,
    pub infeasible: usize,
    /// Claims of infeasibility some run contradicted (reported as reached).
    pub infeasible_contradicted: usize,
    pub uncovered: Vec<Uncovered>,
    /// Why the class failed, if it did.
    pub failure: Option<String>,
    pub effort: Effort,
    /// What exploring each method (`name(descriptor)`) found, for the cache.
    pub explorations: Vec<(String, Exploration)>,
    /// Which methods some run called with every argument built.
    pub inputs: InputsBuilt,
    /// The tests written, to run again when a dependency changes.
    pub kept: Option<TestClass>,
    /// Why some runs could not use a class (it or one it needs could not be
    /// loaded or initialised), if that happened: worth a warning.
    pub load_error: Option<String>,
    /// What a nightly run decided about the class, for the report.
    pub note: Option<String>,
    /// When the outcome is the cached one after a nightly deeper
    /// exploration that found nothing new: how many in a row (the cache
    /// entry is updated with it).
    pub fruitless_deepenings: Option<u32>,
    /// Tests dropped or changed so that the rest pass wherever the build
    /// runs them.
    pub portability: Portability,
    /// The class's mutable static state, and the reset its tests call.
    pub static_state: StaticState,
    /// What the written tests catch of the class's mutants, when analysed.
    pub mutation: Option<MutationScore>,
    /// Undeclared exceptions that escaped from inside the JDK.
    pub possible_bugs: Vec<PossibleBug>,
}

impl ClassOutcome {
    /// A generated class with nothing in it yet.
    pub fn new(class: &LoadedClass) -> ClassOutcome {
        ClassOutcome {
            binary: class.binary.clone(),
            sha256: class.sha256.clone(),
            status: Status::Generated,
            source: None,
            tests: 0,
            javac_warnings: 0,
            branches: 0,
            branches_covered: 0,
            infeasible: 0,
            infeasible_contradicted: 0,
            uncovered: Vec::new(),
            failure: None,
            effort: Effort::default(),
            explorations: Vec::new(),
            inputs: InputsBuilt::default(),
            kept: None,
            load_error: None,
            note: None,
            fruitless_deepenings: None,
            portability: Portability::default(),
            static_state: StaticState::default(),
            mutation: None,
            possible_bugs: Vec::new(),
        }
    }
}

/// One class to generate tests for, and what every stage shares.
pub struct ClassJob<'j, 'p, 'a> {
    pub class: &'j LoadedClass,
    pub name: ClassName,
    pub file: &'j ClassFile<'a>,
    pub recipes: &'j Recipes<'p, 'a>,
    pub options: &'j GenerateOptions,
    pub goals: ClassGoals,
    /// When the class's `--budget` is spent: exploring keeps within its
    /// share of it, and the stages after it do what is optional (measuring
    /// more candidates, shrinking) only before it.
    pub deadline: Instant,
}

impl ClassJob<'_, '_, '_> {
    /// Whether the class's budget is spent.
    pub fn out_of_time(&self) -> bool {
        Instant::now() >= self.deadline
    }
}

/// Generates (but does not write) the tests of `class`. The methods in
/// `reuse` (by `name(descriptor)`) are not explored again: their cached
/// explorations stand. Each kept plan also runs under `varied` (another
/// machine's defaults), one default at a time.
pub fn generate_class(
    executor: &mut Executor,
    validator: &Validator,
    recipes: &Recipes<'_, '_>,
    class: &LoadedClass,
    options: &GenerateOptions,
    varied: &Environment,
    reuse: BTreeMap<String, Exploration>,
) -> Result<ClassOutcome, ExecError> {
    let started = Instant::now();
    let mut result = ClassOutcome::new(class);
    let name = ClassName::internal(class.internal.clone());
    let Some(file) = recipes.program().class(&name) else {
        result.failure = Some("the class could not be instrumented".into());
        return Ok(result);
    };
    let job = ClassJob {
        class,
        goals: ClassGoals::of(file, &name),
        name,
        file,
        recipes,
        options,
        deadline: started + options.budget,
    };
    result.branches = job.goals.len();
    let mut runner = PlanRunner::new(executor, recipes.program(), &job.goals);

    let explored = explore::explore_methods(&job, &mut runner, reuse, &mut result.effort)?;
    let mut selection = select::select(&job, &mut runner, &explored)?;
    result.effort.candidates = selection.candidates;
    result.load_error = selection.load_error;
    // Search has what exploring left of its share of the budget.
    let (share, of) = match options.mutation {
        MutationMode::Off => explore::GENERATE_SHARE,
        MutationMode::Report | MutationMode::Select => explore::GENERATE_SHARE_WITH_MUTANTS,
    };
    let search_until = started + options.budget * share / of;
    let mut covered: select::Coverage = selection
        .chosen
        .iter()
        .flat_map(|chosen| chosen.coverage.iter().copied())
        .collect();
    // What exploring proved unreachable is no target either.
    // A method explored with inputs of its own has its parameters free; a
    // private helper's come from its callers.
    let explored_itself: std::collections::BTreeSet<&testgen_project::MethodId> =
        explored.methods.iter().map(|(method, _)| method).collect();
    let claims = audit::provable(&explored, |method, offset| {
        problems::tests_mutable_state(recipes, method, offset, explored_itself.contains(method))
    });
    let settled: select::Coverage = claims
        .iter()
        .filter_map(|goal| job.goals.id(goal).map(|id| id.0))
        .chain(covered.iter().copied())
        .collect();
    let (searched, effort) =
        search::search_open_goals(&job, &mut runner, &explored, &settled, search_until)?;
    result.effort.search_runs = effort.evaluations;
    result.effort.search_seconds = effort.seconds;
    result.effort.search_executor_seconds = effort.executor_seconds;
    let explore_stopped_by_time = explored.methods.iter().any(|(_, found)| {
        found.failure == Some(Blocker::Budget) || found.blockers.contains(&Blocker::Budget)
    });
    result.effort.stopped_by_budget =
        usize::from(explore_stopped_by_time || effort.stopped_by_time);
    let branch_goals = job.goals.len() as u32;
    for found in searched {
        let act = branch_goals + found.method as u32;
        if found.coverage.is_subset(&covered) {
            continue;
        }
        if job.out_of_time() {
            break;
        }
        if let Some(chosen) = select::measure_plan(&job, &mut runner, &found.plan, act)? {
            if !chosen.coverage.is_subset(&covered) {
                result.effort.search_goals += chosen
                    .coverage
                    .iter()
                    .filter(|&&goal| goal < branch_goals && !covered.contains(&goal))
                    .count();
                covered.extend(chosen.coverage.iter().copied());
                selection.chosen.push(chosen);
            }
        }
    }
    let null_checks_left_out =
        select::group_null_checks(&mut selection.chosen, job.goals.len() as u32);
    result.effort.null_checks_left_out = null_checks_left_out.len();
    selection.unchosen.extend(null_checks_left_out);
    if options.mutation == MutationMode::Select && !job.out_of_time() {
        // Mutants choose within the tenth of the budget search left them.
        let (choosing, of) = explore::CHOOSING_SHARE;
        let killers = mutation::choose_killers(
            &job,
            &mut runner,
            &explored,
            &selection.chosen,
            &selection.unchosen,
            search_until + options.budget * choosing / of,
        )?;
        for (index, properties) in killers.also_assert {
            selection.chosen[index].also_assert.extend(properties);
        }
        result.effort.mutant_killers = killers.added.len();
        result.effort.stopped_by_budget |= usize::from(killers.stopped_by_time);
        selection.chosen.extend(killers.added);
    }
    let mut cases = cases::make_cases(&job, &mut runner, selection.chosen, varied)?;
    let findings = findings::possible_bugs(recipes.program(), &mut cases, options.possible_bugs);
    result.possible_bugs = findings.bugs;
    let kept = match validate::validate(&cases, validator) {
        Ok(kept) => kept,
        Err(error) => {
            result.failure = Some(format!("validating the tests: {error}"));
            validate::Kept::default()
        }
    };
    result.tests = kept.tests;
    result.javac_warnings = kept.javac_warnings;
    result.source = kept.source;
    result.kept = kept.class;
    result.portability = kept.portability;
    result.static_state = cases.static_state;

    let mut reached = runner.reached().clone();
    reached.extend(
        job.goals
            .iter()
            .filter(|(id, _, _)| kept.covered.contains(&id.0))
            .map(|(_, goal, _)| goal.clone()),
    );
    let audit = audit::audit(claims, &reached);
    let diagnosis = diagnose::diagnose(
        &job,
        &explored,
        &audit.standing,
        &reached,
        &kept.covered,
        &kept.dropped,
        &findings.coverage,
    );
    result.branches_covered = diagnosis.covered;
    result.infeasible = diagnosis.infeasible;
    result.infeasible_contradicted = audit.contradicted.len();
    result.uncovered = diagnosis.uncovered;
    result.effort.runs += runner.runs();
    if let (MutationMode::Report | MutationMode::Select, Some(kept)) =
        (options.mutation, &result.kept)
    {
        let generation = started.elapsed();
        result.mutation = Some(mutation::analyse(
            &job,
            runner.executor(),
            kept,
            generation,
        )?);
    }
    result.effort.seconds = started.elapsed().as_secs_f64();
    result.explorations = explored
        .methods
        .into_iter()
        .map(|(method, found)| (method.signature(), found))
        .collect();
    result.inputs = InputsBuilt::of_explorations(
        &result.explorations,
        &super::program::public_methods(job.file),
    );
    Ok(result)
}
