//! `reports/MATRIX.md` (DESIGN.md §8): algorithm variants as rows, fault
//! classes as columns, each cell the checker's verdicts for the scenarios
//! that put that variant under that fault. Everything in it comes from the
//! scenarios' own files (rows: [`variant`]; columns: [`fault_class`]) and
//! from the summaries of the check that just ran: no verdict is written
//! down anywhere else. The text depends only on its inputs (sorted rows
//! and entries, no wall time), so a rerun writes the same bytes.

pub mod fault_class;
pub mod variant;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::report::Summary;
use crate::scenario::{Scenario, ScenarioError};

use fault_class::{classes, detail, FaultClass};
use variant::variant;

/// The properties each cell shows, with the word it uses for them.
const SHOWN: [(&str, &str); 4] = [
    ("mutual_exclusion", "mutex"),
    ("rw_exclusion", "rw"),
    ("no_stale_write", "stale"),
    ("deadlock_freedom", "deadlock"),
];

/// The file's name under the reports root.
pub const FILE: &str = "MATRIX.md";

/// MATRIX.md for these checked scenarios, each with the summary its check
/// wrote. Trace links are relative to the reports root, where the file is
/// written; scenario links assume that root is `reports/` beside
/// `scenarios/`, as in this repository.
pub fn render(checked: &[(Scenario, Summary)]) -> Result<String, ScenarioError> {
    type Cell = Vec<(String, String)>;
    let mut rows: BTreeMap<(String, String), BTreeMap<FaultClass, Cell>> = BTreeMap::new();
    for (sc, summary) in checked {
        let v = variant(sc)?;
        let row = rows.entry((v.family.clone(), v.name.clone())).or_default();
        for class in classes(sc, &v) {
            let entry = entry(sc, summary, &detail(sc, &v, class));
            row.entry(class).or_default().push((sc.name.clone(), entry));
        }
    }
    let mut out = String::new();
    let _ = write!(
        out,
        "# The matrix: lock algorithms × faults

Written by `locksmith matrix` from one check of {n} scenario{s}; do not edit it (`tests/e2e/bundled.rs`
fails when it is stale). Rows are algorithm variants, columns the faults the adversary may
inject. Each cell lists the scenarios that put that variant under that fault, each with the
checker's verdicts and, where measured, the messages per acquisition in fault-free runs.

- **mutex** `mutual_exclusion`, **stale** `no_stale_write`, **deadlock** `deadlock_freedom`
  (and **rw** `rw_exclusion` where readers share the lock): ✓ holds, ✗ violated (the link
  opens the counterexample's trace.md), ? unknown (a bound stopped the search).
- — no scenario: nothing was checked there, so nothing is claimed.
- **Rows**: the algorithm and the switches that change it, named from the scenario's
  `algorithm` and `[system]` keys (`src/matrix/variant.rs`); sizes and durations (clients,
  TTL, timeouts) do not make a new row, so one cell can hold scenarios that differ in them.
- **Columns**: from the scenario's `[faults]` budget (`src/matrix/fault_class.rs`). A crash
  that may hit a server that comes back without the locks it granted (Redis without fsync,
  Redlock's masters restarting empty or delayed) is *restart without persistence*; any other
  crash is *crash*. In parentheses: the budget (who is hit, how long, whether it recovers). A
  scenario that allows several kinds of fault is listed in each of their columns, marked
  \"+ other fault\". Bounded delay and reordering are the network's behaviour, not faults.

",
        n = checked.len(),
        s = if checked.len() == 1 { "" } else { "s" },
    );
    out.push_str("| algorithm | variant |");
    for class in FaultClass::ALL {
        let _ = write!(out, " {} |", class.title());
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|".repeat(FaultClass::ALL.len()));
    out.push('\n');
    for ((family, name), mut cells) in rows {
        let _ = write!(out, "| **{family}** | {} |", if name.is_empty() { "–" } else { &name });
        for class in FaultClass::ALL {
            match cells.get_mut(&class) {
                Some(entries) => {
                    entries.sort();
                    let texts: Vec<&str> = entries.iter().map(|(_, t)| t.as_str()).collect();
                    let _ = write!(out, " {} |", texts.join("<br>"));
                }
                None => out.push_str(" — |"),
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// One scenario in a cell: its name (linked to its file), the budget in
/// parentheses, its verdicts, and messages per acquisition.
fn entry(sc: &Scenario, s: &Summary, detail: &str) -> String {
    let dir = sc.report_key().to_string_lossy().replace('\\', "/");
    let mut text = if sc.bundled {
        format!("[{0}](../scenarios/{0}.toml)", sc.name)
    } else {
        format!("`{}`", sc.name)
    };
    if !detail.is_empty() {
        let _ = write!(text, " ({detail})");
    }
    text.push(':');
    for (prop, word) in SHOWN {
        let Some(p) = s.properties.iter().find(|p| p.name == prop) else {
            continue;
        };
        let mark = match (p.verdict.as_str(), &p.trace) {
            ("holds", _) => "✓".to_string(),
            ("violated", Some(trace)) => format!("[✗]({dir}/{})", trace.replace(".json", ".md")),
            ("violated", None) => "✗".to_string(),
            _ => "?".to_string(),
        };
        let _ = write!(text, " {word} {mark}");
    }
    if let Some(m) = s.messages_per_acquisition {
        let _ = write!(text, ", {m:.2} msg/acq");
    }
    text
}

/// Writes `root/MATRIX.md` whole: into a temporary file beside it, then
/// renamed, so an interrupted run leaves the previous one.
pub fn write(root: &Path, text: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(root)?;
    let partial = root.join(format!(".{FILE}.partial-{}", std::process::id()));
    let written = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, root.join(FILE)));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written
}
