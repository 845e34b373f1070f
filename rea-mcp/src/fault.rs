//! Test-only fault injection: makes owned-process cleanup fail on demand, so
//! the end-to-end test can see a capture refused while a cleanup is pending.
//!
//! Compiled only with the `fault-injection` feature, which only the `rea`
//! package's dev-dependencies enable (binaries built by `cargo test`); a
//! release or `cargo install` build has no hook. With the feature, setting
//! `REA_MCP_TEST_FAIL_CLEANUP_WHILE=<path>` makes every process-table read
//! fail while a file exists at `<path>`: cleanup then cannot verify the run
//! and reports `cleanup_incomplete`; removing the file lets the next retry
//! succeed.

use rea_engine::Host;

/// The variable naming the marker file.
#[cfg(feature = "fault-injection")]
pub(crate) const FAIL_CLEANUP_WHILE: &str = "REA_MCP_TEST_FAIL_CLEANUP_WHILE";

/// The host, with the test fault applied when it is compiled in and asked for.
#[cfg(feature = "fault-injection")]
pub(crate) fn apply(host: Host) -> Host {
    use std::sync::Arc;
    match std::env::var_os(FAIL_CLEANUP_WHILE) {
        Some(marker) => {
            let inspector = Arc::new(FailingTable { inner: Arc::clone(&host.inspector), marker: marker.into() });
            Host { inspector, ..host }
        }
        None => host,
    }
}

/// Without the feature there is no hook.
#[cfg(not(feature = "fault-injection"))]
pub(crate) fn apply(host: Host) -> Host {
    host
}

#[cfg(feature = "fault-injection")]
struct FailingTable {
    inner: std::sync::Arc<dyn rea_engine::host::ProcessInspector>,
    marker: std::path::PathBuf,
}

#[cfg(feature = "fault-injection")]
impl rea_engine::host::ProcessInspector for FailingTable {
    fn process(
        &self,
        pid: rea_engine::host::Pid,
    ) -> Result<Option<rea_engine::host::ProcessRow>, rea_engine::host::HostError> {
        self.inner.process(pid)
    }
    fn children(&self, pid: rea_engine::host::Pid) -> Result<Vec<rea_engine::host::Pid>, rea_engine::host::HostError> {
        self.inner.children(pid)
    }
    fn table(&self) -> Result<rea_engine::host::ProcessTable, rea_engine::host::HostError> {
        if self.marker.exists() {
            return Err(rea_engine::host::HostError::Io {
                op: "read the process table (test fault injected by REA_MCP_TEST_FAIL_CLEANUP_WHILE)",
                source: std::io::Error::other(format!("fault marker {} exists", self.marker.display())),
            });
        }
        self.inner.table()
    }
}
