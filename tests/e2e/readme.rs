//! The README is a front page, and the pages it leads to say what the
//! repository holds.
//!
//! - docs/findings.md's results table ("What it finds") states what the
//!   committed reports state: one row per bundled scenario, in order, with
//!   each property's verdict, the messages per acquisition, the unique states
//!   and the depth of `reports/NAME/summary.json` (which tests/e2e/bundled.rs
//!   keeps equal to a fresh `check --all`). A table copied by hand went stale
//!   once (nine scenarios missing, Redlock's counts from before a model
//!   change).
//! - README.md's first screen holds the two commands a newcomer runs first,
//!   and the README stays a front page (under 20 KB; it was 113 KB).
//! - Every relative link in README.md, CHANGELOG.md and docs/*.md leads to a
//!   file that exists.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::bundled;

/// Where the results table lives ("What it finds").
const FINDINGS: &str = "docs/findings.md";

/// The properties in the table's column order.
const COLUMNS: [&str; 6] = [
    "mutual_exclusion",
    "rw_exclusion",
    "no_stale_write",
    "no_foreign_release",
    "deadlock_freedom",
    "starvation_freedom",
];

/// The results table's row a scenario's summary makes (links relative to
/// docs/).
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
        format!("[`{name}`](../reports/{name}/trace.md)")
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
fn the_findings_results_table_is_the_committed_summaries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let findings = fs::read_to_string(root.join(FINDINGS)).expect(FINDINGS);
    let lines: Vec<&str> = findings.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.starts_with("| scenario | algorithm | mutual exclusion"))
        .expect("docs/findings.md has the results table");
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
        "docs/findings.md's results table differs from reports/*/summary.json ({} rows, {} scenarios):\n{}",
        table.len(),
        want.len(),
        stale.join("\n")
    );
}

/// The two commands a newcomer needs first: the main job on a bundled
/// scenario, and the tests.
const FIRST_COMMANDS: [&str; 2] = ["cargo run --release -- check", "cargo test --release"];

#[test]
fn the_readme_is_a_front_page_with_the_first_commands_on_its_first_screen() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).expect("README.md");
    let screen: Vec<&str> = readme.lines().take(60).collect();
    for command in FIRST_COMMANDS {
        assert!(
            screen.iter().any(|l| l.contains(command)),
            "README.md's first 60 lines do not hold `{command}`"
        );
    }
    assert!(
        readme.len() < 20 * 1024,
        "README.md is {} bytes; a front page stays under 20 KB (long sections go to docs/)",
        readme.len()
    );
}

/// The targets of a Markdown file's inline links and images (`](target)`),
/// outside fenced code blocks, each with its line number.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut targets = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push((n + 1, after[..end].to_string()));
            rest = &after[end..];
        }
    }
    targets
}

#[test]
fn every_relative_link_in_the_readme_and_docs_leads_to_a_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    let mut docs: Vec<_> = fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    let mut broken = Vec::new();
    for page in &pages {
        let text = fs::read_to_string(page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let dir = page.parent().expect("a page is in a folder");
        for (line, target) in link_targets(&text) {
            let path = target.split('#').next().unwrap_or_default();
            if path.is_empty() || path.contains("://") || path.starts_with("mailto:") {
                continue;
            }
            if !dir.join(path).exists() {
                let shown = page.strip_prefix(root).unwrap_or(page).display();
                broken.push(format!("{shown}:{line}: {target}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to files that do not exist:\n{}",
        broken.join("\n")
    );
}
