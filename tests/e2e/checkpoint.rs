//! `check --checkpoint DIR` and `--resume`: a search stopped by a bound or
//! by Ctrl-C goes on from its checkpoint to the same summary and the same
//! report bytes as one run from the start; a checkpoint of another search,
//! a damaged one or a missing one is refused in one sentence (exit 2).

use std::ffi::OsStr;
use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common::{files_under, locksmith, Run, TempDir};
use crate::interrupts::interrupted;

/// The JSON summary line without what differs between two runs of the
/// same search (the time, and the reports folder it was asked to use).
fn summary(run: &Run) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("one JSON line");
    let o = v.as_object_mut().expect("an object");
    o.remove("seconds");
    o.remove("report");
    v
}

/// Every file under `dir`, by its path below it, with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = files_under(dir, "")
        .into_iter()
        .map(|f| {
            let name = f.strip_prefix(dir).expect("below").display().to_string();
            (name, fs::read(&f).expect("read"))
        })
        .collect();
    files.sort();
    files
}

fn check(scenario: &str, reports: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["check", scenario, "--format", "json", "--reports"];
    let reports = reports.to_str().expect("utf-8");
    args.push(reports);
    args.extend(extra);
    locksmith(args)
}

/// Stopped by `--max-states` halfway (the last periodic checkpoint is a
/// few thousand states before), then resumed: the summary and every
/// report file are those of one run, breadth-first under symmetry,
/// depth-first, and on two threads.
#[test]
fn a_resumed_search_ends_as_one_run_would() {
    for (scenario, extra) in [
        ("redlock-no-fsync", &[][..]),
        ("coordinator-standby-no-state", &["--dfs"][..]),
        ("coordinator-standby-no-state", &["--threads", "2"][..]),
    ] {
        let tmp = TempDir::new(&format!("checkpoint-{scenario}-{}", extra.join("")));
        let ckpt = tmp.join("ckpt");
        let ckpt = ckpt.to_str().expect("utf-8");
        // Both runs write to the same folder (the reports name it).
        let reports = tmp.join("reports");
        let whole = check(scenario, &reports, extra);
        assert!(whole.code <= 1, "{scenario}: {}", whole.stderr);
        let whole_tree = tree(&reports);
        fs::remove_dir_all(&reports).expect("remove");
        let states = summary(&whole)["unique_states"].as_u64().expect("a count");
        let half = (states / 2).to_string();
        let every = (states / 10).to_string();
        let mut first = extra.to_vec();
        first.extend([
            "--max-states",
            &half,
            "--checkpoint",
            ckpt,
            "--checkpoint-every",
            &every,
        ]);
        let stopped = check(scenario, &tmp.join("stopped"), &first);
        assert_eq!(
            stopped.code, 3,
            "{scenario}: the state bound stops it: {}",
            stopped.stderr
        );
        assert!(
            Path::new(ckpt).join(format!("{scenario}.checkpoint")).is_file(),
            "{scenario}: no checkpoint"
        );
        let mut again = extra.to_vec();
        again.extend(["--checkpoint", ckpt, "--checkpoint-every", &every, "--resume"]);
        let resumed = check(scenario, &reports, &again);
        assert_eq!(resumed.code, whole.code, "{scenario} {extra:?}: {}", resumed.stderr);
        assert_eq!(summary(&resumed), summary(&whole), "{scenario} {extra:?}");
        assert!(tree(&reports) == whole_tree, "{scenario} {extra:?}: the reports differ");
    }
}

/// Ctrl-C saves the search (exit 130); resuming it finds every state of
/// the whole search (2,364,389 on redlock-no-fsync without symmetry).
#[test]
fn ctrl_c_saves_a_checkpoint_to_resume_from() {
    let tmp = TempDir::new("checkpoint-ctrl-c");
    let ckpt = tmp.join("ckpt");
    let args: Vec<&OsStr> = [
        "check",
        "redlock-no-fsync",
        "--no-symmetry",
        "--no-reports",
        "--format",
        "json",
        "--checkpoint",
    ]
    .iter()
    .map(OsStr::new)
    .chain([ckpt.as_os_str()])
    .collect();
    let run = interrupted(&args, Duration::from_millis(1500));
    assert_eq!(run.code, 130, "{}", run.stderr);
    let file = ckpt.join("redlock-no-fsync.checkpoint");
    assert!(file.is_file(), "Ctrl-C saved no checkpoint: {}", run.stderr);
    let mut resume: Vec<&OsStr> = args.clone();
    resume.push(OsStr::new("--resume"));
    let resumed = locksmith(resume);
    assert_eq!(resumed.code, 0, "every verdict as expected: {}", resumed.stderr);
    assert_eq!(summary(&resumed)["unique_states"], 2_364_389);
}

/// What `--resume` refuses, each in one sentence naming the file, with
/// exit 2 and the checkpoint left as it was; and a checkpoint folder that
/// cannot be one is refused before any search.
#[test]
fn resume_refuses_a_checkpoint_it_cannot_follow() {
    let tmp = TempDir::new("checkpoint-refusals");
    let dir = tmp.join("ckpt");
    let d = dir.to_str().expect("utf-8");
    let run = locksmith([
        "check",
        "redis-crash-empty",
        "--no-reports",
        "--checkpoint",
        d,
        "--resume",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("cannot resume from") && run.stderr.contains("redis-crash-empty.checkpoint"),
        "{}",
        run.stderr
    );
    // A search's checkpoint, then offered for another scenario.
    let made = locksmith([
        "check",
        "redis-crash-empty",
        "--no-reports",
        "--checkpoint",
        d,
        "--checkpoint-every",
        "1000",
    ]);
    assert!(made.code <= 1, "{}", made.stderr);
    let saved = dir.join("redis-crash-empty.checkpoint");
    let bytes = fs::read(&saved).expect("a checkpoint");
    fs::copy(&saved, dir.join("redis-crash-fsync.checkpoint")).expect("copy");
    let other = locksmith([
        "check",
        "redis-crash-fsync",
        "--no-reports",
        "--checkpoint",
        d,
        "--resume",
    ]);
    assert_eq!(other.code, 2);
    assert!(
        other.stderr.contains("is the checkpoint of another scenario"),
        "{}",
        other.stderr
    );
    // The same search under other options.
    let dfs = locksmith([
        "check",
        "redis-crash-empty",
        "--dfs",
        "--no-reports",
        "--checkpoint",
        d,
        "--resume",
    ]);
    assert_eq!(dfs.code, 2);
    assert!(dfs.stderr.contains("another scenario, search"), "{}", dfs.stderr);
    // Cut short.
    fs::write(&saved, &bytes[..bytes.len() / 2]).expect("write");
    let cut = locksmith([
        "check",
        "redis-crash-empty",
        "--no-reports",
        "--checkpoint",
        d,
        "--resume",
    ]);
    assert_eq!(cut.code, 2);
    assert!(cut.stderr.contains("cut short or damaged"), "{}", cut.stderr);
    assert_eq!(
        fs::read(&saved).expect("read").len(),
        bytes.len() / 2,
        "a refusal writes nothing"
    );
    for run in [&other, &dfs, &cut] {
        assert_eq!(run.stderr.trim().lines().count(), 1, "one sentence: {}", run.stderr);
    }
    // A file where the folder should be.
    let file = tmp.join("a-file");
    fs::write(&file, "x").expect("write");
    let f = file.to_str().expect("utf-8");
    let run = locksmith(["check", "redis-crash-empty", "--checkpoint", f]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("it is a file, not a folder"), "{}", run.stderr);
    // --resume and --checkpoint-every need --checkpoint.
    assert_eq!(locksmith(["check", "redis-crash-empty", "--resume"]).code, 2);
}
