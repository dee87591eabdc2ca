//! Which fields a method reads and writes, which methods it calls, and which
//! of its parameters it stores into fields.
//!
//! [`MethodFacts`] is what one method's own code does. [`ClassAccess`] adds
//! the merged view Palus uses (Zhang et al., "Combined Static and Dynamic
//! Automated Test Generation", ISSTA 2011): a method's reads and writes
//! include those of the private methods and constructors of its own class
//! that it calls, transitively, because those callees cannot be overridden
//! and act on the caller's behalf. Calls to any other method (public,
//! protected, package-private, or in another class) are not merged: what they
//! do depends on the receiver's run-time class. It also indexes, per field,
//! the methods that write it and the parameters that flow into it, which is
//! how setters and constructor parameters are found.
//!
//! Field and method references are symbolic, as the bytecode names them:
//! `owner` is the class the compiler qualified the access with (for an
//! inherited field, usually the accessing class, not the declaring one; see
//! [`crate::Hierarchy::field_owner`]).
//!
//! # Parameter flow
//!
//! A parameter flows into a field when the method stores it unchanged, in
//! one of these exact instruction sequences, with no jump target or handler
//! after their first instruction:
//!
//! - `aload_0; xload k; putfield F` in an instance method or constructor:
//!   `this.f = p`;
//! - `xload k; putstatic F`: `F = p`;
//! - a call to a private method or constructor of the same class whose
//!   receiver is `aload_0` (or which is static) and whose arguments are each
//!   one load or constant instruction, such as `this(name, 0)` or
//!   `this.setInternal(value)`: what the callee stores from its parameter
//!   `j` counts as stored from the caller's parameter passed as argument `j`.
//!
//! Slot 0 must never be written in the method (so `aload_0` is `this`), and
//! slot `k` must be a parameter's slot that is never written (so the load
//! yields the argument, not something assigned later). Not recognised:
//! anything computed (`this.name = name.trim()`, `this.items = new
//! ArrayList<>(items)`, `this.x = x == null ? 0 : x`), a parameter copied to
//! another local first, stores into another object (`other.f = p`),
//! arguments that are expressions, and flows through calls to non-private
//! methods.

use std::collections::{BTreeMap, BTreeSet};

use testgen_classfile::instruction::opcode::*;
use testgen_classfile::instruction::{Instruction, Operands};
use testgen_classfile::{
    AccessFlags, ClassFile, Code, Constant, ErrorKind, Member, MethodDescriptor, ParseError,
};

use crate::error::Result;

/// A field as a `getfield`/`putfield`/`getstatic`/`putstatic` names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FieldRef {
    /// Internal name of the qualifying class, e.g. `org/example/Person`.
    pub owner: String,
    pub name: String,
    pub descriptor: String,
}

/// A method as an `invoke*` instruction names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MethodRef {
    pub owner: String,
    pub name: String,
    pub descriptor: String,
}

/// A method of a known class: name and descriptor.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MethodKey {
    pub name: String,
    pub descriptor: String,
}

impl MethodKey {
    pub fn new(name: &str, descriptor: &str) -> Self {
        MethodKey {
            name: name.to_owned(),
            descriptor: descriptor.to_owned(),
        }
    }

    pub fn is_constructor(&self) -> bool {
        self.name == "<init>"
    }
}

/// One field instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldAccess {
    pub offset: u32,
    /// `getfield`, `putfield`, `getstatic` or `putstatic`.
    pub opcode: u8,
    pub field: FieldRef,
}

impl FieldAccess {
    pub fn is_write(&self) -> bool {
        matches!(self.opcode, PUTFIELD | PUTSTATIC)
    }

    pub fn is_static(&self) -> bool {
        matches!(self.opcode, GETSTATIC | PUTSTATIC)
    }
}

/// One `invokevirtual`, `invokespecial`, `invokestatic` or
/// `invokeinterface`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    pub offset: u32,
    pub opcode: u8,
    pub target: MethodRef,
}

/// One `invokedynamic` (lambdas, string concatenation, records' methods):
/// it names no owner, only a bootstrap method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicCallSite {
    pub offset: u32,
    /// Index into the class's BootstrapMethods attribute.
    pub bootstrap_method: u16,
    pub name: String,
    pub descriptor: String,
}

/// A parameter stored unchanged into a field by the method's own code (see
/// the module documentation for the recognised patterns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterStore {
    /// Offset of the `putfield` or `putstatic`.
    pub offset: u32,
    pub field: FieldRef,
    /// Position in the declared parameter list, from 0.
    pub parameter: u16,
    /// The parameter's local variable slot (1 for the first parameter of an
    /// instance method, 0 of a static one).
    pub local: u16,
}

/// A call to a private method or constructor of the same class on `this`
/// (or a static one), with the caller's parameter passed as each argument.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Forwarding {
    callee: MethodKey,
    /// Per callee parameter: the caller's parameter passed there, if the
    /// argument is one.
    arguments: Vec<Option<u16>>,
}

/// What one method's own code does with fields and calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodFacts {
    pub key: MethodKey,
    pub access_flags: AccessFlags,
    /// Field instructions in offset order.
    pub field_accesses: Vec<FieldAccess>,
    /// Call sites in offset order.
    pub calls: Vec<CallSite>,
    pub dynamic_calls: Vec<DynamicCallSite>,
    /// Parameters stored into fields, in offset order.
    pub parameter_stores: Vec<ParameterStore>,
    forwardings: Vec<Forwarding>,
}

impl MethodFacts {
    /// The facts of `method`, one of `class`'s methods. Abstract and native
    /// methods have none.
    pub fn of(class: &ClassFile<'_>, method: &Member<'_>) -> Result<MethodFacts> {
        let name = method.name(class)?;
        let descriptor = method.descriptor(class)?;
        scan(class, method, &name, &descriptor).map_err(|error| error.in_method(&name, &descriptor))
    }

    /// Fields the method's own code reads, sorted.
    pub fn reads(&self) -> BTreeSet<&FieldRef> {
        self.accessed(false)
    }

    /// Fields the method's own code writes, sorted.
    pub fn writes(&self) -> BTreeSet<&FieldRef> {
        self.accessed(true)
    }

    fn accessed(&self, writes: bool) -> BTreeSet<&FieldRef> {
        self.field_accesses
            .iter()
            .filter(|access| access.is_write() == writes)
            .map(|access| &access.field)
            .collect()
    }

    pub fn is_static(&self) -> bool {
        self.access_flags.is_static()
    }
}

/// A method's reads and writes with those of the private methods and
/// constructors of its class that it calls, transitively.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergedAccess {
    pub reads: BTreeSet<FieldRef>,
    pub writes: BTreeSet<FieldRef>,
    /// The private methods and constructors merged in (the method itself
    /// only if it calls itself, directly or not).
    pub callees: BTreeSet<MethodKey>,
    /// (field, parameter position) pairs: the parameter flows into the
    /// field, directly or through a merged callee.
    pub parameter_flows: BTreeSet<(FieldRef, u16)>,
}

/// A method that writes a field, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldWriter {
    pub method: MethodKey,
    pub access_flags: AccessFlags,
    /// Whether the method's own code writes the field (otherwise only a
    /// merged callee does).
    pub directly: bool,
    /// Positions of the parameters that flow into the field, ascending.
    pub parameters: Vec<u16>,
}

/// Field and call facts of every method of one class, merged as Palus does,
/// and the index of field writers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassAccess {
    pub class_name: String,
    /// In class-file order.
    methods: Vec<MethodFacts>,
    /// Parallel to `methods`.
    merged: Vec<MergedAccess>,
    by_key: BTreeMap<MethodKey, usize>,
    writers: BTreeMap<FieldRef, Vec<FieldWriter>>,
}

impl ClassAccess {
    pub fn of(class: &ClassFile<'_>) -> Result<ClassAccess> {
        let class_name = class.name()?.into_owned();
        let methods = class
            .methods
            .iter()
            .map(|method| MethodFacts::of(class, method))
            .collect::<Result<Vec<_>>>()?;
        let mut by_key = BTreeMap::new();
        for (index, facts) in methods.iter().enumerate() {
            // A valid class has no two methods with one key; keep the first.
            by_key.entry(facts.key.clone()).or_insert(index);
        }
        let merged = merge(&class_name, &methods, &by_key);
        let writers = index_writers(&methods, &merged);
        Ok(ClassAccess {
            class_name,
            methods,
            merged,
            by_key,
            writers,
        })
    }

    /// Every method's own facts, in class-file order.
    pub fn methods(&self) -> &[MethodFacts] {
        &self.methods
    }

    pub fn method(&self, name: &str, descriptor: &str) -> Option<&MethodFacts> {
        self.index(name, descriptor)
            .map(|index| &self.methods[index])
    }

    /// The merged view of a method (see the module documentation).
    pub fn merged(&self, name: &str, descriptor: &str) -> Option<&MergedAccess> {
        self.index(name, descriptor)
            .map(|index| &self.merged[index])
    }

    /// The methods and constructors of this class that write `field`
    /// (directly or through a merged callee), in class-file order.
    pub fn writers_of(&self, field: &FieldRef) -> &[FieldWriter] {
        self.writers.get(field).map_or(&[], Vec::as_slice)
    }

    /// Every field written by some method of the class, with its writers,
    /// sorted by field.
    pub fn written_fields(&self) -> impl Iterator<Item = (&FieldRef, &[FieldWriter])> + '_ {
        self.writers
            .iter()
            .map(|(field, writers)| (field, writers.as_slice()))
    }

    fn index(&self, name: &str, descriptor: &str) -> Option<usize> {
        self.by_key.get(&MethodKey::new(name, descriptor)).copied()
    }
}

/// Reads one method's code.
fn scan(
    class: &ClassFile<'_>,
    method: &Member<'_>,
    name: &str,
    descriptor: &str,
) -> Result<MethodFacts> {
    let mut facts = MethodFacts {
        key: MethodKey::new(name, descriptor),
        access_flags: method.access_flags,
        field_accesses: Vec::new(),
        calls: Vec::new(),
        dynamic_calls: Vec::new(),
        parameter_stores: Vec::new(),
        forwardings: Vec::new(),
    };
    let Some(code) = method.code(class)? else {
        return Ok(facts);
    };
    let instructions = code.instructions().collect::<Result<Vec<_>, _>>()?;
    let parsed = MethodDescriptor::parse(descriptor).map_err(|kind| {
        let at = class.constant_pool.offset_of(method.descriptor_index);
        ParseError::new(at, kind)
    })?;
    let is_static = method.access_flags.is_static();
    let parameters = ParameterSlots::new(&parsed, is_static, &instructions);
    let class_name = class.name()?;

    // Instructions where control may arrive from elsewhere: a pattern must
    // not span one, or the values on the stack could come from another path.
    let joins = join_offsets(&code, &instructions);
    let is_join = |instruction: &Instruction<'_>| joins.binary_search(&instruction.offset).is_ok();
    // The instruction `back` places before `index`, if no join lies between.
    let before = |index: usize, back: usize| -> Option<&Instruction<'_>> {
        let first = index.checked_sub(back)?;
        if instructions[first + 1..=index].iter().any(is_join) {
            return None;
        }
        Some(&instructions[first])
    };

    for (index, instruction) in instructions.iter().enumerate() {
        match (instruction.opcode, instruction.operands) {
            (GETFIELD | PUTFIELD | GETSTATIC | PUTSTATIC, Operands::Constant(pool_index)) => {
                let reference = class.constant_pool.member_ref(pool_index)?;
                let field = FieldRef {
                    owner: reference.class.into_owned(),
                    name: reference.name.into_owned(),
                    descriptor: reference.descriptor.into_owned(),
                };
                let stored = match instruction.opcode {
                    PUTFIELD if !is_static && parameters.this_is_intact => before(index, 2)
                        .filter(|receiver| receiver.opcode == ALOAD_0)
                        .and_then(|_| before(index, 1)),
                    PUTSTATIC => before(index, 1),
                    _ => None,
                };
                if let Some((local, parameter)) = stored.and_then(|load| parameters.loaded(load)) {
                    facts.parameter_stores.push(ParameterStore {
                        offset: instruction.offset,
                        field: field.clone(),
                        parameter,
                        local,
                    });
                }
                facts.field_accesses.push(FieldAccess {
                    offset: instruction.offset,
                    opcode: instruction.opcode,
                    field,
                });
            }
            (
                INVOKEVIRTUAL | INVOKESPECIAL | INVOKESTATIC | INVOKEINTERFACE,
                Operands::Constant(pool_index)
                | Operands::InvokeInterface {
                    index: pool_index, ..
                },
            ) => {
                let reference = class.constant_pool.member_ref(pool_index)?;
                let target = MethodRef {
                    owner: reference.class.into_owned(),
                    name: reference.name.into_owned(),
                    descriptor: reference.descriptor.into_owned(),
                };
                if target.owner == class_name {
                    let arguments = forwarded_arguments(
                        instruction.opcode == INVOKESTATIC,
                        &target.descriptor,
                        &parameters,
                        |back| before(index, back),
                    );
                    if let Some(arguments) = arguments {
                        facts.forwardings.push(Forwarding {
                            callee: MethodKey::new(&target.name, &target.descriptor),
                            arguments,
                        });
                    }
                }
                facts.calls.push(CallSite {
                    offset: instruction.offset,
                    opcode: instruction.opcode,
                    target,
                });
            }
            (INVOKEDYNAMIC, Operands::InvokeDynamic { index: pool_index }) => {
                let Constant::InvokeDynamic {
                    bootstrap_method_attr_index,
                    name_and_type_index,
                } = *class.constant_pool.get(pool_index)?
                else {
                    let at = code.bytecode_offset + instruction.offset as usize;
                    let kind = ErrorKind::Invalid("invokedynamic names no InvokeDynamic constant");
                    return Err(ParseError::new(at, kind).into());
                };
                let (name, descriptor) = class.constant_pool.name_and_type(name_and_type_index)?;
                facts.dynamic_calls.push(DynamicCallSite {
                    offset: instruction.offset,
                    bootstrap_method: bootstrap_method_attr_index,
                    name: name.into_owned(),
                    descriptor: descriptor.into_owned(),
                });
            }
            _ => {}
        }
    }
    Ok(facts)
}

/// For a call on `this` (or a static call) whose arguments are each a single
/// load or constant, the caller's parameter passed as each argument. `None`
/// when the call does not have that shape. `before(n)` is the instruction
/// `n` places before the call, if no join intervenes.
fn forwarded_arguments<'i>(
    is_static_call: bool,
    descriptor: &str,
    parameters: &ParameterSlots,
    before: impl Fn(usize) -> Option<&'i Instruction<'i>>,
) -> Option<Vec<Option<u16>>> {
    let count = MethodDescriptor::parse(descriptor).ok()?.parameters.len();
    if !is_static_call {
        let receiver = before(count + 1)?;
        if receiver.opcode != ALOAD_0 || parameters.is_static || !parameters.this_is_intact {
            return None;
        }
    }
    (1..=count)
        .rev()
        .map(|back| {
            let argument = before(back)?;
            if let Some(loaded) = load_slot(argument) {
                return Some(parameters.parameter_at(loaded));
            }
            is_constant(argument.opcode).then_some(None)
        })
        .collect()
}

/// Which local slots hold which parameters, and which of them the method
/// never overwrites.
struct ParameterSlots {
    is_static: bool,
    /// Per slot: the parameter starting there, if the method never writes
    /// either of its slots.
    intact: Vec<Option<u16>>,
    /// Whether slot 0 of an instance method is never written.
    this_is_intact: bool,
}

impl ParameterSlots {
    fn new(descriptor: &MethodDescriptor<'_>, is_static: bool, code: &[Instruction<'_>]) -> Self {
        let first = usize::from(!is_static);
        let slots = first + descriptor.parameter_slots();
        // Per slot: the parameter occupying it (both halves of a long).
        let mut occupant = vec![None; slots];
        let mut starts = Vec::with_capacity(descriptor.parameters.len());
        let mut slot = first;
        for (position, parameter) in descriptor.parameters.iter().enumerate() {
            starts.push(slot);
            let width = usize::from(parameter.slots());
            occupant[slot..slot + width].fill(Some(position));
            slot += width;
        }
        let mut clobbered = vec![false; descriptor.parameters.len()];
        let mut this_is_intact = !is_static;
        for instruction in code {
            let Some(written) = store_slot(instruction) else {
                continue;
            };
            let written = usize::from(written);
            let wide_value = matches!(instruction.opcode, LSTORE | DSTORE | LSTORE_0..=DSTORE_3);
            for half in written..=written + usize::from(wide_value) {
                if let Some(Some(position)) = occupant.get(half) {
                    clobbered[*position] = true;
                }
            }
            if written == 0 {
                this_is_intact = false;
            }
        }
        let mut intact = vec![None; slots];
        for (position, &start) in starts.iter().enumerate() {
            if !clobbered[position] {
                intact[start] = u16::try_from(position).ok();
            }
        }
        ParameterSlots {
            is_static,
            intact,
            this_is_intact,
        }
    }

    /// The intact parameter whose value `slot` holds.
    fn parameter_at(&self, slot: u16) -> Option<u16> {
        self.intact.get(usize::from(slot)).copied().flatten()
    }

    /// (slot, parameter) if `instruction` loads an intact parameter.
    fn loaded(&self, instruction: &Instruction<'_>) -> Option<(u16, u16)> {
        let slot = load_slot(instruction)?;
        Some((slot, self.parameter_at(slot)?))
    }
}

/// The offsets where control may arrive other than by falling through
/// (jump and switch targets, exception handlers), sorted: the values on
/// the stack there may come from several paths.
pub(crate) fn join_offsets(code: &Code<'_>, instructions: &[Instruction<'_>]) -> Vec<u32> {
    let mut joins: Vec<u32> = instructions
        .iter()
        .flat_map(|instruction| instruction.branch_targets())
        .filter_map(|target| u32::try_from(target).ok())
        .chain(code.exception_table.iter().map(|h| u32::from(h.handler_pc)))
        .collect();
    joins.sort_unstable();
    joins.dedup();
    joins
}

/// The slot an `xload` reads.
pub(crate) fn load_slot(instruction: &Instruction<'_>) -> Option<u16> {
    match (instruction.opcode, instruction.operands) {
        (ILOAD..=ALOAD, Operands::Local(slot)) => Some(slot),
        (op @ ILOAD_0..=ALOAD_3, _) => Some(u16::from((op - ILOAD_0) % 4)),
        _ => None,
    }
}

/// The slot an `xstore` or `iinc` writes.
pub(crate) fn store_slot(instruction: &Instruction<'_>) -> Option<u16> {
    match (instruction.opcode, instruction.operands) {
        (ISTORE..=ASTORE, Operands::Local(slot)) => Some(slot),
        (_, Operands::Iinc { index, .. }) => Some(index),
        (op @ ISTORE_0..=ASTORE_3, _) => Some(u16::from((op - ISTORE_0) % 4)),
        _ => None,
    }
}

/// Instructions that push one constant and read nothing.
fn is_constant(op: u8) -> bool {
    matches!(
        op,
        ACONST_NULL..=DCONST_1 | BIPUSH | SIPUSH | LDC | LDC_W | LDC2_W
    )
}

/// A mergeable callee's index and the caller's parameter passed as each of
/// its arguments.
type CalleeArguments<'f> = (usize, &'f [Option<u16>]);

/// The merged view of every method: a fixpoint over the calls to private
/// methods and constructors of the class (recursion is fine: sets only grow).
fn merge(
    class_name: &str,
    methods: &[MethodFacts],
    by_key: &BTreeMap<MethodKey, usize>,
) -> Vec<MergedAccess> {
    let mergeable = |target: &MethodRef| -> Option<usize> {
        if target.owner != class_name {
            return None;
        }
        let index = *by_key.get(&MethodKey::new(&target.name, &target.descriptor))?;
        let callee = &methods[index];
        let private = callee.access_flags.contains(AccessFlags::PRIVATE);
        (private || callee.key.is_constructor()).then_some(index)
    };
    // Per method: the mergeable callees.
    let callees: Vec<BTreeSet<usize>> = methods
        .iter()
        .map(|facts| {
            facts
                .calls
                .iter()
                .filter_map(|call| mergeable(&call.target))
                .collect()
        })
        .collect();
    // Per method: (callee index, arguments) of its forwarding calls.
    let forwardings: Vec<Vec<CalleeArguments<'_>>> = methods
        .iter()
        .zip(&callees)
        .map(|(facts, callees)| {
            facts
                .forwardings
                .iter()
                .filter_map(|f| Some((*by_key.get(&f.callee)?, f.arguments.as_slice())))
                .filter(|(callee, _)| callees.contains(callee))
                .collect()
        })
        .collect();

    let mut merged: Vec<MergedAccess> = methods
        .iter()
        .map(|facts| MergedAccess {
            reads: facts.reads().into_iter().cloned().collect(),
            writes: facts.writes().into_iter().cloned().collect(),
            callees: BTreeSet::new(),
            parameter_flows: facts
                .parameter_stores
                .iter()
                .map(|store| (store.field.clone(), store.parameter))
                .collect(),
        })
        .collect();

    let mut changed = true;
    while changed {
        changed = false;
        for index in 0..methods.len() {
            let mut update = MergedAccess::default();
            for &callee in &callees[index] {
                let from = &merged[callee];
                update.callees.insert(methods[callee].key.clone());
                update.callees.extend(from.callees.iter().cloned());
                update.reads.extend(from.reads.iter().cloned());
                update.writes.extend(from.writes.iter().cloned());
            }
            for &(callee, arguments) in &forwardings[index] {
                for (field, parameter) in &merged[callee].parameter_flows {
                    if let Some(Some(passed)) = arguments.get(usize::from(*parameter)) {
                        update.parameter_flows.insert((field.clone(), *passed));
                    }
                }
            }
            let current = &mut merged[index];
            changed |= grow(&mut current.reads, update.reads);
            changed |= grow(&mut current.writes, update.writes);
            changed |= grow(&mut current.callees, update.callees);
            changed |= grow(&mut current.parameter_flows, update.parameter_flows);
        }
    }
    merged
}

/// Adds `more` to `set`; whether anything was new.
fn grow<T: Ord>(set: &mut BTreeSet<T>, more: BTreeSet<T>) -> bool {
    let before = set.len();
    set.extend(more);
    set.len() != before
}

/// Field -> the methods writing it, from the merged view.
fn index_writers(
    methods: &[MethodFacts],
    merged: &[MergedAccess],
) -> BTreeMap<FieldRef, Vec<FieldWriter>> {
    let mut writers: BTreeMap<FieldRef, Vec<FieldWriter>> = BTreeMap::new();
    for (facts, merged) in methods.iter().zip(merged) {
        let own = facts.writes();
        for field in &merged.writes {
            let parameters = merged
                .parameter_flows
                .iter()
                .filter(|(flowing, _)| flowing == field)
                .map(|&(_, parameter)| parameter)
                .collect();
            writers.entry(field.clone()).or_default().push(FieldWriter {
                method: facts.key.clone(),
                access_flags: facts.access_flags,
                directly: own.contains(field),
                parameters,
            });
        }
    }
    writers
}
