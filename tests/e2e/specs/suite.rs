//! The two suites of specs and the state-count tables of their READMEs.

use std::fs;
use std::path::{Path, PathBuf};

use locksmith::scenario::{self, Scenario};

const TABLE_HEADER: [&str; 6] = [
    "spec",
    "cfg",
    "scenario",
    "Rust unique states",
    "TLC distinct states",
    "TLC time",
];

pub(super) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub(super) fn specs_dir() -> PathBuf {
    root().join("specs")
}

/// The two sets of specs, each a folder with a README whose table pairs
/// every `.cfg` with a scenario.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Suite {
    /// `specs/`: the clean-room specs and their MC modules.
    CleanRoom,
    /// `specs/mirror/`: the Rust state written in TLA+.
    Mirror,
}

impl Suite {
    pub(super) const ALL: [Suite; 2] = [Suite::CleanRoom, Suite::Mirror];

    pub(super) fn dir(self) -> PathBuf {
        root().join(self.rel())
    }

    /// The folder, relative to the crate root, for messages.
    pub(super) fn rel(self) -> &'static str {
        match self {
            Suite::CleanRoom => "specs",
            Suite::Mirror => "specs/mirror",
        }
    }

    /// The module a `.cfg` of this suite names for a family whose spec is
    /// `spec` (`Redlock.tla`): the clean-room `.cfg`s target the MC module.
    pub(super) fn module(self, spec: &str) -> String {
        match self {
            Suite::CleanRoom => format!("MC{spec}"),
            Suite::Mirror => spec.to_string(),
        }
    }
}

pub(super) fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: cannot be read: {e}", path.display()))
}

/// The files in `dir` with extension `ext`, sorted.
pub(super) fn spec_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: cannot be listed: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

/// One row of the table in a suite's README.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(super) suite: Suite,
    pub(crate) spec: String,
    pub(crate) cfg: String,
    /// The scenario file, relative to the crate root.
    pub(crate) scenario: String,
    pub(super) rust: usize,
    /// TLC takes minutes on it: `tlc_agrees_with_the_rust_model` skips it
    /// unless `LOCKSMITH_TLC_SLOW` is set.
    pub(crate) slow: bool,
    /// The seconds the TLC time column gives first (0 where it gives
    /// none): the test starts the longest rows first.
    pub(crate) secs: u32,
}

/// The state-count table in the suite's README: the rows under the header
/// `| spec | cfg | scenario | Rust unique states | TLC distinct states | TLC time |`.
pub(crate) fn table(suite: Suite) -> Vec<Row> {
    let path = suite.dir().join("README.md");
    let text = read(&path);
    let cells = |line: &str| -> Vec<String> {
        let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
        inner
            .split('|')
            .map(|c| c.trim().trim_matches('`').trim().to_string())
            .collect()
    };
    let mut lines = text
        .lines()
        .skip_while(|l| !(l.trim_start().starts_with('|') && cells(l) == TABLE_HEADER));
    assert!(
        lines.next().is_some(),
        "{}: no table with the header | {} |",
        path.display(),
        TABLE_HEADER.join(" | ")
    );
    let mut rows = Vec::new();
    for line in lines.take_while(|l| l.trim_start().starts_with('|')) {
        let c = cells(line);
        if c.iter().all(|c| c.chars().all(|ch| matches!(ch, '-' | ':'))) {
            continue;
        }
        assert_eq!(
            c.len(),
            TABLE_HEADER.len(),
            "{}: the row {line:?} does not have {} cells",
            path.display(),
            TABLE_HEADER.len()
        );
        let rust = c[3]
            .replace(',', "")
            .parse()
            .unwrap_or_else(|_| panic!("{}: the row {line:?} has no number in its Rust column", path.display()));
        rows.push(Row {
            suite,
            spec: c[0].clone(),
            cfg: c[1].clone(),
            scenario: c[2].clone(),
            rust,
            slow: c[5].starts_with("slow"),
            secs: first_seconds(&c[5]),
        });
    }
    assert!(
        !rows.is_empty(),
        "{}: the state-count table has no rows",
        path.display()
    );
    rows
}

pub(crate) fn load(row: &Row) -> Scenario {
    let path = root().join(&row.scenario);
    let found = scenario::find(&path.to_string_lossy()).unwrap_or_else(|e| panic!("{row:?}: {e}"));
    scenario::load(&found).unwrap_or_else(|e| panic!("{row:?}: {e}"))
}

/// The first number in `cell` followed by " s" ("106 s (the test, ...)",
/// "slow: 415 s ..."), or 0.
fn first_seconds(cell: &str) -> u32 {
    let words: Vec<&str> = cell.split_whitespace().collect();
    words
        .windows(2)
        .find_map(|w| {
            (w[1].trim_end_matches([',', ';', ':', ')']) == "s")
                .then(|| w[0].parse().ok())
                .flatten()
        })
        .unwrap_or(0)
}

#[test]
fn a_rows_tlc_time_is_its_first_seconds() {
    assert_eq!(
        first_seconds("106 s (the test, beside a run; 31 s in one direct run)"),
        106
    );
    assert_eq!(first_seconds("slow: 415 s (the test)"), 415);
    assert_eq!(first_seconds("about 2 min"), 0);
}
