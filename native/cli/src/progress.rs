//! What `testgen generate` prints while it works and when it is done: on a
//! terminal, one status line redrawn in place (done/total, elapsed, the
//! classes being worked on) above which finished classes scroll; elsewhere
//! (CI logs, build tools) only plain lines. Everything goes to stderr.

use std::collections::BTreeSet;
use std::io::{IsTerminal, Write};
use std::time::Instant;

use testgen_driver::generate::class::ClassOutcome;
use testgen_driver::generate::{Report, Status};

pub struct Progress {
    terminal: bool,
    started: Instant,
    total: usize,
    done: usize,
    working: BTreeSet<String>,
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            terminal: std::io::stderr().is_terminal(),
            started: Instant::now(),
            total: 0,
            done: 0,
            working: BTreeSet::new(),
        }
    }

    pub fn selected(&mut self, classes: usize) {
        self.total = classes;
        self.redraw();
    }

    pub fn started(&mut self, class: &str) {
        self.working.insert(class.to_string());
        self.redraw();
    }

    pub fn done(&mut self, class: &ClassOutcome) {
        self.done += 1;
        self.working.remove(&class.binary);
        self.line(&class_line(class));
        if let Some(error) = &class.load_error {
            self.line(&format!(
                "warning: {}: runs that needed a class that could not be loaded or initialised were left out: {error}",
                class.binary
            ));
        }
    }

    /// A line that stays (above the status line on a terminal).
    pub fn line(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[K");
        }
        let _ = writeln!(err, "testgen: {text}");
        drop(err);
        self.redraw();
    }

    fn redraw(&self) {
        if !self.terminal || self.total == 0 {
            return;
        }
        let seconds = self.started.elapsed().as_secs();
        let working: Vec<&str> = self.working.iter().map(String::as_str).collect();
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "\r\x1b[K[{}/{}] {}:{:02} {}",
            self.done,
            self.total,
            seconds / 60,
            seconds % 60,
            working.join(", ")
        );
        let _ = err.flush();
    }

    /// Clears the status line.
    pub fn finish(&self) {
        if self.terminal {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

fn class_line(class: &ClassOutcome) -> String {
    match (&class.failure, class.status) {
        (Some(why), _) => format!("{}: failed: {why}", class.binary),
        (None, Status::Generated) => format!(
            "{}: {} tests, {}/{} branch outcomes, {:.1} s",
            class.binary, class.tests, class.branches_covered, class.branches, class.effort.seconds
        ),
        (None, status) => format!(
            "{}: {} ({} tests)",
            class.binary,
            status.name(),
            class.tests
        ),
    }
}

/// The table printed at the end: one row per status that occurred.
pub fn summary_table(report: &Report) -> String {
    let mut rows = vec![[
        "status".to_string(),
        "classes".into(),
        "tests".into(),
        "branches covered".into(),
        "seconds".into(),
    ]];
    for status in Status::ALL {
        let classes: Vec<_> = report
            .classes
            .iter()
            .filter(|c| c.status == status)
            .collect();
        if classes.is_empty() {
            continue;
        }
        let covered: usize = classes.iter().map(|c| c.branches_covered).sum();
        let branches: usize = classes.iter().map(|c| c.branches).sum();
        let seconds: f64 = classes.iter().map(|c| c.effort.seconds).sum();
        rows.push([
            status.name().to_string(),
            classes.len().to_string(),
            classes.iter().map(|c| c.tests).sum::<usize>().to_string(),
            format!("{covered}/{branches}"),
            format!("{seconds:.1}"),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|column| rows.iter().map(|row| row[column].len()).max().unwrap_or(0))
        .collect();
    let mut table = String::new();
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, width))| {
                if column == 0 {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        table.push_str("testgen:   ");
        table.push_str(cells.join("  ").trim_end());
        table.push('\n');
    }
    table
}
