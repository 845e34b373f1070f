//! TOON output, written as it is encoded: any `Serialize` value (a typed
//! record, an envelope around one, a `serde_json::Value`) becomes the text
//! `toon_format::encode_default` makes of its JSON value, byte for byte,
//! without building that value or the whole text.
//!
//! TOON decides a form per value before its first line (`key[N]{a,b}:`
//! needs the length and, for a table, the fields), so each array or object
//! is read twice: once by [`shape`] to learn its shape, once to write it.
//! The value itself is only borrowed; memory stays at one table row.
//!
//! Object keys are written in the order the value serializes them; a value
//! that serializes one key twice (which `to_value` would collapse into one)
//! is not supported.

mod events;
mod shape;
mod text;

#[cfg(test)]
mod tests;

use std::io::{self, Write};

use serde::Serialize;

use events::{Node, Prim, Sink, Subtree};
use shape::{ArrayShape, Field, Shape, shape_of};

/// Lines nest at most this deep (the reference encoder's bound).
const MAX_DEPTH: usize = 256;

/// Why a value could not be written as TOON.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// The value's `Serialize` implementation failed, or produced something
    /// JSON cannot hold (a map key that is not a string, a 128-bit number
    /// out of range).
    #[error("the value could not be serialized: {0}")]
    Serialize(String),
    /// Writing the text failed.
    #[error("writing the TOON text failed: {0}")]
    Io(#[from] io::Error),
    /// The value nests deeper than TOON output allows.
    #[error("the value nests deeper than {MAX_DEPTH} levels, more than TOON output allows")]
    TooDeep,
    /// The value serialized differently the second time it was read.
    #[error("the value serialized differently when read a second time ({0})")]
    Unstable(&'static str),
}

impl crate::error::UserError for EncodeError {
    fn category(&self) -> crate::error::Category {
        crate::error::Category::ExecutionFailure
    }
    fn code(&self) -> &'static str {
        "internal_error"
    }
    fn remediation(&self) -> String {
        "Report this as a bug in rea, with the command that failed; `--json` prints the same document as JSON.".into()
    }
}

/// Writes `value` as TOON to `out`: the text `toon_format::encode_default`
/// makes of `serde_json::to_value(value)`, with no final newline.
pub fn write_toon<T: Serialize + ?Sized>(value: &T, out: &mut dyn Write) -> Result<(), EncodeError> {
    let mut out = Out { w: out, started: false };
    root(&mut out, &Node(value))
}

/// `value` as TOON text (see [`write_toon`]).
pub fn to_toon_string<T: Serialize + ?Sized>(value: &T) -> Result<String, EncodeError> {
    let mut text = Vec::new();
    write_toon(value, &mut text)?;
    String::from_utf8(text).map_err(|_| EncodeError::Unstable("the text is not UTF-8"))
}

/// Writes `value` as a TOON document (the text and a final newline, what
/// rea prints) through a 64 KiB buffer, and flushes.
pub fn write_toon_document<T: Serialize + ?Sized>(value: &T, out: impl Write) -> Result<(), EncodeError> {
    let mut out = io::BufWriter::with_capacity(64 * 1024, out);
    write_toon(value, &mut out)?;
    out.write_all(b"\n")?;
    out.flush()?;
    Ok(())
}

/// The text being written, line by line.
struct Out<'w> {
    w: &'w mut dyn Write,
    started: bool,
}

impl Out<'_> {
    /// Starts a line at `depth` (two spaces a level).
    fn line(&mut self, depth: usize) -> Result<(), EncodeError> {
        const SPACES: &[u8; 64] = &[b' '; 64];
        if self.started {
            self.w.write_all(b"\n")?;
        }
        self.started = true;
        let mut indent = depth * 2;
        while indent > 0 {
            let n = indent.min(SPACES.len());
            self.w.write_all(&SPACES[..n])?;
            indent -= n;
        }
        Ok(())
    }

    /// Starts a list item (`- `) at `depth`.
    fn item(&mut self, depth: usize) -> Result<(), EncodeError> {
        self.line(depth)?;
        self.raw("- ")
    }

    fn raw(&mut self, text: &str) -> Result<(), EncodeError> {
        Ok(self.w.write_all(text.as_bytes())?)
    }

    fn key(&mut self, key: &str) -> Result<(), EncodeError> {
        Ok(text::key(self.w, key)?)
    }

    /// `key[N]{fields}:`, `[N:]` for a keyed table.
    fn header(
        &mut self,
        key: Option<&str>,
        len: usize,
        fields: Option<&[Field]>,
        keyed: bool,
    ) -> Result<(), EncodeError> {
        if let Some(key) = key {
            self.key(key)?;
        }
        write!(self.w, "[{len}{}]", if keyed { ":" } else { "" })?;
        if let Some(fields) = fields {
            self.fields(fields)?;
        }
        self.raw(":")
    }

    fn fields(&mut self, fields: &[Field]) -> Result<(), EncodeError> {
        self.raw("{")?;
        for (at, field) in fields.iter().enumerate() {
            if at > 0 {
                self.raw(",")?;
            }
            self.key(&field.name)?;
            if let Some(children) = &field.children {
                self.fields(children)?;
            }
        }
        self.raw("}")
    }

    /// Writes the primitive `value` is.
    fn primitive(&mut self, value: &dyn Subtree) -> Result<(), EncodeError> {
        write_primitive(self.w, value, false)
    }
}

fn check_depth(depth: usize) -> Result<(), EncodeError> {
    if depth > MAX_DEPTH { Err(EncodeError::TooDeep) } else { Ok(()) }
}

fn root(out: &mut Out<'_>, value: &dyn Subtree) -> Result<(), EncodeError> {
    match shape_of(value)? {
        Shape::Array(array) => write_array(out, None, value, &array, 0),
        Shape::Object(object) => match &object.keyed {
            Some(fields) => write_keyed(out, None, value, object.len, fields, 0),
            None => write_fields(out, value, 0),
        },
        Shape::Primitive => {
            out.line(0)?;
            // A leading U+FEFF on line 1 would be read as a byte-order mark.
            write_primitive(out.w, value, true)
        }
    }
}

/// An object's entries as `key: value` lines at `depth`.
fn write_fields(out: &mut Out<'_>, value: &dyn Subtree, depth: usize) -> Result<(), EncodeError> {
    check_depth(depth)?;
    each_entry(value, &mut |key, child| write_pair(out, key, child, depth))
}

fn write_pair(out: &mut Out<'_>, key: &str, value: &dyn Subtree, depth: usize) -> Result<(), EncodeError> {
    match shape_of(value)? {
        Shape::Array(array) => write_array(out, Some(key), value, &array, depth),
        Shape::Object(object) => match &object.keyed {
            Some(fields) => write_keyed(out, Some(key), value, object.len, fields, depth),
            None => {
                out.line(depth)?;
                out.key(key)?;
                out.raw(":")?;
                if object.len > 0 { write_fields(out, value, depth + 1) } else { Ok(()) }
            }
        },
        Shape::Primitive => {
            out.line(depth)?;
            out.key(key)?;
            out.raw(": ")?;
            out.primitive(value)
        }
    }
}

/// An array in field position (`key` given) or at the root.
fn write_array(
    out: &mut Out<'_>,
    key: Option<&str>,
    value: &dyn Subtree,
    array: &ArrayShape,
    depth: usize,
) -> Result<(), EncodeError> {
    check_depth(depth)?;
    out.line(depth)?;
    if array.len == 0 {
        return match key {
            Some(key) => {
                out.key(key)?;
                out.raw(": []")
            }
            None => out.raw("[]"),
        };
    }
    if array.all_primitive {
        return write_inline(out, key, value, array.len);
    }
    if array.all_primitive_arrays {
        out.header(key, array.len, None, false)?;
        return each_element(value, &mut |item| {
            out.item(depth + 1)?;
            let len = array_len(item)?;
            write_inline(out, None, item, len)
        });
    }
    if let Some(fields) = &array.table {
        out.header(key, array.len, Some(fields), false)?;
        return write_rows(out, value, fields, depth + 1);
    }
    out.header(key, array.len, None, false)?;
    each_element(value, &mut |item| write_item(out, item, depth + 1))
}

/// `key[N]: a,b,c` (the line already started).
fn write_inline(out: &mut Out<'_>, key: Option<&str>, value: &dyn Subtree, len: usize) -> Result<(), EncodeError> {
    out.header(key, len, None, false)?;
    if len == 0 {
        return Ok(());
    }
    out.raw(" ")?;
    let mut first = true;
    each_element(value, &mut |item| {
        if !std::mem::take(&mut first) {
            out.raw(",")?;
        }
        out.primitive(item)
    })
}

fn array_len(value: &dyn Subtree) -> Result<usize, EncodeError> {
    match shape_of(value)? {
        Shape::Array(array) => Ok(array.len),
        Shape::Primitive | Shape::Object(_) => Err(EncodeError::Unstable("an array item is no longer an array")),
    }
}

/// One item of a list-form array (`- ...`) at `depth`.
fn write_item(out: &mut Out<'_>, value: &dyn Subtree, depth: usize) -> Result<(), EncodeError> {
    check_depth(depth)?;
    match shape_of(value)? {
        Shape::Array(array) => {
            out.item(depth)?;
            if array.all_primitive {
                return write_inline(out, None, value, array.len);
            }
            // A table is not available here (§9.4): items nest as a list.
            out.header(None, array.len, None, false)?;
            each_element(value, &mut |item| write_item(out, item, depth + 1))
        }
        Shape::Object(object) if object.len == 0 => {
            out.line(depth)?;
            out.raw("-")
        }
        Shape::Object(_) => {
            let mut first = true;
            each_entry(value, &mut |key, child| {
                if std::mem::take(&mut first) {
                    write_first_field(out, key, child, depth)
                } else {
                    write_pair(out, key, child, depth + 1)
                }
            })
        }
        Shape::Primitive => {
            out.item(depth)?;
            out.primitive(value)
        }
    }
}

/// The first field of an object list item, on the hyphen line (§10).
fn write_first_field(out: &mut Out<'_>, key: &str, value: &dyn Subtree, depth: usize) -> Result<(), EncodeError> {
    out.item(depth)?;
    match shape_of(value)? {
        Shape::Array(ArrayShape { table: Some(fields), len, .. }) => {
            out.header(Some(key), len, Some(&fields), false)?;
            write_rows(out, value, &fields, depth + 2)
        }
        Shape::Array(array) if array.len == 0 => {
            out.key(key)?;
            out.raw(": []")
        }
        Shape::Array(array) => {
            out.key(key)?;
            if array.all_primitive {
                return write_inline(out, None, value, array.len);
            }
            out.header(None, array.len, None, false)?;
            each_element(value, &mut |item| write_item(out, item, depth + 2))
        }
        Shape::Object(shape::ObjectShape { keyed: Some(fields), len }) => {
            out.header(Some(key), len, Some(&fields), true)?;
            write_keyed_rows(out, value, &fields, depth + 2)
        }
        Shape::Object(object) => {
            out.key(key)?;
            out.raw(":")?;
            if object.len > 0 { write_fields(out, value, depth + 2) } else { Ok(()) }
        }
        Shape::Primitive => {
            out.key(key)?;
            out.raw(": ")?;
            out.primitive(value)
        }
    }
}

fn write_keyed(
    out: &mut Out<'_>,
    key: Option<&str>,
    value: &dyn Subtree,
    len: usize,
    fields: &[Field],
    depth: usize,
) -> Result<(), EncodeError> {
    out.line(depth)?;
    out.header(key, len, Some(fields), true)?;
    write_keyed_rows(out, value, fields, depth + 1)
}

/// A keyed table's rows: `key: cells`.
fn write_keyed_rows(out: &mut Out<'_>, value: &dyn Subtree, fields: &[Field], depth: usize) -> Result<(), EncodeError> {
    each_entry(value, &mut |key, row| {
        out.line(depth)?;
        out.key(key)?;
        out.raw(": ")?;
        write_cells(out, row, fields)
    })
}

/// A table's rows: the cells of each item.
fn write_rows(out: &mut Out<'_>, value: &dyn Subtree, fields: &[Field], depth: usize) -> Result<(), EncodeError> {
    each_element(value, &mut |row| {
        out.line(depth)?;
        write_cells(out, row, fields)
    })
}

/// One row's leaf cells in the header's order. Cells that arrive in that
/// order are written at once; others wait until their turn.
fn write_cells(out: &mut Out<'_>, row: &dyn Subtree, fields: &[Field]) -> Result<(), EncodeError> {
    let total = fields.iter().map(|f| f.leaves).sum();
    let mut cells = Cells { out, next: 0, waiting: Vec::new(), total };
    cells.collect(row, fields, 0)?;
    if cells.next == total { Ok(()) } else { Err(EncodeError::Unstable("a table row lost a cell")) }
}

struct Cells<'o, 'w> {
    out: &'o mut Out<'w>,
    /// The next cell to write.
    next: usize,
    /// Cells that came before their turn, by index.
    waiting: Vec<Option<Vec<u8>>>,
    total: usize,
}

impl Cells<'_, '_> {
    fn collect(&mut self, value: &dyn Subtree, fields: &[Field], base: usize) -> Result<(), EncodeError> {
        each_entry(value, &mut |key, child| {
            let mut offset = base;
            let mut found = None;
            for field in fields {
                if field.name == key {
                    found = Some(field);
                    break;
                }
                offset += field.leaves;
            }
            let Some(field) = found else {
                return Err(EncodeError::Unstable("a table row has a key its header lacks"));
            };
            match &field.children {
                Some(children) => self.collect(child, children, offset),
                None => self.cell(offset, child),
            }
        })
    }

    fn cell(&mut self, index: usize, value: &dyn Subtree) -> Result<(), EncodeError> {
        if index != self.next {
            let mut text = Vec::new();
            write_primitive(&mut text, value, false)?;
            self.waiting.resize(self.total, None);
            self.waiting[index] = Some(text);
            return Ok(());
        }
        if index > 0 {
            self.out.raw(",")?;
        }
        self.out.primitive(value)?;
        self.next += 1;
        while let Some(text) = self.waiting.get_mut(self.next).and_then(Option::take) {
            self.out.raw(",")?;
            self.out.w.write_all(&text)?;
            self.next += 1;
        }
        Ok(())
    }
}

/// Writes the primitive `value` is; `root` quotes a string that starts
/// with U+FEFF.
fn write_primitive(out: &mut dyn Write, value: &dyn Subtree, root: bool) -> Result<(), EncodeError> {
    struct Primitive<'w> {
        out: &'w mut dyn Write,
        root: bool,
        written: bool,
    }
    impl Sink for Primitive<'_> {
        fn primitive(&mut self, value: Prim<'_>) -> Result<(), EncodeError> {
            self.written = true;
            match value {
                Prim::Str(s) if self.root && s.starts_with('\u{FEFF}') => Ok(text::quoted(self.out, s)?),
                value => Ok(text::primitive(self.out, value)?),
            }
        }
        fn begin_seq(&mut self) -> Result<(), EncodeError> {
            Err(EncodeError::Unstable("a primitive became an array"))
        }
        fn element(&mut self, _: &dyn Subtree) -> Result<(), EncodeError> {
            Err(EncodeError::Unstable("a primitive became an array"))
        }
        fn begin_map(&mut self) -> Result<(), EncodeError> {
            Err(EncodeError::Unstable("a primitive became an object"))
        }
        fn entry(&mut self, _: &str, _: &dyn Subtree) -> Result<(), EncodeError> {
            Err(EncodeError::Unstable("a primitive became an object"))
        }
        fn end(&mut self) -> Result<(), EncodeError> {
            Ok(())
        }
    }
    let mut sink = Primitive { out, root, written: false };
    value.replay(&mut sink)?;
    if sink.written { Ok(()) } else { Err(EncodeError::Unstable("a primitive produced no content")) }
}

type EachElement<'f> = &'f mut dyn FnMut(&dyn Subtree) -> Result<(), EncodeError>;
type EachEntry<'f> = &'f mut dyn FnMut(&str, &dyn Subtree) -> Result<(), EncodeError>;

/// Calls `f` on each item of the array `value` is.
fn each_element(value: &dyn Subtree, f: EachElement<'_>) -> Result<(), EncodeError> {
    value.replay(&mut Children { element: Some(f), entry: None })
}

/// Calls `f` on each entry of the object `value` is.
fn each_entry(value: &dyn Subtree, f: EachEntry<'_>) -> Result<(), EncodeError> {
    value.replay(&mut Children { element: None, entry: Some(f) })
}

/// Hands an array's items or an object's entries to a callback.
struct Children<'f> {
    element: Option<EachElement<'f>>,
    entry: Option<EachEntry<'f>>,
}

impl Sink for Children<'_> {
    fn primitive(&mut self, _: Prim<'_>) -> Result<(), EncodeError> {
        Err(EncodeError::Unstable("an array or object became a primitive"))
    }
    fn begin_seq(&mut self) -> Result<(), EncodeError> {
        if self.element.is_some() { Ok(()) } else { Err(EncodeError::Unstable("an object became an array")) }
    }
    fn element(&mut self, item: &dyn Subtree) -> Result<(), EncodeError> {
        match &mut self.element {
            Some(f) => f(item),
            None => Err(EncodeError::Unstable("an object became an array")),
        }
    }
    fn begin_map(&mut self) -> Result<(), EncodeError> {
        if self.entry.is_some() { Ok(()) } else { Err(EncodeError::Unstable("an array became an object")) }
    }
    fn entry(&mut self, key: &str, value: &dyn Subtree) -> Result<(), EncodeError> {
        match &mut self.entry {
            Some(f) => f(key, value),
            None => Err(EncodeError::Unstable("an array became an object")),
        }
    }
    fn end(&mut self) -> Result<(), EncodeError> {
        Ok(())
    }
}
