//! The control-flow graph of one method: basic blocks and typed edges.
//!
//! A block starts at a *leader*: offset 0, every branch and switch target,
//! the instruction after any branch, switch, return, `athrow`, `goto`, `jsr`
//! or `ret`, every exception handler, and the start and end of every
//! exception-table range. The last rule makes each block lie wholly inside
//! or wholly outside each range, so "this block is covered by that handler"
//! is a yes/no question.
//!
//! Exceptions are modelled simply: every block inside a range gets an
//! [`EdgeKind::Exception`] edge to the range's handler, as if any of its
//! instructions could throw. That over-approximates (an `iadd` cannot throw)
//! but never misses a path.
//!
//! `jsr`/`ret` (subroutines, only in class files older than Java 6) are
//! handled conservatively: `jsr` gets an [`EdgeKind::Jsr`] edge to the
//! subroutine, and every `ret` gets an [`EdgeKind::Ret`] edge to *every*
//! instruction that follows a `jsr` in the method, since which one it
//! returns to depends on a return address held in a local variable. The
//! graph may therefore contain paths no execution takes, but none is missing.
//!
//! Blocks are numbered in offset order, so block ids are stable for given
//! bytecode and block 0 is the entry. Unreachable blocks are kept.

use std::fmt;

use testgen_classfile::instruction::opcode::*;
use testgen_classfile::instruction::Operands;
use testgen_classfile::{ClassFile, Code, Member};

use crate::error::{AnalysisError, Result};

/// A block's index in [`Cfg::blocks`]; also its rank in offset order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// An edge's index in [`Cfg::edges`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EdgeId(pub u32);

impl BlockId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl EdgeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "B{}", self.0)
    }
}

/// A maximal straight-line run of instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub id: BlockId,
    /// Offset of the first instruction.
    pub start: u32,
    /// Offset just past the last instruction (the next block's start, or
    /// the code length).
    pub end: u32,
    /// Offsets of the block's instructions, ascending; never empty.
    pub instructions: Vec<u32>,
    successors: Vec<EdgeId>,
    predecessors: Vec<EdgeId>,
}

impl Block {
    /// Offset of the instruction that ends the block (and decides where
    /// control goes next).
    pub fn last_instruction(&self) -> u32 {
        // A block always holds at least its leader.
        self.instructions.last().copied().unwrap_or(self.start)
    }

    /// Outgoing edges: normal control flow first, in the order of
    /// [`EdgeKind`]'s documentation, then exception edges in exception-table
    /// order (the order the JVM searches handlers).
    pub fn successors(&self) -> &[EdgeId] {
        &self.successors
    }

    /// Incoming edges, in edge id order.
    pub fn predecessors(&self) -> &[EdgeId] {
        &self.predecessors
    }

    /// Whether `offset` is the start of an instruction inside this block.
    pub fn contains_instruction(&self, offset: u32) -> bool {
        self.instructions.binary_search(&offset).is_ok()
    }
}

/// Why control may pass from one block to another.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EdgeKind {
    /// The block ends only because the next instruction is a leader.
    FallThrough,
    /// A conditional branch (`if*`, `ifnull`, `ifnonnull`) whose condition
    /// held. Listed before [`EdgeKind::BranchNotTaken`].
    BranchTaken,
    /// A conditional branch whose condition failed: the next instruction.
    BranchNotTaken,
    /// A switch case, with its key. Cases come in class-file order (by key),
    /// then the default; several keys may lead to the same block.
    SwitchCase(i32),
    SwitchDefault,
    /// `goto` or `goto_w`.
    Goto,
    /// `jsr` or `jsr_w` into a subroutine.
    Jsr,
    /// `ret` back to an instruction after a `jsr` (conservatively, to all of
    /// them).
    Ret,
    /// To a handler whose range covers the block. `catch_type` is the
    /// internal name of the caught class; `None` catches everything
    /// (`finally`, `synchronized`).
    Exception {
        catch_type: Option<String>,
    },
}

impl EdgeKind {
    /// Edges that exist because something may throw.
    pub fn is_exception(&self) -> bool {
        matches!(self, EdgeKind::Exception { .. })
    }

    /// Edges chosen by a run-time decision on values: the two outcomes of a
    /// conditional branch and the cases of a switch.
    pub fn is_conditional(&self) -> bool {
        matches!(
            self,
            EdgeKind::BranchTaken
                | EdgeKind::BranchNotTaken
                | EdgeKind::SwitchCase(_)
                | EdgeKind::SwitchDefault
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: BlockId,
    pub to: BlockId,
    pub kind: EdgeKind,
}

/// The control-flow graph of one method's code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cfg {
    blocks: Vec<Block>,
    /// Grouped by source block in block order, so edge ids are stable too.
    edges: Vec<Edge>,
    code_length: u32,
}

/// An exception-table row, resolved to instruction indices.
struct Range {
    start: usize,
    /// Index of the first instruction past the range (may be one past the
    /// last instruction).
    end: usize,
    handler: usize,
    catch_type: Option<String>,
}

impl Cfg {
    /// The graph of `method`'s code, or `None` for an abstract or native
    /// method.
    pub fn of_method(class: &ClassFile<'_>, method: &Member<'_>) -> Result<Option<Cfg>> {
        match method.code(class)? {
            Some(code) => Cfg::build(class, &code).map(Some),
            None => Ok(None),
        }
    }

    /// Builds the graph of `code`, which belongs to `class` (whose constant
    /// pool names the caught exception types).
    pub fn build(class: &ClassFile<'_>, code: &Code<'_>) -> Result<Cfg> {
        Cfg::build_with(code, &|index| {
            let name = class.constant_pool.optional_class_name(index)?;
            Ok(name.map(|name| name.into_owned()))
        })
    }

    /// [`Cfg::build`] with the caught types named by `catch_type` (a
    /// constant-pool index to a class name; `None` for index 0).
    pub(crate) fn build_with(
        code: &Code<'_>,
        catch_type: &dyn Fn(u16) -> Result<Option<String>>,
    ) -> Result<Cfg> {
        let instructions = code.instructions().collect::<Result<Vec<_>, _>>()?;
        if instructions.is_empty() {
            return Err(AnalysisError::EmptyCode);
        }
        // `code_length` is a u32 in the class file, so this never saturates.
        let code_length = u32::try_from(code.bytecode.len()).unwrap_or(u32::MAX);
        let offsets: Vec<u32> = instructions.iter().map(|i| i.offset).collect();
        let index_of = |target: i64| -> Option<usize> {
            let target = u32::try_from(target).ok()?;
            offsets.binary_search(&target).ok()
        };
        let count = instructions.len();

        let mut leader = vec![false; count];
        leader[0] = true;
        // Instructions after a `jsr`: where any `ret` may go back to.
        let mut return_sites = Vec::new();
        for (index, instruction) in instructions.iter().enumerate() {
            for target in instruction.branch_targets() {
                let target_index = index_of(target).ok_or(AnalysisError::BadBranchTarget {
                    at: instruction.offset,
                    target,
                })?;
                leader[target_index] = true;
            }
            if ends_block(instruction.opcode) && index + 1 < count {
                leader[index + 1] = true;
                if matches!(instruction.opcode, JSR | JSR_W) {
                    return_sites.push(index + 1);
                }
            }
        }

        let ranges = resolve_ranges(code, catch_type, code_length, &index_of, count)?;
        for range in &ranges {
            leader[range.start] = true;
            leader[range.handler] = true;
            if range.end < count {
                leader[range.end] = true;
            }
        }

        // Blocks, and which block each instruction belongs to.
        let mut blocks: Vec<Block> = Vec::new();
        let mut block_of = vec![BlockId(0); count];
        for (index, &offset) in offsets.iter().enumerate() {
            if leader[index] {
                let id = BlockId(blocks.len() as u32);
                if let Some(previous) = blocks.last_mut() {
                    previous.end = offset;
                }
                blocks.push(Block {
                    id,
                    start: offset,
                    end: code_length,
                    instructions: Vec::new(),
                    successors: Vec::new(),
                    predecessors: Vec::new(),
                });
            }
            let block = blocks.last_mut().expect("instruction 0 is a leader");
            block.instructions.push(offset);
            block_of[index] = block.id;
        }

        let mut edges: Vec<Edge> = Vec::new();
        let mut first_index = 0;
        for block in &blocks {
            let last_index = first_index + block.instructions.len() - 1;
            let mut add = |to: usize, kind: EdgeKind| {
                let edge = Edge {
                    from: block.id,
                    to: block_of[to],
                    kind,
                };
                // Two table rows may name the same handler and type; one
                // edge says it.
                let duplicate = edge.kind.is_exception()
                    && edges
                        .iter()
                        .rev()
                        .take_while(|e| e.from == block.id)
                        .any(|e| *e == edge);
                if !duplicate {
                    edges.push(edge);
                }
            };
            let last = &instructions[last_index];
            let next = last_index + 1;
            let fall_through = || {
                if next < count {
                    Ok(next)
                } else {
                    Err(AnalysisError::FallsOffEnd { at: last.offset })
                }
            };
            let target_of = |relative: i32| {
                let target = i64::from(last.offset) + i64::from(relative);
                index_of(target).ok_or(AnalysisError::BadBranchTarget {
                    at: last.offset,
                    target,
                })
            };
            match (last.opcode, last.operands) {
                (op, Operands::Branch(relative)) if is_conditional_branch(op) => {
                    add(target_of(relative)?, EdgeKind::BranchTaken);
                    add(fall_through()?, EdgeKind::BranchNotTaken);
                }
                (GOTO | GOTO_W, Operands::Branch(relative)) => {
                    add(target_of(relative)?, EdgeKind::Goto);
                }
                (JSR | JSR_W, Operands::Branch(relative)) => {
                    add(target_of(relative)?, EdgeKind::Jsr);
                }
                (RET, _) => {
                    for &site in &return_sites {
                        add(site, EdgeKind::Ret);
                    }
                }
                (_, Operands::TableSwitch(switch)) => {
                    for (key, relative) in switch.targets() {
                        add(target_of(relative)?, EdgeKind::SwitchCase(key));
                    }
                    add(target_of(switch.default)?, EdgeKind::SwitchDefault);
                }
                (_, Operands::LookupSwitch(switch)) => {
                    for (key, relative) in switch.targets() {
                        add(target_of(relative)?, EdgeKind::SwitchCase(key));
                    }
                    add(target_of(switch.default)?, EdgeKind::SwitchDefault);
                }
                (IRETURN..=RETURN | ATHROW, _) => {}
                _ => add(fall_through()?, EdgeKind::FallThrough),
            }
            for range in &ranges {
                if range.start <= first_index && first_index < range.end {
                    add(
                        range.handler,
                        EdgeKind::Exception {
                            catch_type: range.catch_type.clone(),
                        },
                    );
                }
            }
            first_index = last_index + 1;
        }

        for (index, edge) in edges.iter().enumerate() {
            let id = EdgeId(index as u32);
            blocks[edge.from.index()].successors.push(id);
            blocks[edge.to.index()].predecessors.push(id);
        }
        Ok(Cfg {
            blocks,
            edges,
            code_length,
        })
    }

    /// The entry block, where execution starts (offset 0).
    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    /// Blocks in offset order; `blocks()[i].id == BlockId(i)`.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    /// All edges, grouped by source block in block order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    pub fn edge(&self, id: EdgeId) -> &Edge {
        &self.edges[id.index()]
    }

    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// Always false: a method's code has at least one instruction.
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// Length of the method's bytecode.
    pub fn code_length(&self) -> u32 {
        self.code_length
    }

    /// Outgoing edges of `id` (see [`Block::successors`]).
    pub fn successors(&self, id: BlockId) -> impl Iterator<Item = &Edge> + '_ {
        self.block(id)
            .successors
            .iter()
            .map(move |&edge| self.edge(edge))
    }

    /// Incoming edges of `id`.
    pub fn predecessors(&self, id: BlockId) -> impl Iterator<Item = &Edge> + '_ {
        self.block(id)
            .predecessors
            .iter()
            .map(move |&edge| self.edge(edge))
    }

    /// The block starting exactly at `offset`, if any.
    pub fn block_starting_at(&self, offset: u32) -> Option<BlockId> {
        self.blocks
            .binary_search_by_key(&offset, |block| block.start)
            .ok()
            .map(|index| BlockId(index as u32))
    }

    /// The block whose byte range holds `offset` (an instruction's start or
    /// any byte of it).
    pub fn block_containing(&self, offset: u32) -> Option<BlockId> {
        if offset >= self.code_length {
            return None;
        }
        let after = self.blocks.partition_point(|block| block.start <= offset);
        after.checked_sub(1).map(|index| BlockId(index as u32))
    }
}

/// Instructions after which a new block starts.
fn ends_block(op: u8) -> bool {
    is_conditional_branch(op)
        || matches!(
            op,
            GOTO | GOTO_W | JSR | JSR_W | RET | TABLESWITCH | LOOKUPSWITCH | IRETURN
                ..=RETURN | ATHROW
        )
}

/// Checks the exception table against the instruction boundaries and
/// resolves it to instruction indices, in table order.
fn resolve_ranges(
    code: &Code<'_>,
    catch_type: &dyn Fn(u16) -> Result<Option<String>>,
    code_length: u32,
    index_of: &dyn Fn(i64) -> Option<usize>,
    count: usize,
) -> Result<Vec<Range>> {
    let mut ranges = Vec::with_capacity(code.exception_table.len());
    for (row, handler) in code.exception_table.iter().enumerate() {
        let bad = || AnalysisError::BadExceptionRange {
            row,
            start_pc: handler.start_pc,
            end_pc: handler.end_pc,
            handler_pc: handler.handler_pc,
        };
        let start = index_of(handler.start_pc.into()).ok_or_else(bad)?;
        let end = if u32::from(handler.end_pc) == code_length {
            count
        } else {
            index_of(handler.end_pc.into()).ok_or_else(bad)?
        };
        let handler_index = index_of(handler.handler_pc.into()).ok_or_else(bad)?;
        if start >= end {
            return Err(bad());
        }
        ranges.push(Range {
            start,
            end,
            handler: handler_index,
            catch_type: catch_type(handler.catch_type)?,
        });
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use testgen_classfile::attribute::ExceptionHandler;

    use super::*;
    use crate::dominators::Dominators;
    use crate::loops::Loops;

    fn code<'a>(bytecode: &'a [u8], handlers: &[(u16, u16, u16, u16)]) -> Code<'a> {
        Code {
            max_stack: 4,
            max_locals: 4,
            bytecode,
            bytecode_offset: 0,
            exception_table: handlers
                .iter()
                .map(
                    |&(start_pc, end_pc, handler_pc, catch_type)| ExceptionHandler {
                        start_pc,
                        end_pc,
                        handler_pc,
                        catch_type,
                    },
                )
                .collect(),
            attributes: Vec::new(),
        }
    }

    /// Builds with catch type `n` named `Tn`.
    fn build(bytecode: &[u8], handlers: &[(u16, u16, u16, u16)]) -> Result<Cfg> {
        Cfg::build_with(&code(bytecode, handlers), &|index| {
            Ok((index != 0).then(|| format!("T{index}")))
        })
    }

    fn edges(cfg: &Cfg) -> Vec<(u32, u32, EdgeKind)> {
        cfg.edges()
            .iter()
            .map(|edge| (edge.from.0, edge.to.0, edge.kind.clone()))
            .collect()
    }

    #[test]
    fn malformed_control_flow_is_an_error() {
        let bad_target = |at, target| Err(AnalysisError::BadBranchTarget { at, target });
        // goto into the middle of itself, before the start, past the end
        assert_eq!(build(&[GOTO, 0, 1], &[]), bad_target(0, 1));
        assert_eq!(build(&[NOP, GOTO, 0xff, 0xfe], &[]), bad_target(1, -1));
        assert_eq!(build(&[GOTO, 0, 3], &[]), bad_target(0, 3));
        // a tableswitch whose only case jumps into its own operands
        #[rustfmt::skip]
        let switch = [
            ICONST_0, TABLESWITCH, 0, 0,
            0, 0, 0, 19, // default -> 1 + 19, the return
            0, 0, 0, 0, 0, 0, 0, 0, // low 0, high 0
            0, 0, 0, 2, // case 0 -> 1 + 2
            RETURN,
        ];
        assert_eq!(build(&switch, &[]), bad_target(1, 3));
        // running off the end, plain or as a branch not taken
        assert_eq!(
            build(&[ICONST_0, POP], &[]),
            Err(AnalysisError::FallsOffEnd { at: 1 })
        );
        assert_eq!(
            build(&[ICONST_0, IFEQ, 0xff, 0xff], &[]),
            Err(AnalysisError::FallsOffEnd { at: 1 })
        );
        assert_eq!(build(&[], &[]), Err(AnalysisError::EmptyCode));
        // a truncated instruction
        assert!(matches!(
            build(&[SIPUSH, 0], &[]),
            Err(AnalysisError::ClassFile(_))
        ));
    }

    #[test]
    fn exception_ranges_must_cover_whole_instructions() {
        let body = [ICONST_0, SIPUSH, 0, 1, POP, POP, RETURN];
        let bad = |row, (start_pc, end_pc, handler_pc)| {
            Err(AnalysisError::BadExceptionRange {
                row,
                start_pc,
                end_pc,
                handler_pc,
            })
        };
        assert_eq!(build(&body, &[(0, 2, 6, 0)]), bad(0, (0, 2, 6)));
        assert_eq!(build(&body, &[(0, 4, 2, 0)]), bad(0, (0, 4, 2)));
        assert_eq!(build(&body, &[(4, 4, 6, 0)]), bad(0, (4, 4, 6)));
        assert_eq!(
            build(&body, &[(0, 7, 6, 0), (0, 8, 6, 0)]),
            bad(1, (0, 8, 6))
        );
        // A range may end at the end of the code.
        let cfg = build(&body, &[(1, 7, 6, 3)]).unwrap();
        let starts: Vec<u32> = cfg.blocks().iter().map(|b| b.start).collect();
        assert_eq!(starts, [0, 1, 6]);
        assert_eq!(
            edges(&cfg),
            [
                (0, 1, EdgeKind::FallThrough),
                (1, 2, EdgeKind::FallThrough),
                (
                    1,
                    2,
                    EdgeKind::Exception {
                        catch_type: Some("T3".into())
                    }
                ),
                (
                    2,
                    2,
                    EdgeKind::Exception {
                        catch_type: Some("T3".into())
                    }
                ),
            ]
        );
    }

    #[test]
    fn duplicate_rows_give_one_edge() {
        let body = [NOP, RETURN, ASTORE_0, RETURN];
        let cfg = build(&body, &[(0, 2, 2, 0), (0, 1, 2, 0), (1, 2, 2, 5)]).unwrap();
        assert_eq!(
            edges(&cfg),
            [
                (0, 1, EdgeKind::FallThrough),
                (0, 2, EdgeKind::Exception { catch_type: None }),
                (1, 2, EdgeKind::Exception { catch_type: None }),
                (
                    1,
                    2,
                    EdgeKind::Exception {
                        catch_type: Some("T5".into())
                    }
                ),
            ]
        );
    }

    #[test]
    fn jsr_and_ret_are_conservative() {
        // 0: jsr 8 | 3: jsr 8 | 6: nop | 7: return | 8: astore_1 | 9: ret 1
        let body = [JSR, 0, 8, JSR, 0, 5, NOP, RETURN, ASTORE_1, RET, 1];
        let cfg = build(&body, &[]).unwrap();
        let starts: Vec<u32> = cfg.blocks().iter().map(|b| b.start).collect();
        assert_eq!(starts, [0, 3, 6, 8]);
        // The `ret` may return after either `jsr`.
        assert_eq!(
            edges(&cfg),
            [
                (0, 3, EdgeKind::Jsr),
                (1, 3, EdgeKind::Jsr),
                (3, 1, EdgeKind::Ret),
                (3, 2, EdgeKind::Ret),
            ]
        );
    }

    #[test]
    fn unreachable_blocks_are_kept_and_dominate_nothing() {
        // 0: goto 4 | 3: return (dead) | 4: return
        let cfg = build(&[GOTO, 0, 4, RETURN, RETURN], &[]).unwrap();
        assert_eq!(cfg.len(), 3);
        let dominators = Dominators::compute(&cfg);
        assert!(!dominators.is_reachable(BlockId(1)));
        assert!(!dominators.dominates(BlockId(1), BlockId(1)));
        assert_eq!(dominators.dominators(BlockId(1)).count(), 0);
        assert_eq!(dominators.immediate_dominator(BlockId(2)), Some(BlockId(0)));
        assert_eq!(dominators.reverse_postorder(), [BlockId(0), BlockId(2)]);
    }

    #[test]
    fn an_irreducible_cycle_is_no_loop() {
        // 0: iload_0 ifeq 8 | 4: nop goto 8 | 8: nop goto 4: the cycle
        // between 4 and 8 can be entered at either.
        #[rustfmt::skip]
        let body = [ILOAD_0, IFEQ, 0, 7, NOP, GOTO, 0, 3, NOP, GOTO, 0xff, 0xfb];
        let cfg = build(&body, &[]).unwrap();
        assert_eq!(cfg.len(), 3);
        let dominators = Dominators::compute(&cfg);
        assert_eq!(dominators.immediate_dominator(BlockId(1)), Some(BlockId(0)));
        assert_eq!(dominators.immediate_dominator(BlockId(2)), Some(BlockId(0)));
        assert!(Loops::compute(&cfg, &dominators).is_empty());
    }
}
