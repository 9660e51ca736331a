//! `reports/MATRIX.md` (docs/design.md §8): algorithm variants as rows, fault
//! classes as columns, each cell the checker's verdicts for the scenarios
//! that put that variant under that fault. Everything in it comes from the
//! scenarios' own files (rows: [`variant`]; columns: [`fault_class`]) and
//! from the summaries of the check that just ran: no verdict is written
//! down anywhere else. The text depends only on its inputs (sorted rows
//! and entries, no wall time), so a rerun writes the same bytes.

pub mod fault_class;
pub mod generate;
pub mod variant;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::catalog::{self, GENERATED};
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

/// What `matrix --full` adds to the bundled scenarios' cells: the
/// generated scenarios with their summaries, the cells that cannot exist
/// with the reason, and the state bound the generated checks ran under.
#[derive(Clone, Debug, Default)]
pub struct Full {
    pub generated: Vec<(Scenario, Summary)>,
    pub absent: Vec<(generate::Row, FaultClass, String)>,
    pub max_states: usize,
}

/// MATRIX.md for these checked scenarios, each with the summary its check
/// wrote, and with `full`'s generated cells when there are any. Trace
/// links are relative to the reports root `root`, where the file is
/// written; a bundled scenario's name links to `../scenarios/NAME.toml`
/// only where that file exists (a reports folder beside this repository's
/// `scenarios/`), and is plain text elsewhere (`locksmith show NAME`
/// prints it); generated scenarios are files under the root.
pub fn render(checked: &[(Scenario, Summary)], full: Option<&Full>, root: &Path) -> Result<String, ScenarioError> {
    type Cell = Vec<(String, String)>;
    let mut rows: BTreeMap<(String, String), BTreeMap<FaultClass, Cell>> = BTreeMap::new();
    let generated = full.map_or(&[][..], |f| &f.generated[..]);
    for (sc, summary) in checked.iter().chain(generated) {
        let v = variant(sc)?;
        let row = rows.entry((v.family.clone(), v.name.clone())).or_default();
        for class in classes(sc, &v) {
            let entry = entry(sc, summary, &detail(sc, &v, class), root);
            row.entry(class).or_default().push((sc.name.clone(), entry));
        }
    }
    // Cells that cannot exist: a footnote number per distinct reason.
    let mut reasons: Vec<&str> = Vec::new();
    let mut absent: BTreeMap<(generate::Row, FaultClass), usize> = BTreeMap::new();
    for (row, class, reason) in full.map_or(&[][..], |f| &f.absent[..]) {
        let n = match reasons.iter().position(|r| r == reason) {
            Some(i) => i + 1,
            None => {
                reasons.push(reason);
                reasons.len()
            }
        };
        absent.insert((row.clone(), *class), n);
        rows.entry(row.clone()).or_default();
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
{nothing}
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
        nothing = match full {
            None => "- — no scenario: nothing was checked there, so nothing is claimed.".to_string(),
            Some(f) => format!(
                "- *generated*: no bundled scenario fills the cell, so `locksmith matrix --full` wrote one
  (under `generated/`, linked) from the row's bundled scenario with the fewest faults and the
  column's standard budget (one crash; one pause or clock jump up to the TTL or session
  timeout; drift of one tick; one link cut; loss; duplication), and checked it with a bound of
  {} states: ? where the bound stopped it first.
- — (n): the combination cannot be built, for the reason in footnote n below the table.",
                f.max_states
            ),
        },
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
                None => match absent.get(&((family.clone(), name.clone()), class)) {
                    Some(n) => {
                        let _ = write!(out, " — ({n}) |");
                    }
                    None => out.push_str(" — |"),
                },
            }
        }
        out.push('\n');
    }
    if !reasons.is_empty() {
        out.push_str("\nCells that cannot exist:\n\n");
        for (i, r) in reasons.iter().enumerate() {
            let _ = writeln!(out, "{}. {}", i + 1, r.replace('\n', " "));
        }
    }
    Ok(out)
}

/// One scenario in a cell: its name (linked to its file), the budget in
/// parentheses, its verdicts, and messages per acquisition.
fn entry(sc: &Scenario, s: &Summary, detail: &str, root: &Path) -> String {
    let dir = catalog::report_key(sc).to_string_lossy().replace('\\', "/");
    let file_beside = || root.join("../scenarios").join(format!("{}.toml", sc.name)).is_file();
    let mut text = if sc.bundled && file_beside() {
        format!("[{0}](../scenarios/{0}.toml)", sc.name)
    } else if sc.generated {
        format!("*generated* [{0}]({1}/{0}.toml)", sc.name, GENERATED)
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

/// The state bound of each generated check unless `--max-states` says
/// otherwise.
pub const DEFAULT_MAX_STATES: usize = 100_000;

/// The file under `root/generated/` that records the bound of the last
/// `--full` run, so that a plain `matrix` renders its cells the same way.
const BOUND_FILE: &str = "matrix.json";

/// A generated cell's scenario, its text, and the cells that cannot exist.
type Planned = (Vec<(Scenario, String)>, Vec<(generate::Row, FaultClass, String)>);

fn planned(root: &Path, bundled: &[&Scenario]) -> Planned {
    let mut generated = Vec::new();
    let mut absent = Vec::new();
    for ((row, class), (cell, text)) in generate::plan(bundled, root) {
        match cell {
            generate::Cell::Generated { scenario, .. } => generated.push((*scenario, text.unwrap_or_default())),
            generate::Cell::Absent { reason } => absent.push((row, class, reason)),
        }
    }
    (generated, absent)
}

/// Writes every generated scenario under `root/generated/` (each file
/// whole, through a temporary file), removes what an earlier run wrote
/// there for cells that no longer need one, and records the bound. The
/// scenarios to check, and the cells that cannot exist.
#[allow(clippy::type_complexity)]
pub fn write_generated(
    root: &Path,
    bundled: &[&Scenario],
    max_states: usize,
) -> Result<(Vec<Scenario>, Vec<(generate::Row, FaultClass, String)>), String> {
    let dir = root.join(GENERATED);
    let (generated, absent) = planned(root, bundled);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let keep: std::collections::BTreeSet<String> = generated.iter().map(|(sc, _)| sc.name.clone()).collect();
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = path
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name == BOUND_FILE || keep.contains(&stem) {
                continue;
            }
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.map_err(|e| format!("cannot remove the stale {}: {e}", path.display()))?;
        }
    }
    for (sc, text) in &generated {
        write_whole(&sc.path, text)?;
    }
    write_whole(&dir.join(BOUND_FILE), &format!("{{\"max_states\": {max_states}}}\n"))?;
    Ok((generated.into_iter().map(|(sc, _)| sc).collect(), absent))
}

/// The generated cells of the last `matrix --full` under `root`, as far
/// as their scenario files still say what this version would write and
/// their summaries are there; `None` when no `--full` run wrote there.
pub fn full_from_disk(root: &Path, bundled: &[&Scenario]) -> Option<Full> {
    let dir = root.join(GENERATED);
    let bound: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join(BOUND_FILE)).ok()?).ok()?;
    let max_states = bound.get("max_states")?.as_u64()? as usize;
    let (generated, mut absent) = planned(root, bundled);
    let mut checked = Vec::new();
    for (sc, text) in generated {
        let current = std::fs::read_to_string(&sc.path).is_ok_and(|t| t == text);
        let summary = std::fs::read_to_string(dir.join(&sc.name).join("summary.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Summary>(&t).ok());
        match (current, summary) {
            (true, Some(summary)) => checked.push((sc, summary)),
            _ => {
                if let Ok(v) = variant(&sc) {
                    for class in classes(&sc, &v) {
                        absent.push((
                            (v.family.clone(), v.name.clone()),
                            class,
                            "not checked since the scenarios changed: run `locksmith matrix --full`".into(),
                        ));
                    }
                }
            }
        }
    }
    Some(Full {
        generated: checked,
        absent,
        max_states,
    })
}

/// Writes `path` whole: into a temporary file beside it, then renamed.
fn write_whole(path: &Path, text: &str) -> Result<(), String> {
    let partial = path.with_extension(format!("partial-{}", std::process::id()));
    let written = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.map_err(|e| format!("cannot write {}: {e}", path.display()))
}
