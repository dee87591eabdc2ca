//! The JUnit source of one test class: one test method per executed plan,
//! arrange / act / assert, with assertions on what every run of the plan
//! agreed on.
//!
//! The last statement of a plan is the *act* (the call under test); the
//! ones before it *arrange* its inputs. Trailing [`observe`] statements are
//! not written as code: their results are the state of an object after the
//! act, asserted through its getters. When a statement throws, it becomes
//! the act and the test asserts the exception.
//!
//! [`observe`]: crate::model::observe

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use testgen_exec::{ExceptionInfo, PlanStatus, Statement, StatementOutcome, Value};

use crate::generics::{self, Inferred, Signatures};
use crate::model::{
    header_line, observed, test_class_name, Cause, EmittedClass, EmittedMethod, JUnit, Skipped,
    StaticReset, TestCase, TestClass,
};
use crate::names;
use crate::oracle::{first_property, Actual, Named, Observed, Oracle, StateSeen};
use crate::printer::{self, Code, Local, StatementPrinter};
use crate::runs::{value_of, Seen, Thrown};
use crate::test_names::{self, unique_names, Distinction, NameParts};
use crate::types::{self, type_ref, JType};

/// Writes the test class for all of `class.tests`.
pub fn emit(class: &TestClass) -> EmittedClass {
    let all: Vec<usize> = (0..class.tests.len()).collect();
    emit_cases(class, &all)
}

/// Writes the test class for the test cases `cases` (indices into
/// `class.tests`, written in the order given).
pub fn emit_cases(class: &TestClass, cases: &[usize]) -> EmittedClass {
    let package = types::package_of(&class.class_under_test).to_string();
    let class_name = test_class_name(&class.class_under_test);
    let mut statics = BTreeSet::new();
    let mut skipped = Vec::new();
    let mut methods = Vec::new();
    for &index in cases {
        let case = &class.tests[index];
        match write_case(case, class.junit, &package, &class.signatures, &mut statics) {
            // Two plans can read the same (a difference the source does not
            // show); the second would only repeat the first.
            Ok(method) => match methods
                .iter()
                .find(|(_, earlier): &&(usize, Method)| earlier.lines == method.lines)
            {
                Some((earlier, _)) => skipped.push(Skipped {
                    case: index,
                    reason: format!("reads the same as test case {earlier}"),
                    cause: None,
                }),
                None => methods.push((index, method)),
            },
            Err(Unfit { reason, cause }) => skipped.push(Skipped {
                case: index,
                reason,
                cause,
            }),
        }
    }
    let parts: Vec<NameParts> = methods.iter().map(|(_, m)| m.name.clone()).collect();
    let names = unique_names(&parts);

    let test_annotation = match class.junit {
        JUnit::Five => "org.junit.jupiter.api.Test",
        JUnit::Four => "org.junit.Test",
    };
    let assertions = match class.junit {
        JUnit::Five => "org.junit.jupiter.api.Assertions",
        JUnit::Four => "org.junit.Assert",
    };
    let (visibility, class_visibility) = match class.junit {
        JUnit::Five => ("", ""),
        JUnit::Four => ("public ", "public "),
    };
    // The body, with type markers; resolved once complete.
    let mut body = String::new();
    let mut spans = Vec::new();
    let mut line = 0usize;
    if let (Some(reset), false) = (&class.static_reset, methods.is_empty()) {
        line += write_static_reset(reset, class.junit, &mut body);
    }
    for ((index, method), name) in methods.iter().zip(&names) {
        body.push('\n');
        line += 1;
        let first = line + 1;
        let _ = writeln!(body, "    @{}", type_ref(test_annotation));
        let _ = writeln!(body, "    {visibility}void {name}() throws Exception {{");
        line += 2;
        for code in &method.lines {
            if code.is_empty() {
                body.push('\n');
            } else {
                let _ = writeln!(body, "        {code}");
            }
            line += 1;
        }
        body.push_str("    }\n");
        line += 1;
        spans.push(EmittedMethod {
            name: name.clone(),
            case: *index,
            first_line: first,
            last_line: line,
            left_out: method.left_out.iter().copied().collect(),
        });
    }
    let (body, imports) = types::resolve(&body, &package, &class_name);

    let mut source = String::new();
    let _ = writeln!(source, "{}", header_line(class));
    let mut prefix_lines = 1;
    if !package.is_empty() {
        let _ = writeln!(source, "package {package};");
        prefix_lines += 1;
    }
    if !statics.is_empty() {
        source.push('\n');
        prefix_lines += 1;
        for method in &statics {
            let _ = writeln!(source, "import static {assertions}.{method};");
            prefix_lines += 1;
        }
    }
    if !imports.is_empty() {
        source.push('\n');
        prefix_lines += 1;
        for import in &imports {
            let _ = writeln!(source, "import {import};");
            prefix_lines += 1;
        }
    }
    let _ = writeln!(source, "\n{class_visibility}class {class_name} {{");
    prefix_lines += 2;
    source.push_str(&body);
    source.push_str("}\n");
    for span in &mut spans {
        span.first_line += prefix_lines;
        span.last_line += prefix_lines;
    }

    let mut path: PathBuf = package.split('.').filter(|p| !p.is_empty()).collect();
    path.push(format!("{class_name}.java"));
    EmittedClass {
        package,
        class_name,
        junit: class.junit,
        path,
        source,
        methods: spans,
        skipped,
    }
}

/// The method every test starts and ends with when the class under test
/// keeps static state; returns the lines written.
fn write_static_reset(reset: &StaticReset, junit: JUnit, body: &mut String) -> usize {
    let (before, after, visibility) = match junit {
        JUnit::Five => (
            "org.junit.jupiter.api.BeforeEach",
            "org.junit.jupiter.api.AfterEach",
            "",
        ),
        JUnit::Four => ("org.junit.Before", "org.junit.After", "public "),
    };
    let _ = writeln!(
        body,
        "\n    // {} keeps static state: every test starts and ends with it reset.",
        types::simple_name(&reset.class)
    );
    let _ = writeln!(body, "    @{}", type_ref(before));
    let _ = writeln!(body, "    @{}", type_ref(after));
    let _ = writeln!(body, "    {visibility}void resetStaticState() {{");
    let _ = writeln!(
        body,
        "        {}.{}();",
        type_ref(&reset.class),
        reset.method
    );
    body.push_str("    }\n");
    7
}

/// One test method before it is named.
struct Method {
    /// The body's statements (empty strings are blank lines).
    lines: Vec<String>,
    /// The name it would like (`clampReturns10`) and what can tell it
    /// apart from others that would like the same.
    name: NameParts,
    /// Causes of the assertions left out because runs disagreed.
    left_out: BTreeSet<Cause>,
}

/// Why a test case gives no method.
pub(crate) struct Unfit {
    reason: String,
    /// The cause of the run that behaved differently, if that was why.
    cause: Option<Cause>,
}

impl From<String> for Unfit {
    fn from(reason: String) -> Unfit {
        Unfit {
            reason,
            cause: None,
        }
    }
}

impl From<&str> for Unfit {
    fn from(reason: &str) -> Unfit {
        Unfit::from(reason.to_string())
    }
}

/// What the case's outcomes say about its shape.
pub(crate) struct Shape {
    /// Index of the act.
    pub act: usize,
    /// The act threw, an exception of the same class in every run.
    pub threw: bool,
    /// `(object statement, observation statement)` after the act.
    pub observations: Vec<(usize, usize)>,
}

pub(crate) fn shape(case: &TestCase) -> Result<Shape, Unfit> {
    let statements = &case.plan.statements;
    if statements.is_empty() {
        return Err("the plan is empty".into());
    }
    let runs = std::iter::once((None, &case.first)).chain(
        case.other_runs()
            .map(|(cause, outcome)| (Some(cause), outcome)),
    );
    for (cause, outcome) in runs {
        let unfit = |reason: &str| Unfit {
            reason: reason.to_string(),
            cause,
        };
        if outcome.restarted {
            return Err(unfit("the executor had to restart after the plan"));
        }
        if !outcome.accesses.is_empty() {
            return Err(unfit("the plan touches files, the network or processes"));
        }
        if !outcome.leftover_threads.is_empty() {
            return Err(unfit("the plan leaves threads running"));
        }
        if !outcome.closed_streams.is_empty() {
            return Err(unfit("the plan closes System.out or System.err"));
        }
        if outcome.statements.len() != statements.len() {
            return Err(unfit("the outcome does not cover every statement"));
        }
    }
    let differs = |cause: Cause, what: &str| Unfit {
        reason: format!("{what} ({} rerun)", cause.name()),
        cause: Some(cause),
    };
    match &case.first.status {
        PlanStatus::Completed => {
            let mut act = statements.len() - 1;
            let mut observations = Vec::new();
            while let Some(target) = observed(&statements[act]) {
                if act == 0 || target >= act {
                    return Err("an observation without an act before it".into());
                }
                observations.push((target, act));
                act -= 1;
            }
            observations.reverse();
            for (cause, other) in case.other_runs() {
                if other.status != PlanStatus::Completed {
                    return Err(differs(cause, "the runs ended differently"));
                }
                let kinds_agree = matches!(
                    (&case.first.statements[act], &other.statements[act]),
                    (
                        StatementOutcome::Value { .. },
                        StatementOutcome::Value { .. }
                    ) | (StatementOutcome::Void, StatementOutcome::Void)
                );
                if !kinds_agree {
                    return Err(differs(cause, "the act did not complete the same way"));
                }
            }
            Ok(Shape {
                act,
                threw: false,
                observations,
            })
        }
        PlanStatus::Exception { statement } => {
            let StatementOutcome::Threw { exception } = &case.first.statements[*statement] else {
                return Err("the statement that threw has no exception".into());
            };
            for (cause, other) in case.other_runs() {
                let same_throw = other.status == case.first.status
                    && matches!(&other.statements[*statement],
                        StatementOutcome::Threw { exception: e } if e.class == exception.class);
                if !same_throw {
                    return Err(differs(cause, "the runs threw differently"));
                }
            }
            Ok(Shape {
                act: *statement,
                threw: true,
                observations: Vec::new(),
            })
        }
        status => Err(format!("the plan ended with {status:?}").into()),
    }
}

/// The exception the act threw in every run (the shape says it did).
fn thrown(case: &TestCase, act: usize) -> Option<Thrown<'_>> {
    fn exception(outcome: &testgen_exec::PlanOutcome, act: usize) -> Option<&ExceptionInfo> {
        match outcome.statements.get(act) {
            Some(StatementOutcome::Threw { exception }) => Some(exception),
            _ => None,
        }
    }
    let exception = |outcome| exception(outcome, act);
    Some(Thrown {
        first: exception(&case.first)?,
        others: case
            .other_runs()
            .map(|(cause, outcome)| Some((cause, exception(outcome)?)))
            .collect::<Option<_>>()?,
    })
}

/// Writes one test method: the arrange statements and the act through the
/// printer, the assertions the oracle chooses.
struct Writer<'a> {
    case: &'a TestCase,
    junit: JUnit,
    package: &'a str,
    statics: &'a mut BTreeSet<&'static str>,
    locals: Vec<Option<Local>>,
    used: BTreeSet<String>,
    /// The plan's type arguments; `None` when the case is printed with
    /// erased types.
    generics: Option<Inferred>,
}

fn write_case(
    case: &TestCase,
    junit: JUnit,
    package: &str,
    signatures: &Signatures,
    statics: &mut BTreeSet<&'static str>,
) -> Result<Method, Unfit> {
    let shape = shape(case)?;
    let mut used: BTreeSet<String> = ["result", "thrown", "unused", "java", "javax", "org", "com"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Some(first) = package.split('.').next().filter(|s| !s.is_empty()) {
        used.insert(first.to_string());
    }
    // Work on a copy of the statics so that a case that fails leaves none behind.
    let mut own_statics = statics.clone();
    let mut writer = Writer {
        case,
        junit,
        package,
        statics: &mut own_statics,
        locals: vec![None; case.plan.statements.len()],
        used,
        generics: (!case.erased_types).then(|| generics::infer(&case.plan, signatures)),
    };
    let method = writer.method(&shape)?;
    *statics = own_statics;
    Ok(method)
}

impl<'a> Writer<'a> {
    fn method(&mut self, shape: &Shape) -> Result<Method, Unfit> {
        let statements = &self.case.plan.statements;
        let referenced: BTreeSet<usize> = statements[..=shape.act]
            .iter()
            .flat_map(references)
            .chain(shape.observations.iter().map(|(target, _)| *target))
            .collect();
        let mut lines = Vec::new();
        for index in 0..shape.act {
            let code = self.code(index)?;
            match code.ty {
                Some(ty) if referenced.contains(&index) || !code.statement_expression => {
                    let name = self.local_name(index, &ty);
                    let declared = self.declared_source(index, &ty);
                    lines.push(format!("{declared} {name} = {};", code.expr));
                    self.locals[index] = Some(Local { name, ty });
                }
                _ => lines.push(format!("{};", code.expr)),
            }
        }
        if !lines.is_empty() {
            lines.push(String::new());
        }
        let act = self.code(shape.act)?;
        let act_name = self.act_name(shape.act);
        let receiver_local = match &statements[shape.act] {
            Statement::Call {
                receiver: Value::Ref { statement },
                ..
            } => self.locals[*statement].as_ref().map(|l| l.name.clone()),
            _ => None,
        };
        let mut distinctions =
            test_names::distinctions(self.case, shape.act, receiver_local.as_deref());
        let mut oracle = Oracle::new(self.package, self.arrange_locals(shape.act));
        let behaviour = if shape.threw {
            let thrown = thrown(self.case, shape.act).ok_or("the act's exception is missing")?;
            let check = oracle.thrown(&thrown);
            lines.extend(printer::thrown(&check, &act, self.statics));
            if let Some(Some(message)) = &check.message {
                distinctions.extend(Distinction::message(message));
            }
            format!(
                "Throws{}",
                names::identifier(types::simple_name(&thrown.first.class))
            )
        } else {
            let (behaviour, state) = self.act_and_assert(shape, act, &mut oracle, &mut lines);
            distinctions.extend(state);
            behaviour
        };
        Ok(Method {
            lines,
            name: NameParts {
                base: names::identifier(&format!("{act_name}{behaviour}")),
                distinctions,
            },
            left_out: oracle.left_out,
        })
    }

    /// The act that completed, then the assertions on its result and on
    /// the state it left; returns the behaviour part of the test's name,
    /// and the state it asserts when the behaviour does not say it.
    fn act_and_assert(
        &mut self,
        shape: &Shape,
        act: Code,
        oracle: &mut Oracle<'a>,
        lines: &mut Vec<String>,
    ) -> (String, Option<Distinction>) {
        let mut assertions = Vec::new();
        let mut behaviour = String::new();
        match (act.ty, self.seen(shape.act)) {
            (Some(ty), Some(seen)) => {
                oracle.value(&seen, Some(&ty), Actual::Result, 0, &mut assertions);
                if assertions.is_empty() && act.statement_expression {
                    // Nothing every run agrees on: the call alone.
                    lines.push(format!("{};", act.expr));
                } else {
                    let declared = self.declared_source(shape.act, &ty);
                    lines.push(format!("{declared} result = {};", act.expr));
                    behaviour = match &self.case.plan.statements[shape.act] {
                        Statement::New { .. } => first_property(&seen)
                            .map(|(name, value)| format!("Has{name}{value}"))
                            .unwrap_or_else(|| "CreatesInstance".to_string()),
                        _ if seen.agreement().is_ok() => {
                            format!("Returns{}", names::describe_rendered(seen.first))
                        }
                        _ => String::new(),
                    };
                }
            }
            _ => lines.push(format!("{};", act.expr)),
        }
        let receiver = match &self.case.plan.statements[shape.act] {
            Statement::Call {
                receiver: Value::Ref { statement },
                ..
            } => Some(*statement),
            _ => None,
        };
        let observed: Vec<Observed> = shape
            .observations
            .iter()
            .filter_map(|&(target, observation)| {
                let local = self.locals[target].clone()?;
                Some(Observed {
                    local: local.name,
                    ty: local.ty,
                    made: value_of(self.case.first.statements.get(target)),
                    after: self.seen(observation)?,
                    receiver: receiver == Some(target),
                })
            })
            .collect();
        let void_act = matches!(
            self.case.first.statements[shape.act],
            StatementOutcome::Void
        );
        let state =
            oracle.observations(&observed, void_act, &self.case.also_assert, &mut assertions);
        if !assertions.is_empty() {
            lines.push(String::new());
            for assertion in &assertions {
                lines.extend(printer::assertion(assertion, self.junit, self.statics));
            }
        }
        match (behaviour.is_empty(), state) {
            (false, Some(state)) => (
                behaviour,
                Some(Distinction::state(&state.property, &state.value)),
            ),
            (false, None) => (behaviour, None),
            // What a method wrote into a buffer it was given.
            (
                true,
                Some(StateSeen {
                    property,
                    value,
                    changed: true,
                }),
            ) if property == "ToString" || property == "ToByteArray" => {
                (format!("Writes{value}"), None)
            }
            (
                true,
                Some(StateSeen {
                    property,
                    value,
                    changed: true,
                }),
            ) => (format!("Sets{property}To{value}"), None),
            (
                true,
                Some(StateSeen {
                    property,
                    value,
                    changed: false,
                }),
            ) => (format!("Keeps{property}As{value}"), None),
            (true, None) => ("Succeeds".to_string(), None),
        }
    }

    /// The locals of the arrange part, for assertions to name.
    fn arrange_locals(&self, act: usize) -> Vec<Option<Named<'a>>> {
        (0..act)
            .map(|index| {
                let local = self.locals[index].as_ref()?;
                Some(Named {
                    name: local.name.clone(),
                    seen: self.seen(index),
                })
            })
            .collect()
    }

    /// Statement `index`'s value in every run.
    fn seen(&self, index: usize) -> Option<Seen<'a>> {
        Seen::statement(self.case, index)
    }

    /// The Java code of statement `index`.
    fn code(&self, index: usize) -> Result<Code, String> {
        StatementPrinter {
            locals: &self.locals,
            generics: self.generics.as_ref(),
        }
        .code(
            index,
            &self.case.plan.statements[index],
            value_of(self.case.first.statements.get(index)),
        )
    }

    /// The type statement `index`'s local is declared with: its type
    /// arguments when known, else `ty`, the erasure.
    fn declared_source(&self, index: usize, ty: &JType) -> String {
        self.generics
            .as_ref()
            .and_then(|generics| generics.declared(index, ty))
            .unwrap_or_else(|| ty.source())
    }

    fn local_name(&mut self, index: usize, ty: &JType) -> String {
        let base = match &self.case.plan.statements[index] {
            Statement::Call { name, .. } | Statement::CallStatic { name, .. }
                if names::property_name(name) != names::capitalise(name) =>
            {
                names::local_name(&names::property_name(name))
            }
            _ => match ty {
                JType::Primitive(base) => format!("{}Value", base.java_name()),
                _ => names::local_name(&ty.simple_name()),
            },
        };
        let mut name = base.clone();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        name
    }

    fn act_name(&self, index: usize) -> String {
        match &self.case.plan.statements[index] {
            Statement::Call { name, .. } | Statement::CallStatic { name, .. } => name.clone(),
            Statement::New { class, .. } => format!("new{}", types::simple_name(class)),
            Statement::GetField { name, .. } => name.clone(),
            Statement::PutField { name, .. } => format!("set{}", names::capitalise(name)),
            Statement::NewArray { .. } => "newArray".to_string(),
            Statement::ArrayStore { .. } => "storeElement".to_string(),
            Statement::Lambda { .. } => "lambda".to_string(),
        }
    }
}

/// Whether `statement` reads the value of statement `index`.
pub(crate) fn refers_to(statement: &Statement, index: usize) -> bool {
    references(statement).contains(&index)
}

/// The statements a statement refers to.
pub(crate) fn references(statement: &Statement) -> Vec<usize> {
    let mut values: Vec<&Value> = Vec::new();
    match statement {
        Statement::New { args, .. } | Statement::CallStatic { args, .. } => values.extend(args),
        Statement::Call { receiver, args, .. } => {
            values.push(receiver);
            values.extend(args);
        }
        Statement::GetField { receiver, .. } => values.extend(receiver),
        Statement::PutField {
            receiver, value, ..
        } => {
            values.extend(receiver);
            values.push(value);
        }
        Statement::NewArray { .. } => {}
        Statement::ArrayStore { array, value, .. } => {
            values.push(array);
            values.push(value);
        }
        Statement::Lambda { result, .. } => values.extend(result),
    }
    values
        .into_iter()
        .filter_map(|v| match v {
            Value::Ref { statement } => Some(*statement),
            _ => None,
        })
        .collect()
}
