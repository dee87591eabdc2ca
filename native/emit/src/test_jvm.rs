//! How the user's build runs its tests, so that testgen runs the code the
//! same way: the test JVM's assertion switches (Surefire and Gradle enable
//! assertions by default), its other options and system properties, its
//! working directory; and which of the machine's defaults (locale, time
//! zone, line separator) the build pins, so that only the others are varied.

use std::path::PathBuf;

use testgen_exec::{Assertions, Environment};

use crate::model::Cause;

/// The build's test JVM, as the build plugin read it from the test task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestJvm {
    pub assertions: Assertions,
    /// The test task's other JVM options, in order (without assertion
    /// switches, agents and debuggers).
    pub options: Vec<String>,
    /// The test task's system properties (`-Dname=value`), in order.
    pub system_properties: Vec<(String, String)>,
    /// Where the tests run; `None`: a scratch directory of testgen's.
    pub working_dir: Option<PathBuf>,
}

impl Default for TestJvm {
    /// Assertions enabled, nothing else: a test task left at its defaults.
    fn default() -> Self {
        TestJvm {
            assertions: Assertions::enabled(),
            options: Vec::new(),
            system_properties: Vec::new(),
            working_dir: None,
        }
    }
}

/// A JVM option of the build's test task that testgen does not pass on,
/// and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredOption {
    pub option: String,
    pub reason: &'static str,
}

impl TestJvm {
    /// The test JVM of a build whose test task enables assertions (or not)
    /// and passes `options` (its `argLine`, `jvmArgs`: assertion switches
    /// among them count too), `system_properties` and `working_dir`.
    /// Options that attach agents or debuggers are left out (a coverage
    /// agent would write its file from testgen's runs) and returned.
    pub fn new(
        assertions_enabled: bool,
        options: &[String],
        system_properties: Vec<(String, String)>,
        working_dir: Option<PathBuf>,
    ) -> (TestJvm, Vec<IgnoredOption>) {
        let default = if assertions_enabled {
            Assertions::enabled()
        } else {
            Assertions::disabled()
        };
        let assertions = default.with_switches_from(options);
        let mut kept = Vec::new();
        let mut ignored = Vec::new();
        for option in options {
            if Assertions::is_switch(option) {
                continue; // in `assertions` now
            }
            match ignored_because(option) {
                Some(reason) => ignored.push(IgnoredOption {
                    option: option.clone(),
                    reason,
                }),
                None => kept.push(option.clone()),
            }
        }
        let jvm = TestJvm {
            assertions,
            options: kept,
            system_properties,
            working_dir,
        };
        (jvm, ignored)
    }

    /// Every option of a JVM that runs tests as the build does: assertion
    /// switches, the task's options, its system properties.
    pub fn test_options(&self) -> Vec<String> {
        let mut options = self.assertions.jvm_options();
        options.extend(self.options.iter().cloned());
        options.extend(self.property_options());
        options
    }

    /// The options the executor JVM takes from the build (its assertion
    /// switches are given apart): the task's options without heap sizes
    /// and garbage collectors, which the executor chooses to stay within
    /// its memory bound, and the system properties.
    pub fn executor_options(&self) -> Vec<String> {
        let mut options: Vec<String> = self
            .options
            .iter()
            .filter(|option| !executor_chooses(option))
            .cloned()
            .collect();
        options.extend(self.property_options());
        options
    }

    fn property_options(&self) -> impl Iterator<Item = String> + '_ {
        self.system_properties
            .iter()
            .map(|(name, value)| format!("-D{name}={value}"))
    }

    /// Whether the build sets the system property `name` (as a system
    /// property or a `-D` option).
    pub fn sets_property(&self, name: &str) -> bool {
        self.system_properties.iter().any(|(n, _)| n == name)
            || self.options.iter().any(|option| {
                option
                    .strip_prefix("-D")
                    .is_some_and(|rest| rest.split('=').next() == Some(name))
            })
    }

    /// `environment` without what the build pins: a locale, time zone or
    /// line separator the build sets is the same on every machine that
    /// runs its tests, so it is not varied.
    pub fn unpinned(&self, mut environment: Environment) -> Environment {
        let locale_properties = [
            "user.language",
            "user.country",
            "user.region",
            "user.variant",
            "user.script",
        ];
        if locale_properties.iter().any(|p| self.sets_property(p)) {
            environment.locale = None;
        }
        if self.sets_property("user.timezone") {
            environment.time_zone = None;
        }
        if self.sets_property("line.separator") {
            environment.line_separator = None;
        }
        environment
    }
}

/// Each default `environment` changes, alone, with the cause a difference
/// under it is charged to: locale, time zone, line separator.
pub fn single_defaults(environment: &Environment) -> Vec<(Cause, Environment)> {
    let alone = |pick: fn(&Environment, &mut Environment)| {
        let mut single = Environment::unchanged();
        pick(environment, &mut single);
        single
    };
    [
        (
            Cause::Locale,
            alone(|all, single| single.locale = all.locale.clone()),
        ),
        (
            Cause::TimeZone,
            alone(|all, single| single.time_zone = all.time_zone.clone()),
        ),
        (
            Cause::LineSeparator,
            alone(|all, single| single.line_separator = all.line_separator.clone()),
        ),
    ]
    .into_iter()
    .filter(|(_, single)| !single.is_unchanged())
    .collect()
}

/// Why a test JVM option is not passed on, if it is not.
fn ignored_because(option: &str) -> Option<&'static str> {
    let agent = ["-javaagent:", "-agentlib:", "-agentpath:", "-Xrunjdwp"];
    if agent.iter().any(|prefix| option.starts_with(prefix)) {
        return Some("agents and debuggers are not attached to testgen's JVMs");
    }
    if option == "-Xdebug" {
        return Some("agents and debuggers are not attached to testgen's JVMs");
    }
    None
}

/// Options the executor sets itself: heap sizes and the garbage collector.
fn executor_chooses(option: &str) -> bool {
    ["-Xmx", "-Xms", "-XX:MaxHeapSize", "-XX:InitialHeapSize"]
        .iter()
        .any(|prefix| option.starts_with(prefix))
        || (option.starts_with("-XX:+Use") && option.ends_with("GC"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn switches_agents_and_the_rest_go_where_they_belong() {
        let (jvm, ignored) = TestJvm::new(
            true,
            &strings(&[
                "-Xmx1g",
                "-da:com.acme.legacy...",
                "-javaagent:/home/u/.m2/jacoco.jar=destfile=target/jacoco.exec",
                "-XX:+UseG1GC",
                "-Dfoo=bar",
            ]),
            vec![("user.timezone".into(), "UTC".into())],
            None,
        );
        assert!(jvm.assertions.enabled_for("com.acme.X"));
        assert!(!jvm.assertions.enabled_for("com.acme.legacy.X"));
        assert_eq!(ignored.len(), 1);
        assert!(ignored[0].option.starts_with("-javaagent:"));
        assert_eq!(
            jvm.test_options(),
            strings(&[
                "-ea",
                "-da:com.acme.legacy...",
                "-Xmx1g",
                "-XX:+UseG1GC",
                "-Dfoo=bar",
                "-Duser.timezone=UTC"
            ])
        );
        assert_eq!(
            jvm.executor_options(),
            strings(&["-Dfoo=bar", "-Duser.timezone=UTC"])
        );
    }

    #[test]
    fn what_the_build_pins_is_not_varied() {
        let varied = Environment {
            locale: Some("tr-TR".into()),
            time_zone: Some("Asia/Kathmandu".into()),
            line_separator: Some("\r\n".into()),
        };
        let (free, _) = TestJvm::new(true, &[], Vec::new(), None);
        assert_eq!(free.unpinned(varied.clone()), varied);
        let (pinned, _) = TestJvm::new(
            false,
            &strings(&["-Duser.language=en"]),
            vec![("user.timezone".into(), "UTC".into())],
            None,
        );
        assert!(!pinned.assertions.enabled_for("p.C"));
        assert_eq!(
            pinned.unpinned(varied),
            Environment {
                locale: None,
                time_zone: None,
                line_separator: Some("\r\n".into()),
            }
        );
    }
}
