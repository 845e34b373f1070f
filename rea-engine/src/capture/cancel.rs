//! What may cancel a capture, as a typed argument of the capture call.
//!
//! A front end says what cancels its capture with a [`Cancellation`]: the
//! host's interrupt signals (the CLI), and any further causes with the
//! future that fires them (the MCP server: the client's cancellation of the
//! request, the end of the session). The lifecycle starts listening when it
//! starts (the host's signal handlers are installed then, as before) and
//! watches one stream of [`CancelCause`]s through every phase that can be
//! interrupted. Whatever the cause, the run takes the same cancellation and
//! cleanup path; the cause is what the error reports.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_lite::{Stream, StreamExt};

use crate::host::{BoxFuture, Host, HostError, InterruptSignal, Interrupts};

/// Why a capture was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CancelCause {
    /// An interrupt signal to `rea` (SIGINT, SIGTERM, SIGHUP).
    Signal(InterruptSignal),
    /// The client of the MCP server cancelled the request
    /// (`notifications/cancelled`).
    Client,
    /// The MCP session ended while the capture ran.
    SessionEnd,
}

impl CancelCause {
    /// The cause as the error reports it (`details.signal`, and the message's
    /// "cancelled by ..."): the signal's name, or what cancelled.
    pub fn as_str(self) -> &'static str {
        match self {
            CancelCause::Signal(signal) => signal.as_str(),
            CancelCause::Client => "the MCP client (notifications/cancelled)",
            CancelCause::SessionEnd => "the end of the MCP session",
        }
    }
}

impl fmt::Display for CancelCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What cancels one capture: the caller's argument to the capture call.
#[must_use]
pub struct Cancellation {
    host_signals: bool,
    /// Further causes, each the future that fires with it, in preference
    /// order (the first ready one wins).
    causes: Vec<BoxFuture<'static, CancelCause>>,
}

impl fmt::Debug for Cancellation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancellation")
            .field("host_signals", &self.host_signals)
            .field("causes", &self.causes.len())
            .finish()
    }
}

impl Cancellation {
    /// Nothing cancels the capture (tests, embedding).
    pub fn none() -> Cancellation {
        Cancellation { host_signals: false, causes: Vec::new() }
    }

    /// The host's interrupt signals cancel the capture.
    pub fn on_host_signals() -> Cancellation {
        Cancellation { host_signals: true, causes: Vec::new() }
    }

    /// Also cancels with `cause` when `fired` completes. Causes added first
    /// are preferred when several are ready together; signals come last.
    pub fn or_when(self, cause: CancelCause, fired: impl Future<Output = ()> + Send + 'static) -> Cancellation {
        self.or_until(async move {
            fired.await;
            cause
        })
    }

    /// Also cancels when `fired` completes, with the cause it returns (a
    /// front end that cancels many captures at once, for one cause it
    /// learns when it happens).
    pub fn or_until(mut self, fired: impl Future<Output = CancelCause> + Send + 'static) -> Cancellation {
        self.causes.push(Box::pin(fired));
        self
    }

    /// Starts listening now (the host's signal handlers are installed) and
    /// returns the future of the first cause: what a front end that runs
    /// many captures watches to stop them all.
    pub fn watch(self, host: &Host) -> Result<impl Future<Output = CancelCause> + Send + use<>, HostError> {
        let mut cancel = self.listen(host)?;
        Ok(async move { cancel.fired().await })
    }

    /// Starts listening: the host's signal handlers are installed now.
    pub(super) fn listen(self, host: &Host) -> Result<Cancel, HostError> {
        let signals = if self.host_signals { host.interrupts.listen()? } else { Interrupts::never() };
        let signals = signals.map(CancelCause::Signal);
        if self.causes.is_empty() {
            return Ok(Cancel(Box::pin(signals)));
        }
        let first = futures_lite::stream::once_future(FirstOf(self.causes));
        Ok(Cancel(Box::pin(first.or(signals))))
    }
}

/// The first of several causes to fire.
struct FirstOf(Vec<BoxFuture<'static, CancelCause>>);

impl Future for FirstOf {
    type Output = CancelCause;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CancelCause> {
        for fired in &mut self.0 {
            if let Poll::Ready(cause) = fired.as_mut().poll(cx) {
                return Poll::Ready(cause);
            }
        }
        Poll::Pending
    }
}

/// The listened cancellation of a running capture.
pub(super) struct Cancel(Pin<Box<dyn Stream<Item = CancelCause> + Send>>);

impl Cancel {
    /// The next cause; `None` when every source ended.
    pub(super) async fn next(&mut self) -> Option<CancelCause> {
        self.0.next().await
    }

    /// Polls for the next cause.
    pub(super) fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<CancelCause>> {
        self.0.as_mut().poll_next(cx)
    }

    /// Resolves at the next cause; never when every source has ended.
    pub(super) async fn fired(&mut self) -> CancelCause {
        match self.next().await {
            Some(cause) => cause,
            None => futures_lite::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_read_as_before() {
        assert_eq!(CancelCause::Signal(InterruptSignal::SIGINT).to_string(), "SIGINT");
        assert_eq!(CancelCause::Client.to_string(), "the MCP client (notifications/cancelled)");
        assert_eq!(CancelCause::SessionEnd.to_string(), "the end of the MCP session");
    }

    #[test]
    fn the_first_cause_added_wins_when_several_are_ready() {
        let host = crate::testing::fakes::FakeWorld::new().host();
        let mut cancel = Cancellation::on_host_signals()
            .or_when(CancelCause::Client, async {})
            .or_when(CancelCause::SessionEnd, async {})
            .listen(&host)
            .unwrap();
        assert_eq!(async_io::block_on(cancel.next()), Some(CancelCause::Client));
    }
}
