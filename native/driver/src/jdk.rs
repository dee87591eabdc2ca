//! Finding the JDK that will run the code under test, and its version.
//!
//! The version decides which entries of a multi-release jar are the real
//! classes. It is read from the JDK's `release` file, so no JVM is started.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum JdkError {
    #[error("no `java` found: pass --java PATH, set JAVA_HOME, or put java on PATH")]
    NotFound,
    #[error("{path}: cannot read the JDK's release file: {source}")]
    NoReleaseFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: no JAVA_VERSION line that names a Java version")]
    NoVersion { path: PathBuf },
}

/// The `java` executable to use: `explicit`, else `$JAVA_HOME/bin/java`,
/// else the first `java` on `PATH`.
pub fn find_java(explicit: Option<&Path>) -> Result<PathBuf, JdkError> {
    if let Some(path) = explicit {
        return Ok(path.to_path_buf());
    }
    if let Some(home) = env::var_os("JAVA_HOME").filter(|home| !home.is_empty()) {
        let java = Path::new(&home).join("bin").join("java");
        if java.is_file() {
            return Ok(java);
        }
    }
    env::var_os("PATH")
        .iter()
        .flat_map(env::split_paths)
        .map(|dir| dir.join("java"))
        .find(|java| java.is_file())
        .ok_or(JdkError::NotFound)
}

/// The feature version (8, 11, 17, ...) of the JDK that `java` belongs to.
pub fn feature_version(java: &Path) -> Result<u16, JdkError> {
    // Follow links such as /usr/bin/java -> /etc/alternatives/java -> the JDK.
    let java = fs::canonicalize(java).unwrap_or_else(|_| java.to_path_buf());
    let home = java
        .parent()
        .and_then(Path::parent)
        .ok_or(JdkError::NotFound)?;
    let path = home.join("release");
    let text = fs::read_to_string(&path).map_err(|source| JdkError::NoReleaseFile {
        path: path.clone(),
        source,
    })?;
    parse_release_file(&text).ok_or(JdkError::NoVersion { path })
}

/// Reads `JAVA_VERSION="17.0.15"` (or `"1.8.0_392"` for Java 8) from the
/// text of a JDK `release` file.
fn parse_release_file(text: &str) -> Option<u16> {
    let line = text
        .lines()
        .find_map(|line| line.strip_prefix("JAVA_VERSION="))?;
    let version = line.trim().trim_matches('"');
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u16 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_modern_and_legacy_version_strings() {
        assert_eq!(
            parse_release_file("IMPLEMENTOR=x\nJAVA_VERSION=\"17.0.15\"\n"),
            Some(17)
        );
        assert_eq!(parse_release_file("JAVA_VERSION=\"1.8.0_392\""), Some(8));
        assert_eq!(parse_release_file("JAVA_VERSION=\"21\""), Some(21));
        assert_eq!(parse_release_file("JAVA_VERSION=\"25-ea\""), Some(25));
        assert_eq!(parse_release_file("OS_NAME=Linux"), None);
    }

    #[test]
    fn finds_the_installed_jdk() {
        // The test suite's setup installs JDK 17 (see scripts/setup.sh).
        let java = find_java(None).expect("setup installs a JDK");
        assert!(feature_version(&java).unwrap() >= 17);
    }
}
