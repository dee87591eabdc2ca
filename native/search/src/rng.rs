//! A small seeded generator (SplitMix64): the same seed gives the same
//! search on every machine, with no dependence on a crate's algorithm
//! changing between versions.

#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        let unit = (self.next_u64() >> 11) as f64 / ((1u64 << 53) as f64);
        unit < p
    }

    /// Uniform in `low..=high`.
    pub fn between(&mut self, low: i64, high: i64) -> i64 {
        let span = high.wrapping_sub(low) as u64;
        if span == u64::MAX {
            return self.next_u64() as i64;
        }
        low.wrapping_add((self.next_u64() % (span + 1)) as i64)
    }

    /// One of `items`, if any.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_numbers_within_their_ranges() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let first: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let again: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(first, again);
        assert_ne!(first[0], first[1]);
        let mut rng = Rng::new(1);
        for _ in 0..1000 {
            assert!(rng.below(3) < 3);
            let v = rng.between(-2, 2);
            assert!((-2..=2).contains(&v));
        }
        assert_eq!(rng.below(0), 0);
        assert!(rng.pick::<u8>(&[]).is_none());
    }
}
