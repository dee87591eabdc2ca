//! Every class of every jar under /usr/share/java parses and checks cleanly.
//!
//! `make test` installs the Debian packages listed in scripts/setup.sh first,
//! so the corpus is the same on every machine that runs the suite.

mod support;

use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use testgen_classfile::ClassFile;

#[test]
fn every_class_under_usr_share_java_parses() {
    let started = Instant::now();
    let jars = support::jars_under(Path::new("/usr/share/java"));
    // Guard against a vacuous pass: setup installs well over a hundred jars.
    assert!(
        jars.len() >= 100,
        "only {} jars under /usr/share/java; run scripts/setup.sh",
        jars.len()
    );
    let results: Vec<(usize, u64, Vec<String>)> = jars
        .par_iter()
        .map(|jar| match support::jar_classes(jar) {
            Err(error) => (
                0,
                0,
                vec![format!("{}: cannot read jar: {error}", jar.display())],
            ),
            Ok(classes) => {
                let bytes = classes.iter().map(|(_, b)| b.len() as u64).sum();
                let errors = classes
                    .iter()
                    .filter_map(|(name, bytes)| {
                        let result = ClassFile::parse(bytes).and_then(|class| class.check());
                        result
                            .err()
                            .map(|e| format!("{}!/{name}: {e}", jar.display()))
                    })
                    .collect();
                (classes.len(), bytes, errors)
            }
        })
        .collect();
    let classes: usize = results.iter().map(|r| r.0).sum();
    let megabytes = results.iter().map(|r| r.1).sum::<u64>() as f64 / 1e6;
    let errors: Vec<&String> = results.iter().flat_map(|r| &r.2).collect();
    println!(
        "corpus: {} jars, {classes} classes, {megabytes:.1} MB, {} errors, {:.1} s",
        jars.len(),
        errors.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(classes >= 10_000, "suspiciously few classes: {classes}");
    assert!(
        errors.is_empty(),
        "{} classes failed, first ones:\n{}",
        errors.len(),
        errors
            .iter()
            .take(20)
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
