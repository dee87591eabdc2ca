//! StackMapTable frames (JVMS 4.7.4). Each encoding is its own variant (the
//! short and `_extended` forms too), so a frame is written back exactly as
//! it was read.

use crate::error::{ErrorKind, Result};
use crate::reader::Reader;
use crate::writer::{ByteWriter, WriteError};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StackMapFrame {
    /// Types 0-63; the offset delta is the type.
    Same { offset_delta: u16 },
    /// Types 64-127.
    SameLocals1StackItem {
        offset_delta: u16,
        stack: VerificationType,
    },
    /// Type 247.
    SameLocals1StackItemExtended {
        offset_delta: u16,
        stack: VerificationType,
    },
    /// Types 248-250: the last 1 to 3 locals are gone.
    Chop { offset_delta: u16, chopped: u8 },
    /// Type 251.
    SameExtended { offset_delta: u16 },
    /// Types 252-254: 1 to 3 more locals.
    Append {
        offset_delta: u16,
        locals: Vec<VerificationType>,
    },
    /// Type 255.
    Full {
        offset_delta: u16,
        locals: Vec<VerificationType>,
        stack: Vec<VerificationType>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerificationType {
    Top,
    Integer,
    Float,
    Double,
    Long,
    Null,
    UninitializedThis,
    /// A `Class` entry of the constant pool.
    Object(u16),
    /// The offset of the `new` instruction that created the object.
    Uninitialized(u16),
}

impl StackMapFrame {
    pub(crate) fn parse_table(reader: &mut Reader<'_>) -> Result<Vec<Self>> {
        // The smallest frame is one byte.
        reader.counted(1, Self::parse)
    }

    fn parse(reader: &mut Reader<'_>) -> Result<Self> {
        let frame_type_offset = reader.offset();
        let frame_type = reader.u8()?;
        let frame = match frame_type {
            0..=63 => StackMapFrame::Same {
                offset_delta: u16::from(frame_type),
            },
            64..=127 => StackMapFrame::SameLocals1StackItem {
                offset_delta: u16::from(frame_type - 64),
                stack: VerificationType::parse(reader)?,
            },
            247 => StackMapFrame::SameLocals1StackItemExtended {
                offset_delta: reader.u16()?,
                stack: VerificationType::parse(reader)?,
            },
            248..=250 => StackMapFrame::Chop {
                offset_delta: reader.u16()?,
                chopped: 251 - frame_type,
            },
            251 => StackMapFrame::SameExtended {
                offset_delta: reader.u16()?,
            },
            252..=254 => {
                let offset_delta = reader.u16()?;
                let locals = (0..frame_type - 251)
                    .map(|_| VerificationType::parse(reader))
                    .collect::<Result<_>>()?;
                StackMapFrame::Append {
                    offset_delta,
                    locals,
                }
            }
            255 => StackMapFrame::Full {
                offset_delta: reader.u16()?,
                locals: reader.counted(1, VerificationType::parse)?,
                stack: reader.counted(1, VerificationType::parse)?,
            },
            reserved => {
                return Err(crate::error::ParseError::new(
                    frame_type_offset,
                    ErrorKind::UnknownFrameType(reserved),
                ))
            }
        };
        Ok(frame)
    }

    /// Writes the frame as the variant it is: the encoding is the caller's
    /// choice, so a delta or a local count that the variant cannot hold is
    /// an error rather than a switch to another frame type. On error `out`
    /// is left as it was.
    pub fn write(&self, out: &mut ByteWriter) -> Result<(), WriteError> {
        match self {
            StackMapFrame::Same { offset_delta } => {
                out.u8(short_delta("same", *offset_delta)?);
            }
            StackMapFrame::SameLocals1StackItem {
                offset_delta,
                stack,
            } => {
                out.u8(64 + short_delta("same_locals_1_stack_item", *offset_delta)?);
                stack.write(out);
            }
            StackMapFrame::SameLocals1StackItemExtended {
                offset_delta,
                stack,
            } => {
                out.u8(247);
                out.u16(*offset_delta);
                stack.write(out);
            }
            StackMapFrame::Chop {
                offset_delta,
                chopped,
            } => {
                if !(1..=3).contains(chopped) {
                    return Err(WriteError::ChopOutOfRange(*chopped));
                }
                out.u8(251 - chopped);
                out.u16(*offset_delta);
            }
            StackMapFrame::SameExtended { offset_delta } => {
                out.u8(251);
                out.u16(*offset_delta);
            }
            StackMapFrame::Append {
                offset_delta,
                locals,
            } => {
                let added = match locals.len() {
                    count @ 1..=3 => count as u8,
                    count => return Err(WriteError::AppendOutOfRange(count)),
                };
                out.u8(251 + added);
                out.u16(*offset_delta);
                locals.iter().for_each(|local| local.write(out));
            }
            StackMapFrame::Full {
                offset_delta,
                locals,
                stack,
            } => {
                // The stack's count is checked after the locals are written.
                out.atomic(|out| {
                    out.u8(255);
                    out.u16(*offset_delta);
                    out.u16_rows("locals", locals, VerificationType::write)?;
                    out.u16_rows("stack items", stack, VerificationType::write)
                })?;
            }
        }
        Ok(())
    }

    pub fn offset_delta(&self) -> u16 {
        match *self {
            StackMapFrame::Same { offset_delta }
            | StackMapFrame::SameLocals1StackItem { offset_delta, .. }
            | StackMapFrame::SameLocals1StackItemExtended { offset_delta, .. }
            | StackMapFrame::Chop { offset_delta, .. }
            | StackMapFrame::SameExtended { offset_delta }
            | StackMapFrame::Append { offset_delta, .. }
            | StackMapFrame::Full { offset_delta, .. } => offset_delta,
        }
    }
}

/// Writes the content of a StackMapTable attribute: the number of frames,
/// then the frames. On error `out` is left as it was.
pub fn write_stack_map_table(
    frames: &[StackMapFrame],
    out: &mut ByteWriter,
) -> Result<(), WriteError> {
    out.atomic(|out| out.u16_table("stack map frames", frames, StackMapFrame::write))
}

/// `offset_delta` for a frame type that holds it in its type byte (0-63).
fn short_delta(frame: &'static str, offset_delta: u16) -> Result<u8, WriteError> {
    match u8::try_from(offset_delta) {
        Ok(delta @ 0..=63) => Ok(delta),
        _ => Err(WriteError::FrameDeltaTooLarge {
            frame,
            offset_delta,
        }),
    }
}

impl VerificationType {
    pub fn write(&self, out: &mut ByteWriter) {
        match *self {
            VerificationType::Top => out.u8(0),
            VerificationType::Integer => out.u8(1),
            VerificationType::Float => out.u8(2),
            VerificationType::Double => out.u8(3),
            VerificationType::Long => out.u8(4),
            VerificationType::Null => out.u8(5),
            VerificationType::UninitializedThis => out.u8(6),
            VerificationType::Object(class_index) => {
                out.u8(7);
                out.u16(class_index);
            }
            VerificationType::Uninitialized(offset) => {
                out.u8(8);
                out.u16(offset);
            }
        }
    }

    fn parse(reader: &mut Reader<'_>) -> Result<Self> {
        let tag_offset = reader.offset();
        Ok(match reader.u8()? {
            0 => VerificationType::Top,
            1 => VerificationType::Integer,
            2 => VerificationType::Float,
            3 => VerificationType::Double,
            4 => VerificationType::Long,
            5 => VerificationType::Null,
            6 => VerificationType::UninitializedThis,
            7 => VerificationType::Object(reader.u16()?),
            8 => VerificationType::Uninitialized(reader.u16()?),
            tag => {
                return Err(crate::error::ParseError::new(
                    tag_offset,
                    ErrorKind::UnknownVerificationType(tag),
                ))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[rustfmt::skip]
    const EACH_FRAME_KIND: &[u8] = &[
        0, 7,              // 7 frames
        5,                 // same, delta 5
        65, 1,             // same_locals_1_stack_item, delta 1, int
        247, 0, 70, 7, 0, 9, // ..._extended, delta 70, Object #9
        249, 0, 3,         // chop 2
        251, 1, 0,         // same_extended, delta 256
        253, 0, 2, 4, 8, 0, 12, // append long, uninitialized(12)
        255, 0, 1, 0, 1, 6, 0, 0, // full: locals [uninitializedThis], stack []
    ];

    fn written(frame: &StackMapFrame) -> Result<Vec<u8>, WriteError> {
        let mut out = ByteWriter::new();
        frame.write(&mut out)?;
        Ok(out.into_bytes())
    }

    #[test]
    fn decodes_each_frame_kind() {
        let frames = StackMapFrame::parse_table(&mut Reader::new(EACH_FRAME_KIND)).unwrap();
        assert_eq!(
            frames,
            vec![
                StackMapFrame::Same { offset_delta: 5 },
                StackMapFrame::SameLocals1StackItem {
                    offset_delta: 1,
                    stack: VerificationType::Integer
                },
                StackMapFrame::SameLocals1StackItemExtended {
                    offset_delta: 70,
                    stack: VerificationType::Object(9)
                },
                StackMapFrame::Chop {
                    offset_delta: 3,
                    chopped: 2
                },
                StackMapFrame::SameExtended { offset_delta: 256 },
                StackMapFrame::Append {
                    offset_delta: 2,
                    locals: vec![VerificationType::Long, VerificationType::Uninitialized(12)]
                },
                StackMapFrame::Full {
                    offset_delta: 1,
                    locals: vec![VerificationType::UninitializedThis],
                    stack: vec![]
                },
            ]
        );
    }

    #[test]
    fn reserved_frame_type_is_an_error() {
        let error = StackMapFrame::parse_table(&mut Reader::at(&[0, 1, 128], 10)).unwrap_err();
        assert_eq!(*error.kind(), ErrorKind::UnknownFrameType(128));
        assert_eq!(error.offset(), 12);
    }

    #[test]
    fn each_frame_kind_writes_back_as_read() {
        let frames = StackMapFrame::parse_table(&mut Reader::new(EACH_FRAME_KIND)).unwrap();
        let mut out = ByteWriter::new();
        write_stack_map_table(&frames, &mut out).unwrap();
        assert_eq!(out.as_slice(), EACH_FRAME_KIND);
    }

    #[test]
    fn each_variant_round_trips_at_its_limits() {
        use VerificationType::*;
        let every_type = vec![
            Top,
            Integer,
            Float,
            Double,
            Long,
            Null,
            UninitializedThis,
            Object(0xfffe),
            Uninitialized(65535),
        ];
        let frames = [
            StackMapFrame::Same { offset_delta: 0 },
            StackMapFrame::Same { offset_delta: 63 },
            StackMapFrame::SameLocals1StackItem {
                offset_delta: 63,
                stack: Object(3),
            },
            StackMapFrame::SameLocals1StackItemExtended {
                offset_delta: 2,
                stack: Top,
            },
            StackMapFrame::Chop {
                offset_delta: 65535,
                chopped: 1,
            },
            StackMapFrame::Chop {
                offset_delta: 0,
                chopped: 3,
            },
            StackMapFrame::SameExtended { offset_delta: 7 },
            StackMapFrame::Append {
                offset_delta: 9,
                locals: vec![Double],
            },
            StackMapFrame::Append {
                offset_delta: 9,
                locals: vec![Integer, Float, Uninitialized(4)],
            },
            StackMapFrame::Full {
                offset_delta: 300,
                locals: every_type.clone(),
                stack: every_type,
            },
            StackMapFrame::Full {
                offset_delta: 0,
                locals: vec![],
                stack: vec![],
            },
        ];
        for frame in frames {
            let bytes = written(&frame).unwrap();
            let mut reader = Reader::new(&bytes);
            assert_eq!(StackMapFrame::parse(&mut reader).unwrap(), frame);
            assert!(reader.is_empty(), "{frame:?} wrote extra bytes");
        }
    }

    #[test]
    fn a_frame_that_its_variant_cannot_hold_is_an_error() {
        let cases = [
            (
                StackMapFrame::Same { offset_delta: 64 },
                WriteError::FrameDeltaTooLarge {
                    frame: "same",
                    offset_delta: 64,
                },
            ),
            (
                StackMapFrame::SameLocals1StackItem {
                    offset_delta: 300,
                    stack: VerificationType::Integer,
                },
                WriteError::FrameDeltaTooLarge {
                    frame: "same_locals_1_stack_item",
                    offset_delta: 300,
                },
            ),
            (
                StackMapFrame::Chop {
                    offset_delta: 1,
                    chopped: 0,
                },
                WriteError::ChopOutOfRange(0),
            ),
            (
                StackMapFrame::Chop {
                    offset_delta: 1,
                    chopped: 4,
                },
                WriteError::ChopOutOfRange(4),
            ),
            (
                StackMapFrame::Append {
                    offset_delta: 1,
                    locals: vec![],
                },
                WriteError::AppendOutOfRange(0),
            ),
            (
                StackMapFrame::Append {
                    offset_delta: 1,
                    locals: vec![VerificationType::Top; 4],
                },
                WriteError::AppendOutOfRange(4),
            ),
            (
                StackMapFrame::Full {
                    offset_delta: 1,
                    locals: vec![],
                    stack: vec![VerificationType::Null; 65536],
                },
                WriteError::TooMany {
                    what: "stack items",
                    count: 65536,
                    max: 65535,
                },
            ),
        ];
        for (frame, expected) in cases {
            let mut out = ByteWriter::new();
            out.u8(0xaa);
            assert_eq!(frame.write(&mut out), Err(expected));
            assert_eq!(out.as_slice(), [0xaa], "a failed frame leaves nothing");
        }
    }

    #[test]
    fn a_bad_frame_leaves_no_half_table() {
        let frames = [
            StackMapFrame::SameExtended { offset_delta: 1 },
            StackMapFrame::Same { offset_delta: 100 },
        ];
        let mut out = ByteWriter::new();
        assert!(write_stack_map_table(&frames, &mut out).is_err());
        assert!(out.is_empty());
    }
}
