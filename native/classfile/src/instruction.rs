//! JVM bytecode: decoding and encoding the instructions of a Code attribute
//! (JVMS chapter 6 and §4.7.3), for class files of Java 1.1 to 25.
//!
//! [`Instructions`] walks a code array and yields [`Instruction`]s that borrow
//! the switch tables from it, so decoding allocates nothing.
//! [`Instruction::encode`] writes an instruction back byte for byte: the model
//! keeps the opcode choices (`iload_0` vs `iload 0`, `ldc` vs `ldc_w`, `goto`
//! vs `goto_w`) and the `wide` prefix. What it leaves out are bytes the JVMS
//! fixes: the zero operand bytes of `invokeinterface` and `invokedynamic` and
//! the switch padding, which the encoder writes as zeros. They are not checked
//! when decoding, because class files before version 51 may have non-zero
//! padding; such code decodes fine but re-encodes with zeros there.

pub mod opcode;

use std::iter::FusedIterator;

use crate::error::{ErrorKind, ParseError, Result};
use crate::reader::Reader;

/// One instruction of a code array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction<'a> {
    /// Offset of the instruction (of its `wide` prefix, if any) within the
    /// code array. Branch offsets are relative to it.
    pub offset: u32,
    /// The opcode proper: for a widened instruction this is the opcode after
    /// the prefix (`iload`, `iinc`, ...), never [`opcode::WIDE`].
    pub opcode: u8,
    /// Whether the instruction had a `wide` prefix, which makes a local
    /// variable index (and the `iinc` delta) two bytes long.
    pub wide: bool,
    pub operands: Operands<'a>,
}

/// The operands of an instruction, by their layout in the code array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands<'a> {
    /// No operands. This includes the forms with an implicit operand such as
    /// `iload_0` or `iconst_5`.
    None,
    /// A local variable index: `iload`..`aload`, `istore`..`astore`, `ret`.
    Local(u16),
    Iinc {
        index: u16,
        delta: i16,
    },
    /// `bipush`.
    Byte(i8),
    /// `sipush`.
    Short(i16),
    /// The array type code (`atype`) of `newarray`, such as 10 for `int`.
    NewArray(u8),
    /// A constant pool index: `ldc` (one byte, widened), `ldc_w`, `ldc2_w`,
    /// the field and method instructions except `invokeinterface` and
    /// `invokedynamic`, `new`, `anewarray`, `checkcast` and `instanceof`.
    Constant(u16),
    InvokeInterface {
        index: u16,
        count: u8,
    },
    InvokeDynamic {
        index: u16,
    },
    MultiANewArray {
        index: u16,
        dimensions: u8,
    },
    /// A branch offset relative to the instruction: the `if` family, `goto`
    /// and `jsr` (two bytes, widened), `goto_w` and `jsr_w` (four bytes).
    Branch(i32),
    TableSwitch(TableSwitch<'a>),
    LookupSwitch(LookupSwitch<'a>),
}

/// The operands of `tableswitch`: a jump offset for each key in
/// `low..=high`, all relative to the switch instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableSwitch<'a> {
    pub default: i32,
    pub low: i32,
    pub high: i32,
    /// `high - low + 1` big-endian `i32` offsets, as in the code array.
    offsets: &'a [u8],
}

/// The operands of `lookupswitch`: (key, jump offset) pairs, with offsets
/// relative to the switch instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LookupSwitch<'a> {
    pub default: i32,
    /// Big-endian `i32` (key, offset) pairs, as in the code array. The JVMS
    /// requires ascending keys; that is the verifier's concern, not ours.
    pairs: &'a [u8],
}

/// An instruction that cannot be encoded as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The operands are not the kind the opcode takes, the opcode is not an
    /// instruction, or `wide` is set on an opcode that cannot be widened.
    #[error("opcode {opcode:#04x} (wide: {wide}) does not take these operands")]
    MismatchedOperands { opcode: u8, wide: bool },
    /// An operand too large for the opcode's encoding, such as an `ldc` of
    /// constant 300 or a `goto` 40000 bytes away.
    #[error("operand {value} does not fit opcode {opcode:#04x}")]
    OperandOutOfRange { opcode: u8, value: i64 },
    /// A `tableswitch` whose `low` and `high` disagree with its offset count.
    #[error("tableswitch from {low} to {high} with {targets} offsets")]
    InconsistentTableSwitch { low: i32, high: i32, targets: usize },
}

/// How an opcode's operands are laid out. Decoding and encoding both follow
/// it, so the two agree on every opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    None,
    Local,
    Iinc,
    Byte,
    Short,
    NewArray,
    ConstantU8,
    ConstantU16,
    InvokeInterface,
    InvokeDynamic,
    MultiANewArray,
    Branch16,
    Branch32,
    TableSwitch,
    LookupSwitch,
}

impl Shape {
    /// The layout of `op`, or `None` if `op` is not an instruction on its
    /// own: a reserved or unassigned opcode, or `wide`, which is a prefix
    /// (modelled as [`Instruction::wide`]). A table lookup: this sits on the
    /// hot path of every decoder loop.
    fn of(op: u8) -> Option<Shape> {
        SHAPES[usize::from(op)]
    }

    const fn classify(op: u8) -> Option<Shape> {
        use opcode::*;
        Some(match op {
            BIPUSH => Shape::Byte,
            SIPUSH => Shape::Short,
            LDC => Shape::ConstantU8,
            LDC_W | LDC2_W => Shape::ConstantU16,
            ILOAD..=ALOAD | ISTORE..=ASTORE | RET => Shape::Local,
            IINC => Shape::Iinc,
            IFEQ..=JSR | IFNULL | IFNONNULL => Shape::Branch16,
            GOTO_W | JSR_W => Shape::Branch32,
            TABLESWITCH => Shape::TableSwitch,
            LOOKUPSWITCH => Shape::LookupSwitch,
            GETSTATIC..=INVOKESTATIC | NEW | ANEWARRAY | CHECKCAST | INSTANCEOF => {
                Shape::ConstantU16
            }
            INVOKEINTERFACE => Shape::InvokeInterface,
            INVOKEDYNAMIC => Shape::InvokeDynamic,
            NEWARRAY => Shape::NewArray,
            MULTIANEWARRAY => Shape::MultiANewArray,
            WIDE => return None,
            // Every other defined opcode has no operands.
            NOP..=JSR_W => Shape::None,
            _ => return None,
        })
    }

    const fn can_be_wide(self) -> bool {
        matches!(self, Shape::Local | Shape::Iinc)
    }
}

/// Encoded length of each fixed-length opcode; 0 for the variable-length
/// switches and for anything that is not an instruction on its own.
static FIXED_LENGTHS: [u8; 256] = {
    let mut table = [0; 256];
    let mut op = 0;
    while op < 256 {
        table[op] = match Shape::classify(op as u8) {
            Some(Shape::None) => 1,
            Some(Shape::Local | Shape::Byte | Shape::NewArray | Shape::ConstantU8) => 2,
            Some(Shape::Iinc | Shape::Short | Shape::ConstantU16 | Shape::Branch16) => 3,
            Some(Shape::MultiANewArray) => 4,
            Some(Shape::InvokeInterface | Shape::InvokeDynamic | Shape::Branch32) => 5,
            Some(Shape::TableSwitch | Shape::LookupSwitch) | None => 0,
        };
        op += 1;
    }
    table
};

static SHAPES: [Option<Shape>; 256] = {
    let mut table = [None; 256];
    let mut op = 0;
    while op < 256 {
        table[op] = Shape::classify(op as u8);
        op += 1;
    }
    table
};

/// Padding between a switch opcode at `position` in the code array and its
/// operands, which start at the next multiple of four.
fn switch_padding(position: usize) -> usize {
    3 - position % 4
}

/// Decodes a code array one instruction at a time.
///
/// Stops after the first error, which carries the absolute offset of the
/// offending byte in the class file.
#[derive(Debug, Clone)]
pub struct Instructions<'a> {
    reader: Reader<'a>,
    failed: bool,
}

impl<'a> Instructions<'a> {
    /// Instructions of `code`, whose first byte is at `code_offset` in the
    /// class file (used only for error offsets; switch padding is aligned to
    /// the start of `code`, as the JVMS requires).
    pub fn new(code: &'a [u8], code_offset: usize) -> Self {
        Instructions {
            reader: Reader::at(code, code_offset),
            failed: false,
        }
    }
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Result<Instruction<'a>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.reader.is_empty() {
            return None;
        }
        let result = decode(&mut self.reader);
        self.failed = result.is_err();
        Some(result)
    }
}

impl FusedIterator for Instructions<'_> {}

/// The offset and opcode of each instruction, without its operands: the
/// cheap walk for counting and classifying instructions. It accepts and
/// rejects exactly what [`Instructions`] does. A widened instruction yields
/// its own opcode (e.g. `iinc`), not `wide`.
#[derive(Debug, Clone)]
pub struct Opcodes<'a> {
    code: &'a [u8],
    code_offset: usize,
    position: usize,
    failed: bool,
}

impl<'a> Opcodes<'a> {
    /// See [`Instructions::new`].
    pub fn new(code: &'a [u8], code_offset: usize) -> Self {
        Opcodes {
            code,
            code_offset,
            position: 0,
            failed: false,
        }
    }
}

impl Iterator for Opcodes<'_> {
    type Item = Result<(u32, u8)>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.position >= self.code.len() {
            return None;
        }
        let at = self.position;
        let opcode = self.code[at];
        let len = usize::from(FIXED_LENGTHS[usize::from(opcode)]);
        if len != 0 && len <= self.code.len() - at {
            self.position += len;
            return Some(Ok((at as u32, opcode)));
        }
        // Switches, `wide`, truncated operands and bad opcodes are rare:
        // the full decoder handles them, so both walks agree.
        let mut reader = Reader::at(self.code, self.code_offset);
        let decoded = reader.skip(at).and_then(|()| decode(&mut reader));
        self.position = reader.position();
        self.failed = decoded.is_err();
        Some(decoded.map(|instruction| (instruction.offset, instruction.opcode)))
    }
}

impl FusedIterator for Opcodes<'_> {}

/// Decodes the instruction at the reader's position, which is its offset in
/// the code array.
fn decode<'a>(reader: &mut Reader<'a>) -> Result<Instruction<'a>> {
    let position = reader.position();
    let offset = u32::try_from(position)
        .map_err(|_| reader.error(ErrorKind::Invalid("code array longer than 4 GiB")))?;
    let mut opcode_at = reader.offset();
    let mut opcode = reader.u8()?;
    let wide = opcode == opcode::WIDE;
    if wide {
        opcode_at = reader.offset();
        opcode = reader.u8()?;
    }
    let shape = Shape::of(opcode).filter(|shape| !wide || shape.can_be_wide());
    let Some(shape) = shape else {
        let kind = if wide {
            ErrorKind::BadWideOpcode(opcode)
        } else {
            ErrorKind::UnknownOpcode(opcode)
        };
        return Err(ParseError::new(opcode_at, kind));
    };

    let operands = match shape {
        Shape::None => Operands::None,
        Shape::Local if wide => Operands::Local(reader.u16()?),
        Shape::Local => Operands::Local(reader.u8()?.into()),
        Shape::Iinc if wide => Operands::Iinc {
            index: reader.u16()?,
            delta: reader.i16()?,
        },
        Shape::Iinc => Operands::Iinc {
            index: reader.u8()?.into(),
            delta: reader.i8()?.into(),
        },
        Shape::Byte => Operands::Byte(reader.i8()?),
        Shape::Short => Operands::Short(reader.i16()?),
        Shape::NewArray => Operands::NewArray(reader.u8()?),
        Shape::ConstantU8 => Operands::Constant(reader.u8()?.into()),
        Shape::ConstantU16 => Operands::Constant(reader.u16()?),
        Shape::InvokeInterface => {
            let index = reader.u16()?;
            let count = reader.u8()?;
            reader.skip(1)?;
            Operands::InvokeInterface { index, count }
        }
        Shape::InvokeDynamic => {
            let index = reader.u16()?;
            reader.skip(2)?;
            Operands::InvokeDynamic { index }
        }
        Shape::MultiANewArray => Operands::MultiANewArray {
            index: reader.u16()?,
            dimensions: reader.u8()?,
        },
        Shape::Branch16 => Operands::Branch(reader.i16()?.into()),
        Shape::Branch32 => Operands::Branch(reader.i32()?),
        Shape::TableSwitch => {
            reader.skip(switch_padding(position))?;
            let default = reader.i32()?;
            let low_at = reader.offset();
            let low = reader.i32()?;
            let high = reader.i32()?;
            if low > high {
                return Err(ParseError::new(
                    low_at,
                    ErrorKind::BadTableSwitch { low, high },
                ));
            }
            // Positive since low <= high, at most 2^32, and no overflow in i64.
            let count = (i64::from(high) - i64::from(low) + 1).unsigned_abs();
            Operands::TableSwitch(TableSwitch {
                default,
                low,
                high,
                offsets: take_entries(reader, count, 4)?,
            })
        }
        Shape::LookupSwitch => {
            reader.skip(switch_padding(position))?;
            let default = reader.i32()?;
            let npairs_at = reader.offset();
            let npairs = reader.i32()?;
            let count = u64::try_from(npairs)
                .map_err(|_| ParseError::new(npairs_at, ErrorKind::BadLookupSwitch(npairs)))?;
            Operands::LookupSwitch(LookupSwitch {
                default,
                pairs: take_entries(reader, count, 8)?,
            })
        }
    };
    Ok(Instruction {
        offset,
        opcode,
        wide,
        operands,
    })
}

/// The bytes of `count` table entries of `size` bytes each. A hostile count
/// fails the bounds check before anything is sliced or allocated.
fn take_entries<'a>(reader: &mut Reader<'a>, count: u64, size: u64) -> Result<&'a [u8]> {
    // count <= 2^32 and size <= 8, so the product fits in a u64; it may not
    // fit a 32-bit usize, in which case it certainly exceeds the input.
    match usize::try_from(count * size) {
        Ok(len) => reader.take(len),
        Err(_) => Err(reader.error(ErrorKind::UnexpectedEnd { needed: usize::MAX })),
    }
}

/// The `i32` in a four-byte chunk of a switch table.
fn be_i32(bytes: &[u8]) -> i32 {
    i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

impl<'a> TableSwitch<'a> {
    /// Number of keys, not counting the default.
    pub fn len(&self) -> usize {
        self.offsets.len() / 4
    }

    /// Always false for a decoded switch, which has at least one key.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// (key, relative offset) for each key from `low` to `high`.
    pub fn targets(&self) -> impl Iterator<Item = (i32, i32)> + 'a {
        (self.low..=self.high).zip(self.offsets.chunks_exact(4).map(be_i32))
    }
}

impl<'a> LookupSwitch<'a> {
    /// Number of (key, offset) pairs, not counting the default.
    pub fn len(&self) -> usize {
        self.pairs.len() / 8
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// (key, relative offset) for each pair, in class file order.
    pub fn targets(&self) -> impl Iterator<Item = (i32, i32)> + 'a {
        self.pairs
            .chunks_exact(8)
            .map(|pair| (be_i32(&pair[..4]), be_i32(&pair[4..])))
    }
}

impl Instruction<'_> {
    /// The lowercase mnemonic, such as `"iload_0"`; `"<unknown>"` for an
    /// opcode that the decoder never produces.
    pub fn name(&self) -> &'static str {
        opcode::name(self.opcode).unwrap_or("<unknown>")
    }

    /// One of the 16 two-way branches: `ifeq`..`if_acmpne`, `ifnull`,
    /// `ifnonnull`.
    pub fn is_conditional_branch(&self) -> bool {
        opcode::is_conditional_branch(self.opcode)
    }

    /// `tableswitch` or `lookupswitch`.
    pub fn is_switch(&self) -> bool {
        opcode::is_switch(self.opcode)
    }

    /// Absolute code offsets this instruction may jump to: the target of a
    /// branch (conditional or not, including `jsr`), or every target of a
    /// switch, default first. Empty for other instructions, including `ret`,
    /// whose target is only known at run time. Offsets are `i64` so that
    /// hostile ones cannot overflow; they are not checked against the code.
    pub fn branch_targets(&self) -> impl Iterator<Item = i64> + '_ {
        let (single, table, lookup) = match self.operands {
            Operands::Branch(relative) => (Some(relative), None, None),
            Operands::TableSwitch(switch) => (Some(switch.default), Some(switch.targets()), None),
            Operands::LookupSwitch(switch) => (Some(switch.default), None, Some(switch.targets())),
            _ => (None, None, None),
        };
        let base = i64::from(self.offset);
        single
            .into_iter()
            .chain(table.into_iter().flatten().map(|(_, relative)| relative))
            .chain(lookup.into_iter().flatten().map(|(_, relative)| relative))
            .map(move |relative| base + i64::from(relative))
    }

    /// Encoded length in bytes at [`offset`](Self::offset), including any
    /// `wide` prefix and switch padding. For an instruction whose operands
    /// fit its opcode, this is what [`encode`](Self::encode) writes there.
    // An instruction is never empty, so `is_empty` would mean nothing.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> u32 {
        let wide = usize::from(self.wide);
        let operands = match self.operands {
            Operands::None => 0,
            Operands::Local(_) => 1 + wide,
            Operands::Iinc { .. } => 2 + 2 * wide,
            Operands::Byte(_) | Operands::NewArray(_) => 1,
            Operands::Short(_) => 2,
            Operands::Constant(_) if self.opcode == opcode::LDC => 1,
            Operands::Constant(_) => 2,
            Operands::InvokeInterface { .. } | Operands::InvokeDynamic { .. } => 4,
            Operands::MultiANewArray { .. } => 3,
            Operands::Branch(_) if matches!(self.opcode, opcode::GOTO_W | opcode::JSR_W) => 4,
            Operands::Branch(_) => 2,
            Operands::TableSwitch(switch) => {
                switch_padding(self.offset as usize) + 12 + switch.offsets.len()
            }
            Operands::LookupSwitch(switch) => {
                switch_padding(self.offset as usize) + 8 + switch.pairs.len()
            }
        };
        // Only a switch table beyond 4 GiB could saturate.
        u32::try_from(wide + 1 + operands).unwrap_or(u32::MAX)
    }

    /// Appends the instruction to `code`, as if it sat at offset
    /// `code.len()` of the code array (which decides the switch padding; the
    /// [`offset`](Self::offset) field is ignored). On error `code` is left
    /// unchanged.
    pub fn encode(&self, code: &mut Vec<u8>) -> Result<(), EncodeError> {
        let start = code.len();
        let result = self.write(code);
        if result.is_err() {
            code.truncate(start);
        }
        result
    }

    fn write(&self, code: &mut Vec<u8>) -> Result<(), EncodeError> {
        let position = code.len();
        let mismatch = EncodeError::MismatchedOperands {
            opcode: self.opcode,
            wide: self.wide,
        };
        let shape = Shape::of(self.opcode).ok_or(mismatch)?;
        if self.wide {
            if !shape.can_be_wide() {
                return Err(mismatch);
            }
            code.push(opcode::WIDE);
        }
        code.push(self.opcode);

        match (shape, self.operands) {
            (Shape::None, Operands::None) => {}
            (Shape::Local, Operands::Local(index)) if self.wide => {
                code.extend(index.to_be_bytes());
            }
            (Shape::Local, Operands::Local(index)) => {
                code.push(self.fit::<u8>(index.into())?);
            }
            (Shape::Iinc, Operands::Iinc { index, delta }) if self.wide => {
                code.extend(index.to_be_bytes());
                code.extend(delta.to_be_bytes());
            }
            (Shape::Iinc, Operands::Iinc { index, delta }) => {
                code.push(self.fit::<u8>(index.into())?);
                code.extend(self.fit::<i8>(delta.into())?.to_be_bytes());
            }
            (Shape::Byte, Operands::Byte(value)) => code.extend(value.to_be_bytes()),
            (Shape::Short, Operands::Short(value)) => code.extend(value.to_be_bytes()),
            (Shape::NewArray, Operands::NewArray(atype)) => code.push(atype),
            (Shape::ConstantU8, Operands::Constant(index)) => {
                code.push(self.fit::<u8>(index.into())?);
            }
            (Shape::ConstantU16, Operands::Constant(index)) => code.extend(index.to_be_bytes()),
            (Shape::InvokeInterface, Operands::InvokeInterface { index, count }) => {
                code.extend(index.to_be_bytes());
                code.extend([count, 0]);
            }
            (Shape::InvokeDynamic, Operands::InvokeDynamic { index }) => {
                code.extend(index.to_be_bytes());
                code.extend([0, 0]);
            }
            (Shape::MultiANewArray, Operands::MultiANewArray { index, dimensions }) => {
                code.extend(index.to_be_bytes());
                code.push(dimensions);
            }
            (Shape::Branch16, Operands::Branch(relative)) => {
                code.extend(self.fit::<i16>(relative.into())?.to_be_bytes());
            }
            (Shape::Branch32, Operands::Branch(relative)) => code.extend(relative.to_be_bytes()),
            (Shape::TableSwitch, Operands::TableSwitch(switch)) => {
                // low and high are public, so they may no longer match the table.
                let count = i64::from(switch.high) - i64::from(switch.low) + 1;
                if usize::try_from(count) != Ok(switch.len()) {
                    return Err(EncodeError::InconsistentTableSwitch {
                        low: switch.low,
                        high: switch.high,
                        targets: switch.len(),
                    });
                }
                code.resize(code.len() + switch_padding(position), 0);
                code.extend(switch.default.to_be_bytes());
                code.extend(switch.low.to_be_bytes());
                code.extend(switch.high.to_be_bytes());
                code.extend_from_slice(switch.offsets);
            }
            (Shape::LookupSwitch, Operands::LookupSwitch(switch)) => {
                let npairs = i64::try_from(switch.len()).unwrap_or(i64::MAX);
                let npairs = self.fit::<i32>(npairs)?;
                code.resize(code.len() + switch_padding(position), 0);
                code.extend(switch.default.to_be_bytes());
                code.extend(npairs.to_be_bytes());
                code.extend_from_slice(switch.pairs);
            }
            _ => return Err(mismatch),
        }
        Ok(())
    }

    /// `value` converted to the operand type `T`, or an out-of-range error.
    fn fit<T: TryFrom<i64>>(&self, value: i64) -> Result<T, EncodeError> {
        T::try_from(value).map_err(|_| EncodeError::OperandOutOfRange {
            opcode: self.opcode,
            value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::opcode::*;
    use super::*;

    /// Where the test code arrays pretend to start in their class file. Not
    /// a multiple of four, to show that switch padding ignores it.
    const BASE: usize = 1001;

    fn decode_all(code: &[u8]) -> Vec<Instruction<'_>> {
        Instructions::new(code, BASE)
            .collect::<Result<_>>()
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// Decodes `code`, checks that the instructions tile it, and that
    /// encoding them again gives back the same bytes.
    fn assert_round_trip(code: &[u8], code_offset: usize) -> Vec<Instruction<'_>> {
        let instructions: Vec<_> = Instructions::new(code, code_offset)
            .collect::<Result<_>>()
            .unwrap_or_else(|error| panic!("{error}"));
        let mut encoded = Vec::new();
        for instruction in &instructions {
            assert_eq!(instruction.offset as usize, encoded.len());
            instruction.encode(&mut encoded).unwrap();
            let written = encoded.len() - instruction.offset as usize;
            assert_eq!(written, instruction.len() as usize, "{instruction:?}");
        }
        assert_eq!(encoded, code);
        instructions
    }

    fn first_error(code: &[u8]) -> ParseError {
        Instructions::new(code, BASE)
            .find_map(Result::err)
            .expect("decoding should fail")
    }

    fn plain(offset: u32, opcode: u8, operands: Operands<'_>) -> Instruction<'_> {
        Instruction {
            offset,
            opcode,
            wide: false,
            operands,
        }
    }

    #[test]
    fn decodes_every_operand_shape() {
        #[rustfmt::skip]
        let code = [
            NOP,
            ILOAD_0,
            ILOAD, 5,
            ASTORE, 200,
            RET, 3,
            IINC, 2, 0xfd,
            BIPUSH, 0xfb,
            SIPUSH, 0xfe, 0xd4,
            NEWARRAY, 10,
            LDC, 7,
            LDC_W, 0x01, 0x2c,
            LDC2_W, 0, 4,
            GETFIELD, 0, 9,
            INVOKEINTERFACE, 0, 11, 2, 0,
            INVOKEDYNAMIC, 0, 12, 0, 0,
            MULTIANEWARRAY, 0, 13, 3,
            IFEQ, 0xff, 0xd5,
            GOTO_W, 0x00, 0x01, 0x86, 0xa0,
            JSR, 0, 5,
            IFNONNULL, 0, 3,
            RETURN,
        ];
        let expected = [
            plain(0, NOP, Operands::None),
            plain(1, ILOAD_0, Operands::None),
            plain(2, ILOAD, Operands::Local(5)),
            plain(4, ASTORE, Operands::Local(200)),
            plain(6, RET, Operands::Local(3)),
            plain(
                8,
                IINC,
                Operands::Iinc {
                    index: 2,
                    delta: -3,
                },
            ),
            plain(11, BIPUSH, Operands::Byte(-5)),
            plain(13, SIPUSH, Operands::Short(-300)),
            plain(16, NEWARRAY, Operands::NewArray(10)),
            plain(18, LDC, Operands::Constant(7)),
            plain(20, LDC_W, Operands::Constant(300)),
            plain(23, LDC2_W, Operands::Constant(4)),
            plain(26, GETFIELD, Operands::Constant(9)),
            plain(
                29,
                INVOKEINTERFACE,
                Operands::InvokeInterface {
                    index: 11,
                    count: 2,
                },
            ),
            plain(34, INVOKEDYNAMIC, Operands::InvokeDynamic { index: 12 }),
            plain(
                39,
                MULTIANEWARRAY,
                Operands::MultiANewArray {
                    index: 13,
                    dimensions: 3,
                },
            ),
            plain(43, IFEQ, Operands::Branch(-43)),
            plain(46, GOTO_W, Operands::Branch(100_000)),
            plain(51, JSR, Operands::Branch(5)),
            plain(54, IFNONNULL, Operands::Branch(3)),
            plain(57, RETURN, Operands::None),
        ];
        let instructions = assert_round_trip(&code, BASE);
        assert_eq!(instructions, expected);

        let names: Vec<_> = instructions.iter().map(Instruction::name).collect();
        assert_eq!(names[1], "iload_0");
        assert_eq!(names[14], "invokedynamic");
        let targets: Vec<Vec<i64>> = instructions[16..20]
            .iter()
            .map(|instruction| instruction.branch_targets().collect())
            .collect();
        assert_eq!(targets, [vec![0], vec![100_046], vec![56], vec![57]]);
        // ret jumps to an address from a local variable: no static target.
        assert_eq!(instructions[4].branch_targets().count(), 0);
    }

    #[test]
    fn decodes_wide_loads_stores_ret_and_iinc() {
        #[rustfmt::skip]
        let code = [
            WIDE, ILOAD, 0x01, 0x00,
            WIDE, IINC, 0x01, 0x00, 0xff, 0x38,
            WIDE, RET, 0x01, 0x2c,
            // Needlessly wide forms must survive a round trip too.
            WIDE, ASTORE, 0, 0,
            WIDE, IINC, 0, 1, 0, 1,
            RETURN,
        ];
        let instructions = assert_round_trip(&code, BASE);
        let wide = |offset, opcode, operands| Instruction {
            offset,
            opcode,
            wide: true,
            operands,
        };
        assert_eq!(
            instructions,
            [
                wide(0, ILOAD, Operands::Local(256)),
                wide(
                    4,
                    IINC,
                    Operands::Iinc {
                        index: 256,
                        delta: -200
                    }
                ),
                wide(10, RET, Operands::Local(300)),
                wide(14, ASTORE, Operands::Local(0)),
                wide(18, IINC, Operands::Iinc { index: 1, delta: 1 }),
                plain(24, RETURN, Operands::None),
            ]
        );
        let lengths: Vec<_> = instructions.iter().map(Instruction::len).collect();
        assert_eq!(lengths, [4, 6, 4, 4, 6, 1]);
    }

    #[test]
    fn rejects_wide_before_other_opcodes() {
        let cases: [(&[u8], ParseError); 4] = [
            (
                &[NOP, WIDE, BIPUSH, 5],
                ParseError::new(BASE + 2, ErrorKind::BadWideOpcode(BIPUSH)),
            ),
            (
                &[WIDE, WIDE, ILOAD, 0, 1],
                ParseError::new(BASE + 1, ErrorKind::BadWideOpcode(WIDE)),
            ),
            (
                &[WIDE, 0xca],
                ParseError::new(BASE + 1, ErrorKind::BadWideOpcode(0xca)),
            ),
            (
                &[WIDE],
                ParseError::new(BASE + 1, ErrorKind::UnexpectedEnd { needed: 1 }),
            ),
        ];
        for (code, expected) in cases {
            assert_eq!(first_error(code), expected, "{code:02x?}");
        }
    }

    /// `nops` nops, a tableswitch on -1..=1, a lookupswitch on -7 and
    /// 1000000, and a return. Padding is computed here independently of the
    /// decoder: up to the next multiple of four.
    fn switches_after_nops(nops: usize) -> Vec<u8> {
        fn pad(code: &mut Vec<u8>) {
            while !code.len().is_multiple_of(4) {
                code.push(0);
            }
        }
        let mut code = vec![NOP; nops];
        code.push(TABLESWITCH);
        pad(&mut code);
        for value in [40, -1, 1, 10, 20, 30] {
            code.extend(i32::to_be_bytes(value));
        }
        code.push(LOOKUPSWITCH);
        pad(&mut code);
        for value in [50, 2, -7, 60, 1_000_000, 70] {
            code.extend(i32::to_be_bytes(value));
        }
        code.push(RETURN);
        code
    }

    #[test]
    fn decodes_switches_at_every_alignment() {
        for nops in 0..4 {
            let code = switches_after_nops(nops);
            let instructions = assert_round_trip(&code, BASE);
            assert_eq!(instructions.len(), nops + 3);
            let [table, lookup, ret] = instructions[nops..] else {
                unreachable!()
            };
            assert_eq!(ret.opcode, RETURN);
            let table_at = i64::from(table.offset);
            let lookup_at = i64::from(lookup.offset);
            assert_eq!(table_at, nops as i64);
            assert_eq!(i64::from(table.len()), lookup_at - table_at);
            assert_eq!(lookup_at + i64::from(lookup.len()), i64::from(ret.offset));
            assert!(table.is_switch() && lookup.is_switch());

            let Operands::TableSwitch(switch) = table.operands else {
                panic!("{table:?}")
            };
            assert_eq!((switch.default, switch.low, switch.high), (40, -1, 1));
            assert_eq!(switch.len(), 3);
            let cases: Vec<_> = switch.targets().collect();
            assert_eq!(cases, [(-1, 10), (0, 20), (1, 30)]);
            let targets: Vec<_> = table.branch_targets().map(|t| t - table_at).collect();
            assert_eq!(targets, [40, 10, 20, 30]);

            let Operands::LookupSwitch(switch) = lookup.operands else {
                panic!("{lookup:?}")
            };
            assert_eq!(switch.default, 50);
            assert_eq!(switch.len(), 2);
            let cases: Vec<_> = switch.targets().collect();
            assert_eq!(cases, [(-7, 60), (1_000_000, 70)]);
            let targets: Vec<_> = lookup.branch_targets().map(|t| t - lookup_at).collect();
            assert_eq!(targets, [50, 60, 70]);
        }
    }

    #[test]
    fn encoding_a_switch_elsewhere_recomputes_its_padding() {
        let code = switches_after_nops(0);
        let table = decode_all(&code)[0];
        for nops in 1..4 {
            let mut moved = vec![NOP; nops];
            table.encode(&mut moved).unwrap();
            let again = decode_all(&moved)[nops];
            assert_eq!(again.operands, table.operands);
            assert_eq!(again.len() as usize, moved.len() - nops);
        }
    }

    #[test]
    fn non_zero_padding_and_reserved_bytes_decode_and_encode_as_zero() {
        #[rustfmt::skip]
        let code = [
            LOOKUPSWITCH, 1, 2, 3, 0, 0, 0, 9, 0, 0, 0, 0,
            INVOKEINTERFACE, 0, 1, 1, 7,
            INVOKEDYNAMIC, 0, 2, 8, 9,
        ];
        let mut encoded = Vec::new();
        for instruction in decode_all(&code) {
            instruction.encode(&mut encoded).unwrap();
        }
        #[rustfmt::skip]
        let normalized = [
            LOOKUPSWITCH, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0,
            INVOKEINTERFACE, 0, 1, 1, 0,
            INVOKEDYNAMIC, 0, 2, 0, 0,
        ];
        assert_eq!(encoded, normalized);
    }

    #[test]
    fn rejects_hostile_switches_without_allocating() {
        let switch = |opcode, fields: &[i32]| {
            let mut code = vec![opcode, 0, 0, 0];
            for field in fields {
                code.extend(field.to_be_bytes());
            }
            code
        };
        // 2^32 entries claimed, 16 bytes present: must fail on the bounds
        // check, immediately.
        let huge = switch(TABLESWITCH, &[0, i32::MIN, i32::MAX, 0]);
        let error = first_error(&huge);
        assert!(
            matches!(*error.kind(), ErrorKind::UnexpectedEnd { .. }),
            "{error}"
        );
        assert_eq!(error.offset(), BASE + 16);

        let backwards = switch(TABLESWITCH, &[0, 5, 4]);
        assert_eq!(
            first_error(&backwards),
            ParseError::new(BASE + 8, ErrorKind::BadTableSwitch { low: 5, high: 4 })
        );

        let negative = switch(LOOKUPSWITCH, &[0, -1]);
        assert_eq!(
            first_error(&negative),
            ParseError::new(BASE + 8, ErrorKind::BadLookupSwitch(-1))
        );

        let too_many = switch(LOOKUPSWITCH, &[0, i32::MAX, 1, 2]);
        let error = first_error(&too_many);
        assert!(
            matches!(*error.kind(), ErrorKind::UnexpectedEnd { .. }),
            "{error}"
        );

        // A single-key table is fine; an empty lookup table too.
        assert_round_trip(&switch(TABLESWITCH, &[0, i32::MAX, i32::MAX, 7]), BASE);
        assert_round_trip(&switch(LOOKUPSWITCH, &[0, 0]), BASE);
    }

    /// `static int classify(int x)` compiled by javac 17:
    /// ```text
    ///  0: iload_0
    ///  1: tableswitch { 1: 28, 2: 31, 3: 34, default: 37 }
    /// 28: bipush 10, ireturn, bipush 20, ireturn, bipush 30, ireturn
    /// 37: iconst_m1
    /// 38: ireturn
    /// ```
    #[rustfmt::skip]
    const CLASSIFY: [u8; 39] = [
        0x1a, 0xaa, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00, 0x01,
        0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x1b, 0x00, 0x00, 0x00, 0x1e,
        0x00, 0x00, 0x00, 0x21, 0x10, 0x0a, 0xac, 0x10, 0x14, 0xac, 0x10, 0x1e,
        0xac, 0x02, 0xac,
    ];

    /// `static int sparse(int x, Object o)` compiled by javac 17:
    /// ```text
    ///  0: iconst_0
    ///  1: istore_2
    ///  2: iload_0
    ///  3: lookupswitch { -1000: 28, 1000000: 33, default: 35 }
    /// 28: iconst_1
    /// 29: istore_2
    /// 30: goto 35
    /// 33: iconst_2
    /// 34: istore_2
    /// 35: aload_1
    /// 36: instanceof #7
    /// 39: ifeq 59
    /// 42: aload_1
    /// 43: checkcast #7
    /// 46: invokevirtual #9
    /// 49: iconst_3
    /// 50: if_icmple 59
    /// 53: iinc_w 2, 300
    /// 59: iconst_2
    /// 60: iconst_3
    /// 61: multianewarray #13, 2
    /// 65: astore_3
    /// 66: iload_2
    /// 67: aload_3
    /// 68: arraylength
    /// 69: iadd
    /// 70: ireturn
    /// ```
    #[rustfmt::skip]
    const SPARSE: [u8; 71] = [
        0x03, 0x3d, 0x1a, 0xab, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x02,
        0xff, 0xff, 0xfc, 0x18, 0x00, 0x00, 0x00, 0x19, 0x00, 0x0f, 0x42, 0x40,
        0x00, 0x00, 0x00, 0x1e, 0x04, 0x3d, 0xa7, 0x00, 0x05, 0x05, 0x3d, 0x2b,
        0xc1, 0x00, 0x07, 0x99, 0x00, 0x14, 0x2b, 0xc0, 0x00, 0x07, 0xb6, 0x00,
        0x09, 0x06, 0xa4, 0x00, 0x09, 0xc4, 0x84, 0x00, 0x02, 0x01, 0x2c, 0x05,
        0x06, 0xc5, 0x00, 0x0d, 0x02, 0x4e, 0x1c, 0x2d, 0xbe, 0x60, 0xac,
    ];

    #[test]
    fn round_trips_javac_method_bodies() {
        let classify = assert_round_trip(&CLASSIFY, BASE);
        let offsets: Vec<_> = classify.iter().map(|i| i.offset).collect();
        assert_eq!(offsets, [0, 1, 28, 30, 31, 33, 34, 36, 37, 38]);
        let targets: Vec<_> = classify[1].branch_targets().collect();
        assert_eq!(targets, [37, 28, 31, 34]);

        let sparse = assert_round_trip(&SPARSE, BASE);
        let names: Vec<_> = sparse.iter().map(Instruction::name).collect();
        #[rustfmt::skip]
        assert_eq!(names, [
            "iconst_0", "istore_2", "iload_0", "lookupswitch", "iconst_1", "istore_2",
            "goto", "iconst_2", "istore_2", "aload_1", "instanceof", "ifeq", "aload_1",
            "checkcast", "invokevirtual", "iconst_3", "if_icmple", "iinc", "iconst_2",
            "iconst_3", "multianewarray", "astore_3", "iload_2", "aload_3",
            "arraylength", "iadd", "ireturn",
        ]);
        let targets: Vec<Vec<i64>> = sparse
            .iter()
            .filter(|i| i.branch_targets().next().is_some())
            .map(|i| i.branch_targets().collect())
            .collect();
        assert_eq!(targets, [vec![35, 28, 33], vec![35], vec![59], vec![59]]);
        assert!(sparse[17].wide);
        assert_eq!(
            sparse[17].operands,
            Operands::Iinc {
                index: 2,
                delta: 300
            }
        );
    }

    #[test]
    fn opcodes_walk_agrees_with_the_decoder() {
        let mut code = switches_after_nops(1);
        code.extend([opcode::WIDE, opcode::IINC, 1, 0, 0, 5, opcode::ILOAD, 3]);
        code.extend([opcode::GOTO_W, 0, 0, 0, 0, opcode::RETURN]);
        let decoded: Vec<_> = Instructions::new(&code, 0)
            .map(|i| i.map(|i| (i.offset, i.opcode)))
            .collect();
        let walked: Vec<_> = Opcodes::new(&code, 0).collect();
        assert_eq!(walked, decoded);
        assert!(walked.iter().any(|w| matches!(w, Ok((_, opcode::IINC)))));
        for cut in 0..code.len() {
            let decoded: Vec<_> = Instructions::new(&code[..cut], 7)
                .map(|i| i.map(|i| (i.offset, i.opcode)))
                .collect();
            assert_eq!(
                Opcodes::new(&code[..cut], 7).collect::<Vec<_>>(),
                decoded,
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn truncated_code_fails_cleanly_at_every_length() {
        let codes = [
            CLASSIFY.to_vec(),
            SPARSE.to_vec(),
            switches_after_nops(1),
            switches_after_nops(2),
        ];
        for code in &codes {
            let boundaries: Vec<usize> =
                decode_all(code).iter().map(|i| i.offset as usize).collect();
            for cut in 0..code.len() {
                let results: Vec<_> = Instructions::new(&code[..cut], BASE).collect();
                let (last, before) = match results.split_last() {
                    Some((last, before)) => (Some(last), before),
                    None => (None, &results[..]),
                };
                assert!(before.iter().all(Result::is_ok));
                if boundaries.contains(&cut) {
                    assert!(last.is_none_or(Result::is_ok), "cut at {cut}");
                } else {
                    let error = last.unwrap().as_ref().unwrap_err();
                    assert!(
                        matches!(*error.kind(), ErrorKind::UnexpectedEnd { .. }),
                        "cut at {cut}: {error}"
                    );
                    assert!((BASE..=BASE + cut).contains(&error.offset()), "{error}");
                }
            }
        }
    }

    #[test]
    fn rejects_reserved_and_unassigned_opcodes_and_stops() {
        for op in 0xca..=0xff {
            let code = [NOP, op, NOP, NOP];
            let mut instructions = Instructions::new(&code, BASE);
            assert!(instructions.next().unwrap().is_ok());
            assert_eq!(
                instructions.next().unwrap(),
                Err(ParseError::new(BASE + 1, ErrorKind::UnknownOpcode(op)))
            );
            // Fused: no attempt to resynchronise after garbage.
            assert_eq!(instructions.next(), None);
            assert_eq!(instructions.next(), None);
        }
    }

    #[test]
    fn every_defined_opcode_decodes_and_encodes() {
        for op in 0..=JSR_W {
            if op == WIDE {
                continue;
            }
            // Zeros make valid operands for every opcode (a one-key table).
            let mut code = vec![op];
            code.extend([0; 24]);
            let instruction = Instructions::new(&code, BASE).next().unwrap().unwrap();
            assert_eq!(instruction.opcode, op);
            assert_eq!(Some(instruction.name()), name(op));
            let mut encoded = Vec::new();
            instruction.encode(&mut encoded).unwrap();
            assert_eq!(encoded, code[..instruction.len() as usize], "{op:#04x}");
        }
    }

    #[test]
    fn classifies_branches_and_switches() {
        let all = || (0..=u8::MAX).map(|op| plain(0, op, Operands::None));
        let conditional: Vec<_> = all()
            .filter(Instruction::is_conditional_branch)
            .map(|i| i.opcode)
            .collect();
        let mut expected: Vec<u8> = (IFEQ..=IF_ACMPNE).collect();
        expected.extend([IFNULL, IFNONNULL]);
        assert_eq!(conditional, expected);
        assert_eq!(expected.len(), 16);

        let switches: Vec<_> = all()
            .filter(Instruction::is_switch)
            .map(|i| i.opcode)
            .collect();
        assert_eq!(switches, [TABLESWITCH, LOOKUPSWITCH]);
        assert_eq!(plain(0, 0xfe, Operands::None).name(), "<unknown>");
    }

    #[test]
    fn encoding_rejects_operands_that_do_not_fit_and_writes_nothing() {
        let wide = |opcode, operands| Instruction {
            offset: 0,
            opcode,
            wide: true,
            operands,
        };
        let out_of_range = |opcode, value| EncodeError::OperandOutOfRange { opcode, value };
        let mismatched = |opcode, wide| EncodeError::MismatchedOperands { opcode, wide };
        let cases = [
            (
                plain(0, LDC, Operands::Constant(300)),
                out_of_range(LDC, 300),
            ),
            (
                plain(0, GOTO, Operands::Branch(40_000)),
                out_of_range(GOTO, 40_000),
            ),
            (
                plain(0, IFNULL, Operands::Branch(-40_000)),
                out_of_range(IFNULL, -40_000),
            ),
            (
                plain(0, ILOAD, Operands::Local(256)),
                out_of_range(ILOAD, 256),
            ),
            (
                plain(
                    0,
                    IINC,
                    Operands::Iinc {
                        index: 1,
                        delta: 200,
                    },
                ),
                out_of_range(IINC, 200),
            ),
            (
                plain(
                    0,
                    IINC,
                    Operands::Iinc {
                        index: 300,
                        delta: 1,
                    },
                ),
                out_of_range(IINC, 300),
            ),
            (
                plain(0, IADD, Operands::Constant(1)),
                mismatched(IADD, false),
            ),
            (
                plain(0, ILOAD_0, Operands::Local(0)),
                mismatched(ILOAD_0, false),
            ),
            (
                plain(0, GOTO, Operands::Constant(1)),
                mismatched(GOTO, false),
            ),
            (plain(0, LDC, Operands::Branch(1)), mismatched(LDC, false)),
            (wide(IADD, Operands::None), mismatched(IADD, true)),
            (wide(BIPUSH, Operands::Byte(1)), mismatched(BIPUSH, true)),
            (plain(0, WIDE, Operands::None), mismatched(WIDE, false)),
            (plain(0, 0xca, Operands::None), mismatched(0xca, false)),
        ];
        for (instruction, expected) in cases {
            let mut code = vec![1, 2, 3];
            assert_eq!(
                instruction.encode(&mut code),
                Err(expected),
                "{instruction:?}"
            );
            assert_eq!(code, [1, 2, 3]);
        }

        let code = switches_after_nops(0);
        let mut table = decode_all(&code)[0];
        let Operands::TableSwitch(switch) = &mut table.operands else {
            panic!("{table:?}")
        };
        switch.high += 1;
        let mut encoded = Vec::new();
        assert_eq!(
            table.encode(&mut encoded),
            Err(EncodeError::InconsistentTableSwitch {
                low: -1,
                high: 2,
                targets: 3
            })
        );
        assert!(encoded.is_empty());
    }

    /// Real javac output, covering what hand-written bytes might miss.
    mod javac {
        use super::*;
        use crate::reader::Reader;
        use std::collections::{BTreeSet, HashMap};
        use std::fmt::Write;
        use std::path::{Path, PathBuf};
        use std::process::Command;

        /// Java 8 compatible, so that it also compiles with `--release 8`.
        const SAMPLE: &str = r#"
import java.util.*;
import java.util.function.*;

public class Sample {
    interface Shape {
        double area();
        default String label() { return "shape " + area(); }
    }
    enum Color { RED, GREEN, BLUE }
    private int counter;
    private static long total = 1234567890123L;

    static int classify(int x) {
        switch (x) { case 1: return 10; case 2: return 20; case 3: return 30; case 4: return 40; default: return -1; }
    }
    static int sparse(int x) {
        switch (x) { case -1000: return 1; case 0: return 2; case 1000000: return 3; default: return 0; }
    }
    static String strings(String s) {
        switch (s) { case "alpha": return "A"; case "beta": return "B"; default: return s + "!" + s.length(); }
    }
    static int colors(Color c) {
        switch (c) { case RED: return 1; case BLUE: return 3; default: return 0; }
    }
    double arith(long a, double d, float f, int i, short s, byte b, char c) {
        counter += i;
        total ^= a << 3;
        return (a / 7 % 3) + d * f - i / (s + 1) + (b >>> 1) + (c >> 2) + (-d) + (long) f + (int) d
            + (float) a + 3.5 + 1e100 + 100000 + 70000L + (a > 5L ? 2 : 3) + (f < d ? 1 : 0);
    }
    static int loops(int[] xs) {
        int sum = 0;
        for (int x : xs) { if (x > 0 && x != 7) sum += x; else if (x < -5) sum -= 1000; else sum++; }
        int k = 0;
        while (k < xs.length) { k += 2; }
        do { k--; } while (k > 100);
        return sum + k;
    }
    static Object arrays(int n) {
        int[][][] cube = new int[2][3][n];
        String[] names = new String[n];
        long[] longs = new long[n];
        boolean[] flags = new boolean[1];
        char[] chars = {'a', 'b'};
        double[] ds = {1.5};
        float[] fs = {2f};
        byte[] bs = {1};
        short[] ss = {2};
        longs[0] = cube.length + names.length;
        flags[0] = !flags[0];
        return cube[1][2].length + longs[0] + chars[1] + ds[0] + fs[0] + bs[0] + ss[0];
    }
    static int sync(Object o) { synchronized (o) { return o.hashCode(); } }
    static int tryCatch(String s) {
        try { return Integer.parseInt(s); } catch (NumberFormatException e) { return -1; } finally { total++; }
    }
    static Runnable lambdas(List<String> xs) {
        Function<Integer, Integer> twice = x -> x * 2;
        Supplier<List<String>> make = ArrayList::new;
        return () -> { xs.forEach(System.out::println); make.get().add("" + twice.apply(xs.size())); };
    }
    static boolean casts(Object o) {
        return (o instanceof String && ((String) o).isEmpty()) || o == null || o != o;
    }
    static <T extends Comparable<T>> T max(Iterator<T> it) {
        T best = null;
        while (it.hasNext()) { T t = it.next(); if (best == null || t.compareTo(best) > 0) best = t; }
        return best;
    }
    static void exceptions(Object o, int x) {
        if (o == null) throw new NullPointerException();
        if (x < 0) throw new IllegalArgumentException("negative: " + x);
        assert x != 3 : "three";
    }
"#;

        /// Members generated in bulk: enough locals for `wide`, enough
        /// constants for `ldc_w`, and a loop body too long for `goto`.
        fn generated_members() -> String {
            let mut java =
                String::from("    static int manyLocals(int seed) {\n        int v0 = seed;\n");
            for i in 1..300 {
                writeln!(java, "        int v{i} = v{} + {i};", i - 1).unwrap();
            }
            java.push_str("        v299 += 1000;\n        return v299 + v150;\n    }\n");

            java.push_str("    static final String[] NAMES = {\n");
            for i in 0..300 {
                writeln!(java, "        \"name{i}\",").unwrap();
            }
            java.push_str("    };\n");

            java.push_str("    static long big(int n) {\n        long s = 0;\n");
            java.push_str("        for (int i = 0; i < n; i++) {\n");
            // About 8 bytes each: well over the 32767 bytes a goto can span.
            for i in 0..4500 {
                writeln!(java, "            s += i * {};", i % 100 + 2).unwrap();
            }
            java.push_str("        }\n        return s;\n    }\n}\n");
            java
        }

        /// A directory removed when the test ends, pass or fail.
        struct TempDir(PathBuf);

        impl Drop for TempDir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }

        fn compile(release: Option<&str>) -> TempDir {
            let name = format!(
                "testgen-instruction-{}-{}",
                std::process::id(),
                release.unwrap_or("default")
            );
            let dir = TempDir(std::env::temp_dir().join(name));
            std::fs::create_dir_all(&dir.0).unwrap();
            let source = dir.0.join("Sample.java");
            std::fs::write(&source, format!("{SAMPLE}{}", generated_members())).unwrap();
            let mut javac = Command::new("javac");
            if let Some(release) = release {
                javac.args(["--release", release]);
            }
            let output = javac
                .arg("-d")
                .arg(&dir.0)
                .arg(&source)
                .output()
                .unwrap_or_else(|error| {
                    panic!(
                        "cannot run javac ({error}): this test needs a JDK 17+ with javac on PATH"
                    )
                });
            assert!(
                output.status.success(),
                "javac failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            dir
        }

        /// (absolute offset, bytes) of every code array in a class file:
        /// just enough of a class file walk for this test.
        fn code_arrays(class: &[u8]) -> Vec<(usize, &[u8])> {
            let mut reader = Reader::new(class);
            reader.skip(8).unwrap(); // magic and version
            let mut utf8 = HashMap::new();
            let count = reader.u16().unwrap();
            let mut index = 1;
            while index < count {
                let tag = reader.u8().unwrap();
                let size = match tag {
                    1 => {
                        let len = reader.u16().unwrap();
                        utf8.insert(index, reader.take(len.into()).unwrap());
                        0
                    }
                    7 | 8 | 16 | 19 | 20 => 2,
                    15 => 3,
                    3 | 4 | 9..=12 | 17 | 18 => 4,
                    5 | 6 => 8,
                    _ => panic!("constant pool tag {tag}"),
                };
                reader.skip(size).unwrap();
                // Longs and doubles take two slots.
                index += if matches!(tag, 5 | 6) { 2 } else { 1 };
            }
            reader.skip(6).unwrap(); // access flags, this and super class
            let interfaces = reader.u16().unwrap();
            reader.skip(2 * usize::from(interfaces)).unwrap();
            let mut codes = Vec::new();
            // Fields, then methods: both have the same layout.
            for _ in 0..2 {
                for _ in 0..reader.u16().unwrap() {
                    reader.skip(6).unwrap(); // access flags, name, descriptor
                    for _ in 0..reader.u16().unwrap() {
                        let name = utf8[&reader.u16().unwrap()];
                        let len = reader.u32().unwrap() as usize;
                        let mut body = reader.sub_reader(len).unwrap();
                        if name == b"Code" {
                            body.skip(4).unwrap(); // max_stack, max_locals
                            let code_len = body.u32().unwrap() as usize;
                            codes.push((body.offset(), body.take(code_len).unwrap()));
                        }
                    }
                }
            }
            codes
        }

        fn check_classes_in(dir: &Path, seen: &mut BTreeSet<(&'static str, bool)>) {
            let mut classes = 0;
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|ext| ext != "class") {
                    continue;
                }
                classes += 1;
                let class = std::fs::read(&path).unwrap();
                for (offset, code) in code_arrays(&class) {
                    let instructions = assert_round_trip(code, offset);
                    let starts: BTreeSet<i64> =
                        instructions.iter().map(|i| i64::from(i.offset)).collect();
                    for instruction in &instructions {
                        seen.insert((instruction.name(), instruction.wide));
                        for target in instruction.branch_targets() {
                            assert!(starts.contains(&target), "{instruction:?} in {path:?}");
                        }
                    }
                }
            }
            // Sample, Sample$Shape, Sample$Color, and the enum switch map.
            assert!(classes >= 4, "only {classes} classes in {dir:?}");
        }

        #[test]
        fn round_trips_javac_output() {
            let mut seen = BTreeSet::new();
            for release in [None, Some("8")] {
                let dir = compile(release);
                check_classes_in(&dir.0, &mut seen);
            }
            let expected = [
                ("tableswitch", false),
                ("lookupswitch", false),
                ("goto", false),
                ("goto_w", false),
                ("ldc", false),
                ("ldc_w", false),
                ("ldc2_w", false),
                ("bipush", false),
                ("sipush", false),
                ("iinc", false),
                ("iinc", true),
                ("iload", true),
                ("istore", true),
                ("invokedynamic", false),
                ("invokeinterface", false),
                ("invokespecial", false),
                ("multianewarray", false),
                ("newarray", false),
                ("anewarray", false),
                ("checkcast", false),
                ("instanceof", false),
                ("ifnull", false),
                ("ifnonnull", false),
                ("monitorenter", false),
                ("athrow", false),
            ];
            for shape in expected {
                assert!(seen.contains(&shape), "javac output lacks {shape:?}");
            }
        }
    }
}
