//! "What changed" between two states, for the step table of `trace.md`.
//! A family shows its states as `(field, value)` pairs (`Actor::show_state`),
//! diffed by [`fields`]. A program that shows none is diffed through its
//! `Debug` text, flattened into `field.path = value` leaves ([`changes`]).

/// Flattens compact `Debug` output (`Client(Client { script: Script {
/// phase: Want, left: 1 }, token: 0 })`) into `(path, value)` leaves
/// (`script.phase = Want`, `script.left = 1`, `token = 0`).
pub fn leaves(debug: &str) -> Vec<(String, String)> {
    let mut p = Parser {
        s: debug.as_bytes(),
        i: 0,
        out: Vec::new(),
    };
    p.value(String::new());
    p.out
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    out: Vec<(String, String)>,
}

impl Parser<'_> {
    fn peek(&mut self) -> u8 {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
        self.s.get(self.i).copied().unwrap_or(0)
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == c;
        if hit {
            self.i += 1;
        }
        hit
    }

    fn token(&mut self) -> String {
        self.peek();
        let start = self.i;
        if self.s.get(self.i) == Some(&b'"') {
            self.i += 1;
            while self.i < self.s.len() && self.s[self.i] != b'"' {
                self.i += if self.s[self.i] == b'\\' { 2 } else { 1 };
            }
            self.i = (self.i + 1).min(self.s.len());
        } else {
            while self.i < self.s.len() && !b" ,{}()[]:".contains(&self.s[self.i]) {
                self.i += 1;
            }
        }
        String::from_utf8_lossy(&self.s[start..self.i]).into_owned()
    }

    fn join(path: &str, part: &str) -> String {
        if path.is_empty() {
            part.to_string()
        } else {
            format!("{path}.{part}")
        }
    }

    fn value(&mut self, path: String) {
        let start = self.i;
        if self.eat(b'[') || self.peek() == b'(' {
            let close = if self.s[self.i.saturating_sub(1)] == b'[' {
                b']'
            } else {
                self.i += 1;
                b')'
            };
            let mut n = 0;
            while self.peek() != close && self.peek() != 0 {
                self.value(format!("{path}[{n}]"));
                n += 1;
                self.eat(b',');
            }
            self.eat(close);
            if n == 0 {
                self.out.push((path, "[]".into()));
            }
            return;
        }
        let name = self.token();
        match self.peek() {
            b'{' => {
                self.i += 1;
                while self.peek() != b'}' && self.peek() != 0 {
                    let field = self.token();
                    self.eat(b':');
                    self.value(Self::join(&path, &field));
                    self.eat(b',');
                }
                self.eat(b'}');
            }
            b'(' => {
                self.i += 1;
                let before = self.out.len();
                let mut n = 0;
                while self.peek() != b')' && self.peek() != 0 {
                    self.value(path.clone());
                    n += 1;
                    self.eat(b',');
                }
                self.eat(b')');
                // A variant around one plain value reads best whole: Paused(3).
                if n == 1 && self.out.len() == before + 1 && !self.out[before].1.contains('(') && name != "Some" {
                    let text = String::from_utf8_lossy(&self.s[start..self.i]).trim().to_string();
                    self.out[before].1 = text;
                }
            }
            _ => self.out.push((path, name)),
        }
        if self.i == start {
            // Nothing consumed: skip a byte so malformed text cannot loop.
            self.i += 1;
        }
    }
}

/// The changes from `before` to `after` as `path old → new` items. A
/// leaf that becomes a structure (or back), as `None` becoming
/// `Some(Key { owner: 1 })`, is shown as one item: `key None → {owner 1}`.
pub fn changes(before: &str, after: &str) -> Vec<String> {
    let (a, b) = (leaves(before), leaves(after));
    let under = |leaves: &[(String, String)], root: &str| -> Vec<String> {
        let prefix = format!("{root}.");
        leaves
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix))
            .map(|(p, v)| format!("{} {v}", &p[prefix.len()..]))
            .collect()
    };
    let mut out = Vec::new();
    for (path, new) in &b {
        match a.iter().find(|(p, _)| p == path) {
            Some((_, old)) if old == new => {}
            Some((_, old)) => out.push(format!("{} {old} → {new}", label(path))),
            None => {
                // A leaf that replaced a structure, or a field of a structure
                // that replaced a leaf, is reported below as one item.
                let replaced = a.iter().any(|(p, _)| path.starts_with(&format!("{p}.")));
                let shrunk = a.iter().any(|(p, _)| p.starts_with(&format!("{path}.")));
                if !replaced && !shrunk {
                    out.push(format!("{} {new}", label(path)));
                }
            }
        }
    }
    for (path, old) in &a {
        if b.iter().any(|(p, _)| p == path) {
            continue;
        }
        let grown = under(&b, path);
        if !grown.is_empty() {
            out.push(format!("{} {old} → {{{}}}", label(path), grown.join(", ")));
        } else if b.iter().any(|(p, _)| path.starts_with(&format!("{p}."))) {
            // Part of a structure that shrank to a leaf: reported below.
        } else {
            out.push(format!("{} {old} → gone", label(path)));
        }
    }
    for (path, new) in &b {
        if a.iter().any(|(p, _)| p == path) {
            continue;
        }
        let shrunk = under(&a, path);
        if !shrunk.is_empty() {
            out.push(format!("{} {{{}}} → {new}", label(path), shrunk.join(", ")));
        }
    }
    out
}

/// The changes from `before` to `after`, two lists of `(field, value)`
/// pairs: `field old → new` for a changed value, `field value` for a new
/// field, `field gone` for one that is no longer shown.
pub fn fields(before: &[(String, String)], after: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (f, new) in after {
        match before.iter().find(|(g, _)| g == f) {
            Some((_, old)) if old == new => {}
            Some((_, old)) => out.push(format!("{f} {old} → {new}")),
            None => out.push(format!("{f} {new}")),
        }
    }
    for (f, _) in before {
        if !after.iter().any(|(g, _)| g == f) {
            out.push(format!("{f} gone"));
        }
    }
    out
}

fn label(path: &str) -> String {
    if path.is_empty() {
        "state".into()
    } else {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattens_nested_structs_and_variants() {
        let l = leaves(
            "Client(Client { script: Script { phase: Want, left: 1 }, key: Some(Key { owner: 2 }), s: Paused(3) })",
        );
        assert_eq!(
            l,
            vec![
                ("script.phase".to_string(), "Want".to_string()),
                ("script.left".into(), "1".into()),
                ("key.owner".into(), "2".into()),
                ("s".into(), "Paused(3)".into()),
            ]
        );
    }

    #[test]
    fn field_pairs_diff_by_name() {
        let pair = |f: &str, v: &str| (f.to_string(), v.to_string());
        let before = [pair("phase", "wants"), pair("value", "none"), pair("EXPIRE", "to send")];
        let after = [pair("phase", "acquiring"), pair("value", "v1"), pair("token", "2")];
        assert_eq!(
            fields(&before, &after),
            vec!["phase wants → acquiring", "value none → v1", "token 2", "EXPIRE gone"]
        );
        assert!(fields(&after, &after).is_empty());
    }

    #[test]
    fn reports_changed_new_and_gone_fields() {
        let c = changes("S { key: None, n: 1 }", "S { key: Some(K { owner: 1 }), n: 2 }");
        assert_eq!(c, vec!["n 1 → 2", "key None → {owner 1}"]);
        let back = changes("S { key: Some(K { owner: 1 }) }", "S { key: None }");
        assert_eq!(back, vec!["key {owner 1} → None"]);
    }
}
