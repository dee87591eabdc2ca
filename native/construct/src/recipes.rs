//! How to obtain a value of a reference type through the public API: its
//! recipes. Built from the program once (the class hierarchy, an index of
//! the public static methods of every class by the type they return), then
//! answered per type and remembered, so the cost of every question together
//! stays linear in the program's size whatever its shape (recursive node
//! types included).
//!
//! Beside the recipes that make a value, [`Recipes::setters`] names the
//! public methods that set an object's fields from their parameters (from
//! `testgen_analysis`'s field writers), the calls that give a built object
//! the state a path needs.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use testgen_analysis::{mutable_static_fields, ClassAccess, Hierarchy, MethodKey, TypeInfo};
use testgen_classfile::access::AccessFlags;
use testgen_classfile::descriptor::{BaseType, FieldType, MethodDescriptor};
use testgen_classfile::ClassFile;
use testgen_project::{ClassName, MethodId, Program};

use crate::jdk;

/// One way to obtain a value of a reference type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recipe {
    /// A string literal (for `String`, `CharSequence`, `Object`).
    Str,
    /// A boxed primitive literal (`Integer.valueOf(3)` as `3`).
    Boxed { class: ClassName, base: BaseType },
    /// One of an enum's constants.
    Enum {
        class: ClassName,
        constants: Vec<String>,
    },
    /// A class literal (`String.class`) for a `Class` or `Type`.
    ClassLiteral { class: ClassName },
    /// `new class(...)` through a public constructor.
    New {
        class: ClassName,
        descriptor: String,
    },
    /// A public static method returning the type (`Money.of(...)`).
    Factory { method: MethodId },
    /// A public static final field holding a `class`, declared in `owner`
    /// (`CSVFormat.DEFAULT`; `StandardCharsets.UTF_8` for a `Charset`).
    Constant {
        owner: ClassName,
        field: String,
        class: ClassName,
    },
    /// A public instance method that returns the type, called on an object
    /// its own class's recipes build (`new DefaultParser().parse(options,
    /// args)` for a `CommandLine`, `builder.build()`, `list.iterator()`),
    /// of the type's own class last (`CSVFormat.DEFAULT.withHeader(..)`).
    Produced { method: MethodId },
    /// A lambda for the functional interface `interface`, whose one
    /// abstract method `method` returns what a hole holds (`x -> true`).
    Lambda {
        interface: ClassName,
        method: MethodId,
    },
    /// A JDK collection or map: `new class()`, then `add` (or `put`) called
    /// for each entry, whose arguments are of the types in `entry`
    /// (descriptors).
    Collection {
        class: ClassName,
        add: MethodId,
        entry: Vec<String>,
    },
    /// A public member of a JDK class looked up on its class literal by
    /// `method` of `Class`, with `name` when it takes one:
    /// `Integer.class.getField("MAX_VALUE")` for a `Field` (a `class`).
    Lookup {
        class: ClassName,
        on: ClassName,
        method: MethodId,
        name: Option<String>,
    },
}

impl Recipe {
    /// A value written as a literal (a string, a boxed primitive, an enum
    /// constant), not built by a call.
    pub fn is_literal(&self) -> bool {
        matches!(
            self,
            Recipe::Str | Recipe::Boxed { .. } | Recipe::Enum { .. } | Recipe::ClassLiteral { .. }
        )
    }
}

/// A public instance method that stores its parameters into fields of its
/// class (directly, or through the private methods it calls).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setter {
    pub method: MethodId,
    /// The fields written, each with the positions of the parameters that
    /// flow into it, by field name.
    pub fields: BTreeMap<String, Vec<u16>>,
}

/// The recipes of every type the program's classes can be asked for.
pub struct Recipes<'p, 'a> {
    program: &'p Program<'a>,
    hierarchy: Hierarchy,
    /// Public static methods of public classes anywhere in the program, by
    /// the class they are declared to return.
    factories: BTreeMap<ClassName, Vec<MethodId>>,
    /// Public instance methods of public classes, by the class they are
    /// declared to return (none of a class returning its own type).
    producers: BTreeMap<ClassName, Vec<MethodId>>,
    known: Mutex<BTreeMap<ClassName, Vec<Recipe>>>,
    setters: Mutex<BTreeMap<ClassName, Vec<Setter>>>,
    fields_read: Mutex<BTreeMap<MethodId, BTreeSet<FieldName>>>,
    /// Each program class's field accesses and calls, read once (none for
    /// a class the program lacks or that does not read).
    accesses: Mutex<BTreeMap<ClassName, Option<Arc<ClassAccess>>>>,
    keeps_static_state: OnceLock<bool>,
}

/// `cache`'s value for `key`, computed by `compute` the first time.
/// Computed outside the lock: two threads may both compute it, with the
/// same result.
fn memoised<K: Ord + Clone, V: Clone>(
    cache: &Mutex<BTreeMap<K, V>>,
    key: &K,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(known) = cache.lock().ok().and_then(|known| known.get(key).cloned()) {
        return known;
    }
    let value = compute();
    if let Ok(mut known) = cache.lock() {
        known.insert(key.clone(), value.clone());
    }
    value
}

/// An instance field: the internal name of its class and its name.
pub type FieldName = (String, String);

/// The most methods [`Recipes::fields_read_from`] looks into for one
/// method: enough for a few getters deep, bounded whatever the program.
const MOST_METHODS_READ: usize = 64;

impl<'p, 'a> Recipes<'p, 'a> {
    /// The index over `program` (its hierarchy; a class that cannot be
    /// read is left out of it alone).
    pub fn new(program: &'p Program<'a>) -> Recipes<'p, 'a> {
        let readable: Vec<&ClassFile<'a>> = program
            .classes()
            .filter(|(_, file)| TypeInfo::of(file).is_ok())
            .map(|(_, file)| file)
            .collect();
        // Every class given reads, so building cannot fail.
        let hierarchy = Hierarchy::new(readable.iter().copied()).unwrap_or_default();
        let (factories, producers) = index_methods(program);
        Recipes {
            program,
            hierarchy,
            factories,
            producers,
            known: Mutex::new(BTreeMap::new()),
            setters: Mutex::new(BTreeMap::new()),
            fields_read: Mutex::new(BTreeMap::new()),
            accesses: Mutex::new(BTreeMap::new()),
            keeps_static_state: OnceLock::new(),
        }
    }

    /// The public static methods anywhere in the program that are declared
    /// to return a `class` (`Shapes.square(2)` for a `Square`), in class
    /// order then class-file order. An enum's own `valueOf` is not one.
    pub fn factories_anywhere(&self, class: &ClassName) -> &[MethodId] {
        self.factories.get(class).map_or(&[], Vec::as_slice)
    }

    /// The setters of `class`, in class-file order (worked out once per
    /// class, from its own code only).
    pub fn setters(&self, class: &ClassName) -> Vec<Setter> {
        memoised(&self.setters, class, || {
            self.access(class)
                .map(|access| setters_of(class, &access))
                .unwrap_or_default()
        })
    }

    /// Whether some class of the program keeps mutable static state (a
    /// static field assigned after its class is initialised, or a static
    /// container read later: `testgen_analysis::statics`), or could not
    /// be read to tell. When none does, one run of the program leaves
    /// nothing behind for the next. Worked out once.
    pub fn program_keeps_static_state(&self) -> bool {
        *self.keeps_static_state.get_or_init(|| {
            self.program.classes().any(|(name, file)| {
                self.access(name).is_none_or(|access| {
                    mutable_static_fields(file, &access).map_or(true, |fields| !fields.is_empty())
                })
            })
        })
    }

    /// `class`'s field accesses and calls, if the program has it
    /// (analysed once per class).
    pub fn access(&self, class: &ClassName) -> Option<Arc<ClassAccess>> {
        memoised(&self.accesses, class, || {
            let file = self.program.class(class)?;
            ClassAccess::of(file).ok().map(Arc::new)
        })
    }

    /// The instance fields that `method` and the program's methods it
    /// calls (breadth first, up to [`MOST_METHODS_READ`] methods) read:
    /// the state its paths can depend on, several objects deep
    /// (`student.getSupervisor().getCv().getAwards()` reads
    /// `Student.supervisor`, `Supervisor.cv`, `Cv.awards`). Worked out once
    /// per method.
    pub fn fields_read_from(&self, method: &MethodId) -> BTreeSet<FieldName> {
        memoised(&self.fields_read, method, || self.walk_fields_read(method))
    }

    fn walk_fields_read(&self, method: &MethodId) -> BTreeSet<FieldName> {
        let mut read = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut pending = VecDeque::from([(
            method.class.clone(),
            MethodKey::new(&method.name, &method.descriptor),
        )]);
        while let Some((owner, key)) = pending.pop_front() {
            if seen.len() >= MOST_METHODS_READ || !seen.insert((owner.clone(), key.clone())) {
                continue;
            }
            let Some(access) = self.access(&owner) else {
                continue;
            };
            let Some(facts) = access.method(&key.name, &key.descriptor) else {
                continue;
            };
            for access in &facts.field_accesses {
                if !access.is_write() && !access.is_static() {
                    read.insert((access.field.owner.clone(), access.field.name.clone()));
                }
            }
            for call in &facts.calls {
                let callee = ClassName::internal(call.target.owner.as_str());
                if self.program.class(&callee).is_some() {
                    pending.push_back((
                        callee,
                        MethodKey::new(&call.target.name, &call.target.descriptor),
                    ));
                }
            }
        }
        read
    }

    pub fn program(&self) -> &'p Program<'a> {
        self.program
    }

    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// The ways to obtain a `class`, most direct first: a string or boxed
    /// literal for those types, an enum's constants, else the JDK
    /// catalogue's ways for a JDK type ([`jdk::recipes`]), then each public
    /// constructor of each concrete public class of the program assignable
    /// to `class` (by name), the static factories of `class` that return
    /// it, its public constants of its own type; and for `Object`, a string
    /// and an `Integer` after those.
    pub fn of(&self, class: &ClassName) -> Vec<Recipe> {
        memoised(&self.known, class, || self.compute(class))
    }

    fn compute(&self, class: &ClassName) -> Vec<Recipe> {
        let internal = class.as_internal();
        if let Some(base) = boxed_base(internal) {
            return vec![Recipe::Boxed {
                class: class.clone(),
                base,
            }];
        }
        if internal == "java/lang/String" {
            return vec![Recipe::Str];
        }
        let constants = self.program.enum_constants(class);
        if !constants.is_empty() {
            return vec![Recipe::Enum {
                class: class.clone(),
                constants,
            }];
        }
        if internal == "java/lang/Enum" {
            return self.any_enum();
        }
        // The JDK's own ways first, then the program's implementations.
        let mut recipes = jdk::recipes(class);
        recipes.extend(self.objects_of(class));
        if internal == "java/lang/Object" {
            // A loosely typed parameter: the program's own classes first,
            // then the values people pass most.
            recipes.push(Recipe::Str);
            recipes.push(Recipe::Boxed {
                class: ClassName::internal("java/lang/Integer"),
                base: BaseType::Int,
            });
        }
        recipes
    }

    /// For an `Enum<?>`: the constants of the program's first public enums
    /// (in class order), then a JDK enum's.
    fn any_enum(&self) -> Vec<Recipe> {
        let mut recipes: Vec<Recipe> = self
            .program
            .classes()
            .filter(|(name, file)| {
                file.access_flags.is_public()
                    && file.access_flags.contains(AccessFlags::ENUM)
                    && nameable(self.program, name)
            })
            .filter_map(|(name, _)| {
                let constants = self.program.enum_constants(name);
                (!constants.is_empty()).then(|| Recipe::Enum {
                    class: name.clone(),
                    constants,
                })
            })
            .take(2)
            .collect();
        recipes.extend(jdk::recipes(&ClassName::internal(
            "java/util/concurrent/TimeUnit",
        )));
        recipes
    }

    /// The recipes of [`Self::of`] that build an object by a call, read one
    /// from a field or name an enum constant (no string or number literal):
    /// the ways to make a receiver.
    pub fn objects(&self, class: &ClassName) -> Vec<Recipe> {
        let mut recipes = self.of(class);
        recipes.retain(|recipe| matches!(recipe, Recipe::Enum { .. }) || !recipe.is_literal());
        recipes
    }

    /// The program's ways to build an object of `class`: its constants,
    /// its implementations' constructors, its own factories, the factories
    /// of other classes that return it, and the methods of other objects
    /// that return it.
    fn objects_of(&self, class: &ClassName) -> Vec<Recipe> {
        let internal = class.as_internal();
        let mut recipes = Vec::new();
        // The class's own constants first (`CSVFormat.DEFAULT`): what a
        // person writes, and an object its class made valid, where a
        // constructor's first arguments may not be.
        for field in self.static_constants(class) {
            recipes.push(Recipe::Constant {
                owner: class.clone(),
                field,
                class: class.clone(),
            });
        }
        for implementation in self.hierarchy.instantiable(internal) {
            let name = ClassName::internal(implementation);
            let Some(file) = self.program.class(&name) else {
                continue;
            };
            if !file.access_flags.is_public() || !nameable(self.program, &name) {
                continue;
            }
            for descriptor in public_constructors(file) {
                recipes.push(Recipe::New {
                    class: name.clone(),
                    descriptor,
                });
            }
        }
        for method in self.static_factories(class) {
            recipes.push(Recipe::Factory { method });
        }
        // Then other classes' factories (`Option.builder()` for an
        // `Option.Builder`), in class order.
        for method in self.factories_anywhere(class) {
            if method.class != *class {
                recipes.push(Recipe::Factory {
                    method: method.clone(),
                });
            }
        }
        // A lambda for a functional interface of the program's, after its
        // implementations.
        if let Some(method) = self.single_abstract_method(class) {
            recipes.push(Recipe::Lambda {
                interface: class.clone(),
                method,
            });
        }
        // Last, what other objects' methods return: the way in to a type
        // whose objects only another class makes; then what its own
        // objects' methods derive (a format with a header). Not for
        // `Object`, which half the program's methods return.
        if internal != "java/lang/Object" {
            for method in self.producers.get(class).into_iter().flatten() {
                recipes.push(Recipe::Produced {
                    method: method.clone(),
                });
            }
        }
        // A call that needs a JDK object testgen can only pass as null (a
        // `File`, a `URL`) nearly always throws: the other ways first.
        recipes.sort_by_key(needs_a_null_only_argument);
        recipes
    }

    /// `new class(...)` through the constructors of `class` that only code
    /// in its own package may call (package-private, protected), when the
    /// tests are in that `package`, and through all of them when the class
    /// itself is package-private.
    pub fn package_constructors(&self, class: &ClassName, package: &str) -> Vec<Recipe> {
        let Some(file) = self.program.class(class) else {
            return Vec::new();
        };
        let flags = file.access_flags;
        if class.package() != package
            || flags.contains(AccessFlags::ABSTRACT)
            || flags.contains(AccessFlags::INTERFACE)
            || !nameable(self.program, class)
        {
            return Vec::new();
        }
        let class_is_public = flags.is_public();
        file.methods
            .iter()
            .filter(|m| {
                let flags = m.access_flags;
                // Public ones of a public class are among the public ways.
                let public_way = class_is_public && flags.is_public();
                let hidden =
                    flags.contains(AccessFlags::PRIVATE) || flags.contains(AccessFlags::SYNTHETIC);
                !public_way && !hidden && m.name(file).is_ok_and(|n| n == "<init>")
            })
            .filter_map(|m| m.descriptor(file).ok())
            .map(|descriptor| Recipe::New {
                class: class.clone(),
                descriptor: descriptor.into_owned(),
            })
            .collect()
    }

    /// The one abstract method of `class` if it is a public functional
    /// interface of the program's (its own and its superinterfaces'
    /// abstract methods, `Object`'s aside, are one); `None` for a
    /// superinterface testgen cannot read, unless it is a marker
    /// (`Serializable`) or a JDK functional interface.
    fn single_abstract_method(&self, class: &ClassName) -> Option<MethodId> {
        let file = self.program.class(class)?;
        let flags = file.access_flags;
        if !flags.is_public()
            || !flags.contains(AccessFlags::INTERFACE)
            || flags.contains(AccessFlags::ANNOTATION)
        {
            return None;
        }
        let mut abstract_methods: BTreeMap<(String, String), MethodId> = BTreeMap::new();
        let mut defaults: Vec<(String, String)> = Vec::new();
        // Depth-first over the program's superinterfaces, each once.
        let mut pending = vec![class.clone()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(interface) = pending.pop() {
            if !seen.insert(interface.clone()) {
                continue;
            }
            let Some(file) = self.program.class(&interface) else {
                match interface.as_internal() {
                    "java/io/Serializable" | "java/lang/Cloneable" => continue,
                    _ => {
                        let method = jdk::functional(&interface)?;
                        abstract_methods
                            .insert((method.name.clone(), method.descriptor.clone()), method);
                        continue;
                    }
                }
            };
            for method in &file.methods {
                let flags = method.access_flags;
                if flags.is_static() {
                    continue;
                }
                let (Ok(name), Ok(descriptor)) = (method.name(file), method.descriptor(file))
                else {
                    return None;
                };
                let key = (name.into_owned(), descriptor.into_owned());
                if is_object_method(&key.0, &key.1) {
                    continue;
                }
                if flags.contains(AccessFlags::ABSTRACT) {
                    abstract_methods.entry(key.clone()).or_insert_with(|| {
                        MethodId::new(interface.clone(), key.0.clone(), key.1.clone())
                    });
                } else {
                    defaults.push(key);
                }
            }
            for parent in file.interface_names().ok()? {
                pending.push(ClassName::internal(parent.into_owned()));
            }
        }
        for key in defaults {
            abstract_methods.remove(&key);
        }
        let mut methods = abstract_methods.into_values();
        match (methods.next(), methods.next()) {
            (Some(method), None) => Some(method),
            _ => None,
        }
    }

    /// Public static methods of `class` that return a `class`, in
    /// class-file order (an enum's `valueOf` is a factory in form only).
    fn static_factories(&self, class: &ClassName) -> Vec<MethodId> {
        let Some(file) = self.program.class(class) else {
            return Vec::new();
        };
        if !file.access_flags.is_public() {
            return Vec::new();
        }
        let returns = format!("){}", class.descriptor());
        let is_enum = file.access_flags.contains(AccessFlags::ENUM);
        file.methods
            .iter()
            .filter(|m| m.access_flags.is_public() && m.access_flags.is_static())
            .filter(|m| !m.access_flags.contains(AccessFlags::SYNTHETIC))
            .filter_map(|m| {
                let name = m.name(file).ok()?.into_owned();
                let descriptor = m.descriptor(file).ok()?.into_owned();
                (descriptor.ends_with(&returns) && !(is_enum && name == "valueOf"))
                    .then(|| MethodId::new(class.clone(), name, descriptor))
            })
            .collect()
    }

    /// The public static final fields of `class` whose type is `class`
    /// itself, in declaration order; an enum's constants are not among them
    /// (they are a recipe of their own).
    fn static_constants(&self, class: &ClassName) -> Vec<String> {
        let Some(file) = self.program.class(class) else {
            return Vec::new();
        };
        if !file.access_flags.is_public() {
            return Vec::new();
        }
        let own_type = class.descriptor();
        file.fields
            .iter()
            .filter(|f| {
                let flags = f.access_flags;
                flags.is_public()
                    && flags.is_static()
                    && flags.contains(AccessFlags::FINAL)
                    && !flags.contains(AccessFlags::ENUM)
                    && !flags.contains(AccessFlags::SYNTHETIC)
            })
            .filter_map(|f| {
                let descriptor = f.descriptor(file).ok()?;
                (descriptor == own_type.as_str())
                    .then(|| f.name(file).ok().map(|n| n.into_owned()))?
            })
            .collect()
    }
}

/// Whether `recipe` calls a method or constructor with a parameter of a
/// JDK class the catalogue has no value of (so it only ever gets null).
fn needs_a_null_only_argument(recipe: &Recipe) -> bool {
    let descriptor = match recipe {
        Recipe::New { descriptor, .. } => descriptor.as_str(),
        Recipe::Factory { method } | Recipe::Produced { method } => method.descriptor.as_str(),
        _ => return false,
    };
    let Ok(parsed) = MethodDescriptor::parse(descriptor) else {
        return false;
    };
    parsed.parameters.iter().any(|parameter| match parameter {
        FieldType::Object(class) => {
            let jdk = class.starts_with("java/") || class.starts_with("javax/");
            jdk && *class != "java/lang/String"
                && *class != "java/lang/Object"
                && boxed_base(class).is_none()
                && jdk::recipes(&ClassName::internal(*class)).is_empty()
        }
        _ => false,
    })
}

/// Methods by the class they return, static ones (factories) and instance
/// ones of another class (producers)
type ByReturnedClass = BTreeMap<ClassName, Vec<MethodId>>;

/// Every public method of a public class that returns an object, by the
/// class it returns: static ones (factories, an enum's own `valueOf` aside)
/// and instance ones (producers; not constructors, not bridges), those of
/// a class other than the returned one first, then the class's own
/// (`format.withHeader(..)`, `builder.setName(..)`: a value derived from
/// another of its class). One pass over the program.
fn index_methods(program: &Program<'_>) -> (ByReturnedClass, ByReturnedClass) {
    let mut factories = ByReturnedClass::new();
    let mut producers = ByReturnedClass::new();
    let mut derivers = ByReturnedClass::new();
    for (name, file) in program.classes() {
        if !file.access_flags.is_public() || !nameable(program, name) {
            continue;
        }
        let is_enum = file.access_flags.contains(AccessFlags::ENUM);
        for method in &file.methods {
            let flags = method.access_flags;
            if !flags.is_public() || flags.contains(AccessFlags::SYNTHETIC) {
                continue;
            }
            let (Ok(method_name), Ok(descriptor)) = (method.name(file), method.descriptor(file))
            else {
                continue;
            };
            if method_name.starts_with('<') || (is_enum && method_name == "valueOf") {
                continue;
            }
            let Some(returned) = descriptor
                .rsplit_once(')')
                .and_then(|(_, ret)| ret.strip_prefix('L'))
                .and_then(|ret| ret.strip_suffix(';'))
            else {
                continue;
            };
            let returned = ClassName::internal(returned);
            let index = if flags.is_static() {
                &mut factories
            } else if returned != *name {
                &mut producers
            } else {
                &mut derivers
            };
            index.entry(returned).or_default().push(MethodId::new(
                name.clone(),
                method_name.into_owned(),
                descriptor.into_owned(),
            ));
        }
    }
    for (class, own) in derivers {
        producers.entry(class).or_default().extend(own);
    }
    (factories, producers)
}

/// The public instance methods of `class` (not constructors) whose
/// parameters flow into fields of `class`.
fn setters_of(class: &ClassName, access: &ClassAccess) -> Vec<Setter> {
    let mut by_method: BTreeMap<usize, Setter> = BTreeMap::new();
    let position = |name: &str, descriptor: &str| {
        access
            .methods()
            .iter()
            .position(|m| m.key.name == name && m.key.descriptor == descriptor)
    };
    for (field, writers) in access.written_fields() {
        if field.owner != class.as_internal() {
            continue;
        }
        for writer in writers {
            let flags = writer.access_flags;
            if !flags.is_public() || flags.is_static() || writer.method.is_constructor() {
                continue;
            }
            if writer.parameters.is_empty() {
                continue;
            }
            let Some(index) = position(&writer.method.name, &writer.method.descriptor) else {
                continue;
            };
            by_method
                .entry(index)
                .or_insert_with(|| Setter {
                    method: MethodId::new(
                        class.clone(),
                        writer.method.name.clone(),
                        writer.method.descriptor.clone(),
                    ),
                    fields: BTreeMap::new(),
                })
                .fields
                .insert(field.name.clone(), writer.parameters.clone());
        }
    }
    by_method.into_values().collect()
}

/// Whether a test can name `class` in Java source: each `$` of its name
/// separates a nested class from the class of the program it is declared
/// in (`Option$Builder`), not a `$` of the name itself (gson's
/// `$Gson$Types`), and no part is a number (an anonymous class).
pub fn nameable(program: &Program<'_>, class: &ClassName) -> bool {
    let internal = class.as_internal();
    let simple_start = internal.rfind('/').map_or(0, |slash| slash + 1);
    let simple = &internal[simple_start..];
    let parts: Vec<&str> = simple.split('$').collect();
    if parts
        .iter()
        .any(|part| part.is_empty() || part.starts_with(|c: char| c.is_ascii_digit()))
    {
        return false;
    }
    // Every name up to a `$` is a class of the program.
    let mut end = simple_start;
    for part in &parts[..parts.len() - 1] {
        end += part.len();
        if program
            .class(&ClassName::internal(&internal[..end]))
            .is_none()
        {
            return false;
        }
        end += 1;
    }
    true
}

/// A public method of `Object` an interface may redeclare, which a lambda
/// does not implement (`Comparator.equals`).
fn is_object_method(name: &str, descriptor: &str) -> bool {
    matches!(
        (name, descriptor),
        ("equals", "(Ljava/lang/Object;)Z")
            | ("hashCode", "()I")
            | ("toString", "()Ljava/lang/String;")
    )
}

/// Descriptors of a class's public constructors, in class-file order.
pub fn public_constructors(class: &ClassFile<'_>) -> Vec<String> {
    class
        .methods
        .iter()
        .filter(|m| m.access_flags.is_public() && m.name(class).is_ok_and(|n| n == "<init>"))
        .filter_map(|m| m.descriptor(class).ok().map(|d| d.into_owned()))
        .collect()
}

/// The primitive a wrapper class boxes.
pub fn boxed_base(internal: &str) -> Option<BaseType> {
    Some(match internal {
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
