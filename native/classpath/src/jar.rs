//! Class files in a jar, including multi-release jars (JEP 238).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use zip::result::ZipError;
use zip::ZipArchive;

use crate::names::{check_entry_name, is_class_file_name, split_versioned, VERSIONS_PREFIX};
use crate::{
    manifest, read_capped, Classes, ContainerKind, EntryError, InputError, Location, Source, Step,
};

pub(crate) type Archive = ZipArchive<BufReader<File>>;

const MANIFEST_NAME: &str = "META-INF/MANIFEST.MF";

/// Opens `path` and reads its central directory.
pub(crate) fn open_archive(path: &Path) -> Result<Archive, InputError> {
    let io_error = |error| InputError::Io {
        path: path.to_owned(),
        error,
    };
    let file = File::open(path).map_err(io_error)?;
    ZipArchive::new(BufReader::new(file)).map_err(|error| match error {
        ZipError::Io(error) => io_error(error),
        other => InputError::NotZip {
            path: path.to_owned(),
            reason: other.to_string(),
        },
    })
}

/// Lists the class files of the jar at `path` as the JVM of `release` would
/// see them, sorted by class entry name.
pub(crate) fn classes(path: &Path, release: u16) -> Result<Classes, InputError> {
    let mut archive = open_archive(path)?;
    let location = |entry: &str| Location {
        container: path.to_owned(),
        kind: ContainerKind::Jar,
        entry: entry.to_owned(),
    };

    let mut steps = Vec::new();
    let multi_release = match read_manifest(&mut archive, &location) {
        Ok(manifest) => manifest.is_some_and(|bytes| manifest::is_multi_release(&bytes)),
        // Reported first, since it changes which entries follow.
        Err(error) => {
            steps.push(Step {
                location: error.location,
                source: Err(format!(
                    "cannot read the manifest, so the jar is treated as not multi-release: {}",
                    error.reason
                )),
            });
            false
        }
    };

    // Keyed by the entry name without any versions prefix, which is also
    // the order of the result. `None < Some(_)`, so a versioned entry beats
    // the base entry, and a higher version beats a lower one.
    let mut chosen: BTreeMap<&str, (Option<u16>, usize)> = BTreeMap::new();
    let mut rejected: Vec<(&str, String)> = Vec::new();
    for index in 0..archive.len() {
        let Some(entry) = archive.name_for_index(index) else {
            continue;
        };
        // Directories end in '/', and resources have other suffixes.
        if !is_class_file_name(entry) {
            continue;
        }
        let (version, name) = if !entry.starts_with(VERSIONS_PREFIX) {
            (None, entry)
        } else if !multi_release {
            // Outside a multi-release jar these are plain resources.
            continue;
        } else {
            match split_versioned(entry) {
                // The JDK never looks up versioned copies of META-INF itself.
                Some((version, name)) if version <= release && !name.starts_with("META-INF/") => {
                    (Some(version), name)
                }
                // Too new for `release`, or not a version directory at all.
                _ => continue,
            }
        };
        if let Err(reason) = check_entry_name(entry) {
            rejected.push((entry, reason));
            continue;
        }
        let candidate = (version, index);
        chosen
            .entry(name)
            .and_modify(|best| *best = (*best).max(candidate))
            .or_insert(candidate);
    }

    let mut listed: Vec<(&str, Step<usize>)> = chosen
        .into_iter()
        .map(|(name, (_, index))| {
            let entry = archive.name_for_index(index).unwrap_or(name);
            let step = Step {
                location: location(entry),
                source: Ok(index),
            };
            (name, step)
        })
        .chain(rejected.into_iter().map(|(entry, reason)| {
            let step = Step {
                location: location(entry),
                source: Err(reason),
            };
            (entry, step)
        }))
        .collect();
    listed.sort_by_key(|(name, _)| *name);
    steps.extend(listed.into_iter().map(|(_, step)| step));

    Ok(Classes {
        source: Source::Jar {
            archive,
            steps: steps.into_iter(),
        },
    })
}

/// Reads the entry at `index`, decompressing and checking its CRC.
pub(crate) fn read_entry(archive: &mut Archive, index: usize) -> Result<Vec<u8>, String> {
    let unsupported = match archive.by_index(index) {
        Ok(entry) => {
            let size = entry.size();
            return read_capped(entry, size);
        }
        Err(ZipError::UnsupportedArchive(reason)) => reason,
        Err(error) => return Err(describe(&error)),
    };
    // Name the compression method, which the zip crate's message leaves out.
    Err(match archive.by_index_raw(index) {
        Ok(raw) => format!("{unsupported} ({:?})", raw.compression()),
        Err(_) => unsupported.to_owned(),
    })
}

/// Reads the manifest, if there is one. Like the JDK, falls back to a
/// case-insensitive match of its name.
fn read_manifest(
    archive: &mut Archive,
    location: &impl Fn(&str) -> Location,
) -> Result<Option<Vec<u8>>, EntryError> {
    let index = archive.index_for_name(MANIFEST_NAME).or_else(|| {
        (0..archive.len()).find(|&index| {
            archive
                .name_for_index(index)
                .is_some_and(|name| name.eq_ignore_ascii_case(MANIFEST_NAME))
        })
    });
    let Some(index) = index else {
        return Ok(None);
    };
    let name = archive
        .name_for_index(index)
        .unwrap_or(MANIFEST_NAME)
        .to_owned();
    read_entry(archive, index)
        .map(Some)
        .map_err(|reason| EntryError {
            location: location(&name),
            reason,
        })
}

/// The zip crate's message for an error, with the OS reason for I/O errors
/// (its own `Display` says only "i/o error").
fn describe(error: &ZipError) -> String {
    match error {
        ZipError::Io(error) => error.to_string(),
        other => other.to_string(),
    }
}
