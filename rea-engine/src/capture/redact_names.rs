//! Secret redaction in the names a filesystem snapshot records.
//!
//! A program may name a file, a directory or a symlink's target after a
//! sensitive input. Every name a snapshot records (an entry's path after its
//! root alias, a symlink's target, the paths of omissions) is searched for
//! the secrets and each occurrence replaced by the input's marker, as in
//! terminal text, before effects are classified and before anything is
//! written. Entries keep the walk order of their recorded names.
//!
//! Two entries of one snapshot can end up with the same recorded path (a
//! directory holding files named after two secrets of equal length, or a
//! file already named like a marker). The first in walk order is kept; the
//! others are left out, their root is marked incomplete and a
//! `redacted_name_collision` omission names the path, so the left-out entry
//! is never read as absent.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use crate::evidence::{EnumerationOmission, EnumerationOmissionReason, FileState};
use crate::fs::{Snapshot, utf16_cmp};
use crate::secrets::{Redactor, Secrets};

/// A filesystem checkpoint as the record keeps it: the snapshot with the
/// sensitive inputs' text replaced in its names (counted in the capture's
/// tally).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checkpoint {
    /// The redacted snapshot.
    pub(crate) snapshot: Snapshot,
}

impl Checkpoint {
    /// `snapshot` with `secrets` replaced in its names.
    pub(crate) fn redacted(mut snapshot: Snapshot, secrets: &Secrets) -> Checkpoint {
        redact_snapshot(&mut snapshot, &mut secrets.redactor());
        Checkpoint { snapshot }
    }
}

/// Replaces the secrets in every name `snapshot` records and returns how
/// many occurrences were replaced.
pub(crate) fn redact_snapshot(snapshot: &mut Snapshot, secrets: &mut Redactor) -> u64 {
    if !secrets.is_active() {
        return 0;
    }
    let start = secrets.redactions();
    let (renamed, left_out) = redact_files(&mut snapshot.files, secrets);
    if !left_out.is_empty() {
        leave_out(snapshot, &left_out);
    }
    let truncation = &mut snapshot.truncation;
    for omission in &mut truncation.hash_omissions {
        omission.path = redact_path(&omission.path, secrets);
    }
    for omission in truncation.enumeration_omissions.iter_mut().filter(|o| !is_collision(o)) {
        omission.path = redact_path(&omission.path, secrets);
    }
    if renamed {
        snapshot.files.sort_by(|a, b| walk_order(&a.path, &b.path));
        truncation.hash_omissions.sort_by(|a, b| walk_order(&a.path, &b.path));
        truncation.enumeration_omissions.sort_by(|a, b| walk_order(&a.path, &b.path));
    }
    secrets.redactions() - start
}

/// Replaces the secrets in the files' paths and symlink targets. Returns
/// whether any path changed, and the entries whose redacted path another
/// entry already records (original path to redacted path); their `path` is
/// left empty.
fn redact_files(files: &mut [FileState], secrets: &mut Redactor) -> (bool, HashMap<String, String>) {
    let mut seen = HashSet::new();
    let mut left_out: HashMap<String, String> = HashMap::new();
    let mut renamed = false;
    for state in files {
        let recorded = redact_path(&state.path, secrets);
        if let Some(target) = &state.symlink_target {
            let redacted = secrets.whole(target);
            state.symlink_target = Some(redacted);
        }
        if recorded != state.path {
            renamed = true;
        }
        if !seen.insert(recorded.clone()) {
            left_out.insert(std::mem::take(&mut state.path), recorded);
            continue;
        }
        state.path = recorded;
    }
    (renamed, left_out)
}

/// Leaves the colliding entries (see [`redact_files`]) out of the snapshot:
/// the snapshot is truncated, their roots incomplete, and each redacted path
/// is named once as a `redacted_name_collision` enumeration omission.
fn leave_out(snapshot: &mut Snapshot, left_out: &HashMap<String, String>) {
    let truncation = &mut snapshot.truncation;
    let gone = |s: &FileState| s.path.is_empty();
    let unhashed: u64 = snapshot.files.iter().filter(|s| gone(s) && s.sha256.is_some()).map(|s| s.size).sum();
    snapshot.files.retain(|s| !gone(s));
    truncation.bytes_hashed = truncation.bytes_hashed.saturating_sub(unhashed);
    truncation.hash_omissions.retain(|o| !left_out.contains_key(&o.path));
    truncation.entries = snapshot.files.len() as u64;
    truncation.truncated = true;
    let mut collided: Vec<&String> = left_out.values().collect();
    collided.sort_by(|a, b| walk_order(a, b));
    collided.dedup();
    for path in collided {
        let root = root_alias(path);
        for coverage in truncation.roots.iter_mut().filter(|c| c.root == root) {
            coverage.complete = false;
        }
        truncation.enumeration_omissions.push(EnumerationOmission {
            path: path.clone(),
            reason: EnumerationOmissionReason::RedactedNameCollision,
            system_code: None,
        });
    }
}

fn is_collision(omission: &EnumerationOmission) -> bool {
    omission.reason == EnumerationOmissionReason::RedactedNameCollision
}

/// `root_<i>:<relative>` with the secrets replaced in `<relative>` (the
/// alias is rea's own vocabulary, and the root itself, `.`, has no name).
fn redact_path(path: &str, secrets: &mut Redactor) -> String {
    match path.split_once(':') {
        Some((root, relative)) if relative != "." => format!("{root}:{}", secrets.whole(relative)),
        _ => path.to_owned(),
    }
}

fn root_alias(path: &str) -> &str {
    path.split_once(':').map_or(path, |(root, _)| root)
}

/// The snapshot walk's order on recorded paths: roots in alias order, then
/// depth-first pre-order with the children of a directory in UTF-16 order
/// (a path's components compared one by one, a parent before its children).
fn walk_order(a: &str, b: &str) -> Ordering {
    let index = |path: &str| root_alias(path).strip_prefix("root_").and_then(|i| i.parse::<u64>().ok());
    fn components(path: &str) -> impl Iterator<Item = &str> {
        let relative = path.split_once(':').map_or("", |(_, relative)| relative);
        relative.split('/').filter(|c| *c != "." && !c.is_empty())
    }
    index(a).cmp(&index(b)).then_with(|| {
        let (mut a, mut b) = (components(a), components(b));
        loop {
            match (a.next(), b.next()) {
                (Some(x), Some(y)) => match utf16_cmp(x, y) {
                    Ordering::Equal => {}
                    other => return other,
                },
                // A parent (the shorter path) comes before its children.
                (x, y) => return x.is_some().cmp(&y.is_some()),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evidence::{FileKind, FilesystemTruncation, HashOmission, HashOmissionReason, RootCoverage};

    const SECRET: &str = "s3cr3t-X";
    const OTHER: &str = "0ther-Yz";

    fn redactor() -> Redactor {
        let marker = || "<redacted-input:9-bytes>".to_owned();
        Secrets::new([(SECRET, marker()), (OTHER, marker())]).redactor()
    }

    fn state(path: &str, kind: FileKind, sha256: Option<&str>, target: Option<&str>) -> FileState {
        FileState {
            path: path.to_owned(),
            mode: 0o100644,
            size: 3,
            kind,
            sha256: sha256.map(str::to_owned),
            symlink_target: target.map(str::to_owned),
        }
    }

    fn file(path: &str) -> FileState {
        state(path, FileKind::File, Some("ab"), None)
    }

    fn snapshot(files: Vec<FileState>, hash_omissions: Vec<HashOmission>) -> Snapshot {
        let hashed = files.iter().filter(|f| f.sha256.is_some()).map(|f| f.size).sum();
        Snapshot {
            truncation: FilesystemTruncation {
                truncated: !hash_omissions.is_empty(),
                entry_limit: 1000,
                depth_limit: 64,
                entries: files.len() as u64,
                entry_limit_reached: false,
                depth_limit_reached: false,
                roots: vec![RootCoverage { root: "root_0".into(), complete: true }],
                enumeration_omissions: Vec::new(),
                file_bytes_budget: 1000,
                bytes_hashed: hashed,
                hash_omissions,
            },
            files,
        }
    }

    fn paths(s: &Snapshot) -> Vec<&str> {
        s.files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn names_and_targets_are_redacted_and_the_walk_order_follows_the_recorded_names() {
        let dir = state("root_0:a", FileKind::Directory, None, None);
        let mut s = snapshot(
            vec![
                state("root_0:.", FileKind::Directory, None, None),
                dir,
                file(&format!("root_0:a/{SECRET}.txt")),
                file("root_0:a/b"),
                state("root_0:link", FileKind::Symlink, None, Some(&format!("../{SECRET}/x"))),
            ],
            vec![HashOmission {
                path: format!("root_0:a/{SECRET}.txt"),
                size: 3,
                remaining_budget: 0,
                reason: HashOmissionReason::FileBytesBudget,
                system_code: None,
            }],
        );
        s.files[2].sha256 = None;
        assert_eq!(redact_snapshot(&mut s, &mut redactor()), 3);
        // `<` sorts before `b`: the renamed file moves before its sibling.
        assert_eq!(
            paths(&s),
            ["root_0:.", "root_0:a", "root_0:a/<redacted-input:9-bytes>.txt", "root_0:a/b", "root_0:link"]
        );
        assert_eq!(s.files[4].symlink_target.as_deref(), Some("../<redacted-input:9-bytes>/x"));
        assert_eq!(s.truncation.hash_omissions[0].path, "root_0:a/<redacted-input:9-bytes>.txt");
        assert!(s.truncation.roots[0].complete, "no entry was lost");
        let text = serde_json::to_string(&(&s.files, &s.truncation)).unwrap();
        assert!(!text.contains(SECRET), "{text}");
    }

    #[test]
    fn entries_whose_recorded_paths_collide_are_kept_once_and_their_root_is_incomplete() {
        let root = || state("root_0:.", FileKind::Directory, None, None);
        let mut s =
            snapshot(vec![root(), file(&format!("root_0:{OTHER}")), file(&format!("root_0:{SECRET}"))], Vec::new());
        let hashed = s.truncation.bytes_hashed;
        assert_eq!(redact_snapshot(&mut s, &mut redactor()), 2);
        assert_eq!(paths(&s), ["root_0:.", "root_0:<redacted-input:9-bytes>"]);
        let t = &s.truncation;
        assert_eq!(t.entries, 2);
        assert_eq!(t.bytes_hashed, hashed - 3, "the left-out file's bytes are not claimed");
        assert!(!t.roots[0].complete && t.truncated);
        assert_eq!(
            t.enumeration_omissions,
            [EnumerationOmission {
                path: "root_0:<redacted-input:9-bytes>".into(),
                reason: EnumerationOmissionReason::RedactedNameCollision,
                system_code: None
            }]
        );
        // The root no longer proves absence: a path gone from it is unknown, not deleted.
        let mut before = snapshot(vec![root(), file("root_0:gone")], Vec::new());
        redact_snapshot(&mut before, &mut redactor());
        let effects = crate::fs::effects(&before, &s);
        let gone = effects.iter().find(|e| e.path == "root_0:gone").expect("an effect for the gone path");
        assert_eq!(gone.status, crate::evidence::EffectStatus::Unknown, "{gone:?}");
    }

    #[test]
    fn a_snapshot_without_secrets_to_look_for_is_untouched() {
        let original = snapshot(vec![file(&format!("root_0:{SECRET}"))], Vec::new());
        let mut s = original.clone();
        assert_eq!(redact_snapshot(&mut s, &mut Secrets::default().redactor()), 0);
        assert_eq!(s, original);
    }

    #[test]
    fn walk_order_is_depth_first_with_utf16_children_and_numeric_roots() {
        let mut p = vec![
            "root_10:.",
            "root_2:b",
            "root_2:a/z",
            "root_2:a",
            "root_2:.",
            "root_2:a-b",
            "root_2:\u{ff61}",
            "root_2:\u{1f600}",
        ];
        p.sort_by(|a, b| walk_order(a, b));
        // Children of `a` come before its sibling `a-b`; U+1F600 (a surrogate
        // pair, 0xD83D) sorts before U+FF61 in UTF-16.
        assert_eq!(
            p,
            [
                "root_2:.",
                "root_2:a",
                "root_2:a/z",
                "root_2:a-b",
                "root_2:b",
                "root_2:\u{1f600}",
                "root_2:\u{ff61}",
                "root_10:."
            ]
        );
    }
}
