//! Type arguments in the generated code. Plans name classes by their
//! erasure (`ArrayList`, `List`), and a test that declared `ArrayList list`
//! or cast `(List) null` would compile only with raw-type and unchecked
//! warnings. From the `Signature` attributes of the methods a plan calls,
//! this works out the type arguments a developer would write: a list passed
//! where a `List<String>` is expected is an `ArrayList<String>`, and
//! `Range.closed(1, 5)` returns a `Range<Integer>`.
//!
//! It infers and does not check. Where it guesses wrong javac rejects the
//! test, and validation prints that test again with erased types.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use testgen_classfile::descriptor::BaseType;
use testgen_classfile::signature::{
    ClassSignature, JavaTypeSignature, MethodSignature, ReferenceTypeSignature, TypeArgument,
    TypeParameter,
};
use testgen_exec::{Plan, Statement, Value};

use crate::types::{method_types, type_ref, JType};

/// The generic signatures of the program's classes and methods that a test
/// class's plans use, as their `Signature` attributes give them. Classes of
/// the JDK are not here; the common generic ones are known by name
/// ([`jdk_type_parameters`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signatures {
    /// Binary name (`a.b.Outer$Inner`) to the class's `Signature`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub classes: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub methods: Vec<MethodSignatureOf>,
}

/// The `Signature` of a method a plan calls on `class`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MethodSignatureOf {
    pub class: String,
    pub name: String,
    pub descriptor: String,
    /// The class that declares it (`class` or a supertype), whose type
    /// variables the signature uses.
    pub declaring: String,
    pub signature: String,
}

/// A type as Java source can write it, type arguments included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GType {
    Primitive(BaseType),
    /// A class by binary name, with its type arguments (none: not generic,
    /// or raw).
    Class {
        name: String,
        args: Vec<GArg>,
    },
    Array(Box<GType>),
    /// A type variable not yet replaced.
    Var(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GArg {
    /// `?`
    Any,
    Exact(GType),
    /// `? extends T`
    Extends(GType),
    /// `? super T`
    Super(GType),
}

impl GType {
    fn class(name: &str) -> GType {
        GType::Class {
            name: name.to_string(),
            args: Vec::new(),
        }
    }

    fn object() -> GType {
        GType::class("java.lang.Object")
    }

    /// The class a value of this type is declared with, without arguments.
    fn erasure_name(&self) -> Option<&str> {
        match self {
            GType::Class { name, .. } => Some(name),
            _ => None,
        }
    }

    /// Whether any type arguments are written: only then does the type
    /// read differently from its erasure.
    pub fn is_parameterized(&self) -> bool {
        match self {
            GType::Class { args, .. } => !args.is_empty(),
            GType::Array(element) => element.is_parameterized(),
            _ => false,
        }
    }

    /// No type variable left anywhere in it.
    fn is_closed(&self) -> bool {
        match self {
            GType::Primitive(_) => true,
            GType::Var(_) => false,
            GType::Array(element) => element.is_closed(),
            GType::Class { args, .. } => args.iter().all(|arg| match arg {
                GArg::Any => true,
                GArg::Exact(t) | GArg::Extends(t) | GArg::Super(t) => t.is_closed(),
            }),
        }
    }

    /// The type with the variables in `bindings` replaced.
    fn substitute(&self, bindings: &BTreeMap<String, GType>) -> GType {
        match self {
            GType::Var(name) => bindings.get(name).cloned().unwrap_or_else(|| self.clone()),
            GType::Array(element) => GType::Array(Box::new(element.substitute(bindings))),
            GType::Primitive(_) => self.clone(),
            GType::Class { name, args } => GType::Class {
                name: name.clone(),
                args: args
                    .iter()
                    .map(|arg| match arg {
                        GArg::Any => GArg::Any,
                        GArg::Exact(t) => GArg::Exact(t.substitute(bindings)),
                        GArg::Extends(t) => GArg::Extends(t.substitute(bindings)),
                        GArg::Super(t) => GArg::Super(t.substitute(bindings)),
                    })
                    .collect(),
            },
        }
    }

    /// For a declaration that only reads: every type argument that still
    /// holds a variable becomes `?`. `None` when the type itself is one.
    fn with_wildcards(&self) -> Option<GType> {
        match self {
            GType::Var(_) => None,
            GType::Primitive(_) => Some(self.clone()),
            GType::Array(element) => element.is_closed().then(|| GType::Array(element.clone())),
            GType::Class { name, args } => Some(GType::Class {
                name: name.clone(),
                args: args
                    .iter()
                    .map(|arg| match arg {
                        GArg::Exact(t) | GArg::Extends(t) | GArg::Super(t) if !t.is_closed() => {
                            GArg::Any
                        }
                        other => other.clone(),
                    })
                    .collect(),
            }),
        }
    }

    /// The type in source form, classes as markers.
    pub fn source(&self) -> String {
        match self {
            GType::Primitive(base) => base.java_name().to_string(),
            GType::Var(name) => name.clone(),
            GType::Array(element) => format!("{}[]", element.source()),
            GType::Class { name, args } if args.is_empty() => type_ref(name),
            GType::Class { name, args } => {
                let args: Vec<String> = args
                    .iter()
                    .map(|arg| match arg {
                        GArg::Any => "?".to_string(),
                        GArg::Exact(t) => t.source(),
                        GArg::Extends(t) => format!("? extends {}", t.source()),
                        GArg::Super(t) => format!("? super {}", t.source()),
                    })
                    .collect();
                format!("{}<{}>", type_ref(name), args.join(", "))
            }
        }
    }

    fn from_java(signature: &JavaTypeSignature<'_>) -> Option<GType> {
        match signature {
            JavaTypeSignature::Base(base) => Some(GType::Primitive(*base)),
            JavaTypeSignature::Reference(reference) => GType::from_reference(reference),
        }
    }

    /// `None` for an inner class of a parameterized outer class, which a
    /// test would have to write as `Outer<A>.Inner`.
    fn from_reference(signature: &ReferenceTypeSignature<'_>) -> Option<GType> {
        match signature {
            ReferenceTypeSignature::TypeVariable(name) => Some(GType::Var(name.to_string())),
            ReferenceTypeSignature::Array(element) => {
                Some(GType::Array(Box::new(GType::from_java(element)?)))
            }
            ReferenceTypeSignature::Class(class) => {
                let mut name = format!("{}{}", class.package.replace('/', "."), class.simple.name);
                let mut innermost = &class.simple;
                for suffix in &class.suffixes {
                    if !innermost.type_arguments.is_empty() {
                        return None;
                    }
                    name.push('$');
                    name.push_str(suffix.name);
                    innermost = suffix;
                }
                let args = innermost
                    .type_arguments
                    .iter()
                    .map(|arg| {
                        Some(match arg {
                            TypeArgument::Any => GArg::Any,
                            TypeArgument::Exact(t) => GArg::Exact(GType::from_reference(t)?),
                            TypeArgument::Extends(t) => GArg::Extends(GType::from_reference(t)?),
                            TypeArgument::Super(t) => GArg::Super(GType::from_reference(t)?),
                        })
                    })
                    .collect::<Option<_>>()?;
                Some(GType::Class { name, args })
            }
        }
    }

    fn from_jtype(ty: &JType) -> GType {
        match ty {
            JType::Primitive(base) => GType::Primitive(*base),
            JType::Class(name) => GType::class(name),
            JType::Array(element) => GType::Array(Box::new(GType::from_jtype(element))),
        }
    }
}

/// What a variable bound to a wildcard's capture is replaced by: a
/// variable no scope declares, so that the types it appears in are never
/// closed and read as `?`.
const CAPTURED: &str = "?";

/// A type variable and the first bound it declares (`None`: `Object`).
#[derive(Clone, Debug)]
struct TypeVariable {
    name: String,
    bound: Option<GType>,
}

fn type_variables(parameters: &[TypeParameter<'_>]) -> Vec<TypeVariable> {
    parameters
        .iter()
        .map(|parameter| TypeVariable {
            name: parameter.name.to_string(),
            bound: parameter
                .class_bound
                .as_ref()
                .or(parameter.interface_bounds.first())
                .and_then(GType::from_reference)
                .filter(|bound| bound.erasure_name() != Some("java.lang.Object")),
        })
        .collect()
}

/// The type parameters of the JDK's common generic classes and interfaces,
/// which take their arguments in the same order as the collection or
/// function interface they implement (`ArrayList<E>` is a `List<E>`).
fn jdk_type_parameters(class: &str) -> Option<&'static [&'static str]> {
    const E: &[&str] = &["E"];
    const T: &[&str] = &["T"];
    const KV: &[&str] = &["K", "V"];
    Some(match class {
        "java.lang.Iterable"
        | "java.util.Collection"
        | "java.util.List"
        | "java.util.ArrayList"
        | "java.util.LinkedList"
        | "java.util.Vector"
        | "java.util.Stack"
        | "java.util.Set"
        | "java.util.HashSet"
        | "java.util.LinkedHashSet"
        | "java.util.SortedSet"
        | "java.util.NavigableSet"
        | "java.util.TreeSet"
        | "java.util.Queue"
        | "java.util.Deque"
        | "java.util.ArrayDeque"
        | "java.util.PriorityQueue"
        | "java.util.Iterator"
        | "java.util.ListIterator"
        | "java.util.Enumeration"
        | "java.util.concurrent.CopyOnWriteArrayList" => E,
        "java.util.Map"
        | "java.util.HashMap"
        | "java.util.LinkedHashMap"
        | "java.util.SortedMap"
        | "java.util.NavigableMap"
        | "java.util.TreeMap"
        | "java.util.Hashtable"
        | "java.util.IdentityHashMap"
        | "java.util.WeakHashMap"
        | "java.util.Map$Entry"
        | "java.util.concurrent.ConcurrentMap"
        | "java.util.concurrent.ConcurrentHashMap" => KV,
        "java.lang.Comparable"
        | "java.lang.Class"
        | "java.lang.ThreadLocal"
        | "java.util.Optional"
        | "java.util.Comparator"
        | "java.util.function.Supplier"
        | "java.util.function.Consumer"
        | "java.util.function.Predicate"
        | "java.util.function.UnaryOperator"
        | "java.util.function.BinaryOperator"
        | "java.util.function.ToIntFunction"
        | "java.util.function.ToLongFunction"
        | "java.util.function.ToDoubleFunction"
        | "java.lang.ref.WeakReference"
        | "java.lang.ref.SoftReference"
        | "java.util.concurrent.atomic.AtomicReference" => T,
        "java.util.function.Function" => &["T", "R"],
        "java.util.function.BiFunction" => &["T", "U", "R"],
        "java.util.function.BiConsumer" | "java.util.function.BiPredicate" => &["T", "U"],
        "java.util.function.IntFunction"
        | "java.util.function.LongFunction"
        | "java.util.function.DoubleFunction" => &["R"],
        "java.util.concurrent.Callable" => &["V"],
        _ => return None,
    })
}

/// The signatures of the JDK collection methods plans call to fill a
/// collection (and `iterator()`), in the variables of
/// [`jdk_type_parameters`].
fn jdk_method(class: &str, name: &str, descriptor: &str) -> Option<&'static str> {
    let variables = jdk_type_parameters(class)?;
    Some(match (variables, name, descriptor) {
        (["E"], "add", "(Ljava/lang/Object;)Z") => "(TE;)Z",
        (["E"], "iterator", "()Ljava/util/Iterator;") => "()Ljava/util/Iterator<TE;>;",
        (["K", "V"], "put", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;") => {
            "(TK;TV;)TV;"
        }
        _ => return None,
    })
}

fn boxed(base: BaseType) -> &'static str {
    match base {
        BaseType::Byte => "java.lang.Byte",
        BaseType::Char => "java.lang.Character",
        BaseType::Double => "java.lang.Double",
        BaseType::Float => "java.lang.Float",
        BaseType::Int => "java.lang.Integer",
        BaseType::Long => "java.lang.Long",
        BaseType::Short => "java.lang.Short",
        BaseType::Boolean => "java.lang.Boolean",
    }
}

/// What [`infer`] found for one plan.
#[derive(Clone, Debug, Default)]
pub struct Inferred {
    /// Per statement: the parameterized type its value is declared with
    /// (`None`: its erasure, as the descriptor says).
    declared: Vec<Option<GType>>,
    /// Statements `new C<>(..)` whose class takes type arguments.
    diamond: BTreeSet<usize>,
    /// The type a `null` argument is cast to, by statement and position.
    null_casts: BTreeMap<(usize, usize), GType>,
    /// Calls whose result is declared with a class below the descriptor's
    /// (what a type variable stands for), not with their erasure.
    narrowed: BTreeSet<usize>,
}

impl Inferred {
    /// The source of the type statement `index`'s value is declared with,
    /// when it has type arguments and its erasure is `erasure`, or when it
    /// is what a type variable in the call's result stands for.
    pub fn declared(&self, index: usize, erasure: &JType) -> Option<String> {
        let declared = self.declared.get(index)?.as_ref()?;
        if self.narrowed.contains(&index) {
            return Some(declared.source());
        }
        let same_class = matches!(erasure, JType::Class(name)
            if declared.erasure_name() == Some(name.as_str()));
        (same_class && declared.is_parameterized()).then(|| declared.source())
    }

    /// Nothing to write beyond the erased types.
    pub fn is_empty(&self) -> bool {
        self.diamond.is_empty()
            && self.null_casts.is_empty()
            && self.declared.iter().all(Option::is_none)
    }

    pub fn is_diamond(&self, index: usize) -> bool {
        self.diamond.contains(&index)
    }

    /// The type a `null` passed as argument `position` of statement
    /// `index` is cast to, when it is not the parameter's erasure.
    pub fn null_cast(&self, index: usize, position: usize) -> Option<String> {
        self.null_casts.get(&(index, position)).map(GType::source)
    }
}

/// The generic types of `plan`'s values, as far as the signatures of the
/// program methods it calls tell them.
pub fn infer(plan: &Plan, signatures: &Signatures) -> Inferred {
    // A value's arguments are often told by a use after calls on it
    // (`list.add(inner)` before `sort(list)`): each pass starts with the
    // types the previous one found at a use, until nothing new is found.
    let mut presets = BTreeMap::new();
    for _ in 0..MAX_PASSES {
        let adopted = Inference::run(plan, signatures, &presets, false).adopted;
        if adopted.is_empty() {
            break;
        }
        presets.extend(adopted);
    }
    Inference::run(plan, signatures, &presets, true).inferred
}

/// Passes of [`infer`] before the last: one per level of nesting
/// (a list of lists of lists).
const MAX_PASSES: usize = 4;

struct Inference<'s> {
    signatures: &'s Signatures,
    methods: BTreeMap<(&'s str, &'s str, &'s str), &'s MethodSignatureOf>,
    /// Per statement so far: the static type of its value.
    types: Vec<Option<GType>>,
    /// Values of a generic class whose type arguments wait for a use that
    /// tells them (`new ArrayList()`, a lambda).
    pending: BTreeSet<usize>,
    /// What an earlier pass found for values that waited.
    presets: &'s BTreeMap<usize, GType>,
    /// What this pass found for values that waited, at the use that told.
    adopted: BTreeMap<usize, GType>,
    /// Results of calls on a value still waiting, whose use can tell the
    /// receiver's type arguments (`list.iterator()` passed where an
    /// `Iterator<String>` is expected).
    derived: BTreeMap<usize, Derived>,
    /// Whether a value still waiting when it is a receiver takes its
    /// bounds (the last pass) or lets the call go untyped.
    final_pass: bool,
    inferred: Inferred,
}

impl<'s> Inference<'s> {
    fn run(
        plan: &Plan,
        signatures: &'s Signatures,
        presets: &'s BTreeMap<usize, GType>,
        final_pass: bool,
    ) -> Inference<'s> {
        let mut inference = Inference {
            signatures,
            methods: signatures
                .methods
                .iter()
                .map(|m| {
                    (
                        (m.class.as_str(), m.name.as_str(), m.descriptor.as_str()),
                        m,
                    )
                })
                .collect(),
            types: Vec::with_capacity(plan.statements.len()),
            pending: BTreeSet::new(),
            presets,
            adopted: BTreeMap::new(),
            derived: BTreeMap::new(),
            final_pass,
            inferred: Inferred {
                declared: vec![None; plan.statements.len()],
                ..Inferred::default()
            },
        };
        for (index, statement) in plan.statements.iter().enumerate() {
            let ty = inference.statement(index, statement);
            let narrowed = inference.inferred.narrowed.contains(&index);
            if let Some(ty) = ty.as_ref().filter(|ty| ty.is_parameterized() || narrowed) {
                inference.inferred.declared[index] = Some(ty.clone());
            }
            inference.types.push(ty);
        }
        // Values no call told anything about: what the bounds of their
        // variables allow.
        for index in std::mem::take(&mut inference.pending) {
            match &plan.statements[index] {
                Statement::New { .. } => inference.settle_with_bounds(index),
                Statement::Call { .. } | Statement::CallStatic { .. } => {
                    let read_only = inference.types[index]
                        .clone()
                        .and_then(|ty| inference.read_only(ty));
                    if let Some(ty) = read_only {
                        inference.settle(index, ty);
                    }
                }
                _ => {}
            }
        }
        inference
    }

    /// Marks statement `index`'s value as waiting for a use that tells its
    /// type arguments, unless an earlier pass found them; gives its type.
    fn wait(&mut self, index: usize, erasure: GType) -> GType {
        match self.presets.get(&index) {
            Some(preset) => {
                self.settle(index, preset.clone());
                preset.clone()
            }
            None => {
                self.pending.insert(index);
                erasure
            }
        }
    }

    fn statement(&mut self, index: usize, statement: &Statement) -> Option<GType> {
        match statement {
            Statement::New {
                class,
                descriptor,
                args,
            } => {
                let variables = self.class_variables(class);
                let own = GType::class(class);
                let mut bindings = BTreeMap::new();
                if let Some((signature, _)) = self.method(class, "<init>", descriptor) {
                    self.call(index, &signature, &variables, args, &mut bindings);
                }
                if variables.is_empty() {
                    return Some(own);
                }
                let args: Option<Vec<GArg>> = variables
                    .iter()
                    .map(|v| bindings.get(&v.name).cloned().map(GArg::Exact))
                    .collect();
                match args {
                    Some(args) => {
                        let ty = GType::Class {
                            name: class.clone(),
                            args,
                        };
                        self.settle(index, ty.clone());
                        Some(ty)
                    }
                    None => Some(self.wait(index, own)),
                }
            }
            Statement::Call {
                receiver,
                class,
                name,
                descriptor,
                args,
            } => {
                let Some((signature, declaring)) = self.method(class, name, descriptor) else {
                    return self.unknown_result(index, class, descriptor);
                };
                let mut bindings = BTreeMap::new();
                let declaring_variables = self.class_variables(&declaring);
                if !declaring_variables.is_empty() {
                    // The class's variables are the receiver's arguments,
                    // which a value still waiting has to settle now, or on
                    // an earlier pass may learn from the result's use.
                    if let Value::Ref { statement } = receiver {
                        if self.pending.contains(statement) {
                            if self.final_pass {
                                self.pending.remove(statement);
                                self.settle_with_bounds(*statement);
                            } else if let Some(result) = &signature.result {
                                self.derived.insert(
                                    index,
                                    Derived {
                                        receiver: *statement,
                                        declaring: declaring.clone(),
                                        variables: declaring_variables.clone(),
                                        result: result.clone(),
                                    },
                                );
                            }
                        }
                    }
                    let as_declaring = self
                        .value_type(receiver)
                        .and_then(|ty| self.as_supertype(&ty, &declaring, 0))
                        .filter(|args| args.len() == declaring_variables.len());
                    let Some(as_declaring) = as_declaring else {
                        return self.erased_result(descriptor);
                    };
                    for (variable, arg) in declaring_variables.iter().zip(as_declaring) {
                        if let GArg::Exact(ty) = arg {
                            bindings.insert(variable.name.clone(), ty);
                        }
                    }
                }
                self.call_result(index, &signature, args, &mut bindings, descriptor)
            }
            Statement::CallStatic {
                class,
                name,
                descriptor,
                args,
            } => {
                let Some((signature, _)) = self.method(class, name, descriptor) else {
                    self.cast_nulls_to_preset(index, descriptor, args);
                    return self.unknown_result(index, class, descriptor);
                };
                self.call_result(index, &signature, args, &mut BTreeMap::new(), descriptor)
            }
            Statement::Lambda { interface, .. } => {
                let own = GType::class(interface);
                if self.class_variables(interface).is_empty() {
                    return Some(own);
                }
                Some(self.wait(index, own))
            }
            Statement::GetField {
                field_type: Some(field_type),
                ..
            } => self.read_only(GType::from_jtype(&JType::from_descriptor(field_type)?)),
            Statement::GetField { .. }
            | Statement::PutField { .. }
            | Statement::NewArray { .. }
            | Statement::ArrayStore { .. } => None,
        }
    }

    /// Binds the method's own variables from the arguments, settles what
    /// waited for this call, and gives the result's type.
    fn call_result(
        &mut self,
        index: usize,
        signature: &ParsedMethod,
        args: &[Value],
        bindings: &mut BTreeMap<String, GType>,
        descriptor: &str,
    ) -> Option<GType> {
        self.call(index, signature, &[], args, bindings);
        let Some(result) = &signature.result else {
            return self.erased_result(descriptor);
        };
        let result = result.substitute(bindings).with_wildcards()?;
        // A type variable's value may be a subclass of what the descriptor
        // returns (`M extends Map<..>` bound to a `HashMap<..>`): the test
        // declares the descriptor's class, with the arguments it has there.
        let erasure = method_types(descriptor)?.1.map(|ty| GType::from_jtype(&ty));
        match (&result, erasure.as_ref().and_then(GType::erasure_name)) {
            (GType::Class { name, args }, Some(declared)) if name != declared => {
                match self.as_supertype(&result, declared, 0) {
                    Some(args) => Some(GType::Class {
                        name: declared.to_string(),
                        args,
                    }),
                    // A class that is not generic itself (`String` for a
                    // `C extends Comparable<? super C>`): the call returns
                    // one, and the test declares it so.
                    None if args.is_empty() => {
                        self.inferred.narrowed.insert(index);
                        Some(result)
                    }
                    None => None,
                }
            }
            _ => Some(result),
        }
    }

    /// Unifies the parameters with the arguments' types to bind the
    /// variables in `inferable`, gives the rest their bounds, then settles
    /// the pending arguments and casts the nulls.
    fn call(
        &mut self,
        index: usize,
        signature: &ParsedMethod,
        class_variables: &[TypeVariable],
        args: &[Value],
        bindings: &mut BTreeMap<String, GType>,
    ) {
        let inferable: BTreeSet<String> = class_variables
            .iter()
            .chain(&signature.variables)
            .map(|v| v.name.clone())
            .collect();
        // javac leaves synthetic leading parameters out of the signature.
        let Some(skipped) = args.len().checked_sub(signature.parameters.len()) else {
            return;
        };
        let pairs: Vec<(usize, &Value, &Option<GType>)> = args
            .iter()
            .enumerate()
            .skip(skipped)
            .zip(&signature.parameters)
            .map(|((position, arg), parameter)| (position, arg, parameter))
            .collect();
        for (_, arg, parameter) in &pairs {
            let (Some(parameter), Some(ty)) = (parameter, self.known_type(arg)) else {
                continue;
            };
            self.unify(parameter, &ty, &inferable, bindings);
        }
        for variable in &signature.variables {
            if !bindings.contains_key(&variable.name) {
                if let Some(ty) = witness(variable) {
                    bindings.insert(variable.name.clone(), ty);
                }
            }
        }
        // A null tells nothing: its cast takes the bounds of what is left
        // open (a constructor's class variables, which a later use may bind).
        let mut for_nulls = bindings.clone();
        for variable in class_variables {
            if !for_nulls.contains_key(&variable.name) {
                if let Some(ty) = witness(variable) {
                    for_nulls.insert(variable.name.clone(), ty);
                }
            }
        }
        for (position, arg, parameter) in pairs {
            let Some(parameter) = parameter else { continue };
            let target = parameter.substitute(bindings);
            let null_target = parameter.substitute(&for_nulls);
            match arg {
                // A null of a type variable is cast to what the variable
                // stands for (`(String) null` for a `C extends Comparable`).
                Value::Null
                    if null_target.is_closed()
                        && (null_target.is_parameterized()
                            || matches!(parameter, GType::Var(_))) =>
                {
                    self.inferred
                        .null_casts
                        .insert((index, position), null_target);
                }
                Value::Ref { statement } if self.pending.contains(statement) => {
                    self.adopt_for(*statement, &target);
                }
                Value::Ref { statement } if target.is_closed() => {
                    // A result of a call on a waiting value: what the call
                    // returns in the receiver's variables tells them.
                    let Some(derived) = self.derived.get(statement).cloned() else {
                        continue;
                    };
                    let inferable = derived.variables.iter().map(|v| v.name.clone()).collect();
                    let mut receiver_bindings = BTreeMap::new();
                    self.unify(&derived.result, &target, &inferable, &mut receiver_bindings);
                    let args: Option<Vec<GArg>> = derived
                        .variables
                        .iter()
                        .map(|v| receiver_bindings.get(&v.name).cloned().map(GArg::Exact))
                        .collect();
                    if let (Some(args), true) = (args, self.pending.contains(&derived.receiver)) {
                        let wanted = GType::Class {
                            name: derived.declaring,
                            args,
                        };
                        self.adopt_for(derived.receiver, &wanted);
                    }
                }
                _ => {}
            }
        }
    }

    /// Settles statement `index`'s waiting value as one passed where
    /// `target` is expected, if its type arguments can be told from that.
    fn adopt_for(&mut self, index: usize, target: &GType) {
        if let Some(ty) = self.adopt(index, target) {
            self.pending.remove(&index);
            self.adopted.insert(index, ty.clone());
            self.settle(index, ty);
        }
    }

    /// Statement `index`'s value, of a generic class, gets the bounds of
    /// its variables as type arguments (`new ArrayList<Object>`).
    fn settle_with_bounds(&mut self, index: usize) {
        let Some(Some(GType::Class { name, .. })) = self.types.get(index).cloned() else {
            return;
        };
        let args: Option<Vec<GArg>> = self
            .class_variables(&name)
            .iter()
            .map(|variable| witness(variable).map(GArg::Exact))
            .collect();
        if let Some(args) = args {
            self.settle(index, GType::Class { name, args });
        }
    }

    /// Statement `index`'s value has type `ty`.
    fn settle(&mut self, index: usize, ty: GType) {
        if matches!(ty, GType::Class { .. }) && ty.is_parameterized() {
            self.inferred.diamond.insert(index);
        }
        if let Some(slot) = self.types.get_mut(index) {
            *slot = Some(ty.clone());
        }
        self.inferred.declared[index] = Some(ty);
    }

    /// The type arguments the value of statement `index` (of a generic
    /// class, waiting) takes to be passed where `target` is expected.
    fn adopt(&self, index: usize, target: &GType) -> Option<GType> {
        let own = self.types.get(index)?.as_ref()?.erasure_name()?.to_string();
        let GType::Class { name: wanted, args } = target else {
            return None;
        };
        let variables = self.class_variables(&own);
        let concrete: Vec<GType> = args
            .iter()
            .map(|arg| match arg {
                GArg::Exact(t) | GArg::Extends(t) | GArg::Super(t) => Some(t.clone()),
                GArg::Any => Some(GType::object()),
            })
            .collect::<Option<_>>()?;
        let args = if own == *wanted {
            concrete
        } else {
            // Its arguments as the wanted type's, in terms of its variables.
            let generic = GType::Class {
                name: own.clone(),
                args: variables
                    .iter()
                    .map(|v| GArg::Exact(GType::Var(v.name.clone())))
                    .collect(),
            };
            let as_wanted = self.as_supertype(&generic, wanted, 0)?;
            if as_wanted.len() != concrete.len() {
                return None;
            }
            let inferable = variables.iter().map(|v| v.name.clone()).collect();
            let mut bindings = BTreeMap::new();
            for (arg, ty) in as_wanted.iter().zip(&concrete) {
                if let GArg::Exact(pattern) = arg {
                    self.unify(pattern, ty, &inferable, &mut bindings);
                }
            }
            variables
                .iter()
                .map(|v| bindings.get(&v.name).cloned().or_else(|| witness(v)))
                .collect::<Option<_>>()?
        };
        if args.len() != variables.len() || !args.iter().all(GType::is_closed) {
            return None;
        }
        Some(GType::Class {
            name: own,
            args: args.into_iter().map(GArg::Exact).collect(),
        })
    }

    /// Binds the variables of `pattern` in `inferable` so that it matches
    /// `ty`, the type of a value passed for it.
    fn unify(
        &self,
        pattern: &GType,
        ty: &GType,
        inferable: &BTreeSet<String>,
        bindings: &mut BTreeMap<String, GType>,
    ) {
        match (pattern, ty) {
            (GType::Var(name), _) if inferable.contains(name) && !bindings.contains_key(name) => {
                let value = match ty {
                    GType::Primitive(base) => GType::class(boxed(*base)),
                    // A raw generic value says nothing about the variable.
                    GType::Class { name, args }
                        if args.is_empty() && !self.class_variables(name).is_empty() =>
                    {
                        return
                    }
                    other => other.clone(),
                };
                if value.is_closed() {
                    bindings.insert(name.clone(), value);
                }
            }
            (GType::Array(p), GType::Array(t)) => self.unify(p, t, inferable, bindings),
            (GType::Class { name, args }, GType::Class { .. }) if !args.is_empty() => {
                let Some(as_pattern) = self.as_supertype(ty, name, 0) else {
                    return;
                };
                for (p, t) in args.iter().zip(as_pattern) {
                    match (p, t) {
                        (GArg::Exact(p) | GArg::Extends(p) | GArg::Super(p), GArg::Exact(t)) => {
                            self.unify(p, &t, inferable, bindings);
                        }
                        // `T` of a `Foo<?>`: whatever javac captures, which a
                        // test can only write as `?`.
                        (GArg::Exact(GType::Var(name)), _) if inferable.contains(name) => {
                            bindings
                                .entry(name.clone())
                                .or_insert_with(|| GType::Var(CAPTURED.to_string()));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// `ty`'s type arguments as its supertype `target`: from the program's
    /// class signatures, and position for position between the JDK's
    /// collections. `None` when `ty` is raw or the path is unknown.
    fn as_supertype(&self, ty: &GType, target: &str, depth: u32) -> Option<Vec<GArg>> {
        let GType::Class { name, args } = ty else {
            return None;
        };
        if name == target {
            return (!args.is_empty()).then(|| args.clone());
        }
        if depth > 8 || args.is_empty() {
            return None;
        }
        if let Some(text) = self.signatures.classes.get(name) {
            let signature = ClassSignature::parse(text).ok()?;
            let variables = type_variables(&signature.type_parameters);
            if variables.len() != args.len() {
                return None;
            }
            let bindings: BTreeMap<String, GType> = variables
                .iter()
                .zip(args)
                .filter_map(|(v, arg)| match arg {
                    GArg::Exact(t) => Some((v.name.clone(), t.clone())),
                    _ => None,
                })
                .collect();
            return std::iter::once(&signature.superclass)
                .chain(&signature.interfaces)
                .filter_map(|parent| {
                    let parent = ReferenceTypeSignature::Class(parent.clone());
                    GType::from_reference(&parent)
                })
                .find_map(|parent| {
                    self.as_supertype(&parent.substitute(&bindings), target, depth + 1)
                });
        }
        let own = jdk_type_parameters(name)?;
        let wanted = jdk_type_parameters(target)?;
        (own.len() == wanted.len()).then(|| args.clone())
    }

    /// The type of an argument already known, for binding variables; a
    /// value still waiting for its arguments tells nothing.
    fn known_type(&self, value: &Value) -> Option<GType> {
        if let Value::Ref { statement } = value {
            if self.pending.contains(statement) {
                return None;
            }
        }
        self.value_type(value)
    }

    fn value_type(&self, value: &Value) -> Option<GType> {
        Some(match value {
            Value::Null => return None,
            Value::Boolean { .. } => GType::Primitive(BaseType::Boolean),
            Value::Byte { .. } => GType::Primitive(BaseType::Byte),
            Value::Short { .. } => GType::Primitive(BaseType::Short),
            Value::Char { .. } => GType::Primitive(BaseType::Char),
            Value::Int { .. } => GType::Primitive(BaseType::Int),
            Value::Long { .. } => GType::Primitive(BaseType::Long),
            Value::Float { .. } => GType::Primitive(BaseType::Float),
            Value::Double { .. } => GType::Primitive(BaseType::Double),
            Value::String { .. } => GType::class("java.lang.String"),
            Value::Enum { class, .. } => GType::class(class),
            Value::Class { name } if !name.starts_with('[') => GType::Class {
                name: "java.lang.Class".into(),
                args: vec![GArg::Exact(match JType::from_descriptor(name) {
                    Some(JType::Primitive(base)) if name.len() == 1 => GType::class(boxed(base)),
                    _ => GType::class(name),
                })],
            },
            Value::Class { .. } => return None,
            Value::Ref { statement } => self.types.get(*statement)?.clone()?,
        })
    }

    /// The type of the result of a method whose signature is not known. A
    /// JDK method's generic result waits for its use, as javac infers
    /// `Optional.ofNullable("")` from where it goes; a program method
    /// without a signature returns a raw type, read as `List<?>`.
    fn unknown_result(&mut self, index: usize, class: &str, descriptor: &str) -> Option<GType> {
        let in_jdk = class.starts_with("java.") || class.starts_with("javax.");
        let (_, result) = method_types(descriptor)?;
        let result = GType::from_jtype(result.as_ref()?);
        match result.erasure_name() {
            Some(name) if in_jdk && !self.class_variables(name).is_empty() => {
                Some(self.wait(index, result))
            }
            _ => self.read_only(result),
        }
    }

    /// A static JDK method without a known signature whose result's use
    /// told an earlier pass its one type argument (`Optional.ofNullable`):
    /// its `Object` parameters are taken to be that variable, so that a
    /// null passed there is cast to the argument (`Optional<String> o =
    /// Optional.ofNullable((String) null)`), not to `Object`, which would
    /// make the result an `Optional<Object>`.
    fn cast_nulls_to_preset(&mut self, index: usize, descriptor: &str, args: &[Value]) {
        let Some(GType::Class { args: known, .. }) = self.presets.get(&index) else {
            return;
        };
        let [GArg::Exact(element)] = known.as_slice() else {
            return;
        };
        let Some((parameters, _)) = method_types(descriptor) else {
            return;
        };
        for (position, (arg, parameter)) in args.iter().zip(parameters).enumerate() {
            if matches!(arg, Value::Null) && parameter == JType::object() {
                self.inferred
                    .null_casts
                    .insert((index, position), element.clone());
            }
        }
    }

    /// The type of a call's result from its descriptor alone (a method
    /// called on a raw receiver).
    fn erased_result(&self, descriptor: &str) -> Option<GType> {
        let (_, result) = method_types(descriptor)?;
        self.read_only(GType::from_jtype(result.as_ref()?))
    }

    /// `ty` with `?` for each type argument when its class is generic: a
    /// value of a raw type that the test only reads (`List<?> result`).
    fn read_only(&self, ty: GType) -> Option<GType> {
        Some(match ty {
            GType::Class { name, args } if args.is_empty() => {
                let variables = self.class_variables(&name);
                GType::Class {
                    name,
                    args: variables.iter().map(|_| GArg::Any).collect(),
                }
            }
            other => other,
        })
    }

    /// The type variables of `class` (empty: not generic, or unknown).
    fn class_variables(&self, class: &str) -> Vec<TypeVariable> {
        if let Some(text) = self.signatures.classes.get(class) {
            return ClassSignature::parse(text)
                .map(|signature| type_variables(&signature.type_parameters))
                .unwrap_or_default();
        }
        jdk_type_parameters(class)
            .unwrap_or_default()
            .iter()
            .map(|name| TypeVariable {
                name: name.to_string(),
                bound: None,
            })
            .collect()
    }

    /// The parsed signature of the method a plan calls, and the class that
    /// declares it.
    fn method(&self, class: &str, name: &str, descriptor: &str) -> Option<(ParsedMethod, String)> {
        let (text, declaring) = match self.methods.get(&(class, name, descriptor)) {
            Some(found) => (found.signature.as_str(), found.declaring.clone()),
            None => (jdk_method(class, name, descriptor)?, class.to_string()),
        };
        let signature = MethodSignature::parse(text).ok()?;
        Some((
            ParsedMethod {
                variables: type_variables(&signature.type_parameters),
                parameters: signature.parameters.iter().map(GType::from_java).collect(),
                result: signature.return_type.as_ref().and_then(GType::from_java),
            },
            declaring,
        ))
    }
}

/// A call's result on a receiver whose type arguments were not known yet.
#[derive(Clone, Debug)]
struct Derived {
    receiver: usize,
    declaring: String,
    variables: Vec<TypeVariable>,
    /// The result's type in the declaring class's variables.
    result: GType,
}

/// A method's signature with owned types.
struct ParsedMethod {
    variables: Vec<TypeVariable>,
    /// `None` where a type cannot be written (an inner class of a generic one).
    parameters: Vec<Option<GType>>,
    result: Option<GType>,
}

/// A type that meets a variable's bound, for a variable nothing binds:
/// `Object` when unbounded, `String` for a `Comparable`, the bound itself
/// when it names no variable (`M extends Map<String, String>`); `None`
/// otherwise (`E extends Enum<E>`).
fn witness(variable: &TypeVariable) -> Option<GType> {
    match &variable.bound {
        None => Some(GType::object()),
        Some(GType::Class { name, .. }) if name == "java.lang.Comparable" => {
            Some(GType::class("java.lang.String"))
        }
        Some(bound @ GType::Class { .. }) if bound.is_closed() => Some(bound.clone()),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::strip_markers;

    fn plan(statements: Vec<Statement>) -> Plan {
        Plan::new(statements)
    }

    fn method(class: &str, name: &str, descriptor: &str, signature: &str) -> MethodSignatureOf {
        MethodSignatureOf {
            class: class.into(),
            name: name.into(),
            descriptor: descriptor.into(),
            declaring: class.into(),
            signature: signature.into(),
        }
    }

    fn declared(inferred: &Inferred, index: usize, class: &str) -> Option<String> {
        inferred
            .declared(index, &JType::Class(class.into()))
            .map(|s| strip_markers(&s))
    }

    #[test]
    fn a_new_list_takes_the_arguments_of_the_parameter_it_is_passed_to() {
        let signatures = Signatures {
            methods: vec![method(
                "p.Names",
                "join",
                "(Ljava/util/List;)Ljava/lang/String;",
                "(Ljava/util/List<+Ljava/lang/CharSequence;>;)Ljava/lang/String;",
            )],
            ..Signatures::default()
        };
        let plan = plan(vec![
            Statement::New {
                class: "java.util.ArrayList".into(),
                descriptor: "()V".into(),
                args: vec![],
            },
            Statement::CallStatic {
                class: "p.Names".into(),
                name: "join".into(),
                descriptor: "(Ljava/util/List;)Ljava/lang/String;".into(),
                args: vec![Value::Ref { statement: 0 }],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 0, "java.util.ArrayList").as_deref(),
            Some("java.util.ArrayList<java.lang.CharSequence>")
        );
        assert!(inferred.is_diamond(0));
    }

    #[test]
    fn a_bounded_variable_is_bound_by_the_arguments_and_gives_the_result() {
        // static <C extends Comparable<? super C>> Range<C> closed(C lower, C upper)
        let signatures = Signatures {
            classes: [(
                "p.Range".to_string(),
                "<C::Ljava/lang/Comparable<-TC;>;>Ljava/lang/Object;".to_string(),
            )]
            .into(),
            methods: vec![method(
                "p.Range",
                "closed",
                "(Ljava/lang/Comparable;Ljava/lang/Comparable;)Lp/Range;",
                "<C::Ljava/lang/Comparable<-TC;>;>(TC;TC;)Lp/Range<TC;>;",
            )],
        };
        let call = |args| Statement::CallStatic {
            class: "p.Range".into(),
            name: "closed".into(),
            descriptor: "(Ljava/lang/Comparable;Ljava/lang/Comparable;)Lp/Range;".into(),
            args,
        };
        let inferred = infer(
            &plan(vec![call(vec![
                Value::Int { value: 1 },
                Value::Int { value: 5 },
            ])]),
            &signatures,
        );
        assert_eq!(
            declared(&inferred, 0, "p.Range").as_deref(),
            Some("p.Range<java.lang.Integer>")
        );
        // Nothing binds C: a Comparable that meets the bound, and the nulls
        // are cast to it.
        let inferred = infer(
            &plan(vec![call(vec![Value::Null, Value::Null])]),
            &signatures,
        );
        assert_eq!(
            declared(&inferred, 0, "p.Range").as_deref(),
            Some("p.Range<java.lang.String>")
        );
        assert_eq!(
            inferred
                .null_cast(0, 0)
                .map(|s| strip_markers(&s))
                .as_deref(),
            Some("java.lang.String")
        );
    }

    #[test]
    fn a_result_of_a_bound_type_variable_is_declared_as_what_it_stands_for() {
        // Range<String> range = Range.closed("a", "b"); String upper = range.upperEndpoint();
        let signatures = Signatures {
            classes: [(
                "p.Range".to_string(),
                "<C::Ljava/lang/Comparable<-TC;>;>Ljava/lang/Object;".to_string(),
            )]
            .into(),
            methods: vec![
                method(
                    "p.Range",
                    "closed",
                    "(Ljava/lang/Comparable;Ljava/lang/Comparable;)Lp/Range;",
                    "<C::Ljava/lang/Comparable<-TC;>;>(TC;TC;)Lp/Range<TC;>;",
                ),
                method(
                    "p.Range",
                    "upperEndpoint",
                    "()Ljava/lang/Comparable;",
                    "()TC;",
                ),
            ],
        };
        let plan = plan(vec![
            Statement::CallStatic {
                class: "p.Range".into(),
                name: "closed".into(),
                descriptor: "(Ljava/lang/Comparable;Ljava/lang/Comparable;)Lp/Range;".into(),
                args: vec![Value::string("a"), Value::string("b")],
            },
            Statement::Call {
                receiver: Value::Ref { statement: 0 },
                class: "p.Range".into(),
                name: "upperEndpoint".into(),
                descriptor: "()Ljava/lang/Comparable;".into(),
                args: vec![],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 1, "java.lang.Comparable").as_deref(),
            Some("java.lang.String")
        );
    }

    #[test]
    fn a_null_in_a_jdk_factory_is_cast_to_what_the_results_use_asks_for() {
        let signatures = Signatures {
            methods: vec![method(
                "p.Names",
                "present",
                "(Ljava/util/Optional;)Z",
                "(Ljava/util/Optional<Ljava/lang/String;>;)Z",
            )],
            ..Signatures::default()
        };
        let plan = plan(vec![
            Statement::CallStatic {
                class: "java.util.Optional".into(),
                name: "ofNullable".into(),
                descriptor: "(Ljava/lang/Object;)Ljava/util/Optional;".into(),
                args: vec![Value::Null],
            },
            Statement::CallStatic {
                class: "p.Names".into(),
                name: "present".into(),
                descriptor: "(Ljava/util/Optional;)Z".into(),
                args: vec![Value::Ref { statement: 0 }],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 0, "java.util.Optional").as_deref(),
            Some("java.util.Optional<java.lang.String>")
        );
        assert_eq!(
            inferred
                .null_cast(0, 0)
                .map(|s| strip_markers(&s))
                .as_deref(),
            Some("java.lang.String")
        );
    }

    #[test]
    fn a_receivers_arguments_give_a_getters_result_and_a_typed_null() {
        let signatures = Signatures {
            classes: [(
                "p.Box".to_string(),
                "<T:Ljava/lang/Object;>Ljava/lang/Object;".to_string(),
            )]
            .into(),
            methods: vec![
                method("p.Box", "<init>", "(Ljava/lang/Object;)V", "(TT;)V"),
                method(
                    "p.Box",
                    "all",
                    "()Ljava/util/List;",
                    "()Ljava/util/List<TT;>;",
                ),
                method(
                    "p.Box",
                    "addAll",
                    "(Ljava/util/Collection;)V",
                    "(Ljava/util/Collection<+TT;>;)V",
                ),
            ],
        };
        let plan = plan(vec![
            Statement::New {
                class: "p.Box".into(),
                descriptor: "(Ljava/lang/Object;)V".into(),
                args: vec![Value::string("a")],
            },
            Statement::Call {
                receiver: Value::Ref { statement: 0 },
                class: "p.Box".into(),
                name: "all".into(),
                descriptor: "()Ljava/util/List;".into(),
                args: vec![],
            },
            Statement::Call {
                receiver: Value::Ref { statement: 0 },
                class: "p.Box".into(),
                name: "addAll".into(),
                descriptor: "(Ljava/util/Collection;)V".into(),
                args: vec![Value::Null],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 0, "p.Box").as_deref(),
            Some("p.Box<java.lang.String>")
        );
        assert_eq!(
            declared(&inferred, 1, "java.util.List").as_deref(),
            Some("java.util.List<java.lang.String>")
        );
        assert_eq!(
            inferred
                .null_cast(2, 0)
                .map(|s| strip_markers(&s))
                .as_deref(),
            Some("java.util.Collection<? extends java.lang.String>")
        );
    }

    #[test]
    fn a_wildcard_argument_gives_a_wildcard_result() {
        // static TypeToken<?> get(Type); <T> Adapter<T> adapter(TypeToken<T>)
        let signatures = Signatures {
            classes: [(
                "p.TypeToken".to_string(),
                "<T:Ljava/lang/Object;>Ljava/lang/Object;".to_string(),
            )]
            .into(),
            methods: vec![
                method(
                    "p.TypeToken",
                    "get",
                    "(Ljava/lang/reflect/Type;)Lp/TypeToken;",
                    "(Ljava/lang/reflect/Type;)Lp/TypeToken<*>;",
                ),
                method(
                    "p.Gson",
                    "adapter",
                    "(Lp/TypeToken;)Lp/Adapter;",
                    "<T:Ljava/lang/Object;>(Lp/TypeToken<TT;>;)Lp/Adapter<TT;>;",
                ),
            ],
        };
        let plan = plan(vec![
            Statement::New {
                class: "p.Gson".into(),
                descriptor: "()V".into(),
                args: vec![],
            },
            Statement::CallStatic {
                class: "p.TypeToken".into(),
                name: "get".into(),
                descriptor: "(Ljava/lang/reflect/Type;)Lp/TypeToken;".into(),
                args: vec![Value::Class {
                    name: "java.lang.Integer".into(),
                }],
            },
            Statement::Call {
                receiver: Value::Ref { statement: 0 },
                class: "p.Gson".into(),
                name: "adapter".into(),
                descriptor: "(Lp/TypeToken;)Lp/Adapter;".into(),
                args: vec![Value::Ref { statement: 1 }],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 1, "p.TypeToken").as_deref(),
            Some("p.TypeToken<?>")
        );
        assert_eq!(
            declared(&inferred, 2, "p.Adapter").as_deref(),
            Some("p.Adapter<?>")
        );
    }

    #[test]
    fn a_list_of_lists_is_typed_from_the_outside_in() {
        // static int widest(List<List<String>> rows)
        let signatures = Signatures {
            methods: vec![method(
                "p.Shelf",
                "widest",
                "(Ljava/util/List;)I",
                "(Ljava/util/List<Ljava/util/List<Ljava/lang/String;>;>;)I",
            )],
            ..Signatures::default()
        };
        let new_list = || Statement::New {
            class: "java.util.ArrayList".into(),
            descriptor: "()V".into(),
            args: vec![],
        };
        let add = |list, value| Statement::Call {
            receiver: Value::Ref { statement: list },
            class: "java.util.ArrayList".into(),
            name: "add".into(),
            descriptor: "(Ljava/lang/Object;)Z".into(),
            args: vec![value],
        };
        let plan = plan(vec![
            new_list(),
            new_list(),
            add(1, Value::string("")),
            add(0, Value::Ref { statement: 1 }),
            Statement::CallStatic {
                class: "p.Shelf".into(),
                name: "widest".into(),
                descriptor: "(Ljava/util/List;)I".into(),
                args: vec![Value::Ref { statement: 0 }],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 0, "java.util.ArrayList").as_deref(),
            Some("java.util.ArrayList<java.util.List<java.lang.String>>")
        );
        assert_eq!(
            declared(&inferred, 1, "java.util.ArrayList").as_deref(),
            Some("java.util.ArrayList<java.lang.String>")
        );
    }

    #[test]
    fn a_variable_bounded_by_a_parameterized_type_takes_its_bound() {
        // <M extends Map<String, String>> M putIn(M map)
        let signatures = Signatures {
            methods: vec![method(
                "p.Record",
                "putIn",
                "(Ljava/util/Map;)Ljava/util/Map;",
                "<M::Ljava/util/Map<Ljava/lang/String;Ljava/lang/String;>;>(TM;)TM;",
            )],
            ..Signatures::default()
        };
        let plan = plan(vec![
            Statement::New {
                class: "java.util.HashMap".into(),
                descriptor: "()V".into(),
                args: vec![],
            },
            Statement::CallStatic {
                class: "p.Record".into(),
                name: "putIn".into(),
                descriptor: "(Ljava/util/Map;)Ljava/util/Map;".into(),
                args: vec![Value::Ref { statement: 0 }],
            },
        ]);
        let inferred = infer(&plan, &signatures);
        assert_eq!(
            declared(&inferred, 0, "java.util.HashMap").as_deref(),
            Some("java.util.HashMap<java.lang.String, java.lang.String>")
        );
        assert_eq!(
            declared(&inferred, 1, "java.util.Map").as_deref(),
            Some("java.util.Map<java.lang.String, java.lang.String>")
        );
    }

    #[test]
    fn a_lambda_nobody_types_and_a_raw_receiver_stay_erased() {
        let plan = plan(vec![Statement::Lambda {
            interface: "java.util.function.Supplier".into(),
            method: "get".into(),
            descriptor: "()Ljava/lang/Object;".into(),
            result: None,
        }]);
        let inferred = infer(&plan, &Signatures::default());
        assert_eq!(declared(&inferred, 0, "java.util.function.Supplier"), None);
    }
}
