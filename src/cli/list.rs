//! `list`: the bundled scenarios, then the user's own.

use std::io::Write;

use crate::catalog;
use crate::scenario;

use super::failure::{Exit, Failure, Shown};
use super::{json, Format};

/// The bundled scenarios, then the user's own in ./scenarios/ (files that
/// are not a bundled one's exact text), each marked as which it is; a local
/// file named like a bundled scenario is listed once, as local. A
/// local file that does not load is not listed: its error is a failure
/// (exit 2), after the scenarios that do load.
pub(super) fn list(format: Format) -> Exit {
    let mut errors = Vec::new();
    // A local file named like a bundled scenario replaces it: one line,
    // the local one.
    let bundled = scenario::not_replaced().into_iter().map(|p| ("bundled", p));
    let local = scenario::local().into_iter().map(|p| ("local", p));
    for (origin, path) in bundled.chain(local) {
        let sc = match catalog::load(&path) {
            Ok(sc) => sc,
            Err(e) => {
                errors.push(e.to_string());
                continue;
            }
        };
        let file = (origin == "local").then(|| path.display().to_string());
        match format {
            Format::Json => say!(
                "{}",
                json::scenario(&sc.name, origin, &sc.algorithm, &sc.summary, file.as_deref())
            ),
            Format::Text => {
                let line = format!("{:32} {:8} {:16} {}", sc.name, origin, sc.algorithm, sc.summary);
                match file {
                    Some(f) => say!("{line}  [{f}]"),
                    None => say!("{line}"),
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(0)
    } else {
        Err(Failure {
            code: 2,
            messages: errors,
            shown: Shown::Stderr,
        })
    }
}
