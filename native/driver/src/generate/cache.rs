//! The per-class cache under `--cache`: what an incremental run needs to
//! skip a class that did not change, or to regenerate one without exploring
//! its unchanged methods again.
//!
//! Layout: `classes/<binary name>.json`, one [`Entry`] per class under test,
//! and `lock`, held (an OS file lock) for the whole run so two runs on one
//! cache take turns. Entries are written to a temporary file and renamed,
//! so a run that is killed leaves the old entry or the new one, never half
//! of one. An entry that cannot be read is reported and rebuilt.
//!
//! An entry stores types of other crates (an [`Exploration`], a
//! [`TestClass`]) whose serialised form each crate versions on its own;
//! the entry records every one of those versions ([`Formats`]), so an entry
//! written in another form reads as outdated (and is said to be), never as
//! damaged.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use testgen_emit::{TestClass, TEST_CLASS_FORMAT};
use testgen_symbolic::explore::{Exploration, EXPLORATION_FORMAT};

use super::class::{MutationScore, PossibleBug, Uncovered};
use super::error::{FileAction, FileError};
use super::portability::{Portability, StaticState};

/// Bumped whenever [`Entry`]'s own fields change shape or meaning (4: an
/// uncovered outcome's reason has a culprit, and what counts as proven
/// infeasible changed, for kept outcomes and explorations alike).
pub const ENTRY_FORMAT: u32 = 4;

const CLASSES_DIR: &str = "classes";
const LOCK_FILE: &str = "lock";

/// A cache directory, locked for as long as the value lives.
pub struct Cache {
    dir: PathBuf,
    /// Holds the lock; released when dropped (or when the process ends).
    _lock: File,
}

/// The versions an entry was written with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Formats {
    pub entry: u32,
    pub exploration: u32,
    pub test_class: u32,
    /// The testgen version: another one may generate other tests from the
    /// same exploration.
    pub testgen: String,
}

impl Formats {
    /// The versions this testgen writes and reads.
    pub fn current() -> Formats {
        Formats {
            entry: ENTRY_FORMAT,
            exploration: EXPLORATION_FORMAT,
            test_class: TEST_CLASS_FORMAT,
            testgen: env!("CARGO_PKG_VERSION").to_string(),
        }
    }

    /// Why an entry written with `self` cannot be used, if it cannot.
    fn outdated(&self) -> Option<Outdated> {
        let current = Formats::current();
        let part = |part, written, read| Outdated::Format {
            part,
            written,
            read,
        };
        if self.entry != current.entry {
            Some(part(Part::Entry, self.entry, current.entry))
        } else if self.exploration != current.exploration {
            Some(part(
                Part::Exploration,
                self.exploration,
                current.exploration,
            ))
        } else if self.test_class != current.test_class {
            Some(part(Part::TestClass, self.test_class, current.test_class))
        } else if self.testgen != current.testgen {
            Some(Outdated::Testgen {
                written: self.testgen.clone(),
            })
        } else {
            None
        }
    }
}

/// A part of an entry with a format of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Entry,
    Exploration,
    TestClass,
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Part::Entry => "cache entry",
            Part::Exploration => "exploration",
            Part::TestClass => "test model",
        })
    }
}

/// Why an entry was written for another testgen.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outdated {
    /// A part in another format than this testgen's.
    Format { part: Part, written: u32, read: u32 },
    /// Written by another testgen version.
    Testgen { written: String },
    /// Written before entries recorded their parts' formats.
    Unversioned,
}

impl std::fmt::Display for Outdated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outdated::Format {
                part,
                written,
                read,
            } => write!(
                f,
                "{part} format {written}, this testgen reads format {read}"
            ),
            Outdated::Testgen { written } => write!(
                f,
                "written by testgen {written}, this is testgen {}",
                env!("CARGO_PKG_VERSION")
            ),
            Outdated::Unversioned => f.write_str("written by an older testgen"),
        }
    }
}

/// Everything kept about one class.
#[derive(Debug, Serialize, Deserialize)]
pub struct Entry {
    pub formats: Formats,
    /// Binary name.
    pub class: String,
    /// SHA-256 of the class file the entry was made from.
    pub sha256: String,
    /// Hash of the options that shape the tests ([`super::options`]).
    pub settings: String,
    /// The other classes of the program the class depends on, with their
    /// SHA-256 when the entry was made: its fingerprint.
    pub dependencies: BTreeMap<String, String>,
    /// Per method (`name(descriptor)`): its key and what exploring found.
    pub methods: BTreeMap<String, CachedMethod>,
    pub result: CachedResult,
    /// Nightly deeper explorations in a row that covered nothing new.
    #[serde(default)]
    pub fruitless_deepenings: u32,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct CachedMethod {
    /// [`super::fingerprint::method_keys`] when it was explored.
    pub key: String,
    pub exploration: Exploration,
}

/// The class's written tests and the figures the report gives for them.
#[derive(Debug, Serialize, Deserialize)]
pub struct CachedResult {
    pub tests: usize,
    pub branches: usize,
    pub branches_covered: usize,
    pub infeasible: usize,
    pub uncovered: Vec<Uncovered>,
    /// The written file, relative to `--out`, and its content; `None` when
    /// no test passed.
    pub source: Option<(PathBuf, String)>,
    /// The tests of that file, to run again when a dependency changed.
    pub kept: Option<TestClass>,
    #[serde(default)]
    pub portability: Portability,
    #[serde(default)]
    pub static_state: StaticState,
    /// What the tests caught of the class's mutants, when analysed.
    #[serde(default)]
    pub mutation: Option<MutationScore>,
    #[serde(default)]
    pub possible_bugs: Vec<PossibleBug>,
}

impl Entry {
    /// What exploring each method found, by `name(descriptor)`.
    pub fn into_explorations<C: FromIterator<(String, Exploration)>>(self) -> C {
        explorations(self.methods)
    }
}

impl CachedResult {
    /// Branch outcomes neither covered nor proven infeasible.
    pub fn open_outcomes(&self) -> usize {
        self.branches
            .saturating_sub(self.branches_covered + self.infeasible)
    }
}

/// The explorations of cached methods, by `name(descriptor)`.
pub fn explorations<C: FromIterator<(String, Exploration)>>(
    methods: BTreeMap<String, CachedMethod>,
) -> C {
    methods
        .into_iter()
        .map(|(signature, cached)| (signature, cached.exploration))
        .collect()
}

/// What [`Cache::load`] found for a class.
pub enum Lookup {
    Missing,
    /// Written by another testgen or in another format: rebuilt.
    Outdated(Outdated),
    /// Unreadable or not an entry: rebuilt, with this warning.
    Corrupt(String),
    Found(Box<Entry>),
}

impl Cache {
    /// Opens (creating) the cache at `dir` and takes its lock, waiting for
    /// another run that holds it; `waiting` is called once if it has to.
    pub fn open(dir: &Path, waiting: impl FnOnce()) -> Result<Cache, FileError> {
        let classes = dir.join(CLASSES_DIR);
        fs::create_dir_all(&classes).map_err(FileError::io(FileAction::Create, &classes))?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(FileError::io(FileAction::Open, &lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                waiting();
                lock.lock()
                    .map_err(FileError::io(FileAction::Lock, &lock_path))?;
            }
            Err(TryLockError::Error(e)) => {
                return Err(FileError::io(FileAction::Lock, &lock_path)(e))
            }
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
            _lock: lock,
        })
    }

    fn entry_path(&self, binary: &str) -> PathBuf {
        self.dir.join(CLASSES_DIR).join(format!("{binary}.json"))
    }

    /// The entry of class `binary`, if there is a usable one.
    pub fn load(&self, binary: &str) -> Lookup {
        let path = self.entry_path(binary);
        let text = match fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::Missing,
            Err(e) => return Lookup::Corrupt(format!("{}: {e}", path.display())),
        };
        match serde_json::from_slice::<Entry>(&text) {
            Ok(entry) => match entry.formats.outdated() {
                Some(outdated) => Lookup::Outdated(outdated),
                None if entry.class == binary => Lookup::Found(Box::new(entry)),
                None => Lookup::Corrupt(format!(
                    "{} holds the entry of {}",
                    path.display(),
                    entry.class
                )),
            },
            // An entry of another format may not read as this one: only its
            // versions tell an upgrade from damage (read only then, as
            // entries are megabytes).
            Err(e) => {
                #[derive(Deserialize)]
                struct Versions {
                    formats: Option<Formats>,
                    /// The single version of entries before `formats`.
                    format: Option<u32>,
                }
                match serde_json::from_slice::<Versions>(&text) {
                    Ok(Versions {
                        formats: Some(formats),
                        ..
                    }) => match formats.outdated() {
                        Some(outdated) => Lookup::Outdated(outdated),
                        None => Lookup::Corrupt(format!("{}: {e}", path.display())),
                    },
                    Ok(Versions {
                        format: Some(_), ..
                    }) => Lookup::Outdated(Outdated::Unversioned),
                    _ => Lookup::Corrupt(format!("{}: {e}", path.display())),
                }
            }
        }
    }

    /// Writes `entry` (temporary file, then rename).
    pub fn store(&self, entry: &Entry) -> Result<(), FileError> {
        let path = self.entry_path(&entry.class);
        let text = serde_json::to_vec(entry).map_err(FileError::encode(&path))?;
        let partial = path.with_extension("json.partial");
        fs::write(&partial, text).map_err(FileError::io(FileAction::Write, &partial))?;
        fs::rename(&partial, &path).map_err(FileError::io(FileAction::Rename, &path))
    }

    /// Removes the entries of classes not in `keep` (binary names), and any
    /// partial file a killed run left; returns the classes removed.
    pub fn prune(&self, keep: &BTreeSet<&str>) -> Vec<String> {
        let mut removed = Vec::new();
        let Ok(listing) = fs::read_dir(self.dir.join(CLASSES_DIR)) else {
            return removed;
        };
        let mut paths: Vec<PathBuf> = listing.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.ends_with(".json.partial") {
                let _ = fs::remove_file(&path);
            } else if let Some(class) = name.strip_suffix(".json") {
                if !keep.contains(class) && fs::remove_file(&path).is_ok() {
                    removed.push(class.to_string());
                }
            }
        }
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir()
            .join("testgen-driver-tests")
            .join(format!("cache-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn entry(class: &str) -> Entry {
        Entry {
            formats: Formats::current(),
            class: class.into(),
            sha256: "ab".into(),
            settings: "cd".into(),
            dependencies: BTreeMap::from([("p/Dep".to_string(), "ef".to_string())]),
            methods: BTreeMap::new(),
            result: CachedResult {
                tests: 1,
                branches: 2,
                branches_covered: 1,
                infeasible: 0,
                uncovered: Vec::new(),
                source: Some(("p/AGeneratedTest.java".into(), "// source\n".into())),
                kept: None,
                portability: Portability::default(),
                static_state: StaticState::default(),
                mutation: None,
                possible_bugs: Vec::new(),
            },
            fruitless_deepenings: 0,
        }
    }

    #[test]
    fn entries_round_trip_and_damage_is_reported() {
        let dir = scratch("round-trip");
        let cache = Cache::open(&dir, || panic!("nobody else holds the lock")).unwrap();
        assert!(matches!(cache.load("p.A"), Lookup::Missing));
        cache.store(&entry("p.A")).unwrap();
        match cache.load("p.A") {
            Lookup::Found(found) => {
                assert_eq!(found.sha256, "ab");
                assert_eq!(found.dependencies["p/Dep"], "ef");
                assert_eq!(found.result.source.unwrap().1, "// source\n");
            }
            _ => panic!("the stored entry is found"),
        }

        // Cut in half, as by a crash in a run that did not rename.
        let path = cache.entry_path("p.A");
        let text = fs::read(&path).unwrap();
        fs::write(&path, &text[..text.len() / 2]).unwrap();
        assert!(matches!(cache.load("p.A"), Lookup::Corrupt(why) if why.contains("p.A.json")));

        // Another format of any part is outdated, not corrupt, and says
        // which part.
        let mut old = entry("p.A");
        old.formats.exploration = EXPLORATION_FORMAT + 1;
        cache.store(&old).unwrap();
        match cache.load("p.A") {
            Lookup::Outdated(outdated) => assert_eq!(
                outdated,
                Outdated::Format {
                    part: Part::Exploration,
                    written: EXPLORATION_FORMAT + 1,
                    read: EXPLORATION_FORMAT
                }
            ),
            _ => panic!("an entry of another exploration format is outdated"),
        }

        // So is one whose exploration no longer reads, when its versions
        // say it was written in another form.
        let mut text: serde_json::Value =
            serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
        text["methods"] = serde_json::json!({"m()V": {"key": "k", "exploration": {"tree": 7}}});
        fs::write(&path, text.to_string()).unwrap();
        assert!(matches!(
            cache.load("p.A"),
            Lookup::Outdated(Outdated::Format {
                part: Part::Exploration,
                ..
            })
        ));
        // ... while the same damage under this testgen's versions is damage.
        text["formats"] = serde_json::to_value(Formats::current()).unwrap();
        fs::write(&path, text.to_string()).unwrap();
        assert!(matches!(cache.load("p.A"), Lookup::Corrupt(_)));

        // An entry from before parts had versions.
        fs::write(
            &path,
            r#"{"format": 2, "testgen": "0.1.0", "class": "p.A"}"#,
        )
        .unwrap();
        assert!(matches!(
            cache.load("p.A"),
            Lookup::Outdated(Outdated::Unversioned)
        ));
    }

    #[test]
    fn prune_keeps_only_the_classes_named() {
        let dir = scratch("prune");
        let cache = Cache::open(&dir, || {}).unwrap();
        cache.store(&entry("p.A")).unwrap();
        cache.store(&entry("p.B")).unwrap();
        fs::write(dir.join(CLASSES_DIR).join("p.C.json.partial"), "{").unwrap();
        let removed = cache.prune(&BTreeSet::from(["p.A"]));
        assert_eq!(removed, vec!["p.B".to_string()]);
        assert!(matches!(cache.load("p.A"), Lookup::Found(_)));
        assert!(!dir.join(CLASSES_DIR).join("p.C.json.partial").exists());
    }

    #[test]
    fn a_second_opener_waits_for_the_first() {
        let dir = scratch("lock");
        let first = Cache::open(&dir, || panic!("the first run does not wait")).unwrap();
        let waited = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let second = scope.spawn(|| {
                Cache::open(&dir, || {
                    waited.store(true, std::sync::atomic::Ordering::SeqCst)
                })
                .map(|_| ())
            });
            // The second blocks until the first is dropped.
            std::thread::sleep(std::time::Duration::from_millis(200));
            assert!(!second.is_finished());
            drop(first);
            second.join().unwrap().unwrap();
        });
        assert!(waited.into_inner());
    }
}
