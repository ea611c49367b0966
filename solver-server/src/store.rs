//! Persistence: the [`Store`] trait over named column families, its two implementations
//! ([`RocksStore`] on disk, [`MemStore`] in memory) and the schema version kept in `meta`.
//!
//! The trait and its types must not depend on RocksDB: only the `rocks` submodule names the
//! `rocksdb` crate, so the coordinator logic can be tested on [`MemStore`] and could move to
//! another engine. Both implementations pass one conformance suite (`tests/store.rs`). This module
//! owns every key encoding used in the store (for now: the schema version key).

mod memory;
mod rocks;

use std::fmt;
use std::path::PathBuf;

pub use memory::MemStore;
pub use rocks::RocksStore;

/// Name of the column family of problems: problem id -> spec, status, root key, result.
pub const CF_PROBLEMS: &str = "problems";
/// Name of the column family of DAG nodes: (problem, key) -> pn, dn, children, flags.
pub const CF_NODES: &str = "nodes";
/// Name of the column family of solved positions: (game, parameters, key) -> value. Shared by
/// every problem of the same game and size, and never deleted with a problem.
pub const CF_TT: &str = "tt";
/// Name of the column family of store-wide facts: schema version, lease epoch, counters.
pub const CF_META: &str = "meta";

/// The schema version this build writes and reads. Bump it when an encoding changes.
pub const SCHEMA_VERSION: u32 = 1;

/// Key of the schema version in [`ColumnFamily::Meta`]; the value is a big-endian `u32`.
pub const SCHEMA_VERSION_KEY: &[u8] = b"schema_version";

/// One of the store's column families. Using this enum instead of strings means a typo is a
/// compile error and every implementation knows the complete set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ColumnFamily {
    /// [`CF_PROBLEMS`].
    Problems,
    /// [`CF_NODES`].
    Nodes,
    /// [`CF_TT`].
    Tt,
    /// [`CF_META`].
    Meta,
}

impl ColumnFamily {
    /// Every column family, in a fixed order (the order of [`ColumnFamily::index`]).
    pub const ALL: [ColumnFamily; 4] = [Self::Problems, Self::Nodes, Self::Tt, Self::Meta];

    /// The column family's name on disk.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Problems => CF_PROBLEMS,
            Self::Nodes => CF_NODES,
            Self::Tt => CF_TT,
            Self::Meta => CF_META,
        }
    }

    /// The position of this column family in [`ColumnFamily::ALL`] (0..4).
    pub const fn index(self) -> usize {
        match self {
            Self::Problems => 0,
            Self::Nodes => 1,
            Self::Tt => 2,
            Self::Meta => 3,
        }
    }
}

impl fmt::Display for ColumnFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A boxed error of a storage engine, kept as the source of a [`StoreError`].
pub type BackendError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything a store operation can fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The data directory could not be opened or created.
    #[error("cannot open the data directory {}: {source}", .path.display())]
    Open {
        /// The directory that was opened.
        path: PathBuf,
        /// The engine's error.
        source: BackendError,
    },
    /// A read, write or flush failed in the storage engine.
    #[error("storage {op} failed: {source}")]
    Backend {
        /// The operation: `get`, `put`, `write` or `flush`.
        op: &'static str,
        /// The engine's error.
        source: BackendError,
    },
    /// An open database lacks one of the column families (an invariant broken on disk).
    #[error("column family {0} is missing")]
    MissingColumnFamily(ColumnFamily),
    /// The data directory was written by a build with another schema version.
    #[error("the data directory has schema version {found}; this build reads version {expected}")]
    SchemaMismatch {
        /// The version found in `meta`.
        found: u32,
        /// [`SCHEMA_VERSION`].
        expected: u32,
    },
    /// The schema version in `meta` is not a 4-byte big-endian integer.
    #[error("the schema version in meta is malformed: {0:?}")]
    MalformedSchemaVersion(Vec<u8>),
}

/// One write of a [`Batch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchOp {
    /// Set `key` to `value` in `cf`.
    Put {
        /// The column family.
        cf: ColumnFamily,
        /// The key.
        key: Vec<u8>,
        /// The new value.
        value: Vec<u8>,
    },
    /// Remove `key` from `cf` (no error if absent).
    Delete {
        /// The column family.
        cf: ColumnFamily,
        /// The key.
        key: Vec<u8>,
    },
}

/// Writes applied atomically by [`Store::write`], in order: either all are visible or none.
/// Every write survives a crash of the process once `write` returns; a
/// [durable](Batch::make_durable) one also survives a crash of the machine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Batch {
    /// The writes, in the order they apply (a later write to the same key wins).
    ops: Vec<BatchOp>,
    /// Synced to disk before [`Store::write`] returns.
    durable: bool,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a put of `value` at `key` in `cf`.
    pub fn put(&mut self, cf: ColumnFamily, key: impl Into<Vec<u8>>, value: impl Into<Vec<u8>>) {
        self.ops.push(BatchOp::Put {
            cf,
            key: key.into(),
            value: value.into(),
        });
    }

    /// Adds a delete of `key` in `cf`.
    pub fn delete(&mut self, cf: ColumnFamily, key: impl Into<Vec<u8>>) {
        self.ops.push(BatchOp::Delete {
            cf,
            key: key.into(),
        });
    }

    /// Makes [`Store::write`] sync this batch to disk before it returns (RocksDB's
    /// `WriteOptions::set_sync`): for the rare writes whose loss in a crash of the machine
    /// would lose accepted work or reuse job ids. Other writes go to the write-ahead log
    /// without a sync, which a crash of the process does not lose.
    pub fn make_durable(&mut self) {
        self.durable = true;
    }

    /// Whether [`Batch::make_durable`] was called.
    pub fn is_durable(&self) -> bool {
        self.durable
    }

    /// The writes, in order.
    pub fn ops(&self) -> &[BatchOp] {
        &self.ops
    }

    /// Number of writes.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// Whether the batch has no writes.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// One stored entry: (key, value).
pub type KeyValue = (Vec<u8>, Vec<u8>);

/// A key-value store over the fixed [`ColumnFamily`] set.
///
/// Implementations are safe to share between threads. Calls are synchronous: an async caller
/// on a hot path should run them with `tokio::task::spawn_blocking`.
pub trait Store: Send + Sync + fmt::Debug {
    /// The value at `key` in `cf`, if any.
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the engine fails.
    fn get(&self, cf: ColumnFamily, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;

    /// Sets `key` to `value` in `cf`.
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the engine fails.
    fn put(&self, cf: ColumnFamily, key: &[u8], value: &[u8]) -> Result<(), StoreError>;

    /// Applies every write of `batch` atomically.
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the engine fails; then none of the writes is applied.
    fn write(&self, batch: Batch) -> Result<(), StoreError>;

    /// Every entry of `cf` whose key starts with `prefix`, in ascending key order.
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the engine fails.
    fn scan_prefix(&self, cf: ColumnFamily, prefix: &[u8]) -> Result<Vec<KeyValue>, StoreError>;

    /// Makes every write so far durable on disk (a no-op in memory).
    ///
    /// # Errors
    /// [`StoreError::Backend`] if the engine fails.
    fn flush(&self) -> Result<(), StoreError>;
}

/// The schema version recorded in `store`, or `None` for a store never initialised.
///
/// # Errors
/// [`StoreError::MalformedSchemaVersion`] if the stored value is not 4 bytes; engine errors.
pub fn schema_version(store: &dyn Store) -> Result<Option<u32>, StoreError> {
    match store.get(ColumnFamily::Meta, SCHEMA_VERSION_KEY)? {
        None => Ok(None),
        Some(bytes) => {
            let arr: [u8; 4] = bytes
                .as_slice()
                .try_into()
                .map_err(|_| StoreError::MalformedSchemaVersion(bytes.clone()))?;
            Ok(Some(u32::from_be_bytes(arr)))
        }
    }
}

/// Writes [`SCHEMA_VERSION`] into a fresh store, or checks that an existing store has it.
/// Both implementations call this when they open.
///
/// # Errors
/// [`StoreError::SchemaMismatch`] if the store has another version; the errors of
/// [`schema_version`].
pub fn ensure_schema(store: &dyn Store) -> Result<(), StoreError> {
    match schema_version(store)? {
        None => store.put(
            ColumnFamily::Meta,
            SCHEMA_VERSION_KEY,
            &SCHEMA_VERSION.to_be_bytes(),
        ),
        Some(SCHEMA_VERSION) => Ok(()),
        Some(found) => Err(StoreError::SchemaMismatch {
            found,
            expected: SCHEMA_VERSION,
        }),
    }
}

/// Key encodings of the coordinator's records (this module owns every key layout).
///
/// - `problems`: problem id (big-endian `u64`) -> [`records::ProblemRecord`].
/// - `nodes`: problem id (big-endian `u64`) ++ packed position (34 bytes) ->
///   [`records::NodeRecord`]; a problem's nodes share its 8-byte prefix.
/// - `tt`: game tag `b"7"` ++ packed position (34 bytes) -> one byte, 1 = Maker wins, 0 =
///   Breaker wins. The packed position carries the board width, so entries are per n.
/// - `meta`: [`keys::NEXT_PROBLEM_ID_KEY`] and [`keys::JOB_ID_CEILING_KEY`], big-endian
///   `u64`s.
pub mod keys {
    /// `meta` key of the next problem id to hand out.
    pub const NEXT_PROBLEM_ID_KEY: &[u8] = b"next_problem_id";
    /// `meta` key of the job-id ceiling: every job id handed out so far is below it, and after
    /// a restart numbering resumes from it, so a job id never names two leases.
    pub const JOB_ID_CEILING_KEY: &[u8] = b"job_id_ceiling";

    /// The `problems` key (and the `nodes` prefix) of problem `id`.
    pub fn problem(id: u64) -> [u8; 8] {
        id.to_be_bytes()
    }

    /// The problem id of a `problems` key.
    pub fn problem_id(key: &[u8]) -> Option<u64> {
        Some(u64::from_be_bytes(key.try_into().ok()?))
    }

    /// The `nodes` key of a node of problem `id` at packed position `packed`.
    pub fn node(id: u64, packed: &[u8]) -> Vec<u8> {
        let mut k = id.to_be_bytes().to_vec();
        k.extend_from_slice(packed);
        k
    }

    /// The `tt` key of a (4, n, 7^tr) position.
    pub fn seven_tt(packed: &[u8]) -> Vec<u8> {
        let mut k = b"7".to_vec();
        k.extend_from_slice(packed);
        k
    }

    /// A `u64` value of `meta`.
    pub fn decode_u64(value: &[u8]) -> Option<u64> {
        Some(u64::from_be_bytes(value.try_into().ok()?))
    }
}

/// The stored records, as protobuf messages (prost) so that fields can be added without a
/// schema bump.
pub mod records {
    use solver_proto::v1;

    /// A problem: what the client sent and how far it got.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ProblemRecord {
        /// The problem as `GetProblem` shows it (spec, status, result, counters, submit time);
        /// `progress.elapsed_ms` is the running time summed over server runs.
        #[prost(message, optional, tag = "1")]
        pub problem: Option<v1::Problem>,
        /// The client's idempotency key ("" for none).
        #[prost(string, tag = "2")]
        pub request_id: String,
        /// The packed root position (the submitted position simplified, its DAG key).
        #[prost(bytes = "vec", tag = "3")]
        pub root: Vec<u8>,
    }

    /// A DAG node. Interior numbers are not kept up to date (they are recomputed from the
    /// leaves on load): only a leaf's estimate and a solved value are authoritative.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct NodeRecord {
        /// Proof number (`u64::MAX` = infinity).
        #[prost(uint64, tag = "1")]
        pub pn: u64,
        /// Disproof number (`u64::MAX` = infinity).
        #[prost(uint64, tag = "2")]
        pub dn: u64,
        /// Whether the children below are the node's expansion.
        #[prost(bool, tag = "3")]
        pub expanded: bool,
        /// The children's packed positions.
        #[prost(bytes = "vec", repeated, tag = "4")]
        pub children: Vec<Vec<u8>>,
        /// Leases of this leaf that expired or failed.
        #[prost(uint32, tag = "5")]
        pub tries: u32,
    }
}
