//! The symbolic JVM: replays one run of a plan over z3 terms.
//!
//! The executor ran the plan on a real JVM with probes; its trace says
//! which way every branch went, which project methods were entered, where
//! exceptions were caught and what calls into the JDK returned. The replay
//! interprets the same bytecode along that path with symbolic values, so
//! every decision becomes a [`Step`]: the outcome taken and the clauses of
//! the outcomes not taken. Calls into the program are followed (up to a
//! depth); calls into the JDK are modelled where [`crate::jdk`] knows them
//! and otherwise take the value the run observed (concolic). Instructions
//! that may throw (null dereference, array bounds, division by zero,
//! negative array size, failing casts) are decisions too.
//!
//! A replay that finds the trace and the bytecode disagree stops there and
//! keeps the steps so far; the explorer then knows the path up to that
//! point.
//!
//! The replay is split by concern: [`cursor`] walks the trace, [`frames`]
//! runs the interpreter loop over call frames, [`operations`] interprets
//! the plain instructions, [`decisions`] turns branches and instructions
//! that may throw into steps, [`calls`] follows program calls and models
//! or concretises JDK ones, [`heap`] holds fields, arrays and type checks.

mod calls;
mod cursor;
mod decisions;
mod frames;
mod heap;
mod operations;

use std::collections::BTreeMap;

use testgen_analysis::Hierarchy;
use testgen_classfile::ClassFile;
use testgen_exec::{Assertions, TraceEvent};
use testgen_project::{Blocker, MethodId, Program, Site};
use z3::ast::{Ast, Bool, Dynamic, BV};

use crate::encode::{Act, ArgSym, ArrayElements, Target, Valuation};
use crate::jdk;
use crate::tree::Step;
use crate::value::{Elements, HeapObject, ObjId, Reference, Sym};

#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// Calls into the program followed below the statement's own call.
    pub call_depth: usize,
    /// Times one branch may be decided per call before its alternatives are
    /// no longer offered (loop unrolling bound).
    pub loop_bound: u32,
    /// Decisions on one path at most; a longer run (a loop that goes on
    /// and on) is followed that far.
    pub max_path_length: usize,
    /// Whether `assert` statements run, per class: the executor JVM's
    /// switches (a class's `$assertionsDisabled` is a constant to the replay).
    pub assertions: Assertions,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            call_depth: 4,
            loop_bound: 12,
            max_path_length: 400,
            assertions: Assertions::enabled(),
        }
    }
}

/// What a replay found.
#[derive(Debug, Default)]
pub struct Replayed {
    pub steps: Vec<Step>,
    /// Why the replay stopped before the end of the trace, if it did.
    pub stopped: Option<Blocker>,
    /// Branches whose alternatives were no longer offered because the loop
    /// around them ran more than [`ReplayOptions::loop_bound`] times.
    pub loop_bounds: Vec<Site>,
}

/// Replays a plan's run: `acts` say what each statement means, `events` are
/// the plan thread's trace, `valuation` the inputs the plan was made from;
/// `hierarchy` knows the program's types.
pub fn replay(
    program: &Program<'_>,
    hierarchy: &Hierarchy,
    acts: &[Act],
    events: &[TraceEvent],
    valuation: &Valuation,
    options: &ReplayOptions,
) -> Replayed {
    let mut replay = Replay {
        program,
        hierarchy,
        valuation,
        options,
        at: None,
        loop_bounds: Vec::new(),
        events: &[],
        cursor: 0,
        heap: Vec::new(),
        statics: BTreeMap::new(),
        steps: Vec::new(),
        results: vec![None; acts.len()],
        next_address: 1000,
        fresh_variables: 0,
        truncated: false,
        returned: None,
        rests_on_observed: false,
    };
    let mut starts: Vec<(usize, usize)> = events
        .iter()
        .enumerate()
        .filter_map(|(at, e)| match e {
            TraceEvent::Statement { statement } => Some((*statement as usize, at + 1)),
            _ => None,
        })
        .collect();
    starts.sort();
    let mut stopped = None;
    for (index, act) in acts.iter().enumerate() {
        let Some(position) = starts.iter().position(|(s, _)| *s == index) else {
            // The statement never ran (an earlier one failed).
            break;
        };
        let begin = starts[position].1;
        let end = starts
            .get(position + 1)
            .map_or(events.len(), |(_, next)| next - 1);
        replay.events = &events[begin..end];
        replay.cursor = 0;
        replay.at = None;
        match replay.statement(index, act) {
            Ok(()) => {}
            Err(stop) => {
                stopped = replay.blocker(stop);
                break;
            }
        }
    }
    if replay.truncated && stopped.is_none() {
        stopped = replay.blocker(Stop::TooLong);
    }
    Replayed {
        steps: replay.steps,
        stopped,
        loop_bounds: replay.loop_bounds,
    }
}

/// Why interpreting a statement stopped.
enum Stop {
    /// The statement ended with an exception; later statements did not run.
    Threw,
    /// An instruction the replay does not interpret.
    Unsupported { instruction: &'static str },
    /// Trace and bytecode disagree (something not modelled happened).
    Diverged(String),
    /// The path reached [`ReplayOptions::max_path_length`].
    TooLong,
}

type Flow<T> = Result<T, Stop>;

fn mismatch<T>(why: impl Into<String>) -> Flow<T> {
    Err(Stop::Diverged(why.into()))
}

pub(crate) struct Replay<'p, 'a> {
    program: &'p Program<'a>,
    hierarchy: &'p Hierarchy,
    valuation: &'p Valuation,
    options: &'p ReplayOptions,
    /// Where the replay stopped, set when it stops.
    at: Option<Site>,
    /// See [`Replayed::loop_bounds`].
    loop_bounds: Vec<Site>,
    events: &'p [TraceEvent],
    cursor: usize,
    pub(crate) heap: Vec<HeapObject>,
    statics: BTreeMap<(String, String), Sym>,
    steps: Vec<Step>,
    results: Vec<Option<Sym>>,
    next_address: u64,
    fresh_variables: usize,
    /// The path reached [`ReplayOptions::max_path_length`].
    truncated: bool,
    /// What the statement's own call returned.
    returned: Option<Sym>,
    /// The path has used a value returned by a call nothing models (the
    /// value the run saw, a constant, though other inputs might make the
    /// call return something else). The replay does not follow where such
    /// a value flows, so every clause recorded after it is marked as
    /// resting on it, and no proof of infeasibility goes through a marked
    /// clause. (Stand-in variables pinned to the observed values were tried
    /// first: substituting them into every term cost too much, and changed
    /// z3's term order.)
    rests_on_observed: bool,
}

/// What the checks of an array access found.
enum Access {
    /// The access threw (and the frames were unwound).
    Threw,
    /// The array or index is not modelled; the access went on.
    Unmodelled,
    At(ObjId, BV),
}

/// What one instruction did to control flow.
enum Control {
    Next,
    Jump(u32),
    /// The frame on top was pushed or popped; continue with whichever frame
    /// is on top now.
    Frames,
}

impl<'p, 'a> Replay<'p, 'a> {
    /// What a stop means for the goals the path did not get to: nothing
    /// when the statement threw (the path ended as the run did).
    fn blocker(&self, stop: Stop) -> Option<Blocker> {
        Some(match (stop, self.at.clone()) {
            (Stop::Threw, _) => return None,
            (Stop::Unsupported { instruction }, Some(at)) => Blocker::UnsupportedInstruction {
                at,
                instruction: instruction.to_string(),
            },
            (Stop::Unsupported { instruction }, None) => Blocker::ReplayDiverged {
                at: None,
                detail: format!("{instruction} is not interpreted"),
            },
            (Stop::Diverged(detail), at) => Blocker::ReplayDiverged { at, detail },
            (Stop::TooLong, _) => Blocker::PathLength {
                limit: self.options.max_path_length,
            },
        })
    }

    fn statement(&mut self, index: usize, act: &Act) -> Flow<()> {
        match act {
            Act::Realise => Ok(()),
            Act::Constant { class } => {
                let object = self.allocate(HeapObject::Opaque {
                    class: class.clone(),
                });
                self.results[index] = Some(Sym::Ref(Reference::to(object, 0)));
                Ok(())
            }
            Act::Lambda {
                interface,
                method,
                result,
            } => {
                let result = result.as_ref().map(|result| self.arg(result));
                let object = self.allocate(HeapObject::Lambda {
                    interface: interface.clone(),
                    method: method.clone(),
                    result,
                });
                self.results[index] = Some(Sym::Ref(Reference::to(object, 0)));
                Ok(())
            }
            Act::Array {
                class,
                length,
                elements,
            } => {
                let elements = match elements {
                    ArrayElements::Symbolic(array) => Elements::Symbolic(array.clone()),
                    ArrayElements::References(syms) => {
                        Elements::References(syms.iter().map(|s| self.arg(s)).collect())
                    }
                };
                let object = self.allocate(HeapObject::Array {
                    class: class.clone(),
                    length: length.clone(),
                    elements,
                });
                self.results[index] = Some(Sym::Ref(Reference::to(object, 0)));
                Ok(())
            }
            Act::New {
                class,
                descriptor,
                args,
                choice,
            } => {
                let object = self.allocate(HeapObject::Instance {
                    class: class.clone(),
                    fields: BTreeMap::new(),
                    choice: choice.clone(),
                });
                let receiver = Sym::Ref(Reference::to(object, 0));
                self.results[index] = Some(receiver.clone());
                let mut values = vec![receiver];
                values.extend(args.iter().map(|a| self.arg(a)));
                let key = MethodId::of(class, "<init>", descriptor);
                self.enter_statement(key, values)
            }
            Act::Call {
                method,
                receiver,
                args,
            } => {
                let mut values = Vec::new();
                let mut key = method.clone();
                if let Some(receiver) = receiver {
                    let receiver = self.arg(receiver);
                    if let Some(class) = self.runtime_class(&receiver) {
                        key = self.resolve_virtual(&class, &key).unwrap_or(key);
                    }
                    values.push(receiver);
                }
                values.extend(args.iter().map(|a| self.arg(a)));
                self.returned = None;
                self.enter_statement(key, values)?;
                // A later statement may use the result (a static factory's).
                self.results[index] = self.returned.take();
                Ok(())
            }
        }
    }

    /// Runs the method a statement calls, if the program has it.
    fn enter_statement(&mut self, key: MethodId, values: Vec<Sym>) -> Flow<()> {
        let Some(id) = self.program.probe_of(&key) else {
            return Ok(());
        };
        // The executor may run program code to make the arguments (an enum's
        // `values()`); those calls come first and are not the path's.
        loop {
            match self.peek() {
                Some(TraceEvent::Enter { method }) if *method == id => {
                    self.cursor += 1;
                    break;
                }
                Some(TraceEvent::Enter { method }) => self.skip_call(*method),
                _ => return mismatch(format!("no entry into {} in the trace", key)),
            }
        }
        let frame = self.frame(key, Some(id), values)?;
        let mut frames = vec![frame];
        self.run(&mut frames)
    }

    fn arg(&mut self, arg: &ArgSym) -> Sym {
        match arg {
            ArgSym::Prim(p) => Sym::Prim(p.clone()),
            ArgSym::Ref {
                is_null,
                address,
                target,
            } => {
                let object = match target {
                    Target::Null | Target::Opaque => None,
                    Target::Statement(index) => match &self.results[*index] {
                        Some(Sym::Ref(r)) => r.object,
                        _ => None,
                    },
                    Target::Str { chars, choice } => Some(self.allocate(HeapObject::Str {
                        chars: chars.clone(),
                        choice: choice.clone(),
                    })),
                    Target::Boxed {
                        class,
                        value,
                        choice,
                    } => Some(self.allocate(HeapObject::Boxed {
                        class: class.clone(),
                        value: value.clone(),
                        choice: choice.clone(),
                    })),
                    Target::Enum {
                        class,
                        ordinal,
                        constants,
                    } => Some(self.allocate(HeapObject::EnumConstant {
                        class: class.clone(),
                        ordinal: ordinal.clone(),
                        constants: constants.clone(),
                    })),
                };
                Sym::Ref(Reference {
                    object,
                    is_null: is_null.clone(),
                    address: address.clone(),
                })
            }
        }
    }

    pub(crate) fn allocate(&mut self, object: HeapObject) -> ObjId {
        self.heap.push(object);
        self.heap.len() - 1
    }

    /// A reference to a new object, distinct from every input.
    pub(crate) fn fresh(&mut self, object: HeapObject) -> Sym {
        let id = self.allocate(object);
        self.next_address += 1;
        Sym::Ref(Reference::to(id, self.next_address))
    }

    /// A new solver variable's name, the same on every replay of the same
    /// path prefix.
    pub(crate) fn fresh_variable(&mut self) -> String {
        self.fresh_variables += 1;
        format!("x{}", self.fresh_variables)
    }

    /// Whether a condition holds for this run's inputs.
    pub(crate) fn holds(&self, condition: &Bool) -> bool {
        self.valuation.truth(condition)
    }

    /// A clause as the tree keeps it (`None`: too large to write out, not
    /// modelled), and whether it may rest on an observed value.
    pub(crate) fn clause_text(&self, clause: &Bool) -> (Option<String>, bool) {
        let simplified = clause.simplify();
        let text =
            written_size_within(&simplified, MAX_CLAUSE_TERMS).then(|| simplified.to_string());
        (text, self.rests_on_observed)
    }

    pub(crate) fn object(&self, value: &Sym) -> Option<&HeapObject> {
        value.as_ref()?.object.map(|id| &self.heap[id])
    }

    fn runtime_class(&self, value: &Sym) -> Option<String> {
        self.object(value).map(|o| o.class().to_string())
    }
}

/// Terms a clause may have when written out as a tree. A loop that feeds a
/// value back into itself (`size = max(size << 1, needed)`) shares
/// subterms, and the text of such a term doubles with every turn: one
/// clause of commons-io's ByteArrayOutputStream took gigabytes.
const MAX_CLAUSE_TERMS: usize = 20_000;

/// Whether `term`, written out as a tree, has at most `limit` subterms
/// (counting stops at the limit, so the check costs at most that).
fn written_size_within(term: &Bool, limit: usize) -> bool {
    let mut left = limit;
    let mut pending = vec![Dynamic::from_ast(term)];
    while let Some(next) = pending.pop() {
        if left == 0 {
            return false;
        }
        left -= 1;
        pending.extend(next.children());
    }
    true
}

/// A malformed class (a bad constant-pool entry or descriptor) stops the
/// replay; the verifier would have rejected it.
fn class_error(error: impl std::fmt::Display) -> Stop {
    Stop::Diverged(error.to_string())
}

/// The class an instruction's constant-pool operand names.
fn class_operand(class: &ClassFile<'_>, index: u16) -> Flow<String> {
    class
        .constant_pool
        .class_name(index)
        .map(|name| name.into_owned())
        .map_err(class_error)
}

/// The narrow view JDK models have of a replay.
impl jdk::Heap for Replay<'_, '_> {
    fn object(&self, value: &Sym) -> Option<&HeapObject> {
        Replay::object(self, value)
    }

    fn set_object(&mut self, id: ObjId, object: HeapObject) {
        self.heap[id] = object;
    }

    fn fresh(&mut self, object: HeapObject) -> Sym {
        Replay::fresh(self, object)
    }

    fn fresh_variable(&mut self) -> String {
        Replay::fresh_variable(self)
    }

    fn holds(&self, condition: &Bool) -> bool {
        Replay::holds(self, condition)
    }
}
