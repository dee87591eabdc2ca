//! The `testgen` command line: parses arguments, calls the driver, prints.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

mod progress;
use testgen_driver::generate::{
    self, GenerateOptions, Glob, IgnoredOption, JUnit, Mode, MutationMode, PossibleBugs, TestJvm,
};
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
    /// Generate JUnit tests for the classes under --classes: explore each
    /// public method and constructor, keep a covering set of tests, check
    /// them with javac and JUnit (twice), write <Class>GeneratedTest.java
    /// under --out and testgen-report.json and testgen-report.html under --report.
    Generate(Box<GenerateArgs>),
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

#[derive(Args)]
struct GenerateArgs {
    /// A directory of .class files or a jar: the code to test; repeatable.
    #[arg(long = "classes", value_name = "PATH", required = true)]
    classes: Vec<PathBuf>,
    /// ':'-separated runtime classpath of that code (its dependencies).
    #[arg(long, value_name = "CP", default_value = "")]
    classpath: String,
    /// Where test sources are written (package directories below it).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Per-class state; default: a sibling of --out named testgen-cache.
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Where testgen-report.json and testgen-report.html are written.
    #[arg(long, value_name = "DIR")]
    report: PathBuf,
    /// A directory (or a .jar/.zip) of the code's Java sources: the HTML
    /// report shows the source line of each branch outcome not covered
    /// (the file of a.b.C$D is a/b/C.java); repeatable.
    #[arg(long = "sources", value_name = "DIR")]
    sources: Vec<PathBuf>,
    /// The java executable; default: $JAVA_HOME/bin/java, then java on PATH.
    #[arg(long, value_name = "PATH")]
    java: Option<PathBuf>,
    /// JUnit version of the generated tests.
    #[arg(long, value_name = "5|4", default_value = "5", value_parser = ["5", "4"])]
    junit: String,
    /// Time budget per class, in seconds (split over its methods; a safety
    /// net: exploration is bounded by --max-runs, which keeps it deterministic).
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, value_parser = parse_budget)]
    budget: f64,
    /// Runs of one method at most while exploring.
    #[arg(long, value_name = "N", default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
    max_runs: u32,
    /// Plans the search runs for one class at most, after exploring.
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = clap::value_parser!(u32))]
    max_evaluations: u32,
    /// Only classes whose binary name matches (`*` within a package segment,
    /// `**` across them, `?` one character); repeatable.
    #[arg(long, value_name = "GLOB", value_parser = parse_glob)]
    include: Vec<Glob>,
    /// Leave out classes whose binary name matches; repeatable.
    #[arg(long, value_name = "GLOB", value_parser = parse_glob)]
    exclude: Vec<Glob>,
    /// incremental: classes whose bytecode, dependencies and options are
    /// unchanged since the last run are skipped, changed ones keep the
    /// trees of their unchanged methods; full: every class from scratch;
    /// nightly: incremental, changed classes explored 4 times deeper, then
    /// unchanged classes with branches left open explored again, most open
    /// first, within --total-budget (skipped once deeper runs found nothing
    /// new twice in a row).
    #[arg(long, value_enum, default_value_t = ModeArg::Incremental)]
    mode: ModeArg,
    /// report: run the written tests against mutants of each class (a
    /// negated condition, a replaced operator or return value, a removed
    /// call) and report the share they catch and the mutants that survive;
    /// select: also add tests that catch mutants the others miss; off: no
    /// mutation analysis.
    #[arg(long, value_enum, default_value_t = MutationArg::Select)]
    mutation: MutationArg,
    /// report: a run in which an unchecked exception the JDK throws when it
    /// is misused (an index out of bounds, a class cast, arithmetic) escapes
    /// from inside the JDK through a method that does not declare it is a
    /// possible bug: reported (testgen-report.json, .html and testgen.sarif)
    /// with the test that shows it, not written as a test; assert: also
    /// written as a test that expects the exception.
    #[arg(long, value_enum, default_value_t = PossibleBugsArg::Report)]
    possible_bugs: PossibleBugsArg,
    /// The whole run's time, in seconds: classes not started by then keep
    /// their earlier tests (meant for --mode nightly).
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget)]
    total_budget: Option<f64>,
    /// Seed for choices that are not otherwise determined (recorded in the report).
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Classes generated in parallel (each with its own JVM).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    jobs: u32,
    /// Java feature version that chooses the entries of multi-release jars;
    /// default: the version of the JDK given by --java.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(8..))]
    release: Option<u16>,
    /// Whether `assert` statements run, as in the build's test task (Maven
    /// Surefire's enableAssertions and Gradle's Test.enableAssertions are on
    /// by default); exploring and validation run the code the same way.
    #[arg(long, value_enum, value_name = "on|off", default_value_t = Switch::On)]
    assertions: Switch,
    /// A JVM option of the build's test task (Surefire's argLine, Gradle's
    /// Test.jvmArgs), for the JVMs that run the code; repeatable. `-ea`/`-da`
    /// switches among them count; agents and debuggers are left out.
    #[arg(
        long = "test-jvm-arg",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    test_jvm_args: Vec<String>,
    /// A system property of the build's test task (Surefire's
    /// systemPropertyVariables, Gradle's Test.systemProperties); repeatable.
    #[arg(long = "test-system-property", value_name = "NAME=VALUE", value_parser = parse_property)]
    test_system_properties: Vec<(String, String)>,
    /// The working directory of the build's tests (Surefire's
    /// workingDirectory, Gradle's Test.workingDir), where validation runs
    /// the generated tests; default: a scratch directory under --cache.
    #[arg(long, value_name = "DIR")]
    test_working_dir: Option<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum Switch {
    On,
    Off,
}

#[derive(Clone, Copy, ValueEnum)]
enum MutationArg {
    Off,
    Report,
    Select,
}

#[derive(Clone, Copy, ValueEnum)]
enum PossibleBugsArg {
    Report,
    Assert,
}

#[derive(Clone, Copy, ValueEnum)]
enum ModeArg {
    Full,
    Incremental,
    Nightly,
}

fn parse_budget(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 && seconds < 1e9 => Ok(seconds),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

fn parse_glob(text: &str) -> Result<Glob, String> {
    Glob::new(text)
}

fn parse_property(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(format!("`{text}` is not NAME=VALUE")),
    }
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Scan(args) => run_scan(args),
        Command::VerifyInstrumentation(args) => run_verify(args),
        Command::Generate(args) => run_generate(*args),
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

fn run_generate(args: GenerateArgs) -> ExitCode {
    let java = match jdk::find_java(args.java.as_deref()) {
        Ok(java) => java,
        Err(error) => {
            eprintln!("testgen: error: {error}");
            return ExitCode::FAILURE;
        }
    };
    if !java.is_file() {
        eprintln!("testgen: error: --java {}: no such file", java.display());
        return ExitCode::FAILURE;
    }
    for path in &args.classes {
        if !path.exists() {
            eprintln!(
                "testgen: error: --classes {}: no such file or directory",
                path.display()
            );
            return ExitCode::FAILURE;
        }
    }
    let classpath = split_classpath(&args.classpath);
    if let Some(missing) = classpath.iter().find(|entry| !entry.exists()) {
        eprintln!(
            "testgen: error: --classpath entry {}: no such file or directory",
            missing.display()
        );
        return ExitCode::FAILURE;
    }
    if args.out.is_file() {
        eprintln!(
            "testgen: error: --out {}: is a file, not a directory",
            args.out.display()
        );
        return ExitCode::FAILURE;
    }
    if let Some(dir) = args.test_working_dir.as_ref().filter(|dir| !dir.is_dir()) {
        eprintln!(
            "testgen: error: --test-working-dir {}: no such directory",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    for path in &args.sources {
        if let Err(why) = generate::sources::check(path) {
            eprintln!("testgen: error: --sources {why}");
            return ExitCode::FAILURE;
        }
    }
    let cache = args
        .cache
        .clone()
        .unwrap_or_else(|| default_cache(&args.out));
    let (test_jvm, ignored) = TestJvm::new(
        matches!(args.assertions, Switch::On),
        &args.test_jvm_args,
        args.test_system_properties,
        args.test_working_dir,
    );
    for IgnoredOption { option, reason } in ignored {
        eprintln!("testgen: note: test JVM option {option} not used: {reason}");
    }
    let options = GenerateOptions {
        release: release(&JdkArgs {
            release: args.release,
            java: Some(java.clone()),
        }),
        inputs: args.classes,
        classpath,
        out: args.out,
        cache,
        report: args.report,
        sources: args.sources,
        java,
        junit: if args.junit == "4" {
            JUnit::Four
        } else {
            JUnit::Five
        },
        budget: Duration::from_secs_f64(args.budget),
        max_runs_per_method: args.max_runs as usize,
        max_evaluations: args.max_evaluations as usize,
        include: args.include,
        exclude: args.exclude,
        mode: match args.mode {
            ModeArg::Full => Mode::Full,
            ModeArg::Incremental => Mode::Incremental,
            ModeArg::Nightly => Mode::Nightly,
        },
        seed: args.seed,
        jobs: args.jobs as usize,
        total_budget: args.total_budget.map(Duration::from_secs_f64),
        test_jvm,
        mutation: match args.mutation {
            MutationArg::Off => MutationMode::Off,
            MutationArg::Report => MutationMode::Report,
            MutationArg::Select => MutationMode::Select,
        },
        possible_bugs: match args.possible_bugs {
            PossibleBugsArg::Report => PossibleBugs::Report,
            PossibleBugsArg::Assert => PossibleBugs::Assert,
        },
    };
    let mut progress = progress::Progress::new();
    let result = generate::generate(&options, |event| match event {
        generate::Event::Problem { location, reason } => {
            progress.line(&format!("skipped {location}: {reason}"));
        }
        generate::Event::Warning(message) => progress.line(&format!("warning: {message}")),
        generate::Event::Note(message) => progress.line(&format!("note: {message}")),
        generate::Event::Selected { classes } => progress.selected(classes),
        generate::Event::ClassStarted(class) => progress.started(class),
        generate::Event::ClassDone(class) => progress.done(class),
    });
    progress.finish();
    match result {
        Ok(report) => {
            for class in report
                .classes
                .iter()
                .filter(|c| c.status == generate::Status::Failed)
            {
                if let Some(reason) = &class.reason {
                    eprintln!("testgen: failed {}: {reason}", class.class);
                }
            }
            eprint!("{}", progress::summary_table(&report));
            for problem in report.top_problems(5) {
                eprintln!("testgen: {problem}");
            }
            eprintln!("testgen: {}", report.summary_line());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("testgen: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `a/b/testgen-cache` for `--out a/b/tests`.
fn default_cache(out: &Path) -> PathBuf {
    let absolute = if out.is_absolute() {
        out.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(out)
    };
    match absolute.parent() {
        Some(parent) => parent.join("testgen-cache"),
        None => absolute.join("testgen-cache"),
    }
}

fn split_classpath(classpath: &str) -> Vec<PathBuf> {
    classpath
        .split(':')
        .filter(|entry| !entry.is_empty())
        .map(|entry| Path::new(entry).to_path_buf())
        .collect()
}
