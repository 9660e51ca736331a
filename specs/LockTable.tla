------------------------------ MODULE LockTable ------------------------------
(***************************************************************************)
(* lock-table: a SQL table locks(name PRIMARY KEY, owner, expires_at). A   *)
(* client takes the lock by inserting the row with a fresh random value in *)
(* owner (the unique key makes a second insert fail) and releases it with  *)
(* DELETE ... WHERE owner = <that value>. With the expiry column, the      *)
(* insert first removes a row whose expires_at has passed on the           *)
(* database's clock (expiry is checked on insert, never by a background    *)
(* job). Every statement has a timeout on the client's clock: an INSERT    *)
(* that times out counts as refused, a DELETE as done; answers carry the   *)
(* attempt's value, so an answer to an earlier statement is ignored. A     *)
(* "naive" client holds the lock from the insert's answer until it has     *)
(* written and released; a "validity" client (with expiry) measures the   *)
(* insert's round trip on a stopwatch, computes validity = Ttl - elapsed - *)
(* Drift, and checks that more than Margin is left before it writes.       *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/lock_table.rs (with              *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* Acquire, Check, Write (client steps), the client's handlers, the        *)
(* database's handlers, the resource's handler, the timers, then the       *)
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
(*   drawn           WorldState::value, the last lock value drawn          *)
(*   row             Database                                              *)
(*   phase, left     Client::script; acquired is Client::ghost (renamed:   *)
(*                   ghost is the world's); value, checked: Client         *)
(*   elapsed         the client's stopwatch Elapsed in Node::watches       *)
(*   max_token, max_ghost   Resource (tokens are always 0 here)            *)
(* Ghost numbers and lock values only grow: Rust renumbers them by rank    *)
(* after every action (src/world/ranks.rs); here RankedVars is that        *)
(* renumbered state, and the .cfg's VIEW makes TLC count states by it.     *)
(* Not modelled, because no scenario of this family uses them:             *)
(* clock drift and jumps (Node::skew stays                                 *)
(* 0), partitions (cut stays empty), loss, duplication (Envelope::copied   *)
(* stays false), reordering, and recovery = "none" (Restart is always fair *)
(* here).                                                                  *)
(*                                                                         *)
(* Node ids as in Rust: the database is 0, clients 1..Clients, the         *)
(* resource Clients + 1.                                                   *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    Clients,       \* [system] clients
    Expiry,        \* [system] expiry: rows carry expires_at, checked on insert
    Ttl,           \* [system] ttl: row lifetime in the database's ticks
    Timeout,       \* [system] timeout: ticks a client waits for an answer
    Client,        \* [system] client: "naive" or "validity"
    Drift,         \* [system] drift: validity client's clock-drift allowance
    Margin,        \* [system] margin: validity a validity client insists on
    Retry,         \* [system] retry: ticks a refused client waits
    PauseWindow,   \* [system] pause_window: "any", or "acquiring" only
    Acquisitions,  \* [bounds] acquisitions per client; 0 = forever
    MaxDelay,      \* [faults] max_delay, or a model value (the .cfg line
                   \* MaxDelay = Async) when omitted: an asynchronous network
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses
    MaxPause,      \* [faults] max_pause
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    None           \* a model value: no row

ASSUME /\ Clients \in 1..4 /\ Expiry \in BOOLEAN /\ Ttl \in 1..30
       /\ Timeout \in 1..30 /\ Client \in {"naive", "validity"}
       /\ (Client = "validity" => Expiry) /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ PauseWindow \in {"any", "acquiring"}
       /\ Retry \in 1..10 /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3 /\ MaxPause \in 0..30
       /\ Targets \in {"all", "clients", "servers"}

DB == 0
ClientIds == 1..Clients
Resource == Clients + 1
Nodes == 0..Clients + 1
Links == Nodes \X Nodes
TimerNames == {"RowExpiry", "Timeout", "Validity", "Retry"}
Validity == Client = "validity"

\* Faults::targets: which nodes crashes and pauses may hit (the resource is
\* an observer, never faulted).
Targeted(n) == \/ Targets = "all" /\ n # Resource
               \/ Targets = "clients" /\ n \in ClientIds
               \/ Targets = "servers" /\ n = DB

\* Messages age and must arrive within MaxDelay ticks (Faults::max_delay).
Bounded == MaxDelay \in Nat

VARIABLES
    status,     \* status[n] \in {"Up", "Paused", "Down"}
    pause,      \* ticks of pause left; 0 unless status[n] = "Paused"
    timers,     \* timers[n]: set timer names -> local ticks left
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    drawn,      \* the last lock value drawn (Out::fresh_value)
    history,    \* ghost flags raised: "ForeignRelease", "StaleWrite"
    row,        \* the lock's row: None or [owner, expired, holder, ghost]
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    value,      \* value[c]: the current attempt's lock value (0: none)
    checked,    \* checked[c]: a validity client found time left at its Check
    elapsed,    \* elapsed[c]: the stopwatch (None, or 0..Ttl, saturating)
    acquired,   \* acquired[c]: the ghost number of c's insert
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent>>
clientVars == <<phase, left, value, checked, elapsed, acquired>>
resourceVars == <<max_token, max_ghost>>
vars == <<status, pause, timers, net, spent, ghost, drawn, history,
          row, phase, left, value, checked, elapsed, acquired, max_token, max_ghost>>

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

ResourceMsgs == {"Write", "Accepted", "Rejected"}

-----------------------------------------------------------------------------
(* The client's script (client.rs) and the lock view (properties.rs,       *)
(* lock_table.rs's lock_view).                                             *)

ValidityLeft(c) == IsSet(c, "Validity") /\ timers[c]["Validity"] > 0

\* A naive client holds the lock from the insert's answer until it has
\* written and released. A validity client holds it while its validity
\* timer is above zero and, once it has checked that timer, until it has
\* written and released; until it has checked, it still wants the lock.
Holds(c) == \/ phase[c] = "Writing"
            \/ phase[c] = "Holding" /\ (~Validity \/ checked[c] \/ ValidityLeft(c))
Wants(c) == \/ phase[c] \in {"Want", "Acquiring"}
            \/ Validity /\ phase[c] = "Holding" /\ ~checked[c]

\* The lock view counts running (not crashed) clients only.
Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Script::released: the release was answered (or timed out).
Released(c) ==
    IF Acquisitions = 0
    THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
         /\ UNCHANGED left
    ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
         /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]

\* Client::forget: the attempt or the hold is over.
Forget(c) ==
    /\ value' = [value EXCEPT ![c] = 0]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ acquired' = [acquired EXCEPT ![c] = 0]

StopWatch(c) == elapsed' = [elapsed EXCEPT ![c] = None]

Delete(c) == [type |-> "Delete", value |-> value[c]]

\* refused: the insert failed or timed out; want the lock again after the
\* back-off. Timers f (the handler's, without the timer that fired).
Refused(c, f) ==
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(CancelTimer(f, "Timeout"), "Retry", Retry)]
    /\ StopWatch(c)
    /\ Forget(c)

\* give_up (validity client): the row was won with too little validity, or
\* the validity ran out before the check. DELETE the row without waiting,
\* and retry later. q: the network so far; f: the timers so far.
GiveUp(c, q, f) ==
    /\ net' = Sent(q, c, DB, Delete(c))
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(CancelTimer(f, "Validity"), "Retry", Retry)]
    /\ Forget(c)

-----------------------------------------------------------------------------
(* Client steps (Actor::steps and on_step). Check and Write are urgent:    *)
(* time does not pass while a running client has one. Acquire is not       *)
(* (Actor::urgent): a client comes to want the lock, and retries after its *)
(* back-off, at any moment, any number of ticks later, but not never (it   *)
(* is weakly fair).                                                        *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanCheck(c) == Validity /\ phase[c] = "Holding" /\ ~checked[c]
CanWrite(c) == phase[c] = "Holding" /\ (~Validity \/ checked[c])
HasUrgentStep(n) == n \in ClientIds /\ (CanCheck(n) \/ CanWrite(n))

\* Acquire: INSERT the row with a fresh value, with a timeout (and, for a
\* validity client, the stopwatch started: T1).
Acquire(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ CanAcquire(c)
    /\ drawn' = v
    /\ value' = [value EXCEPT ![c] = v]
    /\ elapsed' = IF Validity THEN [elapsed EXCEPT ![c] = 0] ELSE elapsed
    /\ net' = Sent(net, c, DB, [type |-> "Insert", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<worldVars, ghost, history, row, left, checked, acquired, resourceVars>>

\* Check: is there more than Margin of validity left? Only then write.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, phase, value, acquired>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<worldVars, ghost, drawn, history, row, left, elapsed, resourceVars>>

\* Write: the critical section's write (no fencing token: 0).
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, Resource, [type |-> "Write", token |-> 0, ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, row,
                   left, value, checked, elapsed, acquired, resourceVars>>

-----------------------------------------------------------------------------
(* The client's handlers (client_receive): an answer counts only in the    *)
(* phase that waits for it and with the current attempt's value.           *)

Current(src, c, type) ==
    /\ Deliverable(src, c)
    /\ Msg(src, c).type = type /\ Msg(src, c).value = value[c]

\* The insert committed. A validity client reads its stopwatch (T2):
\* validity = Ttl - elapsed - Drift; with none left it gives up.
ReceiveInserted(src, c) ==
    LET m == Msg(src, c)
        f == CancelTimer(timers[c], "Timeout")
        validity == Ttl - (IF elapsed[c] = None THEN Ttl ELSE elapsed[c]) - Drift
    IN
    /\ phase[c] = "Acquiring" /\ Current(src, c, "Inserted")
    /\ IF ~Validity
       THEN /\ phase' = [phase EXCEPT ![c] = "Holding"]
            /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
            /\ timers' = [timers EXCEPT ![c] = f]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<value, checked, elapsed>>
       ELSE /\ StopWatch(c)
            /\ IF validity <= 0
               THEN GiveUp(c, Pop(src, c), f)
               ELSE /\ phase' = [phase EXCEPT ![c] = "Holding"]
                    /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
                    /\ timers' = [timers EXCEPT ![c] = SetTimer(f, "Validity", validity)]
                    /\ net' = Pop(src, c)
                    /\ UNCHANGED <<value, checked>>
    /\ UNCHANGED <<worldVars, ghost, drawn, history, row, left, resourceVars>>

ReceiveDuplicate(src, c) ==
    /\ phase[c] = "Acquiring" /\ Current(src, c, "Duplicate")
    /\ Refused(c, timers[c])
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, drawn, history, row, left, resourceVars>>

\* Release: the write is answered, so the critical section is over: DELETE
\* the row, with a timeout.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in ResourceMsgs
    /\ net' = Sent(Pop(src, c), c, DB, Delete(c))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<worldVars, ghost, drawn, history, row,
                   left, value, checked, elapsed, acquired, resourceVars>>

ReceiveDeleted(src, c) ==
    /\ phase[c] = "Releasing" /\ Current(src, c, "Deleted")
    /\ Released(c)
    /\ Forget(c)
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, drawn, history, row, elapsed, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type \in {"Inserted", "Duplicate"} /\ m.value = value[c]
    \/ phase[c] = "Writing" /\ m.type \in ResourceMsgs
    \/ phase[c] = "Releasing" /\ m.type = "Deleted" /\ m.value = value[c]

-----------------------------------------------------------------------------
(* The database runs each statement as one transaction                     *)
(* (database_receive). Each handler delivers the head of the link src ->   *)
(* database.                                                               *)

Reply(src, m) == net' = Sent(Pop(src, DB), DB, src, m)

\* INSERT INTO locks VALUES ('lock', value, now() + ttl), after
\* DELETE ... WHERE expires_at < now() when rows expire.
ReceiveInsert(src) ==
    LET v == Msg(src, DB).value IN
    /\ Deliverable(src, DB) /\ Msg(src, DB).type = "Insert"
    /\ IF row # None /\ ~(Expiry /\ row.expired)
       THEN /\ Reply(src, [type |-> "Duplicate", value |-> v])
            /\ UNCHANGED <<timers, ghost, row>>
       ELSE LET g == ghost + 1 IN
            /\ ghost' = g
            /\ row' = [owner |-> v, expired |-> FALSE, holder |-> src, ghost |-> g]
            /\ timers' = IF Expiry THEN [timers EXCEPT ![DB] = SetTimer(@, "RowExpiry", Ttl)]
                         ELSE timers
            /\ Reply(src, [type |-> "Inserted", value |-> v, ghost |-> g])
    /\ UNCHANGED <<worldVars, drawn, history, clientVars, resourceVars>>

\* DELETE FROM locks WHERE name = 'lock' AND owner = value. The holder is
\* ghost information: a delete of a row another client inserted would be a
\* foreign release.
ReceiveDelete(src) ==
    LET v == Msg(src, DB).value IN
    /\ Deliverable(src, DB) /\ Msg(src, DB).type = "Delete"
    /\ IF row # None /\ row.owner = v
       THEN /\ row' = None
            /\ timers' = [timers EXCEPT ![DB] = CancelTimer(@, "RowExpiry")]
            /\ history' = IF row.holder # src THEN history \cup {"ForeignRelease"} ELSE history
       ELSE UNCHANGED <<row, timers, history>>
    /\ Reply(src, [type |-> "Deleted", value |-> v])
    /\ UNCHANGED <<worldVars, ghost, drawn, clientVars, resourceVars>>

DatabaseStatements == {"Insert", "Delete"}

-----------------------------------------------------------------------------
(* The protected resource (resource.rs), without fencing.                  *)

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Sent(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, row, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst = DB       -> m.type \in DatabaseStatements
      [] dst = Resource -> m.type = "Write"
      [] OTHER          -> ClientTakes(dst, m)

\* A message the destination's handler ignores: the network still hands it
\* over, so it leaves the link.
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<worldVars, timers, ghost, drawn, history, row, clientVars, resourceVars>>

Deliver(src, dst) ==
    \/ dst = DB /\ (ReceiveInsert(src) \/ ReceiveDelete(src))
    \/ /\ dst \in ClientIds
       /\ \/ ReceiveInserted(src, dst) \/ ReceiveDuplicate(src, dst)
          \/ Release(src, dst) \/ ReceiveDeleted(src, dst)
    \/ dst = Resource /\ ReceiveWrite(src)
    \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire, on_timer): a running node's timer, run down to    *)
(* zero, fires; the world removes it first.                                *)

\* TimedOut: no answer in time. An INSERT counts as refused, a DELETE as
\* done (the row, if it is still there, expires).
TimedOut(c, f) ==
    CASE phase[c] = "Acquiring" ->
              /\ Refused(c, f)
              /\ UNCHANGED left
      [] phase[c] = "Releasing" ->
              /\ Released(c)
              /\ Forget(c)
              /\ timers' = [timers EXCEPT ![c] = f]
              /\ UNCHANGED elapsed
      [] OTHER ->
              /\ timers' = [timers EXCEPT ![c] = f]
              /\ UNCHANGED clientVars

\* ValidityEnds: the validity ran out before the client checked it.
ValidityEnds(c, f) ==
    IF phase[c] = "Holding"
    THEN /\ GiveUp(c, net, f)
         /\ UNCHANGED <<left, elapsed>>
    ELSE /\ timers' = [timers EXCEPT ![c] = f]
         /\ UNCHANGED <<net, clientVars>>

Fire(n, t) ==
    LET f == CancelTimer(timers[n], t) IN
    /\ Up(n) /\ Due(n, t)
    /\ CASE t = "Timeout" ->
              /\ TimedOut(n, f)
              /\ UNCHANGED <<net, row>>
         [] t = "Validity" ->
              /\ ValidityEnds(n, f)
              /\ UNCHANGED row
         \* RowExpiry: expires_at passes on the database's clock.
         [] t = "RowExpiry" ->
              /\ timers' = [timers EXCEPT ![n] = f]
              /\ row' = IF row # None THEN [row EXCEPT !.expired = TRUE] ELSE row
              /\ UNCHANGED <<net, clientVars>>
         \* Retry: the client may insert again.
         [] OTHER ->
              /\ timers' = [timers EXCEPT ![n] = f]
              /\ UNCHANGED <<net, row, clientVars>>
    /\ UNCHANGED <<worldVars, ghost, drawn, history, resourceVars>>

-----------------------------------------------------------------------------
(* The world (src/world/mod.rs): time, crashes, restarts, pauses.          *)

\* World::time_blocked: time cannot pass a due timer or an enabled urgent
\* step of a running node, nor a message to a running node in flight
\* MaxDelay ticks.
TimeBlocked ==
    \/ \E n \in Nodes : Up(n) /\ (HasUrgentStep(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* World::time_matters: a tick must change something. A stopwatch
\* saturates at Ttl (Actor::watch_cap): any elapsed time of a TTL or more
\* leaves no validity.
TimeMatters ==
    \/ \E n \in Nodes : status[n] = "Paused" \/ \E t \in DOMAIN timers[n] : timers[n][t] > 0
    \/ \E c \in ClientIds : elapsed[c] # None /\ elapsed[c] < Ttl
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time. Every node's clock runs, a crashed one's too (a
\* stored expires_at is an absolute deadline), a paused one's too (its
\* timers run down and its stopwatch counts, but nothing fires until it
\* resumes); a pause counts down; messages age, saturating at MaxDelay.
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
    /\ UNCHANGED <<spent, ghost, drawn, history, row, phase, left, value, checked,
                   acquired, resourceVars>>

\* Fault: a node stops and loses its timers and stopwatch; messages to it
\* are dropped. A database is durable: committed rows survive, and
\* expires_at keeps running while it is down. A client keeps its state only
\* for the restart.
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = IF n = DB THEN Keep(@, {"RowExpiry"}) ELSE NoTimers]
    /\ elapsed' = IF n \in ClientIds THEN [elapsed EXCEPT ![n] = None] ELSE elapsed
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<ghost, drawn, history, row, phase, left, value, checked,
                   acquired, resourceVars>>

\* A crashed node comes back with what it persisted: the database with its
\* committed row (expired if expires_at passed while down), anything else
\* afresh.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ CASE n = DB ->
              /\ row' = IF row # None /\ Due(n, "RowExpiry")
                        THEN [row EXCEPT !.expired = TRUE] ELSE row
              /\ timers' = [timers EXCEPT ![n] =
                              IF row # None /\ IsSet(n, "RowExpiry") /\ ~Due(n, "RowExpiry")
                              THEN Keep(@, {"RowExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<clientVars, resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ value' = [value EXCEPT ![n] = 0]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ elapsed' = [elapsed EXCEPT ![n] = None]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<row, resourceVars>>
         [] OTHER ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<row, clientVars>>
    /\ UNCHANGED <<pause, net, spent, ghost, drawn, history>>

\* Fault: a running node stops taking steps for k ticks while its clock
\* runs. With PauseWindow = "acquiring", a client only while it waits for
\* its insert's answer (Actor::may_pause).
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses
    /\ PauseWindow = "any" \/ n \notin ClientIds \/ phase[n] = "Acquiring"
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, net, ghost, drawn, history, row, clientVars, resourceVars>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |-> NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0]
    /\ ghost = 0
    /\ drawn = 0
    /\ history = {}
    /\ row = None
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ value = [c \in ClientIds |-> 0]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ elapsed = [c \in ClientIds |-> None]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
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
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A n \in Nodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Ghost numbers and lock values are     *)
(* only ever compared (lock values for equality only), so Rust replaces    *)
(* each by its rank among the values of its kind present in the state and  *)
(* the world's counter (0, "none", stays 0) after every action. RankedVars *)
(* is the state so renumbered: two states with the same RankedVars have    *)
(* the same future up to renumbering, so the .cfg's VIEW RankedVars makes  *)
(* TLC count the states the Rust checker counts. Tokens are always 0 here  *)
(* (no fencing): there is nothing to renumber in them.                     *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}
Ghosted == {"Inserted", "Write"}
Valued == {"Insert", "Delete", "Inserted", "Duplicate", "Deleted"}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup (IF row = None THEN {} ELSE {row.ghost})
      \cup {m.ghost : m \in {x \in InFlight : x.type \in Ghosted}}

LockValues ==
    {0, drawn} \cup {value[c] : c \in ClientIds}
      \cup (IF row = None THEN {} ELSE {row.owner})
      \cup {m.value : m \in {x \in InFlight : x.type \in Valued}}

RankedVars ==
    LET G == GhostValues
        V == LockValues
        rg(g) == Rank(g, G)
        rv(v) == Rank(v, V)
        withGhost(m) == IF m.type \in Ghosted THEN [m EXCEPT !.ghost = rg(@)] ELSE m
        msg(m) == IF m.type \in Valued THEN [withGhost(m) EXCEPT !.value = rv(@)] ELSE withGhost(m)
    IN  <<status, pause, timers,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), rv(drawn), history,
          IF row = None THEN None ELSE [row EXCEPT !.ghost = rg(@), !.owner = rv(@)],
          phase, left, [c \in ClientIds |-> rv(value[c])], checked, elapsed,
          [c \in ClientIds |-> rg(acquired[c])], max_token, rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses]
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ row = None \/ (row.holder \in ClientIds /\ row.expired \in BOOLEAN /\ row.owner \in Nat)
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ value \in [ClientIds -> Nat]
    /\ checked \in [ClientIds -> BOOLEAN]
    /\ elapsed \in [ClientIds -> {None} \cup 0..Ttl]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired (DELETE
\* compares the row's owner with the attempt's value, so this flag is never
\* raised here).
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
