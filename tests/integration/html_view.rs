//! `rea show --html` (issue 37) on real captures, comparisons and a suite
//! record: the pages are read back by headless Chromium (installed by
//! `ci/setup-chromium.sh`), which reports each screen cell's computed colours
//! and attributes; the markup is checked for self-containment and secrets.
#![cfg(not(feature = "force-stub"))]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::tools::require;
use crate::util::{capture_file_in, rea, wait_for};

/// Captures `scenario` in `dir` into `dir/name`.
fn capture_to(dir: &Path, name: &str, scenario: &Value) {
    let scenario_file = format!("{name}.scenario");
    std::fs::write(dir.join(&scenario_file), scenario.to_string()).unwrap();
    let out = capture_file_in(dir, &scenario_file);
    assert_eq!(out.status.code(), Some(0), "capture failed: {}", String::from_utf8_lossy(&out.stdout));
    std::fs::write(dir.join(name), &out.stdout).unwrap();
}

fn printf(format: &str) -> Value {
    json!({"executable": "sh", "arguments": ["-c", format!("printf '{format}'")],
        "terminal": {"columns": 40, "rows": 6}, "timeout_ms": 10000})
}

/// `rea show --html FILE` in `dir`: the page.
fn page(dir: &Path, file: &str) -> String {
    let out = rea(dir, &["show", "--html", file]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("a UTF-8 page")
}

/// A page refers to nothing outside itself and runs no script.
fn assert_self_contained(page: &str) {
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"), "{page}");
    let lower = page.to_ascii_lowercase();
    for needle in ["<script", "<link", "<img", "<iframe", "src=", "url(", "@import", "http:", "https:", "//"] {
        assert!(!lower.contains(needle), "{needle} in the page");
    }
    for (i, _) in lower.match_indices("href=\"") {
        assert_eq!(&lower[i + 6..i + 7], "#", "a link outside the page: {}", &page[i..(i + 60).min(page.len())]);
    }
}

/// Reads each drawn cell's computed style in headless Chromium: a script
/// appended to a copy of the page writes them into the DOM, which
/// `--dump-dom` prints. `None` (locally) without Chromium.
fn computed_cells(dir: &Path, page: &str) -> Option<Vec<Value>> {
    let chromium = require("chromium", "chromium", "ci/setup-chromium.sh")?;
    const PROBE: &str = r#"<script>
const out = [];
document.querySelectorAll('pre.term').forEach((pre, screen) => pre.querySelectorAll('[data-x]').forEach(e => {
  const s = getComputedStyle(e);
  out.push({screen, row: +e.closest('.row').dataset.row, x: +e.dataset.x, text: e.textContent, tag: e.tagName,
    color: s.color, background: s.backgroundColor, weight: s.fontWeight, style: s.fontStyle,
    decoration: s.textDecorationLine, outline: s.outlineStyle, width: e.getBoundingClientRect().width});
}));
const p = document.createElement('pre'); p.id = 'probe'; p.textContent = JSON.stringify(out); document.body.append(p);
</script>"#;
    let probed = dir.join("probed.html");
    std::fs::write(&probed, page.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let profile = dir.join("chromium-profile");
    let dom = dir.join("dom.html");
    let mut child = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", probed.display()))
        .stdout(std::fs::File::create(&dom).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let done = wait_for(Duration::from_secs(120), || child.try_wait().unwrap().is_some());
    if !done {
        let _ = child.kill();
        let _ = child.wait();
        panic!("chromium did not finish in 120 s");
    }
    let dom = std::fs::read_to_string(&dom).unwrap();
    let start = dom.find("<pre id=\"probe\">").expect("the probe ran") + "<pre id=\"probe\">".len();
    let json = &dom[start..start + dom[start..].find("</pre>").unwrap()];
    let json = json.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    Some(serde_json::from_str(&json).expect("the probe's JSON"))
}

/// The cell drawn at `row` (from 1), column `x` (from 0) of screen `screen`.
fn cell(cells: &[Value], screen: u64, row: u64, x: u64) -> &Value {
    let found = cells.iter().find(|c| c["screen"] == screen && c["row"] == row && c["x"] == x);
    found.unwrap_or_else(|| panic!("no cell at screen {screen} row {row} x {x}: {cells:?}"))
}

#[test]
fn screen_cells_have_their_colours_and_attributes_in_chromium() {
    let dir = TempDir::new().unwrap();
    let format = concat!(
        "\\033[31mRED\\033[0m \\033[32mGREEN\\033[0m \\033[1mBOLD\\033[0m \\033[7mINV\\033[0m ",
        "\\033[38;5;208mC256\\033[0m \\033[38;2;10;20;30;48;2;200;100;50mTRUE\\033[0m\\n",
        "\\033[3mit\\033[0m \\033[4mun\\033[0m \\344\\270\\255x\\n"
    );
    capture_to(dir.path(), "cap.json", &printf(format));
    let page = page(dir.path(), "cap.json");
    assert_self_contained(&page);
    let Some(cells) = computed_cells(dir.path(), &page) else { return };
    let at = |row, x| cell(&cells, 0, row, x);
    assert_eq!((at(1, 0)["text"].as_str(), at(1, 0)["color"].as_str()), (Some("RED"), Some("rgb(205, 0, 0)")));
    assert_eq!((at(1, 4)["text"].as_str(), at(1, 4)["color"].as_str()), (Some("GREEN"), Some("rgb(0, 205, 0)")));
    assert_eq!((at(1, 10)["text"].as_str(), at(1, 10)["weight"].as_str()), (Some("BOLD"), Some("700")));
    assert_eq!(at(1, 0)["weight"], "400");
    // Inverse: the default colours swapped.
    assert_eq!(at(1, 15)["text"], "INV");
    assert_eq!(
        (at(1, 15)["color"].as_str(), at(1, 15)["background"].as_str()),
        (Some("rgb(30, 30, 30)"), Some("rgb(212, 212, 212)"))
    );
    assert_eq!((at(1, 19)["text"].as_str(), at(1, 19)["color"].as_str()), (Some("C256"), Some("rgb(255, 135, 0)")));
    assert_eq!(at(1, 24)["text"], "TRUE");
    assert_eq!(
        (at(1, 24)["color"].as_str(), at(1, 24)["background"].as_str()),
        (Some("rgb(10, 20, 30)"), Some("rgb(200, 100, 50)"))
    );
    assert_eq!((at(2, 0)["text"].as_str(), at(2, 0)["style"].as_str()), (Some("it"), Some("italic")));
    assert_eq!((at(2, 3)["text"].as_str(), at(2, 3)["decoration"].as_str()), (Some("un"), Some("underline")));
    // A wide character takes two cells: the next cell starts two columns on.
    let (wide, next) = (at(2, 6), at(2, 8));
    assert_eq!((wide["text"].as_str(), next["text"].as_str()), (Some("\u{4e2d}"), Some("x")));
    let ratio = wide["width"].as_f64().unwrap() / next["width"].as_f64().unwrap();
    assert!((ratio - 2.0).abs() < 0.05, "{wide} {next}");
    // The cursor, after the last newline: row 3, column 0, outlined.
    assert_eq!(at(3, 0)["outline"], "solid");
    assert!(cells.iter().filter(|c| c["outline"] == "solid").count() == 1, "{cells:?}");
}

#[test]
fn a_comparison_with_one_differing_cell_marks_exactly_that_cell_on_both_sides() {
    let dir = TempDir::new().unwrap();
    capture_to(dir.path(), "left.json", &printf("ab\\033[31mc\\033[0md\\n"));
    capture_to(dir.path(), "right.json", &printf("ab\\033[32mc\\033[0md\\n"));
    let out = rea(
        dir.path(),
        &["compare-process-captures", "left.json", "right.json", "--terminal-lens", "screen", "--json"],
    );
    std::fs::write(dir.path().join("comparison.json"), &out.stdout).unwrap();
    let page = page(dir.path(), "comparison.json");
    assert_self_contained(&page);
    assert_eq!(page.matches("<mark ").count(), 2, "{page}");
    assert!(page.contains("Differing cells: row 1, column 3."), "{page}");
    assert!(page.contains("row 1, column 3 of the screen ending segment 0"), "{page}");
    let Some(cells) = computed_cells(dir.path(), &page) else { return };
    let marked: Vec<&Value> = cells.iter().filter(|c| c["tag"] == "MARK").collect();
    assert_eq!(marked.len(), 2, "{cells:?}");
    for (screen, colour) in [(0, "rgb(205, 0, 0)"), (1, "rgb(0, 205, 0)")] {
        let mark = cell(&cells, screen, 1, 2);
        assert_eq!((mark["tag"].as_str(), mark["text"].as_str()), (Some("MARK"), Some("c")), "{mark}");
        assert_eq!((mark["color"].as_str(), mark["outline"].as_str()), (Some(colour), Some("solid")), "{mark}");
        // Its neighbours are drawn and not marked.
        assert_eq!(
            (cell(&cells, screen, 1, 0)["text"].as_str(), cell(&cells, screen, 1, 3)["tag"].as_str()),
            (Some("ab"), Some("SPAN"))
        );
    }
}

#[test]
fn a_suite_page_lists_every_case_with_its_detail() {
    let dir = TempDir::new().unwrap();
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/suite/suite.json");
    let run = rea(dir.path(), &["run-suite", suite.to_str().unwrap(), "--out", "results"]);
    assert_eq!(run.status.code(), Some(3), "{}", String::from_utf8_lossy(&run.stderr));
    let page = page(dir.path(), "results/suite.json");
    assert_self_contained(&page);
    let record: Value = serde_json::from_slice(&std::fs::read(dir.path().join("results/suite.json")).unwrap()).unwrap();
    let cases = record["normalized_result"]["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for (i, case) in cases.iter().enumerate() {
        let name = case["name"].as_str().unwrap();
        assert!(page.contains(&format!("<td><a href=\"#case-{i}\">{name}</a></td>")), "{name} in the table: {page}");
        assert!(page.contains(&format!("<h2 id=\"case-{i}\">Case {name}</h2>")), "{name}'s detail: {page}");
    }
    // The changed case's comparison, read beside the record, is on the page.
    let changed = &page[page.find("Case one-line</h2>").unwrap()..];
    assert!(changed.contains("<h4>Differences in terminal</h4>"), "{changed}");
    assert!(changed.contains("terminal.segments[0]"), "{changed}");
    // Both captures' timelines, side by side.
    let interactive = &page[page.find("Case interactive</h2>").unwrap()..];
    let timelines = &interactive[interactive.find("<h3>Timelines</h3>").expect("the timelines")..];
    assert!(timelines.contains("<h4>authority (cases/interactive/authority.json)</h4>"), "{timelines}");
    assert!(timelines.contains("<h4>reconstruction (cases/interactive/reconstruction.json)</h4>"), "{timelines}");
    assert_eq!(timelines.matches("waited for").count() % 2, 0, "{timelines}");
    assert!(timelines.contains("waited for"), "{timelines}");
}

#[test]
fn no_page_holds_a_byte_of_a_secret() {
    const SECRET: &str = "hunter2-html-secret";
    let dir = TempDir::new().unwrap();
    let scenario = json!({"executable": "sh", "arguments": ["-c", "printf 'Password: '; read pw; echo \"got $pw\""],
        "events": [{"type": "input", "at_ms": 300, "data": format!("{SECRET}\r"), "sensitive": true}],
        "terminal": {"columns": 40, "rows": 6}, "timeout_ms": 10000});
    capture_to(dir.path(), "left.json", &scenario);
    capture_to(dir.path(), "right.json", &scenario);
    let out = rea(
        dir.path(),
        &["compare-process-captures", "left.json", "right.json", "--terminal-lens", "screen", "--json"],
    );
    std::fs::write(dir.path().join("comparison.json"), &out.stdout).unwrap();
    for file in ["left.json", "comparison.json"] {
        let page = page(dir.path(), file);
        assert_self_contained(&page);
        for part in [SECRET, &SECRET[..7], &SECRET[7..]] {
            assert!(!page.contains(part), "{part} in the page of {file}");
        }
    }
    assert!(page(dir.path(), "left.json").contains("got &lt;redacted"), "the redacted echo is drawn");
}

#[test]
fn the_page_of_a_maximum_budget_capture_is_at_most_three_times_its_json() {
    let dir = TempDir::new().unwrap();
    // The scenario model's maximum budget, every row coloured.
    let scenario = json!({"executable": "sh",
        "arguments": ["-c", "yes \"$(printf '\\033[31mred \\033[42;1mgreen\\033[0m \\033[38;5;99mviolet\\033[0m')\" | head -c 3000000"],
        "limits": {"output_bytes": 10_000_000, "frames": 100_000}, "timeout_ms": 120_000});
    capture_to(dir.path(), "max.json", &scenario);
    let json = std::fs::metadata(dir.path().join("max.json")).unwrap().len();
    let page = page(dir.path(), "max.json");
    assert_self_contained(&page);
    assert!(page.contains("<span data-x=\"0\" class=\"f1\">red </span>"), "the screen is drawn");
    assert!((page.len() as u64) <= 3 * json, "page {} bytes, JSON {json} bytes", page.len());
}
