//! Values the run observed from calls the replay does not model (a JDK
//! method without a model): each is a variable of its own, pinned to the
//! value observed wherever a term is evaluated or written as a clause. A
//! clause that mentioned one rests on that value: another input might make
//! the call return something else, so an alternative the value rules out
//! is not proven infeasible (it is not modelled), and a proof on a path
//! through such a clause is no proof.

use z3::ast::{Ast, Bool, Dynamic, Float, BV};

/// The stand-in variables of one replay, with the values they stand for.
#[derive(Default)]
pub(super) struct Observed {
    pins: Vec<(Dynamic, Dynamic)>,
}

impl Observed {
    /// A variable standing for the observed bit-vector `value`.
    pub fn bits(&mut self, value: BV) -> BV {
        let variable = BV::new_const(self.name(), value.get_size());
        self.pins
            .push((Dynamic::from_ast(&variable), Dynamic::from_ast(&value)));
        variable
    }

    /// A variable standing for the observed truth `value` (whether a
    /// returned reference was null).
    pub fn truth(&mut self, value: bool) -> Bool {
        let variable = Bool::new_const(self.name());
        self.pins.push((
            Dynamic::from_ast(&variable),
            Dynamic::from_ast(&Bool::from_bool(value)),
        ));
        variable
    }

    /// A variable standing for the observed float `value`.
    pub fn float(&mut self, value: Float, ebits: u32, sbits: u32) -> Float {
        let variable = Float::new_const(self.name(), ebits, sbits);
        self.pins
            .push((Dynamic::from_ast(&variable), Dynamic::from_ast(&value)));
        variable
    }

    /// `term` with every stand-in replaced by its value, and whether it
    /// mentioned one.
    pub fn pin<T: Ast + Clone + PartialEq>(&self, term: &T) -> (T, bool) {
        if self.pins.is_empty() {
            return (term.clone(), false);
        }
        let pairs: Vec<(&Dynamic, &Dynamic)> = self.pins.iter().map(|(v, c)| (v, c)).collect();
        let pinned = term.substitute(&pairs);
        let mentioned = pinned != *term;
        (pinned, mentioned)
    }

    fn name(&self) -> String {
        format!("observed!{}", self.pins.len())
    }
}
