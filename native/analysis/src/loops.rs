//! Natural loops of a [`Cfg`].
//!
//! A *back edge* is an edge whose target dominates its source; the target is
//! a loop *header*. The natural loop of a back edge `t -> h` is `h` plus
//! every block that reaches `t` without passing through `h`. Back edges that
//! share a header make one loop (javac emits a `continue` as a second back
//! edge to the same header). In a reducible graph, which is all javac
//! produces, two loops are then either nested or disjoint.
//!
//! Not recognised: cycles entered at more than one block (irreducible
//! control flow, possible in obfuscated or hand-written bytecode). Their
//! retreating edges go to blocks that do not dominate them, so they are
//! not back edges and form no loop.

use crate::cfg::{BlockId, Cfg, EdgeId};
use crate::dominators::Dominators;

/// A loop's index in [`Loops::loops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopId(pub u32);

impl LoopId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub id: LoopId,
    pub header: BlockId,
    /// The edges back to the header, ascending.
    pub back_edges: Vec<EdgeId>,
    /// Every block of the loop, header included, ascending.
    pub body: Vec<BlockId>,
    /// Edges from a block of the loop to a block outside it, ascending.
    /// Exception edges to a handler outside the loop count.
    pub exits: Vec<EdgeId>,
    /// The closest enclosing loop.
    pub parent: Option<LoopId>,
    /// 1 for an outermost loop, 2 for a loop directly inside it, ...
    pub depth: u32,
}

impl Loop {
    pub fn contains(&self, block: BlockId) -> bool {
        self.body.binary_search(&block).is_ok()
    }

    /// The exits taken by a decision on values: outcomes of conditional
    /// branches and switch cases that leave the loop (see
    /// [`crate::cfg::EdgeKind::is_conditional`]).
    pub fn conditional_exits<'c>(&'c self, cfg: &'c Cfg) -> impl Iterator<Item = EdgeId> + 'c {
        self.exits
            .iter()
            .copied()
            .filter(|&edge| cfg.edge(edge).kind.is_conditional())
    }
}

/// The natural loops of one method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loops {
    /// Ordered by header.
    loops: Vec<Loop>,
    /// The innermost loop holding each block.
    innermost: Vec<Option<LoopId>>,
    /// Whether each edge is a back edge.
    back_edge: Vec<bool>,
}

impl Loops {
    pub fn compute(cfg: &Cfg, dominators: &Dominators) -> Loops {
        let mut back_edge = vec![false; cfg.edges().len()];
        // Back edges by header; edges are visited in id order, so each list
        // comes out ascending.
        let mut by_header: Vec<Vec<EdgeId>> = vec![Vec::new(); cfg.len()];
        for (index, edge) in cfg.edges().iter().enumerate() {
            if dominators.dominates(edge.to, edge.from) {
                back_edge[index] = true;
                by_header[edge.to.index()].push(EdgeId(index as u32));
            }
        }

        let mut loops = Vec::new();
        // Reused across loops: `mark[b] == stamp` means b is in the current body.
        let mut mark = vec![0u32; cfg.len()];
        for (header, back_edges) in by_header.into_iter().enumerate() {
            if back_edges.is_empty() {
                continue;
            }
            let header = BlockId(header as u32);
            let stamp = loops.len() as u32 + 1;
            let body = natural_loop(cfg, dominators, header, &back_edges, &mut mark, stamp);
            let exits = body
                .iter()
                .flat_map(|&block| cfg.block(block).successors())
                .copied()
                .filter(|&edge| mark[cfg.edge(edge).to.index()] != stamp)
                .collect::<Vec<_>>();
            loops.push(Loop {
                id: LoopId(loops.len() as u32),
                header,
                back_edges,
                body,
                exits,
                parent: None,
                depth: 0,
            });
        }

        // Nesting. Loops are nested or disjoint, so a loop's parent is the
        // smallest other loop holding its header. Going from the largest
        // loop to the smallest, each later (smaller) loop overwrites the
        // blocks it holds, which leaves the innermost loop per block, and a
        // loop's parent is the innermost loop of its header seen so far.
        let mut by_size: Vec<usize> = (0..loops.len()).collect();
        by_size.sort_by_key(|&index| (std::cmp::Reverse(loops[index].body.len()), index));
        let mut innermost: Vec<Option<LoopId>> = vec![None; cfg.len()];
        for index in by_size {
            let parent = innermost[loops[index].header.index()];
            let depth = parent.map_or(0, |parent| loops[parent.index()].depth) + 1;
            let current = &mut loops[index];
            current.parent = parent;
            current.depth = depth;
            for &block in &current.body {
                innermost[block.index()] = Some(current.id);
            }
        }

        Loops {
            loops,
            innermost,
            back_edge,
        }
    }

    /// All loops, ordered by header (so outer loops come before the loops
    /// nested in them when javac laid them out, which it does).
    pub fn loops(&self) -> &[Loop] {
        &self.loops
    }

    pub fn get(&self, id: LoopId) -> &Loop {
        &self.loops[id.index()]
    }

    pub fn len(&self) -> usize {
        self.loops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The loop whose header is `block`, if it is one.
    pub fn with_header(&self, block: BlockId) -> Option<&Loop> {
        self.loops
            .binary_search_by_key(&block, |l| l.header)
            .ok()
            .map(|index| &self.loops[index])
    }

    /// The innermost loop that holds `block`.
    pub fn innermost(&self, block: BlockId) -> Option<LoopId> {
        self.innermost[block.index()]
    }

    pub fn is_back_edge(&self, edge: EdgeId) -> bool {
        self.back_edge[edge.index()]
    }

    /// Every decision that can leave a loop: for each loop (in order), its
    /// conditional exits (see [`Loop::conditional_exits`]). An edge that
    /// leaves several nested loops at once (a labelled `break`) is listed
    /// once per loop it leaves.
    pub fn exit_branches(&self, cfg: &Cfg) -> Vec<LoopExit> {
        self.loops
            .iter()
            .flat_map(|l| {
                l.conditional_exits(cfg).map(move |edge| LoopExit {
                    loop_id: l.id,
                    block: cfg.edge(edge).from,
                    edge,
                })
            })
            .collect()
    }
}

/// One conditional edge out of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopExit {
    pub loop_id: LoopId,
    /// The block whose branch or switch decides to leave.
    pub block: BlockId,
    pub edge: EdgeId,
}

/// The body of the loop with `header` and `back_edges`: a backward walk from
/// the back edges' sources that stops at the header. Marks the body in
/// `mark` with `stamp` and returns it sorted.
fn natural_loop(
    cfg: &Cfg,
    dominators: &Dominators,
    header: BlockId,
    back_edges: &[EdgeId],
    mark: &mut [u32],
    stamp: u32,
) -> Vec<BlockId> {
    mark[header.index()] = stamp;
    let mut body = vec![header];
    let mut work: Vec<BlockId> = Vec::new();
    for &edge in back_edges {
        let tail = cfg.edge(edge).from;
        if mark[tail.index()] != stamp {
            mark[tail.index()] = stamp;
            body.push(tail);
            work.push(tail);
        }
    }
    while let Some(block) = work.pop() {
        for edge in cfg.predecessors(block) {
            let from = edge.from;
            // Unreachable blocks may jump into a loop but are not part of it.
            if mark[from.index()] != stamp && dominators.is_reachable(from) {
                mark[from.index()] = stamp;
                body.push(from);
                work.push(from);
            }
        }
    }
    body.sort_unstable();
    body
}
