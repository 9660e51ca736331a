//! primary-replica regression scenarios, kept in `tests/primary_replica/`:
//! each documents in its description what it pins and why.

use crate::common::run;
use locksmith::catalog::load;
use locksmith::check::Options;
use locksmith::properties::Prop;

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

fn params(system: &str, faults: &str) -> Result<locksmith::algorithms::primary_replica::Params, String> {
    let text = format!(
        "summary = \"x\"\nalgorithm = \"primary-replica\"\n[system]\n{system}\n[faults]\nmax_delay = 1\n{faults}\n[bounds]\nacquisitions = 1\n"
    );
    let sc = locksmith::catalog::parse(std::path::Path::new("pr.toml"), &text).map_err(|e| e.to_string())?;
    locksmith::algorithms::primary_replica::Params::read(&sc).map_err(|e| e.0)
}

/// partitions were refused ("a healed replication link
/// resynchronises, and Sentinel demotes a partitioned primary"), which hid
/// the split brain; they are accepted now, with three Sentinels and a
/// majority quorum by default.
#[test]
fn partitions_are_accepted_and_sentinels_default_to_three_with_a_majority_quorum() {
    let p = params("", "partitions = 2").expect("partitions are modelled");
    assert_eq!((p.sentinels, p.quorum, p.min_replicas, p.lag), (3, 2, 0, true));
    let p = params(
        "sentinels = 5\nreplicas = 2\nmin_replicas = 2\nmax_lag = 3",
        "partitions = 1",
    )
    .expect("valid");
    assert_eq!((p.sentinels, p.quorum, p.min_replicas, p.max_lag), (5, 3, 2, 3));
}

/// Bad input: one sentence naming the file, the key and the allowed values.
#[test]
fn sentinel_and_min_replicas_keys_are_checked() {
    for (system, says) in [
        ("sentinels = 3\nquorum = 4", "quorum = 4"),
        ("sentinels = 6", "sentinels"),
        ("min_replicas = 2", "min_replicas = 2"),
        ("max_lag = 2", "max_lag = 2"),
        ("lag = 1", "lag"),
    ] {
        let e = params(system, "").expect_err(system);
        assert!(
            e.contains("pr.toml") && e.contains(says) && e.contains("allowed"),
            "{system}: {e}"
        );
    }
}

/// a one-way cut from the primary to its Sentinel gives
/// two holders (the scenario's description says how). The check, within a
/// state bound (the shortest violation is 15 steps deep, the whole space
/// about 900,000 states), finds it with a both-ways cut first (`Partition`
/// comes before `Cut` in the world's order); the same run with that cut
/// made one way, primary to Sentinel only, replays to the same violation.
#[test]
fn a_one_way_cut_to_the_sentinel_gives_two_holders() {
    use crate::common::{locksmith, TempDir};
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/primary_replica/bounded/one-way-cut-split-brain.toml");
    let tmp = TempDir::new("one-way-sentinel");
    let run = locksmith([
        "check".as_ref(),
        file.as_os_str(),
        "--max-states".as_ref(),
        "200000".as_ref(),
        "--reports".as_ref(),
        tmp.path().as_os_str(),
    ]);
    assert!(run.stdout.contains("mutual_exclusion     violated"), "{}", run.stdout);
    let own = tmp.join("own");
    let dir = std::fs::read_dir(&own)
        .expect("the report folder")
        .next()
        .expect("one report")
        .expect("an entry")
        .path();
    let text = std::fs::read_to_string(dir.join("trace.json")).expect("trace.json");
    let mut trace: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let steps = trace["steps"].as_array_mut().expect("steps");
    assert_eq!(steps.len(), 15);
    let cut = steps
        .iter_mut()
        .find(|s| s["action"].get("partition").is_some())
        .expect("the trace cuts a link");
    // The primary (node 0) and the Sentinel (node 2).
    assert_eq!(cut["action"]["partition"], serde_json::json!({"a": 0, "b": 2}));
    cut["action"] = serde_json::json!({"cut": {"src": 0, "dst": 2}});
    let one_way = tmp.join("one-way.json");
    std::fs::write(&one_way, trace.to_string()).expect("write");
    let run = locksmith(["replay".as_ref(), one_way.as_os_str()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("violated again"), "{}", run.stdout);
}
