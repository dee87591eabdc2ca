//! The `testgen` command line: parses arguments, calls the driver, prints.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use testgen_driver::jdk;
use testgen_driver::scan::{self, Depth, Event, ScanOptions};
use testgen_driver::verify::{self, VerifyOptions};

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
    /// Instrument every class with testgen's probes and have a JVM verify
    /// each one (linking, no static initialisers); report what failed.
    VerifyInstrumentation(VerifyArgs),
}

/// Which JDK runs the code, and so which entries of multi-release jars count.
#[derive(Args)]
struct JdkArgs {
    /// Java feature version that chooses the entries of multi-release jars;
    /// default: the version of the JDK given by --java.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(8..))]
    release: Option<u16>,
    /// The java executable; default: $JAVA_HOME/bin/java, then java on PATH.
    #[arg(long, value_name = "PATH")]
    java: Option<PathBuf>,
}

#[derive(Args)]
struct ScanArgs {
    /// Directories of .class files or jars; repeatable, or several after one flag.
    #[arg(long = "classes", value_name = "PATH", required = true, num_args = 1..)]
    classes: Vec<PathBuf>,
    /// Print one summary line instead of the class records.
    #[arg(long)]
    summary: bool,
    #[command(flatten)]
    jdk: JdkArgs,
}

#[derive(Args)]
struct VerifyArgs {
    /// Directories of .class files or jars to instrument and verify.
    #[arg(long = "classes", value_name = "PATH", required = true, num_args = 1..)]
    classes: Vec<PathBuf>,
    /// ':'-separated classpath the classes need to link (their dependencies).
    #[arg(long, value_name = "CP", default_value = "")]
    classpath: String,
    /// Where the executor's classes are installed; default: a testgen-cache
    /// directory in the system's temporary directory.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    #[command(flatten)]
    jdk: JdkArgs,
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Scan(args) => run_scan(args),
        Command::VerifyInstrumentation(args) => run_verify(args),
    }
}

/// The feature version for multi-release jars: given, else read from the JDK.
fn release(jdk: &JdkArgs) -> u16 {
    jdk.release.unwrap_or_else(|| {
        match jdk::find_java(jdk.java.as_deref()).and_then(|java| jdk::feature_version(&java)) {
            Ok(version) => version,
            Err(error) => {
                // Without a JDK, take what every JVM loads: the base entries.
                eprintln!("testgen: warning: {error}; reading multi-release jars as Java 8 (pass --release N)");
                8
            }
        }
    })
}

fn run_scan(args: ScanArgs) -> ExitCode {
    let options = ScanOptions {
        inputs: args.classes,
        release: release(&args.jdk),
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

fn run_verify(args: VerifyArgs) -> ExitCode {
    let java = match jdk::find_java(args.jdk.java.as_deref()) {
        Ok(java) => java,
        Err(error) => {
            eprintln!("testgen: error: {error}");
            return ExitCode::FAILURE;
        }
    };
    let options = VerifyOptions {
        release: release(&args.jdk),
        inputs: args.classes,
        classpath: split_classpath(&args.classpath),
        java,
        cache_dir: args
            .cache
            .unwrap_or_else(|| std::env::temp_dir().join("testgen-cache")),
    };
    let report = match verify::verify_instrumentation(&options) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("testgen: error: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("{}", report.summary_line());
    for (class, message) in &report.failed {
        println!("failed {class}: {message}");
    }
    for (class, method) in &report.skipped_methods {
        println!(
            "skipped method {class}.{}{}: {}",
            method.name, method.descriptor, method.reason
        );
    }
    for (location, reason) in &report.not_instrumented {
        println!("not instrumented {location}: {reason}");
    }
    if report.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn split_classpath(classpath: &str) -> Vec<PathBuf> {
    classpath
        .split(':')
        .filter(|entry| !entry.is_empty())
        .map(|entry| Path::new(entry).to_path_buf())
        .collect()
}
