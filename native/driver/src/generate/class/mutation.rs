//! Stage 8: mutation analysis. How many of the class's mutants
//! (`testgen_mutate`: a negated condition, a replaced operator, a removed
//! call) would the written tests catch?
//!
//! A test catches a mutant when, run against it, the test as written would
//! fail: the test's plan runs with the mutant in place of the class, and the
//! oracle, now also required to agree with that run, writes a different
//! test (an assertion left out, or the act behaving otherwise). That is the
//! very rule that keeps assertions on what every run agrees on, so nothing
//! the test does not assert can count as a catch.
//!
//! A mutant is tried only by the tests that call its method; one no test
//! calls is reported apart (no test could catch it). Mutants are taken
//! method by method in turn, so that a class whose time runs out has a
//! sample of every method, and those left are counted, not guessed.
//!
//! With `--mutation select`, mutants also choose tests before the cases are
//! made ([`choose_killers`]): a mutant the chosen tests miss is tried
//! against their prefixes, each ending at a call the test made only to
//! arrange (`priceList.total(10)` before the call that throws), so that
//! call's result and effect are asserted; the first prefix that catches it
//! becomes a test. Coverage chose the tests; this keeps one per fault they
//! would otherwise let through.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use testgen_emit::{emit, with_state_observed, Cause, Rerun, TestCase, TestClass};
use testgen_exec::{
    Environment, ExecError, Executor, LoaderChoice, Plan, PlanOutcome, PropertyOutcome,
    RenderedValue, RunSettings, Statement, StatementOutcome, TraceEvent, VerifyResult,
};
use testgen_mutate::{apply, mutations, Mutation, Operator};

use super::explore::Explored;
use super::runner::PlanRunner;
use super::select::{measure_plan, Chosen};
use super::shrink::is_observation;
use super::ClassJob;
use super::LoadedClass;

/// The most time scoring the written tests adds to a class, as a share of
/// what generating them took.
const SHARE_OF_GENERATION: (u32, u32) = (1, 4);
/// How far past the class's budget scoring the written tests may go, as a
/// share of the budget: a class whose validation used up its time still
/// gets a score (choosing tests never goes past the budget).
const SCORING_PAST_BUDGET: (u32, u32) = (1, 10);
/// A mutant's run may take this many times the original run, plus
/// [`RUN_SLACK`]: a mutant that loops is caught by the time limit.
const RUN_FACTOR: u32 = 10;
const RUN_SLACK: Duration = Duration::from_millis(200);
/// Survivors listed per class in the report.
const MAX_SURVIVORS_LISTED: usize = 200;

/// What the class's tests catch of its mutants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MutationScore {
    /// Mutants of the class's methods.
    pub mutants: usize,
    /// Mutants in a method no written test calls: no test could catch
    /// them, and the score leaves them out.
    pub unreached: usize,
    /// Mutants some test calls the method of, that were run.
    pub analysed: usize,
    /// Of those, the ones some test fails on.
    pub killed: usize,
    /// Mutants the JVM's verifier rejected (a defect of the mutator; they
    /// are in no other figure).
    pub rejected: usize,
    /// Reached mutants not run because the class's time was up.
    pub not_analysed: usize,
    pub seconds: f64,
    /// The analysed mutants no test caught: what the tests would miss.
    pub survivors: Vec<Survivor>,
}

impl MutationScore {
    /// Killed of analysed, in percent; `None` when nothing was analysed.
    pub fn percent(&self) -> Option<f64> {
        (self.analysed > 0).then(|| 100.0 * self.killed as f64 / self.analysed as f64)
    }
}

/// The classes' mutation figures added up (the report's summary).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MutationSummary {
    /// Classes whose mutants were analysed in this run or a cached one.
    pub classes: usize,
    pub mutants: usize,
    pub unreached: usize,
    pub analysed: usize,
    pub killed: usize,
    pub rejected: usize,
    pub not_analysed: usize,
    pub seconds: f64,
}

impl MutationSummary {
    pub fn add(&mut self, score: &MutationScore) {
        self.classes += 1;
        self.mutants += score.mutants;
        self.unreached += score.unreached;
        self.analysed += score.analysed;
        self.killed += score.killed;
        self.rejected += score.rejected;
        self.not_analysed += score.not_analysed;
        self.seconds += score.seconds;
    }
}

/// A mutant no test caught.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Survivor {
    /// `name(descriptor)`.
    pub method: String,
    /// Source line; 0 when the class has no line numbers.
    pub line: u32,
    pub operator: Operator,
    /// What changed: `if_icmpge became if_icmpgt`, `returned 0 instead`.
    pub change: String,
}

/// Runs the kept tests against the class's mutants, within the class's
/// budget and [`SHARE_OF_GENERATION`] of `generation` (the time generating
/// took). Leaves the executor with the class as it was.
pub fn analyse(
    job: &ClassJob<'_, '_, '_>,
    executor: &mut Executor,
    kept: &TestClass,
    generation: Duration,
) -> Result<MutationScore, ExecError> {
    let started = Instant::now();
    let until = scoring_allowance(job, started, generation);
    let mut score = MutationScore::default();
    let Ok(all) = mutations(&job.class.bytes) else {
        return Ok(score);
    };
    score.mutants = all.len();
    let tests: Vec<Test> = kept
        .tests
        .iter()
        .map(|case| Test::new(job, kept, case.clone()))
        .collect();
    let reached = reached_mutants(&all, &tests);
    score.unreached = all.len() - reached.values().map(Vec::len).sum::<usize>();
    let mut lab = Lab::new(job, executor);
    let outcome = (|| {
        for (method, mutation) in round_robin(&reached) {
            if Instant::now() >= until {
                score.not_analysed += 1;
                continue;
            }
            if !lab.put_in_place(mutation)? {
                score.rejected += 1;
                continue;
            }
            score.analysed += 1;
            let mut killed = false;
            for test in tests.iter().filter(|test| test.calls(method)) {
                if test.fails_on(kept, &lab.run(test)?) {
                    killed = true;
                    break;
                }
            }
            if killed {
                score.killed += 1;
            } else if score.survivors.len() < MAX_SURVIVORS_LISTED {
                score.survivors.push(Survivor {
                    method: method.clone(),
                    line: mutation.line,
                    operator: mutation.operator,
                    change: mutation.description.clone(),
                });
            }
        }
        Ok(())
    })();
    lab.restore()?;
    outcome?;
    score.seconds = started.elapsed().as_secs_f64();
    Ok(score)
}

/// What mutants chose: tests to add, and properties the chosen tests should
/// also assert.
#[derive(Default)]
pub struct Killers {
    /// Prefixes of the chosen plans that catch mutants nothing else does.
    pub added: Vec<Chosen>,
    /// Per chosen test (by index), properties to assert although the act
    /// left them as they were made.
    pub also_assert: BTreeMap<usize, BTreeSet<String>>,
    /// Whether time, not the mutants or the count bounds, ended the
    /// choosing (the tests may then differ on a machine of another speed).
    pub stopped_by_time: bool,
}

/// Tests and assertions that catch mutants the chosen tests miss, bounded
/// by counts ([`MAX_ALTERNATIVES`], [`MAX_KILLER_RUNS`], ...) so that the
/// tests are the same on any machine; `until` is only a safety net (the
/// report then counts the class as stopped by its budget). First a
/// property of an observed object the act did not change (`allowVend` still
/// false after one quarter), asserted by a chosen test; else another plan:
/// a prefix of a chosen plan ending at an arranging call, or a plan
/// exploring found that selection did not need (`returnQuarters()` after
/// a quarter went in), measured like any candidate.
/// Within the class's budget and [`SHARE_OF_GENERATION`] of `generation`;
/// leaves the executor with the class as it was.
pub fn choose_killers(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    explored: &Explored,
    chosen: &[Chosen],
    unchosen: &[(Plan, u32)],
    until: Instant,
) -> Result<Killers, ExecError> {
    let mut killers = Killers::default();
    let Ok(all) = mutations(&job.class.bytes) else {
        return Ok(killers);
    };
    let header = header_of(job);
    let mut tests: Vec<Test> = chosen
        .iter()
        .map(|chosen| Test::new(job, &header, provisional_case(chosen)))
        .collect();
    let existing = tests.len();
    // Each measured alternative is kept as a `Test` (without its probe
    // events) and its plan; the few chosen are measured again at the end.
    let (alternatives, out_of_time) =
        measure_alternatives(job, runner, explored, &header, chosen, unchosen, until)?;
    killers.stopped_by_time = out_of_time;
    let mut plans = Vec::with_capacity(alternatives.len());
    for Alternative { plan, act, test } in alternatives {
        tests.push(test);
        plans.push((plan, act));
    }

    let reached = reached_mutants(&all, &tests[..existing]);
    let mut added: Vec<usize> = Vec::new();
    let mut lab = Lab::new(job, runner.executor());
    let outcome = (|| {
        for (method, mutation) in round_robin(&reached) {
            if added.len() >= MAX_KILLERS.max(existing) || lab.runs >= MAX_KILLER_RUNS {
                break;
            }
            if Instant::now() >= until {
                killers.stopped_by_time = true;
                break;
            }
            if !lab.put_in_place(mutation)? {
                continue;
            }
            // The tests as they are: the chosen ones and the prefixes added.
            let mut runs: Vec<(usize, PlanOutcome)> = Vec::new();
            let mut killed = false;
            for index in (0..existing).chain(added.iter().copied()) {
                if !tests[index].calls(method) {
                    continue;
                }
                let run = lab.run(&tests[index])?;
                if tests[index].fails_on(&header, &run) {
                    killed = true;
                    break;
                }
                runs.push((index, run));
            }
            if killed {
                continue;
            }
            // One more assertion on state the act left alone.
            if let Some((index, property)) = runs.iter().find_map(|(index, run)| {
                tests[*index]
                    .unchanged_properties()
                    .into_iter()
                    .find(|property| tests[*index].fails_also_asserting(&header, property, run))
                    .map(|property| (*index, property))
            }) {
                tests[index].also_assert(&header, property.clone());
                if index < existing {
                    killers
                        .also_assert
                        .entry(index)
                        .or_default()
                        .insert(property);
                }
                continue;
            }
            // Another plan that catches it: those whose act is the
            // mutant's method first, shortest first.
            let mut untried = (existing..tests.len())
                .filter(|index| !added.contains(index) && tests[*index].calls(method))
                .collect::<Vec<_>>();
            untried.sort_by_key(|&index| {
                let test = &tests[index];
                (
                    test.act.as_deref() != Some(method.as_str()),
                    test.case.plan.statements.len(),
                )
            });
            untried.truncate(MAX_TRIES_PER_MUTANT);
            for index in untried {
                let run = lab.run(&tests[index])?;
                if tests[index].fails_on(&header, &run) {
                    added.push(index);
                    break;
                }
            }
        }
        Ok(())
    })();
    lab.restore()?;
    outcome?;
    for index in added {
        let (plan, act) = &plans[index - existing];
        if let Some(mut measured) = measure_plan(job, runner, plan, *act)? {
            measured.also_assert = tests[index].case.also_assert.clone();
            killers.added.push(measured);
        }
    }
    Ok(killers)
}

/// A plan other than the chosen ones, with its method's pseudo-goal and
/// the test it would be.
struct Alternative {
    plan: Plan,
    act: u32,
    test: Test,
}

/// The prefixes of the chosen plans that end at an arranging call of an
/// explored method of the class, with the state after the act observed, then the
/// plans selection did not choose, measured on the class itself (new ones
/// only, [`MAX_ALTERNATIVES`] at most).
fn measure_alternatives(
    job: &ClassJob<'_, '_, '_>,
    runner: &mut PlanRunner<'_, '_>,
    explored: &Explored,
    header: &TestClass,
    chosen: &[Chosen],
    unchosen: &[(Plan, u32)],
    until: Instant,
) -> Result<(Vec<Alternative>, bool), ExecError> {
    let goals = job.goals.len() as u32;
    let act_of: BTreeMap<(&str, &str), u32> = explored
        .methods
        .iter()
        .enumerate()
        .map(|(index, (method, _))| {
            (
                (method.name.as_str(), method.descriptor.as_str()),
                goals + index as u32,
            )
        })
        .collect();
    let mut seen: BTreeSet<String> = chosen
        .iter()
        .filter_map(|chosen| serde_json::to_string(&chosen.plan).ok())
        .collect();
    let prefixes = chosen.iter().flat_map(|chosen| {
        let plan = &chosen.plan;
        arranging_calls(job, plan, &act_of)
            .into_iter()
            .map(|(end, act)| {
                let prefix = Plan::new(plan.statements[..=end].to_vec());
                (with_state_observed(&prefix), act)
            })
    });
    let others = unchosen.iter().cloned();
    let mut measured = Vec::new();
    for (plan, act) in prefixes.chain(others) {
        if measured.len() >= MAX_ALTERNATIVES {
            break;
        }
        if Instant::now() >= until {
            return Ok((measured, true));
        }
        let Ok(text) = serde_json::to_string(&plan) else {
            continue;
        };
        if !seen.insert(text) {
            continue;
        }
        if let Some(alternative) = measure_plan(job, runner, &plan, act)? {
            let test = Test::new(job, header, provisional_case(&alternative));
            measured.push(Alternative { plan, act, test });
        }
    }
    Ok((measured, false))
}

/// Other plans measured per class at most, mutants' killers added at most
/// (or as many as the tests chosen by coverage), other plans tried on one
/// mutant beyond those already added, and runs against mutants in all.
const MAX_ALTERNATIVES: usize = 200;
const MAX_KILLER_RUNS: usize = 1_000;
const MAX_KILLERS: usize = 20;
const MAX_TRIES_PER_MUTANT: usize = 8;

/// When scoring must stop: after [`SHARE_OF_GENERATION`] of the time
/// generating took, and [`SCORING_PAST_BUDGET`] past the class's deadline.
fn scoring_allowance(
    job: &ClassJob<'_, '_, '_>,
    started: Instant,
    generation: Duration,
) -> Instant {
    let (share, of) = SHARE_OF_GENERATION;
    let (past, of_budget) = SCORING_PAST_BUDGET;
    let past_deadline = job.options.budget * past / of_budget;
    (started + generation * share / of).min(job.deadline.max(started) + past_deadline)
}

/// The statements of `plan` before its act that call a method of the class
/// under test that was explored, with that method's pseudo-goal: the ends
/// of its prefixes.
fn arranging_calls(
    job: &ClassJob<'_, '_, '_>,
    plan: &Plan,
    act_of: &BTreeMap<(&str, &str), u32>,
) -> Vec<(usize, u32)> {
    let binary = job.name.to_binary();
    let Some(act) = plan.statements.iter().rposition(|s| !is_observation(s)) else {
        return Vec::new();
    };
    plan.statements[..act]
        .iter()
        .enumerate()
        .filter(|(_, statement)| !matches!(statement, Statement::New { .. }))
        .filter_map(|(index, statement)| {
            let (class, name, descriptor) = statement.callee()?;
            (class == binary)
                .then(|| act_of.get(&(name, descriptor)))
                .flatten()
                .map(|&act| (index, act))
        })
        .collect()
}

/// A chosen plan as a test case before its second run and reruns: enough
/// to tell what its test would assert.
fn provisional_case(chosen: &Chosen) -> TestCase {
    TestCase {
        plan: chosen.plan.clone(),
        first: chosen.first.clone(),
        second: chosen.first.clone(),
        reruns: Vec::new(),
        parameter_names: Vec::new(),
        erased_types: false,
        also_assert: chosen.also_assert.clone(),
    }
}

/// A test class of the class under test with no tests yet.
fn header_of(job: &ClassJob<'_, '_, '_>) -> TestClass {
    TestClass {
        class_under_test: job.name.to_binary(),
        sha256: job.class.sha256.clone(),
        testgen_version: env!("CARGO_PKG_VERSION").to_string(),
        junit: job.options.junit,
        tests: Vec::new(),
        static_reset: None,
        signatures: Default::default(),
    }
}

/// One test as mutation analysis uses it: its case, the source it is
/// written as alone, the methods of the class its first run called
/// (`name(descriptor)`), and the getters the executor called to describe
/// its values (by name: their events are not traced, and an assertion may
/// call them).
struct Test {
    case: TestCase,
    written: String,
    calls: BTreeSet<String>,
    getters: BTreeSet<String>,
    /// The act's method, when it is one of the class's.
    act: Option<String>,
}

impl Test {
    fn new(job: &ClassJob<'_, '_, '_>, header: &TestClass, mut case: TestCase) -> Test {
        let calls = methods_called(job, &case.first);
        // What a test asserts does not depend on the probes' events, which
        // can be most of a run's size: kept for every candidate of a large
        // class they cost gigabytes.
        for outcome in std::iter::once(&mut case.first)
            .chain(std::iter::once(&mut case.second))
            .chain(case.reruns.iter_mut().map(|rerun| &mut rerun.outcome))
        {
            outcome.trace = Vec::new();
        }
        let written = emit(&alone(header, case.clone())).source;
        let mut getters = BTreeSet::new();
        for statement in &case.first.statements {
            if let StatementOutcome::Value { value } = statement {
                getters_described(value, &mut getters);
            }
        }
        let binary = job.name.to_binary();
        let act = case
            .plan
            .statements
            .iter()
            .rfind(|statement| !is_observation(statement))
            .and_then(Statement::callee)
            .filter(|(class, _, _)| *class == binary)
            .map(|(_, name, descriptor)| format!("{name}{descriptor}"));
        Test {
            case,
            written,
            calls,
            getters,
            act,
        }
    }

    fn calls(&self, method: &str) -> bool {
        self.calls.contains(method)
            || method
                .split_once("()")
                .is_some_and(|(name, _)| self.getters.contains(name))
    }

    /// Whether the test, as written, would fail given `run` (of its plan
    /// against a mutant): the oracle, required to agree with that run too,
    /// writes a different test.
    fn fails_on(&self, header: &TestClass, run: &PlanOutcome) -> bool {
        written_with(header, &self.case, run) != self.written
    }

    /// Whether it would fail given `run` if it also asserted `property`.
    fn fails_also_asserting(&self, header: &TestClass, property: &str, run: &PlanOutcome) -> bool {
        let mut case = self.case.clone();
        if !case.also_assert.insert(property.to_string()) {
            return false;
        }
        let written = emit(&alone(header, case.clone())).source;
        written_with(header, &case, run) != written
    }

    fn also_assert(&mut self, header: &TestClass, property: String) {
        self.case.also_assert.insert(property);
        self.written = emit(&alone(header, self.case.clone())).source;
    }

    /// The properties of the objects observed after the act (by name, in
    /// order), that it does not assert yet.
    fn unchanged_properties(&self) -> Vec<String> {
        let mut names = BTreeSet::new();
        for (statement, outcome) in self
            .case
            .plan
            .statements
            .iter()
            .zip(&self.case.first.statements)
        {
            if !is_observation(statement) {
                continue;
            }
            if let StatementOutcome::Value {
                value:
                    RenderedValue::Object {
                        properties: Some(properties),
                        ..
                    },
            } = outcome
            {
                names.extend(properties.iter().map(|property| property.name.clone()));
            }
        }
        names
            .into_iter()
            .filter(|name| !self.case.also_assert.contains(name))
            .collect()
    }
}

/// The source `case` alone is written as when `run` is one of its runs.
fn written_with(header: &TestClass, case: &TestCase, run: &PlanOutcome) -> String {
    let mut with_run = case.clone();
    with_run.reruns.push(Rerun {
        // Any cause will do: only whether the test changes matters.
        exposes: Cause::Nondeterminism,
        outcome: PlanOutcome {
            trace: Vec::new(),
            ..run.clone()
        },
    });
    emit(&alone(header, with_run)).source
}

/// The getters called to describe `value`, at every depth.
fn getters_described(value: &RenderedValue, names: &mut BTreeSet<String>) {
    match value {
        RenderedValue::Object {
            properties: Some(properties),
            ..
        } => {
            for property in properties {
                names.insert(property.name.clone());
                if let PropertyOutcome::Value { value } = &property.outcome {
                    getters_described(value, names);
                }
            }
        }
        RenderedValue::Array {
            elements: Some(elements),
            ..
        } => elements
            .iter()
            .for_each(|element| getters_described(element, names)),
        RenderedValue::Boxed { value } => getters_described(value, names),
        _ => {}
    }
}

fn methods_called(job: &ClassJob<'_, '_, '_>, outcome: &PlanOutcome) -> BTreeSet<String> {
    let program = job.recipes.program();
    outcome
        .trace
        .iter()
        .flat_map(|thread| thread.events.iter())
        .filter_map(|event| match event {
            TraceEvent::Enter { method } => program.method_of_probe(*method),
            _ => None,
        })
        .filter(|method| method.class == job.name)
        .map(|method| format!("{}{}", method.name, method.descriptor))
        .collect()
}

/// The mutants of methods some test calls, by method.
fn reached_mutants<'m>(all: &'m [Mutation], tests: &[Test]) -> BTreeMap<String, Vec<&'m Mutation>> {
    let mut reached: BTreeMap<String, Vec<&Mutation>> = BTreeMap::new();
    for mutation in all {
        let method = format!("{}{}", mutation.method_name, mutation.descriptor);
        if tests.iter().any(|test| test.calls(&method)) {
            reached.entry(method).or_default().push(mutation);
        }
    }
    reached
}

/// The mutants method by method in turn: the first of each, then the
/// second of each, ...
fn round_robin<'m>(
    by_method: &'m BTreeMap<String, Vec<&'m Mutation>>,
) -> impl Iterator<Item = (&'m String, &'m Mutation)> {
    let longest = by_method.values().map(Vec::len).max().unwrap_or(0);
    (0..longest).flat_map(move |turn| {
        by_method
            .iter()
            .filter_map(move |(method, mutations)| mutations.get(turn).map(|m| (method, *m)))
    })
}

/// The executor with one mutant of the class in place of the class.
struct Lab<'c, 'e> {
    class: &'c LoadedClass,
    executor: &'e mut Executor,
    /// Plans run against mutants so far.
    runs: usize,
}

impl<'c, 'e> Lab<'c, 'e> {
    fn new(job: &ClassJob<'c, '_, '_>, executor: &'e mut Executor) -> Self {
        Lab {
            class: job.class,
            executor,
            runs: 0,
        }
    }

    /// Makes the mutant, has the JVM verify it and defines it in place of
    /// the class; false when it could not be made or was rejected.
    fn put_in_place(&mut self, mutation: &Mutation) -> Result<bool, ExecError> {
        let binary = &self.class.binary;
        let Ok(mutant) = apply(&self.class.bytes, mutation) else {
            return Ok(false);
        };
        let verified = self.executor.verify(&[(binary.clone(), mutant.clone())])?;
        if verified.first().map(|v| &v.result) != Some(&VerifyResult::Ok) {
            return Ok(false);
        }
        self.executor.define(&[(binary.clone(), mutant)])?;
        Ok(true)
    }

    /// Runs `test`'s plan against the mutant in place, with a time limit
    /// of [`RUN_FACTOR`] times its first run's.
    fn run(&mut self, test: &Test) -> Result<PlanOutcome, ExecError> {
        self.runs += 1;
        let case = &test.case;
        let limit = Duration::from_micros(case.first.elapsed_micros) * RUN_FACTOR + RUN_SLACK;
        self.executor.run_with(
            &case.plan,
            &RunSettings {
                timeout: limit.min(self.executor.config().plan_timeout),
                loader: LoaderChoice::Fresh,
                environment: Environment::unchanged(),
            },
        )
    }

    /// Defines the class as it was (instrumented) again.
    fn restore(self) -> Result<(), ExecError> {
        let class = self.class;
        let original = class
            .instrumented
            .as_ref()
            .map_or_else(|| class.bytes.clone(), |i| i.bytes.clone());
        self.executor.define(&[(class.binary.clone(), original)])
    }
}

/// `header`'s class with only `case` in it.
fn alone(header: &TestClass, case: TestCase) -> TestClass {
    TestClass {
        class_under_test: header.class_under_test.clone(),
        sha256: header.sha256.clone(),
        testgen_version: header.testgen_version.clone(),
        junit: header.junit,
        tests: vec![case],
        static_reset: header.static_reset.clone(),
        signatures: header.signatures.clone(),
    }
}
