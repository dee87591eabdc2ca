//! Whether the path so far has used a value returned by a call that nothing
//! models (a JDK method without a model): the replay takes the value the
//! run saw, a constant, though other inputs might make the call return
//! something else. The replay does not follow where such a value flows, so
//! every clause recorded after the first one is marked as resting on it,
//! and no proof of infeasibility goes through a marked clause.
//!
//! (Stand-in variables pinned to the observed values were tried first:
//! substituting them into every term evaluated cost gigabytes on I/O loops
//! that read thousands of observed values.)

/// The mark of one replay.
#[derive(Default)]
pub(super) struct Observed {
    used: bool,
}

impl Observed {
    /// The path now uses an observed value.
    pub fn note(&mut self) {
        self.used = true;
    }

    /// Whether clauses from here on may rest on an observed value.
    pub fn used(&self) -> bool {
        self.used
    }
}
