//! Which instructions each operator changes, and into what.
//!
//! Conditions are mutated as javac compiles them: `if (a < b)` is an
//! `if_icmpge` that jumps past the block, so negating the instruction
//! negates the source condition and shifting its boundary shifts the
//! source's. Code javac writes for `assert` (a test of `$assertionsDisabled`)
//! is left alone: a mutant there changes what `-ea` means, not the code.

use testgen_classfile::descriptor::{BaseType, FieldType, MethodDescriptor};
use testgen_classfile::instruction::{opcode as op, Instruction, Operands};
use testgen_classfile::{ClassFile, Code, ParseError};
use testgen_probes::edit::Inserted;

use crate::{Change, Mutation, Operator};

/// Every mutation of the method at `method_index`, whose code is `code`.
pub fn mutations_of_method(
    class: &ClassFile<'_>,
    method_index: usize,
    code: &Code<'_>,
) -> Result<Vec<Mutation>, ParseError> {
    let method = &class.methods[method_index];
    let name = method.name(class)?.into_owned();
    let descriptor = method.descriptor(class)?.into_owned();
    let returns = MethodDescriptor::parse(&descriptor)
        .ok()
        .and_then(|parsed| parsed.return_type.map(ReturnKind::of));
    let lines = code.line_numbers(class);
    let instructions: Vec<Instruction<'_>> = code.instructions().collect::<Result<_, _>>()?;

    let mut found = Vec::new();
    for (index, instruction) in instructions.iter().enumerate() {
        let previous = index.checked_sub(1).map(|i| &instructions[i]);
        let mut add = |operator: Operator, change: Change, description: String| {
            found.push(Mutation {
                method_index,
                method_name: name.clone(),
                descriptor: descriptor.clone(),
                offset: instruction.offset,
                line: lines.line_at(instruction.offset),
                operator,
                change,
                description,
            });
        };
        let code_op = instruction.opcode;
        if op::is_conditional_branch(code_op) {
            if previous.is_some_and(|p| reads_assertions_disabled(class, p)) {
                continue;
            }
            let negated = negation(code_op);
            add(
                Operator::NegateConditional,
                Change::Opcode(negated),
                became(code_op, negated),
            );
            if let Some(shifted) = boundary(code_op) {
                add(
                    Operator::ConditionalBoundary,
                    Change::Opcode(shifted),
                    became(code_op, shifted),
                );
            }
        } else if let Some(replaced) = math(code_op) {
            add(
                Operator::Math,
                Change::Opcode(replaced),
                became(code_op, replaced),
            );
        } else if let Some(other) = constant(code_op) {
            add(
                Operator::InlineConstant,
                Change::Opcode(other),
                became(code_op, other),
            );
        } else {
            match (code_op, instruction.operands) {
                (op::BIPUSH, Operands::Byte(value)) => {
                    let changed =
                        changed_constant(i64::from(value), i64::from(i8::MIN), i64::from(i8::MAX));
                    add(
                        Operator::InlineConstant,
                        Change::Operand(changed as i16),
                        format!("constant {value} became {changed}"),
                    );
                }
                (op::SIPUSH, Operands::Short(value)) => {
                    let changed = changed_constant(
                        i64::from(value),
                        i64::from(i16::MIN),
                        i64::from(i16::MAX),
                    );
                    add(
                        Operator::InlineConstant,
                        Change::Operand(changed as i16),
                        format!("constant {value} became {changed}"),
                    );
                }
                (op::IINC, Operands::Iinc { delta, .. }) if delta != 0 => {
                    let fits = instruction.wide || i8::try_from(-i32::from(delta)).is_ok();
                    if let (true, Some(negated)) = (fits, delta.checked_neg()) {
                        add(
                            Operator::Increment,
                            Change::Operand(negated),
                            format!("increment by {delta} became {negated}"),
                        );
                    }
                }
                (op::IRETURN..=op::ARETURN, _) => {
                    if let Some(kind) = returns {
                        for (value, description) in kind.replacements(previous) {
                            add(
                                Operator::ReturnValue,
                                Change::Edit {
                                    before: value,
                                    replacement: None,
                                },
                                description,
                            );
                        }
                    }
                }
                (op::PUTFIELD | op::PUTSTATIC, Operands::Constant(index)) => {
                    let field = class.constant_pool.member_ref(index)?;
                    let Ok(field_type) = FieldType::parse(&field.descriptor) else {
                        continue;
                    };
                    let mut pops = vec![Inserted::Opcode(pop_for(field_type.slots()))];
                    if code_op == op::PUTFIELD {
                        pops.push(Inserted::Opcode(op::POP));
                    }
                    add(
                        Operator::FieldWrite,
                        Change::Edit {
                            before: Vec::new(),
                            replacement: Some(pops),
                        },
                        format!("removed write of {}", field.name),
                    );
                }
                (
                    op::INVOKEVIRTUAL | op::INVOKESPECIAL | op::INVOKESTATIC,
                    Operands::Constant(index),
                )
                | (op::INVOKEINTERFACE, Operands::InvokeInterface { index, .. }) => {
                    let called = class.constant_pool.member_ref(index)?;
                    if called.name == "<init>" {
                        continue;
                    }
                    let Ok(signature) = MethodDescriptor::parse(&called.descriptor) else {
                        continue;
                    };
                    if signature.return_type.is_some() {
                        continue;
                    }
                    // The arguments come off the stack last one first, then the receiver.
                    let mut pops: Vec<Inserted> = signature
                        .parameters
                        .iter()
                        .rev()
                        .map(|parameter| Inserted::Opcode(pop_for(parameter.slots())))
                        .collect();
                    if code_op != op::INVOKESTATIC {
                        pops.push(Inserted::Opcode(op::POP));
                    }
                    add(
                        Operator::VoidCall,
                        Change::Edit {
                            before: Vec::new(),
                            replacement: Some(pops),
                        },
                        format!(
                            "removed call to {}.{}",
                            simple_name(&called.class),
                            called.name
                        ),
                    );
                }
                _ => {}
            }
        }
    }
    Ok(found)
}

fn pop_for(slots: u8) -> u8 {
    if slots == 2 {
        op::POP2
    } else {
        op::POP
    }
}

fn simple_name(internal: &str) -> &str {
    internal.rsplit('/').next().unwrap_or(internal)
}

fn became(from: u8, to: u8) -> String {
    format!(
        "{} became {}",
        op::name(from).unwrap_or("?"),
        op::name(to).unwrap_or("?")
    )
}

/// `getstatic $assertionsDisabled`, the test javac puts before an `assert`.
fn reads_assertions_disabled(class: &ClassFile<'_>, instruction: &Instruction<'_>) -> bool {
    match (instruction.opcode, instruction.operands) {
        (op::GETSTATIC, Operands::Constant(index)) => class
            .constant_pool
            .member_ref(index)
            .is_ok_and(|field| field.name == "$assertionsDisabled"),
        _ => false,
    }
}

/// The branch that jumps exactly when `branch` does not.
fn negation(branch: u8) -> u8 {
    match branch {
        op::IFEQ => op::IFNE,
        op::IFNE => op::IFEQ,
        op::IFLT => op::IFGE,
        op::IFGE => op::IFLT,
        op::IFGT => op::IFLE,
        op::IFLE => op::IFGT,
        op::IF_ICMPEQ => op::IF_ICMPNE,
        op::IF_ICMPNE => op::IF_ICMPEQ,
        op::IF_ICMPLT => op::IF_ICMPGE,
        op::IF_ICMPGE => op::IF_ICMPLT,
        op::IF_ICMPGT => op::IF_ICMPLE,
        op::IF_ICMPLE => op::IF_ICMPGT,
        op::IF_ACMPEQ => op::IF_ACMPNE,
        op::IF_ACMPNE => op::IF_ACMPEQ,
        op::IFNULL => op::IFNONNULL,
        _ => op::IFNULL,
    }
}

/// The ordering branch with its boundary moved: `<` and `<=`, `>` and `>=`.
fn boundary(branch: u8) -> Option<u8> {
    Some(match branch {
        op::IFLT => op::IFLE,
        op::IFLE => op::IFLT,
        op::IFGT => op::IFGE,
        op::IFGE => op::IFGT,
        op::IF_ICMPLT => op::IF_ICMPLE,
        op::IF_ICMPLE => op::IF_ICMPLT,
        op::IF_ICMPGT => op::IF_ICMPGE,
        op::IF_ICMPGE => op::IF_ICMPGT,
        _ => return None,
    })
}

/// The arithmetic or bitwise instruction of the same operand types that
/// replaces `instruction`, as PIT's math mutator does.
fn math(instruction: u8) -> Option<u8> {
    // Each family is four opcodes apart per type (i, l, f, d) in this order.
    let family = |base: u8| instruction.checked_sub(base).filter(|k| *k < 4);
    if let Some(k) = family(op::IADD) {
        return Some(op::ISUB + k);
    }
    if let Some(k) = family(op::ISUB) {
        return Some(op::IADD + k);
    }
    if let Some(k) = family(op::IMUL) {
        return Some(op::IDIV + k);
    }
    if let Some(k) = family(op::IDIV) {
        return Some(op::IMUL + k);
    }
    if let Some(k) = family(op::IREM) {
        return Some(op::IMUL + k);
    }
    Some(match instruction {
        op::IAND => op::IOR,
        op::LAND => op::LOR,
        op::IOR => op::IAND,
        op::LOR => op::LAND,
        op::IXOR => op::IAND,
        op::LXOR => op::LAND,
        op::ISHL => op::ISHR,
        op::LSHL => op::LSHR,
        op::ISHR => op::ISHL,
        op::LSHR => op::LSHL,
        op::IUSHR => op::ISHL,
        op::LUSHR => op::LSHL,
        _ => return None,
    })
}

/// The one-byte constant that replaces a one-byte constant: 0 and 1 for
/// each other, any other one more (5, the largest, one less).
fn constant(instruction: u8) -> Option<u8> {
    Some(match instruction {
        op::ICONST_0 => op::ICONST_1,
        op::ICONST_1 => op::ICONST_0,
        op::ICONST_M1 | op::ICONST_2..=op::ICONST_4 => instruction + 1,
        op::ICONST_5 => op::ICONST_4,
        op::LCONST_0 => op::LCONST_1,
        op::LCONST_1 => op::LCONST_0,
        op::FCONST_0 => op::FCONST_1,
        op::FCONST_1 => op::FCONST_0,
        op::FCONST_2 => op::FCONST_1,
        op::DCONST_0 => op::DCONST_1,
        op::DCONST_1 => op::DCONST_0,
        _ => return None,
    })
}

/// 0 and 1 for each other, any other value one more (the largest one less).
fn changed_constant(value: i64, min: i64, max: i64) -> i64 {
    match value {
        1 => 0,
        0 => 1,
        v if v == max => v - 1,
        v => (v + 1).max(min),
    }
}

/// What a method returns, as its return mutations see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReturnKind {
    Boolean,
    /// `int`, `short`, `byte`, `char`.
    Int,
    Long,
    Float,
    Double,
    String,
    Object,
}

impl ReturnKind {
    fn of(returned: FieldType<'_>) -> ReturnKind {
        match returned {
            FieldType::Base(BaseType::Boolean) => ReturnKind::Boolean,
            FieldType::Base(BaseType::Long) => ReturnKind::Long,
            FieldType::Base(BaseType::Float) => ReturnKind::Float,
            FieldType::Base(BaseType::Double) => ReturnKind::Double,
            FieldType::Base(_) => ReturnKind::Int,
            FieldType::Object("java/lang/String") => ReturnKind::String,
            FieldType::Object(_) | FieldType::Array { .. } => ReturnKind::Object,
        }
    }

    /// The values that replace the returned one (each dropping it first),
    /// but a value the instruction before already pushes: that mutant would
    /// change nothing.
    fn replacements(self, previous: Option<&Instruction<'_>>) -> Vec<(Vec<Inserted>, String)> {
        let pushed = previous.map(|p| p.opcode);
        let replace = |pop: u8, constant: u8, shown: &str| {
            (
                vec![Inserted::Opcode(pop), Inserted::Opcode(constant)],
                format!("returned {shown} instead"),
            )
        };
        let candidates: Vec<(u8, Option<u8>, &str)> = match self {
            ReturnKind::Boolean => vec![
                (op::POP, Some(op::ICONST_0), "false"),
                (op::POP, Some(op::ICONST_1), "true"),
            ],
            ReturnKind::Int if pushed == Some(op::ICONST_0) => {
                vec![(op::POP, Some(op::ICONST_1), "1")]
            }
            ReturnKind::Int => vec![(op::POP, Some(op::ICONST_0), "0")],
            ReturnKind::Long if pushed == Some(op::LCONST_0) => {
                vec![(op::POP2, Some(op::LCONST_1), "1")]
            }
            ReturnKind::Long => vec![(op::POP2, Some(op::LCONST_0), "0")],
            ReturnKind::Float if pushed == Some(op::FCONST_0) => {
                vec![(op::POP, Some(op::FCONST_1), "1")]
            }
            ReturnKind::Float => vec![(op::POP, Some(op::FCONST_0), "0")],
            ReturnKind::Double if pushed == Some(op::DCONST_0) => {
                vec![(op::POP2, Some(op::DCONST_1), "1")]
            }
            ReturnKind::Double => vec![(op::POP2, Some(op::DCONST_0), "0")],
            ReturnKind::String => vec![(op::POP, None, "\"\"")],
            ReturnKind::Object => vec![(op::POP, Some(op::ACONST_NULL), "null")],
        };
        candidates
            .into_iter()
            .filter(|(_, constant, _)| constant.is_none() || *constant != pushed)
            .map(|(pop, constant, shown)| match constant {
                Some(constant) => replace(pop, constant, shown),
                None => (
                    vec![Inserted::Opcode(pop), Inserted::EmptyString],
                    format!("returned {shown} instead"),
                ),
            })
            .collect()
    }
}
