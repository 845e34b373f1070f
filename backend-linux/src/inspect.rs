//! Read-only process inspection through procfs.

use rea_engine::host::{HostError, Pid, ProcessInspector, ProcessRow, ProcessTable};

use crate::procfs;

/// Reads the process table from `/proc`.
#[derive(Debug, Default)]
pub struct ProcfsInspector;

fn io(op: &'static str) -> impl FnOnce(std::io::Error) -> HostError {
    move |source| HostError::Io { op, source }
}

impl ProcessInspector for ProcfsInspector {
    fn process(&self, pid: Pid) -> Result<Option<ProcessRow>, HostError> {
        procfs::row(pid.0).map_err(io("read a process's status"))
    }

    fn children(&self, pid: Pid) -> Result<Vec<Pid>, HostError> {
        Ok(procfs::children(pid.0)
            .map_err(io("read a process's children"))?
            .unwrap_or_default()
            .into_iter()
            .map(Pid)
            .collect())
    }

    fn table(&self) -> Result<ProcessTable, HostError> {
        let mut table = ProcessTable::default();
        for pid in procfs::all_pids().map_err(io("list /proc"))? {
            match procfs::row(pid) {
                Ok(Some(row)) => table.rows.push(row),
                Ok(None) => {}
                Err(e) => table.unreadable.push((Pid(pid), e.to_string())),
            }
        }
        Ok(table)
    }
}
