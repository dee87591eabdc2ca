//! Access flags of classes, nested classes, fields and methods (JVMS 4.1,
//! 4.5, 4.6, 4.7.6). The same bit means different things in different places
//! (0x0040 is `volatile` on a field and `bridge` on a method), so naming the
//! flags needs the context.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct AccessFlags(pub u16);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessContext {
    Class,
    NestedClass,
    Field,
    Method,
}

impl AccessFlags {
    pub const PUBLIC: u16 = 0x0001;
    pub const PRIVATE: u16 = 0x0002;
    pub const PROTECTED: u16 = 0x0004;
    pub const STATIC: u16 = 0x0008;
    pub const FINAL: u16 = 0x0010;
    pub const SUPER: u16 = 0x0020;
    pub const SYNCHRONIZED: u16 = 0x0020;
    pub const VOLATILE: u16 = 0x0040;
    pub const BRIDGE: u16 = 0x0040;
    pub const TRANSIENT: u16 = 0x0080;
    pub const VARARGS: u16 = 0x0080;
    pub const NATIVE: u16 = 0x0100;
    pub const INTERFACE: u16 = 0x0200;
    pub const ABSTRACT: u16 = 0x0400;
    pub const STRICT: u16 = 0x0800;
    pub const SYNTHETIC: u16 = 0x1000;
    pub const ANNOTATION: u16 = 0x2000;
    pub const ENUM: u16 = 0x4000;
    pub const MODULE: u16 = 0x8000;

    pub fn contains(self, flag: u16) -> bool {
        self.0 & flag == flag
    }

    pub fn is_public(self) -> bool {
        self.contains(Self::PUBLIC)
    }

    pub fn is_static(self) -> bool {
        self.contains(Self::STATIC)
    }

    pub fn is_abstract(self) -> bool {
        self.contains(Self::ABSTRACT)
    }

    pub fn is_interface(self) -> bool {
        self.contains(Self::INTERFACE)
    }

    /// The names of the set flags that mean something in `context`, in bit
    /// order, as JVMS spells them without the `ACC_` prefix, lower case.
    /// Bits with no meaning in that context are left out.
    pub fn names(self, context: AccessContext) -> Vec<&'static str> {
        flag_table(context)
            .iter()
            .filter(|(bit, _)| self.contains(*bit))
            .map(|&(_, name)| name)
            .collect()
    }
}

fn flag_table(context: AccessContext) -> &'static [(u16, &'static str)] {
    use AccessFlags as A;
    match context {
        AccessContext::Class => &[
            (A::PUBLIC, "public"),
            (A::FINAL, "final"),
            (A::SUPER, "super"),
            (A::INTERFACE, "interface"),
            (A::ABSTRACT, "abstract"),
            (A::SYNTHETIC, "synthetic"),
            (A::ANNOTATION, "annotation"),
            (A::ENUM, "enum"),
            (A::MODULE, "module"),
        ],
        AccessContext::NestedClass => &[
            (A::PUBLIC, "public"),
            (A::PRIVATE, "private"),
            (A::PROTECTED, "protected"),
            (A::STATIC, "static"),
            (A::FINAL, "final"),
            (A::INTERFACE, "interface"),
            (A::ABSTRACT, "abstract"),
            (A::SYNTHETIC, "synthetic"),
            (A::ANNOTATION, "annotation"),
            (A::ENUM, "enum"),
        ],
        AccessContext::Field => &[
            (A::PUBLIC, "public"),
            (A::PRIVATE, "private"),
            (A::PROTECTED, "protected"),
            (A::STATIC, "static"),
            (A::FINAL, "final"),
            (A::VOLATILE, "volatile"),
            (A::TRANSIENT, "transient"),
            (A::SYNTHETIC, "synthetic"),
            (A::ENUM, "enum"),
        ],
        AccessContext::Method => &[
            (A::PUBLIC, "public"),
            (A::PRIVATE, "private"),
            (A::PROTECTED, "protected"),
            (A::STATIC, "static"),
            (A::FINAL, "final"),
            (A::SYNCHRONIZED, "synchronized"),
            (A::BRIDGE, "bridge"),
            (A::VARARGS, "varargs"),
            (A::NATIVE, "native"),
            (A::ABSTRACT, "abstract"),
            (A::STRICT, "strict"),
            (A::SYNTHETIC, "synthetic"),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_bit_has_different_names_by_context() {
        let flags = AccessFlags(0x0041);
        assert_eq!(flags.names(AccessContext::Field), ["public", "volatile"]);
        assert_eq!(flags.names(AccessContext::Method), ["public", "bridge"]);
        assert_eq!(flags.names(AccessContext::Class), ["public"]);
    }
}
