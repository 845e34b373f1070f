//! Classification of paths between two snapshots.

use std::collections::{HashMap, HashSet};

use super::snapshot::{Snapshot, utf16_cmp};
use crate::evidence::{EffectStatus, EffectUnknownReason, FileEffect, FileKind, FileState};

/// Classifies every path seen in either snapshot, sorted by UTF-16 code units.
///
/// A path on both sides is `unchanged` when its whole state is equal and
/// `modified` otherwise. A path on one side only is `created` or `deleted`
/// only when the other side proves the absence: that side exhausted the
/// enumeration of the path's root, and no ancestor of the path was an
/// unfollowed symlink there. Otherwise it is `unknown`, with `null` for the
/// unobserved side and a reason. A missing digest never makes absence unknown,
/// and an incomplete root leaves the effects in other roots as they are.
pub fn effects(before: &Snapshot, after: &Snapshot) -> Vec<FileEffect> {
    let before_side = Side::new(before);
    let after_side = Side::new(after);
    let mut paths: Vec<&str> = before_side.states.keys().chain(after_side.states.keys()).copied().collect();
    paths.sort_by(|a, b| utf16_cmp(a, b));
    paths.dedup();
    let mut effects = Vec::with_capacity(paths.len());
    for path in paths {
        let was = before_side.states.get(path).copied();
        let is = after_side.states.get(path).copied();
        let (status, reason) = match (was, is) {
            (Some(was), Some(is)) => (if was == is { EffectStatus::Unchanged } else { EffectStatus::Modified }, None),
            (None, _) => match before_side.unproven_absence(path) {
                None => (EffectStatus::Created, None),
                Some(Unproven::Incomplete) => {
                    (EffectStatus::Unknown, Some(EffectUnknownReason::BeforeEnumerationIncomplete))
                }
                Some(Unproven::BelowSymlink) => {
                    (EffectStatus::Unknown, Some(EffectUnknownReason::BeforeBelowUnfollowedSymlink))
                }
            },
            (_, None) => match after_side.unproven_absence(path) {
                None => (EffectStatus::Deleted, None),
                Some(Unproven::Incomplete) => {
                    (EffectStatus::Unknown, Some(EffectUnknownReason::AfterEnumerationIncomplete))
                }
                Some(Unproven::BelowSymlink) => {
                    (EffectStatus::Unknown, Some(EffectUnknownReason::AfterBelowUnfollowedSymlink))
                }
            },
        };
        effects.push(FileEffect { path: path.to_owned(), status, before: was.cloned(), after: is.cloned(), reason });
    }
    effects
}

/// Why a snapshot cannot prove that a path was absent.
enum Unproven {
    Incomplete,
    BelowSymlink,
}

/// One snapshot, indexed for lookups.
struct Side<'a> {
    states: HashMap<&'a str, &'a FileState>,
    complete_roots: HashSet<&'a str>,
    symlinks: HashSet<&'a str>,
}

impl<'a> Side<'a> {
    fn new(snapshot: &'a Snapshot) -> Side<'a> {
        Side {
            states: snapshot.files.iter().map(|state| (state.path.as_str(), state)).collect(),
            complete_roots: snapshot
                .truncation
                .roots
                .iter()
                .filter(|root| root.complete)
                .map(|root| root.root.as_str())
                .collect(),
            symlinks: snapshot
                .files
                .iter()
                .filter(|state| state.kind == FileKind::Symlink)
                .map(|state| state.path.as_str())
                .collect(),
        }
    }

    /// Why this snapshot's lack of `path` does not prove the path absent.
    fn unproven_absence(&self, path: &str) -> Option<Unproven> {
        let Some((root, relative)) = path.split_once(':') else { return Some(Unproven::Incomplete) };
        if !self.complete_roots.contains(root) {
            return Some(Unproven::Incomplete);
        }
        if relative == "." {
            return None;
        }
        let below_symlink = std::iter::once(".")
            .chain(relative.match_indices('/').map(|(end, _)| &relative[..end]))
            .any(|ancestor| self.symlinks.contains(format!("{root}:{ancestor}").as_str()));
        below_symlink.then_some(Unproven::BelowSymlink)
    }
}
