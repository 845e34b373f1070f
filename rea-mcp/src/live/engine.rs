//! The engine's live session behind [`super::Live`].
//!
//! Until the engine's live session is merged, starting one is refused as
//! unsupported, naming what is missing; nothing is launched.

use rea_engine::capture::{Cancellation, CaptureError, CaptureRequest};

use super::StopError;

use super::Live;
use crate::session::Session;

/// Starts a live session of `request`.
pub(crate) fn start(
    _session: &Session,
    _request: CaptureRequest,
    _cancellation: Cancellation,
) -> Result<Box<dyn Live>, StopError> {
    Err(StopError::Capture(CaptureError::Unsupported { reason: "this build of rea has no live-session engine" }))
}
