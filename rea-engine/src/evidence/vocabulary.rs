//! Closed vocabularies of the records: each is an enum serialized as the
//! string the format has always used, so an unknown value is refused on
//! import (naming its JSON path) and every `match` is checked for
//! completeness.

/// A string that is not one of a vocabulary's values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{value:?} is not one of {}", .allowed.join(", "))]
pub struct UnknownValue {
    /// The string.
    pub value: String,
    /// The vocabulary.
    pub allowed: &'static [&'static str],
}

macro_rules! vocabulary {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $text)] $variant,)+
        }

        impl $name {
            /// Every value, in the order of the format's documentation.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The value as written in Evidence.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::evidence::UnknownValue;

            fn from_str(text: &str) -> Result<$name, $crate::evidence::UnknownValue> {
                match text {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::evidence::UnknownValue {
                        value: text.to_owned(),
                        allowed: &[$($text,)+],
                    }),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// The macro, for the closed vocabularies of other records (the comparison's).
pub(crate) use vocabulary;

vocabulary! {
    /// Which screen buffer a rendered state shows (`rendered_frames[].active_buffer`).
    ActiveBuffer {
        /// The normal screen.
        Normal = "normal",
        /// The alternate screen.
        Alternate = "alternate",
    }
}

vocabulary! {
    /// The kind of a scheduled interaction (`interaction_events[].type`).
    InteractionKind {
        /// Text written to the terminal.
        Input = "input",
        /// A terminal size change.
        Resize = "resize",
        /// A signal sent to the launched process.
        Signal = "signal",
        /// rea's answer to a query the program sent to its terminal.
        TerminalReply = "terminal_reply",
    }
}

vocabulary! {
    /// The query a `terminal_reply` answers (`interaction_events[].query`).
    TerminalQuery {
        /// Device status report, `CSI 5 n`.
        StatusReport = "status_report",
        /// Cursor position report, `CSI 6 n`.
        CursorPosition = "cursor_position",
        /// Extended cursor position report (DECXCPR), `CSI ? 6 n`.
        ExtendedCursorPosition = "extended_cursor_position",
        /// Primary device attributes, `CSI c` or `CSI 0 c`.
        PrimaryDeviceAttributes = "primary_device_attributes",
        /// Secondary device attributes, `CSI > c` or `CSI > 0 c`.
        SecondaryDeviceAttributes = "secondary_device_attributes",
        /// The terminal's name and version (XTVERSION), `CSI > q` or `CSI > 0 q`.
        TerminalVersion = "terminal_version",
        /// The default foreground colour, `OSC 10 ; ?`.
        ForegroundColor = "foreground_color",
        /// The default background colour, `OSC 11 ; ?`.
        BackgroundColor = "background_color",
        /// Palette colours, `OSC 4 ; n ; ?`.
        PaletteColor = "palette_color",
        /// The kitty keyboard protocol's current flags, `CSI ? u`.
        KittyKeyboardFlags = "kitty_keyboard_flags",
        /// Whether the window is iconified, `CSI 11 t`.
        WindowState = "window_state",
        /// The text area's size in characters, `CSI 18 t`.
        TextAreaSize = "text_area_size",
        /// The screen's size in characters, `CSI 19 t`.
        ScreenSize = "screen_size",
    }
}

vocabulary! {
    /// What became of a scheduled interaction (`interaction_events[].outcome`).
    InteractionOutcome {
        /// Delivered.
        Dispatched = "dispatched",
        /// Not delivered: the launched process had ended.
        TargetExited = "target_exited",
        /// Delivery failed (see `reason`).
        Failed = "failed",
        /// Not delivered: the condition it waited for did not hold in time.
        WaitTimedOut = "wait_timed_out",
        /// Not delivered: an earlier event's wait timed out, so the script stopped.
        NotDispatched = "not_dispatched",
    }
}

vocabulary! {
    /// What started the end of the run (`exit.reason`).
    ExitReason {
        /// The launched process exited on its own (or on a scripted signal).
        Exited = "exited",
        /// `timeout_ms` passed.
        Timeout = "timeout",
        /// `idle_timeout_ms` passed without output.
        IdleTimeout = "idle_timeout",
    }
}

vocabulary! {
    /// A finalization signal (`exit.finalization.signals[].signal`).
    FinalizationSignal {
        /// The polite request, sent first.
        #[allow(clippy::upper_case_acronyms, reason = "the signal's own name")]
        SIGTERM = "SIGTERM",
        /// The forced end, sent when `finalization_ms` passed.
        #[allow(clippy::upper_case_acronyms, reason = "the signal's own name")]
        SIGKILL = "SIGKILL",
    }
}

vocabulary! {
    /// How a signal attempt ended (`exit.finalization.signals[].delivery`).
    SignalDelivery {
        /// Delivered to the verified process.
        Signaled = "signaled",
        /// The process was already gone.
        Gone = "gone",
        /// The PID now names another process; nothing was sent.
        IdentityChanged = "identity-changed",
        /// Ownership could not be verified; nothing was sent.
        Unverified = "unverified",
    }
}

vocabulary! {
    /// What the process group did after the exit (`settlement.state`).
    SettlementState {
        /// No owned process remained.
        Quiesced = "quiesced",
        /// Owned processes were still alive at `settle_ms`.
        AliveAtDeadline = "alive_at_deadline",
        /// The group could not be observed.
        Unverifiable = "unverifiable",
    }
}

vocabulary! {
    /// Whether settlement needed cleanup (`settlement.cleanup_outcome`).
    CleanupOutcome {
        /// Nothing was left to clean up (with `quiesced`).
        NotRequired = "not_required",
        /// What remained was cleaned up.
        Cleaned = "cleaned",
        /// Cleanup failed.
        Failed = "failed",
    }
}

impl SettlementState {
    /// The cleanup outcomes a record may pair with this state.
    pub fn allowed_outcomes(self) -> &'static [CleanupOutcome] {
        match self {
            SettlementState::Quiesced => &[CleanupOutcome::NotRequired],
            SettlementState::AliveAtDeadline | SettlementState::Unverifiable => {
                &[CleanupOutcome::Cleaned, CleanupOutcome::Failed]
            }
        }
    }
}

vocabulary! {
    /// A journaled collection (`event_journal[].collection`).
    JournalCollection {
        /// `frames`.
        Frames = "frames",
        /// `rendered_frames`.
        RenderedFrames = "rendered_frames",
        /// `interaction_events`.
        InteractionEvents = "interaction_events",
        /// The exit (index 0) and the settlement (index 1).
        Lifecycle = "lifecycle",
        /// `process_samples`.
        ProcessSamples = "process_samples",
    }
}

vocabulary! {
    /// The type of an observed filesystem entry (`files_*[].type`).
    FileKind {
        /// A regular file.
        File = "file",
        /// A directory.
        Directory = "directory",
        /// A symbolic link.
        Symlink = "symlink",
        /// Anything else (socket, FIFO, device).
        Other = "other",
    }
}

vocabulary! {
    /// The effect of the run on one path (`filesystem_effects[].status`).
    EffectStatus {
        /// Absent before, present after.
        Created = "created",
        /// Present before, absent after.
        Deleted = "deleted",
        /// Present in both with different state.
        Modified = "modified",
        /// Present in both with the same state.
        Unchanged = "unchanged",
        /// Not fully observed (see `reason`).
        Unknown = "unknown",
    }
}

vocabulary! {
    /// A dimension not fully observed (`residual_unknowns[].scope`).
    ResidualScope {
        /// Terminal output.
        Terminal = "terminal",
        /// Scheduled interactions.
        Interaction = "interaction",
        /// The launched process's exit.
        Exit = "exit",
        /// The process tree.
        Process = "process",
        /// The observed files.
        Filesystem = "filesystem",
        /// Owned-resource cleanup.
        Cleanup = "cleanup",
        /// Network access.
        Network = "network",
    }
}

vocabulary! {
    /// How process observation covered the run (`truncation_details.process.coverage`).
    ProcessCoverage {
        /// Periodic samples of the process table.
        Sampled = "sampled",
        /// Every fork, exec and exit, observed as it happened.
        Exact = "exact",
        /// Every fork, exec and exit was journaled, but what some process
        /// exec'd could not be read (it died at once): those rows'
        /// `command` is null, and a residual unknown names each.
        ExactIncomplete = "exact_incomplete",
    }
}

vocabulary! {
    /// What cleanup proved about the owned processes (`cleanup.owned_process_group`).
    OwnedGroupOutcome {
        /// No owned process remained after cleanup.
        Verified = "verified",
    }
}

vocabulary! {
    /// The terminal renderer after the run (`cleanup.terminal_renderer`).
    RendererOutcome {
        /// Written by builds without a terminal renderer (read back, never
        /// written by this build).
        NotRequired = "not_required",
        /// The renderer's thread finished and was joined.
        Disposed = "disposed",
        /// The renderer's thread panicked; its states are lost.
        Failed = "failed",
    }
}

vocabulary! {
    /// The private temporary root after the run (`cleanup.temporary_root`).
    TemporaryRootOutcome {
        /// Deleted.
        Removed = "removed",
        /// Deleting it failed.
        RemoveFailed = "remove_failed",
    }
}

vocabulary! {
    /// How signals reached verified processes (`cleanup.signal_mechanism`).
    SignalMechanism {
        /// A pidfd opened before the identity check (`pidfd_send_signal`).
        Pidfd = "pidfd",
        /// The identity checked, then the PID signalled (no pidfd on this host).
        CheckedKill = "checked-kill",
    }
}

vocabulary! {
    /// Why an observed entry was left out of a snapshot
    /// (`truncation_details.filesystem_*.enumeration_omissions[].reason`).
    EnumerationOmissionReason {
        /// A read failed after the entry's metadata was observed.
        EntryUnavailable = "entry_unavailable",
        /// The entry was replaced by another object while it was read.
        IdentityChanged = "identity_changed",
        /// At the directory holding a name that is not valid Unicode.
        UnrepresentableName = "unrepresentable_name",
        /// At a symlink whose target is not valid Unicode.
        UnrepresentableSymlinkTarget = "unrepresentable_symlink_target",
        /// At a path that two entries share once the sensitive inputs' text
        /// is replaced in their names; the first in walk order is kept.
        RedactedNameCollision = "redacted_name_collision",
    }
}

vocabulary! {
    /// Why a retained regular file has no digest
    /// (`truncation_details.filesystem_*.hash_omissions[].reason`).
    HashOmissionReason {
        /// The remaining `file_bytes` budget was smaller than the file.
        FileBytesBudget = "file_bytes_budget",
        /// The file changed while it was hashed, or read short.
        FileChangedOrShortRead = "file_changed_or_short_read",
        /// Opening or reading the file failed.
        FileUnavailable = "file_unavailable",
        /// Only in the partial observation of a stopped snapshot: hashing
        /// stopped before this file was decided.
        Interrupted = "interrupted",
    }
}

vocabulary! {
    /// Why a filesystem effect is `unknown` (`filesystem_effects[].reason`).
    EffectUnknownReason {
        /// Absent before, but the before snapshot did not exhaust its root.
        BeforeEnumerationIncomplete = "before_enumeration_incomplete",
        /// Absent after, but the after snapshot did not exhaust its root.
        AfterEnumerationIncomplete = "after_enumeration_incomplete",
        /// Absent before, below a symlink that was not followed.
        BeforeBelowUnfollowedSymlink = "before_below_unfollowed_symlink",
        /// Absent after, below a symlink that was not followed.
        AfterBelowUnfollowedSymlink = "after_below_unfollowed_symlink",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_serialize_as_their_strings_and_unknown_strings_are_refused() {
        for v in SignalDelivery::ALL {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
            assert_eq!(serde_json::from_value::<SignalDelivery>(v.as_str().into()).unwrap(), *v);
        }
        assert_eq!(ExitReason::IdleTimeout.to_string(), "idle_timeout");
        assert_eq!("idle_timeout".parse::<ExitReason>(), Ok(ExitReason::IdleTimeout));
        let unknown = "crashed".parse::<ExitReason>().unwrap_err().to_string();
        assert_eq!(unknown, "\"crashed\" is not one of exited, timeout, idle_timeout");
        let err = serde_json::from_value::<ExitReason>("crashed".into()).unwrap_err().to_string();
        assert!(err.contains("unknown variant `crashed`"), "{err}");
    }
}
