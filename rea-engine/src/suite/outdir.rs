//! The out directory: `suite.json` and `cases/NAME/`. A case's documents are
//! written into `cases/.NAME.partial/` and renamed into place when the case
//! has finished, so `cases/` only ever holds whole cases (an interrupted run
//! leaves the finished ones). An existing directory is used only when it is
//! empty or an earlier suite output; of the latter only `suite.json` and
//! `cases/` are replaced.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The suite record's file name in the out directory.
pub const SUITE_FILE: &str = "suite.json";
/// The directory of the cases' documents.
pub const CASES_DIR: &str = "cases";

/// Why `path` cannot be an out directory, or `None` (nothing is written).
pub(crate) fn check_out(path: &Path) -> Option<String> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => Some(format!("it cannot be read: {e}")),
        Ok(m) if !m.is_dir() => Some("it exists and is not a directory".into()),
        Ok(_) => {
            let names: Vec<_> = match fs::read_dir(path) {
                Ok(listing) => listing.filter_map(|e| e.ok().map(|e| e.file_name())).collect(),
                Err(e) => return Some(format!("it cannot be listed: {e}")),
            };
            let earlier = names.iter().any(|n| n == SUITE_FILE || n == CASES_DIR);
            (!names.is_empty() && !earlier).then(|| {
                "it holds files that are not an earlier suite output (no suite.json, no cases/); give a new or empty directory".into()
            })
        }
    }
}

/// The out directory of a run.
#[derive(Debug)]
pub(crate) struct OutDir {
    root: PathBuf,
}

impl OutDir {
    /// Creates the directory, removing an earlier output's `suite.json` and `cases/`.
    pub(crate) fn prepare(root: PathBuf) -> io::Result<OutDir> {
        fs::create_dir_all(&root)?;
        match fs::remove_file(root.join(SUITE_FILE)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        match fs::remove_dir_all(root.join(CASES_DIR)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        fs::create_dir(root.join(CASES_DIR))?;
        Ok(OutDir { root })
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.root
    }

    /// A fresh staging directory for case `name`.
    pub(crate) fn stage(&self, name: &str) -> io::Result<Staged> {
        let partial = self.root.join(CASES_DIR).join(format!(".{name}.partial"));
        if partial.exists() {
            fs::remove_dir_all(&partial)?;
        }
        fs::create_dir(&partial)?;
        Ok(Staged { partial, done: self.root.join(CASES_DIR).join(name), committed: false })
    }
}

/// The path of a case document relative to the out directory, as the suite
/// record names it (`cases/NAME/FILE`, `/`-separated on every host).
pub fn document_path(name: &str, file: &str) -> String {
    format!("{CASES_DIR}/{name}/{file}")
}

/// A case's documents being written.
#[derive(Debug)]
pub(crate) struct Staged {
    partial: PathBuf,
    done: PathBuf,
    committed: bool,
}

impl Staged {
    /// Where document `file` is written now.
    pub(crate) fn file(&self, file: &str) -> PathBuf {
        self.partial.join(file)
    }

    /// Moves the case's documents into place.
    pub(crate) fn commit(mut self) -> io::Result<()> {
        fs::rename(&self.partial, &self.done)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_dir_all(&self.partial);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_new_empty_or_earlier_output_directory_is_used() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(check_out(&dir.path().join("new")), None);
        assert_eq!(check_out(dir.path()), None, "empty");
        fs::write(dir.path().join("notes.txt"), "keep").unwrap();
        assert!(check_out(dir.path()).unwrap().contains("not an earlier suite output"));
        fs::write(dir.path().join(SUITE_FILE), "{}").unwrap();
        assert_eq!(check_out(dir.path()), None, "an earlier output");
        let out = OutDir::prepare(dir.path().to_owned()).unwrap();
        assert!(!dir.path().join(SUITE_FILE).exists());
        assert_eq!(fs::read_to_string(dir.path().join("notes.txt")).unwrap(), "keep", "other files are left alone");
        assert!(check_out(&dir.path().join("notes.txt")).unwrap().contains("not a directory"));
        let staged = out.stage("a").unwrap();
        fs::write(staged.file("x.json"), "1").unwrap();
        let abandoned = out.stage("b").unwrap();
        fs::write(abandoned.file("x.json"), "1").unwrap();
        drop(abandoned);
        staged.commit().unwrap();
        let cases: Vec<_> = fs::read_dir(dir.path().join(CASES_DIR)).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(cases, ["a"], "only the finished case is left");
        assert_eq!(document_path("a", "x.json"), "cases/a/x.json");
    }
}
