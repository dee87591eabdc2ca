//! Names of classes and methods, one type each, so that no string is
//! guessed to be one spelling or the other.
//!
//! A class is held by its internal name (`a/b/Outer$Inner`), as class files
//! and descriptors spell it; its binary name (`a.b.Outer$Inner`, what Java
//! source, reflection and reports use) is derived. A method is its class,
//! name and descriptor: exactly one member, never a guess between overloads.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A class or interface, by internal name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ClassName(String);

impl ClassName {
    /// From an internal name (`a/b/C`), as class files spell it.
    pub fn internal(name: impl Into<String>) -> ClassName {
        ClassName(name.into())
    }

    /// From a binary name (`a.b.C`), as source and reflection spell it.
    pub fn binary(name: &str) -> ClassName {
        ClassName(name.replace('.', "/"))
    }

    /// `a/b/Outer$Inner`.
    pub fn as_internal(&self) -> &str {
        &self.0
    }

    /// `a.b.Outer$Inner`.
    pub fn to_binary(&self) -> String {
        self.0.replace('/', ".")
    }

    /// The package in binary form (`a.b`; empty for the unnamed package).
    pub fn package(&self) -> String {
        self.0
            .rsplit_once('/')
            .map_or(String::new(), |(package, _)| package.replace('/', "."))
    }

    /// The name after the package: `Outer$Inner`.
    pub fn simple(&self) -> &str {
        self.0.rsplit_once('/').map_or(self.0.as_str(), |(_, s)| s)
    }

    /// The descriptor of the class as a field type: `La/b/C;`.
    pub fn descriptor(&self) -> String {
        format!("L{};", self.0)
    }

    pub fn is(&self, internal: &str) -> bool {
        self.0 == internal
    }
}

impl fmt::Display for ClassName {
    /// The binary name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_binary())
    }
}

/// A method or constructor (`<init>`) of a class.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct MethodId {
    pub class: ClassName,
    pub name: String,
    pub descriptor: String,
}

impl MethodId {
    pub fn new(
        class: ClassName,
        name: impl Into<String>,
        descriptor: impl Into<String>,
    ) -> MethodId {
        MethodId {
            class,
            name: name.into(),
            descriptor: descriptor.into(),
        }
    }

    /// A method of the class with internal name `class`.
    pub fn of(class: &str, name: &str, descriptor: &str) -> MethodId {
        MethodId::new(ClassName::internal(class), name, descriptor)
    }

    /// `name(descriptor)`: the method within its class.
    pub fn signature(&self) -> String {
        format!("{}{}", self.name, self.descriptor)
    }

    pub fn is_constructor(&self) -> bool {
        self.name == "<init>"
    }

    pub fn is_class_initialiser(&self) -> bool {
        self.name == "<clinit>"
    }
}

impl fmt::Display for MethodId {
    /// `a.b.C.name(descriptor)`, as reports name a method.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}{}", self.class, self.name, self.descriptor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_of_a_class() {
        let nested = ClassName::binary("a.b.Outer$Inner");
        assert_eq!(nested.as_internal(), "a/b/Outer$Inner");
        assert_eq!(nested.to_binary(), "a.b.Outer$Inner");
        assert_eq!(nested.to_string(), "a.b.Outer$Inner");
        assert_eq!(nested.package(), "a.b");
        assert_eq!(nested.simple(), "Outer$Inner");
        assert_eq!(nested.descriptor(), "La/b/Outer$Inner;");
        let top = ClassName::internal("Top");
        assert_eq!(top.package(), "");
        assert_eq!(top.simple(), "Top");
        assert_eq!(serde_json::to_string(&top).unwrap(), "\"Top\"");
    }

    #[test]
    fn a_method_names_one_member() {
        let method = MethodId::of("a/Cart", "total", "(I)J");
        assert_eq!(method.to_string(), "a.Cart.total(I)J");
        assert_eq!(method.signature(), "total(I)J");
        assert!(!method.is_constructor());
        assert!(MethodId::of("a/Cart", "<init>", "()V").is_constructor());
        assert!(MethodId::of("a/Cart", "<clinit>", "()V").is_class_initialiser());
    }
}
