//! Symbolic values and the symbolic heap the interpreter works on.
//!
//! Primitives are z3 terms ([`Primitive`]). A reference is the heap object
//! it points to in the run being replayed (or none when it was null there)
//! together with two terms: whether it is null and its identity, so that
//! `ifnull` and `if_acmp` give clauses over the inputs. Strings are z3
//! sequences of 16-bit characters (Java's UTF-16 code units), so `charAt`
//! and `length` are exact for any content.

use std::collections::BTreeMap;
use testgen_project::MethodId;

use z3::ast::{Array, Ast, AstKind, Bool, Int, Seq, BV};
use z3::DeclKind;
use z3::Sort;

use crate::arith::{Condition, Primitive};

/// A value on the operand stack, in a local or in a field.
#[derive(Clone, Debug)]
pub enum Sym {
    Prim(Primitive),
    Ref(Reference),
    /// Not modelled (a value the interpreter cannot follow); `wide` for
    /// long and double.
    Unknown {
        wide: bool,
    },
}

impl Sym {
    pub fn is_wide(&self) -> bool {
        match self {
            Sym::Prim(Primitive::Long(_) | Primitive::Double(_)) => true,
            Sym::Unknown { wide } => *wide,
            _ => false,
        }
    }

    pub fn int(value: i64) -> Sym {
        Sym::Prim(Primitive::Int(BV::from_i64(value, 32)))
    }

    pub fn as_int(&self) -> Option<&BV> {
        match self {
            Sym::Prim(Primitive::Int(v)) => Some(v),
            _ => None,
        }
    }

    pub fn as_ref(&self) -> Option<&Reference> {
        match self {
            Sym::Ref(r) => Some(r),
            _ => None,
        }
    }

    /// `1` or `0` for a condition, as the JVM pushes booleans.
    pub fn from_bool(condition: &Bool) -> Sym {
        Sym::Prim(Primitive::Int(
            condition.ite(&BV::from_i64(1, 32), &BV::from_i64(0, 32)),
        ))
    }

    pub fn null() -> Sym {
        Sym::Ref(Reference::null())
    }
}

pub type ObjId = usize;

#[derive(Clone, Debug)]
pub struct Reference {
    /// The object in this run; `None` when the reference was null.
    pub object: Option<ObjId>,
    /// Whether the reference is null, over the inputs.
    pub is_null: Bool,
    /// The object's identity over the inputs (meaningful when not null):
    /// inputs that may alias share a term, fresh objects get constants.
    pub address: BV,
}

impl Reference {
    pub fn null() -> Reference {
        Reference {
            object: None,
            is_null: Bool::from_bool(true),
            address: BV::from_u64(0, ADDRESS_BITS),
        }
    }

    /// A reference that is certainly not null.
    pub fn to(object: ObjId, address: u64) -> Reference {
        Reference {
            object: Some(object),
            is_null: Bool::from_bool(false),
            address: BV::from_u64(address, ADDRESS_BITS),
        }
    }

    /// Whether the reference may be null under some inputs (its nullness
    /// is not a constant).
    pub fn nullness_varies(&self) -> bool {
        self.is_null.simplify().as_bool().is_none()
    }

    /// `this == other` as a condition.
    pub fn same_as(&self, other: &Reference) -> Bool {
        let both_null = Bool::and(&[&self.is_null, &other.is_null]);
        let same_object = Bool::and(&[
            &self.is_null.not(),
            &other.is_null.not(),
            &self.address.eq(&other.address),
        ]);
        Bool::or(&[&both_null, &same_object])
    }
}

pub const ADDRESS_BITS: u32 = 16;

/// A type chosen by the inputs: the object is the `var`-th candidate.
#[derive(Clone, Debug)]
pub struct TypeChoice {
    pub var: BV,
    /// Internal names of the classes the inputs could have chosen.
    pub candidates: Vec<String>,
}

#[derive(Clone, Debug)]
pub enum HeapObject {
    Instance {
        class: String,
        fields: BTreeMap<String, Sym>,
        choice: Option<TypeChoice>,
    },
    /// A `java.lang.String`.
    Str {
        chars: Seq,
        choice: Option<TypeChoice>,
    },
    /// A `java.lang.StringBuilder`: its contents so far.
    Builder { chars: Seq },
    Array {
        /// The array's descriptor, e.g. `[I`.
        class: String,
        length: BV,
        elements: Elements,
    },
    /// A boxed primitive such as `java.lang.Integer`.
    Boxed {
        class: String,
        value: Primitive,
        choice: Option<TypeChoice>,
    },
    /// An enum constant chosen by an input (`ordinal` over the inputs).
    EnumConstant {
        class: String,
        ordinal: BV,
        constants: Vec<String>,
    },
    /// An object the interpreter knows only the class of.
    Opaque { class: String },
    /// A lambda an input chose: its interface's `method` returns `result`
    /// (nothing for a void method) whatever its arguments.
    Lambda {
        interface: String,
        method: MethodId,
        result: Option<Sym>,
    },
}

impl HeapObject {
    pub fn class(&self) -> &str {
        match self {
            HeapObject::Instance { class, .. }
            | HeapObject::Array { class, .. }
            | HeapObject::Boxed { class, .. }
            | HeapObject::EnumConstant { class, .. }
            | HeapObject::Opaque { class }
            | HeapObject::Lambda {
                interface: class, ..
            } => class,
            HeapObject::Str { .. } => "java/lang/String",
            HeapObject::Builder { .. } => "java/lang/StringBuilder",
        }
    }

    pub fn choice(&self) -> Option<&TypeChoice> {
        match self {
            HeapObject::Instance { choice, .. }
            | HeapObject::Str { choice, .. }
            | HeapObject::Boxed { choice, .. } => choice.as_ref(),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Elements {
    /// Primitive elements as a z3 array from int index to element.
    Symbolic(Array),
    /// Reference elements, one per index (the length is concrete).
    References(Vec<Sym>),
}

/// The sort of a Java `char`.
pub fn char_sort() -> Sort {
    Sort::bitvector(16)
}

pub fn string_sort() -> Sort {
    Sort::seq(&char_sort())
}

/// A string constant as a sequence term.
pub fn string_literal(units: &[u16]) -> Seq {
    if units.is_empty() {
        return Seq::empty(&char_sort());
    }
    let parts: Vec<Seq> = units
        .iter()
        .map(|&unit| Seq::unit(&BV::from_u64(u64::from(unit), 16)))
        .collect();
    concat(&parts)
}

pub fn concat(parts: &[Seq]) -> Seq {
    match parts {
        [] => Seq::empty(&char_sort()),
        [one] => one.clone(),
        many => {
            let refs: Vec<&Seq> = many.iter().collect();
            Seq::concat(&refs)
        }
    }
}

/// A Java int as a mathematical integer (for sequence positions).
pub fn to_int(value: &BV) -> Int {
    Int::from_bv(value, true)
}

/// A Java int used as a sequence position. A constant stays an integer
/// literal: z3 solves `int2bv`/`bv2int` slowly, so no conversion is made
/// where none is needed.
pub fn position(index: &BV) -> Int {
    int_view(index).unwrap_or_else(|| to_int(index))
}

/// The same Java int as an integer term, when it is built from string
/// lengths and positions (`int2bv` of a length, constants, sums and
/// differences of those): comparing those as integers spares z3 the
/// `int2bv` encoding. Lengths and positions are small, so the sums cannot
/// wrap.
pub fn int_view(term: &BV) -> Option<Int> {
    if term.get_size() != 32 {
        return None;
    }
    if let Some(constant) = term.as_i64() {
        return Some(Int::from_i64(i64::from(constant as i32)));
    }
    if term.kind() != AstKind::App {
        return None;
    }
    let children = || -> Option<Vec<Int>> {
        term.children()
            .iter()
            .map(|child| int_view(&child.as_bv()?))
            .collect()
    };
    match term.decl().kind() {
        DeclKind::Int2bv => term.nth_child(0)?.as_int(),
        DeclKind::Badd => {
            let parts = children()?;
            Some(Int::add(&parts.iter().collect::<Vec<_>>()))
        }
        DeclKind::Bsub => {
            let parts = children()?;
            Some(Int::sub(&parts.iter().collect::<Vec<_>>()))
        }
        _ => None,
    }
}

/// `left <condition> right` for Java ints, as integers when both sides
/// have an integer view (see [`int_view`]).
pub fn int_comparison(condition: Condition, left: &BV, right: &BV) -> Bool {
    match (int_view(left), int_view(right)) {
        (Some(l), Some(r)) if !(left.as_i64().is_some() && right.as_i64().is_some()) => {
            match condition {
                Condition::Eq => l.eq(&r),
                Condition::Ne => l.eq(&r).not(),
                Condition::Lt => l.lt(&r),
                Condition::Ge => l.ge(&r),
                Condition::Gt => l.gt(&r),
                Condition::Le => l.le(&r),
            }
        }
        _ => crate::arith::int_condition(condition, left, right),
    }
}

/// A sequence position or length as a Java int.
pub fn to_bv(value: &Int) -> BV {
    value.to_ast(32)
}

/// The character at `index` as an int (zero-extended, as `charAt` pushes it).
pub fn char_at(chars: &Seq, index: &BV) -> BV {
    let unit = chars.nth(position(index));
    unit.as_bv()
        .expect("string elements are 16-bit vectors")
        .zero_ext(16)
}

pub fn length(chars: &Seq) -> BV {
    to_bv(&chars.length())
}
