//! Compiling a generated test class with the JDK's `javac`, and reading
//! which lines it rejected or warned about.

use super::*;

/// An error or a warning of javac at a line of the generated file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileError {
    pub line: usize,
    pub message: String,
}

/// What javac said about a source it compiled.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub classes: PathBuf,
    /// The raw-type and unchecked warnings (`-Xlint:rawtypes,unchecked`):
    /// a generated test should have none.
    pub warnings: Vec<CompileError>,
}

/// What javac said about a source it rejected.
#[derive(Clone, Debug)]
pub struct Rejected {
    /// The source file written.
    pub file: PathBuf,
    /// Everything javac printed.
    pub output: String,
    pub errors: Vec<CompileError>,
}

/// Writes `emitted` under `dir/src` and compiles it into `dir/classes`;
/// `Ok(Err(..))` when javac rejected the source.
pub fn compile(
    emitted: &EmittedClass,
    validator: &Validator,
    dir: &Path,
) -> Result<Result<Compiled, Rejected>, ValidateError> {
    let source = dir.join("src").join(&emitted.path);
    let classes = dir.join("classes");
    for made in [source.parent().unwrap_or(dir), &classes] {
        fs::create_dir_all(made).map_err(|e| io_error(made, e))?;
    }
    fs::write(&source, &emitted.source).map_err(|e| io_error(&source, e))?;
    let output = run_javac(validator, |javac| {
        javac
            .args([
                "-encoding",
                "UTF-8",
                "-Xlint:rawtypes,unchecked",
                "-proc:none",
                "-implicit:none",
            ])
            .args(["-Xmaxerrs", "10000", "-Xmaxwarns", "10000", "-d"])
            .arg(&classes)
            .arg("-cp")
            .arg(validator.classpath_with(None))
            .arg(&source)
    })?;
    let text = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    if output.status.success() {
        return Ok(Ok(Compiled {
            classes,
            warnings: diagnostics(&text, &source, "warning"),
        }));
    }
    Ok(Err(Rejected {
        errors: diagnostics(&text, &source, "error"),
        file: source,
        output: text,
    }))
}

/// Runs the `javac` beside the validator's `java` with the arguments
/// `arguments` adds.
pub(super) fn run_javac(
    validator: &Validator,
    arguments: impl FnOnce(&mut Command) -> &mut Command,
) -> Result<std::process::Output, ValidateError> {
    let javac = validator.javac()?;
    let mut command = Command::new(&javac);
    arguments(&mut command);
    command
        .stdin(Stdio::null())
        .output()
        .map_err(|source| ValidateError::Spawn {
            program: javac,
            source,
        })
}

/// `File.java:12: error: message` lines about `source`, for `kind`
/// `error` (or `warning`).
pub(super) fn diagnostics(output: &str, source: &Path, kind: &str) -> Vec<CompileError> {
    let prefix = format!("{}:", source.display());
    let separator = format!(": {kind}: ");
    output
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix(&prefix)?;
            let (number, message) = rest.split_once(&separator)?;
            Some(CompileError {
                line: number.parse().ok()?,
                message: message.to_string(),
            })
        })
        .collect()
}
