//! [`MemStore`]: the in-memory [`Store`] for tests and for runs that keep nothing.
//!
//! It must behave exactly like the RocksDB store as far as the trait can see (the conformance
//! suite checks this); it does not depend on RocksDB.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::{Batch, BatchOp, ColumnFamily, KeyValue, Store, StoreError, ensure_schema};

/// One ordered map per column family, indexed by [`ColumnFamily::index`].
type Tables = [BTreeMap<Vec<u8>, Vec<u8>>; 4];

/// A [`Store`] held in memory and lost when dropped.
#[derive(Debug)]
pub struct MemStore {
    /// The column families. One lock over all of them makes [`Store::write`] atomic.
    tables: Mutex<Tables>,
}

impl MemStore {
    /// An empty store with the schema version written, as a fresh data directory would have.
    pub fn new() -> Self {
        let store = Self {
            tables: Mutex::new(Default::default()),
        };
        ensure_schema(&store).expect("an in-memory store cannot fail to write");
        store
    }

    /// Locks the tables. A panic while holding the lock cannot leave a half-applied write
    /// (no operation below panics midway), so a poisoned lock is safe to take over.
    fn tables(&self) -> MutexGuard<'_, Tables> {
        self.tables.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Default for MemStore {
    fn default() -> Self {
        Self::new()
    }
}

impl Store for MemStore {
    fn get(&self, cf: ColumnFamily, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.tables()[cf.index()].get(key).cloned())
    }

    fn put(&self, cf: ColumnFamily, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.tables()[cf.index()].insert(key.to_vec(), value.to_vec());
        Ok(())
    }

    fn write(&self, batch: Batch) -> Result<(), StoreError> {
        let mut tables = self.tables();
        for op in batch.ops {
            match op {
                BatchOp::Put { cf, key, value } => {
                    tables[cf.index()].insert(key, value);
                }
                BatchOp::Delete { cf, key } => {
                    tables[cf.index()].remove(&key);
                }
            }
        }
        Ok(())
    }

    fn scan_prefix(&self, cf: ColumnFamily, prefix: &[u8]) -> Result<Vec<KeyValue>, StoreError> {
        Ok(self.tables()[cf.index()]
            .range(prefix.to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }
}
