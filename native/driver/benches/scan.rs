//! Scan throughput over every jar under /usr/share/java (or the directories
//! and jars given as arguments), at three depths: read only, read + SHA-256,
//! and the full scan (read, hash, parse, decode every instruction). The
//! difference between the last two is what parsing costs.
//!
//! Run with `make bench`. Prints figures; asserts nothing about speed.

use std::path::PathBuf;
use std::time::Duration;

use testgen_driver::scan::{self, Depth, ScanOptions, Totals};

const RUNS: usize = 3;

fn main() {
    let roots: Vec<PathBuf> = {
        let given: Vec<PathBuf> = std::env::args()
            .skip(1)
            .filter(|a| !a.starts_with('-'))
            .map(PathBuf::from)
            .collect();
        if given.is_empty() {
            vec![PathBuf::from("/usr/share/java")]
        } else {
            given
        }
    };
    let inputs = jars_and_class_dirs(&roots);
    println!(
        "scan benchmark: {} inputs under {roots:?}, best of {RUNS} runs",
        inputs.len()
    );
    for threads in [1, rayon::current_num_threads()] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        println!("\n{threads} thread(s):");
        println!(
            "  {:<22} {:>9} {:>9} {:>10} {:>12}",
            "depth", "classes", "MB", "MB/s", "classes/s"
        );
        let mut seconds = Vec::new();
        for (label, depth) in [
            ("read", Depth::Read),
            ("read + hash", Depth::Hash),
            ("read + hash + parse", Depth::Parse),
            ("... + JSON records", Depth::Records),
        ] {
            let options = ScanOptions {
                inputs: inputs.clone(),
                release: 17,
                depth,
            };
            let best = (0..RUNS)
                .map(|_| pool.install(|| scan::scan(&options, |_| {})))
                .min_by_key(|totals| totals.elapsed)
                .unwrap();
            print_row(label, &best);
            seconds.push(best.elapsed);
        }
        let [read, hash, parse, records] =
            [seconds[0], seconds[1], seconds[2], seconds[3]].map(|d: Duration| d.as_secs_f64());
        println!(
            "  hashing adds {:.2} s, parsing adds {:.2} s (parse/hash = {:.2}), JSON records add {:.2} s",
            hash - read,
            parse - hash,
            (parse - hash) / (hash - read).max(1e-9),
            records - parse
        );
    }
}

fn print_row(label: &str, totals: &Totals) {
    let seconds = totals.elapsed.as_secs_f64();
    let megabytes = totals.bytes as f64 / 1e6;
    println!(
        "  {label:<22} {:>9} {megabytes:>9.1} {:>10.1} {:>12.0}   ({seconds:.2} s, {} errors)",
        totals.classes,
        megabytes / seconds,
        totals.classes as f64 / seconds,
        totals.errors + totals.unreadable_inputs,
    );
}

/// Regular jar files (not symbolic links to them) and the given directories.
fn jars_and_class_dirs(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut inputs = Vec::new();
    for root in roots {
        if root.is_file() {
            inputs.push(root.clone());
            continue;
        }
        let jars: Vec<PathBuf> = walkdir::WalkDir::new(root)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "jar"))
            .map(|e| e.into_path())
            .collect();
        if jars.is_empty() {
            inputs.push(root.clone());
        }
        inputs.extend(jars);
    }
    inputs
}
