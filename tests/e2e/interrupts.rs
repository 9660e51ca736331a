//! Failure paths of a run: Ctrl-C (SIGINT) during `check` and `simulate`,
//! temporary report folders a killed run left, and a reports folder that
//! cannot be written. Every run writes into a temp dir of its own.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{locksmith, Run, TempDir};

/// Starts the binary with `args`, sends it SIGINT after `after`, and waits
/// for it to end (failing if it does not within two minutes).
pub(crate) fn interrupted(args: &[&OsStr], after: Duration) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_locksmith"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start locksmith");
    std::thread::sleep(after);
    assert!(
        child.try_wait().expect("poll").is_none(),
        "{args:?} ended before Ctrl-C: pick a longer run"
    );
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success(), "kill -INT failed");
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("poll").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{args:?} did not stop within 2 minutes of Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Run::checked(child.wait_with_output().expect("collect the output"))
}

/// Every file and folder under `dir` whose name says it is a temporary
/// report (`.NAME.partial-PID...`).
fn partials(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs::read_dir(&d).expect("read a folder").flatten() {
            let path = entry.path();
            if entry.file_name().to_string_lossy().contains(".partial-") {
                found.push(path.clone());
            }
            if path.is_dir() {
                todo.push(path);
            }
        }
    }
    found
}

fn args<'a>(words: &[&'a str], reports: &'a Path) -> Vec<&'a OsStr> {
    let mut all: Vec<&OsStr> = words.iter().map(|w| OsStr::new(*w)).collect();
    all.extend([OsStr::new("--reports"), reports.as_os_str()]);
    all
}

/// Ctrl-C stops the search: the verdicts so far are printed, with how far
/// it got, the previous report stays as it was, nothing temporary is left
/// and the exit code is 130.
#[test]
fn ctrl_c_stops_a_check_says_how_far_it_got_and_exits_130() {
    let tmp = TempDir::new("interrupt-check");
    let old = tmp.join("redlock-fsync");
    fs::create_dir_all(&old).expect("an earlier report");
    fs::write(old.join("summary.json"), "by an earlier run\n").expect("write");
    let run = interrupted(
        &args(&["check", "redlock-fsync", "--no-symmetry"], tmp.path()),
        Duration::from_secs(3),
    );
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("note: interrupted after "), "{}", run.stdout);
    assert!(
        run.stdout.contains("states; open verdicts are unknown"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("mutual_exclusion     unknown"), "{}", run.stdout);
    assert!(
        run.stdout.contains("interrupted: 0 of 1 scenarios checked"),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("locksmith: interrupted"), "{}", run.stderr);
    assert_eq!(
        fs::read_to_string(old.join("summary.json")).expect("kept"),
        "by an earlier run\n"
    );
    assert_eq!(partials(tmp.path()), Vec::<PathBuf>::new());
}

/// `check --all`: the scenarios done before Ctrl-C keep their verdicts and
/// reports, the running ones stop, the rest are skipped; no index, nothing
/// temporary left, exit 130.
#[test]
fn ctrl_c_during_check_all_keeps_what_finished_and_exits_130() {
    let tmp = TempDir::new("interrupt-check-all");
    let run = interrupted(
        &args(&["check", "--all", "--jobs", "2", "--no-symmetry"], tmp.path()),
        Duration::from_secs(3),
    );
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    let total = crate::common::bundled().len();
    let last = run.stdout.lines().last().unwrap_or_default();
    assert!(last.starts_with("interrupted: "), "{}", run.stdout);
    assert!(
        last.contains(&format!(" of {total} scenarios checked")),
        "{}",
        run.stdout
    );
    // Each scenario shown: finished with its report, or stopped without
    // one (a scenario Ctrl-C caught between two searches shows as neither).
    let lines: Vec<&str> = run.stdout.lines().collect();
    let headers: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains("  (") && !lines[i].starts_with(' '))
        .collect();
    let mut finished = 0;
    for (k, &at) in headers.iter().enumerate() {
        let name = lines[at].split_whitespace().next().expect("a name");
        let end = headers.get(k + 1).copied().unwrap_or(lines.len());
        if lines[at..end].iter().any(|l| l.contains("note: interrupted after ")) {
            assert!(
                !tmp.join(name).exists(),
                "{name}: an interrupted check writes no report"
            );
        } else {
            finished += 1;
            assert!(tmp.join(name).join("summary.json").exists(), "{name}: its report");
        }
    }
    assert!(
        last.starts_with(&format!("interrupted: {finished} of {total} ")),
        "{}",
        run.stdout
    );
    assert!(!tmp.join("README.md").exists(), "no index of a partial run");
    assert_eq!(partials(tmp.path()), Vec::<PathBuf>::new());
}

/// An interrupted simulation prints and writes what its runs found, and
/// says how many ran.
#[test]
fn ctrl_c_during_simulate_writes_the_violations_found_and_exits_130() {
    let tmp = TempDir::new("interrupt-simulate");
    let run = interrupted(
        &args(
            &["simulate", "redis-ttl-gc-pause", "--seed", "7", "--runs", "1000000000"],
            tmp.path(),
        ),
        Duration::from_secs(3),
    );
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("note: interrupted after "), "{}", run.stdout);
    assert!(run.stdout.contains(" of 1000000000 runs"), "{}", run.stdout);
    assert!(
        run.stdout.contains("mutual_exclusion     violated  as expected"),
        "{}",
        run.stdout
    );
    let dir = tmp.join("redis-ttl-gc-pause").join("sim-7");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("summary.json")).expect("written")).expect("JSON");
    let runs = summary["runs"].as_u64().expect("runs");
    assert!(runs > 0 && runs < 1_000_000_000, "{runs}");
    assert!(dir.join("trace.json").exists(), "the violation's trace is written");
    assert_eq!(partials(tmp.path()), Vec::<PathBuf>::new());

    // Ctrl-C during --check-determinism's double runs stops them too.
    let run = interrupted(
        &args(
            &[
                "simulate",
                "redis-ttl-gc-pause",
                "--seed",
                "8",
                "--runs",
                "1000000000",
                "--check-determinism",
            ],
            tmp.path(),
        ),
        Duration::from_secs(2),
    );
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("note: interrupted after "), "{}", run.stdout);
    assert!(!run.stdout.contains("same trace twice"), "{}", run.stdout);
    assert_eq!(partials(tmp.path()), Vec::<PathBuf>::new());
}

/// A temporary report a killed run left (its process gone) is removed by
/// the next run that writes beside it; a running process's is not.
#[test]
fn a_later_run_removes_the_temporary_reports_of_dead_runs() {
    let tmp = TempDir::new("interrupt-stale");
    // Above the largest pid_max Linux allows (2^22): never a live process.
    let stale = tmp.join(".redis-ttl-no-faults.partial-4194305");
    fs::create_dir_all(stale.join("inside")).expect("a stale folder");
    let stale_old = tmp.join(".redis-ttl-no-faults.partial-4194306.old");
    fs::create_dir_all(&stale_old).expect("a stale old report");
    // PID 1 always runs.
    let live = tmp.join(".redis-ttl-no-faults.partial-1");
    fs::create_dir_all(&live).expect("a live run's folder");
    let run = locksmith(args(&["check", "redis-ttl-no-faults"], tmp.path()));
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        !stale.exists() && !stale_old.exists(),
        "the dead runs' folders are swept"
    );
    assert!(live.exists(), "a running process's folder stays");
    assert_eq!(partials(tmp.path()), [live]);
}

/// `--reports FILE`: refused before the search, in one sentence naming the
/// path and why; nothing printed on stdout.
#[test]
fn a_reports_path_that_is_a_file_is_refused_before_the_search() {
    let tmp = TempDir::new("interrupt-reports-file");
    let file = tmp.join("reports");
    fs::write(&file, "not a folder\n").expect("a file");
    let said = format!(
        "locksmith: cannot write reports under {}: it is a file, not a folder",
        file.display()
    );
    for words in [
        &["check", "redis-ttl-no-faults"][..],
        &["simulate", "redis-ttl-no-faults", "--runs", "10"],
    ] {
        let run = locksmith(args(words, &file));
        assert_eq!(run.code, 2, "{words:?}: {}{}", run.stdout, run.stderr);
        assert_eq!(run.stderr.trim_end(), said, "{words:?}");
        assert!(run.stdout.is_empty(), "{words:?} searched: {}", run.stdout);
    }
    let below = file.join("deeper");
    let run = locksmith(args(&["check", "redis-ttl-no-faults"], &below));
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains(&format!("{} is a file, not a folder", file.display())),
        "{}",
        run.stderr
    );
}

/// A report that fails to be written after the search (the folder was
/// fine, the scenario's own place in it is not) still shows the verdicts,
/// then the error: exit 2.
#[test]
fn a_report_that_cannot_be_written_still_shows_the_verdicts_then_exits_2() {
    let tmp = TempDir::new("interrupt-write-fails");
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-fencing.toml");
    let scenario = tmp.join("copied.toml");
    fs::copy(&bundled, &scenario).expect("copy a scenario");
    let reports = tmp.join("reports");
    fs::create_dir_all(&reports).expect("the reports folder");
    // A file scenario's reports go to own/NAME-HASH: make `own` a file.
    fs::write(reports.join("own"), "in the way\n").expect("a file in the way");
    let scenario = scenario.to_str().expect("a UTF-8 temp path");
    for words in [&["check", scenario][..], &["simulate", scenario, "--runs", "20"]] {
        let run = locksmith(args(words, &reports));
        assert_eq!(run.code, 2, "{words:?}: {}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains("copied  (single-redis)"),
            "{words:?}: the verdicts: {}",
            run.stdout
        );
        assert!(run.stdout.contains("mutual_exclusion"), "{words:?}: {}", run.stdout);
        // After any progress lines: the error, last.
        let error = run.stderr.trim_end().lines().last().unwrap_or_default();
        assert!(
            error.starts_with("locksmith: cannot write the ")
                && error.contains(&format!("report for copied under {}", reports.display())),
            "{words:?}: {}",
            run.stderr
        );
        assert_eq!(partials(&reports), Vec::<PathBuf>::new(), "{words:?}");
    }
}

/// `sweep`: Ctrl-C stops the combinations being checked and skips the
/// rest; the previous sweep folder stays as it was, nothing temporary is
/// left, exit 130. The sweep takes about 18 s on an idle machine, so the
/// Ctrl-C at 2 s finds it running (27 combinations took 2.1 s, and once
/// ended first).
#[test]
fn ctrl_c_stops_a_sweep_keeps_the_previous_one_and_exits_130() {
    let tmp = TempDir::new("interrupt-sweep");
    let old = tmp.join("sweep-redis-ttl-gc-pause");
    fs::create_dir_all(&old).expect("an earlier sweep");
    fs::write(old.join("SWEEP.md"), "by an earlier run\n").expect("write");
    let run = interrupted(
        &args(
            &[
                "sweep",
                "redis-ttl-gc-pause",
                "--vary",
                "system.ttl=4..30",
                "--vary",
                "faults.max_pause=1..8",
                "--jobs",
                "1",
            ],
            tmp.path(),
        ),
        Duration::from_secs(2),
    );
    assert_eq!(run.code, 130, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains(" of 216 combinations checked; the sweep was not written"),
        "{}",
        run.stdout
    );
    assert_eq!(
        fs::read_to_string(old.join("SWEEP.md")).expect("kept"),
        "by an earlier run\n"
    );
    assert_eq!(fs::read_dir(&old).expect("kept").count(), 1);
    assert_eq!(partials(tmp.path()), Vec::<PathBuf>::new());
}
