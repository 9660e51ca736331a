//! What a Redis server keeps of its lock key across a crash, for the two
//! families whose server is Redis itself (single Redis's server, each
//! Redlock master). The Redis persistence documentation: without
//! persistence a restarted server is empty; with the append-only file and
//! `appendfsync always` every acknowledged write survives, and a key's
//! expiry is stored as an absolute Unix time, so it runs on while the
//! server is down ("even when the Redis instance is not active"). The
//! family's server state is its whole keyspace (the lock key, and single
//! Redis's fencing counter), so persistence keeps or drops all of it.

use crate::world::{Actor, Clocks, Ctx, Out};

/// A crash of a Redis server whose state is `server` and whose keys expire
/// on the timer `expiry`: with fsync the keyspace stays on disk and only
/// the expiry runs on (an absolute time); without, the keyspace is gone
/// with every timer.
pub fn crash<S: Default, T: PartialEq>(fsync: bool, server: &mut S, timers: &mut Clocks<T>, expiry: T) {
    if fsync {
        timers.retain(|(t, _)| *t == expiry);
    } else {
        *server = S::default();
        timers.clear();
    }
}

/// The restart of a server that fsynced: its keyspace read back from disk,
/// with the key's expiry resumed at what is left of it, or the key removed
/// (`expire`) when it ran out while the server was down.
pub fn reload<A: Actor, S>(
    mut server: S,
    ctx: &Ctx<'_, A>,
    expiry: A::Timer,
    out: &mut Out<A>,
    expire: impl FnOnce(&mut S),
) -> S {
    if ctx.resume(expiry, out) {
        expire(&mut server);
    }
    server
}
