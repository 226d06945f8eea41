//! Maps keyed by the connection's own counters ([`super::JobId`], [`super::RouteId`]): a
//! multiplicative hash instead of SipHash. The keys are made here, never by a peer, so no
//! flooding resistance is needed, and these maps are touched several times per request.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` keyed by a server-made counter.
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Hashes one `u64` by a multiplication by an odd constant (the golden ratio's, as
/// Fibonacci hashing), which spreads sequential ids over the high bits hashbrown reads.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0 ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_ids_differ_in_the_high_bits() {
        let top = |n: u64| {
            let mut h = IdHasher::default();
            h.write_u64(n);
            h.finish() >> 57
        };
        let distinct: std::collections::BTreeSet<u64> = (0..64).map(top).collect();
        assert!(distinct.len() > 32, "{distinct:?}");
        let mut m: IdMap<u64, u64> = IdMap::default();
        for i in 0..1000 {
            m.insert(i, i * 2);
        }
        assert!((0..1000).all(|i| m.get(&i) == Some(&(i * 2))));
    }
}
