//! The command line's grammar (its words for bad values: ../usage.rs).

use super::*;

#[test]
fn good_values_parse() {
    let cli = Cli::try_parse_from([
        "locksmith",
        "check",
        "x",
        "--threads",
        "256",
        "--timeout",
        "0.5",
        "--max-memory",
        "2G",
    ])
    .expect("parses");
    match cli.command {
        Command::Check(args) => {
            assert_eq!(args.threads, 256);
            assert_eq!(args.timeout, Some(Duration::from_millis(500)));
            assert_eq!(args.max_memory, Some(2 << 30));
        }
        _ => panic!("not check"),
    }
}

#[test]
fn sizes_are_mib_or_suffixed_powers_of_1024() {
    assert_eq!(parse_size("512"), Some(512 << 20));
    assert_eq!(parse_size("8G"), Some(8 << 30));
    assert_eq!(parse_size(" 3 kib "), Some(3 << 10));
    for bad in [
        "0",
        "0G",
        "abc",
        "1.5G",
        "8X",
        "G",
        "",
        "99999999999999999999",
        "99999999T",
    ] {
        assert_eq!(parse_size(bad), None, "{bad:?}");
    }
}
