//! The visible rows of a rendered state, kept compactly.
//!
//! A rendered state holds one string per terminal row, and most rows of a
//! tall terminal are empty. The rendered budget counts their text (an empty
//! row is free, as the specification asks), so a `Vec<String>` would cost
//! 24 bytes of string header per row that no budget sees: 100,000 retained
//! states of a 1000-row terminal would hold 2.4 GB of headers. [`ScreenLines`]
//! keeps the rows as one text and the end offset of each row, 4 bytes a row,
//! so what a capture holds in memory follows what its budget counts. In
//! Evidence it is the same array of strings as before.

use std::fmt;

use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The rows of a rendered state, in order (`rendered_frames[].lines`).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ScreenLines {
    /// Every row's text, one after another.
    text: String,
    /// Where each row ends in `text`.
    ends: Vec<u32>,
}

impl ScreenLines {
    /// No rows.
    pub fn new() -> ScreenLines {
        ScreenLines::default()
    }

    /// Appends a row.
    ///
    /// # Panics
    ///
    /// When the rows together would exceed 4 GiB, which a screen (at most
    /// 1,000,000 cells, each a character and its few combining marks) cannot
    /// reach.
    pub fn push(&mut self, row: &str) {
        self.text.push_str(row);
        self.ends.push(u32::try_from(self.text.len()).expect("a screen's rows hold less than 4 GiB of text"));
    }

    /// Gives back the room reserved beyond the rows held.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The row at `index`.
    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)? as usize;
        let start = index.checked_sub(1).map_or(0, |i| self.ends[i] as usize);
        Some(&self.text[start..end])
    }

    /// The rows, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// UTF-8 bytes of all rows together (what the rendered budget counts).
    pub fn text_bytes(&self) -> u64 {
        self.text.len() as u64
    }

    /// The rows as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_owned).collect()
    }
}

impl std::ops::Index<usize> for ScreenLines {
    type Output = str;

    fn index(&self, index: usize) -> &str {
        match self.get(index) {
            Some(row) => row,
            None => panic!("row {index} of a screen of {} rows", self.len()),
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for ScreenLines {
    fn from_iter<I: IntoIterator<Item = S>>(rows: I) -> ScreenLines {
        let rows = rows.into_iter();
        let mut lines = ScreenLines { text: String::new(), ends: Vec::with_capacity(rows.size_hint().0) };
        for row in rows {
            lines.push(row.as_ref());
        }
        lines.shrink_to_fit();
        lines
    }
}

impl<S: AsRef<str>> From<Vec<S>> for ScreenLines {
    fn from(rows: Vec<S>) -> ScreenLines {
        rows.iter().collect()
    }
}

impl<S: AsRef<str>, const N: usize> PartialEq<[S; N]> for ScreenLines {
    fn eq(&self, other: &[S; N]) -> bool {
        self.len() == N && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl<S: AsRef<str>> PartialEq<Vec<S>> for ScreenLines {
    fn eq(&self, other: &Vec<S>) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a == b.as_ref())
    }
}

impl fmt::Debug for ScreenLines {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for ScreenLines {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for row in self.iter() {
            seq.serialize_element(row)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for ScreenLines {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ScreenLines, D::Error> {
        struct Rows;
        impl<'de> Visitor<'de> for Rows {
            type Value = ScreenLines;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of strings")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ScreenLines, A::Error> {
                let mut lines = ScreenLines::new();
                while let Some(row) = seq.next_element::<String>()? {
                    lines.push(&row);
                }
                lines.shrink_to_fit();
                Ok(lines)
            }
        }
        deserializer.deserialize_seq(Rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_text_order_and_empty_rows() {
        let lines: ScreenLines = ["$ ls", "", "a  b", "", ""].into_iter().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines.get(0), Some("$ ls"));
        assert_eq!(&lines[2], "a  b");
        assert_eq!(lines.get(4), Some(""));
        assert_eq!(lines.get(5), None);
        assert_eq!(lines.iter().rev().nth(2), Some("a  b"));
        assert_eq!(lines.text_bytes(), 8);
        assert_eq!(lines, ["$ ls", "", "a  b", "", ""]);
        assert_ne!(lines, ["$ ls", "", "a  b", ""]);
        assert_eq!(format!("{lines:?}"), r#"["$ ls", "", "a  b", "", ""]"#);
    }

    #[test]
    fn in_json_it_is_an_array_of_strings() {
        let lines = ScreenLines::from(vec!["héllo", "", "\u{1b}[0m"]);
        let json = serde_json::to_string(&lines).unwrap();
        assert_eq!(json, r#"["héllo","","\u001b[0m"]"#);
        assert_eq!(serde_json::from_str::<ScreenLines>(&json).unwrap(), lines);
        assert_eq!(serde_json::from_str::<ScreenLines>("[]").unwrap(), ScreenLines::new());
        let err = serde_json::from_str::<ScreenLines>(r#"["a", 7]"#).unwrap_err().to_string();
        assert!(err.contains("invalid type: integer `7`, expected a string"), "{err}");
        let err = serde_json::from_str::<ScreenLines>(r#""a""#).unwrap_err().to_string();
        assert!(err.contains("expected a sequence of strings"), "{err}");
    }

    #[test]
    fn a_row_costs_four_bytes_beside_its_text() {
        let tall: ScreenLines = std::iter::repeat_n("", 1000).collect();
        assert_eq!(tall.len(), 1000);
        assert_eq!(tall.text.capacity(), 0);
        assert!(tall.ends.capacity() * std::mem::size_of::<u32>() <= 8 * 1024);
    }
}
