//! `--sources`: where the HTML report finds a class's Java source, to show
//! the line of each branch outcome no test covers. A source root is a
//! directory or a `.jar`/`.zip` of sources (Maven's `-sources.jar`); the
//! file of `a.b.C$D` is `a/b/C.java` under the first root that has it.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};

/// The source roots of a run; [`SourceLookup::none`] when none was given.
#[derive(Clone, Debug, Default)]
pub struct SourceLookup {
    roots: Vec<SourceRoot>,
}

#[derive(Clone, Debug)]
enum SourceRoot {
    Dir(PathBuf),
    Archive(PathBuf),
}

impl SourceLookup {
    pub fn none() -> SourceLookup {
        SourceLookup::default()
    }

    /// Fails on the first path that is no source root, with a message that
    /// starts with the path (see [`check`]).
    pub fn new(roots: &[PathBuf]) -> Result<SourceLookup, String> {
        let roots = roots
            .iter()
            .map(|root| root_at(root))
            .collect::<Result<_, _>>()?;
        Ok(SourceLookup { roots })
    }

    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The lines of the source file of the class with this binary name,
    /// from the first root that has it; `None` when none has it or it
    /// cannot be read (the report then shows no source).
    pub fn lines(&self, binary: &str) -> Option<Vec<String>> {
        let relative = source_path(binary)?;
        self.roots.iter().find_map(|root| {
            let bytes = match root {
                SourceRoot::Dir(dir) => fs::read(dir.join(&relative)).ok()?,
                SourceRoot::Archive(archive) => read_entry(archive, &relative)?,
            };
            // A file in another encoding still shows, with its odd bytes replaced.
            Some(
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::to_string)
                    .collect(),
            )
        })
    }
}

/// Whether `path` can be a source root: a directory, or a `.jar`/`.zip`
/// that opens as a zip archive. The message starts with the path.
pub fn check(path: &Path) -> Result<(), String> {
    root_at(path).map(|_| ())
}

fn root_at(path: &Path) -> Result<SourceRoot, String> {
    let shown = path.display();
    if path.is_dir() {
        return Ok(SourceRoot::Dir(path.to_path_buf()));
    }
    if !path.exists() {
        return Err(format!("{shown}: no such directory"));
    }
    let archive = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("jar") || ext.eq_ignore_ascii_case("zip"));
    if !archive {
        return Err(format!(
            "{shown}: not a directory, nor a .jar or .zip of Java sources"
        ));
    }
    let file = File::open(path).map_err(|e| format!("{shown}: cannot open: {e}"))?;
    zip::ZipArchive::new(file).map_err(|e| format!("{shown}: not a zip archive: {e}"))?;
    Ok(SourceRoot::Archive(path.to_path_buf()))
}

/// `a/b/C.java` for `a.b.C$D` (nested classes live in their outer class's
/// file); `None` for a name that is no class name (empty, `..` segments).
pub fn source_path(binary: &str) -> Option<String> {
    let outer = binary.split('$').next().unwrap_or(binary);
    let segments: Vec<&str> = outer.split('.').collect();
    if segments
        .iter()
        .any(|s| s.is_empty() || s.contains(['/', '\\']))
    {
        return None;
    }
    Some(format!("{}.java", segments.join("/")))
}

fn read_entry(archive: &Path, name: &str) -> Option<Vec<u8>> {
    let mut zip = zip::ZipArchive::new(File::open(archive).ok()?).ok()?;
    let mut entry = zip.by_name(name).ok()?;
    let mut bytes = Vec::new();
    entry.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join("testgen-driver-tests")
            .join(format!("sources-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn nested_classes_live_in_their_outer_class_file() {
        assert_eq!(source_path("a.b.C$D").as_deref(), Some("a/b/C.java"));
        assert_eq!(source_path("C").as_deref(), Some("C.java"));
        assert_eq!(source_path("a..C"), None);
        assert_eq!(source_path(""), None);
    }

    #[test]
    fn finds_lines_in_directories_and_jars() {
        let dir = scratch("roots");
        let tree = dir.join("tree");
        fs::create_dir_all(tree.join("a/b")).unwrap();
        fs::write(tree.join("a/b/C.java"), "package a.b;\r\nclass C {}\n").unwrap();
        let jar = dir.join("src.jar");
        let mut zip = zip::ZipWriter::new(File::create(&jar).unwrap());
        zip.start_file("a/b/E.java", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(b"package a.b;\nclass E {}\n").unwrap();
        zip.finish().unwrap();

        let lookup = SourceLookup::new(&[tree, jar]).unwrap();
        assert_eq!(
            lookup.lines("a.b.C$1"),
            Some(vec!["package a.b;".to_string(), "class C {}".to_string()])
        );
        assert_eq!(lookup.lines("a.b.E").unwrap()[1], "class E {}");
        assert_eq!(lookup.lines("a.b.Missing"), None);
    }

    #[test]
    fn a_path_that_is_no_source_root_is_named() {
        let dir = scratch("bad");
        let missing = dir.join("missing");
        let error = SourceLookup::new(std::slice::from_ref(&missing)).unwrap_err();
        assert_eq!(error, format!("{}: no such directory", missing.display()));
        let text = dir.join("notes.txt");
        fs::write(&text, "").unwrap();
        assert!(check(&text).unwrap_err().contains("not a directory"));
        let fake = dir.join("fake.jar");
        fs::write(&fake, "not a zip").unwrap();
        assert!(check(&fake).unwrap_err().contains("not a zip archive"));
    }
}
