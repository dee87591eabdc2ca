//! Control dependence: which branch outcomes decide whether a block runs
//! (Ferrante, Ottenstein and Warren, 1987), from post-dominators.
//!
//! Block `b` is control dependent on the conditional edge `a -> s` when
//! taking that edge makes `b` certain to run on the way out (`b`
//! post-dominates `s`) while another edge out of `a` can avoid it (`b` does
//! not strictly post-dominate `a`). A search for an uncovered branch
//! outcome starts where it depends on: the approach level of DynaMOSA and
//! the goals it keeps active are read off this relation.
//!
//! Exception edges are left out: an implicit exception is no decision a
//! test steers (and with them every block would depend on every call). The
//! blocks that end a method (a return, a throw) lead to one exit node; a
//! block from which no path leaves the method (an endless loop) has no
//! post-dominators and depends on the edges that lead into it only.

use crate::cfg::{BlockId, Cfg, EdgeId};
use crate::dominators::{Dominators, Graph};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlDependence {
    /// Per block: the conditional edges it is control dependent on, in
    /// edge id order.
    depends_on: Vec<Vec<EdgeId>>,
}

impl ControlDependence {
    pub fn compute(cfg: &Cfg) -> ControlDependence {
        let post = post_dominators(cfg);
        let mut depends_on: Vec<Vec<EdgeId>> = vec![Vec::new(); cfg.len()];
        for (index, edge) in cfg.edges().iter().enumerate() {
            if !edge.kind.is_conditional() {
                continue;
            }
            // From the edge's target up the post-dominator tree, until the
            // branch's own post-dominator: every block on the way runs
            // because this edge was taken.
            let stop = post.immediate_dominator(edge.from);
            let mut next = Some(edge.to);
            while let Some(block) = next {
                if Some(block) == stop || block.index() >= cfg.len() {
                    break;
                }
                let edges = &mut depends_on[block.index()];
                let id = EdgeId(index as u32);
                if !edges.contains(&id) {
                    edges.push(id);
                }
                next = post.immediate_dominator(block);
            }
        }
        ControlDependence { depends_on }
    }

    /// The conditional edges whose outcome decides whether `block` runs;
    /// empty for a block that runs whenever its method does.
    pub fn of(&self, block: BlockId) -> &[EdgeId] {
        &self.depends_on[block.index()]
    }
}

/// Post-dominators: dominators of the reversed graph, from an exit node
/// (`BlockId(cfg.len())`) that every block ending the method leads to.
fn post_dominators(cfg: &Cfg) -> Dominators {
    let exit = BlockId(cfg.len() as u32);
    let count = cfg.len() + 1;
    let mut graph = Graph {
        entry: exit,
        successors: vec![Vec::new(); count],
        predecessors: vec![Vec::new(); count],
    };
    for block in cfg.blocks() {
        let normal: Vec<BlockId> = block
            .successors()
            .iter()
            .map(|&edge| cfg.edge(edge))
            .filter(|edge| !edge.kind.is_exception())
            .map(|edge| edge.to)
            .collect();
        let targets = if normal.is_empty() {
            vec![exit]
        } else {
            normal
        };
        for to in targets {
            // Reversed: `to` leads back to `block`.
            graph.successors[to.index()].push(block.id);
            graph.predecessors[block.id.index()].push(to);
        }
    }
    Dominators::of_graph(&graph)
}

#[cfg(test)]
mod tests {
    use testgen_classfile::instruction::opcode::*;
    use testgen_classfile::Code;

    use super::*;
    use crate::cfg::EdgeKind;

    /// Per block (by start offset), the edges it depends on as (offset of
    /// the deciding branch, which way).
    fn dependences(bytecode: &[u8]) -> Vec<(u32, Vec<(u32, EdgeKind)>)> {
        let code = Code {
            max_stack: 4,
            max_locals: 4,
            bytecode,
            bytecode_offset: 0,
            exception_table: Vec::new(),
            attributes: Vec::new(),
        };
        let cfg = Cfg::build_with(&code, &|_| Ok(None)).expect("well-formed");
        let control = ControlDependence::compute(&cfg);
        cfg.blocks()
            .iter()
            .map(|block| {
                let on = control
                    .of(block.id)
                    .iter()
                    .map(|&edge| {
                        let edge = cfg.edge(edge);
                        (cfg.block(edge.from).last_instruction(), edge.kind.clone())
                    })
                    .collect();
                (block.start, on)
            })
            .collect()
    }

    #[test]
    fn each_arm_of_an_if_depends_on_its_outcome_and_the_join_on_nothing() {
        #[rustfmt::skip]
        let code = [
            ILOAD_0,          // 0
            IFEQ, 0, 7,       // 1: -> 8
            ICONST_1,         // 4
            GOTO, 0, 4,       // 5: -> 9
            ICONST_0,         // 8
            IRETURN,          // 9
        ];
        assert_eq!(
            dependences(&code),
            [
                (0, vec![]),
                (4, vec![(1, EdgeKind::BranchNotTaken)]),
                (8, vec![(1, EdgeKind::BranchTaken)]),
                (9, vec![]),
            ]
        );
    }

    #[test]
    fn a_nested_if_depends_on_the_inner_branch_only_and_a_loop_body_on_its_test() {
        #[rustfmt::skip]
        let nested = [
            ILOAD_0,          // 0
            IFEQ, 0, 10,      // 1: -> 11
            ILOAD_1,          // 4
            IFEQ, 0, 6,       // 5: -> 11
            ICONST_1,         // 8
            IRETURN,          // 9
            NOP,              // 10 (unreached)
            ICONST_0,         // 11
            IRETURN,          // 12
        ];
        let blocks = dependences(&nested);
        assert_eq!(blocks[1], (4, vec![(1, EdgeKind::BranchNotTaken)]));
        assert_eq!(blocks[2], (8, vec![(5, EdgeKind::BranchNotTaken)]));
        // `return 0` runs when either test fails.
        let last = blocks.last().unwrap();
        assert_eq!(
            last,
            &(
                11,
                vec![(1, EdgeKind::BranchTaken), (5, EdgeKind::BranchTaken)]
            )
        );

        #[rustfmt::skip]
        let loop_ = [
            ILOAD_0,          // 0: while (x > 0)
            IFLE, 0, 9,       // 1: -> 10
            IINC, 0, 0xff,    // 4: x--
            GOTO, 0xff, 0xf9, // 7: -> 0
            RETURN,           // 10
        ];
        let blocks = dependences(&loop_);
        // The test itself runs again because its body ran: it depends on
        // its own outcome, as every loop header does.
        assert_eq!(blocks[0], (0, vec![(1, EdgeKind::BranchNotTaken)]));
        assert_eq!(blocks[1], (4, vec![(1, EdgeKind::BranchNotTaken)]));
        assert_eq!(blocks[2], (10, vec![]));
    }
}
