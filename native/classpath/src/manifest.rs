//! Just enough of the jar manifest format to tell a multi-release jar.

/// Whether the manifest's main section says `Multi-Release: true`.
///
/// Follows `java.util.jar.Attributes`: the name is case-insensitive, the
/// value is compared with `equalsIgnoreCase("true")` and not trimmed, and the
/// last occurrence of a repeated attribute wins.
pub(crate) fn is_multi_release(manifest: &[u8]) -> bool {
    main_attributes(manifest)
        .into_iter()
        .rev()
        .find(|(name, _)| name.eq_ignore_ascii_case(b"Multi-Release"))
        .is_some_and(|(_, value)| value.eq_ignore_ascii_case(b"true"))
}

/// The `(name, value)` pairs of the main section (up to the first blank
/// line). A line starting with a space continues the previous value; as in
/// the JDK, a name cannot be continued. Malformed lines are skipped.
fn main_attributes(manifest: &[u8]) -> Vec<(&[u8], Vec<u8>)> {
    let mut attributes: Vec<(&[u8], Vec<u8>)> = Vec::new();
    // Whether the last line was a header we kept, so that continuations of
    // a malformed header do not end up in the previous value.
    let mut continuable = false;
    for line in lines(manifest) {
        if line.is_empty() {
            break;
        }
        if let Some(continuation) = line.strip_prefix(b" ") {
            if let (true, Some((_, value))) = (continuable, attributes.last_mut()) {
                value.extend_from_slice(continuation);
            }
        } else if let Some((name, value)) = split_header(line) {
            attributes.push((name, value.to_vec()));
            continuable = true;
        } else {
            continuable = false;
        }
    }
    attributes
}

/// Splits a header into name and value at the `": "` the format requires.
fn split_header(header: &[u8]) -> Option<(&[u8], &[u8])> {
    let colon = header.iter().position(|&b| b == b':')?;
    let value = header[colon + 1..].strip_prefix(b" ")?;
    Some((&header[..colon], value))
}

/// Splits at CR LF, LF or a lone CR, the three line ends the manifest
/// format allows.
fn lines(mut bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    while !bytes.is_empty() {
        match bytes.iter().position(|&b| b == b'\r' || b == b'\n') {
            Some(end) => {
                lines.push(&bytes[..end]);
                let separator = if bytes[end..].starts_with(b"\r\n") {
                    2
                } else {
                    1
                };
                bytes = &bytes[end + separator..];
            }
            None => {
                lines.push(bytes);
                break;
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_multi_release() {
        assert!(is_multi_release(
            b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n"
        ));
        assert!(is_multi_release(
            b"Manifest-Version: 1.0\nmulti-release: TRUE\n"
        ));
        assert!(is_multi_release(
            b"Manifest-Version: 1.0\rMulti-Release: True\r"
        ));
        // No line end at the very end of the file.
        assert!(is_multi_release(b"Multi-Release: true"));
    }

    #[test]
    fn joins_continuation_lines() {
        assert!(is_multi_release(
            b"Manifest-Version: 1.0\r\nMulti-Release: tr\r\n u\r\n e\r\n"
        ));
        assert!(is_multi_release(b"Multi-Release: t\n rue\nCreated-By: x\n"));
    }

    #[test]
    fn rejects_other_values_and_places() {
        assert!(!is_multi_release(b""));
        assert!(!is_multi_release(b"Manifest-Version: 1.0\r\n"));
        assert!(!is_multi_release(b"Multi-Release: false\r\n"));
        assert!(!is_multi_release(b"Multi-Release: yes\r\n"));
        assert!(!is_multi_release(b"Multi-Release: true \r\n"));
        assert!(!is_multi_release(b"Multi-Release:true\r\n"));
        assert!(!is_multi_release(b"X-Multi-Release: true\r\n"));
        // Only the main section counts, not a per-entry section.
        assert!(!is_multi_release(
            b"Manifest-Version: 1.0\r\n\r\nName: a/B.class\r\nMulti-Release: true\r\n"
        ));
        // A continued value that is not just "true".
        assert!(!is_multi_release(b"Multi-Release: true\r\n false\r\n"));
        // Names cannot be continued.
        assert!(!is_multi_release(b"Multi-Rel\r\n ease: true\r\n"));
        // A continuation of a malformed line does not extend the value before.
        assert!(!is_multi_release(
            b"Multi-Release: tr\r\nbad line\r\n ue\r\n"
        ));
    }

    #[test]
    fn last_occurrence_wins() {
        assert!(!is_multi_release(
            b"Multi-Release: true\nMulti-Release: false\n"
        ));
        assert!(is_multi_release(
            b"Multi-Release: false\nMulti-Release: true\n"
        ));
    }
}
