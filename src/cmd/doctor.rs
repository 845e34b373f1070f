//! `rea doctor`.

use rea_engine::SerializeError;

use crate::Outcome;

/// Exit status 1 only when capture is unavailable on a host that should
/// support it; a host that cannot capture by design (native Windows) and a
/// degraded or informational check still exit 0.
pub(crate) fn run() -> Outcome {
    let host = crate::host::host();
    let report = rea_engine::doctor::doctor(&host, crate::BUILD);
    let success = !report.capture_broken();
    match serde_json::to_value(report).map_err(SerializeError::new("the doctor report")) {
        Ok(document) => Outcome { document, success },
        Err(e) => crate::errors::failure(&e),
    }
}
