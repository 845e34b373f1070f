//! Every capability of the stub reports "unsupported", and doctor says why.

use std::path::Path;

use rea_engine::UserError;
use rea_engine::host::{CaptureSupport, HostError, Ownership, OwnershipClaim, Pid, RunToken, SpawnSpec, TermSize};

#[test]
fn spawn_is_a_typed_unsupported_error() {
    let host = rea_backend_windows_stub::host();
    let spec = SpawnSpec {
        program: "/bin/true".into(),
        argv0: "true".into(),
        args: vec![],
        working_directory: "/".into(),
        environment: vec![],
        size: TermSize { columns: 80, rows: 24 },
        temporary_root: None,
        observation: rea_engine::host::TreeObservation::Sampled,
    };
    let err = host.pty.spawn(&spec).err().expect("spawn must fail");
    assert!(matches!(err, HostError::Unsupported { capability: "PTY capture", .. }));
    assert_eq!(err.code(), "capture_unsupported");
    assert!(err.to_string().contains("does not yet verify descendant cleanup"), "{err}");
    assert!(matches!(host.capture, CaptureSupport::Unavailable { .. }));
}

#[test]
fn inspection_verification_and_fs_are_unsupported() {
    let host = rea_backend_windows_stub::host();
    assert!(matches!(host.inspector.table(), Err(HostError::Unsupported { .. })));
    assert!(matches!(host.inspector.process(Pid(1)), Err(HostError::Unsupported { .. })));
    let token = RunToken::from_string("00".repeat(16));
    assert!(matches!(
        host.verifier.verify(Pid(1), None, &OwnershipClaim { token: &token, session: None, root: None }),
        Ownership::Unverifiable { .. }
    ));
    assert!(host.fs.lstat(Path::new("/")).unwrap_err().message.contains("unavailable"));
}

#[test]
fn doctor_reports_the_windows_adapter_limitation() {
    let checks = rea_backend_windows_stub::diagnose();
    assert_eq!(checks.len(), 1);
    assert_eq!(checks[0].classification, rea_engine::doctor::Classification::UnsupportedHost);
    assert!(checks[0].detail.contains("WSL"));
}
