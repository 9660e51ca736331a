//! A guard on the module graph: no source file may import, through other
//! files, from a file that imports it. Circles were broken once (the scenario
//! loader and the families, trace.md and trace.svg, the actor trait and its
//! TLA+ mapping, progress and the search's memory reading); this keeps them
//! broken.
//!
//! The graph is read from the text of `src/**/*.rs`: the paths of `use`
//! items and the paths written inline (`crate::a::b`, `super::x`, a child
//! module's `child::f`), each mapped to the file of the module it names
//! (`src/a/b.rs` or `src/a/b/mod.rs`, else the nearest enclosing module's).
//! An edge is an import only: declaring a child module is none, and neither
//! is a child's import from a module it sits in. Comments, strings and
//! `#[cfg(test)]` items are left out (tests may reach anywhere).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles the graph is known to keep, each as its sorted files, with the
/// reason. The test fails if the circles found are not exactly these.
const KNOWN: &[(&[&str], &str)] = &[];

/// `src/**/*.rs` as `(path under the crate, text)`, but `src/main.rs` (the
/// binary: a crate of its own).
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut todo = vec![root.join("src")];
    let mut out = Vec::new();
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a source folder") {
            let path: PathBuf = entry.expect("a directory entry").path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let name = path
                    .strip_prefix(root)
                    .expect("under the crate")
                    .to_string_lossy()
                    .replace('\\', "/");
                if name != "src/main.rs" {
                    let text = std::fs::read_to_string(&path).expect("read a source file");
                    out.push((name, text));
                }
            }
        }
    }
    out.sort();
    out
}

/// The module path of a file: `src/lib.rs` → [], `src/a/mod.rs` and
/// `src/a.rs` → [a], `src/a/b.rs` → [a, b].
fn module_of(file: &str) -> Vec<String> {
    let inner = file.strip_prefix("src/").unwrap_or(file);
    let inner = inner.strip_suffix(".rs").unwrap_or(inner);
    let mut parts: Vec<String> = inner.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// `text` with comments removed and every string and char literal emptied,
/// so that neither a `crate::` in prose nor a brace in a string is read.
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (c[i] == 'r' || (c[i] == 'b' && next == Some('r'))) && (i == 0 || !ident(c[i - 1])) && {
            let mut k = i + if c[i] == 'b' { 2 } else { 1 };
            while c.get(k) == Some(&'#') {
                k += 1;
            }
            c.get(k) == Some(&'"')
        } {
            // A raw string: r"..", r#".."#, br#".."#.
            let mut k = i + if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[k] == '#' {
                hashes += 1;
                k += 1;
            }
            k += 1;
            loop {
                if k >= c.len() {
                    break;
                }
                if c[k] == '"' && (1..=hashes).all(|h| c.get(k + h) == Some(&'#')) {
                    k += 1 + hashes;
                    break;
                }
                k += 1;
            }
            out.push_str("\"\"");
            i = k;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c[i] == '\'' && (next == Some('\\') || c.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{7b}'); a lifetime stays.
            i += if next == Some('\\') { 2 } else { 1 };
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The index just past the item that starts at `from`: its `{ .. }` block
/// if one opens before a `;`, else the `;`.
fn item_end(c: &[char], from: usize) -> usize {
    let mut i = from;
    while i < c.len() && c[i] != '{' && c[i] != ';' {
        i += 1;
    }
    if i < c.len() && c[i] == '{' {
        let mut depth = 0;
        while i < c.len() {
            match c[i] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i + 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    (i + 1).min(c.len())
}

/// Stripped `code` without its `#[cfg(test)]` items.
fn without_tests(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let c: Vec<char> = rest[at..].chars().collect();
        let end = item_end(&c, "#[cfg(test)]".len());
        rest = &rest[at + c[..end].iter().map(|ch| ch.len_utf8()).sum::<usize>()..];
    }
    out.push_str(rest);
    out
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// The word at byte `at` of `s` if it stands alone there (no identifier
/// character or `::` right before it).
fn word_at(s: &str, at: usize, word: &str) -> bool {
    let before = s[..at].chars().next_back();
    let after = s[at + word.len()..].chars().next();
    s[at..].starts_with(word) && !before.is_some_and(|b| is_ident(b) || b == ':') && !after.is_some_and(is_ident)
}

/// A file's code split into its modules: the file's own, then each inline
/// `mod name { .. }` (not a test) with the module path it opens.
fn inline_modules(code: &str, module: &[String]) -> Vec<(Vec<String>, String)> {
    let mut outer = String::new();
    let mut inner = Vec::new();
    let mut rest = code;
    loop {
        let found = rest.match_indices("mod ").find(|(at, _)| {
            word_at(rest, *at, "mod") && {
                let tail = rest[at + 4..].trim_start();
                let name_len = tail.find(|ch: char| !is_ident(ch)).unwrap_or(tail.len());
                tail[name_len..].trim_start().starts_with('{')
            }
        });
        let Some((at, _)) = found else { break };
        let tail = rest[at + 4..].trim_start();
        let name: String = tail.chars().take_while(|ch| is_ident(*ch)).collect();
        let c: Vec<char> = rest[at..].chars().collect();
        let end = item_end(&c, 0);
        let block: String = c[..end].iter().collect();
        let open = block.find('{').expect("an inline module opens a block");
        let mut path = module.to_vec();
        path.push(name);
        inner.extend(inline_modules(&block[open + 1..block.len() - 1], &path));
        outer.push_str(&rest[..at]);
        rest = &rest[at + block.len()..];
    }
    outer.push_str(rest);
    let mut all = vec![(module.to_vec(), outer)];
    all.extend(inner);
    all
}

/// The paths a `use` tree names, each as its segments (`a::{b, c::d}` →
/// `a::b`, `a::c::d`; `a::{self}` → `a`; an alias and a glob end a path).
fn use_paths(text: &str) -> Vec<Vec<String>> {
    fn tokens(s: &str) -> Vec<String> {
        let mut out = Vec::new();
        let c: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < c.len() {
            if is_ident(c[i]) {
                let start = i;
                while i < c.len() && is_ident(c[i]) {
                    i += 1;
                }
                out.push(c[start..i].iter().collect());
            } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
                out.push("::".into());
                i += 2;
            } else if "{},*".contains(c[i]) {
                out.push(c[i].to_string());
                i += 1;
            } else {
                i += 1;
            }
        }
        out
    }
    fn tree(t: &[String], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        while *i < t.len() {
            match t[*i].as_str() {
                "{" => {
                    *i += 1;
                    while *i < t.len() && t[*i] != "}" {
                        tree(t, i, &path, out);
                        if *i < t.len() && t[*i] == "," {
                            *i += 1;
                        }
                    }
                    *i += 1;
                    return;
                }
                "," | "}" => break,
                "::" | "*" => *i += 1,
                "as" => *i += 2,
                "self" if !path.is_empty() => *i += 1,
                word => {
                    path.push(word.to_string());
                    *i += 1;
                }
            }
        }
        out.push(path);
    }
    let t = tokens(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        tree(&t, &mut i, &[], &mut out);
        if i < t.len() && t[i] == "," {
            i += 1;
        }
    }
    out
}

/// The paths written in `code`: those of its `use` items, then those
/// written inline that start with `crate`, `super`, `self` or a child
/// module (`children`).
fn paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut s = code;
    while let Some(at) = s
        .match_indices("use ")
        .map(|(at, _)| at)
        .find(|at| word_at(s, *at, "use"))
    {
        let end = s[at..].find(';').map_or(s.len(), |e| at + e);
        out.extend(use_paths(&s[at + 4..end]));
        rest.push_str(&s[..at]);
        s = &s[(end + 1).min(s.len())..];
    }
    rest.push_str(s);
    let c: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < c.len() {
        let starts = is_ident(c[i]) && (i == 0 || !(is_ident(c[i - 1]) || c[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut k = i;
        loop {
            let start = k;
            while k < c.len() && is_ident(c[k]) {
                k += 1;
            }
            segs.push(c[start..k].iter().collect::<String>());
            if c.get(k) == Some(&':') && c.get(k + 1) == Some(&':') && c.get(k + 2).is_some_and(|ch| is_ident(*ch)) {
                k += 2;
            } else {
                break;
            }
        }
        let first = segs[0].as_str();
        if segs.len() > 1 && (["crate", "super", "self"].contains(&first) || children.contains(first)) {
            out.push(segs);
        }
        i = k.max(i + 1);
    }
    out
}

/// Every module of the crate: its path → its file.
type Modules = BTreeMap<Vec<String>, String>;

/// The file an import names: `path`, written in `module` (whose child
/// modules are `children`), made absolute and cut to the longest prefix
/// that is a module file. `None` for an outside crate.
fn target(path: &[String], module: &[String], children: &BTreeSet<String>, modules: &Modules) -> Option<String> {
    let mut abs: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => module.to_vec(),
        Some("super") => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            module[..module.len().saturating_sub(ups)].to_vec()
        }
        Some(first) if children.contains(first) => module.to_vec(),
        _ => return None,
    };
    let skip = match path.first().map(String::as_str) {
        Some("crate" | "self") => 1,
        Some("super") => path.iter().take_while(|s| *s == "super").count(),
        _ => 0,
    };
    abs.extend(path[skip..].iter().cloned());
    (0..=abs.len()).rev().find_map(|n| modules.get(&abs[..n]).cloned())
}

/// The import graph: file → the files it imports (an edge to itself or to
/// a module it sits in is none).
fn graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let modules: Modules = files.iter().map(|(f, _)| (module_of(f), f.clone())).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in files {
        let module = module_of(file);
        let code = without_tests(&strip(text));
        let to = edges.entry(file.clone()).or_default();
        for (inner, part) in inline_modules(&code, &module) {
            let children: BTreeSet<String> = modules
                .keys()
                .filter(|m| m.len() == inner.len() + 1 && m.starts_with(&inner))
                .map(|m| m[inner.len()].clone())
                .collect();
            for p in paths(&part, &children) {
                let Some(t) = target(&p, &inner, &children, &modules) else {
                    continue;
                };
                let ancestor = module.starts_with(&module_of(&t));
                if t != *file && !ancestor {
                    to.insert(t);
                }
            }
        }
    }
    edges
}

/// The circles of `edges`: its strongly connected components of more than
/// one file, each sorted (Tarjan's algorithm).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.on_stack.contains(w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}

#[test]
fn no_source_file_imports_from_a_file_that_imports_it() {
    let edges = graph(&sources());
    let found = circles(&edges);
    let known: Vec<Vec<String>> = KNOWN
        .iter()
        .map(|(files, _)| files.iter().map(|f| f.to_string()).collect())
        .collect();
    let shown: Vec<String> = found
        .iter()
        .filter(|c| !known.contains(c))
        .map(|c| {
            let ties: Vec<String> = c
                .iter()
                .flat_map(|a| {
                    edges[a]
                        .iter()
                        .filter(|b| c.contains(b))
                        .map(move |b| format!("    {a} -> {b}"))
                })
                .collect();
            format!("{}\n{}", c.join(", "), ties.join("\n"))
        })
        .collect();
    assert!(shown.is_empty(), "import circles:\n{}", shown.join("\n"));
    let gone: Vec<&Vec<String>> = known.iter().filter(|k| !found.contains(k)).collect();
    assert!(gone.is_empty(), "KNOWN lists circles that are gone: {gone:?}");
}

#[test]
fn the_reader_sees_the_imports_that_keep_the_layers_apart() {
    let edges = graph(&sources());
    let has = |a: &str, b: &str| edges.get(a).is_some_and(|to| to.contains(b));
    // A `use` of a sibling, a parent's child by its bare name, `super::super`.
    assert!(has("src/catalog.rs", "src/algorithms/mod.rs"));
    assert!(has("src/catalog.rs", "src/sim/rates.rs") || has("src/catalog.rs", "src/sim/mod.rs"));
    assert!(has("src/report/svg.rs", "src/report/svg/timeline.rs"));
    assert!(has("src/report/svg/timeline.rs", "src/report/story.rs"));
    assert!(has("src/world/tla.rs", "src/world/actor.rs"));
    // What the circles were made of is gone.
    for (a, b) in [
        ("src/scenario.rs", "src/algorithms/mod.rs"),
        ("src/scenario.rs", "src/sim/rates.rs"),
        ("src/scenario.rs", "src/sim/mod.rs"),
        ("src/scenario.rs", "src/matrix/generate.rs"),
        ("src/report/svg/timeline.rs", "src/report/markdown.rs"),
        ("src/world/actor.rs", "src/world/tla.rs"),
        ("src/progress.rs", "src/check/mod.rs"),
    ] {
        assert!(!has(a, b), "{a} imports {b}");
    }
}

#[test]
fn a_circle_through_super_and_a_use_tree_is_found() {
    let files: Vec<(String, String)> = [
        ("src/lib.rs", "pub mod a;\npub mod b;\n"),
        ("src/a/mod.rs", "mod inner;\nuse crate::b::{self, X};\n// crate::c::Y\n"),
        (
            "src/a/inner.rs",
            "use super::super::c;\nfn f() { let s = \"crate::b\"; }\n",
        ),
        (
            "src/b.rs",
            "pub fn g() { crate::a::h(); }\n#[cfg(test)]\nmod tests { use crate::c::Z; }\n",
        ),
        ("src/c.rs", "use crate::a::inner::W;\n"),
    ]
    .iter()
    .map(|(f, t)| (f.to_string(), t.to_string()))
    .collect();
    let edges = graph(&files);
    assert_eq!(edges["src/b.rs"], BTreeSet::from(["src/a/mod.rs".to_string()]));
    assert_eq!(edges["src/a/inner.rs"], BTreeSet::from(["src/c.rs".to_string()]));
    let pair = |a: &str, b: &str| vec![a.to_string(), b.to_string()];
    assert_eq!(
        circles(&edges),
        vec![pair("src/a/inner.rs", "src/c.rs"), pair("src/a/mod.rs", "src/b.rs")],
        "{edges:?}"
    );
}

/// Small files whose names say what they hold: no source file grows past
/// about 600 lines unnoticed (the largest, etcd's reenact driver and two
/// families' `mod.rs`, are a little above it).
#[test]
fn no_source_file_is_over_650_lines() {
    let long: Vec<String> = sources()
        .iter()
        .map(|(path, text)| (path, text.lines().count()))
        .filter(|&(_, n)| n > 650)
        .map(|(path, n)| format!("{path}: {n} lines"))
        .collect();
    assert!(long.is_empty(), "split by what each part holds: {long:?}");
}
