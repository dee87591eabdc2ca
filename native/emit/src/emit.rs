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

use testgen_classfile::descriptor::BaseType;
use testgen_exec::{
    ExceptionInfo, PlanStatus, PropertyOutcome, RenderedValue, Statement, StatementOutcome, Value,
};

use crate::literal;
use crate::model::{
    header_line, observed, test_class_name, Cause, EmittedClass, EmittedMethod, JUnit, Skipped,
    StaticReset, TestCase, TestClass,
};
use crate::names;
use crate::runs::{looks_nondeterministic, same, value_of, Seen, Thrown};
use crate::types::{self, method_types, type_ref, JType};

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
        match write_case(case, class.junit, &package, &mut statics) {
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
    let names = unique_names(class, &methods);

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
    /// The name it would like: `clampReturns10`.
    name: String,
    /// Describes each argument of the act, for telling tests apart.
    arguments: Vec<Option<String>>,
    /// Causes of the assertions left out because runs disagreed.
    left_out: BTreeSet<Cause>,
}

/// Why a test case gives no method.
struct Unfit {
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

/// Test names: each case's own, then `WhenXIs..` for those that share one,
/// then a numeric suffix as the last resort.
fn unique_names(class: &TestClass, methods: &[(usize, Method)]) -> Vec<String> {
    let mut names: Vec<String> = methods.iter().map(|(_, m)| m.name.clone()).collect();
    let shared: BTreeSet<String> = names
        .iter()
        .filter(|n| names.iter().filter(|m| m == n).count() > 1)
        .cloned()
        .collect();
    for name in &shared {
        let members: Vec<usize> = (0..methods.len())
            .filter(|&i| &methods[i].1.name == name)
            .collect();
        let arity = members
            .iter()
            .map(|&i| methods[i].1.arguments.len())
            .min()
            .unwrap_or(0);
        let position = (0..arity).find(|&p| {
            let described: Vec<&Option<String>> = members
                .iter()
                .map(|&i| &methods[i].1.arguments[p])
                .collect();
            described.iter().all(|d| d.is_some()) && described.iter().any(|d| *d != described[0])
        });
        if let Some(position) = position {
            for &member in &members {
                let case = &class.tests[methods[member].0];
                let parameter = case
                    .parameter_names
                    .get(position)
                    .map(|n| names::capitalise(&names::identifier(n)))
                    .unwrap_or_else(|| format!("Arg{}", position + 1));
                let value = methods[member].1.arguments[position]
                    .as_deref()
                    .unwrap_or_default();
                names[member] = format!("{name}When{parameter}Is{value}");
            }
        }
    }
    let mut seen = BTreeSet::new();
    for name in &mut names {
        if !seen.insert(name.clone()) {
            let mut n = 2;
            while seen.contains(&format!("{name}_{n}")) {
                n += 1;
            }
            *name = format!("{name}_{n}");
            seen.insert(name.clone());
        }
    }
    names
}

/// What the case's outcomes say about its shape.
struct Shape {
    /// Index of the act.
    act: usize,
    /// The act threw, an exception of the same class in every run.
    threw: bool,
    /// `(object statement, observation statement)` after the act.
    observations: Vec<(usize, usize)>,
}

fn shape(case: &TestCase) -> Result<Shape, Unfit> {
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

#[derive(Clone)]
struct Local {
    name: String,
    ty: JType,
}

/// Writes one test method.
struct Writer<'a> {
    case: &'a TestCase,
    junit: JUnit,
    package: &'a str,
    statics: &'a mut BTreeSet<&'static str>,
    locals: Vec<Option<Local>>,
    used: BTreeSet<String>,
    /// Statements before this one are the arrange part.
    arrange_end: usize,
    /// Causes of assertions left out because runs disagreed.
    left_out: BTreeSet<Cause>,
}

/// At most this many assertions on one value.
const MAX_ASSERTIONS: usize = 12;

fn write_case(
    case: &TestCase,
    junit: JUnit,
    package: &str,
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
        arrange_end: 0,
        left_out: BTreeSet::new(),
    };
    let method = writer.method(&shape)?;
    *statics = own_statics;
    Ok(method)
}

/// A statement as Java: the expression, the static type of its value (if
/// it has one) and whether it may stand alone as a statement.
struct Code {
    expr: String,
    ty: Option<JType>,
    statement_expression: bool,
}

impl<'a> Writer<'a> {
    fn method(&mut self, shape: &Shape) -> Result<Method, Unfit> {
        self.arrange_end = shape.act;
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
                    lines.push(format!("{} {name} = {};", ty.source(), code.expr));
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
        let arguments = act_arguments(&statements[shape.act])
            .iter()
            .map(|arg| match arg {
                Value::Ref { statement } => self
                    .seen(*statement)
                    .map(|seen| names::describe_rendered(seen.first)),
                literal => names::describe_value(literal),
            })
            .collect();
        let behaviour = if shape.threw {
            let thrown = thrown(self.case, shape.act).ok_or("the act's exception is missing")?;
            self.assert_thrown(&thrown, act, &mut lines);
            format!(
                "Throws{}",
                names::identifier(types::simple_name(&thrown.first.class))
            )
        } else {
            self.act_and_assert(shape, act, &mut lines)
        };
        Ok(Method {
            lines,
            name: names::identifier(&format!("{act_name}{behaviour}")),
            arguments,
            left_out: std::mem::take(&mut self.left_out),
        })
    }

    /// The act that completed, then the assertions on its result and on
    /// the state it left; returns the behaviour part of the test's name.
    fn act_and_assert(&mut self, shape: &Shape, act: Code, lines: &mut Vec<String>) -> String {
        let mut asserts = Vec::new();
        let mut behaviour = String::new();
        match (act.ty, self.seen(shape.act)) {
            (Some(ty), Some(seen)) => {
                self.locals[shape.act] = Some(Local {
                    name: "result".into(),
                    ty: ty.clone(),
                });
                self.assert_value(&seen, Some(&ty), "result", 0, &mut asserts);
                if asserts.is_empty() && act.statement_expression {
                    // Nothing every run agrees on: the call alone.
                    lines.push(format!("{};", act.expr));
                } else {
                    lines.push(format!("{} result = {};", ty.source(), act.expr));
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
        let state = self.assert_observations(shape, &mut asserts);
        if !asserts.is_empty() {
            lines.push(String::new());
            lines.extend(asserts);
        }
        match (behaviour.is_empty(), state) {
            (false, _) => behaviour,
            (true, Some((property, value))) => format!("Sets{property}To{value}"),
            (true, None) => "Succeeds".to_string(),
        }
    }

    /// Statement `index`'s value in every run.
    fn seen(&self, index: usize) -> Option<Seen<'a>> {
        Seen::statement(self.case, index)
    }

    /// Notes that runs disagreed on a value the test would assert.
    fn leave_out(&mut self, cause: Cause) {
        self.left_out.insert(cause);
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
        }
    }

    /// The Java code of statement `index`.
    fn code(&self, index: usize) -> Result<Code, String> {
        let statement = &self.case.plan.statements[index];
        let types_of = |descriptor: &str| {
            method_types(descriptor).ok_or_else(|| format!("malformed descriptor {descriptor}"))
        };
        Ok(match statement {
            Statement::New {
                class,
                descriptor,
                args,
            } => {
                let (params, _) = types_of(descriptor)?;
                Code {
                    expr: format!(
                        "new {}({})",
                        type_ref(class),
                        self.arguments(args, &params)?
                    ),
                    ty: Some(JType::Class(class.clone())),
                    statement_expression: true,
                }
            }
            Statement::CallStatic {
                class,
                name,
                descriptor,
                args,
            } => {
                let (params, ret) = types_of(descriptor)?;
                Code {
                    expr: format!(
                        "{}.{name}({})",
                        type_ref(class),
                        self.arguments(args, &params)?
                    ),
                    ty: ret,
                    statement_expression: true,
                }
            }
            Statement::Call {
                receiver,
                class,
                name,
                descriptor,
                args,
            } => {
                let (params, ret) = types_of(descriptor)?;
                Code {
                    expr: format!(
                        "{}.{name}({})",
                        self.receiver(receiver, class)?,
                        self.arguments(args, &params)?
                    ),
                    ty: ret,
                    statement_expression: true,
                }
            }
            Statement::GetField {
                class,
                name,
                receiver,
            } => {
                let target = match receiver {
                    Some(receiver) => self.receiver(receiver, class)?,
                    None => type_ref(class),
                };
                let ty = match value_of(self.case.first.statements.get(index)) {
                    // A constant of the class's own type (`Rounding.HALF_UP`)
                    // is declared with that type, so that calls on it need no
                    // cast; other objects may be of a class the test cannot
                    // name.
                    Some(RenderedValue::Object { class: runtime, .. }) if runtime == class => {
                        JType::Class(class.clone())
                    }
                    Some(value) => static_type_of(value),
                    None => JType::object(),
                };
                Code {
                    expr: format!("{target}.{name}"),
                    ty: Some(ty),
                    statement_expression: false,
                }
            }
            Statement::PutField {
                class,
                name,
                receiver,
                value,
            } => {
                let target = match receiver {
                    Some(receiver) => self.receiver(receiver, class)?,
                    None => type_ref(class),
                };
                Code {
                    expr: format!("{target}.{name} = {}", self.value(value, None)?),
                    ty: None,
                    statement_expression: true,
                }
            }
            Statement::NewArray { element, length } => {
                let element = JType::from_descriptor(element)
                    .ok_or_else(|| format!("malformed element type {element}"))?;
                Code {
                    expr: element.new_array(*length),
                    ty: Some(JType::Array(Box::new(element))),
                    statement_expression: false,
                }
            }
            Statement::ArrayStore {
                array,
                index: at,
                value,
            } => {
                let (target, element) = match array {
                    Value::Ref { statement } => {
                        let local = self.local(*statement)?;
                        match &local.ty {
                            JType::Array(element) => {
                                (local.name.clone(), Some(element.as_ref().clone()))
                            }
                            _ => (local.name.clone(), None),
                        }
                    }
                    _ => return Err("an array store into a literal".into()),
                };
                Code {
                    expr: format!("{target}[{at}] = {}", self.value(value, element.as_ref())?),
                    ty: None,
                    statement_expression: true,
                }
            }
        })
    }

    fn local(&self, statement: usize) -> Result<&Local, String> {
        self.locals
            .get(statement)
            .and_then(Option::as_ref)
            .ok_or_else(|| format!("a reference to statement {statement}, which has no value"))
    }

    fn arguments(&self, args: &[Value], params: &[JType]) -> Result<String, String> {
        if args.len() != params.len() {
            return Err("the arguments do not match the descriptor".into());
        }
        let mut out = Vec::new();
        for (arg, param) in args.iter().zip(params) {
            out.push(self.value(arg, Some(param))?);
        }
        Ok(out.join(", "))
    }

    /// `value` where a `expected` is expected (`None`: anything goes).
    fn value(&self, value: &Value, expected: Option<&JType>) -> Result<String, String> {
        if let Value::Ref { statement } = value {
            let local = self.local(*statement)?;
            return Ok(match expected {
                Some(ty) if local.ty.is_object() && !ty.is_object() => {
                    format!("({}) {}", ty.source(), local.name)
                }
                _ => local.name.clone(),
            });
        }
        let rendered = literal::rendered_of(value).expect("not a reference");
        let text = literal::of_rendered(&rendered).expect("literals render");
        Ok(match (expected, &rendered) {
            // A typed null picks the overload the plan named.
            (Some(ty), RenderedValue::Null) if !ty.is_primitive() => {
                format!("({}) null", ty.source())
            }
            (Some(JType::Primitive(base)), _) if Some(*base) != primitive_kind(&rendered) => {
                format!("({}) {text}", base.java_name())
            }
            _ => text,
        })
    }

    /// The receiver of a call or field access on `class`.
    fn receiver(&self, receiver: &Value, class: &str) -> Result<String, String> {
        let ty = JType::Class(class.to_string());
        let text = self.value(receiver, Some(&ty))?;
        Ok(if text.starts_with('(') {
            format!("({text})")
        } else {
            text
        })
    }

    /// `assertThrows` (and the message, when every run agrees on it).
    fn assert_thrown(&mut self, thrown: &Thrown<'_>, act: Code, lines: &mut Vec<String>) {
        let first = thrown.first;
        let lambda = if act.statement_expression {
            format!("() -> {}", act.expr)
        } else {
            format!("() -> {{ Object unused = {}; }}", act.expr)
        };
        let exception = type_ref(&first.class);
        self.statics.insert("assertThrows");
        // The JVM's own messages for these change between JDK versions and
        // options (helpful NullPointerException messages, class loader names).
        let jvm_message = matches!(
            first.class.as_str(),
            "java.lang.NullPointerException" | "java.lang.ClassCastException"
        );
        let message_agrees = !jvm_message
            && first
                .message
                .as_deref()
                .is_none_or(|m| !looks_nondeterministic(m))
            && match thrown.message_agreement() {
                Ok(()) => true,
                Err(cause) => {
                    self.leave_out(cause);
                    false
                }
            };
        if message_agrees {
            lines.push(format!(
                "{exception} thrown = assertThrows({exception}.class, {lambda});"
            ));
            lines.push(String::new());
            match &first.message {
                Some(message) => {
                    self.statics.insert("assertEquals");
                    lines.push(format!(
                        "assertEquals({}, thrown.getMessage());",
                        literal::string(message)
                    ));
                }
                None => {
                    self.statics.insert("assertNull");
                    lines.push("assertNull(thrown.getMessage());".to_string());
                }
            }
        } else {
            lines.push(format!("assertThrows({exception}.class, {lambda});"));
        }
    }

    /// The arrange local holding the same object as `seen` in every run,
    /// if any: identity hashes differ between runs, but which statement
    /// made an object does not.
    fn same_object_as(&self, seen: &Seen<'_>) -> Option<String> {
        let identities = seen.identities()?;
        (0..self.arrange_end).find_map(|earlier| {
            let local = self.locals[earlier].as_ref()?;
            let made = self.seen(earlier)?.identities()?;
            (made == identities).then(|| local.name.clone())
        })
    }

    /// The state after the act of each observed object: the properties
    /// that changed since the object was made, or all of them after a void
    /// act that changed none. Returns the first change, for the test name.
    fn assert_observations(
        &mut self,
        shape: &Shape,
        out: &mut Vec<String>,
    ) -> Option<(String, String)> {
        let void_act = matches!(
            self.case.first.statements[shape.act],
            StatementOutcome::Void
        );
        let mut first_change = None;
        for &(target, observation) in &shape.observations {
            let Some(local) = self.locals[target].clone() else {
                continue;
            };
            let Some(after) = self.seen(observation) else {
                continue;
            };
            let before = match value_of(self.case.first.statements.get(target)) {
                Some(RenderedValue::Object {
                    properties: Some(before),
                    ..
                }) => before.clone(),
                _ => Vec::new(),
            };
            let Some(access) = self.object_access(&local.name, Some(&local.ty), after.first, 0)
            else {
                continue;
            };
            let properties = after.properties();
            let changed = |name: &str, value: &RenderedValue| {
                !before.iter().any(|b| {
                    b.name == name
                        && matches!(&b.outcome, PropertyOutcome::Value { value: old } if same(old, value))
                })
            };
            let any_changed = properties
                .iter()
                .any(|(name, seen)| changed(name, seen.first));
            for (name, seen) in properties {
                if !changed(name, seen.first) && (any_changed || !void_act) {
                    continue;
                }
                if let Err(cause) = seen.agreement() {
                    self.leave_out(cause);
                    continue;
                }
                let before_len = out.len();
                let actual = format!("{access}.{name}()");
                self.assert_value(&seen, None, &actual, 1, out);
                if out.len() > before_len && first_change.is_none() && !before.is_empty() {
                    first_change = Some((
                        names::property_name(name),
                        names::describe_rendered(seen.first),
                    ));
                }
            }
        }
        first_change
    }

    /// How to call getters on `actual` (runtime value `value`, static type
    /// `ty` if known), or `None` if the code cannot do so safely.
    fn object_access(
        &self,
        actual: &str,
        ty: Option<&JType>,
        value: &RenderedValue,
        depth: u32,
    ) -> Option<String> {
        let RenderedValue::Object { class, .. } = value else {
            return None;
        };
        if ty == Some(&JType::Class(class.clone())) {
            return Some(actual.to_string());
        }
        let nameable = !class
            .split('$')
            .skip(1)
            .any(|part| part.starts_with(|c: char| c.is_ascii_digit()));
        if nameable && types::package_of(class) == self.package {
            return Some(if depth == 0 {
                format!("(({}) {actual})", type_ref(class))
            } else {
                actual.to_string()
            });
        }
        None
    }

    /// Assertions that `actual` (static type `ty` if known) holds the value
    /// every run saw; nothing where they disagree (the disagreement's cause
    /// is noted).
    fn assert_value(
        &mut self,
        seen: &Seen<'_>,
        ty: Option<&JType>,
        actual: &str,
        depth: u32,
        out: &mut Vec<String>,
    ) {
        if out.len() >= MAX_ASSERTIONS {
            return;
        }
        if let Some(local) = self.same_object_as(seen) {
            self.statics.insert("assertSame");
            out.push(format!("assertSame({local}, {actual});"));
            return;
        }
        match seen.first {
            RenderedValue::Object { class, .. } => {
                if let Err(cause) = seen.shape_agreement() {
                    self.leave_out(cause);
                    return;
                }
                let before = out.len();
                let collection = types::package_of(class) == "java.util";
                let access = self
                    .object_access(actual, ty, seen.first, depth)
                    .or_else(|| {
                        // Collections are used through their interfaces.
                        (collection && ty.is_some_and(|t| !t.is_object()))
                            .then(|| actual.to_string())
                    });
                if let Some(access) = access {
                    for (name, property) in seen.properties() {
                        if collection && !matches!(name, "size" | "isEmpty") {
                            continue;
                        }
                        let getter = format!("{access}.{name}()");
                        self.assert_value(&property, None, &getter, depth + 1, out);
                    }
                }
                if out.len() == before && depth == 0 {
                    self.statics.insert("assertNotNull");
                    out.push(format!("assertNotNull({actual});"));
                }
            }
            RenderedValue::Array { class, length, .. } => {
                if let Err(cause) = seen.shape_agreement() {
                    self.leave_out(cause);
                    return;
                }
                let Some(runtime) = JType::from_array_class_name(class) else {
                    return;
                };
                let typed = if ty == Some(&runtime) {
                    actual.to_string()
                } else {
                    format!("(({}) {actual})", runtime.source())
                };
                let literals: Option<Vec<String>> = seen.elements().and_then(|elements| {
                    elements
                        .iter()
                        .map(|element| match element.agreement() {
                            Ok(()) => literal::of_rendered(element.first),
                            Err(cause) => {
                                self.leave_out(cause);
                                None
                            }
                        })
                        .collect()
                });
                match literals {
                    Some(items) => {
                        self.statics.insert("assertArrayEquals");
                        let delta = match (&runtime, self.junit) {
                            (JType::Array(e), JUnit::Four) => match e.as_ref() {
                                JType::Primitive(BaseType::Float) => ", 0.0f",
                                JType::Primitive(BaseType::Double) => ", 0.0",
                                _ => "",
                            },
                            _ => "",
                        };
                        let JType::Array(element) = &runtime else {
                            return;
                        };
                        out.push(format!(
                            "assertArrayEquals(new {}[] {{{}}}, {typed}{delta});",
                            element.source(),
                            items.join(", ")
                        ));
                    }
                    None => {
                        self.statics.insert("assertEquals");
                        out.push(format!("assertEquals({length}, {typed}.length);"));
                    }
                }
            }
            value => match seen.agreement() {
                Ok(()) => self.assert_literal(value, ty, actual, out),
                Err(cause) => self.leave_out(cause),
            },
        }
    }

    fn assert_literal(
        &mut self,
        value: &RenderedValue,
        ty: Option<&JType>,
        actual: &str,
        out: &mut Vec<String>,
    ) {
        let mut assert = |name: &'static str, line: String| {
            self.statics.insert(name);
            out.push(line);
        };
        match value {
            RenderedValue::Null => assert("assertNull", format!("assertNull({actual});")),
            RenderedValue::Boolean { value } if ty.is_none_or(JType::is_primitive) => {
                if *value {
                    assert("assertTrue", format!("assertTrue({actual});"));
                } else {
                    assert("assertFalse", format!("assertFalse({actual});"));
                }
            }
            RenderedValue::Float { bits } => {
                let v = f32::from_bits(*bits);
                let (name, line) = floating_assertion(
                    FloatingValue {
                        class: "java.lang.Float",
                        expected: literal::float(*bits),
                        nan: v.is_nan(),
                        zero: v == 0.0,
                        to_bits: "floatToIntBits",
                        delta: "0.0f",
                    },
                    self.junit,
                    actual,
                );
                assert(name, line);
            }
            RenderedValue::Double { bits } => {
                let v = f64::from_bits(*bits);
                let (name, line) = floating_assertion(
                    FloatingValue {
                        class: "java.lang.Double",
                        expected: literal::double(*bits),
                        nan: v.is_nan(),
                        zero: v == 0.0,
                        to_bits: "doubleToLongBits",
                        delta: "0.0",
                    },
                    self.junit,
                    actual,
                );
                assert(name, line);
            }
            RenderedValue::String {
                value,
                full_length: Some(full),
            } => {
                let prefix = literal::string_units(&value.to_utf16());
                assert(
                    "assertTrue",
                    format!("assertTrue({actual}.startsWith({prefix}));"),
                );
                assert(
                    "assertEquals",
                    format!("assertEquals({full}, {actual}.length());"),
                );
            }
            other => {
                if let Some(expected) = literal::of_rendered(other) {
                    assert(
                        "assertEquals",
                        format!("assertEquals({expected}, {actual});"),
                    );
                }
            }
        }
    }
}

/// The first property of a new object that every run saw the same and
/// that can be written as a literal, for the test's name.
fn first_property(seen: &Seen<'_>) -> Option<(String, String)> {
    seen.properties()
        .into_iter()
        .find(|(_, property)| {
            property.agreement().is_ok() && literal::of_rendered(property.first).is_some()
        })
        .map(|(name, property)| {
            (
                names::property_name(name),
                names::describe_rendered(property.first),
            )
        })
}

/// An expected `float` or `double` and how its type is asserted exactly.
struct FloatingValue {
    class: &'static str,
    expected: String,
    nan: bool,
    zero: bool,
    /// The wrapper's method giving the bits (`floatToIntBits`).
    to_bits: &'static str,
    /// A zero delta of the type, for JUnit 4.
    delta: &'static str,
}

/// The assertion (and its static import) that `actual` is exactly
/// `value`: JUnit 5 compares floating point by bits (NaN equals NaN,
/// `-0.0` differs from `0.0`); JUnit 4 with a zero delta does not tell
/// the zeros apart, so zeros are compared by bits there.
fn floating_assertion(value: FloatingValue, junit: JUnit, actual: &str) -> (&'static str, String) {
    let FloatingValue {
        class,
        expected,
        to_bits,
        delta,
        ..
    } = value;
    let class = type_ref(class);
    if value.nan {
        (
            "assertTrue",
            format!("assertTrue({class}.isNaN({actual}));"),
        )
    } else if junit == JUnit::Five {
        (
            "assertEquals",
            format!("assertEquals({expected}, {actual});"),
        )
    } else if value.zero {
        (
            "assertEquals",
            format!("assertEquals({class}.{to_bits}({expected}), {class}.{to_bits}({actual}));"),
        )
    } else {
        (
            "assertEquals",
            format!("assertEquals({expected}, {actual}, {delta});"),
        )
    }
}

/// The statements a statement refers to.
fn references(statement: &Statement) -> Vec<usize> {
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
    }
    values
        .into_iter()
        .filter_map(|v| match v {
            Value::Ref { statement } => Some(*statement),
            _ => None,
        })
        .collect()
}

fn act_arguments(statement: &Statement) -> Vec<Value> {
    match statement {
        Statement::New { args, .. }
        | Statement::CallStatic { args, .. }
        | Statement::Call { args, .. } => args.clone(),
        Statement::PutField { value, .. } => vec![value.clone()],
        Statement::ArrayStore { value, .. } => vec![value.clone()],
        Statement::GetField { .. } | Statement::NewArray { .. } => Vec::new(),
    }
}

fn primitive_kind(value: &RenderedValue) -> Option<BaseType> {
    Some(match value {
        RenderedValue::Boolean { .. } => BaseType::Boolean,
        RenderedValue::Byte { .. } => BaseType::Byte,
        RenderedValue::Short { .. } => BaseType::Short,
        RenderedValue::Char { .. } => BaseType::Char,
        RenderedValue::Int { .. } => BaseType::Int,
        RenderedValue::Long { .. } => BaseType::Long,
        RenderedValue::Float { .. } => BaseType::Float,
        RenderedValue::Double { .. } => BaseType::Double,
        _ => return None,
    })
}

/// A static type for a value whose declaration is unknown (a field read).
fn static_type_of(value: &RenderedValue) -> JType {
    if let Some(base) = primitive_kind(value) {
        return JType::Primitive(base);
    }
    match value {
        RenderedValue::String { .. } => JType::Class("java.lang.String".into()),
        RenderedValue::Enum { class, .. } => JType::Class(class.clone()),
        RenderedValue::Array { class, .. } => {
            JType::from_array_class_name(class).unwrap_or_else(JType::object)
        }
        _ => JType::object(),
    }
}
