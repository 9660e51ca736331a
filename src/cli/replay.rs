//! `replay` and `reenact`: a verdict on one saved trace. Both print it on
//! stdout, whether the violation occurs again (exit 0) or not (1); a
//! trace that cannot be replayed or enacted is an error (exit 2).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::real::reenact::{self, log_path};
use crate::trace::{replay_file, Replay};

use super::failure::{Exit, Failure};
use super::{json, Format};

/// `replay TRACE [--scenario NAME]`.
pub(super) fn replay_cmd(trace: &Path, scenario: Option<&str>, format: Format) -> Exit {
    let r = crate::observe::replay::replay_path(trace, scenario).unwrap_or_else(|| replay_file(trace));
    say_verdict("replay", trace, r, None, format)
}

/// `reenact TRACE [--tick-ms N] [--scenario NAME] [--log PATH]`.
pub(super) fn reenact_cmd(trace: &Path, opts: reenact::Options, format: Format) -> Exit {
    let log = opts
        .log
        .clone()
        .unwrap_or_else(|| log_path(trace, opts.scenario.as_deref()));
    let r = reenact::reenact_file(trace, &opts);
    say_verdict("reenact", trace, r, Some(log), format)
}

/// Prints the verdict (its sentence, or its JSON line of `kind`), or
/// hands an invalid trace's sentence on as the failure.
fn say_verdict(kind: &'static str, trace: &Path, r: Replay, log: Option<PathBuf>, format: Format) -> Exit {
    let code = r.exit_code();
    let (reproduced, message) = match r {
        Replay::Reproduced(m) => (true, m),
        Replay::NotReproduced(m) => (false, m),
        Replay::Invalid(m) => return Err(Failure::bad(m)),
    };
    match format {
        Format::Text => say!("{message}"),
        Format::Json => say!("{}", json::verdict(kind, trace, reproduced, &message, log.as_deref())),
    }
    Ok(code)
}
