//! Preparing a capture: the request, and the child's environment.

use std::ffi::OsString;

use super::error::CaptureError;
use crate::BuildInfo;
use crate::host::{CaptureSupport, Host, RunToken};
use crate::scenario::{
    Event, ExecutableDigests, HashEachTime, RUN_TOKEN_VARIABLE, ResolvedScenario, Resolver, Scenario,
};
use crate::secrets::Secrets;

/// What a capture needs besides the host, built by [`prepare`] (or
/// [`CaptureRequest::new`]); one request serves one capture, whose secrets
/// it carries.
#[derive(Debug)]
pub struct CaptureRequest {
    /// The resolved scenario.
    pub resolved: ResolvedScenario,
    /// The environment `rea` inherited (the child's base environment).
    pub host_environment: Vec<(OsString, OsString)>,
    /// The `rea` build, for the manifest.
    pub build: BuildInfo,
    /// The sensitive inputs' secrets, handed to every writer of the record.
    pub secrets: Secrets,
}

impl CaptureRequest {
    /// A request for `resolved`, its secrets taken from the scenario's
    /// sensitive inputs.
    pub fn new(resolved: ResolvedScenario, host_environment: Vec<(OsString, OsString)>, build: BuildInfo) -> Self {
        let secrets = secrets_of(&resolved.scenario.events);
        CaptureRequest { resolved, host_environment, build, secrets }
    }
}

/// The secrets of the sensitive inputs among `events`.
fn secrets_of(events: &[Event]) -> Secrets {
    Secrets::of_inputs(events.iter().filter_map(|e| match e {
        Event::Input { data, sensitive: true, .. } => Some(data.as_str()),
        _ => None,
    }))
}

/// Prepares a capture: refuses at once on a host that cannot capture, then
/// resolves the scenario (working directory, executable on the child's
/// `PATH`, its digest) against `invocation_dir` and the inherited
/// environment. Nothing is launched or written.
pub fn prepare(
    host: &Host,
    scenario: Scenario,
    invocation_dir: &std::path::Path,
    host_environment: Vec<(OsString, OsString)>,
    build: BuildInfo,
) -> Result<CaptureRequest, CaptureError> {
    prepare_with(host, scenario, invocation_dir, host_environment, build, &HashEachTime)
}

/// [`prepare`] with the executable's digest taken from `digests` (a run of
/// many captures remembers it: [`crate::scenario::DigestCache`]).
pub fn prepare_with(
    host: &Host,
    scenario: Scenario,
    invocation_dir: &std::path::Path,
    host_environment: Vec<(OsString, OsString)>,
    build: BuildInfo,
    digests: &dyn ExecutableDigests,
) -> Result<CaptureRequest, CaptureError> {
    if let CaptureSupport::Unavailable { reason } = host.capture {
        return Err(CaptureError::Unsupported { reason });
    }
    let is_executable = |p: &std::path::Path| host.pty.is_executable(p);
    let resolver = Resolver {
        invocation_dir,
        host_environment: &host_environment,
        is_executable: &is_executable,
        fs: &*host.fs,
        digests,
    };
    let resolved = resolver.resolve(scenario)?;
    Ok(CaptureRequest::new(resolved, host_environment, build))
}

/// Builds the child's environment: the host environment, the scenario's
/// overrides, `TERM=xterm-256color` unless the scenario sets `TERM`,
/// inherited `COLUMNS`/`LINES` removed (the PTY size is the truth), and the
/// run token last.
pub fn child_environment(
    host_environment: &[(OsString, OsString)],
    overrides: &std::collections::BTreeMap<String, String>,
    token: &RunToken,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = host_environment
        .iter()
        .filter(|(k, _)| {
            let k = k.to_string_lossy();
            !matches!(k.as_ref(), "COLUMNS" | "LINES" | RUN_TOKEN_VARIABLE) && !overrides.contains_key(k.as_ref())
        })
        .cloned()
        .collect();
    env.extend(overrides.iter().map(|(k, v)| (OsString::from(k), OsString::from(v))));
    if !overrides.contains_key("TERM") {
        env.retain(|(k, _)| k != "TERM");
        env.push(("TERM".into(), "xterm-256color".into()));
    }
    env.push((RUN_TOKEN_VARIABLE.into(), token.as_str().into()));
    env
}
