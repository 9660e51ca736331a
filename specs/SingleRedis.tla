----------------------------- MODULE SingleRedis -----------------------------
(***************************************************************************)
(* single-redis: one Redis server holding the lock key, after the Redis    *)
(* documentation's SET locking pattern and its older SETNX form, with      *)
(* Redisson's watchdog renewal and an optional fencing counter. Clients   *)
(* time out every request that expects an answer (Timeout), draw a fresh   *)
(* lock value per attempt (the key stores it; answers carry it, and a      *)
(* client ignores an answer whose value is not its current attempt's), and *)
(* are "naive" (hold from the grant until the write is answered) or        *)
(* "validity" (Redlock's client with one server: validity = Ttl - elapsed  *)
(* - Drift on the grant, a Validity timer, a Check of more than Margin     *)
(* left, then the Write).                                                  *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/single_redis.rs (with            *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* Acquire, Expire, Check, Write, Release (client steps), the server's     *)
(* handlers, the other client handlers, the resource's handler, the timers *)
(* (TimedOut, ValidityEnds), then the                                      *)
(* world: Tick, Crash, Restart, Pause. The lock view and the properties    *)
(* are those of src/properties.rs.                                         *)
(*                                                                         *)
(* Same configuration, same states: for the constants of a scenario, TLC   *)
(* must find exactly as many distinct states as the Rust checker finds     *)
(* unique states (DESIGN.md section 10; specs/README.md records both).     *)
(* So every variable here is a field of the Rust world state, and every    *)
(* field of it that can change under these faults is a variable here:      *)
(*   status, pause   Node::status (Up, Paused(pause), Down)                *)
(*   timers          Node::timers, as a function from timer name to ticks  *)
(*   elapsed         Node::watches of a client: the stopwatch Elapsed,     *)
(*                   saturating at Ttl, or None when not running           *)
(*   net             WorldState::net, as one FIFO queue per link           *)
(*   spent           WorldState::spent                                     *)
(*   ghost, history  WorldState::ghost and WorldState::history (flag bits  *)
(*                   as a set of flag names)                               *)
(*   drawn           WorldState::value: the last lock value drawn          *)
(*   key, fence      Server                                                *)
(*   phase, left     Client::script; value, expire, checked, token as in   *)
(*                   Client; acquired is Client::ghost (renamed: ghost is  *)
(*                   the world's)                                          *)
(*   max_token, max_ghost   Resource                                       *)
(* Values that only grow (ghost numbers; lock values; the fencing counter  *)
(* and tokens)                                                             *)
(* are renumbered by rank after every action in Rust (src/world/ranks.rs); *)
(* here RankedVars is that renumbered state, and the .cfg's VIEW makes TLC *)
(* count states by it.                                                     *)
(* Not modelled, because no tabled scenario of this family uses them:      *)
(* clock drift and jumps (Node::skew stays                                 *)
(* 0), partitions (cut stays empty), loss, duplication (Envelope::copied   *)
(* stays false), reordering, and recovery = "none" (Restart is always fair *)
(* here).                                                                  *)
(*                                                                         *)
(* Node ids as in Rust: the server is 0, clients 1..Clients, the resource  *)
(* Clients + 1.                                                            *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Clients,       \* [system] clients
    Ttl,           \* [system] ttl: key expiry in the server's ticks
    Command,       \* [system] command: "setnx", "setnx-expire" or "set-nx-px"
    ReleaseCommand, \* [system] release: "del" or "compare-and-delete"
    Watchdog,      \* [system] watchdog: renew every Ttl \div 3 while held
    Fencing,       \* [system] fencing: INCR counter as token, resource checks
    Retry,         \* [system] retry: ticks a refused client waits
    RestartMode,   \* [system] restart: "empty" or "fsync"
    Timeout,       \* [system] timeout: the request timeout, client ticks
    Client,        \* [system] client: "naive" or "validity"
    Drift,         \* [system] drift: allowance subtracted from the validity
    Margin,        \* [system] margin: validity needed at the Check
    Acquisitions,  \* [bounds] acquisitions per client; 0 = forever
    MaxDelay,      \* [faults] max_delay, or a model value (the .cfg line
                   \* MaxDelay = Async) when omitted: an asynchronous network
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses
    MaxPause,      \* [faults] max_pause
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    None           \* a model value: no key

ASSUME /\ Clients \in 1..4 /\ Ttl \in 1..30 /\ Retry \in 1..10
       /\ Command \in {"setnx", "setnx-expire", "set-nx-px"}
       /\ ReleaseCommand \in {"del", "compare-and-delete"}
       /\ Watchdog \in BOOLEAN /\ Fencing \in BOOLEAN
       /\ ~(Watchdog /\ Command = "setnx")
       /\ RestartMode \in {"empty", "fsync"}
       /\ Timeout \in 1..30 /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ ~(Client = "validity" /\ (Command = "setnx" \/ Watchdog))
       /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3 /\ MaxPause \in 0..30
       /\ Targets \in {"all", "clients", "servers"}

Server == 0
ClientIds == 1..Clients
Resource == Clients + 1
Nodes == 0..Clients + 1
Links == Nodes \X Nodes
TimerNames == {"KeyExpiry", "Retry", "Renew", "Timeout", "Validity"}
Validity == Client = "validity"

\* Redisson's renewal period, lockWatchdogTimeout / 3 (Params::renew_every).
RenewEvery == IF Ttl \div 3 > 1 THEN Ttl \div 3 ELSE 1

\* Faults::targets: which nodes crashes and pauses may hit (the resource is
\* an observer, never faulted).
Targeted(n) == \/ Targets = "all" /\ n # Resource
               \/ Targets = "clients" /\ n \in ClientIds
               \/ Targets = "servers" /\ n = Server

\* Messages age and must arrive within MaxDelay ticks (Faults::max_delay).
Bounded == MaxDelay \in Nat

VARIABLES
    status,     \* status[n] \in {"Up", "Paused", "Down"}
    pause,      \* ticks of pause left; 0 unless status[n] = "Paused"
    timers,     \* timers[n]: set timer names -> local ticks left
    elapsed,    \* elapsed[c]: the stopwatch Elapsed, 0..Ttl, or None
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    drawn,      \* the last lock value drawn
    history,    \* ghost flags raised: "ForeignRelease", "StaleWrite"
    key,        \* the server's lock key: None or [value, ghost]
    fence,      \* the server's fencing counter (INCR lock:fence)
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    value,      \* value[c]: the current attempt's lock value, 0 between
    expire,     \* expire[c]: EXPIRE "Done", "ToSend" or "Sent"
    checked,    \* checked[c]: a validity client found validity left
    token,      \* token[c]: the fencing token of c's grant
    acquired,   \* acquired[c]: the ghost number of c's grant
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent>>
serverVars == <<key, fence>>
clientVars == <<phase, left, value, expire, checked, token, acquired, elapsed>>
resourceVars == <<max_token, max_ghost>>
vars == <<status, pause, timers, elapsed, net, spent, ghost, drawn, history,
          key, fence, phase, left, value, expire, checked, token, acquired,
          max_token, max_ghost>>

-----------------------------------------------------------------------------
(* Timers and the network, as World::apply handles an actor's commands.    *)

NoTimers == [t \in {} |-> 0]
SetTimer(f, t, v) == [x \in DOMAIN f \cup {t} |-> IF x = t THEN v ELSE f[x]]
CancelTimer(f, t) == [x \in DOMAIN f \ {t} |-> f[x]]
Keep(f, names) == [x \in DOMAIN f \cap names |-> f[x]]
IsSet(n, t) == t \in DOMAIN timers[n]
Due(n, t) == IsSet(n, t) /\ timers[n][t] = 0

\* A message sent to a crashed node is dropped.
Sent(q, src, dst, m) ==
    IF status[dst] = "Down" THEN q
    ELSE [q EXCEPT ![<<src, dst>>] = Append(@, [msg |-> m, age |-> 0])]

\* Only the oldest message of a link can be delivered (FIFO, no reordering),
\* and only to a running node.
Deliverable(src, dst) == status[dst] = "Up" /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

Up(n) == status[n] = "Up"

-----------------------------------------------------------------------------
(* The client's script (client.rs) and the lock view (properties.rs).      *)

\* Script::holds: Holding or Writing (the watchdog renews while it does).
ScriptHolds(c) == phase[c] \in {"Holding", "Writing"}

\* The lock view: a naive client believes it holds the lock from the grant
\* until its write is answered; a validity client, while Holding, only
\* while its validity timer is above zero or once it has checked it, and
\* it still wants the lock until it has checked (DESIGN.md section 5).
Holds(c) ==
    \/ /\ phase[c] = "Holding"
       /\ \/ ~Validity \/ checked[c]
          \/ IsSet(c, "Validity") /\ timers[c]["Validity"] > 0
    \/ phase[c] = "Writing"
Wants(c) ==
    \/ phase[c] \in {"Want", "Acquiring"}
    \/ phase[c] = "Holding" /\ Validity /\ ~checked[c]

\* The lock view counts running (not crashed) clients only.
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Client::forget: what only mattered to the attempt or hold that ended.
Forget(c) ==
    /\ value' = [value EXCEPT ![c] = 0]
    /\ expire' = [expire EXCEPT ![c] = "Done"]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ token' = [token EXCEPT ![c] = 0]
    /\ acquired' = [acquired EXCEPT ![c] = 0]

\* Script::released: the release was answered (or timed out).
Released(c) ==
    /\ IF Acquisitions = 0
       THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
            /\ UNCHANGED left
       ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
            /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]
    /\ Forget(c)

\* The release command for the lock of value v.
ReleaseMsg(v) ==
    [type |-> IF ReleaseCommand = "del" THEN "Del" ELSE "CompareAndDelete", value |-> v]

\* retry_later: the attempt failed; want the lock again after the back-off
\* (a validity client's stopwatch stops). tm: the client's timers so far.
RetryLater(c, tm) ==
    /\ elapsed' = [elapsed EXCEPT ![c] = None]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ Forget(c)
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Retry", Retry)]

\* give_up: a validity client's lock is no use; release it without waiting
\* for the answer, and retry later. q: the network so far.
GiveUp(c, q, tm) ==
    /\ net' = Sent(q, c, Server, ReleaseMsg(value[c]))
    /\ RetryLater(c, CancelTimer(CancelTimer(tm, "Validity"), "Timeout"))

-----------------------------------------------------------------------------
(* Client steps (Actor::steps and on_step). Expire, Check and Write are    *)
(* urgent: time does not pass while a running client has one. Acquire is   *)
(* not (Actor::urgent): a client comes to want the lock, and retries after *)
(* its back-off, at any moment, any number of ticks later, but not never   *)
(* (it is weakly fair).                                                    *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanExpire(c) == phase[c] = "Holding" /\ expire[c] = "ToSend"
CanCheck(c) == phase[c] = "Holding" /\ expire[c] = "Done" /\ Validity /\ ~checked[c]
CanWrite(c) == phase[c] = "Holding" /\ expire[c] = "Done" /\ (~Validity \/ checked[c])
HasUrgentStep(n) == n \in ClientIds /\ (CanExpire(n) \/ CanCheck(n) \/ CanWrite(n))

\* Acquire: a fresh value, then SETNX or SET NX PX, with a timeout; a
\* validity client starts its stopwatch (T1).
Acquire(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ CanAcquire(c)
    /\ drawn' = v
    /\ value' = [value EXCEPT ![c] = v]
    /\ net' = Sent(net, c, Server,
                   [type |-> IF Command = "set-nx-px" THEN "SetNxPx" ELSE "SetNx", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ elapsed' = IF Validity THEN [elapsed EXCEPT ![c] = 0] ELSE elapsed
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<worldVars, ghost, history, serverVars,
                   left, expire, checked, token, acquired, resourceVars>>

\* Expire: the second command of the two-step form.
Expire(c) ==
    /\ Up(c) /\ CanExpire(c)
    /\ net' = Sent(net, c, Server, [type |-> "Expire", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ expire' = [expire EXCEPT ![c] = "Sent"]
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars,
                   phase, left, value, checked, token, acquired, elapsed, resourceVars>>

\* Check: is more than the margin left? Only then write; else give up.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, phase, value, expire, token, acquired, elapsed>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars, left, resourceVars>>

\* Write: the critical section's write, with the token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, Resource,
                   [type |-> "Write", token |-> token[c], ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, serverVars,
                   left, value, expire, checked, token, acquired, elapsed, resourceVars>>

\* Release: the write is answered, so the critical section is over.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Sent(Pop(src, c), c, Server, ReleaseMsg(value[c]))
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(SetTimer(@, "Timeout", Timeout), "Renew")]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars,
                   left, value, expire, checked, token, acquired, elapsed, resourceVars>>

-----------------------------------------------------------------------------
(* The server executes one command atomically, as Redis does               *)
(* (server_receive). Each handler delivers the head of the link src ->     *)
(* server. Every answer carries its request's value.                       *)

Reply(src, m) == net' = Sent(Pop(src, Server), Server, src, m)

\* SETNX and SET NX PX: set the key to the request's value if it is absent.
SetIfAbsent(src, px) ==
    LET v == Msg(src, Server).value IN
    IF key # None
    THEN /\ Reply(src, [type |-> "Refused", value |-> v])
         /\ UNCHANGED <<timers, ghost, key, fence>>
    ELSE LET g == ghost + 1
             f == IF Fencing THEN fence + 1 ELSE fence
         IN  /\ ghost' = g
             /\ key' = [value |-> v, ghost |-> g]
             /\ timers' = IF px
                          THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                          ELSE timers
             /\ fence' = f
             /\ Reply(src, [type |-> "Granted", value |-> v, token |-> f, ghost |-> g])

ReceiveSetNx(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "SetNx"
    /\ SetIfAbsent(src, FALSE)
    /\ UNCHANGED <<worldVars, drawn, history, clientVars, resourceVars>>

ReceiveSetNxPx(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "SetNxPx"
    /\ SetIfAbsent(src, TRUE)
    /\ UNCHANGED <<worldVars, drawn, history, clientVars, resourceVars>>

\* EXPIRE lock ttl.
ReceiveExpire(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Expire"
    /\ timers' = IF key # None
                 THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                 ELSE timers
    /\ Reply(src, [type |-> "ExpireSet", value |-> Msg(src, Server).value])
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars, clientVars, resourceVars>>

\* DEL lock, whatever key is there: a foreign release when it is not the
\* lock this release was for (the value DEL carries only for this ghost).
ReceiveDel(src) ==
    LET v == Msg(src, Server).value IN
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Del"
    /\ IF key # None
       THEN /\ key' = None
            /\ history' = IF key.value # v THEN history \cup {"ForeignRelease"}
                          ELSE history
            /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, "KeyExpiry")]
       ELSE UNCHANGED <<key, history, timers>>
    /\ Reply(src, [type |-> "Released", value |-> v])
    /\ UNCHANGED <<worldVars, ghost, drawn, fence, clientVars, resourceVars>>

\* The Lua script: if GET lock == value then DEL lock.
ReceiveCompareAndDelete(src) ==
    LET v == Msg(src, Server).value IN
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "CompareAndDelete"
    /\ IF key # None /\ key.value = v
       THEN /\ key' = None
            /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, "KeyExpiry")]
       ELSE UNCHANGED <<key, timers>>
    /\ Reply(src, [type |-> "Released", value |-> v])
    /\ UNCHANGED <<worldVars, ghost, drawn, history, fence, clientVars, resourceVars>>

\* Redisson's renewal: if GET lock == value then PEXPIRE lock ttl. No answer.
ReceiveRenew(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Renew"
    /\ timers' = IF key # None /\ key.value = Msg(src, Server).value
                 THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                 ELSE timers
    /\ net' = Pop(src, Server)
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars, clientVars, resourceVars>>

ServerCommands == {"SetNx", "SetNxPx", "Expire", "Del", "CompareAndDelete", "Renew"}

-----------------------------------------------------------------------------
(* The client's other handlers (client_receive). An answer whose value is  *)
(* not the current attempt's answers an earlier request: it is dropped.    *)

\* The grant. A validity client computes validity = Ttl - (T2 - T1) - Drift
\* and gives up when none is left; otherwise sets its Validity timer.
ReceiveGranted(src, c) ==
    LET m == Msg(src, c)
        tm == LET t0 == CancelTimer(timers[c], "Timeout")
              IN IF Watchdog THEN SetTimer(t0, "Renew", RenewEvery) ELSE t0
        validity == Ttl - (IF elapsed[c] = None THEN Ttl ELSE elapsed[c]) - Drift
    IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ m.type = "Granted" /\ m.value = value[c]
    /\ IF Validity /\ validity <= 0
       THEN GiveUp(c, Pop(src, c), tm)
       ELSE /\ elapsed' = [elapsed EXCEPT ![c] = None]
            /\ phase' = [phase EXCEPT ![c] = "Holding"]
            /\ token' = [token EXCEPT ![c] = m.token]
            /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
            /\ expire' = IF Command = "setnx-expire" THEN [expire EXCEPT ![c] = "ToSend"]
                         ELSE expire
            /\ timers' = [timers EXCEPT ![c] =
                            IF Validity THEN SetTimer(tm, "Validity", validity) ELSE tm]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<value, checked>>
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars, left, resourceVars>>

ReceiveRefused(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ Msg(src, c).type = "Refused"
    /\ Msg(src, c).value = value[c]
    /\ RetryLater(c, CancelTimer(timers[c], "Timeout"))
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars, left, resourceVars>>

ReceiveExpireSet(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Holding" /\ Msg(src, c).type = "ExpireSet"
    /\ Msg(src, c).value = value[c] /\ expire[c] = "Sent"
    /\ expire' = [expire EXCEPT ![c] = "Done"]
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars,
                   phase, left, value, checked, token, acquired, elapsed, resourceVars>>

ReceiveReleased(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Releasing" /\ Msg(src, c).type = "Released"
    /\ Msg(src, c).value = value[c]
    /\ Released(c)
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, drawn, history, serverVars, elapsed, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type \in {"Granted", "Refused"} /\ m.value = value[c]
    \/ phase[c] = "Holding" /\ m.type = "ExpireSet" /\ m.value = value[c]
       /\ expire[c] = "Sent"
    \/ phase[c] = "Writing" /\ m.type \in {"Accepted", "Rejected"}
    \/ phase[c] = "Releasing" /\ m.type = "Released" /\ m.value = value[c]

-----------------------------------------------------------------------------
(* The protected resource (resource.rs): with fencing on, it rejects any   *)
(* token lower than the highest it has accepted.                           *)

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ IF Fencing /\ m.token < max_token
       THEN /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"}
                          ELSE history
            /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, serverVars, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst = Server   -> m.type \in ServerCommands
      [] dst = Resource -> m.type = "Write"
      [] OTHER          -> ClientTakes(dst, m)

\* A message the destination's handler ignores: the network still hands it
\* over, so it leaves the link.
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history,
                   serverVars, clientVars, resourceVars>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ /\ dst = Server
          /\ \/ ReceiveSetNx(src) \/ ReceiveSetNxPx(src) \/ ReceiveExpire(src)
             \/ ReceiveDel(src) \/ ReceiveCompareAndDelete(src) \/ ReceiveRenew(src)
       \/ /\ dst \in ClientIds
          /\ \/ ReceiveGranted(src, dst) \/ ReceiveRefused(src, dst)
             \/ ReceiveExpireSet(src, dst) \/ Release(src, dst)
             \/ ReceiveReleased(src, dst)
       \/ dst = Resource /\ ReceiveWrite(src)
       \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire, on_timer): a running node's timer, run down to    *)
(* zero, fires; the world removes it first.                                *)

\* The request timeout: an acquisition attempt has failed (retry after the
\* back-off), an EXPIRE counts as done, a release counts as done.
TimedOut(c, rest) ==
    CASE phase[c] = "Acquiring" ->
           /\ RetryLater(c, rest[c])
           /\ UNCHANGED left
      [] phase[c] = "Holding" /\ expire[c] = "Sent" ->
           /\ expire' = [expire EXCEPT ![c] = "Done"]
           /\ timers' = rest
           /\ UNCHANGED <<phase, left, value, checked, token, acquired, elapsed>>
      [] phase[c] = "Releasing" ->
           /\ Released(c)
           /\ timers' = rest
           /\ UNCHANGED elapsed
      [] OTHER ->
           /\ timers' = rest
           /\ UNCHANGED <<phase, left, value, expire, checked, token, acquired, elapsed>>

Fire(n, t) ==
    LET rest == [timers EXCEPT ![n] = CancelTimer(@, t)] IN
    /\ Up(n) /\ Due(n, t)
    /\ CASE t = "KeyExpiry" /\ n = Server ->
              \* The key's TTL ran out on the server's clock.
              /\ key' = None
              /\ timers' = rest
              /\ UNCHANGED <<net, clientVars>>
         [] t = "Renew" /\ n \in ClientIds /\ ScriptHolds(n) ->
              \* The watchdog renews while the client believes it holds.
              /\ net' = Sent(net, n, Server, [type |-> "Renew", value |-> value[n]])
              /\ timers' = [rest EXCEPT ![n] = SetTimer(@, "Renew", RenewEvery)]
              /\ UNCHANGED <<key, clientVars>>
         [] t = "Timeout" /\ n \in ClientIds ->
              /\ TimedOut(n, rest)
              /\ UNCHANGED <<net, key>>
         [] t = "Validity" /\ n \in ClientIds /\ phase[n] = "Holding" ->
              \* The validity ran out before the client checked it: lost.
              /\ GiveUp(n, net, rest[n])
              /\ UNCHANGED <<key, left>>
         [] OTHER ->
              \* Retry: the client may ask again; Renew after the release.
              /\ timers' = rest
              /\ UNCHANGED <<net, key, clientVars>>
    /\ UNCHANGED <<worldVars, ghost, drawn, history, fence, resourceVars>>

-----------------------------------------------------------------------------
(* The world (src/world/mod.rs): time, crashes, restarts, pauses.          *)

\* World::time_blocked: time cannot pass a due timer or an enabled urgent
\* step of a running node, nor a message to a running node in flight
\* MaxDelay ticks.
TimeBlocked ==
    \/ \E n \in Nodes : Up(n) /\ (HasUrgentStep(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* World::time_matters: a tick must change something.
TimeMatters ==
    \/ \E n \in Nodes : status[n] = "Paused" \/ \E t \in DOMAIN timers[n] : timers[n][t] > 0
    \/ \E c \in ClientIds : elapsed[c] # None /\ elapsed[c] < Ttl
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time. Every node's clock runs, a crashed one's too (an
\* fsynced key's expiry is an absolute deadline); stopwatches saturate at
\* Ttl (Actor::watch_cap: any elapsed time of a TTL or more leaves no
\* validity); a paused node's pause counts down; messages age, saturating
\* at MaxDelay.
Tick ==
    /\ ~TimeBlocked /\ TimeMatters
    /\ timers' = [n \in Nodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ elapsed' = [c \in ClientIds |->
                    IF elapsed[c] = None THEN None
                    ELSE IF elapsed[c] < Ttl THEN elapsed[c] + 1 ELSE Ttl]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<spent, ghost, drawn, history, serverVars,
                   phase, left, value, expire, checked, token, acquired, resourceVars>>

\* Fault: a node stops, loses its volatile state, timers and stopwatch;
\* messages to it are dropped. An fsynced server keeps its key and the
\* key's expiry; an empty one forgets both. A client keeps its state only
\* for the restart.
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] =
                    IF n = Server /\ RestartMode = "fsync" THEN Keep(@, {"KeyExpiry"})
                    ELSE NoTimers]
    /\ elapsed' = IF n \in ClientIds THEN [elapsed EXCEPT ![n] = None] ELSE elapsed
    /\ IF n = Server /\ RestartMode = "empty"
       THEN key' = None /\ fence' = 0
       ELSE UNCHANGED serverVars
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<ghost, drawn, history,
                   phase, left, value, expire, checked, token, acquired, resourceVars>>

\* A crashed node comes back with what it persisted: an fsynced server with
\* its key (gone if its expiry passed while down), anything else afresh.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ CASE n = Server /\ RestartMode = "fsync" ->
              /\ key' = IF Due(n, "KeyExpiry") THEN None ELSE key
              /\ timers' = [timers EXCEPT ![n] =
                              IF IsSet(n, "KeyExpiry") /\ ~Due(n, "KeyExpiry")
                              THEN Keep(@, {"KeyExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<fence, clientVars, resourceVars>>
         [] n = Server ->
              /\ key' = None /\ fence' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<clientVars, resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ Forget(n)
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<serverVars, elapsed, resourceVars>>
         [] OTHER ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<serverVars, clientVars>>
    /\ UNCHANGED <<pause, net, spent, ghost, drawn, history>>

\* Fault: a running node stops taking steps for k ticks while its clock runs.
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, net, ghost, drawn, history, serverVars, clientVars, resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |-> NoTimers]
    /\ elapsed = [c \in ClientIds |-> None]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0]
    /\ ghost = 0
    /\ drawn = 0
    /\ history = {}
    /\ key = None
    /\ fence = 0
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ value = [c \in ClientIds |-> 0]
    /\ expire = [c \in ClientIds |-> "Done"]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ token = [c \in ClientIds |-> 0]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Expire(c) \/ Check(c) \/ Write(c)
    \/ \E n \in Nodes, t \in TimerNames : Fire(n, t)
    \/ \E src, dst \in Nodes : Deliver(src, dst)
    \/ \E n \in Nodes : Restart(n)
    \/ \E n \in Nodes : Crash(n)
    \/ \E n \in Nodes, k \in 1..MaxPause : Pause(n, k)

\* DESIGN.md section 5: weak fairness for each message delivery (per link;
\* with FIFO links this is the same as per message), each node's own steps
\* and timers, Tick and Restart. Faults are never fair; the budget makes
\* them stop.
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in ClientIds : /\ WF_vars(Acquire(c)) /\ WF_vars(Expire(c))
                            /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A n \in Nodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Ghost numbers, lock values, and the   *)
(* fencing counter's value and the tokens drawn from it, are only ever     *)
(* compared, so Rust replaces each by its rank among the values of its     *)
(* sequence present in the state (0, "none", stays 0) after every action.  *)
(* RankedVars is the state so renumbered: two states with the same         *)
(* RankedVars have the same future up to renumbering, so the .cfg's VIEW   *)
(* RankedVars makes TLC count the states the Rust checker counts.          *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}
Numbered == {m \in InFlight : m.type \in {"Granted", "Write"}}
Valued == {m \in InFlight : "value" \in DOMAIN m}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup (IF key = None THEN {} ELSE {key.ghost}) \cup {m.ghost : m \in Numbered}

TokenValues ==
    {0, fence, max_token} \cup {token[c] : c \in ClientIds} \cup {m.token : m \in Numbered}

LockValues ==
    {0, drawn} \cup {value[c] : c \in ClientIds}
      \cup (IF key = None THEN {} ELSE {key.value}) \cup {m.value : m \in Valued}

RankedVars ==
    LET G == GhostValues
        T == TokenValues
        V == LockValues
        rg(v) == Rank(v, G)
        rv(v) == Rank(v, V)
        \* A fence that a crash and a restart without persistence reset to 0
        \* is compared with older tokens by its distance to them, so tokens
        \* are renumbered only where that cannot happen (Params::rank_tokens).
        rt(v) == IF RestartMode = "fsync" \/ Crashes = 0 \/ Targets = "clients"
                 THEN Rank(v, T) ELSE v
        msg(m) == LET m1 == IF m.type \in {"Granted", "Write"}
                            THEN [m EXCEPT !.ghost = rg(@), !.token = rt(@)] ELSE m
                  IN IF "value" \in DOMAIN m1 THEN [m1 EXCEPT !.value = rv(@)] ELSE m1
    IN  <<status, pause, timers, elapsed,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), rv(drawn), history,
          IF key = None THEN None ELSE [value |-> rv(key.value), ghost |-> rg(key.ghost)],
          rt(fence), phase, left, [c \in ClientIds |-> rv(value[c])], expire, checked,
          [c \in ClientIds |-> rt(token[c])],
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ elapsed \in [ClientIds -> 0..Ttl \cup {None}]
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses]
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ key = None \/ key.value \in 1..drawn
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ value \in [ClientIds -> 0..drawn]
    /\ expire \in [ClientIds -> {"Done", "ToSend", "Sent"}]
    /\ checked \in [ClientIds -> BOOLEAN]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired.
NoForeignRelease == "ForeignRelease" \notin history

\* Client c is granted the lock in this step: it stops wanting it
\* (properties.rs's acquired).
Granted(c) == c \in Wanting /\ c \notin Wanting'

\* Once faults stop, whenever a running client wants the lock, some client
\* eventually acquires it: no run ends in a suffix where some running client
\* always wants the lock and nobody is ever granted it.
DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars

\* Once faults stop, every running client that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
