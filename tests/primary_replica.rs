//! primary-replica regression scenarios, kept in `tests/primary_replica/`:
//! each documents in its description what it pins and why.

mod common;

use std::path::{Path, PathBuf};

use common::run;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::load;

#[test]
fn every_primary_replica_scenario_meets_its_expectations() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/primary_replica");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/primary_replica exists")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for path in files {
        let sc = load(&path).expect("a valid scenario");
        let r = run(&sc, Options::default());
        for p in Prop::ALL {
            let expected = sc
                .expected(p)
                .unwrap_or_else(|| panic!("{}: states no {}", sc.name, p.name()));
            assert_eq!(r.verdict(p), expected, "{}: {}", sc.name, p.name());
        }
    }
}
