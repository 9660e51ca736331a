----------------------------- MODULE SingleRedis -----------------------------
(***************************************************************************)
(* single-redis: a lock held as one key on one Redis server, as the Redis  *)
(* documentation describes it:                                             *)
(*   - "Distributed Locks with Redis" (redis.io/docs/latest/develop/use/   *)
(*     patterns/distributed-locks/), "Correct Implementation with a Single *)
(*     Instance": SET resource_name my_random_value NX PX 30000 to take    *)
(*     the lock, and release by a Lua script that deletes the key only if  *)
(*     it still holds my_random_value (compare-and-delete);                *)
(*   - the SET command page (redis.io/docs/latest/commands/set/), "Patterns"*)
(*     : the same lock, and the older form SETNX followed by EXPIRE, two   *)
(*     commands that a crash can separate (the SETNX page's "Handling      *)
(*     deadlocks"); SETNX without any expiry; release by plain DEL;        *)
(*   - Redisson's watchdog (github.com/redisson/redisson/wiki, "8.1. Lock" *)
(*     : lockWatchdogTimeout, renewed every lockWatchdogTimeout / 3 while  *)
(*     the holder runs);                                                   *)
(*   - Kleppmann, "How to do distributed locking" (2016): a client paused  *)
(*     after it acquired still believes it holds the lock after its key    *)
(*     expired; a fencing token (INCR on the server, checked by the        *)
(*     storage) keeps the resource safe.                                   *)
(* The client draws a fresh random value per attempt ("unique across all   *)
(* clients and all lock requests"), and every answer carries it, so an     *)
(* answer to an earlier request is recognised and dropped; every request   *)
(* that expects an answer has a Timeout on the client's clock. A "naive"   *)
(* client holds from the grant until its write is answered; a "validity"   *)
(* client is Redlock's client with one server: validity = Ttl - elapsed -  *)
(* Drift on the grant, a Validity timer, a Check of more than Margin left, *)
(* then the Write.                                                         *)
(*                                                                         *)
(* Vocabulary. Requests: SetNx (SETNX lock v), SetNxPx (SET lock v NX PX   *)
(* Ttl), Expire (EXPIRE lock Ttl), Del (DEL lock), CompareAndDelete (the   *)
(* Lua script: if GET lock == v then DEL lock), Renew (the watchdog's      *)
(* PEXPIRE if the value still matches). Answers: Granted (OK, or 1 for     *)
(* SETNX, with the INCR token when fenced), Refused (nil, or 0),           *)
(* ExpireSet (1), Released (the DEL count). Timers: KeyExpiry (the key's   *)
(* TTL on the server's clock), Retry (the back-off), Renew (the watchdog), *)
(* Timeout (a request's), Validity. The server's handlers are named after  *)
(* the command they execute (ReceiveSetNxPx ...).                          *)
(*                                                                         *)
(* The world (time, network, faults, fairness) is World.tla's; this module *)
(* supplies the handlers. The Rust module src/algorithms/single_redis/     *)
(* follows this spec, action for action (with src/algorithms/common/client.rs for *)
(* the client's script and resource.rs for the protected resource): for    *)
(* the constants of a scenario TLC must find exactly as many distinct      *)
(* states as the Rust checker finds unique states (docs/design.md §10;   *)
(* specs/README.md records both). The variables below are the fields of   *)
(* the Rust Server and Client states:                                      *)
(*   key, fence      Server                                                *)
(*   phase, left     Client::script; value, expire, checked, token as in   *)
(*                   Client; acquired is Client::ghost (renamed: ghost is  *)
(*                   the world's)                                          *)
(*   max_token, max_ghost   Resource                                       *)
(* A validity client's stopwatch is the world's watches[c]["Elapsed"].     *)
(*                                                                         *)
(* Node ids as in Rust: the server is 0, clients 1..Clients, the resource  *)
(* Clients + 1.                                                            *)
(***************************************************************************)
EXTENDS World

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
    Acquisitions   \* [bounds] acquisitions per client; 0 = forever

ASSUME /\ Clients \in 1..4 /\ Ttl \in 1..30 /\ Retry \in 1..10
       /\ Command \in {"setnx", "setnx-expire", "set-nx-px"}
       /\ ReleaseCommand \in {"del", "compare-and-delete"}
       /\ Watchdog \in BOOLEAN /\ Fencing \in BOOLEAN
       /\ ~(Watchdog /\ Command = "setnx")
       /\ RestartMode \in {"empty", "fsync"}
       /\ Timeout \in 1..30 /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ ~(Client = "validity" /\ (Command = "setnx" \/ Watchdog))
       /\ Acquisitions \in 0..5

Server == 0
ClientIds == 1..Clients
Resource == Clients + 1
AllNodes == 0..Clients + 1
Links == AllNodes \X AllNodes
TimerNames == {"KeyExpiry", "Retry", "Renew", "Timeout", "Validity"}
StepNames == {"Acquire", "Expire", "Check", "Write"}
Validity == Client = "validity"

\* Redisson's renewal period, lockWatchdogTimeout / 3 (Params::renew_every).
RenewEvery == IF Ttl \div 3 > 1 THEN Ttl \div 3 ELSE 1

\* The world's view of the nodes (World.tla's hooks).
Role(n) == CASE n = Server -> "server" [] n = Resource -> "observer" [] OTHER -> "client"
\* Any elapsed time of a TTL or more leaves no validity.
Cap(n, w) == Ttl
MayPause(n) == TRUE

VARIABLES
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

\* The world's variables no handler changes.
fixed == <<status, pause, skew, cut, spent>>
serverVars == <<key, fence>>
clientVars == <<phase, left, value, expire, checked, token, acquired, watches>>
resourceVars == <<max_token, max_ghost>>
algVars == <<key, fence, phase, left, value, expire, checked, token, acquired,
             max_token, max_ghost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* The client's script (common/client.rs) and the lock view (properties.rs). *)

\* Script::holds: Holding or Writing (the watchdog renews while it does).
ScriptHolds(c) == phase[c] \in {"Holding", "Writing"}

\* The lock view: a naive client believes it holds the lock from the grant
\* until its write is answered; a validity client, while Holding, only
\* while its validity timer is above zero or once it has checked it, and
\* it still wants the lock until it has checked (docs/design.md §5).
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
    /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Elapsed")]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ Forget(c)
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Retry", Retry)]

\* give_up: a validity client's lock is no use; release it without waiting
\* for the answer, and retry later. q: the network so far.
GiveUp(c, q, tm) ==
    /\ net' = Send(q, c, Server, ReleaseMsg(value[c]))
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
    /\ net' = Send(net, c, Server,
                   [type |-> IF Command = "set-nx-px" THEN "SetNxPx" ELSE "SetNx", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ watches' = IF Validity THEN [watches EXCEPT ![c] = StartWatch(@, "Elapsed")] ELSE watches
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, serverVars,
                   left, expire, checked, token, acquired, resourceVars>>

\* Expire: the second command of the two-step form.
Expire(c) ==
    /\ Up(c) /\ CanExpire(c)
    /\ net' = Send(net, c, Server, [type |-> "Expire", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ expire' = [expire EXCEPT ![c] = "Sent"]
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars,
                   phase, left, value, checked, token, acquired, watches, resourceVars>>

\* Check: is more than the margin left? Only then write; else give up.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, phase, value, expire, token, acquired, watches>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, left, resourceVars>>

\* Write: the critical section's write, with the token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Send(net, c, Resource,
                   [type |-> "Write", token |-> token[c], ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, serverVars,
                   left, value, expire, checked, token, acquired, watches, resourceVars>>

\* Release: the write is answered, so the critical section is over.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Send(Pop(src, c), c, Server, ReleaseMsg(value[c]))
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(SetTimer(@, "Timeout", Timeout), "Renew")]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars,
                   left, value, expire, checked, token, acquired, watches, resourceVars>>

-----------------------------------------------------------------------------
(* The server executes one command atomically, as Redis does               *)
(* (server_receive). Each handler delivers the head of the link src ->     *)
(* server. Every answer carries its request's value.                       *)

Reply(src, m) == net' = Send(Pop(src, Server), Server, src, m)

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
    /\ UNCHANGED <<fixed, drawn, history, clientVars, resourceVars>>

ReceiveSetNxPx(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "SetNxPx"
    /\ SetIfAbsent(src, TRUE)
    /\ UNCHANGED <<fixed, drawn, history, clientVars, resourceVars>>

\* EXPIRE lock ttl.
ReceiveExpire(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Expire"
    /\ timers' = IF key # None
                 THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                 ELSE timers
    /\ Reply(src, [type |-> "ExpireSet", value |-> Msg(src, Server).value])
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, clientVars, resourceVars>>

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
    /\ UNCHANGED <<fixed, ghost, drawn, fence, clientVars, resourceVars>>

\* The Lua script: if GET lock == value then DEL lock.
ReceiveCompareAndDelete(src) ==
    LET v == Msg(src, Server).value IN
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "CompareAndDelete"
    /\ IF key # None /\ key.value = v
       THEN /\ key' = None
            /\ timers' = [timers EXCEPT ![Server] = CancelTimer(@, "KeyExpiry")]
       ELSE UNCHANGED <<key, timers>>
    /\ Reply(src, [type |-> "Released", value |-> v])
    /\ UNCHANGED <<fixed, ghost, drawn, history, fence, clientVars, resourceVars>>

\* Redisson's renewal: if GET lock == value then PEXPIRE lock ttl. No answer.
ReceiveRenew(src) ==
    /\ Deliverable(src, Server) /\ Msg(src, Server).type = "Renew"
    /\ timers' = IF key # None /\ key.value = Msg(src, Server).value
                 THEN [timers EXCEPT ![Server] = SetTimer(@, "KeyExpiry", Ttl)]
                 ELSE timers
    /\ net' = Pop(src, Server)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, clientVars, resourceVars>>

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
        validity == Ttl - (IF Running(c, "Elapsed") THEN watches[c]["Elapsed"] ELSE Ttl) - Drift
    IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ m.type = "Granted" /\ m.value = value[c]
    /\ IF Validity /\ validity <= 0
       THEN GiveUp(c, Pop(src, c), tm)
       ELSE /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Elapsed")]
            /\ phase' = [phase EXCEPT ![c] = "Holding"]
            /\ token' = [token EXCEPT ![c] = m.token]
            /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
            /\ expire' = IF Command = "setnx-expire" THEN [expire EXCEPT ![c] = "ToSend"]
                         ELSE expire
            /\ timers' = [timers EXCEPT ![c] =
                            IF Validity THEN SetTimer(tm, "Validity", validity) ELSE tm]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<value, checked>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, left, resourceVars>>

ReceiveRefused(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ Msg(src, c).type = "Refused"
    /\ Msg(src, c).value = value[c]
    /\ RetryLater(c, CancelTimer(timers[c], "Timeout"))
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, left, resourceVars>>

ReceiveExpireSet(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Holding" /\ Msg(src, c).type = "ExpireSet"
    /\ Msg(src, c).value = value[c] /\ expire[c] = "Sent"
    /\ expire' = [expire EXCEPT ![c] = "Done"]
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars,
                   phase, left, value, checked, token, acquired, watches, resourceVars>>

ReceiveReleased(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Releasing" /\ Msg(src, c).type = "Released"
    /\ Msg(src, c).value = value[c]
    /\ Released(c)
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, serverVars, watches, resourceVars>>

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
       THEN /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"}
                          ELSE history
            /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, timers, ghost, drawn, serverVars, clientVars>>

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
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history,
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
           /\ UNCHANGED <<phase, left, value, checked, token, acquired, watches>>
      [] phase[c] = "Releasing" ->
           /\ Released(c)
           /\ timers' = rest
           /\ UNCHANGED watches
      [] OTHER ->
           /\ timers' = rest
           /\ UNCHANGED <<phase, left, value, expire, checked, token, acquired, watches>>

Fire(n, t) ==
    LET rest == Expired(n, t) IN
    /\ Up(n) /\ Due(n, t)
    /\ CASE t = "KeyExpiry" /\ n = Server ->
              \* The key's TTL ran out on the server's clock.
              /\ key' = None
              /\ timers' = rest
              /\ UNCHANGED <<net, clientVars>>
         [] t = "Renew" /\ n \in ClientIds /\ ScriptHolds(n) ->
              \* The watchdog renews while the client believes it holds.
              /\ net' = Send(net, n, Server, [type |-> "Renew", value |-> value[n]])
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
    /\ UNCHANGED <<fixed, ghost, drawn, history, fence, resourceVars>>

-----------------------------------------------------------------------------
(* The world (World.tla): time, drift, crashes, restarts, pauses,          *)
(* partitions, loss, duplication, clock jumps. Only Crash and Restart      *)
(* touch the algorithm's state.                                            *)

Tick == WorldTick(HasUrgentStep, Cap) /\ UNCHANGED algVars
DriftTick == WorldDrift(Role, HasUrgentStep, Cap) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED algVars
Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED algVars
ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

\* Fault: a node stops. An fsynced server keeps its key and the key's
\* expiry; an empty one forgets both. A client keeps its state only for
\* the restart.
Crash(n) ==
    /\ WorldCrash(n, IF n = Server /\ RestartMode = "fsync"
                     THEN Keep(timers[n], {"KeyExpiry"}) ELSE NoTimers, Role)
    /\ IF n = Server /\ RestartMode = "empty"
       THEN key' = None /\ fence' = 0
       ELSE UNCHANGED serverVars
    /\ UNCHANGED <<phase, left, value, expire, checked, token, acquired, resourceVars>>

\* A crashed node comes back with what it persisted: an fsynced server with
\* its key (gone if its expiry passed while down), anything else afresh.
Restart(n) ==
    /\ WorldRestart(n)
    /\ CASE n = Server /\ RestartMode = "fsync" ->
              /\ key' = IF Due(n, "KeyExpiry") THEN None ELSE key
              /\ timers' = [timers EXCEPT ![n] =
                              IF IsSet(n, "KeyExpiry") /\ ~Due(n, "KeyExpiry")
                              THEN Keep(@, {"KeyExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<fence, phase, left, value, expire, checked, token, acquired,
                             resourceVars>>
         [] n = Server ->
              /\ key' = None /\ fence' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<phase, left, value, expire, checked, token, acquired,
                             resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ Forget(n)
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<serverVars, resourceVars>>
         [] OTHER ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<serverVars, phase, left, value, expire, checked, token, acquired>>
    /\ UNCHANGED <<net, ghost, drawn, history>>

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
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

\* A client's step by name (for fairness).
Step(n, s) ==
    /\ n \in ClientIds
    /\ CASE s = "Acquire" -> Acquire(n)
         [] s = "Expire" -> Expire(n)
         [] s = "Check" -> Check(n)
         [] OTHER -> Write(n)

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Expire(c) \/ Check(c) \/ Write(c)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in AllNodes : Restart(n)
    \/ Heal
    \/ \E n \in AllNodes : Crash(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E a, b \in AllNodes : Partition(a, b)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in AllNodes, by \in (-MaxJump..MaxJump) \ {0} : ClockJump(n, by)
    \/ DriftTick

\* docs/design.md §5, in World.tla's shape.
Fairness ==
    /\ SF_vars(Tick)
    /\ \A n \in ClientIds, s \in StepNames : WF_vars(Step(n, s))
    /\ \A n \in AllNodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

\* The steps that are no fault (World.tla): the nodes' own, the network's
\* deliveries, time, and the recoveries unless Recovery = "none". A step
\* some of these could take is no fault, even when a fault (say, losing a
\* message the destination would ignore) could take it too.
NoFault ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Expire(c) \/ Check(c) \/ Write(c)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (Heal \/ \E n \in AllNodes : Restart(n))

\* docs/design.md §5: liveness is about the runs in which faults stop.
\* Loss, duplication and drift have no budget, so a run may lose every
\* message for ever; such runs are not counterexamples.
FaultsStop == <>[][NoFault]_vars

-----------------------------------------------------------------------------
(* Renumbering (World.tla's Rank). Ghost numbers, lock values, and the     *)
(* fencing counter's value and the tokens drawn from it, are only ever     *)
(* compared: RankedVars is the state with each renumbered by its rank      *)
(* among the values of its kind present, as Rust does after every action. *)

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
    IN  <<RankedWorld(rg, rv, msg),
          IF key = None THEN None ELSE [value |-> rv(key.value), ghost |-> rg(key.ghost)],
          rt(fence), phase, left, [c \in ClientIds |-> rv(value[c])], expire, checked,
          [c \in ClientIds |-> rt(token[c])],
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ \A n \in Nodes : DOMAIN watches[n] \subseteq {"Elapsed"}
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
    FaultsStop => ([]<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars)

\* Once faults stop, every running client that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    FaultsStop => \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
