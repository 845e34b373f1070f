//! Resolving a scenario against the host: absolute working directory and
//! observation paths, the executable found on the child's `PATH`, and the
//! SHA-256 of its bytes. Nothing is launched or written here, and the
//! filesystem is read only through the host's [`FsProbe`].

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use super::digest::ExecutableDigests;
use super::model::Scenario;
use crate::error::{Category, UserError};
use crate::fs::{FsError, FsKind, FsProbe};

/// A scenario bound to this host.
#[derive(Debug, Clone)]
pub struct ResolvedScenario {
    /// The validated scenario. Sensitive input text lives only here, in memory.
    pub scenario: Scenario,
    /// Absolute path of the program that will be executed.
    pub executable_path: PathBuf,
    /// `argv[0]` as the scenario wrote it.
    pub argv0: String,
    /// SHA-256 of the executable's bytes, lowercase hex.
    pub executable_sha256: String,
    /// Absolute, symlink-free working directory.
    pub working_directory: PathBuf,
    /// Absolute observation paths, lexically normalized (not followed).
    pub observation_paths: Vec<PathBuf>,
}

impl ResolvedScenario {
    /// The working directory as a UTF-8 string (checked at resolution).
    pub fn working_directory_str(&self) -> &str {
        self.working_directory.to_str().unwrap_or_default()
    }

    /// The executable path as a UTF-8 string (checked at resolution).
    pub fn executable_str(&self) -> &str {
        self.executable_path.to_str().unwrap_or_default()
    }

    /// Observation paths as UTF-8 strings (checked at resolution).
    pub fn observation_path_strs(&self) -> Vec<&str> {
        self.observation_paths.iter().map(|p| p.to_str().unwrap_or_default()).collect()
    }
}

/// Why a valid scenario cannot run on this host.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The working directory is missing or unusable.
    #[error("working_directory: {path} cannot be used: {reason}")]
    WorkingDirectory {
        /// The path tried.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A bare executable name was not found on `PATH`.
    #[error("executable: `{name}` was not found as an executable file in any PATH directory ({searched})")]
    NotOnPath {
        /// The name as written.
        name: String,
        /// The PATH value searched.
        searched: String,
    },
    /// A path executable is missing, not a regular file, or not executable.
    #[error("executable: {path} cannot be executed: {reason}")]
    Executable {
        /// The resolved path.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A resolved path cannot be written into Evidence as UTF-8.
    #[error("{field}: resolved path {path} is not valid UTF-8, so it cannot be committed in Evidence")]
    NotUtf8 {
        /// The scenario field.
        field: &'static str,
        /// The path.
        path: PathBuf,
    },
}

impl UserError for ResolveError {
    fn category(&self) -> Category {
        Category::InvalidInput
    }
    fn code(&self) -> &'static str {
        match self {
            ResolveError::WorkingDirectory { .. } => "working_directory_unusable",
            ResolveError::NotOnPath { .. } => "executable_not_found",
            ResolveError::Executable { .. } => "executable_unusable",
            ResolveError::NotUtf8 { .. } => "path_not_utf8",
        }
    }
    fn remediation(&self) -> String {
        match self {
            ResolveError::WorkingDirectory { .. } => {
                "Create the directory or correct working_directory (relative paths resolve against the directory rea runs in). Nothing was launched.".into()
            }
            ResolveError::NotOnPath { .. } => {
                "Install the program, give its path (e.g. \"./bin/tool\" or \"/usr/bin/tool\"), or set PATH in the scenario's environment. Nothing was launched.".into()
            }
            ResolveError::Executable { .. } => {
                "Point executable at an existing regular file with execute permission. Nothing was launched.".into()
            }
            ResolveError::NotUtf8 { .. } => "Use paths whose names are valid UTF-8. Nothing was launched.".into(),
        }
    }
    fn details(&self) -> Option<Value> {
        let (field, path) = match self {
            ResolveError::WorkingDirectory { path, .. } => ("working_directory", path.display().to_string()),
            ResolveError::NotOnPath { name, .. } => ("executable", name.clone()),
            ResolveError::Executable { path, .. } => ("executable", path.display().to_string()),
            ResolveError::NotUtf8 { field, path } => (*field, path.display().to_string()),
        };
        Some(json!({ "path": field, "value": path }))
    }
}

/// What resolution needs from the host.
pub struct Resolver<'a> {
    /// The directory `rea` was started in.
    pub invocation_dir: &'a Path,
    /// The environment `rea` inherited (for `PATH`).
    pub host_environment: &'a [(OsString, OsString)],
    /// Whether a path names a regular file this user may execute.
    pub is_executable: &'a dyn Fn(&Path) -> bool,
    /// The host's filesystem reads (working directory, executable).
    pub fs: &'a dyn FsProbe,
    /// Where the executable's digest comes from: hashed each time
    /// ([`super::HashEachTime`]) or remembered across a run
    /// ([`super::DigestCache`]).
    pub digests: &'a dyn ExecutableDigests,
}

impl Resolver<'_> {
    /// Resolves `scenario`, its executable's digest taken from `digests`.
    pub fn resolve(&self, scenario: Scenario) -> Result<ResolvedScenario, ResolveError> {
        let wd_written = Path::new(&scenario.working_directory);
        let wd_joined = normalize_lexically(&self.invocation_dir.join(wd_written));
        let working_directory = self
            .fs
            .canonicalize(&wd_joined)
            .map_err(|e| ResolveError::WorkingDirectory { path: wd_joined.clone(), reason: e.to_string() })?;
        if self.kind(&working_directory).ok() != Some(FsKind::Directory) {
            return Err(ResolveError::WorkingDirectory { path: working_directory, reason: "not a directory".into() });
        }
        utf8("working_directory", &working_directory)?;

        let observation_paths = scenario
            .filesystem_observation_paths
            .iter()
            .map(|p| {
                let path = normalize_lexically(&working_directory.join(p));
                utf8("filesystem_observation_paths", &path)?;
                Ok(path)
            })
            .collect::<Result<Vec<_>, ResolveError>>()?;

        let executable_path = self.find_executable(&scenario, &working_directory)?;
        utf8("executable", &executable_path)?;
        let executable_sha256 = self.sha256_file(&executable_path).map_err(|e| ResolveError::Executable {
            path: executable_path.clone(),
            reason: format!("cannot be read: {e}"),
        })?;

        Ok(ResolvedScenario {
            argv0: scenario.executable.clone(),
            scenario,
            executable_path,
            executable_sha256,
            working_directory,
            observation_paths,
        })
    }

    fn find_executable(&self, scenario: &Scenario, wd: &Path) -> Result<PathBuf, ResolveError> {
        let name = &scenario.executable;
        if name.contains('/') {
            let path = normalize_lexically(&wd.join(name));
            return match self.kind(&path) {
                Err(e) => Err(ResolveError::Executable { path, reason: e.to_string() }),
                Ok(kind) if kind != FsKind::File => {
                    Err(ResolveError::Executable { path, reason: "not a regular file".into() })
                }
                Ok(_) if !(self.is_executable)(&path) => {
                    Err(ResolveError::Executable { path, reason: "execute permission denied".into() })
                }
                Ok(_) => Ok(path),
            };
        }
        let search: OsString = match scenario.environment.get("PATH") {
            Some(p) => p.into(),
            None => self
                .host_environment
                .iter()
                .find(|(k, _)| k == OsStr::new("PATH"))
                .map(|(_, v)| v.clone())
                .unwrap_or_default(),
        };
        for dir in std::env::split_paths(&search) {
            // An empty entry means the current directory, as for execvp.
            let dir = if dir.as_os_str().is_empty() { wd.to_path_buf() } else { wd.join(dir) };
            let candidate = normalize_lexically(&dir.join(name));
            if self.kind(&candidate).ok() == Some(FsKind::File) && (self.is_executable)(&candidate) {
                return Ok(candidate);
            }
        }
        Err(ResolveError::NotOnPath { name: name.clone(), searched: search.to_string_lossy().into_owned() })
    }

    /// The kind of what `path` names, symbolic links followed (as `stat`).
    fn kind(&self, path: &Path) -> Result<FsKind, FsError> {
        Ok(self.fs.lstat(&self.fs.canonicalize(path)?)?.kind)
    }

    /// The SHA-256 of the file `path` names (links followed).
    fn sha256_file(&self, path: &Path) -> Result<String, FsError> {
        self.digests.sha256(self.fs, &self.fs.canonicalize(path)?)
    }
}

fn utf8(field: &'static str, path: &Path) -> Result<(), ResolveError> {
    match path.to_str() {
        Some(_) => Ok(()),
        None => Err(ResolveError::NotUtf8 { field, path: path.to_owned() }),
    }
}

/// Removes `.` components and folds `..` without touching the filesystem.
pub(crate) fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if out.file_name().is_some() {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() { PathBuf::from(".") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalization_folds_dots() {
        assert_eq!(normalize_lexically(Path::new("/a/./b/../c")), PathBuf::from("/a/c"));
        assert_eq!(normalize_lexically(Path::new("/../x")), PathBuf::from("/x"));
    }
}
