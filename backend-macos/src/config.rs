//! The helper-compile settings, read once from the environment rea starts in.
//!
//! - `REA_DARWIN_SWIFTC_PATH` (absolute, existing) with `SDKROOT` (absolute,
//!   existing): that compiler is called directly with `-sdk`; unset or empty
//!   means `xcrun swiftc`.
//! - `REA_DARWIN_MODULE_CACHE_PATH` (absolute): created, passed as
//!   `-module-cache-path`, exported as `CLANG_MODULE_CACHE_PATH`, never
//!   removed; unset or empty means the shared default.
//! - `REA_SWIFTC_COMPILE_TIMEOUT_MS`: integer in 1..=2147483647, default
//!   120000.
//!
//! Every invalid value is a [`ConfigError`] that names the variable, the
//! value and what to set instead.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The compiler variable.
pub const SWIFTC_PATH: &str = "REA_DARWIN_SWIFTC_PATH";
/// The SDK variable paired with it.
pub const SDKROOT: &str = "SDKROOT";
/// The module cache variable.
pub const MODULE_CACHE_PATH: &str = "REA_DARWIN_MODULE_CACHE_PATH";
/// The compile deadline variable.
pub const COMPILE_TIMEOUT_MS: &str = "REA_SWIFTC_COMPILE_TIMEOUT_MS";
/// The compile deadline when the variable is unset.
pub const DEFAULT_TIMEOUT_MS: u32 = 120_000;
/// The largest accepted deadline.
pub const MAX_TIMEOUT_MS: u32 = 2_147_483_647;

/// How the helper is compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Compiler {
    /// `xcrun swiftc`.
    Xcrun,
    /// A compiler called directly with `-sdk`.
    Direct {
        /// Absolute path of `swiftc`.
        swiftc: PathBuf,
        /// Absolute path of the macOS SDK.
        sdk: PathBuf,
    },
}

/// Validated settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileSettings {
    /// The compiler.
    pub compiler: Compiler,
    /// The caller-owned module cache, if set.
    pub module_cache: Option<PathBuf>,
    /// The compile deadline in milliseconds.
    pub timeout_ms: u32,
}

impl CompileSettings {
    /// The compile deadline.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(u64::from(self.timeout_ms))
    }

    /// One line per setting, for `rea doctor`.
    pub fn describe(&self) -> String {
        let compiler = match &self.compiler {
            Compiler::Xcrun => "xcrun swiftc".to_owned(),
            Compiler::Direct { swiftc, sdk } => format!("{} -sdk {}", swiftc.display(), sdk.display()),
        };
        let cache = match &self.module_cache {
            Some(p) => format!("{} (kept)", p.display()),
            None => "the shared default".to_owned(),
        };
        format!("compiler: {compiler}; module cache: {cache}; compile timeout: {} ms", self.timeout_ms)
    }
}

/// An invalid setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The timeout is not an integer in range.
    #[error(
        "{COMPILE_TIMEOUT_MS}={value:?} is invalid: it must be an integer from 1 to {MAX_TIMEOUT_MS} (milliseconds); unset it for the default {DEFAULT_TIMEOUT_MS} and restart rea"
    )]
    Timeout {
        /// The value as given.
        value: String,
    },
    /// A path variable is relative.
    #[error(
        "{variable}={value:?} is a relative path; set it to an absolute path (for example \"$(xcrun --find swiftc)\" or \"$(xcrun --show-sdk-path)\"), or unset {SWIFTC_PATH} to use xcrun swiftc"
    )]
    Relative {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// A path variable names nothing.
    #[error(
        "{variable}={value:?} does not exist; point it at an installed Swift compiler or macOS SDK (for example \"$(xcrun --find swiftc)\" and \"$(xcrun --show-sdk-path)\"), or unset {SWIFTC_PATH} to use xcrun swiftc"
    )]
    Missing {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// The compiler is set without an SDK.
    #[error(
        "{SWIFTC_PATH} is set but {SDKROOT} is not; set {SDKROOT} to the absolute path of the matching macOS SDK (\"$(xcrun --show-sdk-path)\"), or unset {SWIFTC_PATH}"
    )]
    SdkRootUnset,
    /// The module cache path is relative.
    #[error(
        "{MODULE_CACHE_PATH}={value:?} is a relative path; set it to an absolute writable directory, or unset it to use the shared module cache"
    )]
    RelativeCache {
        /// Its value.
        value: String,
    },
}

fn non_empty(value: Option<OsString>) -> Option<OsString> {
    value.filter(|v| !v.is_empty())
}

fn lossy(value: &OsString) -> String {
    value.to_string_lossy().into_owned()
}

fn absolute_existing(variable: &'static str, value: OsString) -> Result<PathBuf, ConfigError> {
    let path = PathBuf::from(&value);
    if !path.is_absolute() {
        return Err(ConfigError::Relative { variable, value: lossy(&value) });
    }
    if !path.exists() {
        return Err(ConfigError::Missing { variable, value: lossy(&value) });
    }
    Ok(path)
}

fn timeout(value: Option<OsString>) -> Result<u32, ConfigError> {
    let Some(value) = value else { return Ok(DEFAULT_TIMEOUT_MS) };
    let text = value.to_str().ok_or_else(|| ConfigError::Timeout { value: lossy(&value) })?;
    // Digits only: no sign, no spaces, no exponent.
    let ms = (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse::<u32>().ok())
        .flatten()
        .filter(|ms| (1..=MAX_TIMEOUT_MS).contains(ms));
    ms.ok_or_else(|| ConfigError::Timeout { value: text.to_owned() })
}

/// Reads and validates the settings through `get` (the environment, or a
/// test's table). An unset timeout is the default; an empty one is invalid.
pub fn from_env(get: impl Fn(&str) -> Option<OsString>) -> Result<CompileSettings, ConfigError> {
    let timeout_ms = timeout(get(COMPILE_TIMEOUT_MS))?;
    let compiler = match non_empty(get(SWIFTC_PATH)) {
        None => Compiler::Xcrun,
        Some(swiftc) => {
            let swiftc = absolute_existing(SWIFTC_PATH, swiftc)?;
            let sdk = non_empty(get(SDKROOT)).ok_or(ConfigError::SdkRootUnset)?;
            Compiler::Direct { swiftc, sdk: absolute_existing(SDKROOT, sdk)? }
        }
    };
    let module_cache = match non_empty(get(MODULE_CACHE_PATH)) {
        None => None,
        Some(v) if PathBuf::from(&v).is_absolute() => Some(PathBuf::from(v)),
        Some(v) => return Err(ConfigError::RelativeCache { value: lossy(&v) }),
    };
    Ok(CompileSettings { compiler, module_cache, timeout_ms })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn nothing_set_means_xcrun_the_shared_cache_and_120_seconds() {
        let s = from_env(env(&[])).unwrap();
        assert_eq!(s, CompileSettings { compiler: Compiler::Xcrun, module_cache: None, timeout_ms: 120_000 });
        assert_eq!(s.timeout(), Duration::from_secs(120));
        let empty = from_env(env(&[(SWIFTC_PATH, ""), (MODULE_CACHE_PATH, "")])).unwrap();
        assert_eq!(empty.compiler, Compiler::Xcrun);
        assert_eq!(empty.module_cache, None);
    }

    #[test]
    fn the_timeout_accepts_exactly_1_to_2147483647() {
        for (value, ms) in [("1", 1), ("2147483647", MAX_TIMEOUT_MS), ("120000", 120_000), ("007", 7)] {
            assert_eq!(from_env(env(&[(COMPILE_TIMEOUT_MS, value)])).unwrap().timeout_ms, ms, "{value}");
        }
        for value in ["0", "2147483648", "-1", "+5", "1.5", "1e3", " 5", "", "abc", "99999999999999999999"] {
            let err = from_env(env(&[(COMPILE_TIMEOUT_MS, value)])).unwrap_err();
            assert_eq!(err, ConfigError::Timeout { value: value.to_owned() }, "{value}");
            let text = err.to_string();
            assert!(text.contains(COMPILE_TIMEOUT_MS) && text.contains("1 to 2147483647"), "{text}");
        }
    }

    #[test]
    fn a_direct_compiler_needs_absolute_existing_paths_and_an_sdk() {
        let dir = tempfile::tempdir().unwrap();
        let swiftc = dir.path().join("swiftc");
        std::fs::write(&swiftc, "").unwrap();
        let (c, d) = (swiftc.to_str().unwrap(), dir.path().to_str().unwrap());
        let ok = from_env(env(&[(SWIFTC_PATH, c), (SDKROOT, d)])).unwrap();
        assert_eq!(ok.compiler, Compiler::Direct { swiftc: swiftc.clone(), sdk: dir.path().to_owned() });
        assert!(ok.describe().contains(&format!("{c} -sdk {d}")));

        let relative = from_env(env(&[(SWIFTC_PATH, "bin/swiftc"), (SDKROOT, d)])).unwrap_err();
        assert_eq!(relative, ConfigError::Relative { variable: SWIFTC_PATH, value: "bin/swiftc".into() });
        let missing_path = format!("{d}/no-such-swiftc");
        let missing = from_env(env(&[(SWIFTC_PATH, &missing_path), (SDKROOT, d)])).unwrap_err();
        assert_eq!(missing, ConfigError::Missing { variable: SWIFTC_PATH, value: missing_path.clone() });
        assert_eq!(from_env(env(&[(SWIFTC_PATH, c)])).unwrap_err(), ConfigError::SdkRootUnset);
        assert_eq!(from_env(env(&[(SWIFTC_PATH, c), (SDKROOT, "")])).unwrap_err(), ConfigError::SdkRootUnset);
        let sdk_rel = from_env(env(&[(SWIFTC_PATH, c), (SDKROOT, "MacOSX.sdk")])).unwrap_err();
        assert_eq!(sdk_rel, ConfigError::Relative { variable: SDKROOT, value: "MacOSX.sdk".into() });
        let sdk_missing = from_env(env(&[(SWIFTC_PATH, c), (SDKROOT, &missing_path)])).unwrap_err();
        assert_eq!(sdk_missing, ConfigError::Missing { variable: SDKROOT, value: missing_path });
        // SDKROOT alone does not select a compiler.
        assert_eq!(from_env(env(&[(SDKROOT, "relative")])).unwrap().compiler, Compiler::Xcrun);
        for err in [relative, missing, ConfigError::SdkRootUnset, sdk_rel] {
            assert!(err.to_string().contains("unset REA_DARWIN_SWIFTC_PATH"), "{err}");
        }
    }

    #[test]
    fn the_module_cache_must_be_absolute() {
        let s = from_env(env(&[(MODULE_CACHE_PATH, "/tmp/rea-cache/modules")])).unwrap();
        assert_eq!(s.module_cache, Some(PathBuf::from("/tmp/rea-cache/modules")));
        let err = from_env(env(&[(MODULE_CACHE_PATH, "cache")])).unwrap_err();
        assert_eq!(err, ConfigError::RelativeCache { value: "cache".into() });
        assert!(err.to_string().contains("absolute writable directory"));
    }
}
