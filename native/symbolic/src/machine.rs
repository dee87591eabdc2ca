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

use std::collections::BTreeMap;

use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::descriptor::{BaseType, FieldType, MethodDescriptor};
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_classfile::{ClassFile, Constant};
use testgen_exec::{Assertions, BranchOperands, ExternalValue, ObjectRef, TraceEvent};
use z3::ast::{Array, Ast, Bool, Float, BV};
use z3::Sort;

use crate::arith::{self, Condition, Conversion, FloatOp, IntOp, NanResult, Primitive};
use crate::inputs::{Act, ArgSym, ArrayElements, Target, Valuation};
use crate::program::{MethodKey, Program};
use crate::tree::{Alternative, Decision, Location, Outcome, Step};
use crate::value::{
    int_comparison, string_literal, Elements, HeapObject, ObjId, Reference, Sym, TypeChoice,
};

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
    pub stopped: Option<String>,
}

/// Replays a plan's run: `acts` say what each statement means, `events` are
/// the plan thread's trace, `valuation` the inputs the plan was made from.
pub fn replay(
    program: &Program<'_>,
    acts: &[Act],
    events: &[TraceEvent],
    valuation: &Valuation,
    options: &ReplayOptions,
) -> Replayed {
    let mut replay = Replay {
        program,
        valuation,
        options,
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
        match replay.statement(index, act) {
            Ok(()) => {}
            Err(Stop::Threw) => break,
            Err(Stop::Mismatch(why)) => {
                stopped = Some(why);
                break;
            }
        }
    }
    if replay.truncated && stopped.is_none() {
        stopped = Some(format!(
            "the path is longer than {} decisions",
            options.max_path_length
        ));
    }
    Replayed {
        steps: replay.steps,
        stopped,
    }
}

enum Stop {
    /// The statement ended with an exception; later statements did not run.
    Threw,
    /// Trace and bytecode disagree, or something is not interpreted.
    Mismatch(String),
}

type Flow<T> = Result<T, Stop>;

fn mismatch<T>(why: impl Into<String>) -> Flow<T> {
    Err(Stop::Mismatch(why.into()))
}

struct Frame<'p, 'a> {
    label: String,
    method_id: Option<i32>,
    class: &'p ClassFile<'a>,
    instructions: BTreeMap<u32, Instruction<'a>>,
    locals: Vec<Option<Sym>>,
    stack: Vec<Sym>,
    pc: u32,
    visits: BTreeMap<u32, u32>,
}

pub(crate) struct Replay<'p, 'a> {
    program: &'p Program<'a>,
    valuation: &'p Valuation,
    options: &'p ReplayOptions,
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
    // ----- statements -------------------------------------------------

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
                let key = MethodKey::new(class, "<init>", descriptor);
                self.enter_statement(key, values)
            }
            Act::Call {
                key,
                receiver,
                args,
            } => {
                let mut values = Vec::new();
                let mut key = key.clone();
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
    fn enter_statement(&mut self, key: MethodKey, values: Vec<Sym>) -> Flow<()> {
        let Some(id) = self.program.method_id(&key) else {
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
                _ => return mismatch(format!("no entry into {} in the trace", key.label())),
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
                    Target::Null => None,
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

    pub(crate) fn object(&self, value: &Sym) -> Option<&HeapObject> {
        value.as_ref()?.object.map(|id| &self.heap[id])
    }

    fn runtime_class(&self, value: &Sym) -> Option<String> {
        self.object(value).map(|o| o.class().to_string())
    }

    /// The method `key` names, found from `class` upwards (virtual dispatch).
    fn resolve_virtual(&self, class: &str, key: &MethodKey) -> Option<MethodKey> {
        self.program.supertypes(class).into_iter().find_map(|c| {
            let candidate = MethodKey::new(&c, &key.name, &key.descriptor);
            self.program.method(&candidate).map(|_| candidate)
        })
    }

    // ----- events -----------------------------------------------------

    /// The next event, past any class initialisation (a `<clinit>` runs
    /// wherever the JVM first needs the class, and has nothing to do with
    /// the path).
    fn peek(&mut self) -> Option<&'p TraceEvent> {
        while let Some(TraceEvent::Enter { method }) = self.events.get(self.cursor) {
            let is_clinit = self
                .program
                .method_key(*method)
                .is_some_and(|k| k.name == "<clinit>");
            if !is_clinit {
                break;
            }
            self.skip_call(*method);
        }
        self.events.get(self.cursor)
    }

    /// Skips a call's events, from its `enter` to its `exit` (or to where
    /// an exception left it).
    fn skip_call(&mut self, method: i32) {
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

    fn site_matches(&self, site: i32, frame: &Frame<'_, '_>) -> bool {
        self.program
            .site(site)
            .is_some_and(|at| Some(at.method) == frame.method_id && at.offset == frame.pc)
    }

    // ----- the interpreter loop ----------------------------------------

    fn frame(
        &self,
        key: MethodKey,
        method_id: Option<i32>,
        values: Vec<Sym>,
    ) -> Flow<Frame<'p, 'a>> {
        let Some((class, method)) = self.program.method(&key) else {
            return mismatch(format!("{} is not in the program", key.label()));
        };
        let code = match method.code(class) {
            Ok(Some(code)) => code,
            _ => return mismatch(format!("{} has no code", key.label())),
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
            label: key.label(),
            method_id,
            class,
            instructions,
            locals,
            stack: Vec::new(),
            pc: 0,
            visits: BTreeMap::new(),
        })
    }

    fn run(&mut self, frames: &mut Vec<Frame<'p, 'a>>) -> Flow<()> {
        let mut budget = 5_000_000u32;
        while !frames.is_empty() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return mismatch("the replay did not end");
            }
            if self.truncated {
                // Interpreting on would only grow terms nobody solves.
                return mismatch(format!(
                    "the path is longer than {} decisions",
                    self.options.max_path_length
                ));
            }
            let top = frames.len() - 1;
            let pc = frames[top].pc;
            let Some(instruction) = frames[top].instructions.get(&pc).cloned() else {
                return mismatch(format!("no instruction at {pc} in {}", frames[top].label));
            };
            match self.execute(frames, &instruction)? {
                Control::Next => {
                    let frame = frames.last_mut().expect("a frame");
                    frame.pc += instruction.len();
                }
                Control::Jump(target) => frames.last_mut().expect("a frame").pc = target,
                Control::Frames => {}
            }
        }
        Ok(())
    }

    fn execute(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        use opcode::*;
        use Primitive as P;
        let op = instruction.opcode;
        let unsupported = || {
            Stop::Mismatch(format!(
                "{} at offset {} is not interpreted",
                opcode::name(op).unwrap_or("?"),
                instruction.offset
            ))
        };
        let int = |value: i64| Sym::Prim(P::Int(BV::from_i64(value, 32)));
        let frame = frames.last_mut().expect("a frame");
        let local = match instruction.operands {
            Operands::Local(index) => Some(usize::from(index)),
            _ => None,
        };
        match op {
            NOP => {}
            ACONST_NULL => frame.stack.push(Sym::null()),
            ICONST_M1..=ICONST_5 => frame.stack.push(int(i64::from(op) - i64::from(ICONST_0))),
            LCONST_0 | LCONST_1 => frame.stack.push(Sym::Prim(P::Long(BV::from_i64(
                i64::from(op - LCONST_0),
                64,
            )))),
            FCONST_0..=FCONST_2 => {
                frame
                    .stack
                    .push(Sym::Prim(P::Float(Float::from_f32(f32::from(
                        op - FCONST_0,
                    )))))
            }
            DCONST_0 | DCONST_1 => {
                frame
                    .stack
                    .push(Sym::Prim(P::Double(Float::from_f64(f64::from(
                        op - DCONST_0,
                    )))))
            }
            BIPUSH | SIPUSH => match instruction.operands {
                Operands::Byte(value) => frame.stack.push(int(i64::from(value))),
                Operands::Short(value) => frame.stack.push(int(i64::from(value))),
                _ => return Err(unsupported()),
            },
            LDC | LDC_W | LDC2_W => {
                let Operands::Constant(index) = instruction.operands else {
                    return Err(unsupported());
                };
                let class = frame.class;
                let value = match class.constant_pool.get(index) {
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
                };
                frames.last_mut().expect("a frame").stack.push(value);
            }
            ILOAD..=ALOAD => load(frame, local.ok_or_else(unsupported)?)?,
            ILOAD_0..=ALOAD_3 => load(frame, usize::from((op - ILOAD_0) % 4))?,
            ISTORE..=ASTORE => store(frame, local.ok_or_else(unsupported)?)?,
            ISTORE_0..=ASTORE_3 => store(frame, usize::from((op - ISTORE_0) % 4))?,
            IALOAD..=SALOAD => return self.array_load(frames, op),
            IASTORE..=SASTORE => return self.array_store(frames, op),
            IINC => {
                let Operands::Iinc { index, delta } = instruction.operands else {
                    return Err(unsupported());
                };
                let slot = usize::from(index);
                let next = match frame.locals.get(slot) {
                    Some(Some(Sym::Prim(P::Int(value)))) => Sym::Prim(P::Int(arith::int_op(
                        IntOp::Add,
                        value,
                        &BV::from_i64(i64::from(delta), 32),
                    ))),
                    _ => Sym::Unknown { wide: false },
                };
                if let Some(cell) = frame.locals.get_mut(slot) {
                    *cell = Some(next);
                }
            }
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
            IDIV | IREM | LDIV | LREM => {
                let divisor = frame.stack.last().cloned();
                if let Some(Sym::Prim(Primitive::Int(d) | Primitive::Long(d))) = divisor {
                    let zero = BV::from_i64(0, d.get_size());
                    if !self.may_throw(frames, d.eq(&zero), "java/lang/ArithmeticException")? {
                        return Ok(Control::Frames);
                    }
                }
                arithmetic(frames.last_mut().expect("a frame"), op)?
            }
            IADD..=DREM => arithmetic(frame, op)?,
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
            ISHL..=LXOR => arithmetic(frame, op)?,
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
            IFEQ..=IF_ACMPNE | IFNULL | IFNONNULL => return self.branch(frames, instruction),
            GOTO | GOTO_W => {
                let Operands::Branch(relative) = instruction.operands else {
                    return Err(unsupported());
                };
                return Ok(Control::Jump(target(instruction.offset, relative)));
            }
            TABLESWITCH | LOOKUPSWITCH => return self.switch(frames, instruction),
            IRETURN..=ARETURN => {
                let value = pop(frame)?;
                return self.return_from(frames, Some(value));
            }
            RETURN => return self.return_from(frames, None),
            GETSTATIC | PUTSTATIC | GETFIELD | PUTFIELD => return self.field(frames, instruction),
            INVOKEVIRTUAL..=INVOKEINTERFACE => return self.invoke(frames, instruction),
            INVOKEDYNAMIC => return self.invoke_dynamic(frames, instruction),
            NEW => {
                let Operands::Constant(index) = instruction.operands else {
                    return Err(unsupported());
                };
                let class = class_operand(frame.class, index)?;
                let object = if class == "java/lang/StringBuilder" {
                    HeapObject::Builder {
                        chars: string_literal(&[]),
                    }
                } else if self.program.class(&class).is_some() {
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
                let array = pop(frame)?;
                self.null_check(frames, &array)?;
                let length = match self.object(&array) {
                    Some(HeapObject::Array { length, .. }) => Sym::Prim(P::Int(length.clone())),
                    _ => Sym::Unknown { wide: false },
                };
                push(frames, length);
            }
            ATHROW => {
                let exception = pop(frame)?;
                if let Some(TraceEvent::Athrow { .. }) = self.peek() {
                    self.cursor += 1;
                }
                return self.throw(frames, exception);
            }
            CHECKCAST | INSTANCEOF => return self.type_check(frames, instruction),
            MONITORENTER | MONITOREXIT => {
                pop(frame)?;
            }
            _ => return Err(unsupported()),
        }
        Ok(Control::Next)
    }

    // ----- decisions --------------------------------------------------

    /// Records a decision at the current instruction of the top frame.
    fn decide(
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
        let text = |c: Option<Bool>| c.map(|c| c.simplify().to_string());
        self.steps.push(Step {
            taken: Decision {
                at: Location::new(frame.label.clone(), frame.pc),
                outcome: taken,
                clause: text(taken_clause),
                declares: Vec::new(),
            },
            alternatives: if bounded {
                Vec::new()
            } else {
                others
                    .into_iter()
                    .map(|(outcome, clause)| Alternative {
                        outcome,
                        clause: text(clause),
                        declares: Vec::new(),
                    })
                    .collect()
            },
        });
    }

    /// An instruction that throws when `throws` holds: records the decision
    /// (when the inputs can change it) and, if this run threw, unwinds.
    /// Returns `Ok(true)` if execution goes on normally.
    fn may_throw(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        throws: Bool,
        exception: &str,
    ) -> Flow<bool> {
        let simplified = throws.simplify();
        let threw = match simplified.as_bool() {
            Some(constant) => constant,
            None => {
                let threw = self.valuation.truth(&throws);
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
    fn null_check(&mut self, frames: &mut Vec<Frame<'p, 'a>>, value: &Sym) -> Flow<bool> {
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
    fn throw(&mut self, frames: &mut Vec<Frame<'p, 'a>>, exception: Sym) -> Flow<Control> {
        if let Some(TraceEvent::Caught { site, .. }) = self.peek() {
            if let Some(at) = self.program.site(*site) {
                if let Some(depth) = frames.iter().rposition(|f| f.method_id == Some(at.method)) {
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

    fn consume_compare(&mut self, frames: &[Frame<'p, 'a>]) -> Flow<()> {
        let frame = frames.last().expect("a frame");
        if let Some(TraceEvent::Compare { site, .. }) = self.peek() {
            if self.site_matches(*site, frame) {
                self.cursor += 1;
            }
        }
        Ok(())
    }

    fn branch(
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
                    frames.last().expect("a frame").label
                ))
            }
        };
        let frame = frames.last_mut().expect("a frame");
        let condition = |index: u8| match index {
            0 => Condition::Eq,
            1 => Condition::Ne,
            2 => Condition::Lt,
            3 => Condition::Ge,
            4 => Condition::Gt,
            _ => Condition::Le,
        };
        let (jumps, taken): (Option<Bool>, bool) = match (op, operands) {
            (IFEQ..=IFLE, BranchOperands::Int { value }) => {
                let test = condition(op - IFEQ);
                let term = pop(frame)?
                    .as_int()
                    .map(|v| int_comparison(test, v, &BV::from_i64(0, 32)));
                (term, concrete(test, i64::from(*value), 0))
            }
            (IF_ICMPEQ..=IF_ICMPLE, BranchOperands::IntPair { left, right }) => {
                let test = condition(op - IF_ICMPEQ);
                let (r, l) = (pop(frame)?, pop(frame)?);
                let term = l
                    .as_int()
                    .zip(r.as_int())
                    .map(|(l, r)| int_comparison(test, l, r));
                (term, concrete(test, i64::from(*left), i64::from(*right)))
            }
            (IF_ACMPEQ | IF_ACMPNE, BranchOperands::RefPair { left, right }) => {
                let (r, l) = (pop(frame)?, pop(frame)?);
                let same = match (left, right) {
                    (None, None) => true,
                    (Some(l), Some(r)) => same_object(l, r),
                    _ => false,
                };
                let term = match (l, r) {
                    (Sym::Ref(l), Sym::Ref(r)) => Some(l.same_as(&r)),
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

    fn switch(
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

    // ----- calls ------------------------------------------------------

    fn return_from(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        value: Option<Sym>,
    ) -> Flow<Control> {
        let frame = frames.pop().expect("a frame");
        if let Some(TraceEvent::Exit { method }) = self.peek() {
            if Some(*method) == frame.method_id {
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

    fn invoke(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let (Operands::Constant(index) | Operands::InvokeInterface { index, .. }) =
            instruction.operands
        else {
            return mismatch("a call without a method reference");
        };
        let frame = frames.last_mut().expect("a frame");
        let member = frame
            .class
            .constant_pool
            .member_ref(index)
            .map_err(class_error)?;
        let key = MethodKey::new(&member.class, &member.name, &member.descriptor);
        let descriptor = MethodDescriptor::parse(&member.descriptor).map_err(class_error)?;
        let mut args = Vec::new();
        for _ in &descriptor.parameters {
            args.push(pop(frame)?);
        }
        args.reverse();
        let is_static = instruction.opcode == opcode::INVOKESTATIC;
        let receiver = if is_static { None } else { Some(pop(frame)?) };
        let result_type = descriptor.return_type;
        if let Some(receiver) = &receiver {
            if key.name != "<init>" && !self.null_check(frames, receiver)? {
                return Ok(Control::Frames);
            }
        }
        // A call into the program: the trace shows which method it entered.
        if let Some(TraceEvent::Enter { method }) = self.peek() {
            let method = *method;
            let callee = self.program.method_key(method).cloned();
            if let Some(callee) =
                callee.filter(|c| c.name == key.name && c.descriptor == key.descriptor)
            {
                if frames.len() <= self.options.call_depth {
                    self.cursor += 1;
                    let mut values: Vec<Sym> = receiver.into_iter().collect();
                    values.extend(args);
                    let frame = self.frame(callee, Some(method), values)?;
                    frames.push(frame);
                    return Ok(Control::Frames);
                }
                self.skip_call(method);
                return self.push_result(frames, unknown(&result_type));
            }
        }
        // Not followed: a JDK call (modelled, or its observed result), or a
        // program method without probes.
        let frame = frames.last().expect("a frame");
        let site = frame
            .method_id
            .and_then(|m| self.program.external_site(m, frame.pc));
        let observed = match site {
            Some(site) => match self.external_result(site) {
                Some(value) => Some(value),
                None => {
                    // It threw; a model may still say when.
                    if let Some(assumed) = self.assumed_call(&key, receiver.as_ref(), &args) {
                        let frame = frames.last().expect("a frame");
                        self.steps.push(Step {
                            taken: Decision {
                                at: Location::new(frame.label.clone(), frame.pc),
                                outcome: Outcome::Throws,
                                clause: None,
                                declares: Vec::new(),
                            },
                            alternatives: vec![Alternative {
                                outcome: Outcome::Proceeds,
                                clause: Some(assumed.clause.simplify().to_string()),
                                declares: assumed.declares,
                            }],
                        });
                    } else if let Some(throws) = self.model_throws(&key, receiver.as_ref(), &args) {
                        let frame = frames.last().expect("a frame");
                        let label = frame.label.clone();
                        let pc = frame.pc;
                        self.steps.push(Step {
                            taken: Decision {
                                at: Location::new(label, pc),
                                outcome: Outcome::Throws,
                                clause: Some(throws.to_string()),
                                declares: Vec::new(),
                            },
                            alternatives: vec![Alternative {
                                outcome: Outcome::Proceeds,
                                clause: Some(throws.not().to_string()),
                                declares: Vec::new(),
                            }],
                        });
                    }
                    let error = self.fresh(HeapObject::Opaque {
                        class: "java/lang/Throwable".into(),
                    });
                    return self.throw(frames, error);
                }
            },
            None => None,
        };
        let observed = observed.map(|value| self.concretise(value, &result_type));
        if let Some(throws) = self.model_throws(&key, receiver.as_ref(), &args) {
            // The call did not throw this time; the other way is a decision.
            self.decide(
                frames,
                Outcome::Proceeds,
                Some(throws.not()),
                vec![(Outcome::Throws, Some(throws))],
            );
        }
        if let Some(assumed) = self.assumed_call(&key, receiver.as_ref(), &args) {
            let frame = frames.last().expect("a frame");
            self.steps.push(Step {
                taken: Decision {
                    at: Location::new(frame.label.clone(), frame.pc),
                    outcome: Outcome::Proceeds,
                    clause: Some(assumed.clause.simplify().to_string()),
                    declares: assumed.declares,
                },
                alternatives: Vec::new(),
            });
            return self.push_result(frames, assumed.result);
        }
        let modelled = self.model_call(&key, receiver.as_ref(), &args, observed.as_ref());
        if result_type.is_none() {
            return self.push_result(frames, None);
        }
        let result = modelled.or(observed).or_else(|| unknown(&result_type));
        self.push_result(frames, result)
    }

    fn push_result(
        &mut self,
        frames: &mut [Frame<'p, 'a>],
        value: impl Into<Option<Sym>>,
    ) -> Flow<Control> {
        if let Some(value) = value.into() {
            frames.last_mut().expect("a frame").stack.push(value);
        }
        Ok(Control::Next)
    }

    /// Consumes events up to the `external_result` of `site` (callbacks into
    /// the program in between are skipped); `None` if the call threw.
    fn external_result(&mut self, site: i32) -> Option<&'p ExternalValue> {
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

    fn concretise(&mut self, value: &ExternalValue, result: &Option<FieldType<'_>>) -> Sym {
        use Primitive as P;
        match value {
            ExternalValue::Void => Sym::Unknown { wide: false },
            ExternalValue::Int { value } => Sym::Prim(P::Int(BV::from_i64(i64::from(*value), 32))),
            ExternalValue::Long { value } => Sym::Prim(P::Long(BV::from_i64(*value, 64))),
            ExternalValue::Float { bits } => {
                Sym::Prim(P::Float(Float::from_f32(f32::from_bits(*bits))))
            }
            ExternalValue::Double { bits } => {
                Sym::Prim(P::Double(Float::from_f64(f64::from_bits(*bits))))
            }
            ExternalValue::Object { value: None } => Sym::null(),
            ExternalValue::Object {
                value: Some(object),
            } => {
                let _ = result;
                self.fresh(HeapObject::Opaque {
                    class: object.class.replace('.', "/"),
                })
            }
        }
    }

    fn invoke_dynamic(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let Operands::InvokeDynamic { index } = instruction.operands else {
            return mismatch("invokedynamic without a call site");
        };
        let frame = frames.last_mut().expect("a frame");
        let class = frame.class;
        let (bootstrap, name, descriptor) = match class.constant_pool.get(index) {
            Ok(Constant::InvokeDynamic {
                bootstrap_method_attr_index,
                name_and_type_index,
            }) => {
                let (name, descriptor) = class
                    .constant_pool
                    .name_and_type(*name_and_type_index)
                    .map_err(class_error)?;
                (*bootstrap_method_attr_index, name, descriptor)
            }
            _ => return mismatch("invokedynamic without a call site"),
        };
        let parsed = MethodDescriptor::parse(&descriptor).map_err(class_error)?;
        let mut args = Vec::new();
        for _ in &parsed.parameters {
            args.push(pop(frame)?);
        }
        args.reverse();
        let recipe = if name == "makeConcatWithConstants" {
            concat_recipe(class, bootstrap)
        } else {
            None
        };
        let result = match recipe {
            Some(recipe) => self
                .concat(&recipe, &args, &parsed.parameters)
                .unwrap_or_else(|| {
                    self.fresh(HeapObject::Opaque {
                        class: "java/lang/String".into(),
                    })
                }),
            // A lambda or another call site: an object nobody looks into.
            None => self.fresh(HeapObject::Opaque {
                class: "java/lang/Object".into(),
            }),
        };
        // Lambda bodies that ran are the program's methods: skip their events
        // here, they belong to whoever calls the lambda.
        frames.last_mut().expect("a frame").stack.push(result);
        Ok(Control::Next)
    }

    // ----- objects, fields, arrays, types --------------------------------

    fn field(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let Operands::Constant(index) = instruction.operands else {
            return mismatch("a field instruction without a field");
        };
        let frame = frames.last_mut().expect("a frame");
        let member = frame
            .class
            .constant_pool
            .member_ref(index)
            .map_err(class_error)?;
        let ty = FieldType::parse(&member.descriptor).map_err(class_error)?;
        let key = (member.class.to_string(), member.name.to_string());
        // Class initialisation may run here; its events are not the path's.
        self.peek();
        let frame = frames.last_mut().expect("a frame");
        match instruction.opcode {
            opcode::GETSTATIC => {
                let value = match self.statics.get(&key) {
                    Some(value) => value.clone(),
                    None => self.static_initial(&key.0, &key.1, &ty),
                };
                frames.last_mut().expect("a frame").stack.push(value);
            }
            opcode::PUTSTATIC => {
                let value = pop(frame)?;
                self.statics.insert(key, value);
            }
            opcode::GETFIELD => {
                let receiver = pop(frame)?;
                if !self.null_check(frames, &receiver)? {
                    return Ok(Control::Frames);
                }
                let value = match receiver.as_ref().and_then(|r| r.object) {
                    Some(id) => match &self.heap[id] {
                        HeapObject::Instance { fields, .. } => fields
                            .get(&key.1)
                            .cloned()
                            .unwrap_or_else(|| default_value(&ty)),
                        _ => unknown_of(&ty),
                    },
                    None => unknown_of(&ty),
                };
                frames.last_mut().expect("a frame").stack.push(value);
            }
            _ => {
                let value = pop(frame)?;
                let receiver = pop(frame)?;
                if !self.null_check(frames, &receiver)? {
                    return Ok(Control::Frames);
                }
                if let Some(id) = receiver.as_ref().and_then(|r| r.object) {
                    if let HeapObject::Instance { fields, .. } = &mut self.heap[id] {
                        fields.insert(key.1, value);
                    }
                }
            }
        }
        Ok(Control::Next)
    }

    /// The value of a static field the replay has not written: javac's enum
    /// switch maps are rebuilt from their `<clinit>`; anything else is not
    /// known.
    fn static_initial(&mut self, class: &str, field: &str, ty: &FieldType<'_>) -> Sym {
        if field == "$assertionsDisabled" {
            // Whether assertions run is the JVM's, as in the tests' JVM.
            let enabled = self
                .options
                .assertions
                .enabled_for(&class.replace('/', "."));
            return Sym::from_bool(&Bool::from_bool(!enabled));
        }
        if field.starts_with("$SwitchMap$") {
            if let Some((enum_class, mapping)) = self.program.switch_map(class, field) {
                let constants = self.program.enum_constants(&enum_class);
                let zero = BV::from_i64(0, 32);
                let mut array = Array::const_array(&Sort::bitvector(32), &zero);
                for (ordinal, name) in constants.iter().enumerate() {
                    if let Some(value) = mapping.get(name) {
                        array = array.store(
                            &BV::from_i64(ordinal as i64, 32),
                            &BV::from_i64(i64::from(*value), 32),
                        );
                    }
                }
                let value = self.fresh(HeapObject::Array {
                    class: "[I".into(),
                    length: BV::from_i64(constants.len() as i64, 32),
                    elements: Elements::Symbolic(array),
                });
                self.statics
                    .insert((class.to_string(), field.to_string()), value.clone());
                return value;
            }
        }
        unknown_of(ty)
    }

    fn new_array(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let frame = frames.last_mut().expect("a frame");
        let class = match instruction.operands {
            Operands::NewArray(code) => format!("[{}", array_type_char(code)),
            Operands::Constant(index) => {
                let element = class_operand(frame.class, index)?;
                if element.starts_with('[') {
                    format!("[{element}")
                } else {
                    format!("[L{element};")
                }
            }
            _ => return mismatch("an array creation without a type"),
        };
        let length = pop(frame)?;
        let Some(length) = length.as_int().cloned() else {
            let value = self.fresh(HeapObject::Opaque { class });
            return self.push_result(frames, value);
        };
        if !self.may_throw(
            frames,
            length.bvslt(BV::from_i64(0, 32)),
            "java/lang/NegativeArraySizeException",
        )? {
            return Ok(Control::Frames);
        }
        let value = self.make_array(class, length);
        self.push_result(frames, value)
    }

    fn make_array(&mut self, class: String, length: BV) -> Sym {
        let elements = match primitive_element_sort(&class) {
            Some(sort) => Elements::Symbolic(Array::const_array(
                &Sort::bitvector(32),
                &zero_of_sort(&sort),
            )),
            None => {
                let n = self.valuation.signed(&length).clamp(0, 4096) as usize;
                Elements::References(vec![Sym::null(); n])
            }
        };
        self.fresh(HeapObject::Array {
            class,
            length,
            elements,
        })
    }

    fn multi_new_array(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let Operands::MultiANewArray { index, dimensions } = instruction.operands else {
            return mismatch("multianewarray without a type");
        };
        let frame = frames.last_mut().expect("a frame");
        let class = class_operand(frame.class, index)?;
        let mut lengths = Vec::new();
        for _ in 0..dimensions {
            lengths.push(pop(frame)?);
        }
        lengths.reverse();
        let mut terms = Vec::new();
        for length in &lengths {
            match length.as_int() {
                Some(t) => terms.push(t.clone()),
                None => {
                    let value = self.fresh(HeapObject::Opaque { class });
                    return self.push_result(frames, value);
                }
            }
        }
        let negative: Vec<Bool> = terms.iter().map(|t| t.bvslt(BV::from_i64(0, 32))).collect();
        if !self.may_throw(
            frames,
            Bool::or(&negative),
            "java/lang/NegativeArraySizeException",
        )? {
            return Ok(Control::Frames);
        }
        let value = self.nested_array(&class, &terms);
        self.push_result(frames, value)
    }

    fn nested_array(&mut self, class: &str, lengths: &[BV]) -> Sym {
        let array = self.make_array(class.to_string(), lengths[0].clone());
        if lengths.len() > 1 {
            let id = array.as_ref().and_then(|r| r.object).expect("an array");
            let count = match &self.heap[id] {
                HeapObject::Array {
                    elements: Elements::References(v),
                    ..
                } => v.len(),
                _ => 0,
            };
            let rows: Vec<Sym> = (0..count)
                .map(|_| self.nested_array(&class[1..], &lengths[1..]))
                .collect();
            if let HeapObject::Array { elements, .. } = &mut self.heap[id] {
                *elements = Elements::References(rows);
            }
        }
        array
    }

    /// The checks of an array access.
    fn array_access(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        array: &Sym,
        index: &Sym,
    ) -> Flow<Access> {
        if !self.null_check(frames, array)? {
            return Ok(Access::Threw);
        }
        let Some(id) = array.as_ref().and_then(|r| r.object) else {
            return Ok(Access::Unmodelled);
        };
        let (HeapObject::Array { length, .. }, Some(index)) = (&self.heap[id], index.as_int())
        else {
            return Ok(Access::Unmodelled);
        };
        let zero = BV::from_i64(0, 32);
        let outside = Bool::or(&[&index.bvslt(&zero), &index.bvsge(length)]);
        let index = index.clone();
        if !self.may_throw(frames, outside, "java/lang/ArrayIndexOutOfBoundsException")? {
            return Ok(Access::Threw);
        }
        Ok(Access::At(id, index))
    }

    fn array_load(&mut self, frames: &mut Vec<Frame<'p, 'a>>, op: u8) -> Flow<Control> {
        let frame = frames.last_mut().expect("a frame");
        let index = pop(frame)?;
        let array = pop(frame)?;
        let (id, index) = match self.array_access(frames, &array, &index)? {
            Access::Threw => return Ok(Control::Frames),
            Access::Unmodelled => return self.push_result(frames, unknown_element(op)),
            Access::At(id, index) => (id, index),
        };
        let value = match &self.heap[id] {
            HeapObject::Array {
                elements: Elements::Symbolic(cells),
                class,
                ..
            } => {
                let cell = cells.select(&index);
                match (cell.as_bv(), cell.as_float()) {
                    (Some(bv), _) if op == opcode::LALOAD => Sym::Prim(Primitive::Long(bv)),
                    (Some(bv), _) => Sym::Prim(Primitive::Int(narrow_element(class, &bv))),
                    (_, Some(f)) if op == opcode::FALOAD => Sym::Prim(Primitive::Float(f)),
                    (_, Some(f)) => Sym::Prim(Primitive::Double(f)),
                    _ => unknown_element(op),
                }
            }
            HeapObject::Array {
                elements: Elements::References(cells),
                ..
            } => {
                let at = self.valuation.signed(&index);
                usize::try_from(at)
                    .ok()
                    .and_then(|at| cells.get(at).cloned())
                    .unwrap_or_else(|| unknown_element(op))
            }
            _ => unknown_element(op),
        };
        self.push_result(frames, value)
    }

    fn array_store(&mut self, frames: &mut Vec<Frame<'p, 'a>>, op: u8) -> Flow<Control> {
        let frame = frames.last_mut().expect("a frame");
        let value = pop(frame)?;
        let index = pop(frame)?;
        let array = pop(frame)?;
        let (id, index) = match self.array_access(frames, &array, &index)? {
            Access::Threw => return Ok(Control::Frames),
            Access::Unmodelled => return Ok(Control::Next),
            Access::At(id, index) => (id, index),
        };
        let at = self.valuation.signed(&index);
        if let HeapObject::Array {
            elements, class, ..
        } = &mut self.heap[id]
        {
            match elements {
                Elements::Symbolic(cells) => {
                    let stored = match (&value, op) {
                        (Sym::Prim(Primitive::Int(v)), opcode::BASTORE) if class == "[Z" => {
                            Some(v.bvand(BV::from_i64(1, 32)).into())
                        }
                        (Sym::Prim(Primitive::Int(v)), opcode::BASTORE) => {
                            Some(v.extract(7, 0).sign_ext(24).into())
                        }
                        (Sym::Prim(Primitive::Int(v)), opcode::CASTORE) => {
                            Some(v.extract(15, 0).zero_ext(16).into())
                        }
                        (Sym::Prim(Primitive::Int(v)), opcode::SASTORE) => {
                            Some(v.extract(15, 0).sign_ext(16).into())
                        }
                        (Sym::Prim(Primitive::Int(v) | Primitive::Long(v)), _) => {
                            Some(z3::ast::Dynamic::from_ast(v))
                        }
                        (Sym::Prim(Primitive::Float(v) | Primitive::Double(v)), _) => {
                            Some(z3::ast::Dynamic::from_ast(v))
                        }
                        _ => None,
                    };
                    match stored {
                        Some(stored) => *cells = cells.store(&index, &stored),
                        None => {
                            // An unknown value makes the whole array unknown.
                            let class = class.clone();
                            self.heap[id] = HeapObject::Opaque { class };
                        }
                    }
                }
                Elements::References(cells) => {
                    if let Some(cell) = usize::try_from(at).ok().and_then(|at| cells.get_mut(at)) {
                        *cell = value;
                    }
                }
            }
        }
        Ok(Control::Next)
    }

    fn type_check(
        &mut self,
        frames: &mut Vec<Frame<'p, 'a>>,
        instruction: &Instruction<'a>,
    ) -> Flow<Control> {
        let Operands::Constant(index) = instruction.operands else {
            return mismatch("a type check without a type");
        };
        let frame = frames.last_mut().expect("a frame");
        let of = class_operand(frame.class, index)?;
        let value = pop(frame)?;
        let is_instance = self.instance_of(&value, &of);
        if instruction.opcode == opcode::INSTANCEOF {
            let result = match is_instance {
                Some(condition) => Sym::from_bool(&condition),
                None => Sym::Unknown { wide: false },
            };
            return self.push_result(frames, result);
        }
        if let (Some(condition), Sym::Ref(reference)) = (&is_instance, &value) {
            // A cast fails for a non-null reference of another type.
            let fails = Bool::and(&[&reference.is_null.not(), &condition.not()]);
            if !self.may_throw(frames, fails, "java/lang/ClassCastException")? {
                return Ok(Control::Frames);
            }
        }
        self.push_result(frames, value)
    }

    /// `value instanceof of` over the inputs; `None` if not modelled.
    fn instance_of(&self, value: &Sym, of: &str) -> Option<Bool> {
        let reference = value.as_ref()?;
        let Some(id) = reference.object else {
            // Null in this run: false whatever the type would have been,
            // unless the inputs choose a type.
            return Some(Bool::from_bool(false));
        };
        let object = &self.heap[id];
        let of_type = match object.choice() {
            Some(TypeChoice { var, candidates }) => {
                let matching: Vec<Bool> = candidates
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| self.program.is_subtype(c, of))
                    .map(|(i, _)| var.eq(BV::from_i64(i as i64, 32)))
                    .collect();
                Bool::or(&matching)
            }
            None => {
                if let HeapObject::Opaque { class } = object {
                    if class == "java/lang/Object" || class == "java/lang/Throwable" {
                        return None;
                    }
                }
                Bool::from_bool(self.program.is_subtype(object.class(), of))
            }
        };
        Some(Bool::and(&[&reference.is_null.not(), &of_type]))
    }
}

// ----- small helpers --------------------------------------------------------

/// A malformed class (a bad constant-pool entry or descriptor) stops the
/// replay; the verifier would have rejected it.
fn class_error(error: impl std::fmt::Display) -> Stop {
    Stop::Mismatch(error.to_string())
}

/// The class an instruction's constant-pool operand names.
fn class_operand(class: &ClassFile<'_>, index: u16) -> Flow<String> {
    class
        .constant_pool
        .class_name(index)
        .map(|name| name.into_owned())
        .map_err(class_error)
}

fn pop(frame: &mut Frame<'_, '_>) -> Flow<Sym> {
    frame
        .stack
        .pop()
        .ok_or_else(|| Stop::Mismatch(format!("operand stack underflow in {}", frame.label)))
}

fn push(frames: &mut [Frame<'_, '_>], value: Sym) {
    frames.last_mut().expect("a frame").stack.push(value);
}

fn load(frame: &mut Frame<'_, '_>, slot: usize) -> Flow<()> {
    let value = frame
        .locals
        .get(slot)
        .cloned()
        .flatten()
        .ok_or_else(|| Stop::Mismatch(format!("local {slot} read before written")))?;
    frame.stack.push(value);
    Ok(())
}

fn store(frame: &mut Frame<'_, '_>, slot: usize) -> Flow<()> {
    let value = pop(frame)?;
    let cell = frame
        .locals
        .get_mut(slot)
        .ok_or_else(|| Stop::Mismatch(format!("local {slot} out of range")))?;
    *cell = Some(value);
    Ok(())
}

fn arithmetic(frame: &mut Frame<'_, '_>, op: u8) -> Flow<()> {
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

fn same_object(left: &ObjectRef, right: &ObjectRef) -> bool {
    left.identity == right.identity && left.class == right.class
}

fn unknown(result: &Option<FieldType<'_>>) -> Option<Sym> {
    result.as_ref().map(unknown_of)
}

fn unknown_of(ty: &FieldType<'_>) -> Sym {
    Sym::Unknown {
        wide: ty.slots() == 2,
    }
}

fn unknown_element(op: u8) -> Sym {
    Sym::Unknown {
        wide: matches!(op, opcode::LALOAD | opcode::DALOAD),
    }
}

/// The value a field has before it is written.
fn default_value(ty: &FieldType<'_>) -> Sym {
    use Primitive as P;
    match ty {
        FieldType::Base(BaseType::Long) => Sym::Prim(P::Long(BV::from_i64(0, 64))),
        FieldType::Base(BaseType::Float) => Sym::Prim(P::Float(Float::from_f32(0.0))),
        FieldType::Base(BaseType::Double) => Sym::Prim(P::Double(Float::from_f64(0.0))),
        FieldType::Base(_) => Sym::int(0),
        _ => Sym::null(),
    }
}

fn array_type_char(code: u8) -> char {
    match code {
        4 => 'Z',
        5 => 'C',
        6 => 'F',
        7 => 'D',
        8 => 'B',
        9 => 'S',
        10 => 'I',
        _ => 'J',
    }
}

/// The z3 sort of a primitive array's elements (ints for the narrow types,
/// as the JVM loads them).
fn primitive_element_sort(class: &str) -> Option<Sort> {
    match class {
        "[I" | "[Z" | "[B" | "[C" | "[S" => Some(Sort::bitvector(32)),
        "[J" => Some(Sort::bitvector(64)),
        "[F" => Some(Sort::float32()),
        "[D" => Some(Sort::double()),
        _ => None,
    }
}

fn zero_of_sort(sort: &Sort) -> z3::ast::Dynamic {
    if *sort == Sort::float32() {
        z3::ast::Dynamic::from_ast(&Float::from_f32(0.0))
    } else if *sort == Sort::double() {
        z3::ast::Dynamic::from_ast(&Float::from_f64(0.0))
    } else if *sort == Sort::bitvector(64) {
        z3::ast::Dynamic::from_ast(&BV::from_i64(0, 64))
    } else {
        z3::ast::Dynamic::from_ast(&BV::from_i64(0, 32))
    }
}

/// The recipe of a `makeConcatWithConstants` call site: its first static
/// bootstrap argument.
fn concat_recipe(class: &ClassFile<'_>, bootstrap: u16) -> Option<Vec<u16>> {
    let Ok(Some(AttributeInfo::BootstrapMethods(methods))) = class.attribute("BootstrapMethods")
    else {
        return None;
    };
    let method = methods.get(usize::from(bootstrap))?;
    let first = *method.arguments.first()?;
    match class.constant_pool.get(first).ok()? {
        Constant::String { string_index } => {
            let text = class.constant_pool.utf8(*string_index).ok()?;
            Some(text.encode_utf16().collect())
        }
        _ => None,
    }
}

/// An element of a `byte`, `char`, `short` or `boolean` array as the JVM
/// loads it. Input arrays hold unconstrained 32-bit cells (the realiser keeps
/// the low bits of whatever the solver picks, and a `true` for any non-zero
/// value), so the load narrows the same way; for stored values it changes
/// nothing, since stores narrow already.
fn narrow_element(class: &str, cell: &BV) -> BV {
    match class {
        "[B" => cell.extract(7, 0).sign_ext(24),
        "[S" => cell.extract(15, 0).sign_ext(16),
        "[C" => cell.extract(15, 0).zero_ext(16),
        "[Z" => cell
            .eq(BV::from_i64(0, 32))
            .ite(&BV::from_i64(0, 32), &BV::from_i64(1, 32)),
        _ => cell.clone(),
    }
}
