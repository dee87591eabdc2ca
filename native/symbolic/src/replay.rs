//! Replaying one observed run of a method symbolically: the bytecode is
//! interpreted over z3 terms along the path the run took (the branch events
//! say which way each branch went), and every branch becomes a [`Step`] with
//! the clause of the outcome taken and of the outcomes not taken.
//!
//! This first slice models `int`, `long`, `float` and `double` values
//! exactly (through [`crate::arith`]); references, fields and call results
//! are opaque: a branch that depends on them is recorded with no clause, so
//! the explorer leaves it to concrete runs. Calls are not followed.

use std::collections::BTreeMap;

use testgen_classfile::descriptor::{BaseType, FieldType, MethodDescriptor};
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::{ClassFile, Constant, Member};
use testgen_exec::{BranchOperands, TraceEvent};
use z3::ast::{Bool, Float, BV};

use crate::arith::{self, Condition, Conversion, FloatOp, IntOp, NanResult, Primitive};
use crate::tree::{Alternative, Decision, Outcome, Step};

/// A value on the operand stack or in a local.
#[derive(Clone, Debug)]
enum Sym {
    Known(Primitive),
    /// A reference or a value we do not model; `wide` for long/double slots.
    Opaque {
        wide: bool,
    },
}

impl Sym {
    fn is_wide(&self) -> bool {
        match self {
            Sym::Known(Primitive::Long(_) | Primitive::Double(_)) => true,
            Sym::Known(_) => false,
            Sym::Opaque { wide } => *wide,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayError {
    /// An instruction this slice does not interpret yet.
    Unsupported {
        offset: u32,
        opcode: &'static str,
    },
    /// The run's events do not fit the bytecode (a bug, or a trace cut short).
    Mismatch(String),
    Class(String),
}

/// The symbolic inputs of a static method: `arg0`, `arg1`, ... by parameter.
pub fn parameter_terms(descriptor: &MethodDescriptor<'_>) -> Result<Vec<Primitive>, ReplayError> {
    descriptor
        .parameters
        .iter()
        .enumerate()
        .map(|(index, parameter)| {
            let name = format!("arg{index}");
            Ok(match parameter {
                FieldType::Base(BaseType::Long) => Primitive::Long(BV::new_const(name, 64)),
                FieldType::Base(BaseType::Float) => {
                    Primitive::Float(Float::new_const_float32(name))
                }
                FieldType::Base(BaseType::Double) => {
                    Primitive::Double(Float::new_const_double(name))
                }
                FieldType::Base(_) => Primitive::Int(BV::new_const(name, 32)),
                other => {
                    return Err(ReplayError::Class(format!(
                        "parameter type {other} is not modelled yet"
                    )))
                }
            })
        })
        .collect()
}

/// The branch events of one top-level run of `method_id`, with their sites'
/// offsets: events of nested or recursive calls are left out.
pub fn method_branches(
    events: &[TraceEvent],
    method_id: i32,
    offset_of_site: &BTreeMap<i32, u32>,
) -> Vec<(u32, BranchOperands)> {
    let mut depth = 0;
    let mut branches = Vec::new();
    for event in events {
        match event {
            TraceEvent::Enter { method } if *method == method_id => depth += 1,
            TraceEvent::Exit { method } if *method == method_id => depth -= 1,
            TraceEvent::Branch { site, operands } if depth == 1 => {
                if let Some(&offset) = offset_of_site.get(site) {
                    branches.push((offset, operands.clone()));
                }
            }
            _ => {}
        }
    }
    branches
}

/// Replays the run whose branch events are `branches` through `method`.
pub fn replay(
    class: &ClassFile<'_>,
    method: &Member<'_>,
    branches: &[(u32, BranchOperands)],
) -> Result<Vec<Step>, ReplayError> {
    let class_error = |e: testgen_classfile::ParseError| ReplayError::Class(e.to_string());
    let descriptor_text = method.descriptor(class).map_err(class_error)?;
    let descriptor =
        MethodDescriptor::parse(&descriptor_text).map_err(|e| ReplayError::Class(e.to_string()))?;
    let code = method
        .code(class)
        .map_err(class_error)?
        .ok_or_else(|| ReplayError::Class("no code".into()))?;
    let instructions: BTreeMap<u32, Instruction<'_>> = code
        .instructions()
        .map(|i| i.map(|i| (i.offset, i)))
        .collect::<Result<_, _>>()
        .map_err(class_error)?;

    let mut locals: Vec<Option<Sym>> = vec![None; usize::from(code.max_locals)];
    let mut slot = 0;
    for parameter in parameter_terms(&descriptor)? {
        let value = Sym::Known(parameter);
        let wide = value.is_wide();
        locals[slot] = Some(value);
        slot += if wide { 2 } else { 1 };
    }
    let mut machine = Machine {
        class,
        stack: Vec::new(),
        locals,
        steps: Vec::new(),
    };
    let mut events = branches.iter();
    let mut pc = 0u32;
    // A generous bound: a replay follows one finished run, so it ends.
    for _ in 0..10_000_000u32 {
        let instruction = instructions
            .get(&pc)
            .ok_or_else(|| ReplayError::Mismatch(format!("no instruction at {pc}")))?;
        match machine.execute(instruction, &mut events)? {
            Flow::Next => pc += instruction.len(),
            Flow::Jump(target) => pc = target,
            Flow::End => return Ok(machine.steps),
        }
    }
    Err(ReplayError::Mismatch("the replay did not end".into()))
}

enum Flow {
    Next,
    Jump(u32),
    End,
}

struct Machine<'c, 'a> {
    class: &'c ClassFile<'a>,
    stack: Vec<Sym>,
    locals: Vec<Option<Sym>>,
    steps: Vec<Step>,
}

impl Machine<'_, '_> {
    fn pop(&mut self) -> Result<Sym, ReplayError> {
        self.stack
            .pop()
            .ok_or_else(|| ReplayError::Mismatch("operand stack underflow".into()))
    }

    fn pop_int(&mut self) -> Result<Option<BV>, ReplayError> {
        Ok(match self.pop()? {
            Sym::Known(Primitive::Int(value)) => Some(value),
            _ => None,
        })
    }

    fn push(&mut self, value: Primitive) {
        self.stack.push(Sym::Known(value));
    }

    fn execute<'e>(
        &mut self,
        instruction: &Instruction<'_>,
        events: &mut impl Iterator<Item = &'e (u32, BranchOperands)>,
    ) -> Result<Flow, ReplayError> {
        use opcode::*;
        use Primitive as P;
        let op = instruction.opcode;
        let int = |value: i64| P::Int(BV::from_i64(value, 32));
        let unsupported = || ReplayError::Unsupported {
            offset: instruction.offset,
            opcode: opcode::name(op).unwrap_or("?"),
        };
        let local = match instruction.operands {
            Operands::Local(index) => Some(usize::from(index)),
            _ => None,
        };
        match op {
            NOP => {}
            ACONST_NULL => self.stack.push(Sym::Opaque { wide: false }),
            ICONST_M1..=ICONST_5 => self.push(int(i64::from(op) - i64::from(ICONST_0))),
            LCONST_0 | LCONST_1 => self.push(P::Long(BV::from_i64(i64::from(op - LCONST_0), 64))),
            FCONST_0..=FCONST_2 => self.push(P::Float(Float::from_f32(f32::from(op - FCONST_0)))),
            DCONST_0 | DCONST_1 => self.push(P::Double(Float::from_f64(f64::from(op - DCONST_0)))),
            BIPUSH | SIPUSH => match instruction.operands {
                Operands::Byte(value) => self.push(int(i64::from(value))),
                Operands::Short(value) => self.push(int(i64::from(value))),
                _ => return Err(unsupported()),
            },
            LDC | LDC_W | LDC2_W => {
                let Operands::Constant(index) = instruction.operands else {
                    return Err(unsupported());
                };
                let constant = self
                    .class
                    .constant_pool
                    .get(index)
                    .map_err(|e| ReplayError::Class(e.to_string()))?;
                match *constant {
                    Constant::Integer(value) => self.push(int(i64::from(value))),
                    Constant::Float(bits) => {
                        self.push(P::Float(Float::from_f32(f32::from_bits(bits))))
                    }
                    Constant::Long(value) => self.push(P::Long(BV::from_i64(value, 64))),
                    Constant::Double(bits) => {
                        self.push(P::Double(Float::from_f64(f64::from_bits(bits))))
                    }
                    _ => self.stack.push(Sym::Opaque { wide: false }),
                }
            }
            ILOAD..=ALOAD => self.load(local.ok_or_else(unsupported)?)?,
            ILOAD_0..=ALOAD_3 => self.load(usize::from((op - ILOAD_0) % 4))?,
            ISTORE..=ASTORE => self.store(local.ok_or_else(unsupported)?)?,
            ISTORE_0..=ASTORE_3 => self.store(usize::from((op - ISTORE_0) % 4))?,
            IINC => {
                let Operands::Iinc { index, delta } = instruction.operands else {
                    return Err(unsupported());
                };
                let slot = usize::from(index);
                if let Some(Some(Sym::Known(P::Int(value)))) = self.locals.get(slot) {
                    let sum = arith::int_op(IntOp::Add, value, &BV::from_i64(i64::from(delta), 32));
                    self.locals[slot] = Some(Sym::Known(P::Int(sum)));
                }
            }
            POP => {
                self.pop()?;
            }
            POP2 => {
                if !self.pop()?.is_wide() {
                    self.pop()?;
                }
            }
            DUP => {
                let top = self.pop()?;
                self.stack.push(top.clone());
                self.stack.push(top);
            }
            DUP2 => {
                let top = self.pop()?;
                if top.is_wide() {
                    self.stack.push(top.clone());
                    self.stack.push(top);
                } else {
                    let below = self.pop()?;
                    self.stack.extend([below.clone(), top.clone(), below, top]);
                }
            }
            SWAP => {
                let top = self.pop()?;
                let below = self.pop()?;
                self.stack.extend([top, below]);
            }
            IADD..=LXOR => self.arithmetic(op)?,
            I2L..=I2S => self.convert(op)?,
            LCMP => {
                let (right, left) = (self.pop()?, self.pop()?);
                match (left, right) {
                    (Sym::Known(P::Long(l)), Sym::Known(P::Long(r))) => {
                        self.push(P::Int(arith::lcmp(&l, &r)))
                    }
                    _ => self.stack.push(Sym::Opaque { wide: false }),
                }
            }
            FCMPL..=DCMPG => {
                let nan = if matches!(op, FCMPL | DCMPL) {
                    NanResult::Less
                } else {
                    NanResult::Greater
                };
                let (right, left) = (self.pop()?, self.pop()?);
                match (left, right) {
                    (
                        Sym::Known(P::Float(l) | P::Double(l)),
                        Sym::Known(P::Float(r) | P::Double(r)),
                    ) => self.push(P::Int(arith::float_cmp(&l, &r, nan))),
                    _ => self.stack.push(Sym::Opaque { wide: false }),
                }
            }
            IFEQ..=IF_ACMPNE | IFNULL | IFNONNULL => return self.branch(instruction, events),
            GOTO | GOTO_W => {
                let Operands::Branch(relative) = instruction.operands else {
                    return Err(unsupported());
                };
                return Ok(Flow::Jump(target(instruction.offset, relative)));
            }
            TABLESWITCH | LOOKUPSWITCH => return self.switch(instruction, events),
            IRETURN..=RETURN | ATHROW => return Ok(Flow::End),
            INVOKEVIRTUAL..=INVOKEINTERFACE => self.call(instruction)?,
            _ => return Err(unsupported()),
        }
        Ok(Flow::Next)
    }

    fn load(&mut self, slot: usize) -> Result<(), ReplayError> {
        let value =
            self.locals.get(slot).cloned().flatten().ok_or_else(|| {
                ReplayError::Mismatch(format!("local {slot} read before written"))
            })?;
        self.stack.push(value);
        Ok(())
    }

    fn store(&mut self, slot: usize) -> Result<(), ReplayError> {
        let value = self.pop()?;
        *self
            .locals
            .get_mut(slot)
            .ok_or_else(|| ReplayError::Mismatch(format!("local {slot} out of range")))? =
            Some(value);
        Ok(())
    }

    fn arithmetic(&mut self, op: u8) -> Result<(), ReplayError> {
        use opcode::*;
        use Primitive as P;
        // Negation takes one operand; the rest take two.
        if matches!(op, INEG..=DNEG) {
            let value = self.pop()?;
            let result = match value {
                Sym::Known(P::Int(v)) => Sym::Known(P::Int(arith::int_neg(&v))),
                Sym::Known(P::Long(v)) => Sym::Known(P::Long(arith::int_neg(&v))),
                Sym::Known(P::Float(v)) => Sym::Known(P::Float(arith::float_neg(&v))),
                Sym::Known(P::Double(v)) => Sym::Known(P::Double(arith::float_neg(&v))),
                opaque => opaque,
            };
            self.stack.push(result);
            return Ok(());
        }
        let (right, left) = (self.pop()?, self.pop()?);
        // The opcodes come in groups of four (int, long, float, double),
        // except the shifts and bitwise ones, which have int and long only.
        let int_op = match op {
            IADD | LADD => Some(IntOp::Add),
            ISUB | LSUB => Some(IntOp::Sub),
            IMUL | LMUL => Some(IntOp::Mul),
            IDIV | LDIV => Some(IntOp::Div),
            IREM | LREM => Some(IntOp::Rem),
            ISHL | LSHL => Some(IntOp::Shl),
            ISHR | LSHR => Some(IntOp::Shr),
            IUSHR | LUSHR => Some(IntOp::Ushr),
            IAND | LAND => Some(IntOp::And),
            IOR | LOR => Some(IntOp::Or),
            IXOR | LXOR => Some(IntOp::Xor),
            _ => None,
        };
        let float_op = match op {
            FADD | DADD => Some(FloatOp::Add),
            FSUB | DSUB => Some(FloatOp::Sub),
            FMUL | DMUL => Some(FloatOp::Mul),
            FDIV | DDIV => Some(FloatOp::Div),
            _ => None,
        };
        let result = match (left, right, int_op, float_op) {
            (Sym::Known(P::Int(l)), Sym::Known(P::Int(r)), Some(op), _) => {
                Sym::Known(P::Int(arith::int_op(op, &l, &r)))
            }
            (Sym::Known(P::Long(l)), Sym::Known(P::Long(r) | P::Int(r)), Some(op), _) => {
                Sym::Known(P::Long(arith::int_op(op, &l, &r)))
            }
            (Sym::Known(P::Float(l)), Sym::Known(P::Float(r)), _, Some(op)) => {
                Sym::Known(P::Float(arith::float_op(op, &l, &r)))
            }
            (Sym::Known(P::Double(l)), Sym::Known(P::Double(r)), _, Some(op)) => {
                Sym::Known(P::Double(arith::float_op(op, &l, &r)))
            }
            // frem/drem, or an opaque operand: the result is not modelled.
            (left, _, _, _) => Sym::Opaque {
                wide: left.is_wide(),
            },
        };
        self.stack.push(result);
        Ok(())
    }

    fn convert(&mut self, op: u8) -> Result<(), ReplayError> {
        use opcode::*;
        let conversion = match op {
            I2L => Conversion::I2L,
            I2F => Conversion::I2F,
            I2D => Conversion::I2D,
            L2I => Conversion::L2I,
            L2F => Conversion::L2F,
            L2D => Conversion::L2D,
            F2I => Conversion::F2I,
            F2L => Conversion::F2L,
            F2D => Conversion::F2D,
            D2I => Conversion::D2I,
            D2L => Conversion::D2L,
            D2F => Conversion::D2F,
            I2B => Conversion::I2B,
            I2C => Conversion::I2C,
            _ => Conversion::I2S,
        };
        let wide_result = matches!(op, I2L | I2D | F2L | F2D | D2L | L2D);
        let value = self.pop()?;
        self.stack.push(match value {
            Sym::Known(value) => Sym::Known(arith::convert(conversion, &value)),
            Sym::Opaque { .. } => Sym::Opaque { wide: wide_result },
        });
        Ok(())
    }

    /// Calls are not followed: the arguments go, an opaque result comes.
    fn call(&mut self, instruction: &Instruction<'_>) -> Result<(), ReplayError> {
        let (Operands::Constant(index) | Operands::InvokeInterface { index, .. }) =
            instruction.operands
        else {
            return Err(ReplayError::Mismatch(
                "a call without a method reference".into(),
            ));
        };
        let member = self
            .class
            .constant_pool
            .member_ref(index)
            .map_err(|e| ReplayError::Class(e.to_string()))?;
        let descriptor = MethodDescriptor::parse(&member.descriptor)
            .map_err(|e| ReplayError::Class(e.to_string()))?;
        for _ in &descriptor.parameters {
            self.pop()?;
        }
        if instruction.opcode != opcode::INVOKESTATIC {
            self.pop()?;
        }
        if let Some(result) = descriptor.return_type {
            self.stack.push(Sym::Opaque {
                wide: result.slots() == 2,
            });
        }
        Ok(())
    }

    fn branch<'e>(
        &mut self,
        instruction: &Instruction<'_>,
        events: &mut impl Iterator<Item = &'e (u32, BranchOperands)>,
    ) -> Result<Flow, ReplayError> {
        use opcode::*;
        let op = instruction.opcode;
        let Operands::Branch(relative) = instruction.operands else {
            return Err(ReplayError::Mismatch("a branch without a target".into()));
        };
        let (offset, operands) = events.next().ok_or_else(|| {
            ReplayError::Mismatch(format!("no event for the branch at {}", instruction.offset))
        })?;
        if *offset != instruction.offset {
            return Err(ReplayError::Mismatch(format!(
                "event for {offset}, branch at {}",
                instruction.offset
            )));
        }
        let condition = |index: u8| match index {
            0 => Condition::Eq,
            1 => Condition::Ne,
            2 => Condition::Lt,
            3 => Condition::Ge,
            4 => Condition::Gt,
            _ => Condition::Le,
        };
        // Whether the jump happens, symbolically (when modelled) and as it was.
        let (symbolic, taken): (Option<Bool>, bool) = match (op, operands) {
            (IFEQ..=IFLE, BranchOperands::Int { value }) => {
                let test = condition(op - IFEQ);
                let term = self
                    .pop_int()?
                    .map(|v| arith::int_condition(test, &v, &BV::from_i64(0, 32)));
                (term, concrete(test, i64::from(*value), 0))
            }
            (IF_ICMPEQ..=IF_ICMPLE, BranchOperands::IntPair { left, right }) => {
                let test = condition(op - IF_ICMPEQ);
                let (r, l) = (self.pop_int()?, self.pop_int()?);
                let term = l.zip(r).map(|(l, r)| arith::int_condition(test, &l, &r));
                (term, concrete(test, i64::from(*left), i64::from(*right)))
            }
            (IF_ACMPEQ | IF_ACMPNE, BranchOperands::RefPair { left, right }) => {
                self.pop()?;
                self.pop()?;
                let same = match (left, right) {
                    (None, None) => true,
                    (Some(l), Some(r)) => l.identity == r.identity && l.class == r.class,
                    _ => false,
                };
                (None, same == (op == IF_ACMPEQ))
            }
            (IFNULL | IFNONNULL, BranchOperands::Ref { value }) => {
                self.pop()?;
                (None, value.is_none() == (op == IFNULL))
            }
            (_, operands) => {
                return Err(ReplayError::Mismatch(format!(
                    "{operands:?} recorded for {} at {}",
                    opcode::name(op).unwrap_or("?"),
                    instruction.offset
                )))
            }
        };
        let clause = |jump: bool| {
            symbolic.as_ref().map(|term| {
                if jump {
                    term.to_string()
                } else {
                    term.not().to_string()
                }
            })
        };
        let outcome = |jump: bool| {
            if jump {
                Outcome::Taken
            } else {
                Outcome::NotTaken
            }
        };
        self.steps.push(Step {
            taken: Decision {
                offset: instruction.offset,
                outcome: outcome(taken),
                clause: clause(taken),
            },
            alternatives: vec![Alternative {
                outcome: outcome(!taken),
                clause: clause(!taken),
            }],
        });
        Ok(if taken {
            Flow::Jump(target(instruction.offset, relative))
        } else {
            Flow::Next
        })
    }

    fn switch<'e>(
        &mut self,
        instruction: &Instruction<'_>,
        events: &mut impl Iterator<Item = &'e (u32, BranchOperands)>,
    ) -> Result<Flow, ReplayError> {
        let Some((offset, BranchOperands::SwitchKey { key })) = events.next() else {
            return Err(ReplayError::Mismatch(format!(
                "no key for the switch at {}",
                instruction.offset
            )));
        };
        if *offset != instruction.offset {
            return Err(ReplayError::Mismatch(format!(
                "event for {offset}, switch at {}",
                instruction.offset
            )));
        }
        let (default, cases): (i32, Vec<(i32, i32)>) = match instruction.operands {
            Operands::TableSwitch(table) => (table.default, table.targets().collect()),
            Operands::LookupSwitch(lookup) => (lookup.default, lookup.targets().collect()),
            _ => return Err(ReplayError::Mismatch("a switch without a table".into())),
        };
        let symbolic = self.pop_int()?;
        let equals = |k: i32| {
            symbolic
                .as_ref()
                .map(|v| v.eq(BV::from_i64(i64::from(k), 32)))
        };
        let mut outcomes: Vec<(Outcome, Option<String>)> = cases
            .iter()
            .map(|&(k, _)| (Outcome::Case(k), equals(k).map(|b| b.to_string())))
            .collect();
        let no_case = symbolic.as_ref().map(|_| {
            let each: Vec<Bool> = cases.iter().filter_map(|&(k, _)| equals(k)).collect();
            Bool::or(&each).not().to_string()
        });
        outcomes.push((Outcome::Default, no_case));
        let chosen = cases.iter().find(|&&(k, _)| k == *key);
        let outcome = chosen.map_or(Outcome::Default, |&(k, _)| Outcome::Case(k));
        let mut taken = None;
        let mut alternatives = Vec::new();
        for (candidate, clause) in outcomes {
            if candidate == outcome {
                taken = Some(Decision {
                    offset: instruction.offset,
                    outcome: candidate,
                    clause,
                });
            } else {
                alternatives.push(Alternative {
                    outcome: candidate,
                    clause,
                });
            }
        }
        self.steps.push(Step {
            taken: taken.expect("the outcome is one of the switch's"),
            alternatives,
        });
        let relative = chosen.map_or(default, |&(_, target)| target);
        Ok(Flow::Jump(target(instruction.offset, relative)))
    }
}

fn target(offset: u32, relative: i32) -> u32 {
    (i64::from(offset) + i64::from(relative)) as u32
}

fn concrete(condition: Condition, left: i64, right: i64) -> bool {
    match condition {
        Condition::Eq => left == right,
        Condition::Ne => left != right,
        Condition::Lt => left < right,
        Condition::Ge => left >= right,
        Condition::Gt => left > right,
        Condition::Le => left <= right,
    }
}
