//! `testgen-report.html`: the report for a person, rendered from the JSON
//! value that is written to `testgen-report.json`, so that the page shows
//! exactly what the documented format holds.
//!
//! One self-contained file: inline CSS and SVG, no script, no fonts or
//! images from elsewhere. Every text from the report is escaped (class
//! names hold `$` and `<init>`, reasons quote strings). The same JSON gives
//! the same page; only the report's own timings vary between runs.
//!
//! The JSON is read leniently into the views below (a missing field is its
//! default), and `uncovered[].reason` may be a plain string or an object
//! `{kind, text, line, suggestion, culprit}`.

use std::collections::BTreeMap;
use std::fmt::{self, Write};

use serde::Deserialize;
use serde_json::Value;

use super::sources::SourceLookup;

pub const HTML_FILE: &str = "testgen-report.html";

/// The kind of a reason given as a plain string, and of outcomes no entry
/// of `uncovered` accounts for.
const OTHER: &str = "other";
const INFEASIBLE: &str = "proven_infeasible";
/// The text the report gave an infeasible outcome before reasons had kinds.
const INFEASIBLE_TEXT: &str = "proven infeasible";

/// The page for `report`, the value written to `testgen-report.json`;
/// `sources` gives the line of each uncovered outcome when it has the
/// class's file.
pub fn render(report: &Value, sources: &SourceLookup) -> String {
    let mut page = Page::default();
    page.head();
    match ReportView::deserialize(report) {
        Ok(report) => page.report(&report, sources),
        Err(error) => {
            // The page still says what went wrong rather than nothing.
            let _ = write!(
                page.out,
                "<p class=\"error\">The report could not be read: {}</p>",
                Escaped(&error.to_string())
            );
        }
    }
    page.out.push_str("</body>\n</html>\n");
    page.out
}

// ---- the report as the page reads it ----------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ReportView {
    classes: Vec<ClassView>,
    problems: Vec<ProblemView>,
    summary: SummaryView,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SummaryView {
    classes: usize,
    statuses: BTreeMap<String, usize>,
    tests: usize,
    branches: usize,
    branches_covered: usize,
    branches_infeasible: usize,
    infeasible_contradicted: usize,
    junit: u32,
    mode: String,
    seed: u64,
    total_budget_seconds: Option<f64>,
    wall_seconds: f64,
    mutation: MutationView,
    possible_bugs: usize,
}

/// A class's mutation score, or the run's (whose `survivors` are empty).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct MutationView {
    mutants: usize,
    unreached: usize,
    analysed: usize,
    killed: usize,
    not_analysed: usize,
    survivors: Vec<SurvivorView>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct SurvivorView {
    method: String,
    line: u32,
    operator: String,
    change: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ClassView {
    class: String,
    status: String,
    tests: usize,
    branches: usize,
    branches_covered: usize,
    branches_infeasible: usize,
    uncovered: Vec<UncoveredView>,
    file: Option<String>,
    reason: Option<ReasonField>,
    seconds: f64,
    finished_seconds: f64,
    mutation: Option<MutationView>,
    possible_bugs: Vec<PossibleBugView>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PossibleBugView {
    declaration: String,
    exception: String,
    message: Option<String>,
    thrown_in: String,
    line: Option<u32>,
    test: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct UncoveredView {
    method: String,
    line: Option<u32>,
    outcome: String,
    reason: Option<ReasonField>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ProblemView {
    location: String,
    reason: String,
}

/// A reason as the report holds it: one line, or (newer reports) an object
/// with its kind and what to do about it.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ReasonField {
    Text(String),
    Detailed(DetailedReason),
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DetailedReason {
    kind: String,
    text: String,
    line: Option<u32>,
    suggestion: Option<String>,
    culprit: Option<Value>,
}

/// A reason in one shape, whichever the report used.
#[derive(Debug, Clone, PartialEq)]
struct Reason {
    /// snake_case, as in the report (`external_call`, `budget`, ...).
    kind: String,
    text: String,
    line: Option<u32>,
    suggestion: Option<String>,
    culprit: Option<Value>,
}

impl Reason {
    fn of(field: Option<&ReasonField>) -> Reason {
        match field {
            None => Reason::text(OTHER, ""),
            Some(ReasonField::Text(text)) if text == INFEASIBLE_TEXT => {
                Reason::text(INFEASIBLE, text)
            }
            Some(ReasonField::Text(text)) => Reason::text(OTHER, text),
            Some(ReasonField::Detailed(detailed)) => Reason {
                kind: if detailed.kind.is_empty() {
                    OTHER.to_string()
                } else {
                    detailed.kind.clone()
                },
                text: detailed.text.clone(),
                line: detailed.line,
                suggestion: detailed.suggestion.clone().filter(|s| !s.is_empty()),
                culprit: detailed.culprit.clone().filter(|c| !c.is_null()),
            },
        }
    }

    fn text(kind: &str, text: &str) -> Reason {
        Reason {
            kind: kind.to_string(),
            text: text.to_string(),
            line: None,
            suggestion: None,
            culprit: None,
        }
    }
}

// ---- what the bars show -----------------------------------------------------

/// One stretch of a class's bar: `count` branch outcomes of one kind.
#[derive(Debug, Clone, PartialEq)]
struct Segment {
    /// `covered`, `proven_infeasible`, or an uncovered reason's kind.
    kind: String,
    count: usize,
}

const COVERED: &str = "covered";

/// The class's branch outcomes split into covered, proven infeasible and
/// the uncovered ones by reason kind (kinds in name order). They add up to
/// `branches` whatever the entries say: outcomes no entry accounts for
/// (a failed class's) are `other`, and entries beyond the count are cut.
fn segments(class: &ClassView) -> Vec<Segment> {
    let mut by_kind: BTreeMap<String, usize> = BTreeMap::new();
    for uncovered in &class.uncovered {
        let reason = Reason::of(uncovered.reason.as_ref());
        // Infeasible outcomes are counted by `branches_infeasible`.
        if reason.kind != INFEASIBLE {
            *by_kind.entry(reason.kind).or_default() += 1;
        }
    }
    let mut wanted = vec![
        (COVERED.to_string(), class.branches_covered),
        (INFEASIBLE.to_string(), class.branches_infeasible),
    ];
    let listed: usize = by_kind.values().sum();
    let unlisted = class
        .branches
        .saturating_sub(class.branches_covered + class.branches_infeasible + listed);
    *by_kind.entry(OTHER.to_string()).or_default() += unlisted;
    wanted.extend(by_kind);
    let mut left = class.branches;
    wanted
        .into_iter()
        .filter_map(|(kind, count)| {
            let count = count.min(left);
            left -= count;
            (count > 0).then_some(Segment { kind, count })
        })
        .collect()
}

/// Fixed colours for covered and infeasible; the others, in kind order,
/// from a palette that stays apart for colour-blind readers (Okabe-Ito).
struct Colours {
    kinds: BTreeMap<String, &'static str>,
}

const PALETTE: [&str; 8] = [
    "#e69f00", "#56b4e9", "#d55e00", "#cc79a7", "#0072b2", "#f0e442", "#7f3c8d", "#8c6d31",
];

impl Colours {
    /// Colours for `kinds`, the segments' kinds over the whole report.
    fn new(kinds: &[String]) -> Colours {
        let mut colours = BTreeMap::new();
        colours.insert(COVERED.to_string(), "#009e73");
        colours.insert(INFEASIBLE.to_string(), "#b0b0b0");
        let mut others: Vec<&String> = kinds.iter().filter(|k| !colours.contains_key(*k)).collect();
        others.sort_unstable();
        others.dedup();
        for (index, kind) in others.into_iter().enumerate() {
            colours.insert(kind.clone(), PALETTE[index % PALETTE.len()]);
        }
        Colours { kinds: colours }
    }

    fn of(&self, kind: &str) -> &'static str {
        self.kinds.get(kind).copied().unwrap_or("#444444")
    }
}

/// `external_call` -> `external call`; `covered` and `proven_infeasible`
/// read as themselves.
fn kind_label(kind: &str) -> String {
    kind.replace('_', " ")
}

// ---- writing ----------------------------------------------------------------

/// Text made safe for HTML content and attribute values.
struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            f.write_str(&rest[..at])?;
            f.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        f.write_str(rest)
    }
}

fn escape(text: &str) -> String {
    Escaped(text).to_string()
}

/// `12.3`: seconds as the page shows them.
fn seconds(value: f64) -> String {
    format!("{value:.1}")
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "–".to_string()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 1.5em 2em; color: #222; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1em; margin-bottom: 0.3em; }
table { border-collapse: collapse; margin: 0.4em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; font-size: 0.9em; }
.legend span { display: inline-block; margin-right: 1.2em; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: -0.1em; margin-right: 0.3em; border: 1px solid #888; }
.kind { font-size: 0.85em; padding: 0 0.3em; border-radius: 3px; color: #000; white-space: nowrap; }
.suggestion { color: #0b5394; }
.culprit { color: #555; font-size: 0.9em; }
.status-failed { color: #b00020; font-weight: bold; }
.muted { color: #666; }
code.file { color: #555; font-size: 0.8em; word-break: break-all; }
td.note { max-width: 28em; }
";

#[derive(Default)]
struct Page {
    out: String,
}

impl Page {
    fn head(&mut self) {
        let _ = write!(
            self.out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>testgen report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        );
    }

    fn report(&mut self, report: &ReportView, sources: &SourceLookup) {
        let kinds: Vec<String> = report
            .classes
            .iter()
            .flat_map(segments)
            .map(|segment| segment.kind)
            .collect();
        let colours = Colours::new(&kinds);
        let _ = writeln!(
            self.out,
            "<h1>testgen report</h1>\n<p class=\"muted\">Written by testgen {} from \
             testgen-report.json, which holds the same figures.</p>",
            env!("CARGO_PKG_VERSION")
        );
        self.summary(&report.summary);
        self.timeline(report);
        self.classes(report, &colours);
        self.uncovered(report, &colours, sources);
        self.possible_bugs(report);
        self.survivors(report, sources);
        self.problems(&report.problems);
    }

    fn summary(&mut self, s: &SummaryView) {
        let statuses: Vec<String> = s
            .statuses
            .iter()
            .filter(|(_, &count)| count > 0)
            .map(|(status, count)| format!("{count} {}", escape(status)))
            .collect();
        let out = &mut self.out;
        out.push_str("<h2>Summary</h2>\n<table class=\"summary\">\n");
        let mut row = |label: &str, id: &str, value: String, note: String| {
            let _ = writeln!(
                out,
                "<tr><th>{label}</th><td class=\"n\" id=\"summary-{id}\">{value}</td><td>{note}</td></tr>"
            );
        };
        row(
            "Classes",
            "classes",
            s.classes.to_string(),
            statuses.join(", "),
        );
        row("Tests", "tests", s.tests.to_string(), String::new());
        row(
            "Branch outcomes covered",
            "branches-covered",
            s.branches_covered.to_string(),
            format!(
                "of <span id=\"summary-branches\">{}</span> ({})",
                s.branches,
                percent(s.branches_covered, s.branches)
            ),
        );
        row(
            "Proven infeasible",
            "branches-infeasible",
            s.branches_infeasible.to_string(),
            "outcomes no input can reach".to_string(),
        );
        row(
            "Claims contradicted",
            "infeasible-contradicted",
            s.infeasible_contradicted.to_string(),
            "claims of infeasibility a run of the class refuted (reported as reached; must be 0)"
                .to_string(),
        );
        let m = &s.mutation;
        if m.analysed > 0 {
            row(
                "Mutants caught",
                "mutants-killed",
                m.killed.to_string(),
                format!(
                    "of <span id=\"summary-mutants-analysed\">{}</span> ({}) that a test calls the method of; \
                     {} more in methods no test calls{}",
                    m.analysed,
                    percent(m.killed, m.analysed),
                    m.unreached,
                    if m.not_analysed > 0 {
                        format!(", {} not run for lack of time", m.not_analysed)
                    } else {
                        String::new()
                    }
                ),
            );
        }
        row(
            "Possible bugs",
            "possible-bugs",
            s.possible_bugs.to_string(),
            "undeclared exceptions from inside the JDK (also in testgen.sarif)".to_string(),
        );
        row(
            "Time",
            "wall-seconds",
            seconds(s.wall_seconds),
            match s.total_budget_seconds {
                Some(total) => format!("seconds (total budget {})", seconds(total)),
                None => "seconds".to_string(),
            },
        );
        row("Mode", "mode", escape(&s.mode), String::new());
        row("Seed", "seed", s.seed.to_string(), String::new());
        row("JUnit", "junit", s.junit.to_string(), String::new());
        out.push_str("</table>\n");
    }

    /// Covered branch outcomes over the run: each class adds its covered
    /// outcomes when it finished. Classes not generated in this run count
    /// from the start.
    fn timeline(&mut self, report: &ReportView) {
        const WIDTH: f64 = 720.0;
        const HEIGHT: f64 = 260.0;
        const LEFT: f64 = 60.0;
        const RIGHT: f64 = 20.0;
        const TOP: f64 = 14.0;
        const BOTTOM: f64 = 42.0;
        let mut finished: Vec<&ClassView> = report.classes.iter().collect();
        finished.sort_by(|a, b| a.finished_seconds.total_cmp(&b.finished_seconds));
        let last = finished.last().map_or(0.0, |c| c.finished_seconds);
        let x_max = report.summary.wall_seconds.max(last).max(1e-9);
        let total: usize = report.classes.iter().map(|c| c.branches).sum();
        let y_max = total.max(1) as f64;
        let x = |t: f64| LEFT + (t / x_max) * (WIDTH - LEFT - RIGHT);
        let y = |n: usize| TOP + (1.0 - n as f64 / y_max) * (HEIGHT - TOP - BOTTOM);

        let out = &mut self.out;
        out.push_str("<h2>Coverage over the run</h2>\n");
        let _ = writeln!(
            out,
            "<svg class=\"timeline\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
             viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"branch outcomes covered against seconds since the run started\">"
        );
        // Axes, ticks and labels.
        let _ = writeln!(
            out,
            "<path d=\"M{LEFT} {TOP} V{:.1} H{:.1}\" fill=\"none\" stroke=\"#888\"/>",
            y(0),
            x(x_max)
        );
        for step in 0..=4 {
            let t = x_max * step as f64 / 4.0;
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
                x(t),
                y(0) + 15.0,
                seconds(t)
            );
        }
        for n in [0, total / 2, total] {
            let _ = writeln!(
                out,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{n}</text>",
                LEFT - 6.0,
                y(n) + 4.0
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">seconds since the run started</text>",
            x(x_max / 2.0),
            HEIGHT - 6.0
        );
        let _ = writeln!(
            out,
            "<text x=\"14\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 {:.1})\">branch outcomes</text>",
            y(total / 2),
            y(total / 2)
        );
        // What tests could cover at most: every outcome not proven infeasible.
        let infeasible: usize = report.classes.iter().map(|c| c.branches_infeasible).sum();
        let feasible = total.saturating_sub(infeasible);
        let _ = writeln!(
            out,
            "<path d=\"M{LEFT} {:.1} H{:.1}\" stroke=\"#b0b0b0\" stroke-dasharray=\"4 3\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\" fill=\"#666\">not proven infeasible: {feasible}</text>",
            y(feasible),
            x(x_max),
            x(x_max),
            y(feasible) - 4.0
        );
        // The curve: a step up at each class's finish.
        let mut covered: usize = finished
            .iter()
            .filter(|c| c.finished_seconds <= 0.0)
            .map(|c| c.branches_covered)
            .sum();
        let mut path = format!("M{:.1} {:.1}", x(0.0), y(covered));
        let mut dots = String::new();
        for class in finished.iter().filter(|c| c.finished_seconds > 0.0) {
            covered += class.branches_covered;
            let _ = write!(
                path,
                " H{:.1} V{:.1}",
                x(class.finished_seconds),
                y(covered)
            );
            let _ = writeln!(
                dots,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#009e73\"><title>{} finished at {} s: +{} covered, {} in all</title></circle>",
                x(class.finished_seconds),
                y(covered),
                Escaped(&class.class),
                seconds(class.finished_seconds),
                class.branches_covered,
                covered
            );
        }
        let _ = write!(path, " H{:.1}", x(x_max));
        let _ = writeln!(
            out,
            "<path d=\"{path}\" fill=\"none\" stroke=\"#009e73\" stroke-width=\"2\"/>\n{dots}</svg>"
        );
        if report.classes.iter().all(|c| c.finished_seconds <= 0.0) {
            out.push_str(
                "<p class=\"muted\">No class was generated in this run: what the curve shows was covered before it.</p>\n",
            );
        }
    }

    fn classes(&mut self, report: &ReportView, colours: &Colours) {
        let out = &mut self.out;
        out.push_str("<h2>Classes</h2>\n<p class=\"legend\">");
        let mut kinds: Vec<&String> = colours.kinds.keys().collect();
        // Covered and infeasible first, as in the bars.
        kinds.sort_by_key(|kind| match kind.as_str() {
            COVERED => 0,
            INFEASIBLE => 1,
            _ => 2,
        });
        for kind in kinds {
            let total: usize = report
                .classes
                .iter()
                .flat_map(segments)
                .filter(|s| &s.kind == kind)
                .map(|s| s.count)
                .sum();
            let label = match kind.as_str() {
                COVERED | INFEASIBLE => kind_label(kind),
                other => format!("uncovered: {}", kind_label(other)),
            };
            let _ = write!(
                out,
                "<span><span class=\"swatch\" style=\"background:{}\"></span>{} ({total})</span>",
                colours.of(kind),
                Escaped(&label)
            );
        }
        out.push_str(
            "</p>\n<table class=\"classes\">\n<tr><th>Class (generated file)</th><th>Status</th>\
             <th>Tests</th><th>Covered</th><th>Branch outcomes</th><th>Infeasible</th>\
             <th>Mutants caught</th><th>Seconds</th><th>Finished at</th><th>Note</th></tr>\n",
        );
        for class in &report.classes {
            let name = Escaped(&class.class);
            let linked = if class.uncovered.is_empty() {
                format!("<code>{name}</code>")
            } else {
                format!("<a href=\"#uncovered-{name}\"><code>{name}</code></a>")
            };
            let note = class
                .reason
                .as_ref()
                .map(|r| escape(&Reason::of(Some(r)).text))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "<tr class=\"class-row\" data-class=\"{name}\"><td>{linked}{}</td><td class=\"status-{status}\">{status}</td>\
                 <td class=\"n\">{}</td><td class=\"n\">{}/{}<br>{}</td><td>{}</td><td class=\"n\">{}</td>\
                 <td class=\"n mutants\">{mutants}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td class=\"note\">{note}</td></tr>",
                class
                    .file
                    .as_deref()
                    .map(|f| format!("<br><code class=\"file\">{}</code>", Escaped(f)))
                    .unwrap_or_default(),
                class.tests,
                class.branches_covered,
                class.branches,
                percent(class.branches_covered, class.branches),
                bar(class, colours),
                class.branches_infeasible,
                seconds(class.seconds),
                if class.finished_seconds > 0.0 {
                    seconds(class.finished_seconds)
                } else {
                    "–".to_string()
                },
                status = Escaped(&class.status),
                mutants = mutants_cell(class),
            );
        }
        out.push_str("</table>\n");
    }

    /// Per class, the possible bugs, each with the test that shows it.
    fn possible_bugs(&mut self, report: &ReportView) {
        let with_bugs: Vec<&ClassView> = report
            .classes
            .iter()
            .filter(|class| !class.possible_bugs.is_empty())
            .collect();
        if with_bugs.is_empty() {
            return;
        }
        let out = &mut self.out;
        out.push_str(
            "<h2>Possible bugs</h2>\n<p class=\"muted\">Unchecked exceptions the JDK throws when \
             it is misused (an index out of bounds, a class cast, arithmetic) that escaped from inside \
             the JDK through a method that does not declare them. They are not written as tests \
             (that would assert them as expected); <code>--possible-bugs assert</code> writes \
             them.</p>\n",
        );
        for class in with_bugs {
            let _ = writeln!(
                out,
                "<h3><code>{}</code></h3>\n<table class=\"possible-bugs\">\n\
                 <tr><th>Method</th><th>Line</th><th>Exception</th><th>Test that shows it</th></tr>",
                Escaped(&class.class),
            );
            for bug in &class.possible_bugs {
                let said = bug
                    .message
                    .as_deref()
                    .map(|m| format!(": {}", Escaped(m)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "<tr class=\"possible-bug\"><td><code>{}</code></td><td class=\"n\">{}</td>\
                     <td><code>{}</code>{said}<br><span class=\"muted\">from <code>{}</code></span></td>\
                     <td><pre class=\"bug-test\">{}</pre></td></tr>",
                    Escaped(&bug.declaration),
                    bug.line.map(|l| l.to_string()).unwrap_or_default(),
                    Escaped(&bug.exception),
                    Escaped(&bug.thrown_in),
                    Escaped(&bug.test),
                );
            }
            out.push_str("</table>\n");
        }
    }

    /// Per class, the mutants no test caught: what the tests would miss.
    fn survivors(&mut self, report: &ReportView, sources: &SourceLookup) {
        let with_survivors: Vec<(&ClassView, &MutationView)> = report
            .classes
            .iter()
            .filter_map(|class| Some((class, class.mutation.as_ref()?)))
            .filter(|(_, mutation)| !mutation.survivors.is_empty())
            .collect();
        if report.classes.iter().all(|class| class.mutation.is_none()) {
            return;
        }
        let out = &mut self.out;
        out.push_str(
            "<h2>Mutants the tests miss</h2>\n<p class=\"muted\">Each is the class with one small \
             fault (a negated condition, a shifted boundary, a replaced operator, constant or return \
             value, a removed call or field write) that the written tests run but do not notice.</p>\n",
        );
        if with_survivors.is_empty() {
            out.push_str("<p>None: the tests catch every mutant they run.</p>\n");
            return;
        }
        for (class, mutation) in with_survivors {
            let lines = if sources.is_empty() {
                None
            } else {
                sources.lines(&class.class)
            };
            let _ = writeln!(
                out,
                "<h3 id=\"survivors-{name}\"><code>{name}</code></h3>\n<table class=\"survivors\">\n\
                 <tr><th>Method</th><th>Line</th><th>Operator</th><th>Change</th>{}</tr>",
                if lines.is_some() { "<th>Source</th>" } else { "" },
                name = Escaped(&class.class),
            );
            for survivor in &mutation.survivors {
                let source = match &lines {
                    None => String::new(),
                    // Not `class="source"`: that cell is an open outcome's.
                    Some(lines) => format!(
                        "<td class=\"mutant-source\">{}</td>",
                        source_text(Some(lines), Some(survivor.line))
                    ),
                };
                let _ = writeln!(
                    out,
                    "<tr class=\"survivor\"><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td><td>{}</td>{source}</tr>",
                    Escaped(&survivor.method),
                    if survivor.line > 0 { survivor.line.to_string() } else { String::new() },
                    Escaped(&survivor.operator.replace('_', " ")),
                    Escaped(&survivor.change),
                );
            }
            out.push_str("</table>\n");
        }
    }

    fn uncovered(&mut self, report: &ReportView, colours: &Colours, sources: &SourceLookup) {
        let out = &mut self.out;
        out.push_str("<h2>Branch outcomes not covered</h2>\n");
        let with_uncovered: Vec<&ClassView> = report
            .classes
            .iter()
            .filter(|c| !c.uncovered.is_empty())
            .collect();
        if with_uncovered.is_empty() {
            out.push_str("<p>None: every branch outcome is covered or proven infeasible.</p>\n");
            return;
        }
        if sources.is_empty() {
            out.push_str(
                "<p class=\"muted\">Run testgen with <code>--sources DIR</code> to see each outcome's source line.</p>\n",
            );
        }
        for class in with_uncovered {
            let lines = if sources.is_empty() {
                None
            } else {
                sources.lines(&class.class)
            };
            let _ = writeln!(
                out,
                "<h3 id=\"uncovered-{name}\"><code>{name}</code></h3>\n<table class=\"uncovered\">\n\
                 <tr><th>Method</th><th>Line</th><th>Outcome</th><th>Why</th>{}</tr>",
                if sources.is_empty() {
                    ""
                } else {
                    "<th>Source</th>"
                },
                name = Escaped(&class.class),
            );
            for entry in &class.uncovered {
                let reason = Reason::of(entry.reason.as_ref());
                let line = entry.line.or(reason.line);
                let mut why = format!(
                    "<span class=\"kind\" style=\"background:{}\">{}</span> {}",
                    colours.of(&reason.kind),
                    Escaped(&kind_label(&reason.kind)),
                    Escaped(&reason.text)
                );
                if let Some(suggestion) = &reason.suggestion {
                    let _ = write!(
                        why,
                        "<br><span class=\"suggestion\">Suggestion: {}</span>",
                        Escaped(suggestion)
                    );
                }
                if let Some(culprit) = &reason.culprit {
                    let _ = write!(
                        why,
                        "<br><span class=\"culprit\">Culprit: {}</span>",
                        Escaped(&culprit_text(culprit))
                    );
                }
                let source = if sources.is_empty() {
                    String::new()
                } else {
                    format!(
                        "<td class=\"source\">{}</td>",
                        source_text(lines.as_deref(), line)
                    )
                };
                let _ = writeln!(
                    out,
                    "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td><td>{why}</td>{source}</tr>",
                    Escaped(&entry.method),
                    line.map(|l| l.to_string()).unwrap_or_default(),
                    Escaped(&entry.outcome),
                );
            }
            out.push_str("</table>\n");
        }
    }

    fn problems(&mut self, problems: &[ProblemView]) {
        if problems.is_empty() {
            return;
        }
        let out = &mut self.out;
        out.push_str("<h2>Inputs not read</h2>\n<ul>\n");
        for problem in problems {
            let _ = writeln!(
                out,
                "<li><code>{}</code>: {}</li>",
                Escaped(&problem.location),
                Escaped(&problem.reason)
            );
        }
        out.push_str("</ul>\n");
    }
}

/// Line `line` (1-based) of a class's source as a cell's content, or a
/// muted "not found".
fn source_text(lines: Option<&[String]>, line: Option<u32>) -> String {
    line.filter(|&l| l > 0)
        .and_then(|l| lines?.get(l as usize - 1))
        .map(|text| format!("<code>{}</code>", Escaped(text.trim())))
        .unwrap_or_else(|| "<span class=\"muted\">not found</span>".to_string())
}

/// `caught/analysed (percent)`, linked to the class's survivors; a dash
/// for a class whose mutants were not analysed.
fn mutants_cell(class: &ClassView) -> String {
    let Some(mutation) = &class.mutation else {
        return "–".to_string();
    };
    if mutation.analysed == 0 {
        return "–".to_string();
    }
    let figure = format!(
        "{}/{}<br>{}",
        mutation.killed,
        mutation.analysed,
        percent(mutation.killed, mutation.analysed)
    );
    if mutation.survivors.is_empty() {
        figure
    } else {
        format!(
            "<a href=\"#survivors-{}\">{figure}</a>",
            Escaped(&class.class)
        )
    }
}

/// A class's bar: one rectangle per segment, each with its count as a
/// tooltip (`<title>`, shown without script).
fn bar(class: &ClassView, colours: &Colours) -> String {
    const WIDTH: f64 = 240.0;
    const HEIGHT: f64 = 14.0;
    let mut svg = format!(
        "<svg class=\"bar\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\">"
    );
    if class.branches == 0 {
        let _ = write!(
            svg,
            "<rect x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#ccc\"><title>no branch outcomes</title></rect>",
            WIDTH - 1.0,
            HEIGHT - 1.0
        );
    }
    // Edges from running totals, so the rectangles meet without gaps.
    let mut done = 0;
    for segment in segments(class) {
        let from = WIDTH * done as f64 / class.branches as f64;
        done += segment.count;
        let to = WIDTH * done as f64 / class.branches as f64;
        let _ = write!(
            svg,
            "<rect x=\"{from:.1}\" y=\"0\" width=\"{:.1}\" height=\"{HEIGHT}\" fill=\"{}\"><title>{}: {}</title></rect>",
            to - from,
            colours.of(&segment.kind),
            Escaped(&kind_label(&segment.kind)),
            segment.count
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A culprit object as one line: `key: value` pairs, nested ones inline.
fn culprit_text(culprit: &Value) -> String {
    let text = |key: &str| culprit.get(key).and_then(Value::as_str).unwrap_or_default();
    let list = |key: &str| -> Vec<&str> {
        culprit
            .get(key)
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    };
    match text("kind") {
        "external_call" => match culprit.get("line").and_then(Value::as_u64) {
            Some(line) if line > 0 => format!("the call {} (line {line})", text("call")),
            _ => format!("the call {}", text("call")),
        },
        "object_state" => {
            let setters = list("setters");
            format!(
                "{} of a {}; set by {}",
                list("fields").join("."),
                text("class"),
                if setters.is_empty() {
                    "nothing a test can call".to_string()
                } else {
                    setters.join(", ")
                }
            )
        }
        // A shape this page does not know: its fields as they are.
        _ => match culprit {
            Value::String(text) => text.clone(),
            Value::Object(fields) => fields
                .iter()
                .map(|(key, value)| format!("{key}: {value}"))
                .collect::<Vec<_>>()
                .join(", "),
            other => other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn class(value: Value) -> ClassView {
        ClassView::deserialize(&value).unwrap()
    }

    fn report_with(uncovered: Value) -> Value {
        json!({
            "classes": [{
                "class": "p.Outer$Inner<T>",
                "status": "generated",
                "tests": 2,
                "branches": 10,
                "branches_covered": 5,
                "branches_infeasible": 1,
                "uncovered": uncovered,
                "file": "p/Outer_InnerGeneratedTest.java",
                "seconds": 1.5,
                "finished_seconds": 2.25
            }],
            "problems": [{"location": "lib/x.jar!/a/<B>.class", "reason": "bad & broken"}],
            "summary": {
                "classes": 1, "statuses": {"generated": 1, "failed": 0}, "tests": 2,
                "branches": 10, "branches_covered": 5, "branches_infeasible": 1,
                "junit": 5, "mode": "full", "seed": 7, "wall_seconds": 3.0
            }
        })
    }

    #[test]
    fn escapes_every_text_of_the_report() {
        assert_eq!(
            escape("a<b>&\"c\"'d'$"),
            "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;$"
        );
        let page = render(
            &report_with(json!([{
                "method": "p.Outer$Inner.<init>(Ljava/lang/String;)V",
                "line": 3, "outcome": "taken",
                "reason": "compares with \"<none>\" & more"
            }])),
            &SourceLookup::none(),
        );
        assert!(page.contains("p.Outer$Inner&lt;T&gt;"), "{page}");
        assert!(page.contains("p.Outer$Inner.&lt;init&gt;(Ljava/lang/String;)V"));
        assert!(page.contains("compares with &quot;&lt;none&gt;&quot; &amp; more"));
        assert!(page.contains("lib/x.jar!/a/&lt;B&gt;.class"));
        assert!(page.contains("bad &amp; broken"));
        assert!(!page.contains("<init>") && !page.contains("<none>") && !page.contains("<B>"));
        assert!(!page.contains("<script"));
        // The summary figures, where a reader (and the browser test) finds them.
        assert!(page.contains("id=\"summary-tests\">2<"));
        assert!(page.contains("id=\"summary-branches-covered\">5<"));
        assert!(page.contains("id=\"summary-seed\">7<"));
    }

    #[test]
    fn reads_reasons_as_strings_and_as_objects() {
        let page = render(
            &report_with(json!([
                {"method": "p.A.f(I)I", "line": 4, "outcome": "taken",
                 "reason": "not modelled: something"},
                {"method": "p.A.f(I)I", "line": 5, "outcome": "not_taken",
                 "reason": {"kind": "external_call", "text": "decided by a <JDK> call",
                            "line": 5, "suggestion": "pass a Clock & test again",
                            "culprit": {"kind": "external_call",
                                        "call": "java.time.Instant.now()", "line": 5}}},
                {"method": "p.A.h()V", "line": 7, "outcome": "taken",
                 "reason": {"kind": "object_creation", "text": "needs a p.A whose size is in another state",
                            "culprit": {"kind": "object_state", "class": "p.A",
                                        "fields": ["buffer", "size"], "setters": []}}},
                {"method": "p.A.g()V", "line": 9, "outcome": "taken",
                 "reason": {"kind": "budget", "text": "out of time"}}
            ])),
            &SourceLookup::none(),
        );
        assert!(page.contains("not modelled: something"));
        assert!(page.contains(">other</span>"));
        assert!(page.contains(">external call</span> decided by a &lt;JDK&gt; call"));
        assert!(page.contains("Suggestion: pass a Clock &amp; test again"));
        assert!(page.contains("Culprit: the call java.time.Instant.now() (line 5)"));
        assert!(page.contains("Culprit: buffer.size of a p.A; set by nothing a test can call"));
        assert!(page.contains(">budget</span> out of time"));
        assert_eq!(page.matches("Suggestion:").count(), 1);
        assert!(page.contains(">object creation</span>"));

        let string = Reason::of(Some(&ReasonField::Text("proven infeasible".into())));
        assert_eq!(string.kind, INFEASIBLE);
        let detailed: ReasonField = serde_json::from_value(json!({"text": "no kind"})).unwrap();
        assert_eq!(Reason::of(Some(&detailed)).kind, OTHER);
    }

    #[test]
    fn bar_segments_add_up_to_the_class_branches() {
        let mixed = class(json!({
            "class": "p.A", "branches": 10, "branches_covered": 5, "branches_infeasible": 1,
            "uncovered": [
                {"reason": "proven infeasible"},
                {"reason": {"kind": "budget", "text": "x"}},
                {"reason": {"kind": "budget", "text": "y"}},
                {"reason": {"kind": "external_call", "text": "z"}},
                {"reason": "something else"}
            ]
        }));
        let split: Vec<(String, usize)> = segments(&mixed)
            .into_iter()
            .map(|s| (s.kind, s.count))
            .collect();
        assert_eq!(
            split,
            [
                ("covered".to_string(), 5),
                ("proven_infeasible".to_string(), 1),
                ("budget".to_string(), 2),
                ("external_call".to_string(), 1),
                ("other".to_string(), 1),
            ]
        );
        // A failed class lists fewer uncovered outcomes than it has open;
        // the rest are `other`.
        let failed = class(json!({
            "class": "p.B", "status": "failed", "branches": 8, "branches_covered": 0,
            "uncovered": [{"reason": {"kind": "budget", "text": "x"}}]
        }));
        // Entries beyond the count are cut, never drawn past the end.
        let inconsistent = class(json!({
            "class": "p.C", "branches": 2, "branches_covered": 2,
            "uncovered": [{"reason": "stale"}]
        }));
        let empty = class(json!({"class": "p.D"}));
        for class in [&mixed, &failed, &inconsistent, &empty] {
            let total: usize = segments(class).iter().map(|s| s.count).sum();
            assert_eq!(total, class.branches, "{}", class.class);
        }
        assert_eq!(segments(&failed)[1].kind, "other");
        assert_eq!(segments(&failed)[1].count, 7);

        // The drawn rectangles span the whole bar.
        let colours = Colours::new(&["budget".into(), "external_call".into(), "other".into()]);
        let svg = bar(&mixed, &colours);
        let widths: f64 = svg
            .split("width=\"")
            .skip(2)
            .map(|rest| rest[..rest.find('"').unwrap()].parse::<f64>().unwrap())
            .sum();
        assert!((widths - 240.0).abs() < 0.5, "{svg}");
    }

    #[test]
    fn the_same_report_gives_the_same_page_with_source_lines() {
        let dir = std::env::temp_dir()
            .join("testgen-driver-tests")
            .join(format!("html-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("p")).unwrap();
        std::fs::write(
            dir.join("p/Outer.java"),
            "package p;\nclass Outer {\n    boolean f(String s) { return s.equals(\"<x>\") && true; }\n}\n",
        )
        .unwrap();
        let report = report_with(json!([{
            "method": "p.Outer$Inner.f(Ljava/lang/String;)Z", "line": 3, "outcome": "taken",
            "reason": {"kind": "not_reached", "text": "not reached"}
        }]));
        let sources = SourceLookup::new(&[dir]).unwrap();
        let page = render(&report, &sources);
        assert!(page.contains(
            "<code>boolean f(String s) { return s.equals(&quot;&lt;x&gt;&quot;) &amp;&amp; true; }</code>"
        ));
        assert_eq!(page, render(&report, &sources));
        // Nothing is fetched from elsewhere, nothing runs.
        assert!(!page.contains("http") && !page.contains("<script"));
    }

    #[test]
    fn an_unreadable_report_still_gives_a_page() {
        let page = render(&json!({"classes": "nope"}), &SourceLookup::none());
        assert!(page.contains("could not be read"));
        assert!(page.ends_with("</html>\n"));
    }
}
