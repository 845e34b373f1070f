//! Where cases run: each in its own directory under the run's work root,
//! emptied and refilled from the case's fixture before each capture, held
//! by a lock while the case runs (two runs of one suite never share a case's
//! directory), and removed when the case ends. Fixtures hold directories and
//! regular files only (their permissions are copied).

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// Deepest fixture tree copied.
const MAX_FIXTURE_DEPTH: usize = 64;
/// Most entries of one fixture.
const MAX_FIXTURE_ENTRIES: usize = 100_000;
/// The directory of the case locks, under the work root (a case name never
/// starts with `.`, so it never meets a case directory).
const LOCKS: &str = ".locks";

/// The default work root: a directory of the system's temporary directory
/// named after `key` (a digest of the suite file's path), the same on every
/// run of that suite, so goldens recorded there are checked there.
pub(crate) fn default_work_root(key: &str) -> PathBuf {
    std::env::temp_dir().join(format!("rea-suite-{}", &key[..key.len().min(16)]))
}

/// Why a fixture cannot be used, or `None`.
pub(crate) fn check_fixture(root: &Path) -> Option<String> {
    match fs::metadata(root) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Some("is not a directory".into()),
        Err(e) => return Some(format!("cannot be read: {e}")),
    }
    let mut entries = 0;
    walk(root, 0, &mut entries).err()
}

fn walk(dir: &Path, depth: usize, entries: &mut usize) -> Result<(), String> {
    if depth > MAX_FIXTURE_DEPTH {
        return Err(format!("{} is deeper than {MAX_FIXTURE_DEPTH} levels", dir.display()));
    }
    let listing = fs::read_dir(dir).map_err(|e| format!("{} cannot be listed: {e}", dir.display()))?;
    for entry in listing {
        let entry = entry.map_err(|e| format!("{} cannot be listed: {e}", dir.display()))?;
        *entries += 1;
        if *entries > MAX_FIXTURE_ENTRIES {
            return Err(format!("holds more than {MAX_FIXTURE_ENTRIES} entries"));
        }
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| format!("{} cannot be read: {e}", path.display()))?;
        if kind.is_dir() {
            walk(&path, depth + 1, entries)?;
        } else if !kind.is_file() {
            return Err(format!(
                "{} is neither a directory nor a regular file; a fixture holds only those (create links in the case instead)",
                path.display()
            ));
        }
    }
    Ok(())
}

/// The work root of a run.
#[derive(Debug)]
pub(crate) struct WorkRoot {
    root: PathBuf,
}

/// A case's directory, locked while the value lives, removed with it.
#[derive(Debug)]
pub(crate) struct CaseDir {
    path: PathBuf,
    lock_path: PathBuf,
    lock: Option<File>,
}

/// Why a case's directory cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CaseDirError {
    /// Another run holds it.
    #[error("{} is in use by another rea run of this case (lock {})", .path.display(), .lock.display())]
    Busy { path: PathBuf, lock: PathBuf },
    /// A filesystem operation failed.
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: io::Error },
}

fn at(path: &Path) -> impl FnOnce(io::Error) -> CaseDirError + '_ {
    move |source| CaseDirError::Io { path: path.to_owned(), source }
}

impl WorkRoot {
    /// Creates the root (and its locks' directory) when absent.
    pub(crate) fn open(root: PathBuf) -> io::Result<WorkRoot> {
        fs::create_dir_all(root.join(LOCKS))?;
        Ok(WorkRoot { root })
    }

    /// The directory of case `name` (not created yet).
    pub(crate) fn case_path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Locks case `name`'s directory for this run.
    pub(crate) fn case(&self, name: &str) -> Result<CaseDir, CaseDirError> {
        let path = self.case_path(name);
        let lock_path = self.root.join(LOCKS).join(name);
        let lock = File::options().create(true).truncate(false).write(true).open(&lock_path).map_err(at(&lock_path))?;
        match lock.try_lock() {
            Ok(()) => Ok(CaseDir { path, lock_path, lock: Some(lock) }),
            Err(TryLockError::WouldBlock) => Err(CaseDirError::Busy { path, lock: lock_path }),
            Err(TryLockError::Error(e)) => Err(CaseDirError::Io { path: lock_path, source: e }),
        }
    }

    /// Removes the root when the run left it empty (a run leaves no case
    /// directory and no lock behind).
    pub(crate) fn finish(self) {
        let _ = fs::remove_dir(self.root.join(LOCKS));
        let _ = fs::remove_dir(&self.root);
    }
}

impl CaseDir {
    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Empties the directory and refills it from `fixture`.
    pub(crate) fn refill(&self, fixture: Option<&Path>) -> Result<(), CaseDirError> {
        self.clear()?;
        fs::create_dir(&self.path).map_err(at(&self.path))?;
        match fixture {
            Some(fixture) => copy_tree(fixture, &self.path),
            None => Ok(()),
        }
    }

    fn clear(&self) -> Result<(), CaseDirError> {
        match fs::symlink_metadata(&self.path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(CaseDirError::Io { path: self.path.clone(), source: e }),
            Ok(m) if m.is_dir() => {
                // A program may have taken its own permissions away; give
                // them back before removing, then remove.
                restore_permissions(&self.path);
                fs::remove_dir_all(&self.path).map_err(at(&self.path))
            }
            Ok(_) => fs::remove_file(&self.path).map_err(at(&self.path)),
        }
    }
}

impl Drop for CaseDir {
    fn drop(&mut self) {
        let _ = self.clear();
        if let Some(lock) = self.lock.take() {
            let _ = fs::remove_file(&self.lock_path);
            drop(lock);
        }
    }
}

/// Makes every directory under `dir` writable and listable by its owner.
fn restore_permissions(dir: &Path) {
    let Ok(meta) = fs::symlink_metadata(dir) else { return };
    if !meta.is_dir() {
        return;
    }
    let mut permissions = meta.permissions();
    if permissions.readonly() {
        #[allow(clippy::permissions_set_readonly_false, reason = "the directory is removed next")]
        permissions.set_readonly(false);
        let _ = fs::set_permissions(dir, permissions);
    }
    if let Ok(listing) = fs::read_dir(dir) {
        for entry in listing.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                restore_permissions(&entry.path());
            }
        }
    }
}

/// Copies the tree `from` into the existing directory `to`.
fn copy_tree(from: &Path, to: &Path) -> Result<(), CaseDirError> {
    for entry in fs::read_dir(from).map_err(at(from))? {
        let entry = entry.map_err(at(from))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().map_err(at(&source))?;
        if kind.is_dir() {
            fs::create_dir(&target).map_err(at(&target))?;
            copy_tree(&source, &target)?;
            let permissions = fs::metadata(&source).map_err(at(&source))?.permissions();
            fs::set_permissions(&target, permissions).map_err(at(&target))?;
        } else {
            fs::copy(&source, &target).map_err(at(&target))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_directory_is_refilled_locked_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let fixture = dir.path().join("fx");
        fs::create_dir_all(fixture.join("sub")).unwrap();
        fs::write(fixture.join("sub/a.txt"), "a").unwrap();
        assert_eq!(check_fixture(&fixture), None);
        let root = WorkRoot::open(dir.path().join("work")).unwrap();
        let case = root.case("one").unwrap();
        assert!(matches!(root.case("one"), Err(CaseDirError::Busy { .. })), "held by the first");
        case.refill(Some(&fixture)).unwrap();
        fs::write(case.path().join("leak.txt"), "x").unwrap();
        case.refill(Some(&fixture)).unwrap();
        assert!(!case.path().join("leak.txt").exists(), "a refill empties the directory");
        assert_eq!(fs::read_to_string(case.path().join("sub/a.txt")).unwrap(), "a");
        let path = case.path().to_owned();
        drop(case);
        assert!(!path.exists());
        root.finish();
        assert!(!dir.path().join("work").exists(), "an empty work root is removed");
    }

    #[test]
    fn a_missing_fixture_is_named() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(check_fixture(&dir.path().join("absent")).map(|w| w.starts_with("cannot be read")), Some(true));
        fs::write(dir.path().join("file"), "").unwrap();
        assert_eq!(check_fixture(&dir.path().join("file")).as_deref(), Some("is not a directory"));
    }
}
