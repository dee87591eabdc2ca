//! `testgen-report.json`: one entry per class under test (and per stale
//! file removed) plus a run summary. Keys are sorted and classes ordered by
//! name, so two runs differ only in their timings. `testgen-report.html`,
//! the same report for a person, is rendered from the same JSON value
//! ([`super::html`]) and written with it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use testgen_project::{Blocker, Culprit};

use super::class::{
    MutationScore, MutationSummary, PossibleBug, ReasonKind, Uncovered, UncoveredReason,
};
use super::error::{FileAction, FileError};
use super::inputs::InputsBuilt;
use super::portability::{Portability, StaticState};
use super::sources::SourceLookup;

pub const REPORT_FILE: &str = "testgen-report.json";

/// What happened to a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Its tests were generated and validated now (a class whose tests all
    /// failed validation has status `generated` and `tests: 0`).
    Generated,
    /// Unchanged since the last run (incremental mode; not produced yet).
    Unchanged,
    /// Unchanged, old tests revalidated (incremental mode; not produced yet).
    Revalidated,
    /// The class is no longer under test; its generated file was deleted.
    Removed,
    /// Nothing could be written; `reason` says why.
    Failed,
}

impl Status {
    pub const ALL: [Status; 5] = [
        Status::Generated,
        Status::Unchanged,
        Status::Revalidated,
        Status::Removed,
        Status::Failed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Status::Generated => "generated",
            Status::Unchanged => "unchanged",
            Status::Revalidated => "revalidated",
            Status::Removed => "removed",
            Status::Failed => "failed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UncoveredEntry {
    /// `pkg.Class.name(descriptor)`.
    pub method: String,
    pub line: u32,
    /// `taken`, `not_taken`, `case:K`, `default`.
    pub outcome: String,
    pub reason: Reason,
    /// What kept exploring from the outcome, as data, when it was not
    /// reached.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blockers: Vec<Blocker>,
}

impl UncoveredEntry {
    pub fn of(uncovered: &Uncovered) -> UncoveredEntry {
        UncoveredEntry {
            method: uncovered.goal.method.to_string(),
            line: uncovered.line,
            outcome: uncovered.goal.outcome.label(),
            reason: Reason::of(uncovered),
            blockers: match &uncovered.reason {
                UncoveredReason::Blocked { blockers } => blockers.clone(),
                _ => Vec::new(),
            },
        }
    }
}

/// Why an outcome stayed uncovered, for people and for tools.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reason {
    pub kind: ReasonKind,
    /// One line a person reads.
    pub text: String,
    /// The source line the reason points at: the culprit call's, else the
    /// outcome's (0 without line numbers).
    pub line: u32,
    /// What Covana's analysis blames, when it names something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub culprit: Option<Culprit>,
    /// What a developer can do about it, when there is something to say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

impl Reason {
    pub fn of(uncovered: &Uncovered) -> Reason {
        let kind = uncovered.kind();
        let (text, line) = match &uncovered.culprit {
            Some(culprit @ Culprit::ExternalCall { line, .. }) => (culprit.to_string(), *line),
            Some(culprit) => (culprit.to_string(), uncovered.line),
            None => (uncovered.reason.to_string(), uncovered.line),
        };
        Reason {
            kind,
            text,
            line,
            culprit: uncovered.culprit.clone(),
            suggestion: match &uncovered.culprit {
                Some(culprit) => Some(culprit.suggestion()),
                None => suggestion(kind),
            },
        }
    }
}

/// What to do about an outcome no culprit explains, by its kind.
fn suggestion(kind: ReasonKind) -> Option<String> {
    let text = match kind {
        ReasonKind::Budget => "give the class a larger --budget",
        ReasonKind::LoopBound | ReasonKind::PathLength => {
            "the outcome needs more loop iterations than explored: a larger --budget, or a \
             test with that input written by hand"
        }
        ReasonKind::ObjectNotBuilt => {
            "add a public constructor or a static factory that makes the object"
        }
        ReasonKind::NotReachedFromPublicMethods => {
            "no public method calls this code: test it through its callers, or remove it"
        }
        ReasonKind::RunHung => {
            "the code loops or waits on the inputs it got; check its exit conditions"
        }
        ReasonKind::Dropped | ReasonKind::NotKept => {
            "a run reached it, but its test could not be kept (see the reason)"
        }
        ReasonKind::PossibleBug => {
            "see the possible bug: once the method handles that input, a test can cover it \
             (or --possible-bugs assert writes the test as it is)"
        }
        _ => return None,
    };
    Some(text.to_string())
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClassEntry {
    /// Binary name.
    pub class: String,
    pub sha256: String,
    pub status: Status,
    /// Test methods written.
    pub tests: usize,
    /// javac's raw-type and unchecked warnings about them (`-Xlint:rawtypes,unchecked`;
    /// 0 for a class whose tests were not compiled in this run).
    pub javac_warnings: usize,
    /// Branch outcomes of the class's own methods.
    pub branches: usize,
    /// Of those, the ones the written tests reach (by testgen's probes).
    pub branches_covered: usize,
    /// Of the uncovered ones, those the solver proved unreachable.
    pub branches_infeasible: usize,
    /// Claims of infeasibility that a run of the class contradicted: the
    /// audit reports those outcomes as reached (must be 0; each is a
    /// defect).
    pub infeasible_contradicted: usize,
    pub uncovered: Vec<UncoveredEntry>,
    /// The generated file, relative to `--out`, when one was written or removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Tests dropped, and kept tests with assertions left out, so that the
    /// rest pass wherever the build runs them, per cause.
    #[serde(skip_serializing_if = "Portability::is_empty")]
    pub portability: Portability,
    /// The class's mutable static fields and the reset its tests call.
    #[serde(skip_serializing_if = "StaticState::is_empty")]
    pub static_state: StaticState,
    /// Which methods some run called with every argument built.
    pub inputs: InputsBuilt,
    #[serde(flatten)]
    pub effort: Effort,
    /// What the written tests catch of the class's mutants (`--mutation
    /// report`; absent when not analysed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mutation: Option<MutationScore>,
    /// Exceptions that escaped from inside the JDK through a method that
    /// does not declare them, each with the test that shows it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub possible_bugs: Vec<PossibleBug>,
    /// Seconds since the run started when the class's outcome came in (0
    /// for a class not generated or revalidated in this run): the time
    /// axis of the HTML report's coverage curve.
    #[serde(default)]
    pub finished_seconds: f64,
}

/// What generating a class cost (zero for a class that was not generated).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Effort {
    pub methods_explored: usize,
    /// Of those, methods whose exploration was reused from the cache (their
    /// code, and that of what they call in the class, did not change).
    pub methods_reused: usize,
    /// Distinct covering plans the explorations offered (tests are chosen
    /// from these).
    pub candidates: usize,
    /// Plans run on the executor, exploring and measuring.
    pub runs: usize,
    /// Paths explored: exploration runs (of a method's tree reused from
    /// the cache, none).
    pub paths: usize,
    /// Seconds in the solver, and exploring in all (solver included).
    pub solver_seconds: f64,
    pub explore_seconds: f64,
    /// Plans the search ran, its seconds, and the branch outcomes its
    /// tests added to what exploring's tests cover (before validation).
    pub search_runs: usize,
    pub search_seconds: f64,
    /// Of `search_seconds`, those spent running plans on the executor.
    #[serde(default)]
    pub search_executor_seconds: f64,
    pub search_goals: usize,
    /// Tests added because they catch a mutant the tests chosen for
    /// coverage miss (`--mutation select`), before validation.
    #[serde(default)]
    pub mutant_killers: usize,
    /// Tests whose act throws `NullPointerException` left out because
    /// other tests cover all they do, their method included (before
    /// validation).
    #[serde(default)]
    pub null_checks_left_out: usize,
    /// 1 when the class's time, not its count bounds (`--max-runs`,
    /// `--max-evaluations`), ended exploring or search: its tests may
    /// differ between runs on machines of other speeds (0 otherwise; the
    /// summary counts such classes).
    pub stopped_by_budget: usize,
    pub seconds: f64,
}

impl Effort {
    fn add(&mut self, other: &Effort) {
        self.methods_explored += other.methods_explored;
        self.methods_reused += other.methods_reused;
        self.candidates += other.candidates;
        self.runs += other.runs;
        self.paths += other.paths;
        self.solver_seconds += other.solver_seconds;
        self.explore_seconds += other.explore_seconds;
        self.search_runs += other.search_runs;
        self.search_seconds += other.search_seconds;
        self.search_executor_seconds += other.search_executor_seconds;
        self.search_goals += other.search_goals;
        self.mutant_killers += other.mutant_killers;
        self.null_checks_left_out += other.null_checks_left_out;
        self.stopped_by_budget += other.stopped_by_budget;
        self.seconds += other.seconds;
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    pub location: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub classes: usize,
    /// Classes per status (every status, zero included).
    pub statuses: BTreeMap<&'static str, usize>,
    pub tests: usize,
    pub javac_warnings: usize,
    pub branches: usize,
    pub branches_covered: usize,
    pub branches_infeasible: usize,
    pub infeasible_contradicted: usize,
    pub junit: u8,
    pub mode: &'static str,
    pub seed: u64,
    /// `--total-budget`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_budget_seconds: Option<f64>,
    pub wall_seconds: f64,
    /// The classes' efforts added up (their `seconds` add up to more than
    /// the wall time when classes ran in parallel).
    pub effort: Effort,
    /// The classes' portability figures added up.
    pub portability: Portability,
    /// Classes with mutable static state.
    pub classes_with_static_state: usize,
    /// Methods under test, and those some run called with every argument
    /// built, over all classes.
    pub inputs: InputsBuilt,
    /// The classes' mutation figures added up.
    pub mutation: MutationSummary,
    /// The classes' possible bugs counted.
    pub possible_bugs: usize,
    /// Peak resident memory of testgen itself and of the largest executor
    /// JVM, in KiB (Linux's `VmHWM`; 0 where it cannot be read).
    pub peak_rss_kib: u64,
    pub executor_peak_rss_kib: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub classes: Vec<ClassEntry>,
    /// Input entries that could not be read, parsed or instrumented.
    pub problems: Vec<Problem>,
    pub summary: Summary,
}

impl Report {
    /// Sorts the classes and fills the summary's totals from them.
    pub fn finish(&mut self) {
        self.classes.sort_by(|a, b| {
            a.class
                .cmp(&b.class)
                .then(a.status.cmp(&b.status))
                .then(a.file.cmp(&b.file))
        });
        let summary = &mut self.summary;
        summary.classes = self.classes.len();
        summary.statuses = Status::ALL.iter().map(|s| (s.name(), 0)).collect();
        for class in &self.classes {
            *summary.statuses.entry(class.status.name()).or_default() += 1;
        }
        summary.tests = self.classes.iter().map(|c| c.tests).sum();
        summary.javac_warnings = self.classes.iter().map(|c| c.javac_warnings).sum();
        summary.branches = self.classes.iter().map(|c| c.branches).sum();
        summary.branches_covered = self.classes.iter().map(|c| c.branches_covered).sum();
        summary.branches_infeasible = self.classes.iter().map(|c| c.branches_infeasible).sum();
        summary.infeasible_contradicted =
            self.classes.iter().map(|c| c.infeasible_contradicted).sum();
        summary.effort = Effort::default();
        summary.portability = Portability::default();
        summary.inputs = InputsBuilt::default();
        summary.mutation = MutationSummary::default();
        for class in &self.classes {
            if let Some(score) = &class.mutation {
                summary.mutation.add(score);
            }
            summary.effort.add(&class.effort);
            summary.portability.add(&class.portability);
            summary.inputs.add(&class.inputs);
        }
        summary.possible_bugs = self.classes.iter().map(|c| c.possible_bugs.len()).sum();
        summary.classes_with_static_state = self
            .classes
            .iter()
            .filter(|c| !c.static_state.fields.is_empty())
            .count();
    }

    /// `3 classes (1 generated, 2 unchanged), 25 tests, 40/44 branch outcomes covered (2 proven infeasible), 30/40 mutants caught (75%), 1 possible bug, 12.3 s`:
    /// the statuses that occurred, in [`Status::ALL`] order, and how many
    /// classes their `--budget` stopped (whose tests may differ on a
    /// machine of another speed), when any did.
    pub fn summary_line(&self) -> String {
        let s = &self.summary;
        let statuses: Vec<String> = Status::ALL
            .iter()
            .filter_map(|status| {
                let count = s.statuses.get(status.name()).copied().unwrap_or(0);
                (count > 0).then(|| format!("{count} {}", status.name()))
            })
            .collect();
        let contradicted = match s.infeasible_contradicted {
            0 => String::new(),
            n => format!(", {n} of them contradicted by a run"),
        };
        let stopped = match s.effort.stopped_by_budget {
            0 => String::new(),
            1 => ", 1 class stopped by its budget".to_string(),
            n => format!(", {n} classes stopped by their budget"),
        };
        let mutants = match s.mutation.analysed {
            0 => String::new(),
            analysed => format!(
                ", {}/{analysed} mutants caught ({:.0}%)",
                s.mutation.killed,
                100.0 * s.mutation.killed as f64 / analysed as f64
            ),
        };
        let bugs = match s.possible_bugs {
            0 => String::new(),
            1 => ", 1 possible bug".to_string(),
            n => format!(", {n} possible bugs"),
        };
        format!(
            "{} classes ({}), {} tests, {}/{} branch outcomes covered ({} proven infeasible{contradicted}){mutants}{bugs}{stopped}, {:.1} s",
            s.classes,
            if statuses.is_empty() { "none".to_string() } else { statuses.join(", ") },
            s.tests,
            s.branches_covered,
            s.branches,
            s.branches_infeasible,
            s.wall_seconds
        )
    }

    /// The problems that left the most outcomes uncovered across the run,
    /// most first, one line each: a culprit Covana's analysis named (the
    /// same call, or the same field chain, counted together), else the
    /// kind of blocker. Reached outcomes whose tests were not kept and
    /// proven infeasible ones are no problem to act on.
    pub fn top_problems(&self, limit: usize) -> Vec<String> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for entry in self.classes.iter().flat_map(|class| &class.uncovered) {
            let reason = &entry.reason;
            let line = match (&reason.culprit, reason.kind) {
                (Some(Culprit::ExternalCall { call, .. }), _) => {
                    format!("depend on what {call} returns")
                }
                (Some(Culprit::ObjectState { class, fields, .. }), _) => {
                    format!(
                        "need a {class} whose {} is in another state",
                        fields.join(".")
                    )
                }
                (
                    None,
                    ReasonKind::ProvenInfeasible
                    | ReasonKind::Dropped
                    | ReasonKind::NotKept
                    | ReasonKind::PossibleBug,
                ) => continue,
                (None, kind) => format!("not reached: {}", kind.name().replace('_', " ")),
            };
            *counts.entry(line).or_default() += 1;
        }
        let mut ranked: Vec<(String, usize)> = counts.into_iter().collect();
        // Most first; ties in text order, so the lines are deterministic.
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        ranked
            .into_iter()
            .take(limit)
            .map(|(line, count)| {
                let outcomes = if count == 1 {
                    "branch outcome"
                } else {
                    "branch outcomes"
                };
                format!("{count} {outcomes} {line}")
            })
            .collect()
    }

    /// Writes `testgen-report.json` into `dir` (created if needed), and
    /// beside it `testgen-report.html`, rendered from the same JSON value
    /// (with the source lines `sources` has), and `testgen.sarif`, the
    /// findings; returns the JSON's path.
    pub fn write(&self, dir: &Path, sources: &SourceLookup) -> Result<PathBuf, FileError> {
        fs::create_dir_all(dir).map_err(FileError::io(FileAction::Create, dir))?;
        let path = dir.join(REPORT_FILE);
        // Through `Value`, whose maps are sorted, so every key is in order.
        let value = serde_json::to_value(self).map_err(FileError::encode(&path))?;
        let mut text = serde_json::to_string_pretty(&value).map_err(FileError::encode(&path))?;
        text.push('\n');
        fs::write(&path, text).map_err(FileError::io(FileAction::Write, &path))?;
        let html = dir.join(super::html::HTML_FILE);
        fs::write(&html, super::html::render(&value, sources))
            .map_err(FileError::io(FileAction::Write, &html))?;
        let sarif = dir.join(super::sarif::SARIF_FILE);
        let log = super::sarif::render(self);
        let mut text = serde_json::to_string_pretty(&log).map_err(FileError::encode(&sarif))?;
        text.push('\n');
        fs::write(&sarif, text).map_err(FileError::io(FileAction::Write, &sarif))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::class::Survivor;

    fn entry(class: &str, status: Status, tests: usize) -> ClassEntry {
        ClassEntry {
            class: class.into(),
            sha256: "ab".into(),
            status,
            tests,
            javac_warnings: 0,
            branches: 4,
            branches_covered: 3,
            branches_infeasible: 1,
            infeasible_contradicted: 0,
            uncovered: vec![UncoveredEntry {
                method: format!("{class}.f(I)I"),
                line: 7,
                outcome: "taken".into(),
                reason: Reason {
                    kind: ReasonKind::ProvenInfeasible,
                    text: "proven infeasible".into(),
                    line: 7,
                    culprit: None,
                    suggestion: None,
                },
                blockers: Vec::new(),
            }],
            file: None,
            reason: None,
            portability: Portability::default(),
            static_state: StaticState::default(),
            inputs: InputsBuilt {
                methods: 2,
                fully_built: 1,
                lacking: Vec::new(),
            },
            effort: Effort {
                methods_explored: 1,
                methods_reused: 0,
                candidates: 3,
                runs: 5,
                paths: 4,
                solver_seconds: 0.25,
                explore_seconds: 0.375,
                search_runs: 7,
                search_seconds: 0.125,
                search_executor_seconds: 0.0625,
                search_goals: 1,
                mutant_killers: 1,
                null_checks_left_out: 0,
                stopped_by_budget: 0,
                seconds: 0.5,
            },
            mutation: Some(MutationScore {
                mutants: 6,
                unreached: 1,
                analysed: 4,
                killed: 3,
                rejected: 0,
                not_analysed: 1,
                seconds: 0.25,
                survivors: vec![Survivor {
                    method: "f(I)I".into(),
                    line: 7,
                    operator: testgen_mutate::Operator::ConditionalBoundary,
                    change: "if_icmpge became if_icmpgt".into(),
                }],
            }),
            possible_bugs: vec![PossibleBug {
                method: "f(I)I".into(),
                declaration: "int f(int)".into(),
                exception: "java.lang.StringIndexOutOfBoundsException".into(),
                message: Some("index 3, length 1".into()),
                thrown_in: "java.lang.String.charAt".into(),
                file: Some("p/A.java".into()),
                line: Some(9),
                test: "@Test\nvoid fThrows() {\n}\n".into(),
            }],
            finished_seconds: 0.75,
        }
    }

    fn empty_summary() -> Summary {
        Summary {
            classes: 0,
            statuses: BTreeMap::new(),
            tests: 0,
            javac_warnings: 0,
            branches: 0,
            branches_covered: 0,
            branches_infeasible: 0,
            infeasible_contradicted: 0,
            junit: 5,
            mode: "full",
            seed: 0,
            total_budget_seconds: None,
            wall_seconds: 1.25,
            effort: Effort::default(),
            portability: Portability::default(),
            classes_with_static_state: 0,
            inputs: InputsBuilt::default(),
            mutation: MutationSummary::default(),
            possible_bugs: 0,
            peak_rss_kib: 0,
            executor_peak_rss_kib: 0,
        }
    }

    #[test]
    fn top_problems_count_one_culprit_across_classes() {
        let file_exists = |line| Reason {
            kind: ReasonKind::ExternalCall,
            text: String::new(),
            line,
            culprit: Some(Culprit::ExternalCall {
                call: "java.io.File.exists()".into(),
                line,
            }),
            suggestion: None,
        };
        let mut a = entry("p.A", Status::Generated, 1);
        let mut b = entry("p.B", Status::Generated, 1);
        a.uncovered[0].reason = file_exists(3);
        b.uncovered[0].reason = file_exists(9);
        let mut budget = b.uncovered[0].clone();
        budget.reason.kind = ReasonKind::Budget;
        budget.reason.culprit = None;
        b.uncovered.push(budget);
        let report = Report {
            classes: vec![a, b, entry("p.C", Status::Generated, 1)],
            problems: Vec::new(),
            summary: empty_summary(),
        };
        assert_eq!(
            report.top_problems(5),
            [
                "2 branch outcomes depend on what java.io.File.exists() returns",
                "1 branch outcome not reached: budget",
            ]
        );
        assert_eq!(report.top_problems(1).len(), 1);
    }

    #[test]
    fn summary_counts_every_status_and_keys_are_sorted() {
        let mut report = Report {
            classes: vec![
                entry("p.B", Status::Failed, 0),
                entry("p.A", Status::Generated, 2),
            ],
            problems: Vec::new(),
            summary: empty_summary(),
        };
        report.finish();
        assert_eq!(report.classes[0].class, "p.A");
        assert_eq!(report.summary.statuses["generated"], 1);
        assert_eq!(report.summary.statuses["failed"], 1);
        assert_eq!(report.summary.statuses["unchanged"], 0);
        assert_eq!(report.summary.tests, 2);
        assert_eq!(report.summary.branches_covered, 6);
        assert_eq!(report.summary.effort.paths, 8);
        assert_eq!(report.summary.effort.solver_seconds, 0.5);
        assert_eq!(
            (
                report.summary.inputs.methods,
                report.summary.inputs.fully_built
            ),
            (4, 2)
        );
        assert_eq!(
            (
                report.summary.mutation.classes,
                report.summary.mutation.analysed,
                report.summary.mutation.killed,
                report.summary.effort.mutant_killers
            ),
            (2, 8, 6, 2)
        );
        assert_eq!(
            report.summary_line(),
            "2 classes (1 generated, 1 failed), 2 tests, 6/8 branch outcomes covered (2 proven infeasible), 6/8 mutants caught (75%), 2 possible bugs, 1.2 s"
        );
        report.classes[1].effort.stopped_by_budget = 1;
        report.finish();
        assert_eq!(
            report.summary_line(),
            "2 classes (1 generated, 1 failed), 2 tests, 6/8 branch outcomes covered (2 proven infeasible), 6/8 mutants caught (75%), 2 possible bugs, 1 class stopped by its budget, 1.2 s"
        );

        let dir = std::env::temp_dir()
            .join("testgen-driver-tests")
            .join(format!("report-{}", std::process::id()));
        let path = report.write(&dir, &SourceLookup::none()).unwrap();
        let text = fs::read_to_string(path).unwrap();
        // The page beside it shows the same figures.
        let html = fs::read_to_string(dir.join(super::super::html::HTML_FILE)).unwrap();
        assert!(html.contains("id=\"summary-tests\">2<"), "{html}");
        assert_eq!(html.matches("class=\"class-row\"").count(), 2);
        let first = text.find("\"branches\"").unwrap();
        let class = text.find("\"class\"").unwrap();
        let uncovered = text.find("\"uncovered\"").unwrap();
        assert!(first < class && class < uncovered, "{text}");
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["classes"][1]["status"], "failed");
        assert_eq!(parsed["summary"]["wall_seconds"], 1.25);
        // Effort figures sit beside the other fields of a class.
        assert_eq!(parsed["classes"][0]["paths"], 4);
    }
}
