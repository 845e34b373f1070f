//! Interrupts that cancel a capture: SIGINT, SIGTERM and SIGHUP to `rea`.

use async_signal::{Signal, Signals};
use futures_lite::StreamExt;
use rea_engine::host::{HostError, InterruptSignal, InterruptSource, Interrupts};

/// The cancelling signals of a Linux host.
pub(crate) struct HostSignals;

impl InterruptSource for HostSignals {
    /// Starts listening for the cancelling signals. While the returned
    /// stream lives, those signals no longer terminate `rea`; they are
    /// delivered to it.
    fn listen(&self) -> Result<Interrupts, HostError> {
        let signals = Signals::new([Signal::Int, Signal::Term, Signal::Hup])
            .map_err(|source| HostError::Io { op: "install the cancellation signal handlers", source })?;
        Ok(Interrupts::new(signals.filter_map(|s| match s {
            Ok(Signal::Int) => Some(InterruptSignal::SIGINT),
            Ok(Signal::Term) => Some(InterruptSignal::SIGTERM),
            Ok(Signal::Hup) => Some(InterruptSignal::SIGHUP),
            _ => None,
        })))
    }
}
