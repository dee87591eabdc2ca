//! `testgen scan`: read every class of the inputs, hash it, and summarise it
//! (names, supertypes, access flags, and per method its size and branches).
//!
//! Inputs are processed a few at a time in parallel, classes of one input in
//! parallel too, and results are handed out in input order and, within an
//! input, in entry-name order, so the output is the same on every run.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Serialize, Serializer};
use sha2::{Digest, Sha256};
use testgen_classfile::instruction::opcode;
use testgen_classfile::{AccessContext, AccessFlags, ClassFile};
use testgen_classpath::{ClassBytes, EntryError, Input, InputError};

/// How much work to do per class. The scan command uses [`Depth::Parse`]
/// for `--summary` and [`Depth::Records`] otherwise; the benchmark compares
/// all four to price each step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Depth {
    /// Read the bytes (from disk or out of a jar) and nothing else.
    Read,
    /// Read and compute the SHA-256.
    Hash,
    /// Read, hash, parse, and walk every method's instructions to count
    /// methods, branches and switches.
    Parse,
    /// All of the above, and render each class as a line of JSON.
    Records,
}

#[derive(Clone, Debug)]
pub struct ScanOptions {
    pub inputs: Vec<PathBuf>,
    /// Java feature version used to choose entries of multi-release jars.
    pub release: u16,
    pub depth: Depth,
}

/// What one class looks like to testgen: one line of `testgen scan`'s
/// output. Names are Java binary names (`org.example.Outer$Inner`);
/// descriptors stay in JVM form. Strings borrow from the class file where
/// they can, so summarising allocates little.
#[derive(Serialize)]
struct ClassSummary<'a> {
    class: String,
    location: String,
    sha256: String,
    /// `major.minor`, e.g. `61.0` for Java 17.
    version: String,
    super_class: Option<String>,
    interfaces: Vec<String>,
    #[serde(serialize_with = "class_access")]
    access: AccessFlags,
    source_file: Option<Cow<'a, str>>,
    methods: Vec<MethodSummary<'a>>,
}

#[derive(Serialize)]
struct MethodSummary<'a> {
    name: Cow<'a, str>,
    descriptor: Cow<'a, str>,
    #[serde(serialize_with = "method_access")]
    access: AccessFlags,
    /// Bytes of bytecode; `None` for abstract and native methods.
    code_length: Option<u32>,
    /// Conditional branch instructions: the `if*` family, `ifnull`, `ifnonnull`.
    branches: u32,
    /// `tableswitch` and `lookupswitch` instructions.
    switches: u32,
}

fn class_access<S: Serializer>(flags: &AccessFlags, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(flags.names(AccessContext::Class))
}

fn method_access<S: Serializer>(flags: &AccessFlags, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(flags.names(AccessContext::Method))
}

/// What the scan learned of one class.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClassCounts {
    pub methods: usize,
    pub branches: usize,
    pub switches: usize,
    /// The class as a line of JSON, at [`Depth::Records`].
    pub record: Option<String>,
}

/// What the scan reports, in order.
pub enum Event<'a> {
    Class(&'a ClassCounts),
    /// A class that could not be read or parsed; the scan went on.
    BadEntry {
        location: &'a str,
        reason: &'a str,
    },
    /// An input path that could not be read at all.
    BadInput(&'a InputError),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub inputs: usize,
    pub unreadable_inputs: usize,
    pub classes: usize,
    pub methods: usize,
    pub branches: usize,
    pub switches: usize,
    /// Entries that could not be read or parsed.
    pub errors: usize,
    /// Bytes of class files read.
    pub bytes: u64,
    pub elapsed: Duration,
}

impl Totals {
    /// One human line, e.g. for `testgen scan --summary`.
    pub fn summary_line(&self) -> String {
        let seconds = self.elapsed.as_secs_f64();
        let megabytes = self.bytes as f64 / 1e6;
        format!(
            "{} classes, {} methods, {} branches, {} switches, {} errors, {:.1} MB, {:.2} s ({:.1} MB/s, {:.0} classes/s)",
            self.classes,
            self.methods,
            self.branches,
            self.switches,
            self.errors + self.unreadable_inputs,
            megabytes,
            seconds,
            megabytes / seconds.max(1e-9),
            self.classes as f64 / seconds.max(1e-9),
        )
    }
}

/// The outcome for one entry, computed in parallel and reported in order.
enum Outcome {
    Class(ClassCounts),
    Bad { location: String, reason: String },
}

struct InputOutcome {
    entries: Vec<(Outcome, usize)>,
    error: Option<InputError>,
}

/// Scans the inputs and calls `report` for every class and every problem, in
/// a deterministic order.
pub fn scan(options: &ScanOptions, mut report: impl FnMut(Event<'_>)) -> Totals {
    let started = Instant::now();
    let mut totals = Totals {
        inputs: options.inputs.len(),
        ..Totals::default()
    };
    // A few inputs at a time keeps both cores busy on many small jars while
    // holding only a bounded number of results in memory.
    let batch = 2 * rayon::current_num_threads();
    for chunk in options.inputs.chunks(batch) {
        let outcomes: Vec<InputOutcome> = chunk
            .par_iter()
            .map(|path| scan_input(path, options))
            .collect();
        for outcome in outcomes {
            if let Some(error) = &outcome.error {
                totals.unreadable_inputs += 1;
                report(Event::BadInput(error));
            }
            for (entry, size) in &outcome.entries {
                totals.bytes += *size as u64;
                match entry {
                    Outcome::Class(counts) => {
                        totals.classes += 1;
                        totals.methods += counts.methods;
                        totals.branches += counts.branches;
                        totals.switches += counts.switches;
                        report(Event::Class(counts));
                    }
                    Outcome::Bad { location, reason } => {
                        totals.errors += 1;
                        report(Event::BadEntry { location, reason });
                    }
                }
            }
        }
    }
    totals.elapsed = started.elapsed();
    totals
}

fn scan_input(path: &Path, options: &ScanOptions) -> InputOutcome {
    let entries = Input::open(path).and_then(|input| input.classes(options.release));
    match entries {
        Err(error) => InputOutcome {
            entries: Vec::new(),
            error: Some(error),
        },
        // Reading is sequential per input (one archive handle); hashing and
        // parsing go in parallel.
        Ok(entries) => InputOutcome {
            entries: entries
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(|entry| scan_entry(entry, options.depth))
                .collect(),
            error: None,
        },
    }
}

fn scan_entry(entry: Result<ClassBytes, EntryError>, depth: Depth) -> (Outcome, usize) {
    let class = match entry {
        Ok(class) => class,
        Err(error) => {
            let location = error.location.to_string();
            return (
                Outcome::Bad {
                    location,
                    reason: error.reason,
                },
                0,
            );
        }
    };
    let size = class.bytes.len();
    let outcome = match depth {
        Depth::Read => Outcome::Class(ClassCounts::default()),
        Depth::Hash => {
            std::hint::black_box(Sha256::digest(&class.bytes));
            Outcome::Class(ClassCounts::default())
        }
        Depth::Parse | Depth::Records => match summarise(&class, depth == Depth::Records) {
            Ok(counts) => Outcome::Class(counts),
            Err(reason) => Outcome::Bad {
                location: class.location.to_string(),
                reason,
            },
        },
    };
    (outcome, size)
}

/// Hashes, parses and summarises one class; with `record`, also renders it
/// as the JSON line `testgen scan` prints.
pub fn summarise(class: &ClassBytes, record: bool) -> Result<ClassCounts, String> {
    let sha256 = Sha256::digest(&class.bytes);
    let file = ClassFile::parse(&class.bytes).map_err(|error| error.to_string())?;
    let methods = summarise_methods(&file).map_err(|error| error.to_string())?;
    let mut counts = ClassCounts {
        methods: methods.len(),
        branches: methods.iter().map(|m| m.branches as usize).sum(),
        switches: methods.iter().map(|m| m.switches as usize).sum(),
        record: None,
    };
    if record {
        let summary = describe(&file, class, hex(&sha256), methods).map_err(|e| e.to_string())?;
        let json = serde_json::to_string(&summary)
            .expect("a summary holds only strings, numbers and lists");
        counts.record = Some(json);
    }
    Ok(counts)
}

fn summarise_methods<'a>(
    file: &ClassFile<'a>,
) -> testgen_classfile::Result<Vec<MethodSummary<'a>>> {
    let mut methods = Vec::with_capacity(file.methods.len());
    for method in &file.methods {
        let mut summary = MethodSummary {
            name: method.name(file)?,
            descriptor: method.descriptor(file)?,
            access: method.access_flags,
            code_length: None,
            branches: 0,
            switches: 0,
        };
        if let Some(code) = method.code(file)? {
            summary.code_length = Some(code.bytecode.len() as u32);
            for instruction in code.opcodes() {
                let (_, opcode) = instruction?;
                summary.branches += u32::from(opcode::is_conditional_branch(opcode));
                summary.switches += u32::from(opcode::is_switch(opcode));
            }
        }
        methods.push(summary);
    }
    Ok(methods)
}

fn describe<'a>(
    file: &ClassFile<'a>,
    class: &ClassBytes,
    sha256: String,
    methods: Vec<MethodSummary<'a>>,
) -> testgen_classfile::Result<ClassSummary<'a>> {
    Ok(ClassSummary {
        class: binary_name(&file.name()?),
        location: class.location.to_string(),
        sha256,
        version: format!("{}.{}", file.major_version, file.minor_version),
        super_class: file.super_name()?.map(|name| binary_name(&name)),
        interfaces: file
            .interface_names()?
            .iter()
            .map(|name| binary_name(name))
            .collect(),
        access: file.access_flags,
        source_file: file.source_file()?,
        methods,
    })
}

/// `org/example/Foo$Bar` -> `org.example.Foo$Bar`.
fn binary_name(internal: &str) -> String {
    internal.replace('/', ".")
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, byte| {
            let _ = write!(out, "{byte:02x}");
            out
        })
}
