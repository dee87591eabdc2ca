//! What an incremental run does with each class, decided from the cache:
//!
//! | the cache has an entry with...                  | the class is...            |
//! |-------------------------------------------------|----------------------------|
//! | the same hash, settings and fingerprint         | `unchanged`: nothing runs  |
//! | the same hash and settings, another fingerprint | `revalidated`: its tests run again; regenerated (trees reused) if one fails |
//! | another hash                                    | regenerated, reusing the trees of methods whose keys did not change |
//! | nothing usable (or `--mode full`)               | generated from scratch     |
//!
//! A nightly run ([`nightly`]) also explores unchanged classes with branch
//! outcomes left open again, deeper, most open first, within the run's
//! total budget; one whose last deeper explorations found nothing new is
//! skipped.

use std::collections::{BTreeMap, BTreeSet};

use testgen_analysis::Hierarchy;
use testgen_classfile::ClassFile;
use testgen_emit::TestClass;
use testgen_project::Blocker;
use testgen_symbolic::explore::Exploration;

use super::cache::{explorations, CachedMethod, CachedResult, Entry, Formats, Lookup};
use super::class::ClassOutcome;
use super::fingerprint;
use super::inputs::InputsBuilt;
use super::options::NIGHTLY_FRUITLESS_LIMIT;
use super::program::LoadedClass;
use super::report::Status;

/// The work a class needs.
pub enum Job {
    /// Nothing to do: the outcome is the cached one.
    Unchanged(Box<Entry>),
    /// Nightly: unchanged and left alone, for the reason given.
    Skipped(Box<Entry>, String),
    /// Nightly: unchanged, but explored again, deeper, for what is still
    /// uncovered; the cached outcome stands unless more is covered.
    Deepen(Box<Entry>),
    /// Run the cached tests again (a class it depends on changed).
    Revalidate(Box<Entry>),
    /// Explore and generate; these methods' explorations are reused.
    Generate(BTreeMap<String, Exploration>),
}

/// What a class is checked against: its method keys and fingerprint.
pub struct Identity {
    pub method_keys: BTreeMap<String, String>,
    pub settings: String,
}

/// Decides a class's job from what the cache holds for it.
pub fn job_for(
    class: &LoadedClass,
    identity: &Identity,
    lookup: Lookup,
    dependencies: impl Fn(Option<&TestClass>) -> BTreeMap<String, String>,
) -> Job {
    let Lookup::Found(entry) = lookup else {
        return Job::Generate(BTreeMap::new());
    };
    if entry.settings != identity.settings {
        return Job::Generate(BTreeMap::new());
    }
    if entry.sha256 == class.sha256 {
        return if entry.dependencies == dependencies(entry.result.kept.as_ref()) {
            Job::Unchanged(entry)
        } else {
            Job::Revalidate(entry)
        };
    }
    Job::Generate(reusable(*entry, &identity.method_keys))
}

/// A nightly run's view of an unchanged class: explored again if it has
/// branch outcomes neither covered nor proven infeasible, unless the last
/// deeper explorations found nothing new.
pub fn nightly(job: Job) -> Job {
    let Job::Unchanged(entry) = job else {
        return job;
    };
    let open = entry.result.open_outcomes();
    if open == 0 {
        Job::Unchanged(entry)
    } else if entry.fruitless_deepenings >= NIGHTLY_FRUITLESS_LIMIT {
        let why = format!(
            "nightly: skipped, the last {} deeper explorations covered nothing new ({open} branch outcomes open)",
            entry.fruitless_deepenings
        );
        Job::Skipped(entry, why)
    } else {
        Job::Deepen(entry)
    }
}

/// Branch outcomes of a deepening candidate neither covered nor proven
/// infeasible: the nightly queue takes the most open first.
pub fn open_outcomes(job: &Job) -> usize {
    match job {
        Job::Deepen(entry) => entry.result.open_outcomes(),
        _ => 0,
    }
}

/// The explorations of `entry` whose methods still have the same key (not
/// those the class's budget left no time for: they are explored now).
pub fn reusable(entry: Entry, keys: &BTreeMap<String, String>) -> BTreeMap<String, Exploration> {
    let methods = entry
        .methods
        .into_iter()
        .filter(|(signature, cached)| keys.get(signature) == Some(&cached.key))
        .collect();
    let mut reusable: BTreeMap<String, Exploration> = explorations(methods);
    reusable.retain(|_, found| found.failure != Some(Blocker::Budget));
    reusable
}

/// The class's outcome as the cache remembers it.
pub fn outcome_from(class: &LoadedClass, entry: Entry, status: Status) -> ClassOutcome {
    let Entry {
        methods, result, ..
    } = entry;
    let explorations: Vec<(String, Exploration)> = explorations(methods);
    ClassOutcome {
        status,
        source: result.source,
        tests: result.tests,
        branches: result.branches,
        branches_covered: result.branches_covered,
        infeasible: result.infeasible,
        uncovered: result.uncovered,
        kept: result.kept,
        portability: result.portability,
        static_state: result.static_state,
        mutation: result.mutation,
        possible_bugs: result.possible_bugs,
        inputs: InputsBuilt::of_explorations(&explorations, &class.public_methods()),
        explorations,
        ..ClassOutcome::new(class)
    }
}

/// After a nightly deeper exploration of an unchanged class: the new
/// outcome when it covers more than the cached one (and did not fail),
/// else the cached one, counted as fruitless.
pub fn keep_the_better(class: &LoadedClass, entry: Entry, deeper: ClassOutcome) -> ClassOutcome {
    let before = entry.result.branches_covered;
    if deeper.failure.is_none() && deeper.branches_covered > before {
        let mut outcome = deeper;
        outcome.note = Some(format!(
            "nightly: deeper exploration covered {} more branch outcomes",
            outcome.branches_covered - before
        ));
        return outcome;
    }
    let fruitless = entry.fruitless_deepenings + 1;
    let mut outcome = outcome_from(class, entry, Status::Unchanged);
    outcome.effort = deeper.effort;
    outcome.note = Some(format!(
        "nightly: deeper exploration covered nothing new ({fruitless} time(s) in a row); the tests are as they were"
    ));
    outcome.fruitless_deepenings = Some(fruitless);
    outcome
}

/// The cache entry for a class just generated or revalidated; `None` for a
/// class that failed (it is tried again next time).
pub fn entry_from(
    outcome: &mut ClassOutcome,
    identity: &Identity,
    dependencies: impl FnOnce(Option<&TestClass>) -> BTreeMap<String, String>,
) -> Option<Entry> {
    let fruitless_deepenings = match (outcome.status, outcome.fruitless_deepenings) {
        (Status::Unchanged, None) => return None,
        (_, count) => count.unwrap_or(0),
    };
    if outcome.failure.is_some() {
        return None;
    }
    let methods = std::mem::take(&mut outcome.explorations)
        .into_iter()
        .filter_map(|(signature, exploration)| {
            let key = identity.method_keys.get(&signature)?.clone();
            Some((signature, CachedMethod { key, exploration }))
        })
        .collect();
    Some(Entry {
        formats: Formats::current(),
        class: outcome.binary.clone(),
        sha256: outcome.sha256.clone(),
        settings: identity.settings.clone(),
        dependencies: dependencies(outcome.kept.as_ref()),
        methods,
        result: CachedResult {
            tests: outcome.tests,
            branches: outcome.branches,
            branches_covered: outcome.branches_covered,
            infeasible: outcome.infeasible,
            uncovered: outcome.uncovered.clone(),
            source: outcome.source.clone(),
            kept: outcome.kept.take(),
            portability: outcome.portability.clone(),
            static_state: outcome.static_state.clone(),
            mutation: outcome.mutation.clone(),
            possible_bugs: outcome.possible_bugs.clone(),
        },
        fruitless_deepenings,
    })
}

/// The fingerprint of a class: the SHA-256 of every other class of the
/// program that it names, that its tests name (a parameter's
/// implementation, say), and of all their supertypes.
pub fn dependency_hashes(
    hierarchy: &Hierarchy,
    file: &ClassFile<'_>,
    kept: Option<&TestClass>,
    hashes: &BTreeMap<&str, &str>,
) -> BTreeMap<String, String> {
    let names: BTreeSet<&str> = hashes.keys().copied().collect();
    let mut found = fingerprint::dependencies(file, &names);
    if let Some(kept) = kept {
        if let Ok(plans) =
            serde_json::to_value(kept.tests.iter().map(|t| &t.plan).collect::<Vec<_>>())
        {
            collect_class_names(&plans, &names, &mut found);
        }
    }
    let own = file.name().map(|n| n.into_owned()).unwrap_or_default();
    let mut closure = BTreeSet::new();
    for name in found.iter().chain(std::iter::once(&own)) {
        closure.insert(name.clone());
        closure.extend(hierarchy.supertypes(name).into_iter().map(str::to_string));
    }
    found.extend(closure.into_iter().filter(|n| names.contains(n.as_str())));
    found.remove(&own);
    found
        .into_iter()
        .filter_map(|name| {
            let hash = hashes.get(name.as_str())?.to_string();
            Some((name, hash))
        })
        .collect()
}

/// Every string in `value` that names a class of the program (with dots
/// or slashes), as an internal name.
fn collect_class_names(
    value: &serde_json::Value,
    names: &BTreeSet<&str>,
    out: &mut BTreeSet<String>,
) {
    match value {
        serde_json::Value::String(text) => {
            let internal = text.replace('.', "/");
            if names.contains(internal.as_str()) {
                out.insert(internal);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                collect_class_names(item, names, out);
            }
        }
        serde_json::Value::Object(fields) => {
            for item in fields.values() {
                collect_class_names(item, names, out);
            }
        }
        _ => {}
    }
}
