//! The one way the per-class stages run plans: through a [`PlanRunner`],
//! which counts every run for the report and gives all of them the same
//! time limit.

use testgen_exec::{
    Environment, ExecError, Executor, LoaderChoice, Plan, PlanOutcome, RunSettings,
};

/// The executor, as the stages after exploring use it.
pub struct PlanRunner<'e> {
    executor: &'e mut Executor,
    runs: usize,
}

impl<'e> PlanRunner<'e> {
    pub fn new(executor: &'e mut Executor) -> PlanRunner<'e> {
        PlanRunner { executor, runs: 0 }
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
        self.executor.run_with(plan, &settings)
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
        self.executor.run_with(plan, &settings)
    }
}
