//! What a generated test class is made of, before it is written: the
//! class under test, one [`TestCase`] per executed plan with every run of
//! it, and what the written source holds ([`EmittedClass`]).
//!
//! A test case carries the runs that decide what may be asserted: the
//! first, a second under the same conditions, and [`Rerun`]s under other
//! conditions (another locale, time zone or line separator; after the
//! class's other tests). Only what every run agrees on is asserted; a
//! difference is charged to the [`Cause`] of the run that showed it.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use testgen_exec::{Plan, PlanOutcome, Statement, Value};

use crate::generics::Signatures;
use crate::names;

/// Which JUnit the tests are written for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum JUnit {
    /// JUnit Jupiter (`org.junit.jupiter.api`).
    #[default]
    Five,
    /// JUnit 4.13 (`org.junit`); 4.13 is the first with `assertThrows`.
    Four,
}

/// The version of [`TestClass`]'s serialised form, stored with it (the
/// driver's cache): bumped whenever that form or its meaning changes. The
/// snapshot tests' models (`fixtures/emit`) are recorded in it.
pub const TEST_CLASS_FORMAT: u32 = 1;

/// Everything one generated test class is made of.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestClass {
    /// Binary name of the class under test, e.g. `fixtures.explore.Cart`.
    pub class_under_test: String,
    /// SHA-256 of the class file, in hex.
    pub sha256: String,
    pub testgen_version: String,
    pub junit: JUnit,
    pub tests: Vec<TestCase>,
    /// Called before and after every test, when the class under test keeps
    /// static state that tests would otherwise pass on to one another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_reset: Option<StaticReset>,
    /// The generic signatures of the program's classes and methods the
    /// plans use, for the type arguments of the generated code.
    #[serde(default, skip_serializing_if = "is_default")]
    pub signatures: Signatures,
}

fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// One plan and what its runs did.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestCase {
    pub plan: Plan,
    pub first: PlanOutcome,
    /// The same plan run again under the same conditions.
    pub second: PlanOutcome,
    /// The plan run under other conditions. Only what the first, the second
    /// and every rerun agree on is asserted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reruns: Vec<Rerun>,
    /// Names of the act's parameters from the class file, if known (used
    /// to tell tests apart: `...WhenMaxIs20`); may be empty.
    pub parameter_names: Vec<String>,
    /// Printed with erased types: javac rejected the type arguments
    /// inferred for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub erased_types: bool,
    /// Properties (getter names) of the objects observed after the act to
    /// assert even where the act left them as they were made: each catches
    /// a fault the test's other assertions miss (`--mutation select`).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub also_assert: BTreeSet<String>,
}

impl TestCase {
    /// The runs besides the first, each with the cause a difference from
    /// the first is charged to: the second run (nondeterminism), then the
    /// reruns.
    pub fn other_runs(&self) -> impl Iterator<Item = (Cause, &PlanOutcome)> {
        std::iter::once((Cause::Nondeterminism, &self.second)).chain(
            self.reruns
                .iter()
                .map(|rerun| (rerun.exposes, &rerun.outcome)),
        )
    }
}

/// A run of a test case's plan under a condition other than the first's.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Rerun {
    /// What a difference from the first run would show the test depends on.
    pub exposes: Cause,
    pub outcome: PlanOutcome,
}

/// What a test's outcome turned out to depend on, so that it was dropped
/// or an assertion was left out: each a way the user's build (another
/// machine, another order, another JVM option) could see it fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Two runs under the same conditions differed (time, randomness,
    /// identity hashes).
    Nondeterminism,
    /// `assert` statements of the code under test: the test failed with an
    /// `AssertionError` they threw under the build's `-ea`/`-da` setting.
    Assertions,
    /// The default locale (`tr-TR` in place of the machine's).
    Locale,
    /// The default time zone (`Asia/Kathmandu`, 5:45 ahead of UTC).
    TimeZone,
    /// The line separator (`\r\n` in place of `\n`).
    LineSeparator,
    /// The order the class's tests run in.
    Order,
    /// Static state: what the class's other tests leave behind, or its
    /// absence when the test runs alone.
    StaticState,
    /// Another machine's defaults together, where no single one of them
    /// (locale, time zone, line separator) explains the difference.
    Environment,
}

impl Cause {
    /// The name used in reports (`time_zone`).
    pub fn name(self) -> &'static str {
        match self {
            Cause::Nondeterminism => "nondeterminism",
            Cause::Assertions => "assertions",
            Cause::Locale => "locale",
            Cause::TimeZone => "time_zone",
            Cause::LineSeparator => "line_separator",
            Cause::Order => "order",
            Cause::StaticState => "static_state",
            Cause::Environment => "environment",
        }
    }
}

/// A public static method of the class under test without parameters that
/// puts its static state back as a fresh JVM has it (checked by running the
/// tests after one another with it in between). The emitted class calls it
/// before and after every test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaticReset {
    /// Binary name of the class that declares it.
    pub class: String,
    pub method: String,
}

/// The generated source and where each test method came from.
#[derive(Clone, Debug, PartialEq)]
pub struct EmittedClass {
    /// The package (`""` for the unnamed package).
    pub package: String,
    /// Simple name of the test class, e.g. `CartGeneratedTest`.
    pub class_name: String,
    pub junit: JUnit,
    /// Relative path of the source file: `fixtures/explore/CartGeneratedTest.java`.
    pub path: PathBuf,
    pub source: String,
    /// The test methods in source order.
    pub methods: Vec<EmittedMethod>,
    /// Test cases that gave no method, with the reason.
    pub skipped: Vec<Skipped>,
}

impl EmittedClass {
    /// Binary name of the test class.
    pub fn binary_name(&self) -> String {
        if self.package.is_empty() {
            self.class_name.clone()
        } else {
            format!("{}.{}", self.package, self.class_name)
        }
    }

    /// The method whose source spans line `line` (1-based).
    pub fn method_at_line(&self, line: usize) -> Option<&EmittedMethod> {
        self.methods
            .iter()
            .find(|m| m.first_line <= line && line <= m.last_line)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmittedMethod {
    pub name: String,
    /// Index into [`TestClass::tests`].
    pub case: usize,
    /// 1-based lines of the method, annotation to closing brace.
    pub first_line: usize,
    pub last_line: usize,
    /// Why assertions the first run would support were left out: the causes
    /// of the runs that disagreed (each once).
    pub left_out: Vec<Cause>,
}

/// A test case that gave no method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub case: usize,
    pub reason: String,
    /// When the case was left out because a run under another condition
    /// behaved differently (it threw where the first did not, ...).
    pub cause: Option<Cause>,
}

/// What the header line of a generated file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub testgen_version: String,
    /// Path of the class file under test: `fixtures/explore/Cart.class`.
    pub class_file: String,
    pub sha256: String,
}

const HEADER_PREFIX: &str = "// Generated by testgen ";
const HEADER_SUFFIX: &str = "; do not edit (regenerated).";

/// The first line of a generated file.
pub fn header_line(class: &TestClass) -> String {
    format!(
        "{HEADER_PREFIX}{} from {}.class sha256={}{HEADER_SUFFIX}",
        class.testgen_version,
        class.class_under_test.replace('.', "/"),
        class.sha256
    )
}

/// Recognises the header line of a file testgen wrote.
pub fn parse_header(first_line: &str) -> Option<Header> {
    let rest = first_line
        .trim_end_matches(['\r', '\n'])
        .strip_prefix(HEADER_PREFIX)?
        .strip_suffix(HEADER_SUFFIX)?;
    let (version, rest) = rest.split_once(" from ")?;
    let (class_file, sha256) = rest.rsplit_once(" sha256=")?;
    let valid = !version.is_empty()
        && !version.contains(' ')
        && class_file.ends_with(".class")
        && !sha256.is_empty()
        && sha256.bytes().all(|b| b.is_ascii_hexdigit());
    valid.then(|| Header {
        testgen_version: version.to_string(),
        class_file: class_file.to_string(),
        sha256: sha256.to_string(),
    })
}

/// `CartGeneratedTest` for `fixtures.explore.Cart`, `Outer_InnerGeneratedTest`
/// for `a.Outer$Inner`.
pub fn test_class_name(class_under_test: &str) -> String {
    let simple = class_under_test
        .rsplit('.')
        .next()
        .unwrap_or(class_under_test);
    format!(
        "{}GeneratedTest",
        names::identifier(&simple.replace('$', "_"))
    )
}

const OBSERVE_CLASS: &str = "java.util.Objects";
const OBSERVE_NAME: &str = "requireNonNull";
const OBSERVE_DESCRIPTOR: &str = "(Ljava/lang/Object;)Ljava/lang/Object;";

/// A statement that returns the result of statement `statement` unchanged
/// (`Objects.requireNonNull`), so that the executor summarises the object's
/// state at that point. Appended after the act, it lets the test assert the
/// state the act left behind; it is never written as code.
pub fn observe(statement: usize) -> Statement {
    Statement::CallStatic {
        class: OBSERVE_CLASS.to_string(),
        name: OBSERVE_NAME.to_string(),
        descriptor: OBSERVE_DESCRIPTOR.to_string(),
        args: vec![Value::Ref { statement }],
    }
}

/// Arguments of the act observed after it, at most.
const MAX_OBSERVED_ARGUMENTS: usize = 3;

/// `plan` with [`observe`]s appended of what the act may have changed: its
/// receiver, when it is an instance call on an earlier statement's result,
/// then each object argument no statement touched between its making and
/// the act (a `StringBuilder` a method writes into), so that what the
/// object was made as is what it was just before the act, and each object
/// such an argument was made to wrap (the `StringWriter` under a
/// `PrintWriter`). A plan that already ends with an observation is
/// returned as it is.
pub fn with_state_observed(plan: &Plan) -> Plan {
    let mut plan = plan.clone();
    let Some(act) = plan.statements.len().checked_sub(1) else {
        return plan;
    };
    let (receiver, args) = match &plan.statements[act] {
        Statement::Call { receiver, args, .. } => (Some(receiver), args.as_slice()),
        Statement::CallStatic { args, .. } if observed(&plan.statements[act]).is_none() => {
            (None, args.as_slice())
        }
        Statement::New { args, .. } => (None, args.as_slice()),
        _ => return plan,
    };
    let statements = &plan.statements;
    let refs = |values: &[Value]| -> Vec<usize> {
        values
            .iter()
            .filter_map(|value| match value {
                Value::Ref { statement } => Some(*statement),
                _ => None,
            })
            .collect()
    };
    // Touched by no statement before the act but `wrapper`.
    let untouched = |made: usize, wrapper: Option<usize>| {
        (made + 1..act).all(|index| {
            Some(index) == wrapper || !crate::emit::refers_to(&statements[index], made)
        })
    };
    let makes_object = |made: usize| {
        matches!(
            statements[made],
            Statement::New { .. } | Statement::Call { .. } | Statement::CallStatic { .. }
        )
    };
    let mut targets: Vec<usize> = Vec::new();
    if let Some(Value::Ref { statement }) = receiver {
        targets.push(*statement);
    }
    let mut arguments = Vec::new();
    for made in refs(args) {
        if makes_object(made) && untouched(made, None) {
            arguments.push(made);
            if let Statement::New { args: wrapped, .. } = &statements[made] {
                arguments.extend(
                    refs(wrapped)
                        .into_iter()
                        .filter(|&inner| makes_object(inner) && untouched(inner, Some(made))),
                );
            }
        }
    }
    let mut observed_arguments = 0;
    for made in arguments {
        if observed_arguments < MAX_OBSERVED_ARGUMENTS && !targets.contains(&made) {
            targets.push(made);
            observed_arguments += 1;
        }
    }
    for target in targets {
        plan.statements.push(observe(target));
    }
    plan
}

pub(crate) fn observed(statement: &Statement) -> Option<usize> {
    match statement {
        Statement::CallStatic {
            class,
            name,
            descriptor,
            args,
        } if class == OBSERVE_CLASS && name == OBSERVE_NAME && descriptor == OBSERVE_DESCRIPTOR => {
            match args.as_slice() {
                [Value::Ref { statement }] => Some(*statement),
                _ => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_act_s_receiver_its_untouched_arguments_and_what_they_wrap_are_observed() {
        let new = |class: &str, args: Vec<Value>| Statement::New {
            class: class.into(),
            descriptor: "()V".into(),
            args,
        };
        let reference = |statement| Value::Ref { statement };
        let call = |receiver, name: &str, args| Statement::Call {
            receiver: reference(receiver),
            class: "p.Help".into(),
            name: name.into(),
            descriptor: "()V".into(),
            args,
        };
        let plan = Plan::new(vec![
            new("java.io.StringWriter", vec![]),
            new("java.io.PrintWriter", vec![reference(0)]),
            new("p.Help", vec![]),
            new("p.Options", vec![]),
            call(3, "addOption", vec![]),
            call(2, "print", vec![reference(1), reference(3)]),
        ]);
        let observed: Vec<Option<usize>> = with_state_observed(&plan).statements[6..]
            .iter()
            .map(observed)
            .collect();
        // The options were changed before the act: not observed.
        assert_eq!(observed, [Some(2), Some(1), Some(0)]);
        // Observed once only.
        let again = with_state_observed(&with_state_observed(&plan));
        assert_eq!(again.statements.len(), 9);
    }

    #[test]
    fn headers_round_trip() {
        let class = TestClass {
            class_under_test: "fixtures.explore.Cart".into(),
            sha256: "ab12".into(),
            testgen_version: "0.1.0".into(),
            junit: JUnit::Five,
            tests: Vec::new(),
            static_reset: None,
            signatures: Default::default(),
        };
        let line = header_line(&class);
        assert_eq!(
            line,
            "// Generated by testgen 0.1.0 from fixtures/explore/Cart.class sha256=ab12; do not edit (regenerated)."
        );
        assert_eq!(
            parse_header(&line),
            Some(Header {
                testgen_version: "0.1.0".into(),
                class_file: "fixtures/explore/Cart.class".into(),
                sha256: "ab12".into(),
            })
        );
        assert_eq!(parse_header("// Generated by hand"), None);
        assert_eq!(parse_header(&line.replace("ab12", "xyz")), None);
    }

    #[test]
    fn test_class_names() {
        assert_eq!(
            test_class_name("fixtures.explore.Cart"),
            "CartGeneratedTest"
        );
        assert_eq!(test_class_name("a.Outer$Inner"), "Outer_InnerGeneratedTest");
        assert_eq!(test_class_name("Top"), "TopGeneratedTest");
    }
}
