//! Robustness on real libraries: every method of commons-collections4,
//! commons-codec and guava gets a control-flow graph, dominators and loops,
//! every class its field and call facts, every jar a hierarchy, with no
//! error. Structural invariants are checked along the way; the figures are
//! printed (`--show-output`).

mod support;

use std::path::Path;

use testgen_analysis::{Cfg, ClassAccess, Dominators, Hierarchy, Loops};
use testgen_classfile::ClassFile;

const JARS: [&str; 3] = [
    "/usr/share/java/commons-collections4.jar",
    "/usr/share/java/commons-codec.jar",
    "/usr/share/java/guava.jar",
];

#[derive(Default)]
struct Figures {
    classes: usize,
    methods: usize,
    blocks: usize,
    edges: usize,
    unreachable_blocks: usize,
    loops: usize,
    deepest_loop: u32,
    largest_method_blocks: usize,
}

#[test]
fn every_method_of_three_libraries() {
    let mut errors = Vec::new();
    let mut total = Figures::default();
    for jar in JARS {
        let classes =
            support::jar_classes(Path::new(jar)).expect("setup installs the commons jars");
        let mut figures = Figures::default();
        let mut parsed = Vec::new();
        for (entry, bytes) in &classes {
            let class = match ClassFile::parse(bytes) {
                Ok(class) => class,
                Err(error) => {
                    errors.push(format!("{jar}!{entry}: {error}"));
                    continue;
                }
            };
            figures.classes += 1;
            if let Err(error) = analyse_class(&class, &mut figures) {
                errors.push(format!("{jar}!{entry}: {error}"));
            }
            parsed.push(class);
        }
        match Hierarchy::new(&parsed) {
            Ok(hierarchy) => {
                // Every known type is reachable from Object's subtypes.
                assert!(hierarchy.subtypes("java/lang/Object").len() + 1 >= hierarchy.len());
            }
            Err(error) => errors.push(format!("{jar}: hierarchy: {error}")),
        }
        println!(
            "{jar}: {} classes, {} methods with code, {} blocks ({} unreachable), {} edges, \
             {} loops (deepest nesting {}), largest method {} blocks",
            figures.classes,
            figures.methods,
            figures.blocks,
            figures.unreachable_blocks,
            figures.edges,
            figures.loops,
            figures.deepest_loop,
            figures.largest_method_blocks
        );
        total.classes += figures.classes;
        total.methods += figures.methods;
        total.blocks += figures.blocks;
        total.edges += figures.edges;
        total.loops += figures.loops;
    }
    println!(
        "total: {} classes, {} methods, {} blocks, {} edges, {} loops",
        total.classes, total.methods, total.blocks, total.edges, total.loops
    );
    assert!(
        errors.is_empty(),
        "{} errors:\n{}",
        errors.len(),
        errors.join("\n")
    );
    assert!(total.methods > 20_000, "{} methods", total.methods);
}

fn analyse_class(class: &ClassFile<'_>, figures: &mut Figures) -> testgen_analysis::Result<()> {
    ClassAccess::of(class)?;
    for method in &class.methods {
        let Some(cfg) = Cfg::of_method(class, method)? else {
            continue;
        };
        let dominators = Dominators::compute(&cfg);
        let loops = Loops::compute(&cfg, &dominators);
        check_invariants(&cfg, &dominators, &loops);
        figures.methods += 1;
        figures.blocks += cfg.len();
        figures.edges += cfg.edges().len();
        figures.unreachable_blocks += cfg
            .blocks()
            .iter()
            .filter(|block| !dominators.is_reachable(block.id))
            .count();
        figures.loops += loops.len();
        let deepest = loops.loops().iter().map(|l| l.depth).max().unwrap_or(0);
        figures.deepest_loop = figures.deepest_loop.max(deepest);
        figures.largest_method_blocks = figures.largest_method_blocks.max(cfg.len());
    }
    Ok(())
}

fn check_invariants(cfg: &Cfg, dominators: &Dominators, loops: &Loops) {
    let mut previous_end = 0;
    for block in cfg.blocks() {
        assert_eq!(block.start, previous_end, "blocks tile the code");
        previous_end = block.end;
        for &edge in block.successors() {
            assert_eq!(cfg.edge(edge).from, block.id);
        }
        if dominators.is_reachable(block.id) && block.id != cfg.entry() {
            let idom = dominators.immediate_dominator(block.id).unwrap();
            assert!(dominators.dominates(idom, block.id));
            assert!(!dominators.dominates(block.id, idom));
        }
    }
    assert_eq!(previous_end, cfg.code_length());
    for l in loops.loops() {
        assert!(l.contains(l.header));
        for &edge in &l.back_edges {
            assert!(l.contains(cfg.edge(edge).from));
            assert!(loops.is_back_edge(edge));
        }
        for &block in &l.body {
            assert!(dominators.dominates(l.header, block));
        }
        if let Some(parent) = l.parent {
            let parent = loops.get(parent);
            assert!(l.body.iter().all(|&b| parent.contains(b)));
            assert_eq!(parent.depth + 1, l.depth);
        }
    }
}
