//! Writing class files (JVMS chapter 4): the reader's inverse.
//!
//! [`ByteWriter`] is the big-endian output buffer. Each model type writes
//! itself with a `write` method that sits next to its parser, so that the
//! two directions of one structure can be read side by side:
//! [`ClassFile::write`](crate::ClassFile::write) reproduces a parsed,
//! unmodified class byte for byte (attributes are copied raw), and
//! [`AttributeInfo::write_info`](crate::AttributeInfo::write_info) encodes
//! an attribute's content from its typed form.
//!
//! Sizes are checked, never truncated: a table with more entries than its
//! count field can hold, or a value too large for its field, is a
//! [`WriteError`]. Methods that return a `Result` leave the output as it was
//! when they fail. A few `write` methods return nothing (those of
//! [`ClassFile`](crate::ClassFile), [`Member`](crate::Member),
//! [`Attribute`](crate::Attribute), [`Constant`](crate::Constant),
//! [`BootstrapMethod`](crate::attribute::BootstrapMethod) and
//! [`RecordComponent`](crate::attribute::RecordComponent)): a parsed model
//! always fits, so they panic instead, and each has a `try_write` that
//! returns the error for a model edited past the format's limits.

pub use crate::stack_map::write_stack_map_table;

/// A big-endian output buffer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByteWriter {
    bytes: Vec<u8>,
}

/// Something in the model that its class-file field cannot hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// A table with more entries than its count field can say, such as
    /// 70000 methods (the count is a u2).
    #[error("{count} {what} do not fit a count of at most {max}")]
    TooMany {
        what: &'static str,
        count: usize,
        max: usize,
    },
    /// Bytes longer than their length field can say, such as a `Utf8`
    /// constant of 70000 bytes.
    #[error("{what} of {len} bytes does not fit a length of at most {max}")]
    TooLong {
        what: &'static str,
        len: usize,
        max: usize,
    },
    /// A number too large for its field, such as a `max_stack` of 300 in the
    /// one-byte field of the Java 1.0.2 Code layout.
    #[error("{what} {value} does not fit its field (at most {max})")]
    TooLarge {
        what: &'static str,
        value: u32,
        max: u32,
    },
    /// An `offset_delta` over 63 in a frame type that keeps it in the frame
    /// type byte (`same`, `same_locals_1_stack_item`).
    #[error("offset_delta {offset_delta} does not fit a {frame} frame (at most 63)")]
    FrameDeltaTooLarge {
        frame: &'static str,
        offset_delta: u16,
    },
    /// A `chop` frame removes 1 to 3 locals.
    #[error("a chop frame removes 1 to 3 locals, not {0}")]
    ChopOutOfRange(u8),
    /// An `append` frame adds 1 to 3 locals.
    #[error("an append frame adds 1 to 3 locals, not {0}")]
    AppendOutOfRange(usize),
}

impl ByteWriter {
    pub fn new() -> Self {
        ByteWriter::default()
    }

    pub fn with_capacity(n: usize) -> Self {
        ByteWriter {
            bytes: Vec::with_capacity(n),
        }
    }

    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_be_bytes());
    }

    pub fn bytes(&mut self, v: &[u8]) {
        self.bytes.extend_from_slice(v);
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.bytes
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Writes a u4 length placeholder, runs `body`, then patches in the
    /// number of bytes `body` wrote (for `attribute_length`).
    ///
    /// # Panics
    ///
    /// If `body` writes more than `u32::MAX` bytes, which a class file
    /// cannot hold; [`try_with_u32_length`](Self::try_with_u32_length)
    /// returns that as an error.
    pub fn with_u32_length<R>(&mut self, body: impl FnOnce(&mut ByteWriter) -> R) -> R {
        self.try_with_u32_length(|out| Ok(body(out)))
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// Like [`with_u32_length`](Self::with_u32_length), for a fallible
    /// `body`; also fails if `body` writes more than `u32::MAX` bytes. On
    /// error the writer is left as it was.
    pub fn try_with_u32_length<R>(
        &mut self,
        body: impl FnOnce(&mut ByteWriter) -> Result<R, WriteError>,
    ) -> Result<R, WriteError> {
        self.atomic(|out| {
            let length_at = out.len();
            out.u32(0);
            let result = body(out)?;
            let length = u32_length("attribute", out.len() - length_at - 4)?;
            out.bytes[length_at..length_at + 4].copy_from_slice(&length.to_be_bytes());
            Ok(result)
        })
    }

    /// Runs `body`; if it fails, removes what it wrote, so that no caller
    /// sees half a structure.
    pub(crate) fn atomic<R>(
        &mut self,
        body: impl FnOnce(&mut ByteWriter) -> Result<R, WriteError>,
    ) -> Result<R, WriteError> {
        let start = self.len();
        let result = body(self);
        if result.is_err() {
            self.bytes.truncate(start);
        }
        result
    }

    /// Writes `count` as the u2 count of a table of `what`.
    pub(crate) fn u16_count(&mut self, what: &'static str, count: usize) -> Result<(), WriteError> {
        let count = u16::try_from(count).map_err(|_| WriteError::TooMany {
            what,
            count,
            max: u16::MAX.into(),
        })?;
        self.u16(count);
        Ok(())
    }

    /// Writes a u2 count followed by each item. Checks the count before
    /// writing anything; an item that fails leaves its own bytes behind, so
    /// callers whose items can fail wrap this in [`atomic`](Self::atomic).
    pub(crate) fn u16_table<T>(
        &mut self,
        what: &'static str,
        items: &[T],
        mut item: impl FnMut(&T, &mut ByteWriter) -> Result<(), WriteError>,
    ) -> Result<(), WriteError> {
        self.u16_count(what, items.len())?;
        items.iter().try_for_each(|each| item(each, self))
    }

    /// Like [`u16_table`](Self::u16_table), for items that always fit, so
    /// only the count can fail.
    pub(crate) fn u16_rows<T>(
        &mut self,
        what: &'static str,
        items: &[T],
        mut item: impl FnMut(&T, &mut ByteWriter),
    ) -> Result<(), WriteError> {
        self.u16_count(what, items.len())?;
        items.iter().for_each(|each| item(each, self));
        Ok(())
    }

    /// A table of u2 values, such as constant pool indices.
    pub(crate) fn u16_list(&mut self, what: &'static str, items: &[u16]) -> Result<(), WriteError> {
        self.u16_rows(what, items, |&index, out| out.u16(index))
    }
}

/// `len` as a u4 length field.
pub(crate) fn u32_length(what: &'static str, len: usize) -> Result<u32, WriteError> {
    u32::try_from(len).map_err(|_| WriteError::TooLong {
        what,
        len,
        max: u32::MAX as usize,
    })
}

/// `len` as a u2 length field.
pub(crate) fn u16_length(what: &'static str, len: usize) -> Result<u16, WriteError> {
    u16::try_from(len).map_err(|_| WriteError::TooLong {
        what,
        len,
        max: u16::MAX.into(),
    })
}

/// For the `write` methods whose signature has no room for an error; see the
/// module documentation.
#[track_caller]
pub(crate) fn expect_fits(result: Result<(), WriteError>) {
    if let Err(error) = result {
        panic!("cannot write the class file: {error} (try_write returns this as an error)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_big_endian() {
        let mut out = ByteWriter::with_capacity(32);
        assert!(out.is_empty());
        out.u8(0xca);
        out.u16(0xfeba);
        out.u32(0xbe00_0102);
        out.i32(-2);
        out.u64(0x0102_0304_0506_0708);
        out.bytes(b"ok");
        #[rustfmt::skip]
        assert_eq!(
            out.as_slice(),
            [
                0xca, 0xfe, 0xba, 0xbe, 0, 1, 2,
                0xff, 0xff, 0xff, 0xfe,
                1, 2, 3, 4, 5, 6, 7, 8,
                b'o', b'k',
            ]
        );
        assert_eq!(out.len(), 21);
        assert_eq!(out.into_bytes().len(), 21);
    }

    #[test]
    fn with_u32_length_patches_the_length_and_passes_the_result_through() {
        let mut out = ByteWriter::new();
        out.u16(7);
        let result = out.with_u32_length(|out| {
            out.bytes(&[1, 2, 3]);
            "done"
        });
        assert_eq!(result, "done");
        assert_eq!(out.as_slice(), [0, 7, 0, 0, 0, 3, 1, 2, 3]);

        let mut empty = ByteWriter::new();
        empty.with_u32_length(|_| ());
        assert_eq!(empty.as_slice(), [0, 0, 0, 0]);
    }

    #[test]
    fn nested_lengths_count_their_own_bytes_only() {
        // As for a Code attribute holding a LineNumberTable.
        let mut out = ByteWriter::new();
        out.with_u32_length(|out| {
            out.u8(0xaa);
            out.with_u32_length(|out| out.u16(0xbbcc));
            out.u8(0xdd);
        });
        assert_eq!(
            out.as_slice(),
            [0, 0, 0, 8, 0xaa, 0, 0, 0, 2, 0xbb, 0xcc, 0xdd]
        );
    }

    #[test]
    fn a_failed_body_leaves_nothing_behind() {
        let mut out = ByteWriter::new();
        out.u8(1);
        let error = out
            .try_with_u32_length(|out| {
                out.bytes(&[2, 3]);
                out.u16_count("methods", 70_000)
            })
            .unwrap_err();
        assert_eq!(
            error,
            WriteError::TooMany {
                what: "methods",
                count: 70_000,
                max: 65_535
            }
        );
        assert_eq!(out.as_slice(), [1]);
    }

    #[test]
    fn counts_and_lengths_that_do_not_fit_are_errors() {
        let mut out = ByteWriter::new();
        out.u16_count("fields", 65_535).unwrap();
        assert_eq!(out.as_slice(), [0xff, 0xff]);
        assert!(out.u16_count("fields", 65_536).is_err());
        assert_eq!(out.len(), 2, "a failed count writes nothing");

        assert_eq!(u16_length("Utf8 constant", 65_535), Ok(65_535));
        assert_eq!(
            u16_length("Utf8 constant", 65_536),
            Err(WriteError::TooLong {
                what: "Utf8 constant",
                len: 65_536,
                max: 65_535
            })
        );
        assert_eq!(u32_length("attribute", 5), Ok(5));
        #[cfg(target_pointer_width = "64")]
        assert!(u32_length("attribute", 1 << 32).is_err());
    }

    #[test]
    fn errors_read_well() {
        let error = WriteError::TooMany {
            what: "methods",
            count: 70_000,
            max: 65_535,
        };
        assert_eq!(
            error.to_string(),
            "70000 methods do not fit a count of at most 65535"
        );
        let error = WriteError::FrameDeltaTooLarge {
            frame: "same",
            offset_delta: 64,
        };
        assert_eq!(
            error.to_string(),
            "offset_delta 64 does not fit a same frame (at most 63)"
        );
    }
}
