//! The `testgen` command line: parses arguments, calls the driver, prints.

use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use testgen_driver::jdk;
use testgen_driver::scan::{self, Depth, Event, ScanOptions};

/// Automatic JUnit test generation for compiled Java code.
#[derive(Parser)]
#[command(name = "testgen", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the classes of directories and jars with their SHA-256, supertypes
    /// and methods, as JSON lines on stdout (one object per class).
    Scan(ScanArgs),
}

#[derive(Args)]
struct ScanArgs {
    /// Directories of .class files or jars; repeatable, or several after one flag.
    #[arg(long = "classes", value_name = "PATH", required = true, num_args = 1..)]
    classes: Vec<PathBuf>,
    /// Print one summary line instead of the class records.
    #[arg(long)]
    summary: bool,
    /// Java feature version that chooses the entries of multi-release jars;
    /// default: the version of the JDK given by --java.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(8..))]
    release: Option<u16>,
    /// The java executable whose version --release defaults to; default:
    /// $JAVA_HOME/bin/java, then java on PATH.
    #[arg(long, value_name = "PATH")]
    java: Option<PathBuf>,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Scan(args) => run_scan(args),
    }
}

fn run_scan(args: ScanArgs) -> ExitCode {
    let release = args.release.unwrap_or_else(|| {
        match jdk::find_java(args.java.as_deref()).and_then(|java| jdk::feature_version(&java)) {
            Ok(version) => version,
            Err(error) => {
                // Without a JDK, take what every JVM loads: the base entries.
                eprintln!("testgen: warning: {error}; reading multi-release jars as Java 8 (pass --release N)");
                8
            }
        }
    });
    let options = ScanOptions {
        inputs: args.classes,
        release,
        depth: if args.summary {
            Depth::Parse
        } else {
            Depth::Records
        },
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut output_closed = false;
    let totals = scan::scan(&options, |event| match event {
        Event::Class(class) => {
            if let (Some(record), false) = (&class.record, output_closed) {
                // A closed pipe (`testgen scan ... | head`) ends the output, not the scan.
                output_closed = writeln!(out, "{record}").is_err();
            }
        }
        Event::BadEntry { location, reason } => {
            eprintln!("testgen: skipped {location}: {reason}");
        }
        Event::BadInput(error) => eprintln!("testgen: error: {error}"),
    });
    if args.summary {
        let _ = writeln!(out, "{}", totals.summary_line());
    }
    let _ = out.flush();
    if totals.unreadable_inputs > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
