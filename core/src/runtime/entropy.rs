//! Entropy from the OS: session ids, task ids and `requestState` keys.

use crate::state::StateKey;

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    bytes
}

/// 128 random bits as 32 lowercase hex digits: session and task ids.
pub fn random_id() -> String {
    random_bytes::<16>().iter().map(|b| format!("{b:02x}")).collect()
}

/// A random 64-bit number: the epoch of an [`crate::events::EventRegistry`].
pub fn random_u64() -> u64 {
    u64::from_be_bytes(random_bytes::<8>())
}

/// A fresh random 32-byte key for sealing `requestState`.
pub fn state_key() -> StateKey {
    StateKey::new(random_bytes::<32>().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_long_random_and_distinct() {
        let (a, b) = (random_id(), random_id());
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_ne!(state_key(), state_key());
    }
}
