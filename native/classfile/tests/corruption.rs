//! Mutated real class files: the reader returns an error or a value, and
//! never panics, hangs, or allocates far beyond what the input size implies.
//!
//! The mutations are drawn from a fixed seed, so a failure names a case
//! number that reproduces it.
// A counting allocator is the only way to measure what the reader allocates.
#![allow(unsafe_code)]

mod support;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use testgen_classfile::ClassFile;

/// Counts the bytes this thread has allocated and not yet freed, and the peak.
struct CountingAllocator;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn note_alloc(size: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + size;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn note_free(size: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(size)));
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            note_alloc(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        note_free(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            note_free(layout.size());
            note_alloc(new_size);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// Peak bytes allocated while running `work`, beyond what was live before.
fn peak_allocation<T>(work: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let result = work();
    (result, PEAK.with(Cell::get) - before)
}

/// splitmix64: tiny, fast, and the same sequence on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

/// Where to mutate: half the time anywhere, half the time in the last 60%
/// of the file, past most of the constant pool, so that members, attributes
/// and bytecode get their share of damage.
fn position(len: usize, rng: &mut Rng) -> usize {
    if rng.below(2) == 0 {
        rng.below(len)
    } else {
        len * 2 / 5 + rng.below(len - len * 2 / 5)
    }
}

/// One random change to `bytes`.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Rng) {
    const INTERESTING_BYTES: [u8; 6] = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];
    const INTERESTING_WORDS: [u32; 5] = [0xffff, 0x7fff_ffff, 0xffff_ffff, 0x8000_0000, 0x1_0000];
    let len = bytes.len();
    match rng.below(7) {
        0 if len > 0 => {
            let at = position(len, rng);
            bytes[at] ^= 1 << rng.below(8);
        }
        1 if len > 0 => {
            let at = position(len, rng);
            bytes[at] = INTERESTING_BYTES[rng.below(INTERESTING_BYTES.len())];
        }
        2 if len >= 4 => {
            // Plant a huge count or length where a u16 or u32 field may be.
            let at = position(len - 3, rng);
            let word = INTERESTING_WORDS[rng.below(INTERESTING_WORDS.len())];
            if rng.below(2) == 0 {
                bytes[at..at + 4].copy_from_slice(&word.to_be_bytes());
            } else {
                bytes[at..at + 2].copy_from_slice(&(word as u16).to_be_bytes());
            }
        }
        3 => {
            let at = position(len + 1, rng);
            let count = 1 + rng.below(16);
            let inserted: Vec<u8> = (0..count).map(|_| rng.next() as u8).collect();
            bytes.splice(at..at, inserted);
        }
        4 if len > 0 => {
            let at = position(len, rng);
            let count = 1 + rng.below(64.min(len - at));
            bytes.drain(at..at + count);
        }
        5 => bytes.truncate(position(len + 1, rng)),
        6 if len > 0 => {
            // Copy a range elsewhere: shifts structures against each other.
            let from = position(len, rng);
            let count = 1 + rng.below(32.min(len - from));
            let copied = bytes[from..from + count].to_vec();
            let at = position(len + 1, rng);
            bytes.splice(at..at, copied);
        }
        _ => bytes.push(rng.next() as u8),
    }
}

fn seeds() -> Vec<(String, Vec<u8>)> {
    let mut seeds = support::fixture_classes();
    for (jar, every) in [
        ("/usr/share/java/commons-cli.jar", 1),
        ("/usr/share/java/commons-codec.jar", 3),
        ("/usr/share/java/guava.jar", 97),
    ] {
        let classes = support::jar_classes(Path::new(jar))
            .unwrap_or_else(|e| panic!("{jar} must exist (run scripts/setup.sh): {e}"));
        seeds.extend(classes.into_iter().step_by(every));
    }
    seeds
}

/// `UnexpectedEnd { needed: 2 }` -> `UnexpectedEnd`.
fn variant_name(kind: &testgen_classfile::ErrorKind) -> String {
    let debug = format!("{kind:?}");
    debug
        .split(['(', ' ', '{'])
        .next()
        .unwrap_or_default()
        .to_string()
}

const CASES: usize = 250_000;
/// Generous: the largest legitimate ratio comes from one-byte stack map
/// frames, each a small struct. A hostile length that led to an allocation
/// would show as megabytes.
const ALLOWED_BYTES_PER_INPUT_BYTE: usize = 100;
const ALLOWED_FIXED_BYTES: usize = 64 * 1024;
/// Far beyond any real parse (microseconds); only a hang comes near it.
const HANG_LIMIT: Duration = Duration::from_secs(2);

#[test]
fn mutated_class_files_never_panic_hang_or_overallocate() {
    let seeds = seeds();
    assert!(seeds.len() >= 60, "too few seed classes: {}", seeds.len());
    for (name, bytes) in &seeds {
        let parsed = ClassFile::parse(bytes).and_then(|class| class.check());
        assert!(parsed.is_ok(), "seed {name} must parse: {parsed:?}");
    }

    let mut rng = Rng(0x7e57_6e00_5eed);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut worst_ratio = 0.0f64;
    let mut slowest = Duration::ZERO;
    for case in 0..CASES {
        let (seed_name, seed) = &seeds[rng.below(seeds.len())];
        let mut bytes = seed.clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut bytes, &mut rng);
        }
        let started = Instant::now();
        let outcome = std::panic::catch_unwind(|| {
            peak_allocation(|| ClassFile::parse(&bytes).and_then(|class| class.check()))
        });
        let elapsed = started.elapsed();
        let Ok((result, peak)) = outcome else {
            panic!("case {case} (mutated {seed_name}) panicked");
        };
        let label = match result {
            Ok(()) => "parsed".to_string(),
            Err(error) => variant_name(error.kind()),
        };
        assert!(
            elapsed < HANG_LIMIT,
            "case {case} (mutated {seed_name}) took {elapsed:?}"
        );
        let allowed = ALLOWED_BYTES_PER_INPUT_BYTE * bytes.len() + ALLOWED_FIXED_BYTES;
        assert!(
            peak <= allowed,
            "case {case} (mutated {seed_name}, {} bytes) allocated {peak} bytes",
            bytes.len()
        );
        worst_ratio = worst_ratio.max(peak as f64 / bytes.len().max(1) as f64);
        slowest = slowest.max(elapsed);
        *outcomes.entry(label).or_default() += 1;
    }
    println!(
        "corruption: {CASES} cases over {} seeds; worst allocation {worst_ratio:.1} bytes per input byte; slowest case {slowest:?}",
        seeds.len()
    );
    for (outcome, count) in &outcomes {
        println!("  {count:>7}  {outcome}");
    }
    // The mutations must reach both outcomes, or they test too little.
    let parsed = outcomes.get("parsed").copied().unwrap_or(0);
    assert!(
        parsed > CASES / 100,
        "too few mutated classes still parse: {parsed}"
    );
    assert!(
        outcomes.len() >= 8,
        "too few kinds of error reached: {outcomes:?}"
    );
}
