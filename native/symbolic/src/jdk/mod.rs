//! Models of the JDK methods ordinary code decides branches on: `String`
//! and `StringBuilder` over z3 sequences ([`strings`]), `Math`, boxing,
//! the `Integer`, `Long`, `Double` and `Character` statics ([`numbers`]),
//! `Objects.equals` and `requireNonNull`, `Enum.ordinal` and array
//! `clone` ([`objects`]).
//!
//! # Resolution order
//!
//! The replay resolves each call it meets the way haybale's function hooks
//! do, first match wins:
//!
//! 1. **A model** from this registry, when [`family`] names one for the
//!    method (a method of a modelled family whose model does not cover
//!    these arguments takes the observed value: the families are JDK
//!    classes, whose code has no probes to follow);
//! 2. else **the program's own code**, replayed symbolically, when the
//!    trace shows the callee ran (only the program's classes have probes);
//! 3. else **the value the run observed** (the replay is concolic): exact
//!    for this run, but not something the solver can steer.
//!
//! A model may also say when the call throws ([`throws`]) or stand for its
//! result by an assumption over a fresh variable ([`assumed`]). Models see
//! the replay only through [`Heap`].
//!
//! Where the JDK's behaviour depends on Unicode tables (`Character`), the
//! model is exact for ASCII and takes the observed result beyond it.

mod numbers;
mod objects;
mod strings;

use testgen_construct::boxed_base;
use testgen_project::MethodId;
use z3::ast::Bool;

use crate::value::{HeapObject, ObjId, Sym};

pub(crate) use strings::concat;

/// What a model needs of the replay's state.
pub(crate) trait Heap {
    /// The object a reference points to, if it points to one.
    fn object(&self, value: &Sym) -> Option<&HeapObject>;
    /// Replaces an object in place (a builder's contents).
    fn set_object(&mut self, id: ObjId, object: HeapObject);
    /// A reference to a new object.
    fn fresh(&mut self, object: HeapObject) -> Sym;
    /// A new solver variable's name, stable across replays of one path.
    fn fresh_variable(&mut self) -> String;
    /// Whether `condition` holds for this run's inputs.
    fn holds(&self, condition: &Bool) -> bool;
}

/// A call to resolve: the method named, and its receiver and arguments.
pub(crate) struct Call<'c> {
    pub method: &'c MethodId,
    pub receiver: Option<&'c Sym>,
    pub args: &'c [Sym],
}

impl Call<'_> {
    fn class(&self) -> &str {
        self.method.class.as_internal()
    }

    fn name(&self) -> &str {
        &self.method.name
    }

    fn descriptor(&self) -> &str {
        &self.method.descriptor
    }
}

/// A library call modelled by an assumption over a fresh variable: the
/// result is `result` wherever `clause` holds (`Integer.parseInt(s)` is `r`
/// where `s` is `r` in decimal).
pub(crate) struct Assumed {
    pub result: Sym,
    pub clause: Bool,
    pub declares: Vec<String>,
}

/// The groups of methods the registry has models for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    String,
    StringBuilder,
    Math,
    Objects,
    Character,
    /// `Double.isNaN` and its relatives.
    FloatChecks,
    /// The boxes: `valueOf`, `intValue`, `Integer.toString(int)`,
    /// `Integer.parseInt`.
    Boxing,
    /// `ordinal()` of an enum constant an input chose.
    EnumOrdinal,
    /// `clone()` of an array.
    ArrayClone,
    /// The one abstract method of a lambda an input chose.
    Lambda,
}

/// Whether a model stands for calls of `method` (whatever their receiver):
/// the solver can steer what such a call returns, where it cannot steer a
/// call nothing models.
pub fn is_modelled(method: &MethodId) -> bool {
    family(method, None).is_some()
}

/// The model family for a call of `key` on `receiver`, if there is one.
pub(crate) fn family(key: &MethodId, receiver: Option<&HeapObject>) -> Option<Family> {
    let class = key.class.as_internal();
    let name = key.name.as_str();
    if let Some(HeapObject::Lambda { method, .. }) = receiver {
        // Whatever interface the call names, if it is the lambda's method.
        if method.name == key.name && method.descriptor == key.descriptor {
            return Some(Family::Lambda);
        }
    }
    if name == "ordinal" && key.descriptor == "()I" {
        // Whatever class declares the call, if the receiver is a chosen
        // constant.
        if let Some(HeapObject::EnumConstant { .. }) = receiver {
            return Some(Family::EnumOrdinal);
        }
    }
    Some(match class {
        _ if class.starts_with('[') && name == "clone" => Family::ArrayClone,
        "java/lang/String" => Family::String,
        "java/lang/StringBuilder" => Family::StringBuilder,
        "java/lang/Math" | "java/lang/StrictMath" => Family::Math,
        "java/util/Objects" => Family::Objects,
        "java/lang/Character" => Family::Character,
        "java/lang/Double" | "java/lang/Float" if name == "isNaN" || name == "isInfinite" => {
            Family::FloatChecks
        }
        _ if boxed_base(class).is_some() => Family::Boxing,
        _ => return None,
    })
}

/// The call's result as an assumption, where the family models it so.
pub(crate) fn assumed(heap: &mut impl Heap, family: Family, call: &Call<'_>) -> Option<Assumed> {
    match family {
        Family::String => strings::assumed(heap, call),
        Family::Boxing => numbers::assumed(heap, call),
        _ => None,
    }
}

/// When the call throws, over the inputs (`None`: it never throws, or the
/// condition is not modelled).
pub(crate) fn throws(heap: &impl Heap, family: Family, call: &Call<'_>) -> Option<Bool> {
    match family {
        Family::String => strings::throws(heap, call),
        Family::Objects => objects::throws(call),
        _ => None,
    }
}

/// Whether the family's model of this call takes the run's observed result
/// for part of its domain (`Character` beyond ASCII, `String.hashCode`
/// beyond the modelled length): for other inputs there it would answer
/// what this run saw, so no proof may rest on it.
pub(crate) fn leans_on_observed(family: Family, call: &Call<'_>) -> bool {
    match family {
        Family::Character => true,
        Family::String => call.name() == "hashCode",
        _ => false,
    }
}

/// The call's result, if modelled; `observed` is what the run returned
/// (absent when the call site has no probe).
pub(crate) fn result(
    heap: &mut impl Heap,
    family: Family,
    call: &Call<'_>,
    observed: Option<&Sym>,
) -> Option<Sym> {
    match family {
        Family::String => strings::string(heap, call, observed),
        Family::StringBuilder => strings::builder(heap, call),
        Family::Math => numbers::math(call),
        Family::Objects => objects::objects(heap, call),
        Family::Character => numbers::character(call, observed),
        Family::FloatChecks => numbers::float_check(call),
        Family::Boxing => numbers::boxing(heap, call),
        Family::EnumOrdinal => objects::ordinal(heap, call),
        Family::ArrayClone => objects::array_clone(heap, call),
        Family::Lambda => objects::lambda_result(heap, call),
    }
}
