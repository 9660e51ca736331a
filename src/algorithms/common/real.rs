//! What a family is on real servers, for `locksmith reenact`: a neutral
//! description each family's registration gives ([`Family::real`]), read
//! by `real/reenact`, which sits above the families and never names them.
//!
//! [`Family::real`]: crate::algorithms::Family::real

/// How a family's traces are enacted on real servers.
#[derive(Clone, Debug)]
pub enum Real {
    /// It has no real counterpart here.
    None,
    /// `redis-server` processes (and a Sentinel), driven as `Setup` says.
    Redis(Setup),
    /// A ZooKeeper server and the `zookeeper-client` library.
    ZooKeeper,
    /// An etcd server and its gRPC client.
    Etcd,
}

/// What a model node is on the real side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A `redis-server` (a master, the primary or a replica), by index into
    /// the driver's servers.
    Redis(usize),
    /// The Sentinel process (primary-replica).
    Sentinel,
    /// A client, driven by the driver (by index: c1 is 0).
    Client(usize),
    /// Redlock's counter service for fencing tokens: a `redis-server` too.
    Counter(usize),
    /// The protected resource: an in-process store.
    Resource,
}

/// The three Redis families the Redis driver enacts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedisFamily {
    SingleRedis,
    Redlock,
    PrimaryReplica,
}

/// How the real servers keep data over a crash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// No persistence: a restart is empty.
    Nothing,
    /// `appendonly yes`, `appendfsync always`.
    Fsync,
    /// No persistence, and the restart waits out one TTL first (antirez's
    /// delayed restart).
    Delayed,
}

/// How fencing tokens are made, when the scenario fences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fence {
    None,
    /// single-redis: `INCR` on the lock server in the same script as the `SET`.
    ServerCounter,
    /// Redlock: `INCR` on a separate counter server.
    CounterService,
    /// Redlock: the lock's random value, which orders writes at random
    /// (the model draws the order that defeats fencing: later values lower).
    LockValue,
}

/// The real configuration, from a scenario's `[system]`.
#[derive(Clone, Debug)]
pub struct Setup {
    pub family: RedisFamily,
    /// Node id → what it is.
    pub cast: Vec<Part>,
    /// Number of `redis-server` lock servers (masters, or primary + replicas).
    pub servers: usize,
    pub clients: usize,
    /// Key TTL in ticks.
    pub ttl: u8,
    pub keep: Keep,
    pub fence: Fence,
    /// Answers a client needs to hold the lock (Redlock's quorum; 1 else).
    pub need: u32,
    /// Whether clients time their request and hold only within
    /// ttl − elapsed − drift until they have checked.
    pub validity: bool,
    pub drift: u8,
    pub margin: u8,
    /// primary-replica: `SET; WAIT k timeout` instead of asynchronous
    /// replication.
    pub wait: Option<(u8, u8)>,
    /// primary-replica: Sentinel's down-after, in ticks.
    pub down_after: u8,
}
