//! The TLA+ specs in `specs/` (DESIGN.md §10): every spec parses with the
//! TLA+ grammar, and `specs/README.md`'s table of state counts is what the
//! Rust model finds for the same scenario, whose parameters are the `.cfg`'s
//! constants. With `TLA2TOOLS_JAR` set to a `tla2tools.jar` (and `java` on
//! the path), TLC runs on every `.cfg` too and must find the same count:
//! on every row but those the table marks as slow, which need
//! `LOCKSMITH_TLC_SLOW=1` as well.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use locksmith::algorithms::{dispatch, lock_table, primary_replica, redlock, single_redis, Job};
use locksmith::check::{check, Options};
use locksmith::properties::Lock;
use locksmith::scenario::{self, Scenario};
use locksmith::world::{Targets, World};
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

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn specs_dir() -> PathBuf {
    root().join("specs")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: cannot be read: {e}", path.display()))
}

/// The files in `specs/` with extension `ext`, sorted.
fn spec_files(ext: &str) -> Vec<PathBuf> {
    let dir = specs_dir();
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
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
    let specs = spec_files("tla");
    assert!(!specs.is_empty(), "{} holds no .tla file", specs_dir().display());
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

/// One row of the table in `specs/README.md`.
#[derive(Debug)]
struct Row {
    spec: String,
    cfg: String,
    /// The scenario file, relative to the crate root.
    scenario: String,
    rust: usize,
    /// A number when TLC ran, else why not.
    tlc: String,
    /// TLC takes minutes on it: `tlc_agrees_when_available` skips it
    /// unless `LOCKSMITH_TLC_SLOW` is set.
    slow: bool,
}

/// The state-count table in `specs/README.md`: the rows under the header
/// `| spec | cfg | scenario | Rust unique states | TLC distinct states | TLC time |`.
fn table() -> Vec<Row> {
    let path = specs_dir().join("README.md");
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
            spec: c[0].clone(),
            cfg: c[1].clone(),
            scenario: c[2].clone(),
            rust,
            tlc: c[4].clone(),
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

fn load(row: &Row) -> Scenario {
    let path = root().join(&row.scenario);
    let found = scenario::find(&path.to_string_lossy()).unwrap_or_else(|e| panic!("{row:?}: {e}"));
    scenario::load(&found).unwrap_or_else(|e| panic!("{row:?}: {e}"))
}

struct UniqueStates;

impl Job for UniqueStates {
    type Output = usize;
    fn run<A: Lock>(self, _: &Scenario, world: World<A>) -> usize {
        check(&world, &Options::default()).unique_states
    }
}

#[test]
fn readme_counts_are_the_rust_models() {
    let rows = table();
    for cfg in spec_files("cfg") {
        let name = cfg
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(
            rows.iter().any(|r| r.cfg == name),
            "specs/{name} has no row in specs/README.md's table"
        );
    }
    for row in &rows {
        for file in [&row.spec, &row.cfg] {
            assert!(
                specs_dir().join(file).is_file(),
                "specs/README.md names specs/{file}, which does not exist"
            );
        }
        let sc = load(row);
        let rust = dispatch(&sc, UniqueStates).unwrap_or_else(|e| panic!("{row:?}: {e}"));
        assert_eq!(
            rust, row.rust,
            "specs/README.md says {} has {} unique states; the Rust model now finds {rust}: update the table (and rerun TLC on {})",
            row.scenario, row.rust, row.cfg
        );
        if let Ok(tlc) = row.tlc.replace(',', "").parse::<usize>() {
            assert_eq!(
                tlc, row.rust,
                "specs/README.md: TLC's count for {} differs from the Rust model's",
                row.cfg
            );
        }
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

fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

fn boolean(b: bool) -> String {
    if b { "TRUE" } else { "FALSE" }.to_string()
}

/// The spec that models the scenario's algorithm and the constants that
/// mirror its `[system]`, `[faults]` and `[bounds]` tables; an error when
/// no `.cfg` can mirror the scenario: it turns on a fault its spec does not
/// model, or symmetry reduction.
fn expected_constants(sc: &Scenario) -> Result<(&'static str, BTreeMap<String, String>), String> {
    let f = &sc.faults;
    let file = sc.path.display();
    let mut c: BTreeMap<String, String> = BTreeMap::new();
    let mut set = |k: &str, v: String| c.insert(k.to_string(), v);
    set("Acquisitions", sc.acquisitions.to_string());
    set("MaxDelay", f.max_delay.map_or("Async".to_string(), |d| d.to_string()));
    set("Crashes", f.crashes.to_string());
    set("Pauses", f.pauses.to_string());
    set("MaxPause", f.max_pause.to_string());
    let targets = match f.targets {
        Targets::All => "all",
        Targets::Clients => "clients",
        Targets::Servers => "servers",
    };
    set("Targets", quoted(targets));
    set("None", "None".to_string());
    // The [faults] keys beyond those above that each spec models.
    let (spec, modelled): (&'static str, &[&str]) = match sc.algorithm.as_str() {
        "single-redis" => {
            let p = single_redis::Params::read(sc).map_err(|e| e.to_string())?;
            let command = match p.command {
                single_redis::Command::Setnx => "setnx",
                single_redis::Command::SetnxExpire => "setnx-expire",
                single_redis::Command::SetNxPx => "set-nx-px",
            };
            let release = match p.release {
                single_redis::Release::Del => "del",
                single_redis::Release::CompareAndDelete => "compare-and-delete",
            };
            let restart = match p.restart {
                single_redis::Restart::Empty => "empty",
                single_redis::Restart::Fsync => "fsync",
            };
            set("Clients", p.clients.to_string());
            set("Ttl", p.ttl.to_string());
            set("Command", quoted(command));
            set("ReleaseCommand", quoted(release));
            set("Watchdog", boolean(p.watchdog));
            set("Fencing", boolean(p.fencing));
            set("Retry", p.retry.to_string());
            set("RestartMode", quoted(restart));
            ("SingleRedis.tla", &[])
        }
        "lock-table" => {
            let p = lock_table::Params::read(sc).map_err(|e| e.to_string())?;
            set("Clients", p.clients.to_string());
            set("Expiry", boolean(p.expiry));
            set("Ttl", p.ttl.to_string());
            set("Retry", p.retry.to_string());
            ("LockTable.tla", &[])
        }
        "redlock" => {
            let p = redlock::Params::read(sc).map_err(|e| e.to_string())?;
            let restart = match p.restart {
                redlock::Restart::Empty => "empty",
                redlock::Restart::Fsync => "fsync",
                redlock::Restart::Delayed => "delayed",
            };
            let fencing = match p.fencing {
                redlock::Fencing::None => "none",
                redlock::Fencing::LockValue => "lock-value",
                redlock::Fencing::Counter => "counter",
            };
            let window = match p.pause_window {
                redlock::PauseWindow::Any => "any",
                redlock::PauseWindow::Acquiring => "acquiring",
            };
            set("Masters", p.masters.to_string());
            set("Clients", p.clients.to_string());
            set("Ttl", p.ttl.to_string());
            set("Timeout", p.timeout.to_string());
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            set("Retry", p.retry.to_string());
            set("RestartMode", quoted(restart));
            set("Fencing", quoted(fencing));
            set("PauseWindow", quoted(window));
            set("MinPause", f.min_pause.to_string());
            set("ClockJumps", f.clock_jumps.to_string());
            set("MaxJump", f.max_jump.to_string());
            ("Redlock.tla", &["min_pause", "clock_jumps"])
        }
        "primary-replica" => {
            let p = primary_replica::Params::read(sc).map_err(|e| e.to_string())?;
            let replication = match p.replication {
                primary_replica::Replication::Async => "async",
                primary_replica::Replication::Wait => "wait",
            };
            set("Clients", p.clients.to_string());
            set("Ttl", p.ttl.to_string());
            set("Replication", quoted(replication));
            set("WaitTimeout", p.wait_timeout.to_string());
            set("Ping", p.ping.to_string());
            set("DownAfter", p.down_after.to_string());
            set("Retry", p.retry.to_string());
            set("Timeout", p.timeout.to_string());
            let client = match p.client {
                primary_replica::ClientKind::Naive => "naive",
                primary_replica::ClientKind::Validity => "validity",
            };
            set("Client", quoted(client));
            set("Drift", p.drift.to_string());
            set("Margin", p.margin.to_string());
            set("MinPause", f.min_pause.to_string());
            ("PrimaryReplica.tla", &["min_pause"])
        }
        other => return Err(format!("{file}: algorithm = \"{other}\" has no spec in specs/")),
    };
    let faults = [
        ("min_pause", f.min_pause != 1),
        ("clock_jumps", f.clock_jumps != 0),
        ("max_drift", f.max_drift != 0),
        ("partitions", f.partitions != 0),
        ("loss", f.loss),
        ("duplicate", f.duplicate),
        ("reorder", f.reorder),
    ];
    if let Some((key, _)) = faults.iter().find(|(key, used)| *used && !modelled.contains(key)) {
        return Err(format!(
            "{file}: [faults] {key} is set, and specs/{spec} does not model it"
        ));
    }
    if sc.symmetry {
        return Err(format!(
            "{file}: [bounds] symmetry is on, and no .cfg declares a SYMMETRY: TLC would count every ordering"
        ));
    }
    Ok((spec, c))
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
        ("redlock", "partitions = 1"),
        ("redlock", "max_drift = 1"),
        ("single-redis", "clock_jumps = 1\nmax_jump = 2"),
        ("lock-table", "pauses = 1\nmin_pause = 2\nmax_pause = 3"),
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
    // And a fault Redlock.tla models is accepted.
    let text = scenario_text("redlock", "", "clock_jumps = 1\nmax_jump = 2");
    let sc = scenario::parse(Path::new("modelled.toml"), &text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(expected_constants(&sc).map(|(spec, _)| spec), Ok("Redlock.tla"));
}

#[test]
fn cfg_constants_are_the_scenarios() {
    for row in table() {
        let sc = load(&row);
        let (spec, expected) = expected_constants(&sc).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            row.spec, spec,
            "specs/README.md: {} is a {} scenario, modelled by {spec}",
            row.scenario, sc.algorithm
        );
        let actual = cfg_constants(&read(&specs_dir().join(&row.cfg)));
        assert_eq!(
            actual, expected,
            "specs/{}: its CONSTANTS differ from {}",
            row.cfg, row.scenario
        );
    }
}

/// TLC's distinct-state count, from its closing line "N states generated,
/// M distinct states found, 0 states left on queue."
fn tlc_distinct(output: &str) -> Option<usize> {
    let line = output
        .lines()
        .rev()
        .find(|l| l.contains(" distinct states found, 0 states left"))?;
    let before = line.split(" distinct states found").next()?;
    before.rsplit(' ').next()?.replace(',', "").parse().ok()
}

#[test]
fn tlc_agrees_when_available() {
    let Some(jar) = std::env::var_os("TLA2TOOLS_JAR") else {
        eprintln!("TLA2TOOLS_JAR is not set: TLC not run (see specs/README.md)");
        return;
    };
    let slow_too = std::env::var_os(SLOW_VAR).is_some();
    for row in table() {
        if row.slow && !slow_too {
            eprintln!(
                "specs/{}: TLC not run, the table marks it slow (set {SLOW_VAR}=1 to run it)",
                row.cfg
            );
            continue;
        }
        let meta = std::env::temp_dir().join(format!("locksmith-tlc-{}-{}", std::process::id(), row.cfg));
        let output = Command::new("java")
            .arg("-cp")
            .arg(&jar)
            .args([
                "tlc2.TLC",
                "-deadlock",
                "-lncheck",
                "final",
                "-workers",
                "1",
                "-metadir",
            ])
            .arg(&meta)
            .args(["-config", &row.cfg, &row.spec])
            .current_dir(specs_dir())
            .output()
            .expect("java runs");
        let _ = fs::remove_dir_all(&meta);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let distinct = tlc_distinct(&stdout)
            .unwrap_or_else(|| panic!("TLC did not finish {} on {}:\n{stdout}", row.cfg, row.spec));
        assert_eq!(
            distinct, row.rust,
            "TLC finds {distinct} distinct states for specs/{}; the Rust model {}",
            row.cfg, row.rust
        );
    }
}
