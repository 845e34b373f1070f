//! `rea doctor` on macOS: the settings, the helper compile, the PTY probe
//! and the process table. Capture is reported available only when the
//! helper compiled (the engine turns any failed required check into
//! "capture unavailable").
//!
//! [`report`] builds the checks from probe results, so tests can feed a
//! failure into each one; `sys::diagnose` runs the real probes.

use rea_engine::doctor::{Requirement, evaluate};
use rea_engine::host::Check;

use crate::config::{COMPILE_TIMEOUT_MS, CompileSettings, ConfigError, MODULE_CACHE_PATH, SDKROOT, SWIFTC_PATH};

/// The results of the macOS probes.
#[derive(Debug, Clone)]
pub struct Probes<'a> {
    /// The settings read at start-up.
    pub settings: Result<&'a CompileSettings, &'a ConfigError>,
    /// The helper compile: its path and time, or the compile error.
    /// `None` when the settings were invalid, so nothing was compiled.
    pub helper: Option<Result<String, String>>,
    /// A shell launched on a PTY.
    pub pty: Result<String, String>,
    /// Listing processes through libproc.
    pub process_table: Result<String, String>,
}

/// The checks, in report order.
pub fn report(probes: Probes<'_>) -> Vec<Check> {
    let settings = probes.settings.map(CompileSettings::describe).map_err(ToString::to_string);
    let helper = probes.helper.unwrap_or_else(|| Err("not compiled: the settings above are invalid".to_owned()));
    vec![
        evaluate(
            "darwin_settings",
            Requirement::Required,
            settings,
            &format!(
                "Fix or unset {SWIFTC_PATH}, {SDKROOT}, {MODULE_CACHE_PATH} and {COMPILE_TIMEOUT_MS} as the detail says, then restart rea."
            ),
        ),
        evaluate(
            "swift_helper",
            Requirement::Required,
            helper,
            "Install Xcode or the Command Line Tools (`xcode-select --install`) so `xcrun swiftc` works, or set REA_DARWIN_SWIFTC_PATH and SDKROOT to a matching compiler and SDK; rea does not install them.",
        ),
        evaluate(
            "pty_probe",
            Requirement::Required,
            probes.pty,
            "Make sure this user can open pseudo-terminals (/dev/ptmx); reinstall rea for this platform and architecture if the PTY backend is missing.",
        ),
        evaluate(
            "process_table",
            Requirement::Required,
            probes.process_table,
            "Allow read-only process inspection (proc_listallpids, proc_pidinfo) in any sandbox rea runs in.",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use rea_engine::doctor::Classification;

    use super::*;
    use crate::config::Compiler;

    fn settings() -> CompileSettings {
        CompileSettings { compiler: Compiler::Xcrun, module_cache: None, timeout_ms: 120_000 }
    }

    fn healthy(s: &CompileSettings) -> Probes<'_> {
        Probes {
            settings: Ok(s),
            helper: Some(Ok("compiled".into())),
            pty: Ok("pty ok".into()),
            process_table: Ok("table ok".into()),
        }
    }

    #[test]
    fn the_healthy_case_has_four_healthy_checks() {
        let s = settings();
        let checks = report(healthy(&s));
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["darwin_settings", "swift_helper", "pty_probe", "process_table"]);
        assert!(checks.iter().all(|c| c.classification == Classification::Healthy));
        assert!(checks[0].detail.contains("xcrun swiftc") && checks[0].detail.contains("120000 ms"));
    }

    #[test]
    fn each_failing_probe_is_a_missing_dependency_with_a_remediation() {
        let s = settings();
        let bad = ConfigError::Timeout { value: "0".into() };
        let failing: [Probes<'_>; 4] = [
            Probes { settings: Err(&bad), helper: None, ..healthy(&s) },
            Probes { helper: Some(Err("swiftc: error: no such module".into())), ..healthy(&s) },
            Probes { pty: Err("posix_openpt failed".into()), ..healthy(&s) },
            Probes { process_table: Err("proc_listallpids failed".into()), ..healthy(&s) },
        ];
        for (index, probes) in failing.into_iter().enumerate() {
            let checks = report(probes);
            let broken: Vec<&Check> = checks.iter().filter(|c| c.classification != Classification::Healthy).collect();
            // Invalid settings also mean the helper was not compiled.
            let expected = if index == 0 { vec![0, 1] } else { vec![index] };
            let got: Vec<usize> = checks
                .iter()
                .enumerate()
                .filter(|(_, c)| c.classification != Classification::Healthy)
                .map(|(i, _)| i)
                .collect();
            assert_eq!(got, expected);
            for check in broken {
                assert_eq!(check.classification, Classification::MissingDependency);
                assert!(check.remediation.is_some());
            }
        }
        let checks = report(Probes { settings: Err(&bad), helper: None, ..healthy(&s) });
        assert!(checks[0].detail.contains("REA_SWIFTC_COMPILE_TIMEOUT_MS=\"0\""), "{}", checks[0].detail);
        assert!(checks[1].detail.contains("not compiled"));
    }
}
