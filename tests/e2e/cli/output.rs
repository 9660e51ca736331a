//! What `--help`, `list`, `show`, `completions` and `man` print, and tidy text output.

use std::fs;
use std::path::Path;

use crate::common::{bundled, locksmith, TempDir};

use super::locksmith_in;

/// Every command's help shows examples and its exit codes.
#[test]
fn help_shows_examples_and_exit_codes() {
    for args in [
        vec!["--help"],
        vec!["check", "--help"],
        vec!["replay", "--help"],
        vec!["list", "--help"],
    ] {
        let run = locksmith(&args);
        assert_eq!(run.code, 0, "{args:?}");
        assert!(run.stdout.contains("Exit codes:"), "{args:?}:\n{}", run.stdout);
    }
    let run = locksmith(["check", "--help"]);
    assert!(run.stdout.contains("--timeout <SECONDS>") && run.stdout.contains("--max-states <N>"));
    assert!(run.stdout.contains("Examples:"));
}

/// Text output has no trailing spaces, and says what was expected in plain
/// lower-case words.
#[test]
fn text_output_is_tidy() {
    let run = locksmith(["check", "redis-fencing", "--no-reports"]);
    for line in run.stdout.lines() {
        assert_eq!(line, line.trim_end(), "trailing spaces in {line:?}");
        assert!(!line.contains("EXPECTED"), "{line}");
    }
}

#[test]
fn list_prints_every_bundled_scenario() {
    let run = locksmith(["list"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let listed: Vec<&str> = run.stdout.lines().filter_map(|l| l.split_whitespace().next()).collect();
    for name in bundled() {
        assert!(listed.contains(&name.as_str()), "{name} is not listed:\n{}", run.stdout);
    }
}

/// `show` prints a bundled scenario's file and its family's spec from the
/// binary alone (in a folder without the checkout), byte for byte; an
/// unknown name is one sentence and exit 2.
#[test]
fn show_prints_a_scenario_and_its_spec_from_any_folder() {
    let tmp = TempDir::new("show");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = locksmith_in(tmp.path(), &["show", "redis-fencing"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        fs::read_to_string(root.join("scenarios/redis-fencing.toml")).expect("the file")
    );
    let run = locksmith_in(tmp.path(), &["show", "redlock-no-fsync", "--spec"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        fs::read_to_string(root.join("specs/Redlock.tla")).expect("the spec")
    );
    let run = locksmith_in(tmp.path(), &["show", "no-such-lock"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with("locksmith: no scenario named \"no-such-lock\""),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

/// Completions and the man page come from the command line's own
/// definitions: every command is in them.
#[test]
fn completions_and_the_man_page_name_every_command() {
    let bash = locksmith(["completions", "bash"]);
    assert_eq!(bash.code, 0, "{}", bash.stderr);
    let man = locksmith(["man"]);
    assert_eq!(man.code, 0, "{}", man.stderr);
    assert!(
        man.stdout.starts_with(".ie"),
        "roff: {}",
        &man.stdout[..80.min(man.stdout.len())]
    );
    for cmd in [
        "list", "show", "check", "sweep", "matrix", "simulate", "replay", "reenact", "explore", "bench",
    ] {
        assert!(bash.stdout.contains(cmd), "bash completion lacks {cmd}");
        assert!(
            man.stdout.contains(&format!("locksmith\\-{cmd}")),
            "man page lacks {cmd}"
        );
    }
    let bad = locksmith(["completions", "tcsh"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}
