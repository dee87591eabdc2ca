//! Test support shared by testgen's crates (a dev-dependency only): real
//! class files from javac and from Debian's jars, and scratch directories.
//!
//! Tests need `javac` and the jars that `scripts/setup.sh` installs; a
//! missing tool is a test failure with a message saying so, never a skip.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Root of the repository.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty directory of its own for every call: tests of one binary
/// run in parallel threads, and test binaries may run at the same time.
pub fn scratch_dir(tag: &str) -> PathBuf {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir()
        .join("testgen-tests")
        .join(format!("{tag}-{}-{call}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("the temporary directory is writable");
    dir
}

/// Every file under `dir` by relative path (with `/`), with its bytes.
pub fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.expect("the directory is readable"))
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| {
            let relative = entry.path().strip_prefix(dir).expect("below dir");
            let name: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            (
                name.join("/"),
                fs::read(entry.path()).expect("the file is readable"),
            )
        })
        .collect()
}

/// Every `.java` file under `dir`, sorted.
pub fn java_sources(dir: &Path) -> Vec<PathBuf> {
    let sources: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.expect("fixture sources are readable").into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "java"))
        .collect();
    assert!(
        !sources.is_empty(),
        "no Java sources under {}",
        dir.display()
    );
    sources
}

/// Compiles `sources` with the JDK's javac for Java 17, with debug
/// information, into `out`.
pub fn javac(sources: &[PathBuf], out: &Path) {
    let status = Command::new("javac")
        .args(["--release", "17", "-g", "-encoding", "UTF-8", "-d"])
        .arg(out)
        .args(sources)
        .status()
        .expect("javac must be installed (make test runs scripts/setup.sh)");
    assert!(status.success(), "javac failed");
}

/// Compiles every source under `fixtures/<fixture>/src` into a fresh
/// scratch directory and returns that directory.
pub fn compile_fixture(fixture: &str) -> PathBuf {
    let out = scratch_dir(&format!("{}-classes", fixture.replace('/', "-")));
    javac(
        &java_sources(&repo_root().join("fixtures").join(fixture).join("src")),
        &out,
    );
    out
}

/// Every class file under `dir` as (internal name, bytes), sorted by name.
pub fn classes_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut classes: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| entry.expect("class directories are readable").into_path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "class"))
        .map(|path| {
            let relative = path.strip_prefix(dir).unwrap().with_extension("");
            let name = relative.to_string_lossy().replace('\\', "/");
            (name, fs::read(&path).unwrap())
        })
        .collect();
    classes.sort();
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
/// included, as (entry name, bytes), in the jar's order.
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

/// The classes of a Debian jar that setup installs; panics with a hint if
/// it is missing.
pub fn installed_jar_classes(jar: &str) -> Vec<(String, Vec<u8>)> {
    jar_classes(Path::new(jar))
        .unwrap_or_else(|e| panic!("{jar} must exist (run scripts/setup.sh): {e}"))
}
