//! A template with values in its holes becomes a plan the executor can run,
//! and a record of where each statement and argument came from (which hole,
//! filled which way), so that the symbolic engine can say what each means
//! over its variables.

use std::collections::BTreeMap;

use testgen_classfile::descriptor::BaseType;
use testgen_exec::{JavaString, Plan, Statement, Value};
use testgen_project::{ClassName, MethodId};

use crate::template::{Choice, Hole, HoleKind, Template};

/// The values chosen for a template's holes, by hole path.
pub trait HoleValues {
    /// A primitive hole's value (of the hole's type).
    fn primitive(&self, hole: &str, base: BaseType) -> Value;
    /// Whether a nullable reference hole holds null.
    fn is_null(&self, hole: &str) -> bool;
    /// Which of its choices fills a reference hole (clamped by the caller).
    fn choice(&self, hole: &str) -> usize;
    /// The object a reference hole stands for: two holes with the same
    /// address that build the same class share one object (aliasing).
    fn address(&self, hole: &str) -> u64;
    /// The text of a string choice (number `choice`), as UTF-16 units.
    fn string(&self, hole: &str, choice: usize) -> Vec<u16>;
    /// The value of a boxed choice (number `choice`).
    fn boxed(&self, hole: &str, choice: usize, base: BaseType) -> Value;
    /// Which constant an enum choice is (clamped by the caller).
    fn ordinal(&self, hole: &str) -> usize;
    /// The length of an array choice.
    fn length(&self, hole: &str) -> i32;
    /// Element `index` of a primitive array choice.
    fn element(&self, hole: &str, index: i32, base: BaseType) -> Value;
}

/// A plan made from a template, and where each of its statements came from.
pub struct Instantiation {
    pub plan: Plan,
    /// One per statement of the plan.
    pub origins: Vec<Origin>,
}

/// Where a statement of an instantiated plan came from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// The call under test or a call preparing the receiver (a static call
    /// when `receiver` is `None`), or a factory choice.
    Call {
        method: MethodId,
        receiver: Option<Filled>,
        args: Vec<Filled>,
    },
    /// `new` of the constructor under test, or of a constructor choice
    /// (then `chosen` says among which candidates its hole chose).
    New {
        class: ClassName,
        descriptor: String,
        args: Vec<Filled>,
        chosen: Option<Chosen>,
    },
    /// An array choice, created whole: its hole, runtime class (`[I`,
    /// `[Ljava/lang/String;`) and elements.
    Array {
        hole: String,
        class: String,
        elements: ArrayElements,
    },
    /// An array store that only puts an element in place.
    Store,
    /// A constant choice read from a static field: an object of `class`
    /// whose state is not known.
    Constant { class: ClassName },
    /// A lambda choice: `method` of `interface` returns what `result`
    /// holds.
    Lambda {
        interface: ClassName,
        method: MethodId,
        result: Option<Filled>,
    },
}

#[derive(Clone, Debug)]
pub enum ArrayElements {
    /// Primitive elements of this type, from the hole's element values.
    Primitive(BaseType),
    /// Reference elements, each an element hole filled.
    References(Vec<Filled>),
}

/// A reference hole that chose among several candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    pub hole: String,
    /// The runtime class of each choice, in choice order.
    pub candidates: Vec<String>,
}

/// An argument: a hole, and how it was filled.
#[derive(Clone, Debug)]
pub enum Filled {
    Primitive {
        hole: String,
        base: BaseType,
    },
    Reference {
        hole: String,
        nullable: bool,
        target: Target,
    },
}

/// What a reference hole was filled with.
#[derive(Clone, Debug)]
pub enum Target {
    Null,
    /// The object or array made (or read) by that statement.
    Statement(usize),
    Str {
        choice: usize,
        chosen: Option<Chosen>,
    },
    Boxed {
        class: ClassName,
        base: BaseType,
        choice: usize,
        chosen: Option<Chosen>,
    },
    Enum {
        class: ClassName,
        constants: Vec<String>,
    },
    /// A value the symbolic machine does not look into (a class literal).
    Opaque,
}

impl Template {
    /// The plan for `values` and where its statements came from.
    pub fn instantiate(&self, values: &impl HoleValues) -> Instantiation {
        let mut out = Instantiator {
            values,
            statements: Vec::new(),
            origins: Vec::new(),
            objects: BTreeMap::new(),
        };
        let receiver = self.receiver.as_ref().map(|hole| out.fill(hole));
        let class = self.target.class.to_binary();
        for call in &self.prefix {
            let (values, filled) = out.fill_all(&call.args);
            let (receiver_value, receiver_filled) =
                receiver.clone().expect("preparing calls need a receiver");
            out.push(
                Statement::Call {
                    receiver: receiver_value,
                    class: class.clone(),
                    name: call.method.name.clone(),
                    descriptor: call.method.descriptor.clone(),
                    args: values,
                },
                Origin::Call {
                    method: call.method.clone(),
                    receiver: Some(receiver_filled),
                    args: filled,
                },
            );
        }
        let (values, filled) = out.fill_all(&self.args);
        if self.target.is_constructor() {
            out.push(
                Statement::New {
                    class,
                    descriptor: self.target.descriptor.clone(),
                    args: values,
                },
                Origin::New {
                    class: self.target.class.clone(),
                    descriptor: self.target.descriptor.clone(),
                    args: filled,
                    chosen: None,
                },
            );
        } else {
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
            out.push(
                statement,
                Origin::Call {
                    method: self.target.clone(),
                    receiver: receiver.map(|(_, filled)| filled),
                    args: filled,
                },
            );
        }
        Instantiation {
            plan: Plan::new(out.statements),
            origins: out.origins,
        }
    }
}

struct Instantiator<'v, V> {
    values: &'v V,
    statements: Vec<Statement>,
    origins: Vec<Origin>,
    /// Objects made so far by address: (class, statement).
    objects: BTreeMap<u64, (ClassName, usize)>,
}

impl<V: HoleValues> Instantiator<'_, V> {
    fn push(&mut self, statement: Statement, origin: Origin) -> usize {
        self.statements.push(statement);
        self.origins.push(origin);
        self.statements.len() - 1
    }

    /// The statement that calls `method` on what the hole `receiver`
    /// holds (a static call without one), with `args` filled first.
    fn call(&mut self, method: &MethodId, receiver: Option<&Hole>, args: &[Hole]) -> usize {
        let receiver = receiver.map(|hole| self.fill(hole));
        let (values, filled_args) = self.fill_all(args);
        let class = method.class.to_binary();
        let name = method.name.clone();
        let descriptor = method.descriptor.clone();
        let (statement, receiver) = match receiver {
            Some((value, filled)) => (
                Statement::Call {
                    receiver: value,
                    class,
                    name,
                    descriptor,
                    args: values,
                },
                Some(filled),
            ),
            None => (
                Statement::CallStatic {
                    class,
                    name,
                    descriptor,
                    args: values,
                },
                None,
            ),
        };
        self.push(
            statement,
            Origin::Call {
                method: method.clone(),
                receiver,
                args: filled_args,
            },
        )
    }

    fn fill_all(&mut self, holes: &[Hole]) -> (Vec<Value>, Vec<Filled>) {
        holes.iter().map(|hole| self.fill(hole)).unzip()
    }

    fn fill(&mut self, hole: &Hole) -> (Value, Filled) {
        let path = &hole.path;
        let (nullable, choices) = match &hole.kind {
            HoleKind::Primitive(base) => {
                return (
                    self.values.primitive(path, *base),
                    Filled::Primitive {
                        hole: path.clone(),
                        base: *base,
                    },
                )
            }
            HoleKind::Reference { nullable, choices } => (*nullable, choices),
        };
        let filled = |target| Filled::Reference {
            hole: path.clone(),
            nullable,
            target,
        };
        if choices.is_empty() || (nullable && self.values.is_null(path)) {
            return (Value::Null, filled(Target::Null));
        }
        let index = self.values.choice(path).min(choices.len() - 1);
        // A type variable also for a nullable hole of one choice: a run
        // where it is null then sees the same type checks (a cast that
        // may fail) as one where it is not.
        let chosen = (choices.len() > 1 || nullable).then(|| Chosen {
            hole: path.clone(),
            candidates: choices.iter().map(Choice::class).collect(),
        });
        match &choices[index] {
            Choice::Str => (
                Value::String {
                    value: JavaString::from_utf16(self.values.string(path, index)),
                },
                filled(Target::Str {
                    choice: index,
                    chosen,
                }),
            ),
            Choice::Boxed { class, base } => (
                self.values.boxed(path, index, *base),
                filled(Target::Boxed {
                    class: class.clone(),
                    base: *base,
                    choice: index,
                    chosen,
                }),
            ),
            Choice::Enum { class, constants } => {
                let at = self.values.ordinal(path).min(constants.len() - 1);
                (
                    Value::Enum {
                        class: class.to_binary(),
                        name: constants[at].clone(),
                    },
                    filled(Target::Enum {
                        class: class.clone(),
                        constants: constants.clone(),
                    }),
                )
            }
            Choice::ClassLiteral { class } => (
                Value::Class {
                    name: class.to_binary(),
                },
                filled(Target::Opaque),
            ),
            Choice::PrimitiveArray { element } => {
                let length = self.values.length(path).clamp(0, 1 << 16);
                let array = self.push(
                    Statement::NewArray {
                        element: element.descriptor_char().to_string(),
                        length,
                    },
                    Origin::Array {
                        hole: path.clone(),
                        class: format!("[{}", element.descriptor_char()),
                        elements: ArrayElements::Primitive(*element),
                    },
                );
                for index in 0..length {
                    let value = self.values.element(path, index, *element);
                    self.push(
                        Statement::ArrayStore {
                            array: Value::Ref { statement: array },
                            index,
                            value,
                        },
                        Origin::Store,
                    );
                }
                (
                    Value::Ref { statement: array },
                    filled(Target::Statement(array)),
                )
            }
            Choice::ReferenceArray {
                descriptor,
                elements,
            } => {
                let length = (self.values.length(path).max(0) as usize).min(elements.len());
                let (values, filled_elements) = self.fill_all(&elements[..length]);
                let array = self.push(
                    Statement::NewArray {
                        element: descriptor[1..].to_string(),
                        length: length as i32,
                    },
                    Origin::Array {
                        hole: path.clone(),
                        class: descriptor.clone(),
                        elements: ArrayElements::References(filled_elements),
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
                            Origin::Store,
                        );
                    }
                }
                (
                    Value::Ref { statement: array },
                    filled(Target::Statement(array)),
                )
            }
            Choice::New {
                class,
                descriptor,
                args,
                setters,
            } => {
                let at = self.values.address(path);
                if let Some((made, statement)) = self.objects.get(&at) {
                    if made == class {
                        let statement = *statement;
                        return (
                            Value::Ref { statement },
                            filled(Target::Statement(statement)),
                        );
                    }
                }
                let (values, filled_args) = self.fill_all(args);
                let statement = self.push(
                    Statement::New {
                        class: class.to_binary(),
                        descriptor: descriptor.clone(),
                        args: values,
                    },
                    Origin::New {
                        class: class.clone(),
                        descriptor: descriptor.clone(),
                        args: filled_args,
                        chosen,
                    },
                );
                for setter in setters {
                    let (values, filled_args) = self.fill_all(&setter.args);
                    self.push(
                        Statement::Call {
                            receiver: Value::Ref { statement },
                            class: class.to_binary(),
                            name: setter.method.name.clone(),
                            descriptor: setter.method.descriptor.clone(),
                            args: values,
                        },
                        Origin::Call {
                            method: setter.method.clone(),
                            receiver: Some(Filled::Reference {
                                hole: path.clone(),
                                nullable: false,
                                target: Target::Statement(statement),
                            }),
                            args: filled_args,
                        },
                    );
                }
                // Only now may other holes stand for it: a setter's
                // argument is never the object it sets (a node its own
                // child would send every walk of the tree round in
                // circles).
                self.objects.insert(at, (class.clone(), statement));
                (
                    Value::Ref { statement },
                    filled(Target::Statement(statement)),
                )
            }
            Choice::Factory { method, args } => {
                let statement = self.call(method, None, args);
                (
                    Value::Ref { statement },
                    filled(Target::Statement(statement)),
                )
            }
            Choice::Produced {
                method,
                receiver,
                args,
            } => {
                let statement = self.call(method, Some(receiver), args);
                (
                    Value::Ref { statement },
                    filled(Target::Statement(statement)),
                )
            }
            Choice::Lambda {
                interface,
                method,
                result,
            } => {
                let (value, filled_result) = match result {
                    Some(hole) => {
                        let (value, filled) = self.fill(hole);
                        (Some(value), Some(filled))
                    }
                    None => (None, None),
                };
                let statement = self.push(
                    Statement::Lambda {
                        interface: interface.to_binary(),
                        method: method.name.clone(),
                        descriptor: method.descriptor.clone(),
                        result: value,
                    },
                    Origin::Lambda {
                        interface: interface.clone(),
                        method: method.clone(),
                        result: filled_result,
                    },
                );
                (
                    Value::Ref { statement },
                    filled(Target::Statement(statement)),
                )
            }
            Choice::Collection {
                place,
                class,
                add,
                entries,
            } => {
                let made = self.push(
                    Statement::New {
                        class: class.to_binary(),
                        descriptor: "()V".into(),
                        args: Vec::new(),
                    },
                    Origin::New {
                        class: class.clone(),
                        descriptor: "()V".into(),
                        args: Vec::new(),
                        chosen,
                    },
                );
                let length = (self.values.length(place).max(1) as usize).min(entries.len());
                for entry in &entries[..length] {
                    let (values, filled_entry) = self.fill_all(entry);
                    self.push(
                        Statement::Call {
                            receiver: Value::Ref { statement: made },
                            class: class.to_binary(),
                            name: add.name.clone(),
                            descriptor: add.descriptor.clone(),
                            args: values,
                        },
                        Origin::Call {
                            method: add.clone(),
                            receiver: Some(Filled::Reference {
                                hole: path.clone(),
                                nullable: false,
                                target: Target::Statement(made),
                            }),
                            args: filled_entry,
                        },
                    );
                }
                (
                    Value::Ref { statement: made },
                    filled(Target::Statement(made)),
                )
            }
            Choice::Lookup {
                class,
                on,
                method,
                name,
            } => {
                let statement = self.push(
                    Statement::Call {
                        receiver: Value::Class {
                            name: on.to_binary(),
                        },
                        class: method.class.to_binary(),
                        name: method.name.clone(),
                        descriptor: method.descriptor.clone(),
                        args: name
                            .iter()
                            .map(|name| Value::String {
                                value: name.clone().into(),
                            })
                            .collect(),
                    },
                    // Like a constant: an object of `class` whose state
                    // is not known.
                    Origin::Constant {
                        class: class.clone(),
                    },
                );
                (
                    Value::Ref { statement },
                    filled(Target::Statement(statement)),
                )
            }
            Choice::Constant {
                owner,
                field,
                class,
            } => {
                let statement = self.push(
                    Statement::GetField {
                        class: owner.to_binary(),
                        name: field.clone(),
                        receiver: None,
                        field_type: Some(class.descriptor()),
                    },
                    Origin::Constant {
                        class: class.clone(),
                    },
                );
                (
                    Value::Ref { statement },
                    filled(Target::Statement(statement)),
                )
            }
        }
    }
}
