//! The engine's import direction, checked on its own sources: every
//! `crate::…` path in a module's non-test code names a module of a lower
//! floor (the table in `docs/architecture.md`, "Inside the engine"). A new
//! import that runs upward, or a circle, fails here with the file and line.

use std::path::{Path, PathBuf};

/// Each top-level engine module and its floor, from the ground up.
const FLOORS: &[(&str, u8)] = &[
    ("ground", 0),
    ("error", 1),
    ("path", 1),
    ("keys", 1),
    ("emulator", 1),
    ("input", 2),
    ("evidence", 3),
    ("fs", 4),
    ("secrets", 4),
    ("scenario", 5),
    ("host", 6),
    ("compare", 6),
    ("report", 7),
    ("testing", 7),
    ("capture", 8),
    ("doctor", 9),
    ("suite", 9),
    ("live", 9),
];

/// What the crate root re-exports or defines, by the module it comes from
/// (`BuildInfo` is defined in `lib.rs` and imports nothing: the ground).
const ROOT_ITEMS: &[(&str, &str)] = &[
    ("BuildInfo", "ground"),
    ("Host", "host"),
    ("Category", "error"),
    ("ErrorDocument", "error"),
    ("SerializeError", "error"),
    ("UserError", "error"),
];

fn floor(name: &str) -> Option<u8> {
    let module = ROOT_ITEMS.iter().find(|(item, _)| *item == name).map_or(name, |(_, module)| *module);
    FLOORS.iter().find(|(m, _)| *m == module).map(|(_, f)| *f)
}

/// The non-test source files of the engine, each with its top-level module.
fn sources() -> Vec<(String, PathBuf)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files
        .into_iter()
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            !(name.ends_with("_tests.rs") || name == "tests.rs" || name == "lib.rs")
        })
        .map(|p| {
            let rel = p.strip_prefix(&src).expect("under src");
            let first = rel.components().next().expect("a component").as_os_str().to_string_lossy();
            (first.trim_end_matches(".rs").to_owned(), p)
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read the source directory") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            // `testdata` holds fixtures, not code.
            if path.file_name().is_some_and(|n| n != "testdata") {
                collect(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` outside test code: a `#[cfg(test)]` item that is a
/// `mod x;` line is skipped, and a `#[cfg(test)] mod tests {` block runs to
/// the end of the file (the convention every engine file follows).
fn code_lines(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((i, line)) = lines.next() {
        if line.trim() == "#[cfg(test)]" {
            match lines.next() {
                Some((_, next)) if next.trim_start().starts_with("mod ") && next.trim_end().ends_with('{') => break,
                _ => continue,
            }
        }
        out.push((i + 1, line));
    }
    out
}

/// The top-level modules a line names through `crate::`.
fn imports(line: &str) -> Vec<&str> {
    let code = line.split("//").next().unwrap_or("");
    code.match_indices("crate::")
        .filter(|(at, _)| !code[..*at].ends_with("in ") && !code[..*at].ends_with("rea_engine::"))
        .map(|(at, m)| {
            let rest = &code[at + m.len()..];
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            &rest[..end]
        })
        .filter(|name| !name.is_empty())
        .collect()
}

#[test]
fn every_engine_import_names_a_lower_floor() {
    let mut upward = Vec::new();
    let mut checked = 0;
    for (module, path) in sources() {
        let own =
            floor(&module).unwrap_or_else(|| panic!("{}: module `{module}` has no floor in FLOORS", path.display()));
        let text = std::fs::read_to_string(&path).expect("read a source file");
        for (n, line) in code_lines(&text) {
            for target in imports(line) {
                if target == module {
                    continue;
                }
                checked += 1;
                let theirs =
                    floor(target).unwrap_or_else(|| panic!("{}:{n}: `crate::{target}` has no floor", path.display()));
                if theirs >= own {
                    upward.push(format!(
                        "{}:{n}: {module} (floor {own}) imports {target} (floor {theirs})",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} imports were read: the scan is broken");
    assert!(upward.is_empty(), "imports that do not run downward:\n{}", upward.join("\n"));
}

#[test]
fn the_scan_sees_imports_and_skips_test_code() {
    assert_eq!(imports("use crate::evidence::{A, B}; // crate::fs"), vec!["evidence"]);
    assert_eq!(imports("pub(in crate::compare) const X: u8 = 0;"), Vec::<&str>::new());
    let text =
        "use crate::a;\n#[cfg(test)]\nmod b_tests;\nuse crate::c;\n#[cfg(test)]\nmod tests {\nuse crate::d;\n}\n";
    let lines: Vec<&str> = code_lines(text).into_iter().map(|(_, l)| l).collect();
    assert_eq!(lines, vec!["use crate::a;", "use crate::c;"]);
}
