//! `--partition K/N`: which cases a partition runs, by a stable hash of the
//! case name alone, so that adding or removing a case moves no other case.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Maximum partition count.
pub const MAX_PARTITIONS: u32 = 10_000;

/// One partition of `count` (`index` from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Partition {
    /// K, from 1 to `count`.
    pub index: u32,
    /// N.
    pub count: u32,
}

/// Why a `--partition` value is malformed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}` is not a partition: {why}; write K/N with 1 <= K <= N <= {MAX_PARTITIONS}, e.g. 2/3")]
pub struct PartitionError {
    /// The value given.
    pub given: String,
    /// What is wrong.
    pub why: &'static str,
}

impl std::str::FromStr for Partition {
    type Err = PartitionError;

    fn from_str(text: &str) -> Result<Partition, PartitionError> {
        let fail = |why| PartitionError { given: text.to_owned(), why };
        let (k, n) = text.split_once('/').ok_or_else(|| fail("it has no `/`"))?;
        let number = |s: &str| -> Result<u32, PartitionError> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(fail("K and N must be whole numbers"));
            }
            s.parse::<u32>().map_err(|_| fail("the number is too large"))
        };
        let (index, count) = (number(k)?, number(n)?);
        if count == 0 || count > MAX_PARTITIONS {
            return Err(fail("N is out of range"));
        }
        if index == 0 || index > count {
            return Err(fail("K must be from 1 to N"));
        }
        Ok(Partition { index, count })
    }
}

impl std::fmt::Display for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl Partition {
    /// Whether the case `name` belongs to this partition.
    pub fn holds(&self, name: &str) -> bool {
        partition_of(name, self.count) == self.index
    }
}

/// The partition (from 1) of `count` the case `name` belongs to: the first
/// eight bytes of SHA-256 of the name, big-endian, modulo `count`, plus 1.
pub fn partition_of(name: &str, count: u32) -> u32 {
    let digest = Sha256::digest(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    (u64::from_be_bytes(first) % u64::from(count.max(1))) as u32 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_parse_strictly() {
        assert_eq!("2/3".parse::<Partition>().unwrap(), Partition { index: 2, count: 3 });
        assert_eq!("1/1".parse::<Partition>().unwrap().to_string(), "1/1");
        for bad in ["0/3", "4/3", "two", "1/0", "/3", "1/", "+1/3", "1/3/4", " 1/3", "1/99999999999"] {
            let err = bad.parse::<Partition>().unwrap_err();
            assert!(err.to_string().contains(&format!("`{bad}`")), "{err}");
        }
    }

    #[test]
    fn the_hash_is_stable_and_spreads() {
        // Fixed values (computed outside rea): a change of the hash would
        // move the cases of every CI matrix.
        assert_eq!(partition_of("echo", 3), 3);
        let names: Vec<String> = (0..300).map(|i| format!("case-{i}")).collect();
        let mut counts = [0usize; 3];
        for name in &names {
            counts[partition_of(name, 3) as usize - 1] += 1;
        }
        assert!(counts.iter().all(|&c| c > 70), "{counts:?}");
        assert_eq!(["a", "b", "c", "d"].map(|n| partition_of(n, 7)), [5, 1, 4, 1]);
    }
}
