//! Class files in a directory tree.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::names::{is_class_file_name, VERSIONS_PREFIX};
use crate::{read_capped, Classes, ContainerKind, InputError, Location, Source, Step};

/// Lists the class files under `root`, sorted by entry name.
pub(crate) fn classes(root: &Path) -> Result<Classes, InputError> {
    let versions_dir = Path::new(VERSIONS_PREFIX.trim_end_matches('/'));
    let walk = WalkDir::new(root)
        // Following links lets a linked package directory count; walkdir
        // detects links that lead back to an ancestor.
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        // The JVM supports multi-release layouts only in jars. From a
        // directory it loads the base classes, so versioned copies (as in
        // a Maven build's target/classes) would only be duplicates.
        .filter_entry(|entry| entry.path().strip_prefix(root) != Ok(versions_dir));

    let mut steps = Vec::new();
    for item in walk {
        match item {
            Ok(entry) => {
                if !entry.file_type().is_file() || !has_class_file_name(entry.file_name()) {
                    continue;
                }
                let step = match entry_name(root, entry.path()) {
                    Ok(name) => Step {
                        location: location(root, name),
                        source: Ok(entry.into_path()),
                    },
                    Err(lossy_name) => Step {
                        location: location(root, lossy_name),
                        source: Err("file name is not valid UTF-8".to_owned()),
                    },
                };
                steps.push(step);
            }
            // Everything along a loop has already been visited once, so
            // skipping it loses nothing and is not worth an error.
            Err(error) if error.loop_ancestor().is_some() => {}
            Err(error) if error.depth() == 0 => {
                return Err(InputError::Io {
                    path: root.to_owned(),
                    error: error
                        .into_io_error()
                        .unwrap_or_else(|| io::Error::other("unreadable")),
                });
            }
            // An unreadable subdirectory or broken link may hide class
            // files, so it is reported even though its name says nothing.
            Err(error) => {
                let path = error.path().unwrap_or(root);
                let name = entry_name(root, path).unwrap_or_else(|lossy_name| lossy_name);
                let reason = match error.io_error() {
                    Some(io_error)
                        if io_error.kind() == io::ErrorKind::NotFound && path.is_symlink() =>
                    {
                        "broken symbolic link".to_owned()
                    }
                    Some(io_error) => io_error.to_string(),
                    None => error.to_string(),
                };
                steps.push(Step {
                    location: location(root, name),
                    source: Err(reason),
                });
            }
        }
    }
    // Sorting per directory (as walkdir does) is not the same as sorting by
    // entry name: `a/b/C.class` comes before `a/b.class` in a walk.
    steps.sort_by(|a, b| a.location.entry.cmp(&b.location.entry));
    Ok(Classes {
        source: Source::Directory(steps.into_iter()),
    })
}

/// Reads one listed class file.
pub(crate) fn read_file(path: PathBuf) -> Result<Vec<u8>, String> {
    let file = File::open(&path).map_err(|error| error.to_string())?;
    let size = file.metadata().map_err(|error| error.to_string())?.len();
    read_capped(file, size)
}

fn location(root: &Path, entry: String) -> Location {
    Location {
        container: root.to_owned(),
        kind: ContainerKind::Directory,
        entry,
    }
}

fn has_class_file_name(file_name: &OsStr) -> bool {
    // Non-UTF-8 names still count, so that they are reported rather than
    // silently passed over.
    is_class_file_name(&file_name.to_string_lossy())
}

/// The `/`-separated path of `path` relative to `root`, or, when some
/// component is not valid UTF-8, `Err` with a lossy rendering for messages.
fn entry_name(root: &Path, path: &Path) -> Result<String, String> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let mut name = String::new();
    let mut valid = true;
    for component in relative.components() {
        if !name.is_empty() {
            name.push('/');
        }
        let component = component.as_os_str();
        match component.to_str() {
            Some(text) => name.push_str(text),
            None => {
                valid = false;
                name.push_str(&component.to_string_lossy());
            }
        }
    }
    if valid {
        Ok(name)
    } else {
        Err(name)
    }
}
