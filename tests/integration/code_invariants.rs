//! Source invariants of the workspace, checked on the tree itself: the engine
//! names no OS, and every `unsafe` block says why it is sound.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_engine_names_no_operating_system() {
    let mut files = Vec::new();
    rust_files(&root().join("rea-engine/src"), &mut files);
    assert!(files.len() > 10);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for needle in ["cfg(target_os", "cfg(unix", "cfg(windows", "std::os::", "libc::", "rustix::", "nix::"] {
            assert!(!text.contains(needle), "{} contains `{needle}`", file.display());
        }
    }
    let manifest = std::fs::read_to_string(root().join("rea-engine/Cargo.toml")).unwrap();
    for dep in ["libc", "rustix", "nix", "procfs"] {
        assert!(
            !manifest.lines().any(|l| l.starts_with(&format!("{dep} ")) || l.starts_with(&format!("{dep}."))),
            "rea-engine depends on {dep}"
        );
    }
}

#[test]
fn every_unsafe_block_has_a_safety_comment() {
    let mut files = Vec::new();
    for dir in [
        "src",
        "rea-engine/src",
        "backend-linux/src",
        "backend-macos/src",
        "backend-unix/src",
        "backend-windows-stub/src",
    ] {
        rust_files(&root().join(dir), &mut files);
    }
    let mut blocks = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("unsafe {") || code.trim_end().ends_with("unsafe") {
                blocks += 1;
                let above = &lines[i.saturating_sub(6)..i];
                assert!(
                    above.iter().any(|l| l.trim_start().starts_with("// SAFETY:")),
                    "{}:{} has an unsafe block without a `// SAFETY:` comment above it",
                    file.display(),
                    i + 1
                );
            }
        }
    }
    assert!(blocks >= 1, "the PTY launch has one unsafe block; the scan must see it");
}

#[test]
fn only_src_host_rs_chooses_the_backend() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let mentions = text.contains("rea_backend_linux") || text.contains("rea_backend_macos");
        assert_eq!(mentions, file.ends_with("src/host.rs"), "{} names a native backend", file.display());
    }
}
