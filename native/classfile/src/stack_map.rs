//! StackMapTable frames (JVMS 4.7.4). Each encoding is its own variant (the
//! short and `_extended` forms too), so a frame is written back exactly as
//! it was read.

use crate::error::{ErrorKind, Result};
use crate::reader::Reader;

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

impl VerificationType {
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

    #[test]
    fn decodes_each_frame_kind() {
        #[rustfmt::skip]
        let bytes = [
            0, 7,              // 7 frames
            5,                 // same, delta 5
            65, 1,             // same_locals_1_stack_item, delta 1, int
            247, 0, 70, 7, 0, 9, // ..._extended, delta 70, Object #9
            249, 0, 3,         // chop 2
            251, 1, 0,         // same_extended, delta 256
            253, 0, 2, 4, 8, 0, 12, // append long, uninitialized(12)
            255, 0, 1, 0, 1, 6, 0, 0, // full: locals [uninitializedThis], stack []
        ];
        let frames = StackMapFrame::parse_table(&mut Reader::new(&bytes)).unwrap();
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
}
