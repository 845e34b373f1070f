//! `rea doctor`.

use crate::Outcome;

pub(crate) fn run() -> Outcome {
    let host = crate::host::host();
    let report = rea_engine::doctor::doctor(&host, crate::BUILD);
    let success = report.healthy;
    Outcome { document: serde_json::to_value(report).unwrap_or_default(), success }
}
