//! What TOON must know of a value before writing its first line (§9): an
//! array's length, whether its items are all primitives, all arrays of
//! primitives, or objects uniform enough for a table (and the table's
//! fields); an object's size and whether it is a keyed table (§9.5).
//!
//! A shape is learnt by reading the value once through [`Sink`] events,
//! descending only as far as the decision needs (into objects, for table
//! columns; one level into arrays): no text and no tree is built.

use super::EncodeError;
use super::events::{Prim, Sink, Subtree};

/// Field groups nest at most this deep in a table header.
const MAX_FIELD_DEPTH: usize = 256;

/// One column of a table header: a leaf, or a field group (`name{a,b}`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Field {
    pub(super) name: String,
    pub(super) children: Option<Vec<Field>>,
    /// The leaf cells this field holds (1 for a leaf).
    pub(super) leaves: usize,
}

/// The shape of one value.
#[derive(Debug)]
pub(super) enum Shape {
    Primitive,
    Array(ArrayShape),
    Object(ObjectShape),
}

#[derive(Debug)]
pub(super) struct ArrayShape {
    pub(super) len: usize,
    /// Every item a primitive (true when empty).
    pub(super) all_primitive: bool,
    /// Every item an array whose items are all primitives.
    pub(super) all_primitive_arrays: bool,
    /// The table's fields, when every item is an object and they are uniform.
    pub(super) table: Option<Vec<Field>>,
}

#[derive(Debug)]
pub(super) struct ObjectShape {
    pub(super) len: usize,
    /// The keyed table's fields: two entries or more, each a non-empty
    /// object, uniform.
    pub(super) keyed: Option<Vec<Field>>,
}

/// Reads `value` once and says its shape.
pub(super) fn shape_of(value: &dyn Subtree) -> Result<Shape, EncodeError> {
    let mut probe = ShapeProbe::Unread;
    value.replay(&mut probe)?;
    match probe {
        ShapeProbe::Unread => Err(EncodeError::Unstable("a value produced no content")),
        ShapeProbe::Primitive => Ok(Shape::Primitive),
        ShapeProbe::Array { len, all_primitive, all_primitive_arrays, table } => {
            Ok(Shape::Array(ArrayShape { len, all_primitive, all_primitive_arrays, table: table.fields() }))
        }
        ShapeProbe::Object { len, keyed } => {
            Ok(Shape::Object(ObjectShape { len, keyed: if len >= 2 { keyed.fields() } else { None } }))
        }
    }
}

/// The columns a set of objects shares so far.
#[derive(Debug)]
struct Columns {
    /// Keys in the first object's order.
    keys: Vec<String>,
    /// Per key: `None` a leaf, `Some` a field group.
    groups: Vec<Option<Columns>>,
}

impl Columns {
    /// Whether `other` has the same keys (in any order) and compatible
    /// columns; the groups are merged into `self`.
    fn absorb(&mut self, mut other: Columns) -> bool {
        if self.keys.len() != other.keys.len() {
            return false;
        }
        for (at, key) in self.keys.iter().enumerate() {
            let found =
                if other.keys.get(at) == Some(key) { Some(at) } else { other.keys.iter().position(|k| k == key) };
            let Some(found) = found else { return false };
            // A key taken once is blanked, so a duplicate cannot match twice.
            other.keys[found].clear();
            let theirs = other.groups[found].take();
            match (&mut self.groups[at], theirs) {
                (None, None) => {}
                (Some(mine), Some(theirs)) => {
                    if !mine.absorb(theirs) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        true
    }

    fn fields(self) -> Vec<Field> {
        self.keys
            .into_iter()
            .zip(self.groups)
            .map(|(name, group)| match group {
                None => Field { name, children: None, leaves: 1 },
                Some(group) => {
                    let children = group.fields();
                    let leaves = children.iter().map(|f| f.leaves).sum();
                    Field { name, children: Some(children), leaves }
                }
            })
            .collect()
    }
}

/// Columns shared by every object seen, or the reason there are none.
#[derive(Debug)]
enum Uniform {
    Nothing,
    Shared(Columns),
    Broken,
}

impl Uniform {
    fn live(&self) -> bool {
        !matches!(self, Uniform::Broken)
    }

    fn add(&mut self, columns: Option<Columns>) {
        *self = match (std::mem::replace(self, Uniform::Broken), columns) {
            (Uniform::Nothing, Some(columns)) => Uniform::Shared(columns),
            (Uniform::Shared(mut mine), Some(theirs)) => {
                if mine.absorb(theirs) {
                    Uniform::Shared(mine)
                } else {
                    Uniform::Broken
                }
            }
            _ => Uniform::Broken,
        };
    }

    fn fields(self) -> Option<Vec<Field>> {
        match self {
            Uniform::Shared(columns) => Some(columns.fields()),
            Uniform::Nothing | Uniform::Broken => None,
        }
    }
}

enum ShapeProbe {
    Unread,
    Primitive,
    Array { len: usize, all_primitive: bool, all_primitive_arrays: bool, table: Uniform },
    Object { len: usize, keyed: Uniform },
}

impl Sink for ShapeProbe {
    fn primitive(&mut self, _: Prim<'_>) -> Result<(), EncodeError> {
        *self = ShapeProbe::Primitive;
        Ok(())
    }
    fn begin_seq(&mut self) -> Result<(), EncodeError> {
        *self = ShapeProbe::Array { len: 0, all_primitive: true, all_primitive_arrays: true, table: Uniform::Nothing };
        Ok(())
    }
    fn element(&mut self, item: &dyn Subtree) -> Result<(), EncodeError> {
        let ShapeProbe::Array { len, all_primitive, all_primitive_arrays, table } = self else {
            return Err(EncodeError::Unstable("an array item outside an array"));
        };
        *len += 1;
        if !(*all_primitive || *all_primitive_arrays || table.live()) {
            return Ok(());
        }
        let kind = item_kind(item, table.live())?;
        *all_primitive &= matches!(kind, Item::Primitive);
        *all_primitive_arrays &= matches!(kind, Item::Array { all_primitive: true });
        if table.live() {
            table.add(match kind {
                Item::Object(columns) => columns,
                Item::Primitive | Item::Array { .. } => None,
            });
        }
        Ok(())
    }
    fn begin_map(&mut self) -> Result<(), EncodeError> {
        *self = ShapeProbe::Object { len: 0, keyed: Uniform::Nothing };
        Ok(())
    }
    fn entry(&mut self, _key: &str, value: &dyn Subtree) -> Result<(), EncodeError> {
        let ShapeProbe::Object { len, keyed } = self else {
            return Err(EncodeError::Unstable("an object entry outside an object"));
        };
        *len += 1;
        if keyed.live() {
            keyed.add(match column_of(value, 0)? {
                Column::Group(columns) => Some(columns),
                Column::Leaf | Column::Broken => None,
            });
        }
        Ok(())
    }
    fn end(&mut self) -> Result<(), EncodeError> {
        Ok(())
    }
}

/// What an array item is, as far as the array's form depends on it.
enum Item {
    Primitive,
    Array {
        all_primitive: bool,
    },
    /// The object's columns when it could be a table row.
    Object(Option<Columns>),
}

fn item_kind(item: &dyn Subtree, want_columns: bool) -> Result<Item, EncodeError> {
    let mut probe = ItemProbe { kind: None, columns: ColumnProbe::new(0), want_columns };
    item.replay(&mut probe)?;
    match probe.kind {
        Some(Kind::Object) => Ok(Item::Object(match probe.columns.finish() {
            Column::Group(columns) => Some(columns),
            Column::Leaf | Column::Broken => None,
        })),
        Some(Kind::Array(all_primitive)) => Ok(Item::Array { all_primitive }),
        Some(Kind::Primitive) => Ok(Item::Primitive),
        None => Err(EncodeError::Unstable("an array item produced no content")),
    }
}

enum Kind {
    Primitive,
    Array(bool),
    Object,
}

struct ItemProbe {
    kind: Option<Kind>,
    columns: ColumnProbe,
    want_columns: bool,
}

impl Sink for ItemProbe {
    fn primitive(&mut self, _: Prim<'_>) -> Result<(), EncodeError> {
        self.kind = Some(Kind::Primitive);
        Ok(())
    }
    fn begin_seq(&mut self) -> Result<(), EncodeError> {
        self.kind = Some(Kind::Array(true));
        Ok(())
    }
    fn element(&mut self, item: &dyn Subtree) -> Result<(), EncodeError> {
        if let Some(Kind::Array(all_primitive @ true)) = &mut self.kind {
            *all_primitive = is_primitive(item)?;
        }
        Ok(())
    }
    fn begin_map(&mut self) -> Result<(), EncodeError> {
        self.kind = Some(Kind::Object);
        if self.want_columns { self.columns.begin_map() } else { Ok(()) }
    }
    fn entry(&mut self, key: &str, value: &dyn Subtree) -> Result<(), EncodeError> {
        if self.want_columns { self.columns.entry(key, value) } else { Ok(()) }
    }
    fn end(&mut self) -> Result<(), EncodeError> {
        Ok(())
    }
}

fn is_primitive(value: &dyn Subtree) -> Result<bool, EncodeError> {
    // No depth admits an object here, so nothing below is read.
    let mut probe = ColumnProbe::new(usize::MAX);
    value.replay(&mut probe)?;
    Ok(matches!(probe.finish(), Column::Leaf))
}

/// A table column's values: all primitives (a leaf), all non-empty objects
/// with uniform columns (a group), or neither.
enum Column {
    Leaf,
    Group(Columns),
    Broken,
}

fn column_of(value: &dyn Subtree, depth: usize) -> Result<Column, EncodeError> {
    let mut probe = ColumnProbe::new(depth);
    value.replay(&mut probe)?;
    Ok(probe.finish())
}

/// Reads one value as a table column cell. `depth` is 0 for a row and
/// counts field groups below it; a group deeper than [`MAX_FIELD_DEPTH`]
/// breaks the table.
struct ColumnProbe {
    depth: usize,
    state: Option<Column>,
}

impl ColumnProbe {
    fn new(depth: usize) -> ColumnProbe {
        ColumnProbe { depth, state: None }
    }

    fn finish(self) -> Column {
        match self.state {
            Some(Column::Group(columns)) if columns.keys.is_empty() => Column::Broken,
            Some(column) => column,
            None => Column::Broken,
        }
    }
}

impl Sink for ColumnProbe {
    fn primitive(&mut self, _: Prim<'_>) -> Result<(), EncodeError> {
        self.state = Some(Column::Leaf);
        Ok(())
    }
    fn begin_seq(&mut self) -> Result<(), EncodeError> {
        self.state = Some(Column::Broken);
        Ok(())
    }
    fn element(&mut self, _: &dyn Subtree) -> Result<(), EncodeError> {
        Ok(())
    }
    fn begin_map(&mut self) -> Result<(), EncodeError> {
        self.state = Some(if self.depth > MAX_FIELD_DEPTH {
            Column::Broken
        } else {
            Column::Group(Columns { keys: Vec::new(), groups: Vec::new() })
        });
        Ok(())
    }
    fn entry(&mut self, key: &str, value: &dyn Subtree) -> Result<(), EncodeError> {
        let Some(Column::Group(columns)) = &mut self.state else { return Ok(()) };
        match column_of(value, self.depth + 1)? {
            Column::Leaf => columns.groups.push(None),
            Column::Group(group) => columns.groups.push(Some(group)),
            Column::Broken => {
                self.state = Some(Column::Broken);
                return Ok(());
            }
        }
        columns.keys.push(key.to_owned());
        Ok(())
    }
    fn end(&mut self) -> Result<(), EncodeError> {
        Ok(())
    }
}
