//! A template's holes as solver variables, and how a solver model becomes
//! a plan and what each of its statements means over the variables.
//!
//! Each hole of a [`Template`] is encoded by variables named after its
//! path: a primitive hole `p0` is the variable `p0`; a reference hole `r`
//! has `r.null` (whether it is null, when nullable), `r.type` (which
//! choice), `r.addr` (which object, so that two holes may alias), and per
//! choice `r.s<k>` (a string's characters), `r.b<k>` (a boxed value),
//! `r.ord` (an enum constant), `r.len` and `r.elems` (an array's length
//! and primitive elements). [`InputModel::realise`] reads a model
//! ([`Valuation`]) into the holes' values, instantiates the template into a
//! plan, and turns each statement's origin into an [`Act`] for the replay.

use testgen_classfile::descriptor::BaseType;
use testgen_construct::{
    ArrayElements as FilledElements, Choice, Chosen, Filled, Hole, HoleKind, HoleValues, Origin,
    Recipes, Target as FilledTarget, Template, TemplateError,
};
use testgen_exec::{Plan, Value};
use testgen_project::MethodId;
use z3::ast::{Array, Ast, Bool, Dynamic, Float, Seq, BV};
use z3::{Model, Sort};

use crate::arith::Primitive;
use crate::value::{char_sort, TypeChoice, ADDRESS_BITS};

pub use testgen_construct::Bounds as InputBounds;

/// The most holes [`InputModel::distinct_objects`] keeps apart (the
/// pairwise clauses grow with the square).
const MOST_DISTINCT_OBJECTS: usize = 16;

/// The clause behind [`InputModel::distinct_objects`].
fn distinct_objects(template: &Template) -> Option<String> {
    let builds_new = |hole: &&Hole| {
        matches!(&hole.kind, HoleKind::Reference { choices, .. }
            if choices.iter().any(|c| matches!(c, Choice::New { .. })))
    };
    let mut holes: Vec<&Hole> = template.holes().into_iter().filter(builds_new).collect();
    if holes.len() > MOST_DISTINCT_OBJECTS {
        holes = template
            .receiver
            .iter()
            .chain(template.prefix.iter().flat_map(|c| c.args.iter()))
            .chain(template.args.iter())
            .filter(builds_new)
            .take(MOST_DISTINCT_OBJECTS)
            .collect();
    }
    (holes.len() >= 2).then(|| {
        let addresses: Vec<String> = holes
            .iter()
            .map(|hole| quoted(&format!("{}.addr", hole.path)))
            .collect();
        format!("(distinct {})", addresses.join(" "))
    })
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
        method: MethodId,
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
    /// A lambda for `interface` whose `method` returns `result`.
    Lambda {
        interface: String,
        method: MethodId,
        result: Option<ArgSym>,
    },
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
    /// A value whose object the machine does not model (a class literal).
    Opaque,
}

/// A plan and its meaning.
pub struct Realised {
    pub plan: Plan,
    pub acts: Vec<Act>,
}

/// The inputs of one way of calling a method, as solver variables.
#[derive(Clone, Debug)]
pub struct InputModel {
    pub template: Template,
    /// See [`InputModel::distinct_objects`]; asked for in every query, so
    /// worked out once.
    distinct_objects: Option<String>,
}

impl InputModel {
    /// The inputs of calling `target` after `prefix` calls on its receiver.
    pub fn new(
        recipes: &Recipes<'_, '_>,
        target: MethodId,
        is_static: bool,
        prefix: &[MethodId],
        bounds: InputBounds,
    ) -> Result<InputModel, TemplateError> {
        let template = Template::new(recipes, target, is_static, prefix, bounds)?;
        Ok(InputModel {
            distinct_objects: distinct_objects(&template),
            template,
        })
    }

    pub fn target(&self) -> &MethodId {
        &self.template.target
    }

    /// The primitive arguments of the call under test: (variable, type).
    pub fn primitive_arguments(&self) -> Vec<(String, BaseType)> {
        self.template
            .primitive_arguments()
            .into_iter()
            .map(|(path, base)| (path.to_string(), base))
            .collect()
    }

    /// SMT-LIB declarations of every variable, with the ranges the JVM and
    /// the bounds allow.
    pub fn declarations(&self) -> String {
        let mut out = String::new();
        let roots = self
            .template
            .receiver
            .iter()
            .chain(self.template.prefix.iter().flat_map(|c| c.args.iter()))
            .chain(self.template.args.iter());
        for hole in roots {
            declare(hole, &self.template.bounds, &mut out);
        }
        out
    }

    /// The clause that builds the receiver by its `choice`-th way (a
    /// constructor, a factory...), if it has that many.
    pub fn receiver_built_by(&self, choice: usize) -> Option<String> {
        let receiver = self.template.receiver.as_ref()?;
        let HoleKind::Reference { choices, .. } = &receiver.kind else {
            return None;
        };
        (choice < choices.len()).then(|| {
            format!(
                "(= {} #x{choice:08x})",
                quoted(&format!("{}.type", receiver.path))
            )
        })
    }

    /// The clause that makes every object the inputs build with `new` a
    /// different object, asked for first: z3 would otherwise give all
    /// holes one address, so that a node's child is the node itself and
    /// `a.equals(b)` compares an object with itself. A path that needs two
    /// holes to be one object still gets it, without this. Only the
    /// top-level holes when there are too many for a cheap `distinct`;
    /// `None` when fewer than two holes could alias.
    pub fn distinct_objects(&self) -> Option<&str> {
        self.distinct_objects.as_deref()
    }

    /// The plan for a solution, and what its statements mean.
    pub fn realise(&self, valuation: &Valuation) -> Realised {
        let instantiation = self.template.instantiate(valuation);
        Realised {
            plan: instantiation.plan,
            acts: instantiation.origins.iter().map(act).collect(),
        }
    }
}

/// What a statement of the template's plan means over the variables.
fn act(origin: &Origin) -> Act {
    match origin {
        Origin::Call {
            method,
            receiver,
            args,
        } => Act::Call {
            method: method.clone(),
            receiver: receiver.as_ref().map(arg),
            args: args.iter().map(arg).collect(),
        },
        Origin::New {
            class,
            descriptor,
            args,
            chosen,
        } => Act::New {
            class: class.as_internal().to_string(),
            descriptor: descriptor.clone(),
            args: args.iter().map(arg).collect(),
            choice: chosen.as_ref().map(type_choice),
        },
        Origin::Array {
            hole,
            class,
            elements,
        } => Act::Array {
            class: class.clone(),
            length: BV::new_const(format!("{hole}.len"), 32),
            elements: match elements {
                FilledElements::Primitive(base) => {
                    ArrayElements::Symbolic(primitive_elements(hole, *base))
                }
                FilledElements::References(filled) => {
                    ArrayElements::References(filled.iter().map(arg).collect())
                }
            },
        },
        Origin::Store => Act::Realise,
        Origin::Constant { class } => Act::Constant {
            class: class.as_internal().to_string(),
        },
        Origin::Lambda {
            interface,
            method,
            result,
        } => Act::Lambda {
            interface: interface.as_internal().to_string(),
            method: method.clone(),
            result: result.as_ref().map(arg),
        },
    }
}

/// A filled hole as terms over its variables.
fn arg(filled: &Filled) -> ArgSym {
    match filled {
        Filled::Primitive { hole, base } => ArgSym::Prim(prim_term(hole, *base)),
        Filled::Reference {
            hole,
            nullable,
            target,
        } => ArgSym::Ref {
            is_null: if *nullable {
                Bool::new_const(format!("{hole}.null"))
            } else {
                Bool::from_bool(false)
            },
            address: BV::new_const(format!("{hole}.addr"), ADDRESS_BITS),
            target: match target {
                FilledTarget::Null => Target::Null,
                FilledTarget::Statement(statement) => Target::Statement(*statement),
                FilledTarget::Str { choice, chosen } => Target::Str {
                    chars: Seq::new_const(format!("{hole}.s{choice}"), &char_sort()),
                    choice: chosen.as_ref().map(type_choice),
                },
                FilledTarget::Boxed {
                    class,
                    base,
                    choice,
                    chosen,
                } => Target::Boxed {
                    class: class.as_internal().to_string(),
                    value: prim_term(&format!("{hole}.b{choice}"), *base),
                    choice: chosen.as_ref().map(type_choice),
                },
                FilledTarget::Opaque => Target::Opaque,
                FilledTarget::Enum { class, constants } => Target::Enum {
                    class: class.as_internal().to_string(),
                    ordinal: BV::new_const(format!("{hole}.ord"), 32),
                    constants: constants.clone(),
                },
            },
        },
    }
}

fn type_choice(chosen: &Chosen) -> TypeChoice {
    TypeChoice {
        var: BV::new_const(format!("{}.type", chosen.hole), 32),
        candidates: chosen.candidates.clone(),
    }
}

/// The elements of a primitive array hole.
fn primitive_elements(hole: &str, base: BaseType) -> Array {
    Array::new_const(
        format!("{hole}.elems"),
        &Sort::bitvector(32),
        &prim_sort(base).0,
    )
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

/// Declarations of a hole's variables (and of its choices' inner holes).
fn declare(hole: &Hole, bounds: &InputBounds, out: &mut String) {
    let var = &hole.path;
    let choices = match &hole.kind {
        HoleKind::Primitive(base) => {
            declare_primitive(var, *base, out);
            return;
        }
        HoleKind::Reference { nullable, choices } => {
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
            choices
        }
    };
    let q = |suffix: &str| quoted(&format!("{var}{suffix}"));
    let mut ordinal_declared = false;
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
            Choice::Boxed { base, .. } => declare_primitive(&format!("{var}.b{index}"), *base, out),
            // Nothing to choose within a class literal.
            Choice::ClassLiteral { .. } => {}
            // One ordinal for the hole, whichever enum it holds (an
            // `Enum<?>` may hold several): within the chosen one's constants.
            Choice::Enum { constants, .. } => {
                if !ordinal_declared {
                    out.push_str(&format!("(declare-const {} (_ BitVec 32))\n", q(".ord")));
                    ordinal_declared = true;
                }
                out.push_str(&format!(
                    "(assert (=> (= {} #x{index:08x}) (and (bvsle #x00000000 {ord}) (bvslt {ord} #x{:08x}))))\n",
                    q(".type"),
                    constants.len(),
                    ord = q(".ord"),
                ));
            }
            Choice::PrimitiveArray { element } => {
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
                // narrows every element it loads, as instantiating does.
            }
            Choice::ReferenceArray { elements, .. } => {
                out.push_str(&format!("(declare-const {} (_ BitVec 32))\n", q(".len")));
                out.push_str(&int_range(&q(".len"), 0, elements.len() as i64));
                for element in elements {
                    declare(element, bounds, out);
                }
            }
            Choice::New { .. } | Choice::Factory { .. } => {
                for hole in choice.inner_holes() {
                    declare(hole, bounds, out);
                }
            }
            Choice::Produced { receiver, args, .. } => {
                declare(receiver, bounds, out);
                for arg in args {
                    declare(arg, bounds, out);
                }
            }
            Choice::Collection { place, entries, .. } => {
                let length = quoted(&format!("{place}.len"));
                out.push_str(&format!("(declare-const {length} (_ BitVec 32))\n"));
                // Not empty: the empty collection is a choice of its own,
                // and the first run should hold an element.
                out.push_str(&int_range(&length, 1, entries.len() as i64));
                for hole in entries.iter().flatten() {
                    declare(hole, bounds, out);
                }
            }
            Choice::Lambda { result, .. } => {
                if let Some(result) = result {
                    declare(result, bounds, out);
                }
            }
            Choice::Constant { .. } | Choice::Lookup { .. } => {}
        }
    }
}

fn declare_primitive(var: &str, base: BaseType, out: &mut String) {
    let var = quoted(var);
    out.push_str(&format!("(declare-const {var} {})\n", prim_sort(base).1));
    match base {
        BaseType::Boolean => out.push_str(&int_range(&var, 0, 1)),
        BaseType::Char => out.push_str(&int_range(&var, 0, 0xffff)),
        BaseType::Byte => out.push_str(&int_range(&var, -128, 127)),
        BaseType::Short => out.push_str(&int_range(&var, -32768, 32767)),
        _ => {}
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

    /// An SMT-LIB script that declares every variable the model gives a
    /// value to and pins it to that value: solved alone, it gives this
    /// valuation back (a recorded run's inputs), fresh variables of modelled
    /// calls included.
    pub fn pinned(&self) -> String {
        let mut out = String::new();
        for declaration in self.model.iter() {
            if declaration.arity() != 0 {
                continue;
            }
            let constant = declaration.apply(&[]);
            if let Some(value) = self.model.get_const_interp(&constant) {
                let name = quoted(&declaration.name());
                let sort = constant.get_sort();
                out.push_str(&format!(
                    "(declare-const {name} {sort})\n(assert (= {name} {value}))\n"
                ));
            }
        }
        out
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

/// A solver model read as the values of a template's holes.
impl HoleValues for Valuation {
    fn primitive(&self, hole: &str, base: BaseType) -> Value {
        self.primitive_value(&prim_term(hole, base), base)
    }

    fn is_null(&self, hole: &str) -> bool {
        self.truth(&Bool::new_const(format!("{hole}.null")))
    }

    fn choice(&self, hole: &str) -> usize {
        self.bits(&BV::new_const(format!("{hole}.type"), 32)) as usize
    }

    fn address(&self, hole: &str) -> u64 {
        self.bits(&BV::new_const(format!("{hole}.addr"), ADDRESS_BITS))
    }

    fn string(&self, hole: &str, choice: usize) -> Vec<u16> {
        self.units(&Seq::new_const(format!("{hole}.s{choice}"), &char_sort()))
    }

    fn boxed(&self, hole: &str, choice: usize, base: BaseType) -> Value {
        self.primitive_value(&prim_term(&format!("{hole}.b{choice}"), base), base)
    }

    fn ordinal(&self, hole: &str) -> usize {
        self.bits(&BV::new_const(format!("{hole}.ord"), 32)) as usize
    }

    fn length(&self, hole: &str) -> i32 {
        self.signed(&BV::new_const(format!("{hole}.len"), 32)) as i32
    }

    fn element(&self, hole: &str, index: i32, base: BaseType) -> Value {
        let cell = primitive_elements(hole, base).select(&BV::from_i64(i64::from(index), 32));
        match base {
            BaseType::Float | BaseType::Double => {
                let float = cell.as_float().expect("a float element");
                self.primitive_value(
                    &if base == BaseType::Float {
                        Primitive::Float(float)
                    } else {
                        Primitive::Double(float)
                    },
                    base,
                )
            }
            BaseType::Long => Value::Long {
                value: self.signed(&cell.as_bv().expect("a bit-vector element")),
            },
            _ => narrow(
                base,
                self.signed(&cell.as_bv().expect("a bit-vector element")) as i32,
            ),
        }
    }
}
