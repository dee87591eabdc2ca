//! The inputs of a method as solver variables, and how a solution becomes
//! a plan the executor can run.
//!
//! Every input is described by a [`Spec`] whose variables are named after
//! its place (`p0` is the first parameter, `p0.len` its length, `p1.c0.a2`
//! the third constructor argument of the first type choice of the second
//! parameter, `r` the receiver, `q0.a1` an argument of the first call that
//! prepares the receiver). Reference inputs are lazily initialised the way
//! a person would build them: null, a string or array literal, an enum
//! constant, or a new object through one of its public constructors (when
//! the static type is an interface or abstract class, one of the program's
//! implementations); two object inputs of the same type may alias.
//!
//! [`InputModel::realise`] turns a solver model ([`Valuation`]) into the
//! plan's statements and, for the interpreter, into [`Act`]s: what each
//! statement means over the variables.

use std::collections::BTreeMap;

use testgen_classfile::descriptor::{BaseType, ElementType, FieldType, MethodDescriptor};
use testgen_exec::{JavaString, Plan, Statement, Value};
use z3::ast::{Array, Ast, Bool, Dynamic, Float, Seq, BV};
use z3::{Model, Sort};

use crate::arith::Primitive;
use crate::program::{public_constructors, MethodKey, Program};
use crate::value::{char_sort, string_sort, TypeChoice, ADDRESS_BITS};

/// Bounds that keep inputs small enough to read and to solve for.
#[derive(Clone, Debug)]
pub struct InputBounds {
    pub max_string_length: u32,
    pub max_array_length: u32,
    /// Arrays of references hold this many element inputs at most.
    pub max_reference_array_length: u32,
    /// How deep constructor arguments nest (an object argument of an
    /// object argument...).
    pub max_object_depth: u32,
}

impl Default for InputBounds {
    fn default() -> Self {
        InputBounds {
            max_string_length: 16,
            max_array_length: 16,
            max_reference_array_length: 3,
            max_object_depth: 2,
        }
    }
}

/// How one input is built from the solver's variables.
#[derive(Clone, Debug)]
pub enum Spec {
    Prim {
        var: String,
        base: BaseType,
    },
    /// A reference input: null (when `nullable` and `<var>.null`) or one of
    /// `choices` (by `<var>.type`).
    Ref {
        var: String,
        nullable: bool,
        choices: Vec<Choice>,
    },
}

#[derive(Clone, Debug)]
pub enum Choice {
    Str,
    Boxed {
        class: String,
        base: BaseType,
    },
    Enum {
        class: String,
        constants: Vec<String>,
    },
    PrimArray {
        element: BaseType,
    },
    /// An array of references with element inputs `<var>.e<i>`.
    RefArray {
        descriptor: String,
        elements: Vec<Spec>,
    },
    New {
        class: String,
        descriptor: String,
        args: Vec<Spec>,
    },
    /// `class.name(args)`, a public static method returning a `class`.
    Factory {
        class: String,
        name: String,
        descriptor: String,
        args: Vec<Spec>,
    },
    /// `class.field`, a public static final field of type `class`
    /// (`CSVFormat.DEFAULT`): how classes without a public constructor are
    /// often meant to be used.
    Constant {
        class: String,
        field: String,
    },
}

/// A call made on the receiver before the call under test.
#[derive(Clone, Debug)]
pub struct PrefixCall {
    pub name: String,
    pub descriptor: String,
    pub args: Vec<Spec>,
}

/// All inputs of one way of calling the method: receiver, preparing calls,
/// arguments.
#[derive(Clone, Debug)]
pub struct InputModel {
    pub target: MethodKey,
    pub receiver: Option<Spec>,
    pub prefix: Vec<PrefixCall>,
    pub args: Vec<Spec>,
    pub bounds: InputBounds,
}

/// What a plan statement means for the interpreter.
#[derive(Clone, Debug)]
pub enum Act {
    New {
        class: String,
        descriptor: String,
        args: Vec<ArgSym>,
        choice: Option<TypeChoice>,
    },
    Call {
        key: MethodKey,
        receiver: Option<ArgSym>,
        args: Vec<ArgSym>,
    },
    /// An input array, created whole with symbolic length and elements.
    Array {
        class: String,
        length: BV,
        elements: ArrayElements,
    },
    /// A statement that only puts an input's value in place (array stores).
    Realise,
    /// A shared constant read from a static field: an object of `class`
    /// whose state the replay does not know.
    Constant { class: String },
}

#[derive(Clone, Debug)]
pub enum ArrayElements {
    Symbolic(Array),
    References(Vec<ArgSym>),
}

/// A statement argument over the variables.
#[derive(Clone, Debug)]
pub enum ArgSym {
    Prim(Primitive),
    Ref {
        is_null: Bool,
        address: BV,
        target: Target,
    },
}

#[derive(Clone, Debug)]
pub enum Target {
    Null,
    /// The object made by that statement.
    Statement(usize),
    Str {
        chars: Seq,
        choice: Option<TypeChoice>,
    },
    Boxed {
        class: String,
        value: Primitive,
        choice: Option<TypeChoice>,
    },
    Enum {
        class: String,
        ordinal: BV,
        constants: Vec<String>,
    },
}

/// A plan and its meaning.
pub struct Realised {
    pub plan: Plan,
    pub acts: Vec<Act>,
}

impl InputModel {
    /// The inputs of calling `target` with `prefix` calls on its receiver.
    pub fn new(
        program: &Program<'_>,
        target: MethodKey,
        is_static: bool,
        prefix: &[(String, String)],
        bounds: InputBounds,
    ) -> Result<InputModel, String> {
        let descriptor = MethodDescriptor::parse(&target.descriptor).map_err(|e| e.to_string())?;
        let builder = SpecBuilder {
            program,
            bounds: &bounds,
        };
        let args = descriptor
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| builder.spec(&format!("p{i}"), p, 0))
            .collect();
        let is_constructor = target.name == "<init>";
        let receiver = if is_static || is_constructor {
            None
        } else {
            let choices = builder.object_choices("r", &target.class, 0);
            if choices.is_empty() {
                return Err(format!(
                    "no public constructor builds a {}",
                    target.class.replace('/', ".")
                ));
            }
            Some(Spec::Ref {
                var: "r".into(),
                nullable: false,
                choices,
            })
        };
        let prefix = prefix
            .iter()
            .enumerate()
            .map(|(k, (name, descriptor_text))| {
                let descriptor =
                    MethodDescriptor::parse(descriptor_text).map_err(|e| e.to_string())?;
                Ok(PrefixCall {
                    name: name.clone(),
                    descriptor: descriptor_text.clone(),
                    args: descriptor
                        .parameters
                        .iter()
                        .enumerate()
                        .map(|(i, p)| builder.spec(&format!("q{k}.a{i}"), p, 0))
                        .collect(),
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(InputModel {
            target,
            receiver,
            prefix,
            args,
            bounds,
        })
    }

    /// The primitive arguments of the call under test: (variable, type).
    pub fn primitive_arguments(&self) -> Vec<(String, BaseType)> {
        self.args
            .iter()
            .filter_map(|spec| match spec {
                Spec::Prim { var, base } => Some((var.clone(), *base)),
                Spec::Ref { .. } => None,
            })
            .collect()
    }

    /// SMT-LIB declarations of every variable, with the ranges the JVM and
    /// the bounds allow.
    pub fn declarations(&self) -> String {
        let mut out = String::new();
        let all = self
            .receiver
            .iter()
            .chain(self.prefix.iter().flat_map(|c| c.args.iter()))
            .chain(self.args.iter());
        for spec in all {
            declare(spec, &self.bounds, &mut out);
        }
        out
    }

    /// The plan for a solution, and what its statements mean.
    pub fn realise(&self, valuation: &Valuation) -> Realised {
        let mut r = Realiser {
            valuation,
            statements: Vec::new(),
            acts: Vec::new(),
            objects: BTreeMap::new(),
        };
        let receiver = self.receiver.as_ref().map(|spec| r.realise(spec));
        for call in &self.prefix {
            let (values, syms) = r.realise_all(&call.args);
            let (receiver_value, receiver_sym) = receiver.clone().expect("prefix needs a receiver");
            r.push(
                Statement::Call {
                    receiver: receiver_value,
                    class: binary(&self.target.class),
                    name: call.name.clone(),
                    descriptor: call.descriptor.clone(),
                    args: values,
                },
                Act::Call {
                    key: MethodKey::new(&self.target.class, &call.name, &call.descriptor),
                    receiver: Some(receiver_sym),
                    args: syms,
                },
            );
        }
        let (values, syms) = r.realise_all(&self.args);
        let class = binary(&self.target.class);
        if self.target.name == "<init>" {
            r.push(
                Statement::New {
                    class,
                    descriptor: self.target.descriptor.clone(),
                    args: values,
                },
                Act::New {
                    class: self.target.class.clone(),
                    descriptor: self.target.descriptor.clone(),
                    args: syms,
                    choice: None,
                },
            );
            return Realised {
                plan: r.finish(),
                acts: r.acts,
            };
        }
        let statement = match &receiver {
            Some((receiver_value, _)) => Statement::Call {
                receiver: receiver_value.clone(),
                class,
                name: self.target.name.clone(),
                descriptor: self.target.descriptor.clone(),
                args: values,
            },
            None => Statement::CallStatic {
                class,
                name: self.target.name.clone(),
                descriptor: self.target.descriptor.clone(),
                args: values,
            },
        };
        r.push(
            statement,
            Act::Call {
                key: self.target.clone(),
                receiver: receiver.map(|(_, sym)| sym),
                args: syms,
            },
        );
        Realised {
            plan: r.finish(),
            acts: r.acts,
        }
    }
}

struct SpecBuilder<'p, 'a> {
    program: &'p Program<'a>,
    bounds: &'p InputBounds,
}

impl SpecBuilder<'_, '_> {
    fn spec(&self, var: &str, ty: &FieldType<'_>, depth: u32) -> Spec {
        let reference = |choices: Vec<Choice>| Spec::Ref {
            var: var.to_string(),
            nullable: true,
            choices,
        };
        match ty {
            FieldType::Base(base) => Spec::Prim {
                var: var.to_string(),
                base: *base,
            },
            FieldType::Array {
                dimensions,
                element,
            } => {
                let descriptor = type_descriptor(ty);
                if let (1, ElementType::Base(base)) = (*dimensions, element) {
                    return reference(vec![Choice::PrimArray { element: *base }]);
                }
                let inner = FieldType::parse(&descriptor[1..]).ok();
                let elements = match (&inner, depth < self.bounds.max_object_depth) {
                    (Some(inner), true) => (0..self.bounds.max_reference_array_length)
                        .map(|i| self.spec(&format!("{var}.e{i}"), inner, depth + 1))
                        .collect(),
                    _ => Vec::new(),
                };
                reference(vec![Choice::RefArray {
                    descriptor,
                    elements,
                }])
            }
            FieldType::Object(class) => reference(self.reference_choices(var, class, depth)),
        }
    }

    fn reference_choices(&self, var: &str, class: &str, depth: u32) -> Vec<Choice> {
        if let Some(base) = boxed_base(class) {
            return vec![Choice::Boxed {
                class: class.to_string(),
                base,
            }];
        }
        match class {
            "java/lang/String" | "java/lang/CharSequence" => return vec![Choice::Str],
            _ => {}
        }
        let constants = self.program.enum_constants(class);
        if !constants.is_empty() {
            return vec![Choice::Enum {
                class: class.to_string(),
                constants,
            }];
        }
        let mut choices = self.object_choices(var, class, depth);
        if class == "java/lang/Object" {
            // A loosely typed parameter: the program's own classes first,
            // then the values people pass most.
            choices.push(Choice::Str);
            choices.push(Choice::Boxed {
                class: "java/lang/Integer".into(),
                base: BaseType::Int,
            });
        }
        choices
    }

    /// The inputs of a call's parameters, named `<prefix>.a<i>`; `None` for
    /// a malformed descriptor.
    fn argument_specs(&self, prefix: &str, descriptor: &str, depth: u32) -> Option<Vec<Spec>> {
        let parsed = MethodDescriptor::parse(descriptor).ok()?;
        Some(
            parsed
                .parameters
                .iter()
                .enumerate()
                .map(|(i, p)| self.spec(&format!("{prefix}.a{i}"), p, depth))
                .collect(),
        )
    }

    /// One choice per (class, public constructor) that builds a `class`.
    fn object_choices(&self, var: &str, class: &str, depth: u32) -> Vec<Choice> {
        if depth > self.bounds.max_object_depth {
            return Vec::new();
        }
        let mut choices = Vec::new();
        for implementation in self.program.implementations(class) {
            let Some(file) = self.program.class(&implementation) else {
                continue;
            };
            for descriptor in public_constructors(file) {
                let prefix = format!("{var}.c{}", choices.len());
                let Some(args) = self.argument_specs(&prefix, &descriptor, depth + 1) else {
                    continue;
                };
                choices.push(Choice::New {
                    class: implementation.clone(),
                    descriptor,
                    args,
                });
            }
        }
        // Static factories of the type itself (`Money.of(...)`), for classes
        // built that way rather than with `new`.
        for (name, descriptor) in self.program.static_factories(class) {
            let prefix = format!("{var}.c{}", choices.len());
            let Some(args) = self.argument_specs(&prefix, &descriptor, depth + 1) else {
                continue;
            };
            choices.push(Choice::Factory {
                class: class.to_string(),
                name,
                descriptor,
                args,
            });
        }
        for field in self.program.static_constants(class) {
            choices.push(Choice::Constant {
                class: class.to_string(),
                field,
            });
        }
        choices
    }
}

/// The JVM descriptor of a field type, e.g. `[[I` or `Ljava/lang/String;`.
pub fn type_descriptor(ty: &FieldType<'_>) -> String {
    let element = |element: &ElementType<'_>| match element {
        ElementType::Base(base) => base.descriptor_char().to_string(),
        ElementType::Object(class) => format!("L{class};"),
    };
    match ty {
        FieldType::Base(base) => base.descriptor_char().to_string(),
        FieldType::Object(class) => format!("L{class};"),
        FieldType::Array {
            dimensions,
            element: e,
        } => format!("{}{}", "[".repeat(usize::from(*dimensions)), element(e)),
    }
}

pub fn boxed_base(class: &str) -> Option<BaseType> {
    Some(match class {
        "java/lang/Integer" => BaseType::Int,
        "java/lang/Long" => BaseType::Long,
        "java/lang/Short" => BaseType::Short,
        "java/lang/Byte" => BaseType::Byte,
        "java/lang/Character" => BaseType::Char,
        "java/lang/Boolean" => BaseType::Boolean,
        "java/lang/Float" => BaseType::Float,
        "java/lang/Double" => BaseType::Double,
        _ => return None,
    })
}

/// The z3 sort of a primitive input, and the SMT-LIB sort text.
fn prim_sort(base: BaseType) -> (Sort, &'static str) {
    match base {
        BaseType::Long => (Sort::bitvector(64), "(_ BitVec 64)"),
        BaseType::Float => (Sort::float32(), "(_ FloatingPoint 8 24)"),
        BaseType::Double => (Sort::double(), "(_ FloatingPoint 11 53)"),
        _ => (Sort::bitvector(32), "(_ BitVec 32)"),
    }
}

/// A primitive input's term.
pub fn prim_term(var: &str, base: BaseType) -> Primitive {
    match base {
        BaseType::Long => Primitive::Long(BV::new_const(var, 64)),
        BaseType::Float => Primitive::Float(Float::new_const_float32(var)),
        BaseType::Double => Primitive::Double(Float::new_const_double(var)),
        _ => Primitive::Int(BV::new_const(var, 32)),
    }
}

fn int_range(var: &str, low: i64, high: i64) -> String {
    let bv = |v: i64| format!("#x{:08x}", v as u32);
    format!(
        "(assert (and (bvsle {} {var}) (bvsle {var} {})))\n",
        bv(low),
        bv(high)
    )
}

fn declare(spec: &Spec, bounds: &InputBounds, out: &mut String) {
    match spec {
        Spec::Prim { var, base } => {
            let var = quoted(var);
            out.push_str(&format!("(declare-const {var} {})\n", prim_sort(*base).1));
            match base {
                BaseType::Boolean => out.push_str(&int_range(&var, 0, 1)),
                BaseType::Char => out.push_str(&int_range(&var, 0, 0xffff)),
                BaseType::Byte => out.push_str(&int_range(&var, -128, 127)),
                BaseType::Short => out.push_str(&int_range(&var, -32768, 32767)),
                _ => {}
            }
        }
        Spec::Ref {
            var,
            nullable,
            choices,
        } => {
            let q = |suffix: &str| quoted(&format!("{var}{suffix}"));
            if *nullable {
                out.push_str(&format!("(declare-const {} Bool)\n", q(".null")));
            }
            out.push_str(&format!("(declare-const {} (_ BitVec 32))\n", q(".type")));
            out.push_str(&int_range(
                &q(".type"),
                0,
                choices.len().saturating_sub(1) as i64,
            ));
            out.push_str(&format!(
                "(declare-const {} (_ BitVec {ADDRESS_BITS}))\n",
                q(".addr")
            ));
            out.push_str(&format!(
                "(assert (and (bvule #x0001 {a}) (bvule {a} #x0040)))\n",
                a = q(".addr")
            ));
            for (index, choice) in choices.iter().enumerate() {
                match choice {
                    Choice::Str => {
                        out.push_str(&format!(
                            "(declare-const {} (Seq (_ BitVec 16)))\n",
                            q(&format!(".s{index}"))
                        ));
                        out.push_str(&format!(
                            "(assert (<= (seq.len {}) {}))\n",
                            q(&format!(".s{index}")),
                            bounds.max_string_length
                        ));
                    }
                    Choice::Boxed { base, .. } => declare(
                        &Spec::Prim {
                            var: format!("{var}.b{index}"),
                            base: *base,
                        },
                        bounds,
                        out,
                    ),
                    Choice::Enum { constants, .. } => {
                        out.push_str(&format!("(declare-const {} (_ BitVec 32))\n", q(".ord")));
                        out.push_str(&int_range(&q(".ord"), 0, constants.len() as i64 - 1));
                    }
                    Choice::PrimArray { element } => {
                        out.push_str(&format!("(declare-const {} (_ BitVec 32))\n", q(".len")));
                        out.push_str(&int_range(
                            &q(".len"),
                            0,
                            i64::from(bounds.max_array_length),
                        ));
                        out.push_str(&format!(
                            "(declare-const {} (Array (_ BitVec 32) {}))\n",
                            q(".elems"),
                            prim_sort(*element).1
                        ));
                        // No range constraint on narrow elements (a quantifier
                        // makes z3's models costly to evaluate): the machine
                        // narrows every element it loads, as the realiser does.
                    }
                    Choice::RefArray { elements, .. } => {
                        out.push_str(&format!("(declare-const {} (_ BitVec 32))\n", q(".len")));
                        out.push_str(&int_range(&q(".len"), 0, elements.len() as i64));
                        for element in elements {
                            declare(element, bounds, out);
                        }
                    }
                    Choice::New { args, .. } | Choice::Factory { args, .. } => {
                        for arg in args {
                            declare(arg, bounds, out);
                        }
                    }
                    Choice::Constant { .. } => {}
                }
            }
        }
    }
}

/// The values that decide most branches, as SMT-LIB literals of `base`'s
/// sort, most ordinary first.
pub fn special_values(base: BaseType) -> Vec<String> {
    let int = |v: i64| format!("#x{:08x}", v as u32);
    match base {
        BaseType::Float => [
            0.0f32,
            1.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            100.0,
            2.0,
            20.0,
            0.5,
            10.0,
            -0.0,
        ]
        .iter()
        .map(|v| float_literal(u64::from(v.to_bits()), 8, 24))
        .collect(),
        BaseType::Double => [
            0.0f64,
            1.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            100.0,
            2.0,
            20.0,
            0.5,
            10.0,
            -0.0,
        ]
        .iter()
        .map(|v| float_literal(v.to_bits(), 11, 53))
        .collect(),
        BaseType::Long => [0i64, 1, -1, 2, 100, i64::MIN, i64::MAX]
            .iter()
            .map(|v| format!("#x{:016x}", *v as u64))
            .collect(),
        BaseType::Boolean => vec![int(0), int(1)],
        BaseType::Char => [0i64, 97, 48, 65, 32].iter().map(|&v| int(v)).collect(),
        _ => [
            0i64,
            1,
            -1,
            2,
            100,
            i64::from(i32::MIN),
            i64::from(i32::MAX),
        ]
        .iter()
        .map(|&v| int(v))
        .collect(),
    }
}

/// An IEEE value as an SMT-LIB `fp` literal of the given format.
fn float_literal(bits: u64, exponent: u32, significand: u32) -> String {
    let fraction = significand - 1;
    let sign = bits >> (exponent + fraction);
    let biased = (bits >> fraction) & ((1 << exponent) - 1);
    let mantissa = bits & ((1 << fraction) - 1);
    let binary = |value: u64, width: u32| format!("#b{:0width$b}", value, width = width as usize);
    format!(
        "(fp {} {} {})",
        binary(sign, 1),
        binary(biased, exponent),
        binary(mantissa, fraction)
    )
}

/// A symbol as SMT-LIB writes it (names with dots are quoted by z3 too).
fn quoted(name: &str) -> String {
    format!("|{name}|")
}

/// A solver model, read as input values. Variables the model does not
/// mention take their default (zero, false, empty), as z3's model
/// completion gives them.
pub struct Valuation {
    model: Model,
}

impl Valuation {
    pub fn new(model: Model) -> Valuation {
        Valuation { model }
    }

    pub fn bits(&self, term: &BV) -> u64 {
        self.model
            .eval(term, true)
            .and_then(|v| v.as_u64())
            .unwrap_or(0)
    }

    /// A bit-vector term's value as a signed number.
    pub fn signed(&self, term: &BV) -> i64 {
        let width = term.get_size();
        let raw = self.bits(term);
        if width >= 64 {
            raw as i64
        } else {
            let shift = 64 - width;
            ((raw << shift) as i64) >> shift
        }
    }

    pub fn truth(&self, term: &Bool) -> bool {
        self.model
            .eval(term, true)
            .and_then(|v| v.as_bool())
            .unwrap_or(false)
    }

    pub fn float_bits(&self, term: &Float) -> u64 {
        let Some(value) = self.model.eval(term, true) else {
            return 0;
        };
        if value.is_nan().simplify().as_bool() == Some(true) {
            return if value.get_sort() == Sort::float32() {
                0x7fc0_0000
            } else {
                0x7ff8_0000_0000_0000
            };
        }
        value.to_ieee_bv().simplify().as_u64().unwrap_or(0)
    }

    pub fn units(&self, chars: &Seq) -> Vec<u16> {
        let length = self
            .model
            .eval(&chars.length(), true)
            .and_then(|l| l.as_i64())
            .unwrap_or(0)
            .clamp(0, 4096);
        (0..length)
            .map(|i| {
                let unit = chars.nth(i);
                self.model
                    .eval(&unit, true)
                    .and_then(|u| u.as_bv())
                    .and_then(|u| u.as_u64())
                    .unwrap_or(0) as u16
            })
            .collect()
    }

    pub fn eval_dynamic(&self, term: &Dynamic) -> Option<Dynamic> {
        self.model.eval(term, true)
    }

    pub fn primitive_value(&self, term: &Primitive, base: BaseType) -> Value {
        match term {
            Primitive::Int(v) => narrow(base, self.signed(v) as i32),
            Primitive::Long(v) => Value::Long {
                value: self.signed(v),
            },
            Primitive::Float(v) => Value::Float {
                bits: self.float_bits(v) as u32,
            },
            Primitive::Double(v) => Value::Double {
                bits: self.float_bits(v),
            },
        }
    }
}

pub fn narrow(base: BaseType, value: i32) -> Value {
    match base {
        BaseType::Boolean => Value::Boolean { value: value != 0 },
        BaseType::Byte => Value::Byte { value: value as i8 },
        BaseType::Short => Value::Short {
            value: value as i16,
        },
        BaseType::Char => Value::Char {
            value: value as u16,
        },
        _ => Value::Int { value },
    }
}

fn binary(internal: &str) -> String {
    internal.replace('/', ".")
}

struct Realiser<'v> {
    valuation: &'v Valuation,
    statements: Vec<Statement>,
    acts: Vec<Act>,
    /// Object inputs made so far by address: (class, statement).
    objects: BTreeMap<u64, (String, usize)>,
}

impl Realiser<'_> {
    fn finish(&mut self) -> Plan {
        Plan::new(std::mem::take(&mut self.statements))
    }

    fn push(&mut self, statement: Statement, act: Act) -> usize {
        self.statements.push(statement);
        self.acts.push(act);
        self.statements.len() - 1
    }

    fn realise_all(&mut self, specs: &[Spec]) -> (Vec<Value>, Vec<ArgSym>) {
        specs.iter().map(|spec| self.realise(spec)).unzip()
    }

    fn realise(&mut self, spec: &Spec) -> (Value, ArgSym) {
        match spec {
            Spec::Prim { var, base } => {
                let term = prim_term(var, *base);
                (
                    self.valuation.primitive_value(&term, *base),
                    ArgSym::Prim(term),
                )
            }
            Spec::Ref {
                var,
                nullable,
                choices,
            } => {
                let is_null = if *nullable {
                    Bool::new_const(format!("{var}.null"))
                } else {
                    Bool::from_bool(false)
                };
                let address = BV::new_const(format!("{var}.addr"), ADDRESS_BITS);
                let type_var = BV::new_const(format!("{var}.type"), 32);
                let null = || ArgSym::Ref {
                    is_null: is_null.clone(),
                    address: address.clone(),
                    target: Target::Null,
                };
                if choices.is_empty() || self.valuation.truth(&is_null) {
                    return (Value::Null, null());
                }
                let index = (self.valuation.bits(&type_var) as usize).min(choices.len() - 1);
                let choice = (choices.len() > 1).then(|| TypeChoice {
                    var: type_var.clone(),
                    candidates: choices.iter().map(choice_class).collect(),
                });
                let reference = |target| ArgSym::Ref {
                    is_null: is_null.clone(),
                    address: address.clone(),
                    target,
                };
                match &choices[index] {
                    Choice::Str => {
                        let chars = Seq::new_const(format!("{var}.s{index}"), &char_sort());
                        let units = self.valuation.units(&chars);
                        (
                            Value::String {
                                value: JavaString::from_utf16(units),
                            },
                            reference(Target::Str { chars, choice }),
                        )
                    }
                    Choice::Boxed { class, base } => {
                        let term = prim_term(&format!("{var}.b{index}"), *base);
                        (
                            self.valuation.primitive_value(&term, *base),
                            reference(Target::Boxed {
                                class: class.clone(),
                                value: term,
                                choice,
                            }),
                        )
                    }
                    Choice::Enum { class, constants } => {
                        let ordinal = BV::new_const(format!("{var}.ord"), 32);
                        let at = (self.valuation.bits(&ordinal) as usize).min(constants.len() - 1);
                        (
                            Value::Enum {
                                class: binary(class),
                                name: constants[at].clone(),
                            },
                            reference(Target::Enum {
                                class: class.clone(),
                                ordinal,
                                constants: constants.clone(),
                            }),
                        )
                    }
                    Choice::PrimArray { element } => {
                        let length_var = BV::new_const(format!("{var}.len"), 32);
                        let (sort, _) = prim_sort(*element);
                        let elements =
                            Array::new_const(format!("{var}.elems"), &Sort::bitvector(32), &sort);
                        let length = self.valuation.signed(&length_var).clamp(0, 1 << 16) as i32;
                        let class = format!("[{}", element.descriptor_char());
                        let array = self.push(
                            Statement::NewArray {
                                element: element.descriptor_char().to_string(),
                                length,
                            },
                            Act::Array {
                                class,
                                length: length_var,
                                elements: ArrayElements::Symbolic(elements.clone()),
                            },
                        );
                        for index in 0..length {
                            let cell = elements.select(&BV::from_i64(i64::from(index), 32));
                            let value = match element {
                                BaseType::Float | BaseType::Double => {
                                    let float = cell.as_float().expect("float element");
                                    self.valuation.primitive_value(
                                        &if *element == BaseType::Float {
                                            Primitive::Float(float)
                                        } else {
                                            Primitive::Double(float)
                                        },
                                        *element,
                                    )
                                }
                                BaseType::Long => Value::Long {
                                    value: self.valuation.signed(&cell.as_bv().expect("bv")),
                                },
                                _ => narrow(
                                    *element,
                                    self.valuation.signed(&cell.as_bv().expect("bv")) as i32,
                                ),
                            };
                            self.push(
                                Statement::ArrayStore {
                                    array: Value::Ref { statement: array },
                                    index,
                                    value,
                                },
                                Act::Realise,
                            );
                        }
                        (
                            Value::Ref { statement: array },
                            reference(Target::Statement(array)),
                        )
                    }
                    Choice::RefArray {
                        descriptor,
                        elements,
                    } => {
                        let length_var = BV::new_const(format!("{var}.len"), 32);
                        let length = (self.valuation.signed(&length_var).max(0) as usize)
                            .min(elements.len());
                        let (values, syms) = self.realise_all(&elements[..length]);
                        let array = self.push(
                            Statement::NewArray {
                                element: descriptor[1..].to_string(),
                                length: length as i32,
                            },
                            Act::Array {
                                class: descriptor.clone(),
                                length: length_var,
                                elements: ArrayElements::References(syms),
                            },
                        );
                        for (index, value) in values.into_iter().enumerate() {
                            if value != Value::Null {
                                self.push(
                                    Statement::ArrayStore {
                                        array: Value::Ref { statement: array },
                                        index: index as i32,
                                        value,
                                    },
                                    Act::Realise,
                                );
                            }
                        }
                        (
                            Value::Ref { statement: array },
                            reference(Target::Statement(array)),
                        )
                    }
                    Choice::New {
                        class,
                        descriptor,
                        args,
                    } => {
                        let at = self.valuation.bits(&address);
                        if let Some((made, statement)) = self.objects.get(&at) {
                            if made == class {
                                let statement = *statement;
                                return (
                                    Value::Ref { statement },
                                    reference(Target::Statement(statement)),
                                );
                            }
                        }
                        let (values, syms) = self.realise_all(args);
                        let statement = self.push(
                            Statement::New {
                                class: binary(class),
                                descriptor: descriptor.clone(),
                                args: values,
                            },
                            Act::New {
                                class: class.clone(),
                                descriptor: descriptor.clone(),
                                args: syms,
                                choice,
                            },
                        );
                        self.objects.insert(at, (class.clone(), statement));
                        (
                            Value::Ref { statement },
                            reference(Target::Statement(statement)),
                        )
                    }
                    Choice::Factory {
                        class,
                        name,
                        descriptor,
                        args,
                    } => {
                        let (values, syms) = self.realise_all(args);
                        let statement = self.push(
                            Statement::CallStatic {
                                class: binary(class),
                                name: name.clone(),
                                descriptor: descriptor.clone(),
                                args: values,
                            },
                            Act::Call {
                                key: MethodKey::new(class, name, descriptor),
                                receiver: None,
                                args: syms,
                            },
                        );
                        (
                            Value::Ref { statement },
                            reference(Target::Statement(statement)),
                        )
                    }
                    Choice::Constant { class, field } => {
                        let statement = self.push(
                            Statement::GetField {
                                class: binary(class),
                                name: field.clone(),
                                receiver: None,
                            },
                            Act::Constant {
                                class: class.clone(),
                            },
                        );
                        (
                            Value::Ref { statement },
                            reference(Target::Statement(statement)),
                        )
                    }
                }
            }
        }
    }
}

fn choice_class(choice: &Choice) -> String {
    match choice {
        Choice::Str => "java/lang/String".into(),
        Choice::Boxed { class, .. }
        | Choice::Enum { class, .. }
        | Choice::New { class, .. }
        | Choice::Factory { class, .. }
        | Choice::Constant { class, .. } => class.clone(),
        Choice::PrimArray { element } => format!("[{}", element.descriptor_char()),
        Choice::RefArray { descriptor, .. } => descriptor.clone(),
    }
}

/// The sort of strings, for callers declaring string variables.
pub fn string_input_sort() -> Sort {
    string_sort()
}
