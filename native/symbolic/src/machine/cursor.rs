//! Walking the probe trace alongside the bytecode.

use testgen_exec::{ExternalValue, TraceEvent};
use testgen_project::MethodId;

use super::frames::Frame;
use super::{Flow, Replay};

impl<'p, 'a> Replay<'p, 'a> {
    /// The next event, past any class initialisation (a `<clinit>` runs
    /// wherever the JVM first needs the class, and has nothing to do with
    /// the path).
    pub(super) fn peek(&mut self) -> Option<&'p TraceEvent> {
        while let Some(TraceEvent::Enter { method }) = self.events.get(self.cursor) {
            let is_clinit = self
                .program
                .method_of_probe(*method)
                .is_some_and(MethodId::is_class_initialiser);
            if !is_clinit {
                break;
            }
            self.skip_call(*method);
        }
        self.events.get(self.cursor)
    }

    /// Skips a call's events, from its `enter` to its `exit` (or to where
    /// an exception left it).
    pub(super) fn skip_call(&mut self, method: i32) {
        let mut depth = 0usize;
        while let Some(event) = self.events.get(self.cursor) {
            match event {
                TraceEvent::Enter { .. } => depth += 1,
                TraceEvent::Exit { method: m } => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && *m == method {
                        self.cursor += 1;
                        return;
                    }
                }
                _ => {}
            }
            self.cursor += 1;
            if depth == 0 {
                return;
            }
        }
    }

    pub(super) fn site_matches(&self, site: i32, frame: &Frame<'_, '_>) -> bool {
        self.program
            .site(site)
            .is_some_and(|at| Some(at.method) == frame.probe && at.offset == frame.pc)
    }

    /// Consumes events up to the `external_result` of `site` (callbacks into
    /// the program in between are skipped); `None` if the call threw.
    pub(super) fn external_result(&mut self, site: i32) -> Option<&'p ExternalValue> {
        let mut depth = 0usize;
        loop {
            let event = self.events.get(self.cursor)?;
            match event {
                TraceEvent::ExternalResult { site: s, value } if depth == 0 && *s == site => {
                    self.cursor += 1;
                    return Some(value);
                }
                TraceEvent::Enter { .. } => depth += 1,
                TraceEvent::Exit { .. } => depth = depth.saturating_sub(1),
                TraceEvent::Caught { .. } | TraceEvent::Statement { .. } if depth == 0 => {
                    return None
                }
                _ => {}
            }
            self.cursor += 1;
        }
    }

    pub(super) fn consume_compare(&mut self, frames: &[Frame<'p, 'a>]) -> Flow<()> {
        let frame = frames.last().expect("a frame");
        if let Some(TraceEvent::Compare { site, .. }) = self.peek() {
            if self.site_matches(*site, frame) {
                self.cursor += 1;
            }
        }
        Ok(())
    }
}
