//! The Linux host backend of rea.
//!
//! - [`pty::OpenptyPty`]: `posix_openpt` terminal, child in a new session,
//!   launched by a keeper (a child of `rea` that outlives it and is the
//!   subreaper of the launched tree, see `keeper.rs`), `rea` itself the
//!   subreaper beside it, so orphaned descendants stay in its tree;
//! - [`inspect::ProcfsInspector`]: the process table from `/proc`;
//! - [`ownership::EnvironVerifier`]: run token plus start identity, signals
//!   through pidfds;
//! - [`fs::LinuxFs`]: filesystem reads for snapshots;
//! - [`stdio`]: whether stdout was open when `rea` started.
//!
//! Only the engine's traits cross this crate's boundary.
#![cfg(target_os = "linux")]

mod awake;
mod doctor;
pub mod fs;
pub mod inspect;
mod keeper;
pub mod ownership;
mod procfs;
pub mod pty;
mod signals;
pub use rea_backend_unix::{person, stdio};
mod subreaper;
mod tracer;

use rea_engine::Host;
use rea_engine::host::CaptureSupport;

pub use doctor::diagnose;
pub use fs::open_input;
pub use keeper::KEEPER_ARGUMENT;

/// The Linux host.
pub fn host() -> Host {
    Host {
        platform: "linux",
        capture: CaptureSupport::Available,
        pty: std::sync::Arc::new(pty::OpenptyPty),
        inspector: std::sync::Arc::new(inspect::ProcfsInspector),
        verifier: std::sync::Arc::new(ownership::EnvironVerifier),
        fs: std::sync::Arc::new(fs::LinuxFs),
        diagnose,
        interrupts: std::sync::Arc::new(signals::HostSignals),
        open_input: fs::open_input,
    }
}

/// Runs this process as a run's keeper (the binary calls it when its first
/// argument is [`KEEPER_ARGUMENT`]); returns the exit status.
pub fn serve_keeper() -> u8 {
    keeper::serve(host)
}
