//! The one way the per-class stages run plans: through a [`PlanRunner`],
//! which counts every run for the report, gives all of them the same time
//! limit and notes every goal any of them reached (the infeasibility
//! audit's evidence).

use std::collections::BTreeSet;

use testgen_exec::{
    Environment, ExecError, Executor, LoaderChoice, Plan, PlanOutcome, RunSettings,
};
use testgen_project::{ClassGoals, Goal, Program};

/// The executor, as the stages after exploring use it.
pub struct PlanRunner<'e, 'g> {
    executor: &'e mut Executor,
    runs: usize,
    program: &'g Program<'g>,
    goals: &'g ClassGoals,
    /// The class's goals some run reached, on any thread.
    reached: BTreeSet<Goal>,
}

impl<'e, 'g> PlanRunner<'e, 'g> {
    pub fn new(
        executor: &'e mut Executor,
        program: &'g Program<'g>,
        goals: &'g ClassGoals,
    ) -> PlanRunner<'e, 'g> {
        PlanRunner {
            executor,
            runs: 0,
            program,
            goals,
            reached: BTreeSet::new(),
        }
    }

    /// The class's goals that some run through this runner reached.
    pub fn reached(&self) -> &BTreeSet<Goal> {
        &self.reached
    }

    fn note(&mut self, outcome: Result<PlanOutcome, ExecError>) -> Result<PlanOutcome, ExecError> {
        if let Ok(outcome) = &outcome {
            let events = outcome.trace.iter().flat_map(|thread| thread.events.iter());
            let goals = self.goals;
            self.reached.extend(
                testgen_project::reached(self.program, events)
                    .into_iter()
                    .filter(|goal| goals.id(goal).is_some()),
            );
        }
        outcome
    }

    /// Plans run through this runner so far.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// The executor itself, for exploring (which counts its own runs).
    pub fn executor(&mut self) -> &mut Executor {
        self.executor
    }

    /// What the executor JVM can do (change the line separator, ...).
    pub fn info(&self) -> &testgen_exec::ExecutorInfo {
        self.executor.info()
    }

    /// Runs `plan` on a fresh class loader in the JVM's own environment.
    pub fn run(&mut self, plan: &Plan) -> Result<PlanOutcome, ExecError> {
        self.run_with(plan, LoaderChoice::Fresh, Environment::unchanged())
    }

    /// Runs `plan` on `loader` within `timeout` (shorter than the usual
    /// limit where many plans share little time).
    pub fn run_limited(
        &mut self,
        plan: &Plan,
        timeout: std::time::Duration,
        loader: LoaderChoice,
    ) -> Result<PlanOutcome, ExecError> {
        self.runs += 1;
        let settings = RunSettings {
            timeout: timeout.min(self.executor.config().plan_timeout),
            loader,
            environment: Environment::unchanged(),
        };
        let outcome = self.executor.run_with(plan, &settings);
        self.note(outcome)
    }

    /// Runs `plan` on the given loader, in the given environment.
    pub fn run_with(
        &mut self,
        plan: &Plan,
        loader: LoaderChoice,
        environment: Environment,
    ) -> Result<PlanOutcome, ExecError> {
        self.runs += 1;
        let settings = RunSettings {
            timeout: self.executor.config().plan_timeout,
            loader,
            environment,
        };
        let outcome = self.executor.run_with(plan, &settings);
        self.note(outcome)
    }
}
