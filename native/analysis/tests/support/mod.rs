//! Shared by the integration tests: real class files to analyse.
#![allow(dead_code)] // each test binary uses a different part

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use testgen_classfile::{ClassFile, Member};

/// Root of the repository.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compiles `fixtures/analysis` with javac 17, once per test process, and
/// returns the class files as (internal class name, bytes), sorted by name.
pub fn fixture_classes() -> &'static [(String, Vec<u8>)] {
    static CLASSES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CLASSES.get_or_init(compile_fixtures)
}

fn compile_fixtures() -> Vec<(String, Vec<u8>)> {
    let sources: Vec<PathBuf> = walkdir::WalkDir::new(repo_root().join("fixtures/analysis/src"))
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.expect("fixture sources are readable").into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "java"))
        .collect();
    assert!(!sources.is_empty(), "no fixture sources found");
    // One directory per process: test binaries may run at the same time.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("analysis-fixtures-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    fs::create_dir_all(&out).unwrap();
    let status = Command::new("javac")
        .args(["--release", "17", "-g", "-encoding", "UTF-8", "-d"])
        .arg(&out)
        .args(&sources)
        .status()
        .expect("javac must be installed (make test runs scripts/setup.sh)");
    assert!(status.success(), "javac failed on the fixtures");
    let mut classes: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(&out)
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "class"))
        .map(|path| {
            let relative = path.strip_prefix(&out).unwrap().with_extension("");
            let name = relative.to_string_lossy().replace('\\', "/");
            (name, fs::read(&path).unwrap())
        })
        .collect();
    classes.sort();
    let _ = fs::remove_dir_all(&out);
    classes
}

/// The bytes of the fixture class with internal name `name`.
pub fn fixture(name: &str) -> &'static [u8] {
    &fixture_classes()
        .iter()
        .find(|(class, _)| class == name)
        .unwrap_or_else(|| panic!("javac did not produce {name}"))
        .1
}

/// The only method of `class` called `name`.
pub fn method<'c, 'a>(class: &'c ClassFile<'a>, name: &str) -> &'c Member<'a> {
    let mut found = class
        .methods
        .iter()
        .filter(|method| method.name(class).unwrap() == name);
    let method = found.next().unwrap_or_else(|| panic!("no method {name}"));
    assert!(found.next().is_none(), "{name} is overloaded");
    method
}

/// Every `.class` entry of a jar, as (entry name, bytes).
pub fn jar_classes(jar: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let file = fs::File::open(jar).map_err(|e| format!("{}: {e}", jar.display()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|e| e.to_string())?;
    let mut classes = Vec::new();
    for index in 0..archive.len() {
        let mut entry = archive.by_index(index).map_err(|e| e.to_string())?;
        if !entry.is_file() || !entry.name().ends_with(".class") {
            continue;
        }
        let name = entry.name().to_string();
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        classes.push((name, bytes));
    }
    Ok(classes)
}
