//! Helpers shared by the integration tests: reading the public test data.

/// The records of `shared/testdata/<dir>/<name>` (JSON lines; blank lines skipped). The folder
/// `shared/` sits beside the repository root; it is found from the package's directory at run
/// time (cargo sets `CARGO_MANIFEST_DIR` when it runs a test or a benchmark), so that a test
/// built in another checkout's target directory reads this checkout's data.
pub fn testdata(dir: &str, name: &str) -> Vec<serde_json::Value> {
    let package = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let path = format!("{package}/../../shared/testdata/{dir}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}
