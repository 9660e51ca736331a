//! TLC's printed counterexample (its "The behavior up to this point is:"
//! block) read as states of TLA+ values, and written as an ITF trace
//! (Apalache ADR-015), the form `locksmith replay` reads. TLC 2.15, the
//! version CI fetches, has no `-dumpTrace json`; its printed trace carries
//! the same states.

use serde_json::{json, Map, Value};

use crate::report::itf::{value, FORMAT_DESCRIPTION};
use crate::world::Tla;

/// A counterexample as TLC printed it.
#[derive(Debug, PartialEq)]
pub struct TlcTrace {
    /// The invariant TLC named as violated (`MutualExclusion`), if it named one.
    pub invariant: Option<String>,
    /// Each state's variables, in the order TLC printed them.
    pub states: Vec<Vec<(String, Tla)>>,
    /// For a lasso: the index (from 0) of the state the behaviour returns
    /// to ("Back to state k"), or the last state for "Stuttering".
    pub loop_at: Option<usize>,
}

/// Reads TLC's output; `Err` names what is missing or the first value that
/// does not parse.
pub fn parse(text: &str) -> Result<TlcTrace, String> {
    let invariant = text.lines().find_map(|l| {
        l.trim()
            .strip_prefix("Error: Invariant ")
            .and_then(|r| r.strip_suffix(" is violated."))
            .map(str::to_string)
    });
    let mut states = Vec::new();
    let mut loop_at = None;
    let mut block: Option<String> = None;
    let flush = |block: &mut Option<String>, states: &mut Vec<Vec<(String, Tla)>>| -> Result<(), String> {
        if let Some(b) = block.take() {
            states.push(state(&b).map_err(|e| format!("state {}: {e}", states.len() + 1))?);
        }
        Ok(())
    };
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("State ") {
            if rest
                .split(':')
                .next()
                .is_some_and(|n| n.trim().parse::<usize>().is_ok())
            {
                flush(&mut block, &mut states)?;
                if rest.contains(": Stuttering") {
                    loop_at = states.len().checked_sub(1);
                } else {
                    block = Some(String::new());
                }
                continue;
            }
        }
        if let Some(rest) = t.strip_prefix("Back to state ") {
            flush(&mut block, &mut states)?;
            let k: usize = rest
                .split(':')
                .next()
                .and_then(|n| n.trim().parse().ok())
                .ok_or_else(|| format!("cannot read the loop's state in {line:?}"))?;
            loop_at = k.checked_sub(1);
            continue;
        }
        if let Some(b) = block.as_mut() {
            let conjunct = t.starts_with("/\\");
            if t.is_empty() || (!conjunct && b.is_empty()) {
                // A blank line, or text that starts no conjunct, ends the state.
                flush(&mut block, &mut states)?;
            } else {
                b.push_str(line);
                b.push('\n');
            }
        }
    }
    flush(&mut block, &mut states)?;
    if states.is_empty() {
        return Err("it holds no TLC error trace (no \"State 1:\" block)".into());
    }
    Ok(TlcTrace {
        invariant,
        states,
        loop_at,
    })
}

impl TlcTrace {
    /// The trace in ITF, every variable TLC printed.
    pub fn to_itf(&self, source: &str) -> Value {
        let vars: Vec<&str> = self.states[0].iter().map(|(k, _)| k.as_str()).collect();
        let states: Vec<Value> = self
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut o = Map::new();
                o.insert("#meta".into(), json!({ "index": i }));
                for (k, v) in s {
                    o.insert(k.clone(), value(v));
                }
                Value::Object(o)
            })
            .collect();
        let mut meta = json!({
            "format": "ITF",
            "format-description": FORMAT_DESCRIPTION,
            "source": source,
            "description": "a TLC counterexample, read from TLC's printed error trace by locksmith",
        });
        if let Some(inv) = &self.invariant {
            meta["invariant"] = json!(inv);
        }
        let mut out = json!({ "#meta": meta, "vars": vars, "states": states });
        if let Some(k) = self.loop_at {
            out["loop"] = json!(k);
        }
        out
    }
}

/// One state: `/\ name = value` conjuncts.
fn state(text: &str) -> Result<Vec<(String, Tla)>, String> {
    let toks = tokens(text)?;
    let mut p = Parser { toks, at: 0 };
    let mut out = Vec::new();
    while p.at < p.toks.len() {
        p.eat(&Tok::Sym("/\\"))?;
        let Some(Tok::Ident(name)) = p.next() else {
            return Err("a conjunct does not name a variable".into());
        };
        p.eat(&Tok::Sym("="))?;
        out.push((name, p.value()?));
    }
    Ok(out)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    Str(String),
    Ident(String),
    Sym(&'static str),
}

const SYMS: [&str; 15] = [
    "/\\", "|->", ":>", "@@", "<<", ">>", "..", "{", "}", "[", "]", "(", ")", ",", "=",
];

fn tokens(text: &str) -> Result<Vec<Tok>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if c == '"' {
            let mut s = String::new();
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    i += 1;
                }
                s.push(b[i] as char);
                i += 1;
            }
            if i >= b.len() {
                return Err("a string is not closed".into());
            }
            i += 1;
            out.push(Tok::Str(s));
        } else if c.is_ascii_digit() || (c == '-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            let start = i;
            i += 1;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push(Tok::Int(text[start..i].parse().map_err(|e| format!("{e}"))?));
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(text[start..i].to_string()));
        } else if let Some(s) = SYMS.iter().find(|s| text[i..].starts_with(**s)) {
            out.push(Tok::Sym(s));
            i += s.len();
        } else {
            return Err(format!("unexpected {c:?}"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn eat(&mut self, t: &Tok) -> Result<(), String> {
        match self.next() {
            Some(x) if &x == t => Ok(()),
            other => Err(format!("expected {t:?}, found {other:?}")),
        }
    }

    /// Values separated by commas up to `close`.
    fn list(&mut self, close: &'static str) -> Result<Vec<Tla>, String> {
        let mut xs = Vec::new();
        if self.peek() == Some(&Tok::Sym(close)) {
            self.at += 1;
            return Ok(xs);
        }
        loop {
            xs.push(self.value()?);
            match self.next() {
                Some(Tok::Sym(",")) => {}
                Some(Tok::Sym(s)) if s == close => return Ok(xs),
                other => return Err(format!("expected , or {close}, found {other:?}")),
            }
        }
    }

    fn value(&mut self) -> Result<Tla, String> {
        let v = match self.next() {
            Some(Tok::Int(n)) => {
                if self.peek() == Some(&Tok::Sym("..")) {
                    self.at += 1;
                    let Some(Tok::Int(m)) = self.next() else {
                        return Err("an interval without an upper bound".into());
                    };
                    return Ok(Tla::set((n..=m).map(Tla::Int)));
                }
                Tla::Int(n)
            }
            Some(Tok::Str(s)) => Tla::Str(s),
            Some(Tok::Ident(x)) if x == "TRUE" => Tla::Bool(true),
            Some(Tok::Ident(x)) if x == "FALSE" => Tla::Bool(false),
            Some(Tok::Ident(x)) => Tla::Model(x),
            Some(Tok::Sym("<<")) => Tla::Seq(self.list(">>")?),
            Some(Tok::Sym("{")) => Tla::set(self.list("}")?),
            Some(Tok::Sym("[")) => {
                let mut fields = Vec::new();
                loop {
                    let Some(Tok::Ident(k)) = self.next() else {
                        return Err("a record field without a name".into());
                    };
                    self.eat(&Tok::Sym("|->"))?;
                    fields.push((k, self.value()?));
                    match self.next() {
                        Some(Tok::Sym(",")) => {}
                        Some(Tok::Sym("]")) => break,
                        other => return Err(format!("expected , or ] in a record, found {other:?}")),
                    }
                }
                Tla::rec(fields)
            }
            Some(Tok::Sym("(")) => {
                let mut graph = Vec::new();
                loop {
                    let k = self.value()?;
                    self.eat(&Tok::Sym(":>"))?;
                    graph.push((k, self.value()?));
                    match self.next() {
                        Some(Tok::Sym("@@")) => {}
                        Some(Tok::Sym(")")) => break,
                        other => return Err(format!("expected @@ or ) in a function, found {other:?}")),
                    }
                }
                Tla::fun(graph)
            }
            other => return Err(format!("expected a value, found {other:?}")),
        };
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUT: &str = "\
Error: Invariant MutualExclusion is violated.
Error: The behavior up to this point is:
State 1: <Initial predicate>
/\\ x = (0 :> \"Up\" @@ 1 :> \"Down\")
/\\ tv = [holders |-> {}, spent |-> [crashes |-> 0], s |-> <<1, -2>>]

State 2: <Next line 3, col 1 to line 4, col 2 of module M>
/\\ x = (0 :> \"Up\" @@
      1 :> \"Up\")
/\\ tv = [holders |-> {1, 2}, spent |-> [crashes |-> 1], s |-> <<>>]

12 states generated, 5 distinct states found, 0 states left on queue.
";

    #[test]
    fn reads_tlcs_printed_trace() {
        let t = parse(OUT).expect("a trace");
        assert_eq!(t.invariant.as_deref(), Some("MutualExclusion"));
        assert_eq!(t.states.len(), 2);
        assert_eq!(t.loop_at, None);
        let tv = &t.states[1][1];
        assert_eq!(tv.0, "tv");
        assert_eq!(
            super::super::tla_text(&tv.1),
            "[holders |-> {1, 2}, s |-> <<>>, spent |-> [crashes |-> 1]]"
        );
        let itf = t.to_itf("specs/M.tla");
        assert_eq!(itf["vars"], json!(["x", "tv"]));
        assert_eq!(itf["states"][1]["x"]["#map"][1][1], json!("Up"));
    }

    #[test]
    fn reads_a_lasso_and_refuses_what_is_no_trace() {
        let lasso = "State 1: <Initial predicate>\n/\\ x = 1\n\nState 2: <A>\n/\\ x = 2\n\nBack to state 1: <A>\n";
        assert_eq!(parse(lasso).expect("a lasso").loop_at, Some(0));
        let stutter = "State 1: <Initial predicate>\n/\\ x = 1\n\nState 2: Stuttering\n";
        assert_eq!(parse(stutter).expect("a lasso").loop_at, Some(0));
        assert!(parse("Model checking completed. No error has been found.").is_err());
        assert!(parse("State 1: <Initial predicate>\n/\\ x = [a |-> ]\n").is_err());
    }
}
