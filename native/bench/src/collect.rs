//! Reads one run directory written by `scripts/bench.sh` into a [`Bench`].
//!
//! Layout (one directory per corpus, in the order of `corpora.txt`):
//!
//! ```text
//! RUN/run.env                      label, commit, machine and options (key=value)
//! RUN/corpora.txt                  corpus names, one a line
//! RUN/<corpus>/corpus.env          name, input, changed (what the "changed" re-run changed)
//! RUN/<corpus>/check.env           javac and JUnit counts of the full run's tests
//! RUN/<corpus>/coverage.txt        JaCoCo, one line per class, then TOTAL
//! RUN/<corpus>/junit-reports/      the JUnit launcher's XML
//! RUN/<corpus>/<phase>/rusage.txt  /usr/bin/time: wall user system max_rss_kib exit
//! RUN/<corpus>/<phase>/exit        testgen's exit status
//! RUN/<corpus>/<phase>/report/testgen-report.json
//! ```
//!
//! where `<phase>` is `full`, `unchanged` (the same input again, same
//! `--cache` and `--out`) and `changed` (after one class changed).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use quick_xml::events::Event;
use quick_xml::Reader;
use serde_json::Value;

use crate::model::{Bench, ClassRow, Corpus, Figures, Machine, Rerun, RisePoint};

/// `key=value` lines (blank lines and `#` comments skipped).
pub fn read_env(path: &Path) -> BTreeMap<String, String> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// What `/usr/bin/time -f '%e %U %S %M %x'` wrote: the last line of five
/// numbers (GNU time puts "Command exited with non-zero status N" or
/// "Command terminated by signal N" before it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rusage {
    pub wall: f64,
    pub user: f64,
    pub system: f64,
    pub max_rss_kib: u64,
}

pub fn parse_rusage(text: &str) -> Option<Rusage> {
    text.lines().rev().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() != 5 {
            return None;
        }
        Some(Rusage {
            wall: fields[0].parse().ok()?,
            user: fields[1].parse().ok()?,
            system: fields[2].parse().ok()?,
            max_rss_kib: fields[3].parse().ok()?,
        })
    })
}

/// JaCoCo counts of one class (or the TOTAL line) from Coverage.java's
/// `<class> lines 3/10 (30.0%) branches 1/4 (25.0%)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Jacoco {
    pub lines_covered: u64,
    pub lines: u64,
    pub branches_covered: u64,
    pub branches: u64,
}

pub fn parse_coverage(text: &str) -> BTreeMap<String, Jacoco> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let counts = |word: &str| -> Option<(u64, u64)> {
            let at = fields.iter().position(|f| *f == word)?;
            let (covered, total) = fields.get(at + 1)?.split_once('/')?;
            Some((covered.parse().ok()?, total.parse().ok()?))
        };
        if let (Some(name), Some(lines), Some(branches)) =
            (fields.first(), counts("lines"), counts("branches"))
        {
            out.insert(
                name.to_string(),
                Jacoco {
                    lines_covered: lines.0,
                    lines: lines.1,
                    branches_covered: branches.0,
                    branches: branches.1,
                },
            );
        }
    }
    out
}

/// Failed, errored and aborted (skipped) test cases per test class, from
/// the JUnit launcher's legacy XML reports; every test class seen is a key.
pub fn junit_failures(dir: &Path) -> BTreeMap<String, usize> {
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "xml") {
            continue;
        }
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let mut reader = Reader::from_str(&text);
        let mut current: Option<String> = None;
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) | Ok(Event::Empty(e)) => match e.name().as_ref() {
                    b"testcase" => {
                        let class = e
                            .attributes()
                            .flatten()
                            .find(|a| a.key.as_ref() == b"classname")
                            .and_then(|a| a.unescape_value().ok().map(|v| v.into_owned()));
                        if let Some(class) = &class {
                            out.entry(class.clone()).or_default();
                        }
                        current = class;
                    }
                    b"failure" | b"error" | b"skipped" => {
                        if let Some(class) = &current {
                            *out.entry(class.clone()).or_default() += 1;
                        }
                    }
                    _ => {}
                },
                Ok(Event::End(e)) if e.name().as_ref() == b"testcase" => current = None,
                Ok(Event::Eof) | Err(_) => break,
                _ => {}
            }
        }
    }
    out
}

fn read_json(path: &Path) -> Option<Value> {
    serde_json::from_str(&fs::read_to_string(path).ok()?).ok()
}

fn f64_at(value: &Value, key: &str) -> Option<f64> {
    value.get(key).and_then(Value::as_f64)
}

fn u64_at(value: &Value, key: &str) -> Option<u64> {
    value.get(key).and_then(Value::as_u64)
}

/// Median and 90th percentile (nearest rank) of `values`.
pub fn median_p90(values: &[f64]) -> (Option<f64>, Option<f64>) {
    if values.is_empty() {
        return (None, None);
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    let rank = ((0.9 * n as f64).ceil() as usize).clamp(1, n);
    (Some(median), Some(v[rank - 1]))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    }
}

/// One phase's testgen run: its rusage, exit status and report.
struct Phase {
    rusage: Option<Rusage>,
    exit: Option<i32>,
    killed: Option<String>,
    report: Option<Value>,
}

fn read_phase(dir: &Path) -> Option<Phase> {
    if !dir.is_dir() {
        return None;
    }
    let rusage_text = fs::read_to_string(dir.join("rusage.txt")).unwrap_or_default();
    Some(Phase {
        rusage: parse_rusage(&rusage_text),
        exit: fs::read_to_string(dir.join("exit"))
            .ok()
            .and_then(|t| t.trim().parse().ok()),
        killed: rusage_text
            .lines()
            .find(|l| l.starts_with("killed:"))
            .map(str::to_string),
        report: read_json(&dir.join("report/testgen-report.json")),
    })
}

/// The rise runs' (`rise-SECONDS/`) and the full run's branch counts by
/// budget, ascending; the full run's budget is its report's option.
fn coverage_rise(dir: &Path, full: &Value) -> Vec<RisePoint> {
    let point = |seconds: u64, report: &Value| {
        Some(RisePoint {
            seconds,
            branches_covered: report.pointer("/summary/branches_covered")?.as_u64()?,
            branches: report.pointer("/summary/branches")?.as_u64()?,
        })
    };
    let mut points: Vec<RisePoint> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let seconds = name.strip_prefix("rise-")?.parse().ok()?;
            point(seconds, &read_phase(&entry.path())?.report?)
        })
        .collect();
    if points.is_empty() {
        return points;
    }
    let budget = read_env(&dir.join("..").join("run.env"))
        .get("option_budget")
        .and_then(|b| b.parse::<f64>().ok());
    if let Some(full) = budget.and_then(|b| point(b.round() as u64, full)) {
        points.push(full);
    }
    points.sort_by_key(|p| p.seconds);
    points
}

fn statuses(report: &Value) -> BTreeMap<String, u64> {
    report
        .pointer("/summary/statuses")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_u64()?)))
                .filter(|(_, n)| *n > 0)
                .collect()
        })
        .unwrap_or_default()
}

/// Reads one corpus directory; `problems` gets what makes the run fail.
fn read_corpus(dir: &Path, problems: &mut Vec<String>) -> Corpus {
    let env = read_env(&dir.join("corpus.env"));
    let name = env.get("name").cloned().unwrap_or_else(|| {
        dir.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let check = read_env(&dir.join("check.env"));
    let count = |key: &str| check.get(key).and_then(|v| v.parse::<u64>().ok());
    let coverage =
        parse_coverage(&fs::read_to_string(dir.join("coverage.txt")).unwrap_or_default());
    let failures = junit_failures(&dir.join("junit-reports"));

    let mut figures = Figures::default();
    let mut classes = Vec::new();
    let full = read_phase(&dir.join("full"));
    match &full {
        None => problems.push(format!("{name}: testgen was not run")),
        Some(phase) => {
            if let Some(killed) = &phase.killed {
                problems.push(format!("{name}: testgen {killed}"));
            } else if phase.exit != Some(0) {
                problems.push(format!(
                    "{name}: testgen generate exited with {}",
                    phase.exit.map_or("?".into(), |e| e.to_string())
                ));
            }
            if phase.report.is_none() {
                problems.push(format!("{name}: testgen wrote no report"));
            }
        }
    }
    if let Some(Phase {
        rusage,
        report: Some(report),
        ..
    }) = &full
    {
        let summary = report.get("summary").cloned().unwrap_or(Value::Null);
        let effort = summary.get("effort").cloned().unwrap_or(Value::Null);
        let rows = report
            .get("classes")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut seconds = Vec::new();
        for row in &rows {
            let class = row.get("class").and_then(Value::as_str).unwrap_or("?");
            let status = row.get("status").and_then(Value::as_str).unwrap_or("?");
            if status == "removed" {
                continue;
            }
            let test_class = row
                .get("file")
                .and_then(Value::as_str)
                .map(|f| f.trim_end_matches(".java").replace('/', "."));
            let jacoco = coverage.get(class);
            let class_seconds = f64_at(row, "seconds");
            seconds.extend(class_seconds);
            classes.push(ClassRow {
                class: class.to_string(),
                status: status.to_string(),
                tests: u64_at(row, "tests").unwrap_or(0),
                failing: test_class
                    .as_ref()
                    .and_then(|t| failures.get(t))
                    .copied()
                    .unwrap_or(0) as u64,
                lines_covered: jacoco.map(|j| j.lines_covered),
                lines: jacoco.map(|j| j.lines),
                branches_covered: jacoco.map(|j| j.branches_covered),
                branches: jacoco.map(|j| j.branches),
                seconds: class_seconds,
                paths: u64_at(row, "paths"),
                runs: u64_at(row, "runs"),
                solver_seconds: f64_at(row, "solver_seconds"),
                testgen_branches: u64_at(row, "branches"),
                testgen_branches_covered: u64_at(row, "branches_covered"),
            });
        }
        figures.classes = classes.len() as u64;
        let per_cause = |key: &str| -> BTreeMap<String, u64> {
            summary
                .pointer(&format!("/portability/{key}"))
                .and_then(Value::as_object)
                .map(|causes| {
                    causes
                        .iter()
                        .filter_map(|(cause, n)| Some((cause.clone(), n.as_u64()?)))
                        .collect()
                })
                .unwrap_or_default()
        };
        figures.dropped = per_cause("dropped");
        figures.infeasible_claims = u64_at(&summary, "branches_infeasible");
        figures.infeasible_contradicted = u64_at(&summary, "infeasible_contradicted");
        if let Some(contradicted @ 1..) = figures.infeasible_contradicted {
            problems.push(format!(
                "{name}: {contradicted} claims of infeasibility contradicted by a run"
            ));
        }
        for entry in rows
            .iter()
            .flat_map(|row| row.get("uncovered").and_then(Value::as_array))
            .flatten()
        {
            if let Some(kind) = entry.pointer("/reason/kind").and_then(Value::as_str) {
                *figures
                    .uncovered_by_kind
                    .entry(kind.to_string())
                    .or_default() += 1;
            }
        }
        figures.repaired = per_cause("repaired");
        figures.static_state_classes = u64_at(&summary, "classes_with_static_state").unwrap_or(0);
        figures.static_resets = rows
            .iter()
            .filter(|row| row.pointer("/static_state/reset").is_some())
            .count() as u64;
        (figures.class_seconds_median, figures.class_seconds_p90) = median_p90(&seconds);
        figures.worst_class_seconds = seconds.iter().copied().reduce(f64::max);
        figures.methods = summary.pointer("/inputs/methods").and_then(Value::as_u64);
        figures.methods_fully_built = summary
            .pointer("/inputs/fully_built")
            .and_then(Value::as_u64);
        figures.class_seconds = Some(seconds.iter().sum());
        figures.paths = u64_at(&effort, "paths");
        figures.runs = u64_at(&effort, "runs");
        figures.solver_seconds = f64_at(&effort, "solver_seconds");
        figures.explore_seconds = f64_at(&effort, "explore_seconds");
        figures.search_runs = u64_at(&effort, "search_runs");
        figures.search_seconds = f64_at(&effort, "search_seconds");
        figures.search_executor_seconds = f64_at(&effort, "search_executor_seconds");
        figures.search_goals = u64_at(&effort, "search_goals");
        figures.stopped_by_budget = u64_at(&effort, "stopped_by_budget");
        figures.mutant_killers = u64_at(&effort, "mutant_killers");
        figures.possible_bugs = u64_at(&summary, "possible_bugs");
        if let Some(mutation) = summary.get("mutation") {
            figures.mutants_analysed = u64_at(mutation, "analysed");
            figures.mutants_killed = u64_at(mutation, "killed");
            figures.mutants_unreached = u64_at(mutation, "unreached");
            figures.mutants_not_analysed = u64_at(mutation, "not_analysed");
            figures.mutation_seconds = f64_at(mutation, "seconds");
        }
        figures.testgen_branches_covered = u64_at(&summary, "branches_covered");
        figures.testgen_branches = u64_at(&summary, "branches");
        figures.coverage_rise = coverage_rise(dir, report);
        figures.testgen_peak_rss_mib = u64_at(&summary, "peak_rss_kib")
            .filter(|&k| k > 0)
            .map(|k| k as f64 / 1024.0);
        figures.executor_peak_rss_mib = u64_at(&summary, "executor_peak_rss_kib")
            .filter(|&k| k > 0)
            .map(|k| k as f64 / 1024.0);
        if let Some(r) = rusage {
            figures.wall_seconds = Some(r.wall);
            figures.cpu_seconds = Some(r.user + r.system);
            figures.tree_max_rss_mib = Some(r.max_rss_kib as f64 / 1024.0);
        }
    }

    // The full run's tests, compiled and run under JaCoCo.
    figures.tests = count("test_methods").unwrap_or(0);
    figures.assertions = count("test_assertions");
    figures.review = crate::rubric::review_dir(&dir.join("generated-tests"));
    figures.compile_errors = count("compile_errors").unwrap_or(0);
    figures.compile_warnings = count("compile_warnings").unwrap_or(0);
    let failed = count("tests_failed").unwrap_or(0) + count("tests_aborted").unwrap_or(0);
    figures.failing = failed;
    if figures.compile_errors > 0 {
        problems.push(format!(
            "{name}: {} javac errors in the generated tests (see {}/javac.log)",
            figures.compile_errors,
            dir.display()
        ));
    }
    if failed > 0 {
        problems.push(format!(
            "{name}: {failed} generated tests failed (see {}/junit.log)",
            dir.display()
        ));
    }
    if figures.tests > 0 && (count("tests_found").is_none() || count("junit_rc") != Some(0)) {
        problems.push(format!(
            "{name}: the JUnit launcher did not run cleanly (exit {}; see {}/junit.log)",
            check.get("junit_rc").map_or("?", String::as_str),
            dir.display()
        ));
    }
    let options = env.get("options").cloned().unwrap_or_default();
    if !options.is_empty() {
        // Only some classes were selected (--include): JaCoCo over those.
        let sum = |pick: fn(&ClassRow) -> Option<u64>| -> Option<u64> {
            classes.iter().map(pick).sum::<Option<u64>>()
        };
        if coverage.contains_key("TOTAL") {
            figures.lines_covered = sum(|c| c.lines_covered);
            figures.lines = sum(|c| c.lines);
            figures.branches_covered = sum(|c| c.branches_covered);
            figures.branches = sum(|c| c.branches);
        }
    } else if let Some(total) = coverage.get("TOTAL") {
        figures.lines_covered = Some(total.lines_covered);
        figures.lines = Some(total.lines);
        figures.branches_covered = Some(total.branches_covered);
        figures.branches = Some(total.branches);
    }

    // Incremental re-runs.
    let full_wall = figures.wall_seconds;
    let rerun = |phase: &str, problems: &mut Vec<String>| -> Option<Rerun> {
        let p = read_phase(&dir.join(phase))?;
        if p.exit != Some(0) {
            problems.push(format!(
                "{name}: the {phase} re-run exited with {}",
                p.exit.map_or("?".into(), |e| e.to_string())
            ));
        }
        let wall = p.rusage.map(|r| r.wall);
        Some(Rerun {
            seconds: wall,
            ratio: ratio(wall, full_wall),
            cpu_seconds: p.rusage.map(|r| r.user + r.system),
            statuses: p.report.as_ref().map(statuses).unwrap_or_default(),
        })
    };
    figures.unchanged = rerun("unchanged", problems);
    figures.changed = rerun("changed", problems);
    figures.derive();

    Corpus {
        name,
        input: env.get("input").cloned().unwrap_or_default(),
        changed: env.get("changed").cloned().unwrap_or_default(),
        options,
        figures,
        classes,
    }
}

/// Reads a whole run directory.
pub fn read_run(dir: &Path) -> Result<Bench, String> {
    let env = read_env(&dir.join("run.env"));
    if env.is_empty() {
        return Err(format!("{}: no run.env", dir.display()));
    }
    let names = fs::read_to_string(dir.join("corpora.txt"))
        .map_err(|e| format!("{}/corpora.txt: {e}", dir.display()))?;
    let mut problems = Vec::new();
    let mut corpora: Vec<Corpus> = names
        .lines()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(|n| read_corpus(&dir.join(n), &mut problems))
        .collect();
    let get = |k: &str| env.get(k).cloned().unwrap_or_default();
    let budget = get("option_budget").parse::<f64>().ok();
    for corpus in &mut corpora {
        let figures = &mut corpus.figures;
        figures.worst_class_over_budget = figures
            .worst_class_seconds
            .zip(budget.filter(|&b| b > 0.0))
            .map(|(worst, budget)| worst / budget);
        if figures
            .worst_class_over_budget
            .is_some_and(|share| share > 1.5)
        {
            problems.push(format!(
                "{}: a class took {:.1} s, over 1.5 times the budget of {} s",
                corpus.name,
                figures.worst_class_seconds.unwrap_or(0.0),
                get("option_budget")
            ));
        }
    }
    let total = Figures::total(&corpora);
    Ok(Bench {
        label: get("label"),
        commit: get("commit"),
        dirty: get("dirty") == "yes",
        testgen: get("testgen"),
        machine: Machine {
            cores: get("cores").parse().unwrap_or(0),
            memory_mib: get("memory_kib").parse::<u64>().unwrap_or(0) / 1024,
            jdk: get("jdk"),
            kernel: get("kernel"),
            load_average: get("load_average"),
        },
        options: env
            .iter()
            .filter_map(|(k, v)| Some((k.strip_prefix("option_")?.to_string(), v.clone())))
            .collect(),
        started: get("started"),
        bench_seconds: get("bench_seconds").parse().ok(),
        ok: problems.is_empty(),
        problems,
        corpora,
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rusage_takes_the_last_line_of_numbers() {
        let text = "Command exited with non-zero status 1\n12.5 20.25 1.5 204800 1\n";
        let r = parse_rusage(text).unwrap();
        assert_eq!(r.wall, 12.5);
        assert_eq!(r.user + r.system, 21.75);
        assert_eq!(r.max_rss_kib, 204800);
        assert_eq!(parse_rusage("Command terminated by signal 9\n"), None);
    }

    #[test]
    fn coverage_lines_and_total() {
        let text = "a.B lines 3/10 (30.0%) branches 0/0 (n/a)\n\
                    a.B$C lines 1/2 (50.0%) branches 1/4 (25.0%)\n\
                    TOTAL lines 4/12 (33.3%) branches 1/4 (25.0%)\n";
        let c = parse_coverage(text);
        assert_eq!(c["a.B"].lines, 10);
        assert_eq!(c["a.B$C"].branches_covered, 1);
        assert_eq!(c["TOTAL"].lines_covered, 4);
    }

    #[test]
    fn percentiles() {
        assert_eq!(median_p90(&[]), (None, None));
        assert_eq!(median_p90(&[3.0]), (Some(3.0), Some(3.0)));
        let v: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_p90(&v), (Some(5.5), Some(9.0)));
    }

    #[test]
    fn junit_xml_failures_per_class() {
        let dir = std::env::temp_dir().join(format!("testgen-bench-junit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("TEST-junit-jupiter.xml"),
            r#"<?xml version="1.0"?><testsuite>
<testcase name="a()" classname="p.AGeneratedTest" time="0"/>
<testcase name="b()" classname="p.AGeneratedTest" time="0"><failure message="x">trace</failure></testcase>
<testcase name="c()" classname="p.BGeneratedTest" time="0"><system-out>hi</system-out></testcase>
</testsuite>"#,
        )
        .unwrap();
        let f = junit_failures(&dir);
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(f["p.AGeneratedTest"], 1);
        assert_eq!(f["p.BGeneratedTest"], 0);
    }
}
