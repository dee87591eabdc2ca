//! Recipes, templates and receiver-preparing sequences on javac 17 output
//! (`fixtures/construct`): what builds a value of a type, that templates
//! stay within their bounds whatever the type's shape, and which calls
//! prepare a receiver first.

use testgen_classfile::ClassFile;
use testgen_construct::{
    contexts, Bounds, Choice, ContextBounds, HoleKind, Recipe, Recipes, Template,
};
use testgen_project::{ClassName, MethodId, Program};

fn classes() -> Vec<(String, Vec<u8>)> {
    let dir = testgen_testkit::compile_fixture("construct");
    testgen_testkit::classes_in(&dir)
}

fn program(classes: &[(String, Vec<u8>)]) -> Program<'_> {
    let mut program = Program::new();
    for (_, bytes) in classes {
        program.add_class(ClassFile::parse(bytes).unwrap()).unwrap();
    }
    program
}

#[test]
fn a_type_is_built_by_its_implementations_factories_and_constants() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let shapes = recipes.of(&ClassName::internal("fixtures/construct/Shape"));
    assert_eq!(
        shapes,
        [
            Recipe::New {
                class: ClassName::internal("fixtures/construct/Circle"),
                descriptor: "(D)V".into()
            },
            Recipe::New {
                class: ClassName::internal("fixtures/construct/Square"),
                descriptor: "(D)V".into()
            },
            // A factory of another class that returns the type.
            Recipe::Factory {
                method: MethodId::of(
                    "fixtures/construct/Shapes",
                    "unit",
                    "()Lfixtures/construct/Shape;"
                )
            },
            // A functional interface: a lambda (`() -> 2.0`) after the
            // implementations.
            Recipe::Lambda {
                interface: ClassName::internal("fixtures/construct/Shape"),
                method: MethodId::of("fixtures/construct/Shape", "area", "()D"),
            },
        ]
    );
    let node = ClassName::internal("fixtures/construct/Node");
    let nodes = recipes.of(&node);
    let kinds: Vec<String> = nodes
        .iter()
        .map(|recipe| match recipe {
            Recipe::New { descriptor, .. } => format!("new {descriptor}"),
            Recipe::Factory { method } => format!("factory {}", method.name),
            Recipe::Constant { field, .. } => format!("constant {field}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            // Its own constants first: what a person writes, and valid.
            "constant EMPTY",
            "new (Ljava/lang/String;)V",
            "new (Ljava/lang/String;Lfixtures/construct/Node;Lfixtures/construct/Node;)V",
            "new (Lfixtures/construct/Node;Lfixtures/construct/Node;Lfixtures/construct/Node;Lfixtures/construct/Node;)V",
            "new (Ljava/util/List;Lfixtures/construct/Node;)V",
            "factory leaf",
            "factory pair",
        ]
    );
    // A constructor that needs a `File`, which tests only pass as null,
    // after the factory that needs nothing.
    assert_eq!(
        recipes.of(&ClassName::internal("fixtures/construct/Settings")),
        [
            Recipe::Factory {
                method: MethodId::of(
                    "fixtures/construct/Settings",
                    "defaults",
                    "()Lfixtures/construct/Settings;"
                )
            },
            Recipe::New {
                class: ClassName::internal("fixtures/construct/Settings"),
                descriptor: "(Ljava/io/File;)V".into()
            },
        ]
    );
    // A JDK interface: the catalogue's readable ways first.
    assert_eq!(
        recipes.of(&ClassName::internal("java/lang/CharSequence")),
        [
            Recipe::Str,
            Recipe::New {
                class: ClassName::internal("java/lang/StringBuilder"),
                descriptor: "(Ljava/lang/String;)V".into()
            }
        ]
    );
}

#[test]
fn a_generic_collection_parameter_is_filled_with_elements_of_its_type() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    // `Node(List<Node> children, Node parent)`.
    let target = MethodId::of(
        "fixtures/construct/Node",
        "<init>",
        "(Ljava/util/List;Lfixtures/construct/Node;)V",
    );
    let template = Template::new(&recipes, target, false, &[], Bounds::default()).unwrap();
    let HoleKind::Reference { choices, .. } = &template.args[0].kind else {
        panic!("a list parameter is a reference hole")
    };
    let Some(Choice::Collection {
        place,
        class,
        add,
        entries,
    }) = choices.first()
    else {
        panic!("a list is an ArrayList with elements first: {choices:?}")
    };
    assert_eq!(
        (place.as_str(), class.as_internal()),
        ("p0.c0", "java/util/ArrayList")
    );
    assert_eq!(add.name, "add");
    assert_eq!(
        entries.len(),
        Bounds::default().max_reference_array_length as usize
    );
    // Each element is a Node (from the signature, not the erased Object),
    // never null.
    let HoleKind::Reference {
        nullable,
        choices: elements,
    } = &entries[0][0].kind
    else {
        panic!("an element is a reference hole")
    };
    assert!(!nullable);
    assert!(
        !elements.is_empty()
            && elements
                .iter()
                .all(|c| c.class() == "fixtures/construct/Node"),
        "{elements:?}"
    );
    // The empty list is a choice too.
    assert!(
        choices
            .iter()
            .any(|c| matches!(c, Choice::New { class, descriptor, .. }
            if class.as_internal() == "java/util/ArrayList" && descriptor == "()V")),
        "{choices:?}"
    );
}

#[test]
fn a_recursive_type_gives_a_template_within_its_bounds() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let target = MethodId::of(
        "fixtures/construct/Node",
        "<init>",
        "(Lfixtures/construct/Node;Lfixtures/construct/Node;Lfixtures/construct/Node;Lfixtures/construct/Node;)V",
    );
    let generous = Template::new(&recipes, target.clone(), false, &[], Bounds::default()).unwrap();
    let holes = generous.holes().len();
    assert!(holes <= Bounds::default().max_holes, "{holes} holes");
    // Objects nest as deep as the bound allows, and no deeper: the
    // parameter's choices build nodes from nodes (three levels of `new`),
    // and the holes below the third level offer only literals and
    // constants.
    fn below(choices: &[Choice]) -> Vec<Choice> {
        choices
            .iter()
            .flat_map(|choice| match choice {
                Choice::New { args, .. } | Choice::Factory { args, .. } => args.clone(),
                _ => Vec::new(),
            })
            .flat_map(|hole| match hole.kind {
                HoleKind::Reference { choices, .. } => choices,
                HoleKind::Primitive(_) => Vec::new(),
            })
            .collect()
    }
    let builds = |choices: &[Choice]| {
        choices
            .iter()
            .any(|c| matches!(c, Choice::New { .. } | Choice::Factory { .. }))
    };
    let HoleKind::Reference { choices: first, .. } = generous.args[0].kind.clone() else {
        panic!("a node parameter is a reference hole")
    };
    let second = below(&first);
    let third = below(&second);
    let fourth = below(&third);
    assert!(builds(&first) && builds(&second) && builds(&third));
    assert!(!fourth.is_empty() && !builds(&fourth), "{fourth:?}");

    // A small budget is shared breadth first: every parameter keeps its
    // own choices, only the deepest holes lose theirs.
    let tight = Bounds {
        max_holes: 40,
        ..Bounds::default()
    };
    let small = Template::new(&recipes, target, false, &[], tight).unwrap();
    assert!(small.holes().len() <= 40, "{} holes", small.holes().len());
    for parameter in &small.args {
        assert!(
            matches!(&parameter.kind, HoleKind::Reference { choices, .. } if !choices.is_empty()),
            "{} has no choice",
            parameter.path
        );
    }
}

#[test]
fn calls_that_write_what_the_method_reads_prepare_the_receiver_first() {
    let classes = classes();
    let program = program(&classes);
    let describe = MethodId::of(
        "fixtures/construct/Counter",
        "describe",
        "()Ljava/lang/String;",
    );
    let found = contexts(&program, &describe, false, &ContextBounds::default());
    assert!(found[0].is_empty(), "the receiver alone comes first");
    // describe() reads count and limit through isFull(): add and raiseLimit
    // write them, log writes nothing.
    let first_calls: Vec<&str> = found[1..]
        .iter()
        .map(|calls| calls[0].name.as_str())
        .collect();
    let log = first_calls.iter().position(|n| *n == "log").unwrap();
    assert!(
        first_calls[..log].contains(&"add") && first_calls[..log].contains(&"raiseLimit"),
        "{first_calls:?}"
    );
    assert!(found.len() <= ContextBounds::default().max_contexts);
    // A call whose effect builds on itself is repeated (add, raiseLimit
    // read what they write); repeating log reaches nothing new.
    let repeated = |name: &str| {
        found
            .iter()
            .any(|calls| calls.len() > 1 && calls.iter().all(|call| call.name == name))
    };
    assert!(repeated("add") && repeated("raiseLimit"), "{found:?}");
    assert!(!repeated("log"), "{found:?}");
    let statik = contexts(&program, &describe, true, &ContextBounds::default());
    assert_eq!(statik, vec![Vec::<MethodId>::new()]);
}

#[test]
fn factories_are_found_anywhere_and_setters_by_the_fields_they_write() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let shapes = ClassName::internal("fixtures/construct/Shapes");
    assert_eq!(
        recipes.factories_anywhere(&ClassName::internal("fixtures/construct/Square")),
        [MethodId::new(
            shapes.clone(),
            "square",
            "(D)Lfixtures/construct/Square;"
        )]
    );
    assert_eq!(
        recipes.factories_anywhere(&ClassName::internal("fixtures/construct/Shape")),
        [MethodId::new(
            shapes,
            "unit",
            "()Lfixtures/construct/Shape;"
        )]
    );
    // A static method returning a primitive is no factory of anything.
    assert!(recipes
        .factories_anywhere(&ClassName::internal("fixtures/construct/Circle"))
        .is_empty());

    let label = ClassName::internal("fixtures/construct/Label");
    // `name: field <- parameter positions`, one line per setter.
    let setters: Vec<String> = recipes
        .setters(&label)
        .into_iter()
        .map(|setter| {
            let fields: Vec<String> = setter
                .fields
                .iter()
                .map(|(field, parameters)| format!("{field} <- {parameters:?}"))
                .collect();
            format!("{}: {}", setter.method.name, fields.join(", "))
        })
        .collect();
    assert_eq!(
        setters,
        [
            "setText: text <- [0]",
            // Through the private helper it calls.
            "resize: width <- [0]",
        ]
    );
}

#[test]
fn the_bound_on_choices_keeps_the_literals_of_a_loosely_typed_parameter() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let describe = MethodId::of(
        "fixtures/construct/Shapes",
        "describe",
        "(Ljava/lang/Object;)Ljava/lang/String;",
    );
    let choices_with = |max_choices| {
        let bounds = Bounds {
            max_choices,
            ..Bounds::default()
        };
        let template = Template::new(&recipes, describe.clone(), true, &[], bounds).unwrap();
        let HoleKind::Reference { choices, .. } = template.args[0].kind.clone() else {
            panic!("an Object parameter is a reference hole")
        };
        choices
    };
    // Unbounded, the program's classes come first, the literals last.
    let all = choices_with(usize::MAX);
    assert!(all.len() > 4, "{all:?}");
    assert!(matches!(
        all[all.len() - 2..],
        [Choice::Str, Choice::Boxed { .. }]
    ));
    // Cut to four: the first two classes, and both literals still.
    let cut = choices_with(4);
    assert_eq!(cut[..2], all[..2]);
    assert!(
        matches!(cut[2..], [Choice::Str, Choice::Boxed { .. }]),
        "{cut:?}"
    );
}

#[test]
fn a_value_derived_from_another_of_its_class_comes_after_the_direct_ways() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let unit = ClassName::internal("fixtures/construct/Unit");
    let ways = recipes.of(&unit);
    assert!(
        matches!(&ways[..], [
            Recipe::Constant { field, .. },
            Recipe::Factory { method: of },
            Recipe::Produced { method: times },
        ] if field == "METRE" && of.name == "of" && times.name == "times"),
        "{ways:?}"
    );
    // `Unit.METRE.times(3)`: the receiver is a hole of its own, whose
    // choices are the direct ways again, within the template's bounds.
    let equals = MethodId::of(unit.as_internal(), "equals", "(Ljava/lang/Object;)Z");
    let template = Template::new(&recipes, equals, false, &[], Bounds::default()).unwrap();
    let HoleKind::Reference { choices, .. } = &template.args[0].kind else {
        panic!("an Object parameter is a reference hole")
    };
    let Some(Choice::Produced { receiver, .. }) = choices
        .iter()
        .find(|choice| matches!(choice, Choice::Produced { method, .. } if method.name == "times"))
    else {
        panic!("no derived unit among {choices:?}")
    };
    // Derivations do not nest: the receiver is built the direct ways only.
    let HoleKind::Reference { choices, .. } = &receiver.kind else {
        panic!("a receiver is a reference hole")
    };
    assert!(!choices.is_empty());
    assert!(
        choices
            .iter()
            .all(|choice| !matches!(choice, Choice::Produced { .. })),
        "{choices:?}"
    );
}

#[test]
fn an_object_parameter_takes_its_own_classs_objects_first() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let unit = "fixtures/construct/Unit";
    let equals = MethodId::of(unit, "equals", "(Ljava/lang/Object;)Z");
    let template = Template::new(&recipes, equals, false, &[], Bounds::default()).unwrap();
    let HoleKind::Reference { choices, .. } = &template.args[0].kind else {
        panic!("an Object parameter is a reference hole")
    };
    // `Unit` has no public constructor: only its own recipes make one, and
    // they come before every other class's and the literals.
    assert!(
        matches!(&choices[0], Choice::Constant { owner, .. } if owner.as_internal() == unit),
        "{choices:?}"
    );
    assert!(
        matches!(&choices[1], Choice::Factory { method, .. } if method.name == "of"),
        "{choices:?}"
    );
    assert!(matches!(
        choices[choices.len() - 2..],
        [Choice::Str, Choice::Boxed { .. }]
    ));
    // A static method's `Object` parameter is not about its class (a
    // utility class, as a rule): the program's classes in their order.
    let describe = MethodId::of(
        "fixtures/construct/Shapes",
        "describe",
        "(Ljava/lang/Object;)Ljava/lang/String;",
    );
    let template = Template::new(&recipes, describe, true, &[], Bounds::default()).unwrap();
    let HoleKind::Reference { choices, .. } = &template.args[0].kind else {
        panic!("an Object parameter is a reference hole")
    };
    assert!(
        matches!(&choices[0], Choice::New { class, .. } if class.as_internal() == "fixtures/construct/Circle"),
        "{choices:?}"
    );
}

#[test]
fn only_classes_a_test_can_name_are_used() {
    let classes = classes();
    let program = program(&classes);
    let nameable =
        |name: &str| testgen_construct::recipes::nameable(&program, &ClassName::internal(name));
    assert!(nameable("fixtures/construct/Shape"));
    // A nested class of a class of the program.
    assert!(nameable("fixtures/construct/Shape$Kind"));
    // A `$` of the name itself (gson's `$Gson$Types`), a nested class of a
    // class that is not there, an anonymous class.
    assert!(!nameable("fixtures/construct/$Shape$Types"));
    assert!(!nameable("fixtures/construct/Missing$Inner"));
    assert!(!nameable("fixtures/construct/Shape$1"));
}

/// The choice building `class` among a reference hole's choices.
fn new_of<'t>(hole: &'t testgen_construct::Hole, class: &str) -> &'t Choice {
    let HoleKind::Reference { choices, .. } = &hole.kind else {
        panic!("{} is not a reference hole", hole.path)
    };
    choices
        .iter()
        .find(|c| matches!(c, Choice::New { class: made, .. } if made.as_internal() == class))
        .unwrap_or_else(|| panic!("no new {class} for {}: {choices:?}", hole.path))
}

/// The names of the setters a `new` choice calls, each with its argument holes.
fn setters_of(choice: &Choice) -> Vec<(&str, &[testgen_construct::Hole])> {
    let Choice::New { setters, .. } = choice else {
        panic!("not a new: {choice:?}")
    };
    setters
        .iter()
        .map(|call| (call.method.name.as_str(), call.args.as_slice()))
        .collect()
}

#[test]
fn a_new_object_gets_its_setters_with_holes_down_to_the_depth_bound() {
    let dir = testgen_testkit::compile_fixture("graphs");
    let classes = testgen_testkit::classes_in(&dir);
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    // rank(Student): the student's supervisor, its CV and the CV's award
    // count are all set through setters whose arguments are holes.
    let rank = MethodId::of(
        "fixtures/graphs/Ranking",
        "rank",
        "(Lfixtures/graphs/Student;)Ljava/lang/String;",
    );
    let template = Template::new(&recipes, rank, true, &[], Bounds::default()).unwrap();
    let student = setters_of(new_of(&template.args[0], "fixtures/graphs/Student"));
    assert_eq!(student.len(), 1, "{student:?}");
    assert_eq!(student[0].0, "setSupervisor");
    let supervisor = setters_of(new_of(&student[0].1[0], "fixtures/graphs/Supervisor"));
    assert_eq!(supervisor.len(), 1, "{supervisor:?}");
    assert_eq!(supervisor[0].0, "setCv");
    let cv = setters_of(new_of(&supervisor[0].1[0], "fixtures/graphs/Cv"));
    assert_eq!(cv.len(), 1, "{cv:?}");
    assert_eq!(cv[0].0, "setAwards");
    assert!(matches!(cv[0].1[0].kind, HoleKind::Primitive(_)));

    // listed(Profile) reads the field only the fifth setter writes: it
    // comes first, within the bound on setters.
    let listed = MethodId::of(
        "fixtures/graphs/Ranking",
        "listed",
        "(Lfixtures/graphs/Profile;)Z",
    );
    let template = Template::new(&recipes, listed, true, &[], Bounds::default()).unwrap();
    let profile = setters_of(new_of(&template.args[0], "fixtures/graphs/Profile"));
    let names: Vec<&str> = profile.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        ["setVerified", "setHeadline", "setCity", "setFollowers"]
    );

    // sameShape(Node): the receiver is left to its contexts; the argument
    // node gets both setters, whose nodes get theirs, until the depth
    // bound leaves a node with none.
    let same_shape = MethodId::of(
        "fixtures/graphs/Node",
        "sameShape",
        "(Lfixtures/graphs/Node;)Z",
    );
    let bounds = Bounds::default();
    let template = Template::new(&recipes, same_shape, false, &[], bounds.clone()).unwrap();
    let receiver = template.receiver.as_ref().unwrap();
    assert!(setters_of(new_of(receiver, "fixtures/graphs/Node")).is_empty());
    let mut node = &template.args[0];
    let mut levels = 0;
    while !matches!(&node.kind, HoleKind::Reference { choices, .. } if choices.is_empty()) {
        let setters = setters_of(new_of(node, "fixtures/graphs/Node"));
        let names: Vec<&str> = setters.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, ["setLeft", "setRight"], "{}", node.path);
        node = &setters[0].1[0];
        levels += 1;
    }
    // The hole below the deepest object built is null only.
    assert_eq!(levels, bounds.max_object_depth + 1);
    assert!(template.holes().len() <= bounds.max_holes);
}

#[test]
fn a_program_keeps_static_state_when_one_class_does() {
    let classes = classes();
    let program = program(&classes);
    assert!(!Recipes::new(&program).program_keeps_static_state());
    // `fixtures/analysis` has a counter in a static field.
    let dir = testgen_testkit::compile_fixture("analysis");
    let with_statics = testgen_testkit::classes_in(&dir);
    let program = self::program(&with_statics);
    assert!(Recipes::new(&program).program_keeps_static_state());
}

#[test]
fn getters_that_move_a_cursor_or_consume_input_may_change_state_and_others_do_not() {
    let classes = classes();
    let program = program(&classes);
    let recipes = Recipes::new(&program);
    let with_effects = recipes.getters_with_effects();
    let tape: Vec<&str> = with_effects["fixtures.construct.Tape"]
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tape,
        [
            "getCountAfterMarking",
            "getFirstCharacter",
            "getNextWord",
            "getWordAfterNext",
            "isLinked"
        ]
    );
    let looks = |name: &str, descriptor: &str| {
        !recipes.may_change_state(&MethodId::of("fixtures/construct/Tape", name, descriptor))
    };
    assert!(looks("getPosition", "()I"));
    assert!(looks("getWords", "()Ljava/util/List;"));
    assert!(looks("isAtStart", "()Z"));
}
