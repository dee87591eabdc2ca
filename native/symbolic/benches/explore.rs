//! Exploration figures (a benchmark prints, it asserts nothing): paths per
//! second, the solver's share of the time and how often a run took the
//! path the solver predicted, on fixtures/explore and on a sample of
//! commons-codec (Debian's jar).
//!
//! `cargo bench -p testgen_symbolic --bench explore`

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use testgen_classfile::AccessFlags;
use testgen_construct::Recipes;
use testgen_project::MethodId;
use testgen_symbolic::explore::{explore, ExploreOptions};

#[derive(Default)]
struct Totals {
    methods: usize,
    runs: usize,
    paths: usize,
    predicted: usize,
    agreed: usize,
    solver: f64,
    queries: usize,
    reached: usize,
    infeasible: usize,
    failed: usize,
}

/// Explores every `stride`-th public method (in class and member order)
/// with `options`, and prints the figures.
fn corpus(name: &str, fixture: &support::Fixture, options: ExploreOptions, stride: usize) {
    let program = fixture.program();
    let recipes = Recipes::new(&program);
    let mut executor = fixture.executor();
    let mut methods = Vec::new();
    for (internal, class) in program.classes() {
        let flags = class.access_flags;
        if !flags.is_public() || flags.is_interface() || internal.as_internal().contains('$') {
            continue;
        }
        for method in &class.methods {
            let (Ok(m), Ok(d)) = (method.name(class), method.descriptor(class)) else {
                continue;
            };
            let public = method.access_flags.is_public() && !method.access_flags.is_abstract();
            let generated = method.access_flags.contains(AccessFlags::SYNTHETIC)
                || method.access_flags.contains(AccessFlags::BRIDGE);
            if public && m != "<clinit>" && !generated {
                methods.push(MethodId::new(internal.clone(), m, d));
            }
        }
    }
    let methods: Vec<MethodId> = methods.into_iter().step_by(stride).collect();
    let started = Instant::now();
    let mut totals = Totals::default();
    for key in &methods {
        let found = match explore(&mut executor, &recipes, key, &options) {
            Ok(found) => found,
            Err(_) => {
                totals.failed += 1;
                executor = fixture.executor();
                continue;
            }
        };
        totals.methods += 1;
        totals.runs += found.runs;
        totals.paths += found.tree.stats().covered;
        totals.predicted += found.predicted;
        totals.agreed += found.agreed;
        totals.solver += found.solver_seconds;
        totals.queries += found.solver_queries;
        totals.reached += found.reached.len();
        totals.infeasible += found.infeasible.len();
        if found.failure.is_some() {
            totals.failed += 1;
        }
    }
    let wall = started.elapsed().as_secs_f64();
    println!(
        "{name}: {} methods ({} not explorable) in {wall:.1} s: {} runs, {} distinct paths ({:.1} paths/s), \
         {}/{} predicted paths taken ({:.1}%), {} solver queries, solver {:.1} s ({:.0}% of the time), \
         {} branch outcomes reached, {} proven infeasible",
        totals.methods,
        totals.failed,
        totals.runs,
        totals.paths,
        totals.paths as f64 / wall,
        totals.agreed,
        totals.predicted,
        100.0 * totals.agreed as f64 / totals.predicted.max(1) as f64,
        totals.queries,
        totals.solver,
        100.0 * totals.solver / wall,
        totals.reached,
        totals.infeasible,
    );
    executor.shutdown().ok();
}

fn main() {
    let fixture = support::Fixture::compile("explore");
    corpus("fixtures/explore", &fixture, ExploreOptions::default(), 1);
    let jar = PathBuf::from("/usr/share/java/commons-codec.jar");
    // Jar entries are `org/.../Name.class`; versioned copies are left out.
    let classes = testgen_testkit::installed_jar_classes("/usr/share/java/commons-codec.jar")
        .into_iter()
        .filter(|(entry, _)| !entry.starts_with("META-INF/"))
        .map(|(entry, bytes)| (entry.trim_end_matches(".class").to_string(), bytes))
        .collect();
    let codec = support::Fixture::new(classes, vec![jar], "org/apache/commons/codec/");
    // Every fourth public method of the jar (a sample across all its
    // packages) with the limits `make corpus` uses, so that the benchmark
    // ends in minutes.
    let options = ExploreOptions {
        max_runs: 40,
        budget: Duration::from_secs(5),
        ..ExploreOptions::default()
    };
    corpus(
        "commons-codec (every 4th public method)",
        &codec,
        options,
        4,
    );
}
