//! Scenario files (docs/design.md §7): finding and reading them. This module
//! knows a file's shape, keys and types, and the world's own tables
//! (`[faults]`, `[bounds]`, `[expect]`); what a family makes of its
//! `[system]` and `[simulate]` tables, and which algorithms exist, is
//! `catalog`'s to check. Every error is one sentence naming the file, the
//! key and what is allowed.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use crate::properties::Prop;
use crate::world::{Faults, Recovery, Targets};

pub mod typed;

use typed::{Flag, Within, Word};

/// A scenario file that cannot be used, in one sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError(pub String);

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScenarioError {}

/// A property's verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Holds,
    Violated,
    /// A bound stopped the search first.
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated => "violated",
            Verdict::Unknown => "unknown",
        }
    }
}

/// One scenario as its file says it (`catalog::load` also validates it
/// against its family).
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file's stem: `check NAME` finds bundled scenario NAME.
    pub name: String,
    /// Whether this is a bundled scenario's exact text (its reports are
    /// `reports/NAME/`; an own scenario's are keyed by its path).
    pub bundled: bool,
    /// Whether `matrix --full` generated it for a cell no bundled scenario
    /// fills (its reports are `reports/generated/NAME/`,
    /// `catalog::report_key`).
    pub generated: bool,
    pub path: PathBuf,
    /// The file's text, kept so a trace can be replayed on its own.
    pub source: String,
    pub summary: String,
    pub description: String,
    pub references: Vec<String>,
    pub algorithm: String,
    /// The `[system]` table, read by the algorithm through [`Keys`].
    pub system: Table,
    pub faults: Faults,
    /// Acquisitions per client; 0 loops forever.
    pub acquisitions: u8,
    /// Check the quotient by interchangeable nodes (the algorithm says
    /// which); liveness then runs on its lifts (src/check/quotient.rs).
    pub symmetry: bool,
    /// The verdicts the scenario documents.
    pub expect: Vec<(Prop, Verdict)>,
    /// The `[simulate]` table: fault rates for `simulate` (`sim::Rates`).
    pub simulate: Table,
}

impl Scenario {
    pub fn expected(&self, prop: Prop) -> Option<Verdict> {
        self.expect.iter().find(|(p, _)| *p == prop).map(|(_, v)| *v)
    }

    /// The `[system]` table read as the family's typed keys `T`
    /// ([`typed::read`]).
    pub fn system<T: serde::de::DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        typed::read(&self.path, "[system] ", &self.system)
    }

    /// The `[simulate]` table read as typed keys `T` (`sim::Rates::read`).
    pub fn simulate<T: serde::de::DeserializeOwned>(&self) -> Result<T, ScenarioError> {
        typed::read(&self.path, "[simulate] ", &self.simulate)
    }
}

include!(concat!(env!("OUT_DIR"), "/bundled.rs"));

/// How a bundled scenario's path is written: no file has it, so `load`
/// knows to read the text embedded in the binary (`build.rs`).
const BUNDLED_PREFIX: &str = "bundled:";

/// The bundled scenarios' names, sorted.
pub fn bundled_names() -> impl Iterator<Item = &'static str> {
    BUNDLED.iter().map(|(name, _)| *name)
}

fn bundled_text(name: &str) -> Option<&'static str> {
    BUNDLED.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// The path under which `find` names bundled scenario `name`.
fn bundled_path(name: &str) -> PathBuf {
    PathBuf::from(format!("{BUNDLED_PREFIX}{name}.toml"))
}

/// Every bundled scenario, sorted by name (as paths for `load`).
pub fn all() -> Vec<PathBuf> {
    bundled_names().map(bundled_path).collect()
}

/// The bundled scenarios no file in `./scenarios/` replaces ([`find`]: a
/// local file of the same name that is not its copy wins).
pub fn not_replaced() -> Vec<PathBuf> {
    let local = local();
    bundled_names()
        .filter(|n| !local.iter().any(|l| l.file_stem().is_some_and(|s| s == *n)))
        .map(bundled_path)
        .collect()
}

/// The user's own scenarios in `./scenarios/`: files that are not a
/// bundled scenario's exact text, sorted.
pub fn local() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("scenarios")
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "toml") && !is_bundled_copy(p));
    files.sort();
    files
}

/// Whether the file at `path` is a bundled scenario, byte for byte.
fn is_bundled_copy(path: &Path) -> bool {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    bundled_text(&stem).is_some_and(|t| std::fs::read_to_string(path).is_ok_and(|f| f == t))
}

/// Finds a scenario by path (anything that is a file, or looks like a
/// path: it has a `/` or ends in `.toml`), else by name: `./scenarios/NAME.toml`
/// when it is the user's own (not a bundled scenario's exact text), with a
/// note on stderr when it replaces a bundled one, else the bundled
/// `NAME` (`redlock-no-fsync`).
pub fn find(name_or_path: &str) -> Result<PathBuf, ScenarioError> {
    let as_path = PathBuf::from(name_or_path);
    if as_path.is_file() {
        return Ok(as_path);
    }
    let looks_like_path = name_or_path.contains(std::path::MAIN_SEPARATOR) || name_or_path.ends_with(".toml");
    if looks_like_path {
        return Err(ScenarioError(format!("{name_or_path}: no such scenario file")));
    }
    let local = Path::new("scenarios").join(format!("{name_or_path}.toml"));
    if bundled_text(name_or_path).is_some() {
        // The user's own file of that name wins over the bundled one (a
        // copy of the bundled text, as in this repository's checkout, is
        // the bundled one), and says so.
        if local.is_file() && !is_bundled_copy(&local) {
            eprintln!(
                "locksmith: note: {} is used, not the bundled scenario \"{name_or_path}\"",
                local.display()
            );
            return Ok(local);
        }
        return Ok(bundled_path(name_or_path));
    }
    if local.is_file() {
        return Ok(local);
    }
    let hint = did_you_mean(name_or_path)
        .map(|n| format!("did you mean \"{n}\"? "))
        .unwrap_or_default();
    Err(ScenarioError(format!(
        "no scenario named \"{name_or_path}\": it is not bundled, not a file and not in ./scenarios/; {hint}`locksmith list` shows them all"
    )))
}

/// The bundled or local name closest to `name`, if it is close (an edit
/// distance of at most a third of its length).
fn did_you_mean(name: &str) -> Option<String> {
    let local: Vec<String> = local()
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    let candidates = bundled_names().map(str::to_string).chain(local);
    candidates
        .map(|c| (edit_distance(name, &c), c))
        .filter(|(d, _)| *d <= name.len().max(3) / 3)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = (diag + usize::from(ca != *cb)).min(row[j] + 1).min(up + 1);
            diag = up;
        }
    }
    row[b.len()]
}

/// The text of a scenario, a file or a bundled one as `find` and `all`
/// name it, with the path to read it as (a bundled scenario's is
/// `scenarios/NAME.toml`).
pub fn source(path: &Path) -> Result<(PathBuf, String), ScenarioError> {
    let text = path.to_string_lossy();
    if let Some(name) = text.strip_prefix(BUNDLED_PREFIX).and_then(|t| t.strip_suffix(".toml")) {
        let source =
            bundled_text(name).ok_or_else(|| ScenarioError(format!("no bundled scenario named \"{name}\"")))?;
        return Ok((Path::new("scenarios").join(format!("{name}.toml")), source.to_string()));
    }
    let source =
        std::fs::read_to_string(path).map_err(|e| ScenarioError(format!("{}: cannot be read: {e}", path.display())))?;
    Ok((path.to_path_buf(), source))
}

/// Reads a scenario as [`source`] finds it and [`parse`] reads it: its
/// syntax only; `catalog::load` also validates it.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let (path, source) = source(path)?;
    parse(&path, &source)
}

/// Reads scenario text as if it were the file `path`: its shape, keys and
/// types, whatever its algorithm and `[system]` say (`catalog::parse`
/// checks those).
pub fn parse(path: &Path, source: &str) -> Result<Scenario, ScenarioError> {
    read(path, source, None)
}

/// [`parse`], with `algorithm` one of `algorithms` (the families'
/// names, from `catalog::parse`). It is checked as soon as it is read,
/// so that an unknown algorithm is the error a file reports first.
pub fn parse_among(path: &Path, source: &str, algorithms: &[&str]) -> Result<Scenario, ScenarioError> {
    read(path, source, Some(algorithms))
}

fn read(path: &Path, source: &str, algorithms: Option<&[&str]>) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let table: Table = source.parse().map_err(|e: toml::de::Error| {
        let line = e
            .span()
            .map(|s| source.get(..s.start).unwrap_or(source).matches('\n').count() + 1);
        let at = line.map(|l| format!(" at line {l}")).unwrap_or_default();
        ScenarioError(format!(
            "{file}: not valid TOML{at}: {}",
            e.message().trim().replace('\n', " ")
        ))
    })?;
    let mut top = Keys::new(path, "", table);
    let summary = top.string("summary", None)?;
    let description = top.string("description", Some(""))?;
    let references = top.strings("references")?;
    let algorithm = top.string("algorithm", None)?;
    if let Some(names) = algorithms.filter(|names| !names.contains(&algorithm.as_str())) {
        return Err(ScenarioError(format!(
            "{file}: algorithm = {algorithm:?} is unknown; allowed: {}",
            quoted(names)
        )));
    }
    let system = top.table("system")?;
    let faults = faults(path, top.table("faults")?)?;
    let bounds: BoundKeys = typed::read(path, "[bounds] ", &top.table("bounds")?)?;
    let (acquisitions, symmetry) = (bounds.acquisitions.get(), bounds.symmetry.get());
    let expect = expectations(path, top.table("expect")?)?;
    let simulate = top.table("simulate")?;
    top.finish()?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bundled = bundled_text(&name) == Some(source);
    Ok(Scenario {
        bundled,
        generated: false,
        name,
        path: path.to_path_buf(),
        source: source.to_string(),
        summary,
        description,
        references,
        algorithm,
        system,
        faults,
        acquisitions,
        symmetry,
        expect,
        simulate,
    })
}

/// The `[faults]` keys as a scenario writes them, read by [`typed::read`].
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct FaultKeys {
    crashes: Within<0, 3, 0>,
    pauses: Within<0, 3, 0>,
    min_pause: Within<1, 30, 1>,
    max_pause: Within<0, 30, 0>,
    clock_jumps: Within<0, 3, 0>,
    max_jump: Within<0, 30, 0>,
    max_drift: Within<0, 5, 0>,
    max_delay: Option<Within<0, 10, 0>>,
    partitions: Within<0, 3, 0>,
    one_way: Flag<false>,
    loss: Flag<false>,
    duplicate: Flag<false>,
    reorder: Flag<false>,
    targets: Word<Targets>,
    recovery: Word<Recovery>,
}

/// The `[bounds]` keys.
#[derive(Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct BoundKeys {
    acquisitions: Within<0, 5, 1>,
    symmetry: Flag<false>,
}

fn faults(path: &Path, table: Table) -> Result<Faults, ScenarioError> {
    let k: FaultKeys = typed::read(path, "[faults] ", &table)?;
    let f = Faults {
        crashes: k.crashes.get(),
        pauses: k.pauses.get(),
        min_pause: k.min_pause.get(),
        max_pause: k.max_pause.get(),
        clock_jumps: k.clock_jumps.get(),
        max_jump: k.max_jump.get(),
        max_drift: k.max_drift.get(),
        max_delay: k.max_delay.map(Within::get),
        partitions: k.partitions.get(),
        one_way: k.one_way.get(),
        loss: k.loss.get(),
        duplicate: k.duplicate.get(),
        reorder: k.reorder.get(),
        targets: k.targets.get(),
        recovery: k.recovery.get(),
    };
    let file = path.display();
    if f.pauses > 0 && f.max_pause == 0 {
        return Err(ScenarioError(format!(
            "{file}: [faults] pauses = {} needs max_pause of 1 or more (it is 0)",
            f.pauses
        )));
    }
    if f.pauses > 0 && f.min_pause > f.max_pause {
        return Err(ScenarioError(format!(
            "{file}: [faults] min_pause = {} is longer than max_pause = {}; allowed: 1 to {}",
            f.min_pause, f.max_pause, f.max_pause
        )));
    }
    if f.one_way && f.partitions == 0 {
        return Err(ScenarioError(format!(
            "{file}: [faults] one_way = true lets a partition cut one direction of a link, but partitions is 0; allowed: partitions of 1 or more, or one_way = false"
        )));
    }
    if f.clock_jumps > 0 && f.max_jump == 0 {
        return Err(ScenarioError(format!(
            "{file}: [faults] clock_jumps = {} needs max_jump of 1 or more (it is 0)",
            f.clock_jumps
        )));
    }
    Ok(f)
}

fn expectations(path: &Path, table: Table) -> Result<Vec<(Prop, Verdict)>, ScenarioError> {
    // rw_exclusion only where readers share the lock (`algorithms::validate`).
    let props: Vec<Prop> = Prop::ALL.into_iter().chain([Prop::RwExclusion]).collect();
    let names: Vec<&str> = props.iter().map(|p| p.name()).collect();
    let mut k = Keys::new(path, "[expect] ", table);
    let mut out = Vec::new();
    for prop in props {
        let choices = [("holds", Some(Verdict::Holds)), ("violated", Some(Verdict::Violated))];
        if let Some(v) = k.choice(prop.name(), &choices, None)? {
            out.push((prop, v));
        }
    }
    k.finish_with(&names)?;
    Ok(out)
}

/// A value as one line of text: strings quoted with escapes (a newline
/// shows as `\n`), anything else as TOML writes it, on one line.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => other.to_string().replace('\n', " "),
    }
}

fn quoted(options: &[&str]) -> String {
    options
        .iter()
        .map(|o| format!("\"{o}\""))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the keys of the tables whose keys are not a fixed struct (the
/// top level, `[expect]`, whose keys are the properties), remembering
/// which were asked for so that [`Keys::finish`] can reject the rest by
/// name. The fixed tables are read by [`typed::read`].
pub struct Keys {
    file: String,
    section: &'static str,
    table: Table,
    known: Vec<&'static str>,
}

impl Keys {
    fn new(path: &Path, section: &'static str, table: Table) -> Self {
        Keys {
            file: path.display().to_string(),
            section,
            table,
            known: Vec::new(),
        }
    }

    fn err(&self, what: String) -> ScenarioError {
        ScenarioError(format!("{}: {}{what}", self.file, self.section))
    }

    fn take(&mut self, key: &'static str) -> Option<Value> {
        self.known.push(key);
        self.table.remove(key)
    }

    /// One of a few strings.
    pub fn choice<T: Copy>(
        &mut self,
        key: &'static str,
        options: &[(&str, T)],
        default: T,
    ) -> Result<T, ScenarioError> {
        match self.take(key) {
            None => Ok(default),
            Some(Value::String(s)) if options.iter().any(|(o, _)| *o == s) => Ok(options
                .iter()
                .find(|(o, _)| *o == s)
                .map(|(_, t)| *t)
                .unwrap_or(default)),
            Some(v) => {
                let names: Vec<&str> = options.iter().map(|(o, _)| *o).collect();
                Err(self.err(format!(
                    "{key} = {} is not allowed; allowed: {}",
                    shown(&v),
                    quoted(&names)
                )))
            }
        }
    }

    fn string(&mut self, key: &'static str, default: Option<&str>) -> Result<String, ScenarioError> {
        match (self.take(key), default) {
            (Some(Value::String(s)), _) => Ok(s),
            (None, Some(d)) => Ok(d.to_string()),
            (None, None) => Err(self.err(format!("the key {key} is missing; it takes a string"))),
            (Some(v), _) => Err(self.err(format!("{key} = {} is not allowed; allowed: a string", shown(&v)))),
        }
    }

    fn strings(&mut self, key: &'static str) -> Result<Vec<String>, ScenarioError> {
        match self.take(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) if items.iter().all(|i| i.is_str()) => {
                Ok(items.into_iter().filter_map(|i| i.as_str().map(String::from)).collect())
            }
            Some(v) => Err(self.err(format!(
                "{key} = {} is not allowed; allowed: a list of strings",
                shown(&v)
            ))),
        }
    }

    fn table(&mut self, key: &'static str) -> Result<Table, ScenarioError> {
        match self.take(key) {
            None => Ok(Table::new()),
            Some(Value::Table(t)) => Ok(t),
            Some(v) => Err(self.err(format!(
                "{key} = {} is not allowed; allowed: a table [{key}]",
                shown(&v)
            ))),
        }
    }

    /// Rejects every key not asked for.
    pub fn finish(self) -> Result<(), ScenarioError> {
        let known = self.known.clone();
        self.finish_with(&known)
    }

    fn finish_with(self, allowed: &[&str]) -> Result<(), ScenarioError> {
        match self.table.keys().next() {
            None => Ok(()),
            Some(key) => Err(self.err(format!("has no key {key:?}; allowed keys: {}", allowed.join(", ")))),
        }
    }
}
