//! Progress goes to stderr only and changes no result: `check` and
//! `simulate` print the same stdout with progress lines on as without,
//! stderr that is not a terminal gets plain lines (no escape codes), and a
//! terminal gets indicatif's bar while stdout stays clean JSON.

use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_locksmith");

fn run(args: &[&str], every: &str) -> Output {
    Command::new(BIN)
        .args(args)
        .env("LOCKSMITH_PROGRESS_SECS", every)
        .output()
        .expect("locksmith runs")
}

/// The JSON line without its wall-clock figures (`seconds`, and rates per
/// second), which differ from run to run anyway.
fn without_wall_clock(stdout: &[u8]) -> Value {
    let text = String::from_utf8_lossy(stdout);
    assert_eq!(text.lines().count(), 1, "one JSON line on stdout: {text}");
    let mut v: Value = serde_json::from_str(&text).expect("JSON on stdout");
    v.as_object_mut()
        .expect("an object")
        .retain(|k, _| !k.contains("second"));
    v
}

fn plain_lines(stderr: &[u8], what: &str) -> Vec<String> {
    let err = String::from_utf8_lossy(stderr).into_owned();
    assert!(
        !err.contains('\u{1b}') && !err.contains('\r'),
        "escape codes on a non-terminal: {err:?}"
    );
    let lines: Vec<String> = err.lines().filter(|l| l.contains(what)).map(str::to_string).collect();
    assert!(!lines.is_empty(), "no progress line with {what:?}: {err}");
    lines
}

#[test]
fn check_progress_lines_go_to_stderr_and_leave_json_unchanged() {
    let args = ["check", "redis-ttl-gc-pause", "--format", "json", "--no-reports"];
    let quiet = run(&args, "1000");
    let busy = run(&args, "0.001");
    assert_eq!(quiet.status.code(), busy.status.code());
    assert_eq!(without_wall_clock(&quiet.stdout), without_wall_clock(&busy.stdout));
    assert!(quiet.stderr.is_empty(), "{}", String::from_utf8_lossy(&quiet.stderr));
    for line in plain_lines(&busy.stderr, " states (") {
        assert!(line.starts_with("locksmith: redis-ttl-gc-pause: "), "{line}");
        assert!(line.contains(" queued") && line.contains("depth "), "{line}");
    }
}

#[test]
fn simulate_progress_lines_count_runs() {
    let args = [
        "simulate",
        "redis-ttl-gc-pause",
        "--runs",
        "400",
        "--threads",
        "2",
        "--format",
        "json",
        "--no-reports",
    ];
    let quiet = run(&args, "1000");
    let busy = run(&args, "0.001");
    assert_eq!(quiet.status.code(), busy.status.code());
    assert_eq!(without_wall_clock(&quiet.stdout), without_wall_clock(&busy.stdout));
    for line in plain_lines(&busy.stderr, " of 400 runs (") {
        assert!(line.starts_with("locksmith: redis-ttl-gc-pause: "), "{line}");
    }
}

#[test]
fn a_bad_progress_interval_is_one_sentence() {
    let out = run(&["check", "redis-ttl-gc-pause", "--no-reports"], "soon");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("locksmith: LOCKSMITH_PROGRESS_SECS=\"soon\" is not allowed"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// Under a pseudo-terminal (util-linux `script`), stderr gets the bar and
/// stdout, sent to a file, is the JSON line alone.
#[test]
fn a_terminal_gets_a_bar_and_stdout_stays_clean() {
    if Command::new("script").arg("--version").output().is_err() {
        let why = "*** TERMINAL PROGRESS TEST NOT RUN: util-linux `script` is not installed";
        let ci =
            std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"));
        assert!(!ci, "{why}; under CI=true it must run");
        eprintln!("{why}");
        return;
    }
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("progress-tty");
    std::fs::create_dir_all(&dir).expect("a directory");
    let json = dir.join("out.json");
    let cmd = format!(
        "{BIN} simulate redis-ttl-gc-pause --runs 20000 --format json --no-reports > {}",
        json.display()
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .expect("script runs");
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{tty}");
    assert!(tty.contains("of 20,000 runs"), "no bar on the terminal: {tty:?}");
    assert!(
        tty.contains('\u{1b}') || tty.contains('\r'),
        "a bar redraws in place: {tty:?}"
    );
    let stdout = std::fs::read(&json).expect("stdout in a file");
    assert!(!stdout.contains(&0x1b), "escape codes in stdout");
    without_wall_clock(&stdout);
}
