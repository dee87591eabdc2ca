//! The z3 calls the safe `z3` crate does not wrap.
// Each function is one z3 C call on terms of the current thread's context,
// whose results are reference-counted by the `Ast::wrap` they go through.
#![allow(unsafe_code)]

use z3::ast::{Ast, Bool, Float, Int, Seq, BV};
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

/// Wraps one z3 call that builds a term of this thread's context from live
/// terms of the same context.
macro_rules! seq_call {
    ($wrap:ty, $function:ident, $($argument:expr),+) => {{
        let ctx = Context::thread_local();
        // SAFETY: every argument is a live term of this thread's context and
        // z3 returns a new term of that context; the sorts are checked by
        // the callers' types (sequence, Int), so z3 cannot fail.
        unsafe {
            let ast = z3_sys::$function(ctx.get_z3_context(), $($argument.get_z3_ast()),+)
                .expect(concat!("z3 builds ", stringify!($function)));
            <$wrap>::wrap(&ctx, ast)
        }
    }};
}

/// `(seq.extract s offset length)`.
pub(crate) fn seq_extract(s: &Seq, offset: &Int, length: &Int) -> Seq {
    seq_call!(Seq, Z3_mk_seq_extract, s, offset, length)
}

/// `(seq.prefixof prefix s)`.
pub(crate) fn seq_prefix(prefix: &Seq, s: &Seq) -> Bool {
    seq_call!(Bool, Z3_mk_seq_prefix, prefix, s)
}

/// `(seq.suffixof suffix s)`.
pub(crate) fn seq_suffix(suffix: &Seq, s: &Seq) -> Bool {
    seq_call!(Bool, Z3_mk_seq_suffix, suffix, s)
}

/// `(seq.indexof s sub offset)`: -1 when absent.
pub(crate) fn seq_index(s: &Seq, sub: &Seq, offset: &Int) -> Int {
    seq_call!(Int, Z3_mk_seq_index, s, sub, offset)
}
