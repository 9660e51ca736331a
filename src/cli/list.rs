//! `list`: the bundled scenarios, then the user's own.

use std::io::Write;

use crate::catalog;
use crate::scenario;

use super::Format;

/// The bundled scenarios, then the user's own in ./scenarios/ (files that
/// are not a bundled one's exact text), each marked as which it is; a local
/// file named like a bundled scenario is listed once, as local. A
/// local file that does not load is listed too; its error goes to stderr
/// and the exit code is 2.
pub(super) fn list(format: Format) -> i32 {
    let mut code = 0;
    // A local file named like a bundled scenario replaces it: one line,
    // the local one.
    let bundled = scenario::not_replaced().into_iter().map(|p| ("bundled", p));
    let local = scenario::local().into_iter().map(|p| ("local", p));
    for (origin, path) in bundled.chain(local) {
        let sc = match catalog::load(&path) {
            Ok(sc) => sc,
            Err(e) => {
                eprintln!("locksmith: {e}");
                code = 2;
                continue;
            }
        };
        let file = (origin == "local").then(|| path.display().to_string());
        match format {
            Format::Json => {
                let line = serde_json::json!({
                    "name": sc.name,
                    "origin": origin,
                    "algorithm": sc.algorithm,
                    "summary": sc.summary,
                    "path": file,
                });
                say!("{line}");
            }
            Format::Text => {
                let line = format!("{:32} {:8} {:16} {}", sc.name, origin, sc.algorithm, sc.summary);
                match file {
                    Some(f) => say!("{line}  [{f}]"),
                    None => say!("{line}"),
                }
            }
        }
    }
    code
}
