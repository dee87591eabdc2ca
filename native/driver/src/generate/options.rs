//! What `testgen generate` is asked to do, and the class-name patterns of
//! `--include` / `--exclude`.

use std::path::PathBuf;
use std::time::Duration;

use testgen_emit::{JUnit, TestJvm};

/// `--mode`: `incremental` reuses the per-class cache (unchanged classes
/// are skipped, changed ones keep the trees of their unchanged methods);
/// `full` regenerates every class (and refreshes the cache); `nightly` is
/// incremental plus deeper exploration of poorly covered classes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    Full,
    #[default]
    Incremental,
    /// Incremental, then, within `total_budget`, unchanged classes with
    /// branches left uncovered are explored again, deeper.
    Nightly,
}

/// Whether generating analyses mutants (`--mutation`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MutationMode {
    /// No mutation analysis.
    Off,
    /// The written tests are run against the class's mutants and the
    /// report gives the share they catch and the mutants that survive.
    Report,
    /// As `Report`, and before that mutants choose tests: a mutant the
    /// tests chosen for coverage miss is tried against their prefixes, and
    /// one that catches it becomes a test.
    #[default]
    Select,
}

/// What `--possible-bugs` does with a case that shows one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PossibleBugs {
    /// Reports it and writes no test of it.
    #[default]
    Report,
    /// Reports it and writes its test too, asserting the exception.
    Assert,
}

/// How much deeper (in runs per method, and time per class) a nightly run
/// explores than a daily one.
pub const NIGHTLY_DEPTH: u32 = 4;

/// A class whose deeper explorations found nothing new this many times in
/// a row is left alone by later nightly runs (until it changes).
pub const NIGHTLY_FRUITLESS_LIMIT: u32 = 2;

#[derive(Clone, Debug)]
pub struct GenerateOptions {
    /// Directories and jars: the code to test.
    pub inputs: Vec<PathBuf>,
    /// Its runtime dependencies.
    pub classpath: Vec<PathBuf>,
    /// Where test sources are written (package directories below it).
    pub out: PathBuf,
    /// Per-class state and the executor's own classes.
    pub cache: PathBuf,
    /// Where `testgen-report.json` and `testgen-report.html` are written.
    pub report: PathBuf,
    /// `--sources`: directories and `.jar`/`.zip` files of the Java
    /// sources, for the HTML report's source lines. They shape no test, so
    /// the settings hash leaves them out.
    pub sources: Vec<PathBuf>,
    pub java: PathBuf,
    /// Java feature version for multi-release jars.
    pub release: u16,
    pub junit: JUnit,
    /// Time for one class (exploring all its methods).
    pub budget: Duration,
    /// Runs of one method at most: the limit that keeps output deterministic
    /// (the time budget is only a safety net).
    pub max_runs_per_method: usize,
    /// Plans search runs for one class at most (after exploring): like
    /// `max_runs_per_method`, the bound that keeps output deterministic.
    pub max_evaluations: usize,
    pub include: Vec<Glob>,
    pub exclude: Vec<Glob>,
    pub mode: Mode,
    /// Recorded in the report; exploration is deterministic without it today.
    pub seed: u64,
    /// Classes generated at the same time (each worker has its own JVM).
    pub jobs: usize,
    /// `--total-budget`: the whole run's time (nightly mode).
    pub total_budget: Option<Duration>,
    /// How the build's test task runs tests (`--assertions`,
    /// `--test-jvm-arg`, `--test-system-property`, `--test-working-dir`):
    /// exploring and validation run the code the same way.
    pub test_jvm: TestJvm,
    /// `--mutation`: whether the written tests are run against the class's
    /// mutants for the report, and whether mutants choose tests. Only
    /// choosing shapes tests, so the settings hash counts only that.
    pub mutation: MutationMode,
    /// `--possible-bugs`: whether a case that shows one becomes a test.
    pub possible_bugs: PossibleBugs,
}

impl GenerateOptions {
    /// A hash of everything besides the class itself that shapes its tests:
    /// testgen's version and the options. A cached class made under other
    /// settings is generated again. The classpath counts by its entries'
    /// file names (a dependency upgrade renames its jar), not their
    /// locations, so that a cache moved with its project stays valid.
    pub fn settings_hash(&self) -> String {
        use sha2::{Digest, Sha256};
        let classpath: Vec<String> = self
            .classpath
            .iter()
            .map(|entry| {
                entry
                    .file_name()
                    .map(|name| name.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        // The test JVM's options shape what the code does (assertions,
        // system properties); its working directory does not (tests that
        // touch files are never kept), and leaving it out keeps a cache
        // valid when the project moves.
        let mut text = format!(
            "testgen {}\njunit {:?}\nbudget {} ms\nmax runs {}\nmax evaluations {}\nseed {}\nrelease {}\nclasspath {}\ntest jvm {:?}\n",
            env!("CARGO_PKG_VERSION"),
            self.junit,
            self.budget.as_millis(),
            self.max_runs_per_method,
            self.max_evaluations,
            self.seed,
            self.release,
            classpath.join(":"),
            self.test_jvm.test_options(),
        );
        // Added only when on, so that caches made before the option stay valid.
        if self.mutation == MutationMode::Select {
            text.push_str("mutants choose tests\n");
        }
        if self.possible_bugs == PossibleBugs::Report {
            text.push_str("possible bugs reported, not asserted\n");
        }
        super::program::hex(&Sha256::digest(text.as_bytes()))
    }

    /// Whether the class with this binary name is selected by the patterns.
    pub fn selects(&self, binary_name: &str) -> bool {
        let included =
            self.include.is_empty() || self.include.iter().any(|g| g.matches(binary_name));
        included && !self.exclude.iter().any(|g| g.matches(binary_name))
    }
}

/// A class-name pattern: `*` matches within one package segment (no `.`),
/// `**` matches anything, `?` one character other than `.`; everything else
/// literally. `com.acme.**` selects a package and its subpackages,
/// `**Test` any class whose name ends in `Test`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    text: String,
    tokens: Vec<Token>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Literal(char),
    AnyInSegment,
    Any,
    One,
}

impl Glob {
    pub fn new(text: &str) -> Result<Glob, String> {
        if text.is_empty() {
            return Err("an empty class name pattern".into());
        }
        if let Some(bad) = text
            .chars()
            .find(|c| !(c.is_alphanumeric() || matches!(c, '.' | '$' | '_' | '*' | '?')))
        {
            return Err(format!(
                "`{text}`: `{bad}` cannot appear in a class name pattern (use `*`, `**`, `?` and binary class names such as a.b.Outer$Inner)"
            ));
        }
        let mut tokens = Vec::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            tokens.push(match c {
                '*' if chars.peek() == Some(&'*') => {
                    chars.next();
                    Token::Any
                }
                '*' => Token::AnyInSegment,
                '?' => Token::One,
                c => Token::Literal(c),
            });
        }
        Ok(Glob {
            text: text.to_string(),
            tokens,
        })
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn matches(&self, name: &str) -> bool {
        let name: Vec<char> = name.chars().collect();
        matches_from(&self.tokens, &name)
    }
}

fn matches_from(tokens: &[Token], name: &[char]) -> bool {
    match tokens.split_first() {
        None => name.is_empty(),
        Some((Token::Literal(c), rest)) => {
            name.first() == Some(c) && matches_from(rest, &name[1..])
        }
        Some((Token::One, rest)) => {
            name.first().is_some_and(|&c| c != '.') && matches_from(rest, &name[1..])
        }
        Some((Token::AnyInSegment, rest)) => {
            let segment = name.iter().position(|&c| c == '.').unwrap_or(name.len());
            (0..=segment).any(|skip| matches_from(rest, &name[skip..]))
        }
        Some((Token::Any, rest)) => (0..=name.len()).any(|skip| matches_from(rest, &name[skip..])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(text: &str) -> Glob {
        Glob::new(text).unwrap()
    }

    #[test]
    fn single_star_stays_in_its_segment() {
        assert!(glob("a.b.*").matches("a.b.Foo"));
        assert!(glob("a.b.*").matches("a.b.Foo$Bar"));
        assert!(!glob("a.b.*").matches("a.b.c.Foo"));
        assert!(glob("a.*.Foo").matches("a.x.Foo"));
        assert!(glob("*Rules").matches("IntRules"));
        assert!(!glob("*Rules").matches("p.IntRules"));
    }

    #[test]
    fn double_star_crosses_segments() {
        assert!(glob("a.**").matches("a.b.c.Foo"));
        assert!(glob("**Rules").matches("fixtures.explore.IntRules"));
        assert!(!glob("**Rules").matches("fixtures.explore.Cart"));
        assert!(glob("**").matches("Anything.at.all"));
    }

    #[test]
    fn question_mark_and_literals() {
        assert!(glob("p.Fo?").matches("p.Foo"));
        assert!(!glob("p.Fo?").matches("p.Fooo"));
        assert!(!glob("p?Foo").matches("p.Foo"));
        assert!(glob("p.Outer$Inner").matches("p.Outer$Inner"));
    }

    #[test]
    fn rejects_paths_and_empty_patterns() {
        assert!(Glob::new("").is_err());
        let error = Glob::new("com/acme/Foo").unwrap_err();
        assert!(error.contains("com/acme/Foo"), "{error}");
    }

    #[test]
    fn include_then_exclude() {
        let options = GenerateOptions {
            inputs: Vec::new(),
            classpath: Vec::new(),
            out: PathBuf::new(),
            cache: PathBuf::new(),
            report: PathBuf::new(),
            sources: Vec::new(),
            java: PathBuf::new(),
            release: 17,
            junit: JUnit::Five,
            budget: Duration::from_secs(1),
            max_runs_per_method: 1,
            max_evaluations: 1,
            include: vec![glob("a.**")],
            exclude: vec![glob("a.internal.*")],
            mode: Mode::Incremental,
            seed: 0,
            jobs: 1,
            total_budget: None,
            test_jvm: TestJvm::default(),
            mutation: MutationMode::Off,
            possible_bugs: PossibleBugs::Report,
        };
        assert!(options.selects("a.Foo"));
        assert!(options.selects("a.b.Foo"));
        assert!(!options.selects("a.internal.Foo"));
        assert!(!options.selects("b.Foo"));
    }
}
