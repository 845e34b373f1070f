//! Reading fields of a comparison record as it is written (the comparison
//! view's input until the comparison record is read typed).

use serde_json::Value;

/// The value at `path`, if every step exists.
pub(crate) fn at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

/// The string at `path`.
pub(crate) fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    at(value, path)?.as_str()
}

/// The unsigned integer at `path`.
pub(crate) fn u64_at(value: &Value, path: &[&str]) -> Option<u64> {
    at(value, path)?.as_u64()
}

/// The array at `path`, empty when absent.
pub(crate) fn list<'a>(value: &'a Value, path: &[&str]) -> &'a [Value] {
    at(value, path).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default()
}
