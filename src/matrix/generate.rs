//! `matrix --full`: a scenario for every cell no bundled scenario fills.
//! Each row's base is its bundled scenario with the fewest faults (its
//! `[system]`, `[bounds]` and network are kept); each column has a
//! standard budget (one crash, one pause up to the TTL, one jump up to the
//! TTL, drift of one tick, one partition, loss, duplication). Where a
//! family refuses a budget, the next one is tried (any node, then the
//! servers, then the clients); where it refuses them all, or the budget
//! lands in another column (a server that keeps its locks cannot restart
//! without them), the cell cannot exist and the reason is kept for the
//! table's footnote.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::catalog::{self, GENERATED};
use crate::scenario::Scenario;

use super::fault_class::{classes, FaultClass};
use super::variant::variant;

/// A cell no bundled scenario fills.
#[derive(Clone, Debug)]
pub enum Cell {
    /// Its generated scenario, loaded from the text written beside the
    /// reports (`file` is relative to the reports root).
    Generated { scenario: Box<Scenario>, file: PathBuf },
    /// The combination cannot be built: why, in one sentence.
    Absent { reason: String },
}

/// A row: its family and variant name.
pub type Row = (String, String);

/// The cells of the rows of `bundled` that none of them fills, each with
/// its generated scenario's text or the reason it cannot exist. `root` is
/// the reports root: the scenarios are named as files under
/// `root/generated/`, but nothing is written here.
pub fn plan(bundled: &[&Scenario], root: &Path) -> BTreeMap<(Row, FaultClass), (Cell, Option<String>)> {
    let mut rows: BTreeMap<Row, (Vec<&Scenario>, BTreeSet<FaultClass>)> = BTreeMap::new();
    for sc in bundled {
        let Ok(v) = variant(sc) else { continue };
        let row = rows.entry((v.family.clone(), v.name.clone())).or_default();
        row.0.push(sc);
        row.1.extend(classes(sc, &v));
    }
    let mut out = BTreeMap::new();
    for (row, (members, covered)) in rows {
        let base = members
            .iter()
            .min_by_key(|sc| (fault_weight(sc), sc.name.clone()))
            .expect("a row has a scenario");
        for column in FaultClass::ALL.into_iter().filter(|c| !covered.contains(c)) {
            let name = file_stem(&row, column);
            let file = Path::new(GENERATED).join(format!("{name}.toml"));
            let path = root.join(&file);
            let mut reason = None;
            let mut found = None;
            for faults in budgets(base, column) {
                let text = text(base, &row, column, &faults);
                match catalog::parse(&path, &text) {
                    Ok(mut sc) => {
                        let lands = variant(&sc).is_ok_and(|v| {
                            (v.family.clone(), v.name.clone()) == row && classes(&sc, &v).contains(&column)
                        });
                        if lands {
                            sc.generated = true;
                            found = Some((sc, text));
                            break;
                        }
                        reason.get_or_insert_with(|| {
                            format!(
                                "no {} of this variant comes back without the locks it granted",
                                if column == FaultClass::RestartEmpty {
                                    "server"
                                } else {
                                    "node"
                                }
                            )
                        });
                    }
                    Err(e) => reason = Some(refusal(&e.0, &path)),
                }
            }
            let cell = match found {
                Some((sc, text)) => (
                    Cell::Generated {
                        scenario: Box::new(sc),
                        file: file.clone(),
                    },
                    Some(text),
                ),
                None => (
                    Cell::Absent {
                        reason: reason.unwrap_or_else(|| "no budget of this kind applies".into()),
                    },
                    None,
                ),
            };
            out.insert((row.clone(), column), cell);
        }
    }
    out
}

/// How much a scenario's budget allows, to pick the plainest base.
fn fault_weight(sc: &Scenario) -> u32 {
    let f = &sc.faults;
    u32::from(f.crashes)
        + u32::from(f.pauses)
        + u32::from(f.clock_jumps)
        + u32::from(f.max_drift)
        + u32::from(f.partitions)
        + u32::from(f.loss)
        + u32::from(f.duplicate)
}

/// The file stem of a generated cell: `family-variant-column`, in words
/// a file name can hold.
pub fn file_stem(row: &Row, column: FaultClass) -> String {
    let words = format!("{} {} {}", row.0, row.1, column.title());
    let mut stem = String::new();
    for ch in words.chars() {
        if ch.is_ascii_alphanumeric() {
            stem.push(ch.to_ascii_lowercase());
        } else if !stem.ends_with('-') {
            stem.push('-');
        }
    }
    stem.trim_matches('-').to_string()
}

/// The family's refusal without the file name it starts with.
fn refusal(error: &str, path: &Path) -> String {
    let prefix = format!("{}: ", path.display());
    error.strip_prefix(&prefix).unwrap_or(error).to_string()
}

/// The lease or session length the base scenario's clients rely on: a
/// pause or a jump up to it is the standard budget (the TTL must cover the
/// time to operate on the shared resource).
fn horizon(base: &Scenario) -> i64 {
    ["ttl", "session_timeout", "lease", "timeout"]
        .iter()
        .find_map(|k| base.system.get(*k).and_then(toml::Value::as_integer))
        .unwrap_or(4)
        .clamp(1, 30)
}

/// The `[faults]` budgets to try for `column`, in order (the first the
/// family accepts and that lands in the column is the cell's).
fn budgets(base: &Scenario, column: FaultClass) -> Vec<String> {
    let h = horizon(base);
    let targeted = |what: &str| -> Vec<String> {
        ["all", "servers", "clients"]
            .iter()
            .map(|t| format!("{what}\ntargets = \"{t}\"\n"))
            .collect()
    };
    match column {
        FaultClass::None => vec![String::new()],
        FaultClass::Crash => {
            let mut b = targeted("crashes = 1");
            // A variant whose servers restart empty: a crash that keeps
            // its locks is a client's, or a server's that never returns.
            b.push("crashes = 1\ntargets = \"servers\"\nrecovery = \"none\"\n".into());
            b
        }
        FaultClass::RestartEmpty => vec![
            "crashes = 1\ntargets = \"servers\"\n".into(),
            "crashes = 1\ntargets = \"all\"\n".into(),
        ],
        FaultClass::Pause => targeted(&format!("pauses = 1\nmax_pause = {h}")),
        FaultClass::ClockJump => targeted(&format!("clock_jumps = 1\nmax_jump = {h}")),
        FaultClass::Drift => targeted("max_drift = 1"),
        FaultClass::Partition => vec!["partitions = 1\n".into()],
        FaultClass::Loss => vec!["loss = true\n".into()],
        FaultClass::Duplication => vec!["duplicate = true\n".into()],
    }
}

/// The generated scenario's text: the base's system and bounds, the
/// base's network, and `faults`.
fn text(base: &Scenario, row: &Row, column: FaultClass, faults: &str) -> String {
    let variant = if row.1.is_empty() {
        String::new()
    } else {
        format!(" ({})", row.1)
    };
    let mut t = String::new();
    let _ = writeln!(
        t,
        "# Written by `locksmith matrix --full` from scenarios/{}.toml; do not edit.",
        base.name
    );
    let _ = writeln!(
        t,
        "summary = {}",
        toml_string(&format!("{}{variant} under {} (generated)", row.0, column.title()))
    );
    let _ = writeln!(
        t,
        "description = {}",
        toml_string(&format!(
            "The matrix cell {} × {}: the bundled scenario {} with the standard budget of this column, checked by `locksmith matrix --full`.",
            if row.1.is_empty() { row.0.clone() } else { format!("{} {}", row.0, row.1) },
            column.title(),
            base.name
        ))
    );
    let _ = writeln!(t, "algorithm = {}", toml_string(&base.algorithm));
    t.push_str("\n[system]\n");
    t.push_str(&toml::to_string(&base.system).unwrap_or_default());
    t.push_str("\n[faults]\n");
    if let Some(d) = base.faults.max_delay {
        let _ = writeln!(t, "max_delay = {d}");
    }
    if base.faults.reorder {
        t.push_str("reorder = true\n");
    }
    t.push_str(faults);
    t.push_str("\n[bounds]\n");
    let _ = writeln!(t, "acquisitions = {}", base.acquisitions);
    if base.symmetry {
        t.push_str("symmetry = true\n");
    }
    t
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::load;
    use crate::scenario::all;

    #[test]
    fn every_missing_cell_is_planned_and_generated_ones_land_in_their_cell() {
        let scenarios: Vec<Scenario> = all().iter().map(|p| load(p).expect("bundled")).collect();
        let refs: Vec<&Scenario> = scenarios.iter().collect();
        let plan = plan(&refs, Path::new("reports"));
        assert!(!plan.is_empty());
        for (((family, name), column), (cell, text)) in &plan {
            match cell {
                Cell::Generated { scenario, file } => {
                    let v = variant(scenario).expect("a row");
                    assert_eq!((&v.family, &v.name), (family, name));
                    assert!(classes(scenario, &v).contains(column));
                    assert!(file.starts_with(GENERATED));
                    let text = text.as_ref().expect("a generated cell has its text");
                    let again = catalog::parse(&Path::new("reports").join(file), text).expect("parses again");
                    assert_eq!(again.faults, scenario.faults);
                }
                Cell::Absent { reason } => assert!(!reason.is_empty(), "{family} {name} {column:?}"),
            }
        }
    }

    #[test]
    fn a_stem_is_a_plain_file_name() {
        let row = ("single-redis".to_string(), "SET NX PX, compare-and-delete".to_string());
        assert_eq!(
            file_stem(&row, FaultClass::RestartEmpty),
            "single-redis-set-nx-px-compare-and-delete-restart-without-persistence"
        );
    }
}
