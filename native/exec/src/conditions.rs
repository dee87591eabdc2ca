//! The conditions code runs under that a test's outcome may depend on:
//! whether `assert` statements run, and the default locale, time zone and
//! line separator.
//!
//! Assertions are the JVM's own command-line switches (`-ea`, `-da:pkg...`),
//! so the executor and a build's test JVM decide them the same way;
//! [`Assertions::enabled_for`] answers the question for one class without a
//! JVM, for the symbolic replay. An [`Environment`] is applied by the
//! executor to one run (`Locale.setDefault`, `TimeZone.setDefault`, the line
//! separator `System.lineSeparator()` returns), to see whether a value a
//! test would assert depends on the machine the test runs on.

use serde::{Deserialize, Serialize};

/// The assertion switches of a JVM, in command-line order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Assertions {
    switches: Vec<AssertionSwitch>,
}

/// One `-ea`/`-da` option.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct AssertionSwitch {
    enable: bool,
    scope: AssertionScope,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum AssertionScope {
    /// `-ea`: every class that is not a system class.
    Default,
    /// `-ea:com.acme...`: a package and its subpackages (binary name with
    /// dots; empty for the unnamed package, `-ea:...`).
    Package(String),
    /// `-ea:com.acme.Foo`: one class (binary name).
    Class(String),
}

impl Assertions {
    /// Assertions enabled in every class (`-ea`), as Maven Surefire and
    /// Gradle's `test` task run tests by default.
    pub fn enabled() -> Assertions {
        Assertions::from_default(true)
    }

    /// Assertions disabled everywhere: the JVM's default.
    pub fn disabled() -> Assertions {
        Assertions::from_default(false)
    }

    fn from_default(enable: bool) -> Assertions {
        Assertions {
            switches: vec![AssertionSwitch {
                enable,
                scope: AssertionScope::Default,
            }],
        }
    }

    /// Adds the assertion switches among `options` (JVM options of the
    /// build's test task); other options are ignored. Later switches win
    /// over earlier ones of the same scope, as in the JVM.
    pub fn with_switches_from<S: AsRef<str>>(mut self, options: &[S]) -> Assertions {
        self.switches
            .extend(options.iter().filter_map(|o| parse_switch(o.as_ref())));
        self
    }

    /// Whether `option` is an assertion switch (`-ea`, `-da:Foo`, ...).
    pub fn is_switch(option: &str) -> bool {
        parse_switch(option).is_some()
    }

    /// The switches as JVM options (`-ea`, `-da:com.acme...`).
    pub fn jvm_options(&self) -> Vec<String> {
        self.switches
            .iter()
            .map(|switch| {
                let flag = if switch.enable { "-ea" } else { "-da" };
                match &switch.scope {
                    AssertionScope::Default => flag.to_string(),
                    AssertionScope::Package(package) => format!("{flag}:{package}..."),
                    AssertionScope::Class(class) => format!("{flag}:{class}"),
                }
            })
            .collect()
    }

    /// Whether `assert` statements run in `class` (a binary name,
    /// `a.b.Outer$Inner`). javac asks the top-level class (a nested class's
    /// `$assertionsDisabled` comes from `Outer.class.desiredAssertionStatus()`),
    /// and so does this. The JVM's rule: the latest switch naming the class,
    /// else the latest naming its closest enclosing package, else the latest
    /// default switch, else disabled.
    pub fn enabled_for(&self, class: &str) -> bool {
        let top_level = class.split('$').next().unwrap_or(class);
        let latest = |wanted: &dyn Fn(&AssertionScope) -> bool| {
            self.switches
                .iter()
                .rev()
                .find(|switch| wanted(&switch.scope))
                .map(|switch| switch.enable)
        };
        if let Some(enable) =
            latest(&|scope| matches!(scope, AssertionScope::Class(c) if c == top_level))
        {
            return enable;
        }
        // The class's package, then each enclosing one; the unnamed package
        // (`-ea:...`) only for a class that is in it, as in the JVM.
        let mut package = Some(top_level.rsplit_once('.').map_or("", |(p, _)| p));
        while let Some(name) = package {
            if let Some(enable) =
                latest(&|scope| matches!(scope, AssertionScope::Package(p) if p == name))
            {
                return enable;
            }
            package = name.rsplit_once('.').map(|(p, _)| p);
        }
        latest(&|scope| matches!(scope, AssertionScope::Default)).unwrap_or(false)
    }
}

/// `-ea`, `-enableassertions:com.acme...`, `-da:Foo`; None for any other
/// option (including `-esa`, which is about system classes).
fn parse_switch(option: &str) -> Option<AssertionSwitch> {
    let (flag, argument) = match option.split_once(':') {
        Some((flag, argument)) => (flag, Some(argument)),
        None => (option, None),
    };
    let enable = match flag {
        "-ea" | "-enableassertions" => true,
        "-da" | "-disableassertions" => false,
        _ => return None,
    };
    let scope = match argument {
        None => AssertionScope::Default,
        Some(argument) => match argument.strip_suffix("...") {
            Some(package) => AssertionScope::Package(package.to_string()),
            None => AssertionScope::Class(argument.to_string()),
        },
    };
    Some(AssertionSwitch { enable, scope })
}

/// Defaults a run sees in place of the JVM's own: each `None` leaves the
/// JVM's default as it started.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// A BCP 47 language tag, e.g. `tr-TR`: `Locale.getDefault()` in every
    /// category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locale: Option<String>,
    /// A time-zone id, e.g. `Asia/Kathmandu`: `TimeZone.getDefault()`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// What `System.lineSeparator()` returns (and the `line.separator`
    /// property), e.g. `"\r\n"`. Only where the executor reports it can
    /// change it ([`crate::ExecutorInfo::line_separator_settable`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_separator: Option<String>,
}

impl Environment {
    /// The JVM's defaults, unchanged.
    pub fn unchanged() -> Environment {
        Environment::default()
    }

    pub fn is_unchanged(&self) -> bool {
        *self == Environment::default()
    }

    /// The same environment as JVM options (`-Duser.language=tr`
    /// `-Duser.country=TR`, `-Duser.timezone=..`, `-Dline.separator=..`),
    /// for a JVM that should start under it.
    pub fn jvm_options(&self) -> Vec<String> {
        let mut options = Vec::new();
        if let Some(tag) = &self.locale {
            let mut parts = tag.split('-');
            if let Some(language) = parts.next() {
                options.push(format!("-Duser.language={language}"));
            }
            if let Some(country) = parts.next() {
                options.push(format!("-Duser.country={country}"));
            }
        }
        if let Some(zone) = &self.time_zone {
            options.push(format!("-Duser.timezone={zone}"));
        }
        if let Some(separator) = &self.line_separator {
            options.push(format!("-Dline.separator={separator}"));
        }
        options
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn switches(options: &[&str]) -> Assertions {
        Assertions::default().with_switches_from(options)
    }

    #[test]
    fn the_default_switch_applies_to_every_class() {
        assert!(Assertions::enabled().enabled_for("a.b.C"));
        assert!(Assertions::enabled().enabled_for("Top"));
        assert!(!Assertions::disabled().enabled_for("a.b.C"));
        assert!(!Assertions::default().enabled_for("a.b.C"));
        assert_eq!(Assertions::enabled().jvm_options(), ["-ea"]);
    }

    #[test]
    fn classes_beat_packages_and_deeper_packages_beat_shallower_ones() {
        let a = switches(&[
            "-ea",
            "-da:com.acme...",
            "-ea:com.acme.core...",
            "-da:com.acme.core.Slow",
        ]);
        assert!(a.enabled_for("org.other.X"));
        assert!(!a.enabled_for("com.acme.X"));
        assert!(a.enabled_for("com.acme.core.X"));
        assert!(a.enabled_for("com.acme.core.deep.X"));
        assert!(!a.enabled_for("com.acme.core.Slow"));
        // A nested class asks its top-level class.
        assert!(!a.enabled_for("com.acme.core.Slow$Inner"));
        assert_eq!(
            a.jvm_options(),
            [
                "-ea",
                "-da:com.acme...",
                "-ea:com.acme.core...",
                "-da:com.acme.core.Slow"
            ]
        );
    }

    #[test]
    fn the_latest_switch_of_a_scope_wins_and_other_options_are_ignored() {
        let a = switches(&["-Xmx1g", "-enableassertions", "-esa", "-disableassertions"]);
        assert!(!a.enabled_for("p.C"));
        let b = Assertions::disabled().with_switches_from(&["-ea:p..."]);
        assert!(b.enabled_for("p.C"));
        assert!(b.enabled_for("p.q.C"));
        assert!(!b.enabled_for("pq.C"));
        // `-ea:...` is the unnamed package.
        let c = switches(&["-ea:..."]);
        assert!(c.enabled_for("Top"));
        assert!(!c.enabled_for("p.C"));
    }

    #[test]
    fn an_environment_as_jvm_options() {
        let environment = Environment {
            locale: Some("tr-TR".into()),
            time_zone: Some("Asia/Kathmandu".into()),
            line_separator: Some("\r\n".into()),
        };
        assert_eq!(
            environment.jvm_options(),
            [
                "-Duser.language=tr",
                "-Duser.country=TR",
                "-Duser.timezone=Asia/Kathmandu",
                "-Dline.separator=\r\n"
            ]
        );
        assert!(Environment::unchanged().jvm_options().is_empty());
    }
}
