//! The text tables `testgen-bench` prints.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::model::{Bench, Figures, Rerun, Unit};

/// Columns padded to their widest cell; the first left-aligned, the rest
/// right-aligned.
pub fn grid(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
    }
    let mut out = String::new();
    let header: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let width = widths.get(i).copied().unwrap_or(0);
            if i == 0 {
                let _ = write!(line, "{cell:<width$}");
            } else {
                let _ = write!(line, "  {cell:>width$}");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn covered(covered: Option<u64>, total: Option<u64>) -> String {
    match (covered, total) {
        (Some(c), Some(0)) => format!("{c}/0"),
        (Some(c), Some(t)) => format!("{c}/{t} {:.1}%", 100.0 * c as f64 / t as f64),
        _ => "-".into(),
    }
}

/// `key n, key n` (`-` when empty): statuses, causes.
fn statuses(statuses: &BTreeMap<String, u64>) -> String {
    if statuses.is_empty() {
        return "-".into();
    }
    statuses
        .iter()
        .map(|(k, v)| format!("{k} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn rerun_cells(rerun: &Option<Rerun>) -> [String; 3] {
    match rerun {
        None => ["-".into(), "-".into(), "-".into()],
        Some(r) => [
            Unit::Seconds.show(r.seconds),
            r.ratio.map_or("-".into(), |x| format!("{x:.2}")),
            statuses(&r.statuses),
        ],
    }
}

/// Every corpus's figures, then TOTAL.
fn rows(bench: &Bench) -> Vec<(&str, &Figures)> {
    bench
        .corpora
        .iter()
        .map(|c| (c.name.as_str(), &c.figures))
        .chain(std::iter::once(("TOTAL", &bench.total)))
        .collect()
}

pub fn header(bench: &Bench) -> String {
    let m = &bench.machine;
    let options: Vec<String> = bench
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!(
        "testgen bench ({}): commit {}{}, {}{}\nmachine: {} cores, {} MiB, {}, {}, load average at start {}\noptions: {}\n",
        bench.label,
        bench.commit,
        if bench.dirty { " + uncommitted changes" } else { "" },
        bench.testgen,
        bench
            .bench_seconds
            .map_or(String::new(), |s| format!(", {s} s in all")),
        m.cores,
        m.memory_mib,
        m.jdk,
        m.kernel,
        m.load_average,
        options.join(" ")
    )
}

/// Per class: status, tests, failing, JaCoCo lines and branches, seconds.
pub fn classes(bench: &Bench) -> String {
    let mut rows = Vec::new();
    for corpus in &bench.corpora {
        for c in &corpus.classes {
            rows.push(vec![
                format!("{} {}", corpus.name, c.class),
                c.status.clone(),
                c.tests.to_string(),
                c.failing.to_string(),
                covered(c.lines_covered, c.lines),
                covered(c.branches_covered, c.branches),
                Unit::Seconds.show(c.seconds),
            ]);
        }
    }
    grid(
        &[
            "corpus class",
            "status",
            "tests",
            "failing",
            "JaCoCo lines",
            "JaCoCo branches",
            "generate s",
        ],
        &rows,
    )
}

pub fn coverage(bench: &Bench) -> String {
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            vec![
                name.to_string(),
                f.classes.to_string(),
                f.tests.to_string(),
                f.failing.to_string(),
                f.compile_errors.to_string(),
                f.compile_warnings.to_string(),
                covered(f.lines_covered, f.lines),
                covered(f.branches_covered, f.branches),
                covered(f.methods_fully_built, f.methods),
            ]
        })
        .collect();
    grid(
        &[
            "corpus",
            "classes",
            "tests kept",
            "failing",
            "javac errors",
            "javac warnings",
            "JaCoCo lines",
            "JaCoCo branches",
            "methods fully built",
        ],
        &rows,
    )
}

pub fn speed(bench: &Bench) -> String {
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            vec![
                name.to_string(),
                Unit::Seconds.show(f.wall_seconds),
                Unit::Seconds.show(f.cpu_seconds),
                Unit::Mib.show(f.testgen_peak_rss_mib),
                Unit::Mib.show(f.executor_peak_rss_mib),
                Unit::Seconds.show(f.class_seconds_median),
                Unit::Seconds.show(f.class_seconds_p90),
                format!(
                    "{} ({}x)",
                    Unit::Seconds.show(f.worst_class_seconds),
                    Unit::Ratio.show(f.worst_class_over_budget)
                ),
                Unit::Rate.show(f.paths_per_second),
                Unit::Percent.show(f.solver_share),
                Unit::Rate.show(f.plans_per_second),
                Unit::Rate.show(f.search_plans_per_second),
                Unit::Percent.show(f.search_executor_share),
                Unit::Percent.show(f.search_goal_share),
                Unit::Count.show(f.stopped_by_budget.map(|n| n as f64)),
            ]
        })
        .collect();
    grid(
        &[
            "corpus",
            "wall s",
            "CPU s",
            "testgen MiB",
            "executor MiB",
            "s/class median",
            "p90",
            "worst class s (x budget)",
            "paths/s",
            "solver",
            "plans/s",
            "search plans/s",
            "search in executor",
            "goals by search",
            "stopped by budget",
        ],
        &rows,
    )
}

/// Branch coverage (testgen's probes) per corpus at each budget the
/// coverage-rise runs used; empty when there were none.
pub fn rise(bench: &Bench) -> String {
    let budgets: Vec<u64> = bench
        .total
        .coverage_rise
        .iter()
        .map(|point| point.seconds)
        .collect();
    if budgets.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            let mut row = vec![name.to_string()];
            for seconds in &budgets {
                let point = f.coverage_rise.iter().find(|p| p.seconds == *seconds);
                row.push(match point {
                    Some(p) => format!(
                        "{} ({}/{})",
                        Unit::Percent.show(p.coverage()),
                        p.branches_covered,
                        p.branches
                    ),
                    None => "-".into(),
                });
            }
            row
        })
        .collect();
    let headers: Vec<String> = std::iter::once("corpus".to_string())
        .chain(budgets.iter().map(|s| format!("--budget {s}")))
        .collect();
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    format!(
        "\n== coverage rise (branch outcomes by testgen's probes, generated from scratch at each budget)\n{}",
        grid(&headers, &rows)
    )
}

pub fn incremental(bench: &Bench) -> String {
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            let mut row = vec![name.to_string(), Unit::Seconds.show(f.wall_seconds)];
            row.extend(rerun_cells(&f.unchanged));
            row.extend(rerun_cells(&f.changed));
            row
        })
        .collect();
    let mut out = grid(
        &[
            "corpus",
            "full s",
            "unchanged s",
            "ratio",
            "statuses",
            "1 changed s",
            "ratio",
            "statuses",
        ],
        &rows,
    );
    for corpus in &bench.corpora {
        if !corpus.changed.is_empty() {
            let _ = writeln!(out, "changed in {}: {}", corpus.name, corpus.changed);
        }
    }
    out
}

/// Tests dropped and repaired for portability, per cause; classes with
/// static state.
pub fn portability(bench: &Bench) -> String {
    let causes = statuses;
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            vec![
                name.to_string(),
                f.dropped.values().sum::<u64>().to_string(),
                causes(&f.dropped),
                f.repaired.values().sum::<u64>().to_string(),
                causes(&f.repaired),
                format!("{} ({} reset)", f.static_state_classes, f.static_resets),
            ]
        })
        .collect();
    grid(
        &[
            "corpus",
            "dropped",
            "dropped by cause",
            "repaired",
            "repaired by cause",
            "static state",
        ],
        &rows,
    )
}

/// What the tests would catch and how they read: the mutation score (of
/// the mutants whose method a test calls), the time it adds, tests mutants
/// added, assertions per test, and the review rubric's counts.
pub fn oracles(bench: &Bench) -> String {
    let share = |count: u64, of: u64| match of {
        0 => "-".to_string(),
        of => format!("{count} {:.1}%", 100.0 * count as f64 / of as f64),
    };
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            let review = &f.review;
            vec![
                name.to_string(),
                covered(f.mutants_killed, f.mutants_analysed),
                f.mutants_unreached.map_or("-".into(), |n| n.to_string()),
                f.mutants_not_analysed.map_or("-".into(), |n| n.to_string()),
                match (f.mutation_seconds, f.mutation_time_share) {
                    (Some(s), Some(r)) => format!("{s:.1} ({:.1}%)", 100.0 * r),
                    _ => "-".into(),
                },
                f.mutant_killers.map_or("-".into(), |n| n.to_string()),
                f.possible_bugs.map_or("-".into(), |n| n.to_string()),
                f.assertions_per_test
                    .map_or("-".into(), |r| format!("{r:.2}")),
                share(review.solver_literals, review.tests),
                share(review.weak_oracle, review.tests),
                share(review.no_assertion, review.tests),
                share(review.numeric_suffix, review.tests),
            ]
        })
        .collect();
    grid(
        &[
            "corpus",
            "mutants caught",
            "not called",
            "not run",
            "mutation s (share)",
            "tests by mutants",
            "possible bugs",
            "assertions/test",
            "solver literals",
            "only NPE/notNull",
            "no assertion",
            "numbered names",
        ],
        &rows,
    )
}

/// What testgen says of the outcomes its tests do not cover: claims of
/// infeasibility (and the audit's contradictions), and the rest per kind of
/// reason, the kinds Covana's analysis names first.
pub fn uncovered(bench: &Bench) -> String {
    let rows: Vec<Vec<String>> = rows(bench)
        .into_iter()
        .map(|(name, f)| {
            let mut kinds: Vec<(&String, &u64)> = f
                .uncovered_by_kind
                .iter()
                .filter(|(kind, _)| kind.as_str() != "proven_infeasible")
                .collect();
            kinds.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
            let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            vec![
                name.to_string(),
                Unit::Count.show(f.infeasible_claims.map(|n| n as f64)),
                Unit::Count.show(f.infeasible_contradicted.map(|n| n as f64)),
                f.uncovered_by_kind
                    .get("external_call")
                    .copied()
                    .unwrap_or(0)
                    .to_string(),
                f.uncovered_by_kind
                    .get("object_creation")
                    .copied()
                    .unwrap_or(0)
                    .to_string(),
                kinds.join(", "),
            ]
        })
        .collect();
    grid(
        &[
            "corpus",
            "proven infeasible",
            "infeasible claims contradicted",
            "external call",
            "object creation",
            "uncovered by kind",
        ],
        &rows,
    )
}

pub const LEGEND: &str = "\
wall s, CPU s: `testgen generate`, full run from an empty cache; CPU is user + system of its
  whole process tree (executor JVMs, javac and the JUnit validation runs included).
testgen MiB: testgen's own peak RSS (VmHWM); executor MiB: the largest executor JVM's
  (sampled after each class).
s/class: testgen's seconds per class; paths/s: paths explored per second of exploring;
  solver: solver seconds / class seconds; plans/s: executor plans per class second.
  search plans/s: plans search ran per second of searching; search in executor: the share of
  search's seconds spent waiting for runs (the rest is fitness, ranking and making plans).
  Class seconds are worker-seconds: with --jobs 2 they add up to about twice the wall time.
worst class s: the slowest class's seconds, and that over --budget (bounded work: at most 1.5).
methods fully built: public methods and constructors under test that some exploring run called
  with every argument non-null (testgen's report); the others are listed there per class.
tests kept: @Test methods written; failing: failed or aborted under JUnit 5; javac warnings:
  raw-type and unchecked warnings (-Xlint:rawtypes,unchecked) about them.
JaCoCo: by the full run's tests, over every class of the input, public or not (with
  --include, over the selected classes only).
unchanged s: the same input again, same --cache and --out; 1 changed s: the same after the
  change named above; ratio: to the full run's wall time.
dropped: tests left out because they failed or behaved differently under a condition a build
  may run them in (another locale, time zone or line separator, another order, alone, the
  build's assertion setting, a second run); repaired: kept tests with assertions left out for
  the same causes; static state: classes with mutable static fields (with a reset method of
  their own that the tests call before and after each test).
mutants caught: of the mutants (testgen_mutate) whose method some written test calls, those a
  test fails on (testgen's report); not called: mutants in methods no test calls; not run:
  left when the class's time was up; mutation s: seconds of mutation analysis (choosing and
  scoring) and their share of the rest of the classes' seconds; tests by mutants: tests added
  because they catch a mutant the others miss. assertions/test: lines of the written tests
  that call a JUnit assertion, per test. The last four: the review rubric
  (tests/REVIEW_RUBRIC.md), tests flagged and their share (goal: at most 2% each).
proven infeasible: outcomes testgen claims no input reaches; contradicted: claims a run of the
  class reached anyway (the audit reports those as reached; must be 0). uncovered by kind: the
  report's reason.kind per uncovered outcome: external_call and object_creation are Covana's
  problems (a call outside the program decides the branch; an object's state no test built),
  the others the blockers that kept exploring from the outcome.
";

/// The whole report: header, per-class rows, then the three per-corpus tables.
pub fn report(bench: &Bench) -> String {
    let mut out = header(bench);
    let _ = write!(
        out,
        "\n== per class\n{}\n== tests and coverage\n{}{}\n== mutants and assertions\n{}\n== speed and memory\n{}\n== incremental\n{}\n== portability\n{}\n== uncovered outcomes\n{}\n{}",
        classes(bench),
        coverage(bench),
        rise(bench),
        oracles(bench),
        speed(bench),
        incremental(bench),
        portability(bench),
        uncovered(bench),
        LEGEND
    );
    if bench.problems.is_empty() {
        out.push_str("\nOK: every generated test compiles and passes\n");
    } else {
        out.push_str("\nNOT OK:\n");
        for p in &bench.problems {
            let _ = writeln!(out, "  {p}");
        }
    }
    out
}

/// Each figure of `base` and `work` side by side, with work/base.
pub fn compare(base: &Bench, work: &Bench) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "base: {}", header(base).lines().next().unwrap_or(""));
    let _ = writeln!(out, "work: {}", header(work).lines().next().unwrap_or(""));
    let base_rows = rows(base);
    for (name, w) in rows(work) {
        let Some((_, b)) = base_rows.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let lines: Vec<Vec<String>> = b
            .named()
            .into_iter()
            .zip(w.named())
            .map(|((figure, bv, unit), (_, wv, _))| {
                let ratio = match (bv, wv) {
                    (Some(b), Some(w)) if b != 0.0 => format!("{:.2}", w / b),
                    (Some(b), Some(w)) if b == w => "1.00".into(),
                    _ => "-".into(),
                };
                vec![figure.to_string(), unit.show(bv), unit.show(wv), ratio]
            })
            .collect();
        let _ = write!(
            out,
            "\n== {name}\n{}",
            grid(&["figure", "base", "work", "work/base"], &lines)
        );
    }
    for (label, bench) in [("base", base), ("work", work)] {
        for p in &bench.problems {
            let _ = writeln!(out, "{label}: NOT OK: {p}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_aligns_columns() {
        let text = grid(
            &["a", "bb"],
            &[
                vec!["long name".into(), "1".into()],
                vec!["x".into(), "22".into()],
            ],
        );
        assert_eq!(text, "a          bb\nlong name   1\nx          22\n");
    }

    #[test]
    fn portability_shows_counts_per_cause() {
        let mut bench = Bench::default();
        let mut figures = Figures::default();
        figures.dropped.insert("locale".into(), 2);
        figures.repaired.insert("static_state".into(), 3);
        figures.repaired.insert("time_zone".into(), 1);
        figures.static_state_classes = 4;
        figures.static_resets = 1;
        bench.corpora.push(crate::model::Corpus {
            name: "jar".into(),
            figures,
            ..Default::default()
        });
        bench.total = Figures::total(&bench.corpora);
        let text = portability(&bench);
        let jar = text.lines().find(|l| l.starts_with("jar")).unwrap();
        assert!(jar.contains("locale 2"), "{text}");
        assert!(jar.contains("static_state 3, time_zone 1"), "{text}");
        assert!(jar.contains("4 (1 reset)"), "{text}");
        let total = text.lines().find(|l| l.starts_with("TOTAL")).unwrap();
        assert!(total.contains("  4  static_state 3, time_zone 1"), "{text}");
    }

    #[test]
    fn compare_prints_ratios() {
        let mut base = Bench::default();
        base.corpora.push(crate::model::Corpus {
            name: "c".into(),
            classes: vec![crate::model::ClassRow::default()],
            ..Default::default()
        });
        base.total.tests = 10;
        base.total.wall_seconds = Some(100.0);
        let mut work = base.clone();
        work.total.tests = 12;
        work.total.wall_seconds = Some(50.0);
        // And through bench.json, as `compare` reads it.
        let json = serde_json::to_string(&work).unwrap();
        let work: Bench = serde_json::from_str(&json).unwrap();
        let text = compare(&base, &work);
        assert!(text.contains("tests kept"), "{text}");
        assert!(text
            .lines()
            .any(|l| l.starts_with("tests kept") && l.ends_with("1.20")));
        assert!(text
            .lines()
            .any(|l| l.starts_with("generate wall s") && l.ends_with("0.50")));
        assert!(text.contains("== c\n"), "{text}");
    }
}
