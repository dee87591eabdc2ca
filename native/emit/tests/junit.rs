//! Generated test classes compiled with the real javac and run with the
//! real JUnit (5 and 4), on plans run by the real executor.

mod support;

use std::time::Instant;

use support::*;
use testgen_emit::{emit, validate_and_prune, JUnit, TestCase, TestClass, Validated};
use testgen_exec::{Executor, Value};

const CART: &str = "fixtures.explore.Cart";
const ITEM: &str = "fixtures.explore.Item";
const ITEM_NEW: &str = "(Ljava/lang/String;II)V";
const VALUES: &str = "fixtures.emit.Values";

fn item(name: &str, price: i32, quantity: i32) -> testgen_exec::Statement {
    new(
        ITEM,
        ITEM_NEW,
        vec![string(name), int(price), int(quantity)],
    )
}

fn cart_cases(executor: &mut Executor) -> Vec<TestCase> {
    let line_total = |e: &mut Executor, quantity| {
        case(
            e,
            vec![
                item("apple", 150, quantity),
                call_static(
                    CART,
                    "lineTotal",
                    "(Lfixtures/explore/Item;)J",
                    vec![reference(0)],
                ),
            ],
            &["item"],
        )
    };
    vec![
        line_total(executor, 10),
        line_total(executor, 0),
        case(
            executor,
            vec![call_static(
                CART,
                "lineTotal",
                "(Lfixtures/explore/Item;)J",
                vec![Value::Null],
            )],
            &["item"],
        ),
        case(
            executor,
            vec![
                item("crate", 999, 500),
                call_static(
                    CART,
                    "describe",
                    "(Ljava/lang/Object;)Ljava/lang/String;",
                    vec![reference(0)],
                ),
            ],
            &["value"],
        ),
        case(
            executor,
            vec![call_static(
                CART,
                "describe",
                "(Ljava/lang/Object;)Ljava/lang/String;",
                vec![string("tab\there")],
            )],
            &["value"],
        ),
        case(
            executor,
            vec![call_static(
                CART,
                "nameOf",
                "(Ljava/lang/Object;)Ljava/lang/String;",
                vec![string("not an item")],
            )],
            &["value"],
        ),
        case(
            executor,
            vec![
                item("pear", 80, 3),
                call_static(
                    CART,
                    "nameOf",
                    "(Ljava/lang/Object;)Ljava/lang/String;",
                    vec![reference(0)],
                ),
            ],
            &["value"],
        ),
        case(
            executor,
            vec![
                item("pear", 80, 3),
                item("pear", 80, 7),
                call_static(
                    CART,
                    "sameProduct",
                    "(Lfixtures/explore/Item;Lfixtures/explore/Item;)Z",
                    vec![reference(0), reference(1)],
                ),
            ],
            &["a", "b"],
        ),
        case(
            executor,
            vec![item("fig", 20, 101)],
            &["name", "priceCents", "quantity"],
        ),
    ]
}

fn validated(class: &TestClass) -> Validated {
    let started = Instant::now();
    let validated =
        validate_and_prune(class, &validator(class.junit)).unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "validated {} ({:?}) in {:.1?}, {} round(s)",
        validated.emitted.class_name,
        class.junit,
        started.elapsed(),
        validated.rounds
    );
    validated
}

#[test]
fn cart_tests_compile_and_pass_on_junit_5_and_4() {
    let mut executor = executor();
    let cases = cart_cases(&mut executor);
    for junit in [JUnit::Five, JUnit::Four] {
        let class = class(CART, junit, cases.clone());
        let validated = validated(&class);
        println!("{}", validated.emitted.source);
        assert!(validated.dropped.is_empty(), "{:#?}", validated.dropped);
        assert_eq!(validated.rounds, 1);
        assert_eq!(validated.emitted.methods.len(), cases.len());
    }
}

fn values_cases(executor: &mut Executor) -> Vec<TestCase> {
    let call =
        |e: &mut Executor, name: &str, descriptor: &str, args: Vec<Value>, params: &[&str]| {
            case(e, vec![call_static(VALUES, name, descriptor, args)], params)
        };
    let d = Value::double;
    let f = Value::float;
    vec![
        call(executor, "half", "(D)D", vec![d(0.2)], &["x"]),
        call(executor, "half", "(D)D", vec![d(f64::MIN_POSITIVE)], &["x"]),
        call(executor, "negate", "(D)D", vec![d(0.0)], &["x"]),
        call(
            executor,
            "negate",
            "(D)D",
            vec![d(f64::NEG_INFINITY)],
            &["x"],
        ),
        call(executor, "root", "(D)D", vec![d(-1.0)], &["x"]),
        call(
            executor,
            "ratio",
            "(FF)F",
            vec![f(0.0), f(0.0)],
            &["a", "b"],
        ),
        call(
            executor,
            "ratio",
            "(FF)F",
            vec![f(1.0), f(3.0)],
            &["a", "b"],
        ),
        call(
            executor,
            "ratio",
            "(FF)F",
            vec![f(-0.0), f(5.0)],
            &["a", "b"],
        ),
        call(
            executor,
            "quote",
            "(Ljava/lang/String;)Ljava/lang/String;",
            vec![string("a'b\\c\u{0}\u{1F600}")],
            &["s"],
        ),
        call(
            executor,
            "quote",
            "(Ljava/lang/String;)Ljava/lang/String;",
            vec![Value::String {
                value: testgen_exec::JavaString::from_utf16(vec![0x61, 0xd800]),
            }],
            &["s"],
        ),
        call(
            executor,
            "firstChar",
            "(Ljava/lang/String;)C",
            vec![string("\n")],
            &["s"],
        ),
        call(
            executor,
            "firstChar",
            "(Ljava/lang/String;)C",
            vec![string("\u{e9}t\u{e9}")],
            &["s"],
        ),
        call(executor, "lowByte", "(I)B", vec![int(253)], &["x"]),
        call(executor, "toShort", "(I)S", vec![int(7)], &["x"]),
        call(
            executor,
            "twice",
            "(J)J",
            vec![Value::Long {
                value: i64::MAX / 2,
            }],
            &["x"],
        ),
        call(
            executor,
            "twice",
            "(J)J",
            vec![Value::Long {
                value: i64::MIN / 2,
            }],
            &["x"],
        ),
        call(executor, "range", "(I)[I", vec![int(4)], &["n"]),
        call(executor, "range", "(I)[I", vec![int(40)], &["n"]),
        call(
            executor,
            "halves",
            "(DD)[D",
            vec![d(1.0), d(f64::NAN)],
            &["a", "b"],
        ),
        call(
            executor,
            "boxed",
            "(I)Ljava/lang/Object;",
            vec![int(i32::MIN)],
            &["x"],
        ),
        call(
            executor,
            "words",
            "(Ljava/lang/String;)[Ljava/lang/String;",
            vec![string("to be")],
            &["s"],
        ),
        call(executor, "anonymous", "()Ljava/lang/String;", vec![], &[]),
        call(executor, "now", "()J", vec![], &[]),
        call(
            executor,
            "bigger",
            "(Lfixtures/emit/Values$Size;)Lfixtures/emit/Values$Size;",
            vec![Value::enum_constant("fixtures.emit.Values$Size", "SMALL")],
            &["size"],
        ),
        call(
            executor,
            "pair",
            "(ILjava/lang/String;)Lfixtures/emit/Values$Pair;",
            vec![int(0), Value::Null],
            &["count", "label"],
        ),
        call(
            executor,
            "pair",
            "(ILjava/lang/String;)Lfixtures/emit/Values$Pair;",
            vec![int(-2), string("x")],
            &["count", "label"],
        ),
        call(
            executor,
            "length",
            "(Ljava/lang/String;)I",
            vec![Value::Null],
            &["s"],
        ),
    ]
}

#[test]
fn literals_and_assertions_are_exact_on_junit_5_and_4() {
    let mut executor = executor();
    let cases = values_cases(&mut executor);
    let mut sources = Vec::new();
    for junit in [JUnit::Five, JUnit::Four] {
        let class = class(VALUES, junit, cases.clone());
        let validated = validated(&class);
        println!("{}", validated.emitted.source);
        assert!(validated.dropped.is_empty(), "{:#?}", validated.dropped);
        assert_eq!(validated.emitted.methods.len(), cases.len());
        sources.push(validated.emitted.source);
    }
    let five = &sources[0];
    for expected in [
        "assertEquals(0.1, result);",
        "assertEquals(-0.0, result);",
        "assertEquals(Double.POSITIVE_INFINITY, result);",
        "assertTrue(Double.isNaN(result));",
        "assertTrue(Float.isNaN(result));",
        "assertEquals(0.33333334f, result);",
        "assertEquals(-0.0f, result);",
        "Values.half(Double.MIN_NORMAL)",
        "Values.quote(\"a'b\\\\c\\u0000\\ud83d\\ude00\")",
        "Values.quote(\"a\\ud800\")",
        "assertEquals('\\n', result);",
        "assertEquals('\\u00e9', result);",
        "assertEquals((byte) -3, result);",
        "assertEquals((short) 7, result);",
        "assertEquals(9223372036854775806L, result);",
        "assertEquals(Long.MIN_VALUE, result);",
        "assertArrayEquals(new int[] {0, 1, 4, 9}, result);",
        "assertEquals(40, result.length);",
        "assertArrayEquals(new double[] {0.5, Double.NaN}, result);",
        "assertEquals(Integer.valueOf(Integer.MIN_VALUE), result);",
        "assertArrayEquals(new String[] {\"to\", \"be\"}, result);",
        "assertEquals(Values.Size.LARGE, result);",
        "Values.bigger(Values.Size.SMALL)",
        "assertNull(result.getLabel());",
        "assertTrue(result.isEmpty());",
        "assertEquals(\"count -2 < 0\", thrown.getMessage());",
        // The JVM's own NullPointerException message differs between JDKs.
        "assertThrows(NullPointerException.class, () -> Values.length((String) null));",
        "void halfReturns1Point112536EMinus308()",
        "void nowSucceeds()",
        "        Values.now();\n    }",
        "void halfReturns0Point1()",
        "void negateReturnsNegativeZero()",
        "void rootReturnsNaN()",
        "void pairThrowsIllegalArgumentException()",
        "void ratioReturnsNaN()",
    ] {
        assert!(five.contains(expected), "missing {expected} in\n{five}");
    }
    // Values that differ between runs, or carry an identity hash, are not asserted.
    let anonymous = method_body(five, "anonymous");
    assert!(!anonymous.contains("assert"), "{anonymous}");
    let now = method_body(five, "now");
    assert!(!now.contains("assert"), "{now}");

    let four = &sources[1];
    for expected in [
        "assertEquals(0.1, result, 0.0);",
        "assertEquals(Double.doubleToLongBits(-0.0), Double.doubleToLongBits(result));",
        "assertEquals(Float.floatToIntBits(-0.0f), Float.floatToIntBits(result));",
        "assertArrayEquals(new double[] {0.5, Double.NaN}, result, 0.0);",
        "public void halfReturns0Point1()",
    ] {
        assert!(four.contains(expected), "missing {expected} in\n{four}");
    }
}

/// The text of the first test method whose name starts with `prefix`.
fn method_body<'a>(source: &'a str, prefix: &str) -> &'a str {
    let start = source
        .find(&format!("void {prefix}"))
        .unwrap_or_else(|| panic!("no method {prefix} in\n{source}"));
    let end = source[start..].find("\n    }\n").unwrap() + start;
    &source[start..end]
}

#[test]
fn state_after_the_act_is_asserted_through_getters() {
    let mut executor = executor();
    const COIN_BOX: &str = "fixtures.explore.CoinBox";
    const PERSON: &str = "fixtures.executor.Person";
    let coin = |n| call(0, COIN_BOX, n, "()V", vec![]);
    let coin_cases = vec![
        case(
            &mut executor,
            vec![
                new(COIN_BOX, "()V", vec![]),
                coin("addQuarter"),
                coin("addQuarter"),
                call(0, COIN_BOX, "vend", "()Z", vec![]),
            ],
            &[],
        ),
        case(
            &mut executor,
            vec![
                new(COIN_BOX, "()V", vec![]),
                coin("addQuarter"),
                coin("addQuarter"),
                call(0, COIN_BOX, "returnQuarters", "()I", vec![]),
                call(0, COIN_BOX, "vend", "()Z", vec![]),
            ],
            &[],
        ),
    ];
    let person_cases = vec![
        case(
            &mut executor,
            vec![
                new(
                    PERSON,
                    "(Ljava/lang/String;I)V",
                    vec![string("Ada"), int(30)],
                ),
                call(0, PERSON, "birthday", "()V", vec![]),
            ],
            &[],
        ),
        case(
            &mut executor,
            vec![
                new(
                    PERSON,
                    "(Ljava/lang/String;I)V",
                    vec![string("Ada"), int(30)],
                ),
                new(
                    PERSON,
                    "(Ljava/lang/String;I)V",
                    vec![string("Bob"), int(12)],
                ),
                call(
                    0,
                    PERSON,
                    "setFriend",
                    "(Lfixtures/executor/Person;)V",
                    vec![reference(1)],
                ),
            ],
            &["friend"],
        ),
        case(
            &mut executor,
            vec![
                new(
                    PERSON,
                    "(Ljava/lang/String;I)V",
                    vec![string("Ada"), int(30)],
                ),
                call(
                    0,
                    PERSON,
                    "greet",
                    "(Ljava/lang/String;)Ljava/lang/String;",
                    vec![string("Bob")],
                ),
            ],
            &["other"],
        ),
        case(
            &mut executor,
            vec![new(
                PERSON,
                "(Ljava/lang/String;I)V",
                vec![string("Ada"), int(30)],
            )],
            &["name", "age"],
        ),
    ];
    for junit in [JUnit::Five, JUnit::Four] {
        for (name, cases) in [(COIN_BOX, &coin_cases), (PERSON, &person_cases)] {
            let validated = validated(&class(name, junit, cases.clone()));
            let source = &validated.emitted.source;
            println!("{source}");
            assert!(validated.dropped.is_empty(), "{:#?}", validated.dropped);
            assert_eq!(validated.emitted.methods.len(), cases.len());
        }
    }
    let coin_box = emit(&class(COIN_BOX, JUnit::Five, coin_cases)).source;
    for expected in [
        "void vendReturnsTrue()",
        "CoinBox coinBox = new CoinBox();\n        coinBox.addQuarter();",
        "assertEquals(2, coinBox.getTotalQuarters());",
        "void vendThrowsIllegalStateException()",
        "coinBox.returnQuarters();",
        "IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> coinBox.vend());",
        "assertEquals(\"free vend\", thrown.getMessage());",
    ] {
        assert!(coin_box.contains(expected), "missing {expected} in\n{coin_box}");
    }
    let person = emit(&class(PERSON, JUnit::Five, person_cases)).source;
    for expected in [
        "void birthdaySetsAgeTo31()",
        "person.birthday();\n\n        assertEquals(31, person.getAge());",
        "void setFriendSetsFriendToPerson()",
        "void newPersonHasAge30()",
        "person.setFriend(person2);",
        "assertSame(person2, person.getFriend());",
        "void greetReturnsHelloBobIAm()",
        "assertEquals(\"Hello Bob, I am Ada\", result);",
    ] {
        assert!(person.contains(expected), "missing {expected} in\n{person}");
    }
}

#[test]
fn what_a_method_writes_into_an_argument_is_asserted() {
    const BANNER: &str = "fixtures.emit.Banner";
    let mut executor = executor();
    let buffer = || new("java.lang.StringBuilder", "()V", vec![]);
    let cases = vec![
        case(
            &mut executor,
            vec![
                buffer(),
                call_static(
                    BANNER,
                    "greet",
                    "(Ljava/lang/StringBuilder;Ljava/lang/String;)V",
                    vec![reference(0), string("Bob")],
                ),
            ],
            &["out", "name"],
        ),
        case(
            &mut executor,
            vec![
                buffer(),
                call_static(
                    BANNER,
                    "width",
                    "(Ljava/lang/StringBuilder;)I",
                    vec![reference(0)],
                ),
            ],
            &["text"],
        ),
    ];
    let dropped = validated(&class(BANNER, JUnit::Five, cases.clone())).dropped;
    assert!(dropped.is_empty(), "{dropped:#?}");
    let source = emit(&class(BANNER, JUnit::Five, cases)).source;
    let greet = method_body(&source, "greetWritesHelloBob()");
    assert!(
        greet.contains("assertEquals(\"Hello, Bob\", stringBuilder.toString());"),
        "{source}"
    );
    // A buffer the method only reads is not asserted on.
    let width = method_body(&source, "widthReturns2()");
    assert!(!width.contains("toString()"), "{source}");

    // Text written with the machine's line separator, rerun under `\r\n`:
    // asserted with the separator made `\n`, and passes here.
    let mut line = case(
        &mut executor,
        vec![
            buffer(),
            call_static(
                BANNER,
                "greetLine",
                "(Ljava/lang/StringBuilder;Ljava/lang/String;)V",
                vec![reference(0), string("Bob")],
            ),
        ],
        &["out", "name"],
    );
    let settings = testgen_exec::RunSettings {
        environment: testgen_exec::Environment {
            line_separator: Some("\r\n".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    line.reruns.push(testgen_emit::Rerun {
        exposes: testgen_emit::Cause::LineSeparator,
        outcome: executor.run_with(&line.plan, &settings).unwrap(),
    });
    let lines = class(BANNER, JUnit::Five, vec![line]);
    let dropped = validated(&lines).dropped;
    assert!(dropped.is_empty(), "{dropped:#?}");
    let source = emit(&lines).source;
    assert!(
        source.contains(
            "assertEquals(\"Hello, Bob\\n\", String.valueOf(stringBuilder.toString()).replace(System.lineSeparator(), \"\\n\"));"
        ),
        "{source}"
    );
}

#[test]
fn failing_and_uncompilable_tests_are_pruned() {
    let mut executor = executor();
    let good = case(
        &mut executor,
        vec![call_static(
            "fixtures.explore.IntRules",
            "clamp",
            "(III)I",
            vec![int(20), int(0), int(10)],
        )],
        &["x", "min", "max"],
    );
    // A hand-broken expectation: both runs "returned" 11.
    let mut wrong = case(
        &mut executor,
        vec![call_static(
            "fixtures.explore.IntRules",
            "clamp",
            "(III)I",
            vec![int(-4), int(0), int(10)],
        )],
        &["x", "min", "max"],
    );
    for outcome in [&mut wrong.first, &mut wrong.second] {
        outcome.statements[0] = testgen_exec::StatementOutcome::Value {
            value: testgen_exec::RenderedValue::Int { value: 11 },
        };
    }
    // A plan naming a class javac cannot see: the method does not compile.
    let mut missing = good.clone();
    if let testgen_exec::Statement::CallStatic { class, .. } = &mut missing.plan.statements[0] {
        *class = "fixtures.explore.Missing".into();
    }
    // Runs that disagree on the act's result: the assertion is left out.
    let mut unstable = case(
        &mut executor,
        vec![call_static(
            "fixtures.explore.IntRules",
            "clamp",
            "(III)I",
            vec![int(5), int(0), int(10)],
        )],
        &["x", "min", "max"],
    );
    unstable.second.statements[0] = testgen_exec::StatementOutcome::Value {
        value: testgen_exec::RenderedValue::Int { value: 6 },
    };
    for junit in [JUnit::Five, JUnit::Four] {
        let class = class(
            "fixtures.explore.IntRules",
            junit,
            vec![
                good.clone(),
                wrong.clone(),
                missing.clone(),
                unstable.clone(),
            ],
        );
        let validated = validated(&class);
        let source = &validated.emitted.source;
        println!("{source}");
        let kept: Vec<usize> = validated.emitted.methods.iter().map(|m| m.case).collect();
        assert_eq!(kept, [0, 3], "{:#?}", validated.dropped);
        let mut dropped: Vec<(usize, &str)> = validated
            .dropped
            .iter()
            .map(|d| (d.case, d.reason.as_str()))
            .collect();
        dropped.sort();
        assert_eq!(dropped.len(), 2, "{dropped:#?}");
        assert_eq!(dropped[0].0, 1);
        assert!(dropped[0].1.contains("11"), "{dropped:#?}");
        assert_eq!(dropped[1].0, 2);
        assert!(dropped[1].1.starts_with("does not compile"), "{dropped:#?}");
        assert_eq!(validated.rounds, 3);
        assert!(source.contains("assertEquals(10, result);"), "{source}");
        assert!(!source.contains("assertEquals(5, result)"), "{source}");
        assert!(!source.contains("Missing"), "{source}");
    }
}

#[test]
fn output_is_byte_identical_for_the_same_input_and_for_new_runs() {
    let mut executor = executor();
    let first = emit(&class(CART, JUnit::Five, cart_cases(&mut executor)));
    let again = emit(&class(CART, JUnit::Five, cart_cases(&mut executor)));
    assert_eq!(first, again);
    let values = class(VALUES, JUnit::Four, values_cases(&mut executor));
    assert_eq!(emit(&values).source, emit(&values).source);
    // Fresh runs: identity hashes and timings differ, the source does not.
    let mut other = support::executor();
    let rerun = class(VALUES, JUnit::Four, values_cases(&mut other));
    assert_eq!(emit(&values).source, emit(&rerun).source);
}

#[test]
fn a_case_that_reads_the_same_as_an_earlier_one_is_left_out() {
    let mut executor = executor();
    let mut cases = cart_cases(&mut executor);
    let twice = cases[0].clone();
    cases.push(twice);
    let last = cases.len() - 1;
    let emitted = emit(&class(CART, JUnit::Five, cases.clone()));
    assert!(
        emitted.methods.iter().all(|m| m.case != last),
        "the repeated case got a method"
    );
    let skipped = emitted
        .skipped
        .iter()
        .find(|s| s.case == last)
        .expect("the repeated case is reported as skipped");
    assert_eq!(skipped.reason, "reads the same as test case 0");
    assert_eq!(
        emitted.methods.len(),
        emit(&class(CART, JUnit::Five, cases[..last].to_vec()))
            .methods
            .len()
    );
}
