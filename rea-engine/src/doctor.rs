//! `rea doctor`: what this host can do, and what to fix.
//!
//! The backend runs its own checks ([`crate::host::Host::diagnose`]); this
//! module adds the engine's own (the terminal emulator in use), decides from
//! the statuses whether capture is available, and tells a host that cannot
//! capture by design (native Windows) apart from a host whose capture
//! prerequisites are broken (the only case `rea doctor` exits 1 for).

use serde::Serialize;

use crate::BuildInfo;
use crate::host::{CaptureSupport, Check, ExitStatus, Host, PtyBackend, SpawnSpec, TermSize};

pub use crate::host::Classification;

/// How much a backend check matters for capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requirement {
    /// Capture cannot work without it: a failure is a missing dependency.
    Required,
    /// Capture works without it, with a weaker guarantee: a failure degrades.
    Recommended,
    /// Reported for information only.
    Informational,
}

/// A backend check: its name, how much it matters, the probe that runs it
/// and what to do when it fails. Backends keep a table of these; tests swap
/// a probe for one that fails to see what the user would be told.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// Stable name, e.g. `pty_probe`.
    pub name: &'static str,
    /// How much it matters.
    pub requirement: Requirement,
    /// Runs the check: what was observed, or what went wrong.
    pub run: fn() -> Result<String, String>,
    /// What to do when it fails.
    pub remediation: &'static str,
}

impl Probe {
    /// Runs the probe.
    pub fn check(&self) -> Check {
        evaluate(self.name, self.requirement, (self.run)(), self.remediation)
    }
}

/// The check for a probe result.
pub fn evaluate(name: &str, requirement: Requirement, result: Result<String, String>, remediation: &str) -> Check {
    let (classification, detail, remediation) = match (result, requirement) {
        (Ok(detail), Requirement::Informational) => (Classification::Informational, detail, None),
        (Ok(detail), _) => (Classification::Healthy, detail, None),
        (Err(detail), Requirement::Required) => (Classification::MissingDependency, detail, Some(remediation)),
        (Err(detail), Requirement::Recommended) => (Classification::Degraded, detail, Some(remediation)),
        (Err(detail), Requirement::Informational) => (Classification::Informational, detail, Some(remediation)),
    };
    Check { name: name.to_owned(), classification, detail, remediation: remediation.map(str::to_owned) }
}

/// The terminal emulator that renders frames, as `rea doctor` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminalEmulator {
    /// Its name, e.g. a crate name.
    pub name: &'static str,
    /// Its version.
    pub version: &'static str,
}

/// The terminal emulator built into this engine, which renders every
/// capture's frames.
pub const TERMINAL_EMULATOR: Option<TerminalEmulator> = Some(TerminalEmulator {
    name: crate::capture::render::EMULATOR_NAME,
    version: crate::capture::render::EMULATOR_VERSION,
});

/// The doctor report.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// True when no check needs attention (degraded or missing dependency).
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

impl DoctorReport {
    /// Whether capture is unavailable on a host that should support it: the
    /// case `rea doctor` exits 1 for.
    pub fn capture_broken(&self) -> bool {
        self.capabilities.capture_process.cause == Some(UnavailableCause::PrerequisiteFailed)
    }
}

/// What each command can do here.
#[derive(Debug, Clone, Serialize)]
pub struct Capabilities {
    /// Whether `capture-process` can run.
    pub capture_process: Capability,
    /// Whether `compare-process-captures` can run (always).
    pub compare_process_captures: Capability,
}

/// Why a capability is unavailable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnavailableCause {
    /// The host cannot capture by design (native Windows).
    UnsupportedHost,
    /// The host supports capture, but a prerequisite check failed.
    PrerequisiteFailed,
}

/// One capability.
#[derive(Debug, Clone, Serialize)]
pub struct Capability {
    /// Whether it works here.
    pub available: bool,
    /// Why not, when unavailable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What kind of "unavailable" it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<UnavailableCause>,
}

/// The PTY probe every capture backend runs: `/bin/sh -c 'exit 0'` launched
/// through `pty` on a fresh 80x24 terminal, as a new session, and awaited.
pub fn pty_probe(pty: &dyn PtyBackend) -> Result<String, String> {
    let spec = SpawnSpec {
        program: "/bin/sh".into(),
        argv0: "sh".into(),
        args: vec!["-c".into(), "exit 0".into()],
        working_directory: "/".into(),
        environment: vec![("TERM".into(), "xterm-256color".into())],
        size: TermSize { columns: 80, rows: 24 },
        temporary_root: None,
        observation: crate::host::TreeObservation::Sampled,
    };
    let mut process = pty.spawn(&spec).map_err(|e| format!("the PTY probe failed: {e}"))?;
    let status = async_io::block_on(process.wait()).map_err(|e| format!("the PTY probe could not be awaited: {e}"))?;
    process.close_terminal();
    match status {
        ExitStatus::Code(0) => Ok("launched /bin/sh in a new session on a PTY; it exited 0".into()),
        other => Err(format!("the PTY probe ended with {other:?}")),
    }
}

/// The engine's own check: which terminal emulator renders frames.
pub fn terminal_emulator_check(emulator: Option<TerminalEmulator>) -> Check {
    let detail = match emulator {
        Some(e) => format!("rendered frames come from {} {}", e.name, e.version),
        None => {
            "no terminal emulator is built in: captures keep the terminal byte stream and record no rendered frames"
                .to_owned()
        }
    };
    Check {
        name: "terminal_emulator".to_owned(),
        classification: Classification::Informational,
        detail,
        remediation: None,
    }
}

fn capture_capability(support: &CaptureSupport, checks: &[Check]) -> Capability {
    let failed: Vec<&str> = checks
        .iter()
        .filter(|c| c.classification == Classification::MissingDependency)
        .map(|c| c.name.as_str())
        .collect();
    match support {
        // A host that refuses capture because a prerequisite failed (for
        // example invalid macOS compiler settings) is broken, not unsupported.
        CaptureSupport::Unavailable { reason } if !failed.is_empty() => Capability {
            available: false,
            reason: Some((*reason).to_owned()),
            cause: Some(UnavailableCause::PrerequisiteFailed),
        },
        CaptureSupport::Unavailable { reason } => Capability {
            available: false,
            reason: Some((*reason).to_owned()),
            cause: Some(UnavailableCause::UnsupportedHost),
        },
        CaptureSupport::Available if failed.is_empty() => Capability { available: true, reason: None, cause: None },
        CaptureSupport::Available => Capability {
            available: false,
            reason: Some(format!(
                "capture prerequisites failed: {}; follow each check's remediation",
                failed.join(", ")
            )),
            cause: Some(UnavailableCause::PrerequisiteFailed),
        },
    }
}

/// Runs the backend's checks, adds the engine's, and summarizes them.
pub fn doctor(host: &Host, build: BuildInfo) -> DoctorReport {
    let mut checks = (host.diagnose)();
    checks.push(terminal_emulator_check(TERMINAL_EMULATOR));
    let capture_process = capture_capability(&host.capture, &checks);
    let healthy = !checks.iter().any(|c| c.classification.needs_attention());
    DoctorReport {
        healthy,
        rea_version: build.version,
        revision: build.revision,
        target: build.target,
        platform: host.platform,
        capabilities: Capabilities {
            capture_process,
            compare_process_captures: Capability { available: true, reason: None, cause: None },
        },
        checks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::fakes::FakeWorld;

    const BUILD: BuildInfo = BuildInfo { version: "0.0.0", revision: None, target: "test" };

    fn check(name: &str, classification: Classification) -> Check {
        Check { name: name.to_owned(), classification, detail: "observed".to_owned(), remediation: None }
    }

    fn report(capture: CaptureSupport, diagnose: fn() -> Vec<Check>) -> DoctorReport {
        let mut host = FakeWorld::new().host();
        host.capture = capture;
        host.diagnose = diagnose;
        doctor(&host, BUILD)
    }

    #[test]
    fn a_healthy_host_can_capture() {
        let r = report(CaptureSupport::Available, || {
            vec![check("pty_probe", Classification::Healthy), check("cgroup", Classification::Informational)]
        });
        assert!(r.healthy);
        assert!(r.capabilities.capture_process.available);
        assert!(!r.capture_broken());
        let names: Vec<&str> = r.checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["pty_probe", "cgroup", "terminal_emulator"]);
    }

    #[test]
    fn a_missing_dependency_makes_capture_unavailable_and_broken() {
        let r = report(CaptureSupport::Available, || {
            vec![check("pty_probe", Classification::MissingDependency), check("procfs", Classification::Healthy)]
        });
        assert!(!r.healthy);
        let c = &r.capabilities.capture_process;
        assert!(!c.available);
        assert_eq!(c.cause, Some(UnavailableCause::PrerequisiteFailed));
        assert!(c.reason.as_deref().unwrap().contains("pty_probe"));
        assert!(r.capture_broken());
        assert!(r.capabilities.compare_process_captures.available);
    }

    #[test]
    fn a_degraded_check_needs_attention_but_capture_works() {
        let r = report(CaptureSupport::Available, || vec![check("pidfd", Classification::Degraded)]);
        assert!(!r.healthy);
        assert!(r.capabilities.capture_process.available);
        assert!(!r.capture_broken());
    }

    #[test]
    fn an_unsupported_host_is_told_apart_from_a_broken_one() {
        let r = report(CaptureSupport::Unavailable { reason: "no adapter" }, || {
            vec![check("capture_adapter", Classification::UnsupportedHost)]
        });
        assert!(r.healthy);
        let c = &r.capabilities.capture_process;
        assert!(!c.available);
        assert_eq!(c.cause, Some(UnavailableCause::UnsupportedHost));
        assert_eq!(c.reason.as_deref(), Some("no adapter"));
        assert!(!r.capture_broken());
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["capabilities"]["capture_process"]["cause"], "unsupported_host");
        assert_eq!(json["checks"][0]["classification"], "unsupported_host");
    }

    #[test]
    fn a_refusal_caused_by_a_failed_prerequisite_is_broken() {
        let r =
            report(CaptureSupport::Unavailable { reason: "REA_SWIFTC_COMPILE_TIMEOUT_MS=\"0\" is invalid" }, || {
                vec![check("darwin_settings", Classification::MissingDependency)]
            });
        assert_eq!(r.capabilities.capture_process.cause, Some(UnavailableCause::PrerequisiteFailed));
        assert!(r.capabilities.capture_process.reason.as_deref().unwrap().contains("TIMEOUT"));
        assert!(r.capture_broken());
    }

    #[test]
    fn a_probe_result_maps_to_its_classification() {
        use Requirement::*;
        let cases = [
            (Required, Ok(()), Classification::Healthy, false),
            (Required, Err(()), Classification::MissingDependency, true),
            (Recommended, Ok(()), Classification::Healthy, false),
            (Recommended, Err(()), Classification::Degraded, true),
            (Informational, Ok(()), Classification::Informational, false),
            (Informational, Err(()), Classification::Informational, true),
        ];
        for (requirement, result, expected, remediation) in cases {
            let result = result.map(|()| "fine".to_owned()).map_err(|()| "broken".to_owned());
            let c = evaluate("x", requirement, result, "do this");
            assert_eq!(c.classification, expected, "{requirement:?}");
            assert_eq!(c.remediation.is_some(), remediation, "{requirement:?}");
        }
    }

    #[test]
    fn the_terminal_emulator_is_reported_whether_built_in_or_not() {
        let none = terminal_emulator_check(None);
        assert_eq!(none.classification, Classification::Informational);
        assert!(none.detail.contains("no rendered frames"));
        let some = terminal_emulator_check(Some(TerminalEmulator { name: "vt", version: "1.2" }));
        assert_eq!(some.detail, "rendered frames come from vt 1.2");
    }
}
