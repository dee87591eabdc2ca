//! Control-flow graphs, dominators and loops of javac 17 output
//! (`fixtures/analysis`). The expected blocks and edges were worked out by
//! hand from `javap -c -p`; the bytecode is quoted where it matters.

mod support;

use testgen_analysis::{BlockId, Cfg, Dominators, EdgeKind, Loops};
use testgen_classfile::ClassFile;

use EdgeKind::*;

struct Analysed {
    cfg: Cfg,
    dominators: Dominators,
    loops: Loops,
}

fn analyse(class: &str, method: &str) -> Analysed {
    let class = ClassFile::parse(support::fixture(class)).unwrap();
    let method = support::method(&class, method);
    let cfg = Cfg::of_method(&class, method).unwrap().unwrap();
    let dominators = Dominators::compute(&cfg);
    let loops = Loops::compute(&cfg, &dominators);
    Analysed {
        cfg,
        dominators,
        loops,
    }
}

/// Block start offsets, in block order.
fn starts(cfg: &Cfg) -> Vec<u32> {
    cfg.blocks().iter().map(|block| block.start).collect()
}

/// Every edge as (from, to, kind) with block numbers.
fn edges(cfg: &Cfg) -> Vec<(u32, u32, EdgeKind)> {
    cfg.edges()
        .iter()
        .map(|edge| (edge.from.0, edge.to.0, edge.kind.clone()))
        .collect()
}

fn ids(blocks: &[BlockId]) -> Vec<u32> {
    blocks.iter().map(|block| block.0).collect()
}

fn catching(name: &str) -> EdgeKind {
    Exception {
        catch_type: Some(name.to_owned()),
    }
}

const ANY: EdgeKind = Exception { catch_type: None };

#[test]
fn a_for_loop() {
    // 0: iconst_0 istore_1 iconst_0 istore_2
    // 4: iload_2 iload_0 if_icmpge 19
    // 9: iload_1 iload_2 iadd istore_1 iinc 2,1 goto 4
    // 19: iload_1 ireturn
    let Analysed {
        cfg,
        dominators,
        loops,
    } = analyse("fixtures/analysis/Loops", "sum");
    assert_eq!(starts(&cfg), [0, 4, 9, 19]);
    assert_eq!(cfg.block(BlockId(1)).instructions, [4, 5, 6]);
    assert_eq!(cfg.block(BlockId(1)).end, 9);
    assert_eq!(
        edges(&cfg),
        [
            (0, 1, FallThrough),
            (1, 3, BranchTaken),
            (1, 2, BranchNotTaken),
            (2, 1, Goto),
        ]
    );
    let predecessors: Vec<u32> = cfg.predecessors(BlockId(1)).map(|e| e.from.0).collect();
    assert_eq!(predecessors, [0, 2]);

    assert_eq!(dominators.immediate_dominator(BlockId(0)), None);
    assert_eq!(dominators.immediate_dominator(BlockId(2)), Some(BlockId(1)));
    assert_eq!(dominators.immediate_dominator(BlockId(3)), Some(BlockId(1)));
    assert!(dominators.dominates(BlockId(1), BlockId(2)));
    assert!(!dominators.dominates(BlockId(2), BlockId(3)));

    assert_eq!(loops.len(), 1);
    let only = &loops.loops()[0];
    assert_eq!(only.header, BlockId(1));
    assert_eq!(ids(&only.body), [1, 2]);
    assert_eq!(only.back_edges.len(), 1);
    assert!(loops.is_back_edge(only.back_edges[0]));
    assert_eq!(cfg.edge(only.back_edges[0]).from, BlockId(2));
    // The loop test is the only way out.
    let exits = loops.exit_branches(&cfg);
    assert_eq!(exits.len(), 1);
    assert_eq!(exits[0].block, BlockId(1));
    assert_eq!(cfg.edge(exits[0].edge).kind, BranchTaken);
}

#[test]
fn nested_loops_have_nested_headers() {
    // Outer test at 4, inner test at 12, inner increment and back edge at
    // 28..31, outer increment and back edge at 34..37.
    let Analysed {
        cfg,
        dominators,
        loops,
    } = analyse("fixtures/analysis/Loops", "nested");
    assert_eq!(starts(&cfg), [0, 4, 10, 12, 20, 34, 40]);
    let headers: Vec<u32> = loops.loops().iter().map(|l| l.header.0).collect();
    assert_eq!(headers, [1, 3]);
    let (outer, inner) = (&loops.loops()[0], &loops.loops()[1]);
    assert_eq!(ids(&outer.body), [1, 2, 3, 4, 5]);
    assert_eq!(ids(&inner.body), [3, 4]);
    assert_eq!((outer.parent, outer.depth), (None, 1));
    assert_eq!((inner.parent, inner.depth), (Some(outer.id), 2));
    assert_eq!(loops.innermost(BlockId(4)), Some(inner.id));
    assert_eq!(loops.innermost(BlockId(5)), Some(outer.id));
    assert_eq!(loops.innermost(BlockId(6)), None);
    assert!(dominators.dominates(BlockId(1), BlockId(3)));
    let chain: Vec<u32> = dominators.dominators(BlockId(4)).map(|b| b.0).collect();
    assert_eq!(chain, [4, 3, 2, 1, 0]);
}

#[test]
fn a_do_while_loop_is_a_self_loop_on_its_body() {
    // 0: iconst_0 istore_1 | 2: iload_0 iconst_2 idiv istore_0 iinc 1,1
    // iload_0 ifgt 2 | 13: iload_1 ireturn
    let Analysed { cfg, loops, .. } = analyse("fixtures/analysis/Loops", "halvings");
    assert_eq!(starts(&cfg), [0, 2, 13]);
    assert_eq!(
        edges(&cfg),
        [
            (0, 1, FallThrough),
            (1, 1, BranchTaken),
            (1, 2, BranchNotTaken)
        ]
    );
    let only = &loops.loops()[0];
    assert_eq!((only.header, ids(&only.body)), (BlockId(1), vec![1]));
    let exit = loops.exit_branches(&cfg);
    assert_eq!(cfg.edge(exit[0].edge).kind, BranchNotTaken);
}

#[test]
fn labelled_break_and_continue_leave_the_inner_loop() {
    // 4: outer test (if_icmpge 62)   13: inner test (if_icmpge 56)
    // 22: if (grid[i][j] < 0) ... ifge 34 | 31: goto 56 (continue outer)
    // 34: if (... == wanted) if_icmpne 47 | 44: goto 62 (break outer)
    // 47: seen++, j++, goto 13 | 56: i++, goto 4 | 62: return
    let Analysed { cfg, loops, .. } = analyse("fixtures/analysis/Loops", "labelled");
    assert_eq!(starts(&cfg), [0, 4, 10, 13, 22, 31, 34, 44, 47, 56, 62]);
    let (outer, inner) = (&loops.loops()[0], &loops.loops()[1]);
    assert_eq!((outer.header, inner.header), (BlockId(1), BlockId(3)));
    // `break outer` (block 7) leads out of both loops, so it is in neither;
    // `continue outer` (block 5) leads only out of the inner one.
    assert_eq!(ids(&outer.body), [1, 2, 3, 4, 5, 6, 8, 9]);
    assert_eq!(ids(&inner.body), [3, 4, 6, 8]);

    let inner_exits: Vec<(u32, u32, EdgeKind)> = inner
        .conditional_exits(&cfg)
        .map(|edge| {
            let edge = cfg.edge(edge);
            (edge.from.0, edge.to.0, edge.kind.clone())
        })
        .collect();
    assert_eq!(
        inner_exits,
        [
            (3, 9, BranchTaken),
            (4, 5, BranchNotTaken),
            (6, 7, BranchNotTaken)
        ]
    );
    // The test before `break outer` leaves both loops at once.
    let outer_exits: Vec<(u32, u32, EdgeKind)> = outer
        .exits
        .iter()
        .map(|&edge| {
            let edge = cfg.edge(edge);
            (edge.from.0, edge.to.0, edge.kind.clone())
        })
        .collect();
    assert_eq!(outer_exits, [(1, 10, BranchTaken), (6, 7, BranchNotTaken)]);
    assert_eq!(loops.exit_branches(&cfg).len(), 5);
}

#[test]
fn a_while_true_loop_exits_by_return() {
    let Analysed { cfg, loops, .. } = analyse("fixtures/analysis/Loops", "untilTen");
    assert_eq!(starts(&cfg), [0, 2, 11]);
    let only = &loops.loops()[0];
    assert_eq!(ids(&only.body), [1]);
    assert_eq!(only.exits.len(), 1);
}

#[test]
fn try_catch_splits_blocks_at_the_range_ends() {
    // 0: aload_0 invokestatic parseInt | 4: ireturn | 5: astore_1 iconst_m1
    // ireturn; handler 5 covers 0..4 for NumberFormatException.
    let Analysed {
        cfg, dominators, ..
    } = analyse("fixtures/analysis/Exceptions", "parse");
    assert_eq!(starts(&cfg), [0, 4, 5]);
    assert_eq!(
        edges(&cfg),
        [
            (0, 1, FallThrough),
            (0, 2, catching("java/lang/NumberFormatException")),
        ]
    );
    assert!(cfg.edges()[1].kind.is_exception());
    assert_eq!(dominators.immediate_dominator(BlockId(2)), Some(BlockId(0)));
}

#[test]
fn multi_catch_and_finally() {
    // Exception table:   0  4 15 AIOOBE | 0 4 15 NPE | 0 4 29 any
    //                   15 18 29 any    | 29 31 29 any
    // 0: body | 4: finally copy, goto 42 | 15: catch | 18: finally copy,
    // goto 42 | 29: astore 4 | 31: finally copy, athrow | 42: return result
    let Analysed { cfg, loops, .. } = analyse("fixtures/analysis/Exceptions", "element");
    assert_eq!(starts(&cfg), [0, 4, 15, 18, 29, 31, 42]);
    assert_eq!(
        edges(&cfg),
        [
            (0, 1, FallThrough),
            (0, 2, catching("java/lang/ArrayIndexOutOfBoundsException")),
            (0, 2, catching("java/lang/NullPointerException")),
            (0, 4, ANY),
            (1, 6, Goto),
            (2, 3, FallThrough),
            (2, 4, ANY),
            (3, 6, Goto),
            (4, 5, FallThrough),
            (4, 4, ANY),
        ]
    );
    // javac's `any` row covering its own handler's first instruction makes
    // a one-block loop.
    assert_eq!(loops.len(), 1);
    assert_eq!(loops.loops()[0].header, BlockId(4));
    assert!(loops.exit_branches(&cfg).is_empty());
}

#[test]
fn a_handler_inside_a_loop_belongs_to_it() {
    // 10: loop test | 22..30: try | 30: goto 38 | 33: catch | 38: i++ goto 10
    let Analysed { cfg, loops, .. } = analyse("fixtures/analysis/Exceptions", "parseAll");
    assert_eq!(starts(&cfg), [0, 10, 16, 22, 30, 33, 38, 44]);
    assert_eq!(loops.len(), 1);
    assert_eq!(ids(&loops.loops()[0].body), [1, 2, 3, 4, 5, 6]);
    let handler = cfg.block_starting_at(33).unwrap();
    let into_handler: Vec<EdgeKind> = cfg.predecessors(handler).map(|e| e.kind.clone()).collect();
    assert_eq!(into_handler, [catching("java/lang/NumberFormatException")]);
}

#[test]
fn table_and_lookup_switches() {
    // tableswitch 1..3 -> 28, 31, 34, default 37
    let Analysed { cfg, .. } = analyse("fixtures/analysis/Switches", "dense");
    assert_eq!(starts(&cfg), [0, 28, 31, 34, 37]);
    assert_eq!(
        edges(&cfg),
        [
            (0, 1, SwitchCase(1)),
            (0, 2, SwitchCase(2)),
            (0, 3, SwitchCase(3)),
            (0, 4, SwitchDefault),
        ]
    );

    // lookupswitch -5 -> 40, 10 -> 36, 1000 -> 38, default 42
    let Analysed { cfg, .. } = analyse("fixtures/analysis/Switches", "sparse");
    assert_eq!(starts(&cfg), [0, 36, 38, 40, 42]);
    assert_eq!(
        edges(&cfg),
        [
            (0, 3, SwitchCase(-5)),
            (0, 1, SwitchCase(10)),
            (0, 2, SwitchCase(1000)),
            (0, 4, SwitchDefault),
        ]
    );
}

#[test]
fn string_and_enum_switches() {
    // hashCode lookupswitch 97 -> 36, 98 -> 50, default 61; equals tests;
    // then a lookupswitch on the case index at 62.
    let Analysed { cfg, .. } = analyse("fixtures/analysis/Switches", "ofString");
    assert_eq!(starts(&cfg), [0, 36, 45, 50, 59, 61, 88, 90, 92]);
    let from_entry: Vec<(u32, EdgeKind)> = cfg
        .successors(cfg.entry())
        .map(|e| (e.to.0, e.kind.clone()))
        .collect();
    assert_eq!(
        from_entry,
        [(1, SwitchCase(97)), (3, SwitchCase(98)), (5, SwitchDefault)]
    );
    // The join before the second switch: the default, both failed equals
    // tests, the goto after case "a" and the fall-through after case "b".
    let into_join: Vec<(u32, EdgeKind)> = cfg
        .predecessors(BlockId(5))
        .map(|e| (e.from.0, e.kind.clone()))
        .collect();
    assert_eq!(
        into_join,
        [
            (0, SwitchDefault),
            (1, BranchTaken),
            (2, Goto),
            (3, BranchTaken),
            (4, FallThrough)
        ]
    );

    // switch map lookup, then lookupswitch 1 -> 36, 2 -> 38, default 40
    let Analysed { cfg, .. } = analyse("fixtures/analysis/Switches", "ofEnum");
    assert_eq!(starts(&cfg), [0, 36, 38, 40]);
    assert_eq!(cfg.successors(cfg.entry()).count(), 3);
}

#[test]
fn lookups_by_offset() {
    let Analysed { cfg, .. } = analyse("fixtures/analysis/Loops", "sum");
    assert_eq!(cfg.block_starting_at(9), Some(BlockId(2)));
    assert_eq!(cfg.block_starting_at(10), None);
    assert_eq!(cfg.block_containing(14), Some(BlockId(2)));
    assert_eq!(cfg.block_containing(20), Some(BlockId(3)));
    assert_eq!(cfg.block_containing(21), None);
    assert!(cfg.block(BlockId(2)).contains_instruction(13));
    assert!(!cfg.block(BlockId(2)).contains_instruction(14));
}

#[test]
fn abstract_methods_have_no_graph() {
    let class = ClassFile::parse(support::fixture("fixtures/analysis/Shape")).unwrap();
    let area = support::method(&class, "area");
    assert_eq!(Cfg::of_method(&class, area).unwrap(), None);
}
