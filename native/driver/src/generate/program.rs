//! The code under test as exploration needs it: every class of the inputs
//! read, hashed and instrumented with one `ProbeIds`, and described to the
//! symbolic interpreter (original bytes plus the probes' tables).

use std::collections::BTreeSet;
use std::path::PathBuf;

use sha2::{Digest, Sha256};
use testgen_classfile::access::AccessFlags;
use testgen_classfile::attribute::AttributeInfo;
use testgen_classfile::ClassFile;
use testgen_classpath::Input;
use testgen_probes::{instrument, Instrumented, ProbeIds};
use testgen_project::Program;

/// One class of the inputs.
pub struct LoadedClass {
    /// Binary name with dots: `a.b.Outer$Inner`.
    pub binary: String,
    /// Internal name: `a/b/Outer$Inner`.
    pub internal: String,
    /// Where it was read from (`lib/foo.jar!/a/b/Foo.class`).
    pub location: String,
    pub bytes: Vec<u8>,
    /// SHA-256 of `bytes`, lower-case hex.
    pub sha256: String,
    /// `None` when the instrumenter refused the class (with the reason in
    /// [`Loaded::problems`]).
    pub instrumented: Option<Instrumented>,
    /// Whether tests are generated for it (before `--include`/`--exclude`).
    pub testable: bool,
}

impl LoadedClass {
    /// `name(descriptor)` of the class's public methods and constructors:
    /// what the inputs figures count (non-public ones are tested too, but
    /// the figure is about the class's API).
    pub fn public_methods(&self) -> std::collections::BTreeSet<String> {
        ClassFile::parse(&self.bytes)
            .map(|file| public_methods(&file))
            .unwrap_or_default()
    }
}

/// `name(descriptor)` of `file`'s public methods and constructors.
pub fn public_methods(file: &ClassFile<'_>) -> std::collections::BTreeSet<String> {
    file.methods
        .iter()
        .filter(|method| method.access_flags.is_public())
        .filter_map(|method| {
            let name = method.name(file).ok()?;
            let descriptor = method.descriptor(file).ok()?;
            Some(format!("{name}{descriptor}"))
        })
        .collect()
}

/// Every class of the inputs, sorted by binary name.
pub struct Loaded {
    pub classes: Vec<LoadedClass>,
    /// Entries that could not be read, parsed or instrumented: (location, why).
    pub problems: Vec<(String, String)>,
}

/// Reads every class of `inputs`; fails only when an input cannot be read
/// at all. The first class of a name wins, as on a classpath.
pub fn load(inputs: &[PathBuf], release: u16) -> Result<Loaded, String> {
    let mut problems = Vec::new();
    let mut read = Vec::new();
    for path in inputs {
        let input = Input::open(path).map_err(|e| e.to_string())?;
        let entries = input.classes(release).map_err(|e| e.to_string())?;
        for entry in entries {
            match entry {
                Ok(class) => read.push(class),
                Err(error) => problems.push((error.location.to_string(), error.reason)),
            }
        }
    }
    let mut seen = BTreeSet::new();
    let mut classes = Vec::new();
    for class in read {
        let parsed = ClassFile::parse(&class.bytes).and_then(|file| {
            Ok((
                file.name()?.into_owned(),
                file.is_module_info(),
                is_testable(&file),
            ))
        });
        match parsed {
            Ok((_, true, _)) => {}
            Ok((internal, false, testable)) => {
                if seen.insert(internal.clone()) {
                    classes.push(LoadedClass {
                        binary: internal.replace('/', "."),
                        internal,
                        location: class.location.to_string(),
                        sha256: hex(&Sha256::digest(&class.bytes)),
                        bytes: class.bytes,
                        instrumented: None,
                        testable,
                    });
                }
            }
            Err(error) => problems.push((class.location.to_string(), error.to_string())),
        }
    }
    classes.sort_by(|a, b| a.binary.cmp(&b.binary));

    // The code under test is every class of the inputs; calls to anything
    // else leave it. Instrumenting in name order keeps probe ids stable.
    let project: BTreeSet<String> = classes.iter().map(|c| c.internal.clone()).collect();
    let is_project = |name: &str| project.contains(name);
    let mut ids = ProbeIds::default();
    for class in &mut classes {
        match instrument(&class.bytes, &mut ids, &is_project) {
            Ok(done) => class.instrumented = Some(done),
            Err(error) => problems.push((class.location.clone(), error.to_string())),
        }
    }
    Ok(Loaded { classes, problems })
}

impl Loaded {
    /// The classes and probe tables for the interpreter.
    pub fn program(&self) -> Program<'_> {
        let mut program = Program::new();
        for class in &self.classes {
            let Some(instrumented) = &class.instrumented else {
                continue;
            };
            let Ok(file) = ClassFile::parse(&class.bytes) else {
                continue;
            };
            // A class whose name cannot be read was reported when loading.
            let _ = program.add_instrumented(file, instrumented);
        }
        program
    }

    /// (binary name, instrumented bytes) of every instrumented class: what
    /// the executor defines in place of the originals.
    pub fn instrumented(&self) -> Vec<(String, Vec<u8>)> {
        self.classes
            .iter()
            .filter_map(|c| Some((c.binary.clone(), c.instrumented.as_ref()?.bytes.clone())))
            .collect()
    }
}

/// Public, not synthetic, not an interface, annotation or module, and
/// top-level or a static member class (not inner, local or anonymous).
fn is_testable(file: &ClassFile<'_>) -> bool {
    let flags = file.access_flags;
    if !flags.is_public()
        || flags.is_interface()
        || flags.contains(AccessFlags::SYNTHETIC)
        || flags.contains(AccessFlags::ANNOTATION)
        || flags.contains(AccessFlags::MODULE)
    {
        return false;
    }
    let Ok(name) = file.name() else {
        return false;
    };
    if !name.contains('$') {
        return true;
    }
    // A nested class: its own InnerClasses entry says whether it is a
    // public static member.
    let Ok(Some(AttributeInfo::InnerClasses(entries))) = file.attribute("InnerClasses") else {
        return false;
    };
    entries.iter().any(|entry| {
        file.constant_pool
            .class_name(entry.inner_class_info_index)
            .is_ok_and(|inner| inner == name)
            && entry.outer_class_info_index != 0
            && entry.inner_name_index != 0
            && AccessFlags(entry.inner_class_access_flags).is_static()
            && AccessFlags(entry.inner_class_access_flags).is_public()
    })
}

/// Lower-case hex, as SHA-256 sums are written.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
