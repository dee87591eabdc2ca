//! Objects, fields and arrays on the symbolic heap, and type checks.

use testgen_classfile::descriptor::{BaseType, FieldType};
use testgen_classfile::instruction::{opcode, Instruction, Operands};
use testgen_project::ClassName;
use z3::ast::{Array, Bool, Float, BV};
use z3::Sort;

use super::frames::{pop, Frame};
use super::{class_error, class_operand, mismatch, Access, Control, Flow, Replay};
use crate::arith::Primitive;
use crate::types;
use crate::value::{Elements, HeapObject, Sym, TypeChoice};

impl<'p, 'a> Replay<'p, 'a> {
    pub(super) fn field(
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
    pub(super) fn static_initial(&mut self, class: &str, field: &str, ty: &FieldType<'_>) -> Sym {
        if field == "$assertionsDisabled" {
            // Whether assertions run is the JVM's, as in the tests' JVM.
            let enabled = self
                .options
                .assertions
                .enabled_for(&class.replace('/', "."));
            return Sym::from_bool(&Bool::from_bool(!enabled));
        }
        if field.starts_with("$SwitchMap$") {
            if let Some((enum_class, mapping)) =
                self.program.switch_map(&ClassName::internal(class), field)
            {
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
        if let Some(value) = self.enum_constant(class, field, ty) {
            self.statics
                .insert((class.to_string(), field.to_string()), value.clone());
            return value;
        }
        unknown_of(ty)
    }

    /// `E.C` for a constant `C` of an enum `E` the program has or the JDK
    /// catalogue lists: the constant at its ordinal, so that comparing it
    /// with a constant an input chose is a clause over that choice.
    fn enum_constant(&mut self, class: &str, field: &str, ty: &FieldType<'_>) -> Option<Sym> {
        let FieldType::Object(name) = ty else {
            return None;
        };
        if *name != class {
            return None;
        }
        let enum_class = ClassName::internal(class);
        let mut constants = self.program.enum_constants(&enum_class);
        if constants.is_empty() && self.program.class_named(class).is_none() {
            constants = testgen_construct::jdk::recipes(&enum_class)
                .into_iter()
                .find_map(|recipe| match recipe {
                    testgen_construct::Recipe::Enum { constants, .. } => Some(constants),
                    _ => None,
                })?;
        }
        let ordinal = constants.iter().position(|c| c == field)?;
        Some(self.fresh(HeapObject::EnumConstant {
            class: class.to_string(),
            ordinal: BV::from_i64(ordinal as i64, 32),
            constants,
        }))
    }

    pub(super) fn new_array(
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

    pub(super) fn make_array(&mut self, class: String, length: BV) -> Sym {
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

    pub(super) fn multi_new_array(
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

    pub(super) fn nested_array(&mut self, class: &str, lengths: &[BV]) -> Sym {
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
    pub(super) fn array_access(
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

    pub(super) fn array_load(&mut self, frames: &mut Vec<Frame<'p, 'a>>, op: u8) -> Flow<Control> {
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

    pub(super) fn array_store(&mut self, frames: &mut Vec<Frame<'p, 'a>>, op: u8) -> Flow<Control> {
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

    pub(super) fn type_check(
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
    pub(super) fn instance_of(&self, value: &Sym, of: &str) -> Option<Bool> {
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
                    .filter(|(_, c)| types::is_subtype(self.hierarchy, c, of))
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
                Bool::from_bool(types::is_subtype(self.hierarchy, object.class(), of))
            }
        };
        Some(Bool::and(&[&reference.is_null.not(), &of_type]))
    }
}

pub(super) fn unknown_of(ty: &FieldType<'_>) -> Sym {
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

/// An element of a `byte`, `char`, `short` or `boolean` array as the JVM
/// loads it. Input arrays hold unconstrained 32-bit cells (realising a
/// plan keeps the low bits of whatever the solver picks, and a `true` for any non-zero
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
