//! The store conformance suite: every test runs against both [`MemStore`] and [`RocksStore`],
//! so the in-memory store used by tests behaves like the one on disk.

use solver_server::store::{
    Batch, ColumnFamily, MemStore, RocksStore, SCHEMA_VERSION, SCHEMA_VERSION_KEY, Store,
    StoreError, ensure_schema, schema_version,
};

/// A store under test; the tempdir (if any) lives as long as the store.
struct Fixture<S> {
    store: S,
    _dir: Option<tempfile::TempDir>,
}

fn mem() -> Fixture<MemStore> {
    Fixture {
        store: MemStore::new(),
        _dir: None,
    }
}

fn rocks() -> Fixture<RocksStore> {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = RocksStore::open(dir.path().join("data")).expect("open a fresh data directory");
    Fixture {
        store,
        _dir: Some(dir),
    }
}

fn fresh_store_has_the_schema_version(s: &dyn Store) {
    assert_eq!(schema_version(s).expect("read"), Some(SCHEMA_VERSION));
    ensure_schema(s).expect("a store of this build passes its own check");
}

fn get_of_a_missing_key_is_none(s: &dyn Store) {
    for cf in ColumnFamily::ALL {
        assert_eq!(s.get(cf, b"absent").expect("get"), None, "{cf}");
    }
}

fn put_then_get_and_overwrite(s: &dyn Store) {
    s.put(ColumnFamily::Tt, b"k", b"v1").expect("put");
    assert_eq!(
        s.get(ColumnFamily::Tt, b"k").expect("get"),
        Some(b"v1".to_vec())
    );
    s.put(ColumnFamily::Tt, b"k", b"v2").expect("put");
    assert_eq!(
        s.get(ColumnFamily::Tt, b"k").expect("get"),
        Some(b"v2".to_vec())
    );
    s.put(ColumnFamily::Tt, b"empty", b"")
        .expect("put of an empty value");
    assert_eq!(
        s.get(ColumnFamily::Tt, b"empty").expect("get"),
        Some(Vec::new())
    );
}

fn column_families_are_separate(s: &dyn Store) {
    for (i, cf) in ColumnFamily::ALL.into_iter().enumerate() {
        s.put(cf, b"shared", &[i as u8]).expect("put");
    }
    for (i, cf) in ColumnFamily::ALL.into_iter().enumerate() {
        assert_eq!(
            s.get(cf, b"shared").expect("get"),
            Some(vec![i as u8]),
            "{cf}"
        );
    }
}

fn batch_applies_in_order(s: &dyn Store) {
    s.put(ColumnFamily::Nodes, b"gone", b"x").expect("put");
    let mut b = Batch::new();
    b.put(ColumnFamily::Problems, b"p".to_vec(), b"1".to_vec());
    b.put(ColumnFamily::Nodes, b"n".to_vec(), b"first".to_vec());
    b.put(ColumnFamily::Nodes, b"n".to_vec(), b"second".to_vec());
    b.delete(ColumnFamily::Nodes, b"gone".to_vec());
    b.delete(ColumnFamily::Nodes, b"never-there".to_vec());
    b.put(ColumnFamily::Meta, b"m".to_vec(), b"3".to_vec());
    b.delete(ColumnFamily::Meta, b"m".to_vec());
    assert_eq!(b.len(), 7);
    s.write(b).expect("write");
    assert_eq!(
        s.get(ColumnFamily::Problems, b"p").expect("get"),
        Some(b"1".to_vec())
    );
    assert_eq!(
        s.get(ColumnFamily::Nodes, b"n").expect("get"),
        Some(b"second".to_vec())
    );
    assert_eq!(s.get(ColumnFamily::Nodes, b"gone").expect("get"), None);
    assert_eq!(s.get(ColumnFamily::Meta, b"m").expect("get"), None);
    s.write(Batch::new()).expect("an empty batch is fine");
    let mut b = Batch::new();
    b.make_durable();
    b.put(ColumnFamily::Meta, b"m".to_vec(), b"synced".to_vec());
    s.write(b).expect("a durable write");
    assert_eq!(
        s.get(ColumnFamily::Meta, b"m").expect("get"),
        Some(b"synced".to_vec())
    );
    s.flush().expect("flush");
}

fn other_schema_version_is_rejected(s: &dyn Store) {
    s.put(
        ColumnFamily::Meta,
        SCHEMA_VERSION_KEY,
        &(SCHEMA_VERSION + 1).to_be_bytes(),
    )
    .expect("put");
    assert!(matches!(
        ensure_schema(s),
        Err(StoreError::SchemaMismatch { found, expected })
            if found == SCHEMA_VERSION + 1 && expected == SCHEMA_VERSION
    ));
    s.put(ColumnFamily::Meta, SCHEMA_VERSION_KEY, b"xy")
        .expect("put");
    assert!(matches!(
        schema_version(s),
        Err(StoreError::MalformedSchemaVersion(v)) if v == b"xy"
    ));
}

fn scan_prefix_lists_exactly_the_prefix_in_key_order(s: &dyn Store) {
    for k in [&b"ab\x02"[..], b"ab\x01", b"ab", b"aa\xff", b"ac", b"b"] {
        s.put(ColumnFamily::Nodes, k, k).expect("put");
    }
    s.put(ColumnFamily::Tt, b"ab\x03", b"other cf")
        .expect("put");
    let keys: Vec<Vec<u8>> = s
        .scan_prefix(ColumnFamily::Nodes, b"ab")
        .expect("scan")
        .into_iter()
        .map(|(k, v)| {
            assert_eq!(k, v);
            k
        })
        .collect();
    assert_eq!(
        keys,
        vec![b"ab".to_vec(), b"ab\x01".to_vec(), b"ab\x02".to_vec()]
    );
    assert!(
        s.scan_prefix(ColumnFamily::Nodes, b"z")
            .expect("scan")
            .is_empty()
    );
    assert_eq!(
        s.scan_prefix(ColumnFamily::Nodes, b"").expect("scan").len(),
        6
    );
}

/// Runs each named case against a fresh store of every implementation.
macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod mem_store {
            $( #[test] fn $case() { super::$case(&super::mem().store) } )*
        }
        mod rocks_store {
            $( #[test] fn $case() { super::$case(&super::rocks().store) } )*
        }
    };
}

conformance!(
    fresh_store_has_the_schema_version,
    get_of_a_missing_key_is_none,
    put_then_get_and_overwrite,
    column_families_are_separate,
    batch_applies_in_order,
    other_schema_version_is_rejected,
    scan_prefix_lists_exactly_the_prefix_in_key_order,
);

// Disk-only behaviour.

#[test]
fn rocks_data_survives_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nested").join("data");
    {
        let s = RocksStore::open(&path).expect("create");
        s.put(ColumnFamily::Tt, b"k", b"v").expect("put");
    }
    let s = RocksStore::open(&path).expect("reopen");
    assert_eq!(
        s.get(ColumnFamily::Tt, b"k").expect("get"),
        Some(b"v".to_vec())
    );
    assert_eq!(schema_version(&s).expect("read"), Some(SCHEMA_VERSION));
}

#[test]
fn rocks_refuses_a_data_directory_in_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let _first = RocksStore::open(dir.path()).expect("open");
    assert!(matches!(
        RocksStore::open(dir.path()),
        Err(StoreError::Open { .. })
    ));
}

#[test]
fn rocks_refuses_another_schema_version_on_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let s = RocksStore::open(dir.path()).expect("create");
        s.put(ColumnFamily::Meta, SCHEMA_VERSION_KEY, &99u32.to_be_bytes())
            .expect("put");
    }
    assert!(matches!(
        RocksStore::open(dir.path()),
        Err(StoreError::SchemaMismatch { found: 99, .. })
    ));
}
