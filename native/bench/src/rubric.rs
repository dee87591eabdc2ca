//! The review rubric of `tests/REVIEW_RUBRIC.md`, counted over the
//! generated sources: what a reviewer would send back. Each count is of
//! test methods; the rubric's goal is at most 2% of tests for each.
//!
//! The sources are testgen's own output, so the reading is by line:
//! `@Test`, then `void name(...)`, then the body up to the method's
//! closing brace at the same indentation.

use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Tests flagged per item of the rubric.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Review {
    pub tests: u64,
    /// Values only a solver writes: `\u0000`, `\uffff`, or a number of
    /// eight digits or more.
    pub solver_literals: u64,
    /// Whose only assertions are `assertThrows(NullPointerException...)`
    /// or `assertNotNull`.
    pub weak_oracle: u64,
    /// With no assertion at all.
    pub no_assertion: u64,
    /// Named with a numeric suffix (`..._2`): the name does not say what
    /// tells the test apart.
    pub numeric_suffix: u64,
}

impl Review {
    pub fn add(&mut self, other: &Review) {
        self.tests += other.tests;
        self.solver_literals += other.solver_literals;
        self.weak_oracle += other.weak_oracle;
        self.no_assertion += other.no_assertion;
        self.numeric_suffix += other.numeric_suffix;
    }
}

/// The rubric over every `.java` file under `dir`.
pub fn review_dir(dir: &Path) -> Review {
    let mut review = Review::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return review;
    };
    let mut paths: Vec<_> = entries.flatten().map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            review.add(&review_dir(&path));
        } else if path.extension().is_some_and(|ext| ext == "java") {
            if let Ok(text) = fs::read_to_string(&path) {
                review.add(&review_source(&text));
            }
        }
    }
    review
}

/// The rubric over one test class's source.
pub fn review_source(text: &str) -> Review {
    let lines: Vec<&str> = text.lines().collect();
    let mut review = Review::default();
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim() != "@Test" {
            index += 1;
            continue;
        }
        let Some(header) = (index + 1..lines.len()).find(|&i| lines[i].contains("void ")) else {
            break;
        };
        let indent = lines[header].len() - lines[header].trim_start().len();
        let closing = format!("{}}}", " ".repeat(indent));
        let end = (header + 1..lines.len())
            .find(|&i| lines[i] == closing)
            .unwrap_or(lines.len());
        review.add(&review_test(lines[header], &lines[header + 1..end]));
        index = end;
    }
    review
}

fn review_test(header: &str, body: &[&str]) -> Review {
    let name = header
        .split("void ")
        .nth(1)
        .and_then(|rest| rest.split('(').next())
        .unwrap_or("");
    let assertions: Vec<&str> = body
        .iter()
        .copied()
        .filter(|line| is_assertion(line))
        .collect();
    let weak = |line: &&str| {
        line.contains("assertThrows(NullPointerException.class") || line.contains("assertNotNull(")
    };
    Review {
        tests: 1,
        solver_literals: u64::from(body.iter().any(|line| has_solver_literal(line))),
        weak_oracle: u64::from(!assertions.is_empty() && assertions.iter().all(weak)),
        no_assertion: u64::from(assertions.is_empty()),
        numeric_suffix: u64::from(
            name.rsplit_once('_').is_some_and(|(_, tail)| {
                !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit())
            }),
        ),
    }
}

/// A call of a JUnit assertion (`assertEquals(`, `assertThrows(`, ...).
fn is_assertion(line: &str) -> bool {
    line.match_indices("assert").any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let rest = &line[at + "assert".len()..];
        let word: String = rest
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && word.starts_with(|c: char| c.is_ascii_uppercase())
            && rest[word.len()..].starts_with('(')
    })
}

/// `\u0000`, `\uffff`, or a run of eight digits or more that is a number
/// (not part of a name).
fn has_solver_literal(line: &str) -> bool {
    if line.contains("\\u0000") || line.contains("\\uffff") {
        return true;
    }
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_digit() {
            let start = at;
            while at < bytes.len() && bytes[at].is_ascii_digit() {
                at += 1;
            }
            let part_of_name =
                start > 0 && (bytes[start - 1].is_ascii_alphabetic() || bytes[start - 1] == b'_');
            if !part_of_name && at - start >= 8 {
                return true;
            }
        } else {
            at += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = r#"class FooGeneratedTest {

    @Test
    void depositThrowsNullPointerException() throws Exception {
        Account account = new Account("ann", 0L);

        assertThrows(NullPointerException.class, () -> account.deposit(null));
    }

    @Test
    void ownerReturnsAnn_2() throws Exception {
        Account account = new Account("\u0000", 3026489318337141008L);

        String result = account.owner();

        assertEquals("ann", result);
        assertNotNull(result);
    }

    @Test
    void makeSucceeds() throws Exception {
        Maker.make(list1234567890);
    }

    @Test
    void sizeReturns3() throws Exception {
        Bag bag = new Bag();

        assertNotNull(bag);
    }
}
"#;

    #[test]
    fn each_item_is_counted_per_test() {
        let review = review_source(SOURCE);
        assert_eq!(
            review,
            Review {
                tests: 4,
                solver_literals: 1,
                weak_oracle: 2,
                no_assertion: 1,
                numeric_suffix: 1,
            }
        );
    }
}
