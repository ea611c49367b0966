//! The transposition table of a [`super::Search`]: from a position's key to its node.
//!
//! The index holds node ids only (4 bytes and a control byte a bucket); the keys sit in a
//! vector by node id, and are read only to confirm a candidate whose hash tag matches. A table
//! of `(key, id)` pairs would hold 64 bytes a bucket for the 48-byte keys of (4, n, 7^tr): at
//! n = 12 its 2^20 buckets are 64 MiB, against 5 MiB for the index, and most of an
//! expansion's children are new keys, which cost a probe of the index and no key read. The
//! table's work is most of what a thread of a [`super::Shared`] search does under its lock
//! (measured: 0.29 of 0.74 s at n = 12); with the index, the time under the lock at n = 12
//! fell by about 6% (one thread, runs interleaved, 2026-11-25).

use std::hash::{BuildHasher, Hash};

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Node ids by key ([`Table::get`]), for nodes whose slots hold their keys.
pub(super) struct Table<K> {
    index: HashTable<u32>,
    /// The key of the position node in each slot, by node id; `None` for a slot without one
    /// (an inner node of a decomposition, a freed slot).
    keys: Vec<Option<K>>,
}

fn hash<K: Hash>(key: &K) -> u64 {
    FxBuildHasher.hash_one(key)
}

/// The hash of the key in slot `id`, for the index's growth.
fn hash_of<K: Hash>(keys: &[Option<K>], id: u32) -> u64 {
    hash(
        keys[id as usize]
            .as_ref()
            .expect("an indexed slot holds its key"),
    )
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
        let keys = &self.keys;
        self.index
            .find(hash(key), |&id| keys[id as usize].as_ref() == Some(key))
            .copied()
    }

    /// Enters the node `id` under `key`, which the table does not hold.
    pub(super) fn insert(&mut self, key: K, id: u32) {
        debug_assert!(self.get(&key).is_none(), "one node per key");
        let slot = id as usize;
        if self.keys.len() <= slot {
            self.keys.resize(slot + 1, None);
        }
        self.keys[slot] = Some(key);
        let keys = &self.keys;
        self.index
            .insert_unique(hash(&key), id, |&id| hash_of(keys, id));
    }

    /// Keeps the entries of the nodes for which `keep` holds, forgetting the others' keys.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let keys = &mut self.keys;
        self.index.retain(|&mut id| {
            let kept = keep(id);
            if !kept {
                keys[id as usize] = None;
            }
            kept
        });
    }

    /// Gives back the index's buckets down to what its entries need.
    pub(super) fn shrink_to_fit(&mut self) {
        let keys = &self.keys;
        self.index.shrink_to_fit(|&id| hash_of(keys, id));
    }

    /// Reserves key slots for nodes up to `slots` in all (address space until used).
    pub(super) fn reserve_slots(&mut self, slots: usize) {
        self.keys
            .reserve_exact(slots.saturating_sub(self.keys.len()));
    }

    /// Every entry: key and node.
    pub(super) fn iter(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.index.iter().map(|&id| {
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

    /// Bytes of one bucket of the index (an id and its control byte).
    pub(super) const BUCKET_BYTES: usize = std::mem::size_of::<u32>() + 1;

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

    proptest! {
        #[test]
        fn the_table_agrees_with_a_map(ops in proptest::collection::vec(op(), 1..400)) {
            // Keys as wide as (4, n, 7^tr)'s, few enough to collide often.
            let key = |k: u16| (u128::from(k % 500), u128::from(k % 7));
            let mut table = Table::new();
            let mut model: HashMap<(u128, u128), u32> = HashMap::new();
            let mut free: Vec<u32> = Vec::new();
            let mut next = 0u32;
            for op in ops {
                match op {
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
        }
    }
}
