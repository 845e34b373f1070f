//! The common control sequences read without avt's character-by-character
//! parser: cursor moves (CUP, CUU, CUD, CUF, CUB, CHA, HPA, VPA), erases
//! (ED, EL) and graphic renditions made of plain codes (SGR), written as
//! `ESC [`, digits and semicolons, and the final byte, all in one piece of
//! text, met in the ground state.
//!
//! For those, avt's parser (a VT500 state machine) dispatches exactly the
//! [`Function`] built here: it enters CSI on `ESC [`, collects each
//! parameter as `n = (10 n + digit) as u16` (so a long number wraps as
//! here), and dispatches on the final byte with parameters defaulting to 0.
//! Anything else (a private marker, an intermediate, a colon, a control in
//! the middle, more than [`MAX_PARAMS`] parameters, an SGR code that takes
//! arguments such as 38 or 48, a sequence cut by the end of the text) is
//! left to avt's parser, so nothing here needs to know its other states.
//! `render/fast_forward_tests.rs` holds this to the parser on random
//! streams.

use avt::Color;
use avt::parser::{EdScope, ElScope, Function, SgrOp, SgrOps};

/// Most parameters read here; a longer sequence goes to avt's parser.
pub(crate) const MAX_PARAMS: usize = 16;

/// The function of the control sequence at the start of `bytes` and its
/// length, when it is one this module reads; `None` otherwise (avt's parser
/// then reads it).
pub(crate) fn parse(bytes: &[u8]) -> Option<(usize, Function)> {
    let [0x1b, b'[', rest @ ..] = bytes else { return None };
    let mut params = [0u16; MAX_PARAMS];
    let mut count = 1;
    for (i, &b) in rest.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                let p = &mut params[count - 1];
                *p = (10 * u32::from(*p) + u32::from(b - b'0')) as u16;
            }
            b';' if count < MAX_PARAMS => count += 1,
            b'@'..=b'~' => return dispatch(b, &params[..count]).map(|f| (i + 3, f)),
            _ => return None,
        }
    }
    None
}

/// The length of the control sequence at the start of `bytes` when it is
/// `ESC [`, digits and semicolons and a final byte among those this module
/// reads (`ABCDGHJKadfm` and the grave accent): a sequence that asks
/// nothing of the terminal, so the query scanner may pass over it whole.
pub(crate) fn inert_len(bytes: &[u8]) -> Option<usize> {
    let [0x1b, b'[', rest @ ..] = bytes else { return None };
    let params = rest.iter().position(|&b| !matches!(b, b'0'..=b'9' | b';'))?;
    matches!(rest[params], b'A'..=b'D' | b'G' | b'H' | b'J' | b'K' | b'a' | b'd' | b'f' | b'm' | b'`')
        .then_some(params + 3)
}

/// What avt's parser dispatches for final byte `final_byte` with `params`.
fn dispatch(final_byte: u8, params: &[u16]) -> Option<Function> {
    let p0 = params[0];
    let p1 = params.get(1).copied().unwrap_or(0);
    let function = match final_byte {
        b'A' => Function::Cuu(p0),
        b'B' => Function::Cud(p0),
        b'C' | b'a' => Function::Cuf(p0),
        b'D' => Function::Cub(p0),
        b'G' | b'`' => Function::Cha(p0),
        b'H' | b'f' => Function::Cup(p0, p1),
        b'd' => Function::Vpa(p0),
        b'J' => Function::Ed(match p0 {
            0 => EdScope::Below,
            1 => EdScope::Above,
            2 => EdScope::All,
            _ => return None,
        }),
        b'K' => Function::El(match p0 {
            0 => ElScope::ToRight,
            1 => ElScope::ToLeft,
            2 => ElScope::All,
            _ => return None,
        }),
        b'm' => return sgr(params).map(Function::Sgr),
        _ => return None,
    };
    Some(function)
}

/// The operations of an SGR whose codes take no arguments; `None` when one
/// does (38, 48 and the like: avt's parser reads those).
fn sgr(params: &[u16]) -> Option<SgrOps> {
    let mut ops = [SgrOp::Reset; MAX_PARAMS];
    let mut len = 0;
    for &code in params {
        if let Some(op) = sgr_op(code)? {
            ops[len] = op;
            len += 1;
        }
    }
    Some(SgrOps::from(&ops[..len]))
}

/// One SGR code as avt decodes it: `Some(None)` for a code it ignores,
/// `None` for a code that takes arguments.
fn sgr_op(code: u16) -> Option<Option<SgrOp>> {
    use SgrOp::*;
    let indexed = |base: u16, offset: u16| Color::Indexed((code - base + offset) as u8);
    let op = match code {
        0 => Reset,
        1 => SetBoldIntensity,
        2 => SetFaintIntensity,
        3 => SetItalic,
        4 => SetUnderline,
        5 => SetBlink,
        7 => SetInverse,
        8 => SetConceal,
        9 => SetStrikethrough,
        21 | 22 => ResetIntensity,
        23 => ResetItalic,
        24 => ResetUnderline,
        25 => ResetBlink,
        27 => ResetInverse,
        28 => ResetConceal,
        29 => ResetStrikethrough,
        30..=37 => SetForegroundColor(indexed(30, 0)),
        39 => ResetForegroundColor,
        40..=47 => SetBackgroundColor(indexed(40, 0)),
        49 => ResetBackgroundColor,
        90..=97 => SetForegroundColor(indexed(90, 8)),
        100..=107 => SetBackgroundColor(indexed(100, 8)),
        38 | 48 => return None,
        _ => return Some(None),
    };
    Some(Some(op))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What avt's own parser dispatches for `text`.
    fn avt(text: &str) -> Vec<Function> {
        let mut parser = avt::Parser::new();
        text.chars().filter_map(|c| parser.feed(c)).collect()
    }

    #[test]
    fn every_sequence_read_here_is_what_avt_dispatches() {
        let params = ["", "0", "1", "2", "3", "7", "12", "65535", "65536", "99999", "1;1", ";5", "5;", "2;3;4"];
        let sgr = [
            "1;31",
            "0;1;4;5;7;9",
            "21;22;23;24;25;27;28;29",
            "39;49",
            "90;97;100;107",
            "6;8;10;58;59",
            "0;1;2;3;4;5;6;7;8;9;10;11;12;13;14;15;16",
        ];
        let finals = "ABCDGHJKadfm`";
        let mut read = 0;
        for p in params.iter().chain(&sgr) {
            for f in finals.chars() {
                let text = format!("\x1b[{p}{f}");
                if let Some((len, function)) = parse(text.as_bytes()) {
                    assert_eq!(len, text.len(), "{text:?}");
                    assert_eq!(vec![function], avt(&text), "{text:?}");
                    read += 1;
                }
            }
        }
        assert!(read > 150, "{read} sequences read here");
    }

    #[test]
    fn anything_else_is_left_to_avts_parser() {
        for text in [
            "\x1b[",
            "\x1b[1",
            "\x1b[1;",
            "\x1b[?25h",
            "\x1b[>c",
            "\x1b[1:2m",
            "\x1b[38;5;1m",
            "\x1b[48;2;1;2;3m",
            "\x1b[4J",
            "\x1b[3J",
            "\x1b[3K",
            "\x1b[1 q",
            "\x1b[1\x08H",
            "\x1b(0",
            "\x1bc",
            "\x1b[6n",
            "\x1b[2;3r",
            "\x1b[0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;0;0m",
            "x\x1b[H",
        ] {
            assert_eq!(parse(text.as_bytes()).map(|(n, _)| n), None, "{text:?}");
        }
        assert_eq!(parse(b"\x1b[HX").map(|(n, _)| n), Some(3), "only the sequence is read");
    }

    #[test]
    fn inert_sequences_are_those_with_the_finals_read_here() {
        assert_eq!(inert_len(b"\x1b[12;3HX"), Some(7));
        assert_eq!(inert_len(b"\x1b[38;5;1m"), Some(9), "any parameters: nothing is asked");
        for text in
            ["\x1b[6n", "\x1b[c", "\x1b[0c", "\x1b[18t", "\x1b[?u", "\x1b[>c", "\x1b[1", "\x1b]11;?\x07", "\x1b[1:2m"]
        {
            assert_eq!(inert_len(text.as_bytes()), None, "{text:?}");
        }
    }
}
