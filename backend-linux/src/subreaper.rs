//! This process (`rea`, or a keeper) as the child subreaper of its
//! descendants: set once, read by launch, the keeper and ownership checks.

use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

static SUBREAPER: Once = Once::new();
static SUBREAPER_ACTIVE: AtomicBool = AtomicBool::new(false);

/// Makes this process (`rea`, or a keeper) the reaper of orphaned
/// descendants, so a process that double-forks or calls `setsid` stays
/// inside its process tree.
pub(crate) fn become_subreaper() {
    SUBREAPER.call_once(|| {
        // Any non-zero argument enables the attribute; failure only weakens
        // descendant tracking (no lineage beyond the first orphan, no exact
        // final check), which the /proc token sweep still covers.
        let ok = rustix::process::set_child_subreaper(rustix::process::Pid::from_raw(1)).is_ok();
        SUBREAPER_ACTIVE.store(ok, Ordering::SeqCst);
    });
}

/// Whether `rea` is the child subreaper, so no descendant can leave its tree.
pub(crate) fn subreaper_active() -> bool {
    SUBREAPER_ACTIVE.load(Ordering::SeqCst)
}
