//! primary-replica regression scenarios, kept in `tests/primary_replica/`:
//! each documents in its description what it pins and why.

use crate::common::run;
use locksmith::check::Options;
use locksmith::properties::Prop;
use locksmith::scenario::load;

#[test]
fn every_primary_replica_scenario_meets_its_expectations() {
    for path in crate::common::toml_files("tests/primary_replica") {
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
