//! `rea show`, `rea show --screens` and `rea export-asciicast` of every
//! capture fixture in the repository, as JSON and as TOON, against golden
//! output written by the build before the printers read the typed record
//! (`tests/fixtures/view/golden`, generated at commit `merge19`).
//!
//! `REA_WRITE_GOLDEN=1` rewrites the goldens from the binary under test;
//! do that only for an intended change of the output, and read the diff.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::util::rea_bin;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every capture fixture: the comparison fixtures and the view fixtures
/// (an interactive session with a reply to a terminal query, a sensitive
/// input and a resize; a deadline with finalization, truncation and
/// filesystem effects; a failing exit with events after it; a tampered file).
fn fixtures() -> Vec<PathBuf> {
    let mut all = Vec::new();
    for dir in ["tests/fixtures/captures", "tests/fixtures/view/captures"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        found.sort();
        all.extend(found);
    }
    all
}

/// The views and the export of `file` (in `dir`), with their exit statuses.
fn outputs(dir: &Path, file: &str) -> Vec<(String, String)> {
    let views: [(&str, &[&str]); 3] =
        [("show", &["show"]), ("screens", &["show", "--screens"]), ("cast", &["export-asciicast"])];
    views
        .iter()
        .map(|(name, args)| {
            let out = Command::new(rea_bin()).args(*args).arg(file).current_dir(dir).output().unwrap();
            let text = format!(
                "status: {:?}\nstderr: {}\n{}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr),
                String::from_utf8(out.stdout).expect("UTF-8 output")
            );
            (format!("{file}.{name}"), text)
        })
        .collect()
}

#[test]
fn show_and_export_of_every_capture_fixture_match_the_golden_output() {
    let write = std::env::var_os("REA_WRITE_GOLDEN").is_some();
    let golden = repo().join("tests/fixtures/view/golden");
    let dir = tempfile::tempdir().unwrap();
    let mut checked = 0;
    for fixture in fixtures() {
        let stem = fixture.file_stem().unwrap().to_str().unwrap().to_owned();
        let bytes = std::fs::read(&fixture).unwrap();
        let value: Value = serde_json::from_slice(&bytes).unwrap();
        std::fs::write(dir.path().join(format!("{stem}.json")), &bytes).unwrap();
        std::fs::write(dir.path().join(format!("{stem}.toon")), toon_format::encode_default(&value).unwrap()).unwrap();
        for file in [format!("{stem}.json"), format!("{stem}.toon")] {
            for (name, text) in outputs(dir.path(), &file) {
                let path = golden.join(&name);
                if write {
                    std::fs::write(&path, &text).unwrap();
                }
                let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert_eq!(text, expected, "{name} differs from {}", path.display());
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 6 * 3 * 2, "every fixture, as JSON and TOON, three outputs each");
}
