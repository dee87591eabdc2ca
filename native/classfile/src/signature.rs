//! Generic signatures (JVMS 4.7.9.1): the types of classes, methods and
//! fields before erasure, as stored in `Signature` attributes.
//!
//! The parsers follow the JVMS grammar exactly, borrow every name from the
//! input, and render results in Java source syntax through [`fmt::Display`]
//! (`java.util.Map<K, ? extends java.util.List<V>>`).
//!
//! Types nest (type arguments, array components), so parsing recurses. To
//! keep hostile input from overflowing the stack, nesting deeper than
//! [`MAX_NESTING`] is an error; code that walks a parsed type recursively can
//! rely on that bound too.

use std::fmt;

use crate::descriptor::{write_internal_name, write_list, BaseType, Cursor};
use crate::error::ErrorKind;

/// Deepest nesting a signature may have, counting each array dimension and
/// each level of type arguments.
///
/// That admits a 255-dimension array (the JVMS maximum) of a generic class,
/// and far deeper generics than real code has. Recursing this deep (parsing,
/// `Display`, `Debug`, `Clone`, drop) takes about 1.2 MB of stack in an
/// unoptimized build and a quarter of that optimized, which fits the 2 MiB
/// Rust gives spawned threads.
pub const MAX_NESTING: usize = 256;

type Result<T> = std::result::Result<T, ErrorKind>;

/// `ClassSignature`: type parameters and supertypes of a class or interface.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClassSignature<'a> {
    pub type_parameters: Vec<TypeParameter<'a>>,
    pub superclass: ClassTypeSignature<'a>,
    pub interfaces: Vec<ClassTypeSignature<'a>>,
}

/// `MethodSignature`: the generic type of a method or constructor.
///
/// Its parameters need not match the descriptor's one to one: javac leaves
/// out synthetic and implicit parameters (such as the outer instance of an
/// inner class constructor).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodSignature<'a> {
    pub type_parameters: Vec<TypeParameter<'a>>,
    pub parameters: Vec<JavaTypeSignature<'a>>,
    /// `None` for `void`.
    pub return_type: Option<JavaTypeSignature<'a>>,
    pub throws: Vec<ThrowsSignature<'a>>,
}

/// `TypeParameter`, such as `T extends Number & Comparable<T>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TypeParameter<'a> {
    pub name: &'a str,
    /// Empty when the first bound is an interface (`T::Ljava/lang/Comparable;`).
    pub class_bound: Option<ReferenceTypeSignature<'a>>,
    pub interface_bounds: Vec<ReferenceTypeSignature<'a>>,
}

/// `JavaTypeSignature`: any type a value can have.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JavaTypeSignature<'a> {
    Base(BaseType),
    Reference(ReferenceTypeSignature<'a>),
}

/// `ReferenceTypeSignature`; also what a field's signature is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReferenceTypeSignature<'a> {
    Class(ClassTypeSignature<'a>),
    /// The name of a type variable, e.g. `T`.
    TypeVariable(&'a str),
    /// One array dimension around the component type.
    Array(Box<JavaTypeSignature<'a>>),
}

/// `ClassTypeSignature`, such as `java/util/Map<TK;TV;>.Entry<TK;TV;>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClassTypeSignature<'a> {
    /// The package in internal form with its trailing slash (`"java/util/"`),
    /// or `""` for the unnamed package.
    pub package: &'a str,
    /// The top-level class, or the outermost one written with `$` in its name
    /// (`Map$Entry`).
    pub simple: SimpleClassTypeSignature<'a>,
    /// Inner classes of a parameterized class: `.Entry<...>`.
    pub suffixes: Vec<SimpleClassTypeSignature<'a>>,
}

/// `SimpleClassTypeSignature`: a class name with its type arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SimpleClassTypeSignature<'a> {
    pub name: &'a str,
    /// Empty for a raw or non-generic class.
    pub type_arguments: Vec<TypeArgument<'a>>,
}

/// `TypeArgument`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TypeArgument<'a> {
    /// `*`: `?`
    Any,
    /// No wildcard indicator: `T`
    Exact(ReferenceTypeSignature<'a>),
    /// `+`: `? extends T`
    Extends(ReferenceTypeSignature<'a>),
    /// `-`: `? super T`
    Super(ReferenceTypeSignature<'a>),
}

/// `ThrowsSignature`: an exception a method declares.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ThrowsSignature<'a> {
    Class(ClassTypeSignature<'a>),
    TypeVariable(&'a str),
}

impl<'a> ClassSignature<'a> {
    /// Parses a whole `ClassSignature`, e.g.
    /// `<E:Ljava/lang/Object;>Ljava/lang/Object;Ljava/util/List<TE;>;`.
    pub fn parse(text: &'a str) -> Result<Self> {
        let mut parser = Parser::new(text, "class signature");
        let type_parameters = parser.type_parameters()?;
        let superclass = parser.class_type("expected 'L' to start the superclass")?;
        let mut interfaces = Vec::new();
        while !parser.cursor.at_end() {
            interfaces.push(parser.class_type("expected 'L' to start an interface")?);
        }
        Ok(ClassSignature {
            type_parameters,
            superclass,
            interfaces,
        })
    }
}

impl<'a> MethodSignature<'a> {
    /// Parses a whole `MethodSignature`, e.g.
    /// `<T:Ljava/lang/Object;>(Ljava/util/List<+TT;>;)TT;^Ljava/io/IOException;`.
    pub fn parse(text: &'a str) -> Result<Self> {
        let mut parser = Parser::new(text, "method signature");
        let type_parameters = parser.type_parameters()?;
        parser
            .cursor
            .expect(b'(', "expected '(' before the parameters")?;
        let mut parameters = Vec::new();
        while !parser.cursor.eat(b')') {
            if parser.cursor.at_end() {
                return Err(parser.cursor.error("expected ')' after the parameters"));
            }
            parameters.push(parser.java_type()?);
        }
        let return_type = if parser.cursor.eat(b'V') {
            None
        } else {
            Some(parser.java_type()?)
        };
        let mut throws = Vec::new();
        while !parser.cursor.at_end() {
            parser
                .cursor
                .expect(b'^', "expected '^' before a thrown type")?;
            throws.push(match parser.cursor.peek() {
                Some(b'T') => ThrowsSignature::TypeVariable(parser.type_variable()?),
                _ => ThrowsSignature::Class(parser.class_type("expected 'L' or 'T' after '^'")?),
            });
        }
        Ok(MethodSignature {
            type_parameters,
            parameters,
            return_type,
            throws,
        })
    }

    /// Renders the method as a Java declaration without modifiers, e.g.
    /// `<T> T first(java.util.List<? extends T>) throws java.io.IOException`.
    pub fn display_with_name<'b>(&'b self, name: &'b str) -> impl fmt::Display + 'b {
        DisplayMethod {
            signature: self,
            name,
        }
    }
}

impl<'a> ReferenceTypeSignature<'a> {
    /// Parses a whole `FieldSignature` (which is a `ReferenceTypeSignature`),
    /// e.g. `Ljava/util/Map<TK;TV;>;`.
    pub fn parse_field_signature(text: &'a str) -> Result<Self> {
        let mut parser = Parser::new(text, "field signature");
        let signature = parser.reference_type()?;
        parser.cursor.finish()?;
        Ok(signature)
    }
}

impl ClassTypeSignature<'_> {
    /// True for plain `java.lang.Object`, the bound javac writes for a type
    /// parameter declared without one.
    fn is_object(&self) -> bool {
        self.package == "java/lang/"
            && self.simple.name == "Object"
            && self.simple.type_arguments.is_empty()
            && self.suffixes.is_empty()
    }
}

/// Recursive-descent parser, one method per grammar rule.
struct Parser<'a> {
    cursor: Cursor<'a>,
    /// Current nesting, as counted for [`MAX_NESTING`].
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, what: &'static str) -> Self {
        Parser {
            cursor: Cursor::new(text, what),
            depth: 0,
        }
    }

    /// Goes `levels` deeper into a type, failing if that is too deep. Every
    /// call that succeeds is paired with a [`leave`](Self::leave).
    fn enter(&mut self, levels: usize) -> Result<()> {
        self.depth += levels;
        if self.depth > MAX_NESTING {
            return Err(self.cursor.error("types nested too deeply"));
        }
        Ok(())
    }

    fn leave(&mut self, levels: usize) {
        self.depth -= levels;
    }

    /// Identifier: one or more characters other than `. ; [ / < > :`.
    fn identifier(&mut self, reason_if_empty: &'static str) -> Result<&'a str> {
        let name = self
            .cursor
            .take_until(|b| matches!(b, b'.' | b';' | b'[' | b'/' | b'<' | b'>' | b':'));
        if name.is_empty() {
            return Err(self.cursor.error(reason_if_empty));
        }
        Ok(name)
    }

    /// TypeParameters, if present: `<` TypeParameter {TypeParameter} `>`
    fn type_parameters(&mut self) -> Result<Vec<TypeParameter<'a>>> {
        let mut parameters = Vec::new();
        if self.cursor.eat(b'<') {
            loop {
                parameters.push(self.type_parameter()?);
                if self.cursor.eat(b'>') {
                    break;
                }
            }
        }
        Ok(parameters)
    }

    /// TypeParameter: Identifier ClassBound {InterfaceBound}
    fn type_parameter(&mut self) -> Result<TypeParameter<'a>> {
        let name = self.identifier("expected a type parameter name")?;
        self.cursor
            .expect(b':', "expected ':' after a type parameter name")?;
        // The class bound is optional and an identifier may start with any
        // letter, so `<T:LFoo...` is ambiguous; like ASM, read a bound whenever
        // one can start here.
        let class_bound = match self.cursor.peek() {
            Some(b'L' | b'T' | b'[') => Some(self.reference_type()?),
            _ => None,
        };
        let mut interface_bounds = Vec::new();
        while self.cursor.eat(b':') {
            interface_bounds.push(self.reference_type()?);
        }
        Ok(TypeParameter {
            name,
            class_bound,
            interface_bounds,
        })
    }

    /// JavaTypeSignature: ReferenceTypeSignature | BaseType
    fn java_type(&mut self) -> Result<JavaTypeSignature<'a>> {
        match self.cursor.base_type() {
            Some(base) => Ok(JavaTypeSignature::Base(base)),
            None if self.cursor.peek() == Some(b'V') => {
                Err(self.cursor.error("void is only allowed as a return type"))
            }
            None => Ok(JavaTypeSignature::Reference(self.reference_type()?)),
        }
    }

    /// ReferenceTypeSignature: ClassTypeSignature | TypeVariableSignature |
    /// ArrayTypeSignature
    fn reference_type(&mut self) -> Result<ReferenceTypeSignature<'a>> {
        match self.cursor.peek() {
            Some(b'L') => Ok(ReferenceTypeSignature::Class(
                self.class_type("expected 'L'")?,
            )),
            Some(b'T') => Ok(ReferenceTypeSignature::TypeVariable(self.type_variable()?)),
            Some(b'[') => self.array_type(),
            Some(_) => Err(self.cursor.error("expected a type")),
            None => Err(self.cursor.error("unexpected end, expected a type")),
        }
    }

    /// ClassTypeSignature:
    /// `L [PackageSpecifier] SimpleClassTypeSignature {ClassTypeSignatureSuffix} ;`
    fn class_type(&mut self, reason_if_not_class: &'static str) -> Result<ClassTypeSignature<'a>> {
        if !self.cursor.eat(b'L') {
            return Err(self.cursor.error(reason_if_not_class));
        }
        // PackageSpecifier: each identifier followed by '/' is a package part.
        let package_start = self.cursor.position();
        let (package, name) = loop {
            let part_start = self.cursor.position();
            let part = self.identifier("expected a class or package name")?;
            if !self.cursor.eat(b'/') {
                break (self.cursor.slice(package_start, part_start), part);
            }
        };
        let simple = SimpleClassTypeSignature {
            name,
            type_arguments: self.type_arguments()?,
        };
        let mut suffixes = Vec::new();
        while self.cursor.eat(b'.') {
            let name = self.identifier("expected an inner class name after '.'")?;
            suffixes.push(SimpleClassTypeSignature {
                name,
                type_arguments: self.type_arguments()?,
            });
        }
        self.cursor
            .expect(b';', "expected ';' at the end of a class type")?;
        Ok(ClassTypeSignature {
            package,
            simple,
            suffixes,
        })
    }

    /// TypeArguments, if present: `<` TypeArgument {TypeArgument} `>`
    fn type_arguments(&mut self) -> Result<Vec<TypeArgument<'a>>> {
        let mut arguments = Vec::new();
        if !self.cursor.eat(b'<') {
            return Ok(arguments);
        }
        self.enter(1)?;
        loop {
            // TypeArgument: [WildcardIndicator] ReferenceTypeSignature | `*`
            let argument = if self.cursor.eat(b'*') {
                TypeArgument::Any
            } else if self.cursor.eat(b'+') {
                TypeArgument::Extends(self.reference_type()?)
            } else if self.cursor.eat(b'-') {
                TypeArgument::Super(self.reference_type()?)
            } else if self.cursor.peek() == Some(b'>') {
                return Err(self.cursor.error("empty type argument list"));
            } else {
                TypeArgument::Exact(self.reference_type()?)
            };
            arguments.push(argument);
            if self.cursor.eat(b'>') {
                self.leave(1);
                return Ok(arguments);
            }
        }
    }

    /// TypeVariableSignature: `T` Identifier `;`
    fn type_variable(&mut self) -> Result<&'a str> {
        self.cursor.expect(b'T', "expected 'T'")?;
        let name = self.identifier("expected a type variable name")?;
        self.cursor
            .expect(b';', "expected ';' after a type variable name")?;
        Ok(name)
    }

    /// ArrayTypeSignature: `[` JavaTypeSignature
    ///
    /// All dimensions are read in a loop, so only the component type recurses.
    fn array_type(&mut self) -> Result<ReferenceTypeSignature<'a>> {
        let dimensions = self.cursor.array_dimensions()?;
        self.enter(usize::from(dimensions))?;
        let component = self.java_type()?;
        self.leave(usize::from(dimensions));
        let mut array = ReferenceTypeSignature::Array(Box::new(component));
        for _ in 1..dimensions {
            array = ReferenceTypeSignature::Array(Box::new(JavaTypeSignature::Reference(array)));
        }
        Ok(array)
    }
}

/// Renders `<K, V extends java.lang.Number> extends java.util.AbstractMap<K, V>
/// implements java.util.Map<K, V>`: the part of a class declaration after its
/// name. For an interface, the interfaces are the ones it extends, and the
/// superclass is `java.lang.Object`.
impl fmt::Display for ClassSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.type_parameters.is_empty() {
            write_list(f, "<", &self.type_parameters, "> ")?;
        }
        write!(f, "extends {}", self.superclass)?;
        if !self.interfaces.is_empty() {
            write_list(f, " implements ", &self.interfaces, "")?;
        }
        Ok(())
    }
}

/// Renders as `<T> T(java.util.List<? extends T>) throws java.io.IOException`,
/// the declaration minus the name.
impl fmt::Display for MethodSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display_with_name("").fmt(f)
    }
}

struct DisplayMethod<'b, 'a> {
    signature: &'b MethodSignature<'a>,
    name: &'b str,
}

impl fmt::Display for DisplayMethod<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let signature = self.signature;
        if !signature.type_parameters.is_empty() {
            write_list(f, "<", &signature.type_parameters, "> ")?;
        }
        match &signature.return_type {
            Some(return_type) => return_type.fmt(f)?,
            None => f.write_str("void")?,
        }
        if !self.name.is_empty() {
            write!(f, " {}", self.name)?;
        }
        write_list(f, "(", &signature.parameters, ")")?;
        if !signature.throws.is_empty() {
            write_list(f, " throws ", &signature.throws, "")?;
        }
        Ok(())
    }
}

/// Renders as `T extends java.lang.Number & java.lang.Comparable<T>`, or just
/// `T` when the only bound is `java.lang.Object` (as for `<T>` in source).
impl fmt::Display for TypeParameter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        let bounds = self.class_bound.iter().chain(&self.interface_bounds);
        let only_object = self.interface_bounds.is_empty()
            && matches!(&self.class_bound, Some(ReferenceTypeSignature::Class(c)) if c.is_object());
        if only_object {
            return Ok(());
        }
        for (i, bound) in bounds.enumerate() {
            f.write_str(if i == 0 { " extends " } else { " & " })?;
            bound.fmt(f)?;
        }
        Ok(())
    }
}

impl fmt::Display for JavaTypeSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JavaTypeSignature::Base(base) => base.fmt(f),
            JavaTypeSignature::Reference(reference) => reference.fmt(f),
        }
    }
}

impl fmt::Display for ReferenceTypeSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReferenceTypeSignature::Class(class) => class.fmt(f),
            ReferenceTypeSignature::TypeVariable(name) => f.write_str(name),
            ReferenceTypeSignature::Array(component) => write!(f, "{component}[]"),
        }
    }
}

/// Renders as `java.util.Map<K, V>.Entry<K, V>`; a `$` in a name stays, as
/// only the InnerClasses attribute can tell whether it marks nesting.
impl fmt::Display for ClassTypeSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_internal_name(f, self.package)?;
        self.simple.fmt(f)?;
        for suffix in &self.suffixes {
            write!(f, ".{suffix}")?;
        }
        Ok(())
    }
}

impl fmt::Display for SimpleClassTypeSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)?;
        if !self.type_arguments.is_empty() {
            write_list(f, "<", &self.type_arguments, ">")?;
        }
        Ok(())
    }
}

impl fmt::Display for TypeArgument<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TypeArgument::Any => f.write_str("?"),
            TypeArgument::Exact(bound) => bound.fmt(f),
            TypeArgument::Extends(bound) => write!(f, "? extends {bound}"),
            TypeArgument::Super(bound) => write!(f, "? super {bound}"),
        }
    }
}

impl fmt::Display for ThrowsSignature<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ThrowsSignature::Class(class) => class.fmt(f),
            ThrowsSignature::TypeVariable(name) => f.write_str(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(package: &'static str, name: &'static str) -> ClassTypeSignature<'static> {
        generic(package, name, Vec::new())
    }

    fn generic(
        package: &'static str,
        name: &'static str,
        type_arguments: Vec<TypeArgument<'static>>,
    ) -> ClassTypeSignature<'static> {
        ClassTypeSignature {
            package,
            simple: SimpleClassTypeSignature {
                name,
                type_arguments,
            },
            suffixes: Vec::new(),
        }
    }

    fn object() -> ReferenceTypeSignature<'static> {
        ReferenceTypeSignature::Class(class("java/lang/", "Object"))
    }

    fn variable(name: &'static str) -> ReferenceTypeSignature<'static> {
        ReferenceTypeSignature::TypeVariable(name)
    }

    fn reason<T: fmt::Debug>(result: Result<T>) -> &'static str {
        match result {
            Err(ErrorKind::BadSignature { reason, .. }) => reason,
            other => panic!("expected a BadSignature error, got {other:?}"),
        }
    }

    fn field(text: &str) -> String {
        match ReferenceTypeSignature::parse_field_signature(text) {
            Ok(signature) => signature.to_string(),
            Err(error) => panic!("{error}"),
        }
    }

    fn method(text: &str) -> String {
        match MethodSignature::parse(text) {
            Ok(signature) => signature.to_string(),
            Err(error) => panic!("{error}"),
        }
    }

    fn class_signature(text: &str) -> String {
        match ClassSignature::parse(text) {
            Ok(signature) => signature.to_string(),
            Err(error) => panic!("{error}"),
        }
    }

    #[test]
    fn generic_method() {
        let text = "<T:Ljava/lang/Object;>(Ljava/util/List<+TT;>;)TT;^Ljava/io/IOException;";
        assert_eq!(
            MethodSignature::parse(text),
            Ok(MethodSignature {
                type_parameters: vec![TypeParameter {
                    name: "T",
                    class_bound: Some(object()),
                    interface_bounds: Vec::new(),
                }],
                parameters: vec![JavaTypeSignature::Reference(ReferenceTypeSignature::Class(
                    generic(
                        "java/util/",
                        "List",
                        vec![TypeArgument::Extends(variable("T"))]
                    )
                ))],
                return_type: Some(JavaTypeSignature::Reference(variable("T"))),
                throws: vec![ThrowsSignature::Class(class("java/io/", "IOException"))],
            })
        );
        assert_eq!(
            method(text),
            "<T> T(java.util.List<? extends T>) throws java.io.IOException"
        );
        let signature = MethodSignature::parse(text).unwrap();
        assert_eq!(
            signature.display_with_name("first").to_string(),
            "<T> T first(java.util.List<? extends T>) throws java.io.IOException"
        );
    }

    #[test]
    fn generic_class() {
        let text = "<K:Ljava/lang/Object;V:Ljava/lang/Object;>\
                    Ljava/util/AbstractMap<TK;TV;>;Ljava/util/Map<TK;TV;>;";
        let k_v = || {
            vec![
                TypeArgument::Exact(variable("K")),
                TypeArgument::Exact(variable("V")),
            ]
        };
        assert_eq!(
            ClassSignature::parse(text),
            Ok(ClassSignature {
                type_parameters: ["K", "V"]
                    .map(|name| TypeParameter {
                        name,
                        class_bound: Some(object()),
                        interface_bounds: Vec::new(),
                    })
                    .to_vec(),
                superclass: generic("java/util/", "AbstractMap", k_v()),
                interfaces: vec![generic("java/util/", "Map", k_v())],
            })
        );
        assert_eq!(
            class_signature(text),
            "<K, V> extends java.util.AbstractMap<K, V> implements java.util.Map<K, V>"
        );
    }

    #[test]
    fn enum_class() {
        let text = "<E:Ljava/lang/Enum<TE;>;>Ljava/lang/Object;\
                    Ljava/lang/Comparable<TE;>;Ljava/io/Serializable;";
        let signature = ClassSignature::parse(text).unwrap();
        assert_eq!(signature.interfaces.len(), 2);
        assert_eq!(
            signature.type_parameters[0].class_bound,
            Some(ReferenceTypeSignature::Class(generic(
                "java/lang/",
                "Enum",
                vec![TypeArgument::Exact(variable("E"))]
            )))
        );
        assert_eq!(
            signature.to_string(),
            "<E extends java.lang.Enum<E>> extends java.lang.Object \
             implements java.lang.Comparable<E>, java.io.Serializable"
        );
    }

    #[test]
    fn inner_class_of_generic_class() {
        let text = "Ljava/util/Map<Ljava/lang/String;Ljava/util/List<[I>;>.Entry<*>;";
        let ReferenceTypeSignature::Class(signature) =
            ReferenceTypeSignature::parse_field_signature(text).unwrap()
        else {
            panic!("not a class type");
        };
        assert_eq!(signature.package, "java/util/");
        assert_eq!(signature.simple.name, "Map");
        assert_eq!(signature.simple.type_arguments.len(), 2);
        assert_eq!(
            signature.suffixes,
            vec![SimpleClassTypeSignature {
                name: "Entry",
                type_arguments: vec![TypeArgument::Any],
            }]
        );
        assert_eq!(
            signature.to_string(),
            "java.util.Map<java.lang.String, java.util.List<int[]>>.Entry<?>"
        );
        assert_eq!(
            field("Lcom/Outer<TT;>.Middle.Inner<TU;>;"),
            "com.Outer<T>.Middle.Inner<U>"
        );
    }

    #[test]
    fn empty_class_bound() {
        let text = "<T::Ljava/lang/Comparable<TT;>;>(TT;)V";
        let signature = MethodSignature::parse(text).unwrap();
        let parameter = &signature.type_parameters[0];
        assert_eq!(parameter.class_bound, None);
        assert_eq!(parameter.interface_bounds.len(), 1);
        assert_eq!(signature.return_type, None);
        assert_eq!(
            signature.to_string(),
            "<T extends java.lang.Comparable<T>> void(T)"
        );

        let text = "<T:Ljava/lang/Number;:Ljava/lang/Comparable<-TT;>;:Ljava/io/Serializable;>()V";
        let signature = MethodSignature::parse(text).unwrap();
        assert_eq!(signature.type_parameters[0].interface_bounds.len(), 2);
        assert_eq!(
            signature.to_string(),
            "<T extends java.lang.Number & java.lang.Comparable<? super T> & java.io.Serializable> void()"
        );
        // A bound that is a type variable, and a type parameter with no bound at all.
        assert_eq!(
            method("<T:Ljava/lang/Object;U:TT;>()V"),
            "<T, U extends T> void()"
        );
        assert_eq!(
            MethodSignature::parse("<T:>()V").unwrap().type_parameters[0],
            TypeParameter {
                name: "T",
                class_bound: None,
                interface_bounds: Vec::new(),
            }
        );
    }

    #[test]
    fn arrays_and_base_types() {
        assert_eq!(
            ReferenceTypeSignature::parse_field_signature("[[TT;"),
            Ok(ReferenceTypeSignature::Array(Box::new(
                JavaTypeSignature::Reference(ReferenceTypeSignature::Array(Box::new(
                    JavaTypeSignature::Reference(variable("T"))
                )))
            )))
        );
        assert_eq!(field("[[TT;"), "T[][]");
        assert_eq!(field("[J"), "long[]");
        assert_eq!(
            field("[Ljava/util/Map$Entry<**>;"),
            "java.util.Map$Entry<?, ?>[]"
        );
        assert_eq!(
            method("(IJ[[Ljava/lang/String;)V"),
            "void(int, long, java.lang.String[][])"
        );
        assert_eq!(method("()[[D"), "double[][]()");
        // 255 dimensions, as JVMS allows, around a generic type.
        let deep = format!("{}Ljava/util/List<TT;>;", "[".repeat(255));
        let shown = field(&deep);
        assert!(shown.starts_with("java.util.List<T>[][]"));
        assert_eq!(shown.matches("[]").count(), 255);
        assert_eq!(
            reason(ReferenceTypeSignature::parse_field_signature(&format!(
                "{}I",
                "[".repeat(256)
            ))),
            "array has more than 255 dimensions"
        );
    }

    #[test]
    fn throws_type_variable() {
        let text = "<X:Ljava/lang/Throwable;>(Ljava/util/function/Supplier<+TX;>;)J^TX;";
        let signature = MethodSignature::parse(text).unwrap();
        assert_eq!(signature.throws, vec![ThrowsSignature::TypeVariable("X")]);
        assert_eq!(
            signature.to_string(),
            "<X extends java.lang.Throwable> long(java.util.function.Supplier<? extends X>) throws X"
        );
        assert_eq!(
            method("()V^Ljava/io/IOException;^TE;"),
            "void() throws java.io.IOException, E"
        );
    }

    #[test]
    fn unusual_identifiers() {
        // JVM names may hold almost anything: Scala operators, Kotlin
        // backticked names, non-ASCII letters, a class in no package.
        assert_eq!(
            field("Lscala/collection/immutable/$colon$colon<TA;>;"),
            "scala.collection.immutable.$colon$colon<A>"
        );
        assert_eq!(field("LFoo<Tmy type-var;>;"), "Foo<my type-var>");
        assert_eq!(field("Lcom/exämple/Größe<TÄ;>;"), "com.exämple.Größe<Ä>");
        assert_eq!(
            ReferenceTypeSignature::parse_field_signature("LFoo;"),
            Ok(ReferenceTypeSignature::Class(class("", "Foo")))
        );
        assert_eq!(
            method("<Tin(put):Ljava/lang/Object;>()V"),
            "<Tin(put)> void()"
        );
    }

    /// Signatures printed by `javap -v` for classes of the JDK (java.base),
    /// Guava, Groovy, Apache Commons and ASM, plus a few from kotlinc and
    /// scalac output.
    #[test]
    fn real_signatures() {
        let classes = [
            "<K:Ljava/lang/Object;V:Ljava/lang/Object;>Ljava/lang/Object;Ljava/util/Map<TK;TV;>;Ljava/io/Serializable;",
            "Ljava/lang/Enum<Lcom/google/common/hash/Funnels$IntegerFunnel;>;Lcom/google/common/hash/Funnel<Ljava/lang/Integer;>;",
            "Lorg/apache/commons/collections4/bidimap/TreeBidiMap<TK;TV;>.View<TV;>;",
            "Lorg/apache/commons/collections4/bidimap/TreeBidiMap<TK;TV;>.ViewIterator;Lorg/apache/commons/collections4/OrderedMapIterator<TV;TK;>;",
            "<E:Ljava/lang/Object;>Lcom/google/common/collect/ForwardingCollection<TE;>;Ljava/util/Set<TE;>;",
            "<C::Ljava/lang/Comparable;>Ljava/lang/Object;Ljava/io/Serializable;",
            "Ljava/lang/Object;Ljava/security/PrivilegedExceptionAction<Ljava/lang/Class;>;",
            "<E:Ljava/lang/Enum<TE;>;>Lcom/google/common/collect/AbstractMultiset<TE;>;Ljava/io/Serializable;",
            "Lcom/google/common/collect/MapMakerInternalMap<TK;TV;TE;TS;>.HashIterator<TK;>;",
            "<V::Lorg/objectweb/asm/tree/analysis/Value;>Ljava/lang/Object;Lorg/objectweb/asm/Opcodes;",
            "<F::Ljava/lang/invoke/TypeDescriptor$OfField<TF;>;M::Ljava/lang/invoke/TypeDescriptor$OfMethod<TF;TM;>;>Ljava/lang/Object;Ljava/lang/invoke/TypeDescriptor;",
            "<T:Ljava/lang/Object;>Ljava/lang/Object;Lorg/apache/commons/collections4/functors/PredicateDecorator<TT;>;Ljava/io/Serializable;",
            "Lkotlin/jvm/internal/Lambda;Lkotlin/jvm/functions/Function1<Ljava/lang/String;Lkotlin/Unit;>;",
            "<A:Ljava/lang/Object;>Lscala/collection/AbstractSeq<TA;>;Lscala/collection/immutable/LinearSeq<TA;>;Lscala/Product;Lscala/collection/generic/GenericTraversableTemplate<TA;Lscala/collection/immutable/List;>;",
        ];
        let methods = [
            "(Ljava/util/Collection<Ljava/lang/Long;>;)Lcom/google/common/primitives/ImmutableLongArray$Builder;",
            "<X:Ljava/lang/Throwable;V:Ljava/lang/Object;>(Lcom/google/common/util/concurrent/ListenableFuture<+TV;>;Ljava/lang/Class<TX;>;Lcom/google/common/util/concurrent/AsyncFunction<-TX;+TV;>;Ljava/util/concurrent/Executor;)Lcom/google/common/util/concurrent/ListenableFuture<TV;>;",
            "()Lcom/google/common/collect/ImmutableList<Lcom/google/common/reflect/TypeToken<-TT;>;>;",
            "(Ljava/util/Map<Ljava/lang/Object;Ljava/lang/Object;>;Ljava/lang/Class;[Ljava/lang/Class;Ljava/lang/ClassLoader;ZLjava/lang/Class;)V",
            "(Lcom/google/common/util/concurrent/ClosingFuture<*>;)Lcom/google/common/util/concurrent/FluentFuture<*>;",
            "<T:Ljava/lang/Object;>(Ljava/lang/Class<TT;>;)Ljava/lang/Class<TT;>;",
            "(Lcom/google/common/collect/ImmutableSet$Builder<TE;>;)Lcom/google/common/collect/ImmutableSortedSet$Builder<TE;>;",
            "(TO1;TO2;)Z^TT;",
            "<NoSuchMemberException:Ljava/lang/ReflectiveOperationException;>(BLjava/lang/invoke/MemberName;Ljava/lang/Class<*>;ILjava/lang/Class<TNoSuchMemberException;>;)Ljava/lang/invoke/MemberName;^Ljava/lang/IllegalAccessException;^TNoSuchMemberException;",
            "<T:Ljava/lang/Object;:Ljava/lang/Comparable<-TT;>;>(Ljava/util/Set<TT;>;Ljava/util/Set<TT;>;)I",
            "<S:Ljava/net/SocketImpl;:Lsun/net/PlatformSocketImpl;>(Z)TS;",
            "<VOUT:Ljdk/internal/vm/vector/VectorSupport$VectorPayload;VIN:Ljdk/internal/vm/vector/VectorSupport$VectorPayload;S:Ljdk/internal/vm/vector/VectorSupport$VectorSpecies<*>;>(ILjava/lang/Class<*>;Ljava/lang/Class<*>;ILjava/lang/Class<*>;Ljava/lang/Class<*>;ITVIN;TS;Ljdk/internal/vm/vector/VectorSupport$VectorConvertOp<TVOUT;TVIN;TS;>;)TVOUT;",
            "<T:Ljava/lang/Object;K:Ljava/lang/Object;U:Ljava/lang/Object;>(Ljava/util/function/Function<-TT;+TK;>;Ljava/util/function/Function<-TT;+TU;>;)Ljava/util/stream/Collector<TT;*Ljava/util/Map<TK;TU;>;>;",
            "(Ljava/lang/String;Lkotlin/coroutines/Continuation<-Lkotlin/Unit;>;)Ljava/lang/Object;",
            "<B:Ljava/lang/Object;That:Ljava/lang/Object;>(Lscala/Function1<TA;TB;>;Lscala/collection/generic/CanBuildFrom<Lscala/collection/immutable/List<TA;>;TB;TThat;>;)TThat;",
        ];
        let fields = [
            "[Ljava/util/Map$Entry<**>;",
            "Lcom/google/common/collect/ImmutableSet<Ljava/util/Map$Entry<TK;TV;>;>;",
            "[[TV;",
            "Lcom/google/common/cache/CacheLoader<-TK;TV;>;",
            "Lcom/google/common/collect/ImmutableList<Lcom/google/common/collect/ImmutableSet<TE;>;>;",
            "Lcom/google/common/collect/ImmutableMap<*TV;>;",
            "[Lcom/google/common/collect/HashBiMap$BiEntry<TK;TV;>;",
            "Ljava/lang/ThreadLocal<Ljava/lang/ref/SoftReference<[Ljava/lang/Object;>;>;",
            "Lkotlin/jvm/functions/Function2<-Lkotlinx/coroutines/CoroutineScope;-Lkotlin/coroutines/Continuation<-TT;>;+Ljava/lang/Object;>;",
            "Lscala/Function1<Ljava/lang/Object;Lscala/runtime/BoxedUnit;>;",
        ];
        for text in classes {
            assert!(ClassSignature::parse(text).is_ok(), "{text}");
        }
        for text in methods {
            assert!(MethodSignature::parse(text).is_ok(), "{text}");
        }
        for text in fields {
            assert!(
                ReferenceTypeSignature::parse_field_signature(text).is_ok(),
                "{text}"
            );
        }
        // Rendering agrees with javap's.
        assert_eq!(
            field("Lcom/google/common/cache/CacheLoader<-TK;TV;>;"),
            "com.google.common.cache.CacheLoader<? super K, V>"
        );
        assert_eq!(
            method(methods[12]),
            "<T, K, U> java.util.stream.Collector<T, ?, java.util.Map<K, U>>(\
             java.util.function.Function<? super T, ? extends K>, \
             java.util.function.Function<? super T, ? extends U>)"
        );
    }

    #[test]
    fn errors() {
        let fields = [
            ("", "unexpected end, expected a type"),
            ("I", "expected a type"),
            (
                "Ljava/lang/String",
                "expected ';' at the end of a class type",
            ),
            ("Ljava/lang/String;;", "unexpected characters after the end"),
            ("L;", "expected a class or package name"),
            ("L/Foo;", "expected a class or package name"),
            ("Ljava//Foo;", "expected a class or package name"),
            ("Ljava/util/;", "expected a class or package name"),
            ("Ljava/util/List<>;", "empty type argument list"),
            ("Ljava/util/List<TT;", "unexpected end, expected a type"),
            (
                "Ljava/util/List<TT;>",
                "expected ';' at the end of a class type",
            ),
            ("Ljava/util/List<I>;", "expected a type"),
            ("Ljava/util/List<+>;", "expected a type"),
            ("Ljava/util/List<**", "unexpected end, expected a type"),
            ("LFoo<TT;>.;", "expected an inner class name after '.'"),
            ("LFoo<TT;>.<TT;>;", "expected an inner class name after '.'"),
            ("LFoo:Bar;", "expected ';' at the end of a class type"),
            ("T;", "expected a type variable name"),
            ("TT", "expected ';' after a type variable name"),
            ("TT/U;", "expected ';' after a type variable name"),
            ("[", "unexpected end, expected a type"),
            ("[V", "void is only allowed as a return type"),
        ];
        for (text, expected) in fields {
            let result = ReferenceTypeSignature::parse_field_signature(text);
            assert_eq!(reason(result), expected, "{text:?}");
        }
        let methods = [
            ("", "expected '(' before the parameters"),
            ("V", "expected '(' before the parameters"),
            ("(", "expected ')' after the parameters"),
            ("()", "unexpected end, expected a type"),
            ("(V)V", "void is only allowed as a return type"),
            ("()VV", "expected '^' before a thrown type"),
            ("()V^", "expected 'L' or 'T' after '^'"),
            ("()V^I", "expected 'L' or 'T' after '^'"),
            (
                "()V^[Ljava/lang/Exception;",
                "expected 'L' or 'T' after '^'",
            ),
            ("<>()V", "expected a type parameter name"),
            ("<T>()V", "expected ':' after a type parameter name"),
            (
                "<T:Ljava/lang/Object;()V",
                "expected ':' after a type parameter name",
            ),
            ("<T:Ljava/lang/Object;", "expected a type parameter name"),
            ("<:Ljava/lang/Object;>()V", "expected a type parameter name"),
            ("<T::>()V", "expected a type"),
        ];
        for (text, expected) in methods {
            assert_eq!(reason(MethodSignature::parse(text)), expected, "{text:?}");
        }
        let classes = [
            ("", "expected 'L' to start the superclass"),
            (
                "<T:Ljava/lang/Object;>",
                "expected 'L' to start the superclass",
            ),
            ("TT;", "expected 'L' to start the superclass"),
            (
                "Ljava/lang/Object;TT;",
                "expected 'L' to start an interface",
            ),
            (
                "Ljava/lang/Object;Ljava/util/List<TE;>",
                "expected ';' at the end of a class type",
            ),
        ];
        for (text, expected) in classes {
            assert_eq!(reason(ClassSignature::parse(text)), expected, "{text:?}");
        }
        assert_eq!(
            ClassSignature::parse("X"),
            Err(ErrorKind::BadSignature {
                what: "class signature",
                text: "X".to_owned(),
                reason: "expected 'L' to start the superclass",
            })
        );
        let Err(error) = ReferenceTypeSignature::parse_field_signature("TT") else {
            panic!("should fail");
        };
        assert_eq!(
            error.to_string(),
            "invalid field signature \"TT\": expected ';' after a type variable name"
        );
    }

    /// `Ljava/util/List<` repeated `depth` times around `TT;`.
    fn nested_lists(depth: usize) -> String {
        format!(
            "{}TT;{}",
            "Ljava/util/List<".repeat(depth),
            ">;".repeat(depth)
        )
    }

    #[test]
    fn nesting_limit() {
        assert!(ReferenceTypeSignature::parse_field_signature(&nested_lists(MAX_NESTING)).is_ok());
        let too_deep = [
            nested_lists(MAX_NESTING + 1),
            nested_lists(100_000),
            // Arrays and type arguments count together.
            format!(
                "{}[[TT;{}",
                "Ljava/util/List<".repeat(MAX_NESTING - 1),
                ">;".repeat(MAX_NESTING - 1)
            ),
            "Ljava/util/List<[".repeat(100_000),
        ];
        for text in &too_deep {
            assert_eq!(
                reason(ReferenceTypeSignature::parse_field_signature(text)),
                "types nested too deeply"
            );
        }
        let method = format!("<T:{}>()V", nested_lists(MAX_NESTING + 1));
        assert_eq!(
            reason(MethodSignature::parse(&method)),
            "types nested too deeply"
        );
    }

    /// Everything recursive over the deepest accepted signature fits in the
    /// 2 MiB stack Rust gives to spawned threads (in an unoptimized build).
    #[test]
    fn deepest_signature_fits_small_stack() {
        let run = || {
            let lists = nested_lists(MAX_NESTING);
            let arrays = format!("{}TT;", "[".repeat(255));
            for text in [lists, arrays] {
                let signature = ReferenceTypeSignature::parse_field_signature(&text).unwrap();
                assert!(!signature.to_string().is_empty());
                assert!(!format!("{signature:?}").is_empty());
                assert_eq!(signature.clone(), signature);
            }
        };
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(run)
            .unwrap()
            .join()
            .unwrap();
    }

    /// Parsing must fail cleanly, never panic, on any input.
    #[test]
    fn no_panics_on_malformed_input() {
        fn parse_all(text: &str) {
            let _ = ClassSignature::parse(text);
            let _ = MethodSignature::parse(text);
            let _ = ReferenceTypeSignature::parse_field_signature(text);
            let _ = crate::descriptor::FieldType::parse(text);
            let _ = crate::descriptor::MethodDescriptor::parse(text);
        }
        let valid = [
            "<T:Ljava/lang/Object;>(Ljava/util/List<+TT;>;)TT;^Ljava/io/IOException;",
            "<K:Ljava/lang/Object;V:Ljava/lang/Object;>Ljava/util/AbstractMap<TK;TV;>;Ljava/util/Map<TK;TV;>;",
            "Ljava/util/Map<Ljava/lang/String;Ljava/util/List<[I>;>.Entry<*>;",
            "<E:Ljava/lang/Enum<TE;>;>Ljava/lang/Object;Ljava/lang/Comparable<TE;>;Ljava/io/Serializable;",
            "<T::Ljava/lang/Comparable<-TT;>;>([[TT;Lcom/exämple/Größe;)V^TX;",
            "(IJ[[Ljava/lang/String;)V",
        ];
        for text in valid {
            // Every prefix that ends on a char boundary.
            for (end, _) in text.char_indices() {
                parse_all(&text[..end]);
            }
            parse_all(text);
        }

        // A fixed xorshift generator keeps the test repeatable without a
        // dependency. Bytes are drawn mostly from the grammar's own
        // characters so the parsers get past the first few checks.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let alphabet = b"<>;:/.[*+-^()LTVIJZBCDSF$ab\xc3\xa4\xff";
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    let r = next();
                    if r % 8 == 0 {
                        (r >> 8) as u8
                    } else {
                        alphabet[(r >> 8) as usize % alphabet.len()]
                    }
                })
                .collect();
            parse_all(&String::from_utf8_lossy(&bytes));
        }
    }
}
