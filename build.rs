//! Stamps the git revision and target triple into the binary for
//! `rea --version` and `rea doctor`. It warns and never fails: a source
//! tarball without git still builds.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    println!("cargo:rerun-if-env-changed=REA_GIT_REVISION");
    let revision = std::env::var("REA_GIT_REVISION").ok().filter(|s| !s.is_empty()).or_else(|| {
        let out = Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).output().ok()?;
        if !out.status.success() {
            return None;
        }
        let text = String::from_utf8(out.stdout).ok()?.trim().to_owned();
        (!text.is_empty()).then_some(text)
    });
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    match &revision {
        Some(rev) => {
            println!("cargo:rustc-env=REA_GIT_REVISION={rev}");
            println!("cargo:rustc-env=REA_VERSION_TEXT={version} (git {rev}, {target})");
        }
        None => {
            println!("cargo:warning=git revision unavailable; `rea --version` will omit it");
            println!("cargo:rustc-env=REA_VERSION_TEXT={version} ({target})");
        }
    }
    println!("cargo:rustc-env=REA_TARGET={target}");
}
