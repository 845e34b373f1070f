//! A deterministic generator for generated test cases (xorshift64), so a
//! failing case replays from its seed on every machine.

/// Xorshift64 over the seed it holds (the seed must not be zero).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// An index into a slice of `len` items (`len` > 0).
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_is_xorshift64_of_the_seed() {
        let mut rng = Rng(1);
        // 1 ^= 1 << 13 -> 0x2001; ^= >> 7 -> 0x2041; ^= << 17 -> 0x4082_2041.
        assert_eq!(rng.next_u64(), 0x4082_2041);
        let mut a = Rng(0x9e37_79b9_7f4a_7c15);
        let mut b = a.clone();
        let draws: Vec<u64> = (0..8).map(|_| a.below(10)).collect();
        assert_eq!(draws, (0..8).map(|_| b.next_u64() % 10).collect::<Vec<_>>());
        assert!(draws.iter().all(|d| *d < 10));
        assert_eq!(*Rng(7).pick(&["only"]), "only");
    }
}
