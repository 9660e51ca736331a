//! The README's results table ("What it finds") states what the committed
//! reports state: one row per bundled scenario, in order, with each
//! property's verdict, the messages per acquisition, the unique states and
//! the depth of `reports/NAME/summary.json` (which tests/e2e/bundled.rs keeps
//! equal to a fresh `check --all`). A table copied by hand went stale once
//! (nine scenarios missing, Redlock's counts from before a model change).

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::bundled;

/// The properties in the table's column order.
const COLUMNS: [&str; 6] = [
    "mutual_exclusion",
    "rw_exclusion",
    "no_stale_write",
    "no_foreign_release",
    "deadlock_freedom",
    "starvation_freedom",
];

/// The README row a scenario's summary makes.
fn row(root: &Path, name: &str) -> String {
    let path = root.join("reports").join(name).join("summary.json");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let sm: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let verdict = |p: &str| {
        let found = sm["properties"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|q| q["name"] == p);
        match found.and_then(|q| q["verdict"].as_str()) {
            None => "–".to_string(),
            Some("violated") => "**violated**".to_string(),
            Some(v) => v.to_string(),
        }
    };
    let link = if root.join("reports").join(name).join("trace.md").is_file() {
        format!("[`{name}`](reports/{name}/trace.md)")
    } else {
        format!("`{name}`")
    };
    let messages = sm["messages_per_acquisition"]
        .as_f64()
        .map_or("–".to_string(), |m| format!("{m:.2}"));
    let verdicts: Vec<String> = COLUMNS.iter().map(|p| verdict(p)).collect();
    format!(
        "| {link} | {} | {} | {messages} | {} | {} |",
        sm["algorithm"].as_str().unwrap_or_default(),
        verdicts.join(" | "),
        sm["unique_states"],
        sm["max_depth"]
    )
}

#[test]
fn the_readme_results_table_is_the_committed_summaries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md");
    let lines: Vec<&str> = readme.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("| scenario | algorithm | mutual exclusion"))
        .expect("README.md has the results table");
    let table: Vec<&str> = lines[head + 2..]
        .iter()
        .take_while(|l| l.starts_with('|'))
        .copied()
        .collect();
    let want: Vec<String> = bundled().iter().map(|name| row(root, name)).collect();
    let stale: Vec<String> = want
        .iter()
        .filter(|w| !table.contains(&w.as_str()))
        .map(|w| format!("want: {w}"))
        .chain(
            table
                .iter()
                .filter(|t| !want.iter().any(|w| w == *t))
                .map(|t| format!("have: {t}")),
        )
        .collect();
    assert!(
        stale.is_empty() && table.len() == want.len(),
        "README.md's results table differs from reports/*/summary.json ({} rows, {} scenarios):\n{}",
        table.len(),
        want.len(),
        stale.join("\n")
    );
}
