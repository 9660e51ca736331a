//! `--format json` against its contract, docs/json.md: the JSON Schemas
//! are read from that file's fenced `json` blocks, and the real output of
//! every command that takes `--format json` is validated against them,
//! errors included. A field printed but not in the schema, or a required
//! one missing, fails here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{locksmith_in, TempDir};

/// The object kinds docs/json.md must define, one schema each.
const KINDS: [&str; 11] = [
    "scenario",
    "check",
    "simulate",
    "merge",
    "matrix",
    "sweep",
    "replay",
    "reenact",
    "bench",
    "bench_tlc",
    "error",
];

/// docs/json.md's schemas by title (its kind), and its example lines.
fn contract() -> (BTreeMap<String, Value>, Vec<String>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/json.md");
    let text = std::fs::read_to_string(&path).expect("docs/json.md");
    let mut schemas = BTreeMap::new();
    let mut examples = Vec::new();
    for block in text.split("```json\n").skip(1) {
        let block = block.split("```").next().unwrap_or_default();
        match serde_json::from_str::<Value>(block) {
            Ok(v) if v.get("$schema").is_some() => {
                let title = v["title"].as_str().expect("a schema has a title").to_string();
                assert!(schemas.insert(title.clone(), v).is_none(), "two schemas for {title}");
            }
            _ => examples.extend(block.lines().map(str::to_string)),
        }
    }
    (schemas, examples)
}

/// Why `line` does not meet its kind's schema (the kind is its `kind`
/// field, or `error` for an error line), or `Ok`.
fn check_line(schemas: &BTreeMap<String, Value>, line: &str) -> Result<(), String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e}): {line}"))?;
    let kind = match (value.get("kind"), value.get("error")) {
        (Some(Value::String(k)), _) => k.clone(),
        (None, Some(_)) => "error".to_string(),
        _ => return Err(format!("neither a kind nor an error: {line}")),
    };
    let schema = schemas
        .get(&kind)
        .ok_or_else(|| format!("no schema for kind {kind}: {line}"))?;
    let validator = jsonschema::validator_for(schema).map_err(|e| format!("schema {kind} is not valid: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{kind}: {}\n{line}", errors.join("; ")))
    }
}

/// Every line of `stdout` meets its schema; returns them parsed.
fn valid_lines(stdout: &str) -> Vec<Value> {
    let (schemas, _) = contract();
    stdout
        .lines()
        .map(|l| {
            check_line(&schemas, l).unwrap_or_else(|e| panic!("{e}"));
            serde_json::from_str(l).expect("checked above")
        })
        .collect()
}

/// The one object of kind `kind` among `values`.
fn only<'a>(values: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = values.iter().filter(|v| v["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind} in {values:?}");
    found[0]
}

#[test]
fn the_document_defines_every_kind_and_its_examples_meet_it() {
    let (schemas, examples) = contract();
    let titles: Vec<&str> = schemas.keys().map(String::as_str).collect();
    let mut kinds = KINDS.to_vec();
    kinds.sort_unstable();
    assert_eq!(titles, kinds);
    for (kind, schema) in &schemas {
        assert_eq!(
            schema["additionalProperties"], false,
            "{kind} must refuse unlisted fields"
        );
        let required = schema["required"].as_array().expect("required").len();
        let listed = schema["properties"].as_object().expect("properties").len();
        assert_eq!(
            required, listed,
            "{kind}: every field is always present (null when absent)"
        );
    }
    // One example per kind (the error twice: in the Errors section too).
    assert!(examples.len() > KINDS.len(), "{examples:?}");
    for line in &examples {
        check_line(&schemas, line).unwrap_or_else(|e| panic!("docs/json.md's example: {e}"));
    }
}

/// The validator is no rubber stamp: a field too many, one missing, a
/// value outside its enum and a null where none is allowed all fail.
#[test]
fn the_validator_refuses_what_the_schema_does_not_say() {
    let (schemas, examples) = contract();
    let check = examples
        .iter()
        .find(|l| l.contains("\"kind\":\"check\""))
        .expect("a check example");
    let example: Value = serde_json::from_str(check).expect("JSON");
    assert!(check_line(&schemas, check).is_ok());
    let mut bad = Vec::new();
    let mut extra = example.clone();
    extra["elapsed"] = Value::from(1);
    bad.push(extra);
    let mut missing = example.clone();
    missing.as_object_mut().expect("an object").remove("report");
    bad.push(missing);
    let mut verdict = example.clone();
    verdict["properties"][0]["verdict"] = Value::from("maybe");
    bad.push(verdict);
    let mut null = example.clone();
    null["unique_states"] = Value::Null;
    bad.push(null);
    let mut deep = example.clone();
    deep["properties"][0]["trace_svg"] = Value::Null;
    bad.push(deep);
    for v in bad {
        assert!(check_line(&schemas, &v.to_string()).is_err(), "accepted {v}");
    }
    assert!(check_line(&schemas, r#"{"error":"x","exit":2,"hint":"y"}"#).is_err());
    assert!(check_line(&schemas, r#"{"kind":"nope"}"#).is_err());
}

/// list, check, simulate, merge, matrix and replay, from a folder of
/// their own: every line meets the schema, paths include their folder
/// and lead to the files from the working directory, and replay's
/// verdict is on stdout in text mode too.
#[test]
fn every_command_prints_what_the_schema_says() {
    let tmp = TempDir::new("json-commands");
    let dir = tmp.path();

    let list = locksmith_in(dir, &["list", "--format", "json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert_eq!(valid_lines(&list.stdout).len(), crate::common::bundled().len());

    let check = locksmith_in(
        dir,
        &[
            "check",
            "redis-ttl-gc-pause",
            "token-ring-no-faults",
            "--format",
            "json",
        ],
    );
    assert_eq!(check.code, 0, "{}", check.stderr);
    let lines = valid_lines(&check.stdout);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["report"], "reports/redis-ttl-gc-pause");
    let me = &lines[0]["properties"][0];
    assert_eq!(me["trace"], "reports/redis-ttl-gc-pause/trace.json");
    assert_eq!(me["trace_md"], "reports/redis-ttl-gc-pause/trace.md");
    assert!(dir.join("reports/redis-ttl-gc-pause/trace.md").is_file());
    assert!(lines[1]["properties"][0]["trace"].is_null());

    let sim = locksmith_in(
        dir,
        &[
            "simulate",
            "redis-ttl-gc-pause",
            "--runs",
            "100",
            "--seed",
            "7",
            "--format",
            "json",
        ],
    );
    assert_eq!(sim.code, 3, "{}{}", sim.stdout, sim.stderr);
    let sim = valid_lines(&sim.stdout);
    let sim = only(&sim, "simulate");
    assert!(sim["steps"].as_u64().is_some_and(|s| s > 0), "{sim}");
    assert_eq!(sim["report"], "reports/redis-ttl-gc-pause/sim-7");
    let trace = sim["properties"][0]["trace"].as_str().expect("a violation in 100 runs");
    assert!(dir.join(trace).is_file(), "{trace}");

    let range = locksmith_in(
        dir,
        &[
            "simulate",
            "redis-ttl-gc-pause",
            "--runs",
            "100",
            "--seed-range",
            "8..10",
            "--format",
            "json",
        ],
    );
    let range = valid_lines(&range.stdout);
    let merged = locksmith_in(
        dir,
        &[
            "merge",
            "reports/redis-ttl-gc-pause/sim-7",
            only(&range, "simulate")["report"].as_str().expect("a report"),
            "--format",
            "json",
        ],
    );
    let merged = valid_lines(&merged.stdout);
    let merged = only(&merged, "merge");
    assert_eq!(merged["runs"], 300);
    assert!(merged["report"].is_null() && merged["seconds"].is_null(), "{merged}");

    let matrix = locksmith_in(dir, &["matrix", "token-ring-no-faults", "--format", "json"]);
    assert_eq!(matrix.code, 0, "{}", matrix.stderr);
    let matrix = valid_lines(&matrix.stdout);
    assert_eq!(matrix.len(), 2);
    assert_eq!(matrix[0]["kind"], "check");
    assert_eq!(matrix[1]["table"], "reports/MATRIX.md");

    let sweep = locksmith_in(
        dir,
        &[
            "sweep",
            "redis-ttl-gc-pause",
            "--vary",
            "system.ttl=11..12",
            "--format",
            "json",
        ],
    );
    assert_eq!(sweep.code, 0, "{}", sweep.stderr);
    let sweep = valid_lines(&sweep.stdout);
    let sweep = only(&sweep, "sweep");
    assert_eq!(sweep["report"], "reports/sweep-redis-ttl-gc-pause/SWEEP.md");
    assert!(dir.join("reports/sweep-redis-ttl-gc-pause/SWEEP.md").is_file());

    let trace = "reports/redis-ttl-gc-pause/trace.json";
    let replay = locksmith_in(dir, &["replay", trace, "--format", "json"]);
    assert_eq!(replay.code, 0, "{}", replay.stderr);
    let replay = valid_lines(&replay.stdout);
    assert_eq!(only(&replay, "replay")["reproduced"], true);
    let text = locksmith_in(dir, &["replay", trace]);
    assert!(
        text.stdout.contains("mutual_exclusion is violated again"),
        "{}",
        text.stdout
    );
    assert_eq!(text.stderr, "");
}

/// With an absolute --reports, the paths are absolute.
#[test]
fn paths_are_absolute_under_an_absolute_reports_folder() {
    let tmp = TempDir::new("json-absolute");
    let reports = tmp.join("out");
    let reports = reports.to_str().expect("a UTF-8 path");
    let check = locksmith_in(
        tmp.path(),
        &["check", "redis-ttl-gc-pause", "--reports", reports, "--format", "json"],
    );
    let lines = valid_lines(&check.stdout);
    let trace = lines[0]["properties"][0]["trace"].as_str().expect("a trace");
    assert_eq!(PathBuf::from(trace), tmp.join("out/redis-ttl-gc-pause/trace.json"));
}

/// Bad input, a usage error, an unwritable reports folder and an invalid
/// trace: one error line on stdout with the text mode's sentence and exit
/// code, the text on stderr too; text mode prints nothing on stdout.
#[test]
fn errors_are_json_lines_with_the_text_modes_sentence_and_code() {
    let tmp = TempDir::new("json-errors");
    let file = tmp.join("a-file");
    std::fs::write(&file, "not a folder").expect("write");
    let file = file.to_str().expect("a UTF-8 path");
    let cases: [&[&str]; 6] = [
        &["check", "nope"],
        &["check", "x", "--threads", "0"],
        &["check", "token-ring-no-faults", "--reports", file],
        &["simulate", "redis-ttl-gc-pause", "--seed-range", "5..1"],
        &["replay", "Cargo.toml"],
        &["list", "--bogus"],
    ];
    for args in cases {
        let text = locksmith_in(tmp.path(), args);
        assert_eq!(text.code, 2, "{args:?}: {}", text.stderr);
        assert_eq!(text.stdout, "", "{args:?}");
        let sentence = text
            .stderr
            .strip_prefix("locksmith: ")
            .expect("the text's prefix")
            .trim_end();
        for spelling in [&["--format", "json"][..], &["--format=json"]] {
            let json = locksmith_in(tmp.path(), &[args, spelling].concat());
            assert_eq!(json.code, 2, "{args:?}");
            let lines = valid_lines(&json.stdout);
            assert_eq!(lines.len(), 1, "{args:?}: {}", json.stdout);
            assert_eq!(lines[0]["exit"], 2);
            assert_eq!(lines[0]["error"], sentence, "{args:?}");
            assert_eq!(json.stderr, text.stderr, "{args:?}: stderr keeps the text");
        }
    }
}

/// reenact on real Redis (skipped without redis-server, failing under
/// CI=true): its verdict line meets the schema, and names its log.
#[test]
fn reenact_prints_what_the_schema_says() {
    if locksmith::real::require_redis().is_none() {
        return;
    }
    let tmp = TempDir::new("json-reenact");
    let check = locksmith_in(tmp.path(), &["check", "redis-ttl-gc-pause", "--format", "json"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    let log = tmp.join("reenact.log");
    let log = log.to_str().expect("a UTF-8 path");
    let args = [
        "reenact",
        "reports/redis-ttl-gc-pause/trace.json",
        "--log",
        log,
        "--format",
        "json",
    ];
    let out = locksmith_in(tmp.path(), &args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let lines = valid_lines(&out.stdout);
    let verdict = only(&lines, "reenact");
    assert_eq!(verdict["reproduced"], true);
    assert_eq!(verdict["log"], log);
    assert!(Path::new(log).is_file());
}

/// bench's rows (and TLC's, where TLA2TOOLS_JAR names it; required under
/// CI=true, as tests/e2e/bench.rs does), without and with --baseline.
#[test]
fn bench_prints_what_the_schema_says() {
    let tmp = TempDir::new("json-bench");
    let out = locksmith_in(tmp.path(), &["bench", "--only", "token-ring-3", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = valid_lines(&out.stdout);
    assert_eq!(only(&lines, "bench")["unique_states"], 18);
    if std::env::var_os("TLA2TOOLS_JAR").is_some() || std::env::var("CI").is_ok_and(|v| v == "true") {
        assert_eq!(only(&lines, "bench_tlc")["distinct_states"], 18, "{}", out.stderr);
    } else {
        assert_eq!(lines.len(), 1, "{}", out.stdout);
    }
    assert!(only(&lines, "bench")["speedup"].is_null());
    // With --baseline (this very binary) its fields are filled in.
    let exe = env!("CARGO_BIN_EXE_locksmith");
    let args = [
        "bench",
        "--only",
        "token-ring-3",
        "--no-tlc",
        "--baseline",
        exe,
        "--format",
        "json",
    ];
    let out = locksmith_in(tmp.path(), &args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = valid_lines(&out.stdout);
    assert!(only(&lines, "bench")["speedup"].is_number(), "{}", out.stdout);
}

/// Ctrl-C during `check`: the scenario's object (its search incomplete,
/// no report written), then the error line with text mode's
/// "interrupted: ..." sentence and exit 130.
#[test]
fn ctrl_c_ends_with_an_error_line_of_exit_130() {
    let tmp = TempDir::new("json-interrupt");
    let reports = tmp.path().to_str().expect("a UTF-8 path");
    let args = [
        "check",
        "redlock-fsync",
        "--no-symmetry",
        "--format",
        "json",
        "--reports",
        reports,
    ];
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    let run = crate::interrupts::interrupted(&args, std::time::Duration::from_secs(3));
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    let lines = valid_lines(&run.stdout);
    assert_eq!(lines.len(), 2, "{}", run.stdout);
    assert_eq!(lines[0]["complete"], false);
    assert!(lines[0]["report"].is_null(), "{}", lines[0]);
    assert_eq!(lines[1]["exit"], 130);
    let said = lines[1]["error"].as_str().expect("a sentence");
    assert!(said.starts_with("interrupted: 0 of 1 scenarios checked"), "{said}");
}
