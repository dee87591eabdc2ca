//! Decisions: conditional branches, switches, and instructions that may
//! throw, each a step with the clauses of the outcomes not taken.

use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_exec::{BranchOperands, ObjectRef, TraceEvent};
use testgen_project::Site;
use z3::ast::{Ast, Bool, BV};

use super::frames::{pop, target, Frame};
use super::{mismatch, Control, Flow, Replay, Stop};
use crate::arith::Condition;
use crate::tree::{Alternative, Decision, Location, Outcome, Step};
use crate::value::{int_comparison, HeapObject, Reference, Sym};

impl<'p, 'a> Replay<'p, 'a> {
    /// Records a decision at the current instruction of the top frame.
    pub(super) fn decide(
        &mut self,
        frames: &mut [Frame<'p, 'a>],
        taken: Outcome,
        taken_clause: Option<Bool>,
        others: Vec<(Outcome, Option<Bool>)>,
    ) {
        if self.steps.len() >= self.options.max_path_length {
            self.truncated = true;
            return;
        }
        let frame = frames.last_mut().expect("a frame");
        let visits = frame.visits.entry(frame.pc).or_insert(0);
        *visits += 1;
        let bounded = *visits > self.options.loop_bound;
        if bounded {
            let site = Site {
                method: frame.method.clone(),
                offset: frame.pc,
            };
            if !self.loop_bounds.contains(&site) {
                self.loop_bounds.push(site);
            }
        }
        let at = Location::of(frame.method.clone(), frame.pc);
        let text = |c: Option<Bool>| match c {
            Some(c) => self.clause_text(&c),
            None => (None, false),
        };
        let (clause, observed) = text(taken_clause);
        let alternatives = if bounded {
            Vec::new()
        } else {
            others
                .into_iter()
                .map(|(outcome, clause)| {
                    let (clause, observed) = text(clause);
                    Alternative {
                        outcome,
                        clause,
                        declares: Vec::new(),
                        observed,
                    }
                })
                .collect()
        };
        self.steps.push(Step {
            taken: Decision {
                at,
                outcome: taken,
                clause,
                declares: Vec::new(),
                observed,
            },
            alternatives,
        });
    }

    /// An instruction that throws when `throws` holds: records the decision
    /// (when the inputs can change it) and, if this run threw, unwinds.
    /// Returns `Ok(true)` if execution goes on normally.
    pub(super) fn may_throw(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        throws: Bool,
        exception: &str,
    ) -> Flow<bool> {
        let simplified = throws.simplify();
        let threw = match simplified.as_bool() {
            Some(constant) => constant,
            None => {
                let threw = self.holds(&throws);
                let (taken, other) = if threw {
                    (Outcome::Throws, Outcome::Proceeds)
                } else {
                    (Outcome::Proceeds, Outcome::Throws)
                };
                let clause = |o: Outcome| {
                    Some(if o == Outcome::Throws {
                        throws.clone()
                    } else {
                        throws.not()
                    })
                };
                self.decide(frames, taken, clause(taken), vec![(other, clause(other))]);
                threw
            }
        };
        if threw {
            let error = self.fresh(HeapObject::Opaque {
                class: exception.to_string(),
            });
            self.throw(frames, error)?;
            return Ok(false);
        }
        Ok(true)
    }

    /// A null check before a dereference: true if the run went on.
    pub(super) fn null_check(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        value: &Sym,
    ) -> Flow<bool> {
        match value {
            Sym::Ref(reference) => self.may_throw(
                frames,
                reference.is_null.clone(),
                "java/lang/NullPointerException",
            ),
            _ => Ok(true),
        }
    }

    /// Unwinds to the handler the trace shows catching the exception, or
    /// ends the statement.
    pub(super) fn throw(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        exception: Sym,
    ) -> Flow<Control> {
        if let Some(TraceEvent::Caught { site, .. }) = self.peek() {
            if let Some(at) = self.program.site(*site) {
                if let Some(depth) = frames.iter().rposition(|f| f.probe == Some(at.method)) {
                    self.cursor += 1;
                    frames.truncate(depth + 1);
                    let frame = frames.last_mut().expect("a frame");
                    frame.stack.clear();
                    frame.stack.push(exception);
                    frame.pc = at.offset;
                    return Ok(Control::Frames);
                }
            }
        }
        frames.clear();
        Err(Stop::Threw)
    }

    /// Whether two references to constants of one enum are the same: the
    /// same ordinal (an input's constant is its choice), or both null.
    fn same_constant(&self, l: &Reference, r: &Reference) -> Option<Bool> {
        let ordinal = |reference: &Reference| match &self.heap[reference.object?] {
            HeapObject::EnumConstant { class, ordinal, .. } => {
                Some((class.clone(), ordinal.clone()))
            }
            _ => None,
        };
        let ((left_class, left), (right_class, right)) = (ordinal(l)?, ordinal(r)?);
        if left_class != right_class {
            return None;
        }
        let both_null = Bool::and(&[&l.is_null, &r.is_null]);
        let same = Bool::and(&[&l.is_null.not(), &r.is_null.not(), &left.eq(&right)]);
        Some(Bool::or(&[&both_null, &same]))
    }

    pub(super) fn branch(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        use opcode::*;
        let op = instruction.opcode;
        let Operands::Branch(relative) = instruction.operands else {
            return mismatch("a branch without a target");
        };
        let operands = match self.peek() {
            Some(TraceEvent::Branch { site, operands })
                if self.site_matches(*site, frames.last().expect("a frame")) =>
            {
                self.cursor += 1;
                operands
            }
            other => {
                return mismatch(format!(
                    "expected the branch at {} of {}, the trace has {other:?}",
                    instruction.offset,
                    frames.last().expect("a frame").method
                ))
            }
        };
        let frame = frames.last_mut().expect("a frame");
        let (jumps, taken): (Option<Bool>, bool) = match (op, operands) {
            (IFEQ..=IFLE, BranchOperands::Int { value }) => {
                let test = Condition::of_opcode(op).expect("an if<cond>");
                let term = pop(frame)?
                    .as_int()
                    .map(|v| int_comparison(test, v, &BV::from_i64(0, 32)));
                (term, test.holds(i64::from(*value), 0))
            }
            (IF_ICMPEQ..=IF_ICMPLE, BranchOperands::IntPair { left, right }) => {
                let test = Condition::of_opcode(op).expect("an if_icmp<cond>");
                let (r, l) = (pop(frame)?, pop(frame)?);
                let term = l
                    .as_int()
                    .zip(r.as_int())
                    .map(|(l, r)| int_comparison(test, l, r));
                (term, test.holds(i64::from(*left), i64::from(*right)))
            }
            (IF_ACMPEQ | IF_ACMPNE, BranchOperands::RefPair { left, right }) => {
                let (r, l) = (pop(frame)?, pop(frame)?);
                let same = match (left, right) {
                    (None, None) => true,
                    (Some(l), Some(r)) => same_object(l, r),
                    _ => false,
                };
                let term = match (l, r) {
                    (Sym::Ref(l), Sym::Ref(r)) => {
                        Some(self.same_constant(&l, &r).unwrap_or_else(|| l.same_as(&r)))
                    }
                    _ => None,
                };
                let term = if op == IF_ACMPEQ {
                    term
                } else {
                    term.map(|t| t.not())
                };
                (term, same == (op == IF_ACMPEQ))
            }
            (IFNULL | IFNONNULL, BranchOperands::Ref { value }) => {
                let term = match pop(frame)? {
                    Sym::Ref(r) => Some(r.is_null),
                    _ => None,
                };
                let term = if op == IFNULL {
                    term
                } else {
                    term.map(|t| t.not())
                };
                (term, value.is_none() == (op == IFNULL))
            }
            (_, operands) => {
                return mismatch(format!(
                    "{operands:?} recorded for {} at {}",
                    opcode::name(op).unwrap_or("?"),
                    instruction.offset
                ))
            }
        };
        let clause = |jump: bool| {
            jumps
                .as_ref()
                .map(|t| if jump { t.clone() } else { t.not() })
        };
        let outcome = |jump: bool| {
            if jump {
                Outcome::Taken
            } else {
                Outcome::NotTaken
            }
        };
        self.decide(
            frames,
            outcome(taken),
            clause(taken),
            vec![(outcome(!taken), clause(!taken))],
        );
        Ok(if taken {
            Control::Jump(target(instruction.offset, relative))
        } else {
            Control::Next
        })
    }

    pub(super) fn switch(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let key = match self.peek() {
            Some(TraceEvent::Branch {
                site,
                operands: BranchOperands::SwitchKey { key },
            }) if self.site_matches(*site, frames.last().expect("a frame")) => {
                self.cursor += 1;
                *key
            }
            other => {
                return mismatch(format!(
                    "expected the switch at {}, the trace has {other:?}",
                    instruction.offset
                ))
            }
        };
        let (default, cases): (i32, Vec<(i32, i32)>) = match instruction.operands {
            Operands::TableSwitch(table) => (table.default, table.targets().collect()),
            Operands::LookupSwitch(lookup) => (lookup.default, lookup.targets().collect()),
            _ => return mismatch("a switch without a table"),
        };
        let frame = frames.last_mut().expect("a frame");
        let symbolic = pop(frame)?.as_int().cloned();
        let equals = |k: i32| {
            symbolic
                .as_ref()
                .map(|v| int_comparison(Condition::Eq, v, &BV::from_i64(i64::from(k), 32)))
        };
        let mut outcomes: Vec<(Outcome, Option<Bool>)> = cases
            .iter()
            .map(|&(k, _)| (Outcome::Case(k), equals(k)))
            .collect();
        let no_case = symbolic.as_ref().map(|_| {
            let each: Vec<Bool> = cases.iter().filter_map(|&(k, _)| equals(k)).collect();
            Bool::or(&each).not()
        });
        outcomes.push((Outcome::Default, no_case));
        let chosen = cases.iter().find(|&&(k, _)| k == key);
        let outcome = chosen.map_or(Outcome::Default, |&(k, _)| Outcome::Case(k));
        let position = outcomes
            .iter()
            .position(|(o, _)| *o == outcome)
            .expect("the outcome is one of the switch's");
        let (taken, taken_clause) = outcomes.remove(position);
        self.decide(frames, taken, taken_clause, outcomes);
        let relative = chosen.map_or(default, |&(_, target)| target);
        Ok(Control::Jump(target(instruction.offset, relative)))
    }
}

fn same_object(left: &ObjectRef, right: &ObjectRef) -> bool {
    left.identity == right.identity && left.class == right.class
}
