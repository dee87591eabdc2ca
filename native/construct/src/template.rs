//! A template for calling a method: the statements that build its receiver
//! and arguments, with typed *holes* where a value is still to be chosen.
//!
//! A hole is primitive (a value of its type) or a reference: null (when
//! nullable) or one of its *choices*, each a way to build the value from
//! [`Recipes`] whose own inputs are holes again (a constructor's
//! arguments), or a literal (a string, a boxed value, an enum constant, an
//! array with element holes). Holes are named by their place: `p0` is the
//! first parameter, `p0.c1.a2` the third argument of the second choice of
//! `p0`, `p0.e1` the second element of an array, `r` the receiver, `q0.a1`
//! an argument of the first call that prepares the receiver.
//!
//! The symbolic engine turns each hole into solver variables; a search can
//! fill the same holes with values ([`crate::instantiate`]). Templates are
//! bounded: objects nest [`Bounds::max_object_depth`] deep, a hole offers at
//! most [`Bounds::max_choices`] choices, and a template has at most
//! [`Bounds::max_holes`] holes, given out breadth first (shallow holes
//! before deep ones), so that no type, however recursive, makes one large.

use std::collections::{BTreeSet, VecDeque};

use testgen_classfile::descriptor::{BaseType, ElementType, FieldType, MethodDescriptor};
use testgen_project::{ClassName, MethodId, Program};

use crate::generics::{parameter_type_arguments, TypeArguments};
use crate::recipes::{nameable, FieldName, Recipe, Recipes};

/// Limits that keep templates, and so the values they hold, small.
#[derive(Clone, Debug)]
pub struct Bounds {
    pub max_string_length: u32,
    pub max_array_length: u32,
    /// Arrays of references hold this many element holes at most.
    pub max_reference_array_length: u32,
    /// How deep objects nest (an object argument of an object argument...).
    pub max_object_depth: u32,
    /// Choices one reference hole offers at most.
    pub max_choices: usize,
    /// Holes one template has at most.
    pub max_holes: usize,
    /// Setters called on one new object at most (see [`Choice::New`]).
    pub max_setters: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            max_string_length: 16,
            max_array_length: 16,
            max_reference_array_length: 3,
            max_object_depth: 2,
            max_choices: 24,
            max_holes: 600,
            max_setters: 4,
        }
    }
}

/// A place where a value is to be chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hole {
    /// The hole's place, which names it (`p0.c1.a2`).
    pub path: String,
    pub kind: HoleKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HoleKind {
    Primitive(BaseType),
    /// Null (when `nullable`) or one of `choices`; no choice at all means
    /// null only.
    Reference {
        nullable: bool,
        choices: Vec<Choice>,
    },
}

/// One way to fill a reference hole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Str,
    Boxed {
        class: ClassName,
        base: BaseType,
    },
    Enum {
        class: ClassName,
        constants: Vec<String>,
    },
    /// A class literal (`String.class`).
    ClassLiteral {
        class: ClassName,
    },
    PrimitiveArray {
        element: BaseType,
    },
    /// An array of references (`descriptor` like `[Ljava/lang/String;`)
    /// with an element hole per possible element.
    ReferenceArray {
        descriptor: String,
        elements: Vec<Hole>,
    },
    /// `new class(args)`, then each of `setters` called on it: the
    /// public methods that store their parameters into its fields, whose
    /// argument holes give the solver the object's state where a path
    /// reads it (`student.getSupervisor().getCv().getAwards() > 2`, with
    /// no constructor taking it). Setters whose values change nothing are
    /// dropped again when the test is shrunk.
    New {
        class: ClassName,
        descriptor: String,
        args: Vec<Hole>,
        setters: Vec<PreparingCall>,
    },
    Factory {
        method: MethodId,
        args: Vec<Hole>,
    },
    /// An instance method called on an object built in the hole
    /// `receiver` (never null); when it returns its own class, that hole
    /// takes the class's direct ways only.
    Produced {
        method: MethodId,
        receiver: Box<Hole>,
        args: Vec<Hole>,
    },
    /// A lambda for `interface` whose `method` returns what the hole
    /// `result` holds (none for a void method).
    Lambda {
        interface: ClassName,
        method: MethodId,
        result: Option<Box<Hole>>,
    },
    /// A static final field `owner.field` holding a `class`.
    Constant {
        owner: ClassName,
        field: String,
        class: ClassName,
    },
    /// A JDK class's public member of type `class`, looked up on `on`'s
    /// class literal (see [`Recipe::Lookup`]).
    Lookup {
        class: ClassName,
        on: ClassName,
        method: MethodId,
        name: Option<String>,
    },
    /// A JDK collection or map made empty, then filled: each entry is the
    /// holes of one `add` (or `put`) call; how many are used (one at least)
    /// is the variable `{place}.len`.
    Collection {
        /// The choice's own place (`p0.c1`), which names its variables.
        place: String,
        class: ClassName,
        add: MethodId,
        entries: Vec<Vec<Hole>>,
    },
}

impl Choice {
    /// The holes of what the choice builds (elements, arguments, entries).
    pub fn inner_holes(&self) -> Vec<&Hole> {
        match self {
            Choice::ReferenceArray { elements, .. } => elements.iter().collect(),
            Choice::New { args, setters, .. } => args
                .iter()
                .chain(setters.iter().flat_map(|call| &call.args))
                .collect(),
            Choice::Factory { args, .. } => args.iter().collect(),
            Choice::Produced { receiver, args, .. } => {
                std::iter::once(receiver.as_ref()).chain(args).collect()
            }
            Choice::Lambda { result, .. } => result.iter().map(Box::as_ref).collect(),
            Choice::Collection { entries, .. } => entries.iter().flatten().collect(),
            _ => Vec::new(),
        }
    }

    /// The runtime class of what the choice builds (internal name, or an
    /// array descriptor).
    pub fn class(&self) -> String {
        match self {
            Choice::Str => "java/lang/String".into(),
            Choice::Boxed { class, .. }
            | Choice::Enum { class, .. }
            | Choice::New { class, .. }
            | Choice::Constant { class, .. }
            | Choice::Lookup { class, .. }
            | Choice::Collection { class, .. }
            | Choice::Lambda {
                interface: class, ..
            } => class.as_internal().to_string(),
            Choice::ClassLiteral { .. } => "java/lang/Class".into(),
            Choice::Factory { method, .. } => method.class.as_internal().to_string(),
            Choice::Produced { method, .. } => returned_class(&method.descriptor),
            Choice::PrimitiveArray { element } => format!("[{}", element.descriptor_char()),
            Choice::ReferenceArray { descriptor, .. } => descriptor.clone(),
        }
    }
}

/// A call made on an object before it is used: on the receiver before the
/// call under test, or a setter on a new object before it is passed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreparingCall {
    pub method: MethodId,
    pub args: Vec<Hole>,
}

/// Every input of one way to call a method: receiver, preparing calls,
/// arguments.
#[derive(Clone, Debug)]
pub struct Template {
    pub target: MethodId,
    pub receiver: Option<Hole>,
    pub prefix: Vec<PreparingCall>,
    pub args: Vec<Hole>,
    pub bounds: Bounds,
}

/// Why no template can be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("no public constructor builds a {class}")]
    ObjectNotBuilt { class: ClassName },
    #[error("{method}: malformed descriptor")]
    MalformedDescriptor { method: MethodId },
}

impl Template {
    /// The template of calling `target` (static or not) after the
    /// receiver-preparing calls `prefix` (methods of the target's class).
    pub fn new(
        recipes: &Recipes<'_, '_>,
        target: MethodId,
        is_static: bool,
        prefix: &[MethodId],
        bounds: Bounds,
    ) -> Result<Template, TemplateError> {
        let parameters = |method: &MethodId| -> Result<Vec<String>, TemplateError> {
            let parsed = MethodDescriptor::parse(&method.descriptor).map_err(|_| {
                TemplateError::MalformedDescriptor {
                    method: method.clone(),
                }
            })?;
            Ok(parsed.parameters.iter().map(type_descriptor).collect())
        };
        let mut roots: Vec<Root> = Vec::new();
        let receives = !is_static && !target.is_constructor();
        if receives {
            // Built by constructors, factories, constants or an enum's
            // constants, never a string or number literal.
            roots.push(Root {
                path: "r".into(),
                descriptor: target.class.descriptor(),
                type_arguments: Vec::new(),
                nullable: false,
                objects_only: true,
                prepared_by_contexts: true,
                own_class: None,
            });
        }
        for (k, call) in prefix.iter().enumerate() {
            for (i, descriptor) in parameters(call)?.into_iter().enumerate() {
                roots.push(Root {
                    path: format!("q{k}.a{i}"),
                    descriptor,
                    type_arguments: Vec::new(),
                    nullable: true,
                    objects_only: false,
                    prepared_by_contexts: false,
                    own_class: None,
                });
            }
        }
        let descriptors = parameters(&target)?;
        let type_arguments =
            parameter_type_arguments(recipes.program(), &target, descriptors.len());
        for (i, (descriptor, type_arguments)) in
            descriptors.into_iter().zip(type_arguments).enumerate()
        {
            let own_class =
                (receives && descriptor == "Ljava/lang/Object;").then(|| target.class.clone());
            roots.push(Root {
                path: format!("p{i}"),
                descriptor,
                type_arguments,
                nullable: true,
                objects_only: false,
                prepared_by_contexts: false,
                own_class,
            });
        }
        let read = recipes.fields_read_from(&target);
        let mut holes = Builder::new(recipes, &bounds, target.class.package(), read)
            .build(roots)
            .into_iter();
        let receiver = if receives {
            let receiver = holes.next().expect("the receiver's hole");
            if matches!(&receiver.kind, HoleKind::Reference { choices, .. } if choices.is_empty()) {
                return Err(TemplateError::ObjectNotBuilt {
                    class: target.class.clone(),
                });
            }
            Some(receiver)
        } else {
            None
        };
        let mut prefix_calls = Vec::with_capacity(prefix.len());
        for call in prefix {
            let count = parameters(call)?.len();
            prefix_calls.push(PreparingCall {
                method: call.clone(),
                args: holes.by_ref().take(count).collect(),
            });
        }
        Ok(Template {
            target,
            receiver,
            prefix: prefix_calls,
            args: holes.collect(),
            bounds,
        })
    }

    /// The primitive arguments of the call under test.
    pub fn primitive_arguments(&self) -> Vec<(&str, BaseType)> {
        self.args
            .iter()
            .filter_map(|hole| match hole.kind {
                HoleKind::Primitive(base) => Some((hole.path.as_str(), base)),
                HoleKind::Reference { .. } => None,
            })
            .collect()
    }

    /// Every hole, depth first: receiver, preparing calls' arguments,
    /// arguments, each followed by the holes of its choices.
    pub fn holes(&self) -> Vec<&Hole> {
        fn walk<'t>(hole: &'t Hole, out: &mut Vec<&'t Hole>) {
            out.push(hole);
            if let HoleKind::Reference { choices, .. } = &hole.kind {
                for choice in choices {
                    for hole in choice.inner_holes() {
                        walk(hole, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        let roots = self
            .receiver
            .iter()
            .chain(self.prefix.iter().flat_map(|call| call.args.iter()))
            .chain(self.args.iter());
        for hole in roots {
            walk(hole, &mut out);
        }
        out
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

/// The class a method descriptor returns (internal name or array
/// descriptor; `java/lang/Object` for anything else).
fn returned_class(descriptor: &str) -> String {
    let returned = descriptor.rsplit_once(')').map_or("", |(_, ret)| ret);
    match returned.strip_prefix('L').and_then(|r| r.strip_suffix(';')) {
        Some(class) => class.to_string(),
        None if returned.starts_with('[') => returned.to_string(),
        None => "java/lang/Object".to_string(),
    }
}

/// A top-level hole to build: a parameter, the receiver.
struct Root {
    path: String,
    descriptor: String,
    /// What its type's parameters are known to be (`List<Money>`).
    type_arguments: TypeArguments,
    nullable: bool,
    /// Only recipes that build an object (constructors, factories,
    /// constants).
    objects_only: bool,
    /// The receiver of the call under test, whose state its contexts (the
    /// receiver-preparing calls) set: no setters of its own.
    prepared_by_contexts: bool,
    /// For an `Object` parameter of the instance method under test, its
    /// class: whose objects come first (what `equals(Object)` compares against, and
    /// what `contains(Object)` of a collection-like class holds).
    own_class: Option<ClassName>,
}

/// A hole in the making: what it is for, and (once expanded) its choices
/// with their inner holes as indices into the builder's nodes.
struct Node {
    path: String,
    descriptor: String,
    type_arguments: TypeArguments,
    depth: u32,
    nullable: bool,
    objects_only: bool,
    /// The receiver of a value derived from another of its class
    /// (`format.withHeader(..)`'s `format`): built the direct ways only, so
    /// that derivations do not nest and swell the template.
    direct_only: bool,
    prepared_by_contexts: bool,
    own_class: Option<ClassName>,
    choices: Vec<NodeChoice>,
}

enum NodeChoice {
    Ready(Choice),
    Array {
        descriptor: String,
        elements: Vec<usize>,
    },
    New {
        class: ClassName,
        descriptor: String,
        args: Vec<usize>,
        setters: Vec<(MethodId, Vec<usize>)>,
    },
    Factory {
        method: MethodId,
        args: Vec<usize>,
    },
    Produced {
        method: MethodId,
        receiver: usize,
        args: Vec<usize>,
    },
    Lambda {
        interface: ClassName,
        method: MethodId,
        result: Option<usize>,
    },
    Collection {
        place: String,
        class: ClassName,
        add: MethodId,
        entries: Vec<Vec<usize>>,
    },
}

/// Builds holes breadth first within the bounds.
struct Builder<'b, 'r, 'a> {
    recipes: &'b Recipes<'r, 'a>,
    bounds: &'b Bounds,
    /// The package the tests are in (the target's): its package-private
    /// constructors are ways in too.
    package: String,
    /// The fields the call under test can read ([`Recipes::fields_read_from`]):
    /// the setters that write them come first.
    read: BTreeSet<FieldName>,
    nodes: Vec<Node>,
    queue: VecDeque<usize>,
}

impl<'b, 'r, 'a> Builder<'b, 'r, 'a> {
    fn new(
        recipes: &'b Recipes<'r, 'a>,
        bounds: &'b Bounds,
        package: String,
        read: BTreeSet<FieldName>,
    ) -> Self {
        Builder {
            recipes,
            bounds,
            package,
            read,
            nodes: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    fn build(mut self, roots: Vec<Root>) -> Vec<Hole> {
        let roots: Vec<usize> = roots
            .into_iter()
            .map(|root| {
                let index = self.add(root.path, root.descriptor, 0, root.nullable);
                self.nodes[index].objects_only = root.objects_only;
                self.nodes[index].prepared_by_contexts = root.prepared_by_contexts;
                self.nodes[index].type_arguments = root.type_arguments;
                self.nodes[index].own_class = root.own_class;
                index
            })
            .collect();
        while let Some(index) = self.queue.pop_front() {
            self.expand(index);
        }
        roots.into_iter().map(|index| self.hole(index)).collect()
    }

    fn add(&mut self, path: String, descriptor: String, depth: u32, nullable: bool) -> usize {
        self.nodes.push(Node {
            path,
            descriptor,
            type_arguments: Vec::new(),
            depth,
            nullable,
            objects_only: false,
            direct_only: false,
            prepared_by_contexts: false,
            own_class: None,
            choices: Vec::new(),
        });
        let index = self.nodes.len() - 1;
        self.queue.push_back(index);
        index
    }

    /// Room for `count` more holes.
    fn room_for(&self, count: usize) -> bool {
        self.nodes.len() + count <= self.bounds.max_holes
    }

    /// The hole descriptors of a method's parameters; `None` if malformed.
    fn parameters(descriptor: &str) -> Option<Vec<String>> {
        let parsed = MethodDescriptor::parse(descriptor).ok()?;
        Some(parsed.parameters.iter().map(type_descriptor).collect())
    }

    fn expand(&mut self, index: usize) {
        let (path, descriptor, type_arguments, depth, objects_only, prepared_by_contexts) = {
            let node = &self.nodes[index];
            (
                node.path.clone(),
                node.descriptor.clone(),
                node.type_arguments.clone(),
                node.depth,
                node.objects_only,
                node.prepared_by_contexts,
            )
        };
        let own_class = self.nodes[index].own_class.clone();
        let Ok(ty) = FieldType::parse(&descriptor) else {
            return;
        };
        let mut choices = Vec::new();
        match &ty {
            FieldType::Base(_) => {}
            FieldType::Array {
                dimensions,
                element,
            } => {
                if let (1, ElementType::Base(base)) = (*dimensions, element) {
                    choices.push(NodeChoice::Ready(Choice::PrimitiveArray { element: *base }));
                } else {
                    let inner = descriptor[1..].to_string();
                    let count = self.bounds.max_reference_array_length as usize;
                    let elements = if depth < self.bounds.max_object_depth && self.room_for(count) {
                        (0..count)
                            .map(|i| {
                                self.add(format!("{path}.e{i}"), inner.clone(), depth + 1, true)
                            })
                            .collect()
                    } else {
                        Vec::new()
                    };
                    choices.push(NodeChoice::Array {
                        descriptor: descriptor.clone(),
                        elements,
                    });
                }
            }
            FieldType::Object(class) => {
                let class = ClassName::internal(class.to_string());
                let mut recipes = if objects_only {
                    self.recipes.objects(&class)
                } else {
                    self.recipes.of(&class)
                };
                if self.nodes[index].direct_only {
                    recipes.retain(|recipe| {
                        !matches!(recipe, Recipe::Produced { method } if method.class == class)
                    });
                }
                if let Some(own) = own_class.filter(|_| class.as_internal() == "java/lang/Object") {
                    let mut own_objects = self.recipes.objects(&own);
                    recipes.retain(|recipe| !own_objects.contains(recipe));
                    own_objects.append(&mut recipes);
                    recipes = own_objects;
                }
                // The package's own constructors before what other
                // objects' methods return.
                let within_package = self.recipes.package_constructors(&class, &self.package);
                if !within_package.is_empty() {
                    let at = recipes
                        .iter()
                        .position(|recipe| matches!(recipe, Recipe::Produced { .. }))
                        .unwrap_or(recipes.len());
                    recipes.splice(at..at, within_package);
                }
                if class.as_internal() == "java/lang/Class" {
                    // `Class<? extends Number>`: `Number.class` first.
                    if let Some(bound) = type_arguments.first().cloned().flatten() {
                        let bound = ClassName::internal(
                            bound.trim_start_matches('L').trim_end_matches(';'),
                        );
                        if literal_nameable(self.recipes.program(), &bound) {
                            let literal = Recipe::ClassLiteral { class: bound };
                            recipes.retain(|recipe| *recipe != literal);
                            recipes.insert(0, literal);
                        }
                    }
                }
                // The literals (a string and an `Integer` for `Object`) come
                // last but keep their places when the bound cuts the rest.
                let mut literals_left = recipes.iter().filter(|r| r.is_literal()).count();
                for recipe in recipes {
                    if choices.len() >= self.bounds.max_choices {
                        break;
                    }
                    if recipe.is_literal() {
                        literals_left -= 1;
                    } else if choices.len() + literals_left >= self.bounds.max_choices {
                        continue;
                    }
                    let prefix = format!("{path}.c{}", choices.len());
                    let choice = match recipe {
                        Recipe::Str => NodeChoice::Ready(Choice::Str),
                        Recipe::Boxed { class, base } => {
                            NodeChoice::Ready(Choice::Boxed { class, base })
                        }
                        Recipe::Enum { class, constants } => {
                            NodeChoice::Ready(Choice::Enum { class, constants })
                        }
                        Recipe::ClassLiteral { class } => {
                            NodeChoice::Ready(Choice::ClassLiteral { class })
                        }
                        Recipe::Lookup {
                            class,
                            on,
                            method,
                            name,
                        } => NodeChoice::Ready(Choice::Lookup {
                            class,
                            on,
                            method,
                            name,
                        }),
                        Recipe::Constant {
                            owner,
                            field,
                            class,
                        } => {
                            if depth > self.bounds.max_object_depth {
                                continue;
                            }
                            NodeChoice::Ready(Choice::Constant {
                                owner,
                                field,
                                class,
                            })
                        }
                        Recipe::New { class, descriptor } => {
                            let Some(args) = self.arguments(&prefix, &descriptor, depth) else {
                                continue;
                            };
                            let setters = if prepared_by_contexts {
                                Vec::new()
                            } else {
                                self.setters(&prefix, &class, depth)
                            };
                            NodeChoice::New {
                                class,
                                descriptor,
                                args,
                                setters,
                            }
                        }
                        Recipe::Factory { method } => {
                            let holes = holes_of_generic_factory(
                                &method.descriptor,
                                method.class == class,
                                &type_arguments,
                            );
                            let Some(args) = self.arguments(&prefix, &holes, depth) else {
                                continue;
                            };
                            NodeChoice::Factory { method, args }
                        }
                        Recipe::Lambda { interface, method } => {
                            let Some(result) = self.lambda_result(&prefix, &method, depth) else {
                                continue;
                            };
                            NodeChoice::Lambda {
                                interface,
                                method,
                                result,
                            }
                        }
                        Recipe::Produced { method } => {
                            let Some((receiver, args)) =
                                self.receiver_and_arguments(&prefix, &method, depth)
                            else {
                                continue;
                            };
                            NodeChoice::Produced {
                                method,
                                receiver,
                                args,
                            }
                        }
                        Recipe::Collection { class, add, entry } => {
                            // The parameter's own element (key, value)
                            // types where its signature says them.
                            let entry: Vec<String> = if type_arguments.len() == entry.len() {
                                entry
                                    .into_iter()
                                    .zip(&type_arguments)
                                    .map(|(default, known)| known.clone().unwrap_or(default))
                                    .collect()
                            } else {
                                entry
                            };
                            let Some(entries) = self.entries(&prefix, &entry, depth) else {
                                continue;
                            };
                            NodeChoice::Collection {
                                place: prefix,
                                class,
                                add,
                                entries,
                            }
                        }
                    };
                    choices.push(choice);
                }
            }
        }
        self.nodes[index].choices = choices;
    }

    /// The holes of a call's arguments below a hole at `depth`; `None` when
    /// the object would nest too deep, the template has no room for them,
    /// or the descriptor is malformed.
    fn arguments(&mut self, prefix: &str, descriptor: &str, depth: u32) -> Option<Vec<usize>> {
        if depth > self.bounds.max_object_depth {
            return None;
        }
        let parameters = Self::parameters(descriptor)?;
        if !self.room_for(parameters.len()) {
            return None;
        }
        Some(
            parameters
                .into_iter()
                .enumerate()
                .map(|(i, p)| self.add(format!("{prefix}.a{i}"), p, depth + 1, true))
                .collect(),
        )
    }

    /// The setters (`{prefix}.s{k}`, see [`Choice::New`]) to call on a new
    /// `class` built below a hole at `depth`, with their argument holes: as
    /// many as the bounds leave room for, those writing a field the call
    /// under test can read first, then in class-file order.
    fn setters(
        &mut self,
        prefix: &str,
        class: &ClassName,
        depth: u32,
    ) -> Vec<(MethodId, Vec<usize>)> {
        let mut candidates = self.recipes.setters(class);
        let owner = class.as_internal().to_string();
        candidates.sort_by_key(|setter| {
            !setter
                .fields
                .keys()
                .any(|field| self.read.contains(&(owner.clone(), field.clone())))
        });
        let mut setters = Vec::new();
        for setter in candidates {
            if setters.len() >= self.bounds.max_setters {
                break;
            }
            let place = format!("{prefix}.s{}", setters.len());
            let Some(args) = self.arguments(&place, &setter.method.descriptor, depth) else {
                break;
            };
            setters.push((setter.method, args));
        }
        setters
    }

    /// The receiver hole (`{prefix}.r`, objects only, never null) and the
    /// argument holes of an instance method called below a hole at `depth`;
    /// `None` as for [`Self::arguments`].
    fn receiver_and_arguments(
        &mut self,
        prefix: &str,
        method: &MethodId,
        depth: u32,
    ) -> Option<(usize, Vec<usize>)> {
        if depth > self.bounds.max_object_depth || !self.room_for(1) {
            return None;
        }
        let receiver = self.add(
            format!("{prefix}.r"),
            method.class.descriptor(),
            depth + 1,
            false,
        );
        self.nodes[receiver].objects_only = true;
        self.nodes[receiver].direct_only =
            returned_class(&method.descriptor) == method.class.as_internal();
        let args = self.arguments(prefix, &method.descriptor, depth)?;
        Some((receiver, args))
    }

    /// The hole of what a lambda for `method` returns (`{prefix}.res`;
    /// `Some(None)` for a void method). An `Object` result is a string or
    /// null: whatever type the caller expects, nothing else is as likely
    /// to fit. `None` when the lambda would nest too deep or the template
    /// has no room.
    fn lambda_result(
        &mut self,
        prefix: &str,
        method: &MethodId,
        depth: u32,
    ) -> Option<Option<usize>> {
        if depth > self.bounds.max_object_depth || !self.room_for(1) {
            return None;
        }
        let returned = method.descriptor.rsplit_once(')')?.1;
        Some(match returned {
            "V" => None,
            "Ljava/lang/Object;" => Some(self.add(
                format!("{prefix}.res"),
                "Ljava/lang/String;".into(),
                depth + 1,
                true,
            )),
            _ => Some(self.add(
                format!("{prefix}.res"),
                returned.to_string(),
                depth + 1,
                true,
            )),
        })
    }

    /// The entry holes of a collection below a hole at `depth`, as many
    /// entries as an array of references holds (`{prefix}.e{i}` for a
    /// single-argument entry, `{prefix}.e{i}.a{j}` for a map's); never null
    /// (sorted and array-backed collections refuse it). `None` when the
    /// collection would nest too deep or the template has no room.
    fn entries(&mut self, prefix: &str, entry: &[String], depth: u32) -> Option<Vec<Vec<usize>>> {
        let count = self.bounds.max_reference_array_length as usize;
        if depth >= self.bounds.max_object_depth || !self.room_for(count * entry.len()) {
            return None;
        }
        Some(
            (0..count)
                .map(|i| {
                    entry
                        .iter()
                        .enumerate()
                        .map(|(j, descriptor)| {
                            let path = if entry.len() == 1 {
                                format!("{prefix}.e{i}")
                            } else {
                                format!("{prefix}.e{i}.a{j}")
                            };
                            self.add(path, descriptor.clone(), depth + 1, false)
                        })
                        .collect()
                })
                .collect(),
        )
    }

    /// The finished hole of node `index`.
    fn hole(&self, index: usize) -> Hole {
        let node = &self.nodes[index];
        let kind = match FieldType::parse(&node.descriptor) {
            Ok(FieldType::Base(base)) => HoleKind::Primitive(base),
            _ => HoleKind::Reference {
                nullable: node.nullable,
                choices: node
                    .choices
                    .iter()
                    .map(|choice| match choice {
                        NodeChoice::Ready(choice) => choice.clone(),
                        NodeChoice::Array {
                            descriptor,
                            elements,
                        } => Choice::ReferenceArray {
                            descriptor: descriptor.clone(),
                            elements: elements.iter().map(|&i| self.hole(i)).collect(),
                        },
                        NodeChoice::New {
                            class,
                            descriptor,
                            args,
                            setters,
                        } => Choice::New {
                            class: class.clone(),
                            descriptor: descriptor.clone(),
                            args: args.iter().map(|&i| self.hole(i)).collect(),
                            setters: setters
                                .iter()
                                .map(|(method, args)| PreparingCall {
                                    method: method.clone(),
                                    args: args.iter().map(|&i| self.hole(i)).collect(),
                                })
                                .collect(),
                        },
                        NodeChoice::Factory { method, args } => Choice::Factory {
                            method: method.clone(),
                            args: args.iter().map(|&i| self.hole(i)).collect(),
                        },
                        NodeChoice::Lambda {
                            interface,
                            method,
                            result,
                        } => Choice::Lambda {
                            interface: interface.clone(),
                            method: method.clone(),
                            result: result.map(|i| Box::new(self.hole(i))),
                        },
                        NodeChoice::Produced {
                            method,
                            receiver,
                            args,
                        } => Choice::Produced {
                            method: method.clone(),
                            receiver: Box::new(self.hole(*receiver)),
                            args: args.iter().map(|&i| self.hole(i)).collect(),
                        },
                        NodeChoice::Collection {
                            place,
                            class,
                            add,
                            entries,
                        } => Choice::Collection {
                            place: place.clone(),
                            class: class.clone(),
                            add: add.clone(),
                            entries: entries
                                .iter()
                                .map(|entry| entry.iter().map(|&i| self.hole(i)).collect())
                                .collect(),
                        },
                    })
                    .collect(),
            },
        };
        Hole {
            path: node.path.clone(),
            kind,
        }
    }
}

/// Whether a test can write `class.class`: a public class of the program
/// that can be named, or a JDK class (whose bounds name public API).
fn literal_nameable(program: &Program<'_>, class: &ClassName) -> bool {
    match program.class(class) {
        Some(file) => file.access_flags.is_public() && nameable(program, class),
        None => class.as_internal().starts_with("java/"),
    }
}

/// The descriptor whose parameters a factory's argument holes take: a
/// factory of the parameter's own generic class whose `Object` parameters
/// are its type variables in order (`Optional.ofNullable(T)`) takes the
/// parameter's type arguments, so that an `Optional<String>` holds a
/// string; any other factory its own descriptor.
fn holes_of_generic_factory(
    descriptor: &str,
    own_class: bool,
    type_arguments: &TypeArguments,
) -> String {
    const OBJECT: &str = "Ljava/lang/Object;";
    let Ok(parsed) = MethodDescriptor::parse(descriptor) else {
        return descriptor.to_string();
    };
    let parameters = &parsed.parameters;
    let all_variables = own_class
        && !parameters.is_empty()
        && parameters.len() == type_arguments.len()
        && parameters
            .iter()
            .all(|p| matches!(p, FieldType::Object(name) if *name == "java/lang/Object"));
    if !all_variables {
        return descriptor.to_string();
    }
    let returns = descriptor.rsplit_once(')').map_or("V", |(_, r)| r);
    let holes: String = type_arguments
        .iter()
        .map(|known| known.as_deref().unwrap_or(OBJECT))
        .collect();
    format!("({holes}){returns}")
}
