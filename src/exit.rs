//! Exit codes of `rea`.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | the document on stdout is a result (a comparison that found differences included) |
//! | 1 | the document on stdout is an error document, or `doctor` found a check needing attention |
//! | 2 | the arguments are wrong: clap's message and a hint on stderr (clap's convention) |
//! | 3 | `compare-process-captures --exit-code` observed a difference |
//! | 4 | stdout could not be written completely (closed when rea started, a reader that closed the pipe early, a full disk): the document is lost |

/// The document is a result.
pub(crate) const SUCCESS: u8 = 0;
/// The document is an error (or `doctor` is unhealthy).
pub(crate) const FAILURE: u8 = 1;
/// The arguments do not parse.
pub(crate) const USAGE: u8 = 2;
/// Stdout could not be written.
pub(crate) const OUTPUT_FAILED: u8 = 4;
/// `compare-process-captures --exit-code` observed a difference.
pub(crate) const DIFFERENCE: u8 = 3;
