//! Goals: the branch outcomes of a class, what testgen tries to cover and
//! reports on; and which of them a run reached, from its probe trace.
//!
//! A goal is one outcome of one conditional branch or switch of a method:
//! `taken` and `not_taken` of an `if*`, `case:K` and `default` of a switch.
//! Exploring also decides on implicit exceptions (`throws` / `proceeds` of
//! an instruction that may throw); those are outcomes of the constraint
//! tree, not goals.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use testgen_classfile::access::AccessFlags;
use testgen_classfile::instruction::{opcode, Operands};
use testgen_classfile::ClassFile;
use testgen_exec::{BranchOperands, TraceEvent};

use crate::names::{ClassName, MethodId};
use crate::program::Program;

/// Which way a branch went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// A conditional branch jumped.
    Taken,
    /// A conditional branch fell through.
    NotTaken,
    /// A switch went to the case for this key.
    Case(i32),
    /// A switch went to its default.
    Default,
    /// An instruction threw an implicit exception (null dereference, array
    /// bounds, division by zero, failing cast).
    Throws,
    /// The same instruction did not throw.
    Proceeds,
}

impl Outcome {
    /// `taken`, `not_taken`, `case:3`, `default`, `throws`, `proceeds`: as
    /// reports name it.
    pub fn label(self) -> String {
        match self {
            Outcome::Taken => "taken".into(),
            Outcome::NotTaken => "not_taken".into(),
            Outcome::Case(k) => format!("case:{k}"),
            Outcome::Default => "default".into(),
            Outcome::Throws => "throws".into(),
            Outcome::Proceeds => "proceeds".into(),
        }
    }
}

/// What a conditional branch on integers tests (`if<cond>` against zero,
/// `if_icmp<cond>`); the branch jumps when it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Condition {
    Eq,
    Ne,
    Lt,
    Ge,
    Gt,
    Le,
}

impl Condition {
    /// The condition of `ifeq`..`ifle` and `if_icmpeq`..`if_icmple`;
    /// `None` for any other opcode.
    pub fn of_opcode(op: u8) -> Option<Condition> {
        use opcode::*;
        let index = match op {
            IFEQ..=IFLE => op - IFEQ,
            IF_ICMPEQ..=IF_ICMPLE => op - IF_ICMPEQ,
            _ => return None,
        };
        Some(match index {
            0 => Condition::Eq,
            1 => Condition::Ne,
            2 => Condition::Lt,
            3 => Condition::Ge,
            4 => Condition::Gt,
            _ => Condition::Le,
        })
    }

    pub fn holds<T: PartialOrd>(self, left: T, right: T) -> bool {
        match self {
            Condition::Eq => left == right,
            Condition::Ne => left != right,
            Condition::Lt => left < right,
            Condition::Ge => left >= right,
            Condition::Gt => left > right,
            Condition::Le => left <= right,
        }
    }

    /// The condition that holds exactly when this one does not (on
    /// ordered values; NaN is the caller's to handle).
    pub fn negated(self) -> Condition {
        match self {
            Condition::Eq => Condition::Ne,
            Condition::Ne => Condition::Eq,
            Condition::Lt => Condition::Ge,
            Condition::Ge => Condition::Lt,
            Condition::Gt => Condition::Le,
            Condition::Le => Condition::Gt,
        }
    }
}

/// One outcome of one branch instruction of a method.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Goal {
    pub method: MethodId,
    /// The branch instruction's bytecode offset (in the original class).
    pub offset: u32,
    pub outcome: Outcome,
}

/// A goal's index among its class's goals.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GoalId(pub u32);

/// Every goal of a class, in method then offset order, with its source line.
#[derive(Clone, Debug, Default)]
pub struct ClassGoals {
    goals: Vec<(Goal, u32)>,
    ids: BTreeMap<Goal, GoalId>,
}

impl ClassGoals {
    /// Every outcome of every conditional branch and switch in the class's
    /// own methods (bridge methods left out: they only forward).
    pub fn of(file: &ClassFile<'_>, class: &ClassName) -> ClassGoals {
        let mut goals = ClassGoals::default();
        for method in &file.methods {
            if method.access_flags.contains(AccessFlags::BRIDGE) {
                continue;
            }
            let (Ok(name), Ok(descriptor)) = (method.name(file), method.descriptor(file)) else {
                continue;
            };
            let Ok(Some(code)) = method.code(file) else {
                continue;
            };
            let id = MethodId::new(class.clone(), name, descriptor);
            let lines = code.line_numbers(file);
            let mut push = |offset: u32, outcome: Outcome| {
                goals.push(
                    Goal {
                        method: id.clone(),
                        offset,
                        outcome,
                    },
                    lines.line_at(offset),
                )
            };
            for instruction in code.instructions() {
                let Ok(instruction) = instruction else {
                    break;
                };
                let offset = instruction.offset;
                match instruction.operands {
                    Operands::Branch(_) if opcode::is_conditional_branch(instruction.opcode) => {
                        push(offset, Outcome::Taken);
                        push(offset, Outcome::NotTaken);
                    }
                    Operands::TableSwitch(table) => {
                        for (key, _) in table.targets() {
                            push(offset, Outcome::Case(key));
                        }
                        push(offset, Outcome::Default);
                    }
                    Operands::LookupSwitch(lookup) => {
                        for (key, _) in lookup.targets() {
                            push(offset, Outcome::Case(key));
                        }
                        push(offset, Outcome::Default);
                    }
                    _ => {}
                }
            }
        }
        goals
    }

    fn push(&mut self, goal: Goal, line: u32) {
        let id = GoalId(self.goals.len() as u32);
        self.ids.insert(goal.clone(), id);
        self.goals.push((goal, line));
    }

    pub fn len(&self) -> usize {
        self.goals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.goals.is_empty()
    }

    /// Each goal with its id and source line (0 without line numbers).
    pub fn iter(&self) -> impl Iterator<Item = (GoalId, &Goal, u32)> + '_ {
        self.goals
            .iter()
            .enumerate()
            .map(|(index, (goal, line))| (GoalId(index as u32), goal, *line))
    }

    pub fn id(&self, goal: &Goal) -> Option<GoalId> {
        self.ids.get(goal).copied()
    }

    pub fn goal(&self, id: GoalId) -> &Goal {
        &self.goals[id.0 as usize].0
    }
}

/// Which way a branch went, from the operands its probe recorded.
pub fn branch_outcome(
    program: &Program<'_>,
    method: &MethodId,
    offset: u32,
    operands: &BranchOperands,
) -> Option<Outcome> {
    use opcode::*;
    let op = program.opcode_at(method, offset)?;
    let test =
        |left: i64, right: i64| Condition::of_opcode(op).is_some_and(|c| c.holds(left, right));
    let jumps = match (op, operands) {
        (TABLESWITCH | LOOKUPSWITCH, BranchOperands::SwitchKey { key }) => {
            return Some(if program.switch_has_case(method, offset, *key) {
                Outcome::Case(*key)
            } else {
                Outcome::Default
            })
        }
        (IFEQ..=IFLE, BranchOperands::Int { value }) => test(i64::from(*value), 0),
        (IF_ICMPEQ..=IF_ICMPLE, BranchOperands::IntPair { left, right }) => {
            test(i64::from(*left), i64::from(*right))
        }
        (IF_ACMPEQ | IF_ACMPNE, BranchOperands::RefPair { left, right }) => {
            let same = match (left, right) {
                (None, None) => true,
                (Some(l), Some(r)) => l.identity == r.identity && l.class == r.class,
                _ => false,
            };
            same == (op == IF_ACMPEQ)
        }
        (IFNULL | IFNONNULL, BranchOperands::Ref { value }) => value.is_none() == (op == IFNULL),
        _ => return None,
    };
    Some(if jumps {
        Outcome::Taken
    } else {
        Outcome::NotTaken
    })
}

/// The goals, in any method of the program, that the branch events of a
/// run reached.
pub fn reached<'e>(
    program: &Program<'_>,
    events: impl IntoIterator<Item = &'e TraceEvent>,
) -> BTreeSet<Goal> {
    let mut reached = BTreeSet::new();
    for event in events {
        let TraceEvent::Branch { site, operands } = event else {
            continue;
        };
        let Some((method, at)) = program.site_in_method(*site) else {
            continue;
        };
        if let Some(outcome) = branch_outcome(program, method, at.offset, operands) {
            reached.insert(Goal {
                method: method.clone(),
                offset: at.offset,
                outcome,
            });
        }
    }
    reached
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_labels_match_the_report_format() {
        assert_eq!(Outcome::Taken.label(), "taken");
        assert_eq!(Outcome::NotTaken.label(), "not_taken");
        assert_eq!(Outcome::Case(-3).label(), "case:-3");
        assert_eq!(Outcome::Default.label(), "default");
    }
}
