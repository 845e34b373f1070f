//! The live sessions of one MCP server: each under its own id, at most
//! [`MAX_LIVE_SESSIONS`] at once, one call at a time each, and all ended
//! with the server.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use super::Live;
use crate::errors::{SessionBusyError, SessionLimitError, UnknownSessionError};

/// Most live sessions one server runs at once (each holds a PTY, a keeper
/// and a renderer until it is stopped).
pub(crate) const MAX_LIVE_SESSIONS: usize = 8;

/// One session's engine handle; `None` once it was taken to be stopped.
type Slot = Arc<Mutex<Option<Box<dyn Live>>>>;

#[derive(Default)]
struct Inner {
    running: BTreeMap<String, Slot>,
    /// Slots reserved by starts whose launch has not finished.
    starting: usize,
}

/// The table.
#[derive(Default)]
pub(crate) struct LiveTable {
    next: AtomicU64,
    inner: Mutex<Inner>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Why a call on a session id cannot run.
#[derive(Debug)]
pub(crate) enum Refused {
    Unknown(UnknownSessionError),
    Busy(SessionBusyError),
}

impl Refused {
    pub(crate) fn error(&self) -> &dyn rea_engine::UserError {
        match self {
            Refused::Unknown(e) => e,
            Refused::Busy(e) => e,
        }
    }
}

/// A slot held for a session being started: [`Reservation::fill`] puts the
/// session in the table under the reserved id; dropping it frees the slot.
pub(crate) struct Reservation<'t> {
    table: &'t LiveTable,
    id: String,
    filled: bool,
}

impl Reservation<'_> {
    /// Enters the started session.
    pub(crate) fn fill(mut self, live: Box<dyn Live>) -> String {
        let mut inner = lock(&self.table.inner);
        inner.starting -= 1;
        inner.running.insert(self.id.clone(), Arc::new(Mutex::new(Some(live))));
        self.filled = true;
        self.id.clone()
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.filled {
            lock(&self.table.inner).starting -= 1;
        }
    }
}

impl LiveTable {
    /// Holds a slot for a new session, before anything is launched.
    pub(crate) fn reserve(&self) -> Result<Reservation<'_>, SessionLimitError> {
        let mut inner = lock(&self.inner);
        if inner.running.len() + inner.starting >= MAX_LIVE_SESSIONS {
            return Err(SessionLimitError { max: MAX_LIVE_SESSIONS, running: inner.running.keys().cloned().collect() });
        }
        inner.starting += 1;
        let id = format!("session-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        Ok(Reservation { table: self, id, filled: false })
    }

    fn slot(&self, tool: &'static str, id: &str) -> Result<Slot, Refused> {
        let inner = lock(&self.inner);
        inner.running.get(id).cloned().ok_or_else(|| {
            Refused::Unknown(UnknownSessionError {
                tool,
                id: id.to_owned(),
                running: inner.running.keys().cloned().collect(),
            })
        })
    }

    /// Runs `call` on the session `id`, unless another call on it is running.
    pub(crate) fn with<R>(
        &self,
        tool: &'static str,
        id: &str,
        call: impl FnOnce(&mut dyn Live) -> R,
    ) -> Result<R, Refused> {
        let slot = self.slot(tool, id)?;
        let mut guard = match slot.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(Refused::Busy(SessionBusyError { tool, id: id.to_owned() })),
        };
        match guard.as_mut() {
            Some(live) => Ok(call(live.as_mut())),
            // Taken by a stop_session that is still running.
            None => Err(Refused::Busy(SessionBusyError { tool, id: id.to_owned() })),
        }
    }

    /// Takes the session `id` out of the table, to be stopped.
    pub(crate) fn take(&self, tool: &'static str, id: &str) -> Result<Box<dyn Live>, Refused> {
        let slot = self.slot(tool, id)?;
        let taken = match slot.try_lock() {
            Ok(mut guard) => guard.take(),
            Err(TryLockError::Poisoned(p)) => p.into_inner().take(),
            Err(TryLockError::WouldBlock) => None,
        };
        let Some(live) = taken else {
            return Err(Refused::Busy(SessionBusyError { tool, id: id.to_owned() }));
        };
        lock(&self.inner).running.remove(id);
        Ok(live)
    }

    /// Takes every session out of the table (server end); a session whose
    /// call is still running is waited for.
    pub(crate) fn take_all(&self) -> Vec<(String, Box<dyn Live>)> {
        let slots = std::mem::take(&mut lock(&self.inner).running);
        slots.into_iter().filter_map(|(id, slot)| lock(&slot).take().map(|live| (id, live))).collect()
    }
}

#[cfg(test)]
#[path = "table_tests.rs"]
mod tests;
