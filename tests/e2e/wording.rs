//! What the committed traces say, read as a user reads them: no trace
//! contradicts itself.

use std::fs;
use std::path::Path;

use crate::common::files_under;

/// A stuck run (a liveness counterexample whose "loop" is empty: nothing
/// fair is left to take) is not a run that "goes on forever, fairly"; its
/// verdict sentence says that it stops. The old wording said both in one
/// trace (coordinator-loss, token-ring-loss, ricart-agrawala-loss...).
#[test]
fn a_stuck_run_is_not_said_to_go_on_forever() {
    let reports = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports");
    let mut stuck = 0;
    for md in files_under(&reports, ".md") {
        let text = fs::read_to_string(&md).expect("a committed trace.md");
        if !text.contains("with nothing fair left to do;") {
            continue;
        }
        stuck += 1;
        assert!(
            !text.contains("goes on forever"),
            "{}: stuck, and said to go on forever",
            md.display()
        );
        assert!(
            text.contains("nothing fair is left to do: the run stops there"),
            "{}: stuck, and its verdict sentence does not say so",
            md.display()
        );
    }
    assert!(stuck >= 10, "only {stuck} stuck traces among the committed reports");
}
