//! Helpers shared by the integration tests: reading the public test data.

/// The records of `shared/testdata/<dir>/<name>` (JSON lines; blank lines skipped). The folder
/// `shared/` sits beside the repository root.
pub fn testdata(dir: &str, name: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/../../shared/testdata/{dir}/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}: {e}")))
        .collect()
}
