//! The z3 encodings of JVM arithmetic agree with a real JVM on every line
//! printed by fixtures/symbolic/ArithmeticOracle.java: integer overflow,
//! division and remainder rounding, shift masking, narrowing, NaN, signed
//! zeros, infinities, rounding of int-to-float conversions and saturation.

use std::path::Path;
use std::process::Command;

use testgen_symbolic::arith::{
    convert, float_cmp, float_neg, float_op, int_condition, int_neg, int_op, lcmp, Condition,
    Conversion, FloatOp, IntOp, NanResult, Primitive,
};
use z3::ast::{Ast, Float, BV};

fn oracle_output() -> String {
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/symbolic/ArithmeticOracle.java");
    let output = Command::new("java")
        .arg(&source)
        .output()
        .expect("java must be installed (make test runs scripts/setup.sh)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Parses an oracle operand into a z3 numeral of the right sort.
fn operand(text: &str, kind: char) -> Primitive {
    match (kind, text) {
        ('i', _) => Primitive::Int(BV::from_i64(text.parse().unwrap(), 32)),
        ('l', _) => Primitive::Long(BV::from_i64(text.parse().unwrap(), 64)),
        ('f', "NaN") => Primitive::Float(Float::from_f32(f32::NAN)),
        ('d', "NaN") => Primitive::Double(Float::from_f64(f64::NAN)),
        ('f', _) => Primitive::Float(Float::from_f32(f32::from_bits(
            u32::from_str_radix(&text[1..], 16).unwrap(),
        ))),
        ('d', _) => Primitive::Double(Float::from_f64(f64::from_bits(
            u64::from_str_radix(&text[1..], 16).unwrap(),
        ))),
        _ => unreachable!("operand kind {kind}"),
    }
}

/// Renders a z3 result the way the oracle prints it.
fn render(value: &Primitive) -> String {
    let signed = |bv: &BV| {
        let raw = bv.simplify().as_u64().expect("a numeral");
        let width = bv.get_size();
        ((raw << (64 - width)) as i64 >> (64 - width)).to_string()
    };
    let float_text = |float: &Float, prefix: char, digits: usize| {
        if float.is_nan().simplify().as_bool() == Some(true) {
            return "NaN".to_string();
        }
        let bits = float.to_ieee_bv().simplify().as_u64().expect("a numeral");
        format!("{prefix}{bits:0digits$x}")
    };
    match value {
        Primitive::Int(bv) | Primitive::Long(bv) => signed(bv),
        Primitive::Float(float) => float_text(float, 'f', 8),
        Primitive::Double(float) => float_text(float, 'd', 16),
    }
}

fn bv(value: &Primitive) -> &BV {
    match value {
        Primitive::Int(bv) | Primitive::Long(bv) => bv,
        other => panic!("not an integer: {other:?}"),
    }
}

fn float(value: &Primitive) -> &Float {
    match value {
        Primitive::Float(f) | Primitive::Double(f) => f,
        other => panic!("not a float: {other:?}"),
    }
}

/// Computes one oracle line's operation with the z3 encodings.
fn compute(op: &str, operands: &[&str]) -> Primitive {
    use Primitive as P;
    let first_kind = op.chars().next().unwrap();
    let wrap_like = |kind: char, result: BV| {
        if kind == 'l' {
            P::Long(result)
        } else {
            P::Int(result)
        }
    };
    let wrap_float = |kind: char, result: Float| {
        if kind == 'd' {
            P::Double(result)
        } else {
            P::Float(result)
        }
    };
    let int_ops = [
        ("add", IntOp::Add),
        ("sub", IntOp::Sub),
        ("mul", IntOp::Mul),
        ("div", IntOp::Div),
        ("rem", IntOp::Rem),
        ("and", IntOp::And),
        ("or", IntOp::Or),
        ("xor", IntOp::Xor),
        ("shl", IntOp::Shl),
        ("shr", IntOp::Shr),
        ("ushr", IntOp::Ushr),
    ];
    let float_ops = [
        ("add", FloatOp::Add),
        ("sub", FloatOp::Sub),
        ("mul", FloatOp::Mul),
        ("div", FloatOp::Div),
    ];
    let conversions = [
        ("i2l", Conversion::I2L),
        ("i2f", Conversion::I2F),
        ("i2d", Conversion::I2D),
        ("i2b", Conversion::I2B),
        ("i2c", Conversion::I2C),
        ("i2s", Conversion::I2S),
        ("l2i", Conversion::L2I),
        ("l2f", Conversion::L2F),
        ("l2d", Conversion::L2D),
        ("f2i", Conversion::F2I),
        ("f2l", Conversion::F2L),
        ("f2d", Conversion::F2D),
        ("d2i", Conversion::D2I),
        ("d2l", Conversion::D2L),
        ("d2f", Conversion::D2F),
    ];
    if let Some(&(_, conversion)) = conversions.iter().find(|(name, _)| *name == op) {
        return convert(conversion, &operand(operands[0], first_kind));
    }
    match op {
        "ineg" | "lneg" => wrap_like(first_kind, int_neg(bv(&operand(operands[0], first_kind)))),
        "fneg" | "dneg" => wrap_float(
            first_kind,
            float_neg(float(&operand(operands[0], first_kind))),
        ),
        "lcmp" => P::Int(lcmp(
            bv(&operand(operands[0], 'l')),
            bv(&operand(operands[1], 'l')),
        )),
        "fcmpl" | "fcmpg" | "dcmpl" | "dcmpg" => {
            let nan = if op.ends_with('l') {
                NanResult::Less
            } else {
                NanResult::Greater
            };
            P::Int(float_cmp(
                float(&operand(operands[0], first_kind)),
                float(&operand(operands[1], first_kind)),
                nan,
            ))
        }
        "if_icmplt" | "if_icmple" => {
            let condition = if op == "if_icmplt" {
                Condition::Lt
            } else {
                Condition::Le
            };
            let taken = int_condition(
                condition,
                bv(&operand(operands[0], 'i')),
                bv(&operand(operands[1], 'i')),
            );
            let one = BV::from_i64(1, 32);
            P::Int(taken.ite(&one, &BV::from_i64(0, 32)))
        }
        _ => {
            let name = &op[1..];
            let left = operand(operands[0], first_kind);
            // Long shifts take an int distance.
            let right_kind = if name.contains("sh") { 'i' } else { first_kind };
            let right = operand(operands[1], right_kind);
            if matches!(first_kind, 'f' | 'd') {
                let (_, fop) = float_ops
                    .iter()
                    .find(|(n, _)| *n == name)
                    .expect("a float operation");
                wrap_float(first_kind, float_op(*fop, float(&left), float(&right)))
            } else {
                let (_, int) = int_ops
                    .iter()
                    .find(|(n, _)| *n == name)
                    .expect("an integer operation");
                wrap_like(first_kind, int_op(*int, bv(&left), bv(&right)))
            }
        }
    }
}

#[test]
fn z3_encodings_agree_with_the_jvm() {
    let output = oracle_output();
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for line in output.lines() {
        let parts: Vec<&str> = line.split(' ').collect();
        let (op, operands, expected) =
            (parts[0], &parts[1..parts.len() - 1], parts[parts.len() - 1]);
        let actual = render(&compute(op, operands));
        if actual != expected {
            mismatches.push(format!("{line}: z3 says {actual}"));
        }
        checked += 1;
    }
    println!(
        "jvm differential: {checked} operations checked, {} mismatches",
        mismatches.len()
    );
    assert!(checked > 15_000, "the oracle printed only {checked} lines");
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first ones:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(25)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
