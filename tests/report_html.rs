//! `testgen-report.html` as a person sees it: `testgen generate` runs on
//! `fixtures/demo` with `--sources fixtures/demo/src` and few runs per
//! method (so that branch outcomes stay open), and the page it writes is
//! checked as text and in a real headless Chromium.
//!
//! Checked: the page is beside the JSON and shows the JSON's summary
//! figures; it has SVG pictures, no script and no reference to anything
//! outside the page; each open outcome's source line is shown, escaped; the
//! coverage curve has a point per class generated in this run. Chromium
//! renders it without console errors to a 1280x2000 screenshot
//! (`target/report-html/screenshot.png`) that is not blank and shows the
//! bars' "covered" green; its DOM has one class row per class of the JSON.
//! A second, incremental run (every class unchanged) writes the page again,
//! every `finished_seconds` 0.
//!
//! Registered as an integration test of `testgen_cli` (so that Cargo builds
//! the binary) by a `[[test]]` entry in `native/cli/Cargo.toml`. Needs the
//! JDK, JUnit and `chromium` (`scripts/setup.sh` installs them); without
//! Chromium the test fails and says so.

use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use testgen_testkit::{compile_fixture, repo_root, scratch_dir};

/// The covered segments' colour in the bars (`html.rs`).
const COVERED_GREEN: [u8; 3] = [0x00, 0x9e, 0x73];
const WIDTH: u32 = 1280;
const HEIGHT: u32 = 2000;

struct Run {
    report: Value,
    html: String,
    html_path: PathBuf,
}

/// `testgen generate` on the demo classes with their sources, into `dir`.
fn generate(dir: &Path, classes: &Path, mode: &str) -> Run {
    let sources = repo_root().join("fixtures/demo/src");
    let report_dir = dir.join("report");
    let output = Command::new(env!("CARGO_BIN_EXE_testgen"))
        .arg("generate")
        .arg("--classes")
        .arg(classes)
        .arg("--out")
        .arg(dir.join("generated-tests"))
        .arg("--report")
        .arg(&report_dir)
        .arg("--sources")
        .arg(&sources)
        // Few runs, so that some outcomes stay open and show their source.
        .args([
            "--max-runs",
            "3",
            "--max-evaluations",
            "50",
            "--budget",
            "20",
        ])
        .args(["--mode", mode])
        .output()
        .expect("the testgen binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stderr}");
    assert!(
        output.status.success(),
        "testgen generate failed:\n{stderr}"
    );
    let json = fs::read_to_string(report_dir.join("testgen-report.json")).unwrap();
    let html_path = report_dir.join("testgen-report.html");
    let html = fs::read_to_string(&html_path).unwrap_or_else(|e| {
        panic!(
            "{} was not written beside the JSON: {e}",
            html_path.display()
        )
    });
    Run {
        report: serde_json::from_str(&json).unwrap(),
        html,
        html_path,
    }
}

/// HTML escaping as the page must do it (written independently of html.rs).
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"))
}

/// The summary figures of the JSON, each where the page shows it.
fn assert_summary_matches(html: &str, report: &Value) {
    let summary = &report["summary"];
    let figures = [
        ("classes", summary["classes"].to_string()),
        ("tests", summary["tests"].to_string()),
        ("branches-covered", summary["branches_covered"].to_string()),
        ("branches", summary["branches"].to_string()),
        (
            "branches-infeasible",
            summary["branches_infeasible"].to_string(),
        ),
        (
            "wall-seconds",
            format!("{:.1}", number(&summary["wall_seconds"])),
        ),
        ("mode", summary["mode"].as_str().unwrap().to_string()),
        ("seed", summary["seed"].to_string()),
        ("mutants-killed", summary["mutation"]["killed"].to_string()),
        (
            "mutants-analysed",
            summary["mutation"]["analysed"].to_string(),
        ),
        ("possible-bugs", summary["possible_bugs"].to_string()),
    ];
    for (id, value) in figures {
        let shown = format!("id=\"summary-{id}\">{value}<");
        assert!(html.contains(&shown), "the page lacks {shown}");
    }
}

/// Every `src=`/`href=` value is an anchor in the page; no script, no
/// style sheet or font from a file, no URL in the CSS.
fn assert_self_contained(html: &str) {
    for attribute in ["src=", "href="] {
        for (at, _) in html.match_indices(attribute) {
            let value = html[at + attribute.len()..].trim_start_matches(['"', '\'']);
            assert!(
                value.starts_with('#'),
                "{attribute} refers outside the page: {}",
                &value[..value.len().min(80)]
            );
        }
    }
    for banned in [
        "<script", "<link", "<img", "<iframe", "@import", "url(", "http:", "https:",
    ] {
        assert!(!html.contains(banned), "the page contains {banned}");
    }
}

/// Each open outcome with a line shows that line of its class's source.
/// Returns how many were checked.
fn assert_source_lines(html: &str, report: &Value) -> usize {
    let sources = repo_root().join("fixtures/demo/src");
    let mut checked = 0;
    for class in report["classes"].as_array().unwrap() {
        let name = class["class"].as_str().unwrap();
        let file = sources.join(format!(
            "{}.java",
            name.split('$').next().unwrap().replace('.', "/")
        ));
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        for uncovered in class["uncovered"].as_array().unwrap() {
            let line = uncovered["line"].as_u64().unwrap() as usize;
            if line == 0 {
                continue;
            }
            let shown = format!("<code>{}</code>", escaped(lines[line - 1].trim()));
            assert!(
                html.contains(&shown),
                "{name} line {line}: the page lacks {shown}"
            );
            checked += 1;
        }
    }
    checked
}

/// Runs Chromium headless on `page` with `args`; fails the test when it is
/// missing or takes over two minutes. Returns (stdout, stderr).
fn chromium(scratch: &Path, page: &Path, args: &[String]) -> (String, String) {
    let out = scratch.join("chromium.out");
    let err = scratch.join("chromium.err");
    let mut child = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!(
            "--user-data-dir={}",
            scratch.join("profile").display()
        ))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(File::create(&out).unwrap())
        .stderr(File::create(&err).unwrap())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("chromium does not run ({e}): install it with scripts/setup.sh (Debian package chromium)")
        });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let stdout = fs::read_to_string(&out).unwrap();
    let stderr = fs::read_to_string(&err).unwrap();
    assert!(status.success(), "chromium failed ({status}):\n{stderr}");
    (stdout, stderr)
}

/// Lines of Chromium's log that are the page's errors (script errors,
/// console errors, resources it could not load); its own complaints about
/// D-Bus and the like are not.
fn page_errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| {
            // A page without script has nothing to say on the console:
            // any message there (`INFO:CONSOLE`, `ERROR:CONSOLE`) is one.
            line.contains("Uncaught")
                || line.contains(":CONSOLE")
                || line.contains("Failed to load resource")
        })
        .collect()
}

/// A PNG's pixels as RGB, decoded here: 8-bit RGB or RGBA, not interlaced
/// (what Chromium writes).
struct Png {
    width: u32,
    height: u32,
    rgb: Vec<[u8; 3]>,
}

fn decode_png(bytes: &[u8]) -> Png {
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n"),
        "the screenshot is not a PNG"
    );
    let mut at = 8;
    let (mut width, mut height, mut channels) = (0, 0, 0);
    let mut data = Vec::new();
    while at + 8 <= bytes.len() {
        let length = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        let kind = &bytes[at + 4..at + 8];
        let body = &bytes[at + 8..at + 8 + length];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[0..4].try_into().unwrap());
                height = u32::from_be_bytes(body[4..8].try_into().unwrap());
                assert_eq!(body[8], 8, "bit depth");
                assert_eq!(body[12], 0, "interlacing");
                channels = match body[9] {
                    2 => 3,
                    6 => 4,
                    other => panic!("PNG colour type {other} is not decoded here"),
                };
            }
            b"IDAT" => data.extend_from_slice(body),
            b"IEND" => break,
            _ => {}
        }
        at += 12 + length;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&data[..])
        .read_to_end(&mut raw)
        .expect("the PNG's image data inflates");
    let stride = width as usize * channels;
    assert_eq!(raw.len(), height as usize * (stride + 1), "PNG data size");
    let mut pixels = vec![0u8; height as usize * stride];
    for row in 0..height as usize {
        let filter = raw[row * (stride + 1)];
        let line = &raw[row * (stride + 1) + 1..(row + 1) * (stride + 1)];
        for i in 0..stride {
            let left = if i >= channels {
                pixels[row * stride + i - channels]
            } else {
                0
            };
            let up = if row > 0 {
                pixels[(row - 1) * stride + i]
            } else {
                0
            };
            let up_left = if row > 0 && i >= channels {
                pixels[(row - 1) * stride + i - channels]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => left,
                2 => up,
                3 => ((left as u16 + up as u16) / 2) as u8,
                4 => paeth(left, up, up_left),
                other => panic!("PNG filter {other}"),
            };
            pixels[row * stride + i] = line[i].wrapping_add(predicted);
        }
    }
    Png {
        width,
        height,
        rgb: pixels
            .chunks(channels)
            .map(|p| [p[0], p[1], p[2]])
            .collect(),
    }
}

fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let p = a as i16 + b as i16 - c as i16;
    let (pa, pb, pc) = (
        (p - a as i16).abs(),
        (p - b as i16).abs(),
        (p - c as i16).abs(),
    );
    if pa <= pb && pa <= pc {
        a
    } else if pb <= pc {
        b
    } else {
        c
    }
}

#[test]
fn html_report_shows_the_json_and_renders_in_chromium() {
    let scratch = scratch_dir("report-html");
    let classes = compile_fixture("demo");
    let run = generate(&scratch, &classes, "full");
    let (html, report) = (&run.html, &run.report);
    let classes_in_json = report["classes"].as_array().unwrap();
    assert!(!classes_in_json.is_empty());

    assert_summary_matches(html, report);
    assert!(html.contains("<svg"), "no SVG picture");
    assert_self_contained(html);
    let checked = assert_source_lines(html, report);
    assert!(
        checked > 0,
        "no open branch outcome with a line: --max-runs 3 should leave some"
    );
    // A point on the coverage curve per class generated in this run, each
    // finished within the run.
    let wall = number(&report["summary"]["wall_seconds"]);
    for class in classes_in_json {
        let finished = number(&class["finished_seconds"]);
        assert!(
            finished > 0.0 && finished <= wall,
            "{}: finished_seconds {finished}, wall {wall}",
            class["class"]
        );
    }
    assert_eq!(html.matches("<circle").count(), classes_in_json.len());
    eprintln!(
        "{} classes, {} open outcomes shown with their source line",
        classes_in_json.len(),
        checked
    );

    // As a person's browser shows it.
    let shots = repo_root().join("target/report-html");
    fs::create_dir_all(&shots).unwrap();
    let shots = shots.canonicalize().unwrap();
    let screenshot = shots.join("screenshot.png");
    let _ = fs::remove_file(&screenshot);
    let (_, stderr) = chromium(
        &scratch,
        &run.html_path,
        &[
            format!("--screenshot={}", screenshot.display()),
            format!("--window-size={WIDTH},{HEIGHT}"),
        ],
    );
    let errors = page_errors(&stderr);
    assert!(
        errors.is_empty(),
        "the page has errors:\n{}",
        errors.join("\n")
    );
    let bytes = fs::read(&screenshot).unwrap_or_else(|e| {
        panic!(
            "chromium wrote no screenshot {}: {e}\n{stderr}",
            screenshot.display()
        )
    });
    let png = decode_png(&bytes);
    assert_eq!((png.width, png.height), (WIDTH, HEIGHT));
    let background = png.rgb[0];
    let drawn = png.rgb.iter().filter(|&&p| p != background).count();
    let green = png.rgb.iter().filter(|&&p| p == COVERED_GREEN).count();
    eprintln!(
        "screenshot {}: {} bytes, {drawn} of {} pixels drawn, {green} covered-green",
        screenshot.display(),
        bytes.len(),
        png.rgb.len()
    );
    // Text, tables and bars: far from a blank page.
    assert!(drawn > png.rgb.len() / 50, "the screenshot is nearly blank");
    assert!(
        green > 500,
        "the bars' covered green is not in the screenshot"
    );

    // The DOM Chromium built: a row per class of the JSON.
    let (dom, stderr) = chromium(&scratch, &run.html_path, &["--dump-dom".to_string()]);
    let errors = page_errors(&stderr);
    assert!(
        errors.is_empty(),
        "the page has errors:\n{}",
        errors.join("\n")
    );
    assert_eq!(
        dom.matches("class=\"class-row\"").count(),
        classes_in_json.len(),
        "class rows in the DOM"
    );
    // A row per mutant the tests miss, as the JSON lists them.
    let survivors: usize = classes_in_json
        .iter()
        .map(|class| class["mutation"]["survivors"].as_array().unwrap().len())
        .sum();
    assert!(
        report["summary"]["mutation"]["analysed"].as_u64().unwrap() > 0,
        "no mutant analysed"
    );
    assert_eq!(
        dom.matches("class=\"survivor\"").count(),
        survivors,
        "survivor rows in the DOM"
    );
    // A row per possible bug, as the JSON lists them.
    let possible_bugs: usize = classes_in_json
        .iter()
        .map(|class| class["possible_bugs"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(
        dom.matches("class=\"possible-bug\"").count(),
        possible_bugs,
        "possible bug rows in the DOM"
    );
    for class in classes_in_json {
        let row = format!(
            "data-class=\"{}\"",
            escaped(class["class"].as_str().unwrap())
        );
        assert!(dom.contains(&row), "no row {row} in the DOM");
    }

    // Nothing changed: every class is unchanged, none finished in the run,
    // and the page is written again with the JSON.
    fs::remove_file(&run.html_path).unwrap();
    let again = generate(&scratch, &classes, "incremental");
    for class in again.report["classes"].as_array().unwrap() {
        assert_eq!(class["status"], "unchanged", "{}", class["class"]);
        assert_eq!(number(&class["finished_seconds"]), 0.0);
    }
    assert_summary_matches(&again.html, &again.report);
    // The mutation scores come from the cache with the tests.
    assert_eq!(
        again.report["summary"]["mutation"]["killed"],
        report["summary"]["mutation"]["killed"]
    );
    assert!(again.html.contains("No class was generated in this run"));
}
