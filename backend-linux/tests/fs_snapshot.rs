//! Snapshots of real temporary trees through `LinuxFs`.
#![cfg(target_os = "linux")]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};

use rea_backend_linux::fs::LinuxFs;
use rea_engine::evidence::{
    EffectStatus, EnumerationOmission, FileEffect, FileState, FilesystemTruncation, HashOmission, RootCoverage,
};
use rea_engine::fs::{FsKind, FsProbe, Snapshot, effects, snapshot};
use rea_engine::scenario::Limits;

const HELLO_SHA256: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";
const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const CHANGED_SHA256: &str = "9d463bde2a7e62f4cec6f00fd5e1b2511e92b5999abe43bdfba68f355f560099";
/// SHA-256 of the 1 MiB file whose byte `i` is `i % 251`.
const PATTERN_SHA256: &str = "631b84027d6b9e52b539c4e8373622d23032dfadc64d60af87339c9037e4f769";
const MIB: u64 = 1 << 20;

fn pattern() -> Vec<u8> {
    (0..MIB).map(|i| (i % 251) as u8).collect()
}

fn never() -> bool {
    false
}

fn limits(files: u64, file_bytes: u64) -> Limits {
    Limits { files, file_bytes, filesystem_depth: 8, ..Limits::default() }
}

fn take(roots: &[&Path], limits: &Limits) -> Snapshot {
    let roots: Vec<PathBuf> = roots.iter().map(|root| root.to_path_buf()).collect();
    snapshot(&LinuxFs, &roots, limits, &never).expect("snapshot")
}

/// The state `lstat` gives for `relative` below `root`, as the record holds it.
fn state(root: &Path, relative: &str, sha256: Option<&str>) -> FileState {
    let path = if relative == "." { root.to_path_buf() } else { root.join(relative) };
    let metadata = std::fs::symlink_metadata(&path).expect("lstat");
    let file_type = metadata.file_type();
    let (kind, symlink_target) = if file_type.is_symlink() {
        ("symlink", Some(std::fs::read_link(&path).unwrap().into_os_string().into_string().unwrap()))
    } else if file_type.is_dir() {
        ("directory", None)
    } else if file_type.is_file() {
        ("file", None)
    } else {
        ("other", None)
    };
    FileState {
        path: format!("root_0:{relative}"),
        mode: metadata.mode(),
        size: metadata.size(),
        kind: kind.parse().expect("a file kind"),
        sha256: sha256.map(str::to_owned),
        symlink_target,
    }
}

fn complete(limits: &Limits, entries: u64, bytes_hashed: u64) -> FilesystemTruncation {
    FilesystemTruncation {
        truncated: false,
        entry_limit: limits.files,
        depth_limit: limits.filesystem_depth,
        entries,
        entry_limit_reached: false,
        depth_limit_reached: false,
        roots: vec![RootCoverage { root: "root_0".to_owned(), complete: true }],
        enumeration_omissions: Vec::new(),
        file_bytes_budget: limits.file_bytes,
        bytes_hashed,
        hash_omissions: Vec::new(),
    }
}

/// A tree with every kind of entry: files (one of 1 MiB), a subdirectory,
/// a FIFO, a symlink to a file, a symlink loop, a self-link and a dangling link.
fn sample_tree() -> tempfile::TempDir {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    std::fs::write(root.join("hello.txt"), "hello\n").unwrap();
    std::fs::write(root.join("empty"), "").unwrap();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/abc"), "abc").unwrap();
    std::fs::write(root.join("sub/big.bin"), pattern()).unwrap();
    symlink("hello.txt", root.join("link-to-hello")).unwrap();
    symlink("loop-b", root.join("loop-a")).unwrap();
    symlink("loop-a", root.join("loop-b")).unwrap();
    symlink(".", root.join("self")).unwrap();
    symlink("/nonexistent/target", root.join("dangling")).unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, root.join("fifo"), rustix::fs::Mode::from_raw_mode(0o644)).unwrap();
    temp
}

#[test]
fn a_real_tree_is_recorded_with_known_digests_and_unfollowed_symlinks() {
    let temp = sample_tree();
    let root = temp.path();
    let limits = limits(100, 10 * MIB);
    let taken = take(&[root], &limits);
    let expected = vec![
        state(root, ".", None),
        state(root, "dangling", None),
        state(root, "empty", Some(EMPTY_SHA256)),
        state(root, "fifo", None),
        state(root, "hello.txt", Some(HELLO_SHA256)),
        state(root, "link-to-hello", None),
        state(root, "loop-a", None),
        state(root, "loop-b", None),
        state(root, "self", None),
        state(root, "sub", None),
        state(root, "sub/abc", Some(ABC_SHA256)),
        state(root, "sub/big.bin", Some(PATTERN_SHA256)),
    ];
    assert_eq!(taken.files, expected);
    assert_eq!(taken.truncation, complete(&limits, 12, 6 + 3 + MIB));
    // The fixed parts of the states, independent of `lstat`.
    let kinds: Vec<(&str, &str, Option<&str>)> = taken
        .files
        .iter()
        .map(|file| (file.path.as_str(), file.kind.as_str(), file.symlink_target.as_deref()))
        .filter(|(_, kind, _)| *kind != "file" && *kind != "directory")
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("root_0:dangling", "symlink", Some("/nonexistent/target")),
            ("root_0:fifo", "other", None),
            ("root_0:link-to-hello", "symlink", Some("hello.txt")),
            ("root_0:loop-a", "symlink", Some("loop-b")),
            ("root_0:loop-b", "symlink", Some("loop-a")),
            ("root_0:self", "symlink", Some(".")),
        ]
    );
    assert_eq!(taken.files[5].size, 9, "a symlink's size is its target's length");
    assert_eq!(taken.files[11].size, MIB);
}

#[test]
fn a_file_larger_than_the_remaining_budget_is_skipped_and_later_ones_hashed() {
    let temp = sample_tree();
    let root = temp.path();
    // Room for everything but the 1 MiB file, which comes before none of the others.
    let limits = limits(100, MIB - 1);
    let taken = take(&[root], &limits);
    assert_eq!(taken.files[11], state(root, "sub/big.bin", None));
    assert_eq!(taken.files[10], state(root, "sub/abc", Some(ABC_SHA256)));
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            truncated: true,
            hash_omissions: vec![HashOmission {
                path: "root_0:sub/big.bin".to_owned(),
                size: MIB,
                remaining_budget: MIB - 1 - 9,
                reason: rea_engine::evidence::HashOmissionReason::FileBytesBudget,
                system_code: None,
            }],
            ..complete(&limits, 12, 9)
        }
    );
}

#[test]
fn names_and_targets_that_are_not_unicode_are_omitted_not_guessed() {
    let temp = tempfile::tempdir().unwrap();
    let root = temp.path();
    std::fs::write(root.join("ok"), "abc").unwrap();
    std::fs::create_dir(root.join(OsStr::from_bytes(b"bad\xff"))).unwrap();
    std::fs::write(root.join(OsStr::from_bytes(b"bad\xff/inner")), "abc").unwrap();
    symlink(OsStr::from_bytes(b"target\xfe"), root.join("link")).unwrap();
    let limits = limits(100, MIB);
    let taken = take(&[root], &limits);
    assert_eq!(taken.files, vec![state(root, ".", None), state(root, "ok", Some(ABC_SHA256))]);
    let omission = |path: &str, reason: &str| EnumerationOmission {
        path: path.to_owned(),
        reason: reason.parse().expect("an omission reason"),
        system_code: None,
    };
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            truncated: true,
            roots: vec![RootCoverage { root: "root_0".to_owned(), complete: false }],
            enumeration_omissions: vec![
                omission("root_0:.", "unrepresentable_name"),
                omission("root_0:link", "unrepresentable_symlink_target"),
            ],
            ..complete(&limits, 2, 3)
        }
    );
}

#[test]
fn effects_between_two_snapshots_of_a_real_tree() {
    let temp = sample_tree();
    let root = temp.path();
    let limits = limits(100, 10 * MIB);
    let before = take(&[root], &limits);
    let hello_before = state(root, "hello.txt", Some(HELLO_SHA256));
    std::fs::write(root.join("hello.txt"), "changed!").unwrap();
    std::fs::remove_file(root.join("empty")).unwrap();
    std::fs::write(root.join("sub/new"), "").unwrap();
    let after = take(&[root], &limits);
    let found: Vec<(String, String)> =
        effects(&before, &after).into_iter().map(|effect| (effect.path, effect.status.to_string())).collect();
    let root_status = if before.files[0] == after.files[0] { "unchanged" } else { "modified" };
    let sub_status = if before.files[9] == after.files[8] { "unchanged" } else { "modified" };
    let expected = [
        ("root_0:.", root_status),
        ("root_0:dangling", "unchanged"),
        ("root_0:empty", "deleted"),
        ("root_0:fifo", "unchanged"),
        ("root_0:hello.txt", "modified"),
        ("root_0:link-to-hello", "unchanged"),
        ("root_0:loop-a", "unchanged"),
        ("root_0:loop-b", "unchanged"),
        ("root_0:self", "unchanged"),
        ("root_0:sub", sub_status),
        ("root_0:sub/abc", "unchanged"),
        ("root_0:sub/big.bin", "unchanged"),
        ("root_0:sub/new", "created"),
    ];
    assert_eq!(found, expected.map(|(path, status)| (path.to_owned(), status.to_owned())));
    let modified = effects(&before, &after).into_iter().find(|effect| effect.path == "root_0:hello.txt").unwrap();
    assert_eq!(
        modified,
        FileEffect {
            path: "root_0:hello.txt".to_owned(),
            status: EffectStatus::Modified,
            before: Some(hello_before),
            after: Some(state(root, "hello.txt", Some(CHANGED_SHA256))),
            reason: None,
        }
    );
}

#[test]
fn the_probe_reads_directories_within_capacity_and_never_follows_or_blocks() {
    let temp = sample_tree();
    let root = temp.path();
    for index in 0..10 {
        std::fs::write(root.join(format!("sub/n{index}")), "").unwrap();
    }
    std::fs::create_dir(root.join("void")).unwrap();
    let probe = LinuxFs;
    // `sub` holds 12 names.
    let partial = probe.read_dir(&root.join("sub"), 5).unwrap();
    assert_eq!((partial.names.len(), partial.exhausted), (5, false));
    let exact = probe.read_dir(&root.join("sub"), 12).unwrap();
    assert_eq!((exact.names.len(), exact.exhausted), (12, true));
    assert!(!probe.read_dir(&root.join("sub"), 0).unwrap().exhausted);
    let empty = probe.read_dir(&root.join("void"), 0).unwrap();
    assert_eq!((empty.names.len(), empty.exhausted), (0, true));
    // The listing's identity is the opened directory's.
    assert!(empty.meta.same_object(&probe.lstat(&root.join("void")).unwrap()));
    // A final symlink is never followed, for directories nor files.
    let through_link = probe.read_dir(&root.join("self"), 10).unwrap_err();
    assert!(matches!(through_link.code, Some(libc::ELOOP | libc::ENOTDIR)), "{through_link:?}");
    let opened_link = probe.open_file(&root.join("link-to-hello")).err().unwrap();
    assert_eq!(opened_link.code, Some(libc::ELOOP));
    // A FIFO without a writer opens without blocking; the engine then sees its kind.
    let fifo = probe.open_file(&root.join("fifo")).unwrap();
    assert_eq!(fifo.meta().unwrap().kind, FsKind::Other);
    // Absence: missing, or below something that is not a directory.
    let missing = probe.lstat(&root.join("missing")).unwrap_err();
    assert_eq!((missing.code, missing.not_found), (Some(libc::ENOENT), true));
    let below_file = probe.lstat(&root.join("hello.txt/x")).unwrap_err();
    assert_eq!((below_file.code, below_file.not_found), (Some(libc::ENOTDIR), true));
    // Other errors are not absence.
    let not_a_link = probe.read_link(&root.join("hello.txt")).unwrap_err();
    assert_eq!((not_a_link.code, not_a_link.not_found), (Some(libc::EINVAL), false));
}
