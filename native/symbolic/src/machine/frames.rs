//! Call frames and the interpreter loop.

use std::collections::BTreeMap;

use testgen_classfile::instruction::Instruction;
use testgen_classfile::ClassFile;
use testgen_exec::TraceEvent;
use testgen_project::{MethodId, Site};

use super::{class_error, mismatch, Control, Flow, Replay, Stop};
use crate::value::Sym;

/// One method's activation: its code, locals, operand stack and where it
/// is, and how often each branch of it was decided (for the loop bound).
pub(super) struct Frame<'p, 'a> {
    pub(super) method: MethodId,
    /// The method's probe id (what trace events name it by).
    pub(super) probe: Option<i32>,
    pub(super) class: &'p ClassFile<'a>,
    pub(super) instructions: BTreeMap<u32, Instruction<'a>>,
    pub(super) locals: Vec<Option<Sym>>,
    pub(super) stack: Vec<Sym>,
    pub(super) pc: u32,
    pub(super) visits: BTreeMap<u32, u32>,
}

impl<'p, 'a> Replay<'p, 'a> {
    pub(super) fn frame(
        &self,
        key: MethodId,
        probe: Option<i32>,
        values: Vec<Sym>,
    ) -> Flow<Frame<'p, 'a>> {
        let Some((class, method)) = self.program.method(&key) else {
            return mismatch(format!("{} is not in the program", key));
        };
        let code = match method.code(class) {
            Ok(Some(code)) => code,
            _ => return mismatch(format!("{} has no code", key)),
        };
        let instructions = code
            .instructions()
            .map(|i| i.map(|i| (i.offset, i)))
            .collect::<Result<BTreeMap<_, _>, _>>()
            .map_err(class_error)?;
        let mut locals = vec![None; usize::from(code.max_locals)];
        let mut slot = 0;
        for value in values {
            let wide = value.is_wide();
            if slot < locals.len() {
                locals[slot] = Some(value);
            }
            slot += if wide { 2 } else { 1 };
        }
        Ok(Frame {
            method: key,
            probe,
            class,
            instructions,
            locals,
            stack: Vec::new(),
            pc: 0,
            visits: BTreeMap::new(),
        })
    }

    pub(super) fn run(&mut self, frames: &mut Vec<Frame<'p, 'a>>) -> Flow<()> {
        let mut budget = 5_000_000u32;
        while !frames.is_empty() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return mismatch("the replay did not end");
            }
            if self.truncated {
                // Interpreting on would only grow terms nobody solves.
                return Err(Stop::TooLong);
            }
            let top = frames.len() - 1;
            let pc = frames[top].pc;
            // Where the replay stopped is worked out only when it stops: the
            // loop runs millions of times.
            let here = |frames: &[Frame<'_, '_>]| {
                frames.get(top).map(|frame| Site {
                    method: frame.method.clone(),
                    offset: pc,
                })
            };
            let Some(instruction) = frames[top].instructions.get(&pc).cloned() else {
                self.at = here(frames);
                return mismatch(format!("no instruction at {pc} in {}", frames[top].method));
            };
            match self.execute(frames, &instruction) {
                Ok(Control::Next) => {
                    let frame = frames.last_mut().expect("a frame");
                    frame.pc += instruction.len();
                }
                Ok(Control::Jump(target)) => frames.last_mut().expect("a frame").pc = target,
                Ok(Control::Frames) => {}
                Err(stop) => {
                    self.at = here(frames);
                    return Err(stop);
                }
            }
        }
        Ok(())
    }

    pub(super) fn return_from(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        value: Option<Sym>,
    ) -> Flow<Control> {
        let frame = frames.pop().expect("a frame");
        if let Some(TraceEvent::Exit { method }) = self.peek() {
            if Some(*method) == frame.probe {
                self.cursor += 1;
            }
        }
        if frames.is_empty() {
            self.returned = value;
            return Ok(Control::Frames);
        }
        if let Some(caller) = frames.last_mut() {
            if let Some(value) = value {
                caller.stack.push(value);
            }
            let length = caller.instructions.get(&caller.pc).map_or(1, |i| i.len());
            caller.pc += length;
        }
        Ok(Control::Frames)
    }
}

pub(super) fn pop(frame: &mut Frame<'_, '_>) -> Flow<Sym> {
    frame
        .stack
        .pop()
        .ok_or_else(|| Stop::Diverged(format!("operand stack underflow in {}", frame.method)))
}

pub(super) fn push(frames: &mut [Frame<'_, '_>], value: Sym) {
    frames.last_mut().expect("a frame").stack.push(value);
}

pub(super) fn load(frame: &mut Frame<'_, '_>, slot: usize) -> Flow<()> {
    let value = frame
        .locals
        .get(slot)
        .cloned()
        .flatten()
        .ok_or_else(|| Stop::Diverged(format!("local {slot} read before written")))?;
    frame.stack.push(value);
    Ok(())
}

pub(super) fn store(frame: &mut Frame<'_, '_>, slot: usize) -> Flow<()> {
    let value = pop(frame)?;
    let cell = frame
        .locals
        .get_mut(slot)
        .ok_or_else(|| Stop::Diverged(format!("local {slot} out of range")))?;
    *cell = Some(value);
    Ok(())
}

pub(super) fn target(offset: u32, relative: i32) -> u32 {
    (i64::from(offset) + i64::from(relative)) as u32
}
