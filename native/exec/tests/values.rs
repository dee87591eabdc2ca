//! Values in, values out: every kind of literal round-trips through the
//! executor exactly; objects are summarised by their getters; arrays,
//! fields, exceptions and mistakes in plans are reported as they are.

mod support;

use support::*;
use testgen_exec::{
    JavaString, PlanStatus, Property, PropertyOutcome, RenderedValue, Statement, StatementOutcome,
    Value,
};

/// Calls `Values.id` with `value` and returns what came back.
fn identity(values: Vec<(Value, &str)>) -> Vec<RenderedValue> {
    let mut executor = executor();
    let statements: Vec<Statement> = values
        .iter()
        .map(|(value, descriptor)| {
            call_static(
                "Values",
                "id",
                &format!("({descriptor}){descriptor}"),
                vec![value.clone()],
            )
        })
        .collect();
    let outcome = run(&mut executor, statements);
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    (0..values.len())
        .map(|i| value_of(&outcome, i).clone())
        .collect()
}

#[test]
fn primitives_round_trip_exactly() {
    let float_bits = [
        f32::NAN.to_bits(),
        0x7fc0_1234, // a NaN with a payload
        (-0.0f32).to_bits(),
        f32::INFINITY.to_bits(),
        f32::NEG_INFINITY.to_bits(),
        f32::MIN_POSITIVE.to_bits(),
        1, // the smallest subnormal
    ];
    let double_bits = [
        f64::NAN.to_bits(),
        0x7ff8_0000_dead_beef,
        (-0.0f64).to_bits(),
        f64::INFINITY.to_bits(),
        f64::MAX.to_bits(),
        u64::MAX, // a negative NaN
    ];
    let mut values = vec![
        (Value::Boolean { value: true }, "Z"),
        (Value::Boolean { value: false }, "Z"),
        (Value::Byte { value: i8::MIN }, "B"),
        (Value::Byte { value: i8::MAX }, "B"),
        (Value::Short { value: i16::MIN }, "S"),
        (Value::Int { value: i32::MIN }, "I"),
        (Value::Int { value: i32::MAX }, "I"),
        (Value::Int { value: 0 }, "I"),
        (Value::Long { value: i64::MIN }, "J"),
        (Value::Long { value: i64::MAX }, "J"),
        (Value::Char { value: 0 }, "C"),
        (Value::Char { value: 0xd800 }, "C"),
        (Value::Char { value: 0xffff }, "C"),
        (
            Value::Char {
                value: u16::from(b'"'),
            },
            "C",
        ),
    ];
    values.extend(float_bits.map(|bits| (Value::Float { bits }, "F")));
    values.extend(double_bits.map(|bits| (Value::Double { bits }, "D")));

    let rendered = identity(values.clone());
    for ((sent, _), back) in values.iter().zip(&rendered) {
        let expected = match sent.clone() {
            Value::Boolean { value } => RenderedValue::Boolean { value },
            Value::Byte { value } => RenderedValue::Byte { value },
            Value::Short { value } => RenderedValue::Short { value },
            Value::Char { value } => RenderedValue::Char { value },
            Value::Int { value } => RenderedValue::Int { value },
            Value::Long { value } => RenderedValue::Long { value },
            Value::Float { bits } => RenderedValue::Float { bits },
            Value::Double { bits } => RenderedValue::Double { bits },
            other => unreachable!("{other:?}"),
        };
        assert_eq!(back, &expected);
    }
}

#[test]
fn strings_enums_and_null_round_trip() {
    let strings = [
        "",
        "plain",
        "quotes \" and \\ backslashes",
        "new\nline\ttab\r\u{0}nul",
        "unicode: é ß 中文 😀 \u{2028}",
        "{\"looks\":\"like json\"}",
    ];
    let mut values: Vec<(Value, &str)> = strings
        .iter()
        .map(|s| (string(s), "Ljava/lang/String;"))
        .collect();
    let lone = JavaString::from_utf16(vec![0x61, 0xdc00, 0x62]);
    values.push((
        Value::String {
            value: lone.clone(),
        },
        "Ljava/lang/String;",
    ));
    values.push((Value::Null, "Ljava/lang/String;"));
    values.push((
        Value::enum_constant(class("Color"), "RED"),
        "Lfixtures/executor/Color;",
    ));
    values.push((
        Value::enum_constant(class("Color"), "GREEN"),
        "Lfixtures/executor/Color;",
    ));

    let rendered = identity(values);
    for (s, back) in strings.iter().zip(&rendered) {
        assert_eq!(back.as_str(), Some(*s));
    }
    let n = strings.len();
    assert_eq!(
        rendered[n],
        RenderedValue::String {
            value: lone,
            full_length: None
        }
    );
    assert_eq!(rendered[n + 1], RenderedValue::Null);
    assert_eq!(
        rendered[n + 2],
        RenderedValue::Enum {
            class: class("Color"),
            name: "RED".into()
        }
    );
    // A constant with a body still renders as its enum's constant.
    assert_eq!(
        rendered[n + 3],
        RenderedValue::Enum {
            class: class("Color"),
            name: "GREEN".into()
        }
    );
}

#[test]
fn class_literals_round_trip_and_classes_a_test_cannot_name_stay_objects() {
    let literal = |name: &str| Value::Class { name: name.into() };
    let rendered = identity(vec![
        (literal("java.lang.String"), "Ljava/lang/Object;"),
        (literal(&class("Color")), "Ljava/lang/Object;"),
    ]);
    assert_eq!(
        rendered,
        vec![
            RenderedValue::Class {
                name: "java.lang.String".into()
            },
            RenderedValue::Class {
                name: class("Color")
            },
        ]
    );
    // `Collections.emptyList()` is of a private class: no test can write
    // its literal.
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            Statement::CallStatic {
                class: "java.util.Collections".into(),
                name: "emptyList".into(),
                descriptor: "()Ljava/util/List;".into(),
                args: vec![],
            },
            Statement::Call {
                receiver: Value::Ref { statement: 0 },
                class: "java.lang.Object".into(),
                name: "getClass".into(),
                descriptor: "()Ljava/lang/Class;".into(),
                args: vec![],
            },
        ],
    );
    assert!(
        matches!(value_of(&outcome, 1), RenderedValue::Object { class, .. } if class == "java.lang.Class"),
        "{outcome:#?}"
    );
}

#[test]
fn strings_built_in_java_come_back_exactly() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            call_static("Values", "loneSurrogate", "()Ljava/lang/String;", vec![]),
            call_static(
                "Values",
                "codeUnits",
                "(Ljava/lang/String;)Ljava/lang/String;",
                vec![string("\0😀")],
            ),
            call_static("Values", "boxedInt", "()Ljava/lang/Object;", vec![]),
            call_static("Values", "nothing", "()Ljava/lang/Object;", vec![]),
            // int widens to long, as in Java source.
            call_static("Values", "widen", "(J)J", vec![int(-5)]),
        ],
    );
    assert_eq!(
        value_of(&outcome, 0),
        &RenderedValue::String {
            value: JavaString::from_utf16(vec![0x61, 0xd800, 0x62]),
            full_length: None
        }
    );
    assert_eq!(value_of(&outcome, 1).as_str(), Some("0 d83d de00"));
    assert_eq!(
        value_of(&outcome, 2),
        &RenderedValue::Boxed {
            value: Box::new(RenderedValue::Int { value: 42 })
        }
    );
    assert_eq!(value_of(&outcome, 3), &RenderedValue::Null);
    assert_eq!(value_of(&outcome, 4), &RenderedValue::Long { value: -5 });
}

fn property<'a>(properties: &'a [Property], name: &str) -> &'a PropertyOutcome {
    &properties
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no property {name} in {properties:#?}"))
        .outcome
}

fn properties(value: &RenderedValue) -> &[Property] {
    match value {
        RenderedValue::Object {
            properties: Some(properties),
            ..
        } => properties,
        other => panic!("expected an object with properties, got {other:#?}"),
    }
}

fn property_value<'a>(properties: &'a [Property], name: &str) -> &'a RenderedValue {
    match property(properties, name) {
        PropertyOutcome::Value { value } => value,
        other => panic!("{name}: {other:?}"),
    }
}

#[test]
fn objects_are_summarised_by_their_getters() {
    let mut executor = executor();
    let person = "Lfixtures/executor/Person;";
    let outcome = run(
        &mut executor,
        vec![
            Statement::New {
                class: class("Person"),
                descriptor: "(Ljava/lang/String;I)V".into(),
                args: vec![string("Ada"), int(36)],
            },
            Statement::New {
                class: class("Person"),
                descriptor: "(Ljava/lang/String;I)V".into(),
                args: vec![string("Bob"), int(12)],
            },
            Statement::Call {
                receiver: reference(0),
                class: class("Person"),
                name: "setFriend".into(),
                descriptor: format!("({person})V"),
                args: vec![reference(1)],
            },
            Statement::Call {
                receiver: reference(0),
                class: class("Person"),
                name: "greet".into(),
                descriptor: "(Ljava/lang/String;)Ljava/lang/String;".into(),
                args: vec![string("you")],
            },
            Statement::Call {
                receiver: reference(0),
                class: class("Person"),
                name: "getFriend".into(),
                descriptor: format!("(){person}"),
                args: vec![],
            },
            call_static(
                "Values",
                "id",
                "(Ljava/lang/Object;)Ljava/lang/Object;",
                vec![reference(0)],
            ),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(outcome.statements[2], StatementOutcome::Void);
    assert_eq!(value_of(&outcome, 3).as_str(), Some("Hello you, I am Ada"));

    let RenderedValue::Object {
        class: ada_class,
        identity: ada_identity,
        ..
    } = value_of(&outcome, 0)
    else {
        panic!()
    };
    assert_eq!(ada_class, &class("Person"));
    let ada = properties(value_of(&outcome, 0));
    let names: Vec<&str> = ada.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "getAge",
            "getBroken",
            "getFavourite",
            "getFriend",
            "getLuckyNumbers",
            "getName",
            "getTags",
            "isAdult"
        ],
        "sorted, getClass left out"
    );
    assert_eq!(
        property_value(ada, "getAge"),
        &RenderedValue::Int { value: 36 }
    );
    assert_eq!(property_value(ada, "getName").as_str(), Some("Ada"));
    assert_eq!(
        property_value(ada, "isAdult"),
        &RenderedValue::Boolean { value: true }
    );
    // Rendered right after the constructor: no friend yet.
    assert_eq!(property_value(ada, "getFriend"), &RenderedValue::Null);
    assert_eq!(
        property_value(ada, "getFavourite"),
        &RenderedValue::Enum {
            class: class("Color"),
            name: "BLUE".into()
        }
    );
    let PropertyOutcome::Threw { exception } = property(ada, "getBroken") else {
        panic!("getBroken throws")
    };
    assert_eq!(exception.class, "java.lang.IllegalStateException");
    assert_eq!(exception.message.as_deref(), Some("no broken value"));
    assert_eq!(exception.frames[0].method, "getBroken");
    let RenderedValue::Array {
        class: array_class,
        length,
        elements,
        ..
    } = property_value(ada, "getLuckyNumbers")
    else {
        panic!()
    };
    assert_eq!((array_class.as_str(), *length), ("[I", 2));
    assert_eq!(
        elements.as_deref(),
        Some(
            &[
                RenderedValue::Int { value: 7 },
                RenderedValue::Int { value: 13 }
            ][..]
        )
    );
    // A JDK-internal list is summarised through its public interface.
    let tags = properties(property_value(ada, "getTags"));
    assert_eq!(
        property_value(tags, "size"),
        &RenderedValue::Int { value: 2 }
    );
    assert_eq!(
        property_value(tags, "isEmpty"),
        &RenderedValue::Boolean { value: false }
    );

    // The friend, rendered after setFriend: the same object as statement 1,
    // its own friend one level deeper has no properties (depth 2).
    let friend = value_of(&outcome, 4);
    let RenderedValue::Object { identity, .. } = friend else {
        panic!()
    };
    let RenderedValue::Object {
        identity: bob_identity,
        ..
    } = value_of(&outcome, 1)
    else {
        panic!()
    };
    assert_eq!(identity, bob_identity);
    assert_ne!(identity, ada_identity);
    let bob = properties(friend);
    assert_eq!(property_value(bob, "getName").as_str(), Some("Bob"));
    assert_eq!(
        property_value(bob, "isAdult"),
        &RenderedValue::Boolean { value: false }
    );
    assert_eq!(property_value(bob, "getFriend"), &RenderedValue::Null);

    // Ada again, now with a friend: the friend's arrays and objects are at
    // the summary depth (2) and shown without contents.
    let ada = properties(value_of(&outcome, 5));
    let bob = properties(property_value(ada, "getFriend"));
    let RenderedValue::Array {
        elements, length, ..
    } = property_value(bob, "getLuckyNumbers")
    else {
        panic!()
    };
    assert_eq!((elements, *length), (&None, 2), "too deep for elements");
    let RenderedValue::Object { properties, .. } = property_value(bob, "getTags") else {
        panic!()
    };
    assert_eq!(properties, &None, "too deep for properties");
}

#[test]
fn fields_static_and_instance() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            Statement::GetField {
                class: class("Values"),
                name: "label".into(),
                receiver: None,
                field_type: None,
            },
            Statement::PutField {
                class: class("Values"),
                name: "label".into(),
                receiver: None,
                value: string("changed"),
            },
            Statement::GetField {
                class: class("Values"),
                name: "label".into(),
                receiver: None,
                field_type: None,
            },
            Statement::PutField {
                class: class("Values"),
                name: "number".into(),
                receiver: None,
                // A short widens to int.
                value: Value::Short { value: -3 },
            },
            Statement::GetField {
                class: class("Values"),
                name: "number".into(),
                receiver: None,
                field_type: None,
            },
            Statement::New {
                class: class("Person"),
                descriptor: "(Ljava/lang/String;I)V".into(),
                args: vec![string("Cy"), int(40)],
            },
            Statement::PutField {
                class: class("Person"),
                name: "score".into(),
                receiver: Some(reference(5)),
                value: int(99),
            },
            Statement::GetField {
                class: class("Person"),
                name: "score".into(),
                receiver: Some(reference(5)),
                field_type: None,
            },
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(value_of(&outcome, 0).as_str(), Some("initial"));
    assert_eq!(outcome.statements[1], StatementOutcome::Void);
    assert_eq!(value_of(&outcome, 2).as_str(), Some("changed"));
    assert_eq!(value_of(&outcome, 4), &RenderedValue::Int { value: -3 });
    assert_eq!(value_of(&outcome, 7), &RenderedValue::Int { value: 99 });
}

#[test]
fn arrays_are_created_filled_and_passed() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            Statement::NewArray {
                element: "Ljava/lang/String;".into(),
                length: 3,
            },
            Statement::ArrayStore {
                array: reference(0),
                index: 0,
                value: string("a"),
            },
            Statement::ArrayStore {
                array: reference(0),
                index: 2,
                value: string("c"),
            },
            call_static(
                "Values",
                "join",
                "([Ljava/lang/String;)Ljava/lang/String;",
                vec![reference(0)],
            ),
            Statement::NewArray {
                element: "J".into(),
                length: 2,
            },
            Statement::ArrayStore {
                array: reference(4),
                index: 1,
                value: Value::Long { value: 1 << 40 },
            },
            call_static("Values", "sum", "([J)J", vec![reference(4)]),
            call_static("Values", "squares", "(I)[I", vec![int(4)]),
            Statement::ArrayStore {
                array: reference(7),
                index: 4,
                value: int(0),
            },
            call_static("Thrower", "touch", "()V", vec![]),
        ],
    );
    assert_eq!(value_of(&outcome, 3).as_str(), Some("a,null,c"));
    assert_eq!(
        value_of(&outcome, 6),
        &RenderedValue::Long { value: 1 << 40 }
    );
    let RenderedValue::Array {
        class, elements, ..
    } = value_of(&outcome, 7)
    else {
        panic!()
    };
    assert_eq!(class, "[I");
    assert_eq!(elements.as_ref().map(Vec::len), Some(4));
    // Storing out of bounds throws what Java throws.
    assert_eq!(outcome.status, PlanStatus::Exception { statement: 8 });
    let StatementOutcome::Threw { exception } = &outcome.statements[8] else {
        panic!("{outcome:#?}")
    };
    assert_eq!(exception.class, "java.lang.ArrayIndexOutOfBoundsException");
    assert_eq!(
        exception.message.as_deref(),
        Some("Index 4 out of bounds for length 4")
    );
    assert_eq!(outcome.statements[9], StatementOutcome::NotRun);
}

#[test]
fn an_exception_ends_the_plan() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            call_static("Thrower", "touch", "()V", vec![]),
            call_static(
                "Thrower",
                "fail",
                "(Ljava/lang/String;)I",
                vec![string("bad \"input\"")],
            ),
            call_static("Thrower", "touch", "()V", vec![]),
            call_static("Thrower", "touch", "()V", vec![]),
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Exception { statement: 1 });
    assert_eq!(outcome.statements[0], StatementOutcome::Void);
    let StatementOutcome::Threw { exception } = &outcome.statements[1] else {
        panic!("{outcome:#?}")
    };
    assert_eq!(exception.class, "java.lang.IllegalStateException");
    assert_eq!(exception.message.as_deref(), Some("bad \"input\""));
    // The code under test's frames only: nothing of reflection or the executor.
    assert_eq!(exception.frames.len(), 1, "{:#?}", exception.frames);
    assert_eq!(exception.frames[0].class, class("Thrower"));
    assert_eq!(exception.frames[0].method, "fail");
    assert_eq!(exception.frames[0].file.as_deref(), Some("Thrower.java"));
    assert!(exception.frames[0].line.is_some());
    let cause = exception.cause.as_ref().expect("a cause");
    assert_eq!(cause.class, "java.lang.IllegalArgumentException");
    assert_eq!(cause.message.as_deref(), Some("root cause"));
    assert_eq!(
        outcome.statements[2..],
        [StatementOutcome::NotRun, StatementOutcome::NotRun]
    );

    let outcome = run(
        &mut executor,
        vec![call_static(
            "Thrower",
            "divide",
            "(II)I",
            vec![int(1), int(0)],
        )],
    );
    let StatementOutcome::Threw { exception } = &outcome.statements[0] else {
        panic!("{outcome:#?}")
    };
    assert_eq!(exception.class, "java.lang.ArithmeticException");
    assert_eq!(exception.message.as_deref(), Some("/ by zero"));
}

#[test]
fn mistakes_in_plans_are_invalid_not_exceptions() {
    let mut executor = executor();
    let cases: Vec<(Statement, &str)> = vec![
        (
            call_static("Nope", "x", "()V", vec![]),
            "class not found: fixtures.executor.Nope",
        ),
        (
            call_static(
                "Values",
                "id",
                "(Ljava/util/List;)Ljava/util/List;",
                vec![Value::Null],
            ),
            "no method id(Ljava/util/List;)Ljava/util/List;",
        ),
        (
            call_static("Values", "id", "(I)I", vec![string("not an int")]),
            "argument 0 must be a int",
        ),
        (
            call_static("Values", "id", "(I)I", vec![Value::Long { value: 1 }]),
            "argument 0 must be a int",
        ),
        (
            call_static("Values", "sum3", "(III)I", vec![int(1)]),
            "expected 3 arguments, got 1",
        ),
        (
            call_static("Values", "secret", "()Ljava/lang/String;", vec![]),
            "is private",
        ),
        (
            call_static("Values", "id", "(I)I", vec![reference(0)]),
            "statement 0 has no value",
        ),
        (
            Statement::PutField {
                class: class("Values"),
                name: "CONSTANT".into(),
                receiver: None,
                value: int(1),
            },
            "is final",
        ),
        (
            call_static(
                "Values",
                "id",
                "(Lfixtures/executor/Color;)Lfixtures/executor/Color;",
                vec![Value::enum_constant(class("Color"), "PURPLE")],
            ),
            "no constant PURPLE",
        ),
    ];
    for (statement, reason) in cases {
        let outcome = run(&mut executor, vec![statement.clone(), statement]);
        assert_eq!(
            outcome.status,
            PlanStatus::Invalid { statement: 0 },
            "{reason}"
        );
        let StatementOutcome::Invalid { reason: actual } = &outcome.statements[0] else {
            panic!("{outcome:#?}")
        };
        assert!(actual.contains(reason), "{actual:?} should say {reason:?}");
        assert_eq!(outcome.statements[1], StatementOutcome::NotRun);
    }
    // Package-private members are fair game: a test in the same package can call them.
    let outcome = run(
        &mut executor,
        vec![call_static(
            "Values",
            "packagePrivate",
            "()Ljava/lang/String;",
            vec![],
        )],
    );
    assert_eq!(value_of(&outcome, 0).as_str(), Some("package-private"));
}

#[test]
fn jdk_classes_can_be_called_too() {
    let mut executor = executor();
    let outcome = run(
        &mut executor,
        vec![
            Statement::New {
                class: "java.util.ArrayList".into(),
                descriptor: "()V".into(),
                args: vec![],
            },
            Statement::Call {
                receiver: reference(0),
                class: "java.util.List".into(),
                name: "add".into(),
                descriptor: "(Ljava/lang/Object;)Z".into(),
                args: vec![string("x")],
            },
            Statement::Call {
                receiver: reference(0),
                class: "java.util.ArrayList".into(),
                name: "size".into(),
                descriptor: "()I".into(),
                args: vec![],
            },
            Statement::CallStatic {
                class: "java.lang.Math".into(),
                name: "abs".into(),
                descriptor: "(I)I".into(),
                args: vec![int(i32::MIN)],
            },
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(
        value_of(&outcome, 1),
        &RenderedValue::Boolean { value: true }
    );
    assert_eq!(value_of(&outcome, 2), &RenderedValue::Int { value: 1 });
    assert_eq!(
        value_of(&outcome, 3),
        &RenderedValue::Int { value: i32::MIN }
    );
}

#[test]
fn a_lambda_returns_its_result_and_runs_its_interfaces_default_methods() {
    let mut executor = executor();
    let predicate = |result: bool| Statement::Lambda {
        interface: "java.util.function.Predicate".into(),
        method: "test".into(),
        descriptor: "(Ljava/lang/Object;)Z".into(),
        result: Some(Value::Boolean { value: result }),
    };
    let test = |receiver: usize| Statement::Call {
        receiver: reference(receiver),
        class: "java.util.function.Predicate".into(),
        name: "test".into(),
        descriptor: "(Ljava/lang/Object;)Z".into(),
        args: vec![string("anything")],
    };
    let outcome = run(
        &mut executor,
        vec![
            predicate(true),
            test(0),
            // `negate` is a default method: the interface's own code.
            Statement::Call {
                receiver: reference(0),
                class: "java.util.function.Predicate".into(),
                name: "negate".into(),
                descriptor: "()Ljava/util/function/Predicate;".into(),
                args: vec![],
            },
            test(2),
            Statement::Lambda {
                interface: "java.lang.Runnable".into(),
                method: "run".into(),
                descriptor: "()V".into(),
                result: None,
            },
            Statement::Call {
                receiver: reference(4),
                class: "java.lang.Runnable".into(),
                name: "run".into(),
                descriptor: "()V".into(),
                args: vec![],
            },
        ],
    );
    assert_eq!(outcome.status, PlanStatus::Completed, "{outcome:#?}");
    assert_eq!(
        value_of(&outcome, 1),
        &RenderedValue::Boolean { value: true }
    );
    assert_eq!(
        value_of(&outcome, 3),
        &RenderedValue::Boolean { value: false }
    );
    // A class is no interface, and a result must fit the method.
    let outcome = run(
        &mut executor,
        vec![Statement::Lambda {
            interface: "java.lang.String".into(),
            method: "length".into(),
            descriptor: "()I".into(),
            result: Some(int(1)),
        }],
    );
    assert_eq!(
        outcome.status,
        PlanStatus::Invalid { statement: 0 },
        "{outcome:#?}"
    );
    let outcome = run(
        &mut executor,
        vec![predicate(true), {
            let mut wrong = predicate(true);
            if let Statement::Lambda { result, .. } = &mut wrong {
                *result = Some(string("not a boolean"));
            }
            wrong
        }],
    );
    assert_eq!(
        outcome.status,
        PlanStatus::Invalid { statement: 1 },
        "{outcome:#?}"
    );
}

#[test]
fn getters_with_effects_are_not_called_to_describe_a_value() {
    let plan = || {
        vec![
            Statement::New {
                class: class("Cursor"),
                descriptor: "()V".into(),
                args: vec![],
            },
            Statement::Call {
                receiver: reference(0),
                class: class("Cursor"),
                name: "getPosition".into(),
                descriptor: "()I".into(),
                args: vec![],
            },
        ]
    };
    // Described with every getter, the new cursor has already moved.
    let mut executor = executor();
    let moved = run(&mut executor, plan());
    assert_eq!(value_of(&moved, 1), &RenderedValue::Int { value: 1 });

    let avoided = std::collections::BTreeMap::from([(
        class("Cursor"),
        std::collections::BTreeSet::from(["getNext".to_string()]),
    )]);
    executor.define_with_getters(&[], avoided).unwrap();
    let outcome = run(&mut executor, plan());
    assert_eq!(value_of(&outcome, 1), &RenderedValue::Int { value: 0 });
    let described = properties(value_of(&outcome, 0));
    assert_eq!(
        property_value(described, "getPosition"),
        &RenderedValue::Int { value: 0 }
    );
    assert!(
        described.iter().all(|p| p.name != "getNext"),
        "{described:#?}"
    );

    // A restart (after a plan that exhausts the heap) keeps them avoided.
    let hog = run(
        &mut executor,
        vec![call_static("Hostile", "hog", "()I", vec![])],
    );
    assert!(hog.restarted, "{hog:#?}");
    let outcome = run(&mut executor, plan());
    assert_eq!(value_of(&outcome, 1), &RenderedValue::Int { value: 0 });
}
