//! Records runs for the replay tests (`tests/replay_recorded.rs`), which
//! replay them with no JVM:
//!
//! ```text
//! record_replays <out dir> <fixture> <class>.<method>(<descriptor>)...
//! ```
//!
//! Compiles `fixtures/<fixture>`, explores each named method for a few runs on a real executor, and writes into `<out
//! dir>`: the fixture's class files (`classes/`, the bytes the runs were
//! made from), each method's runs (`runs/<class>.<method>.<parameters>.json`:
//! context,
//! inputs and trace of every run) and the first method's exploration as the
//! cache stores it (`exploration.json`, with its format). Then run the
//! tests with `TESTGEN_UPDATE_SNAPSHOTS=1` to write the expected replays;
//! `scripts/record-replays.sh` does it all.

#[path = "../tests/support/mod.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::json;
use support::Fixture;
use testgen_construct::Recipes;
use testgen_project::MethodId;
use testgen_symbolic::explore::{explore, ExploreOptions, EXPLORATION_FORMAT};

/// Runs recorded per method: enough for a few paths each, small enough to
/// review.
const RUNS: usize = 4;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out, fixture, methods @ ..] = args.as_slice() else {
        eprintln!("usage: record_replays <out dir> <fixture> <class>.<method>(<descriptor>)...");
        return ExitCode::from(2);
    };
    match record(&PathBuf::from(out), fixture, methods) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("record_replays: {why}");
            ExitCode::FAILURE
        }
    }
}

fn record(out: &Path, fixture: &str, methods: &[String]) -> Result<(), String> {
    let compiled = testgen_testkit::compile_fixture(fixture);
    let classes = testgen_testkit::classes_in(&compiled);
    let _ = fs::remove_dir_all(out.join("classes"));
    let _ = fs::remove_dir_all(out.join("runs"));
    for (internal, bytes) in &classes {
        let path = out.join("classes").join(format!("{internal}.class"));
        fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        fs::write(&path, bytes).map_err(|e| e.to_string())?;
    }
    let fixture = Fixture::new(classes, vec![compiled], "fixtures/");
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let mut executor = fixture.executor();
    let options = ExploreOptions {
        max_runs: RUNS,
        record: true,
        ..ExploreOptions::default()
    };
    fs::create_dir_all(out.join("runs")).map_err(|e| e.to_string())?;
    let mut first = true;
    for wanted in methods {
        let (qualified, descriptor) = wanted
            .split_once('(')
            .ok_or_else(|| format!("{wanted}: not <class>.<method>(<descriptor>)"))?;
        let (class, name) = qualified
            .rsplit_once('.')
            .ok_or_else(|| format!("{wanted}: not <class>.<method>(<descriptor>)"))?;
        let target = MethodId::of(&class.replace('.', "/"), name, &format!("({descriptor}"));
        if program.method(&target).is_none() {
            return Err(format!("{wanted}: no such method in the fixture"));
        }
        let exploration =
            explore(&mut executor, &recipes, &target, &options).map_err(|e| e.to_string())?;
        if first {
            first = false;
            let stored = json!({ "format": EXPLORATION_FORMAT, "exploration": exploration });
            write(&out.join("exploration.json"), &stored)?;
        }
        let runs = &exploration.recorded;
        let simple = class.rsplit('.').next().unwrap_or(class);
        let file = format!(
            "{simple}.{name}.{}.json",
            runs_file_suffix(&target.descriptor)
        );
        write(&out.join("runs").join(file), &json!(runs))?;
    }
    Ok(())
}

fn write(path: &Path, value: &serde_json::Value) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    text.push('\n');
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("recorded {}", path.display());
    Ok(())
}

/// A file-name-safe short form of a descriptor, to tell overloads apart.
fn runs_file_suffix(descriptor: &str) -> String {
    let inside = descriptor
        .trim_start_matches('(')
        .split(')')
        .next()
        .unwrap_or("");
    let safe: String = inside
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if safe.is_empty() {
        "noargs".into()
    } else {
        safe
    }
}
