//! The transposition table of a [`super::Search`]: from a position's key to its node.
//!
//! The index holds a node id and 32 bits of its key's hash a bucket (8 bytes and a control
//! byte); the keys sit in a vector by node id (48 bytes a slot for (4, n, 7^tr)), read only to
//! confirm a candidate whose hash bits match. A table of `(key, id)` pairs holds 64 bytes a
//! bucket for those keys, and its buckets outnumber the nodes (up to 8/7 of them when full, twice
//! as many after a growth): at n = 12 its 2^20 buckets are 64 MiB, against 9 MiB for the index
//! and 22 MiB for the keys of 486,316 nodes. Most of an expansion's children are new keys,
//! which cost a probe of the index and no key read, and the index grows without reading keys.
//! Adding the children is the largest part of what a thread of a [`super::Shared`] search does
//! under its lock (0.29 of 0.74 s at n = 12 was the table's, one thread, measured with timers
//! around each step); with the index that time fell by 15% to 20% (one thread, runs
//! interleaved, 2026-11-25).

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Node ids by key ([`Table::get`]), for nodes whose slots hold their keys.
pub(super) struct Table<K> {
    /// Each entry: a node id and the 32 bits of its key's hash the index is placed by
    /// ([`widen`]), so that the index grows without reading keys.
    index: HashTable<(u32, u32)>,
    /// The key of the position node in each slot, by node id; `None` for a slot without one
    /// (an inner node of a decomposition, a freed slot).
    keys: Vec<Option<K>>,
}

/// A key's 32-bit hash.
fn hash<K: Hash>(key: &K) -> u32 {
    let h = FxBuildHasher.hash_one(key);
    (h ^ h >> 32) as u32
}

/// The 64-bit hash the index is given for a 32-bit one: its bits twice, so that both the
/// index's position (low bits) and its tag (top 7 bits) come from them. From 2^25 buckets on
/// (n = 14) the tag's bits are also position bits, so a probe meets more tags that match by
/// chance; each costs a comparison of the stored 32 bits, not a key read.
fn widen(h: u32) -> u64 {
    u64::from(h) << 32 | u64::from(h)
}

impl<K: Copy + Eq + Hash> Table<K> {
    pub(super) fn new() -> Self {
        Self {
            index: HashTable::new(),
            keys: Vec::new(),
        }
    }

    /// The node of `key`.
    pub(super) fn get(&self, key: &K) -> Option<u32> {
        let h = hash(key);
        let keys = &self.keys;
        self.index
            .find(widen(h), |&(id, hi)| {
                hi == h && keys[id as usize].as_ref() == Some(key)
            })
            .map(|&(id, _)| id)
    }

    /// Enters the node `id` under `key`, which the table does not hold.
    pub(super) fn insert(&mut self, key: K, id: u32) {
        debug_assert!(self.get(&key).is_none(), "one node per key");
        let slot = id as usize;
        if self.keys.len() <= slot {
            self.keys.resize(slot + 1, None);
        }
        self.keys[slot] = Some(key);
        let h = hash(&key);
        self.index
            .insert_unique(widen(h), (id, h), |&(_, h)| widen(h));
    }

    /// Keeps the entries of the nodes for which `keep` holds, forgetting the others' keys.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let keys = &mut self.keys;
        self.index.retain(|&mut (id, _)| {
            let kept = keep(id);
            if !kept {
                keys[id as usize] = None;
            }
            kept
        });
    }

    /// Gives back the index's buckets down to what its entries need.
    pub(super) fn shrink_to_fit(&mut self) {
        self.index.shrink_to_fit(|&(_, h)| widen(h));
    }

    /// Reserves key slots for nodes up to `slots` in all (address space until used).
    pub(super) fn reserve_slots(&mut self, slots: usize) {
        self.keys
            .reserve_exact(slots.saturating_sub(self.keys.len()));
    }

    /// Every entry: key and node.
    pub(super) fn iter(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.index.iter().map(|&(id, _)| {
            let key = self.keys[id as usize].expect("an indexed slot holds its key");
            (key, id)
        })
    }

    pub(super) fn len(&self) -> usize {
        self.index.len()
    }

    pub(super) fn capacity(&self) -> usize {
        self.index.capacity()
    }

    /// Heap bytes of the index (its buckets and control bytes).
    pub(super) fn index_bytes(&self) -> usize {
        self.index.allocation_size()
    }

    /// Bytes of one key slot (kept for every node slot).
    pub(super) const KEY_BYTES: usize = std::mem::size_of::<Option<K>>();
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// One step on a table and on a `HashMap` model: insert a new key in the next free slot
    /// or a freed one, drop the entries of some slots, shrink.
    #[derive(Debug, Clone)]
    enum Op {
        Insert(u16),
        Retain(u8),
        Shrink,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => any::<u16>().prop_map(Op::Insert),
            1 => any::<u8>().prop_map(Op::Retain),
            1 => Just(Op::Shrink),
        ]
    }

    /// A key whose hash reads only `self.0 % 8`: different keys with the same hash bits, so
    /// that a probe has to tell them apart by the key.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    struct Coarse(u16);

    impl Hash for Coarse {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            state.write_u16(self.0 % 8);
        }
    }

    /// Runs `ops` on a table and on a map with keys `key(k)`, and compares them.
    fn agrees<K: Copy + Eq + Hash + Ord + std::fmt::Debug>(
        ops: &[Op],
        key: impl Fn(u16) -> K,
    ) -> Result<(), TestCaseError> {
        let mut table = Table::new();
        let mut model: HashMap<K, u32> = HashMap::new();
        let mut free: Vec<u32> = Vec::new();
        let mut next = 0u32;
        for op in ops {
            match *op {
                Op::Insert(k) => {
                    let k = key(k);
                    prop_assert_eq!(table.get(&k), model.get(&k).copied());
                    if model.contains_key(&k) {
                        continue;
                    }
                    let id = free.pop().unwrap_or_else(|| {
                        next += 1;
                        next - 1
                    });
                    table.insert(k, id);
                    model.insert(k, id);
                }
                Op::Retain(m) => {
                    let drop = |id: u32| u32::from(m) % 5 == id % 5;
                    table.retain(|id| !drop(id));
                    model.retain(|_, id| {
                        if drop(*id) {
                            free.push(*id);
                        }
                        !drop(*id)
                    });
                }
                Op::Shrink => table.shrink_to_fit(),
            }
            prop_assert_eq!(table.len(), model.len());
        }
        for (k, id) in &model {
            prop_assert_eq!(table.get(k), Some(*id));
        }
        let mut entries: Vec<_> = table.iter().collect();
        entries.sort();
        let mut want: Vec<_> = model.into_iter().collect();
        want.sort();
        prop_assert_eq!(entries, want);
        Ok(())
    }

    proptest! {
        #[test]
        fn the_table_agrees_with_a_map(ops in proptest::collection::vec(op(), 1..400)) {
            // Keys as wide as (4, n, 7^tr)'s, few enough to repeat often.
            agrees(&ops, |k| (u128::from(k % 500), u128::from(k % 7)))?;
            // Keys whose hashes collide: found by the key, not by the hash bits alone.
            agrees(&ops, |k| Coarse(k % 300))?;
        }
    }
}
