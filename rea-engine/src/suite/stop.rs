//! The stop of a suite run: fired once, by the first cause of the run's
//! cancellation (the host's interrupt signals, an MCP client's
//! cancellation, the end of its session); no case starts after it, and
//! every running capture is cancelled by it through the capture's own
//! cancellation and cleanup.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use event_listener::Event;

use crate::capture::{CancelCause, Cancellation};
use crate::host::{Host, HostError};

#[derive(Default)]
struct Inner {
    cause: Mutex<Option<CancelCause>>,
    event: Event,
}

/// The run's stop, shared by every case.
#[derive(Clone, Default)]
pub(crate) struct Stop(Arc<Inner>);

impl Stop {
    /// Fires the stop (the first cause is kept).
    pub(crate) fn fire(&self, cause: CancelCause) {
        let mut slot = self.0.cause.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(cause);
        }
        drop(slot);
        self.0.event.notify(usize::MAX);
    }

    /// The cause, once fired.
    pub(crate) fn fired(&self) -> Option<CancelCause> {
        *self.0.cause.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Resolves with the cause when the stop fires (at once if it has).
    fn wait(&self) -> impl Future<Output = CancelCause> + Send + 'static {
        let stop = self.clone();
        async move {
            loop {
                if let Some(cause) = stop.fired() {
                    return cause;
                }
                let listener = stop.0.event.listen();
                if let Some(cause) = stop.fired() {
                    return cause;
                }
                listener.await;
            }
        }
    }

    /// The cancellation of one capture of the run.
    pub(crate) fn cancellation(&self) -> Cancellation {
        Cancellation::none().or_until(self.wait())
    }

    /// Fires the stop at the first cause of `cancellation`, watched on a
    /// thread of its own until the returned watch is dropped.
    pub(crate) fn watch(&self, host: &Host, cancellation: Cancellation) -> Result<Watch, HostError> {
        let first = cancellation.watch(host)?;
        let done = Arc::new(Done::default());
        let (stop, finished) = (self.clone(), Arc::clone(&done));
        let thread = std::thread::Builder::new()
            .name("rea-suite-stop".into())
            .spawn(move || {
                let ended = async {
                    finished.wait().await;
                    None
                };
                if let Some(cause) = async_io::block_on(futures_lite::future::or(async { Some(first.await) }, ended)) {
                    stop.fire(cause);
                }
            })
            .map_err(|source| HostError::Io { op: "start the thread that watches for cancellation", source })?;
        Ok(Watch { done, thread: Some(thread) })
    }
}

#[derive(Default)]
struct Done {
    flag: AtomicBool,
    event: Event,
}

impl Done {
    async fn wait(&self) {
        loop {
            if self.flag.load(Ordering::SeqCst) {
                return;
            }
            let listener = self.event.listen();
            if self.flag.load(Ordering::SeqCst) {
                return;
            }
            listener.await;
        }
    }
}

/// The watching thread; dropping it ends the watch.
pub(crate) struct Watch {
    done: Arc<Done>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.done.flag.store(true, Ordering::SeqCst);
        self.done.event.notify(usize::MAX);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_cause_is_kept_and_waiters_wake() {
        let stop = Stop::default();
        assert_eq!(stop.fired(), None);
        let waiter = {
            let stop = stop.clone();
            std::thread::spawn(move || async_io::block_on(stop.wait()))
        };
        stop.fire(CancelCause::Client);
        stop.fire(CancelCause::SessionEnd);
        assert_eq!(waiter.join().unwrap(), CancelCause::Client);
        assert_eq!(async_io::block_on(stop.wait()), CancelCause::Client, "a late waiter returns at once");
    }

    #[test]
    fn a_watch_fires_the_stop_or_ends_quietly() {
        let host = crate::testing::fakes::FakeWorld::new().host();
        let stop = Stop::default();
        let watch = stop.watch(&host, Cancellation::none().or_when(CancelCause::Client, async {})).unwrap();
        assert_eq!(async_io::block_on(stop.wait()), CancelCause::Client);
        drop(watch);
        let quiet = Stop::default();
        drop(quiet.watch(&host, Cancellation::none()).unwrap());
        assert_eq!(quiet.fired(), None);
    }
}
