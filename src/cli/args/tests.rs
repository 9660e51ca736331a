//! The command line's grammar and its words for bad values.

use super::*;

/// The message `main` prints for `args`, which must not parse.
fn message(args: &[&str]) -> String {
    let argv: Vec<String> = std::iter::once("locksmith")
        .chain(args.iter().copied())
        .map(String::from)
        .collect();
    match Cli::try_parse_from(&argv) {
        Ok(_) => panic!("{args:?} parsed"),
        Err(e) => usage_error(&e, &argv),
    }
}

/// The message's first line: what is wrong.
fn refusal(args: &[&str]) -> String {
    message(args).lines().next().unwrap_or_default().to_string()
}

/// clap's whole message is kept: what it names, its tips and its
/// usage line, ending with the help of the command at fault.
#[test]
fn a_usage_error_keeps_what_clap_names_and_points_at_the_commands_help() {
    let missing = message(&["simulate"]);
    assert!(
        missing.starts_with("the following required arguments were not provided:"),
        "{missing}"
    );
    assert!(missing.contains("<SCENARIO>"), "{missing}");
    assert!(missing.contains("Usage: locksmith simulate"), "{missing}");
    assert!(missing.ends_with("\n\nsee `locksmith simulate --help`"), "{missing}");
    assert!(
        !missing.contains("error:") && !missing.contains("try '--help'"),
        "{missing}"
    );
    let typo = message(&["chek"]);
    assert!(
        typo.contains("'chek'") && typo.contains("a similar subcommand exists: 'check'"),
        "{typo}"
    );
    assert!(typo.ends_with("see `locksmith --help`"), "{typo}");
    let flag = message(&["check", "x", "--max-state", "5"]);
    assert!(flag.contains("a similar argument exists: '--max-states'"), "{flag}");
    assert!(flag.ends_with("see `locksmith check --help`"), "{flag}");
    let format = message(&["simulate", "x", "--format", "yaml"]);
    assert!(
        format.contains("'yaml'") && format.contains("[possible values: text, json]"),
        "{format}"
    );
    assert!(format.ends_with("see `locksmith simulate --help`"), "{format}");
    let threads = message(&["check", "x", "--threads", "0"]);
    assert!(threads.ends_with("see `locksmith check --help`"), "{threads}");
}

#[test]
fn a_bad_value_is_one_sentence_naming_the_flag_and_what_is_allowed() {
    let threads = "allowed: a whole number of threads from 1 to 256";
    for args in [
        &["check", "x", "--threads", "0"][..],
        &["check", "x", "--threads", "257"],
        &["simulate", "x", "--threads", "0"],
        &["bench", "--threads", "many"],
    ] {
        let said = refusal(args);
        assert!(
            said.starts_with(&format!("--threads {} is not allowed; ", args[args.len() - 1])),
            "{said}"
        );
        assert!(said.ends_with(threads), "{said}");
    }
    assert_eq!(
        refusal(&["check", "x", "--jobs", "0"]),
        "--jobs 0 is not allowed; allowed: a whole number of scenarios to check at once, at least 1"
    );
    assert_eq!(
        refusal(&["simulate", "x", "--max-steps", "0"]),
        "--max-steps 0 is not allowed; allowed: a whole number of actions, at least 1"
    );
    assert!(refusal(&["check", "x", "--timeout", "0"]).starts_with("--timeout 0 is not allowed"));
    assert!(refusal(&["check", "x", "--timeout", "1e300"]).starts_with("--timeout 1e300 is not allowed"));
    assert!(refusal(&["check", "x", "--max-memory", ""]).starts_with("--max-memory \"\" is not allowed"));
    assert!(refusal(&["chek"]).contains("chek"), "{}", refusal(&["chek"]));
    assert_eq!(
        message(&["check", "x", "--jobs", "0"]).lines().count(),
        3,
        "no usage block for a value"
    );
}

#[test]
fn good_values_parse() {
    let cli = Cli::try_parse_from([
        "locksmith",
        "check",
        "x",
        "--threads",
        "256",
        "--timeout",
        "0.5",
        "--max-memory",
        "2G",
    ])
    .expect("parses");
    match cli.command {
        Command::Check {
            threads,
            timeout,
            max_memory,
            ..
        } => {
            assert_eq!(threads, 256);
            assert_eq!(timeout, Some(Duration::from_millis(500)));
            assert_eq!(max_memory, Some(2 << 30));
        }
        _ => panic!("not check"),
    }
}

#[test]
fn sizes_are_mib_or_suffixed_powers_of_1024() {
    assert_eq!(parse_size("512"), Some(512 << 20));
    assert_eq!(parse_size("8G"), Some(8 << 30));
    assert_eq!(parse_size(" 3 kib "), Some(3 << 10));
    for bad in [
        "0",
        "0G",
        "abc",
        "1.5G",
        "8X",
        "G",
        "",
        "99999999999999999999",
        "99999999T",
    ] {
        assert_eq!(parse_size(bad), None, "{bad:?}");
    }
}
