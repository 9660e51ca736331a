//! `show`: a scenario's text, to copy and edit, or its family's TLA+
//! spec; both are inside the binary, so they need no checkout.

use std::io::Write;

use crate::{algorithms, catalog, scenario};

use super::failure::{Exit, Failure};

/// Prints the scenario `name` (its file's text, exactly), or with `spec`
/// the TLA+ module of its algorithm.
pub(super) fn show(name: &str, spec: bool) -> Exit {
    let text = scenario::find(name).and_then(|path| {
        let (_, source) = scenario::source(&path)?;
        if !spec {
            return Ok(source);
        }
        let sc = catalog::parse(&path, &source)?;
        Ok(algorithms::spec_text(&sc.algorithm)
            .expect("a valid scenario's algorithm is registered")
            .to_string())
    });
    let text = text.map_err(|e| Failure::bad(e.to_string()))?;
    let _ = std::io::stdout().write_all(text.as_bytes());
    Ok(0)
}
