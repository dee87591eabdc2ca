//! Dominators of a [`Cfg`] from its entry, by the iterative algorithm of
//! Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001).
//!
//! Block `a` dominates block `b` when every path from the entry to `b`
//! passes through `a`. All edges count, exception edges included: a handler
//! is reached from the blocks its range covers. Unreachable blocks have no
//! dominators and dominate nothing.

use crate::cfg::{BlockId, Cfg};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dominators {
    /// Immediate dominator per block; `None` for the entry and for
    /// unreachable blocks.
    idom: Vec<Option<BlockId>>,
    /// Reachable blocks in reverse postorder, entry first.
    reverse_postorder: Vec<BlockId>,
    /// Pre- and postorder numbers in the dominator tree (`u32::MAX` when
    /// unreachable): `a` dominates `b` iff `b`'s interval nests in `a`'s,
    /// which answers [`Dominators::dominates`] in constant time.
    preorder: Vec<u32>,
    postorder: Vec<u32>,
}

const UNREACHED: u32 = u32::MAX;

/// A directed graph for the algorithm: node `i`'s successors and
/// predecessors, and where paths start. Nodes are [`BlockId`]s; the
/// post-dominator graph adds one past the blocks (the exit).
pub(crate) struct Graph {
    pub entry: BlockId,
    pub successors: Vec<Vec<BlockId>>,
    pub predecessors: Vec<Vec<BlockId>>,
}

impl Graph {
    fn of_cfg(cfg: &Cfg) -> Graph {
        let mut graph = Graph {
            entry: cfg.entry(),
            successors: vec![Vec::new(); cfg.len()],
            predecessors: vec![Vec::new(); cfg.len()],
        };
        for block in cfg.blocks() {
            for &edge in block.successors() {
                let to = cfg.edge(edge).to;
                graph.successors[block.id.index()].push(to);
                graph.predecessors[to.index()].push(block.id);
            }
        }
        graph
    }
}

impl Dominators {
    pub fn compute(cfg: &Cfg) -> Dominators {
        Dominators::of_graph(&Graph::of_cfg(cfg))
    }

    pub(crate) fn of_graph(graph: &Graph) -> Dominators {
        let count = graph.successors.len();
        let reverse_postorder = reverse_postorder(graph);
        let mut rank = vec![UNREACHED; count];
        for (position, block) in reverse_postorder.iter().enumerate() {
            rank[block.index()] = position as u32;
        }

        // The algorithm's working form: the entry is its own dominator.
        let entry = graph.entry;
        let mut idom: Vec<Option<BlockId>> = vec![None; count];
        idom[entry.index()] = Some(entry);
        let intersect = |idom: &[Option<BlockId>], mut a: BlockId, mut b: BlockId| {
            while a != b {
                while rank[a.index()] > rank[b.index()] {
                    a = idom[a.index()].expect("processed blocks have a dominator");
                }
                while rank[b.index()] > rank[a.index()] {
                    b = idom[b.index()].expect("processed blocks have a dominator");
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &block in &reverse_postorder[1..] {
                // Predecessors not processed yet (or unreachable) are skipped;
                // one in reverse postorder before `block` always exists.
                let mut new_idom = None;
                for &from in &graph.predecessors[block.index()] {
                    if idom[from.index()].is_none() {
                        continue;
                    }
                    new_idom = Some(match new_idom {
                        None => from,
                        Some(current) => intersect(&idom, from, current),
                    });
                }
                if new_idom.is_some() && idom[block.index()] != new_idom {
                    idom[block.index()] = new_idom;
                    changed = true;
                }
            }
        }
        idom[entry.index()] = None;

        let (preorder, postorder) = number_tree(count, &idom, entry);
        Dominators {
            idom,
            reverse_postorder,
            preorder,
            postorder,
        }
    }

    /// The closest strict dominator of `block`; `None` for the entry and for
    /// unreachable blocks.
    pub fn immediate_dominator(&self, block: BlockId) -> Option<BlockId> {
        self.idom[block.index()]
    }

    pub fn is_reachable(&self, block: BlockId) -> bool {
        self.preorder[block.index()] != UNREACHED
    }

    /// Whether every path from the entry to `b` passes through `a`. Every
    /// reachable block dominates itself; unreachable blocks take no part.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.is_reachable(a)
            && self.is_reachable(b)
            && self.preorder[a.index()] <= self.preorder[b.index()]
            && self.postorder[b.index()] <= self.postorder[a.index()]
    }

    /// `block` and its dominators, from `block` up to the entry; empty for
    /// an unreachable block.
    pub fn dominators(&self, block: BlockId) -> impl Iterator<Item = BlockId> + '_ {
        let first = self.is_reachable(block).then_some(block);
        std::iter::successors(first, |&b| self.idom[b.index()])
    }

    /// Reachable blocks in reverse postorder (a topological order once back
    /// edges are removed), entry first.
    pub fn reverse_postorder(&self) -> &[BlockId] {
        &self.reverse_postorder
    }
}

/// Depth-first from the entry, following successors in edge order; an
/// explicit stack, since methods can have tens of thousands of blocks.
fn reverse_postorder(graph: &Graph) -> Vec<BlockId> {
    let count = graph.successors.len();
    let mut visited = vec![false; count];
    let mut postorder = Vec::with_capacity(count);
    // (block, index of the next successor to look at)
    let mut stack = vec![(graph.entry, 0usize)];
    visited[graph.entry.index()] = true;
    while let Some((block, next)) = stack.last_mut() {
        if let Some(&to) = graph.successors[block.index()].get(*next) {
            *next += 1;
            if !visited[to.index()] {
                visited[to.index()] = true;
                stack.push((to, 0));
            }
        } else {
            postorder.push(*block);
            stack.pop();
        }
    }
    postorder.reverse();
    postorder
}

/// Pre- and postorder numbers of each block in the dominator tree.
fn number_tree(count: usize, idom: &[Option<BlockId>], entry: BlockId) -> (Vec<u32>, Vec<u32>) {
    let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); count];
    for (index, parent) in idom.iter().enumerate() {
        if let Some(parent) = parent {
            children[parent.index()].push(BlockId(index as u32));
        }
    }
    let mut preorder = vec![UNREACHED; count];
    let mut postorder = vec![UNREACHED; count];
    let (mut pre, mut post) = (0, 0);
    let mut stack = vec![(entry, 0usize)];
    preorder[entry.index()] = pre;
    pre += 1;
    while let Some((block, next)) = stack.last_mut() {
        if let Some(&child) = children[block.index()].get(*next) {
            *next += 1;
            preorder[child.index()] = pre;
            pre += 1;
            stack.push((child, 0));
        } else {
            postorder[block.index()] = post;
            post += 1;
            stack.pop();
        }
    }
    (preorder, postorder)
}
