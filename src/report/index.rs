//! `reports/README.md`: the index of the bundled scenarios, written by
//! `check --all` from the summaries it has just produced, so that a reader
//! browsing `reports/` on GitHub sees every case, its verdicts and its
//! pictures on one page. Rows are sorted by scenario name, and nothing in
//! it depends on the run's wall time, so a rerun writes the same bytes.

use std::fmt::Write;
use std::path::Path;

use super::{write_synced, Summary};
use crate::properties::Prop;

/// The file name, under the reports root.
pub const FILE: &str = "README.md";

/// The index of `summaries` (one per scenario, any order).
pub fn index_md(summaries: &[Summary]) -> String {
    let mut rows: Vec<&Summary> = summaries.iter().collect();
    rows.sort_by(|a, b| a.scenario.cmp(&b.scenario));
    let mut columns: Vec<&str> = Vec::new();
    for p in [Prop::MutualExclusion, Prop::RwExclusion]
        .into_iter()
        .chain(Prop::ALL.into_iter().skip(1))
    {
        if rows.iter().any(|s| s.properties.iter().any(|q| q.name == p.name())) {
            columns.push(p.name());
        }
    }
    let mut md = String::new();
    let _ = writeln!(md, "# Reports\n");
    let _ = writeln!(
        md,
        "Written by `locksmith check --all` (never edit it by hand): one row per bundled scenario, \
         with its verdict for each property. ✓ holds; ✗ violated, with the counterexample to read \
         (trace.md: the steps, in the system's words) and to look at (trace.svg: a timeline with \
         one lane per node); ? unknown (a bound stopped the search first); – not checked for this \
         algorithm. A verdict that differs from the one the scenario expects says so. Each \
         scenario's folder holds its summary.json, and `locksmith replay` replays any trace.json.\n"
    );
    let _ = writeln!(md, "| scenario | what it shows | algorithm | {} |", columns.join(" | "));
    let _ = writeln!(md, "|---|---|---|{}", "---|".repeat(columns.len()));
    for s in rows {
        let cells: Vec<String> = columns.iter().map(|c| cell(s, c)).collect();
        let _ = writeln!(
            md,
            "| [{name}]({name}/) | {} | {} | {} |",
            escape(&s.summary),
            s.algorithm,
            cells.join(" | "),
            name = s.scenario
        );
    }
    md
}

/// One property's verdict in the index, with its traces when violated.
fn cell(s: &Summary, prop: &str) -> String {
    let Some(p) = s.properties.iter().find(|p| p.name == prop) else {
        return "–".into();
    };
    let mut out = match p.verdict.as_str() {
        "holds" => "✓".to_string(),
        "violated" => "✗".to_string(),
        _ => "?".to_string(),
    };
    if let Some(stem) = p.trace.as_deref().and_then(|t| t.strip_suffix(".json")) {
        let _ = write!(
            out,
            " [steps]({name}/{stem}.md) · [timeline]({name}/{stem}.svg)",
            name = s.scenario
        );
    }
    match &p.expected {
        Some(e) if *e != p.verdict => {
            let _ = write!(out, " (expected {e})");
        }
        _ => {}
    }
    out
}

/// Escapes a table cell.
fn escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Writes the index into `root`, whole or not at all: into a temporary
/// file first, then renamed over the old one.
pub fn write(root: &Path, summaries: &[Summary]) -> std::io::Result<()> {
    std::fs::create_dir_all(root)?;
    super::sweep_stale(root);
    let partial = root.join(format!(".{FILE}.partial-{}", std::process::id()));
    write_synced(&partial, &index_md(summaries))?;
    std::fs::rename(&partial, root.join(FILE)).inspect_err(|_| {
        let _ = std::fs::remove_file(&partial);
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::PropSummary;

    fn summary(name: &str, props: &[(&str, &str, Option<&str>)]) -> Summary {
        Summary {
            scenario: name.into(),
            algorithm: "redlock".into(),
            summary: format!("{name} | with a pipe"),
            properties: props
                .iter()
                .map(|(p, v, trace)| PropSummary {
                    name: (*p).into(),
                    verdict: (*v).into(),
                    expected: Some("violated".into()),
                    trace_steps: trace.map(|_| 3),
                    trace: trace.map(String::from),
                })
                .collect(),
            unique_states: 1,
            states: 1,
            max_depth: 1,
            fingerprint_collision_probability: 0.0,
            seconds: Some(1.5),
            search: "bfs".into(),
            complete: true,
            symmetry: false,
            notes: Vec::new(),
            faults_fired: Default::default(),
            messages_per_acquisition: None,
            version: "0".into(),
        }
    }

    #[test]
    fn rows_are_sorted_and_link_their_traces() {
        let b = summary(
            "b-case",
            &[
                ("mutual_exclusion", "violated", Some("trace.json")),
                ("no_stale_write", "violated", Some("no_stale_write.trace.json")),
            ],
        );
        let a = summary("a-case", &[("mutual_exclusion", "holds", None)]);
        let md = index_md(&[b.clone(), a.clone()]);
        assert_eq!(md, index_md(&[a, b]), "the order of the run does not matter");
        let (ia, ib) = (md.find("[a-case]").expect("a"), md.find("[b-case]").expect("b"));
        assert!(ia < ib, "sorted by name");
        assert!(md.contains("| mutual_exclusion | no_stale_write |"), "{md}");
        assert!(md.contains("✗ [steps](b-case/trace.md) · [timeline](b-case/trace.svg)"));
        assert!(md.contains("[timeline](b-case/no_stale_write.trace.svg)"));
        assert!(
            md.contains("✓ (expected violated)"),
            "a verdict against expectation shows"
        );
        assert!(md.contains("| – |"), "a property not checked");
        assert!(md.contains("with a pipe") && md.contains("\\|"), "pipes escaped");
        assert!(!md.contains("1.5"), "no wall time");
    }
}
