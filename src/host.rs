//! The one place where the OS picks the host backend.
//!
//! Linux and macOS get their native backend; every other OS, and any build
//! with the `force-stub` feature, gets the unsupported-host stub, under
//! which comparison still works and capture reports why it cannot.

#[cfg(all(target_os = "linux", not(feature = "force-stub")))]
use rea_backend_linux as native;
#[cfg(all(target_os = "macos", not(feature = "force-stub")))]
use rea_backend_macos as native;
#[cfg(any(feature = "force-stub", not(any(target_os = "linux", target_os = "macos"))))]
use rea_backend_windows_stub as native;

/// The host backend of this build.
pub(crate) fn host() -> rea_engine::Host {
    native::host()
}

/// When this process was started as a capture's keeper (Linux: `rea`
/// re-executes itself with a hidden first argument), serves as one and
/// returns its exit status.
pub(crate) fn keeper() -> Option<std::process::ExitCode> {
    #[cfg(all(target_os = "linux", not(feature = "force-stub")))]
    if std::env::args_os().nth(1).is_some_and(|a| a == native::KEEPER_ARGUMENT) {
        return Some(std::process::ExitCode::from(native::serve_keeper()));
    }
    None
}

/// Settings the backend reads once at start-up (on macOS, the Swift helper's
/// compiler, SDK, module cache and compile timeout); an invalid one is
/// reported before any command that may capture runs. Other hosts read none.
pub(crate) fn validate_startup_settings() -> Result<(), String> {
    #[cfg(all(target_os = "macos", not(feature = "force-stub")))]
    return native::validate_startup_settings().map_err(|e| e.to_string());
    #[cfg(not(all(target_os = "macos", not(feature = "force-stub"))))]
    Ok(())
}
