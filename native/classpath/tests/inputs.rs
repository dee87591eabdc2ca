//! Reads real directories and jars written into a temporary directory.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use testgen_classpath::{ClassBytes, ContainerKind, EntryError, Input, InputError};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!(
            "testgen-classpath-{}-{test}-{unique}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

const MULTI_RELEASE_MANIFEST: &[u8] =
    b"Manifest-Version: 1.0\r\nMulti-Release: true\r\nCreated-By: test\r\n\r\n";
const PLAIN_MANIFEST: &[u8] = b"Manifest-Version: 1.0\r\nCreated-By: test\r\n\r\n";

fn write_jar(path: &Path, entries: &[(&str, &[u8])], method: CompressionMethod) {
    let mut writer = ZipWriter::new(fs::File::create(path).unwrap());
    let options = SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in entries {
        if name.ends_with('/') {
            writer.add_directory(*name, options).unwrap();
        } else {
            writer.start_file(*name, options).unwrap();
            writer.write_all(bytes).unwrap();
        }
    }
    writer.finish().unwrap();
}

/// Reads everything from `path`, panicking on an `InputError`.
fn read_all(path: &Path, release: u16) -> Vec<Result<ClassBytes, EntryError>> {
    Input::open(path)
        .unwrap()
        .classes(release)
        .unwrap()
        .collect()
}

/// `(entry, bytes as text)` of the classes read; panics on an entry error.
fn read_ok(path: &Path, release: u16) -> Vec<(String, String)> {
    read_all(path, release)
        .into_iter()
        .map(|class| {
            let class = class.unwrap_or_else(|error| panic!("unexpected error: {error}"));
            let text = String::from_utf8(class.bytes).unwrap();
            (class.location.entry, text)
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(entry, text)| (entry.to_string(), text.to_string()))
        .collect()
}

/// Applies `change` to the bytes at `range` of the file at `path`.
fn patch(path: &Path, offset: u64, len: usize, change: impl Fn(u8) -> u8) {
    let mut bytes = fs::read(path).unwrap();
    let start = usize::try_from(offset).unwrap();
    for byte in &mut bytes[start..start + len] {
        *byte = change(*byte);
    }
    fs::write(path, bytes).unwrap();
}

/// Where the data of entry `name` starts, and where its local and central
/// headers start.
fn offsets(path: &Path, name: &str) -> (u64, u64, u64) {
    let mut archive = ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    let index = archive.index_for_name(name).unwrap();
    let entry = archive.by_index_raw(index).unwrap();
    (
        entry.data_start(),
        entry.header_start(),
        entry.central_header_start(),
    )
}

#[test]
fn plain_jar() {
    let dir = TempDir::new("plain");
    let jar = dir.path().join("plain.jar");
    write_jar(
        &jar,
        &[
            ("META-INF/", b""),
            ("META-INF/MANIFEST.MF", PLAIN_MANIFEST),
            ("org/", b""),
            ("org/example/", b""),
            ("org/example/Foo.class", b"Foo"),
            ("org/example/Bar.class", b"Bar"),
            ("org/example/messages.properties", b"x=y"),
            ("org/example.class", b"example"),
            ("module-info.class", b"module"),
        ],
        CompressionMethod::Deflated,
    );

    let input = Input::open(&jar).unwrap();
    assert_eq!(input, Input::Jar(jar.clone()));
    assert_eq!(
        read_ok(&jar, 17),
        pairs(&[
            ("module-info.class", "module"),
            ("org/example.class", "example"),
            ("org/example/Bar.class", "Bar"),
            ("org/example/Foo.class", "Foo"),
        ])
    );

    let first = read_all(&jar, 17).remove(0).unwrap();
    assert_eq!(first.location.container, jar);
    assert_eq!(first.location.kind, ContainerKind::Jar);
    assert_eq!(first.location.class_name(), Some("module-info"));
    assert_eq!(
        first.location.to_string(),
        format!("{}!/module-info.class", jar.display())
    );
}

fn multi_release_entries(manifest: &'static [u8]) -> Vec<(&'static str, &'static [u8])> {
    vec![
        ("META-INF/MANIFEST.MF", manifest),
        ("module-info.class", b"module base"),
        ("META-INF/versions/9/module-info.class", b"module 9"),
        ("org/example/A.class", b"A base"),
        ("META-INF/versions/9/org/example/A.class", b"A 9"),
        ("META-INF/versions/11/org/example/A.class", b"A 11"),
        ("META-INF/versions/21/org/example/A.class", b"A 21"),
        ("org/example/B.class", b"B base"),
        // Versioned only, with no base entry: still a class (JEP 238).
        ("META-INF/versions/11/org/example/C.class", b"C 11"),
        ("META-INF/versions/21/org/example/D.class", b"D 21"),
        // Not version directories the JVM would look in.
        ("META-INF/versions/8/org/example/B.class", b"B 8"),
        ("META-INF/versions/011/org/example/B.class", b"B 011"),
        ("META-INF/versions/x/org/example/B.class", b"B x"),
        ("META-INF/versions/11/org/example/notes.txt", b"resource"),
    ]
}

#[test]
fn multi_release_jar_chooses_by_release() {
    let dir = TempDir::new("multi-release");
    let jar = dir.path().join("mr.jar");
    write_jar(
        &jar,
        &multi_release_entries(MULTI_RELEASE_MANIFEST),
        CompressionMethod::Deflated,
    );

    assert_eq!(
        read_ok(&jar, 8),
        pairs(&[
            ("module-info.class", "module base"),
            ("org/example/A.class", "A base"),
            ("org/example/B.class", "B base"),
        ])
    );
    assert_eq!(
        read_ok(&jar, 11),
        pairs(&[
            ("META-INF/versions/9/module-info.class", "module 9"),
            ("META-INF/versions/11/org/example/A.class", "A 11"),
            ("org/example/B.class", "B base"),
            ("META-INF/versions/11/org/example/C.class", "C 11"),
        ])
    );
    assert_eq!(
        read_ok(&jar, 17),
        pairs(&[
            ("META-INF/versions/9/module-info.class", "module 9"),
            ("META-INF/versions/11/org/example/A.class", "A 11"),
            ("org/example/B.class", "B base"),
            ("META-INF/versions/11/org/example/C.class", "C 11"),
        ])
    );
    assert_eq!(
        read_ok(&jar, 21),
        pairs(&[
            ("META-INF/versions/9/module-info.class", "module 9"),
            ("META-INF/versions/21/org/example/A.class", "A 21"),
            ("org/example/B.class", "B base"),
            ("META-INF/versions/11/org/example/C.class", "C 11"),
            ("META-INF/versions/21/org/example/D.class", "D 21"),
        ])
    );

    let versioned = read_all(&jar, 21).remove(1).unwrap();
    assert_eq!(versioned.location.class_name(), Some("org/example/A"));
    assert_eq!(
        versioned.location.to_string(),
        format!(
            "{}!/META-INF/versions/21/org/example/A.class",
            jar.display()
        )
    );
}

#[test]
fn multi_release_attribute_is_case_insensitive_and_may_be_continued() {
    let dir = TempDir::new("multi-release-spelling");
    let jar = dir.path().join("mr.jar");
    let manifest: &'static [u8] = b"Manifest-Version: 1.0\nmulti-release: TR\n UE\n";
    write_jar(
        &jar,
        &multi_release_entries(manifest),
        CompressionMethod::Stored,
    );
    let entries: Vec<String> = read_ok(&jar, 11).into_iter().map(|(e, _)| e).collect();
    assert!(entries.contains(&"META-INF/versions/11/org/example/A.class".to_owned()));
}

#[test]
fn versions_are_ignored_without_multi_release_attribute() {
    let dir = TempDir::new("not-multi-release");
    let with_manifest = dir.path().join("plain-manifest.jar");
    let without_manifest = dir.path().join("no-manifest.jar");
    write_jar(
        &with_manifest,
        &multi_release_entries(PLAIN_MANIFEST),
        CompressionMethod::Deflated,
    );
    let mut entries = multi_release_entries(PLAIN_MANIFEST);
    entries.remove(0);
    write_jar(&without_manifest, &entries, CompressionMethod::Deflated);

    for jar in [with_manifest, without_manifest] {
        assert_eq!(
            read_ok(&jar, 21),
            pairs(&[
                ("module-info.class", "module base"),
                ("org/example/A.class", "A base"),
                ("org/example/B.class", "B base"),
            ]),
            "{}",
            jar.display()
        );
    }
}

#[test]
fn damaged_entries_are_reported_and_the_rest_is_read() {
    let dir = TempDir::new("damaged");
    let stored = dir.path().join("stored.jar");
    let deflated = dir.path().join("deflated.jar");
    let content: &[u8] = &[b'x'; 4096];
    let entries = [
        ("a/A.class", content),
        ("a/B.class", content),
        ("a/C.class", content),
    ];
    write_jar(&stored, &entries, CompressionMethod::Stored);
    write_jar(&deflated, &entries, CompressionMethod::Deflated);

    for jar in [&stored, &deflated] {
        let (data_start, _, _) = offsets(jar, "a/B.class");
        patch(jar, data_start + 2, 4, |byte| !byte);

        let results = read_all(jar, 17);
        assert_eq!(results.len(), 3);
        assert_eq!(results[0].as_ref().unwrap().bytes, content);
        assert_eq!(results[2].as_ref().unwrap().bytes, content);
        let error = results[1].as_ref().unwrap_err();
        assert_eq!(error.location.entry, "a/B.class");
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}!/a/B.class: ", jar.display())),
            "{error}"
        );
    }
    let error = read_all(&stored, 17).remove(1).unwrap_err();
    assert!(error.reason.contains("checksum"), "{error}");
}

#[test]
fn unsupported_compression_is_reported() {
    let dir = TempDir::new("unsupported");
    let jar = dir.path().join("imploded.jar");
    write_jar(
        &jar,
        &[("A.class", b"A"), ("B.class", b"B")],
        CompressionMethod::Stored,
    );
    // Claim method 6 (implode) in both headers of A.class.
    let (_, local, central) = offsets(&jar, "A.class");
    patch(&jar, local + 8, 1, |_| 6);
    patch(&jar, central + 10, 1, |_| 6);

    let results = read_all(&jar, 17);
    let error = results[0].as_ref().unwrap_err();
    assert_eq!(error.location.entry, "A.class");
    assert!(error.reason.contains("not supported"), "{error}");
    assert_eq!(results[1].as_ref().unwrap().bytes, b"B");
}

#[test]
fn oversized_entries_are_refused() {
    let dir = TempDir::new("oversized");
    let jar = dir.path().join("big.jar");
    {
        let mut writer = ZipWriter::new(fs::File::create(&jar).unwrap());
        let options = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
        writer.start_file("Big.class", options).unwrap();
        let chunk = vec![0u8; 1 << 20];
        for _ in 0..65 {
            writer.write_all(&chunk).unwrap();
        }
        writer.start_file("Small.class", options).unwrap();
        writer.write_all(b"small").unwrap();
        writer.finish().unwrap();
    }

    let results = read_all(&jar, 17);
    let error = results[0].as_ref().unwrap_err();
    assert_eq!(error.location.entry, "Big.class");
    assert!(error.reason.contains("declared size"), "{error}");
    assert_eq!(results[1].as_ref().unwrap().bytes, b"small");

    // Now make the central directory understate the size: the read must
    // still stop at the limit.
    let (_, _, central) = offsets(&jar, "Big.class");
    patch(&jar, central + 24, 4, |_| 0);
    let error = read_all(&jar, 17).remove(0).unwrap_err();
    assert!(error.reason.contains("limit"), "{error}");
    assert!(!error.reason.contains("declared size"), "{error}");
}

#[test]
fn unsafe_entry_names_are_reported() {
    let dir = TempDir::new("unsafe-names");
    let jar = dir.path().join("unsafe.jar");
    write_jar(
        &jar,
        &[
            ("../Escape.class", b"escape"),
            ("a/./B.class", b"B"),
            ("a/C.class", b"C"),
        ],
        CompressionMethod::Stored,
    );
    let results = read_all(&jar, 17);
    let summary: Vec<(String, bool)> = results
        .iter()
        .map(|result| match result {
            Ok(class) => (class.location.entry.clone(), true),
            Err(error) => {
                assert!(error.reason.contains("unsafe entry name"), "{error}");
                (error.location.entry.clone(), false)
            }
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("../Escape.class".to_owned(), false),
            ("a/./B.class".to_owned(), false),
            ("a/C.class".to_owned(), true),
        ]
    );
}

#[test]
fn a_file_that_is_not_a_zip_is_an_input_error() {
    let dir = TempDir::new("not-zip");
    let path = dir.path().join("notes.jar");
    fs::write(&path, "this is not a zip archive\n").unwrap();
    let error = Input::open(&path).unwrap_err();
    assert!(matches!(error, InputError::NotZip { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
}

#[test]
fn a_missing_path_is_an_input_error() {
    let dir = TempDir::new("missing");
    let path = dir.path().join("missing.jar");
    let error = Input::open(&path).unwrap_err();
    assert!(matches!(error, InputError::Io { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("No such file"), "{message}");
}

#[cfg(unix)]
#[test]
fn directory_tree() {
    use std::os::unix::fs::{symlink, PermissionsExt};

    let dir = TempDir::new("directory");
    let root = dir.path().join("classes");
    let files: &[(&str, &str)] = &[
        ("Top.class", "Top"),
        ("org/example.class", "example"),
        ("org/example/A.class", "A"),
        ("org/example/A$Inner.class", "A$Inner"),
        ("org/example/sub/B.class", "B"),
        ("org/example/readme.txt", "not a class"),
        ("org/example/Locked.class", "locked"),
        ("org/hidden/H.class", "hidden"),
        // Only jars are multi-release; these would be duplicates.
        ("META-INF/versions/11/org/example/A.class", "A 11"),
    ];
    for (name, text) in files {
        let path = root.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    // A directory named like a class file is not one.
    fs::create_dir_all(root.join("org/Dir.class")).unwrap();
    // A link back to an ancestor must not make the walk loop.
    symlink("..", root.join("org/example/loop")).unwrap();

    let locked_file = root.join("org/example/Locked.class");
    let locked_dir = root.join("org/hidden");
    fs::set_permissions(&locked_file, fs::Permissions::from_mode(0o000)).unwrap();
    fs::set_permissions(&locked_dir, fs::Permissions::from_mode(0o000)).unwrap();
    // Root reads anything whatever its mode, so the denial cannot be
    // observed there; only then are the locked entries expected to fail.
    let enforced = fs::read(&locked_file).is_err();

    let input = Input::open(&root).unwrap();
    assert_eq!(input, Input::Directory(root.clone()));
    let results: Vec<_> = input.classes(17).unwrap().collect();
    fs::set_permissions(&locked_dir, fs::Permissions::from_mode(0o755)).unwrap();
    fs::set_permissions(&locked_file, fs::Permissions::from_mode(0o644)).unwrap();

    let mut read = Vec::new();
    let mut failed = Vec::new();
    for result in results {
        match result {
            Ok(class) => {
                assert_eq!(class.location.kind, ContainerKind::Directory);
                assert_eq!(class.location.container, root);
                read.push((
                    class.location.entry,
                    String::from_utf8(class.bytes).unwrap(),
                ));
            }
            Err(error) => {
                assert!(error.reason.contains("denied"), "{error}");
                failed.push(error.location.entry);
            }
        }
    }

    let mut expected = pairs(&[
        ("Top.class", "Top"),
        ("org/example.class", "example"),
        ("org/example/A$Inner.class", "A$Inner"),
        ("org/example/A.class", "A"),
        ("org/example/Locked.class", "locked"),
        ("org/example/sub/B.class", "B"),
        ("org/hidden/H.class", "hidden"),
    ]);
    if enforced {
        expected.retain(|(entry, _)| {
            entry != "org/example/Locked.class" && entry != "org/hidden/H.class"
        });
        assert_eq!(failed, ["org/example/Locked.class", "org/hidden"]);
    } else {
        assert!(failed.is_empty(), "{failed:?}");
    }
    assert_eq!(read, expected);

    let location = read_all(&root, 17).remove(0).unwrap().location;
    assert_eq!(
        location.to_string(),
        format!("{}/Top.class", root.display())
    );
}

#[test]
fn order_is_deterministic() {
    let dir = TempDir::new("deterministic");
    let jar = dir.path().join("mr.jar");
    write_jar(
        &jar,
        &multi_release_entries(MULTI_RELEASE_MANIFEST),
        CompressionMethod::Deflated,
    );
    assert_eq!(read_all(&jar, 17), read_all(&jar, 17));
    assert_eq!(read_all(dir.path(), 17), read_all(dir.path(), 17));
}

#[test]
fn real_jar() {
    let path = Path::new("/usr/share/java/commons-cli.jar");
    if !path.exists() {
        eprintln!("skipped: {} is not installed", path.display());
        return;
    }
    let classes = Input::open(path).unwrap().classes(17).unwrap();
    let expected = classes.len();
    let classes: Vec<ClassBytes> = classes
        .map(|class| class.unwrap_or_else(|error| panic!("{error}")))
        .collect();
    assert_eq!(classes.len(), expected);
    assert!(classes.len() > 20, "only {} classes", classes.len());
    for class in &classes {
        assert!(
            class.bytes.starts_with(&[0xCA, 0xFE, 0xBA, 0xBE]),
            "{}",
            class.location
        );
    }
    let entries: Vec<&str> = classes
        .iter()
        .map(|class| class.location.entry.as_str())
        .collect();
    assert!(entries.is_sorted(), "{entries:?}");
    assert!(
        entries.contains(&"org/apache/commons/cli/Options.class"),
        "{entries:?}"
    );
}
