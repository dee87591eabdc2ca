//! The printer: Java source for a test's statements (arrange and act) and
//! for the assertions the oracle chose. Types are written as markers that
//! `types::resolve` turns into simple or qualified names once the whole
//! class is known.

use std::collections::BTreeSet;

use testgen_exec::{RenderedValue, Statement, Value};

use crate::generics::Inferred;
use crate::literal;
use crate::model::JUnit;
use crate::oracle::{primitive_kind, Actual, Assertion, Check, FloatingValue, ThrownCheck};
use crate::types::{method_types, type_ref, JType};

/// A local of the test method: its name and declared type.
#[derive(Clone, Debug)]
pub struct Local {
    pub name: String,
    pub ty: JType,
}

/// A statement as Java: the expression, the static type of its value (if
/// it has one) and whether it may stand alone as a statement.
pub struct Code {
    pub expr: String,
    pub ty: Option<JType>,
    pub statement_expression: bool,
}

/// Prints statements that refer to earlier ones through the locals
/// declared for them.
pub struct StatementPrinter<'l> {
    /// Per statement of the plan, the local holding its value, if any.
    pub locals: &'l [Option<Local>],
    /// The type arguments worked out for the plan (`None`: erased types).
    pub generics: Option<&'l Inferred>,
}

impl StatementPrinter<'_> {
    /// The Java code of `statement`, the plan's statement number `index`,
    /// whose value in the first run was `first` (the type of a field read
    /// is known only from it).
    pub fn code(
        &self,
        index: usize,
        statement: &Statement,
        first: Option<&RenderedValue>,
    ) -> Result<Code, String> {
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
                let diamond = if self.generics.is_some_and(|g| g.is_diamond(index)) {
                    "<>"
                } else {
                    ""
                };
                Code {
                    expr: format!(
                        "new {}{diamond}({})",
                        type_ref(class),
                        self.arguments(index, args, &params)?
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
                        self.arguments(index, args, &params)?
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
                        self.arguments(index, args, &params)?
                    ),
                    ty: ret,
                    statement_expression: true,
                }
            }
            Statement::GetField {
                class,
                name,
                receiver,
                field_type,
            } => {
                let target = match receiver {
                    Some(receiver) => self.receiver(receiver, class)?,
                    None => type_ref(class),
                };
                // The field's declared type when the plan says it; else a
                // constant of the class's own type (`Rounding.HALF_UP`) is
                // declared with that type, so that calls on it need no cast;
                // other objects may be of a class the test cannot name.
                let declared = field_type.as_deref().and_then(JType::from_descriptor);
                let ty = match (declared, first) {
                    (Some(declared), _) => declared,
                    (None, Some(RenderedValue::Object { class: runtime, .. }))
                        if runtime == class =>
                    {
                        JType::Class(class.clone())
                    }
                    (None, Some(value)) => static_type_of(value),
                    (None, None) => JType::object(),
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
            Statement::Lambda {
                interface,
                descriptor,
                result,
                ..
            } => {
                let (params, ret) = types_of(descriptor)?;
                let body = match (result, ret) {
                    // A lambda's `null` needs no cast: it has one method.
                    (Some(Value::Null), Some(_)) => "null".to_string(),
                    (Some(result), Some(ret)) => self.value(result, Some(&ret))?,
                    (None, None) => "{}".to_string(),
                    _ => return Err(format!("a lambda whose result does not fit {descriptor}")),
                };
                Code {
                    expr: format!("{} -> {body}", self.lambda_parameters(params.len())),
                    ty: Some(JType::Class(interface.clone())),
                    statement_expression: false,
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

    /// A lambda's parameter list for `count` parameters (`()`, `a`,
    /// `(a, b)`), with names no local of the test has.
    fn lambda_parameters(&self, count: usize) -> String {
        let taken: BTreeSet<&str> = self
            .locals
            .iter()
            .flatten()
            .map(|local| local.name.as_str())
            .collect();
        let names: Vec<String> = (b'a'..=b'z')
            .map(|letter| char::from(letter).to_string())
            .chain((1..).map(|n| format!("arg{n}")))
            .filter(|name| !taken.contains(name.as_str()))
            .take(count)
            .collect();
        match names.as_slice() {
            [one] => one.clone(),
            _ => format!("({})", names.join(", ")),
        }
    }

    pub fn local(&self, statement: usize) -> Result<&Local, String> {
        self.locals
            .get(statement)
            .and_then(Option::as_ref)
            .ok_or_else(|| format!("a reference to statement {statement}, which has no value"))
    }

    fn arguments(&self, index: usize, args: &[Value], params: &[JType]) -> Result<String, String> {
        if args.len() != params.len() {
            return Err("the arguments do not match the descriptor".into());
        }
        let mut out = Vec::new();
        for (position, (arg, param)) in args.iter().zip(params).enumerate() {
            let generic_null = match arg {
                Value::Null => self.generics.and_then(|g| g.null_cast(index, position)),
                _ => None,
            };
            out.push(match generic_null {
                Some(cast) => format!("({cast}) null"),
                None => self.value(arg, Some(param))?,
            });
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
}

/// The Java expression of an assertion's subject.
pub fn actual(actual: &Actual) -> String {
    match actual {
        Actual::Result => "result".to_string(),
        Actual::Local(name) => name.clone(),
        Actual::Getter { of, name } => format!("{}.{name}()", self::actual(of)),
        Actual::Cast { class, of } => format!("(({}) {})", type_ref(class), self::actual(of)),
        Actual::ArrayCast { array, of } => format!("(({}) {})", array.source(), self::actual(of)),
        Actual::Length(of) => format!("{}.length", self::actual(of)),
        // `String.valueOf`: the value may be declared as `Object` or
        // `CharSequence`.
        Actual::Lines(of) => format!(
            "String.valueOf({}).replace(System.lineSeparator(), \"\\n\")",
            self::actual(of)
        ),
    }
}

/// The lines of an assertion, and the static imports they use.
pub fn assertion(
    assertion: &Assertion,
    junit: JUnit,
    statics: &mut BTreeSet<&'static str>,
) -> Vec<String> {
    let subject = actual(&assertion.actual);
    let mut line = |name: &'static str, text: String| {
        statics.insert(name);
        text
    };
    match &assertion.check {
        Check::Same { local } => vec![line(
            "assertSame",
            format!("assertSame({local}, {subject});"),
        )],
        Check::NotNull => vec![line("assertNotNull", format!("assertNotNull({subject});"))],
        Check::Null => vec![line("assertNull", format!("assertNull({subject});"))],
        Check::True => vec![line("assertTrue", format!("assertTrue({subject});"))],
        Check::False => vec![line("assertFalse", format!("assertFalse({subject});"))],
        Check::Equals { expected } => vec![line(
            "assertEquals",
            format!("assertEquals({expected}, {subject});"),
        )],
        Check::Floating(value) => {
            let (name, text) = floating_assertion(value, junit, &subject);
            vec![line(name, text)]
        }
        Check::ArrayEquals { element, items } => {
            let delta = match (element, junit) {
                (JType::Primitive(testgen_classfile::descriptor::BaseType::Float), JUnit::Four) => {
                    ", 0.0f"
                }
                (
                    JType::Primitive(testgen_classfile::descriptor::BaseType::Double),
                    JUnit::Four,
                ) => ", 0.0",
                _ => "",
            };
            vec![line(
                "assertArrayEquals",
                format!(
                    "assertArrayEquals(new {}[] {{{}}}, {subject}{delta});",
                    element.source(),
                    items.join(", ")
                ),
            )]
        }
        Check::StartsWith { prefix, length } => vec![
            line(
                "assertTrue",
                format!("assertTrue({subject}.startsWith({prefix}));"),
            ),
            line(
                "assertEquals",
                format!("assertEquals({length}, {subject}.length());"),
            ),
        ],
    }
}

/// `assertThrows` around the act (`act`, an expression, or a statement
/// when `statement_expression` is false), then the message check.
pub fn thrown(
    check: &ThrownCheck,
    act: &Code,
    statics: &mut BTreeSet<&'static str>,
) -> Vec<String> {
    let lambda = if act.statement_expression {
        format!("() -> {}", act.expr)
    } else {
        format!("() -> {{ Object unused = {}; }}", act.expr)
    };
    let exception = type_ref(&check.exception);
    statics.insert("assertThrows");
    let Some(message) = &check.message else {
        return vec![format!("assertThrows({exception}.class, {lambda});")];
    };
    let mut lines = vec![
        format!("{exception} thrown = assertThrows({exception}.class, {lambda});"),
        String::new(),
    ];
    match message {
        Some(message) => {
            statics.insert("assertEquals");
            lines.push(format!(
                "assertEquals({}, thrown.getMessage());",
                literal::string(message)
            ));
        }
        None => {
            statics.insert("assertNull");
            lines.push("assertNull(thrown.getMessage());".to_string());
        }
    }
    lines
}

/// The assertion (and its static import) that `actual` is exactly
/// `value`: JUnit 5 compares floating point by bits (NaN equals NaN,
/// `-0.0` differs from `0.0`); JUnit 4 with a zero delta does not tell
/// the zeros apart, so zeros are compared by bits there.
fn floating_assertion(value: &FloatingValue, junit: JUnit, actual: &str) -> (&'static str, String) {
    let class = type_ref(value.class);
    let (expected, to_bits, delta) = (&value.expected, value.to_bits, value.delta);
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
