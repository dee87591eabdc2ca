//! A bounds-checked big-endian cursor over a byte slice.
//!
//! Every read is checked, so malformed input gives an error and never a panic.
//! Offsets in errors are absolute: relative to the start of the class file,
//! even when reading a sub-slice such as one attribute's body.

use crate::error::{ErrorKind, ParseError, Result};

#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    position: usize,
    /// Offset of `bytes[0]` within the whole class file.
    base: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader::at(bytes, 0)
    }

    /// A reader over `bytes`, which start at `base` in the class file.
    pub fn at(bytes: &'a [u8], base: usize) -> Self {
        Reader {
            bytes,
            position: 0,
            base,
        }
    }

    /// Absolute offset of the next byte to read.
    pub fn offset(&self) -> usize {
        self.base + self.position
    }

    /// Position relative to the start of this reader's slice.
    pub fn position(&self) -> usize {
        self.position
    }

    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn error(&self, kind: ErrorKind) -> ParseError {
        ParseError::new(self.offset(), kind)
    }

    pub fn take(&mut self, len: usize) -> Result<&'a [u8]> {
        if len > self.remaining() {
            return Err(self.error(ErrorKind::UnexpectedEnd {
                needed: len - self.remaining(),
            }));
        }
        let slice = &self.bytes[self.position..self.position + len];
        self.position += len;
        Ok(slice)
    }

    /// A reader over the next `len` bytes; this reader moves past them.
    pub fn sub_reader(&mut self, len: usize) -> Result<Reader<'a>> {
        let base = self.offset();
        Ok(Reader::at(self.take(len)?, base))
    }

    pub fn skip(&mut self, len: usize) -> Result<()> {
        self.take(len).map(|_| ())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    pub fn i8(&mut self) -> Result<i8> {
        Ok(i8::from_be_bytes(self.array()?))
    }

    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array()?))
    }

    /// Reads a `u16` count followed by that many items.
    ///
    /// The vector's initial capacity is capped by what the remaining bytes can
    /// hold (`min_item_size` bytes per item), so a hostile count never makes
    /// us allocate more than the input size implies.
    pub fn counted<T>(
        &mut self,
        min_item_size: usize,
        mut item: impl FnMut(&mut Reader<'a>) -> Result<T>,
    ) -> Result<Vec<T>> {
        let count = usize::from(self.u16()?);
        let mut items = Vec::with_capacity(self.capacity_for(count, min_item_size));
        for _ in 0..count {
            items.push(item(self)?);
        }
        Ok(items)
    }

    /// How many of `count` items of at least `min_item_size` bytes can fit in
    /// what is left; use it to size allocations from untrusted counts.
    pub fn capacity_for(&self, count: usize, min_item_size: usize) -> usize {
        count.min(self.remaining() / min_item_size.max(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_and_reports_absolute_offsets() {
        let bytes = [0xca, 0xfe, 0xba, 0xbe, 0x00, 0x01];
        let mut reader = Reader::at(&bytes, 100);
        assert_eq!(reader.u32().unwrap(), 0xcafe_babe);
        assert_eq!(reader.offset(), 104);
        let error = reader.u32().unwrap_err();
        assert_eq!(error.offset(), 104);
        assert_eq!(*error.kind(), ErrorKind::UnexpectedEnd { needed: 2 });
    }

    #[test]
    fn counted_caps_capacity_by_remaining_bytes() {
        // A count of 65535 items over 4 bytes of data.
        let bytes = [0xff, 0xff, 0, 1, 0, 2];
        let mut reader = Reader::new(&bytes);
        let error = reader.counted(2, |r| r.u16()).unwrap_err();
        assert_eq!(*error.kind(), ErrorKind::UnexpectedEnd { needed: 2 });
        assert_eq!(Reader::new(&bytes).capacity_for(65535, 2), 3);
    }
}
