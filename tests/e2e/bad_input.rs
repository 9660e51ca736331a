//! Bad scenario files (docs/design.md §7 and §9): one clear sentence on stderr
//! that names the file, the key and what is allowed; exit code 2; never a
//! panic; and nothing written, so no report already there is damaged.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use toml::{Table, Value};

use crate::common::{locksmith, TempDir};

/// A valid single-redis scenario that the cases below break one key at a
/// time.
const VALID: &str = r#"summary = "A valid scenario for the bad-input tests"
description = "Single Redis with a TTL and a pause."
references = ["Martin Kleppmann, How to do distributed locking (2016)"]
algorithm = "single-redis"

[system]
clients = 2
ttl = 4
command = "set-nx-px"
release = "del"

[faults]
pauses = 1
max_pause = 5
max_delay = 1
targets = "clients"

[bounds]
acquisitions = 1

[expect]
mutual_exclusion = "violated"
deadlock_freedom = "holds"
"#;

/// `VALID` with `from` (which must occur exactly once) replaced by `to`.
fn edit(from: &str, to: &str) -> String {
    assert_eq!(VALID.matches(from).count(), 1, "{from:?} is not once in VALID");
    VALID.replacen(from, to, 1)
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs::read_dir(&d).expect("read a directory") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let bytes = fs::read(&path).expect("read a file");
                files.insert(path, bytes);
            }
        }
    }
    files
}

/// Words of `message` (split at anything but letters, digits, `_` and `-`).
fn words(message: &str) -> Vec<&str> {
    message
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Writes `text` as `<test>/scenarios/<stem>.toml`, runs `check` on it with
/// a report for `<stem>` already in place, and asserts the contract: exit
/// 2, one line on stderr naming the file and each of `mentions` (as whole
/// words), no panic, nothing printed on stdout and nothing written.
fn assert_rejected(test: &str, text: &str, mentions: &[&str]) -> String {
    let tmp = TempDir::new(test);
    let stem = "redis-ttl-gc-pause";
    let scenarios = tmp.join("scenarios");
    fs::create_dir_all(&scenarios).expect("create the scenario dir");
    let file = scenarios.join(format!("{stem}.toml"));
    fs::write(&file, text).expect("write the scenario");
    let reports = tmp.join("reports");
    let old = reports.join(stem);
    fs::create_dir_all(&old).expect("create the old report");
    fs::write(old.join("summary.json"), "{\"written\": \"by an earlier run\"}\n").expect("write");
    fs::write(old.join("trace.json"), "an earlier trace\n").expect("write");
    let before = snapshot(&reports);

    let run = locksmith([
        OsStr::new("check"),
        file.as_os_str(),
        OsStr::new("--reports"),
        reports.as_os_str(),
    ]);

    let stderr = run.stderr.trim_end();
    assert!(
        !stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"),
        "{test}: locksmith panicked:\n{stderr}"
    );
    assert_eq!(run.code, 2, "{test}: {}{}", run.stdout, run.stderr);
    assert_eq!(stderr.lines().count(), 1, "{test}: not one line:\n{stderr}");
    let shown = file.display().to_string();
    assert!(
        stderr.contains(&shown),
        "{test}: the message does not name {shown}:\n{stderr}"
    );
    let rest = stderr.replacen(&shown, "", 1);
    let said = words(&rest);
    for m in mentions {
        assert!(said.contains(m), "{test}: the message does not say {m:?}:\n{stderr}");
    }
    assert!(
        run.stdout.trim().is_empty(),
        "{test}: printed on stdout:\n{}",
        run.stdout
    );
    assert_eq!(snapshot(&reports), before, "{test}: the reports directory changed");
    rest
}

#[test]
fn the_base_scenario_is_valid() {
    let parsed = locksmith::catalog::parse(Path::new("valid.toml"), VALID);
    assert!(parsed.is_ok(), "{:?}", parsed.err());
}

#[test]
fn not_toml() {
    assert_rejected("not_toml", "summary = \"half a string\nalgorithm = [", &["TOML"]);
    assert_rejected("not_toml_bytes", "\u{0}\u{1}[[[ = = =", &["TOML"]);
}

#[test]
fn unknown_top_level_key() {
    let text = format!("colour = \"red\"\n{VALID}");
    assert_rejected("top_key", &text, &["colour", "algorithm"]);
}

#[test]
fn unknown_key_in_system() {
    let text = edit("ttl = 4\n", "ttl = 4\nspeed = 3\n");
    assert_rejected("system_key", &text, &["speed", "ttl"]);
}

#[test]
fn unknown_key_in_faults() {
    let text = edit("max_pause = 5\n", "max_pause = 5\nmeteor_strikes = 1\n");
    assert_rejected("faults_key", &text, &["meteor_strikes", "crashes"]);
}

#[test]
fn unknown_key_in_bounds() {
    let text = edit("acquisitions = 1\n", "acquisitions = 1\nrounds = 2\n");
    assert_rejected("bounds_key", &text, &["rounds", "acquisitions"]);
}

#[test]
fn unknown_key_in_expect() {
    let text = edit(
        "deadlock_freedom = \"holds\"\n",
        "deadlock_freedom = \"holds\"\nliveness = \"holds\"\n",
    );
    assert_rejected("expect_key", &text, &["liveness", "starvation_freedom"]);
}

#[test]
fn unknown_section() {
    let text = format!("{VALID}\n[network]\nlatency = 3\n");
    assert_rejected("section", &text, &["network"]);
}

#[test]
fn unknown_algorithm() {
    let text = edit("algorithm = \"single-redis\"", "algorithm = \"paxos\"");
    assert_rejected(
        "algorithm",
        &text,
        &["algorithm", "paxos", "single-redis", "lock-table"],
    );
}

#[test]
fn value_out_of_range() {
    assert_rejected("ttl_0", &edit("ttl = 4", "ttl = 0"), &["ttl", "1", "30"]);
    assert_rejected(
        "max_pause_99",
        &edit("max_pause = 5", "max_pause = 99"),
        &["max_pause", "0", "30"],
    );
    assert_rejected("clients_9", &edit("clients = 2", "clients = 9"), &["clients", "1", "4"]);
    let huge = edit("ttl = 4", "ttl = 99999999999999");
    assert_rejected("ttl_huge", &huge, &["ttl", "1", "30"]);
    let negative = edit("acquisitions = 1", "acquisitions = -1");
    assert_rejected("acquisitions_negative", &negative, &["acquisitions", "0", "5"]);
}

#[test]
fn wrong_type() {
    let loss = edit("max_delay = 1\n", "max_delay = 1\nloss = \"yes\"\n");
    assert_rejected("loss_yes", &loss, &["loss", "true", "false"]);
    assert_rejected(
        "clients_two",
        &edit("clients = 2", "clients = \"two\""),
        &["clients", "1", "4"],
    );
    assert_rejected("ttl_float", &edit("ttl = 4", "ttl = 4.5"), &["ttl", "1", "30"]);
    assert_rejected(
        "summary_number",
        &edit("summary = \"A valid", "summary = 7\nx = \"A valid"),
        &["summary"],
    );
    assert_rejected(
        "system_number",
        &edit("[system]\n", "system = 3\n[other]\n"),
        &["system"],
    );
}

#[test]
fn unknown_choice() {
    let text = edit("release = \"del\"", "release = \"unlink\"");
    assert_rejected(
        "release_unlink",
        &text,
        &["release", "unlink", "del", "compare-and-delete"],
    );
    let text = edit("targets = \"clients\"", "targets = \"everyone\"");
    assert_rejected("targets_everyone", &text, &["targets", "all", "clients", "servers"]);
    let text = edit("command = \"set-nx-px\"", "command = \"GET\"");
    assert_rejected("command_get", &text, &["command", "setnx", "set-nx-px"]);
}

#[test]
fn inconsistent_values() {
    let text = edit("max_pause = 5", "max_pause = 0");
    assert_rejected("pauses_without_max_pause", &text, &["pauses", "max_pause"]);
    let text = edit("command = \"set-nx-px\"", "command = \"setnx\"\nwatchdog = true");
    assert_rejected("watchdog_setnx", &text, &["watchdog", "command", "setnx"]);
}

#[test]
fn expectation_that_is_not_a_verdict() {
    let text = edit("mutual_exclusion = \"violated\"", "mutual_exclusion = \"maybe\"");
    assert_rejected("expect_maybe", &text, &["mutual_exclusion", "holds", "violated"]);
    let text = edit("mutual_exclusion = \"violated\"", "mutual_exclusion = true");
    assert_rejected("expect_bool", &text, &["mutual_exclusion", "holds", "violated"]);
    // `unknown` is a verdict a bound produces, not one a scenario documents.
    let text = edit("mutual_exclusion = \"violated\"", "mutual_exclusion = \"unknown\"");
    assert_rejected("expect_unknown", &text, &["mutual_exclusion", "holds", "violated"]);
}

#[test]
fn missing_algorithm() {
    let text = edit("algorithm = \"single-redis\"\n", "");
    assert_rejected("no_algorithm", &text, &["algorithm"]);
}

#[test]
fn missing_summary() {
    let text = edit("summary = \"A valid scenario for the bad-input tests\"\n", "");
    assert_rejected("no_summary", &text, &["summary"]);
}

/// A value or key with a line break in it is still reported on one line.
#[test]

fn line_breaks_in_values_and_keys_stay_on_one_line() {
    let text = edit("release = \"del\"", "release = \"un\\nlink\"");
    assert_rejected("release_newline", &text, &["release", "del"]);
    let text = edit("ttl = 4\n", "ttl = 4\n\"sp\\need\" = 3\n");
    assert_rejected("key_newline", &text, &["ttl"]);
}

#[test]
fn a_bad_scenario_stops_the_good_ones_too() {
    let tmp = TempDir::new("two_named");
    let bad = tmp.join("broken.toml");
    fs::write(&bad, edit("ttl = 4", "ttl = 0")).expect("write the scenario");
    let reports = tmp.join("reports");

    // Nothing there yet: nothing gets written for the good scenario.
    let run = locksmith([
        OsStr::new("check"),
        OsStr::new("redis-ttl-no-faults"),
        bad.as_os_str(),
        OsStr::new("--reports"),
        reports.as_os_str(),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains(&bad.display().to_string()), "{}", run.stderr);
    assert!(
        !reports.exists(),
        "a report was written: {:?}",
        snapshot(&reports).keys()
    );

    // An earlier report for the good scenario stays as it was.
    let old = reports.join("redis-ttl-no-faults");
    fs::create_dir_all(&old).expect("create the old report");
    fs::write(old.join("summary.json"), "{\"written\": \"by an earlier run\"}\n").expect("write");
    let before = snapshot(&reports);
    let run = locksmith([
        OsStr::new("check"),
        OsStr::new("redis-ttl-no-faults"),
        bad.as_os_str(),
        OsStr::new("--reports"),
        reports.as_os_str(),
    ]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert_eq!(snapshot(&reports), before, "the earlier report changed");
}

// The loader never panics, and every error names the file first.

fn bundled_texts() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("read scenarios/")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .map(|p| fs::read_to_string(p).expect("read a scenario"))
        .collect();
    assert!(!texts.is_empty(), "no scenarios in {}", dir.display());
    texts
}

/// Keys and values the loader knows, so that random edits often land on
/// something it reads (and reach the algorithm's own validation).
const WORDS: &[&str] = &[
    "summary",
    "description",
    "references",
    "algorithm",
    "system",
    "faults",
    "bounds",
    "expect",
    "clients",
    "servers",
    "ttl",
    "command",
    "release",
    "watchdog",
    "fencing",
    "retry",
    "restart",
    "expiry",
    "crashes",
    "pauses",
    "max_pause",
    "clock_jumps",
    "max_jump",
    "max_drift",
    "max_delay",
    "partitions",
    "loss",
    "duplicate",
    "reorder",
    "targets",
    "acquisitions",
    "mutual_exclusion",
    "no_stale_write",
    "no_foreign_release",
    "deadlock_freedom",
    "starvation_freedom",
    "single-redis",
    "lock-table",
    "redlock",
    "setnx",
    "set-nx-px",
    "setnx-expire",
    "del",
    "compare-and-delete",
    "empty",
    "fsync",
    "all",
    "holds",
    "violated",
    "unknown",
    "",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (-3i64..40).prop_map(Value::Integer),
        1 => any::<i64>().prop_map(Value::Integer),
        2 => any::<bool>().prop_map(Value::Boolean),
        3 => prop::sample::select(WORDS).prop_map(|w| Value::String(w.to_string())),
        1 => ".{0,12}".prop_map(Value::String),
        1 => any::<f64>().prop_map(Value::Float),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(WORDS).prop_map(String::from), inner, 0..3)
                .prop_map(|m| Value::Table(m.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(WORDS).prop_map(String::from),
        1 => "[a-z_]{1,12}",
        1 => ".{0,6}",
    ]
}

#[derive(Clone, Debug)]
enum Edit {
    /// Remove the n-th key (of all keys, top level and one table down).
    Remove(usize),
    /// Replace the n-th key's value.
    Replace(usize, Value),
    /// Insert a key into the n-th table (the top level or one of its tables).
    Insert(usize, String, Value),
}

fn an_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), value()).prop_map(|(i, v)| Edit::Replace(i, v)),
        (any::<usize>(), key(), value()).prop_map(|(i, k, v)| Edit::Insert(i, k, v)),
    ]
}

/// Every key as a path: `[k]` at the top level, `[t, k]` in table `t`.
fn key_paths(table: &Table) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (k, v) in table {
        paths.push(vec![k.clone()]);
        if let Value::Table(t) = v {
            paths.extend(t.keys().map(|k2| vec![k.clone(), k2.clone()]));
        }
    }
    paths
}

fn table_at<'a>(table: &'a mut Table, path: &[String]) -> &'a mut Table {
    match path.split_first() {
        None => table,
        Some((first, rest)) => match table.get_mut(first) {
            Some(Value::Table(t)) => table_at(t, rest),
            _ => unreachable!("key_paths only lists tables that exist"),
        },
    }
}

fn apply(table: &mut Table, edit: &Edit) {
    let paths = key_paths(table);
    match edit {
        Edit::Remove(i) | Edit::Replace(i, _) if !paths.is_empty() => {
            let path = &paths[i % paths.len()];
            let (last, parent) = path.split_last().expect("a path has a key");
            let parent = table_at(table, parent);
            match edit {
                Edit::Replace(_, v) => {
                    parent.insert(last.clone(), v.clone());
                }
                _ => {
                    parent.remove(last);
                }
            }
        }
        Edit::Insert(i, k, v) => {
            let mut tables: Vec<Vec<String>> = vec![Vec::new()];
            tables.extend(table.iter().filter(|(_, v)| v.is_table()).map(|(k, _)| vec![k.clone()]));
            let at = tables[i % tables.len()].clone();
            table_at(table, &at).insert(k.clone(), v.clone());
        }
        _ => {}
    }
}

fn assert_loader_answers(text: &str) -> Result<(), TestCaseError> {
    match locksmith::catalog::parse(Path::new("fuzz.toml"), text) {
        Ok(_) => Ok(()),
        Err(e) => {
            prop_assert!(
                e.0.starts_with("fuzz.toml"),
                "the error does not start with the file: {}",
                e.0
            );
            Ok(())
        }
    }
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        // Write no regression files into the source tree.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn the_loader_never_panics_on_arbitrary_text(text in any::<String>()) {
        assert_loader_answers(&text)?;
    }

    #[test]
    fn the_loader_never_panics_on_toml_like_text(
        text in "[a-z_ =\\[\\]\"'0-9\n.{},#-]{0,200}",
    ) {
        assert_loader_answers(&text)?;
    }

    #[test]
    fn the_loader_never_panics_on_a_spliced_scenario(
        base in prop::sample::select(bundled_texts()),
        cut in any::<prop::sample::Index>(),
        len in 0usize..40,
        insert in ".{0,20}",
    ) {
        let chars: Vec<char> = base.chars().collect();
        let at = cut.index(chars.len() + 1);
        let end = (at + len).min(chars.len());
        let text: String = chars[..at].iter().chain(insert.chars().collect::<Vec<_>>().iter()).chain(chars[end..].iter()).collect();
        assert_loader_answers(&text)?;
    }

    #[test]
    fn the_loader_never_panics_on_near_valid_scenarios(
        base in prop::sample::select(bundled_texts()),
        edits in prop::collection::vec(an_edit(), 0..5),
    ) {
        let mut table: Table = base.parse().expect("a bundled scenario is TOML");
        for e in &edits {
            apply(&mut table, e);
        }
        let text = toml::to_string(&table).unwrap_or_else(|_| table.to_string());
        assert_loader_answers(&text)?;
        if edits.is_empty() {
            let parsed = locksmith::catalog::parse(Path::new("fuzz.toml"), &text);
            prop_assert!(parsed.is_ok(), "a bundled scenario, written back, is rejected: {:?}", parsed.err());
        }
    }
}
