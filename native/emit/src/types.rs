//! Java types in generated source, and the imports that name them.
//!
//! While a test class is written, every class is referred to by a marker
//! holding its binary name ([`type_ref`]); once the whole body is known,
//! [`resolve`] decides which classes get their simple name (same package,
//! `java.lang`, or one import per simple name) and which stay fully
//! qualified, so that no two types ever compete for one name.

use std::collections::{BTreeMap, BTreeSet};

use testgen_classfile::descriptor::{BaseType, ElementType, FieldType, MethodDescriptor};

const START: char = '\u{1}';
const END: char = '\u{2}';

/// A marker for the class `binary_name` (`a.b.Outer$Inner`), replaced by
/// its source name when the class is resolved.
pub fn type_ref(binary_name: &str) -> String {
    format!("{START}{binary_name}{END}")
}

/// A Java type as the generated code uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JType {
    Primitive(BaseType),
    /// A class or interface by binary name.
    Class(String),
    Array(Box<JType>),
}

impl JType {
    pub fn object() -> JType {
        JType::Class("java.lang.Object".to_string())
    }

    pub fn from_field_type(field_type: &FieldType<'_>) -> JType {
        match field_type {
            FieldType::Base(base) => JType::Primitive(*base),
            FieldType::Object(name) => JType::Class(name.replace('/', ".")),
            FieldType::Array {
                dimensions,
                element,
            } => {
                let mut ty = match element {
                    ElementType::Base(base) => JType::Primitive(*base),
                    ElementType::Object(name) => JType::Class(name.replace('/', ".")),
                };
                for _ in 0..*dimensions {
                    ty = JType::Array(Box::new(ty));
                }
                ty
            }
        }
    }

    /// A field descriptor (`I`, `[Ljava/lang/String;`).
    pub fn from_descriptor(descriptor: &str) -> Option<JType> {
        FieldType::parse(descriptor)
            .ok()
            .map(|ty| JType::from_field_type(&ty))
    }

    /// `Class.getName()` of an array class (`[I`, `[Ljava.lang.String;`).
    pub fn from_array_class_name(name: &str) -> Option<JType> {
        JType::from_descriptor(&name.replace('.', "/"))
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, JType::Primitive(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, JType::Class(name) if name == "java.lang.Object")
    }

    /// The type in source form, classes as markers.
    pub fn source(&self) -> String {
        match self {
            JType::Primitive(base) => base.java_name().to_string(),
            JType::Class(name) => type_ref(name),
            JType::Array(element) => format!("{}[]", element.source()),
        }
    }

    /// `new int[length]`, `new int[length][]` for nested arrays.
    pub fn new_array(&self, length: i32) -> String {
        let mut element = self;
        let mut extra = String::new();
        while let JType::Array(inner) = element {
            extra.push_str("[]");
            element = inner;
        }
        format!("new {}[{length}]{extra}", element.source())
    }

    /// The simple name for naming locals and tests: `Item`, `int`, `Item[]`.
    pub fn simple_name(&self) -> String {
        match self {
            JType::Primitive(base) => base.java_name().to_string(),
            JType::Class(name) => simple_name(name).to_string(),
            JType::Array(element) => format!("{}[]", element.simple_name()),
        }
    }
}

/// Parameter and return types of a method descriptor; `None` if malformed.
pub fn method_types(descriptor: &str) -> Option<(Vec<JType>, Option<JType>)> {
    let parsed = MethodDescriptor::parse(descriptor).ok()?;
    Some((
        parsed
            .parameters
            .iter()
            .map(JType::from_field_type)
            .collect(),
        parsed.return_type.as_ref().map(JType::from_field_type),
    ))
}

/// The package of a binary name (`""` for the unnamed package).
pub fn package_of(binary_name: &str) -> &str {
    binary_name
        .rsplit_once('.')
        .map_or("", |(package, _)| package)
}

/// The innermost simple name: `Inner` for `a.b.Outer$Inner`.
pub fn simple_name(binary_name: &str) -> &str {
    let last = binary_name.rsplit('.').next().unwrap_or(binary_name);
    last.rsplit('$').next().unwrap_or(last)
}

/// The text with markers replaced by binary names (for tests).
#[cfg(test)]
pub fn strip_markers(text: &str) -> String {
    text.replace([START, END], "")
}

/// Replaces every marker in `body` by a name that refers to its class from
/// a compilation unit in `package` whose own top-level class is `own_name`;
/// returns the new body and the sorted imports it needs.
pub fn resolve(body: &str, package: &str, own_name: &str) -> (String, Vec<String>) {
    let mut referenced = BTreeSet::new();
    for_each_marker(body, |name| {
        referenced.insert(top_level(name).to_string());
    });
    let mut by_simple: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for top in &referenced {
        by_simple.entry(simple_name(top)).or_default().push(top);
    }
    // The top-level classes that may be written by their simple name.
    let mut simple = BTreeSet::new();
    let mut imports = Vec::new();
    for (name, candidates) in &by_simple {
        if *name == own_name {
            continue;
        }
        let winner = candidates
            .iter()
            .find(|c| package_of(c) == package)
            .or_else(|| candidates.iter().find(|c| package_of(c) == "java.lang"))
            .or_else(|| candidates.first())
            .expect("groups are never empty");
        simple.insert(*winner);
        let winner_package = package_of(winner);
        if winner_package != package && winner_package != "java.lang" && !winner_package.is_empty()
        {
            imports.push(winner.to_string());
        }
    }
    let mut out = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(start) = rest.find(START) {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let end = after.find(END).expect("markers are closed");
        let name = &after[..end];
        let top = top_level(name);
        let nested = &name[top.len()..];
        if simple.contains(top) {
            out.push_str(simple_name(top));
        } else {
            out.push_str(top);
        }
        out.push_str(&nested.replace('$', "."));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    imports.sort();
    (out, imports)
}

fn for_each_marker(body: &str, mut f: impl FnMut(&str)) {
    let mut rest = body;
    while let Some(start) = rest.find(START) {
        let after = &rest[start + 1..];
        let end = after.find(END).expect("markers are closed");
        f(&after[..end]);
        rest = &after[end + 1..];
    }
}

/// `a.b.Outer` for `a.b.Outer$Inner`.
fn top_level(binary_name: &str) -> &str {
    let package_len = binary_name.rfind('.').map_or(0, |dot| dot + 1);
    match binary_name[package_len..].find('$') {
        Some(dollar) => &binary_name[..package_len + dollar],
        None => binary_name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_without_clashes() {
        let body = format!(
            "{} a; {} b; {} c; {} d; {} e; {} f;",
            type_ref("p.Item"),
            type_ref("q.Item"),
            type_ref("java.lang.String"),
            type_ref("java.util.List"),
            type_ref("p.Outer$Inner"),
            type_ref("r.ItemGeneratedTest"),
        );
        let (out, imports) = resolve(&body, "p", "ItemGeneratedTest");
        assert_eq!(
            out,
            "Item a; q.Item b; String c; List d; Outer.Inner e; r.ItemGeneratedTest f;"
        );
        assert_eq!(imports, ["java.util.List"]);
    }

    #[test]
    fn the_package_shadows_java_lang() {
        let body = format!("{} {}", type_ref("p.String"), type_ref("java.lang.String"));
        let (out, imports) = resolve(&body, "p", "T");
        assert_eq!(out, "String java.lang.String");
        assert!(imports.is_empty());
    }

    #[test]
    fn descriptors_become_types() {
        let (params, ret) = method_types("(I[[Ljava/lang/String;La/B$C;)J").unwrap();
        let sources: Vec<String> = params.iter().map(|p| strip_markers(&p.source())).collect();
        assert_eq!(sources, ["int", "java.lang.String[][]", "a.B$C"]);
        assert_eq!(ret, Some(JType::Primitive(BaseType::Long)));
        let rows = JType::from_array_class_name("[[I").unwrap();
        let JType::Array(row) = rows else { panic!() };
        assert_eq!(row.new_array(3), "new int[3][]");
        assert_eq!(simple_name("a.B$C"), "C");
    }
}
