//! What can go wrong writing testgen's own files (tests, cache entries, the
//! report), typed: the action, the file, and the system's reason.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// What was being done to a file when it failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileAction {
    Create,
    Open,
    Lock,
    Write,
    Rename,
    Remove,
    /// Turning data into JSON (which fails only for data JSON cannot hold).
    Encode,
    /// Reading the working directory, to make the options' paths absolute.
    Locate,
}

impl fmt::Display for FileAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileAction::Create => "create",
            FileAction::Open => "open",
            FileAction::Lock => "lock",
            FileAction::Write => "write",
            FileAction::Rename => "rename",
            FileAction::Remove => "remove",
            FileAction::Encode => "encode",
            FileAction::Locate => "locate",
        })
    }
}

/// A file testgen writes could not be written (or removed).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: FileAction,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The path holds a file testgen did not write; it is left as it is.
    #[error(
        "{} exists and was not written by testgen (its first line is not testgen's header); left untouched",
        .0.display()
    )]
    NotOurs(PathBuf),
}

impl FileError {
    /// A closure for `map_err` on an I/O result about `path`.
    pub fn io(action: FileAction, path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> FileError {
        let path = path.into();
        move |source| FileError::Io {
            action,
            path,
            source,
        }
    }

    /// A JSON encoding failure of what goes to `path`.
    pub fn encode(path: impl Into<PathBuf>) -> impl FnOnce(serde_json::Error) -> FileError {
        let path = path.into();
        move |error| FileError::Io {
            action: FileAction::Encode,
            path,
            source: io::Error::other(error),
        }
    }
}
