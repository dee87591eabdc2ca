//! Instrumentation throughput: every class of the given jars (default: the
//! commons libraries of the benchmark corpus and every jar under
//! /usr/share/java), read into memory first, then instrumented on one
//! thread. Prints classes/s and MB/s; asserts nothing about speed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use testgen_classpath::Input;
use testgen_probes::{instrument, ProbeIds};

fn main() {
    let args: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .collect();
    let corpora: Vec<(String, Vec<PathBuf>)> = if args.is_empty() {
        let commons = [
            "commons-cli",
            "commons-codec",
            "commons-csv",
            "commons-collections4",
        ]
        .map(|name| PathBuf::from(format!("/usr/share/java/{name}.jar")));
        vec![
            ("commons".to_string(), commons.to_vec()),
            ("/usr/share/java".to_string(), all_jars()),
        ]
    } else {
        vec![("given".to_string(), args)]
    };
    for (label, jars) in corpora {
        let classes: Vec<Vec<u8>> = jars
            .iter()
            .filter_map(|jar| Input::open(jar).ok()?.classes(17).ok())
            .flatten()
            .filter_map(Result::ok)
            .filter(|class| !class.location.entry.ends_with("module-info.class"))
            .map(|class| class.bytes)
            .collect();
        let bytes: usize = classes.iter().map(Vec::len).sum();
        let started = Instant::now();
        let (mut sites, mut skipped, mut failed) = (0usize, 0usize, 0usize);
        let mut ids = ProbeIds::default();
        for class in &classes {
            match instrument(class, &mut ids, &|_| true) {
                Ok(done) => {
                    sites += done.sites.len();
                    skipped += done.skipped.len();
                }
                Err(_) => failed += 1,
            }
        }
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{label}: {} classes ({:.1} MB) in {seconds:.2} s: {:.0} classes/s, {:.1} MB/s; {sites} sites, {skipped} methods skipped, {failed} classes not instrumentable",
            classes.len(),
            bytes as f64 / 1e6,
            classes.len() as f64 / seconds,
            bytes as f64 / 1e6 / seconds
        );
    }
}

fn all_jars() -> Vec<PathBuf> {
    let mut jars: Vec<PathBuf> = std::fs::read_dir(Path::new("/usr/share/java"))
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    jars.retain(|p| p.extension().is_some_and(|x| x == "jar") && !p.is_symlink());
    jars.sort();
    jars
}
