//! The executable's digest, as resolution takes it: hashed each time
//! ([`HashEachTime`], what one capture needs), or remembered for a run of
//! many captures ([`DigestCache`], a suite), keyed by what identifies the
//! file's content without reading it: device and inode, size, and the
//! modification and status-change times, read again before every use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use sha2::{Digest, Sha256};

use crate::fs::{FsError, FsMeta, FsProbe, ProbeFile};

/// Where resolution gets the SHA-256 of the executable it resolved.
pub trait ExecutableDigests: Send + Sync {
    /// The lowercase hex SHA-256 of the regular file at `path` (absolute,
    /// every symbolic link resolved), read through `fs`.
    fn sha256(&self, fs: &dyn FsProbe, path: &Path) -> Result<String, FsError>;
}

/// Streams the file through SHA-256 at every resolution.
#[derive(Debug, Default, Clone, Copy)]
pub struct HashEachTime;

impl ExecutableDigests for HashEachTime {
    fn sha256(&self, fs: &dyn FsProbe, path: &Path) -> Result<String, FsError> {
        let mut file = fs.open_file(path)?;
        hash_open(file.as_mut())
    }
}

/// What identifies a file's content without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileKey {
    device: u64,
    inode: u64,
    size: u64,
    modified_ns: i128,
    changed_ns: i128,
}

impl FileKey {
    fn of(meta: &FsMeta) -> FileKey {
        FileKey {
            device: meta.device,
            inode: meta.inode,
            size: meta.size,
            modified_ns: meta.modified_ns,
            changed_ns: meta.changed_ns,
        }
    }
}

/// One path's remembered digest.
type Entry = Arc<Mutex<Option<(FileKey, String)>>>;

/// Digests remembered for the length of a run: a path is hashed once, and
/// again only when its key (device, inode, size, times, read through the
/// probe before each use) has changed. A file that changes while it is
/// hashed is hashed but not remembered.
#[derive(Debug, Default)]
pub struct DigestCache {
    entries: Mutex<HashMap<PathBuf, Entry>>,
    hashed: AtomicU64,
}

impl DigestCache {
    /// An empty cache.
    pub fn new() -> DigestCache {
        DigestCache::default()
    }

    /// How many times a file was read to hash it.
    pub fn files_hashed(&self) -> u64 {
        self.hashed.load(Ordering::Relaxed)
    }

    fn entry(&self, path: &Path) -> Entry {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(entries.entry(path.to_owned()).or_default())
    }
}

impl ExecutableDigests for DigestCache {
    fn sha256(&self, fs: &dyn FsProbe, path: &Path) -> Result<String, FsError> {
        let key = FileKey::of(&fs.lstat(path)?);
        let entry = self.entry(path);
        // One path is hashed by one thread at a time; others wait for its digest.
        let mut slot = entry.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((cached, digest)) = slot.as_ref()
            && *cached == key
        {
            return Ok(digest.clone());
        }
        let mut file = fs.open_file(path)?;
        let before = FileKey::of(&file.meta()?);
        self.hashed.fetch_add(1, Ordering::Relaxed);
        let digest = hash_open(file.as_mut())?;
        let after = FileKey::of(&file.meta()?);
        *slot = (before == key && after == key).then(|| (key, digest.clone()));
        Ok(digest)
    }
}

/// Streams an open file through SHA-256.
fn hash_open(file: &mut dyn ProbeFile) -> Result<String, FsError> {
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(crate::evidence::hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::testing::FakeFs;

    fn fake() -> FakeFs {
        FakeFs::with(|t| {
            t.mkdir("/bin");
            t.write("/bin/tool", b"first".to_vec());
        })
    }

    #[test]
    fn a_file_is_hashed_once_while_it_is_unchanged() {
        let fs = fake();
        let cache = DigestCache::new();
        let first = cache.sha256(&fs, Path::new("/bin/tool")).unwrap();
        for _ in 0..5 {
            assert_eq!(cache.sha256(&fs, Path::new("/bin/tool")).unwrap(), first);
        }
        assert_eq!(cache.files_hashed(), 1);
        assert_eq!(first, HashEachTime.sha256(&fs, Path::new("/bin/tool")).unwrap());
    }

    #[test]
    fn a_changed_file_is_hashed_again() {
        let fs = fake();
        let cache = DigestCache::new();
        let first = cache.sha256(&fs, Path::new("/bin/tool")).unwrap();
        fs.change(|t| t.write("/bin/tool", b"other".to_vec()));
        let second = cache.sha256(&fs, Path::new("/bin/tool")).unwrap();
        assert_ne!(first, second);
        assert_eq!(cache.files_hashed(), 2);
        // The same size and content length: only the times tell it apart.
        fs.change(|t| t.write("/bin/tool", b"third".to_vec()));
        assert_ne!(cache.sha256(&fs, Path::new("/bin/tool")).unwrap(), second);
        assert_eq!(cache.files_hashed(), 3);
    }
}
