//! The per-class cache under `--cache`: what an incremental run needs to
//! skip a class that did not change, or to regenerate one without exploring
//! its unchanged methods again.
//!
//! Layout: `classes/<binary name>.json`, one [`Entry`] per class under test,
//! and `lock`, held (an OS file lock) for the whole run so two runs on one
//! cache take turns. Entries are written to a temporary file and renamed,
//! so a run that is killed leaves the old entry or the new one, never half
//! of one. An entry that cannot be read is reported and rebuilt.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, TryLockError};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use testgen_emit::TestClass;
use testgen_symbolic::explore::Exploration;

use super::class::Uncovered;
use super::portability::{Portability, StaticState};

/// Bumped whenever [`Entry`] changes shape or meaning: entries of another
/// format are rebuilt (quietly: that is an upgrade, not damage).
pub const FORMAT: u32 = 2;

const CLASSES_DIR: &str = "classes";
const LOCK_FILE: &str = "lock";

/// A cache directory, locked for as long as the value lives.
pub struct Cache {
    dir: PathBuf,
    /// Holds the lock; released when dropped (or when the process ends).
    _lock: File,
}

/// Everything kept about one class.
#[derive(Debug, Serialize, Deserialize)]
pub struct Entry {
    pub format: u32,
    /// The testgen version that wrote it.
    pub testgen: String,
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
    /// Written by another testgen or in another format: rebuilt quietly.
    Outdated,
    /// Unreadable or not an entry: rebuilt, with this warning.
    Corrupt(String),
    Found(Box<Entry>),
}

impl Cache {
    /// Opens (creating) the cache at `dir` and takes its lock, waiting for
    /// another run that holds it; `waiting` is called once if it has to.
    pub fn open(dir: &Path, waiting: impl FnOnce()) -> Result<Cache, String> {
        let classes = dir.join(CLASSES_DIR);
        fs::create_dir_all(&classes)
            .map_err(|e| format!("cannot create the cache {}: {e}", classes.display()))?;
        let lock_path = dir.join(LOCK_FILE);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| format!("cannot open the cache lock {}: {e}", lock_path.display()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                waiting();
                lock.lock()
                    .map_err(|e| format!("cannot lock the cache {}: {e}", lock_path.display()))?;
            }
            Err(TryLockError::Error(e)) => {
                return Err(format!(
                    "cannot lock the cache {}: {e}",
                    lock_path.display()
                ))
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
            Ok(entry) if entry.format != FORMAT || entry.testgen != env!("CARGO_PKG_VERSION") => {
                Lookup::Outdated
            }
            Ok(entry) if entry.class == binary => Lookup::Found(Box::new(entry)),
            Ok(entry) => Lookup::Corrupt(format!(
                "{} holds the entry of {}",
                path.display(),
                entry.class
            )),
            // An entry of another format may not read as this one: only its
            // version fields tell an upgrade from damage (read only then, as
            // entries are megabytes).
            Err(e) => {
                #[derive(Deserialize)]
                struct Version {
                    format: u32,
                    testgen: String,
                }
                match serde_json::from_slice::<Version>(&text) {
                    Ok(version)
                        if version.format != FORMAT
                            || version.testgen != env!("CARGO_PKG_VERSION") =>
                    {
                        Lookup::Outdated
                    }
                    _ => Lookup::Corrupt(format!("{}: {e}", path.display())),
                }
            }
        }
    }

    /// Writes `entry` (temporary file, then rename).
    pub fn store(&self, entry: &Entry) -> Result<(), String> {
        let path = self.entry_path(&entry.class);
        let text = serde_json::to_vec(entry).map_err(|e| format!("{}: {e}", path.display()))?;
        let partial = path.with_extension("json.partial");
        fs::write(&partial, text).map_err(|e| format!("{}: {e}", partial.display()))?;
        fs::rename(&partial, &path).map_err(|e| format!("{}: {e}", path.display()))
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
            format: FORMAT,
            testgen: env!("CARGO_PKG_VERSION").into(),
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

        // Another format is outdated, not corrupt.
        let mut old = entry("p.A");
        old.format = FORMAT + 1;
        cache.store(&old).unwrap();
        assert!(matches!(cache.load("p.A"), Lookup::Outdated));
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
