//! The transposition table of a [`super::Search`]: from a position's key to its node.
//!
//! The index is open addressing with linear probing: a bucket holds a node id and 32 bits of
//! its key's hash (8 bytes), and at most 3/4 of the buckets are full. The keys sit in a vector
//! by node id (48 bytes a slot for (4, n, 7^tr)), read only to confirm a candidate whose hash
//! bits match, so the index grows without reading keys. At n = 12 the 486,316 nodes' index is
//! 8 MiB (2^20 buckets), their keys 22 MiB; a table of `(key, id)` pairs would take 64 bytes a
//! bucket.
//!
//! Adding an expansion's children is most of what a thread of a [`super::Shared`] search does
//! under its lock, and most children are new keys: a probe of the index each, a cache miss
//! where the bucket is not in the cache. So the lookups are read ahead: a thread reads the
//! home buckets of its children's keys before it takes the lock ([`Hint`]), and
//! [`Table::touch`] reads all of them before the first lookup, so that the misses overlap
//! instead of coming one lookup at a time. The buckets are atomics for the first (read by a
//! thread that does not hold the lock; written only under it), which costs nothing on x86-64.

use std::hash::{BuildHasher, Hash};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rustc_hash::FxBuildHasher;

/// Node ids by key ([`Table::get`]), for nodes whose slots hold their keys.
pub(super) struct Table<K> {
    /// Open addressing with linear probing over a power of two of buckets (none before the
    /// first entry), at most [`LOAD`] full: 0 for an empty bucket, else an entry ([`entry`]).
    /// The buckets are atomics only so that threads of a [`super::Shared`] search can read
    /// them outside its lock ([`Hint`]); every write happens through `&mut self`.
    index: Arc<[AtomicU64]>,
    /// Entries in the index.
    len: usize,
    /// The key of the position node in each slot, by node id; `None` for a slot without one
    /// (an inner node of a decomposition, a freed slot).
    keys: Vec<Option<K>>,
}

/// The index grows (doubles) before an insertion would fill more than 3/4 of its buckets:
/// with linear probing, a probe for a new key then reads about 8.5 buckets at worst (Knuth,
/// TAOCP vol. 3, 6.4), two cache lines or fewer of 8 buckets each.
const LOAD: (usize, usize) = (3, 4);

/// Buckets of the first index.
const MIN_BUCKETS: usize = 16;

/// A key's 32-bit hash.
fn hash<K: Hash>(key: &K) -> u32 {
    let h = FxBuildHasher.hash_one(key);
    (h ^ h >> 32) as u32
}

/// The bucket of node `id` whose key hashes to `h`: the hash in the high half, so that the
/// index grows without reading keys and a probe reads a key only where all 32 bits match, and
/// `id + 1` in the low half, so that no entry is 0.
fn entry(h: u32, id: u32) -> u64 {
    let id = id.checked_add(1).expect("fewer than 2^32 - 1 nodes");
    u64::from(h) << 32 | u64::from(id)
}

fn entry_hash(e: u64) -> u32 {
    (e >> 32) as u32
}

fn entry_id(e: u64) -> u32 {
    (e as u32) - 1
}

/// The bucket a probe for hash `h` starts at.
fn home(index: &[AtomicU64], h: u32) -> usize {
    h as usize & (index.len() - 1)
}

/// Puts the entry `e` in the first empty bucket from its home on.
fn place(index: &[AtomicU64], e: u64) {
    let mask = index.len() - 1;
    let mut i = home(index, entry_hash(e));
    while index[i].load(Relaxed) != 0 {
        i = (i + 1) & mask;
    }
    index[i].store(e, Relaxed);
}

fn empty_index(buckets: usize) -> Arc<[AtomicU64]> {
    (0..buckets).map(|_| AtomicU64::new(0)).collect()
}

impl<K: Copy + Eq + Hash> Table<K> {
    pub(super) fn new() -> Self {
        Self {
            index: empty_index(0),
            len: 0,
            keys: Vec::new(),
        }
    }

    /// The node of `key`.
    pub(super) fn get(&self, key: &K) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let h = hash(key);
        let mask = self.index.len() - 1;
        let mut i = home(&self.index, h);
        loop {
            let e = self.index[i].load(Relaxed);
            if e == 0 {
                return None;
            }
            if entry_hash(e) == h && self.keys[entry_id(e) as usize].as_ref() == Some(key) {
                return Some(entry_id(e));
            }
            i = (i + 1) & mask;
        }
    }

    /// Enters the node `id` under `key`, which the table does not hold.
    pub(super) fn insert(&mut self, key: K, id: u32) {
        debug_assert!(self.get(&key).is_none(), "one node per key");
        let slot = id as usize;
        if self.keys.len() <= slot {
            self.keys.resize(slot + 1, None);
        }
        self.keys[slot] = Some(key);
        if self.len + 1 > self.capacity() {
            self.rebuild((2 * self.index.len()).max(MIN_BUCKETS));
        }
        place(&self.index, entry(hash(&key), id));
        self.len += 1;
    }

    /// Moves the entries to a new index of `buckets` buckets (a power of two with room for
    /// them), reading no key.
    fn rebuild(&mut self, buckets: usize) {
        let index = empty_index(buckets);
        for b in self.index.iter() {
            let e = b.load(Relaxed);
            if e != 0 {
                place(&index, e);
            }
        }
        self.index = index;
    }

    /// Keeps the entries of the nodes for which `keep` holds (called once or more for each;
    /// it must not change its answer), forgetting the others' keys. In place: each entry
    /// dropped is filled by the later entries of its run that may move back (Knuth, TAOCP
    /// vol. 3, 6.4, Algorithm R), so no second index is held at once.
    pub(super) fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        let n = self.index.len();
        let mut i = 0;
        while i < n {
            let e = self.index[i].load(Relaxed);
            if e == 0 || keep(entry_id(e)) {
                i += 1;
                continue;
            }
            self.keys[entry_id(e) as usize] = None;
            self.len -= 1;
            self.delete(i);
            // Bucket `i` may hold a later entry now: look at it again.
        }
    }

    /// Empties bucket `hole` and moves back the entries after it (up to the next empty bucket)
    /// whose probe would otherwise pass the hole.
    fn delete(&mut self, mut hole: usize) {
        let index = &self.index;
        let mask = index.len() - 1;
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let e = index[j].load(Relaxed);
            if e == 0 {
                break;
            }
            let k = home(index, entry_hash(e));
            // The entry at `j` may move to `hole` unless its home lies cyclically in
            // (hole, j].
            let stays = if hole <= j {
                hole < k && k <= j
            } else {
                hole < k || k <= j
            };
            if !stays {
                index[hole].store(e, Relaxed);
                hole = j;
            }
        }
        index[hole].store(0, Relaxed);
    }

    /// Gives back the index's buckets down to what its entries need.
    pub(super) fn shrink_to_fit(&mut self) {
        let mut buckets = MIN_BUCKETS;
        while self.len * LOAD.1 > buckets * LOAD.0 {
            buckets *= 2;
        }
        if buckets < self.index.len() {
            self.rebuild(if self.len == 0 { 0 } else { buckets });
        }
    }

    /// Reserves key slots for nodes up to `slots` in all (address space until used); the
    /// error of an allocation the system refuses.
    pub(super) fn try_reserve_slots(
        &mut self,
        slots: usize,
    ) -> Result<(), std::collections::TryReserveError> {
        self.keys
            .try_reserve_exact(slots.saturating_sub(self.keys.len()))
    }

    /// Every entry: key and node.
    pub(super) fn iter(&self) -> impl Iterator<Item = (K, u32)> + '_ {
        self.index.iter().filter_map(|b| {
            let e = b.load(Relaxed);
            (e != 0).then(|| {
                let id = entry_id(e);
                let key = self.keys[id as usize].expect("an indexed slot holds its key");
                (key, id)
            })
        })
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The entries the index holds before it grows.
    pub(super) fn capacity(&self) -> usize {
        self.index.len() / LOAD.1 * LOAD.0
    }

    /// Heap bytes of the index (its buckets).
    pub(super) fn index_bytes(&self) -> usize {
        self.index.len() * std::mem::size_of::<AtomicU64>()
    }

    /// Bytes of one key slot (kept for every node slot).
    pub(super) const KEY_BYTES: usize = std::mem::size_of::<Option<K>>();

    /// The index as it is now, for [`Hint::touch`] outside a lock around the table.
    pub(super) fn hint(&self) -> Hint {
        Hint(Arc::clone(&self.index))
    }

    /// Whether `hint` shows the index as it is now (it was not rebuilt since).
    pub(super) fn is_current(&self, hint: &Hint) -> bool {
        Arc::ptr_eq(&self.index, &hint.0)
    }

    /// Reads the home bucket of each key, so that the lookups of several keys that follow
    /// wait for memory once, not once per key.
    pub(super) fn touch<'a>(&self, keys: impl Iterator<Item = &'a K>)
    where
        K: 'a,
    {
        touch(&self.index, keys);
    }
}

fn touch<'a, K: Hash + 'a>(index: &[AtomicU64], keys: impl Iterator<Item = &'a K>) {
    if index.is_empty() {
        return;
    }
    let mut seen = 0u64;
    for key in keys {
        seen ^= index[home(index, hash(key))].load(Relaxed);
    }
    std::hint::black_box(seen);
}

/// A table's index, shared for reading: a thread of a [`super::Shared`] search reads the
/// buckets of the keys it is about to look up while it does not hold the lock, so that the
/// lookups under the lock find them in its cache. An index rebuilt since is read in vain, and
/// stays allocated until the thread refreshes its hint at its next turn under the lock
/// ([`super::Search::refresh_hint`]): for that while, the old index's bytes twice.
pub(super) struct Hint(Arc<[AtomicU64]>);

impl Hint {
    /// Reads the home bucket of each key ([`Table::touch`]).
    pub(super) fn touch<'a, K: Hash + 'a>(&self, keys: impl Iterator<Item = &'a K>) {
        touch(&self.0, keys);
    }
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
