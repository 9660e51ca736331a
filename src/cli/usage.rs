//! What `main` prints for a usage error that clap finds: clap's message
//! in locksmith's words, pointing at the help of the command at fault.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::CommandFactory;

use super::args::Cli;

/// What `main` prints for a usage error: clap's whole message, for what
/// it names (the arguments missing, a similar subcommand or flag, the
/// values allowed) and its usage line, after locksmith's own prefix; a
/// flag's bad value as one sentence in locksmith's words (`--threads 0 is
/// not allowed; allowed: a whole number of threads from 1 to 256`); and,
/// in place of clap's "try '--help'", the help of the command at fault
/// (`see `locksmith simulate --help``). `args` is the command line the
/// error came from, program name first.
pub(super) fn usage_error(e: &clap::Error, args: &[String]) -> String {
    let text = e.render().to_string();
    let mut lines: Vec<String> = text
        .lines()
        .filter(|l| !l.starts_with("For more information, try"))
        .map(str::to_string)
        .collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if let Some(first) = lines.first_mut() {
        *first = value_sentence(e).unwrap_or_else(|| first.strip_prefix("error: ").unwrap_or(first).to_string());
    }
    let command = Cli::command();
    let sub = args
        .iter()
        .skip(1)
        .find(|a| command.get_subcommands().any(|c| c.get_name() == a.as_str()));
    let help = match sub {
        Some(sub) => format!("see `locksmith {sub} --help`"),
        None => "see `locksmith --help`".to_string(),
    };
    lines.push(String::new());
    lines.push(help);
    lines.join("\n")
}

/// A flag's bad value (a value parser's refusal) as one sentence, or
/// `None` for any other error.
fn value_sentence(e: &clap::Error) -> Option<String> {
    let ctx = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let allowed = std::error::Error::source(e).map(ToString::to_string)?;
    let arg = ctx(ContextKind::InvalidArg)?;
    let value = ctx(ContextKind::InvalidValue)?;
    let flag = arg.split_whitespace().next().unwrap_or(arg);
    let value = if value.is_empty() || value.contains(char::is_whitespace) {
        format!("{value:?}")
    } else {
        value.to_string()
    };
    Some(format!("{flag} {value} is not allowed; allowed: {allowed}"))
}

#[cfg(test)]
mod tests {
    use clap::Parser;

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
}
