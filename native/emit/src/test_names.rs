//! Names of test methods. Each case would like a name saying what its act
//! did (`clampReturns10`); cases that would like the same one are told
//! apart by what differs between them, each a phrase true of its test
//! (`WhenMaxIs20`, `WhenItemHasQuantity0`, `SayingNoSuchKey`,
//! `AfterAddOption`). A numeric suffix is the last resort, for tests that
//! differ only where no phrase reaches.

use std::collections::{BTreeMap, BTreeSet};

use testgen_exec::{Statement, Value};

use crate::emit::refers_to;
use crate::model::TestCase;
use crate::names;
use crate::oracle::described_properties;
use crate::runs::Seen;

/// A way two tests of the same name can differ, in the order names prefer
/// them when several tell the tests apart equally well.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Facet {
    /// The act's argument at this position: `When{Parameter}Is{Value}`.
    Argument(usize),
    /// The elements an array passed at this position holds, stored by the
    /// plan: `When{Parameter}Holds{Value}And{Value}`.
    ArgumentElements(usize),
    /// A property of the object passed at this position, which nothing
    /// touched between its making and the act:
    /// `When{Parameter}Has{Property}{Value}`.
    ArgumentProperty(usize, String),
    /// A property of the act's receiver, likewise untouched:
    /// `When{Type}Has{Property}{Value}`.
    ReceiverProperty(String),
    /// How many arguments the act takes, for overloads:
    /// `With{N}Arguments`.
    Arity,
    /// The message of the exception the act threw, when the test asserts
    /// it: `Saying{Words}`.
    Message,
    /// A property of the act's result: `With{Property}{Value}`.
    ResultProperty(String),
    /// The calls made before the act (results unused, or on an object):
    /// `After{Call}And{Call}`.
    ArrangeCalls,
    /// The first asserted property the act left changed or in place:
    /// `Leaving{Property}{Value}`.
    State,
}

/// One way a test can be told apart, as the phrase its name would gain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Distinction {
    pub facet: Facet,
    pub phrase: String,
}

/// What a test method would like to be called.
#[derive(Clone, Debug, Default)]
pub(crate) struct NameParts {
    /// The act and what it did: `clampReturns10`.
    pub base: String,
    /// Phrases true of the test, at most one per facet.
    pub distinctions: Vec<Distinction>,
}

impl Distinction {
    /// `Saying{Words}` for an asserted exception message with words in it.
    pub fn message(message: &str) -> Option<Distinction> {
        let words = names::camel_words(message, 4);
        (!words.is_empty()).then(|| Distinction {
            facet: Facet::Message,
            phrase: format!("Saying{words}"),
        })
    }

    /// `Leaving{Property}{Value}` for a property asserted after the act.
    pub fn state(property: &str, value: &str) -> Distinction {
        Distinction {
            facet: Facet::State,
            phrase: format!("Leaving{property}{value}"),
        }
    }
}

/// The distinctions of `case` read from its plan and first run: the act's
/// arguments, the properties of the objects it is given and called on, and
/// the calls that arranged them. `receiver_local` names the act's receiver
/// as the test does.
pub(crate) fn distinctions(
    case: &TestCase,
    act: usize,
    receiver_local: Option<&str>,
) -> Vec<Distinction> {
    let statements = &case.plan.statements;
    let mut out = Vec::new();
    let (receiver, arguments): (Option<&Value>, &[Value]) = match &statements[act] {
        Statement::Call { receiver, args, .. } => (Some(receiver), args),
        Statement::New { args, .. } | Statement::CallStatic { args, .. } => (None, args),
        _ => (None, &[]),
    };
    for (position, argument) in arguments.iter().enumerate() {
        let parameter = case
            .parameter_names
            .get(position)
            .map(|n| names::capitalise(&names::identifier(n)))
            .unwrap_or_else(|| format!("Arg{}", position + 1));
        let described = match argument {
            Value::Ref { statement } => {
                Seen::statement(case, *statement).map(|seen| names::describe_rendered(seen.first))
            }
            literal => names::describe_value(literal),
        };
        if let Some(value) = described {
            out.push(Distinction {
                facet: Facet::Argument(position),
                phrase: format!("When{parameter}Is{value}"),
            });
        }
        if let Some(elements) = stored_elements(case, argument, act) {
            out.push(Distinction {
                facet: Facet::ArgumentElements(position),
                phrase: format!("When{parameter}Holds{}", elements.join("And")),
            });
        }
        for (property, value) in untouched_properties(case, argument, act) {
            out.push(Distinction {
                facet: Facet::ArgumentProperty(position, property.clone()),
                phrase: format!("When{parameter}Has{property}{value}"),
            });
        }
    }
    out.push(Distinction {
        facet: Facet::Arity,
        phrase: match arguments.len() {
            0 => "WithNoArguments".to_string(),
            1 => "With1Argument".to_string(),
            n => format!("With{n}Arguments"),
        },
    });
    if let Some(result) = Seen::statement(case, act) {
        for (property, value) in described_properties(&result) {
            out.push(Distinction {
                facet: Facet::ResultProperty(property.clone()),
                phrase: format!("With{property}{value}"),
            });
        }
    }
    if let (Some(receiver), Some(local)) = (receiver, receiver_local) {
        let owner = names::capitalise(local);
        for (property, value) in untouched_properties(case, receiver, act) {
            out.push(Distinction {
                facet: Facet::ReceiverProperty(property.clone()),
                phrase: format!("When{owner}Has{property}{value}"),
            });
        }
    }
    let effect_calls = effect_calls(statements, act);
    if !effect_calls.is_empty() {
        out.push(Distinction {
            facet: Facet::ArrangeCalls,
            phrase: format!("After{}", effect_calls.join("And")),
        });
    }
    out
}

/// The properties (name and described value) of the object `value` refers
/// to, as its first run saw them when it was made, when no statement
/// between its making and the act could have changed them: made by a
/// constructor (a call's result may be a view of an object that changes
/// after) and named by no later statement.
fn untouched_properties(case: &TestCase, value: &Value, act: usize) -> Vec<(String, String)> {
    let Value::Ref { statement: made } = value else {
        return Vec::new();
    };
    if !matches!(case.plan.statements[*made], Statement::New { .. }) {
        return Vec::new();
    }
    let touched = case.plan.statements[made + 1..act]
        .iter()
        .any(|statement| refers_to(statement, *made));
    match Seen::statement(case, *made).filter(|_| !touched) {
        Some(seen) => described_properties(&seen),
        None => Vec::new(),
    }
}

/// The methods called before `act` on an object, or statically for their
/// effect (results unused), each once, in order, at most three; not the
/// factories that only make values.
fn effect_calls(statements: &[Statement], act: usize) -> Vec<String> {
    let mut calls: Vec<String> = Vec::new();
    for (index, statement) in statements[..act].iter().enumerate() {
        let name = match statement {
            Statement::Call { name, .. } => name,
            Statement::CallStatic { name, .. }
                if !statements[index + 1..=act]
                    .iter()
                    .any(|later| refers_to(later, index)) =>
            {
                name
            }
            _ => continue,
        };
        let name = names::capitalise(&names::identifier(name));
        if !calls.contains(&name) && calls.len() < 3 {
            calls.push(name);
        }
    }
    calls
}

/// The elements, described, of the array `value` refers to when the plan
/// made it and stored every one of them (one to three) before the act.
fn stored_elements(case: &TestCase, value: &Value, act: usize) -> Option<Vec<String>> {
    let Value::Ref { statement: made } = value else {
        return None;
    };
    let statements = &case.plan.statements;
    let Statement::NewArray { length, .. } = statements[*made] else {
        return None;
    };
    if !(1..=3).contains(&length) {
        return None;
    }
    let mut elements: Vec<Option<String>> = vec![None; length as usize];
    for statement in &statements[made + 1..act] {
        match statement {
            Statement::ArrayStore {
                array: Value::Ref { statement: array },
                index,
                value,
            } if array == made => {
                let slot = elements.get_mut(usize::try_from(*index).ok()?)?;
                *slot = match value {
                    Value::Ref { statement } => Seen::statement(case, *statement)
                        .map(|seen| names::describe_rendered(seen.first)),
                    literal => names::describe_value(literal),
                };
            }
            // Anything else that reads the array could change it.
            other if refers_to(other, *made) => return None,
            _ => {}
        }
    }
    elements.into_iter().collect()
}

/// Rounds of telling tests apart before numbering those left.
const MAX_ROUNDS: usize = 3;

/// A distinct name for every test, in the order given.
pub(crate) fn unique_names(parts: &[NameParts]) -> Vec<String> {
    let mut names: Vec<String> = parts.iter().map(|p| p.base.clone()).collect();
    let everyone: Vec<usize> = (0..names.len()).collect();
    // Those told apart leave the rest a smaller group, in which a phrase
    // may now be a member's own.
    for _round in 0..MAX_ROUNDS {
        let mut changed = false;
        for group in sharing_a_name(&names, &everyone) {
            let name = names[group[0]].clone();
            for &member in &group {
                if let Some(phrases) = telling_apart(parts, &group, member, &name) {
                    names[member].push_str(&phrases.concat());
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut seen = BTreeSet::new();
    for name in &mut names {
        if !seen.insert(name.clone()) {
            let mut n = 2;
            while seen.contains(&format!("{name}_{n}")) {
                n += 1;
            }
            *name = format!("{name}_{n}");
            seen.insert(name.clone());
        }
    }
    names
}

/// The groups of two or more among `members` whose names are equal.
fn sharing_a_name(names: &[String], members: &[usize]) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &member in members {
        groups.entry(&names[member]).or_default().push(member);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

/// The fewest phrases of `member` (one, else two, facets in the order
/// names prefer) that no other member of `group` has, leaving out those
/// its name already holds; `None` when no pair does either.
fn telling_apart<'p>(
    parts: &'p [NameParts],
    group: &[usize],
    member: usize,
    name: &str,
) -> Option<Vec<&'p str>> {
    let has = |m: usize, phrase: &str| parts[m].distinctions.iter().any(|d| d.phrase == phrase);
    let others: Vec<usize> = group.iter().copied().filter(|&m| m != member).collect();
    let mut own: Vec<&Distinction> = parts[member]
        .distinctions
        .iter()
        .filter(|d| !name.contains(d.phrase.as_str()))
        .collect();
    own.sort_by(|a, b| a.facet.cmp(&b.facet));
    if let Some(d) = own
        .iter()
        .find(|d| others.iter().all(|&o| !has(o, &d.phrase)))
    {
        return Some(vec![d.phrase.as_str()]);
    }
    for (i, first) in own.iter().enumerate() {
        for second in &own[i + 1..] {
            if first.phrase == second.phrase {
                continue;
            }
            if !others
                .iter()
                .any(|&o| has(o, &first.phrase) && has(o, &second.phrase))
            {
                return Some(vec![first.phrase.as_str(), second.phrase.as_str()]);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(base: &str, distinctions: &[(Facet, &str)]) -> NameParts {
        NameParts {
            base: base.to_string(),
            distinctions: distinctions
                .iter()
                .map(|(facet, phrase)| Distinction {
                    facet: facet.clone(),
                    phrase: phrase.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn each_test_gains_the_first_phrase_only_it_has() {
        let names = unique_names(&[
            parts(
                "fReturns0",
                &[
                    (Facet::Argument(0), "WhenAIs1"),
                    (Facet::Argument(1), "WhenBIs1"),
                ],
            ),
            parts(
                "fReturns0",
                &[
                    (Facet::Argument(0), "WhenAIs1"),
                    (Facet::Argument(1), "WhenBIs2"),
                ],
            ),
            parts(
                "fReturns0",
                &[
                    (Facet::Argument(0), "WhenAIs2"),
                    (Facet::Argument(1), "WhenBIs3"),
                ],
            ),
            parts("gReturns1", &[(Facet::Argument(0), "WhenAIs1")]),
        ]);
        assert_eq!(
            names,
            [
                "fReturns0WhenBIs1",
                "fReturns0WhenBIs2",
                "fReturns0WhenAIs2",
                "gReturns1"
            ]
        );
    }

    #[test]
    fn groups_shrink_and_a_suffix_is_the_last_resort() {
        let names = unique_names(&[
            parts(
                "fThrowsX",
                &[
                    (Facet::Argument(0), "WhenAIsNull"),
                    (Facet::ArrangeCalls, "AfterClear"),
                ],
            ),
            parts("fThrowsX", &[(Facet::Argument(0), "WhenAIsNull")]),
            parts("fThrowsX", &[(Facet::Argument(0), "WhenAIs1")]),
            parts("fThrowsX", &[(Facet::Argument(0), "WhenAIs1")]),
        ]);
        assert_eq!(
            names,
            [
                "fThrowsXAfterClear",
                "fThrowsXWhenAIsNull",
                "fThrowsX",
                "fThrowsX_2"
            ]
        );
    }

    #[test]
    fn a_phrase_counts_by_its_words_whichever_argument_it_is() {
        // Overloads: `x` first in one, second in the other.
        let names = unique_names(&[
            parts("fThrowsX", &[(Facet::Argument(0), "WhenXIsNull")]),
            parts(
                "fThrowsX",
                &[
                    (Facet::Argument(0), "WhenWIs1"),
                    (Facet::Argument(1), "WhenXIsNull"),
                ],
            ),
        ]);
        assert_eq!(names, ["fThrowsX", "fThrowsXWhenWIs1"]);
    }

    /// What the recorded models' tests can truly be called: the act, what
    /// it did, then any of the phrases true of the test, read from the
    /// model here rather than from the emitter's own choices.
    mod truth {
        use testgen_exec::{RenderedValue, Statement, StatementOutcome, Value};

        use crate::emit::{refers_to, shape};
        use crate::model::TestCase;
        use crate::names;
        use crate::runs::{value_of, Seen};
        use crate::types;

        /// A name's true parts: how it may start (the act and what it
        /// did), the phrases that may follow, and those that may follow
        /// `When{receiver's local name}`.
        pub struct Truths {
            pub heads: Vec<String>,
            pub phrases: Vec<String>,
            pub receiver_phrases: Vec<String>,
        }

        fn properties(value: &RenderedValue) -> Vec<(String, String)> {
            let seen = Seen {
                first: value,
                others: Vec::new(),
            };
            seen.properties()
                .into_iter()
                .map(|(name, property)| {
                    (
                        names::property_name(name),
                        names::describe_rendered(property.first),
                    )
                })
                .collect()
        }

        fn untouched(case: &TestCase, made: usize, act: usize) -> bool {
            case.plan.statements[made + 1..act]
                .iter()
                .all(|s| !refers_to(s, made))
        }

        pub fn of(case: &TestCase) -> Truths {
            let shape = shape(case).ok().expect("an emitted case has a shape");
            let act = shape.act;
            let statements = &case.plan.statements;
            let value = |index: usize| value_of(case.first.statements.get(index));
            let act_name = match &statements[act] {
                Statement::Call { name, .. } | Statement::CallStatic { name, .. } => name.clone(),
                Statement::New { class, .. } => format!("new{}", types::simple_name(class)),
                other => panic!("an act the recorded models do not have: {other:?}"),
            };
            // `(property, value, changed since the object was made)`.
            let observed_after: Vec<(String, String, bool)> = shape
                .observations
                .iter()
                .filter_map(|&(target, observation)| {
                    let made = value(target).map(properties).unwrap_or_default();
                    Some((made, value(observation)?))
                })
                .flat_map(|(made, after)| {
                    properties(after).into_iter().map(move |(p, v)| {
                        let changed = !made.contains(&(p.clone(), v.clone()));
                        (p, v, changed)
                    })
                })
                .collect();
            let mut behaviours = Vec::new();
            match case.first.statements.get(act) {
                Some(StatementOutcome::Threw { exception }) => {
                    behaviours.push(format!("Throws{}", types::simple_name(&exception.class)))
                }
                Some(StatementOutcome::Value { value: result }) => {
                    behaviours.push(format!("Returns{}", names::describe_rendered(result)));
                    behaviours.push("CreatesInstance".to_string());
                    for (p, v) in properties(result) {
                        behaviours.push(format!("Has{p}{v}"));
                    }
                }
                _ => {}
            }
            behaviours.push("Succeeds".to_string());
            for (p, v, changed) in &observed_after {
                behaviours.push(if *changed {
                    format!("Sets{p}To{v}")
                } else {
                    format!("Keeps{p}As{v}")
                });
                if *changed && (p == "ToString" || p == "ToByteArray") {
                    behaviours.push(format!("Writes{v}"));
                }
            }
            let heads = behaviours
                .into_iter()
                .map(|b| names::identifier(&format!("{act_name}{b}")))
                .collect();

            let mut phrases = Vec::new();
            let mut receiver_phrases = Vec::new();
            let (receiver, args): (Option<&Value>, &[Value]) = match &statements[act] {
                Statement::Call { receiver, args, .. } => (Some(receiver), args),
                Statement::CallStatic { args, .. } | Statement::New { args, .. } => (None, args),
                _ => (None, &[]),
            };
            for (position, arg) in args.iter().enumerate() {
                let parameter = case
                    .parameter_names
                    .get(position)
                    .map(|n| names::capitalise(&names::identifier(n)))
                    .unwrap_or_else(|| format!("Arg{}", position + 1));
                let rendered = match arg {
                    Value::Ref { statement } => value(*statement).cloned(),
                    literal => crate::literal::rendered_of(literal),
                };
                if let Some(rendered) = rendered {
                    let described = names::describe_rendered(&rendered);
                    phrases.push(format!("When{parameter}Is{described}"));
                }
                if let Value::Ref { statement } = arg {
                    // The elements the array holds at the act.
                    if let Some(RenderedValue::Array { length, .. }) = value(*statement) {
                        let mut held = vec!["Null".to_string(); *length as usize];
                        for later in &statements[statement + 1..act] {
                            if let Statement::ArrayStore {
                                array: Value::Ref { statement: array },
                                index,
                                value: stored,
                            } = later
                            {
                                if array == statement {
                                    let rendered = match stored {
                                        Value::Ref { statement } => value(*statement).cloned(),
                                        literal => crate::literal::rendered_of(literal),
                                    };
                                    held[*index as usize] = rendered
                                        .map(|r| names::describe_rendered(&r))
                                        .unwrap_or_default();
                                }
                            }
                        }
                        phrases.push(format!("When{parameter}Holds{}", held.join("And")));
                    }
                    if untouched(case, *statement, act) {
                        for (p, v) in value(*statement).map(properties).unwrap_or_default() {
                            phrases.push(format!("When{parameter}Has{p}{v}"));
                        }
                    }
                }
            }
            phrases.push(match args.len() {
                0 => "WithNoArguments".to_string(),
                1 => "With1Argument".to_string(),
                n => format!("With{n}Arguments"),
            });
            if let Some(StatementOutcome::Value { value: result }) = case.first.statements.get(act)
            {
                for (p, v) in properties(result) {
                    phrases.push(format!("With{p}{v}"));
                }
            }
            if let Some(Value::Ref { statement }) = receiver {
                if untouched(case, *statement, act) {
                    for (p, v) in value(*statement).map(properties).unwrap_or_default() {
                        receiver_phrases.push(format!("Has{p}{v}"));
                    }
                }
            }
            // Any calls made before the act, in order.
            let called: Vec<String> = statements[..act]
                .iter()
                .filter_map(|s| match s {
                    Statement::Call { name, .. } | Statement::CallStatic { name, .. } => {
                        Some(names::capitalise(&names::identifier(name)))
                    }
                    _ => None,
                })
                .collect();
            for first in &called {
                phrases.push(format!("After{first}"));
                for second in &called {
                    phrases.push(format!("After{first}And{second}"));
                    for third in &called {
                        phrases.push(format!("After{first}And{second}And{third}"));
                    }
                }
            }
            if let Some(StatementOutcome::Threw { exception }) = case.first.statements.get(act) {
                if let Some(message) = &exception.message {
                    phrases.push(format!("Saying{}", names::camel_words(message, 4)));
                }
            }
            for (p, v, _) in &observed_after {
                phrases.push(format!("Leaving{p}{v}"));
            }
            Truths {
                heads,
                phrases,
                receiver_phrases,
            }
        }

        /// Whether `rest` is a sequence of true phrases, then perhaps `_N`.
        pub fn reads_as(rest: &str, truths: &Truths) -> bool {
            if rest.is_empty()
                || rest
                    .strip_prefix('_')
                    .is_some_and(|n| n.parse::<u32>().is_ok_and(|n| n >= 2))
            {
                return true;
            }
            let exact = truths.phrases.iter().any(|phrase| {
                rest.strip_prefix(phrase.as_str())
                    .is_some_and(|after| reads_as(after, truths))
            });
            let via_receiver = rest.strip_prefix("When").is_some_and(|after_when| {
                truths.receiver_phrases.iter().any(|phrase| {
                    after_when
                        .match_indices(phrase.as_str())
                        .any(|(at, _)| at > 0 && reads_as(&after_when[at + phrase.len()..], truths))
                })
            });
            exact || via_receiver
        }
    }

    #[test]
    fn the_recorded_models_names_say_what_their_tests_do() {
        let dir = testgen_testkit::repo_root().join("fixtures/emit/models");
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .expect("fixtures/emit/models exists")
            .map(|entry| entry.unwrap().path())
            .collect();
        paths.sort();
        let mut checked = 0;
        let mut extended = 0;
        for path in paths {
            let recorded: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let class: crate::TestClass =
                serde_json::from_value(recorded["class"].clone()).unwrap();
            for method in crate::emit(&class).methods {
                let case = &class.tests[method.case];
                let truths = truth::of(case);
                let head = truths
                    .heads
                    .iter()
                    .filter(|head| method.name.starts_with(head.as_str()))
                    .find(|head| truth::reads_as(&method.name[head.len()..], &truths));
                assert!(
                    head.is_some(),
                    "{}: {} says something its test does not do",
                    path.display(),
                    method.name
                );
                checked += 1;
                extended += usize::from(method.name.len() > head.unwrap().len());
            }
        }
        assert!(checked > 100, "the models give many tests ({checked})");
        assert!(extended > 10, "many names carry phrases ({extended})");
    }
}
