------------------------------- MODULE Redlock -------------------------------
(***************************************************************************)
(* redlock: N independent Redis masters, after the algorithm in the Redis  *)
(* documentation ("Distributed Locks with Redis"), with Kleppmann's        *)
(* critique and antirez's answer in mind. A client draws a random value    *)
(* for the attempt, reads its clock (T1), sends SET lock value NX PX ttl   *)
(* to every master with a timeout (the answers carry the value, so one to  *)
(* an earlier attempt is ignored), and at T2                               *)
(* (every master answered, or the timeout fired) holds the lock only with  *)
(* a majority and validity = ttl - (T2 - T1) - drift above zero. It checks *)
(* its validity timer (Check) before it uses the resource (Write), and     *)
(* releases by compare-and-delete of its value on every master, without    *)
(* waiting.                                                                *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/redlock.rs (with                 *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* the client's steps Acquire, Check, Write; its handlers ReceiveLocked    *)
(* (counting answers, deciding at T2), TimedOut and ValidityEnds (timers), *)
(* ReceiveToken, Release (the write's answer); the masters' ReceiveLock,   *)
(* ReceiveUnlock, KeyExpiry and Recovered; the counter's ReceiveIncr; the  *)
(* resource's ReceiveWrite; then the world: Tick, Crash, Restart, Pause,   *)
(* ClockJump. The lock view and the properties are those of                *)
(* src/properties.rs.                                                      *)
(*                                                                         *)
(* Same configuration, same states: for the constants of a scenario, TLC   *)
(* must find exactly as many distinct states as the Rust checker finds     *)
(* unique states (DESIGN.md section 10; specs/README.md records both).     *)
(* So every variable here is a field of the Rust world state, and every    *)
(* field of it that can change under these faults is a variable here:      *)
(*   status, pause   Node::status (Up, Paused(pause), Down)                *)
(*   timers          Node::timers, as a function from timer name to ticks  *)
(*   elapsed         Node::watches of a client: the stopwatch Elapsed (T1) *)
(*                   counting up and saturating at WatchCap, or None when  *)
(*                   it is not running                                     *)
(*   net             WorldState::net, as one FIFO queue per link           *)
(*   spent           WorldState::spent                                     *)
(*   ghost, history  WorldState::ghost and WorldState::history (flag bits  *)
(*                   as a set of flag names)                               *)
(*   drawn           WorldState::value: the last lock value drawn          *)
(*                   (Out::fresh_value)                                    *)
(*   key, recovering Master (key: the value the key holds)                 *)
(*   issued          State::Counter: the counter service's last INCR       *)
(*   phase, left     Client::script; value, answered, yes (masks as sets   *)
(*                   of master ids), checked, token as in Client; acquired *)
(*                   is Client::ghost (renamed: ghost is the world's)      *)
(*   max_token, max_ghost   Resource                                       *)
(* Values that only grow (ghost numbers, lock values; with counter         *)
(* fencing, tokens) are                                                    *)
(* renumbered by rank after every action in Rust (src/world/ranks.rs);     *)
(* here RankedVars is that renumbered state, and the .cfg's VIEW makes TLC *)
(* count states by it.                                                     *)
(* Not modelled, because no redlock scenario uses them: clock drift        *)
(* (Node::skew stays 0), partitions (cut stays empty), loss, duplication,  *)
(* reordering, and recovery = "none" (Restart is always fair here).        *)
(*                                                                         *)
(* Node ids as in Rust: masters 0..Masters-1, then the clients, then the   *)
(* counter service (only with Fencing = "counter"), then the resource.     *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Masters,       \* [system] masters
    Clients,       \* [system] clients
    Ttl,           \* [system] ttl: key expiry in a master's ticks
    Timeout,       \* [system] timeout: the per-request timeout, client ticks
    Drift,         \* [system] drift: allowance subtracted from the validity
    Margin,        \* [system] margin: validity a client needs left at Check
    Retry,         \* [system] retry: ticks a client waits before retrying
    RestartMode,   \* [system] restart: "empty", "fsync" or "delayed"
    Fencing,       \* [system] fencing: "none", "lock-value" or "counter"
    PauseWindow,   \* [system] pause_window: "any" or "acquiring"
    Acquisitions,  \* [bounds] acquisitions per client; 0 = forever
    MaxDelay,      \* [faults] max_delay, or a model value (the .cfg line
                   \* MaxDelay = Async) when omitted: an asynchronous network
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses
    MinPause,      \* [faults] min_pause
    MaxPause,      \* [faults] max_pause
    ClockJumps,    \* [faults] clock_jumps
    MaxJump,       \* [faults] max_jump
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    None           \* a model value: no key, no token, no stopwatch

ASSUME /\ Masters \in 1..7 /\ Clients \in 1..4 /\ Ttl \in 1..30
       /\ Timeout \in 1..Ttl - 1 /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ Retry \in 1..10
       /\ RestartMode \in {"empty", "fsync", "delayed"}
       /\ Fencing \in {"none", "lock-value", "counter"}
       /\ PauseWindow \in {"any", "acquiring"}
       /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3
       /\ MinPause \in 1..30 /\ MaxPause \in 0..30
       /\ ClockJumps \in 0..3 /\ MaxJump \in 0..30
       /\ Targets \in {"all", "clients", "servers"}

MasterIds == 0..Masters - 1
ClientIds == Masters..Masters + Clients - 1
Counter == Masters + Clients
Resource == IF Fencing = "counter" THEN Counter + 1 ELSE Counter
Nodes == 0..Resource
\* The links that ever carry a message: masters and clients both ways, the
\* clients and the resource both ways, the clients and the counter both
\* ways. No other node sends to any other (World::net holds no such entry).
Links == LET pair(a, b) == (a \X b) \cup (b \X a) IN
         pair(MasterIds, ClientIds) \cup pair(ClientIds, {Resource})
           \cup (IF Fencing = "counter" THEN pair(ClientIds, {Counter}) ELSE {})
MasterTimers == {"KeyExpiry", "Recovered"}
ClientTimers == {"Timeout", "Validity", "Retry"}
TimerNames == MasterTimers \cup ClientTimers

Quorum == Masters \div 2 + 1

\* Faults::targets: which nodes crashes, pauses and clock jumps may hit (the
\* counter service and the resource are observers, never faulted).
Targeted(n) == \/ Targets \in {"all", "servers"} /\ n \in MasterIds
               \/ Targets \in {"all", "clients"} /\ n \in ClientIds

\* Messages age and must arrive within MaxDelay ticks (Faults::max_delay).
Bounded == MaxDelay \in Nat

VARIABLES
    status,     \* status[n] \in {"Up", "Paused", "Down"}
    pause,      \* ticks of pause left; 0 unless status[n] = "Paused"
    timers,     \* timers[n]: set timer names -> local ticks left
    elapsed,    \* elapsed[c]: the stopwatch T1, 0..WatchCap, or None
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses, jumps]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    history,    \* ghost flags raised: "StaleWrite" (no release is foreign)
    drawn,      \* the last lock value drawn (each attempt draws a fresh one)
    key,        \* key[m]: the value master m's key holds, or None
    recovering, \* recovering[m]: a delayed restart, answering nothing yet
    issued,     \* the counter service's value (INCR lock:fence)
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Done (never
                \* Releasing: a Redlock client does not wait for the unlocks)
    left,       \* left[c]: acquisitions still to make
    value,      \* value[c]: the attempt's random value, 0 when none
    answered,   \* answered[c]: masters that answered this attempt
    yes,        \* yes[c]: masters that said yes
    checked,    \* checked[c]: found validity left at Check, about to write
    token,      \* token[c]: the fencing token, or None until known
    acquired,   \* acquired[c]: the ghost number of c's acquisition
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent, drawn>>
masterVars == <<key, recovering>>
clientVars == <<phase, left, value, answered, yes, checked, token, acquired, elapsed>>
resourceVars == <<max_token, max_ghost>>
vars == <<status, pause, timers, elapsed, net, spent, ghost, history, drawn,
          key, recovering, issued, phase, left, value, answered, yes,
          checked, token, acquired, max_token, max_ghost>>

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

\* The same message to every master, as unlock_all and Acquire send it.
ToMasters(q, src, m) ==
    [l \in Links |-> IF l[1] = src /\ l[2] \in MasterIds /\ status[l[2]] # "Down"
                     THEN Append(q[l], [msg |-> m, age |-> 0])
                     ELSE q[l]]

\* Only the oldest message of a link can be delivered (FIFO, no reordering),
\* and only to a running node.
Deliverable(src, dst) == status[dst] = "Up" /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

Up(n) == status[n] = "Up"

Clamp(v, lo, hi) == IF v < lo THEN lo ELSE IF v > hi THEN hi ELSE v

\* World::watch_cap: where the stopwatch saturates. Any elapsed time of a
\* TTL or more leaves no validity, but saturation is sound only for a clock
\* that never goes back: while clock jumps remain in the budget, the cap sits
\* above Ttl by every tick they could still take back (sp: the faults spent).
WatchCap(sp) == Ttl + (ClockJumps - sp.jumps) * MaxJump

-----------------------------------------------------------------------------
(* The client's script (client.rs) and the lock view (redlock.rs's         *)
(* lock_view and properties.rs).                                           *)

\* A client believes it holds the lock while its validity timer is above
\* zero, and, once it has checked that timer, until it has written and
\* released.
Holds(c) ==
    \/ phase[c] = "Holding" /\ (checked[c] \/ (IsSet(c, "Validity") /\ timers[c]["Validity"] > 0))
    \/ phase[c] = "Writing"
\* A client wants the lock until it may use it: a client that won a
\* majority but has not passed its Check yet still wants it (and may hold
\* it too, for mutual exclusion).
Wants(c) ==
    \/ phase[c] \in {"Want", "Acquiring"}
    \/ phase[c] = "Holding" /\ ~checked[c]

\* The lock view counts running (not crashed) clients only.
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Script::released: the release was sent (redlock does not wait for it).
Released(c) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
         /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]

\* Client::forget: drop what only mattered to the attempt or the hold.
Forget(c) ==
    /\ value' = [value EXCEPT ![c] = 0]
    /\ answered' = [answered EXCEPT ![c] = {}]
    /\ yes' = [yes EXCEPT ![c] = {}]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ token' = [token EXCEPT ![c] = None]
    /\ acquired' = [acquired EXCEPT ![c] = 0]

\* give_up: the attempt failed or the lock was lost: unlock every master,
\* retry later. q and tm are the network and c's timers so far in the step.
GiveUp(c, q, tm) ==
    /\ net' = ToMasters(q, c, [type |-> "Unlock", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(CancelTimer(tm, "Validity"), "Retry", Retry)]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ Forget(c)
    /\ UNCHANGED ghost

\* decide: T2. Hold the lock only with a majority (y: the masters that said
\* yes) and validity left; then ask the counter for a token, if fenced so.
Decide(c, q, tm, y) ==
    LET t == CancelTimer(tm, "Timeout")
        validity == Ttl - (IF elapsed[c] = None THEN Ttl ELSE elapsed[c]) - Drift
    IN  /\ elapsed' = [elapsed EXCEPT ![c] = None]
        /\ IF Cardinality(y) < Quorum \/ validity <= 0
           THEN GiveUp(c, q, t)
           ELSE /\ phase' = [phase EXCEPT ![c] = "Holding"]
                /\ answered' = [answered EXCEPT ![c] = {}]
                /\ yes' = [yes EXCEPT ![c] = {}]
                /\ ghost' = ghost + 1
                /\ acquired' = [acquired EXCEPT ![c] = ghost + 1]
                /\ timers' = [timers EXCEPT ![c] = SetTimer(t, "Validity", validity)]
                /\ token' = [token EXCEPT ![c] = CASE Fencing = "none" -> 0
                                                   [] Fencing = "lock-value" -> value[c]
                                                   [] OTHER -> None]
                /\ net' = IF Fencing = "counter"
                          THEN Sent(q, c, Counter, [type |-> "Incr", value |-> value[c]])
                          ELSE q
                /\ UNCHANGED <<checked, value>>

-----------------------------------------------------------------------------
(* Client steps (Actor::steps and on_step). Check and Write are urgent:    *)
(* time does not pass while a running client has one. Acquire is not       *)
(* (Actor::urgent): a client comes to want the lock, and retries after its *)
(* back-off, at any moment, any number of ticks later, but not never (it   *)
(* is weakly fair).                                                        *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanCheck(c) == phase[c] = "Holding" /\ ~checked[c] /\ token[c] # None
CanWrite(c) == phase[c] = "Holding" /\ checked[c]
HasUrgentStep(n) == n \in ClientIds /\ (CanCheck(n) \/ CanWrite(n))

\* Acquire: a fresh random value (Out::fresh_value: unlike any value present),
\* T1, then SET lock value NX PX ttl on every master, with a timeout.
Acquire(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ CanAcquire(c)
    /\ drawn' = v
    /\ value' = [value EXCEPT ![c] = v]
    /\ answered' = [answered EXCEPT ![c] = {}]
    /\ yes' = [yes EXCEPT ![c] = {}]
    /\ elapsed' = [elapsed EXCEPT ![c] = 0]
    /\ net' = ToMasters(net, c, [type |-> "Lock", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<status, pause, spent, ghost, history, masterVars, issued,
                   left, checked, token, acquired, resourceVars>>

\* Check: is there validity left for the work? Only then use the resource.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, ghost, phase, value, answered, yes, token, acquired>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<worldVars, history, masterVars, issued,
                   left, elapsed, resourceVars>>

\* Write: the critical section's write, with the token if fenced.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, Resource,
                   [type |-> "Write", token |-> IF token[c] = None THEN 0 ELSE token[c],
                    ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, masterVars, issued,
                   left, value, answered, yes, checked, token, acquired,
                   elapsed, resourceVars>>

-----------------------------------------------------------------------------
(* The client's handlers (client_receive, on_timer). Each delivers the     *)
(* head of the link src -> c, or fires one of c's due timers.              *)

\* A master's answer to this attempt (it carries the attempt's value; an
\* answer to an earlier attempt is discarded): count it; decide once all
\* answered.
ReceiveLocked(src, c) ==
    LET m == Msg(src, c)
        a == answered[c] \cup {src}
        y == IF m.ok THEN yes[c] \cup {src} ELSE yes[c]
    IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Acquiring" /\ m.type = "Locked" /\ m.value = value[c]
    /\ IF a = MasterIds
       THEN Decide(c, Pop(src, c), timers[c], y)
       ELSE /\ answered' = [answered EXCEPT ![c] = a]
            /\ yes' = [yes EXCEPT ![c] = y]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<timers, ghost, phase, value, checked, token, acquired, elapsed>>
    /\ UNCHANGED <<worldVars, history, masterVars, issued, left, resourceVars>>

\* The request timeout fired while acquiring: decide with what answered.
TimedOut(c) ==
    /\ Up(c) /\ Due(c, "Timeout") /\ phase[c] = "Acquiring"
    /\ Decide(c, net, CancelTimer(timers[c], "Timeout"), yes[c])
    /\ UNCHANGED <<worldVars, history, masterVars, issued, left, resourceVars>>

\* The validity ran out before the client checked it: lost.
ValidityEnds(c) ==
    /\ Up(c) /\ Due(c, "Validity") /\ phase[c] = "Holding"
    /\ GiveUp(c, net, CancelTimer(timers[c], "Validity"))
    /\ UNCHANGED <<worldVars, history, masterVars, issued,
                   left, elapsed, resourceVars>>

\* The counter service's answer: the fencing token, for this hold.
ReceiveToken(src, c) ==
    LET m == Msg(src, c) IN
    /\ Deliverable(src, c)
    /\ phase[c] = "Holding" /\ m.type = "Token" /\ m.value = value[c] /\ token[c] = None
    /\ token' = [token EXCEPT ![c] = m.token]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, masterVars, issued,
                   phase, left, value, answered, yes, checked, acquired,
                   elapsed, resourceVars>>

\* The write is answered: release on every master, without waiting.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = ToMasters(Pop(src, c), c, [type |-> "Unlock", value |-> value[c]])
    /\ Forget(c)
    /\ Released(c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, masterVars, issued,
                   elapsed, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type = "Locked" /\ m.value = value[c]
    \/ phase[c] = "Holding" /\ m.type = "Token" /\ m.value = value[c] /\ token[c] = None
    \/ phase[c] = "Writing" /\ m.type \in {"Accepted", "Rejected"}

-----------------------------------------------------------------------------
(* The masters (master_receive, on_timer): each runs a command atomically; *)
(* a recovering master answers nothing.                                    *)

\* SET lock value NX PX ttl.
ReceiveLock(src, s) ==
    LET m == Msg(src, s) IN
    /\ Deliverable(src, s) /\ ~recovering[s] /\ m.type = "Lock"
    /\ IF key[s] = None
       THEN /\ key' = [key EXCEPT ![s] = m.value]
            /\ timers' = [timers EXCEPT ![s] = SetTimer(@, "KeyExpiry", Ttl)]
       ELSE UNCHANGED <<key, timers>>
    /\ net' = Sent(Pop(src, s), s, src,
                   [type |-> "Locked", value |-> m.value, ok |-> key[s] = None])
    /\ UNCHANGED <<worldVars, ghost, history, recovering, issued,
                   clientVars, resourceVars>>

\* Compare-and-delete: if GET lock == value then DEL lock. No answer.
ReceiveUnlock(src, s) ==
    /\ Deliverable(src, s) /\ ~recovering[s]
    /\ Msg(src, s).type = "Unlock" /\ key[s] = Msg(src, s).value
    /\ key' = [key EXCEPT ![s] = None]
    /\ timers' = [timers EXCEPT ![s] = CancelTimer(@, "KeyExpiry")]
    /\ net' = Pop(src, s)
    /\ UNCHANGED <<worldVars, ghost, history, recovering, issued,
                   clientVars, resourceVars>>

\* The key's TTL ran out on the master's clock.
KeyExpiry(s) ==
    /\ Up(s) /\ Due(s, "KeyExpiry")
    /\ key' = [key EXCEPT ![s] = None]
    /\ timers' = [timers EXCEPT ![s] = CancelTimer(@, "KeyExpiry")]
    /\ UNCHANGED <<worldVars, net, ghost, history, recovering, issued,
                   clientVars, resourceVars>>

\* A delayed restart ends: the master answers again.
Recovered(s) ==
    /\ Up(s) /\ Due(s, "Recovered")
    /\ recovering' = [recovering EXCEPT ![s] = FALSE]
    /\ timers' = [timers EXCEPT ![s] = CancelTimer(@, "Recovered")]
    /\ UNCHANGED <<worldVars, net, ghost, history, key, issued,
                   clientVars, resourceVars>>

MasterTakes(src, s, m) ==
    ~recovering[s] /\ (m.type = "Lock" \/ (m.type = "Unlock" /\ key[s] = m.value))

-----------------------------------------------------------------------------
(* The counter service (INCR) and the protected resource (resource.rs):    *)
(* with fencing on, it rejects any token lower than the highest accepted.  *)

ReceiveIncr(src) ==
    /\ Deliverable(src, Counter) /\ Msg(src, Counter).type = "Incr"
    /\ issued' = issued + 1
    /\ net' = Sent(Pop(src, Counter), Counter, src,
                   [type |-> "Token", value |-> Msg(src, Counter).value, token |-> issued + 1])
    /\ UNCHANGED <<worldVars, timers, ghost, history, masterVars,
                   clientVars, resourceVars>>

\* With Fencing = "lock-value" the tokens are random values, in no order
\* related to the acquisitions; values are drawn in increasing order, so the
\* resource orders them the other way round (a value drawn later is lower):
\* one possible outcome of random draws, the one that defeats fencing.
\* max_token is then the lowest value accepted, 0 before any.
Rejects(m) ==
    CASE Fencing = "counter" -> m.token < max_token
      [] Fencing = "lock-value" -> max_token # 0 /\ m.token > max_token
      [] OTHER -> FALSE

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ IF Rejects(m)
       THEN /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Rejected"])
            /\ UNCHANGED <<history, resourceVars>>
       ELSE /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"}
                          ELSE history
            /\ max_token' = IF Fencing = "lock-value" \/ m.token > max_token THEN m.token
                            ELSE max_token
            /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
            /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<worldVars, timers, ghost, masterVars, issued, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst \in MasterIds -> MasterTakes(src, dst, m)
      [] dst \in ClientIds -> ClientTakes(dst, m)
      [] dst = Resource    -> m.type = "Write"
      [] OTHER             -> m.type = "Incr"

\* A message the destination's handler ignores: the network still hands it
\* over, so it leaves the link.
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<worldVars, timers, ghost, history, masterVars, issued,
                   clientVars, resourceVars>>

\* (Deliverable first, though each disjunct checks it too: TLC evaluates the
\* fairness of Deliver on every state and every step, and most links are
\* empty.)
Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ dst \in ClientIds /\ (ReceiveLocked(src, dst) \/ ReceiveToken(src, dst) \/ Release(src, dst))
       \/ dst \in MasterIds /\ (ReceiveLock(src, dst) \/ ReceiveUnlock(src, dst))
       \/ dst = Counter /\ Fencing = "counter" /\ ReceiveIncr(src)
       \/ dst = Resource /\ ReceiveWrite(src)
       \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire): a running node's timer, run down to zero, fires; *)
(* the world removes it first. A timer whose handler does nothing in this  *)
(* state (Retry; Timeout or Validity in another phase) just goes away.     *)

Expires(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, t)]
    /\ UNCHANGED <<worldVars, net, ghost, history, masterVars, issued,
                   clientVars, resourceVars>>

Fire(n, t) ==
    CASE n \in ClientIds /\ t = "Timeout" /\ phase[n] = "Acquiring" -> TimedOut(n)
      [] n \in ClientIds /\ t = "Validity" /\ phase[n] = "Holding" -> ValidityEnds(n)
      [] n \in MasterIds /\ t = "KeyExpiry" -> KeyExpiry(n)
      [] n \in MasterIds /\ t = "Recovered" -> Recovered(n)
      [] OTHER -> Expires(n, t)

-----------------------------------------------------------------------------
(* The world (src/world/mod.rs): time, crashes, restarts, pauses, jumps.   *)

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
    \/ \E c \in ClientIds : elapsed[c] # None /\ elapsed[c] < WatchCap(spent)
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time. Every node's clock runs, a crashed one's too (an
\* fsynced key's expiry is an absolute deadline); stopwatches saturate at
\* WatchCap; a paused node's pause counts down; messages age, saturating at
\* MaxDelay. (TimeMatters = TRUE: TLC then evaluates TimeMatters once,
\* instead of generating the same successor once per witness of its
\* existentials, so its "states generated" is the Rust checker's
\* "generated" plus the initial state.)
Tick ==
    /\ ~TimeBlocked /\ TimeMatters = TRUE
    /\ timers' = [n \in Nodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ elapsed' = [c \in ClientIds |->
                    IF elapsed[c] = None THEN None
                    ELSE Clamp(elapsed[c] + 1, 0, WatchCap(spent))]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<spent, ghost, drawn, history, masterVars, issued,
                   phase, left, value, answered, yes, checked, token, acquired,
                   resourceVars>>

\* Fault: a node stops, loses its timers and stopwatches; messages to it are
\* dropped. An fsynced master keeps its key and the key's expiry; any other
\* master forgets both. A client keeps its state only for the restart.
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] =
                    IF n \in MasterIds /\ RestartMode = "fsync" THEN Keep(@, {"KeyExpiry"})
                    ELSE NoTimers]
    /\ elapsed' = IF n \in ClientIds THEN [elapsed EXCEPT ![n] = None] ELSE elapsed
    /\ IF n \in MasterIds /\ RestartMode # "fsync"
       THEN /\ key' = [key EXCEPT ![n] = None]
            /\ recovering' = [recovering EXCEPT ![n] = FALSE]
       ELSE UNCHANGED masterVars
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<ghost, drawn, history, issued, phase, left, value, answered, yes,
                   checked, token, acquired, resourceVars>>

\* A crashed node comes back with what it persisted: an fsynced master with
\* its key (gone if its expiry passed while down), a delayed one empty and
\* silent for one TTL, anything else afresh.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ CASE n \in MasterIds /\ RestartMode = "fsync" ->
              /\ key' = [key EXCEPT ![n] = IF Due(n, "KeyExpiry") THEN None ELSE @]
              /\ timers' = [timers EXCEPT ![n] =
                              IF IsSet(n, "KeyExpiry") /\ ~Due(n, "KeyExpiry")
                              THEN Keep(@, {"KeyExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<recovering, issued, clientVars, resourceVars>>
         [] n \in MasterIds /\ RestartMode = "delayed" ->
              /\ key' = [key EXCEPT ![n] = None]
              /\ recovering' = [recovering EXCEPT ![n] = TRUE]
              /\ timers' = [timers EXCEPT ![n] = [t \in {"Recovered"} |-> Ttl]]
              /\ UNCHANGED <<issued, clientVars, resourceVars>>
         [] n \in MasterIds ->
              /\ key' = [key EXCEPT ![n] = None]
              /\ recovering' = [recovering EXCEPT ![n] = FALSE]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<issued, clientVars, resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ value' = [value EXCEPT ![n] = 0]
              /\ answered' = [answered EXCEPT ![n] = {}]
              /\ yes' = [yes EXCEPT ![n] = {}]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ token' = [token EXCEPT ![n] = None]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ elapsed' = [elapsed EXCEPT ![n] = None]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<masterVars, issued, resourceVars>>
         [] n = Resource ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<masterVars, issued, clientVars>>
         [] OTHER ->
              /\ issued' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<masterVars, clientVars, resourceVars>>
    /\ UNCHANGED <<pause, net, spent, ghost, drawn, history>>

\* Actor::may_pause: with PauseWindow = "acquiring", a client only while it
\* is acquiring (antirez's case); any other node at any time.
MayPause(n) == n \in ClientIds /\ PauseWindow = "acquiring" => phase[n] = "Acquiring"

\* Fault: a running node stops taking steps for k ticks while its clock runs.
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses /\ MayPause(n)
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, net, ghost, drawn, history, masterVars, issued,
                   clientVars, resourceVars>>

\* Fault: a node's clock steps by `by` local ticks at once (an NTP step):
\* timers run down (or back up) and stopwatches move by as much, within
\* the cap that the jumps still left in the budget allow (the jump is
\* counted as spent first).
ClockJump(n, by) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.jumps < ClockJumps
    /\ spent' = [spent EXCEPT !.jumps = @ + 1]
    /\ timers' = [timers EXCEPT ![n] =
                    [t \in DOMAIN timers[n] |-> Clamp(timers[n][t] - by, 0, 255)]]
    /\ elapsed' = IF n \in ClientIds /\ elapsed[n] # None
                  THEN [elapsed EXCEPT ![n] = Clamp(elapsed[n] + by, 0, WatchCap(spent'))]
                  ELSE elapsed
    /\ UNCHANGED <<status, pause, net, ghost, drawn, history, masterVars, issued,
                   phase, left, value, answered, yes, checked, token, acquired,
                   resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |-> NoTimers]
    /\ elapsed = [c \in ClientIds |-> None]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0, jumps |-> 0]
    /\ ghost = 0
    /\ history = {}
    /\ drawn = 0
    /\ key = [s \in MasterIds |-> None]
    /\ recovering = [s \in MasterIds |-> FALSE]
    /\ issued = 0
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ value = [c \in ClientIds |-> 0]
    /\ answered = [c \in ClientIds |-> {}]
    /\ yes = [c \in ClientIds |-> {}]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ token = [c \in ClientIds |-> None]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
    \/ \E n \in Nodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in Nodes : Restart(n)
    \/ \E n \in Nodes : Crash(n)
    \/ \E n \in Nodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E n \in Nodes, by \in (-MaxJump..MaxJump) \ {0} : ClockJump(n, by)

\* DESIGN.md section 5: weak fairness for each message delivery (per link;
\* with FIFO links this is the same as per message), each client step,
\* each node's timers, Tick and Restart. Faults are never fair; the budget
\* makes them stop.
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A n \in MasterIds, t \in MasterTimers : WF_vars(Fire(n, t))
    /\ \A n \in ClientIds, t \in ClientTimers : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Ghost numbers, lock values (equal or *)
(* not, but drawn in increasing order), and with counter fencing the       *)
(* counter's value and the tokens drawn from it, are only ever compared,   *)
(* so Rust replaces each by its rank among the values of its sequence      *)
(* present in the state (0, "none", stays 0) after every action.           *)
(* RankedVars is the state so renumbered: two states with the same         *)
(* RankedVars have the same future up to renumbering, so the .cfg's VIEW   *)
(* RankedVars makes TLC count the states the Rust checker counts. With     *)
(* Fencing = "lock-value" the tokens are lock values, renumbered with them. *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup {w.ghost : w \in {m \in InFlight : m.type = "Write"}}

Counted == Fencing = "counter"
ValueTokens == Fencing = "lock-value"
TokenValues ==
    {0, issued, max_token} \cup {token[c] : c \in {d \in ClientIds : token[d] # None}}
      \cup {w.token : w \in {m \in InFlight : m.type \in {"Write", "Token"}}}

LockValues ==
    {0, drawn} \cup {value[c] : c \in ClientIds}
      \cup {key[s] : s \in {m \in MasterIds : key[m] # None}}
      \cup {m.value : m \in {x \in InFlight : x.type \in {"Lock", "Locked", "Unlock", "Incr", "Token"}}}
      \cup (IF ValueTokens
            THEN {max_token} \cup {token[c] : c \in {d \in ClientIds : token[d] # None}}
                   \cup {w.token : w \in {m \in InFlight : m.type = "Write"}}
            ELSE {})

\* Makes TLC evaluate v (see PrimaryReplica.tla): TLC 2.15 fingerprints the
\* view, so a variable that the view rewrites could otherwise stay a lazily
\* evaluated function, which TLC fails to write to its disk queue.
Concrete(v) == v = v

RankedVars ==
    LET G == GhostValues
        T == TokenValues
        V == LockValues
        rg(v) == Rank(v, G)
        rv(v) == Rank(v, V)
        rt(v) == CASE v = None -> v
                   [] Counted -> Rank(v, T)
                   [] ValueTokens -> Rank(v, V)
                   [] OTHER -> v
        msg(m) == CASE m.type = "Write" -> [m EXCEPT !.ghost = rg(@), !.token = rt(@)]
                    [] m.type = "Token" -> [m EXCEPT !.value = rv(@), !.token = Rank(@, T)]
                    [] m.type \in {"Lock", "Locked", "Unlock", "Incr"} -> [m EXCEPT !.value = rv(@)]
                    [] OTHER -> m
    IN  IF ~(Concrete(net) /\ Concrete(key) /\ Concrete(value) /\ Concrete(token)
             /\ Concrete(acquired)) THEN <<>> ELSE
        <<status, pause, timers, elapsed,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), history, rv(drawn),
          [s \in MasterIds |-> IF key[s] = None THEN None ELSE rv(key[s])],
          recovering, rt(issued), phase, left, [c \in ClientIds |-> rv(value[c])],
          answered, yes, checked, [c \in ClientIds |-> rt(token[c])],
          [c \in ClientIds |-> rg(acquired[c])], rt(max_token), rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ elapsed \in [ClientIds -> 0..WatchCap(spent) \cup {None}]
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses, jumps : 0..ClockJumps]
    /\ history \subseteq {"StaleWrite"}
    /\ recovering \in [MasterIds -> BOOLEAN]
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Done"}]
    /\ drawn \in Nat
    /\ key \in [MasterIds -> Nat \cup {None}]
    /\ value \in [ClientIds -> Nat]
    /\ answered \in [ClientIds -> SUBSET MasterIds]
    /\ yes \in [ClientIds -> SUBSET MasterIds]
    /\ \A c \in ClientIds : yes[c] \subseteq answered[c]
    /\ checked \in [ClientIds -> BOOLEAN]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired: the
\* compare-and-delete raises no flag, so this holds by construction.
NoForeignRelease == "ForeignRelease" \notin history

\* Client c is granted the lock in this step: it stops wanting it
\* (properties.rs's acquired). A majority whose Check fails is no grant.
Granted(c) == c \in Wanting /\ c \notin Wanting'

\* Once faults stop, whenever a running client wants the lock, some client
\* eventually acquires it.
DeadlockFreedom ==
    []<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars

\* Once faults stop, every running client that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
