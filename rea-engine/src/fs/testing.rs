//! An in-memory [`FsProbe`] with scripted faults, for snapshot tests.
//!
//! [`FakeFs`] models inodes: a directory maps names to inode numbers in the
//! order they were created (its "filesystem order"), an open file keeps
//! reading its inode after the path is replaced, and every change advances a
//! logical clock that serves as the modification time. A fault runs just
//! before the N-th call of one operation on one path and either fails that
//! call with an error code or changes the tree first, which reproduces races
//! such as a file that grows while it is hashed.
//!
//! Error codes use Linux numbering (`ENOENT` 2, `EACCES` 13, ...).

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{DirListing, FsError, FsKind, FsMeta, FsProbe, ProbeFile};

/// `ENOENT`.
pub const ENOENT: i32 = 2;
/// `EIO`.
pub const EIO: i32 = 5;
/// `EACCES`.
pub const EACCES: i32 = 13;
/// `ENOTDIR`.
pub const ENOTDIR: i32 = 20;
/// `EISDIR`.
pub const EISDIR: i32 = 21;
/// `EINVAL`.
pub const EINVAL: i32 = 22;
/// `ELOOP`.
pub const ELOOP: i32 = 40;

/// Mode of a fake directory (`drwxr-xr-x`).
pub const DIR_MODE: u32 = 0o040_755;
/// Mode of a fake regular file (`-rw-r--r--`).
pub const FILE_MODE: u32 = 0o100_644;
/// Mode of a fake symlink (`lrwxrwxrwx`).
pub const SYMLINK_MODE: u32 = 0o120_777;
/// Mode of a fake FIFO (`prw-r--r--`).
pub const FIFO_MODE: u32 = 0o010_644;
/// Size every fake directory reports.
pub const DIR_SIZE: u64 = 4096;
/// Device number of every fake entry.
pub const DEVICE: u64 = 1;

/// A probe operation a fault can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// [`FsProbe::lstat`].
    Lstat,
    /// [`FsProbe::read_link`].
    ReadLink,
    /// [`FsProbe::read_dir`].
    ReadDir,
    /// [`FsProbe::open_file`].
    Open,
    /// [`ProbeFile::read`] on a file opened at the path.
    Read,
    /// [`ProbeFile::meta`] on a file opened at the path.
    FileMeta,
}

/// What a fault does.
pub enum Action {
    /// Fail the call with this error code.
    Fail(i32),
    /// Fail the call without an error code (an unexpected failure).
    FailUncoded,
    /// Change the tree, then perform the call.
    Mutate(Box<dyn FnOnce(&mut FakeTree) + Send>),
}

struct Fault {
    path: PathBuf,
    op: Op,
    /// Matching calls still to let through before this one fires.
    skip: usize,
    action: Option<Action>,
}

enum Body {
    File(Vec<u8>),
    Dir(Vec<(OsString, u64)>),
    Symlink(OsString),
    Other,
}

struct Node {
    mode: u32,
    modified_ns: i128,
    body: Body,
}

/// The tree behind a [`FakeFs`]; faults receive it to change it mid-call.
pub struct FakeTree {
    nodes: HashMap<u64, Node>,
    next_inode: u64,
    clock: i128,
    faults: Vec<Fault>,
    capacities: Vec<(PathBuf, usize)>,
    opened: Vec<PathBuf>,
}

const ROOT_INODE: u64 = 1;

fn error(code: i32) -> FsError {
    FsError { code: Some(code), not_found: code == ENOENT || code == ENOTDIR, message: format!("fake error {code}") }
}

impl FakeTree {
    fn new() -> FakeTree {
        let mut nodes = HashMap::new();
        nodes.insert(ROOT_INODE, Node { mode: DIR_MODE, modified_ns: 0, body: Body::Dir(Vec::new()) });
        FakeTree {
            nodes,
            next_inode: ROOT_INODE + 1,
            clock: 0,
            faults: Vec::new(),
            capacities: Vec::new(),
            opened: Vec::new(),
        }
    }

    fn tick(&mut self) -> i128 {
        self.clock += 1;
        self.clock
    }

    fn meta(&self, inode: u64) -> FsMeta {
        let node = &self.nodes[&inode];
        let (kind, size) = match &node.body {
            Body::File(bytes) => (FsKind::File, bytes.len() as u64),
            Body::Dir(_) => (FsKind::Directory, DIR_SIZE),
            Body::Symlink(target) => (FsKind::Symlink, target.len() as u64),
            Body::Other => (FsKind::Other, 0),
        };
        FsMeta {
            kind,
            mode: node.mode,
            size,
            device: DEVICE,
            inode,
            modified_ns: node.modified_ns,
            changed_ns: node.modified_ns,
        }
    }

    fn lookup(&self, dir: u64, name: &OsStr) -> Result<u64, FsError> {
        match &self.nodes[&dir].body {
            Body::Dir(entries) => {
                entries.iter().find(|(entry, _)| entry == name).map(|&(_, inode)| inode).ok_or_else(|| error(ENOENT))
            }
            _ => Err(error(ENOTDIR)),
        }
    }

    /// The inode at `path`, without following symlinks anywhere.
    fn resolve(&self, path: &Path) -> Result<u64, FsError> {
        let mut inode = ROOT_INODE;
        for component in path.components() {
            match component {
                Component::RootDir => inode = ROOT_INODE,
                Component::Normal(name) => inode = self.lookup(inode, name)?,
                _ => return Err(error(EINVAL)),
            }
        }
        Ok(inode)
    }

    fn split(path: &Path) -> (&Path, &OsStr) {
        let parent = path.parent().expect("a fake path has a parent");
        let name = path.file_name().expect("a fake path has a name");
        (parent, name)
    }

    /// The directory inode at `path`, created with its ancestors if missing.
    fn ensure_dir(&mut self, path: &Path) -> u64 {
        if let Ok(inode) = self.resolve(path) {
            return inode;
        }
        self.insert(path, DIR_MODE, Body::Dir(Vec::new()))
    }

    /// Links a new inode at `path` (which must not exist), creating parents.
    fn insert(&mut self, path: &Path, mode: u32, body: Body) -> u64 {
        let (parent, name) = Self::split(path);
        let parent = self.ensure_dir(parent);
        let inode = self.next_inode;
        self.next_inode += 1;
        let now = self.tick();
        self.nodes.insert(inode, Node { mode, modified_ns: now, body });
        let parent_node = self.nodes.get_mut(&parent).expect("parent exists");
        parent_node.modified_ns = now;
        match &mut parent_node.body {
            Body::Dir(entries) => {
                assert!(entries.iter().all(|(entry, _)| entry != name), "{} already exists", path.display());
                entries.push((name.to_owned(), inode));
            }
            _ => panic!("{} is not below a directory", path.display()),
        }
        inode
    }

    /// Creates an empty directory (and missing parents).
    pub fn mkdir(&mut self, path: impl AsRef<Path>) {
        self.insert(path.as_ref(), DIR_MODE, Body::Dir(Vec::new()));
    }

    /// Changes the content of the existing regular file at `path` in place
    /// (same inode, new modification time).
    fn edit(&mut self, path: &Path, change: impl FnOnce(&mut Vec<u8>)) {
        let inode = self.resolve(path).expect("editing an existing file");
        let now = self.tick();
        let node = self.nodes.get_mut(&inode).expect("resolved inode exists");
        let Body::File(content) = &mut node.body else { panic!("{} is not a regular file", path.display()) };
        change(content);
        node.modified_ns = now;
    }

    /// Creates a regular file, or rewrites an existing one in place.
    pub fn write(&mut self, path: impl AsRef<Path>, bytes: impl Into<Vec<u8>>) {
        let path = path.as_ref();
        let bytes = bytes.into();
        if self.resolve(path).is_ok() {
            self.edit(path, |content| *content = bytes);
        } else {
            self.insert(path, FILE_MODE, Body::File(bytes));
        }
    }

    /// Appends to an existing regular file in place.
    pub fn append(&mut self, path: impl AsRef<Path>, bytes: &[u8]) {
        self.edit(path.as_ref(), |content| content.extend_from_slice(bytes));
    }

    /// Shortens an existing regular file in place.
    pub fn truncate(&mut self, path: impl AsRef<Path>, len: usize) {
        self.edit(path.as_ref(), |content| content.truncate(len));
    }

    /// Creates a symlink with this target text.
    pub fn symlink(&mut self, path: impl AsRef<Path>, target: impl Into<OsString>) {
        self.insert(path.as_ref(), SYMLINK_MODE, Body::Symlink(target.into()));
    }

    /// Creates a FIFO (kind `other`).
    pub fn fifo(&mut self, path: impl AsRef<Path>) {
        self.insert(path.as_ref(), FIFO_MODE, Body::Other);
    }

    /// Changes the mode's permission bits of an existing entry.
    pub fn chmod(&mut self, path: impl AsRef<Path>, permissions: u32) {
        let inode = self.resolve(path.as_ref()).expect("chmod of an existing entry");
        let node = self.nodes.get_mut(&inode).expect("resolved inode exists");
        node.mode = (node.mode & !0o7777) | (permissions & 0o7777);
    }

    /// Unlinks `path` (an open file keeps its inode).
    pub fn remove(&mut self, path: impl AsRef<Path>) {
        let (parent, name) = Self::split(path.as_ref());
        let parent = self.resolve(parent).expect("removing below an existing directory");
        let now = self.tick();
        let node = self.nodes.get_mut(&parent).expect("resolved inode exists");
        node.modified_ns = now;
        if let Body::Dir(entries) = &mut node.body {
            entries.retain(|(entry, _)| entry != name);
        }
    }

    fn fire(&mut self, path: &Path, op: Op) -> Result<(), FsError> {
        let Some(index) = self.faults.iter_mut().position(|fault| {
            if fault.op != op || fault.path != path || fault.action.is_none() {
                return false;
            }
            if fault.skip > 0 {
                fault.skip -= 1;
                return false;
            }
            true
        }) else {
            return Ok(());
        };
        match self.faults[index].action.take().expect("an armed fault") {
            Action::Fail(code) => Err(error(code)),
            Action::FailUncoded => Err(FsError { code: None, not_found: false, message: "fake failure".to_owned() }),
            Action::Mutate(change) => {
                change(self);
                Ok(())
            }
        }
    }
}

/// An in-memory filesystem implementing [`FsProbe`].
#[derive(Clone)]
pub struct FakeFs {
    tree: Arc<Mutex<FakeTree>>,
}

impl Default for FakeFs {
    fn default() -> Self {
        FakeFs::new()
    }
}

impl FakeFs {
    /// An empty filesystem holding only `/`.
    pub fn new() -> FakeFs {
        FakeFs { tree: Arc::new(Mutex::new(FakeTree::new())) }
    }

    /// A filesystem built by `build`.
    pub fn with(build: impl FnOnce(&mut FakeTree)) -> FakeFs {
        let fs = FakeFs::new();
        fs.change(build);
        fs
    }

    fn lock(&self) -> MutexGuard<'_, FakeTree> {
        self.tree.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Changes the tree now.
    pub fn change(&self, change: impl FnOnce(&mut FakeTree)) {
        change(&mut self.lock());
    }

    /// Arms a fault that fires on the `nth` (from 0) call of `op` on `path`.
    pub fn fault(&self, path: impl AsRef<Path>, op: Op, nth: usize, action: Action) {
        self.lock().faults.push(Fault { path: path.as_ref().to_owned(), op, skip: nth, action: Some(action) });
    }

    /// Arms a fault that changes the tree just before the `nth` call.
    pub fn before(
        &self,
        path: impl AsRef<Path>,
        op: Op,
        nth: usize,
        change: impl FnOnce(&mut FakeTree) + Send + 'static,
    ) {
        self.fault(path, op, nth, Action::Mutate(Box::new(change)));
    }

    /// The `(path, capacity)` of every `read_dir` call so far.
    pub fn read_dir_calls(&self) -> Vec<(PathBuf, usize)> {
        self.lock().capacities.clone()
    }

    /// The path of every `open_file` call so far, in call order.
    pub fn opened(&self) -> Vec<PathBuf> {
        self.lock().opened.clone()
    }

    /// The current metadata at `path` (for building expected records).
    pub fn meta(&self, path: impl AsRef<Path>) -> FsMeta {
        let tree = self.lock();
        let inode = tree.resolve(path.as_ref()).expect("metadata of an existing entry");
        tree.meta(inode)
    }
}

impl FsProbe for FakeFs {
    fn lstat(&self, path: &Path) -> Result<FsMeta, FsError> {
        let mut tree = self.lock();
        tree.fire(path, Op::Lstat)?;
        let inode = tree.resolve(path)?;
        Ok(tree.meta(inode))
    }

    fn read_link(&self, path: &Path) -> Result<OsString, FsError> {
        let mut tree = self.lock();
        tree.fire(path, Op::ReadLink)?;
        let inode = tree.resolve(path)?;
        match &tree.nodes[&inode].body {
            Body::Symlink(target) => Ok(target.clone()),
            _ => Err(error(EINVAL)),
        }
    }

    fn read_dir(&self, path: &Path, capacity: usize) -> Result<DirListing, FsError> {
        let mut tree = self.lock();
        tree.capacities.push((path.to_owned(), capacity));
        tree.fire(path, Op::ReadDir)?;
        let inode = tree.resolve(path)?;
        match &tree.nodes[&inode].body {
            Body::Dir(entries) => Ok(DirListing {
                names: entries.iter().take(capacity).map(|(name, _)| name.clone()).collect(),
                exhausted: entries.len() <= capacity,
                meta: tree.meta(inode),
            }),
            Body::Symlink(_) => Err(error(ELOOP)),
            _ => Err(error(ENOTDIR)),
        }
    }

    fn open_file(&self, path: &Path) -> Result<Box<dyn ProbeFile>, FsError> {
        let mut tree = self.lock();
        tree.opened.push(path.to_owned());
        tree.fire(path, Op::Open)?;
        let inode = tree.resolve(path)?;
        if matches!(tree.nodes[&inode].body, Body::Symlink(_)) {
            return Err(error(ELOOP));
        }
        Ok(Box::new(FakeFile { tree: Arc::clone(&self.tree), path: path.to_owned(), inode, offset: 0 }))
    }

    /// The path itself when it names an entry: the fake tree's tests never
    /// resolve a scenario, so symbolic links are not followed here.
    fn canonicalize(&self, path: &Path) -> Result<PathBuf, FsError> {
        self.lock().resolve(path).map(|_| path.to_owned())
    }
}

struct FakeFile {
    tree: Arc<Mutex<FakeTree>>,
    path: PathBuf,
    inode: u64,
    offset: usize,
}

impl FakeFile {
    fn lock(&self) -> MutexGuard<'_, FakeTree> {
        self.tree.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ProbeFile for FakeFile {
    fn meta(&self) -> Result<FsMeta, FsError> {
        let mut tree = self.lock();
        tree.fire(&self.path, Op::FileMeta)?;
        Ok(tree.meta(self.inode))
    }

    fn read(&mut self, buf: &mut [u8]) -> Result<usize, FsError> {
        let offset = self.offset;
        let read = {
            let mut tree = self.lock();
            tree.fire(&self.path, Op::Read)?;
            match &tree.nodes[&self.inode].body {
                Body::File(content) => {
                    let available = content.get(offset..).unwrap_or_default();
                    let read = available.len().min(buf.len());
                    buf[..read].copy_from_slice(&available[..read]);
                    read
                }
                Body::Dir(_) => return Err(error(EISDIR)),
                _ => return Err(error(EINVAL)),
            }
        };
        self.offset += read;
        Ok(read)
    }
}
