//! How a command ends without its verdicts deciding the exit code: bad
//! input or usage, reports that could not be written, Ctrl-C. Commands
//! return a [`Failure`] and [`finish`] is the one place that prints it, in
//! the format asked for (docs/json.md, "Errors").

use std::io::Write;

use super::args::Format;
use super::json;

/// Where text mode shows a failure's sentence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// `locksmith: <sentence>` on stderr: bad input, unwritable reports.
    Stderr,
    /// The sentence on stdout, as the last line of the results: check's
    /// "interrupted: ..." line.
    Stdout,
    /// Already in the results printed (simulate's note on an interrupted
    /// run): text mode prints nothing more.
    InResults,
}

/// A command's sentence(s) and exit code.
#[derive(Debug)]
pub(super) struct Failure {
    pub code: i32,
    /// Usually one; `list` gives one per scenario file that does not load.
    pub messages: Vec<String>,
    pub shown: Shown,
}

impl Failure {
    /// Bad input or usage, or reports that could not be written: exit 2.
    pub fn bad(message: impl Into<String>) -> Failure {
        Failure {
            code: 2,
            messages: vec![message.into()],
            shown: Shown::Stderr,
        }
    }

    /// Any other code, with the sentence shown as `shown` says.
    pub fn new(code: i32, message: impl Into<String>, shown: Shown) -> Failure {
        Failure {
            code,
            messages: vec![message.into()],
            shown,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::bad(message)
    }
}

impl From<crate::scenario::ScenarioError> for Failure {
    fn from(e: crate::scenario::ScenarioError) -> Failure {
        Failure::bad(e.0)
    }
}

/// What a command returns: the exit code its verdicts give, or a failure.
pub(super) type Exit = Result<i32, Failure>;

/// Prints a failure and returns the exit code. Text: as [`Shown`] says.
/// JSON: one line `{"error": ..., "exit": ...}` per sentence on stdout,
/// and the text sentence on stderr too (for a person watching, and logs
/// that keep stderr), so stdout holds JSON lines only.
pub(super) fn finish(format: Format, exit: Exit) -> i32 {
    let failure = match exit {
        Ok(code) => return code,
        Err(f) => f,
    };
    for message in &failure.messages {
        match (format, failure.shown) {
            (Format::Json, _) => {
                let _ = writeln!(std::io::stdout(), "{}", json::error(message, failure.code));
                eprintln!("locksmith: {message}");
            }
            (Format::Text, Shown::Stderr) => eprintln!("locksmith: {message}"),
            (Format::Text, Shown::Stdout) => {
                let _ = writeln!(std::io::stdout(), "{message}");
            }
            (Format::Text, Shown::InResults) => {}
        }
    }
    failure.code
}

/// The format a command line asks for, read from its words before clap
/// parses them, so that a usage error under `--format json` (or
/// `--format=json`) is a JSON line too.
pub(super) fn format_in(args: &[String]) -> Format {
    let json =
        args.windows(2).any(|w| w[0] == "--format" && w[1] == "json") || args.iter().any(|a| a == "--format=json");
    if json {
        Format::Json
    } else {
        Format::Text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_format_is_read_from_the_words_in_both_spellings() {
        assert!(format_in(&words("locksmith check x --format json")) == Format::Json);
        assert!(format_in(&words("locksmith check --format=json --threads 0")) == Format::Json);
        assert!(format_in(&words("locksmith check x --format text")) == Format::Text);
        assert!(format_in(&words("locksmith check json --format")) == Format::Text);
        assert!(format_in(&words("locksmith check x")) == Format::Text);
    }
}
