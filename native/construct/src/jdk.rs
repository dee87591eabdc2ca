//! The catalogue of JDK types a public API takes, each with the ways a
//! person would make one in a test: `new StringReader("...")` for a
//! `Reader`, an `ArrayList` filled with `add` for a `List`,
//! `BigInteger.valueOf(7)` for a `Number`. The parts that matter (the text,
//! the elements, the number) are holes, so the solver and a search choose
//! them.
//!
//! Chosen for readability and for values that are legal whatever the holes
//! hold: a sorted collection gets string elements (any two compare), a
//! factory that rejects most of its inputs (`LocalDate.of`) is not used
//! where one that takes them all exists (`LocalDate.ofEpochDay`). Nothing
//! that writes files or opens connections.

use testgen_classfile::descriptor::BaseType;
use testgen_project::{ClassName, MethodId};

use crate::recipes::Recipe;

const STRING: &str = "Ljava/lang/String;";
/// The elements of a collection whose element type is not known: strings,
/// the elements people put in collections most, readable and comparable.
const ELEMENT: &str = STRING;

/// The catalogue's recipes for a JDK type, most readable first; empty for a
/// type it does not know (the program's own implementations still apply).
/// Strings, boxed primitives and enums have recipes of their own.
pub fn recipes(class: &ClassName) -> Vec<Recipe> {
    let internal = class.as_internal();
    let new = |class: &str, descriptor: &str| Recipe::New {
        class: ClassName::internal(class),
        descriptor: descriptor.into(),
    };
    let factory = |class: &str, name: &str, descriptor: &str| Recipe::Factory {
        method: MethodId::new(ClassName::internal(class), name, descriptor),
    };
    let boxed = |class: &str, base: BaseType| Recipe::Boxed {
        class: ClassName::internal(class),
        base,
    };
    let constant_of = |owner: &str, field: &str| Recipe::Constant {
        owner: ClassName::internal(owner),
        field: field.into(),
        class: class.clone(),
    };
    let constant = |field: &str| constant_of(internal, field);
    let lookup = |on: &str, name: &str, descriptor: &str, member: Option<&str>| Recipe::Lookup {
        class: class.clone(),
        on: ClassName::internal(on),
        method: MethodId::new(ClassName::internal("java/lang/Class"), name, descriptor),
        name: member.map(str::to_string),
    };
    // A JDK enum: all its constants in declaration order (the symbolic
    // engine takes a constant's place in the list for its ordinal).
    let enumeration = |enum_class: &str, constants: &[&str]| {
        vec![Recipe::Enum {
            class: ClassName::internal(enum_class),
            constants: constants.iter().map(|c| c.to_string()).collect(),
        }]
    };
    if let Some(method) = functional(class) {
        let lambda = Recipe::Lambda {
            interface: class.clone(),
            method,
        };
        let mut recipes = vec![lambda];
        if internal == "java/util/Comparator" {
            // The order people pass most, after the lambda whose result
            // the solver chooses.
            recipes.push(factory(
                "java/util/Comparator",
                "naturalOrder",
                "()Ljava/util/Comparator;",
            ));
        }
        return recipes;
    }
    match internal {
        "java/lang/CharSequence" => vec![
            Recipe::Str,
            new("java/lang/StringBuilder", "(Ljava/lang/String;)V"),
        ],
        "java/lang/StringBuilder" | "java/lang/StringBuffer" | "java/lang/Appendable" => {
            let made = if internal == "java/lang/StringBuffer" {
                "java/lang/StringBuffer"
            } else {
                "java/lang/StringBuilder"
            };
            vec![new(made, "(Ljava/lang/String;)V")]
        }
        "java/lang/Comparable" => vec![Recipe::Str, boxed("java/lang/Integer", BaseType::Int)],
        // The classes people pass most; a `Class<? extends X>` parameter
        // gets `X.class` first (see the template builder).
        "java/lang/Class" | "java/lang/reflect/Type" => {
            ["java/lang/String", "java/lang/Integer", "java/lang/Object"]
                .into_iter()
                .map(|class| Recipe::ClassLiteral {
                    class: ClassName::internal(class),
                })
                .collect()
        }
        "java/lang/Number" => vec![
            boxed("java/lang/Integer", BaseType::Int),
            boxed("java/lang/Long", BaseType::Long),
            boxed("java/lang/Double", BaseType::Double),
            factory(
                "java/math/BigInteger",
                "valueOf",
                "(J)Ljava/math/BigInteger;",
            ),
            factory(
                "java/math/BigDecimal",
                "valueOf",
                "(J)Ljava/math/BigDecimal;",
            ),
        ],
        "java/math/BigInteger" => {
            vec![factory(
                "java/math/BigInteger",
                "valueOf",
                "(J)Ljava/math/BigInteger;",
            )]
        }
        "java/math/BigDecimal" => vec![
            factory(
                "java/math/BigDecimal",
                "valueOf",
                "(J)Ljava/math/BigDecimal;",
            ),
            factory(
                "java/math/BigDecimal",
                "valueOf",
                "(JI)Ljava/math/BigDecimal;",
            ),
        ],
        "java/lang/Iterable"
        | "java/util/Collection"
        | "java/util/List"
        | "java/util/AbstractList"
        | "java/util/AbstractCollection"
        | "java/util/ArrayList" => Vec::from(collection("java/util/ArrayList", ELEMENT)),
        "java/util/LinkedList" => Vec::from(collection("java/util/LinkedList", ELEMENT)),
        "java/util/Set" | "java/util/AbstractSet" | "java/util/HashSet" => {
            Vec::from(collection("java/util/HashSet", ELEMENT))
        }
        "java/util/LinkedHashSet" => Vec::from(collection("java/util/LinkedHashSet", ELEMENT)),
        "java/util/SortedSet" | "java/util/NavigableSet" | "java/util/TreeSet" => {
            Vec::from(collection("java/util/TreeSet", STRING))
        }
        "java/util/Queue" | "java/util/Deque" | "java/util/ArrayDeque" => {
            Vec::from(collection("java/util/ArrayDeque", ELEMENT))
        }
        "java/util/Map" | "java/util/AbstractMap" | "java/util/HashMap" => {
            Vec::from(map("java/util/HashMap", ELEMENT))
        }
        "java/util/LinkedHashMap" => Vec::from(map("java/util/LinkedHashMap", ELEMENT)),
        // Text keys and values, as `Properties` holds.
        "java/util/Properties" => Vec::from(map("java/util/Properties", STRING)),
        "java/util/SortedMap" | "java/util/NavigableMap" | "java/util/TreeMap" => {
            Vec::from(map("java/util/TreeMap", STRING))
        }
        "java/util/Optional" => vec![factory(
            "java/util/Optional",
            "ofNullable",
            "(Ljava/lang/Object;)Ljava/util/Optional;",
        )],
        "java/util/Locale" => vec![constant("ROOT"), constant("US"), constant("FRANCE")],
        "java/util/regex/Pattern" => vec![factory(
            "java/util/regex/Pattern",
            "compile",
            "(Ljava/lang/String;)Ljava/util/regex/Pattern;",
        )],
        "java/time/Duration" | "java/time/temporal/TemporalAmount" => {
            vec![factory(
                "java/time/Duration",
                "ofMillis",
                "(J)Ljava/time/Duration;",
            )]
        }
        "java/time/Instant" => {
            vec![factory(
                "java/time/Instant",
                "ofEpochMilli",
                "(J)Ljava/time/Instant;",
            )]
        }
        "java/time/LocalDate" => {
            vec![factory(
                "java/time/LocalDate",
                "ofEpochDay",
                "(J)Ljava/time/LocalDate;",
            )]
        }
        "java/nio/charset/Charset" => ["UTF_8", "ISO_8859_1", "US_ASCII"]
            .map(|field| constant_of("java/nio/charset/StandardCharsets", field))
            .into(),
        // A standard charset's own coders.
        "java/nio/charset/CharsetEncoder" => vec![Recipe::Produced {
            method: MethodId::new(
                ClassName::internal("java/nio/charset/Charset"),
                "newEncoder",
                "()Ljava/nio/charset/CharsetEncoder;",
            ),
        }],
        "java/nio/charset/CharsetDecoder" => vec![Recipe::Produced {
            method: MethodId::new(
                ClassName::internal("java/nio/charset/Charset"),
                "newDecoder",
                "()Ljava/nio/charset/CharsetDecoder;",
            ),
        }],
        // Channels over the in-memory streams.
        "java/nio/channels/ReadableByteChannel" => vec![factory(
            "java/nio/channels/Channels",
            "newChannel",
            "(Ljava/io/InputStream;)Ljava/nio/channels/ReadableByteChannel;",
        )],
        "java/nio/channels/WritableByteChannel" => vec![factory(
            "java/nio/channels/Channels",
            "newChannel",
            "(Ljava/io/OutputStream;)Ljava/nio/channels/WritableByteChannel;",
        )],
        "java/lang/ClassLoader" => vec![factory(
            "java/lang/ClassLoader",
            "getSystemClassLoader",
            "()Ljava/lang/ClassLoader;",
        )],
        "java/nio/ByteBuffer" => vec![factory(
            "java/nio/ByteBuffer",
            "wrap",
            "([B)Ljava/nio/ByteBuffer;",
        )],
        "java/nio/CharBuffer" | "java/lang/Readable" => vec![factory(
            "java/nio/CharBuffer",
            "wrap",
            "(Ljava/lang/CharSequence;)Ljava/nio/CharBuffer;",
        )],
        "java/util/BitSet" => vec![
            factory("java/util/BitSet", "valueOf", "([J)Ljava/util/BitSet;"),
            new("java/util/BitSet", "()V"),
        ],
        // JDBC without a database: the JDK's own in-memory row set (empty,
        // no columns), from the factory people are told to use.
        "java/sql/ResultSet" | "javax/sql/RowSet" | "javax/sql/rowset/CachedRowSet" => {
            vec![Recipe::Produced {
                method: MethodId::new(
                    ClassName::internal("javax/sql/rowset/RowSetFactory"),
                    "createCachedRowSet",
                    "()Ljavax/sql/rowset/CachedRowSet;",
                ),
            }]
        }
        "javax/sql/rowset/RowSetFactory" => vec![factory(
            "javax/sql/rowset/RowSetProvider",
            "newFactory",
            "()Ljavax/sql/rowset/RowSetFactory;",
        )],
        "java/sql/ResultSetMetaData" | "javax/sql/RowSetMetaData" => {
            vec![new("javax/sql/rowset/RowSetMetaDataImpl", "()V")]
        }
        // Public members of a JDK class, by name: reflection people write,
        // on nothing private.
        "java/lang/reflect/Field" | "java/lang/reflect/Member" => vec![lookup(
            "java/lang/Integer",
            "getField",
            "(Ljava/lang/String;)Ljava/lang/reflect/Field;",
            Some("MAX_VALUE"),
        )],
        // Seeded, so that a test sees the same numbers every run.
        "java/util/Random" => vec![new("java/util/Random", "(J)V")],
        "java/util/Iterator" => vec![Recipe::Produced {
            method: MethodId::new(
                ClassName::internal("java/util/ArrayList"),
                "iterator",
                "()Ljava/util/Iterator;",
            ),
        }],
        "java/math/RoundingMode" => enumeration(
            internal,
            &[
                "UP",
                "DOWN",
                "CEILING",
                "FLOOR",
                "HALF_UP",
                "HALF_DOWN",
                "HALF_EVEN",
                "UNNECESSARY",
            ],
        ),
        "java/util/concurrent/TimeUnit" => enumeration(
            internal,
            &[
                "NANOSECONDS",
                "MICROSECONDS",
                "MILLISECONDS",
                "SECONDS",
                "MINUTES",
                "HOURS",
                "DAYS",
            ],
        ),
        "java/time/DayOfWeek" => enumeration(
            internal,
            &[
                "MONDAY",
                "TUESDAY",
                "WEDNESDAY",
                "THURSDAY",
                "FRIDAY",
                "SATURDAY",
                "SUNDAY",
            ],
        ),
        "java/time/Month" => enumeration(
            internal,
            &[
                "JANUARY",
                "FEBRUARY",
                "MARCH",
                "APRIL",
                "MAY",
                "JUNE",
                "JULY",
                "AUGUST",
                "SEPTEMBER",
                "OCTOBER",
                "NOVEMBER",
                "DECEMBER",
            ],
        ),
        "java/time/temporal/ChronoUnit" | "java/time/temporal/TemporalUnit" => enumeration(
            "java/time/temporal/ChronoUnit",
            &[
                "NANOS",
                "MICROS",
                "MILLIS",
                "SECONDS",
                "MINUTES",
                "HOURS",
                "HALF_DAYS",
                "DAYS",
                "WEEKS",
                "MONTHS",
                "YEARS",
                "DECADES",
                "CENTURIES",
                "MILLENNIA",
                "ERAS",
                "FOREVER",
            ],
        ),
        "java/io/Reader" | "java/io/StringReader" => {
            vec![new("java/io/StringReader", "(Ljava/lang/String;)V")]
        }
        "java/io/BufferedReader" => vec![new("java/io/BufferedReader", "(Ljava/io/Reader;)V")],
        "java/io/Writer" | "java/io/StringWriter" => vec![new("java/io/StringWriter", "()V")],
        "java/io/PrintWriter" => vec![new("java/io/PrintWriter", "(Ljava/io/Writer;)V")],
        "java/io/InputStream" | "java/io/ByteArrayInputStream" => {
            vec![new("java/io/ByteArrayInputStream", "([B)V")]
        }
        "java/io/OutputStream" | "java/io/ByteArrayOutputStream" => {
            vec![new("java/io/ByteArrayOutputStream", "()V")]
        }
        _ => Vec::new(),
    }
}

/// The one abstract method of a JDK functional interface, with the
/// interface that declares it (`Function.apply` for a `UnaryOperator`).
pub(crate) fn functional(interface: &ClassName) -> Option<MethodId> {
    let internal = interface.as_internal();
    let (name, descriptor) = functional_method(internal)?;
    let declared_by = match internal {
        "java/util/function/UnaryOperator" => "java/util/function/Function",
        "java/util/function/BinaryOperator" => "java/util/function/BiFunction",
        _ => internal,
    };
    Some(MethodId::new(
        ClassName::internal(declared_by),
        name,
        descriptor,
    ))
}

/// The one abstract method (name, descriptor) of a JDK functional
/// interface that public APIs take.
fn functional_method(interface: &str) -> Option<(&'static str, &'static str)> {
    Some(match interface {
        "java/util/function/Function" | "java/util/function/UnaryOperator" => {
            ("apply", "(Ljava/lang/Object;)Ljava/lang/Object;")
        }
        "java/util/function/BiFunction" | "java/util/function/BinaryOperator" => (
            "apply",
            "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
        ),
        "java/util/function/Predicate" => ("test", "(Ljava/lang/Object;)Z"),
        "java/util/function/BiPredicate" => ("test", "(Ljava/lang/Object;Ljava/lang/Object;)Z"),
        "java/util/function/Supplier" => ("get", "()Ljava/lang/Object;"),
        "java/util/function/Consumer" => ("accept", "(Ljava/lang/Object;)V"),
        "java/util/function/BiConsumer" => ("accept", "(Ljava/lang/Object;Ljava/lang/Object;)V"),
        "java/util/function/IntPredicate" => ("test", "(I)Z"),
        "java/util/function/IntUnaryOperator" => ("applyAsInt", "(I)I"),
        "java/util/function/IntBinaryOperator" => ("applyAsInt", "(II)I"),
        "java/util/function/IntFunction" => ("apply", "(I)Ljava/lang/Object;"),
        "java/util/function/ToIntFunction" => ("applyAsInt", "(Ljava/lang/Object;)I"),
        "java/util/function/IntSupplier" => ("getAsInt", "()I"),
        "java/util/function/BooleanSupplier" => ("getAsBoolean", "()Z"),
        "java/util/function/LongSupplier" => ("getAsLong", "()J"),
        "java/util/Comparator" => ("compare", "(Ljava/lang/Object;Ljava/lang/Object;)I"),
        "java/lang/Runnable" => ("run", "()V"),
        "java/util/concurrent/Callable" => ("call", "()Ljava/lang/Object;"),
        "java/io/FileFilter" => ("accept", "(Ljava/io/File;)Z"),
        "java/io/FilenameFilter" => ("accept", "(Ljava/io/File;Ljava/lang/String;)Z"),
        _ => return None,
    })
}

/// A collection holding elements (one at least), each given with `add`;
/// then the empty one as another choice.
fn collection(class: &str, element: &str) -> [Recipe; 2] {
    filled(class, "add", "(Ljava/lang/Object;)Z", vec![element.into()])
}

/// A map holding entries (one at least), each given with `put`; then the
/// empty one. Values are strings like the keys.
fn map(class: &str, key: &str) -> [Recipe; 2] {
    filled(
        class,
        "put",
        "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;",
        vec![key.into(), ELEMENT.into()],
    )
}

fn filled(class: &str, add: &str, descriptor: &str, entry: Vec<String>) -> [Recipe; 2] {
    let name = ClassName::internal(class);
    [
        Recipe::Collection {
            class: name.clone(),
            add: MethodId::new(name.clone(), add, descriptor),
            entry,
        },
        Recipe::New {
            class: name,
            descriptor: "()V".into(),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interfaces_get_a_concrete_readable_class() {
        let first = |name: &str| recipes(&ClassName::internal(name)).into_iter().next();
        assert!(matches!(
            first("java/util/List"),
            Some(Recipe::Collection { class, .. }) if class.as_internal() == "java/util/ArrayList"
        ));
        assert!(matches!(
            first("java/io/Reader"),
            Some(Recipe::New { class, .. }) if class.as_internal() == "java/io/StringReader"
        ));
        assert!(matches!(first("java/lang/CharSequence"), Some(Recipe::Str)));
        // Sorted collections hold strings: any two compare.
        assert!(matches!(
            first("java/util/TreeSet"),
            Some(Recipe::Collection { entry, .. }) if entry == vec![STRING.to_string()]
        ));
        assert!(matches!(
            first("java/util/Map"),
            Some(Recipe::Collection { add, entry, .. }) if add.name == "put" && entry.len() == 2
        ));
        assert_eq!(first("java/lang/Thread"), None);
    }

    #[test]
    fn values_come_from_other_classes_where_people_get_them() {
        let first = |name: &str| recipes(&ClassName::internal(name)).into_iter().next();
        assert!(matches!(
            first("java/nio/charset/Charset"),
            Some(Recipe::Constant { owner, field, class })
                if owner.as_internal() == "java/nio/charset/StandardCharsets"
                    && field == "UTF_8"
                    && class.as_internal() == "java/nio/charset/Charset"
        ));
        assert!(matches!(
            first("java/util/Iterator"),
            Some(Recipe::Produced { method })
                if method.class.as_internal() == "java/util/ArrayList" && method.name == "iterator"
        ));
        // A field is a JDK class's public one, looked up by name.
        assert!(matches!(
            first("java/lang/reflect/Field"),
            Some(Recipe::Lookup { on, name: Some(name), .. })
                if on.as_internal() == "java/lang/Integer" && name == "MAX_VALUE"
        ));
        // A result set is the JDK's in-memory one, from its factory.
        assert!(matches!(
            first("java/sql/ResultSet"),
            Some(Recipe::Produced { method })
                if method.class.as_internal() == "javax/sql/rowset/RowSetFactory"
        ));
        assert!(matches!(
            first("javax/sql/rowset/RowSetFactory"),
            Some(Recipe::Factory { method })
                if method.class.as_internal() == "javax/sql/rowset/RowSetProvider"
        ));
    }

    #[test]
    fn a_jdk_enum_lists_every_constant_in_order() {
        // The symbolic engine reads a constant's ordinal off its place.
        let Some(Recipe::Enum { constants, .. }) =
            recipes(&ClassName::internal("java/math/RoundingMode"))
                .into_iter()
                .next()
        else {
            panic!("RoundingMode is an enum");
        };
        assert_eq!(constants.len(), 8);
        assert_eq!(constants[4], "HALF_UP");
    }
}
