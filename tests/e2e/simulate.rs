//! `locksmith simulate` end to end: the same seed gives the same bytes on
//! any number of threads, a known violation is found, shrunk and replayed,
//! the exit codes, and one-sentence errors for bad flags and bad
//! `[simulate]` tables.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::common::{locksmith, TempDir};

/// The report folder's files, with the reports root written as `reports`.
fn files(dir: &Path, root: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .flatten()
        .map(|e| {
            let text = fs::read_to_string(e.path()).expect("a report file");
            (
                e.file_name().to_string_lossy().into_owned(),
                text.replace(&root.display().to_string(), "reports"),
            )
        })
        .collect();
    out.sort();
    out
}

fn simulate(args: &[&str], reports: &Path) -> crate::common::Run {
    let mut all = vec!["simulate"];
    all.extend_from_slice(args);
    let mut all: Vec<std::ffi::OsString> = all.into_iter().map(Into::into).collect();
    all.push("--reports".into());
    all.push(reports.as_os_str().to_owned());
    locksmith(all)
}

fn json_line(run: &crate::common::Run) -> Value {
    serde_json::from_str(run.stdout.trim()).unwrap_or_else(|e| panic!("not one JSON line ({e}): {}", run.stdout))
}

#[test]
fn a_seed_gives_the_same_report_bytes_on_any_number_of_threads() {
    let (one, three) = (TempDir::new("sim-threads-1"), TempDir::new("sim-threads-3"));
    let base = [
        "redis-ttl-gc-pause",
        "--seed",
        "7",
        "--runs",
        "3000",
        "--format",
        "json",
    ];
    let a = simulate(&[&base[..], &["--threads", "1"]].concat(), one.path());
    let b = simulate(&[&base[..], &["--threads", "3"]].concat(), three.path());
    assert_eq!(a.code, 0, "{}{}", a.stdout, a.stderr);
    assert_eq!(b.code, 0, "{}{}", b.stdout, b.stderr);
    // Paths name each run's own reports folder (docs/json.md): the same
    // once that is taken out.
    let strip = |run: &crate::common::Run, reports: &TempDir| {
        let folder = reports.path().to_str().expect("a UTF-8 path");
        let text = json_line(run).to_string().replace(folder, "REPORTS");
        let mut v: Value = serde_json::from_str(&text).expect("JSON");
        for k in ["seconds", "steps_per_second", "runs_per_second", "threads"] {
            assert!(v.get(k).is_some(), "no {k} in {v}");
            v.as_object_mut().expect("an object").remove(k);
        }
        v
    };
    assert_eq!(strip(&a, &one), strip(&b, &three));
    let dir = |t: &TempDir| t.join("redis-ttl-gc-pause").join("sim-7");
    let first = files(&dir(&one), one.path());
    assert_eq!(first, files(&dir(&three), three.path()));
    assert!(first.iter().any(|(f, _)| f == "trace.json"), "a trace was written");
    // A second identical run leaves the same bytes.
    let again = simulate(&[&base[..], &["--threads", "2"]].concat(), one.path());
    assert_eq!(again.code, 0);
    assert_eq!(first, files(&dir(&one), one.path()));
    let summary: Value =
        serde_json::from_str(&fs::read_to_string(dir(&one).join("summary.json")).expect("summary.json")).expect("JSON");
    assert!(summary.get("seconds").is_none() && summary.get("threads").is_none());
}

#[test]
fn a_known_violation_is_found_shrunk_and_replayed() {
    let tmp = TempDir::new("sim-replay");
    let run = simulate(&["redis-ttl-gc-pause", "--seed", "1", "--runs", "2000"], tmp.path());
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("steps/s") && run.stdout.contains("runs/s"),
        "{}",
        run.stdout
    );
    let line = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("replay: locksmith replay "))
        .unwrap_or_else(|| panic!("no replay line in:\n{}", run.stdout));
    assert!(line.ends_with("sim-1/trace.json"), "{line}");
    let replay = locksmith(["replay", line]);
    assert_eq!(replay.code, 0, "{}{}", replay.stdout, replay.stderr);
    assert!(
        replay.stdout.contains("mutual_exclusion is violated again"),
        "{}",
        replay.stdout
    );
    let summary: Value = serde_json::from_str(
        &fs::read_to_string(Path::new(line).with_file_name("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    for p in summary["properties"].as_array().expect("properties") {
        if p["verdict"] == "violated" {
            let (orig, steps) = (p["original_steps"].as_u64(), p["trace_steps"].as_u64());
            assert!(steps.is_some() && orig >= steps, "shrinking never lengthens: {p}");
            let file = Path::new(line).with_file_name(p["trace"].as_str().expect("a trace file"));
            let r = locksmith([std::ffi::OsStr::new("replay"), file.as_os_str()]);
            assert_eq!(r.code, 0, "{}: {}{}", file.display(), r.stdout, r.stderr);
        } else {
            assert_eq!(p["verdict"], "unknown", "{p}");
        }
    }
    // The mutual exclusion violation shrinks to near the shortest (12).
    let me = &summary["properties"][0];
    assert!(me["trace_steps"].as_u64() <= Some(16), "{me}");
    assert!(summary["faults_fired"]["pause"].as_u64() > Some(0));
}

#[test]
fn exit_codes_follow_the_expectations() {
    let tmp = TempDir::new("sim-exit");
    // No violation where the scenario claims safety: 0.
    let safe = simulate(&["redis-fencing", "--runs", "300", "--format", "json"], tmp.path());
    assert_eq!(safe.code, 0, "{}{}", safe.stdout, safe.stderr);
    assert_eq!(json_line(&safe)["properties"][1]["verdict"], "unknown");
    // A violation the scenario does not expect: 1.
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-ttl-gc-pause.toml"))
        .expect("the bundled file");
    let own = tmp.join("claims-safety.toml");
    fs::write(
        &own,
        text.replace("mutual_exclusion = \"violated\"", "mutual_exclusion = \"holds\""),
    )
    .expect("write");
    let own = own.display().to_string();
    let unexpected = simulate(&[own.as_str(), "--runs", "2000"], tmp.path());
    assert_eq!(unexpected.code, 1, "{}{}", unexpected.stdout, unexpected.stderr);
    // Expected violations that no run shows (no pauses at all): 3.
    let missed = simulate(&["redis-ttl-gc-pause", "--runs", "50", "--rate", "pause=0"], tmp.path());
    assert_eq!(missed.code, 3, "{}{}", missed.stdout, missed.stderr);
    // Every run twice, compared byte for byte.
    let det = simulate(
        &[
            "redis-ttl-gc-pause",
            "--runs",
            "200",
            "--check-determinism",
            "--seed",
            "3",
        ],
        tmp.path(),
    );
    assert_eq!(det.code, 0, "{}{}", det.stdout, det.stderr);
    assert!(det.stdout.contains("same trace twice"), "{}", det.stdout);
}

#[test]
fn bad_flags_and_rates_are_one_sentence_and_exit_2() {
    let tmp = TempDir::new("sim-bad");
    let cases: &[(&[&str], &str)] = &[
        (&["redis-ttl-gc-pause", "--runs", "0"], "--runs 0"),
        (&["redis-ttl-gc-pause", "--max-steps", "0"], "--max-steps 0"),
        (&["redis-ttl-gc-pause", "--threads", "0"], "--threads 0"),
        (&["redis-ttl-gc-pause", "--rate", "pause"], "--rate pause"),
        (&["redis-ttl-gc-pause", "--rate", "pause=1.5"], "--rate pause=1.5"),
        (&["redis-ttl-gc-pause", "--rate", "gc=0.1"], "--rate gc=0.1"),
        (&["redis-ttl-gc-pause", "--rate", "crash=0.1"], "allows no crashes"),
        (&["redis-ttl-gc-pause", "--seed", "x"], "--seed"),
        (&["no-such-scenario"], "no scenario named"),
    ];
    for (args, says) in cases {
        let run = simulate(args, tmp.path());
        assert_eq!(run.code, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stdout.is_empty(), "{args:?} printed {}", run.stdout);
        // One sentence; clap's refusals then point at the command's help.
        let said = run.stderr.trim_end();
        assert!(
            said.lines().count() == 1 || said.ends_with("\n\nsee `locksmith simulate --help`"),
            "{args:?}: {said}"
        );
        assert!(
            said.lines().next().is_some_and(|l| l.contains(says)),
            "{args:?}: {said}"
        );
    }
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-ttl-gc-pause.toml"))
        .expect("the bundled file");
    for (table, says) in [
        (
            "[simulate]\npause_rate = 1.5\n",
            "[simulate] pause_rate = 1.5 is not allowed; allowed: a number from 0 to 1",
        ),
        ("[simulate]\npause = 0.1\n", "[simulate] has no key \"pause\""),
        (
            "[simulate]\ncrash_rate = 0.1\n",
            "[simulate] crash_rate = 0.1 has no effect",
        ),
    ] {
        let file = tmp.join("bad.toml");
        fs::write(&file, format!("{text}\n{table}")).expect("write");
        for cmd in ["simulate", "check"] {
            let run = locksmith([cmd.as_ref(), file.as_os_str(), "--no-reports".as_ref()]);
            assert_eq!(run.code, 2, "{cmd} {table}: {}{}", run.stdout, run.stderr);
            assert!(run.stderr.contains(says), "{cmd} {table}: {}", run.stderr);
        }
    }
    assert!(!tmp.join("redis-ttl-gc-pause").exists(), "nothing written");
}

#[test]
fn rates_from_the_scenario_are_used_and_reported() {
    let tmp = TempDir::new("sim-rates");
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/redis-ttl-gc-pause.toml"))
        .expect("the bundled file");
    let file = tmp.join("eager.toml");
    fs::write(&file, format!("{text}\n[simulate]\npause_rate = 1\n")).expect("write");
    let run = simulate(
        &[&file.display().to_string(), "--runs", "20", "--format", "json"],
        tmp.path(),
    );
    let v = json_line(&run);
    assert_eq!(v["rates"]["pause"], 1.0);
    assert_eq!(v["faults_fired"]["pause"], 20, "every run pauses at once: {v}");
}

#[test]
fn check_reports_messages_per_acquisition_and_keeps_simulation_reports() {
    let tmp = TempDir::new("sim-messages");
    let sim = simulate(&["redis-ttl-gc-pause", "--runs", "500"], tmp.path());
    assert_eq!(sim.code, 0, "{}{}", sim.stdout, sim.stderr);
    let args = |fmt: &str| {
        vec![
            "check".into(),
            "redis-ttl-gc-pause".into(),
            "--format".into(),
            fmt.to_string().into(),
            "--reports".into(),
            tmp.path().as_os_str().to_owned(),
        ]
    };
    let check: Vec<std::ffi::OsString> = args("json");
    let run = locksmith(check);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let m = json_line(&run)["messages_per_acquisition"].as_f64();
    // SET NX PX, its answer, DEL and its answer, plus refused attempts.
    assert!(m.is_some_and(|m| (4.0..8.0).contains(&m)), "{m:?}");
    let written: Value = serde_json::from_str(
        &fs::read_to_string(tmp.join("redis-ttl-gc-pause").join("summary.json")).expect("summary.json"),
    )
    .expect("JSON");
    assert_eq!(written["messages_per_acquisition"].as_f64(), m);
    assert!(
        tmp.join("redis-ttl-gc-pause")
            .join("sim-1")
            .join("trace.json")
            .is_file(),
        "check kept the simulation's report"
    );
    let text = locksmith(args("text"));
    assert!(
        text.stdout.contains(" messages per acquisition in fault-free runs"),
        "{}",
        text.stdout
    );
}
