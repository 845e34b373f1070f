//! The host for platforms where rea cannot capture (native Windows, and any
//! build with the `force-stub` feature).
//!
//! Capture is unavailable because no PTY adapter here verifies descendant
//! cleanup; comparing existing captures needs none of these capabilities and
//! keeps working. Every capability answers with a typed
//! [`HostError::Unsupported`], never a panic. This crate has no `cfg`: it
//! builds and is tested on every OS.

use std::ffi::OsString;
use std::path::Path;

use rea_engine::Host;
use rea_engine::fs::{DirListing, FsError, FsMeta, FsProbe, ProbeFile};
use rea_engine::host::{
    CaptureSupport, Check, HostError, Ownership, OwnershipClaim, OwnershipVerifier, Pid, ProcessInspector, ProcessRow,
    ProcessTable, PtyBackend, PtyProcess, SpawnSpec, StartTime,
};

/// Why capture is unavailable, as users see it.
pub const REASON: &str = "native Windows capture is unavailable because the PTY adapter does not yet verify descendant cleanup; for Linux commands, use Linux rea inside WSL (comparison of existing captures works here)";

fn unsupported(capability: &'static str) -> HostError {
    HostError::Unsupported { capability, reason: REASON }
}

/// Every capability of the unsupported host.
#[derive(Debug, Default, Clone, Copy)]
pub struct UnsupportedHost;

impl PtyBackend for UnsupportedHost {
    fn name(&self) -> &'static str {
        "unavailable"
    }
    fn is_executable(&self, _path: &Path) -> bool {
        false
    }
    fn spawn(&self, _spec: &SpawnSpec) -> Result<Box<dyn PtyProcess>, HostError> {
        Err(unsupported("PTY capture"))
    }
    fn reap_adopted(&self) -> usize {
        0
    }
}

impl ProcessInspector for UnsupportedHost {
    fn process(&self, _pid: Pid) -> Result<Option<ProcessRow>, HostError> {
        Err(unsupported("process inspection"))
    }
    fn children(&self, _pid: Pid) -> Result<Vec<Pid>, HostError> {
        Err(unsupported("process inspection"))
    }
    fn table(&self) -> Result<ProcessTable, HostError> {
        Err(unsupported("process inspection"))
    }
}

impl OwnershipVerifier for UnsupportedHost {
    fn verify(&self, _pid: Pid, _expected: Option<StartTime>, _claim: &OwnershipClaim<'_>) -> Ownership {
        Ownership::Unverifiable { reason: REASON.to_owned() }
    }
    /// Capture is refused on this host before anything is launched, so no
    /// record ever names this mechanism; the stub signals nothing.
    fn mechanism(&self) -> rea_engine::evidence::SignalMechanism {
        rea_engine::evidence::SignalMechanism::CheckedKill
    }
}

fn fs_unsupported() -> FsError {
    FsError { code: None, not_found: false, message: format!("filesystem observation is unavailable: {REASON}") }
}

impl FsProbe for UnsupportedHost {
    fn lstat(&self, _path: &Path) -> Result<FsMeta, FsError> {
        Err(fs_unsupported())
    }
    fn read_link(&self, _path: &Path) -> Result<OsString, FsError> {
        Err(fs_unsupported())
    }
    fn read_dir(&self, _path: &Path, _capacity: usize) -> Result<DirListing, FsError> {
        Err(fs_unsupported())
    }
    fn open_file(&self, _path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        Err(fs_unsupported())
    }
    fn canonicalize(&self, _path: &Path) -> Result<std::path::PathBuf, FsError> {
        Err(fs_unsupported())
    }
}

/// The doctor checks of this host.
pub fn diagnose() -> Vec<Check> {
    vec![Check {
        name: "capture_adapter".to_owned(),
        classification: rea_engine::doctor::Classification::UnsupportedHost,
        detail: REASON.to_owned(),
        remediation: Some(
            "Capture on Linux or macOS, or run Linux rea inside WSL for Linux commands. Reinstalling rea does not enable native Windows capture.".to_owned(),
        ),
    }]
}

/// The REA name of the OS this stub was built for (`win32` on Windows; the
/// forced stub on Linux or macOS names that OS).
fn platform_name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

/// The unsupported host.
pub fn host() -> Host {
    Host {
        platform: platform_name(),
        capture: CaptureSupport::Unavailable { reason: REASON },
        pty: std::sync::Arc::new(UnsupportedHost),
        inspector: std::sync::Arc::new(UnsupportedHost),
        verifier: std::sync::Arc::new(UnsupportedHost),
        fs: std::sync::Arc::new(UnsupportedHost),
        diagnose,
        interrupts: std::sync::Arc::new(rea_engine::host::NoInterrupts),
        open_input,
    }
}

/// Whether the process was started without a stdout handle (`GetStdHandle`
/// gives none); the standard library would then drop every write silently.
#[cfg(windows)]
pub fn stdout_missing() -> bool {
    use std::os::windows::io::AsRawHandle;
    std::io::stdout().as_raw_handle().is_null()
}

/// Opens an input document: Windows has no FIFO that blocks an open on a
/// file path, nor a kernel filesystem of generated files, so the portable
/// check (type before and after opening) suffices.
pub use rea_engine::input::open_input_portable as open_input;

/// The person's terminal of `rea record-scenario`: not bridged on this host
/// (capture is unavailable, so nothing is recorded).
pub mod person {
    /// Raw mode: never entered here.
    #[derive(Debug)]
    pub struct RawMode(());

    impl RawMode {
        /// Raw mode is not available: standard input is passed on as read.
        pub fn enter() -> std::io::Result<Option<RawMode>> {
            Ok(None)
        }
    }

    /// Leaving raw mode restores the terminal, as on Unix (here: nothing).
    impl Drop for RawMode {
        fn drop(&mut self) {
            restore();
        }
    }

    /// Nothing to restore.
    pub fn restore() {}

    /// The size is unknown here.
    pub fn size() -> Option<(u16, u16)> {
        None
    }

    /// A signal to the recording `rea`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum PersonSignal {
        /// The terminal was resized.
        Resized,
        /// The recording must end.
        End,
    }

    /// Creates (or truncates) `path` for writing (no permission bits here).
    pub fn create(path: &std::path::Path, _private: bool) -> std::io::Result<std::fs::File> {
        std::fs::File::create(path)
    }

    /// No signals are watched here.
    pub fn watch_signals(_on: impl FnMut(PersonSignal) + Send + 'static) -> std::io::Result<()> {
        Ok(())
    }
}
