//! Shared by the reader's integration tests: real class files to read.
#![allow(dead_code)] // each test binary uses a different part

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Root of the repository.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compiles `fixtures/classfile` with the JDK's javac (installed by setup),
/// once per test process, and returns the class files as (file name, bytes),
/// sorted by name.
pub fn fixture_classes() -> Vec<(String, Vec<u8>)> {
    static CLASSES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    CLASSES.get_or_init(compile_fixtures).clone()
}

fn compile_fixtures() -> Vec<(String, Vec<u8>)> {
    let sources: Vec<PathBuf> = walkdir::WalkDir::new(repo_root().join("fixtures/classfile/src"))
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.expect("fixture sources are readable").into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "java"))
        .collect();
    assert!(!sources.is_empty(), "no fixture sources found");
    // One directory per process: test binaries may run at the same time.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("classfile-fixtures-{}", std::process::id()));
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
            let name = path
                .strip_prefix(&out)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, fs::read(&path).unwrap())
        })
        .collect();
    classes.sort();
    let _ = fs::remove_dir_all(&out);
    classes
}

/// Every regular `.jar` file under `dir` (symbolic links to jars are left
/// out, since they point at jars that are already listed), sorted.
pub fn jars_under(dir: &Path) -> Vec<PathBuf> {
    let mut jars: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| entry.into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jar"))
        .collect();
    jars.sort();
    jars
}

/// Every `.class` entry of a jar, versioned entries of multi-release jars
/// included, as (entry name, bytes).
pub fn jar_classes(jar: &Path) -> Result<Vec<(String, Vec<u8>)>, String> {
    let file = fs::File::open(jar).map_err(|e| e.to_string())?;
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
