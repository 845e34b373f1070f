//! Interrupts that cancel a capture: SIGINT, SIGTERM and SIGHUP to `rea`.

use async_signal::{Signal, Signals};
use futures_lite::StreamExt;
use rea_engine::host::{HostError, Interrupts};

/// Starts listening for the cancelling signals. While the returned stream
/// lives, those signals no longer terminate `rea`; they are delivered to it.
pub(crate) fn interrupts() -> Result<Interrupts, HostError> {
    let signals = Signals::new([Signal::Int, Signal::Term, Signal::Hup])
        .map_err(|source| HostError::Io { op: "install the cancellation signal handlers", source })?;
    Ok(Interrupts::new(signals.filter_map(|s| match s {
        Ok(Signal::Int) => Some("SIGINT"),
        Ok(Signal::Term) => Some("SIGTERM"),
        Ok(Signal::Hup) => Some("SIGHUP"),
        _ => None,
    })))
}
