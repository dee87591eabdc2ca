//! Modified UTF-8 (JVMS 4.4.7), the encoding of `CONSTANT_Utf8` entries.
//!
//! It differs from UTF-8 in two ways: U+0000 is written as the two bytes
//! `C0 80`, and characters above U+FFFF are written as a surrogate pair of
//! three-byte sequences. Almost every name in a real class file is also valid
//! UTF-8, so decoding borrows in the common case and allocates only for the
//! rest.

use std::borrow::Cow;

/// Decodes modified UTF-8. A lone surrogate (legal in Java strings, not in
/// Rust ones) becomes U+FFFD; callers that need exact UTF-16 text must work
/// from the raw bytes. `None` when the bytes are not modified UTF-8.
pub fn decode(bytes: &[u8]) -> Option<Cow<'_, str>> {
    // Valid UTF-8 without NUL bytes decodes to the same characters under both
    // encodings (overlong `C0 80` and encoded surrogates are not valid UTF-8).
    if let Ok(text) = std::str::from_utf8(bytes) {
        if !bytes.contains(&0) {
            return Some(Cow::Borrowed(text));
        }
    }
    decode_slow(bytes).map(Cow::Owned)
}

fn decode_slow(bytes: &[u8]) -> Option<String> {
    let mut units = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let first = bytes[i];
        let continuation = |at: usize| -> Option<u16> {
            let byte = *bytes.get(at)?;
            (byte & 0xc0 == 0x80).then_some(u16::from(byte & 0x3f))
        };
        let (unit, width) = match first {
            0x01..=0x7f => (u16::from(first), 1),
            0xc0..=0xdf => (u16::from(first & 0x1f) << 6 | continuation(i + 1)?, 2),
            0xe0..=0xef => (
                u16::from(first & 0x0f) << 12 | continuation(i + 1)? << 6 | continuation(i + 2)?,
                3,
            ),
            _ => return None,
        };
        units.push(unit);
        i += width;
    }
    Some(String::from_utf16_lossy(&units))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrows_plain_text() {
        assert!(matches!(
            decode(b"java/lang/Object"),
            Some(Cow::Borrowed("java/lang/Object"))
        ));
    }

    #[test]
    fn decodes_nul_and_surrogate_pairs() {
        // "a\0b" with NUL as C0 80.
        assert_eq!(decode(&[0x61, 0xc0, 0x80, 0x62]).unwrap(), "a\0b");
        // U+1F600 as the surrogate pair D83D DE00, each as three bytes.
        let smiley = [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80];
        assert_eq!(decode(&smiley).unwrap(), "\u{1F600}");
        // A lone high surrogate.
        assert_eq!(decode(&[0xed, 0xa0, 0xbd]).unwrap(), "\u{FFFD}");
    }

    #[test]
    fn rejects_malformed_bytes() {
        assert_eq!(decode(&[0xc0]), None);
        assert_eq!(decode(&[0xe0, 0x80]), None);
        assert_eq!(decode(&[0xff, 0x80]), None);
        assert_eq!(decode(&[0x00]), None);
    }
}
