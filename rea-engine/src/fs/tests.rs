//! Snapshot and effect tests over the fault-injecting [`FakeFs`].
//!
//! Every test states the exact record: the whole entry list, the whole
//! accounting and, where relevant, the effects.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use sha2::{Digest, Sha256};

use super::testing::{Action, DIR_MODE, DIR_SIZE, EACCES, EIO, ENOENT, FIFO_MODE, FILE_MODE, FakeFs, Op, SYMLINK_MODE};
use super::*;
use crate::evidence::{
    EffectStatus, EnumerationOmission, FileEffect, FileKind, FileState, FilesystemTruncation, HashOmission,
    RootCoverage,
};
use crate::scenario::Limits;

const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const ABC_SHA256: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const HELLO_SHA256: &str = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03";

fn sha(bytes: &[u8]) -> String {
    crate::evidence::hex(&Sha256::digest(bytes))
}

fn limits(files: u64, file_bytes: u64, depth: u64) -> Limits {
    Limits { files, file_bytes, filesystem_depth: depth, ..Limits::default() }
}

fn never() -> bool {
    false
}

fn roots(paths: &[&str]) -> Vec<PathBuf> {
    paths.iter().map(PathBuf::from).collect()
}

/// Takes a snapshot hashing on one thread, so the order of probe calls (and
/// hence of one-shot faults) is fixed.
fn take(fs: &FakeFs, paths: &[&str], limits: &Limits) -> Snapshot {
    snapshot_with_threads(fs, &roots(paths), limits, &never, 1).expect("snapshot")
}

fn dir(path: &str) -> FileState {
    FileState {
        path: path.to_owned(),
        mode: DIR_MODE,
        size: DIR_SIZE,
        kind: FileKind::Directory,
        sha256: None,
        symlink_target: None,
    }
}

fn file(path: &str, size: u64, sha256: Option<&str>) -> FileState {
    FileState {
        path: path.to_owned(),
        mode: FILE_MODE,
        size,
        kind: FileKind::File,
        sha256: sha256.map(str::to_owned),
        symlink_target: None,
    }
}

fn link(path: &str, target: &str) -> FileState {
    FileState {
        path: path.to_owned(),
        mode: SYMLINK_MODE,
        size: target.len() as u64,
        kind: FileKind::Symlink,
        sha256: None,
        symlink_target: Some(target.to_owned()),
    }
}

fn fifo(path: &str) -> FileState {
    FileState {
        path: path.to_owned(),
        mode: FIFO_MODE,
        size: 0,
        kind: FileKind::Other,
        sha256: None,
        symlink_target: None,
    }
}

/// The accounting of a snapshot with nothing omitted; tests override fields.
fn accounting(limits: &Limits, entries: u64, complete: &[bool]) -> FilesystemTruncation {
    FilesystemTruncation {
        truncated: complete.contains(&false),
        entry_limit: limits.files,
        depth_limit: limits.filesystem_depth,
        entries,
        entry_limit_reached: false,
        depth_limit_reached: false,
        roots: complete
            .iter()
            .enumerate()
            .map(|(index, &complete)| RootCoverage { root: format!("root_{index}"), complete })
            .collect(),
        enumeration_omissions: Vec::new(),
        file_bytes_budget: limits.file_bytes,
        bytes_hashed: 0,
        hash_omissions: Vec::new(),
    }
}

fn omission(path: &str, reason: &str, system_code: Option<i32>) -> EnumerationOmission {
    EnumerationOmission { path: path.to_owned(), reason: reason.parse().expect("an omission reason"), system_code }
}

fn hash_omission(path: &str, size: u64, remaining_budget: u64, reason: &str, code: Option<i32>) -> HashOmission {
    HashOmission {
        path: path.to_owned(),
        size,
        remaining_budget,
        reason: reason.parse().expect("a hash omission reason"),
        system_code: code,
    }
}

fn effect(path: &str, status: &str, before: Option<FileState>, after: Option<FileState>) -> FileEffect {
    FileEffect { path: path.to_owned(), status: status.parse().expect("an effect status"), before, after, reason: None }
}

fn unknown(path: &str, before: Option<FileState>, after: Option<FileState>, reason: &str) -> FileEffect {
    FileEffect { reason: Some(reason.parse().expect("an unknown reason")), ..effect(path, "unknown", before, after) }
}

#[test]
fn walk_is_pre_order_with_utf16_sorted_children_and_aliased_roots() {
    let fs = FakeFs::with(|tree| {
        // Created out of order, so the filesystem order is not sorted.
        tree.write("/r/b.txt", "hello\n");
        tree.mkdir("/r/a");
        tree.write("/r/a/z", "");
        tree.write("/r/a/y", "abc");
        tree.write("/r/Z", "abc");
        // U+FF61 sorts before U+1F600 by bytes, after it by UTF-16 units.
        tree.write("/r/\u{ff61}", "");
        tree.write("/r/\u{1f600}", "");
        tree.fifo("/r/pipe");
        tree.symlink("/r/link", "a/z");
        tree.write("/s", "abc");
    });
    let limits = limits(100, 1000, 8);
    let taken = take(&fs, &["/r", "/missing", "/s"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            file("root_0:Z", 3, Some(ABC_SHA256)),
            dir("root_0:a"),
            file("root_0:a/y", 3, Some(ABC_SHA256)),
            file("root_0:a/z", 0, Some(EMPTY_SHA256)),
            file("root_0:b.txt", 6, Some(HELLO_SHA256)),
            link("root_0:link", "a/z"),
            fifo("root_0:pipe"),
            file("root_0:\u{1f600}", 0, Some(EMPTY_SHA256)),
            file("root_0:\u{ff61}", 0, Some(EMPTY_SHA256)),
            file("root_2:.", 3, Some(ABC_SHA256)),
        ]
    );
    assert_eq!(taken.truncation, FilesystemTruncation { bytes_hashed: 15, ..accounting(&limits, 11, &[true; 3]) });
    assert_eq!(fs.read_dir_calls(), vec![(PathBuf::from("/r"), 99), (PathBuf::from("/r/a"), 97)]);
    // The result does not depend on the number of hashing threads.
    let parallel = snapshot_with_threads(&fs, &roots(&["/r", "/missing", "/s"]), &limits, &never, 4).unwrap();
    assert_eq!(parallel, taken);
}

#[test]
fn a_file_that_changes_while_hashed_has_no_digest() {
    let fs = FakeFs::new();
    let big = vec![7u8; 100_000];
    fs.change(|tree| {
        for name in ["grow", "replaced", "shrink", "touched", "steady"] {
            tree.write(format!("/r/{name}"), big.clone());
        }
    });
    // Grows after the first chunk was read: the read past `size` finds data.
    fs.before("/r/grow", Op::Read, 1, |tree| tree.append("/r/grow", b"more"));
    // Replaced by a new inode between `lstat` and `open`.
    fs.before("/r/replaced", Op::Open, 0, |tree| {
        tree.remove("/r/replaced");
        tree.write("/r/replaced", vec![7u8; 100_000]);
    });
    // Shrinks between the first and second chunk: a short read.
    fs.before("/r/shrink", Op::Read, 1, |tree| tree.truncate("/r/shrink", 70_000));
    // Rewritten in place with the same size: the last `fstat` sees a new mtime.
    fs.before("/r/touched", Op::FileMeta, 1, |tree| tree.write("/r/touched", vec![8u8; 100_000]));
    let limits = limits(100, 1_000_000, 8);
    let taken = take(&fs, &["/r"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            file("root_0:grow", 100_000, None),
            file("root_0:replaced", 100_000, None),
            file("root_0:shrink", 100_000, None),
            file("root_0:steady", 100_000, Some(&sha(&big))),
            file("root_0:touched", 100_000, None),
        ]
    );
    let changed = |path| hash_omission(path, 100_000, 1_000_000, "file_changed_or_short_read", None);
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            truncated: true,
            bytes_hashed: 100_000,
            hash_omissions: vec![
                changed("root_0:grow"),
                changed("root_0:replaced"),
                changed("root_0:shrink"),
                // Considered after `steady` was digested.
                hash_omission("root_0:touched", 100_000, 900_000, "file_changed_or_short_read", None),
            ],
            ..accounting(&limits, 6, &[true])
        }
    );
}

#[test]
fn a_directory_replaced_during_the_walk_keeps_its_metadata_and_loses_its_children() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/a.txt", "abc");
        tree.write("/r/d/x", "abc");
        tree.write("/r/z", "");
    });
    fs.before("/r/d", Op::ReadDir, 0, |tree| {
        tree.remove("/r/d");
        tree.write("/r/d/y", "hello\n");
    });
    let limits = limits(100, 1000, 8);
    let taken = take(&fs, &["/r"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            file("root_0:a.txt", 3, Some(ABC_SHA256)),
            dir("root_0:d"),
            file("root_0:z", 0, Some(EMPTY_SHA256)),
        ]
    );
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            bytes_hashed: 3,
            enumeration_omissions: vec![omission("root_0:d", "identity_changed", None)],
            ..accounting(&limits, 4, &[false])
        }
    );
}

#[test]
fn an_unreadable_directory_is_an_entry_unavailable_omission() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/a", "abc");
        tree.write("/r/locked/secret", "abc");
        tree.write("/r/m", "");
        tree.write("/r/n", "abc");
        tree.chmod("/r/locked", 0o000);
    });
    fs.fault("/r/locked", Op::ReadDir, 0, Action::Fail(EACCES));
    // A child whose own metadata cannot be read is omitted the same way.
    fs.fault("/r/n", Op::Lstat, 0, Action::Fail(EACCES));
    let limits = limits(100, 1000, 8);
    let taken = take(&fs, &["/r"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            file("root_0:a", 3, Some(ABC_SHA256)),
            FileState { mode: 0o040_000, ..dir("root_0:locked") },
            file("root_0:m", 0, Some(EMPTY_SHA256)),
        ]
    );
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            bytes_hashed: 3,
            enumeration_omissions: vec![
                omission("root_0:locked", "entry_unavailable", Some(EACCES)),
                omission("root_0:n", "entry_unavailable", Some(EACCES)),
            ],
            ..accounting(&limits, 4, &[false])
        }
    );
}

#[test]
fn vanished_entries() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/gone", "abc");
        tree.write("/r/late", "abc");
        tree.write("/r/x", "abc");
        tree.mkdir("/s");
    });
    // Listed, then missing at its own lookup: an observed absence.
    fs.before("/r/gone", Op::Lstat, 0, |tree| tree.remove("/r/gone"));
    // Observed, then missing when opened for hashing: no digest, but the
    // enumeration of the root is still exhausted.
    fs.before("/r/late", Op::Open, 0, |tree| tree.remove("/r/late"));
    // A root missing at its initial lookup is an observed absence too.
    fs.before("/s", Op::Lstat, 0, |tree| tree.remove("/s"));
    let limits = limits(100, 1000, 8);
    let taken = take(&fs, &["/r", "/s"], &limits);
    assert_eq!(taken.files, vec![dir("root_0:."), file("root_0:late", 3, None), file("root_0:x", 3, Some(ABC_SHA256))]);
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            truncated: true,
            bytes_hashed: 3,
            hash_omissions: vec![hash_omission("root_0:late", 3, 1000, "file_unavailable", Some(ENOENT))],
            ..accounting(&limits, 3, &[true, true])
        }
    );
}

#[test]
fn unstable_or_vanishing_symlinks_are_omitted() {
    let fs = FakeFs::with(|tree| {
        tree.symlink("/r/flip", "old");
        tree.symlink("/r/gone", "somewhere");
        tree.symlink("/r/kept", "target");
    });
    // Replaced by another symlink between `readlink` and the second `lstat`.
    fs.before("/r/flip", Op::ReadLink, 0, |tree| {
        tree.remove("/r/flip");
        tree.symlink("/r/flip", "new");
    });
    // Removed after `readlink`: the confirming `lstat` fails.
    fs.before("/r/gone", Op::Lstat, 1, |tree| tree.remove("/r/gone"));
    let limits = limits(100, 1000, 8);
    let taken = take(&fs, &["/r"], &limits);
    assert_eq!(taken.files, vec![dir("root_0:."), link("root_0:kept", "target")]);
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            enumeration_omissions: vec![
                omission("root_0:flip", "identity_changed", None),
                omission("root_0:gone", "entry_unavailable", Some(ENOENT)),
            ],
            ..accounting(&limits, 2, &[false])
        }
    );
}

#[test]
fn symlink_loops_are_recorded_and_never_followed() {
    let fs = FakeFs::with(|tree| {
        tree.symlink("/r/a", "b");
        tree.symlink("/r/b", "a");
        tree.symlink("/r/self", ".");
        tree.symlink("/r/up", "..");
    });
    let limits = limits(100, 1000, 8);
    let taken = take(&fs, &["/r"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            link("root_0:a", "b"),
            link("root_0:b", "a"),
            link("root_0:self", "."),
            link("root_0:up", ".."),
        ]
    );
    assert_eq!(taken.truncation, accounting(&limits, 5, &[true]));
    assert_eq!(fs.read_dir_calls(), vec![(PathBuf::from("/r"), 99)]);
    assert_eq!(fs.opened(), Vec::<PathBuf>::new());
}

#[test]
fn a_large_file_beyond_the_budget_does_not_stop_smaller_ones() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/1-big", vec![1u8; 500]);
        tree.write("/r/2-small", vec![2u8; 30]);
        tree.write("/r/3-medium", vec![3u8; 60]);
        tree.write("/r/4-late", vec![4u8; 20]);
        tree.write("/s/5-tiny", vec![5u8; 10]);
    });
    let limits = limits(100, 100, 8);
    let taken = take(&fs, &["/r", "/s"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            file("root_0:1-big", 500, None),
            file("root_0:2-small", 30, Some(&sha(&[2u8; 30]))),
            file("root_0:3-medium", 60, Some(&sha(&[3u8; 60]))),
            file("root_0:4-late", 20, None),
            dir("root_1:."),
            file("root_1:5-tiny", 10, Some(&sha(&[5u8; 10]))),
        ]
    );
    assert_eq!(
        taken.truncation,
        FilesystemTruncation {
            truncated: true,
            bytes_hashed: 100,
            hash_omissions: vec![
                hash_omission("root_0:1-big", 500, 100, "file_bytes_budget", None),
                hash_omission("root_0:4-late", 20, 10, "file_bytes_budget", None),
            ],
            ..accounting(&limits, 7, &[true, true])
        }
    );
    // The big file was never read; the late one neither.
    let mut opened = fs.opened();
    opened.sort();
    assert_eq!(opened, roots(&["/r/2-small", "/r/3-medium", "/s/5-tiny"]));
}

#[test]
fn a_failed_file_does_not_consume_budget() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/a", vec![1u8; 40]);
        tree.write("/r/b", vec![2u8; 45]);
        tree.write("/r/c", vec![3u8; 5]);
    });
    fs.fault("/r/a", Op::Read, 0, Action::Fail(EIO));
    let limits = limits(100, 50, 8);
    for threads in [1, 2, 4] {
        let taken = snapshot_with_threads(&fs, &roots(&["/r"]), &limits, &never, threads).unwrap();
        assert_eq!(
            taken.files,
            vec![
                dir("root_0:."),
                file("root_0:a", 40, None),
                file("root_0:b", 45, Some(&sha(&[2u8; 45]))),
                file("root_0:c", 5, Some(&sha(&[3u8; 5]))),
            ]
        );
        assert_eq!(
            taken.truncation,
            FilesystemTruncation {
                truncated: true,
                bytes_hashed: 50,
                hash_omissions: vec![hash_omission("root_0:a", 40, 50, "file_unavailable", Some(EIO))],
                ..accounting(&limits, 4, &[true])
            }
        );
        // Re-arm the one-shot fault for the next thread count.
        fs.fault("/r/a", Op::Read, 0, Action::Fail(EIO));
    }
}

#[test]
fn more_entries_than_the_limit_keep_the_first_names_read_then_sorted() {
    let fs = FakeFs::with(|tree| {
        for name in ["e", "b", "d", "a", "c"] {
            tree.write(format!("/r/{name}"), "");
        }
        tree.write("/s/x", "");
    });
    let limits = limits(4, 1000, 8);
    let taken = take(&fs, &["/r", "/s", "/missing"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            file("root_0:b", 0, Some(EMPTY_SHA256)),
            file("root_0:d", 0, Some(EMPTY_SHA256)),
            file("root_0:e", 0, Some(EMPTY_SHA256)),
        ]
    );
    assert_eq!(
        taken.truncation,
        FilesystemTruncation { entry_limit_reached: true, ..accounting(&limits, 4, &[false, false, true]) }
    );
    assert_eq!(fs.read_dir_calls(), vec![(PathBuf::from("/r"), 3)]);
}

#[test]
fn the_entry_limit_can_run_out_inside_a_subdirectory() {
    let fs = FakeFs::with(|tree| {
        for name in ["1", "2", "3"] {
            tree.write(format!("/r/a/{name}"), "");
        }
        tree.write("/r/b", "");
    });
    let limits = limits(5, 1000, 8);
    let taken = take(&fs, &["/r"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            dir("root_0:a"),
            file("root_0:a/1", 0, Some(EMPTY_SHA256)),
            file("root_0:a/2", 0, Some(EMPTY_SHA256)),
            file("root_0:a/3", 0, Some(EMPTY_SHA256)),
        ]
    );
    assert_eq!(
        taken.truncation,
        FilesystemTruncation { entry_limit_reached: true, ..accounting(&limits, 5, &[false]) }
    );
    assert_eq!(fs.read_dir_calls(), vec![(PathBuf::from("/r"), 4), (PathBuf::from("/r/a"), 3)]);
}

#[test]
fn the_depth_limit_records_directories_but_not_their_children() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/a/b/c", "abc");
        tree.mkdir("/r/e");
        tree.write("/r/f", "abc");
        tree.mkdir("/s/empty");
    });
    let limits = limits(100, 1000, 1);
    let taken = take(&fs, &["/r", "/s"], &limits);
    assert_eq!(
        taken.files,
        vec![
            dir("root_0:."),
            dir("root_0:a"),
            dir("root_0:e"),
            file("root_0:f", 3, Some(ABC_SHA256)),
            dir("root_1:."),
            dir("root_1:empty"),
        ]
    );
    // Only a non-empty directory at the limit hides anything.
    assert_eq!(
        taken.truncation,
        FilesystemTruncation { depth_limit_reached: true, bytes_hashed: 3, ..accounting(&limits, 6, &[false, true]) }
    );
    assert_eq!(
        fs.read_dir_calls(),
        vec![
            (PathBuf::from("/r"), 99),
            (PathBuf::from("/r/a"), 0),
            (PathBuf::from("/r/e"), 0),
            (PathBuf::from("/s"), 95),
            (PathBuf::from("/s/empty"), 0),
        ]
    );
}

#[test]
fn an_uncoded_failure_stops_the_snapshot_with_a_partial_observation() {
    let fs = FakeFs::with(|tree| {
        // Too big for the budget, so its (certain) decision does not depend
        // on how far hashing got when the walk stopped.
        tree.write("/r/a", vec![0u8; 2000]);
        tree.write("/r/b", "abc");
        tree.write("/s/c", "abc");
    });
    fs.fault("/r/b", Op::Lstat, 0, Action::FailUncoded);
    let limits = limits(100, 1000, 8);
    let error = snapshot_with_threads(&fs, &roots(&["/r", "/s"]), &limits, &never, 2).unwrap_err();
    let SnapshotError::Failed { path, error: failure, partial } = error else { panic!("expected a failure") };
    assert_eq!(path, "root_0:b");
    assert_eq!(failure.code, None);
    assert_eq!(partial.files, vec![dir("root_0:."), file("root_0:a", 2000, None)]);
    assert_eq!(
        partial.truncation,
        FilesystemTruncation {
            hash_omissions: vec![hash_omission("root_0:a", 2000, 1000, "file_bytes_budget", None)],
            ..accounting(&limits, 2, &[false, false])
        }
    );
}

#[test]
fn an_uncoded_failure_while_hashing_keeps_the_certain_digests() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/a", "abc");
        tree.write("/r/b", "abc");
        tree.write("/r/c", "abc");
    });
    fs.fault("/r/b", Op::Open, 0, Action::FailUncoded);
    let limits = limits(100, 1000, 8);
    let error = snapshot_with_threads(&fs, &roots(&["/r"]), &limits, &never, 1).unwrap_err();
    let SnapshotError::Failed { path, partial, .. } = error else { panic!("expected a failure") };
    assert_eq!(path, "root_0:b");
    assert_eq!(
        partial.files,
        vec![
            dir("root_0:."),
            file("root_0:a", 3, Some(ABC_SHA256)),
            file("root_0:b", 3, None),
            file("root_0:c", 3, None)
        ]
    );
    assert_eq!(
        partial.truncation,
        FilesystemTruncation {
            truncated: true,
            bytes_hashed: 3,
            hash_omissions: vec![
                hash_omission("root_0:b", 3, 997, "interrupted", None),
                hash_omission("root_0:c", 3, 997, "interrupted", None),
            ],
            // Enumeration finished before hashing stopped.
            ..accounting(&limits, 4, &[true])
        }
    );
}

#[test]
fn cancellation_returns_the_examined_entries() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/a", "abc");
        tree.write("/r/b", "abc");
        tree.write("/r/c", "abc");
    });
    // Cancel while `root_0:a` is looked up: it is recorded, but neither
    // hashed (hashing polls before opening it) nor followed by `root_0:b`.
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancelled);
    fs.before("/r/a", Op::Lstat, 0, move |_| flag.store(true, Ordering::SeqCst));
    let cancel = || cancelled.load(Ordering::SeqCst);
    let limits = limits(100, 1000, 8);
    let error = snapshot_with_threads(&fs, &roots(&["/r", "/s"]), &limits, &cancel, 2).unwrap_err();
    assert_eq!(error.to_string(), "the filesystem snapshot was cancelled");
    let SnapshotError::Cancelled { partial } = error else { panic!("expected a cancellation") };
    assert_eq!(partial.files, vec![dir("root_0:."), file("root_0:a", 3, None)]);
    assert_eq!(
        partial.truncation,
        FilesystemTruncation {
            hash_omissions: vec![hash_omission("root_0:a", 3, 1000, "interrupted", None)],
            ..accounting(&limits, 2, &[false, false])
        }
    );
    assert_eq!(fs.opened(), Vec::<PathBuf>::new());
}

#[test]
fn cancellation_stops_hashing_between_chunks() {
    let fs = FakeFs::with(|tree| tree.write("/r/big", vec![0u8; 300_000]));
    let polls = AtomicUsize::new(0);
    // Two walk polls (root, file; the file is handed to hashing only after
    // the second), one before opening, two chunks, then stop.
    let cancel = || polls.fetch_add(1, Ordering::SeqCst) >= 5;
    let limits = limits(100, 1_000_000, 8);
    let error = snapshot_with_threads(&fs, &roots(&["/r"]), &limits, &cancel, 1).unwrap_err();
    assert_eq!(
        error.partial().truncation.hash_omissions,
        vec![hash_omission("root_0:big", 300_000, 1_000_000, "interrupted", None)]
    );
    assert_eq!(polls.load(Ordering::SeqCst), 6);
}

fn pair(fs: &FakeFs, paths: &[&str], limits: &Limits, change: impl FnOnce(&mut testing::FakeTree)) -> Vec<FileEffect> {
    let before = take(fs, paths, limits);
    fs.change(change);
    let after = take(fs, paths, limits);
    effects(&before, &after)
}

#[test]
fn effects_cover_created_deleted_modified_and_unchanged() {
    let fs = FakeFs::with(|tree| {
        tree.write("/r/keep", "abc");
        tree.write("/r/edit", "abc");
        tree.write("/r/old", "abc");
        // Too big for the budget: no digest, yet its deletion is known.
        tree.write("/r/huge", vec![0u8; 2000]);
    });
    let limits = limits(100, 1000, 8);
    let found = pair(&fs, &["/r"], &limits, |tree| {
        tree.write("/r/edit", "hello\n");
        tree.remove("/r/old");
        tree.remove("/r/huge");
        tree.write("/r/new", "");
    });
    assert_eq!(
        found,
        vec![
            effect("root_0:.", "unchanged", Some(dir("root_0:.")), Some(dir("root_0:."))),
            effect(
                "root_0:edit",
                "modified",
                Some(file("root_0:edit", 3, Some(ABC_SHA256))),
                Some(file("root_0:edit", 6, Some(HELLO_SHA256)))
            ),
            effect("root_0:huge", "deleted", Some(file("root_0:huge", 2000, None)), None),
            effect(
                "root_0:keep",
                "unchanged",
                Some(file("root_0:keep", 3, Some(ABC_SHA256))),
                Some(file("root_0:keep", 3, Some(ABC_SHA256)))
            ),
            effect("root_0:new", "created", None, Some(file("root_0:new", 0, Some(EMPTY_SHA256)))),
            effect("root_0:old", "deleted", Some(file("root_0:old", 3, Some(ABC_SHA256))), None),
        ]
    );
}

#[test]
fn absence_proves_nothing_in_an_incomplete_root_and_only_there() {
    let fs = FakeFs::with(|tree| {
        tree.mkdir("/a/locked");
        tree.write("/a/gone", "abc");
        tree.write("/b/gone", "abc");
    });
    fs.fault("/a/locked", Op::ReadDir, 0, Action::Fail(EACCES));
    let limits = limits(100, 1000, 8);
    let before = take(&fs, &["/a", "/b"], &limits);
    fs.change(|tree| {
        tree.remove("/a/gone");
        tree.remove("/b/gone");
        tree.write("/a/new", "");
        tree.write("/b/new", "");
    });
    let after = take(&fs, &["/a", "/b"], &limits);
    assert_eq!(before.truncation.roots, accounting(&limits, 0, &[false, true]).roots);
    assert_eq!(after.truncation.roots, accounting(&limits, 0, &[true, true]).roots);
    let found = effects(&before, &after);
    assert_eq!(
        found,
        vec![
            effect("root_0:.", "unchanged", Some(dir("root_0:.")), Some(dir("root_0:."))),
            // Deleted: the after snapshot of root_0 was complete.
            effect("root_0:gone", "deleted", Some(file("root_0:gone", 3, Some(ABC_SHA256))), None),
            effect("root_0:locked", "unchanged", Some(dir("root_0:locked")), Some(dir("root_0:locked"))),
            // Unknown: the before snapshot of root_0 was incomplete.
            unknown(
                "root_0:new",
                None,
                Some(file("root_0:new", 0, Some(EMPTY_SHA256))),
                "before_enumeration_incomplete"
            ),
            effect("root_1:.", "unchanged", Some(dir("root_1:.")), Some(dir("root_1:."))),
            effect("root_1:gone", "deleted", Some(file("root_1:gone", 3, Some(ABC_SHA256))), None),
            effect("root_1:new", "created", None, Some(file("root_1:new", 0, Some(EMPTY_SHA256)))),
        ]
    );
    // The other way round, the missing after-state is unobserved.
    let reversed = effects(&after, &before);
    assert_eq!(
        reversed.iter().find(|effect| effect.path == "root_0:new"),
        Some(&unknown(
            "root_0:new",
            Some(file("root_0:new", 0, Some(EMPTY_SHA256))),
            None,
            "after_enumeration_incomplete"
        ))
    );
    assert_eq!(reversed.iter().filter(|effect| effect.status == EffectStatus::Unknown).count(), 1);
}

#[test]
fn paths_below_an_unfollowed_symlink_stay_unknown() {
    let fs = FakeFs::with(|tree| {
        tree.symlink("/r/d", "/elsewhere");
        tree.write("/elsewhere/x", "abc");
    });
    let limits = limits(100, 1000, 8);
    let found = pair(&fs, &["/r"], &limits, |tree| {
        tree.remove("/r/d");
        tree.write("/r/d/x", "abc");
    });
    assert_eq!(
        found,
        vec![
            effect("root_0:.", "unchanged", Some(dir("root_0:.")), Some(dir("root_0:."))),
            effect("root_0:d", "modified", Some(link("root_0:d", "/elsewhere")), Some(dir("root_0:d"))),
            unknown(
                "root_0:d/x",
                None,
                Some(file("root_0:d/x", 3, Some(ABC_SHA256))),
                "before_below_unfollowed_symlink"
            ),
        ]
    );
    let reverse = pair(&fs, &["/r"], &limits, |tree| {
        tree.remove("/r/d");
        tree.symlink("/r/d", "/elsewhere");
    });
    assert_eq!(
        reverse[2],
        unknown("root_0:d/x", Some(file("root_0:d/x", 3, Some(ABC_SHA256))), None, "after_below_unfollowed_symlink")
    );
}

#[test]
fn a_root_that_appears_is_created() {
    let fs = FakeFs::new();
    let limits = limits(100, 1000, 8);
    let found = pair(&fs, &["/r"], &limits, |tree| tree.write("/r/x", "abc"));
    assert_eq!(
        found,
        vec![
            effect("root_0:.", "created", None, Some(dir("root_0:."))),
            effect("root_0:x", "created", None, Some(file("root_0:x", 3, Some(ABC_SHA256)))),
        ]
    );
}
