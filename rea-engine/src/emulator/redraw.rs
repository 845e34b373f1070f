//! Redraws that a full clear hides: when nothing will ever show the
//! scrollback (no resize is scheduled, so the primary screen never reflows
//! it back into view), a program's full-screen redraws before the last
//! clear in a piece of text change nothing that can be seen after that
//! clear, except the pen. [`scan`] finds where to resume; the emulator
//! executes the pen's SGRs of the skipped part and everything from there.
//!
//! What may be skipped is only what changes cells, the cursor and the
//! scrollback: printable text (no zero-width character, joiner or stand-in,
//! which would touch the wrapper's state; no C1 control), CR and LF, and the
//! control sequences `csi.rs` reads (cursor moves, ED, EL, plain SGR). The
//! first anything else ends the scan (modes, margins, charsets, saved
//! cursors, tabs, other controls, OSC, a sequence cut short). The clear is
//! an absolute cursor position (CUP) next to an erase of the whole display
//! (ED 2), in either order, so the cursor is set by what is executed and the
//! erase covers every cell (in the program's pen, which the executed SGRs
//! restore). The proof and its limits are in docs/decisions.md, "Redraws
//! hidden by a full clear"; `redraw_tests.rs` holds the emulator with this
//! skip to the reference on random streams.

use avt::parser::{EdScope, Function, SgrOp, SgrOps};

use super::csi;

/// Where a piece of text may resume after skipping hidden redraws.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Skip {
    /// Where execution resumes: the start of the last clear before `stop`;
    /// 0 when there is none (nothing is skipped).
    pub(crate) resume: usize,
    /// Where the scan stopped: the first byte that is not a redraw's, or
    /// the end of the text.
    pub(crate) stop: usize,
    /// The SGRs before `resume` that decide the pen there, in order.
    pub(crate) pens: Vec<SgrOps>,
}

/// The previous token, for finding a CUP next to an ED 2.
#[derive(Clone, Copy)]
enum Last {
    Other,
    Cup(usize),
    Clear(usize),
}

/// Whether an SGR sets the pen from scratch (its first code is a reset), so
/// no earlier SGR matters.
fn resets(ops: &SgrOps) -> bool {
    matches!(ops.as_slice().first(), Some(SgrOp::Reset))
}

/// Scans `text` (from the ground state) for the last clear before the
/// first byte that is not a redraw's; `printable` says whether a non-ASCII
/// character may be skipped (the wrapper's own characters may not).
pub(crate) fn scan(text: &str, printable: impl Fn(char) -> bool) -> Skip {
    let bytes = text.as_bytes();
    let mut skip = Skip::default();
    let (mut at, mut last) = (0, Last::Other);
    // SGRs since the last clear found, and whether one of them resets.
    let (mut since, mut reset) = (Vec::new(), false);
    while at < bytes.len() {
        match bytes[at] {
            0x20..=0x7e | b'\r' | b'\n' => {
                at += 1;
                last = Last::Other;
            }
            0x1b => {
                let Some((len, function)) = csi::parse(&bytes[at..]) else { break };
                let clear = match (&function, last) {
                    (Function::Ed(EdScope::All), Last::Cup(start)) | (Function::Cup(..), Last::Clear(start)) => {
                        Some(start)
                    }
                    _ => None,
                };
                last = match function {
                    Function::Cup(..) => Last::Cup(at),
                    Function::Ed(EdScope::All) => Last::Clear(at),
                    Function::Sgr(ops) => {
                        if resets(&ops) {
                            since.clear();
                            reset = true;
                        }
                        since.push(ops);
                        Last::Other
                    }
                    _ => Last::Other,
                };
                if let Some(start) = clear {
                    skip.resume = start;
                    if std::mem::take(&mut reset) {
                        skip.pens.clear();
                    }
                    skip.pens.append(&mut since);
                }
                at += len;
            }
            0x80.. => {
                let Some(c) = text[at..].chars().next() else { break };
                if ('\u{80}'..='\u{9f}').contains(&c) || !printable(c) {
                    break;
                }
                at += c.len_utf8();
                last = Last::Other;
            }
            _ => break,
        }
    }
    skip.stop = at;
    skip
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(_: char) -> bool {
        true
    }

    #[test]
    fn the_last_clear_before_anything_else_is_where_to_resume() {
        let text =
            "\x1b[H\x1b[2Jone\x1b[31m\x1b[2J\x1b[Htwo\x1b[1mthree\x1b[0m\x1b[1;1H\x1b[2Jfour\x1b7five\x1b[H\x1b[2J";
        let skip = scan(text, any);
        assert_eq!(skip.resume, text.find("\x1b[1;1H\x1b[2Jfour").unwrap());
        assert_eq!(skip.stop, text.find("\x1b7").unwrap());
        // The reset in `\x1b[0m` makes every earlier SGR irrelevant.
        assert_eq!(skip.pens.len(), 1);
        assert!(resets(&skip.pens[0]));
    }

    #[test]
    fn without_a_reset_every_sgr_before_the_clear_is_kept_in_order() {
        let text = "\x1b[31mab\x1b[2J\x1b[H\x1b[1mcd\x1b[4m\x1b[H\x1b[2Jef\x1b[7m";
        let skip = scan(text, any);
        assert_eq!(skip.resume, text.find("\x1b[H\x1b[2Jef").unwrap());
        assert_eq!(skip.stop, text.len());
        assert_eq!(skip.pens.len(), 3, "{:?}", skip.pens);
    }

    #[test]
    fn nothing_is_skipped_without_a_clear_or_past_what_a_redraw_does_not_hold() {
        for text in ["plain\r\ntext\x1b[2J", "\x1b[2Jx\x1b[H", "\x1b[Hx\x1b[2J", "\x1b[2K\x1b[H"] {
            assert_eq!(scan(text, any).resume, 0, "{text:?}");
        }
        for (text, stop) in [("ab\tc", 2), ("a\x1b[?25l", 1), ("a\u{85}b", 1), ("a\x1b[38;5;1m", 1), ("a\u{301}", 1)] {
            let skip = scan(text, |c| c != '\u{301}');
            assert_eq!((skip.resume, skip.stop), (0, stop), "{text:?}");
        }
        let text = "\x1b[H\x1b[2Jx\x1b[?1049h\x1b[H\x1b[2J";
        assert_eq!(scan(text, any).resume, 0, "a clear after a mode change is not reached");
    }
}
