//! `rea doctor` checks of the Linux backend.
//!
//! Each check is a [`Probe`] in [`PROBES`]: a name, how much it matters for
//! capture, the probe function and the remediation. Tests swap each probe
//! for a failing one to see what a user would be told.

use rea_engine::doctor::{Probe, Requirement};
use rea_engine::host::Check;

/// Every check, in report order.
pub(crate) const PROBES: [Probe; 9] = [
    Probe {
        name: "pty_probe",
        requirement: Requirement::Required,
        run: pty_probe,
        remediation: "Make /dev/ptmx and /dev/pts available (mount devpts) so rea can open pseudo-terminals.",
    },
    Probe {
        name: "procfs",
        requirement: Requirement::Required,
        run: procfs,
        remediation: "Mount /proc (procfs) readable by this user; rea reads process identity and ownership from it.",
    },
    Probe {
        name: "pidfd",
        requirement: Requirement::Recommended,
        run: pidfd,
        remediation: "Use Linux 5.3 or newer (and allow pidfd_open in any seccomp policy) for pidfd-based signalling; capture still works with check-then-kill.",
    },
    Probe {
        name: "child_subreaper",
        requirement: Requirement::Recommended,
        run: child_subreaper,
        remediation: "Allow prctl(PR_SET_CHILD_SUBREAPER) (Linux 3.4+, not blocked by seccomp) so orphaned descendants stay in rea's tree; the /proc token sweep still finds them otherwise.",
    },
    Probe {
        name: "parent_death_signal",
        requirement: Requirement::Required,
        run: parent_death_signal,
        remediation: "Allow prctl(PR_SET_PDEATHSIG) (not blocked by seccomp): rea's keeper arms it in every launched command so that a killed keeper takes the command with it, and refuses to launch without it.",
    },
    Probe {
        name: "ptrace_exact_processes",
        requirement: Requirement::Recommended,
        run: ptrace_exact,
        remediation: "Allow ptrace of a process's own children (YAMA kernel.yama.ptrace_scope 0 or 1, ptrace not blocked by seccomp or the container runtime) for exact process observation; without it captures sample the process tree and say why.",
    },
    Probe {
        name: "exact_processes_cpu_kept_awake",
        requirement: Requirement::Informational,
        run: crate::awake::availability,
        remediation: "Nothing is needed. With CAP_SYS_NICE (root has it; a service manager can grant it, e.g. systemd's AmbientCapabilities=CAP_SYS_NICE) or a `nice` limit of 0 in limits.conf (RLIMIT_NICE 20) the keeper keeps one lasting idle-class thread; without, it starts one per burst of process starts and only while /proc/loadavg shows a free CPU, so a machine that becomes busy during a capture's last 3 ms can hold its end back (about a quarter of a second, up to 1.3 s seen; see docs/decisions.md).",
    },
    Probe {
        name: "cgroup_v2_delegation",
        requirement: Requirement::Informational,
        run: cgroup_delegation,
        remediation: "Nothing is needed for capture. To delegate a cgroup v2 subtree, run rea under `systemd-run --user --scope -p Delegate=yes`.",
    },
    Probe {
        name: "sha_extensions",
        requirement: Requirement::Informational,
        run: sha_extensions,
        remediation: "Nothing is needed: SHA-256 falls back to portable code, which hashes filesystem snapshots more slowly.",
    },
];

fn procfs() -> Result<String, String> {
    match crate::procfs::stat(std::process::id()) {
        Ok(Some(_)) => match crate::procfs::environ_lookup(std::process::id(), "PATH") {
            Ok(_) => Ok("/proc is mounted and rea can read its own stat and environ".into()),
            Err(e) => Err(format!("/proc/<pid>/environ is unreadable: {e}")),
        },
        Ok(None) => Err("/proc does not list rea itself".into()),
        Err(e) => Err(format!("/proc/<pid>/stat is unreadable: {e}")),
    }
}

fn pidfd() -> Result<String, String> {
    if crate::ownership::pidfds_available() {
        Ok("pidfd_open works: signals go to verified processes through pidfds".into())
    } else {
        Err("pidfd_open is unavailable (kernel older than 5.3, or blocked): signals use check-then-kill".into())
    }
}

fn child_subreaper() -> Result<String, String> {
    let me = rustix::process::getpid();
    rustix::process::set_child_subreaper(Some(me))
        .and_then(|()| rustix::process::child_subreaper())
        .map_err(|e| format!("prctl(PR_SET_CHILD_SUBREAPER) failed: {e}"))
        .and_then(|now| match now {
            Some(_) => Ok("rea can become the child subreaper: orphaned descendants stay in its process tree".into()),
            None => Err("prctl(PR_SET_CHILD_SUBREAPER) was accepted but did not take effect".into()),
        })
}

fn parent_death_signal() -> Result<String, String> {
    use rustix::process::{Signal, parent_process_death_signal, set_parent_process_death_signal};
    let previous = parent_process_death_signal().map_err(|e| format!("prctl(PR_GET_PDEATHSIG) failed: {e}"))?;
    let set = set_parent_process_death_signal(Some(Signal::TERM)).and_then(|()| parent_process_death_signal());
    // Restore whatever was there before the probe, whether or not it worked.
    let _ = set_parent_process_death_signal(previous);
    match set {
        Ok(Some(Signal::TERM)) => {
            Ok("prctl(PR_SET_PDEATHSIG) works: each launched command gets SIGKILL if its keeper dies".into())
        }
        Ok(other) => Err(format!("prctl(PR_SET_PDEATHSIG) did not take effect (read back {other:?})")),
        Err(e) => Err(format!("prctl(PR_SET_PDEATHSIG) failed: {e}")),
    }
}

fn ptrace_exact() -> Result<String, String> {
    let yama = crate::tracer::yama_scope().map_or_else(|| "no YAMA".to_owned(), |s| format!("YAMA ptrace_scope {s}"));
    match crate::tracer::probe() {
        Ok(()) => {
            Ok(format!("PTRACE_SEIZE of a child works ({yama}): the keeper observes every fork, exec and exit exactly"))
        }
        Err(e) => {
            Err(format!("PTRACE_SEIZE of a child was refused ({yama}): {e}; captures sample the process tree instead"))
        }
    }
}

/// The cgroup v2 path of the process, from `/proc/<pid>/cgroup` text.
fn cgroup_v2_path(text: &str) -> Option<&str> {
    text.lines().find_map(|line| line.strip_prefix("0::"))
}

fn cgroup_delegation() -> Result<String, String> {
    let text =
        std::fs::read_to_string("/proc/self/cgroup").map_err(|e| format!("/proc/self/cgroup is unreadable: {e}"))?;
    let path = cgroup_v2_path(&text).ok_or("this process is in no cgroup v2 hierarchy (cgroup v1 or none)")?;
    let root = std::path::Path::new("/sys/fs/cgroup");
    if !root.join("cgroup.controllers").exists() {
        return Err("cgroup v2 is not mounted at /sys/fs/cgroup".into());
    }
    let dir = root.join(path.trim_start_matches('/'));
    let writable = |p: &std::path::Path| rustix::fs::access(p, rustix::fs::Access::WRITE_OK).is_ok();
    if writable(&dir) && writable(&dir.join("cgroup.subtree_control")) {
        Ok(format!(
            "cgroup v2 subtree {} is delegated to this user; rea does not use cgroups, its cleanup verifies each process",
            dir.display()
        ))
    } else {
        Err(format!("cgroup v2 subtree {} is not writable by this user (not delegated)", dir.display()))
    }
}

fn sha_extensions() -> Result<String, String> {
    #[cfg(target_arch = "x86_64")]
    let (name, present) = ("SHA-NI", std::arch::is_x86_feature_detected!("sha"));
    #[cfg(target_arch = "aarch64")]
    let (name, present) = ("ARMv8 SHA2", std::arch::is_aarch64_feature_detected!("sha2"));
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let (name, present) = ("SHA extensions", false);
    if present {
        Ok(format!("{name} is available: SHA-256 digests of snapshots use the CPU's instructions"))
    } else {
        Err(format!("{name} is not available on this CPU: SHA-256 digests use portable code"))
    }
}

fn pty_probe() -> Result<String, String> {
    rea_engine::doctor::pty_probe(&crate::pty::OpenptyPty)
}

/// The backend's doctor checks.
pub fn diagnose() -> Vec<Check> {
    PROBES.iter().map(Probe::check).collect()
}

#[cfg(test)]
mod tests {
    use rea_engine::doctor::Classification;

    use super::*;

    fn failing() -> Result<String, String> {
        Err("simulated failure".into())
    }

    fn passing() -> Result<String, String> {
        Ok("simulated success".into())
    }

    #[test]
    fn every_failing_probe_is_reported_with_its_remediation() {
        for probe in PROBES {
            let check = Probe { run: failing, ..probe }.check();
            assert_eq!(check.name, probe.name);
            assert_eq!(check.detail, "simulated failure");
            let expected = match probe.requirement {
                Requirement::Required => Classification::MissingDependency,
                Requirement::Recommended => Classification::Degraded,
                Requirement::Informational => Classification::Informational,
            };
            assert_eq!(check.classification, expected, "{}", probe.name);
            assert_eq!(check.remediation.as_deref(), Some(probe.remediation), "{}", probe.name);
        }
    }

    #[test]
    fn passing_probes_are_healthy_or_informational_without_remediation() {
        for probe in PROBES {
            let check = Probe { run: passing, ..probe }.check();
            assert!(check.remediation.is_none(), "{}", probe.name);
            assert!(!check.classification.needs_attention(), "{}", probe.name);
        }
    }

    #[test]
    fn the_pty_procfs_and_parent_death_signal_are_required_for_capture() {
        // The launch refuses to run a command whose death signal it could not
        // arm, so a host without PR_SET_PDEATHSIG cannot capture.
        let required: Vec<&str> =
            PROBES.iter().filter(|p| p.requirement == Requirement::Required).map(|p| p.name).collect();
        assert_eq!(required, ["pty_probe", "procfs", "parent_death_signal"]);
    }

    #[test]
    fn the_cgroup_v2_path_is_the_unified_line() {
        assert_eq!(cgroup_v2_path("0::/user.slice/user-1000.slice\n"), Some("/user.slice/user-1000.slice"));
        assert_eq!(cgroup_v2_path("12:pids:/a\n1:name=systemd:/b\n0::/c\n"), Some("/c"));
        assert_eq!(cgroup_v2_path("12:pids:/a\n1:name=systemd:/b\n"), None);
    }

    #[test]
    fn the_real_required_probes_pass_here() {
        // The PTY probe launches through the keeper, which is the `rea`
        // binary itself (not this test binary): the doctor integration
        // test runs it.
        for probe in PROBES.iter().filter(|p| p.requirement == Requirement::Required && p.name != "pty_probe") {
            let check = probe.check();
            assert_eq!(check.classification, Classification::Healthy, "{}: {}", probe.name, check.detail);
        }
        // The parent-death probe restores the previous setting.
        let before = rustix::process::parent_process_death_signal().unwrap();
        let _ = parent_death_signal();
        assert_eq!(rustix::process::parent_process_death_signal().unwrap(), before);
    }
}
