//! `rea-engine`: the OS-neutral core of rea.
//!
//! It owns the scenario contract, the capture lifecycle, Evidence identity
//! and comparison, and programs against the host only through the traits in
//! [`host`] and [`fs`]. Backend crates implement those traits; the `rea`
//! binary picks one backend per OS and hands it to the engine as a [`Host`].

#![warn(missing_docs)]

pub mod capture;
pub mod compare;
pub mod doctor;
pub(crate) mod emulator;
pub mod error;
pub mod evidence;
pub mod fs;
pub mod host;
pub mod input;
pub mod keys;
pub mod live;
pub mod path;
pub mod report;
pub mod scenario;
pub mod secrets;
pub mod suite;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use error::{Category, ErrorDocument, SerializeError, UserError};
pub use host::Host;

/// Version and revision of the `rea` build, passed in by the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildInfo {
    /// Package version, e.g. `0.1.0`.
    pub version: &'static str,
    /// Git revision the binary was built from, if known.
    pub revision: Option<&'static str>,
    /// Rust target triple.
    pub target: &'static str,
}

#[cfg(test)]
mod floors_tests;
