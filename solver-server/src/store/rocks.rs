//! [`RocksStore`]: the [`Store`] on a RocksDB data directory, one RocksDB column family per
//! [`ColumnFamily`]. The only module of the workspace that names the `rocksdb` crate.

use std::path::{Path, PathBuf};

use rocksdb::{
    ColumnFamilyDescriptor, DB, Direction, IteratorMode, Options, WriteBatch, WriteOptions,
};

use super::{Batch, BatchOp, ColumnFamily, KeyValue, Store, StoreError, ensure_schema};

/// A [`Store`] in a RocksDB data directory. Dropping it closes the database.
pub struct RocksStore {
    /// The open database with every column family of [`ColumnFamily::ALL`].
    db: DB,
    /// The data directory, for logs and errors.
    path: PathBuf,
}

impl std::fmt::Debug for RocksStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RocksStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl RocksStore {
    /// Opens the data directory at `path`, creating it and any missing column family, and
    /// writes or checks the schema version.
    ///
    /// # Errors
    /// [`StoreError::Open`] if RocksDB cannot open the directory (missing permissions,
    /// another process holds its lock, unknown column families);
    /// [`StoreError::SchemaMismatch`] if it was written with another schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        std::fs::create_dir_all(&path).map_err(|e| StoreError::Open {
            path: path.clone(),
            source: Box::new(e),
        })?;
        let mut opts = Options::default();
        opts.create_if_missing(true);
        opts.create_missing_column_families(true);
        let cfs = ColumnFamily::ALL
            .iter()
            .map(|cf| ColumnFamilyDescriptor::new(cf.name(), Options::default()));
        let db = DB::open_cf_descriptors(&opts, &path, cfs).map_err(|e| StoreError::Open {
            path: path.clone(),
            source: Box::new(e),
        })?;
        let store = Self { db, path };
        ensure_schema(&store)?;
        Ok(store)
    }

    /// The data directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The RocksDB handle of `cf`.
    fn handle(&self, cf: ColumnFamily) -> Result<&rocksdb::ColumnFamily, StoreError> {
        self.db
            .cf_handle(cf.name())
            .ok_or(StoreError::MissingColumnFamily(cf))
    }
}

/// Wraps a RocksDB error of operation `op`.
fn backend(op: &'static str) -> impl FnOnce(rocksdb::Error) -> StoreError {
    move |e| StoreError::Backend {
        op,
        source: Box::new(e),
    }
}

impl Store for RocksStore {
    fn get(&self, cf: ColumnFamily, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.db
            .get_cf(self.handle(cf)?, key)
            .map_err(backend("get"))
    }

    fn put(&self, cf: ColumnFamily, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.db
            .put_cf(self.handle(cf)?, key, value)
            .map_err(backend("put"))
    }

    fn write(&self, batch: Batch) -> Result<(), StoreError> {
        let mut wb = WriteBatch::default();
        let Batch { ops, durable } = batch;
        for op in ops {
            match op {
                BatchOp::Put { cf, key, value } => wb.put_cf(self.handle(cf)?, key, value),
                BatchOp::Delete { cf, key } => wb.delete_cf(self.handle(cf)?, key),
            }
        }
        let mut options = WriteOptions::default();
        options.set_sync(durable);
        self.db.write_opt(wb, &options).map_err(backend("write"))
    }

    fn scan_prefix(&self, cf: ColumnFamily, prefix: &[u8]) -> Result<Vec<KeyValue>, StoreError> {
        let mut out = Vec::new();
        let iter = self.db.iterator_cf(
            self.handle(cf)?,
            IteratorMode::From(prefix, Direction::Forward),
        );
        for item in iter {
            let (k, v) = item.map_err(backend("scan"))?;
            if !k.starts_with(prefix) {
                break;
            }
            out.push((k.into_vec(), v.into_vec()));
        }
        Ok(out)
    }

    fn flush(&self) -> Result<(), StoreError> {
        for cf in ColumnFamily::ALL {
            self.db
                .flush_cf(self.handle(cf)?)
                .map_err(backend("flush"))?;
        }
        self.db.flush_wal(true).map_err(backend("flush"))
    }
}
