//! Entry names: class-file suffixes, multi-release prefixes and validation.

/// Where a multi-release jar keeps the versioned copies of its entries.
pub(crate) const VERSIONS_PREFIX: &str = "META-INF/versions/";

const CLASS_SUFFIX: &str = ".class";

/// Maps an entry name to the internal name of the class it holds, e.g.
/// `org/example/Foo.class` and `META-INF/versions/11/org/example/Foo.class`
/// both to `org/example/Foo`. Returns `None` when the entry is not a class
/// file.
///
/// The `META-INF/versions/N/` prefix is removed only when `N` is a version
/// the JVM recognises (a plain decimal number of at least 9).
pub fn class_name_of(entry: &str) -> Option<&str> {
    let name = split_versioned(entry).map_or(entry, |(_, name)| name);
    if is_class_file_name(name) {
        name.strip_suffix(CLASS_SUFFIX)
    } else {
        None
    }
}

/// Whether the last path component ends in `.class` and has something
/// before it (a bare `.class` names no class).
pub(crate) fn is_class_file_name(entry: &str) -> bool {
    let file_name = entry.rsplit('/').next().unwrap_or(entry);
    file_name.len() > CLASS_SUFFIX.len() && file_name.ends_with(CLASS_SUFFIX)
}

/// Splits `META-INF/versions/N/rest` into `(N, rest)` when `N` is a valid
/// version directory.
pub(crate) fn split_versioned(entry: &str) -> Option<(u16, &str)> {
    let rest = entry.strip_prefix(VERSIONS_PREFIX)?;
    let (version, name) = rest.split_once('/')?;
    Some((parse_version(version)?, name))
}

/// Parses a version directory name the way the JDK matches it: it looks up
/// `META-INF/versions/` followed by the decimal feature number, so only the
/// canonical spelling (no sign, no leading zero) can ever be found, and
/// versions below 9 are ignored by JEP 238.
fn parse_version(text: &str) -> Option<u16> {
    if text.is_empty() || text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u16>().ok().filter(|&version| version >= 9)
}

/// Rejects entry names that are not plain relative `/`-separated paths.
///
/// Such names can never be found by the JVM's class loader, and a name like
/// `../x` must never reach code that might one day use it as a path.
pub(crate) fn check_entry_name(entry: &str) -> Result<(), String> {
    let problem = if entry.starts_with('/') {
        Some("it is an absolute path")
    } else if entry.contains('\\') {
        Some("it contains a backslash")
    } else if entry.chars().any(char::is_control) {
        Some("it contains a control character")
    } else if has_drive_letter(entry) {
        Some("it starts with a drive letter")
    } else if entry.split('/').any(|part| matches!(part, "" | "." | "..")) {
        Some("it has an empty, `.` or `..` path component")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(format!("unsafe entry name: {problem}")),
        None => Ok(()),
    }
}

fn has_drive_letter(entry: &str) -> bool {
    let bytes = entry.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names() {
        assert_eq!(
            class_name_of("org/example/Foo.class"),
            Some("org/example/Foo")
        );
        assert_eq!(
            class_name_of("META-INF/versions/11/org/example/Foo.class"),
            Some("org/example/Foo")
        );
        assert_eq!(class_name_of("module-info.class"), Some("module-info"));
        assert_eq!(
            class_name_of("META-INF/versions/9/module-info.class"),
            Some("module-info")
        );
        assert_eq!(class_name_of("org/example/a.txt"), None);
        assert_eq!(class_name_of("org/example/"), None);
        assert_eq!(class_name_of(".class"), None);
        assert_eq!(class_name_of("org/.class"), None);
        // Not a version directory the JVM knows, so not a versioned entry.
        assert_eq!(
            class_name_of("META-INF/versions/8/Foo.class"),
            Some("META-INF/versions/8/Foo")
        );
    }

    #[test]
    fn versions() {
        assert_eq!(
            split_versioned("META-INF/versions/9/A.class"),
            Some((9, "A.class"))
        );
        assert_eq!(
            split_versioned("META-INF/versions/21/a/B.class"),
            Some((21, "a/B.class"))
        );
        for rejected in [
            "META-INF/versions/8/A.class",
            "META-INF/versions/09/A.class",
            "META-INF/versions/+11/A.class",
            "META-INF/versions/x/A.class",
            "META-INF/versions//A.class",
            "META-INF/versions/99999999/A.class",
            "META-INF/versions/11",
            "org/A.class",
        ] {
            assert_eq!(split_versioned(rejected), None, "{rejected}");
        }
    }

    #[test]
    fn entry_name_checks() {
        for good in [
            "A.class",
            "org/example/Foo$1.class",
            "META-INF/versions/11/A.class",
        ] {
            assert_eq!(check_entry_name(good), Ok(()), "{good}");
        }
        for bad in [
            "/etc/A.class",
            "../A.class",
            "org/../../A.class",
            "org/./A.class",
            "org//A.class",
            "org\\A.class",
            "C:/A.class",
            "c:A.class",
            "org/A\n.class",
        ] {
            let reason = check_entry_name(bad).unwrap_err();
            assert!(reason.starts_with("unsafe entry name"), "{bad}: {reason}");
        }
    }
}
