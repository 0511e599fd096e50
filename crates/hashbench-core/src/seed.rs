//! Stable seeds. A trial's seed is a hash of the experiment seed and the parts
//! naming the trial (method, params, bits, trial index), so any trial can be rerun
//! alone and the result does not depend on the order trials are scheduled in.

/// FNV-1a over `base` and each part, with a separator byte so that parts do not
/// run together, finished by a SplitMix64 step for good low bits.
pub fn derive_seed(base: u64, parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    base.to_le_bytes().into_iter().for_each(&mut eat);
    for p in parts {
        eat(0xff);
        p.bytes().for_each(&mut eat);
    }
    splitmix64(h)
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_every_part_and_on_boundaries() {
        let a = derive_seed(1, &["lsh", "16", "0"]);
        assert_eq!(a, derive_seed(1, &["lsh", "16", "0"]));
        assert_ne!(a, derive_seed(2, &["lsh", "16", "0"]));
        assert_ne!(a, derive_seed(1, &["lsh", "16", "1"]));
        assert_ne!(derive_seed(1, &["ab", "c"]), derive_seed(1, &["a", "bc"]));
    }
}
