//! Secrets rebuilt on screen from pieces, kept out of the recorded stream.
//!
//! A program can draw a sensitive input on screen from pieces the stream
//! never shows together (`printf 'X%s\r%s\n' "${x:1}" "${x:0:1}"`): the
//! stream redactor ([`super::Redactor`]) cannot see it and the rendered
//! states are redacted ([`super::ScreenSecrets`]), but a replay of the
//! recorded chunks (the asciicast export, a reader's own terminal) would
//! draw it again. So before the record is written its chunks are replayed,
//! as it stores them, through the emulator, and the screen is searched for
//! the secrets after each chunk (each resize replayed where the journal
//! puts it). Both texts a replay can use are searched: `data`, and
//! `raw_data` where the chunk has it.
//!
//! Which chunks drew the secret's cells is read, once one shows, from a
//! second replay of the same stream, every printed character replaced by a
//! tag naming
//! its chunk (a code point of the private use planes 15 and 16, one cell
//! wide like the characters it stands for): the emulator moves a tag
//! exactly as it moves the character (scrolling, insertion, erasure), so
//! the cell's tag names the chunk that printed it. Those chunks and the one
//! after which the secret showed lose their text: `data` becomes the
//! secret's marker and `raw_data` goes. The replay then starts again,
//! until no chunk's end shows a secret; after [`MAX_ROUNDS`] rounds every
//! chunk is emptied, which no replay can draw from.

use std::collections::BTreeMap;

use super::Secrets;
use super::set::SecretSet;
use crate::emulator::Emulator;
use crate::emulator::cells::{avt_wide, is_zero_width};
use crate::evidence::Frame;

/// Replays after which, if a secret still shows, every chunk is emptied.
pub const MAX_ROUNDS: usize = 64;

/// One step of a replay, in the journal's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayStep {
    /// The chunk at this index of `frames`.
    Frame(usize),
    /// The terminal was resized.
    Resize {
        /// New width.
        columns: u16,
        /// New height.
        rows: u16,
    },
}

/// What was done to the chunks that rebuilt a secret on screen.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DroppedPieces {
    /// `sequence` of each chunk whose text was replaced, in order.
    pub replaced: Vec<u64>,
    /// Every chunk was emptied because [`MAX_ROUNDS`] replays did not clear it.
    pub emptied_all: bool,
}

impl DroppedPieces {
    /// Whether any chunk lost its text.
    pub fn is_empty(&self) -> bool {
        self.replaced.is_empty() && !self.emptied_all
    }
}

/// What a chunk became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    /// Its text is the marker of this secret.
    Marker(usize),
    /// Its text is empty (the markers themselves drew a secret).
    Empty,
}

/// A replay of the chunks: the terminal size at the start and the steps.
#[derive(Debug, Clone, Copy)]
pub struct Replay<'s> {
    /// Width at the start.
    pub columns: u16,
    /// Height at the start.
    pub rows: u16,
    /// The chunks and resizes in the journal's order.
    pub steps: &'s [ReplayStep],
}

/// A secret seen after a chunk: the chunk, the secret, and the chunks that
/// printed its cells (as far as the tags tell).
struct Rebuilt {
    after: usize,
    pattern: usize,
    drawn: Vec<usize>,
}

/// Which text of a chunk a replay uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Data,
    Raw,
}

impl View {
    fn text(self, frame: &Frame) -> &str {
        match self {
            View::Data => &frame.data,
            View::Raw => frame.raw_data.as_deref().unwrap_or(&frame.data),
        }
    }
}

impl Secrets {
    /// Replaces the text of every chunk of `frames` that helped draw a
    /// secret on the screen a replay of them shows (see the module
    /// documentation); returns what was replaced.
    pub fn drop_rebuilt_pieces(&self, frames: &mut [Frame], replay: Replay<'_>) -> DroppedPieces {
        let Some(set) = &self.inner else { return DroppedPieces::default() };
        let mut fates: BTreeMap<usize, Fate> = BTreeMap::new();
        for _ in 0..MAX_ROUNDS {
            let views: &[View] =
                if frames.iter().any(|f| f.raw_data.is_some()) { &[View::Data, View::Raw] } else { &[View::Data] };
            let Some(found) = views.iter().find_map(|&v| set.first_rebuilt(frames, replay, v)) else {
                return DroppedPieces {
                    replaced: fates.keys().map(|&i| frames[i].sequence).collect(),
                    emptied_all: false,
                };
            };
            apply(set, frames, &mut fates, &found);
        }
        for frame in frames.iter_mut() {
            empty(frame);
        }
        DroppedPieces { replaced: Vec::new(), emptied_all: true }
    }
}

/// Replaces the text of the chunks `found` names; chunks already replaced
/// by a marker are emptied when nothing new is left to replace.
fn apply(set: &SecretSet, frames: &mut [Frame], fates: &mut BTreeMap<usize, Fate>, found: &Rebuilt) {
    let mut named = found.drawn.clone();
    named.push(found.after);
    let fresh: Vec<usize> = named.iter().copied().filter(|i| !fates.contains_key(i)).collect();
    if fresh.is_empty() {
        for i in named {
            fates.insert(i, Fate::Empty);
            empty(&mut frames[i]);
        }
        return;
    }
    for i in fresh {
        fates.insert(i, Fate::Marker(found.pattern));
        frames[i].data = set.markers[found.pattern].clone();
        frames[i].raw_data = None;
        frames[i].invalid_utf8 = None;
    }
}

fn empty(frame: &mut Frame) {
    frame.data.clear();
    frame.raw_data = None;
    frame.invalid_utf8 = None;
}

impl SecretSet {
    /// Replays `frames` in `view`; the first chunk after which a secret shows.
    fn first_rebuilt(&self, frames: &[Frame], replay: Replay<'_>, view: View) -> Option<Rebuilt> {
        let mut real = Emulator::new(usize::from(replay.columns), usize::from(replay.rows), 0);
        // A resize reflows rows, which can join pieces: the next chunk's
        // end is searched whatever its text.
        let mut resized = false;
        for (at, step) in replay.steps.iter().enumerate() {
            match *step {
                ReplayStep::Resize { columns, rows } => {
                    real.resize(usize::from(columns), usize::from(rows));
                    resized = true;
                }
                ReplayStep::Frame(i) => {
                    let Some(frame) = frames.get(i) else { continue };
                    let text = view.text(frame);
                    real.feed(text);
                    if !std::mem::take(&mut resized) && !self.may_draw(text) {
                        continue;
                    }
                    if let Some((pattern, cells)) = self.on_screen(&real) {
                        // Only now is the tagged replay made (it cannot take
                        // the emulator's plain-text fast path).
                        let shadow = tagged_replay(frames, replay, view, &replay.steps[..=at]);
                        let drawn = cells.iter().filter_map(|&(row, column)| drawer(&shadow, row, column)).collect();
                        return Some(Rebuilt { after: i, pattern, drawn });
                    }
                }
            }
        }
        None
    }

    /// Whether `text` can make a secret appear: anything but line ends and
    /// printed characters that no secret holds can.
    fn may_draw(&self, text: &str) -> bool {
        text.chars().any(|c| {
            !matches!(c, '\r' | '\n') && (c < ' ' || is_zero_width(c) || self.secrets.iter().any(|s| s.contains(c)))
        })
    }

    /// The first secret the screen shows and the cells `(row, column)` it covers.
    fn on_screen(&self, emulator: &Emulator) -> Option<(usize, Vec<(usize, usize)>)> {
        let columns = emulator.terminal().size().0;
        let mut text = String::new();
        let mut cells: Vec<Option<(usize, usize)>> = Vec::new();
        let mut cell = String::new();
        for (row, line) in emulator.terminal().screen().visible_lines().enumerate() {
            let shown = line.cells();
            let end = shown.iter().rposition(|c| c.width() != 0 && c.char() != ' ').map_or(0, |i| i + 1);
            for (column, c) in shown[..end].iter().enumerate().filter(|(_, c)| c.width() != 0) {
                cell.clear();
                emulator.cell_text(c.char(), &mut cell);
                text.push_str(&cell);
                cells.extend(std::iter::repeat_n(Some((row, column)), cell.len()));
            }
            // A full row continues on the next; any other row ends there.
            if end < columns {
                text.push('\n');
                cells.push(None);
            }
        }
        let m = self.matcher.find(&text)?;
        let mut covered: Vec<(usize, usize)> = cells[m.start()..m.end()].iter().flatten().copied().collect();
        covered.dedup();
        Some((m.pattern().as_usize(), covered))
    }
}

/// The emulator after `steps` of `replay`, every printed character
/// replaced by its chunk's tag.
fn tagged_replay(frames: &[Frame], replay: Replay<'_>, view: View, steps: &[ReplayStep]) -> Emulator {
    let mut shadow = Emulator::new(usize::from(replay.columns), usize::from(replay.rows), 0);
    let mut tagger = Tagger::default();
    let mut tagged = String::new();
    for step in steps {
        match *step {
            ReplayStep::Resize { columns, rows } => shadow.resize(usize::from(columns), usize::from(rows)),
            ReplayStep::Frame(i) => {
                let Some(frame) = frames.get(i) else { continue };
                tagger.tag(view.text(frame), i, &mut tagged);
                shadow.feed(&tagged);
            }
        }
    }
    shadow
}

/// The chunk whose tag the shadow's cell at `(row, column)` holds.
fn drawer(shadow: &Emulator, row: usize, column: usize) -> Option<usize> {
    let line = shadow.terminal().screen().line(row)?;
    let c = line.cells().get(column)?.char();
    let mut text = String::new();
    shadow.cell_text(c, &mut text);
    untag(text.chars().next()?)
}

/// First code point of the tags: plane 15's private use area, then plane 16's.
const TAG_PLANE_15: u32 = 0xF0000;
const TAG_PLANE_16: u32 = 0x100000;
/// Tags per plane (U+xFFFE and U+xFFFF are not characters).
const TAGS_PER_PLANE: u32 = 0xFFFE;

fn tag(chunk: usize) -> Option<char> {
    let n = u32::try_from(chunk).ok()?;
    let code = if n < TAGS_PER_PLANE { TAG_PLANE_15 + n } else { TAG_PLANE_16 + n.checked_sub(TAGS_PER_PLANE)? };
    (code < TAG_PLANE_16 + TAGS_PER_PLANE).then(|| char::from_u32(code)).flatten()
}

fn untag(c: char) -> Option<usize> {
    let code = u32::from(c);
    let n = match code {
        _ if (TAG_PLANE_15..TAG_PLANE_15 + TAGS_PER_PLANE).contains(&code) => code - TAG_PLANE_15,
        _ if (TAG_PLANE_16..TAG_PLANE_16 + TAGS_PER_PLANE).contains(&code) => code - TAG_PLANE_16 + TAGS_PER_PLANE,
        _ => return None,
    };
    usize::try_from(n).ok()
}

/// Where the tagger is in the stream's escape sequences.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Within {
    /// Printed text.
    #[default]
    Ground,
    /// After ESC.
    Start,
    /// After ESC and intermediates (`ESC ( B`).
    Intermediate,
    /// A control sequence, to its final byte.
    Control,
    /// A string (OSC, DCS, SOS, PM, APC), to BEL or ST.
    String,
    /// ESC inside a string: `\` ends it.
    StringEscape,
}

/// Replaces the printed characters of a stream by their chunk's tag, the
/// escape sequences (split across chunks too) left as they are.
#[derive(Debug, Default)]
struct Tagger {
    state: Within,
}

impl Tagger {
    fn tag(&mut self, text: &str, chunk: usize, out: &mut String) {
        out.clear();
        let tag = tag(chunk);
        for c in text.chars() {
            let printed = self.step(c);
            match tag {
                // A wide character has no tag as wide: it keeps its text,
                // so its cells name no chunk (the replay then replaces the
                // chunk after which the secret showed).
                Some(t) if printed && !is_zero_width(c) && !avt_wide(c) => out.push(t),
                _ => out.push(c),
            }
        }
    }

    /// Moves over `c`; whether it is printed.
    fn step(&mut self, c: char) -> bool {
        use Within::{Control, Ground, Intermediate, Start, String, StringEscape};
        let (next, printed) = match (self.state, c) {
            (String, '\u{7}') | (StringEscape, '\\') => (Ground, false),
            (String, '\u{1b}') => (StringEscape, false),
            (String, _) => (String, false),
            (StringEscape, _) => (String, false),
            (_, '\u{1b}') => (Start, false),
            (_, '\u{18}' | '\u{1a}') => (Ground, false),
            (Start, '[') => (Control, false),
            (Start, ']' | 'P' | 'X' | '^' | '_') => (String, false),
            (Start | Intermediate, ' '..='/') => (Intermediate, false),
            (Start | Intermediate, _) => (Ground, false),
            (Control, '@'..='~') => (Ground, false),
            (Control, _) => (Control, false),
            (Ground, '\u{9b}') => (Control, false),
            (Ground, '\u{90}' | '\u{98}' | '\u{9d}' | '\u{9e}' | '\u{9f}') => (String, false),
            (Ground, _) => (Ground, c >= ' ' && c != '\u{7f}' && !('\u{80}'..='\u{9f}').contains(&c)),
        };
        self.state = next;
        printed
    }
}

#[cfg(test)]
#[path = "pieces_tests.rs"]
mod tests;
