//! Finds the class files of one module's inputs: directories of `.class`
//! files and jars, including multi-release jars (JEP 238).
//!
//! The crate knows nothing about the class-file format. It delivers the raw
//! bytes of each class file together with where they came from, and reports
//! every entry it could not read, with the reason, without giving up on the
//! rest of the input.
//!
//! ```no_run
//! use std::path::Path;
//! use testgen_classpath::Input;
//!
//! let input = Input::open(Path::new("lib/foo.jar"))?;
//! for class in input.classes(17)? {
//!     match class {
//!         Ok(class) => println!("{}: {} bytes", class.location, class.bytes.len()),
//!         Err(error) => eprintln!("{error}"),
//!     }
//! }
//! # Ok::<(), testgen_classpath::InputError>(())
//! ```

mod directory;
mod jar;
mod manifest;
mod names;

use std::fmt::{self, Display, Write as _};
use std::fs;
use std::io::{self, Read};
use std::iter::FusedIterator;
use std::path::{Path, PathBuf};
use std::vec;

pub use names::class_name_of;

/// The largest class file this crate will read, in bytes.
///
/// The JVM's own class files are at most a few MiB; anything declaring more
/// than this is treated as damaged rather than trusted with an allocation.
pub const MAX_CLASS_FILE_SIZE: u64 = 64 * 1024 * 1024;

/// One input path given by the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A directory tree of `.class` files, laid out by package.
    Directory(PathBuf),
    /// A jar (any zip archive).
    Jar(PathBuf),
}

impl Input {
    /// Checks that `path` can be read and decides what kind of input it is.
    ///
    /// Fails only when the path cannot be read at all: it is missing, access
    /// is denied, it is neither a directory nor a regular file, or it is a
    /// file that is not a zip archive.
    pub fn open(path: &Path) -> Result<Input, InputError> {
        let io_error = |error| InputError::Io {
            path: path.to_owned(),
            error,
        };
        let metadata = fs::metadata(path).map_err(io_error)?;
        if metadata.is_dir() {
            // Listing it now surfaces "permission denied" here rather than
            // as a failure half-way through the caller's work.
            fs::read_dir(path).map_err(io_error)?;
            Ok(Input::Directory(path.to_owned()))
        } else if metadata.is_file() {
            jar::open_archive(path)?;
            Ok(Input::Jar(path.to_owned()))
        } else {
            Err(InputError::NotFileOrDirectory {
                path: path.to_owned(),
            })
        }
    }

    /// The path this input was opened from.
    pub fn path(&self) -> &Path {
        match self {
            Input::Directory(path) | Input::Jar(path) => path,
        }
    }

    /// All class files of this input, in order of their class entry name
    /// (for a multi-release jar, the name without the `META-INF/versions/N/`
    /// prefix), each either read or an error naming the entry and the reason.
    /// A jar manifest that cannot be read is reported first, as an error at
    /// the manifest's location; the jar is then treated as not
    /// multi-release.
    ///
    /// The listing happens here; the bytes are read one entry at a time as
    /// the returned iterator advances, so only the class being handled needs
    /// to be in memory.
    ///
    /// `release` is the Java feature version of the JDK that will run the
    /// code (e.g. 17). It selects among the versions of a class in a
    /// multi-release jar and is ignored for everything else.
    ///
    /// Fails only when the input as a whole can no longer be read (for
    /// example it was removed or replaced since [`Input::open`]).
    pub fn classes(&self, release: u16) -> Result<Classes, InputError> {
        match self {
            Input::Directory(path) => directory::classes(path),
            Input::Jar(path) => jar::classes(path, release),
        }
    }
}

/// What kind of container a [`Location`] is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContainerKind {
    Directory,
    Jar,
}

/// Where a class file is: a directory or jar, and the path inside it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// The directory or jar, as given by the user.
    pub container: PathBuf,
    /// Whether `container` is a directory or a jar.
    pub kind: ContainerKind,
    /// The path inside the container, with `/` separators, e.g.
    /// `org/example/Foo.class` or, for a class chosen from a multi-release
    /// jar, `META-INF/versions/11/org/example/Foo.class`.
    pub entry: String,
}

impl Location {
    /// The internal class name (`org/example/Foo`) of this entry, if it
    /// names a class file. See [`class_name_of`].
    pub fn class_name(&self) -> Option<&str> {
        class_name_of(&self.entry)
    }
}

/// `lib/foo.jar!/org/example/Foo.class` for a jar entry,
/// `classes/org/example/Foo.class` for a file in a directory.
impl Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let container = self.container.display().to_string();
        f.write_str(&container)?;
        match self.kind {
            ContainerKind::Jar => f.write_str("!/")?,
            ContainerKind::Directory if container.is_empty() || container.ends_with('/') => {}
            ContainerKind::Directory => f.write_char('/')?,
        }
        // A jar's entry names are arbitrary text; keep control characters
        // from garbling the terminal that shows them.
        for c in self.entry.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                f.write_char(c)?;
            }
        }
        Ok(())
    }
}

/// A class file that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassBytes {
    pub location: Location,
    pub bytes: Vec<u8>,
}

/// A class file that could not be read. The rest of the input is unaffected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    pub location: Location,
    /// Why it could not be read, e.g. `Invalid checksum`.
    pub reason: String,
}

impl Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.reason)
    }
}

impl std::error::Error for EntryError {}

/// An input that cannot be read at all.
///
/// The messages already contain the underlying OS or zip reason, so the
/// reason is deliberately not also exposed as [`std::error::Error::source`]
/// (reporters that print the chain would show it twice).
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {}: {error}", path.display())]
    Io { path: PathBuf, error: io::Error },
    #[error("{} is not a valid jar (zip archive): {reason}", path.display())]
    NotZip { path: PathBuf, reason: String },
    #[error("cannot read {}: neither a directory nor a regular file", path.display())]
    NotFileOrDirectory { path: PathBuf },
}

/// The class files of one input, read lazily, in a fixed order.
///
/// Created by [`Input::classes`]. Its length is known up front, which is
/// handy for progress reports. It is `Send`, so it can feed a thread pool.
#[derive(Debug)]
pub struct Classes {
    source: Source,
}

#[derive(Debug)]
enum Source {
    Directory(vec::IntoIter<Step<PathBuf>>),
    Jar {
        archive: jar::Archive,
        steps: vec::IntoIter<Step<usize>>,
    },
}

/// One planned item: where to read it from (a file path or a zip index), or
/// why it already failed while listing.
#[derive(Debug)]
struct Step<T> {
    location: Location,
    source: Result<T, String>,
}

impl<T> Step<T> {
    fn run(
        self,
        read: impl FnOnce(T) -> Result<Vec<u8>, String>,
    ) -> Result<ClassBytes, EntryError> {
        match self.source.and_then(read) {
            Ok(bytes) => Ok(ClassBytes {
                location: self.location,
                bytes,
            }),
            Err(reason) => Err(EntryError {
                location: self.location,
                reason,
            }),
        }
    }
}

impl Iterator for Classes {
    type Item = Result<ClassBytes, EntryError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.source {
            Source::Directory(steps) => steps.next().map(|step| step.run(directory::read_file)),
            Source::Jar { archive, steps } => steps
                .next()
                .map(|step| step.run(|index| jar::read_entry(archive, index))),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.source {
            Source::Directory(steps) => steps.size_hint(),
            Source::Jar { steps, .. } => steps.size_hint(),
        }
    }
}

impl ExactSizeIterator for Classes {}

impl FusedIterator for Classes {}

/// Reads a whole class file, refusing anything larger than
/// [`MAX_CLASS_FILE_SIZE`] whatever size it declares.
fn read_capped(reader: impl Read, declared_size: u64) -> Result<Vec<u8>, String> {
    let too_large =
        || format!("larger than the {MAX_CLASS_FILE_SIZE}-byte limit for a class file; not read");
    if declared_size > MAX_CLASS_FILE_SIZE {
        return Err(format!(
            "declared size of {declared_size} bytes is {}",
            too_large()
        ));
    }
    // The declared size is only a hint (it is at most the cap here); the
    // `take` limit is what bounds the memory if the data turns out longer.
    let mut bytes = Vec::with_capacity(usize::try_from(declared_size).unwrap_or(0));
    reader
        .take(MAX_CLASS_FILE_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| error.to_string())?;
    if bytes.len() as u64 > MAX_CLASS_FILE_SIZE {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn location(container: &str, kind: ContainerKind, entry: &str) -> Location {
        Location {
            container: PathBuf::from(container),
            kind,
            entry: entry.to_owned(),
        }
    }

    #[test]
    fn location_display() {
        use ContainerKind::*;
        let jar = location("lib/foo.jar", Jar, "org/example/Foo.class");
        assert_eq!(jar.to_string(), "lib/foo.jar!/org/example/Foo.class");
        let dir = location("classes", Directory, "org/example/Foo.class");
        assert_eq!(dir.to_string(), "classes/org/example/Foo.class");
        let slash = location("classes/", Directory, "Foo.class");
        assert_eq!(slash.to_string(), "classes/Foo.class");
        let control = location("a.jar", Jar, "evil\u{1b}[2J.class");
        assert_eq!(control.to_string(), "a.jar!/evil\\u{1b}[2J.class");
    }

    #[test]
    fn entry_error_display() {
        let error = EntryError {
            location: location("a.jar", ContainerKind::Jar, "A.class"),
            reason: "Invalid checksum".to_owned(),
        };
        assert_eq!(error.to_string(), "a.jar!/A.class: Invalid checksum");
    }

    #[test]
    fn read_capped_limits() {
        assert_eq!(read_capped(&b"abc"[..], 3).unwrap(), b"abc");
        // A wrong declared size is harmless as long as the data is small.
        assert_eq!(read_capped(&b"abc"[..], 1).unwrap(), b"abc");
        let error = read_capped(&b""[..], MAX_CLASS_FILE_SIZE + 1).unwrap_err();
        assert!(error.contains("declared size"), "{error}");
        let endless = io::repeat(0);
        let error = read_capped(endless, 10).unwrap_err();
        assert!(error.contains("limit"), "{error}");
    }

    #[test]
    fn classes_is_send() {
        fn assert_send<T: Send>() {}
        assert_send::<Classes>();
    }
}
