//! Compiles the executor's Java sources with javac and embeds the class
//! files in the crate, so a `testgen` binary carries its own executor.
//!
//! javac is `$JAVA_HOME/bin/javac` if that exists, else the first `javac` on
//! `PATH`. `--release 11` keeps the classes loadable on JDK 11 and newer.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{self, Command};

fn main() {
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("set by cargo"));
    let java_dir = manifest_dir.join("java");
    println!("cargo:rerun-if-changed=java");
    println!("cargo:rerun-if-env-changed=JAVA_HOME");
    println!("cargo:rerun-if-env-changed=PATH");

    let mut sources = Vec::new();
    collect_files(&java_dir, "java", &mut sources);
    sources.sort();
    if sources.is_empty() {
        fail(&format!("no Java sources under {}", java_dir.display()));
    }

    let javac = find_javac().unwrap_or_else(|tried| {
        fail(&format!(
            "cannot compile the executor: no javac found (tried {tried}); \
             install a JDK (11 or newer) or set JAVA_HOME"
        ))
    });
    let classes_dir = out_dir.join("executor-classes");
    let _ = fs::remove_dir_all(&classes_dir);
    fs::create_dir_all(&classes_dir).unwrap_or_else(|e| {
        fail(&format!("cannot create {}: {e}", classes_dir.display()));
    });
    let output = Command::new(&javac)
        .args(["--release", "11", "-encoding", "UTF-8", "-g", "-Xlint:all"])
        .arg("-d")
        .arg(&classes_dir)
        .args(&sources)
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run {}: {e}", javac.display())));
    if !output.status.success() {
        fail(&format!(
            "{} failed on the executor's sources:\n{}{}",
            javac.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }

    let mut classes = Vec::new();
    collect_files(&classes_dir, "class", &mut classes);
    classes.sort();
    let mut generated = String::from(
        "/// The executor's class files as (path inside the class directory, bytes).\n\
         pub(crate) static EXECUTOR_CLASSES: &[(&str, &[u8])] = &[\n",
    );
    for class in &classes {
        let relative = class
            .strip_prefix(&classes_dir)
            .expect("found under the class directory");
        let name = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        writeln!(
            generated,
            "    ({name:?}, include_bytes!({:?})),",
            class.display().to_string()
        )
        .expect("writing to a String");
    }
    generated.push_str("];\n");
    let target = out_dir.join("executor_classes.rs");
    fs::write(&target, generated)
        .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", target.display())));
}

/// Every file under `dir` whose extension is `extension`.
fn collect_files(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    let entries =
        fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", dir.display())));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", dir.display())))
            .path();
        if path.is_dir() {
            collect_files(&path, extension, found);
        } else if path.extension().is_some_and(|ext| ext == extension) {
            found.push(path);
        }
    }
}

/// javac from JAVA_HOME, else from PATH; on failure, what was tried.
fn find_javac() -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    match env::var_os("JAVA_HOME").filter(|home| !home.is_empty()) {
        Some(home) => {
            let javac = Path::new(&home).join("bin").join("javac");
            if javac.is_file() {
                return Ok(javac);
            }
            tried.push(javac.display().to_string());
        }
        None => tried.push("$JAVA_HOME/bin/javac (JAVA_HOME is not set)".to_string()),
    }
    let on_path = env::var_os("PATH")
        .iter()
        .flat_map(env::split_paths)
        .map(|dir| dir.join("javac"))
        .find(|javac| javac.is_file());
    match on_path {
        Some(javac) => Ok(javac),
        None => {
            tried.push("javac on PATH".to_string());
            Err(tried.join(", "))
        }
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    process::exit(1)
}
