//! The macOS host backend.
#![cfg(target_os = "macos")]

use rea_engine::Host;
use rea_engine::host::{CaptureSupport, Check};

const REASON: &str =
    "the macOS capture backend (PTY launch and Swift ownership helper) is not implemented in this build";

/// Doctor checks.
pub fn diagnose() -> Vec<Check> {
    vec![Check {
        name: "capture_backend".to_owned(),
        classification: "unsupported_host",
        detail: REASON.to_owned(),
        remediation: Some("Capture on Linux with this build; comparison works here.".to_owned()),
    }]
}

/// The macOS host.
pub fn host() -> Host {
    let stub = rea_backend_windows_stub::UnsupportedHost;
    Host {
        platform: "darwin",
        capture: CaptureSupport::Unavailable { reason: REASON },
        pty: std::sync::Arc::new(stub),
        inspector: std::sync::Arc::new(stub),
        verifier: std::sync::Arc::new(stub),
        fs: std::sync::Arc::new(stub),
        diagnose,
        interrupts: || Ok(rea_engine::host::Interrupts::never()),
    }
}
