//! The z3 calls the safe `z3` crate does not wrap.
// Each function is one z3 C call on terms of the current thread's context,
// whose results are reference-counted by the `Ast::wrap` they go through.
#![allow(unsafe_code)]

use z3::ast::{Ast, Float, BV};
use z3::{Context, Sort};

/// `(fp.to_fp rm bv)` for a two's complement signed bit-vector: the JVM's
/// `i2f`, `i2d`, `l2f` and `l2d` with round-to-nearest-even.
pub(crate) fn signed_bv_to_float(value: &BV, sort: &Sort) -> Float {
    let ctx = Context::thread_local();
    let rounding = z3::ast::RoundingMode::round_nearest_ties_to_even();
    // SAFETY: all three arguments are live terms of this thread's context, and
    // z3 returns a new term of that context (or none on a sort error, which
    // the sorts used here cannot cause).
    unsafe {
        let ast = z3_sys::Z3_mk_fpa_to_fp_signed(
            ctx.get_z3_context(),
            rounding.get_z3_ast(),
            value.get_z3_ast(),
            sort.get_z3_sort(),
        )
        .expect("z3 converts a bit-vector to a float sort");
        Float::wrap(&ctx, ast)
    }
}
