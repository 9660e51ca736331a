----------------------------- MODULE SingleRedis -----------------------------
(***************************************************************************)
(* single-redis: one Redis server holding the lock key, after the Redis    *)
(* documentation's SET locking pattern and its older SETNX form, with      *)
(* Redisson's watchdog renewal and an optional fencing counter.            *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/single_redis.rs (with            *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* Acquire, Expire, Write, Release (client steps), the server's handlers,  *)
(* the other client handlers, the resource's handler, the timers, then the *)
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
(*   net             WorldState::net, as one FIFO queue per link           *)
(*   spent           WorldState::spent                                     *)
(*   ghost, history  WorldState::ghost and WorldState::history (flag bits  *)
(*                   as a set of flag names)                               *)
(*   key, fence      Server                                                *)
(*   phase, left     Client::script; expire, token as in Client; acquired  *)
(*                   is Client::ghost (renamed: ghost is the world's)      *)
(*   max_token, max_ghost   Resource                                       *)
(* Values that only grow (ghost numbers; the fencing counter and tokens)   *)
(* are renumbered by rank after every action in Rust (src/world/ranks.rs); *)
(* here RankedVars is that renumbered state, and the .cfg's VIEW makes TLC *)
(* count states by it.                                                     *)
(* Not modelled, because no scenario of this family uses them: stopwatches *)
(* (this algorithm starts none), clock drift and jumps (Node::skew stays   *)
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
       /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3 /\ MaxPause \in 0..30
       /\ Targets \in {"all", "clients", "servers"}

Server == 0
ClientIds == 1..Clients
Resource == Clients + 1
Nodes == 0..Clients + 1
Links == Nodes \X Nodes
TimerNames == {"KeyExpiry", "Retry", "Renew"}

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
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    history,    \* ghost flags raised: "ForeignRelease", "StaleWrite"
    key,        \* the server's lock key: None or [owner, ghost]
    fence,      \* the server's fencing counter (INCR lock:fence)
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    expire,     \* expire[c]: EXPIRE "Done", "ToSend" or "Sent"
    token,      \* token[c]: the fencing token of c's grant
    acquired,   \* acquired[c]: the ghost number of c's grant
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent>>
serverVars == <<key, fence>>
clientVars == <<phase, left, expire, token, acquired>>
resourceVars == <<max_token, max_ghost>>
vars == <<status, pause, timers, net, spent, ghost, history,
          key, fence, phase, left, expire, token, acquired,
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

\* Script::holds and Script::wants.
Holds(c) == phase[c] \in {"Holding", "Writing"}
Wants(c) == phase[c] \in {"Want", "Acquiring"}

\* The lock view counts running (not crashed) clients only.
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Script::released: the release was answered.
Released(c) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
         /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]

-----------------------------------------------------------------------------
(* Client steps (Actor::steps and on_step). Expire and Write are urgent:   *)
(* time does not pass while a running client has one. Acquire is not       *)
(* (Actor::urgent): a client comes to want the lock, and retries after its *)
(* back-off, at any moment, any number of ticks later, but not never (it   *)
(* is weakly fair).                                                        *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanExpire(c) == phase[c] = "Holding" /\ expire[c] = "ToSend"
CanWrite(c) == phase[c] = "Holding" /\ expire[c] = "Done"
HasUrgentStep(n) == n \in ClientIds /\ (CanExpire(n) \/ CanWrite(n))

\* Acquire: SETNX, or SET NX PX.
Acquire(c) ==
    /\ Up(c) /\ CanAcquire(c)
    /\ net' = Sent(net, c, Server,
                   [type |-> IF Command = "set-nx-px" THEN "SetNxPx" ELSE "SetNx"])
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, serverVars,
                   left, expire, token, acquired, resourceVars>>

\* Expire: the second command of the two-step form.
Expire(c) ==
    /\ Up(c) /\ CanExpire(c)
    /\ net' = Sent(net, c, Server, [type |-> "Expire"])
    /\ expire' = [expire EXCEPT ![c] = "Sent"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, serverVars,
                   phase, left, token, acquired, resourceVars>>

\* Write: the critical section's write, with the token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, Resource,
                   [type |-> "Write", token |-> token[c], ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, serverVars,
                   left, expire, token, acquired, resourceVars>>

\* Release: the write is answered, so the critical section is over.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Sent(Pop(src, c), c, Server,
                   [type |-> IF ReleaseCommand = "del" THEN "Del" ELSE "CompareAndDelete"])
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Renew")]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<worldVars, ghost, history, serverVars,
                   left, expire, token, acquired, resourceVars>>

-----------------------------------------------------------------------------
(* The server executes one command atomically, as Redis does               *)
(* (server_receive). Each handler delivers the head of the link src ->     *)
(* server.                                                                 *)

Reply(src, m) == net' = Sent(Pop(src, Server), Server, src, m)

\* SETNX and SET NX PX: set the key if it is absent.
SetIfAbsent(src, px) ==
    IF key # None
    THEN /\ Reply(src, [type |-> "Refused"])
         /\ UNCHANGED <<timers, ghost, key, fence>>
    ELSE LET g == ghost + 1
             f == IF Fencing THEN fence + 1 ELSE fence
         IN  /\ ghost' = g
             /\ key' = [owner |-> src, ghost |-> g]
             /\ timers' = IF px
                          THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                          ELSE timers
             /\ fence' = f
             /\ Reply(src, [type |-> "Granted", token |-> f, ghost |-> g])

ReceiveSetNx(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "SetNx"
    /\ SetIfAbsent(src, FALSE)
    /\ UNCHANGED <<worldVars, history, clientVars, resourceVars>>

ReceiveSetNxPx(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "SetNxPx"
    /\ SetIfAbsent(src, TRUE)
    /\ UNCHANGED <<worldVars, history, clientVars, resourceVars>>

\* EXPIRE lock ttl.
ReceiveExpire(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Expire"
    /\ timers' = IF key # None
                 THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                 ELSE timers
    /\ Reply(src, [type |-> "ExpireSet"])
    /\ UNCHANGED <<worldVars, ghost, history, serverVars, clientVars, resourceVars>>

\* DEL lock, whoever holds it now.
ReceiveDel(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Del"
    /\ IF key # None
       THEN /\ key' = None
            /\ history' = IF key.owner # src THEN history \cup {"ForeignRelease"}
                          ELSE history
            /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, "KeyExpiry")]
       ELSE UNCHANGED <<key, history, timers>>
    /\ Reply(src, [type |-> "Released"])
    /\ UNCHANGED <<worldVars, ghost, fence, clientVars, resourceVars>>

\* The Lua script: if GET lock == me then DEL lock.
ReceiveCompareAndDelete(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "CompareAndDelete"
    /\ IF key # None /\ key.owner = src
       THEN /\ key' = None
            /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, "KeyExpiry")]
       ELSE UNCHANGED <<key, timers>>
    /\ Reply(src, [type |-> "Released"])
    /\ UNCHANGED <<worldVars, ghost, history, fence, clientVars, resourceVars>>

\* Redisson's renewal: if GET lock == me then PEXPIRE lock ttl. No answer.
ReceiveRenew(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Renew"
    /\ timers' = IF key # None /\ key.owner = src
                 THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                 ELSE timers
    /\ net' = Pop(src, Server)
    /\ UNCHANGED <<worldVars, ghost, history, serverVars, clientVars, resourceVars>>

ServerCommands == {"SetNx", "SetNxPx", "Expire", "Del", "CompareAndDelete", "Renew"}

-----------------------------------------------------------------------------
(* The client's other handlers (client_receive).                           *)

ReceiveGranted(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ m.type = "Granted"
    /\ phase' = [phase EXCEPT ![c] = "Holding"]
    /\ token' = [token EXCEPT ![c] = m.token]
    /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
    /\ expire' = IF Command = "setnx-expire" THEN [expire EXCEPT ![c] = "ToSend"]
                 ELSE expire
    /\ timers' = IF Watchdog THEN [timers EXCEPT ![c] = SetTimer(@, "Renew", RenewEvery)]
                 ELSE timers
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, history, serverVars, left, resourceVars>>

ReceiveRefused(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ Msg(src, c).type = "Refused"
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Retry", Retry)]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, history, serverVars,
                   left, expire, token, acquired, resourceVars>>

ReceiveExpireSet(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Holding" /\ Msg(src, c).type = "ExpireSet"
    /\ expire' = [expire EXCEPT ![c] = "Done"]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, serverVars,
                   phase, left, token, acquired, resourceVars>>

ReceiveReleased(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Releasing" /\ Msg(src, c).type = "Released"
    /\ Released(c)
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, serverVars,
                   expire, token, acquired, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type \in {"Granted", "Refused"}
    \/ phase[c] = "Holding" /\ m.type = "ExpireSet"
    \/ phase[c] = "Writing" /\ m.type \in {"Accepted", "Rejected"}
    \/ phase[c] = "Releasing" /\ m.type = "Released"

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
    /\ UNCHANGED <<worldVars, timers, ghost, serverVars, clientVars>>

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
    /\ UNCHANGED <<worldVars, timers, ghost, history,
                   serverVars, clientVars, resourceVars>>

Deliver(src, dst) ==
    \/ /\ dst = Server
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

Fire(n, t) ==
    LET rest == [timers EXCEPT ![n] = CancelTimer(@, t)] IN
    /\ Up(n) /\ Due(n, t)
    /\ CASE t = "KeyExpiry" /\ n = Server ->
              \* The key's TTL ran out on the server's clock.
              /\ key' = None
              /\ timers' = rest
              /\ UNCHANGED net
         [] t = "Renew" /\ n \in ClientIds /\ Holds(n) ->
              \* The watchdog renews while the client believes it holds.
              /\ net' = Sent(net, n, Server, [type |-> "Renew"])
              /\ timers' = [rest EXCEPT ![n] = SetTimer(@, "Renew", RenewEvery)]
              /\ UNCHANGED key
         [] OTHER ->
              \* Retry: the client may ask again; Renew after the release.
              /\ timers' = rest
              /\ UNCHANGED <<net, key>>
    /\ UNCHANGED <<worldVars, ghost, history, fence, clientVars, resourceVars>>

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
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time. Every node's clock runs, a crashed one's too (an
\* fsynced key's expiry is an absolute deadline); a paused node's pause
\* counts down; messages age, saturating at MaxDelay.
Tick ==
    /\ ~TimeBlocked /\ TimeMatters
    /\ timers' = [n \in Nodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<spent, ghost, history, serverVars, clientVars, resourceVars>>

\* Fault: a node stops, loses its volatile state and timers; messages to it
\* are dropped. An fsynced server keeps its key and the key's expiry; an
\* empty one forgets both. A client keeps its state only for the restart.
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] =
                    IF n = Server /\ RestartMode = "fsync" THEN Keep(@, {"KeyExpiry"})
                    ELSE NoTimers]
    /\ IF n = Server /\ RestartMode = "empty"
       THEN key' = None /\ fence' = 0
       ELSE UNCHANGED serverVars
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<ghost, history, clientVars, resourceVars>>

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
              /\ expire' = [expire EXCEPT ![n] = "Done"]
              /\ token' = [token EXCEPT ![n] = 0]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<serverVars, resourceVars>>
         [] OTHER ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<serverVars, clientVars>>
    /\ UNCHANGED <<pause, net, spent, ghost, history>>

\* Fault: a running node stops taking steps for k ticks while its clock runs.
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, net, ghost, history, serverVars, clientVars, resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |-> NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0]
    /\ ghost = 0
    /\ history = {}
    /\ key = None
    /\ fence = 0
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ expire = [c \in ClientIds |-> "Done"]
    /\ token = [c \in ClientIds |-> 0]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Expire(c) \/ Write(c)
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
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Expire(c)) /\ WF_vars(Write(c))
    /\ \A n \in Nodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Ghost numbers, and the fencing        *)
(* counter's value and the tokens drawn from it, are only ever compared,   *)
(* so Rust replaces each by its rank among the values of its sequence      *)
(* present in the state (0, "none", stays 0) after every action.           *)
(* RankedVars is the state so renumbered: two states with the same         *)
(* RankedVars have the same future up to renumbering, so the .cfg's VIEW   *)
(* RankedVars makes TLC count the states the Rust checker counts.          *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}
Numbered == {m \in InFlight : m.type \in {"Granted", "Write"}}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup (IF key = None THEN {} ELSE {key.ghost}) \cup {m.ghost : m \in Numbered}

TokenValues ==
    {0, fence, max_token} \cup {token[c] : c \in ClientIds} \cup {m.token : m \in Numbered}

RankedVars ==
    LET G == GhostValues
        T == TokenValues
        rg(v) == Rank(v, G)
        \* A fence that a crash and a restart without persistence reset to 0
        \* is compared with older tokens by its distance to them, so tokens
        \* are renumbered only where that cannot happen (Params::rank_tokens).
        rt(v) == IF RestartMode = "fsync" \/ Crashes = 0 \/ Targets = "clients"
                 THEN Rank(v, T) ELSE v
        msg(m) == IF m.type \in {"Granted", "Write"}
                  THEN [m EXCEPT !.ghost = rg(@), !.token = rt(@)] ELSE m
    IN  <<status, pause, timers,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), history,
          IF key = None THEN None ELSE [key EXCEPT !.ghost = rg(@)],
          rt(fence), phase, left, expire, [c \in ClientIds |-> rt(token[c])],
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses]
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ key = None \/ key.owner \in ClientIds
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ expire \in [ClientIds -> {"Done", "ToSend", "Sent"}]

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
