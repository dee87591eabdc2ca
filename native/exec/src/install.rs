//! Writing the executor's embedded class files to disk, where `java -cp`
//! can find them.
//!
//! Each version goes to its own directory, named by a hash of the classes,
//! so versions never mix. The directory appears atomically (written under a
//! temporary name, then renamed), and a concurrent writer of the same
//! version is harmless: whoever renames second finds the directory there and
//! keeps it.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

include!(concat!(env!("OUT_DIR"), "/executor_classes.rs"));

/// The class directory of the executor under `cache_dir`, written if it is
/// not there yet.
pub fn install_executor_classes(cache_dir: &Path) -> io::Result<PathBuf> {
    install(cache_dir, EXECUTOR_CLASSES)
}

fn install(cache_dir: &Path, classes: &[(&str, &[u8])]) -> io::Result<PathBuf> {
    let target = cache_dir.join(format!("executor-{}", version(classes)));
    if target.is_dir() {
        return Ok(target);
    }
    fs::create_dir_all(cache_dir)?;
    let temporary = unique_temporary(cache_dir);
    let written = write_classes(&temporary, classes).and_then(|()| fs::rename(&temporary, &target));
    match written {
        Ok(()) => Ok(target),
        // Someone else installed the same version first.
        Err(_) if target.is_dir() => {
            let _ = fs::remove_dir_all(&temporary);
            Ok(target)
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&temporary);
            Err(e)
        }
    }
}

/// The first 16 hex digits of a SHA-256 over the names and bytes.
fn version(classes: &[(&str, &[u8])]) -> String {
    let mut hasher = Sha256::new();
    for (name, bytes) in classes {
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hasher
        .finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn unique_temporary(cache_dir: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    cache_dir.join(format!(
        ".executor-tmp-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

fn write_classes(dir: &Path, classes: &[(&str, &[u8])]) -> io::Result<()> {
    // A leftover from a writer of this process that crashed is not ours to keep.
    let _ = fs::remove_dir_all(dir);
    for (name, bytes) in classes {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(&path, bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("testgen-install-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn installs_once_per_version() {
        let cache = scratch("once");
        let first = install_executor_classes(&cache).unwrap();
        assert!(first.join("dev/testgen/executor/Main.class").is_file());
        assert!(first.join("dev/testgen/executor/Probe.class").is_file());
        let again = install_executor_classes(&cache).unwrap();
        assert_eq!(first, again);

        let other = install(&cache, &[("a/B.class", b"\xca\xfe")]).unwrap();
        assert_ne!(first, other, "another version gets another directory");
        let leftovers: Vec<_> = fs::read_dir(&cache)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(".executor-tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        fs::remove_dir_all(&cache).unwrap();
    }

    #[test]
    fn concurrent_installers_agree() {
        let cache = scratch("concurrent");
        let dirs: Vec<PathBuf> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| install_executor_classes(&cache).unwrap()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(dirs.windows(2).all(|w| w[0] == w[1]));
        assert!(dirs[0].join("dev/testgen/executor/Main.class").is_file());
        fs::remove_dir_all(&cache).unwrap();
    }
}
