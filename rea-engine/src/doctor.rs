//! `rea doctor`: what this host can do, and what to fix.

use serde::Serialize;

use crate::BuildInfo;
use crate::host::{CaptureSupport, Check, Host};

/// The doctor report.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// True when every check is healthy or only reports an unsupported host
    /// for capture (comparison still works there).
    pub healthy: bool,
    /// `rea` version.
    pub rea_version: &'static str,
    /// Git revision of the build, if known.
    pub revision: Option<&'static str>,
    /// Rust target triple.
    pub target: &'static str,
    /// `linux`, `darwin` or `win32`.
    pub platform: &'static str,
    /// Capability summary.
    pub capabilities: Capabilities,
    /// Individual checks.
    pub checks: Vec<Check>,
}

/// What each command can do here.
#[derive(Debug, Clone, Serialize)]
pub struct Capabilities {
    /// Whether `capture-process` can run.
    pub capture_process: Capability,
    /// Whether `compare-process-captures` can run (always).
    pub compare_process_captures: Capability,
}

/// One capability.
#[derive(Debug, Clone, Serialize)]
pub struct Capability {
    /// Whether it works here.
    pub available: bool,
    /// Why not, when unavailable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Runs the backend's checks and summarizes them.
pub fn doctor(host: &Host, build: BuildInfo) -> DoctorReport {
    let checks = (host.diagnose)();
    let capture_ok = matches!(host.capture, CaptureSupport::Available)
        && checks.iter().all(|c| c.classification == "healthy" || c.classification == "unsupported_host");
    let capture_process = match &host.capture {
        CaptureSupport::Available if capture_ok => Capability { available: true, reason: None },
        CaptureSupport::Available => {
            Capability { available: false, reason: Some("a capture prerequisite check failed; see checks".to_owned()) }
        }
        CaptureSupport::Unavailable { reason } => Capability { available: false, reason: Some((*reason).to_owned()) },
    };
    let healthy = checks.iter().all(|c| c.classification == "healthy" || c.classification == "unsupported_host");
    DoctorReport {
        healthy,
        rea_version: build.version,
        revision: build.revision,
        target: build.target,
        platform: host.platform,
        capabilities: Capabilities {
            capture_process,
            compare_process_captures: Capability { available: true, reason: None },
        },
        checks,
    }
}
