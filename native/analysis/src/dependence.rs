//! Where the values a branch tests come from: the data dependence of a
//! branch's operands within one method, as Covana uses it to explain why a
//! branch stayed uncovered (Xiao et al., "Precise Identification of
//! Problems for Structural Test Generation", ICSE 2011): a value returned
//! by a call outside the program, or a field of an object, several reads
//! deep.
//!
//! The analysis follows the operand stack backwards through straight-line
//! code and locals through their stores. It loses the value (with
//! [`Origin::Lost`]) where values meet from several paths (a jump target or
//! handler lies between producer and branch), at stack shuffles whose
//! meaning depends on value sizes (`dup2`, `pop2`, ...), and at a bound on
//! the origins it builds, so its work is linear in the method.

use std::collections::BTreeSet;

use testgen_classfile::instruction::opcode::*;
use testgen_classfile::instruction::{Instruction, Operands};
use testgen_classfile::{ClassFile, Constant, Member, MethodDescriptor};

use crate::access::{join_offsets, load_slot, store_slot, FieldRef, MethodRef};
use crate::error::Result;

/// Where a value comes from, as far as one method's code shows.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Origin {
    /// `this`, in an instance method that never overwrites it.
    This,
    /// A parameter, by position from 0 (`this` not counted).
    Parameter(u16),
    /// A constant (`iconst`, `ldc`, `aconst_null`).
    Constant,
    /// What a call returned, with the origins of its receiver (`None` for
    /// a static call) and arguments.
    Call {
        offset: u32,
        method: MethodRef,
        receiver: Option<Box<Origin>>,
        arguments: Vec<Origin>,
    },
    /// A field's value, read from the object `object` comes from (`None`
    /// for a static field).
    Field {
        offset: u32,
        field: FieldRef,
        object: Option<Box<Origin>>,
    },
    /// A new object or array.
    New { offset: u32 },
    /// Computed from these (arithmetic, comparisons, array elements,
    /// `instanceof`, a value stored in a local by several stores).
    Computed(Vec<Origin>),
    /// A local's own earlier value (a loop counter's store reads the
    /// counter), whose other stores are followed where the local is.
    Unknown,
    /// The trace lost the value: it meets from several paths here, comes
    /// from an instruction not followed, or lies beyond the bound. It may
    /// come from anywhere.
    Lost,
}

impl Origin {
    /// Every origin in this one, itself first, depth first.
    pub fn walk(&self) -> Vec<&Origin> {
        let mut out = Vec::new();
        let mut pending = vec![self];
        while let Some(origin) = pending.pop() {
            out.push(origin);
            match origin {
                Origin::Call {
                    receiver,
                    arguments,
                    ..
                } => {
                    pending.extend(arguments.iter().rev());
                    pending.extend(receiver.as_deref());
                }
                Origin::Field {
                    object: Some(object),
                    ..
                } => pending.push(object),
                Origin::Computed(parts) => pending.extend(parts.iter().rev()),
                _ => {}
            }
        }
        out
    }
}

/// Origins built per question at most: enough for any condition a person
/// writes, and a bound on the work for generated code.
const MAX_ORIGINS: usize = 256;

/// The origins of the values the branch or switch at `offset` in `method`
/// tests: one for `ifeq`-like jumps, `ifnull`, `ifnonnull` and switches,
/// two for `if_icmp`/`if_acmp` (first operand first). Empty when `offset`
/// is no such instruction or the method has no code.
pub fn branch_operands(
    class: &ClassFile<'_>,
    method: &Member<'_>,
    offset: u32,
) -> Result<Vec<Origin>> {
    operands_where(class, method, offset, |opcode| {
        matches!(
            opcode,
            IFEQ..=IF_ACMPNE | IFNULL | IFNONNULL | TABLESWITCH | LOOKUPSWITCH
        )
    })
}

/// The origins of every value the instruction at `offset` takes from the
/// stack (first pushed first): an array access's array and index, a
/// call's receiver and arguments, a division's operands. Empty for an
/// instruction whose stack effect depends on value sizes, and for none.
pub fn popped(class: &ClassFile<'_>, method: &Member<'_>, offset: u32) -> Result<Vec<Origin>> {
    operands_where(class, method, offset, |_| true)
}

/// The origins of what the instruction at `offset` pops, if `wanted`
/// accepts its opcode.
fn operands_where(
    class: &ClassFile<'_>,
    method: &Member<'_>,
    offset: u32,
    wanted: impl Fn(u8) -> bool,
) -> Result<Vec<Origin>> {
    let Some(code) = method.code(class)? else {
        return Ok(Vec::new());
    };
    let instructions = code
        .instructions()
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let Ok(index) = instructions.binary_search_by_key(&offset, |i| i.offset) else {
        return Ok(Vec::new());
    };
    if !wanted(instructions[index].opcode) {
        return Ok(Vec::new());
    }
    let descriptor = method.descriptor(class)?;
    let is_static = method.access_flags.is_static();
    let mut tracer = Tracer {
        class,
        instructions: &instructions,
        joins: join_offsets(&code, &instructions),
        parameters: parameter_slots(&descriptor, is_static),
        is_static,
        built: 0,
        following: BTreeSet::new(),
    };
    let pops = match tracer.effect(index) {
        Effect::Consumes(pops) | Effect::Makes { pops, .. } => pops,
        Effect::Moves(_) => 0,
        // A jump or switch pops what it tests; a return or throw what it
        // hands on.
        Effect::Opaque => match instructions[index].opcode {
            TABLESWITCH | LOOKUPSWITCH | IRETURN..=ARETURN | ATHROW => 1,
            _ => 0,
        },
    };
    Ok((0..pops)
        .map(|k| tracer.value_before(index, pops - 1 - k))
        .collect())
}

/// Per local slot, the parameter it holds on entry (`None` for `this`,
/// the second half of a wide value, and locals after the parameters).
fn parameter_slots(descriptor: &str, is_static: bool) -> Vec<Option<u16>> {
    let Ok(parsed) = MethodDescriptor::parse(descriptor) else {
        return Vec::new();
    };
    let mut slots = if is_static { Vec::new() } else { vec![None] };
    for (position, parameter) in parsed.parameters.iter().enumerate() {
        slots.push(u16::try_from(position).ok());
        if parameter.slots() == 2 {
            slots.push(None);
        }
    }
    slots
}

/// What an instruction does to the operand stack, counted in values (a
/// `long` is one value), and what the value it pushes is.
enum Effect {
    /// Pops this many values and pushes nothing.
    Consumes(usize),
    /// Pops `pops` values and pushes one, made as `Made` says.
    Makes { pops: usize, made: Made },
    /// Moves values without making new ones (`dup`, `dup_x1`, `swap`):
    /// the depth before it of the value at a depth after it.
    Moves(fn(usize) -> usize),
    /// Control does not fall through, or the effect depends on value
    /// sizes: nothing before it can be followed.
    Opaque,
}

enum Made {
    Constant,
    Load(u16),
    /// A call's result; whether it has a receiver.
    Call(MethodRef, bool),
    Field(FieldRef, bool),
    New,
    /// The same value as the one popped (casts, conversions).
    Same,
    Computed,
}

struct Tracer<'t, 'c> {
    class: &'t ClassFile<'c>,
    instructions: &'t [Instruction<'t>],
    joins: Vec<u32>,
    parameters: Vec<Option<u16>>,
    is_static: bool,
    /// Origins built so far, against [`MAX_ORIGINS`].
    built: usize,
    /// Locals being followed through their stores (a loop counter's store
    /// reads the counter itself).
    following: BTreeSet<u16>,
}

impl Tracer<'_, '_> {
    /// The value `depth` places below the top of the stack just before the
    /// instruction at `index` runs.
    fn value_before(&mut self, index: usize, mut depth: usize) -> Origin {
        let mut at = index;
        loop {
            self.built += 1;
            if self.built > MAX_ORIGINS || at == 0 || self.is_join(at) {
                return Origin::Lost;
            }
            at -= 1;
            let (pops, made) = match self.effect(at) {
                Effect::Opaque => return Origin::Lost,
                Effect::Consumes(pops) => {
                    depth += pops;
                    continue;
                }
                Effect::Moves(before) => {
                    depth = before(depth);
                    continue;
                }
                Effect::Makes { pops, made } => (pops, made),
            };
            if depth > 0 {
                depth = depth - 1 + pops;
                continue;
            }
            return self.made(at, pops, made);
        }
    }

    /// The origin of the value the instruction at `at` pushed.
    fn made(&mut self, at: usize, pops: usize, made: Made) -> Origin {
        let offset = self.instructions[at].offset;
        match made {
            Made::Constant => Origin::Constant,
            Made::New => Origin::New { offset },
            Made::Same => self.value_before(at, 0),
            Made::Computed => Origin::Computed(self.inputs(at, pops)),
            Made::Call(method, has_receiver) => {
                let mut arguments = self.inputs(at, pops);
                let receiver =
                    (has_receiver && !arguments.is_empty()).then(|| Box::new(arguments.remove(0)));
                Origin::Call {
                    offset,
                    method,
                    receiver,
                    arguments,
                }
            }
            Made::Field(field, has_object) => Origin::Field {
                offset,
                field,
                object: has_object.then(|| Box::new(self.value_before(at, 0))),
            },
            Made::Load(slot) => self.local(slot),
        }
    }

    /// The origins of the `pops` values the instruction at `at` pops, the
    /// first pushed first.
    fn inputs(&mut self, at: usize, pops: usize) -> Vec<Origin> {
        (0..pops)
            .map(|k| self.value_before(at, pops - 1 - k))
            .collect()
    }

    /// What a local holds wherever it is read: its parameter (or `this`)
    /// if it is one, and the values of every store to it.
    fn local(&mut self, slot: u16) -> Origin {
        if !self.following.insert(slot) {
            return Origin::Unknown;
        }
        let stores: Vec<usize> = (0..self.instructions.len())
            .filter(|&i| store_slot(&self.instructions[i]) == Some(slot))
            .collect();
        let mut parts = Vec::new();
        if !self.is_static && slot == 0 {
            parts.push(Origin::This);
        } else if let Some(Some(position)) = self.parameters.get(usize::from(slot)) {
            parts.push(Origin::Parameter(*position));
        }
        for store in stores {
            parts.push(match self.instructions[store].operands {
                // `iinc`: the local's old value, changed.
                Operands::Iinc { .. } => Origin::Computed(vec![Origin::Unknown]),
                _ => self.value_before(store, 0),
            });
        }
        self.following.remove(&slot);
        match parts.len() {
            0 => Origin::Lost,
            1 => parts.pop().expect("one part"),
            _ => Origin::Computed(parts),
        }
    }

    fn is_join(&self, index: usize) -> bool {
        self.joins
            .binary_search(&self.instructions[index].offset)
            .is_ok()
    }

    fn effect(&self, at: usize) -> Effect {
        let instruction = &self.instructions[at];
        let pool = &self.class.constant_pool;
        let member = |index: u16| {
            pool.member_ref(index).ok().map(|reference| MethodRef {
                owner: reference.class.into_owned(),
                name: reference.name.into_owned(),
                descriptor: reference.descriptor.into_owned(),
            })
        };
        let makes = |pops: usize, made: Made| Effect::Makes { pops, made };
        match (instruction.opcode, instruction.operands) {
            (NOP | IINC, _) => Effect::Consumes(0),
            (ACONST_NULL..=DCONST_1 | BIPUSH | SIPUSH | LDC | LDC_W | LDC2_W, _) => {
                makes(0, Made::Constant)
            }
            (ILOAD..=ALOAD | ILOAD_0..=ALOAD_3, _) => match load_slot(instruction) {
                Some(slot) => makes(0, Made::Load(slot)),
                None => Effect::Opaque,
            },
            (IALOAD..=SALOAD, _) => makes(2, Made::Computed),
            (ISTORE..=ASTORE | ISTORE_0..=ASTORE_3 | POP, _) => Effect::Consumes(1),
            (IASTORE..=SASTORE, _) => Effect::Consumes(3),
            // Before [.. v], after [.. v v].
            (DUP, _) => Effect::Moves(|depth| depth.saturating_sub(1)),
            // Before [.. b a], after [.. a b a] (one-slot values only).
            (DUP_X1, _) => Effect::Moves(|depth| match depth {
                0 | 2 => 0,
                1 => 1,
                n => n - 1,
            }),
            // Before [.. b a], after [.. a b] (one-slot values only).
            (SWAP, _) => Effect::Moves(|depth| match depth {
                0 => 1,
                1 => 0,
                n => n,
            }),
            (IADD..=DREM | ISHL..=LXOR | LCMP..=DCMPG, _) => makes(2, Made::Computed),
            (INEG..=DNEG | ARRAYLENGTH | INSTANCEOF, _) => makes(1, Made::Computed),
            (I2L..=I2S | CHECKCAST, _) => makes(1, Made::Same),
            (IFEQ..=IFLE | IFNULL | IFNONNULL | MONITORENTER | MONITOREXIT, _) => {
                Effect::Consumes(1)
            }
            (IF_ICMPEQ..=IF_ACMPNE, _) => Effect::Consumes(2),
            (GETSTATIC | GETFIELD, Operands::Constant(index)) => match member(index) {
                Some(reference) => {
                    let has_object = instruction.opcode == GETFIELD;
                    let field = FieldRef {
                        owner: reference.owner,
                        name: reference.name,
                        descriptor: reference.descriptor,
                    };
                    makes(usize::from(has_object), Made::Field(field, has_object))
                }
                None => Effect::Opaque,
            },
            (PUTSTATIC, _) => Effect::Consumes(1),
            (PUTFIELD, _) => Effect::Consumes(2),
            (
                INVOKEVIRTUAL | INVOKESPECIAL | INVOKESTATIC | INVOKEINTERFACE,
                Operands::Constant(index) | Operands::InvokeInterface { index, .. },
            ) => {
                let Some(method) = member(index) else {
                    return Effect::Opaque;
                };
                let Ok(parsed) = MethodDescriptor::parse(&method.descriptor) else {
                    return Effect::Opaque;
                };
                let has_receiver = instruction.opcode != INVOKESTATIC;
                let pops = parsed.parameters.len() + usize::from(has_receiver);
                if parsed.return_type.is_none() {
                    Effect::Consumes(pops)
                } else {
                    makes(pops, Made::Call(method, has_receiver))
                }
            }
            (INVOKEDYNAMIC, Operands::InvokeDynamic { index }) => {
                // String concatenation, a lambda: computed from its
                // arguments, whatever the bootstrap does.
                let Ok(Constant::InvokeDynamic {
                    name_and_type_index,
                    ..
                }) = pool.get(index)
                else {
                    return Effect::Opaque;
                };
                let Ok((_, descriptor)) = pool.name_and_type(*name_and_type_index) else {
                    return Effect::Opaque;
                };
                let Ok(parsed) = MethodDescriptor::parse(&descriptor) else {
                    return Effect::Opaque;
                };
                if parsed.return_type.is_none() {
                    Effect::Consumes(parsed.parameters.len())
                } else {
                    makes(parsed.parameters.len(), Made::Computed)
                }
            }
            (NEW, _) => makes(0, Made::New),
            (NEWARRAY | ANEWARRAY, _) => makes(1, Made::New),
            (MULTIANEWARRAY, Operands::MultiANewArray { dimensions, .. }) => {
                makes(usize::from(dimensions), Made::New)
            }
            // Stack shuffles by size, jumps, returns, throws.
            _ => Effect::Opaque,
        }
    }
}
