//! The plain instructions: constants, loads and stores, stack operations,
//! arithmetic and conversions.

use std::collections::BTreeMap;

use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::Constant;
use testgen_exec::TraceEvent;
use z3::ast::{Float, BV};

use super::frames::{load, pop, push, store, target, Frame};
use super::{class_error, class_operand, Control, Flow, Replay, Stop};
use crate::arith::{self, Conversion, FloatOp, IntOp, NanResult, Primitive};
use crate::value::{string_literal, HeapObject, Sym};

impl<'p, 'a> Replay<'p, 'a> {
    /// Interprets one instruction, dispatching by family.
    pub(super) fn execute(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        use opcode::*;
        let op = instruction.opcode;
        match op {
            NOP..=LDC2_W => self.constant(frames, instruction)?,
            ILOAD..=ALOAD_3 | ISTORE..=ASTORE_3 | IINC => {
                local_variable(frames.last_mut().expect("a frame"), instruction)?
            }
            IALOAD..=SALOAD => return self.array_load(frames, op),
            IASTORE..=SASTORE => return self.array_store(frames, op),
            POP..=SWAP => stack_operation(frames.last_mut().expect("a frame"), op)?,
            IADD..=LXOR | I2L..=DCMPG => return self.arithmetic(frames, op),
            IFEQ..=RETURN | IFNULL | IFNONNULL | GOTO_W => {
                return self.control(frames, instruction)
            }
            GETSTATIC..=MONITOREXIT | MULTIANEWARRAY => {
                return self.object_operation(frames, instruction)
            }
            _ => return Err(unsupported(op)),
        }
        Ok(Control::Next)
    }

    /// `nop`, constants and `ldc`.
    fn constant(
        &mut self,
        frames: &mut [Frame<'p, 'a>],
        instruction: &Instruction<'a>,
    ) -> Flow<()> {
        use opcode::*;
        use Primitive as P;
        let op = instruction.opcode;
        let frame = frames.last_mut().expect("a frame");
        let value = match op {
            NOP => return Ok(()),
            ACONST_NULL => Sym::null(),
            ICONST_M1..=ICONST_5 => int(i64::from(op) - i64::from(ICONST_0)),
            LCONST_0 | LCONST_1 => Sym::Prim(P::Long(BV::from_i64(i64::from(op - LCONST_0), 64))),
            FCONST_0..=FCONST_2 => Sym::Prim(P::Float(Float::from_f32(f32::from(op - FCONST_0)))),
            DCONST_0 | DCONST_1 => Sym::Prim(P::Double(Float::from_f64(f64::from(op - DCONST_0)))),
            BIPUSH | SIPUSH => match instruction.operands {
                Operands::Byte(value) => int(i64::from(value)),
                Operands::Short(value) => int(i64::from(value)),
                _ => return Err(unsupported(op)),
            },
            LDC | LDC_W | LDC2_W => {
                let Operands::Constant(index) = instruction.operands else {
                    return Err(unsupported(op));
                };
                let class = frame.class;
                match class.constant_pool.get(index) {
                    Ok(Constant::Integer(value)) => int(i64::from(*value)),
                    Ok(Constant::Float(bits)) => {
                        Sym::Prim(P::Float(Float::from_f32(f32::from_bits(*bits))))
                    }
                    Ok(Constant::Long(value)) => Sym::Prim(P::Long(BV::from_i64(*value, 64))),
                    Ok(Constant::Double(bits)) => {
                        Sym::Prim(P::Double(Float::from_f64(f64::from_bits(*bits))))
                    }
                    Ok(Constant::String { string_index }) => {
                        let text = class
                            .constant_pool
                            .utf8(*string_index)
                            .map_err(class_error)?;
                        let units: Vec<u16> = text.encode_utf16().collect();
                        self.fresh(HeapObject::Str {
                            chars: string_literal(&units),
                            choice: None,
                        })
                    }
                    _ => self.fresh(HeapObject::Opaque {
                        class: "java/lang/Class".into(),
                    }),
                }
            }
            _ => return Err(unsupported(op)),
        };
        frames.last_mut().expect("a frame").stack.push(value);
        Ok(())
    }

    /// Arithmetic, shifts and logic, conversions and comparisons; division
    /// by zero is a decision.
    fn arithmetic(&mut self, frames: &mut Vec<Frame<'p, 'a>>, op: u8) -> Flow<Control> {
        use opcode::*;
        use Primitive as P;
        let frame = frames.last_mut().expect("a frame");
        match op {
            IDIV | IREM | LDIV | LREM => {
                let divisor = frame.stack.last().cloned();
                if let Some(Sym::Prim(Primitive::Int(d) | Primitive::Long(d))) = divisor {
                    let zero = BV::from_i64(0, d.get_size());
                    if !self.may_throw(frames, d.eq(&zero), "java/lang/ArithmeticException")? {
                        return Ok(Control::Frames);
                    }
                }
                binary(frames.last_mut().expect("a frame"), op)?
            }
            IADD..=DREM | ISHL..=LXOR => binary(frame, op)?,
            INEG..=DNEG => {
                let value = pop(frame)?;
                frame.stack.push(match value {
                    Sym::Prim(P::Int(v)) => Sym::Prim(P::Int(arith::int_neg(&v))),
                    Sym::Prim(P::Long(v)) => Sym::Prim(P::Long(arith::int_neg(&v))),
                    Sym::Prim(P::Float(v)) => Sym::Prim(P::Float(arith::float_neg(&v))),
                    Sym::Prim(P::Double(v)) => Sym::Prim(P::Double(arith::float_neg(&v))),
                    other => other,
                });
            }
            I2L..=I2S => convert(frame, op)?,
            LCMP | FCMPL..=DCMPG => {
                self.consume_compare(frames)?;
                let frame = frames.last_mut().expect("a frame");
                let (right, left) = (pop(frame)?, pop(frame)?);
                let nan = if matches!(op, FCMPL | DCMPL) {
                    NanResult::Less
                } else {
                    NanResult::Greater
                };
                frame.stack.push(match (left, right) {
                    (Sym::Prim(P::Long(l)), Sym::Prim(P::Long(r))) => {
                        Sym::Prim(P::Int(arith::lcmp(&l, &r)))
                    }
                    (
                        Sym::Prim(P::Float(l) | P::Double(l)),
                        Sym::Prim(P::Float(r) | P::Double(r)),
                    ) => Sym::Prim(P::Int(arith::float_cmp(&l, &r, nan))),
                    _ => Sym::Unknown { wide: false },
                });
            }
            _ => return Err(unsupported(op)),
        }
        Ok(Control::Next)
    }

    /// Branches, jumps, switches and returns.
    fn control(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        use opcode::*;
        let op = instruction.opcode;
        match op {
            IFEQ..=IF_ACMPNE | IFNULL | IFNONNULL => self.branch(frames, instruction),
            GOTO | GOTO_W => {
                let Operands::Branch(relative) = instruction.operands else {
                    return Err(unsupported(op));
                };
                Ok(Control::Jump(target(instruction.offset, relative)))
            }
            TABLESWITCH | LOOKUPSWITCH => self.switch(frames, instruction),
            IRETURN..=ARETURN => {
                let value = pop(frames.last_mut().expect("a frame"))?;
                self.return_from(frames, Some(value))
            }
            RETURN => self.return_from(frames, None),
            // `jsr` and `ret` (class files before Java 6).
            _ => Err(unsupported(op)),
        }
    }

    /// Fields, calls, allocation, `athrow`, type checks and monitors.
    fn object_operation(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        use opcode::*;
        let op = instruction.opcode;
        match op {
            GETSTATIC..=PUTFIELD => return self.field(frames, instruction),
            INVOKEVIRTUAL..=INVOKEINTERFACE => return self.invoke(frames, instruction),
            INVOKEDYNAMIC => return self.invoke_dynamic(frames, instruction),
            NEW => {
                let Operands::Constant(index) = instruction.operands else {
                    return Err(unsupported(op));
                };
                let frame = frames.last_mut().expect("a frame");
                let class = class_operand(frame.class, index)?;
                let object = if class == "java/lang/StringBuilder" {
                    HeapObject::Builder {
                        chars: string_literal(&[]),
                    }
                } else if self.program.class_named(&class).is_some() {
                    HeapObject::Instance {
                        class,
                        fields: BTreeMap::new(),
                        choice: None,
                    }
                } else {
                    HeapObject::Opaque { class }
                };
                let value = self.fresh(object);
                frames.last_mut().expect("a frame").stack.push(value);
            }
            NEWARRAY | ANEWARRAY => return self.new_array(frames, instruction),
            MULTIANEWARRAY => return self.multi_new_array(frames, instruction),
            ARRAYLENGTH => {
                let array = pop(frames.last_mut().expect("a frame"))?;
                self.null_check(frames, &array)?;
                let length = match self.object(&array) {
                    Some(HeapObject::Array { length, .. }) => {
                        Sym::Prim(Primitive::Int(length.clone()))
                    }
                    _ => Sym::Unknown { wide: false },
                };
                push(frames, length);
            }
            ATHROW => {
                let exception = pop(frames.last_mut().expect("a frame"))?;
                if let Some(TraceEvent::Athrow { .. }) = self.peek() {
                    self.cursor += 1;
                }
                return self.throw(frames, exception);
            }
            CHECKCAST | INSTANCEOF => return self.type_check(frames, instruction),
            MONITORENTER | MONITOREXIT => {
                pop(frames.last_mut().expect("a frame"))?;
            }
            _ => return Err(unsupported(op)),
        }
        Ok(Control::Next)
    }
}

fn unsupported(op: u8) -> Stop {
    Stop::Unsupported {
        instruction: opcode::name(op).unwrap_or("?"),
    }
}

fn int(value: i64) -> Sym {
    Sym::Prim(Primitive::Int(BV::from_i64(value, 32)))
}

/// Loads, stores and `iinc`.
fn local_variable(frame: &mut Frame<'_, '_>, instruction: &Instruction<'_>) -> Flow<()> {
    use opcode::*;
    let op = instruction.opcode;
    let local = match instruction.operands {
        Operands::Local(index) => Some(usize::from(index)),
        _ => None,
    };
    match op {
        ILOAD..=ALOAD => load(frame, local.ok_or_else(|| unsupported(op))?),
        ILOAD_0..=ALOAD_3 => load(frame, usize::from((op - ILOAD_0) % 4)),
        ISTORE..=ASTORE => store(frame, local.ok_or_else(|| unsupported(op))?),
        ISTORE_0..=ASTORE_3 => store(frame, usize::from((op - ISTORE_0) % 4)),
        IINC => {
            let Operands::Iinc { index, delta } = instruction.operands else {
                return Err(unsupported(op));
            };
            let slot = usize::from(index);
            let next = match frame.locals.get(slot) {
                Some(Some(Sym::Prim(Primitive::Int(value)))) => Sym::Prim(Primitive::Int(
                    arith::int_op(IntOp::Add, value, &BV::from_i64(i64::from(delta), 32)),
                )),
                _ => Sym::Unknown { wide: false },
            };
            if let Some(cell) = frame.locals.get_mut(slot) {
                *cell = Some(next);
            }
            Ok(())
        }
        _ => Err(unsupported(op)),
    }
}

/// `pop`, `dup` and their relatives, and `swap`, by the JVMS's value
/// categories (a long or double is one wide value here).
fn stack_operation(frame: &mut Frame<'_, '_>, op: u8) -> Flow<()> {
    use opcode::*;
    match op {
        POP => {
            pop(frame)?;
        }
        POP2 => {
            if !pop(frame)?.is_wide() {
                pop(frame)?;
            }
        }
        DUP => {
            let top = pop(frame)?;
            frame.stack.extend([top.clone(), top]);
        }
        DUP_X1 => {
            let (v1, v2) = (pop(frame)?, pop(frame)?);
            frame.stack.extend([v1.clone(), v2, v1]);
        }
        DUP_X2 => {
            let v1 = pop(frame)?;
            let v2 = pop(frame)?;
            if v2.is_wide() {
                frame.stack.extend([v1.clone(), v2, v1]);
            } else {
                let v3 = pop(frame)?;
                frame.stack.extend([v1.clone(), v3, v2, v1]);
            }
        }
        DUP2 => {
            let top = pop(frame)?;
            if top.is_wide() {
                frame.stack.extend([top.clone(), top]);
            } else {
                let below = pop(frame)?;
                frame.stack.extend([below.clone(), top.clone(), below, top]);
            }
        }
        DUP2_X1 => {
            let v1 = pop(frame)?;
            if v1.is_wide() {
                let v2 = pop(frame)?;
                frame.stack.extend([v1.clone(), v2, v1]);
            } else {
                let (v2, v3) = (pop(frame)?, pop(frame)?);
                frame.stack.extend([v2.clone(), v1.clone(), v3, v2, v1]);
            }
        }
        SWAP => {
            let (top, below) = (pop(frame)?, pop(frame)?);
            frame.stack.extend([top, below]);
        }
        // DUP2_X2: not emitted by javac for ordinary code.
        _ => return Err(unsupported(op)),
    }
    Ok(())
}

/// A binary operation on the two values on top of the stack.
fn binary(frame: &mut Frame<'_, '_>, op: u8) -> Flow<()> {
    use opcode::*;
    use Primitive as P;
    let (right, left) = (pop(frame)?, pop(frame)?);
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
    let wide = matches!(
        op,
        LADD | LSUB
            | LMUL
            | LDIV
            | LREM
            | LSHL
            | LSHR
            | LUSHR
            | LAND
            | LOR
            | LXOR
            | DADD
            | DSUB
            | DMUL
            | DDIV
            | DREM
    );
    let result = match (left, right, int_op, float_op) {
        (Sym::Prim(P::Int(l)), Sym::Prim(P::Int(r)), Some(op), _) => {
            Sym::Prim(P::Int(arith::int_op(op, &l, &r)))
        }
        (Sym::Prim(P::Long(l)), Sym::Prim(P::Long(r) | P::Int(r)), Some(op), _) => {
            Sym::Prim(P::Long(arith::int_op(op, &l, &r)))
        }
        (Sym::Prim(P::Float(l)), Sym::Prim(P::Float(r)), _, Some(op)) => {
            Sym::Prim(P::Float(arith::float_op(op, &l, &r)))
        }
        (Sym::Prim(P::Double(l)), Sym::Prim(P::Double(r)), _, Some(op)) => {
            Sym::Prim(P::Double(arith::float_op(op, &l, &r)))
        }
        _ => Sym::Unknown { wide },
    };
    frame.stack.push(result);
    Ok(())
}

fn convert(frame: &mut Frame<'_, '_>, op: u8) -> Flow<()> {
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
    let value = pop(frame)?;
    frame.stack.push(match value {
        Sym::Prim(value) => Sym::Prim(arith::convert(conversion, &value)),
        _ => Sym::Unknown { wide: wide_result },
    });
    Ok(())
}
