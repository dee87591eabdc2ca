//! The build plugins end to end: both plugins are built offline from
//! `gradle-plugin/` and `maven-plugin/`, the sample projects in
//! `fixtures/plugin-projects/` are copied to a scratch directory and built
//! with real Gradle (4.4.1) and Maven (3.8.7) and the real `testgen` binary.
//!
//! Registered as an integration test of `testgen_cli` (so that Cargo builds
//! the binary first) by a `[[test]]` entry in `native/cli/Cargo.toml`.
//!
//! Checked for each build tool: the build succeeds; testgen's test sources
//! (with its header line) are in the generated directory; the build's own
//! test task compiled and ran them (more than 0 tests, no failures or errors,
//! every test class one of the generated ones); `testgen-report.json` is
//! written; a bad option (`junit = 3`) fails the build with testgen's own
//! message. Gradle only: a second `generateTests` is UP-TO-DATE, and a copy of
//! the project in another directory takes the task's outputs FROM-CACHE (the
//! task is relocatable). Maven only: a second build leaves the generated
//! tests as they were.
//!
//! Needs `gradle`, `mvn` and the Debian packages `scripts/setup.sh` installs
//! (JUnit 4 and 5 in /usr/share/java and /usr/share/maven-repo, Maven's
//! plugin-building packages). Nothing is downloaded: Gradle runs `--offline`
//! and reads JUnit from /usr/share/java; Maven's settings mirror every
//! repository to file:///usr/share/maven-repo and use a local repository in
//! the scratch directory. Maven runs without `-o` on purpose: Maven 3.8's
//! offline mode refuses even a file:// repository it has not copied from
//! before, and with every repository mirrored to a local directory there is
//! no network access to prevent.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const PRICING: &str = "com.example.pricing.PriceCalculator";

fn testgen() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_testgen"))
}

/// What a build printed, and whether it succeeded.
struct Run {
    success: bool,
    output: String,
}

/// Runs `program args` in `dir`, echoing the command and what it printed.
fn run(dir: &Path, program: &str, args: &[String]) -> Run {
    println!("$ cd {} && {program} {}", dir.display(), args.join(" "));
    let output = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_remove("TESTGEN")
        .output()
        .unwrap_or_else(|e| {
            panic!("{program} must be installed (make test runs scripts/setup.sh): {e}")
        });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{text}");
    Run {
        success: output.status.success(),
        output: text,
    }
}

fn assert_succeeded(run: &Run, what: &str) {
    assert!(run.success, "{what} failed:\n{}", run.output);
}

/// Copies a project directory, leaving out build outputs of earlier runs.
fn copy_project(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if ["build", ".gradle", "target"].contains(&name.to_str().unwrap_or("")) {
            continue;
        }
        let target = to.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_project(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir` with the extension `ext`, sorted.
fn files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The generated test sources under `dir`: at least one, each starting with
/// testgen's header line. Returns their class names and contents.
fn generated_tests(dir: &Path) -> Vec<(String, String)> {
    let sources = files_with(dir, "java");
    assert!(
        !sources.is_empty(),
        "no generated test sources under {}",
        dir.display()
    );
    sources
        .iter()
        .map(|path| {
            let text = fs::read_to_string(path).unwrap();
            let header = text.lines().next().unwrap_or("");
            assert!(
                header.starts_with("//") && header.to_lowercase().contains("testgen"),
                "{} does not start with testgen's header line: {header:?}",
                path.display()
            );
            let class = path
                .strip_prefix(dir)
                .unwrap()
                .with_extension("")
                .to_string_lossy()
                .replace(['/', '\\'], ".");
            (class, text)
        })
        .collect()
}

/// The value of `name="..."` in an XML start tag.
fn attribute<'a>(tag: &'a str, name: &str) -> &'a str {
    let start = tag
        .find(&format!(" {name}=\""))
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + name.len()
        + 3;
    let end = start + tag[start..].find('"').unwrap();
    &tag[start..end]
}

/// Reads the JUnit XML reports in `dir` (Gradle's and surefire's share the
/// format): asserts no failures or errors and that every test class is one
/// of `generated`; returns the number of tests run.
fn tests_run(dir: &Path, generated: &BTreeSet<String>) -> usize {
    let reports: Vec<PathBuf> = files_with(dir, "xml")
        .into_iter()
        .filter(|path| {
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("TEST-")
        })
        .collect();
    assert!(!reports.is_empty(), "no test reports in {}", dir.display());
    let mut total = 0;
    for report in reports {
        let xml = fs::read_to_string(&report).unwrap();
        let start = xml.find("<testsuite").expect("a testsuite element");
        let tag = &xml[start..start + xml[start..].find('>').unwrap()];
        let suite = attribute(tag, "name");
        let top_level = suite.split('$').next().unwrap();
        assert!(
            generated.contains(top_level),
            "{}: test class {suite} is not one testgen generated ({generated:?})",
            report.display()
        );
        assert_eq!(
            attribute(tag, "failures"),
            "0",
            "{}\n{xml}",
            report.display()
        );
        assert_eq!(attribute(tag, "errors"), "0", "{}\n{xml}", report.display());
        total += attribute(tag, "tests").parse::<usize>().unwrap();
    }
    total
}

/// `testgen-report.json` in `dir`: valid JSON that names the sample's classes.
fn assert_report(dir: &Path) {
    let path = dir.join("testgen-report.json");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("{} must exist: {e}", path.display()));
    serde_json::from_str::<serde_json::Value>(&text)
        .unwrap_or_else(|e| panic!("{} is not JSON: {e}\n{text}", path.display()));
    assert!(
        text.contains(&format!("\"{PRICING}\"")),
        "{} does not name {PRICING}:\n{text}",
        path.display()
    );
}

/// What the binary itself says about `--junit 3`: the first line of its
/// error output, which the build must show.
fn message_for_junit_3(classes: &Path, scratch: &Path) -> String {
    let output = Command::new(testgen())
        .arg("generate")
        .arg("--classes")
        .arg(classes)
        .arg("--out")
        .arg(scratch.join("junit3/out"))
        .arg("--cache")
        .arg(scratch.join("junit3/cache"))
        .arg("--report")
        .arg(scratch.join("junit3/report"))
        .args(["--junit", "3"])
        .output()
        .expect("the testgen binary runs");
    assert!(!output.status.success(), "testgen accepted --junit 3");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    stderr
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or_else(|| panic!("testgen failed on --junit 3 without a message"))
        .to_string()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[test]
fn gradle_plugin_generates_tests_that_the_build_compiles_and_runs() {
    let root = testgen_testkit::repo_root();
    let scratch = testgen_testkit::scratch_dir("plugins-gradle");
    let gradle_home = scratch.join("gradle-home");
    let common = |extra: &[&str]| -> Vec<String> {
        let mut args = strings(&[
            "--offline",
            "--no-daemon",
            "--console=plain",
            "--stacktrace",
        ]);
        args.push("--gradle-user-home".into());
        args.push(gradle_home.to_string_lossy().into_owned());
        args.extend(strings(extra));
        args
    };

    // The plugin, built with the Gradle on this machine.
    let plugin = scratch.join("gradle-plugin");
    copy_project(&root.join("gradle-plugin"), &plugin);
    assert_succeeded(
        &run(&plugin, "gradle", &common(&["jar"])),
        "building the Gradle plugin",
    );
    let jar = plugin.join("build/libs/testgen-gradle-plugin-0.1.0.jar");
    assert!(jar.is_file(), "{} was not built", jar.display());

    let sample_args = |extra: &[&str]| -> Vec<String> {
        let mut args = common(&["--build-cache"]);
        args.push(format!("-Ptestgen.pluginJar={}", jar.display()));
        args.push(format!("-Ptestgen.executable={}", testgen().display()));
        args.extend(strings(extra));
        args
    };

    // generateTests, then the build's own test task on what it wrote.
    let sample = scratch.join("gradle-sample");
    copy_project(
        &root.join("fixtures/plugin-projects/gradle-sample"),
        &sample,
    );
    let build = run(&sample, "gradle", &sample_args(&["generateTests", "test"]));
    assert_succeeded(&build, "gradle generateTests test");
    let generated_dir = sample.join("build/generated-tests/testgen/java");
    let generated = generated_tests(&generated_dir);
    let classes: BTreeSet<String> = generated.iter().map(|(class, _)| class.clone()).collect();
    let tests = tests_run(&sample.join("build/test-results/test"), &classes);
    assert!(tests > 0, "gradle test ran no tests");
    assert_report(&sample.join("build/reports/testgen"));

    // Nothing changed: Gradle's up-to-date check skips the task.
    let again = run(&sample, "gradle", &sample_args(&["generateTests"]));
    assert_succeeded(&again, "the second gradle generateTests");
    assert!(
        again.output.contains(":generateTests UP-TO-DATE"),
        "the second generateTests was not UP-TO-DATE:\n{}",
        again.output
    );

    // The same project in another directory: the outputs come from the
    // build cache, so the task is relocatable.
    let moved = scratch.join("elsewhere/gradle-sample");
    copy_project(&root.join("fixtures/plugin-projects/gradle-sample"), &moved);
    let relocated = run(&moved, "gradle", &sample_args(&["generateTests"]));
    assert_succeeded(&relocated, "gradle generateTests in a copy of the project");
    assert!(
        relocated.output.contains(":generateTests FROM-CACHE"),
        "generateTests in a copy of the project did not come from the build cache:\n{}",
        relocated.output
    );
    assert_eq!(
        generated_tests(&moved.join("build/generated-tests/testgen/java")),
        generated,
        "the cached outputs differ from the generated ones"
    );

    // A bad option fails the build with testgen's own message.
    let message = message_for_junit_3(&sample.join("build/classes/java/main"), &scratch);
    let bad = run(
        &sample,
        "gradle",
        &sample_args(&["-Ptestgen.junit=3", "generateTests"]),
    );
    assert!(
        !bad.success,
        "junit = 3 did not fail the build:\n{}",
        bad.output
    );
    let reason = bad.output.split("What went wrong").nth(1).unwrap_or("");
    assert!(
        reason.contains(&message),
        "Gradle's failure does not give testgen's message {message:?}:\n{}",
        bad.output
    );
}

#[test]
fn maven_plugin_generates_tests_that_the_build_compiles_and_runs() {
    let root = testgen_testkit::repo_root();
    let scratch = testgen_testkit::scratch_dir("plugins-maven");
    let settings = scratch.join("settings.xml");
    fs::write(
        &settings,
        format!(
            "<settings>\n  <localRepository>{}</localRepository>\n  <mirrors><mirror><id>debian</id>\
             <mirrorOf>*</mirrorOf>\n    <url>file:///usr/share/maven-repo</url></mirror></mirrors>\n\
             </settings>\n",
            scratch.join("m2").display()
        ),
    )
    .unwrap();
    let common = |extra: &[&str]| -> Vec<String> {
        let mut args = strings(&["-B", "-e", "-s"]);
        args.push(settings.to_string_lossy().into_owned());
        args.extend(strings(extra));
        args
    };

    // The plugin, built and installed into the scratch local repository.
    let plugin = scratch.join("maven-plugin");
    copy_project(&root.join("maven-plugin"), &plugin);
    assert_succeeded(
        &run(&plugin, "mvn", &common(&["install"])),
        "building the Maven plugin",
    );

    let sample_args = |extra: &[&str]| -> Vec<String> {
        let mut args = common(&[]);
        args.push(format!("-Dtestgen.executable={}", testgen().display()));
        args.extend(strings(extra));
        args
    };

    // generate-test-sources runs the plugin; test compiles and runs the result.
    let sample = scratch.join("maven-sample");
    copy_project(&root.join("fixtures/plugin-projects/maven-sample"), &sample);
    assert_succeeded(&run(&sample, "mvn", &sample_args(&["test"])), "mvn test");
    let generated_dir = sample.join("target/generated-test-sources/testgen");
    let generated = generated_tests(&generated_dir);
    let classes: BTreeSet<String> = generated.iter().map(|(class, _)| class.clone()).collect();
    let tests = tests_run(&sample.join("target/surefire-reports"), &classes);
    assert!(tests > 0, "surefire ran no tests");
    assert_report(&sample.join("target/site/testgen"));

    // Maven has no up-to-date check: the second run is testgen's incremental
    // mode, and it leaves the generated tests as they were.
    assert_succeeded(
        &run(&sample, "mvn", &sample_args(&["test"])),
        "the second mvn test",
    );
    assert_eq!(
        generated_tests(&generated_dir),
        generated,
        "a second run over unchanged classes changed the generated tests"
    );

    // A bad option fails the build with testgen's own message.
    let message = message_for_junit_3(&sample.join("target/classes"), &scratch);
    let bad = run(&sample, "mvn", &sample_args(&["-Dtestgen.junit=3", "test"]));
    assert!(
        !bad.success,
        "junit 3 did not fail the build:\n{}",
        bad.output
    );
    assert!(
        bad.output
            .lines()
            .any(|line| line.starts_with("[ERROR]") && line.contains(&message)),
        "Maven's failure does not give testgen's message {message:?}:\n{}",
        bad.output
    );
}
