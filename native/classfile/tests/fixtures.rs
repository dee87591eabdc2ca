//! The reader on javac 17 output of `fixtures/classfile`: each feature of
//! the class-file format that testgen relies on is decoded as javac wrote it.

mod support;

use std::collections::BTreeSet;

use testgen_classfile::attribute::{AttributeInfo, StackMapFrame, VerificationType};
use testgen_classfile::instruction::{opcode, Operands};
use testgen_classfile::{ClassFile, Constant};

fn classes() -> Vec<(String, Vec<u8>)> {
    support::fixture_classes()
}

fn find<'a>(classes: &'a [(String, Vec<u8>)], name: &str) -> &'a [u8] {
    &classes
        .iter()
        .find(|(file, _)| file == name)
        .unwrap_or_else(|| panic!("javac did not produce {name}"))
        .1
}

#[test]
fn every_fixture_class_checks() {
    let classes = classes();
    assert!(classes.len() >= 10, "{} classes", classes.len());
    for (name, bytes) in &classes {
        let class = ClassFile::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        class.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(class.major_version, 61, "{name} was compiled for Java 17");
    }
}

#[test]
fn sealed_interface_and_records() {
    let classes = classes();
    let shapes = ClassFile::parse(find(&classes, "fixtures/classfile/Shapes")).unwrap();
    let Some(AttributeInfo::PermittedSubclasses(permitted)) =
        shapes.attribute("PermittedSubclasses").unwrap()
    else {
        panic!("Shapes is sealed");
    };
    let names: Vec<_> = permitted
        .iter()
        .map(|&i| shapes.constant_pool.class_name(i).unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "fixtures/classfile/Shapes$Circle",
            "fixtures/classfile/Shapes$Square",
            "fixtures/classfile/Shapes$Group"
        ]
    );
    assert!(
        matches!(shapes.attribute("NestMembers").unwrap(), Some(AttributeInfo::NestMembers(m)) if m.len() == 3)
    );

    let group = ClassFile::parse(find(&classes, "fixtures/classfile/Shapes$Group")).unwrap();
    let Some(AttributeInfo::Record(components)) = group.attribute("Record").unwrap() else {
        panic!("Group is a record");
    };
    let pool = &group.constant_pool;
    let described: Vec<_> = components
        .iter()
        .map(|c| {
            (
                pool.utf8(c.name_index).unwrap(),
                pool.utf8(c.descriptor_index).unwrap(),
            )
        })
        .collect();
    assert_eq!(
        described,
        [
            ("members".into(), "Ljava/util/List;".into()),
            ("name".into(), "Ljava/lang/String;".into())
        ]
    );
    let Some(AttributeInfo::NestHost(host)) = group.attribute("NestHost").unwrap() else {
        panic!("Group is nested in Shapes");
    };
    assert_eq!(pool.class_name(host).unwrap(), "fixtures/classfile/Shapes");
    let Some(AttributeInfo::Signature(signature)) = group.attribute("Signature").unwrap() else {
        panic!("Group is generic");
    };
    assert!(pool
        .utf8(signature)
        .unwrap()
        .starts_with("<T::Lfixtures/classfile/Shapes;:Ljava/lang/Comparable<-TT;>;>"));
}

#[test]
fn constants_keep_exact_values_and_modified_utf8() {
    let classes = classes();
    let kitchen = ClassFile::parse(find(&classes, "fixtures/classfile/Kitchen")).unwrap();
    let pool = &kitchen.constant_pool;
    let constants: Vec<Constant> = pool.iter().map(|(_, c)| *c).collect();
    assert!(constants.contains(&Constant::Long(i64::MIN + 7)));
    assert!(constants.contains(&Constant::Double(1.0e300f64.to_bits())));
    // Float.MIN_VALUE, the smallest subnormal, is the bit pattern 1.
    assert!(constants.contains(&Constant::Float(1)));
    let odd = pool
        .iter()
        .find_map(|(index, c)| match c {
            Constant::Utf8(raw) if raw.starts_with(b"nul:") => Some((index, *raw)),
            _ => None,
        })
        .expect("ODD_TEXT is in the pool");
    // NUL is C0 80 and the emoji a surrogate pair, as modified UTF-8 wants.
    assert!(odd.1.windows(2).any(|w| w == [0xc0, 0x80]));
    assert_eq!(
        pool.utf8(odd.0).unwrap(),
        "nul:\0 smile:\u{1F600} lone:\u{FFFD} e:\u{e9}"
    );
}

#[test]
fn instructions_of_every_shape_are_decoded() {
    let classes = classes();
    let kitchen = ClassFile::parse(find(&classes, "fixtures/classfile/Kitchen")).unwrap();
    let mut seen = BTreeSet::new();
    let mut wide = 0;
    let mut table_ranges = BTreeSet::new();
    for method in &kitchen.methods {
        let Some(code) = method.code(&kitchen).unwrap() else {
            continue;
        };
        for instruction in code.instructions() {
            let instruction = instruction.unwrap();
            seen.insert(instruction.opcode);
            wide += usize::from(instruction.wide);
            for target in instruction.branch_targets() {
                assert!((0..code.bytecode.len() as i64).contains(&target));
            }
            if let Operands::TableSwitch(table) = instruction.operands {
                table_ranges.insert((table.low, table.high));
                assert_eq!(
                    table.targets().count() as i64,
                    i64::from(table.high) - i64::from(table.low) + 1
                );
            }
        }
    }
    for expected in [
        opcode::TABLESWITCH,
        opcode::LOOKUPSWITCH,
        opcode::INVOKEDYNAMIC,
        opcode::INVOKEINTERFACE,
        opcode::MULTIANEWARRAY,
        opcode::MONITORENTER,
        opcode::IFNULL,
        opcode::IFNONNULL,
        opcode::LDC2_W,
        opcode::ATHROW,
    ] {
        assert!(
            seen.contains(&expected),
            "no {:?} in Kitchen",
            opcode::name(expected)
        );
    }
    assert!(wide > 0, "manyLocals needs wide loads and stores");
    assert!(
        table_ranges.contains(&(1, 4)),
        "dense() switches over 1..=4: {table_ranges:?}"
    );
}

#[test]
fn code_attributes_carry_tables_and_frames() {
    let classes = classes();
    let kitchen = ClassFile::parse(find(&classes, "fixtures/classfile/Kitchen")).unwrap();
    let guarded = kitchen
        .methods
        .iter()
        .find(|m| m.name(&kitchen).unwrap() == "guarded")
        .unwrap();
    let code = guarded.code(&kitchen).unwrap().unwrap();
    // Two catch clauses, the finally (catch_type 0) and the monitor's handler.
    assert!(
        code.exception_table.len() >= 4,
        "{:?}",
        code.exception_table
    );
    assert!(code.exception_table.iter().any(|h| h.catch_type == 0));
    let Some(AttributeInfo::StackMapTable(frames)) =
        code.attribute(&kitchen, "StackMapTable").unwrap()
    else {
        panic!("a method with loops has frames");
    };
    assert!(frames
        .iter()
        .any(|f| matches!(f, StackMapFrame::Full { .. } | StackMapFrame::Append { .. })));
    assert!(
        matches!(code.attribute(&kitchen, "LineNumberTable").unwrap(), Some(AttributeInfo::LineNumberTable(l)) if !l.is_empty())
    );
    assert!(
        matches!(code.attribute(&kitchen, "LocalVariableTable").unwrap(), Some(AttributeInfo::LocalVariableTable(v)) if v.len() >= 3)
    );

    // `new Object()` in a field initialiser: the constructor's frames may
    // name an uninitialized object; either way every offset must be decodable.
    for method in &kitchen.methods {
        if let Some(code) = method.code(&kitchen).unwrap() {
            if let Some(AttributeInfo::StackMapTable(frames)) =
                code.attribute(&kitchen, "StackMapTable").unwrap()
            {
                for frame in frames {
                    if let StackMapFrame::Full { locals, stack, .. } = frame {
                        for ty in locals.iter().chain(&stack) {
                            if let VerificationType::Object(index) = ty {
                                kitchen.constant_pool.class_name(*index).unwrap();
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn nested_anonymous_and_lambda_metadata() {
    let classes = classes();
    let anonymous = ClassFile::parse(find(&classes, "fixtures/classfile/Kitchen$1")).unwrap();
    let Some(AttributeInfo::EnclosingMethod {
        class_index,
        method_index,
    }) = anonymous.attribute("EnclosingMethod").unwrap()
    else {
        panic!("an anonymous class has an enclosing method");
    };
    assert_eq!(
        anonymous.constant_pool.class_name(class_index).unwrap(),
        "fixtures/classfile/Kitchen"
    );
    assert_eq!(
        anonymous
            .constant_pool
            .name_and_type(method_index)
            .unwrap()
            .0,
        "collect"
    );

    let kitchen = ClassFile::parse(find(&classes, "fixtures/classfile/Kitchen")).unwrap();
    let Some(AttributeInfo::InnerClasses(inner)) = kitchen.attribute("InnerClasses").unwrap()
    else {
        panic!("Kitchen has inner classes");
    };
    assert!(
        inner.iter().any(|c| c.inner_name_index == 0),
        "the anonymous class has no name"
    );
    let Some(AttributeInfo::BootstrapMethods(bootstraps)) =
        kitchen.attribute("BootstrapMethods").unwrap()
    else {
        panic!("lambdas and string concatenation need bootstrap methods");
    };
    assert!(bootstraps.len() >= 2);
    assert_eq!(
        kitchen.source_file().unwrap().as_deref(),
        Some("Kitchen.java")
    );
}
