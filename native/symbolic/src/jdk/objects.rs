//! `java.util.Objects`, `Enum.ordinal` and array `clone`.

use z3::ast::Bool;

use super::strings::chars;
use super::{Call, Heap};
use crate::arith::Primitive;
use crate::value::{HeapObject, Sym};

/// `requireNonNull` throws on null.
pub(super) fn throws(call: &Call<'_>) -> Option<Bool> {
    match call.name() {
        "requireNonNull" => Some(call.args.first()?.as_ref()?.is_null.clone()),
        _ => None,
    }
}

/// `requireNonNull`, `equals` (of strings), `isNull` and `nonNull`.
pub(super) fn objects(heap: &impl Heap, call: &Call<'_>) -> Option<Sym> {
    let args = call.args;
    match call.name() {
        "requireNonNull" => Some(args[0].clone()),
        "equals" => {
            let (a, b) = (args[0].as_ref()?, args[1].as_ref()?);
            let both_null = Bool::and(&[&a.is_null, &b.is_null]);
            let equal_contents = match (a.object, b.object) {
                (Some(_), Some(_)) => {
                    let (x, y) = (chars(heap, &args[0])?, chars(heap, &args[1])?);
                    x.eq(&y)
                }
                // One of them is null in this run: equal only if both are.
                _ => Bool::from_bool(false),
            };
            let neither_null = Bool::and(&[&a.is_null.not(), &b.is_null.not()]);
            Some(Sym::from_bool(&Bool::or(&[
                &both_null,
                &Bool::and(&[&neither_null, &equal_contents]),
            ])))
        }
        "isNull" | "nonNull" => {
            let is_null = args[0].as_ref()?.is_null.clone();
            Some(Sym::from_bool(&if call.name() == "isNull" {
                is_null
            } else {
                is_null.not()
            }))
        }
        _ => None,
    }
}

/// The ordinal of an enum constant an input chose: the choice itself.
pub(super) fn ordinal(heap: &impl Heap, call: &Call<'_>) -> Option<Sym> {
    match heap.object(call.receiver?)? {
        HeapObject::EnumConstant { ordinal, .. } => {
            Some(Sym::Prim(Primitive::Int(ordinal.clone())))
        }
        _ => None,
    }
}

/// What a lambda an input chose returns: its result hole, whatever the
/// arguments.
pub(super) fn lambda_result(heap: &impl Heap, call: &Call<'_>) -> Option<Sym> {
    match heap.object(call.receiver?)? {
        HeapObject::Lambda { result, .. } => result.clone(),
        _ => None,
    }
}

/// A copy of the array, elements and all.
pub(super) fn array_clone(heap: &mut impl Heap, call: &Call<'_>) -> Option<Sym> {
    let copy = heap.object(call.receiver?)?.clone();
    Some(heap.fresh(copy))
}
