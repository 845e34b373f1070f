//! The Linux host backend.
#![cfg(target_os = "linux")]
pub mod fs;

use rea_engine::Host;
use rea_engine::host::{CaptureSupport, Check};

/// Doctor checks.
pub fn diagnose() -> Vec<Check> {
    vec![Check {
        name: "capture_backend".to_owned(),
        classification: "unsupported_host",
        detail: "the Linux capture backend is not built yet".to_owned(),
        remediation: None,
    }]
}

/// The Linux host.
pub fn host() -> Host {
    let stub = rea_backend_windows_stub::UnsupportedHost;
    Host {
        platform: "linux",
        capture: CaptureSupport::Unavailable { reason: "the Linux capture backend is not built yet" },
        pty: Box::new(stub),
        inspector: Box::new(stub),
        verifier: Box::new(stub),
        fs: Box::new(stub),
        diagnose,
    }
}
