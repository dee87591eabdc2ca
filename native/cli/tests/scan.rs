//! `testgen scan` through the real binary: output format, bad entries, bad
//! inputs, exit status, determinism.

use std::fs;

use std::process::{Command, Output};

use serde_json::Value;
use sha2::{Digest, Sha256};
use testgen_testkit::{installed_jar_classes, scratch_dir};

const COMMONS_CLI: &str = "/usr/share/java/commons-cli.jar";

fn testgen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_testgen"))
        .args(args)
        .output()
        .expect("the testgen binary runs")
}

fn stdout_records(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

#[test]
fn one_record_per_class_with_hash_names_and_methods() {
    let output = testgen(&["scan", "--classes", COMMONS_CLI]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let records = stdout_records(&output);
    let entries = installed_jar_classes(COMMONS_CLI);
    assert_eq!(records.len(), entries.len());

    for (name, bytes) in &entries {
        let class = name.trim_end_matches(".class").replace('/', ".");
        let record = records
            .iter()
            .find(|r| r["class"] == class.as_str())
            .unwrap_or_else(|| panic!("no record for {class}"));
        let expected_hash: String = Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(record["sha256"], expected_hash.as_str(), "{class}");
        assert_eq!(
            record["location"],
            format!("{COMMONS_CLI}!/{name}").as_str()
        );
    }

    let option = records
        .iter()
        .find(|r| r["class"] == "org.apache.commons.cli.Option")
        .unwrap();
    assert_eq!(option["super_class"], "java.lang.Object");
    assert_eq!(option["source_file"], "Option.java");
    let interfaces: Vec<&str> = option["interfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(interfaces, ["java.lang.Cloneable", "java.io.Serializable"]);
    assert!(option["access"]
        .as_array()
        .unwrap()
        .contains(&Value::from("public")));
    let methods = option["methods"].as_array().unwrap();
    let has_arg = methods
        .iter()
        .find(|m| m["name"] == "hasArg" && m["descriptor"] == "()Z")
        .expect("Option.hasArg()");
    // `return numberOfArgs > 0 || numberOfArgs == UNLIMITED_VALUES;`
    assert!(has_arg["branches"].as_u64().unwrap() >= 2, "{has_arg}");
    assert!(has_arg["code_length"].as_u64().unwrap() > 0);
    let total_branches: u64 = records
        .iter()
        .flat_map(|r| r["methods"].as_array().unwrap())
        .map(|m| m["branches"].as_u64().unwrap())
        .sum();
    assert!(total_branches > 100, "{total_branches}");

    let command_line_parser = records
        .iter()
        .find(|r| r["class"] == "org.apache.commons.cli.CommandLineParser")
        .unwrap();
    assert!(command_line_parser["access"]
        .as_array()
        .unwrap()
        .contains(&Value::from("interface")));
    let abstract_method = &command_line_parser["methods"][0];
    assert_eq!(abstract_method["code_length"], Value::Null);
}

#[test]
fn bad_entries_are_reported_and_the_rest_goes_on() {
    let dir = scratch_dir("bad-entry");
    let package = dir.join("org/example");
    fs::create_dir_all(&package).unwrap();
    let (_, good) = installed_jar_classes(COMMONS_CLI)
        .into_iter()
        .find(|(name, _)| name.ends_with("/Option.class"))
        .unwrap();
    fs::write(package.join("Good.class"), &good).unwrap();
    fs::write(package.join("Garbage.class"), b"not a class file").unwrap();
    let mut truncated = good.clone();
    truncated.truncate(good.len() / 2);
    fs::write(package.join("Truncated.class"), truncated).unwrap();

    let output = testgen(&["scan", "--classes", dir.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "bad entries alone do not fail the scan"
    );
    let records = stdout_records(&output);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0]["class"], "org.apache.commons.cli.Option");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("org/example/Garbage.class: bad magic number 0x6e6f7420"),
        "{stderr}"
    );
    assert!(
        stderr.contains("org/example/Truncated.class: unexpected end of data"),
        "{stderr}"
    );
}

#[test]
fn unreadable_input_fails_the_run_after_scanning_the_others() {
    let missing = "/nonexistent/testgen/classes";
    let not_a_jar = scratch_dir("not-a-jar").join("broken.jar");
    fs::write(&not_a_jar, b"PK\x03\x04 this is not really a zip").unwrap();
    let output = testgen(&[
        "scan",
        "--classes",
        missing,
        COMMONS_CLI,
        not_a_jar.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    assert!(
        !stdout_records(&output).is_empty(),
        "commons-cli is still scanned"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains(missing), "{stderr}");
    assert!(stderr.contains("broken.jar is not a valid jar"), "{stderr}");
}

#[test]
fn summary_is_one_line_with_the_counts() {
    let output = testgen(&["scan", "--summary", "--classes", COMMONS_CLI]);
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    let classes = installed_jar_classes(COMMONS_CLI).len();
    assert!(
        stdout.starts_with(&format!("{classes} classes, ")),
        "{stdout}"
    );
    for part in [
        "methods",
        "branches",
        "switches",
        "0 errors",
        "MB",
        "classes/s",
    ] {
        assert!(stdout.contains(part), "{stdout}");
    }
}

#[test]
fn same_input_same_output() {
    let args = [
        "scan",
        "--classes",
        COMMONS_CLI,
        "/usr/share/java/commons-codec.jar",
    ];
    let first = testgen(&args);
    let second = testgen(&args);
    assert!(first.status.success());
    assert_eq!(first.stdout, second.stdout);
}

#[test]
fn bad_options_are_named() {
    let output = testgen(&["scan", "--classes", COMMONS_CLI, "--release", "seven"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("--release"), "{stderr}");

    let output = testgen(&["scan"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("--classes"));
}
