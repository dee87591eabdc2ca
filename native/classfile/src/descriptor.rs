//! Field and method descriptors (JVMS 4.3).
//!
//! A descriptor is the erased type of a field or method, e.g. `[Ljava/lang/String;`
//! or `(IJ)V`. Parsed results borrow class names from the input text, and
//! [`fmt::Display`] renders them in Java source syntax (`java.lang.String[]`).

use std::fmt;

use crate::error::ErrorKind;

/// Most array dimensions a type may have (JVMS 4.3.2, 4.4.1).
pub const MAX_ARRAY_DIMENSIONS: u8 = 255;

/// A primitive type (JVMS Table 4.3-A).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BaseType {
    Byte,
    Char,
    Double,
    Float,
    Int,
    Long,
    Short,
    Boolean,
}

impl BaseType {
    /// The type for a descriptor character such as `'I'`; `None` for anything
    /// else, including `'V'` (void is not a type).
    pub fn from_descriptor_char(c: char) -> Option<Self> {
        Some(match c {
            'B' => BaseType::Byte,
            'C' => BaseType::Char,
            'D' => BaseType::Double,
            'F' => BaseType::Float,
            'I' => BaseType::Int,
            'J' => BaseType::Long,
            'S' => BaseType::Short,
            'Z' => BaseType::Boolean,
            _ => return None,
        })
    }

    pub fn descriptor_char(self) -> char {
        match self {
            BaseType::Byte => 'B',
            BaseType::Char => 'C',
            BaseType::Double => 'D',
            BaseType::Float => 'F',
            BaseType::Int => 'I',
            BaseType::Long => 'J',
            BaseType::Short => 'S',
            BaseType::Boolean => 'Z',
        }
    }

    /// The Java keyword for the type, e.g. `"int"`.
    pub fn java_name(self) -> &'static str {
        match self {
            BaseType::Byte => "byte",
            BaseType::Char => "char",
            BaseType::Double => "double",
            BaseType::Float => "float",
            BaseType::Int => "int",
            BaseType::Long => "long",
            BaseType::Short => "short",
            BaseType::Boolean => "boolean",
        }
    }

    /// Local variable and operand stack slots taken by a value (JVMS 2.6.1).
    pub fn slots(self) -> u8 {
        match self {
            BaseType::Long | BaseType::Double => 2,
            _ => 1,
        }
    }
}

impl fmt::Display for BaseType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.java_name())
    }
}

/// The component type of an array once all dimensions are stripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementType<'a> {
    Base(BaseType),
    /// Internal name of a class or interface, e.g. `java/lang/String`.
    Object(&'a str),
}

impl fmt::Display for ElementType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ElementType::Base(base) => base.fmt(f),
            ElementType::Object(name) => write_internal_name(f, name),
        }
    }
}

/// The type of a field, parameter or return value (JVMS 4.3.2).
///
/// Arrays are flattened to a dimension count so the type is `Copy` and has no
/// recursion to bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldType<'a> {
    Base(BaseType),
    /// Internal name of a class or interface, e.g. `java/lang/String`.
    Object(&'a str),
    /// `dimensions` is between 1 and [`MAX_ARRAY_DIMENSIONS`].
    Array {
        dimensions: u8,
        element: ElementType<'a>,
    },
}

impl<'a> FieldType<'a> {
    /// Parses a whole field descriptor such as `[[Ljava/lang/String;`.
    pub fn parse(text: &'a str) -> Result<Self, ErrorKind> {
        let mut cursor = Cursor::new(text, "field descriptor");
        let field_type = cursor.field_type()?;
        cursor.finish()?;
        Ok(field_type)
    }

    /// Local variable and operand stack slots taken by a value of this type:
    /// 2 for `long` and `double`, 1 for everything else.
    pub fn slots(&self) -> u8 {
        match self {
            FieldType::Base(base) => base.slots(),
            FieldType::Object(_) | FieldType::Array { .. } => 1,
        }
    }

    /// True for classes, interfaces and arrays.
    pub fn is_reference(&self) -> bool {
        !matches!(self, FieldType::Base(_))
    }
}

impl fmt::Display for FieldType<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldType::Base(base) => base.fmt(f),
            FieldType::Object(name) => write_internal_name(f, name),
            FieldType::Array {
                dimensions,
                element,
            } => {
                element.fmt(f)?;
                for _ in 0..*dimensions {
                    f.write_str("[]")?;
                }
                Ok(())
            }
        }
    }
}

/// Parameter and return types of a method (JVMS 4.3.3).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MethodDescriptor<'a> {
    pub parameters: Vec<FieldType<'a>>,
    /// `None` for `void`.
    pub return_type: Option<FieldType<'a>>,
}

impl<'a> MethodDescriptor<'a> {
    /// Parses a whole method descriptor such as `(IJ[[Ljava/lang/String;)V`.
    ///
    /// The JVMS limit of 255 parameter slots is not checked here: it is a rule
    /// about methods, not about the descriptor grammar, and
    /// [`parameter_slots`](Self::parameter_slots) lets a caller check it.
    pub fn parse(text: &'a str) -> Result<Self, ErrorKind> {
        let mut cursor = Cursor::new(text, "method descriptor");
        cursor.expect(b'(', "expected '(' at the start")?;
        let mut parameters = Vec::new();
        while !cursor.eat(b')') {
            if cursor.at_end() {
                return Err(cursor.error("expected ')' after the parameters"));
            }
            parameters.push(cursor.field_type()?);
        }
        let return_type = if cursor.eat(b'V') {
            None
        } else {
            Some(cursor.field_type()?)
        };
        cursor.finish()?;
        Ok(MethodDescriptor {
            parameters,
            return_type,
        })
    }

    /// Local variable slots taken by the parameters, not counting `this`.
    pub fn parameter_slots(&self) -> usize {
        self.parameters.iter().map(|p| usize::from(p.slots())).sum()
    }

    /// Renders the method as a Java declaration without modifiers, e.g.
    /// `void run(int, java.lang.String)`.
    pub fn display_with_name<'b>(&'b self, name: &'b str) -> impl fmt::Display + 'b {
        DisplayMethod {
            descriptor: self,
            name,
        }
    }
}

/// Renders as `void(int, java.lang.String)`, the shape `javap` uses minus the name.
impl fmt::Display for MethodDescriptor<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.display_with_name("").fmt(f)
    }
}

struct DisplayMethod<'b, 'a> {
    descriptor: &'b MethodDescriptor<'a>,
    name: &'b str,
}

impl fmt::Display for DisplayMethod<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.descriptor.return_type {
            Some(return_type) => return_type.fmt(f)?,
            None => f.write_str("void")?,
        }
        if !self.name.is_empty() {
            write!(f, " {}", self.name)?;
        }
        write_list(f, "(", &self.descriptor.parameters, ")")
    }
}

/// Writes an internal name (`java/util/Map$Entry`) as a Java name
/// (`java.util.Map$Entry`). `$` stays: only the InnerClasses attribute can
/// tell whether it marks a nested class or is part of a name.
pub(crate) fn write_internal_name(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    for (i, part) in name.split('/').enumerate() {
        if i > 0 {
            f.write_str(".")?;
        }
        f.write_str(part)?;
    }
    Ok(())
}

/// Writes `open`, the items separated by `", "`, then `close`.
pub(crate) fn write_list<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    open: &str,
    items: &[T],
    close: &str,
) -> fmt::Result {
    f.write_str(open)?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item.fmt(f)?;
    }
    f.write_str(close)
}

/// A position in descriptor or signature text, shared by both parsers.
///
/// It works on bytes because every character with a meaning in the grammar
/// is ASCII. It only ever steps over an ASCII byte or up to one (or to the
/// end), so every position is a `char` boundary and slicing `text` at it
/// cannot panic.
pub(crate) struct Cursor<'a> {
    text: &'a str,
    position: usize,
    /// What is being parsed, for error messages ("field descriptor").
    what: &'static str,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(text: &'a str, what: &'static str) -> Self {
        Cursor {
            text,
            position: 0,
            what,
        }
    }

    pub(crate) fn error(&self, reason: &'static str) -> ErrorKind {
        ErrorKind::BadSignature {
            what: self.what,
            text: self.text.to_owned(),
            reason,
        }
    }

    pub(crate) fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.position).copied()
    }

    pub(crate) fn at_end(&self) -> bool {
        self.position >= self.text.len()
    }

    /// Steps over `byte` (which must be ASCII) if it comes next.
    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        debug_assert!(byte.is_ascii());
        let found = self.peek() == Some(byte);
        if found {
            self.position += 1;
        }
        found
    }

    pub(crate) fn expect(&mut self, byte: u8, reason: &'static str) -> Result<(), ErrorKind> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(self.error(reason))
        }
    }

    /// Fails unless all input has been consumed.
    pub(crate) fn finish(&self) -> Result<(), ErrorKind> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error("unexpected characters after the end"))
        }
    }

    /// Steps over a primitive type character if one comes next.
    pub(crate) fn base_type(&mut self) -> Option<BaseType> {
        let base = BaseType::from_descriptor_char(char::from(self.peek()?))?;
        self.position += 1;
        Some(base)
    }

    /// Counts and steps over leading `[`s.
    pub(crate) fn array_dimensions(&mut self) -> Result<u8, ErrorKind> {
        let mut dimensions = 0u8;
        while self.eat(b'[') {
            dimensions = dimensions
                .checked_add(1)
                .ok_or_else(|| self.error("array has more than 255 dimensions"))?;
        }
        Ok(dimensions)
    }

    /// Steps over bytes up to (not including) the first one for which
    /// `is_delimiter` holds, or to the end. Delimiters must be ASCII.
    pub(crate) fn take_until(&mut self, is_delimiter: impl Fn(u8) -> bool) -> &'a str {
        let start = self.position;
        let rest = &self.text.as_bytes()[start..];
        let len = rest
            .iter()
            .position(|&b| is_delimiter(b))
            .unwrap_or(rest.len());
        self.position += len;
        &self.text[start..self.position]
    }

    /// The text between two positions this cursor has been at.
    pub(crate) fn slice(&self, start: usize, end: usize) -> &'a str {
        &self.text[start..end]
    }

    pub(crate) fn position(&self) -> usize {
        self.position
    }

    /// FieldType: BaseType | L ClassName ; | [ ComponentType
    fn field_type(&mut self) -> Result<FieldType<'a>, ErrorKind> {
        let dimensions = self.array_dimensions()?;
        let element = if let Some(base) = self.base_type() {
            ElementType::Base(base)
        } else if self.eat(b'L') {
            ElementType::Object(self.internal_name()?)
        } else if self.peek() == Some(b'V') {
            return Err(self.error("void is only allowed as a return type"));
        } else if self.at_end() {
            return Err(self.error("unexpected end, expected a type"));
        } else {
            return Err(self.error("expected a type"));
        };
        Ok(match (dimensions, element) {
            (0, ElementType::Base(base)) => FieldType::Base(base),
            (0, ElementType::Object(name)) => FieldType::Object(name),
            (dimensions, element) => FieldType::Array {
                dimensions,
                element,
            },
        })
    }

    /// The class name after `L`, up to and over the `;` (JVMS 4.2.1).
    fn internal_name(&mut self) -> Result<&'a str, ErrorKind> {
        let name = self.take_until(|b| b == b';');
        if !self.eat(b';') {
            return Err(self.error("expected ';' after class name"));
        }
        if name.is_empty() {
            return Err(self.error("empty class name"));
        }
        if name.contains(['.', '[']) {
            return Err(self.error("class name contains '.' or '['"));
        }
        if name.split('/').any(str::is_empty) {
            return Err(self.error("class name has an empty part between '/'s"));
        }
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(result: Result<impl fmt::Debug, ErrorKind>) -> &'static str {
        match result {
            Err(ErrorKind::BadSignature { reason, .. }) => reason,
            other => panic!("expected a BadSignature error, got {other:?}"),
        }
    }

    #[test]
    fn base_types_round_trip() {
        for c in "BCDFIJSZ".chars() {
            let base = BaseType::from_descriptor_char(c).unwrap();
            assert_eq!(base.descriptor_char(), c);
            assert_eq!(FieldType::parse(&c.to_string()), Ok(FieldType::Base(base)));
        }
        assert_eq!(BaseType::from_descriptor_char('V'), None);
        assert_eq!(BaseType::Int.java_name(), "int");
        assert_eq!(BaseType::Boolean.to_string(), "boolean");
    }

    #[test]
    fn field_types() {
        assert_eq!(
            FieldType::parse("Ljava/lang/String;"),
            Ok(FieldType::Object("java/lang/String"))
        );
        assert_eq!(
            FieldType::parse("[[I"),
            Ok(FieldType::Array {
                dimensions: 2,
                element: ElementType::Base(BaseType::Int)
            })
        );
        assert_eq!(
            FieldType::parse("[Ljava/util/Map$Entry;"),
            Ok(FieldType::Array {
                dimensions: 1,
                element: ElementType::Object("java/util/Map$Entry")
            })
        );
        // Names without a package, and non-ASCII names, are fine.
        assert_eq!(FieldType::parse("LFoo;"), Ok(FieldType::Object("Foo")));
        assert_eq!(
            FieldType::parse("Lcom/exämple/Ünïcode$1;"),
            Ok(FieldType::Object("com/exämple/Ünïcode$1"))
        );
    }

    #[test]
    fn field_type_display() {
        let shown = |text| FieldType::parse(text).unwrap().to_string();
        assert_eq!(shown("I"), "int");
        assert_eq!(shown("Ljava/lang/String;"), "java.lang.String");
        assert_eq!(shown("[[I"), "int[][]");
        assert_eq!(shown("[Ljava/util/Map$Entry;"), "java.util.Map$Entry[]");
        assert_eq!(shown("LFoo;"), "Foo");
    }

    #[test]
    fn slots() {
        let slots = |text| FieldType::parse(text).unwrap().slots();
        assert_eq!(slots("J"), 2);
        assert_eq!(slots("D"), 2);
        assert_eq!(slots("I"), 1);
        assert_eq!(slots("[J"), 1);
        assert_eq!(slots("Ljava/lang/Long;"), 1);
        assert!(FieldType::parse("[I").unwrap().is_reference());
        assert!(!FieldType::parse("Z").unwrap().is_reference());
    }

    #[test]
    fn array_dimension_limit() {
        let at_limit = format!("{}I", "[".repeat(255));
        assert_eq!(
            FieldType::parse(&at_limit),
            Ok(FieldType::Array {
                dimensions: 255,
                element: ElementType::Base(BaseType::Int)
            })
        );
        let over = format!("{}I", "[".repeat(256));
        assert_eq!(
            reason(FieldType::parse(&over)),
            "array has more than 255 dimensions"
        );
    }

    #[test]
    fn bad_field_types() {
        let cases = [
            ("", "unexpected end, expected a type"),
            ("[", "unexpected end, expected a type"),
            ("V", "void is only allowed as a return type"),
            ("[V", "void is only allowed as a return type"),
            ("X", "expected a type"),
            ("é", "expected a type"),
            ("II", "unexpected characters after the end"),
            ("Ljava/lang/String;X", "unexpected characters after the end"),
            ("Ljava/lang/String", "expected ';' after class name"),
            ("L", "expected ';' after class name"),
            ("L;", "empty class name"),
            ("Ljava.lang.String;", "class name contains '.' or '['"),
            ("Ljava/lang[/String;", "class name contains '.' or '['"),
            (
                "L/java/lang/String;",
                "class name has an empty part between '/'s",
            ),
            (
                "Ljava//String;",
                "class name has an empty part between '/'s",
            ),
            ("Ljava/lang/;", "class name has an empty part between '/'s"),
            (
                "Ljava/util/List<TT;>;",
                "unexpected characters after the end",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(reason(FieldType::parse(text)), expected, "{text:?}");
        }
    }

    #[test]
    fn error_carries_kind_and_text() {
        assert_eq!(
            FieldType::parse("Lfoo"),
            Err(ErrorKind::BadSignature {
                what: "field descriptor",
                text: "Lfoo".to_owned(),
                reason: "expected ';' after class name",
            })
        );
        let Err(error) = MethodDescriptor::parse("(I") else {
            panic!("should fail");
        };
        assert_eq!(
            error.to_string(),
            "invalid method descriptor \"(I\": expected ')' after the parameters"
        );
    }

    #[test]
    fn method_descriptors() {
        let descriptor = MethodDescriptor::parse("(IJ[[Ljava/lang/String;)V").unwrap();
        assert_eq!(
            descriptor,
            MethodDescriptor {
                parameters: vec![
                    FieldType::Base(BaseType::Int),
                    FieldType::Base(BaseType::Long),
                    FieldType::Array {
                        dimensions: 2,
                        element: ElementType::Object("java/lang/String")
                    },
                ],
                return_type: None,
            }
        );
        assert_eq!(descriptor.parameter_slots(), 4);
        assert_eq!(
            descriptor.to_string(),
            "void(int, long, java.lang.String[][])"
        );
        assert_eq!(
            descriptor.display_with_name("run").to_string(),
            "void run(int, long, java.lang.String[][])"
        );

        let descriptor = MethodDescriptor::parse("()Ljava/lang/Object;").unwrap();
        assert!(descriptor.parameters.is_empty());
        assert_eq!(
            descriptor.return_type,
            Some(FieldType::Object("java/lang/Object"))
        );
        assert_eq!(descriptor.parameter_slots(), 0);
        assert_eq!(descriptor.to_string(), "java.lang.Object()");

        let descriptor = MethodDescriptor::parse("(DFSBCZ)[J").unwrap();
        assert_eq!(descriptor.parameter_slots(), 7);
        assert_eq!(
            descriptor.display_with_name("f").to_string(),
            "long[] f(double, float, short, byte, char, boolean)"
        );
    }

    #[test]
    fn real_method_descriptors() {
        let cases = [
            "()V",
            "([Ljava/lang/String;)V",
            "(Ljava/lang/Object;)Z",
            "(Ljava/lang/String;I)Ljava/lang/StringBuilder;",
            "(Ljava/util/function/Function;Ljava/util/function/Function;)Ljava/util/stream/Collector;",
            "(JJ)J",
            "(Lcom/google/common/collect/ImmutableMap$Builder;I)V",
            "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;[Ljava/lang/Object;)Ljava/lang/invoke/CallSite;",
            "([[[DI)[[D",
        ];
        for text in cases {
            assert!(MethodDescriptor::parse(text).is_ok(), "{text}");
        }
    }

    #[test]
    fn bad_method_descriptors() {
        let cases = [
            ("", "expected '(' at the start"),
            ("I)V", "expected '(' at the start"),
            ("(", "expected ')' after the parameters"),
            ("(I", "expected ')' after the parameters"),
            ("()", "unexpected end, expected a type"),
            ("(V)V", "void is only allowed as a return type"),
            ("()VV", "unexpected characters after the end"),
            ("()[V", "void is only allowed as a return type"),
            ("(Ljava/lang/String)V", "expected ';' after class name"),
            ("(Ljava/lang/String", "expected ';' after class name"),
            ("(I)V;", "unexpected characters after the end"),
            ("(X)V", "expected a type"),
        ];
        for (text, expected) in cases {
            assert_eq!(reason(MethodDescriptor::parse(text)), expected, "{text:?}");
        }
    }
}
