//! Compiling the packaged token reader, under the settings' rules.
//!
//! The helper is compiled once per run into a private directory (mode
//! `0700`) that the [`crate::reader::TokenReader`] owns and removes when it
//! closes. The compiler runs as the leader of its own process group with
//! `TMPDIR` inside that directory, so its intermediates stay there and a
//! timeout kills the compiler and everything it started. Its diagnostics go
//! to a file (no pipe a grandchild could hold open) and are cut to 512 bytes.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::config::{CompileSettings, Compiler};

/// The Swift source, packaged with rea.
pub const SOURCE: &str = include_str!("../../swift-helper/main.swift");
/// The helper's file name inside the private directory.
pub const HELPER_NAME: &str = "rea-token-reader";
/// How much of the compiler's diagnostics an error keeps.
pub const DIAGNOSTIC_LIMIT: usize = 512;

/// Why the helper could not be compiled.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// The private directory or the source could not be written.
    #[error("could not prepare the token reader's private directory: {0}")]
    Prepare(std::io::Error),
    /// The module cache could not be created.
    #[error("could not create REA_DARWIN_MODULE_CACHE_PATH {path}: {source}; choose a writable directory")]
    ModuleCache {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The compiler could not be started.
    #[error(
        "could not run {program}: {source}; install Xcode or the Command Line Tools (`xcode-select --install`), or set REA_DARWIN_SWIFTC_PATH and SDKROOT"
    )]
    Launch {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The compiler failed.
    #[error("the Swift compiler failed ({status}); its diagnostics{cut}: {diagnostics}")]
    Failed {
        /// Its exit status.
        status: String,
        /// The first 512 bytes of its output.
        diagnostics: String,
        /// " (cut at 512 bytes)" when cut.
        cut: &'static str,
    },
    /// The compiler ran past the deadline; its process group was killed.
    #[error(
        "the Swift compiler did not finish within {timeout_ms} ms (REA_SWIFTC_COMPILE_TIMEOUT_MS) and was stopped; raise the timeout and restart rea, or check the toolchain"
    )]
    Timeout {
        /// The effective deadline.
        timeout_ms: u32,
    },
    /// The compiler exited 0 without producing the helper.
    #[error("the Swift compiler reported success but produced no helper at {0}")]
    NoOutput(PathBuf),
}

/// A private directory, `0700`, removed when dropped.
#[derive(Debug)]
pub struct PrivateDir(tempfile::TempDir);

impl PrivateDir {
    /// Creates one under the system temporary directory (`TMPDIR`).
    pub fn new() -> std::io::Result<PrivateDir> {
        let dir = tempfile::Builder::new().prefix("rea-token-reader-").tempdir()?;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
        Ok(PrivateDir(dir))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

/// The leading at most 512 bytes of `bytes` as text, cut on a character
/// boundary, and whether anything was cut.
pub fn cut_diagnostics(bytes: &[u8]) -> (String, bool) {
    if bytes.len() <= DIAGNOSTIC_LIMIT {
        return (String::from_utf8_lossy(bytes).trim_end().to_owned(), false);
    }
    let head = &bytes[..DIAGNOSTIC_LIMIT];
    // Drop a multi-byte character split by the cut rather than mangle it.
    let valid = match std::str::from_utf8(head) {
        Ok(_) => head.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => head.len(),
    };
    (String::from_utf8_lossy(&head[..valid]).into_owned(), true)
}

/// The command line (program, arguments) that compiles `source` to `output`.
pub fn command_line(settings: &CompileSettings, source: &Path, output: &Path) -> (PathBuf, Vec<std::ffi::OsString>) {
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let program = match &settings.compiler {
        Compiler::Xcrun => {
            args.push("swiftc".into());
            PathBuf::from("xcrun")
        }
        Compiler::Direct { swiftc, sdk } => {
            args.push("-sdk".into());
            args.push(sdk.into());
            swiftc.clone()
        }
    };
    if let Some(cache) = &settings.module_cache {
        args.push("-module-cache-path".into());
        args.push(cache.into());
    }
    args.extend(["-O".into(), "-o".into(), output.into(), source.into()]);
    (program, args)
}

/// Waits for `child` until `deadline`; past it, kills its whole process
/// group (the child leads it) and reaps the child. `None` means timed out.
fn wait_or_kill_group(child: &mut Child, timeout: Duration) -> std::io::Result<Option<std::process::ExitStatus>> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            if let Some(group) = rustix::process::Pid::from_raw(child.id() as i32) {
                let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            }
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Compiles the helper into `dir` and returns its path.
pub fn compile(settings: &CompileSettings, dir: &PrivateDir) -> Result<PathBuf, CompileError> {
    let source = dir.path().join("main.swift");
    let staging = dir.path().join(format!("{HELPER_NAME}.partial"));
    let helper = dir.path().join(HELPER_NAME);
    let tmp = dir.path().join("tmp");
    let diagnostics = dir.path().join("swiftc-diagnostics.txt");
    std::fs::write(&source, SOURCE).map_err(CompileError::Prepare)?;
    std::fs::create_dir(&tmp).or_else(|e| if tmp.is_dir() { Ok(()) } else { Err(e) }).map_err(CompileError::Prepare)?;
    let log = std::fs::File::create(&diagnostics).map_err(CompileError::Prepare)?;
    let log2 = log.try_clone().map_err(CompileError::Prepare)?;
    let (program, args) = command_line(settings, &source, &staging);
    let mut command = Command::new(&program);
    command.args(&args).env("TMPDIR", &tmp).stdin(Stdio::null()).stdout(log).stderr(log2).process_group(0);
    if let Some(cache) = &settings.module_cache {
        std::fs::create_dir_all(cache).map_err(|source| CompileError::ModuleCache { path: cache.clone(), source })?;
        command.env("CLANG_MODULE_CACHE_PATH", cache);
    }
    let mut child =
        command.spawn().map_err(|source| CompileError::Launch { program: program.display().to_string(), source })?;
    let status = wait_or_kill_group(&mut child, settings.timeout())
        .map_err(|source| CompileError::Launch { program: program.display().to_string(), source })?
        .ok_or(CompileError::Timeout { timeout_ms: settings.timeout_ms })?;
    if !status.success() {
        let bytes = std::fs::read(&diagnostics).unwrap_or_default();
        let (text, was_cut) = cut_diagnostics(&bytes);
        return Err(CompileError::Failed {
            status: status.to_string(),
            diagnostics: text,
            cut: if was_cut { " (cut at 512 bytes)" } else { "" },
        });
    }
    if !staging.is_file() {
        return Err(CompileError::NoOutput(staging));
    }
    std::fs::rename(&staging, &helper).map_err(CompileError::Prepare)?;
    Ok(helper)
}
