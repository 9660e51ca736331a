//! Scenarios as the tool runs them: a file read by `scenario` (its syntax),
//! then checked against the family it names. The algorithm must be one of
//! [`algorithms::NAMES`], the family validates its own `[system]` table
//! ([`algorithms::validate`]) and the `[simulate]` rates must fit the fault
//! budget ([`Rates::read`]). Every command, and every test, that needs a
//! scenario it can run loads it here. Also: where a scenario's reports go.

use std::path::{Path, PathBuf};

use crate::algorithms;
use crate::scenario::{self, Scenario, ScenarioError};
use crate::sim::Rates;

/// The folder, under the reports root, that holds the scenarios `matrix
/// --full` generates and their reports.
pub const GENERATED: &str = "generated";

/// Loads and validates a scenario: a file, or a bundled one as
/// `scenario::find` and `scenario::all` name it.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let (path, source) = scenario::source(path)?;
    parse(&path, &source)
}

/// Validates scenario text as if it were the file `path`.
pub fn parse(path: &Path, source: &str) -> Result<Scenario, ScenarioError> {
    let sc = scenario::parse_among(path, source, algorithms::NAMES)?;
    // The algorithm validates its own [system] table.
    algorithms::validate(&sc)?;
    Rates::read(&sc)?;
    Ok(sc)
}

/// Finds a scenario by name or path (`scenario::find`) and loads it.
pub fn open(name_or_path: &str) -> Result<Scenario, ScenarioError> {
    scenario::find(name_or_path).and_then(|p| load(&p))
}

/// The report folder under the reports root: `NAME` for a bundled
/// scenario; `generated/NAME` for one `matrix --full` generated;
/// `own/NAME-HASH` for any other file, HASH a digest of its absolute path,
/// so that no two scenarios share a folder and a file named like a bundled
/// one never overwrites its reports.
pub fn report_key(sc: &Scenario) -> PathBuf {
    if sc.bundled {
        return PathBuf::from(&sc.name);
    }
    if sc.generated {
        return Path::new(GENERATED).join(&sc.name);
    }
    let full = std::fs::canonicalize(&sc.path).unwrap_or_else(|_| sc.path.clone());
    // FNV-1a: stable across runs and machines, unlike std's hasher.
    let hash = full
        .to_string_lossy()
        .bytes()
        .fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
    Path::new("own").join(format!("{}-{hash:08x}", sc.name))
}
