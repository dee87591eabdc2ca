//! `testgen-bench`: the figures of `scripts/bench.sh`.
//!
//! The script runs testgen, javac, JUnit and JaCoCo and leaves their
//! outputs in a run directory (see `collect`); this binary reads them into
//! `bench.json`, prints the tables, and compares two runs. It runs nothing
//! itself.

mod collect;
mod model;
mod rubric;
mod table;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use model::Bench;

#[derive(Parser)]
#[command(name = "testgen-bench", about = "Figures of scripts/bench.sh")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Reads a run directory, writes its bench.json and prints the tables;
    /// exits 1 when a generated test failed or did not compile, or a testgen
    /// run did not end normally.
    Report {
        run: PathBuf,
        /// Where bench.json goes (default: RUN/bench.json).
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Prints two runs' figures side by side with the ratio work/base; exits
    /// 1 when either run is not OK.
    Compare {
        base: PathBuf,
        work: PathBuf,
        /// Writes {"base": ..., "work": ...} here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
}

fn read_bench(path: &Path) -> Result<Bench, String> {
    let path = if path.is_dir() {
        path.join("bench.json")
    } else {
        path.to_path_buf()
    };
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn write_json(path: &Path, value: &impl serde::Serialize) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    text.push('\n');
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn run(cli: Cli) -> Result<bool, String> {
    match cli.command {
        Command::Report { run, json } => {
            let bench = collect::read_run(&run)?;
            let json = json.unwrap_or_else(|| run.join("bench.json"));
            write_json(&json, &bench)?;
            print!("{}", table::report(&bench));
            println!("figures: {}", json.display());
            Ok(bench.ok)
        }
        Command::Compare { base, work, json } => {
            let (base, work) = (read_bench(&base)?, read_bench(&work)?);
            print!("{}", table::compare(&base, &work));
            if let Some(json) = json {
                write_json(&json, &serde_json::json!({ "base": base, "work": work }))?;
                println!("figures: {}", json.display());
            }
            Ok(base.ok && work.ok)
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("testgen-bench: {error}");
            ExitCode::from(2)
        }
    }
}
