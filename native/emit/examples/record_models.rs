//! Records test models for the snapshot tests (`tests/snapshots.rs`) from
//! the cache of a `testgen generate` run:
//!
//! ```text
//! record_models <cache dir> <models dir> <class binary name>...
//! ```
//!
//! Each class's kept test model is written to `<models dir>/<simple
//! name>.json` with the format it is in. The probe traces are left out:
//! emitting does not read them, and they are most of a model's size.
//! `scripts/record-emit-models.sh` runs the whole recording.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};
use testgen_emit::TEST_CLASS_FORMAT;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [cache, models, classes @ ..] = args.as_slice() else {
        eprintln!("usage: record_models <cache dir> <models dir> <class>...");
        return ExitCode::from(2);
    };
    for class in classes {
        if let Err(why) = record(&PathBuf::from(cache), &PathBuf::from(models), class) {
            eprintln!("record_models: {class}: {why}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

fn record(cache: &Path, models: &Path, class: &str) -> Result<(), String> {
    let entry_path = cache.join("classes").join(format!("{class}.json"));
    let text = std::fs::read(&entry_path).map_err(|e| format!("{}: {e}", entry_path.display()))?;
    let mut entry: Value = serde_json::from_slice(&text).map_err(|e| e.to_string())?;
    let mut kept = entry["result"]["kept"].take();
    let Some(tests) = kept["tests"].as_array_mut() else {
        return Err("the cache entry has no kept tests".into());
    };
    for test in tests {
        for run in ["first", "second"] {
            test[run]["trace"] = json!([]);
        }
        if let Some(reruns) = test["reruns"].as_array_mut() {
            for rerun in reruns {
                rerun["outcome"]["trace"] = json!([]);
            }
        }
    }
    let simple = class.rsplit('.').next().unwrap_or(class);
    let path = models.join(format!("{simple}.json"));
    let recorded = json!({ "format": TEST_CLASS_FORMAT, "class": kept });
    let mut text = serde_json::to_string_pretty(&recorded).map_err(|e| e.to_string())?;
    text.push('\n');
    std::fs::create_dir_all(models).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    println!("recorded {}", path.display());
    Ok(())
}
