//! `matrix`: checks scenarios as `check` does and writes the
//! algorithms-by-faults table from their verdicts.

use std::io::Write;
use std::path::Path;

use crate::check::Options;
use crate::interrupt;
use crate::matrix;
use crate::scenario::{self, Scenario};

use super::check::{check_loaded, check_paths};
use super::Format;

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
) -> i32 {
    let paths = if names.is_empty() {
        Ok(scenario::all())
    } else {
        names.iter().map(|n| scenario::find(n)).collect()
    };
    let (checked, code) = check_paths(paths, opts, Format::Text, Some(reports), false, jobs, names.is_empty());
    // Bad input, or Ctrl-C: no table from a partial set of verdicts.
    if code == 2 || code == interrupt::EXIT_CODE {
        return code;
    }
    let bundled: Vec<&Scenario> = checked.iter().map(|(sc, _)| sc).filter(|sc| sc.bundled).collect();
    let full = match full {
        // Every bundled scenario was checked: the generated cells of the
        // last `--full` run whose scenarios are still what it would write.
        None if names.is_empty() => matrix::full_from_disk(reports, &bundled),
        None => None,
        Some(max_states) => {
            let (generated, absent) = match matrix::write_generated(reports, &bundled, max_states) {
                Ok(g) => g,
                Err(e) => {
                    eprintln!("locksmith: {e}");
                    return 2;
                }
            };
            let mut bounded = opts.clone();
            bounded.max_states = Some(max_states);
            say!(
                "checking {} generated scenarios (at most {max_states} states each)",
                generated.len()
            );
            let (checked, gcode) = check_loaded(generated, &bounded, Format::Text, Some(reports), jobs, false);
            if gcode == 2 || gcode == interrupt::EXIT_CODE {
                return gcode;
            }
            Some(matrix::Full {
                generated: checked,
                absent,
                max_states,
            })
        }
    };
    let written = matrix::render(&checked, full.as_ref())
        .map_err(|e| e.to_string())
        .and_then(|text| {
            matrix::write(reports, &text)
                .map_err(|e| format!("cannot write {}: {e}", reports.join(matrix::FILE).display()))
        });
    match written {
        Ok(()) => {
            say!("wrote {}", reports.join(matrix::FILE).display());
            code
        }
        Err(e) => {
            eprintln!("locksmith: {e}");
            2
        }
    }
}
