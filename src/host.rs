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

/// Opens an input document (scenario, capture, trace specification) only
/// if it is a regular file, without blocking: the host's `open_input`,
/// without building the whole host.
pub(crate) fn open_input(path: &std::path::Path) -> std::io::Result<rea_engine::input::OpenedInput> {
    native::open_input(path)
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

/// Whether stdout was closed when `rea` started. Rust's runtime reopens a
/// closed stdout on `/dev/null` before `main` on Unix, so the backend records
/// it before then; this check belongs to the OS, not to the capture backend,
/// so it holds under `force-stub` too. Other hosts cannot tell and say no.
pub(crate) fn stdout_closed_at_start() -> bool {
    #[cfg(target_os = "linux")]
    return rea_backend_linux::stdio::stdout_closed_at_start();
    #[cfg(target_os = "macos")]
    return rea_backend_macos::stdio::stdout_closed_at_start();
    #[cfg(windows)]
    return rea_backend_windows_stub::stdout_missing();
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    false
}

/// The person's terminal while `rea record-scenario` bridges it (raw mode,
/// size, resize and end signals): the backend's.
pub(crate) use native::person;
