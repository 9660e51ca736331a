//! Embeds the bundled scenarios (`scenarios/*.toml`) in the binary, so that
//! `locksmith check NAME` works from any directory after `cargo install`.
//! Writes `$OUT_DIR/bundled.rs`: a sorted list of (name, text) pairs, each
//! text an `include_str!` of its file, and asks Cargo to rebuild when the
//! folder or any file in it changes.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read when the script runs, not baked in when it is compiled: one
    // compiled script can serve two checkouts that share a target folder.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join("scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the scenarios/ folder")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut code = String::from(
        "/// The bundled scenarios: (name, text), sorted by name.\npub const BUNDLED: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_stem().expect("a file name").to_string_lossy();
        let _ = writeln!(code, "    ({name:?}, include_str!({:?})),", path.display().to_string());
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("bundled.rs");
    std::fs::write(out, code).expect("write bundled.rs");
}
