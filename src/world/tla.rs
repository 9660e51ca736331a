//! A state as the paired TLA+ spec writes it (docs/design.md §10): values of
//! TLA+'s kinds, and the world's own variables of `specs/World.tla`, so that
//! a trace can be handed to TLA+ tools (`trace.itf.json`, src/report/itf.rs).
//! Each family adds its spec's variables through [`TlaMapping::tla_vars`].

use serde_json::{Map, Value};

use super::actor::Id;
use super::state::{Status, WorldState};
use super::{Program, World};

/// A TLA+ value. Sets are kept sorted and without duplicates, and records
/// and functions sorted by key, so equal values are equal Rust values and
/// print the same bytes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tla {
    Bool(bool),
    Int(i64),
    Str(String),
    /// A model value the spec declares as a constant (`None`).
    Model(String),
    /// A sequence `<<a, b>>` (a function over 1..n).
    Seq(Vec<Tla>),
    /// A tuple: a sequence used as a pair, such as a link `<<src, dst>>`.
    Tup(Vec<Tla>),
    Set(Vec<Tla>),
    /// A function, as its graph.
    Fun(Vec<(Tla, Tla)>),
    /// A record `[field |-> value]`.
    Rec(Vec<(String, Tla)>),
}

impl Tla {
    pub fn int(v: impl Into<i64>) -> Tla {
        Tla::Int(v.into())
    }

    pub fn str(s: impl Into<String>) -> Tla {
        Tla::Str(s.into())
    }

    /// The spec's model value `None`.
    pub fn none() -> Tla {
        Tla::Model("None".into())
    }

    pub fn set(items: impl IntoIterator<Item = Tla>) -> Tla {
        let mut v: Vec<Tla> = items.into_iter().collect();
        v.sort();
        v.dedup();
        Tla::Set(v)
    }

    pub fn fun(graph: impl IntoIterator<Item = (Tla, Tla)>) -> Tla {
        let mut v: Vec<(Tla, Tla)> = graph.into_iter().collect();
        v.sort();
        v.dedup_by(|a, b| a.0 == b.0);
        Tla::Fun(v)
    }

    pub fn rec<S: Into<String>>(fields: impl IntoIterator<Item = (S, Tla)>) -> Tla {
        let mut v: Vec<(String, Tla)> = fields.into_iter().map(|(k, x)| (k.into(), x)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        Tla::Rec(v)
    }

    /// A function over node ids.
    pub fn by_id(items: impl IntoIterator<Item = (Id, Tla)>) -> Tla {
        Tla::fun(items.into_iter().map(|(id, v)| (Tla::int(id as i64), v)))
    }

    /// A set of node ids.
    pub fn ids(ids: impl IntoIterator<Item = Id>) -> Tla {
        Tla::set(ids.into_iter().map(|id| Tla::int(id as i64)))
    }

    /// The set of ids whose bit is set in `mask`.
    pub fn mask(mask: u64) -> Tla {
        Tla::ids((0..64).filter(|i| mask & (1 << i) != 0))
    }

    /// `v`, or the model value `None`.
    pub fn or_none<T>(v: Option<T>, f: impl FnOnce(T) -> Tla) -> Tla {
        v.map_or_else(Tla::none, f)
    }

    /// A serde value as a TLA+ value: numbers as integers, objects as
    /// records, arrays as sequences, `null` as `None`. An externally
    /// tagged enum variant (`{"Granted": {..}}`, `"Accepted"`) becomes a
    /// record with a `type` field, as the specs write messages; a newtype
    /// variant that wraps another enum (`{"Resource": {"Write": ..}}`) is
    /// the inner message.
    pub fn from_serde(v: &Value) -> Tla {
        match v {
            Value::Null => Tla::none(),
            Value::Bool(b) => Tla::Bool(*b),
            Value::Number(n) => Tla::Int(n.as_i64().unwrap_or(0)),
            Value::String(s) => Tla::str(s.clone()),
            Value::Array(a) => Tla::Seq(a.iter().map(Tla::from_serde).collect()),
            Value::Object(o) => Tla::rec(o.iter().map(|(k, x)| (k.clone(), Tla::from_serde(x)))),
        }
    }

    /// A message in the specs' shape: `[type |-> "Name", field |-> ..]`.
    pub fn message(v: &Value) -> Tla {
        match v {
            Value::String(s) => Tla::rec([("type", Tla::str(s.clone()))]),
            Value::Object(o) if o.len() == 1 => {
                let (name, inner) = o.iter().next().expect("one entry");
                let nested = |o: &Map<String, Value>| {
                    o.len() == 1 && o.keys().all(|k| k.starts_with(|c: char| c.is_ascii_uppercase()))
                };
                match inner {
                    Value::Object(o) if nested(o) => Tla::message(inner),
                    Value::Object(fields) => {
                        let mut r: Vec<(String, Tla)> = vec![("type".into(), Tla::str(name.clone()))];
                        r.extend(fields.iter().map(|(k, x)| (k.clone(), Tla::from_serde(x))));
                        Tla::rec(r)
                    }
                    Value::String(_) => Tla::message(inner),
                    _ => Tla::rec([("type", Tla::str(name.clone())), ("value", Tla::from_serde(inner))]),
                }
            }
            other => Tla::from_serde(other),
        }
    }
}

/// A family's state and values as its paired TLA+ spec writes them, for
/// `trace.itf.json` and the trace views: the spec's own variables, and how
/// it writes links, messages, timers and stopwatches where that differs
/// from the defaults. Apart from [`Actor`], which is behaviour only.
pub trait TlaMapping: Program {
    /// The paired TLA+ spec's own VARIABLES (not World.tla's) in `state`,
    /// as `(name, value)`, each valued as the spec writes it (functions
    /// over node ids, records, the model value `None`), for
    /// `trace.itf.json`. `None`: this family has no mapping yet.
    fn tla_vars(_world: &World<Self>, _state: &WorldState<Self>) -> Option<Vec<(&'static str, Tla)>> {
        None
    }

    /// The links the spec's `net` has a queue for (`DOMAIN net`): by
    /// default every ordered pair of nodes.
    fn tla_links(world: &World<Self>) -> Vec<(Id, Id)> {
        all_links(world.actors.len())
    }

    /// A message sent to this node, as the spec writes it: by default the
    /// variant's name as `type` and its fields ([`Tla::message`]).
    fn tla_msg(&self, msg: &Self::Msg) -> Tla {
        Tla::message(&serde_json::to_value(msg).unwrap_or(serde_json::Value::Null))
    }

    /// A timer's name as the spec writes it: by default the variant's name.
    fn tla_timer(&self, timer: &Self::Timer) -> Tla {
        match serde_json::to_value(timer) {
            Ok(serde_json::Value::String(s)) => Tla::Str(s),
            _ => Tla::Str(format!("{timer:?}")),
        }
    }

    /// A stopwatch's name as the spec writes it: by default its `Debug`.
    fn tla_watch(&self, watch: &Self::Watch) -> Tla {
        Tla::Str(format!("{watch:?}"))
    }
}

/// The names of the history flags (`Out::raise` bits), as the specs'
/// `history` set holds them.
pub type FlagNames<'a> = &'a [(u32, &'a str)];

impl<A: TlaMapping> World<A> {
    /// The variables of `specs/World.tla` in `s`, then the family's
    /// ([`TlaMapping::tla_vars`]); `None` when the family has no mapping.
    pub fn tla_state(&self, s: &WorldState<A>, flags: FlagNames<'_>) -> Option<Vec<(String, Tla)>> {
        let family = A::tla_vars(self, s)?;
        let ids = 0..s.nodes.len();
        let by_node = |f: &dyn Fn(Id) -> Tla| Tla::by_id(ids.clone().map(|id| (id, f(id))));
        let mut vars: Vec<(String, Tla)> = Vec::new();
        let mut put = |name: &str, v: Tla| vars.push((name.to_string(), v));
        put(
            "timers",
            by_node(&|id| {
                let a = &self.actors[id];
                Tla::fun(s.nodes[id].timers.iter().map(|(t, v)| (a.tla_timer(t), Tla::int(*v))))
            }),
        );
        put(
            "watches",
            by_node(&|id| {
                let a = &self.actors[id];
                Tla::fun(s.nodes[id].watches.iter().map(|(w, v)| (a.tla_watch(w), Tla::int(*v))))
            }),
        );
        let links = A::tla_links(self);
        put(
            "net",
            Tla::fun(links.iter().map(|&(src, dst)| {
                let queue = s
                    .net
                    .iter()
                    .filter(|e| (e.src, e.dst) == (src, dst))
                    .map(|e| {
                        Tla::rec([
                            ("msg", self.actors[dst].tla_msg(&e.msg)),
                            ("age", Tla::int(e.age)),
                            ("copied", Tla::Bool(e.copied)),
                        ])
                    })
                    .collect();
                (
                    Tla::Tup(vec![Tla::int(src as i64), Tla::int(dst as i64)]),
                    Tla::Seq(queue),
                )
            })),
        );
        put("ghost", Tla::int(s.ghost));
        put("drawn", Tla::int(s.value));
        for (name, v) in fault_vars(s, flags) {
            put(name, v);
        }
        vars.extend(family.into_iter().map(|(k, v)| (k.to_string(), v)));
        Some(vars)
    }
}

/// Every ordered pair of nodes: the links of most specs (`AllNodes \X
/// AllNodes`).
pub fn all_links(nodes: usize) -> Vec<(Id, Id)> {
    (0..nodes).flat_map(|a| (0..nodes).map(move |b| (a, b))).collect()
}

/// The world's variables of `specs/World.tla` that say what the faults did:
/// `status`, `pause`, `skew`, `cut`, `spent` and `history` (the flags
/// raised). The trace view (src/observe) shares them with the clean-room
/// specs.
pub fn fault_vars<A: Program>(s: &WorldState<A>, flags: FlagNames<'_>) -> Vec<(&'static str, Tla)> {
    let by_node = |f: &dyn Fn(Id) -> Tla| Tla::by_id((0..s.nodes.len()).map(|id| (id, f(id))));
    vec![
        (
            "status",
            by_node(&|id| {
                Tla::str(match s.nodes[id].status {
                    Status::Up => "Up",
                    Status::Paused(_) => "Paused",
                    Status::Down => "Down",
                })
            }),
        ),
        (
            "pause",
            by_node(&|id| match s.nodes[id].status {
                Status::Paused(k) => Tla::int(k),
                _ => Tla::int(0),
            }),
        ),
        ("skew", by_node(&|id| Tla::int(s.nodes[id].skew))),
        ("cut", Tla::set(s.cut.iter().map(|&(a, b)| Tla::ids([a, b])))),
        (
            "spent",
            Tla::rec([
                ("crashes", Tla::int(s.spent.crashes)),
                ("pauses", Tla::int(s.spent.pauses)),
                ("jumps", Tla::int(s.spent.clock_jumps)),
                ("partitions", Tla::int(s.spent.partitions)),
            ]),
        ),
        (
            "history",
            Tla::set(
                flags
                    .iter()
                    .filter(|(bit, _)| s.history & bit != 0)
                    .map(|(_, name)| Tla::str(*name)),
            ),
        ),
    ]
}
