//! Laying out the instrumented code and moving everything that points into
//! it: branch and switch offsets, the exception table, line and local
//! variable tables, and stack map frames (including `uninitialized(offset)`).
//!
//! A jump to an original instruction lands at the start of its probes, so
//! the probes run on every path into it; `uninitialized(offset)` names the
//! `new` instruction itself. Offsets change only by inserted bytes, by
//! switch padding, and by `goto`/`jsr` that must widen to `goto_w`/`jsr_w`.

use testgen_classfile::attribute::{AttributeInfo, ExceptionHandler, LineNumber, LocalVariable};
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::stack_map::{StackMapFrame, VerificationType};
use testgen_classfile::writer::{write_stack_map_table, ByteWriter};
use testgen_classfile::{ClassFile, Code};

use crate::plan::{snippets_len, MethodPlan};

/// Largest code array the JVM accepts (JVMS 4.7.3: code_length < 65536).
const MAX_CODE_LENGTH: u32 = 65535;
/// The most any snippet adds to the operand stack: `dup2`, a call
/// distance's test code, then an id.
const EXTRA_STACK: u16 = 4;

/// Why a method is left as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unsafe(pub(crate) String);

fn unsafe_because(reason: impl Into<String>) -> Unsafe {
    Unsafe(reason.into())
}

struct Layout {
    /// New offset of each instruction's first probe (where jumps land).
    start: Vec<u32>,
    /// New offset of the instruction itself (or of its replacement).
    position: Vec<u32>,
    /// `goto`/`jsr` that must become `goto_w`/`jsr_w`.
    widened: Vec<bool>,
    code_length: u32,
}

pub(crate) struct Relocator<'i, 'a> {
    instructions: &'i [Instruction<'a>],
    plan: &'i MethodPlan,
    /// Instruction index at each original offset; `u32::MAX` inside one.
    index_at: Vec<u32>,
    old_length: u32,
}

impl<'i, 'a> Relocator<'i, 'a> {
    pub(crate) fn new(
        code: &Code<'a>,
        instructions: &'i [Instruction<'a>],
        plan: &'i MethodPlan,
    ) -> Self {
        let mut index_at = vec![u32::MAX; code.bytecode.len()];
        for (index, instruction) in instructions.iter().enumerate() {
            index_at[instruction.offset as usize] = index as u32;
        }
        Relocator {
            instructions,
            plan,
            index_at,
            old_length: code.bytecode.len() as u32,
        }
    }

    fn index_of(&self, old_offset: i64) -> Result<usize, Unsafe> {
        usize::try_from(old_offset)
            .ok()
            .and_then(|offset| self.index_at.get(offset))
            .filter(|&&index| index != u32::MAX)
            .map(|&index| index as usize)
            .ok_or_else(|| {
                unsafe_because(format!(
                    "offset {old_offset} is not the start of an instruction"
                ))
            })
    }

    /// New offset for an old offset that starts an instruction, or the end of
    /// the code (allowed for exclusive range ends).
    fn map_start(&self, layout: &Layout, old_offset: u32) -> Result<u32, Unsafe> {
        if old_offset == self.old_length {
            return Ok(layout.code_length);
        }
        Ok(layout.start[self.index_of(i64::from(old_offset))?])
    }

    fn instruction_length(&self, index: usize, position: u32, widened: bool) -> u32 {
        let instruction = &self.instructions[index];
        if let Some(replacement) = &self.plan.patches[index].replacement {
            return snippets_len(replacement);
        }
        let padding = 3 - position % 4;
        match instruction.operands {
            Operands::Branch(_) if widened => 5,
            Operands::TableSwitch(table) => 1 + padding + 12 + 4 * table.len() as u32,
            Operands::LookupSwitch(lookup) => 1 + padding + 8 + 8 * lookup.len() as u32,
            _ => instruction.len(),
        }
    }

    fn lay_out(&self, widened: &[bool]) -> Layout {
        let count = self.instructions.len();
        let mut layout = Layout {
            start: Vec::with_capacity(count),
            position: Vec::with_capacity(count),
            widened: widened.to_vec(),
            code_length: 0,
        };
        let mut at = snippets_len(&self.plan.head);
        for (index, patch) in self.plan.patches.iter().enumerate() {
            layout.start.push(at);
            at += snippets_len(&patch.before);
            layout.position.push(at);
            at += self.instruction_length(index, at, widened[index]);
            at += snippets_len(&patch.after);
        }
        layout.code_length = at;
        layout
    }

    fn relative_target(&self, layout: &Layout, index: usize, relative: i64) -> Result<i64, Unsafe> {
        let old_target = i64::from(self.instructions[index].offset) + relative;
        let target = self.index_of(old_target)?;
        Ok(i64::from(layout.start[target]) - i64::from(layout.position[index]))
    }

    /// Lays out the code, widening unconditional jumps until every offset
    /// fits. Conditional branches cannot widen without a new jump target, so
    /// one that no longer reaches makes the method unsafe.
    fn settle(&self) -> Result<Layout, Unsafe> {
        let mut widened = vec![false; self.instructions.len()];
        loop {
            let layout = self.lay_out(&widened);
            let mut changed = false;
            for (index, instruction) in self.instructions.iter().enumerate() {
                let Operands::Branch(relative) = instruction.operands else {
                    continue;
                };
                if self.plan.patches[index].replacement.is_some() || widened[index] {
                    continue;
                }
                let distance = self.relative_target(&layout, index, i64::from(relative))?;
                if i16::try_from(distance).is_ok()
                    || matches!(instruction.opcode, opcode::GOTO_W | opcode::JSR_W)
                {
                    continue;
                }
                if matches!(instruction.opcode, opcode::GOTO | opcode::JSR) {
                    widened[index] = true;
                    changed = true;
                } else {
                    return Err(unsafe_because(format!(
                        "the branch at offset {} would jump {distance} bytes, beyond a 16-bit offset",
                        instruction.offset
                    )));
                }
            }
            if !changed {
                if layout.code_length > MAX_CODE_LENGTH {
                    return Err(unsafe_because(format!(
                        "instrumented code would be {} bytes (the JVM allows {MAX_CODE_LENGTH})",
                        layout.code_length
                    )));
                }
                return Ok(layout);
            }
        }
    }

    fn encode_code(&self, layout: &Layout) -> Result<Vec<u8>, Unsafe> {
        let mut code = Vec::with_capacity(layout.code_length as usize);
        for snippet in &self.plan.head {
            snippet.encode(&mut code);
        }
        for (index, (instruction, patch)) in
            self.instructions.iter().zip(&self.plan.patches).enumerate()
        {
            for snippet in &patch.before {
                snippet.encode(&mut code);
            }
            debug_assert_eq!(code.len() as u32, layout.position[index]);
            match &patch.replacement {
                Some(replacement) => replacement.iter().for_each(|s| s.encode(&mut code)),
                None => self.encode_instruction(layout, index, instruction, &mut code)?,
            }
            for snippet in &patch.after {
                snippet.encode(&mut code);
            }
        }
        debug_assert_eq!(code.len() as u32, layout.code_length);
        Ok(code)
    }

    fn encode_instruction(
        &self,
        layout: &Layout,
        index: usize,
        instruction: &Instruction<'_>,
        code: &mut Vec<u8>,
    ) -> Result<(), Unsafe> {
        let relative = |r: i32| self.relative_target(layout, index, i64::from(r));
        let as_i32 = |value: i64| {
            i32::try_from(value).map_err(|_| unsafe_because("jump offset beyond 32 bits"))
        };
        match instruction.operands {
            Operands::Branch(old) => {
                let distance = relative(old)?;
                let opcode = match (instruction.opcode, layout.widened[index]) {
                    (opcode::GOTO, true) => opcode::GOTO_W,
                    (opcode::JSR, true) => opcode::JSR_W,
                    (other, _) => other,
                };
                code.push(opcode);
                if matches!(opcode, opcode::GOTO_W | opcode::JSR_W) {
                    code.extend(as_i32(distance)?.to_be_bytes());
                } else {
                    let distance = i16::try_from(distance)
                        .map_err(|_| unsafe_because("branch offset beyond 16 bits"))?;
                    code.extend(distance.to_be_bytes());
                }
            }
            Operands::TableSwitch(table) => {
                code.push(instruction.opcode);
                code.resize(code.len() + (3 - layout.position[index] as usize % 4), 0);
                code.extend(as_i32(relative(table.default)?)?.to_be_bytes());
                code.extend(table.low.to_be_bytes());
                code.extend(table.high.to_be_bytes());
                for (_, target) in table.targets() {
                    code.extend(as_i32(relative(target)?)?.to_be_bytes());
                }
            }
            Operands::LookupSwitch(lookup) => {
                code.push(instruction.opcode);
                code.resize(code.len() + (3 - layout.position[index] as usize % 4), 0);
                code.extend(as_i32(relative(lookup.default)?)?.to_be_bytes());
                code.extend((lookup.len() as i32).to_be_bytes());
                for (key, target) in lookup.targets() {
                    code.extend(key.to_be_bytes());
                    code.extend(as_i32(relative(target)?)?.to_be_bytes());
                }
            }
            _ => instruction.encode(code).map_err(|error| {
                unsafe_because(format!(
                    "cannot re-encode offset {}: {error}",
                    instruction.offset
                ))
            })?,
        }
        Ok(())
    }

    /// The content of the new Code attribute.
    pub(crate) fn rewrite(
        &self,
        class: &ClassFile<'a>,
        code: &Code<'a>,
    ) -> Result<ByteWriter, Unsafe> {
        if class.has_old_code_layout() {
            return Err(unsafe_because("Java 1.0 code layout"));
        }
        let layout = self.settle()?;
        let bytecode = self.encode_code(&layout)?;
        let max_stack = code
            .max_stack
            .checked_add(EXTRA_STACK)
            .ok_or_else(|| unsafe_because("max_stack would exceed 65535"))?;
        let mut out = ByteWriter::with_capacity(bytecode.len() + 64);
        out.u16(max_stack);
        out.u16(code.max_locals);
        out.u32(bytecode.len() as u32);
        out.bytes(&bytecode);
        out.u16(code.exception_table.len() as u16);
        for handler in &code.exception_table {
            ExceptionHandler {
                start_pc: self.map_start(&layout, u32::from(handler.start_pc))? as u16,
                end_pc: self.map_start(&layout, u32::from(handler.end_pc))? as u16,
                handler_pc: self.map_start(&layout, u32::from(handler.handler_pc))? as u16,
                catch_type: handler.catch_type,
            }
            .write(&mut out);
        }
        self.write_code_attributes(class, code, &layout, &mut out)?;
        Ok(out)
    }

    /// Rewrites the attributes that hold offsets into the code. Any other
    /// attribute of the Code attribute (type annotations on local variables,
    /// vendor attributes) is dropped: it may hold offsets we cannot move, and
    /// the instrumented class lives only inside the executor.
    fn write_code_attributes(
        &self,
        class: &ClassFile<'a>,
        code: &Code<'a>,
        layout: &Layout,
        out: &mut ByteWriter,
    ) -> Result<(), Unsafe> {
        let parse_error = |error: testgen_classfile::ParseError| unsafe_because(error.to_string());
        let mut kept = Vec::new();
        for attribute in &code.attributes {
            let info = attribute.parse(class).map_err(parse_error)?;
            let mut body = ByteWriter::new();
            match info {
                AttributeInfo::LineNumberTable(lines) => {
                    body.u16(lines.len() as u16);
                    for line in lines {
                        LineNumber {
                            start_pc: self.map_start(layout, u32::from(line.start_pc))? as u16,
                            line_number: line.line_number,
                        }
                        .write(&mut body);
                    }
                }
                AttributeInfo::LocalVariableTable(variables)
                | AttributeInfo::LocalVariableTypeTable(variables) => {
                    body.u16(variables.len() as u16);
                    for variable in variables {
                        let start = self.map_start(layout, u32::from(variable.start_pc))?;
                        let end = self.map_start(
                            layout,
                            u32::from(variable.start_pc) + u32::from(variable.length),
                        )?;
                        LocalVariable {
                            start_pc: start as u16,
                            length: (end - start) as u16,
                            ..variable
                        }
                        .write(&mut body);
                    }
                }
                AttributeInfo::StackMapTable(frames) => {
                    let frames = self.relocate_frames(layout, &frames)?;
                    write_stack_map_table(&frames, &mut body)
                        .map_err(|e| unsafe_because(e.to_string()))?;
                }
                _ => continue,
            }
            kept.push((attribute.name_index, body));
        }
        out.u16(kept.len() as u16);
        for (name_index, body) in kept {
            out.u16(name_index);
            out.u32(body.len() as u32);
            out.bytes(body.as_slice());
        }
        Ok(())
    }

    fn relocate_frames(
        &self,
        layout: &Layout,
        frames: &[StackMapFrame],
    ) -> Result<Vec<StackMapFrame>, Unsafe> {
        let mut relocated = Vec::with_capacity(frames.len());
        let mut old_offset: i64 = -1;
        let mut new_offset: i64 = -1;
        for frame in frames {
            old_offset += i64::from(frame.offset_delta()) + 1;
            let target = layout.start[self.index_of(old_offset)?];
            let delta = u16::try_from(i64::from(target) - new_offset - 1)
                .map_err(|_| unsafe_because("stack map frames out of order"))?;
            new_offset = i64::from(target);
            let moved = |types: &[VerificationType]| -> Result<Vec<VerificationType>, Unsafe> {
                types
                    .iter()
                    .map(|&ty| self.relocate_type(layout, ty))
                    .collect()
            };
            relocated.push(match frame {
                StackMapFrame::Same { .. } if delta <= 63 => StackMapFrame::Same {
                    offset_delta: delta,
                },
                StackMapFrame::Same { .. } | StackMapFrame::SameExtended { .. } => {
                    StackMapFrame::SameExtended {
                        offset_delta: delta,
                    }
                }
                StackMapFrame::SameLocals1StackItem { stack, .. } if delta <= 63 => {
                    StackMapFrame::SameLocals1StackItem {
                        offset_delta: delta,
                        stack: self.relocate_type(layout, *stack)?,
                    }
                }
                StackMapFrame::SameLocals1StackItem { stack, .. }
                | StackMapFrame::SameLocals1StackItemExtended { stack, .. } => {
                    StackMapFrame::SameLocals1StackItemExtended {
                        offset_delta: delta,
                        stack: self.relocate_type(layout, *stack)?,
                    }
                }
                StackMapFrame::Chop { chopped, .. } => StackMapFrame::Chop {
                    offset_delta: delta,
                    chopped: *chopped,
                },
                StackMapFrame::Append { locals, .. } => StackMapFrame::Append {
                    offset_delta: delta,
                    locals: moved(locals)?,
                },
                StackMapFrame::Full { locals, stack, .. } => StackMapFrame::Full {
                    offset_delta: delta,
                    locals: moved(locals)?,
                    stack: moved(stack)?,
                },
            });
        }
        Ok(relocated)
    }

    fn relocate_type(
        &self,
        layout: &Layout,
        ty: VerificationType,
    ) -> Result<VerificationType, Unsafe> {
        Ok(match ty {
            VerificationType::Uninitialized(offset) => {
                let position = layout.position[self.index_of(i64::from(offset))?];
                VerificationType::Uninitialized(position as u16)
            }
            other => other,
        })
    }
}
