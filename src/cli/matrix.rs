//! `matrix`: checks scenarios as `check` does and writes the
//! algorithms-by-faults table from their verdicts.

use std::io::Write;
use std::path::Path;

use crate::check::Options;
use crate::matrix;
use crate::scenario::{self, Scenario};

use super::check::{check_loaded, check_paths};
use super::failure::Exit;
use super::{json, Format};

/// `matrix`: checks the named scenarios (every bundled one when none is
/// named) as `check` does, writing their reports, then writes
/// `MATRIX.md` under the reports root from the summaries of that check.
/// The matrix is written even when a verdict differs from its scenario's
/// expectation (it shows what the checker found; the exit code is 1), but
/// not when a scenario could not be checked at all (exit 2).
pub(super) fn matrix_cmd(
    names: &[String],
    opts: &Options,
    reports: &Path,
    jobs: Option<usize>,
    full: Option<usize>,
    format: Format,
) -> Exit {
    let paths = if names.is_empty() {
        Ok(scenario::all())
    } else {
        names.iter().map(|n| scenario::find(n)).collect()
    };
    // Bad input, or Ctrl-C: no table from a partial set of verdicts.
    let (checked, code) = check_paths(paths, opts, format, Some(reports), jobs, names.is_empty())?;
    let bundled: Vec<&Scenario> = checked.iter().map(|(sc, _)| sc).filter(|sc| sc.bundled).collect();
    let full = match full {
        // Every bundled scenario was checked: the generated cells of the
        // last `--full` run whose scenarios are still what it would write.
        None if names.is_empty() => matrix::full_from_disk(reports, &bundled),
        None => None,
        Some(max_states) => {
            let (generated, absent) =
                matrix::write_generated(reports, &bundled, max_states).map_err(|e| e.to_string())?;
            let mut bounded = opts.clone();
            bounded.max_states = Some(max_states);
            if format == Format::Text {
                say!(
                    "checking {} generated scenarios (at most {max_states} states each)",
                    generated.len()
                );
            }
            let (checked, _) = check_loaded(generated, &bounded, format, Some(reports), jobs, false)?;
            Some(matrix::Full {
                generated: checked,
                absent,
                max_states,
            })
        }
    };
    let written = matrix::render(&checked, full.as_ref(), reports)
        .map_err(|e| e.to_string())
        .and_then(|text| {
            matrix::write(reports, &text)
                .map_err(|e| format!("cannot write {}: {e}", reports.join(matrix::FILE).display()))
        });
    written?;
    let table = reports.join(matrix::FILE);
    match format {
        Format::Text => say!("wrote {}", table.display()),
        Format::Json => {
            let generated = full.as_ref().map_or(0, |f| f.generated.len());
            say!("{}", json::matrix(&table, checked.len(), generated));
        }
    }
    Ok(code)
}
