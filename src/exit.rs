//! Exit codes of `rea`.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | the document on stdout is a result (a comparison that found differences included) |
//! | 1 | the document on stdout is an error document, or `doctor` found a check needing attention |
//! | 2 | stdout could not be written (the document is lost) |
//! | 3 | `compare-process-captures --exit-code` observed a difference |

/// The document is a result.
pub(crate) const SUCCESS: u8 = 0;
/// The document is an error (or `doctor` is unhealthy).
pub(crate) const FAILURE: u8 = 1;
/// Stdout could not be written.
pub(crate) const OUTPUT_FAILED: u8 = 2;
/// `compare-process-captures --exit-code` observed a difference.
pub(crate) const DIFFERENCE: u8 = 3;
