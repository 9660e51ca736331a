------------------------------ MODULE LockTable ------------------------------
(***************************************************************************)
(* lock-table: a lock as a row of a SQL table with a unique key, the usual *)
(* pattern of a database used as a lock service:                           *)
(*                                                                         *)
(*   CREATE TABLE locks (name TEXT PRIMARY KEY, owner TEXT,                *)
(*                       expires_at TIMESTAMP);                            *)
(*   acquire:  INSERT INTO locks VALUES ('lock', :value, now() + :ttl)     *)
(*             -- fails with a unique-key violation if the row exists      *)
(*   release:  DELETE FROM locks WHERE name = 'lock' AND owner = :value    *)
(*                                                                         *)
(* (as in, e.g., the PostgreSQL documentation's unique constraints, section*)
(* 5.5.3; lock libraries such as ShedLock keep the same row with an       *)
(* expiry column). A client takes                                          *)
(* the lock by inserting the row with a fresh random value as owner (the   *)
(* unique key makes a second insert fail with Duplicate) and releases it   *)
(* with the DELETE that compares owner with that value. With the expiry    *)
(* column (Expiry), the INSERT first removes a row whose expires_at has    *)
(* passed on the database's clock (expiry is checked on insert, never by a *)
(* background job). Every statement has a Timeout on the client's clock:  *)
(* an INSERT that times out counts as refused, a DELETE as done; answers   *)
(* carry the attempt's value, so an answer to an earlier statement is      *)
(* ignored. A "naive" client holds the lock from the insert's answer until *)
(* it has written and released; a "validity" client (with expiry) measures *)
(* the insert's round trip on a stopwatch, computes validity = Ttl -       *)
(* elapsed - Drift, and checks that more than Margin is left before it     *)
(* writes (Kleppmann, "How to do distributed locking", 2016: a pause      *)
(* between the check and the write still breaks it).                      *)
(*                                                                         *)
(* Vocabulary. Statements: Insert, Delete. Answers: Inserted (INSERT 0 1), *)
(* Duplicate (the unique-key violation), Deleted (DELETE n). Timers:       *)
(* RowExpiry (expires_at passing on the database's clock), Timeout,        *)
(* Validity, Retry.                                                        *)
(*                                                                         *)
(* The world (time, network, faults, fairness) is World.tla's; this module *)
(* supplies the handlers. The Rust module src/algorithms/lock_table/       *)
(* follows it action for action (with src/algorithms/common/client.rs and  *)
(* resource.rs): for the constants of a scenario TLC must find exactly as  *)
(* many distinct states as the Rust checker finds unique states. Variables:*)
(*   row             Database: None or [owner, expired, holder, ghost]     *)
(*   phase, left     Client::script; acquired is Client::ghost (renamed:   *)
(*                   ghost is the world's); value, checked: Client         *)
(*   max_token, max_ghost   Resource (tokens are always 0 here)            *)
(* A validity client's stopwatch is the world's watches[c]["Elapsed"].     *)
(*                                                                         *)
(* Node ids as in Rust: the database is 0, clients 1..Clients, the         *)
(* resource Clients + 1.                                                   *)
(***************************************************************************)
EXTENDS World

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
    Acquisitions   \* [bounds] acquisitions per client; 0 = forever

ASSUME /\ Clients \in 1..4 /\ Expiry \in BOOLEAN /\ Ttl \in 1..30
       /\ Timeout \in 1..30 /\ Client \in {"naive", "validity"}
       /\ (Client = "validity" => Expiry) /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ PauseWindow \in {"any", "acquiring"}
       /\ Retry \in 1..10 /\ Acquisitions \in 0..5

DB == 0
ClientIds == 1..Clients
Resource == Clients + 1
AllNodes == 0..Clients + 1
Links == AllNodes \X AllNodes
TimerNames == {"RowExpiry", "Timeout", "Validity", "Retry"}
StepNames == {"Acquire", "Check", "Write"}
Validity == Client = "validity"

VARIABLES
    row,        \* the lock's row: None or [owner, expired, holder, ghost]
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    value,      \* value[c]: the current attempt's lock value (0: none)
    checked,    \* checked[c]: a validity client found time left at its Check
    acquired,   \* acquired[c]: the ghost number of c's insert
    max_token,  \* the resource's highest accepted token
    max_ghost   \* ghost: the latest acquisition a write was accepted under

\* The world's variables no handler changes.
fixed == <<status, pause, skew, cut, spent>>
clientVars == <<phase, left, value, checked, watches, acquired>>
resourceVars == <<max_token, max_ghost>>
algVars == <<row, phase, left, value, checked, acquired, max_token, max_ghost>>
vars == <<worldVars, algVars>>

ResourceMsgs == {"Write", "Accepted", "Rejected"}

-----------------------------------------------------------------------------
(* The client's script (common/client.rs) and the lock view (properties.rs, *)
(* src/algorithms/lock_table/mod.rs's lock_view).                          *)

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

\* The stopwatch (T1) stops.
StopElapsed(c) == watches' = [watches EXCEPT ![c] = StopWatch(@, "Elapsed")]

Delete(c) == [type |-> "Delete", value |-> value[c]]

\* refused: the insert failed or timed out; want the lock again after the
\* back-off. Timers f (the handler's, without the timer that fired).
Refused(c, f) ==
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(CancelTimer(f, "Timeout"), "Retry", Retry)]
    /\ StopElapsed(c)
    /\ Forget(c)

\* give_up (validity client): the row was won with too little validity, or
\* the validity ran out before the check. DELETE the row without waiting,
\* and retry later. q: the network so far; f: the timers so far.
GiveUp(c, q, f) ==
    /\ net' = Send(q, c, DB, Delete(c))
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
    /\ watches' = IF Validity THEN [watches EXCEPT ![c] = StartWatch(@, "Elapsed")] ELSE watches
    /\ net' = Send(net, c, DB, [type |-> "Insert", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, row, left, checked, acquired, resourceVars>>

\* Check: is there more than Margin of validity left? Only then write.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, phase, value, acquired>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, row, left, watches, resourceVars>>

\* Write: the critical section's write (no fencing token: 0).
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Send(net, c, Resource, [type |-> "Write", token |-> 0, ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, row,
                   left, value, checked, watches, acquired, resourceVars>>

-----------------------------------------------------------------------------
(* The client's handlers (client_receive): an answer counts only in the    *)
(* phase that waits for it and with the current attempt's value.           *)

Current(src, c, type) ==
    /\ Deliverable(src, c)
    /\ Msg(src, c).type = type /\ Msg(src, c).value = value[c]

\* The insert committed. A validity client reads its stopwatch (T2):
\* validity = Ttl - watches - Drift; with none left it gives up.
ReceiveInserted(src, c) ==
    LET m == Msg(src, c)
        f == CancelTimer(timers[c], "Timeout")
        validity == Ttl - (IF Running(c, "Elapsed") THEN watches[c]["Elapsed"] ELSE Ttl) - Drift
    IN
    /\ phase[c] = "Acquiring" /\ Current(src, c, "Inserted")
    /\ IF ~Validity
       THEN /\ phase' = [phase EXCEPT ![c] = "Holding"]
            /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
            /\ timers' = [timers EXCEPT ![c] = f]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<value, checked, watches>>
       ELSE /\ StopElapsed(c)
            /\ IF validity <= 0
               THEN GiveUp(c, Pop(src, c), f)
               ELSE /\ phase' = [phase EXCEPT ![c] = "Holding"]
                    /\ acquired' = [acquired EXCEPT ![c] = m.ghost]
                    /\ timers' = [timers EXCEPT ![c] = SetTimer(f, "Validity", validity)]
                    /\ net' = Pop(src, c)
                    /\ UNCHANGED <<value, checked>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, row, left, resourceVars>>

ReceiveDuplicate(src, c) ==
    /\ phase[c] = "Acquiring" /\ Current(src, c, "Duplicate")
    /\ Refused(c, timers[c])
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, row, left, resourceVars>>

\* Release: the write is answered, so the critical section is over: DELETE
\* the row, with a timeout.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in ResourceMsgs
    /\ net' = Send(Pop(src, c), c, DB, Delete(c))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<fixed, ghost, drawn, history, row,
                   left, value, checked, watches, acquired, resourceVars>>

ReceiveDeleted(src, c) ==
    /\ phase[c] = "Releasing" /\ Current(src, c, "Deleted")
    /\ Released(c)
    /\ Forget(c)
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, row, watches, resourceVars>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(c, m) ==
    \/ phase[c] = "Acquiring" /\ m.type \in {"Inserted", "Duplicate"} /\ m.value = value[c]
    \/ phase[c] = "Writing" /\ m.type \in ResourceMsgs
    \/ phase[c] = "Releasing" /\ m.type = "Deleted" /\ m.value = value[c]

-----------------------------------------------------------------------------
(* The database runs each statement as one transaction                     *)
(* (database_receive). Each handler delivers the head of the link src ->   *)
(* database.                                                               *)

Reply(src, m) == net' = Send(Pop(src, DB), DB, src, m)

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
    /\ UNCHANGED <<fixed, drawn, history, clientVars, resourceVars>>

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
    /\ UNCHANGED <<fixed, ghost, drawn, clientVars, resourceVars>>

DatabaseStatements == {"Insert", "Delete"}

-----------------------------------------------------------------------------
(* The protected resource (resource.rs), without fencing.                  *)

ReceiveWrite(src) ==
    LET m == Msg(src, Resource) IN
    /\ Deliverable(src, Resource) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_token' = IF m.token > max_token THEN m.token ELSE max_token
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ net' = Send(Pop(src, Resource), Resource, src, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, timers, ghost, drawn, row, clientVars>>

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
    /\ UNCHANGED <<fixed, timers, ghost, drawn, history, row, clientVars, resourceVars>>

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
              /\ UNCHANGED watches
      [] OTHER ->
              /\ timers' = [timers EXCEPT ![c] = f]
              /\ UNCHANGED clientVars

\* ValidityEnds: the validity ran out before the client checked it.
ValidityEnds(c, f) ==
    IF phase[c] = "Holding"
    THEN /\ GiveUp(c, net, f)
         /\ UNCHANGED <<left, watches>>
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
    /\ UNCHANGED <<fixed, ghost, drawn, history, resourceVars>>


\* The world's view of the nodes (World.tla's hooks).
Role(n) == CASE n = DB -> "server" [] n = Resource -> "observer" [] OTHER -> "client"
\* Any elapsed time of a TTL or more leaves no validity.
Cap(n, w) == Ttl
\* Actor::may_pause: with PauseWindow = "acquiring", a client only while it
\* waits for its insert's answer.
MayPause(n) == PauseWindow = "any" \/ n \notin ClientIds \/ phase[n] = "Acquiring"

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

\* Fault: a node stops. A database is durable: committed rows survive, and
\* expires_at keeps running while it is down. A client keeps its state only
\* for the restart.
Crash(n) ==
    /\ WorldCrash(n, IF n = DB THEN Keep(timers[n], {"RowExpiry"}) ELSE NoTimers, Role)
    /\ UNCHANGED algVars

\* A crashed node comes back with what it persisted: the database with its
\* committed row (expired if expires_at passed while down), anything else
\* afresh.
Restart(n) ==
    /\ WorldRestart(n)
    /\ CASE n = DB ->
              /\ row' = IF row # None /\ Due(n, "RowExpiry")
                        THEN [row EXCEPT !.expired = TRUE] ELSE row
              /\ timers' = [timers EXCEPT ![n] =
                              IF row # None /\ IsSet(n, "RowExpiry") /\ ~Due(n, "RowExpiry")
                              THEN Keep(@, {"RowExpiry"}) ELSE NoTimers]
              /\ UNCHANGED <<phase, left, value, checked, acquired, resourceVars>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ value' = [value EXCEPT ![n] = 0]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<row, resourceVars>>
         [] OTHER ->
              /\ max_token' = 0 /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<row, phase, left, value, checked, acquired>>
    /\ UNCHANGED <<net, ghost, drawn, history>>

-----------------------------------------------------------------------------

Init ==
    /\ WorldInit(AllNodes, Links)
    /\ row = None
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ value = [c \in ClientIds |-> 0]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_token = 0
    /\ max_ghost = 0

\* A client's step by name (for fairness).
Step(n, s) ==
    /\ n \in ClientIds
    /\ CASE s = "Acquire" -> Acquire(n)
         [] s = "Check" -> Check(n)
         [] OTHER -> Write(n)

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
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
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (Heal \/ \E n \in AllNodes : Restart(n))

\* docs/design.md §5: liveness is about the runs in which faults stop.
\* Loss, duplication and drift have no budget, so a run may lose every
\* message for ever; such runs are not counterexamples.
FaultsStop == <>[][NoFault]_vars

-----------------------------------------------------------------------------
(* Renumbering (World.tla's Rank). Ghost numbers and lock values are only  *)
(* ever compared (lock values for equality only): RankedVars is the state  *)
(* with each renumbered by its rank among the values of its kind present,  *)
(* as Rust does after every action. Tokens are always 0 here (no fencing). *)

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
    IN  <<RankedWorld(rg, rv, msg),
          IF row = None THEN None ELSE [row EXCEPT !.ghost = rg(@), !.owner = rv(@)],
          phase, left, [c \in ClientIds |-> rv(value[c])], checked,
          [c \in ClientIds |-> rg(acquired[c])], max_token, rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ \A n \in Nodes : DOMAIN watches[n] \subseteq {"Elapsed"}
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ row = None \/ (row.holder \in ClientIds /\ row.expired \in BOOLEAN /\ row.owner \in Nat)
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ value \in [ClientIds -> Nat]
    /\ checked \in [ClientIds -> BOOLEAN]

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
    FaultsStop => ([]<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars)

\* Once faults stop, every running client that wants the lock eventually
\* acquires it.
StarvationFreedom ==
    FaultsStop => \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
