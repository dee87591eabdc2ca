//! What `bench.json` holds. A figure that could not be measured (say, an
//! older testgen whose report has no effort figures) is `null`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Bench {
    /// `work` (the working tree) or `base` (the commit compared against).
    pub label: String,
    pub commit: String,
    /// Whether the tree had uncommitted changes when it was built.
    pub dirty: bool,
    /// `testgen --version` of the binary measured.
    pub testgen: String,
    pub machine: Machine,
    /// seed, max_runs, budget, jobs, quick, ...
    pub options: BTreeMap<String, String>,
    pub started: String,
    /// The whole benchmark (both sides in comparison mode), build included.
    pub bench_seconds: Option<u64>,
    /// No generated test failed or failed to compile, and every testgen run
    /// ended normally.
    pub ok: bool,
    pub problems: Vec<String>,
    pub corpora: Vec<Corpus>,
    pub total: Figures,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Machine {
    pub cores: u32,
    pub memory_mib: u64,
    pub jdk: String,
    pub kernel: String,
    /// `/proc/loadavg`'s first three fields when the run started.
    pub load_average: String,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Corpus {
    pub name: String,
    pub input: String,
    /// What was changed before the `changed` re-run.
    pub changed: String,
    /// Extra `testgen generate` options of this corpus (e.g. --include).
    pub options: String,
    pub figures: Figures,
    /// One row per class of testgen's report.
    pub classes: Vec<ClassRow>,
}

/// The figures of one corpus, or of all of them added up.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Figures {
    /// Classes in testgen's report (public classes of the input).
    pub classes: u64,
    /// `@Test` methods written by the full run.
    pub tests: u64,
    /// Of those, failed or aborted under JUnit 5 (must be 0).
    pub failing: u64,
    pub compile_errors: u64,
    /// javac's raw-type and unchecked warnings about the generated tests.
    pub compile_warnings: u64,
    /// JaCoCo over every class of the input, public or not.
    pub lines_covered: Option<u64>,
    pub lines: Option<u64>,
    pub branches_covered: Option<u64>,
    pub branches: Option<u64>,
    pub line_coverage: Option<f64>,
    pub branch_coverage: Option<f64>,
    /// `testgen generate`, full run: wall time, and CPU time (user + system)
    /// of its whole process tree (executor JVMs, javac and the JUnit
    /// validation runs included).
    pub wall_seconds: Option<f64>,
    pub cpu_seconds: Option<f64>,
    /// Peak resident memory of testgen itself (VmHWM) and of the largest
    /// executor JVM (sampled after each class), from testgen's report.
    pub testgen_peak_rss_mib: Option<f64>,
    pub executor_peak_rss_mib: Option<f64>,
    /// The largest single process of the tree (`/usr/bin/time`'s %M).
    pub tree_max_rss_mib: Option<f64>,
    /// Public methods and constructors under test, and those some run
    /// called with every argument non-null (testgen's report), and the
    /// share.
    #[serde(default)]
    pub methods: Option<u64>,
    #[serde(default)]
    pub methods_fully_built: Option<u64>,
    #[serde(default)]
    pub methods_fully_built_share: Option<f64>,
    /// The slowest class's generation time, and that over `--budget`
    /// (bounded work: never above 1.5).
    #[serde(default)]
    pub worst_class_seconds: Option<f64>,
    #[serde(default)]
    pub worst_class_over_budget: Option<f64>,
    /// Seconds per class (testgen's per-class `seconds`).
    pub class_seconds_median: Option<f64>,
    pub class_seconds_p90: Option<f64>,
    /// Added up over classes: worker-seconds, not wall time.
    pub class_seconds: Option<f64>,
    pub paths: Option<u64>,
    /// Plans run on the executor JVMs (exploring and measuring).
    pub runs: Option<u64>,
    pub solver_seconds: Option<f64>,
    pub explore_seconds: Option<f64>,
    /// paths / explore_seconds (per worker-second of exploring).
    pub paths_per_second: Option<f64>,
    /// solver_seconds / class_seconds.
    pub solver_share: Option<f64>,
    /// runs / class_seconds (per worker-second).
    pub plans_per_second: Option<f64>,
    /// The search engine: plans it ran and its seconds (worker-seconds),
    /// the branch outcomes its tests added to exploring's, and classes
    /// whose budget (not their count bounds) stopped exploring or search.
    #[serde(default)]
    pub search_runs: Option<u64>,
    #[serde(default)]
    pub search_seconds: Option<f64>,
    /// Of `search_seconds`, those spent running plans on the executor.
    #[serde(default)]
    pub search_executor_seconds: Option<f64>,
    #[serde(default)]
    pub search_goals: Option<u64>,
    #[serde(default)]
    pub stopped_by_budget: Option<u64>,
    /// search_runs / search_seconds.
    #[serde(default)]
    pub search_plans_per_second: Option<f64>,
    /// search_executor_seconds / search_seconds: where search's time goes.
    #[serde(default)]
    pub search_executor_share: Option<f64>,
    /// search_goals / testgen's covered branch outcomes: the share of the
    /// covered goals that search's tests added.
    #[serde(default)]
    pub search_goal_share: Option<f64>,
    /// testgen's own probe counts over every class's report.
    #[serde(default)]
    pub testgen_branches_covered: Option<u64>,
    #[serde(default)]
    pub testgen_branches: Option<u64>,
    /// Branch outcomes covered (testgen's probes) when each class has
    /// `seconds`: the runs at a sixth and at half of the budget, and the
    /// full run, in ascending `seconds`.
    #[serde(default)]
    pub coverage_rise: Vec<RisePoint>,
    /// Re-run with nothing changed, and after one class changed.
    pub unchanged: Option<Rerun>,
    pub changed: Option<Rerun>,
    /// Tests dropped, and kept tests with assertions left out, so that the
    /// rest pass wherever a build runs them: per cause (testgen's report).
    #[serde(default)]
    pub dropped: BTreeMap<String, u64>,
    #[serde(default)]
    pub repaired: BTreeMap<String, u64>,
    /// Classes with mutable static state, and of those, the ones whose
    /// tests call a reset of the class.
    #[serde(default)]
    pub static_state_classes: u64,
    #[serde(default)]
    pub static_resets: u64,
    /// Outcomes claimed proven infeasible, and claims a run of the class
    /// contradicted (must be 0).
    #[serde(default)]
    pub infeasible_claims: Option<u64>,
    #[serde(default)]
    pub infeasible_contradicted: Option<u64>,
    /// Uncovered outcomes per `reason.kind` of testgen's report.
    #[serde(default)]
    pub uncovered_by_kind: BTreeMap<String, u64>,
    /// Lines of the written tests that are a JUnit assertion, and per test.
    #[serde(default)]
    pub assertions: Option<u64>,
    #[serde(default)]
    pub assertions_per_test: Option<f64>,
    /// Mutation analysis (testgen's report): mutants some test calls the
    /// method of and that were run, those the tests catch, the share,
    /// mutants in methods no test calls, and those left for lack of time.
    #[serde(default)]
    pub mutants_analysed: Option<u64>,
    #[serde(default)]
    pub mutants_killed: Option<u64>,
    #[serde(default)]
    pub mutation_score: Option<f64>,
    #[serde(default)]
    pub mutants_unreached: Option<u64>,
    #[serde(default)]
    pub mutants_not_analysed: Option<u64>,
    /// Its seconds (worker-seconds), and those over the rest of the
    /// classes' seconds: the time mutation analysis adds.
    #[serde(default)]
    pub mutation_seconds: Option<f64>,
    #[serde(default)]
    pub mutation_time_share: Option<f64>,
    /// Tests added because they catch mutants the others miss.
    #[serde(default)]
    pub mutant_killers: Option<u64>,
    /// Undeclared exceptions from inside the JDK, reported and not written
    /// as tests.
    #[serde(default)]
    pub possible_bugs: Option<u64>,
    /// The review rubric (tests/REVIEW_RUBRIC.md) over the written tests.
    #[serde(default)]
    pub review: crate::rubric::Review,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RisePoint {
    /// `--budget` of the run.
    pub seconds: u64,
    pub branches_covered: u64,
    pub branches: u64,
}

impl RisePoint {
    pub fn coverage(&self) -> Option<f64> {
        (self.branches > 0).then(|| self.branches_covered as f64 / self.branches as f64)
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Rerun {
    /// Wall time of the re-run, and its ratio to the full run's.
    pub seconds: Option<f64>,
    pub ratio: Option<f64>,
    pub cpu_seconds: Option<f64>,
    /// Classes per status in the re-run's report (zeros left out).
    pub statuses: BTreeMap<String, u64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ClassRow {
    pub class: String,
    pub status: String,
    pub tests: u64,
    pub failing: u64,
    /// JaCoCo (null when JaCoCo has no such class).
    pub lines_covered: Option<u64>,
    pub lines: Option<u64>,
    pub branches_covered: Option<u64>,
    pub branches: Option<u64>,
    /// Generation time of the class.
    pub seconds: Option<f64>,
    pub paths: Option<u64>,
    pub runs: Option<u64>,
    pub solver_seconds: Option<f64>,
    /// testgen's own probe counts of branch outcomes.
    pub testgen_branches: Option<u64>,
    pub testgen_branches_covered: Option<u64>,
}

fn div(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// Sum of the values, or None when any is missing.
fn sum<T: std::iter::Sum<T>>(values: impl Iterator<Item = Option<T>>) -> Option<T> {
    values
        .collect::<Option<Vec<T>>>()
        .map(|v| v.into_iter().sum())
}

/// Counts per key, added up.
fn add_up<'a>(maps: impl Iterator<Item = &'a BTreeMap<String, u64>>) -> BTreeMap<String, u64> {
    let mut total = BTreeMap::new();
    for map in maps {
        for (key, count) in map {
            *total.entry(key.clone()).or_default() += count;
        }
    }
    total
}

/// The corpora's rise points added up per budget, for the budgets every
/// corpus has.
fn rise_total(corpora: &[Corpus]) -> Vec<RisePoint> {
    let Some(first) = corpora.first() else {
        return Vec::new();
    };
    first
        .figures
        .coverage_rise
        .iter()
        .filter_map(|point| {
            let at = |c: &Corpus| {
                c.figures
                    .coverage_rise
                    .iter()
                    .find(|p| p.seconds == point.seconds)
                    .cloned()
            };
            let all: Option<Vec<RisePoint>> = corpora.iter().map(at).collect();
            let all = all?;
            Some(RisePoint {
                seconds: point.seconds,
                branches_covered: all.iter().map(|p| p.branches_covered).sum(),
                branches: all.iter().map(|p| p.branches).sum(),
            })
        })
        .collect()
}

fn max(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    values.flatten().reduce(f64::max)
}

impl Figures {
    /// Fills the ratios from the counts.
    pub fn derive(&mut self) {
        let f = |v: Option<u64>| v.map(|v| v as f64);
        self.line_coverage = div(f(self.lines_covered), f(self.lines));
        self.branch_coverage = div(f(self.branches_covered), f(self.branches));
        self.paths_per_second = div(f(self.paths), self.explore_seconds);
        self.solver_share = div(self.solver_seconds, self.class_seconds);
        self.plans_per_second = div(f(self.runs), self.class_seconds);
        self.search_plans_per_second = div(f(self.search_runs), self.search_seconds);
        self.search_executor_share = div(self.search_executor_seconds, self.search_seconds);
        self.search_goal_share = div(f(self.search_goals), f(self.testgen_branches_covered));
        self.methods_fully_built_share = div(f(self.methods_fully_built), f(self.methods));
        self.assertions_per_test = div(f(self.assertions), Some(self.tests as f64));
        self.mutation_score = div(f(self.mutants_killed), f(self.mutants_analysed));
        let generation = self
            .class_seconds
            .zip(self.mutation_seconds)
            .map(|(all, mutation)| all - mutation);
        self.mutation_time_share = div(self.mutation_seconds, generation);
    }

    /// All corpora together: counts and times added up, memory and the
    /// worst class the largest, percentiles over every class.
    pub fn total(corpora: &[Corpus]) -> Figures {
        let figs = || corpora.iter().map(|c| &c.figures);
        let seconds: Vec<f64> = corpora
            .iter()
            .flat_map(|c| c.classes.iter().filter_map(|r| r.seconds))
            .collect();
        let (median, p90) = crate::collect::median_p90(&seconds);
        let rerun = |pick: fn(&Figures) -> &Option<Rerun>| -> Option<Rerun> {
            let runs: Option<Vec<&Rerun>> = figs().map(|f| pick(f).as_ref()).collect();
            let runs = runs?;
            let seconds = sum(runs.iter().map(|r| r.seconds));
            let mut statuses = BTreeMap::new();
            for r in &runs {
                for (k, v) in &r.statuses {
                    *statuses.entry(k.clone()).or_default() += v;
                }
            }
            Some(Rerun {
                seconds,
                ratio: div(seconds, sum(figs().map(|f| f.wall_seconds))),
                cpu_seconds: sum(runs.iter().map(|r| r.cpu_seconds)),
                statuses,
            })
        };
        let mut total = Figures {
            classes: figs().map(|f| f.classes).sum(),
            tests: figs().map(|f| f.tests).sum(),
            failing: figs().map(|f| f.failing).sum(),
            compile_errors: figs().map(|f| f.compile_errors).sum(),
            compile_warnings: figs().map(|f| f.compile_warnings).sum(),
            lines_covered: sum(figs().map(|f| f.lines_covered)),
            lines: sum(figs().map(|f| f.lines)),
            branches_covered: sum(figs().map(|f| f.branches_covered)),
            branches: sum(figs().map(|f| f.branches)),
            wall_seconds: sum(figs().map(|f| f.wall_seconds)),
            cpu_seconds: sum(figs().map(|f| f.cpu_seconds)),
            testgen_peak_rss_mib: max(figs().map(|f| f.testgen_peak_rss_mib)),
            executor_peak_rss_mib: max(figs().map(|f| f.executor_peak_rss_mib)),
            tree_max_rss_mib: max(figs().map(|f| f.tree_max_rss_mib)),
            methods: sum(figs().map(|f| f.methods)),
            methods_fully_built: sum(figs().map(|f| f.methods_fully_built)),
            worst_class_seconds: max(figs().map(|f| f.worst_class_seconds)),
            worst_class_over_budget: max(figs().map(|f| f.worst_class_over_budget)),
            class_seconds_median: median,
            class_seconds_p90: p90,
            class_seconds: sum(figs().map(|f| f.class_seconds)),
            paths: sum(figs().map(|f| f.paths)),
            runs: sum(figs().map(|f| f.runs)),
            solver_seconds: sum(figs().map(|f| f.solver_seconds)),
            explore_seconds: sum(figs().map(|f| f.explore_seconds)),
            search_runs: sum(figs().map(|f| f.search_runs)),
            search_seconds: sum(figs().map(|f| f.search_seconds)),
            search_executor_seconds: sum(figs().map(|f| f.search_executor_seconds)),
            search_goals: sum(figs().map(|f| f.search_goals)),
            stopped_by_budget: sum(figs().map(|f| f.stopped_by_budget)),
            testgen_branches_covered: sum(figs().map(|f| f.testgen_branches_covered)),
            testgen_branches: sum(figs().map(|f| f.testgen_branches)),
            coverage_rise: rise_total(corpora),
            unchanged: rerun(|f| &f.unchanged),
            changed: rerun(|f| &f.changed),
            dropped: add_up(figs().map(|f| &f.dropped)),
            infeasible_claims: sum(figs().map(|f| f.infeasible_claims)),
            infeasible_contradicted: sum(figs().map(|f| f.infeasible_contradicted)),
            uncovered_by_kind: add_up(figs().map(|f| &f.uncovered_by_kind)),
            repaired: add_up(figs().map(|f| &f.repaired)),
            static_state_classes: figs().map(|f| f.static_state_classes).sum(),
            static_resets: figs().map(|f| f.static_resets).sum(),
            assertions: sum(figs().map(|f| f.assertions)),
            mutants_analysed: sum(figs().map(|f| f.mutants_analysed)),
            mutants_killed: sum(figs().map(|f| f.mutants_killed)),
            mutants_unreached: sum(figs().map(|f| f.mutants_unreached)),
            mutants_not_analysed: sum(figs().map(|f| f.mutants_not_analysed)),
            mutation_seconds: sum(figs().map(|f| f.mutation_seconds)),
            mutant_killers: sum(figs().map(|f| f.mutant_killers)),
            possible_bugs: sum(figs().map(|f| f.possible_bugs)),
            review: figs().fold(crate::rubric::Review::default(), |mut all, f| {
                all.add(&f.review);
                all
            }),
            ..Figures::default()
        };
        if corpora.is_empty() {
            total.unchanged = None;
            total.changed = None;
        }
        total.derive();
        total
    }

    /// The share of the reviewed tests that `count` flags.
    fn review_share(&self, count: impl Fn(&crate::rubric::Review) -> u64) -> Option<f64> {
        (self.review.tests > 0).then(|| count(&self.review) as f64 / self.review.tests as f64)
    }

    /// The figures every table and the comparison print, in order: name,
    /// value, and how to show it.
    pub fn named(&self) -> Vec<(&'static str, Option<f64>, Unit)> {
        let f = |v: Option<u64>| v.map(|v| v as f64);
        let rerun = |r: &Option<Rerun>| r.as_ref().and_then(|r| r.seconds);
        vec![
            ("classes", Some(self.classes as f64), Unit::Count),
            ("tests kept", Some(self.tests as f64), Unit::Count),
            ("tests failing", Some(self.failing as f64), Unit::Count),
            (
                "compile errors",
                Some(self.compile_errors as f64),
                Unit::Count,
            ),
            (
                "javac warnings",
                Some(self.compile_warnings as f64),
                Unit::Count,
            ),
            ("line coverage", self.line_coverage, Unit::Percent),
            ("branch coverage", self.branch_coverage, Unit::Percent),
            ("lines covered", f(self.lines_covered), Unit::Count),
            ("branches covered", f(self.branches_covered), Unit::Count),
            ("assertions/test", self.assertions_per_test, Unit::Ratio),
            ("mutation score", self.mutation_score, Unit::Percent),
            ("mutants analysed", f(self.mutants_analysed), Unit::Count),
            (
                "mutants no test calls",
                f(self.mutants_unreached),
                Unit::Count,
            ),
            (
                "mutants not run (time)",
                f(self.mutants_not_analysed),
                Unit::Count,
            ),
            (
                "mutation time share",
                self.mutation_time_share,
                Unit::Percent,
            ),
            (
                "tests added by mutants",
                f(self.mutant_killers),
                Unit::Count,
            ),
            ("possible bugs", f(self.possible_bugs), Unit::Count),
            (
                "rubric: solver literals",
                self.review_share(|r| r.solver_literals),
                Unit::Percent,
            ),
            (
                "rubric: only NPE/notNull",
                self.review_share(|r| r.weak_oracle),
                Unit::Percent,
            ),
            (
                "rubric: no assertion",
                self.review_share(|r| r.no_assertion),
                Unit::Percent,
            ),
            (
                "rubric: numbered names",
                self.review_share(|r| r.numeric_suffix),
                Unit::Percent,
            ),
            (
                "methods fully built",
                self.methods_fully_built_share,
                Unit::Percent,
            ),
            ("generate wall s", self.wall_seconds, Unit::Seconds),
            ("generate CPU s", self.cpu_seconds, Unit::Seconds),
            ("testgen peak RSS MiB", self.testgen_peak_rss_mib, Unit::Mib),
            (
                "executor peak RSS MiB",
                self.executor_peak_rss_mib,
                Unit::Mib,
            ),
            ("s/class median", self.class_seconds_median, Unit::Seconds),
            ("s/class p90", self.class_seconds_p90, Unit::Seconds),
            ("worst class s", self.worst_class_seconds, Unit::Seconds),
            (
                "worst class / budget",
                self.worst_class_over_budget,
                Unit::Ratio,
            ),
            ("paths", f(self.paths), Unit::Count),
            ("paths/s", self.paths_per_second, Unit::Rate),
            ("solver share", self.solver_share, Unit::Percent),
            ("plans", f(self.runs), Unit::Count),
            ("plans/s", self.plans_per_second, Unit::Rate),
            ("search plans", f(self.search_runs), Unit::Count),
            ("search plans/s", self.search_plans_per_second, Unit::Rate),
            ("goals by search", self.search_goal_share, Unit::Percent),
            (
                "classes stopped by budget",
                f(self.stopped_by_budget),
                Unit::Count,
            ),
            ("unchanged re-run s", rerun(&self.unchanged), Unit::Seconds),
            ("changed re-run s", rerun(&self.changed), Unit::Seconds),
            ("infeasible claims", f(self.infeasible_claims), Unit::Count),
            (
                "infeasible claims contradicted",
                f(self.infeasible_contradicted),
                Unit::Count,
            ),
            (
                "tests dropped (portability)",
                Some(self.dropped.values().sum::<u64>() as f64),
                Unit::Count,
            ),
            (
                "tests repaired (portability)",
                Some(self.repaired.values().sum::<u64>() as f64),
                Unit::Count,
            ),
        ]
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    Count,
    Percent,
    Seconds,
    Mib,
    Rate,
    Ratio,
}

impl Unit {
    pub fn show(self, value: Option<f64>) -> String {
        let Some(v) = value else {
            return "-".into();
        };
        match self {
            Unit::Count => format!("{v:.0}"),
            Unit::Percent => format!("{:.1}%", 100.0 * v),
            Unit::Seconds if v < 10.0 => format!("{v:.2}"),
            Unit::Seconds => format!("{v:.1}"),
            Unit::Mib => format!("{v:.0}"),
            Unit::Rate => format!("{v:.1}"),
            Unit::Ratio => format!("{v:.2}"),
        }
    }
}
