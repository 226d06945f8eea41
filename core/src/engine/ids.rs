//! Hashers of the maps touched on every request. Keys made here ([`super::JobId`],
//! [`super::RouteId`]) hash by one multiplication ([`IdMap`]): no peer chooses them, so no
//! flooding resistance is needed. Keys a peer chooses (request ids, session ids) hash with
//! foldhash's randomly seeded quality hasher ([`PeerMap`]), several times cheaper than SipHash;
//! the maps holding them are bounded besides (`max_in_flight`, the session limits).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` keyed by a server-made counter.
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// A `HashMap` keyed by something a peer chooses (a request id, a session id), with a seeded
/// hasher cheaper than the standard library's SipHash.
pub type PeerMap<K, V> = HashMap<K, V, foldhash::quality::RandomState>;

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
