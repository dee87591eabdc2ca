//! Stage: possible bugs. A case whose act let an unchecked exception of
//! the kinds the JDK throws when it is used wrongly (an index out of
//! bounds, a class cast, arithmetic) escape from inside the JDK, which the
//! method does not declare, shows what is more likely a bug than a
//! contract: `substring` past the end of a string the method was given.
//! Written as a test, it would assert the bug as expected behaviour; so it
//! is reported, with the test that shows it, and written as a test only
//! with `--possible-bugs assert`.

use serde::{Deserialize, Serialize};
use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::descriptor::MethodDescriptor;
use testgen_emit::emit_cases;
use testgen_exec::{ExceptionInfo, StatementOutcome};
use testgen_project::{ClassName, MethodId, Program};

use super::cases::{act_of, Cases};
use super::select::Coverage;
use crate::generate::options::PossibleBugs;

/// JDK exceptions that report a misuse of the JDK, each with its JDK
/// supertypes below `RuntimeException`: a method that declares one of
/// those (or `RuntimeException`, `Exception`, `Throwable`) warns its
/// callers, and its exception is a contract, not a finding.
const MISUSE: &[(&str, &[&str])] = &[
    (
        "java.lang.StringIndexOutOfBoundsException",
        &["java.lang.IndexOutOfBoundsException"],
    ),
    (
        "java.lang.ArrayIndexOutOfBoundsException",
        &["java.lang.IndexOutOfBoundsException"],
    ),
    ("java.lang.IndexOutOfBoundsException", &[]),
    ("java.lang.ClassCastException", &[]),
    ("java.lang.ArithmeticException", &[]),
    ("java.lang.NegativeArraySizeException", &[]),
    ("java.lang.ArrayStoreException", &[]),
];

const ROOTS: &[&str] = &[
    "java.lang.RuntimeException",
    "java.lang.Exception",
    "java.lang.Throwable",
];

/// An exception that escaped from inside the JDK through a method under
/// test which does not declare it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PossibleBug {
    /// The method under test, `name(descriptor)`.
    pub method: String,
    /// The same as Java declares it: `int findWrapPos(java.lang.String, int, int)`.
    pub declaration: String,
    /// The exception's binary class name.
    pub exception: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where the JDK threw it: `java.lang.String.substring`.
    pub thrown_in: String,
    /// The source file (`org/apache/commons/cli/HelpFormatter.java`) and
    /// line of the program's frame nearest the throw; absent without debug
    /// information.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The test that shows it, as it would be written.
    pub test: String,
}

/// The possible bugs some cases show, and what those cases cover.
#[derive(Default)]
pub struct Findings {
    pub bugs: Vec<PossibleBug>,
    /// The goals the cases that show them cover (left to no test when
    /// they are not written).
    pub coverage: Coverage,
}

/// The possible bugs `cases` show; with [`PossibleBugs::Report`] their
/// cases leave `cases`.
pub fn possible_bugs(program: &Program<'_>, cases: &mut Cases, mode: PossibleBugs) -> Findings {
    let mut found = Vec::new();
    let mut shown_by = Vec::new();
    for (index, case) in cases.class.tests.iter().enumerate() {
        let Some(exception) = case.first.statements.iter().find_map(|s| match s {
            StatementOutcome::Threw { exception } => Some(exception),
            _ => None,
        }) else {
            continue;
        };
        let Some(method) = act_of(&case.plan, &case.first) else {
            continue;
        };
        let Some(thrown_in) = jdk_misuse(exception) else {
            continue;
        };
        if declares(program, &method, &exception.class) {
            continue;
        }
        let written = emit_cases(&cases.class, &[index]);
        let Some(span) = written.methods.first() else {
            continue;
        };
        let lines: Vec<&str> = written
            .source
            .lines()
            .skip(span.first_line - 1)
            .take(span.last_line + 1 - span.first_line)
            .collect();
        // The program's frame nearest the throw: where the JDK was called.
        let frame = exception
            .frames
            .iter()
            .find(|frame| program.class(&ClassName::binary(&frame.class)).is_some());
        let declaration = match MethodDescriptor::parse(&method.descriptor) {
            Ok(descriptor) => descriptor.display_with_name(&method.name).to_string(),
            Err(_) => method.signature(),
        };
        let bug = PossibleBug {
            method: method.signature(),
            declaration,
            exception: exception.class.clone(),
            message: exception.message.clone(),
            thrown_in,
            file: frame.and_then(|f| Some(source_path(&f.class, f.file.as_deref()?))),
            line: frame
                .and_then(|f| f.line)
                .and_then(|line| u32::try_from(line).ok()),
            test: dedent(&lines),
        };
        // Another case showing the same throw at the same place adds
        // nothing to the report (its case still goes).
        let same_place = |other: &PossibleBug| {
            (&other.method, &other.exception, &other.file, other.line)
                == (&bug.method, &bug.exception, &bug.file, bug.line)
        };
        if !found.iter().any(same_place) {
            found.push(bug);
        }
        shown_by.push(index);
    }
    let mut coverage = Coverage::new();
    if mode == PossibleBugs::Report {
        for &index in shown_by.iter().rev() {
            cases.class.tests.remove(index);
            coverage.extend(cases.coverage.remove(index));
        }
    }
    Findings {
        bugs: found,
        coverage,
    }
}

/// `Some("java.lang.String.substring")`, the JDK method the program
/// called, when `exception` is a misuse the JDK reported from its own code.
fn jdk_misuse(exception: &ExceptionInfo) -> Option<String> {
    MISUSE
        .iter()
        .any(|(class, _)| *class == exception.class)
        .then_some(())?;
    let jdk_frames = exception
        .frames
        .iter()
        .take_while(|frame| is_jdk_class(&frame.class))
        .count();
    let called = exception.frames.get(jdk_frames.checked_sub(1)?)?;
    Some(format!("{}.{}", called.class, called.method))
}

/// Whether `method`'s `throws` clause names `exception` or a supertype.
fn declares(program: &Program<'_>, method: &MethodId, exception: &str) -> bool {
    let Some((class, member)) = program.method(method) else {
        // Not the program's: nothing to read, nothing to claim.
        return true;
    };
    let Ok(Some(AttributeInfo::Exceptions(indices))) = member.attribute(class, "Exceptions") else {
        return false;
    };
    let supertypes: Vec<&str> = MISUSE
        .iter()
        .find(|(class, _)| *class == exception)
        .map(|(_, supers)| supers.to_vec())
        .unwrap_or_default();
    indices.iter().any(|&index| {
        let Ok(name) = class.constant_pool.class_name(index) else {
            return false;
        };
        let declared = ClassName::internal(name.into_owned()).to_binary();
        declared == exception
            || supertypes.contains(&declared.as_str())
            || ROOTS.contains(&declared.as_str())
    })
}

/// `a/b/C.java` for a class `a.b.C$D` compiled from `C.java`.
fn source_path(class: &str, file: &str) -> String {
    match class.rsplit_once('.') {
        Some((package, _)) => format!("{}/{file}", package.replace('.', "/")),
        None => file.to_string(),
    }
}

fn is_jdk_class(class: &str) -> bool {
    ["java.", "javax.", "jdk.", "sun.", "com.sun."]
        .iter()
        .any(|prefix| class.starts_with(prefix))
}

/// The lines with their common indentation removed.
fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<&str> = lines
        .iter()
        .map(|line| line.get(indent..).unwrap_or("").trim_end())
        .collect();
    while out.last().is_some_and(|line| line.is_empty()) {
        out.pop();
    }
    out.join("\n") + "\n"
}
