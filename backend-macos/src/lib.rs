//! The macOS host backend of rea.
//!
//! Only [`sys`] (libproc, `sysctl`, `kill`) and [`host`] are
//! `cfg(target_os = "macos")`. Everything else is ordinary Rust that builds
//! and is tested on Linux, where the system-call layer is faked:
//!
//! - [`config`]: the `REA_DARWIN_*` and `REA_SWIFTC_COMPILE_TIMEOUT_MS`
//!   settings, validated once at start-up;
//! - [`compile`]: compiling the packaged Swift token reader into a private
//!   `0700` directory with a deadline that kills the compiler's process group;
//! - [`reader`]: the compiled reader shared for the run, with admission,
//!   cancellation and close rules;
//! - [`protocol`]: the reader's versioned line format;
//! - [`ownership`]: start identity + token proof, and signals that recheck
//!   the identity right before each `kill`, over the [`ownership::DarwinSys`]
//!   seam;
//! - [`pty`]: `posix_openpt` launch with the same terminal settings as Linux;
//! - [`fs`]: filesystem reads for snapshots through POSIX calls;
//! - [`doctor`]: the macOS checks;
//! - `stdio` (macOS only): whether stdout was open when `rea` started.
//!
//! It has not been run on a Mac: no macOS target or Swift compiler can be
//! installed where it was written.

pub mod config;
pub mod doctor;
pub mod ownership;
pub mod protocol;

#[cfg(unix)]
pub mod compile;
#[cfg(unix)]
pub mod fs;
#[cfg(unix)]
pub mod pty;
#[cfg(unix)]
pub mod reader;

#[cfg(target_os = "macos")]
pub use rea_backend_unix::{person, stdio};
#[cfg(target_os = "macos")]
mod sys;

#[cfg(unix)]
pub use fs::open_input;
#[cfg(target_os = "macos")]
pub use sys::{diagnose, host};

/// Validates the `REA_DARWIN_*`, `SDKROOT` and `REA_SWIFTC_COMPILE_TIMEOUT_MS`
/// settings of this process's environment, as the binary does once at
/// start-up before any command that may capture: an invalid value stops
/// `rea` with the setting's error instead of surfacing at the first capture.
pub fn validate_startup_settings() -> Result<(), config::ConfigError> {
    config::from_env(|name| std::env::var_os(name)).map(|_| ())
}
