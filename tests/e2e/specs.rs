//! The TLA+ specs (docs/design.md §10), in two suites.
//! - `specs/`: the clean-room specs, one per family, written from the
//!   published algorithm by authors who did not read the Rust, with an MC
//!   module per family for what only TLC needs. Their contract is verdict
//!   parity: with `TLA2TOOLS_JAR` set to a `tla2tools.jar` (and `java` on
//!   the path), TLC runs on every `.cfg` of `specs/README.md`'s table and its
//!   verdict on every invariant and temporal property the `.cfg` lists must
//!   be the Rust checker's on the row's scenario, whose parameters are the
//!   `.cfg`'s constants. TLC's distinct-state count is printed beside the
//!   Rust count as information: the specs take their own steps.
//! - `specs/mirror/`: the older specs that write the Rust state in TLA+
//!   action for action (the vocabulary of the ITF traces, tests/e2e/itf.rs).
//!   Their table pins the Rust counts; TLC runs on them only with
//!   `LOCKSMITH_TLC_SLOW=1`, as on the clean-room rows marked slow.
//!
//! Every spec parses with the TLA+ grammar. Without TLC these tests say
//! loudly that TLC was not run, and fail under `CI=true`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::{self, Scenario, Verdict};

use crate::common::tla_constants::{expected_constants, strip_comments};
use tree_sitter::{Node, Parser};

const TABLE_HEADER: [&str; 6] = [
    "spec",
    "cfg",
    "scenario",
    "Rust unique states",
    "TLC distinct states",
    "TLC time",
];

/// Set (to anything) to run TLC on the rows whose TLC time says "slow" too.
const SLOW_VAR: &str = "LOCKSMITH_TLC_SLOW";
/// Names the rows (their `.cfg`s, comma-separated) to run, and no other.
const ROWS_VAR: &str = "LOCKSMITH_TLC_ROWS";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn specs_dir() -> PathBuf {
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
    const ALL: [Suite; 2] = [Suite::CleanRoom, Suite::Mirror];

    fn dir(self) -> PathBuf {
        root().join(self.rel())
    }

    /// The folder, relative to the crate root, for messages.
    fn rel(self) -> &'static str {
        match self {
            Suite::CleanRoom => "specs",
            Suite::Mirror => "specs/mirror",
        }
    }

    /// The module a `.cfg` of this suite names for a family whose spec is
    /// `spec` (`Redlock.tla`): the clean-room `.cfg`s target the MC module.
    fn module(self, spec: &str) -> String {
        match self {
            Suite::CleanRoom => format!("MC{spec}"),
            Suite::Mirror => spec.to_string(),
        }
    }
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: cannot be read: {e}", path.display()))
}

/// The files in `dir` with extension `ext`, sorted.
fn spec_files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: cannot be listed: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

fn tla_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_tlaplus::LANGUAGE.into())
        .expect("the TLA+ grammar loads");
    parser
}

/// The first ERROR or MISSING node in document order, if the tree has one.
fn first_error(node: Node<'_>) -> Option<Node<'_>> {
    if !node.has_error() {
        return None;
    }
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find_map(first_error);
    found.or(Some(node))
}

/// `None` when `text` parses cleanly, else where and what the first error is.
fn syntax_error(parser: &mut Parser, text: &str) -> Option<String> {
    let tree = parser
        .parse(text, None)
        .expect("the parser has a language and no timeout");
    first_error(tree.root_node()).map(|bad| {
        let line = bad.start_position().row + 1;
        if bad.is_missing() {
            format!("line {line}: missing {}", bad.kind())
        } else {
            format!(
                "line {line}: syntax error near {:?}",
                &text[bad.byte_range()].chars().take(40).collect::<String>()
            )
        }
    })
}

#[test]
fn every_spec_parses() {
    let specs: Vec<PathBuf> = Suite::ALL.iter().flat_map(|s| spec_files(&s.dir(), "tla")).collect();
    for suite in Suite::ALL {
        assert!(
            !spec_files(&suite.dir(), "tla").is_empty(),
            "{} holds no .tla file",
            suite.dir().display()
        );
    }
    let mut parser = tla_parser();
    for path in specs {
        if let Some(error) = syntax_error(&mut parser, &read(&path)) {
            panic!("{}: {error}", path.display());
        }
    }
}

#[test]
fn the_grammar_rejects_a_broken_spec() {
    // Guards the test above against a grammar that accepts anything.
    let broken = "---- MODULE Broken ----\nVARIABLE x\nInit == x = \nNext == x' = x + 1 /\\\n====\n";
    assert!(syntax_error(&mut tla_parser(), broken).is_some());
}

/// One row of the table in a suite's README.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    suite: Suite,
    pub(crate) spec: String,
    pub(crate) cfg: String,
    /// The scenario file, relative to the crate root.
    pub(crate) scenario: String,
    rust: usize,
    /// TLC takes minutes on it: `tlc_agrees_with_the_rust_model` skips it
    /// unless `LOCKSMITH_TLC_SLOW` is set.
    pub(crate) slow: bool,
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

#[test]
fn readme_counts_are_the_rust_models() {
    for suite in Suite::ALL {
        readme_counts(suite);
    }
}

fn readme_counts(suite: Suite) {
    let rows = table(suite);
    let dir = suite.dir();
    for cfg in spec_files(&dir, "cfg") {
        assert!(
            rows.iter().any(|r| dir.join(&r.cfg) == cfg),
            "{} has no row in {}'s table",
            cfg.display(),
            dir.join("README.md").display()
        );
    }
    for row in &rows {
        for file in [&row.spec, &row.cfg] {
            assert!(
                dir.join(file).is_file(),
                "{}/README.md names {file}, which does not exist",
                dir.display()
            );
        }
        let sc = load(row);
        // The scenario's own [expect] table holds too (its verdicts are the
        // ones TLC must reproduce).
        let rust = crate::common::meets_expectations(&sc).unique_states;
        assert_eq!(
            rust, row.rust,
            "specs/README.md says {} has {} unique states; the Rust model now finds {rust}: update the table (and rerun TLC on {})",
            row.scenario, row.rust, row.cfg
        );
    }
}

/// The constants a `.cfg` sets, by name, as written (`2`, `TRUE`, `"del"`).
fn cfg_constants(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(|l| l.split("\\*").next().unwrap_or_default().trim())
        .map(|l| l.trim_start_matches("CONSTANTS").trim_start_matches("CONSTANT").trim())
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// A scenario text with the given `[system]` and `[faults]` lines.
fn scenario_text(algorithm: &str, system: &str, faults: &str) -> String {
    format!(
        "summary = \"x\"\nalgorithm = \"{algorithm}\"\n[system]\n{system}\n[faults]\n{faults}\n[bounds]\n[expect]\n"
    )
}

#[test]
fn a_fault_the_spec_does_not_model_is_refused() {
    // Guards cfg_constants_are_the_scenarios: a scenario turning on a fault
    // its spec leaves out cannot be tabled.
    let cases = [
        ("primary-replica", "max_drift = 1"),
        ("primary-replica", "clock_jumps = 1\nmax_jump = 2"),
        ("redlock", "reorder = true"),
        ("single-redis", "reorder = true"),
        ("lock-table", "reorder = true"),
        ("coordinator", "partitions = 1"),
        ("token-ring", "loss = true"),
        ("ricart-agrawala", "partitions = 1"),
    ];
    for (algorithm, faults) in cases {
        let text = scenario_text(algorithm, "", faults);
        let sc = scenario::parse(Path::new("unmodelled.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
        let refusal = expected_constants(&sc).err();
        assert!(
            refusal.as_ref().is_some_and(|e| e.contains("does not model it")),
            "{algorithm} with {faults:?}: {refusal:?}"
        );
    }
    // Nor can a scenario checked with symmetry reduction.
    let text = scenario_text("redlock", "", "max_delay = 1").replace("[bounds]\n", "[bounds]\nsymmetry = true\n");
    let sc = scenario::parse(Path::new("symmetric.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
    assert!(expected_constants(&sc).is_err_and(|e| e.contains("symmetry")));
    // And the faults World.tla models are accepted.
    for (algorithm, spec) in [
        ("redlock", "Redlock.tla"),
        ("single-redis", "SingleRedis.tla"),
        ("lock-table", "LockTable.tla"),
    ] {
        let faults = "clock_jumps = 1\nmax_jump = 2\nmax_drift = 1\npartitions = 1\nloss = true\nduplicate = true";
        let text = scenario_text(algorithm, "", faults);
        let sc = scenario::parse(Path::new("modelled.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(expected_constants(&sc).map(|(s, _)| s), Ok(spec), "{algorithm}");
    }
}

#[test]
fn cfg_constants_are_the_scenarios() {
    for row in Suite::ALL.into_iter().flat_map(table) {
        let sc = load(&row);
        let (spec, expected) = expected_constants(&sc).unwrap_or_else(|e| panic!("{e}"));
        let module = row.suite.module(spec);
        assert_eq!(
            row.spec,
            module,
            "{}/README.md: {} is a {} scenario, modelled by {module}",
            row.suite.dir().display(),
            row.scenario,
            sc.algorithm
        );
        let actual = cfg_constants(&read(&row.suite.dir().join(&row.cfg)));
        assert_eq!(
            actual, expected,
            "specs/{}: its CONSTANTS differ from {}",
            row.cfg, row.scenario
        );
    }
}

// ---------------------------------------------------------------------------
// TLC: its verdict on every property of every .cfg, and its state count.
// ---------------------------------------------------------------------------

/// Where `tla2tools.jar` is; `java` must be on the path.
const JAR_VAR: &str = "TLA2TOOLS_JAR";

/// The TLA+ operator each of the five properties is checked by, in every spec.
fn prop_of(name: &str) -> Option<Prop> {
    Some(match name {
        "MutualExclusion" => Prop::MutualExclusion,
        "RwExclusion" => Prop::RwExclusion,
        "NoStaleWrite" => Prop::NoStaleWrite,
        "NoForeignRelease" => Prop::NoForeignRelease,
        "DeadlockFreedom" => Prop::DeadlockFreedom,
        "StarvationFreedom" => Prop::StarvationFreedom,
        _ => return None,
    })
}

/// Whether this run is CI's: `CI` set to anything but empty, `false` or `0`
/// (CI sets `CI=true`).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

/// Writes straight to the process's stderr, which the test harness does
/// not capture, so that the line shows even when the test passes.
fn loud(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// A way to run TLC: the jar, and `java` on the path.
pub(crate) struct Tlc {
    pub(crate) jar: PathBuf,
}

/// Where TLC's `.cfg` sections begin (TLC's `tlc2.tool.impl.ModelConfig`).
pub(crate) const CFG_KEYWORDS: [&str; 18] = [
    "SPECIFICATION",
    "INIT",
    "NEXT",
    "CONSTANT",
    "CONSTANTS",
    "INVARIANT",
    "INVARIANTS",
    "PROPERTY",
    "PROPERTIES",
    "VIEW",
    "SYMMETRY",
    "CONSTRAINT",
    "CONSTRAINTS",
    "ACTION_CONSTRAINT",
    "ACTION_CONSTRAINTS",
    "CHECK_DEADLOCK",
    "POSTCONDITION",
    "ALIAS",
];

/// A `.cfg`: the names its INVARIANT(S) and PROPERTY(IES) sections list,
/// and the rest of it (comments dropped), to write back with fewer names.
#[derive(Debug, Clone, PartialEq)]
struct Cfg {
    rest: String,
    invariants: Vec<String>,
    properties: Vec<String>,
}

impl Cfg {
    fn parse(text: &str) -> Cfg {
        let clean = strip_comments(text);
        let mut cfg = Cfg {
            rest: String::new(),
            invariants: Vec::new(),
            properties: Vec::new(),
        };
        // The section being read: None outside INVARIANT/PROPERTY sections.
        let mut listing: Option<bool> = None;
        let mut kept_from = Some(0);
        let mut pos = 0;
        for token in clean.split_whitespace() {
            let at = pos + clean[pos..].find(token).expect("the token is in the text");
            pos = at + token.len();
            if CFG_KEYWORDS.contains(&token) {
                let names = match token {
                    "INVARIANT" | "INVARIANTS" => Some(true),
                    "PROPERTY" | "PROPERTIES" => Some(false),
                    _ => None,
                };
                match (kept_from, names) {
                    (Some(from), Some(_)) => {
                        cfg.rest.push_str(&clean[from..at]);
                        kept_from = None;
                    }
                    (None, None) => kept_from = Some(at),
                    _ => {}
                }
                listing = names;
            } else if let Some(invariant) = listing {
                let list = if invariant {
                    &mut cfg.invariants
                } else {
                    &mut cfg.properties
                };
                list.push(token.to_string());
            }
        }
        if let Some(from) = kept_from {
            cfg.rest.push_str(&clean[from..]);
        }
        cfg
    }

    /// The `.cfg` with only the given invariants and properties.
    fn render(&self, invariants: &[String], properties: &[String]) -> String {
        let mut text = self.rest.trim_end().to_string();
        text.push('\n');
        for (keyword, names) in [("INVARIANTS", invariants), ("PROPERTIES", properties)] {
            if !names.is_empty() {
                text.push_str(keyword);
                text.push('\n');
                for name in names {
                    text.push_str(&format!("    {name}\n"));
                }
            }
        }
        text
    }
}

/// One message of TLC's `-tool` output: `@!@!@STARTMSG code:severity @!@!@`,
/// its text, `@!@!@ENDMSG code @!@!@`. Severity 1 is an error.
#[derive(Debug)]
struct TlcMessage {
    code: u32,
    severity: u32,
    text: String,
}

/// TLC's messages, and the lines printed outside any (SANY's, Java's).
fn tlc_messages(output: &str) -> (Vec<TlcMessage>, Vec<String>) {
    let (mut messages, mut loose) = (Vec::new(), Vec::new());
    let mut open: Option<TlcMessage> = None;
    for line in output.lines() {
        if let Some(head) = line.strip_prefix("@!@!@STARTMSG ") {
            let head = head.trim_end_matches("@!@!@").trim();
            let (code, severity) = head.split_once(':').unwrap_or((head, "0"));
            if let Some(m) = open.take() {
                messages.push(m);
            }
            open = Some(TlcMessage {
                code: code.parse().unwrap_or(0),
                severity: severity.parse().unwrap_or(0),
                text: String::new(),
            });
        } else if line.starts_with("@!@!@ENDMSG ") {
            messages.extend(open.take());
        } else if let Some(m) = open.as_mut() {
            m.text.push_str(line);
            m.text.push('\n');
        } else if !line.trim().is_empty() {
            loose.push(line.to_string());
        }
    }
    messages.extend(open);
    (messages, loose)
}

/// What a TLC run found wrong: TLC names the invariant (or the property
/// it checks as an invariant, such as `[]P`) it found violated, but not
/// which temporal property.
#[derive(Debug, Clone, PartialEq)]
enum Violation {
    Named(String),
    Temporal,
}

/// How a TLC run ended without an error of its own.
#[derive(Debug, Clone, PartialEq)]
struct TlcRun {
    violation: Option<Violation>,
    /// The distinct states, when TLC explored the whole state space: it
    /// found no error, or it found a temporal property violated (with
    /// `-lncheck final`, only once the search is complete).
    distinct: Option<usize>,
    /// The invariants a recording run ([`recorder_module`]) printed false
    /// in some state.
    recorded: BTreeSet<String>,
}

/// TLC's codes (`tlc2.output.EC`) for "Model checking completed. No error
/// has been found.", the closing statistics, and "Checking temporal
/// properties for the complete state space".
const TLC_SUCCESS: u32 = 2193;
const TLC_STATS: u32 = 2199;
const TLC_CHECKING_TEMPORAL_PROPS: u32 = 2192;

/// What TLC's `-tool` output and exit status say; an error (with TLC's
/// own words) when TLC failed otherwise than by finding a violation: a
/// parse or semantic error, a bad `.cfg`, an exception. Exit statuses
/// (`EC.ExitStatus`): 0 no error, 10 to 14 a violation (assumption,
/// deadlock, safety, liveness, assert), 75 and up TLC's own failures.
fn interpret(output: &str, status: Option<i32>) -> Result<TlcRun, String> {
    let (messages, loose) = tlc_messages(output);
    let violation = messages.iter().filter(|m| m.severity == 1).find_map(|m| {
        let text = m.text.trim();
        if text.starts_with("Temporal properties were violated") {
            return Some(Violation::Temporal);
        }
        ["Invariant ", "Action property ", "Property "]
            .iter()
            .find_map(|prefix| {
                let rest = text.strip_prefix(prefix)?;
                let (name, rest) = rest.split_once(' ')?;
                rest.starts_with("is violated")
                    .then(|| Violation::Named(name.to_string()))
            })
    });
    let distinct = messages.iter().rev().filter(|m| m.code == TLC_STATS).find_map(|m| {
        let before = m.text.split(" distinct states found").next()?;
        before.rsplit(' ').next()?.replace(',', "").parse::<usize>().ok()
    });
    // Read from every line, not only those outside TLC's messages: a
    // worker's PrintT can land between the lines of a message the main
    // thread prints, and a line missed there would make an invariant hold.
    let recorded: BTreeSet<String> = output
        .lines()
        .filter_map(|l| {
            let name = l.trim().strip_prefix(&format!("<<\"{RECORDED}\", \""))?;
            Some(name.strip_suffix("\">>")?.to_string())
        })
        .collect();
    let has = |code: u32| messages.iter().any(|m| m.code == code);
    let errors = || {
        let mut text: Vec<String> = messages
            .iter()
            .filter(|m| m.severity == 1)
            .map(|m| m.text.trim().to_string())
            .collect();
        text.extend(
            loose
                .iter()
                .filter(|l| !l.starts_with("Parsing file") && !l.starts_with("Semantic processing"))
                .cloned(),
        );
        let mut text = text.join("\n");
        if text.len() > 4000 {
            let mut cut = 4000;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("\n[...]");
        }
        format!("TLC exited with status {status:?}:\n{text}")
    };
    match violation {
        Some(v) => {
            if status == Some(0) {
                return Err(format!("TLC reports {v:?} but exits with status 0: {}", errors()));
            }
            // A violation is the verdict, whatever follows it: under a VIEW,
            // TLC may then fail to rebuild the counterexample and exit with
            // another status (tlaplus/tlaplus#1045).
            let complete = v == Violation::Temporal && has(TLC_CHECKING_TEMPORAL_PROPS);
            Ok(TlcRun {
                violation: Some(v),
                distinct: distinct.filter(|_| complete),
                recorded,
            })
        }
        None if status == Some(0) && has(TLC_SUCCESS) && distinct.is_some() => Ok(TlcRun {
            violation: None,
            distinct,
            recorded,
        }),
        None => Err(errors()),
    }
}

impl Tlc {
    /// TLC, if `TLA2TOOLS_JAR` names a jar and `java` runs; else why not.
    fn find() -> Result<Tlc, String> {
        let jar = std::env::var_os(JAR_VAR).ok_or(format!("{JAR_VAR} is not set"))?;
        let jar = PathBuf::from(jar);
        if !jar.is_file() {
            return Err(format!("{JAR_VAR}={} is not a file", jar.display()));
        }
        match Command::new("java").arg("-version").output() {
            Ok(out) if out.status.success() => Ok(Tlc { jar }),
            Ok(out) => Err(format!(
                "`java -version` fails: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )),
            Err(e) => Err(format!("`java` does not run: {e}")),
        }
    }

    /// TLC for a test, or `None` after saying loudly that TLC was not run
    /// (`what`, for whom). Under CI, and whenever `TLA2TOOLS_JAR` is set,
    /// a TLC that cannot run fails the test.
    pub(crate) fn for_test(what: &str) -> Option<Tlc> {
        match Tlc::find() {
            Ok(tlc) => Some(tlc),
            Err(why) => {
                let how = "see specs/README.md, \"Running TLC\"; .ci/run installs both";
                if in_ci() || std::env::var_os(JAR_VAR).is_some() {
                    panic!("TLC is needed for {what} and cannot run: {why} ({how})");
                }
                loud(&format!(
                    "\n*** TLC NOT RUN on {what}: {why}. This test passes without checking TLC's verdicts \
                     (it fails under CI=true). Set {JAR_VAR} to tla2tools.jar ({how}).\n"
                ));
                None
            }
        }
    }

    /// Runs TLC from `dir` on the module `spec` with the `.cfg` at `cfg`,
    /// its state files under `meta` (removed afterwards). `library`: one
    /// more folder where the modules `spec` extends are found, before
    /// specs/.
    fn run(&self, dir: &Path, spec: &str, cfg: &Path, meta: &Path, library: Option<&Path>) -> Result<TlcRun, String> {
        // Each run gets its own temporary directory: TLC unpacks its
        // standard modules there, and two TLCs unpacking into one shared
        // directory at once made one fail to parse (seen once: "Module-Table
        // lookup failure", a NullPointerException).
        let tmp = meta.with_extension("tmp");
        fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let output = Command::new("java")
            .arg(format!("-Djava.io.tmpdir={}", tmp.display()))
            // specs/mirror's modules extend specs/World.tla.
            .arg(match library {
                Some(first) => format!("-DTLA-Library={}:{}", first.display(), specs_dir().display()),
                None => format!("-DTLA-Library={}", specs_dir().display()),
            })
            // The CI rows are small (seconds of search): common/jvm.rs.
            .args(crate::common::jvm::tlc_flags(&self.jar))
            .arg("-cp")
            .arg(&self.jar)
            .args([
                "tlc2.TLC",
                "-tool",
                "-deadlock",
                "-lncheck",
                "final",
                "-workers",
                "1",
                "-metadir",
            ])
            .arg(meta)
            .arg("-config")
            .arg(cfg)
            .arg(spec)
            .current_dir(dir)
            .output()
            .map_err(|e| format!("java does not run: {e}"))?;
        let _ = fs::remove_dir_all(meta);
        let _ = fs::remove_dir_all(&tmp);
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        interpret(&text, output.status.code())
    }
}

/// TLC's verdicts on one `.cfg`: the names it lists under INVARIANTS and
/// PROPERTIES, those found violated, and the distinct-state count of a
/// complete search.
#[derive(Debug)]
struct TlcVerdicts {
    checked: Vec<String>,
    violated: BTreeSet<String>,
    /// `None` when every name was found violated before any run searched
    /// the whole space (a CI row that only shows its violation).
    distinct: Option<usize>,
    /// One line per TLC run: what it checked and found.
    runs: Vec<String>,
}

/// The module of a recording run: `spec` with one invariant, [`RECORD`],
/// which holds in every state but prints the name of each of
/// `invariants` that is false there. TLC evaluates it on every distinct
/// state, as it would each invariant, and does not stop: one search finds
/// every invariant violated somewhere, where TLC alone stops at the
/// first and needs a run per violated invariant, plus one.
fn recorder_module(spec: &str, invariants: &[String]) -> String {
    let mut text = format!(
        "---- MODULE {RECORDER} ----\nEXTENDS {}, TLC\n{RECORD} ==\n    /\\ TRUE\n",
        spec.trim_end_matches(".tla")
    );
    for name in invariants {
        text.push_str(&format!("    /\\ ~{name} => PrintT(<<\"{RECORDED}\", \"{name}\">>)\n"));
    }
    text.push_str("====\n");
    text
}

/// The recording run's module and invariant, and the word its lines start
/// with ([`recorder_module`]).
const RECORDER: &str = "LocksmithVerdicts";
const RECORD: &str = "LocksmithRecord";
const RECORDED: &str = "locksmith-violated";

/// Runs TLC on `spec` (in `dir`) with the `.cfg` text `cfg_text` until
/// every name it checks has a verdict. The invariants are recorded, not
/// checked ([`recorder_module`]): an invariant printed false is violated,
/// and once a run has searched the whole space the others hold. TLC stops
/// at the first property it checks as an invariant (`[]P`) found
/// violated, and reports a temporal violation without saying which
/// property: each named violation is recorded and the name dropped from a
/// copy of the `.cfg` (written under `work`), and TLC runs again; when TLC
/// reports a temporal violation, the search was complete (`-lncheck
/// final`), and each property left is checked alone. A `.cfg` that lists
/// only the invariants it shows violated ([`INVARIANTS_LEFT_OUT`]: its
/// whole space is too big for CI) has them checked by TLC itself, which
/// stops at the first violation.
fn tlc_verdicts(tlc: &Tlc, dir: &Path, spec: &str, cfg_text: &str, work: &Path) -> Result<TlcVerdicts, String> {
    fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    let cfg = Cfg::parse(cfg_text);
    let mut found = TlcVerdicts {
        checked: cfg.invariants.iter().chain(&cfg.properties).cloned().collect(),
        violated: BTreeSet::new(),
        distinct: None,
        runs: Vec::new(),
    };
    let mut distinct: Option<usize> = None;
    let run = |invariants: &[String],
               properties: &[String],
               recording: bool,
               found: &mut TlcVerdicts,
               distinct: &mut Option<usize>|
     -> Result<TlcRun, String> {
        let n = found.runs.len() + 1;
        let path = work.join(format!("run-{n}.cfg"));
        let record = [RECORD.to_string()];
        let listed = if recording { &record[..] } else { invariants };
        fs::write(&path, cfg.render(listed, properties)).map_err(|e| format!("{}: {e}", path.display()))?;
        let start = std::time::Instant::now();
        let checks = invariants
            .iter()
            .chain(properties)
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        let meta = work.join(format!("meta-{n}"));
        let result = if recording {
            let module = work.join(format!("{RECORDER}.tla"));
            fs::write(&module, recorder_module(spec, invariants)).map_err(|e| format!("{}: {e}", module.display()))?;
            tlc.run(work, RECORDER, &path, &meta, Some(dir))
        } else {
            tlc.run(dir, spec, &path, &meta, None)
        }
        .map_err(|e| format!("TLC run {n} (checking {checks}): {e}"))?;
        let recorded: Vec<&str> = result.recorded.iter().map(String::as_str).collect();
        found.runs.push(format!(
            "run {n}, {:.0} s, {} [{checks}]: {}{}{}",
            start.elapsed().as_secs_f64(),
            if recording { "recording" } else { "checking" },
            if recorded.is_empty() {
                String::new()
            } else {
                format!("{} false in some state; ", recorded.join(" "))
            },
            match &result.violation {
                None => "no error".to_string(),
                Some(Violation::Named(p)) => format!("{p} violated"),
                Some(Violation::Temporal) => "temporal properties violated".to_string(),
            },
            result
                .distinct
                .map_or(String::new(), |d| format!(", {d} distinct states")),
        ));
        if let Some(d) = result.distinct {
            if distinct.is_some_and(|before| before != d) {
                return Err(format!(
                    "TLC's complete searches disagree: {distinct:?} and {d} distinct states"
                ));
            }
            *distinct = Some(d);
        }
        Ok(result)
    };
    let (mut invariants, mut properties) = (cfg.invariants.clone(), cfg.properties.clone());
    let record = !cfg_text.contains(INVARIANTS_LEFT_OUT);
    // Each run but the last takes a name out: at most one run per name, plus one.
    for _ in 0..=found.checked.len() {
        let recording = record && !invariants.is_empty();
        let result = run(&invariants, &properties, recording, &mut found, &mut distinct)?;
        if recording {
            if let Some(name) = result.recorded.iter().find(|n| !invariants.contains(n)) {
                return Err(format!("TLC printed {name} false, which this run did not record"));
            }
            invariants.retain(|n| !result.recorded.contains(n));
            found.violated.extend(result.recorded.iter().cloned());
            if result.distinct.is_some() {
                // The whole space was searched: the invariants not printed
                // hold.
                invariants.clear();
            }
        }
        match result.violation {
            None => break,
            Some(Violation::Named(name)) => {
                if !invariants.contains(&name) && !properties.contains(&name) {
                    return Err(format!(
                        "TLC reports {name} violated, which the .cfg does not ask it to check"
                    ));
                }
                invariants.retain(|n| *n != name);
                properties.retain(|n| *n != name);
                found.violated.insert(name);
                if invariants.is_empty() && properties.is_empty() {
                    break;
                }
            }
            Some(Violation::Temporal) => {
                // Every invariant left holds; which properties are violated?
                let last = properties.len().saturating_sub(1);
                for (i, p) in properties.iter().enumerate() {
                    let none_yet = !properties[..i].iter().any(|q| found.violated.contains(q));
                    let violated = if i == last && none_yet {
                        // The others hold, and TLC found one violated.
                        true
                    } else {
                        match run(&[], std::slice::from_ref(p), false, &mut found, &mut distinct)?.violation {
                            None => false,
                            Some(Violation::Temporal) => true,
                            Some(Violation::Named(n)) if n == *p => true,
                            Some(Violation::Named(n)) => {
                                return Err(format!("TLC, checking {p} alone, reports {n} violated"))
                            }
                        }
                    };
                    if violated {
                        found.violated.insert(p.clone());
                    }
                }
                properties.clear();
                break;
            }
        }
    }
    if distinct.is_none() && !(invariants.is_empty() && properties.is_empty()) {
        // No run searched the whole state space, though some names hold
        // (a run stopped at a violation it could not print): search it
        // once more with what holds.
        let result = run(&invariants, &[], false, &mut found, &mut distinct)?;
        if let Some(v) = result.violation {
            return Err(format!("TLC, rerun with the invariants left, reports {v:?}"));
        }
    }
    found.distinct = distinct;
    Ok(found)
}

/// Where TLC's verdicts on `cfg` differ from the Rust checker's on the
/// row's scenario: one line per disagreement.
fn disagreements(cfg: &str, cfg_text: &str, tlc: &TlcVerdicts, rust: &crate::common::Result) -> Vec<String> {
    let mut out = Vec::new();
    let word = |violated: bool| if violated { "violated" } else { "holds" };
    for p in Prop::ALL {
        if !tlc.checked.iter().any(|n| prop_of(n) == Some(p)) && !left_out(cfg_text, p) {
            out.push(format!(
                "specs/{cfg}: checks no {} (list it under INVARIANTS or PROPERTIES)",
                p.name()
            ));
        }
    }
    for name in &tlc.checked {
        let tlc_violated = tlc.violated.contains(name);
        match prop_of(name) {
            None if tlc_violated => out.push(format!(
                "specs/{cfg}: TLC finds {name} violated (not a property: the spec is wrong)"
            )),
            None => {}
            Some(p) => match rust.verdict(p) {
                Verdict::Unknown => out.push(format!(
                    "specs/{cfg}: the Rust checker's verdict on {} is unknown",
                    p.name()
                )),
                v if (v == Verdict::Violated) != tlc_violated => out.push(format!(
                    "specs/{cfg}: {name} ({}): TLC {}, Rust {}",
                    p.name(),
                    word(tlc_violated),
                    v.as_str()
                )),
                _ => {}
            },
        }
    }
    out
}

/// Runs TLC on one row's `.cfg` and the Rust checker on its scenario, and
/// says loudly what TLC found; the disagreements.
fn tlc_row(tlc: &Tlc, row: &Row) -> Vec<String> {
    let started = std::time::Instant::now();
    let rust = crate::common::run(&load(row), Options::default());
    // Named by suite too: specs/ and specs/mirror/ share some `.cfg` names,
    // and their rows run at once under LOCKSMITH_TLC_SLOW.
    let suite = row.suite.rel().replace('/', "-");
    let work = crate::common::TempDir::new(&format!("tlc-{suite}-{}", row.cfg.trim_end_matches(".cfg")));
    let cfg_text = read(&row.suite.dir().join(&row.cfg));
    let module = row.spec.trim_end_matches(".tla");
    match tlc_verdicts(tlc, &row.suite.dir(), module, &cfg_text, work.path()) {
        Err(e) => vec![format!("{}/{}: {e}", row.suite.rel(), row.cfg)],
        Ok(v) => {
            let wrong = disagreements(&row.cfg, &cfg_text, &v, &rust);
            let violated: Vec<&str> = v.violated.iter().map(String::as_str).collect();
            loud(&format!(
                "TLC on {}/{} ({:.0} s): {} distinct states (Rust: {} unique), violated: [{}]; {}\n    {}",
                row.suite.rel(),
                row.cfg,
                started.elapsed().as_secs_f64(),
                v.distinct
                    .map_or("not searched in full".to_string(), |d| format!("{d}")),
                rust.unique_states,
                violated.join(", "),
                if wrong.is_empty() {
                    "agrees with the Rust model"
                } else {
                    "DISAGREES with the Rust model"
                },
                v.runs.join("\n    ")
            ));
            wrong
        }
    }
}

#[test]
fn tlc_agrees_with_the_rust_model() {
    let Some(tlc) = Tlc::for_test("specs/*.cfg") else {
        return;
    };
    let slow_too = std::env::var_os(SLOW_VAR).is_some();
    // `LOCKSMITH_TLC_ROWS=Redlock.cfg,specs/mirror/Redlock.cfg`: only those
    // rows (a bare name in either suite), slow or not, to settle some rows'
    // verdicts without the whole table.
    let only: Option<Vec<String>> = std::env::var(ROWS_VAR)
        .ok()
        .map(|v| v.split(',').map(|c| c.trim().to_string()).collect());
    let (slow, rows): (Vec<Row>, Vec<Row>) = Suite::ALL
        .into_iter()
        .flat_map(table)
        .filter(|r| {
            let path = format!("{}/{}", r.suite.rel(), r.cfg);
            only.as_ref().is_none_or(|o| o.contains(&r.cfg) || o.contains(&path))
        })
        .partition(|r| r.slow && !slow_too && only.is_none());
    if !slow.is_empty() {
        let names: Vec<String> = slow.iter().map(|r| format!("{}/{}", r.suite.rel(), r.cfg)).collect();
        loud(&format!(
            "\n*** TLC NOT RUN on {}: the table marks them slow; set {SLOW_VAR}=1 to run them (see specs/README.md)\n",
            names.join(", ")
        ));
    }
    // One TLC (one worker) per core, on the rows in turn.
    let jobs = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(rows.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(vec![Vec::new(); rows.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(row) = rows.get(i) else { break };
                let wrong = tlc_row(&tlc, row);
                failures.lock().expect("no thread panicked holding it")[i] = wrong;
            });
        }
    });
    let failures = failures.into_inner().expect("no thread panicked holding it").concat();
    assert!(
        failures.is_empty(),
        "TLC and the Rust model disagree:\n{}",
        failures.join("\n")
    );
}

/// The comment with which a `.cfg` that lists no temporal property says why.
const LIVENESS_LEFT_OUT: &str = "\\* Temporal properties left out:";

/// The comment with which a `.cfg` that lists only the invariant it shows
/// violated says why (a CI row whose whole state space TLC cannot search
/// in CI's time; it lists no temporal property either).
const INVARIANTS_LEFT_OUT: &str = "\\* Invariants left out:";

/// Whether the `.cfg` says, in one of the two comments above, why it does
/// not list property `p`.
fn left_out(cfg_text: &str, p: Prop) -> bool {
    let no_safety = cfg_text.contains(INVARIANTS_LEFT_OUT);
    if p.is_safety() {
        no_safety
    } else {
        no_safety || cfg_text.contains(LIVENESS_LEFT_OUT)
    }
}

#[test]
fn every_cfg_lists_its_checks_and_rewrites() {
    // The harness rewrites each .cfg with fewer names: parse every one,
    // and check that a rewrite keeps the rest and lists what it is given.
    for path in Suite::ALL.iter().flat_map(|s| spec_files(&s.dir(), "cfg")) {
        let cfg = Cfg::parse(&read(&path));
        let names: Vec<&String> = cfg.invariants.iter().chain(&cfg.properties).collect();
        // A cfg may leave the temporal properties out where TLC cannot
        // finish them in CI's time, and must say so.
        let text = read(&path);
        for p in Prop::ALL {
            assert!(
                names.iter().any(|n| prop_of(n) == Some(p)) || left_out(&text, p),
                "{}: checks no {} (list it under INVARIANTS or PROPERTIES)",
                path.display(),
                p.name()
            );
        }
        assert!(cfg.rest.contains("SPECIFICATION"), "{}: {:?}", path.display(), cfg.rest);
        let again = Cfg::parse(&cfg.render(&cfg.invariants, &cfg.properties));
        assert_eq!(
            again,
            Cfg {
                rest: again.rest.clone(),
                ..cfg.clone()
            }
        );
        assert_eq!(cfg_constants(&again.rest), cfg_constants(&read(&path)));
        let fewer = Cfg::parse(&cfg.render(&cfg.invariants[1..], &[]));
        assert_eq!(
            (fewer.invariants.as_slice(), fewer.properties.len()),
            (&cfg.invariants[1..], 0)
        );
    }
    let text = "SPECIFICATION Spec \\* INVARIANT Commented\nINVARIANT A B (* PROPERTY C\n*) PROPERTY D\nVIEW V INVARIANTS E\nCONSTANT N = 1";
    let cfg = Cfg::parse(text);
    assert_eq!(cfg.invariants, ["A", "B", "E"]);
    assert_eq!(cfg.properties, ["D"]);
    assert_eq!(
        cfg.rest.split_whitespace().collect::<Vec<_>>(),
        ["SPECIFICATION", "Spec", "VIEW", "V", "CONSTANT", "N", "=", "1"]
    );
}

/// TLC's `-tool` output, as lines of messages `(code, severity, text)`.
fn tool_output(messages: &[(u32, u32, &str)]) -> String {
    messages
        .iter()
        .map(|(code, severity, text)| {
            format!("@!@!@STARTMSG {code}:{severity} @!@!@\n{text}\n@!@!@ENDMSG {code} @!@!@\n")
        })
        .collect()
}

#[test]
fn tlc_output_is_read_by_its_codes() {
    let stats = (
        2199,
        0,
        "9761 states generated, 3397 distinct states found, 0 states left on queue.",
    );
    let checking = (
        2192,
        0,
        "Checking temporal properties for the complete state space with 3397 total distinct states at (x)",
    );
    let ok = tool_output(&[(2193, 0, "Model checking completed. No error has been found."), stats]);
    assert_eq!(
        interpret(&ok, Some(0)),
        Ok(TlcRun {
            violation: None,
            distinct: Some(3397),
            recorded: BTreeSet::new()
        })
    );
    // A recording run's lines, outside TLC's messages.
    let printed = format!("{ok}<<\"{RECORDED}\", \"NoStaleWrite\">>\n<<\"{RECORDED}\", \"NoStaleWrite\">>\n");
    assert_eq!(
        interpret(&printed, Some(0)).map(|r| r.recorded.into_iter().collect::<Vec<_>>()),
        Ok(vec!["NoStaleWrite".to_string()])
    );
    let inside = tool_output(&[
        (
            2200,
            0,
            &format!("Progress(3) at …\n<<\"{RECORDED}\", \"MutualExclusion\">>"),
        ),
        (2193, 0, "Model checking completed. No error has been found."),
        stats,
    ]);
    assert_eq!(
        interpret(&inside, Some(0)).map(|r| r.recorded.into_iter().collect::<Vec<_>>()),
        Ok(vec!["MutualExclusion".to_string()])
    );
    // No success message, or a non-zero status, without a violation: an error.
    assert!(interpret(&tool_output(&[stats]), Some(0)).is_err());
    assert!(interpret(&ok, Some(75)).is_err());
    // An invariant violated: its name, and a partial search has no count.
    let inv = tool_output(&[
        (2110, 1, "Invariant MutualExclusion is violated."),
        (2121, 1, "The behavior up to this point is:"),
        stats,
    ]);
    let named = |n: &str| Some(Violation::Named(n.to_string()));
    assert_eq!(
        interpret(&inv, Some(12)),
        Ok(TlcRun {
            violation: named("MutualExclusion"),
            distinct: None,
            recorded: BTreeSet::new()
        })
    );
    let init = tool_output(&[(2107, 1, "Invariant TypeOK is violated by the initial state:")]);
    assert_eq!(interpret(&init, Some(12)).map(|r| r.violation), Ok(named("TypeOK")));
    // A temporal violation after the complete search: its count.
    let temporal = tool_output(&[checking, (2116, 1, "Temporal properties were violated.\n"), stats]);
    assert_eq!(
        interpret(&temporal, Some(13)),
        Ok(TlcRun {
            violation: Some(Violation::Temporal),
            distinct: Some(3397),
            recorded: BTreeSet::new()
        })
    );
    // The counterexample cannot be rebuilt under a VIEW (tlaplus/tlaplus#1045):
    // the verdict stands, the count is not trusted.
    let lost = tool_output(&[
        (2116, 1, "Temporal properties were violated."),
        (1000, 1, "Failed to recover the next state from its fingerprint."),
    ]);
    assert_eq!(
        interpret(&lost, Some(255)),
        Ok(TlcRun {
            violation: Some(Violation::Temporal),
            distinct: None,
            recorded: BTreeSet::new()
        })
    );
    // TLC's own errors, with its words.
    let undefined = tool_output(&[(
        2229,
        1,
        "The invariant Bogus specified in the configuration file\nis not defined in the specification.",
    )]);
    let e = interpret(&undefined, Some(151)).unwrap_err();
    assert!(e.contains("151") && e.contains("Bogus"), "{e}");
    let parse = format!(
        "Parsing file Bad.tla\n***Parse Error***\nEncountered \"====\" at line 3\n{}",
        tool_output(&[(3002, 1, "Parsing or semantic analysis failed.")])
    );
    let e = interpret(&parse, Some(150)).unwrap_err();
    assert!(e.contains("Parse Error") && e.contains("line 3"), "{e}");
}

/// A throwaway spec for the harness's own test: a counter from 0 to `Max`
/// that then stays there.
const COUNTER_TLA: &str = r#"---- MODULE Counter ----
EXTENDS Naturals
CONSTANT Max
VARIABLE x
Init == x = 0
Next == x' = IF x < Max THEN x + 1 ELSE x
Spec == Init /\ [][Next]_x /\ WF_x(Next)
NonNegative == x >= 0
Small == x < 3
Stays == [](x = 0)
Reaches == <>(x = Max)
Overflows == <>(x = Max + 1)
Returns == []<>(x = 0)
Settles == <>[](x = Max)
View == x
====
"#;

const COUNTER_CFG: &str = r"\* Two invariants, one violated; a property TLC checks as an invariant
\* (violated); four temporal properties, two violated.
SPECIFICATION Spec
CONSTANT Max = 5
VIEW View
INVARIANTS NonNegative Small
PROPERTIES
    Stays
    Reaches
    Overflows
    Returns
    Settles
";

#[test]
fn the_tlc_harness_finds_every_violation() {
    let Some(tlc) = Tlc::for_test("the harness's own test spec") else {
        return;
    };
    let dir = crate::common::TempDir::new("tlc-harness");
    fs::write(dir.join("Counter.tla"), COUNTER_TLA).expect("write Counter.tla");
    let v =
        tlc_verdicts(&tlc, dir.path(), "Counter.tla", COUNTER_CFG, &dir.join("work")).unwrap_or_else(|e| panic!("{e}"));
    let runs = v.runs.join("\n");
    assert_eq!(
        v.checked,
        [
            "NonNegative",
            "Small",
            "Stays",
            "Reaches",
            "Overflows",
            "Returns",
            "Settles"
        ]
    );
    assert_eq!(
        v.violated.iter().map(String::as_str).collect::<Vec<_>>(),
        ["Overflows", "Returns", "Small", "Stays"],
        "{runs}"
    );
    assert_eq!(v.distinct, Some(6), "{runs}");
    // Stays (violated first, at x = 1, before Small was false), then the
    // whole space, where Small is recorded false and a temporal property
    // violated, then Reaches, Overflows, Returns and Settles alone.
    assert_eq!(v.runs.len(), 6, "{runs}");
    assert!(
        v.runs[1].contains("recording") && v.runs[1].contains("Small false"),
        "{runs}"
    );
    // Nothing was written next to the spec but by the test.
    let mut left: Vec<String> = fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["Counter.tla", "work"]);

    // TLC's own errors fail, with its words.
    let bogus = COUNTER_CFG.replace("NonNegative Small", "NonNegative Bogus");
    let e = tlc_verdicts(&tlc, dir.path(), "Counter.tla", &bogus, &dir.join("bogus")).unwrap_err();
    assert!(e.contains("Bogus") && e.contains("Unknown operator"), "{e}");
    fs::write(
        dir.join("Broken.tla"),
        "---- MODULE Broken ----\nVARIABLE x\nInit == x = \n====\n",
    )
    .expect("write");
    let e = tlc_verdicts(
        &tlc,
        dir.path(),
        "Broken.tla",
        "SPECIFICATION Spec\n",
        &dir.join("broken"),
    )
    .unwrap_err();
    assert!(e.contains("150"), "{e}");
}

#[test]
fn a_disagreement_is_reported_per_property() {
    let rust = crate::common::Result {
        verdicts: Prop::ALL
            .iter()
            .map(|&p| {
                (
                    p,
                    if p == Prop::DeadlockFreedom {
                        Verdict::Violated
                    } else {
                        Verdict::Holds
                    },
                    None,
                )
            })
            .collect(),
        unique_states: 10,
        max_depth: 3,
    };
    let tlc = TlcVerdicts {
        checked: [
            "TypeOK",
            "MutualExclusion",
            "NoStaleWrite",
            "NoForeignRelease",
            "DeadlockFreedom",
            "StarvationFreedom",
        ]
        .map(String::from)
        .to_vec(),
        violated: ["StarvationFreedom".to_string()].into(),
        distinct: Some(11),
        runs: Vec::new(),
    };
    assert_eq!(
        disagreements("X.cfg", "", &tlc, &rust),
        [
            "specs/X.cfg: DeadlockFreedom (deadlock_freedom): TLC holds, Rust violated",
            "specs/X.cfg: StarvationFreedom (starvation_freedom): TLC violated, Rust holds",
        ],
        "a count that differs is information, not a disagreement (docs/design.md §10)"
    );
    let partial = TlcVerdicts {
        checked: vec!["TypeOK".into()],
        violated: ["TypeOK".to_string()].into(),
        distinct: Some(10),
        runs: Vec::new(),
    };
    let found = disagreements("Y.cfg", "", &partial, &rust);
    assert_eq!(found.len(), 6, "{found:?}");
    assert!(found[5].contains("TypeOK violated"), "{found:?}");
}
