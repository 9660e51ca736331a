------------------------------ MODULE LockTable ------------------------------
(***************************************************************************)
(* The SQL lock table (a "lease table" when rows expire), written clean-   *)
(* room from its published descriptions, in the world of World.tla.        *)
(*                                                                         *)
(* Sources                                                                 *)
(*  - The lock-table pattern: CREATE TABLE locks (name PRIMARY KEY, owner, *)
(*    ...); acquire = INSERT INTO locks VALUES (name, me), which fails     *)
(*    with a unique violation (SQLSTATE 23505) while a row for the name    *)
(*    exists; release = DELETE FROM locks WHERE name = $1 AND owner = $2.  *)
(*  - The expiring variant: a column expires_at set to now() + ttl by the  *)
(*    INSERT, and an INSERT that replaces an expired row atomically:       *)
(*    INSERT ... ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner,  *)
(*    expires_at = EXCLUDED.expires_at WHERE locks.expires_at <= now()     *)
(*    (PostgreSQL docs, INSERT "ON CONFLICT DO UPDATE": the conflict       *)
(*    check and the update are one atomic statement). ShedLock's JDBC      *)
(*    provider is the same recipe: insertRecord = INSERT (name,            *)
(*    lock_until = now + lockAtMostFor, locked_at, locked_by), a           *)
(*    DuplicateKey/IntegrityViolation meaning "held", then updateRecord =  *)
(*    UPDATE ... SET lock_until = ?, locked_by = ? WHERE name = ? AND      *)
(*    lock_until <= now (an expired row is taken over). db-scheduler's     *)
(*    "picked/picked_by/last_heartbeat" columns are the same lease idea.   *)
(*  - PostgreSQL durability: a committed transaction survives a crash      *)
(*    (WAL, fsync on commit); an uncommitted one is lost.                  *)
(*  - Martin Kleppmann, "How to do distributed locking" (2016): a client   *)
(*    can pause (GC, SIGSTOP, page fault) after the lock was granted and   *)
(*    before it uses the resource; the lease expires meanwhile, another    *)
(*    client takes the lock, and the paused client's write arrives after   *)
(*    the new holder's. A check of the remaining validity before writing   *)
(*    (Redlock-style) shrinks but does not close the window; only fencing  *)
(*    tokens checked by the resource do.                                   *)
(*                                                                         *)
(* Nodes (numbers, as World.tla wants): clients 1..Clients, the database   *)
(* Db = Clients + 1 (role "server"), the protected resource Res =          *)
(* Clients + 2 (role "observer", never faulted).                           *)
(*                                                                         *)
(* Modelling choices, and why                                              *)
(*  - One lock name, so the table is one row or none (row = None): the     *)
(*    algorithm never touches two names together.                          *)
(*  - A statement is one atomic step of the database (autocommit): the     *)
(*    unique check, the ON CONFLICT ... WHERE expires_at <= now() update,  *)
(*    the commit and the sending of the answer happen together. This is    *)
(*    what PostgreSQL guarantees for one statement; a crash either hits    *)
(*    before the step (the request is dropped with the connection) or      *)
(*    after it (the row is committed; the answer already sent stays in     *)
(*    flight, as World.tla keeps messages from a crashed node).            *)
(*  - expires_at is a timer "Row" on the database's clock, set to Ttl by   *)
(*    the INSERT that creates or replaces the row; the row is expired when *)
(*    the timer is at zero or has fired (expires_at <= now()). Firing      *)
(*    removes only the timer: the published recipe never deletes expired  *)
(*    rows, it lets the next INSERT replace them. The row and its timer    *)
(*    survive a database crash (durable; the deadline is absolute, so its  *)
(*    clock keeps running while the server is down: World's crash keeps    *)
(*    the timer). With Expiry = FALSE the row has no timer and only a      *)
(*    DELETE removes it.                                                   *)
(*  - The owner column is the client's id (ShedLock's locked_by =          *)
(*    hostname): a restarted client is the same owner.                     *)
(*  - The fencing token, when Fencing is on, is a value drawn from a       *)
(*    durable sequence by each successful INSERT (World's `drawn`) and     *)
(*    stored in the row (a bigserial column); the resource rejects a write *)
(*    whose token is lower than the highest it accepted. The published     *)
(*    lock table has no token: the checked configurations set Fencing to  *)
(*    FALSE (MCLockTable.tla).                                             *)
(*  - The client talks to the database over a connection, as JDBC does: a  *)
(*    statement whose answer does not come within Timeout ticks (its own   *)
(*    clock) is abandoned: a timed-out INSERT counts as refused, a         *)
(*    timed-out DELETE as done; the request may still execute. An answer   *)
(*    to an abandoned statement is discarded: each statement carries a     *)
(*    tag (the connection it was sent on) and the client reads only the   *)
(*    answer with its current tag. Tags are taken modulo 3: a statement is *)
(*    abandoned only after Timeout > MaxDelay ticks, so at most one older  *)
(*    statement can still be answered, and 3 tags never alias (the tag     *)
(*    survives a client crash for the same reason: a new process opens a  *)
(*    new connection).                                                     *)
(*  - Recipe ("naive" client): want -> INSERT; on success it holds the     *)
(*    lock ("granted"), then writes once to the resource (a separate,      *)
(*    urgent step, so a pause can fall between the grant and the write, as *)
(*    in Kleppmann's example), holds until the write is answered, then     *)
(*    DELETEs its row. On a unique violation or a timeout it backs off     *)
(*    Retry ticks (a timer), after which it asks again at some moment      *)
(*    (weakly fair, not urgent: SEMANTICS.md).                             *)
(*  - "validity" client (needs Expiry): a stopwatch "Acq" starts when the  *)
(*    INSERT is sent; on success, validity = Ttl - elapsed - Drift; if     *)
(*    validity > Margin it holds from that check ("granted") and writes as *)
(*    above; else it never held: it DELETEs its own row (as Redlock        *)
(*    releases after a failed validity check) and backs off and retries.   *)
(*    No validity timer is kept: the client writes straight after its      *)
(*    check, and by SEMANTICS.md section 5 a client that has checked        *)
(*    believes it holds until it has written, whatever the timer says, so  *)
(*    such a timer would never decide the lock view.                       *)
(*  - Each client makes Acquisitions acquisitions (0 = forever); the count *)
(*    of finished ones, `done`, is scenario bookkeeping and survives a     *)
(*    client crash; the acquisition interrupted by a crash is done again.  *)
(*  - The lock view: Holds(c) from the grant/check until the write is      *)
(*    answered; Wants(c) from its first INSERT until it holds (backing     *)
(*    off and a failed validity check included).                           *)
(*  - Ghost numbers (World's `ghost`) number acquisitions in the order     *)
(*    the database grants them (the commit order of successful INSERTs);  *)
(*    a write carries its acquisition's number; the resource raises        *)
(*    "StaleWrite" if it accepts a write numbered below one it accepted.   *)
(*    The database raises "ForeignRelease" if a DELETE removes a row owned *)
(*    by another client.                                                   *)
(***************************************************************************)
EXTENDS World

CONSTANTS
    Clients,      \* number of lock clients
    Expiry,       \* rows carry expires_at = now() + Ttl
    Ttl,          \* row lifetime, database ticks
    Timeout,      \* the client's wait for a statement's answer
    Client,       \* "naive" or "validity"
    Drift,        \* validity client: clock drift allowance
    Margin,       \* validity client: validity that must be left to write
    Retry,        \* back-off after a refusal, ticks
    PauseWindow,  \* "any" or "acquiring"
    Acquisitions, \* per client; 0 = forever
    Fencing       \* the resource rejects lower tokens

ASSUME /\ Clients \in 1..5 /\ Expiry \in BOOLEAN /\ Ttl \in 1..20
       /\ Timeout \in 1..20 /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..10 /\ Margin \in 0..20 /\ Retry \in 1..20
       /\ PauseWindow \in {"any", "acquiring"} /\ Acquisitions \in Nat
       /\ Fencing \in BOOLEAN
       /\ Client = "validity" => Expiry

VARIABLES
    row,     \* the lock's row: None, or [owner, acq (ghost), token]
    phase,   \* phase[c]: the client's place in the recipe
    tag,     \* tag[c]: the connection tag of the client's current statement
    done,    \* done[c]: acquisitions finished
    acq,     \* acq[c]: ghost number of the client's acquisition, 0 if none
    tok,     \* tok[c]: its fencing token, 0 if none
    resMax,  \* resource: highest ghost number among accepted writes
    resTok   \* resource: highest token accepted

lockVars == <<row, phase, tag, done, acq, tok, resMax, resTok>>
vars == <<worldVars, lockVars>>

ClientSet == 1..Clients
Db == Clients + 1
Res == Clients + 2
AllNodes == ClientSet \cup {Db, Res}
Links == UNION {{<<c, Db>>, <<Db, c>>, <<c, Res>>, <<Res, c>>} : c \in ClientSet}

Role(n) == IF n \in ClientSet THEN "client" ELSE IF n = Db THEN "server" ELSE "observer"

Tags == 0..2
NextTag(t) == (t + 1) % 3

Phases == {"idle",       \* not wanting (yet, or between acquisitions)
           "ready",      \* back-off over: will ask again
           "inserting",  \* INSERT sent, waiting for its answer
           "backoff",    \* refused: Retry timer running
           "abandoning", \* validity check failed: DELETE sent
           "granted",    \* holds: about to write
           "writing",    \* holds: write sent, waiting for its answer
           "releasing",  \* DELETE sent after writing
           "done"}       \* all acquisitions made

\* The phases in which a client is acquiring (PauseWindow = "acquiring").
Acquiring == {"ready", "inserting", "backoff", "abandoning"}

-----------------------------------------------------------------------------
(* The plug-in operators World.tla asks for.                               *)

Urgent(n) == n \in ClientSet /\ phase[n] = "granted"

Cap(n, w) == Ttl

MayPause(n) == n \notin ClientSet \/ PauseWindow = "any" \/ phase[n] \in Acquiring

-----------------------------------------------------------------------------
(* The lock view (SEMANTICS.md section 5).                                 *)

Alive(c) == status[c] # "Down"
Holds(c) == Alive(c) /\ phase[c] \in {"granted", "writing"}
Wants(c) == Alive(c) /\ phase[c] \in Acquiring

\* The row is expired: expires_at <= now() on the database's clock.
RowExpired == Expiry /\ (~IsSet(Db, "Row") \/ Left(Db, "Row") = 0)

-----------------------------------------------------------------------------
Init ==
    /\ WorldInit(AllNodes, Links)
    /\ row = None
    /\ phase = [c \in ClientSet |-> "idle"]
    /\ tag = [c \in ClientSet |-> 0]
    /\ done = [c \in ClientSet |-> 0]
    /\ acq = [c \in ClientSet |-> 0]
    /\ tok = [c \in ClientSet |-> 0]
    /\ resMax = 0
    /\ resTok = 0

-----------------------------------------------------------------------------
(* The client's own steps.                                                 *)

\* Send the INSERT (the first time: the client comes to want the lock; after
\* a back-off: it asks again). The validity client starts its stopwatch.
Ask(c) ==
    /\ Up(c)
    /\ \/ phase[c] = "idle" /\ (Acquisitions = 0 \/ done[c] < Acquisitions)
       \/ phase[c] = "ready"
    /\ phase' = [phase EXCEPT ![c] = "inserting"]
    /\ tag' = [tag EXCEPT ![c] = NextTag(@)]
    /\ net' = Send(net, c, Db, [type |-> "insert", tag |-> NextTag(tag[c])])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ watches' = IF Client = "validity"
                  THEN [watches EXCEPT ![c] = StartWatch(@, "Acq")]
                  ELSE watches
    /\ UNCHANGED <<status, pause, skew, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<row, done, acq, tok, resMax, resTok>>

\* A holder uses the resource: one write, carrying its token.
Write(c) ==
    /\ Up(c) /\ phase[c] = "granted"
    /\ phase' = [phase EXCEPT ![c] = "writing"]
    /\ net' = Send(net, c, Res, [type |-> "write", acq |-> acq[c], token |-> tok[c]])
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<row, tag, done, acq, tok, resMax, resTok>>

StepNames == {"Ask", "Write"}

Step(n, s) ==
    /\ n \in ClientSet
    /\ \/ s = "Ask" /\ Ask(n)
       \/ s = "Write" /\ Write(n)

-----------------------------------------------------------------------------
(* Timers.                                                                 *)

TimerNames == {"Timeout", "Retry", "Row"}

\* Back off: wait Retry ticks before asking again.
BackOff(c, tm) ==
    /\ phase' = [phase EXCEPT ![c] = "backoff"]
    /\ timers' = [tm EXCEPT ![c] = SetTimer(@, "Retry", Retry)]

\* The DELETE of the client's own row (release, or abandon after a failed
\* validity check), on a new statement.
SendDelete(c, q) == Send(q, c, Db, [type |-> "delete", tag |-> NextTag(tag[c])])

\* After a release: the next acquisition, or done.
AfterRelease(c) ==
    IF Acquisitions = 0 \/ done[c] < Acquisitions THEN "idle" ELSE "done"

Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ \/ /\ n \in ClientSet /\ t = "Timeout"
          /\ \/ /\ phase[n] = "inserting"       \* refused
                /\ BackOff(n, Expired(n, t))
                /\ watches' = [watches EXCEPT ![n] = StopWatch(@, "Acq")]
             \/ /\ phase[n] = "abandoning"      \* counted as done
                /\ BackOff(n, Expired(n, t))
                /\ UNCHANGED watches
             \/ /\ phase[n] = "releasing"       \* counted as done
                /\ phase' = [phase EXCEPT ![n] = AfterRelease(n)]
                /\ timers' = Expired(n, t)
                /\ UNCHANGED watches
             \/ /\ phase[n] \notin {"inserting", "abandoning", "releasing"}
                /\ timers' = Expired(n, t)       \* nothing pending: no-op
                /\ UNCHANGED <<phase, watches>>
          /\ UNCHANGED <<row, ghost, drawn, history>>
       \/ /\ n \in ClientSet /\ t = "Retry"
          /\ phase' = [phase EXCEPT ![n] = "ready"]
          /\ timers' = Expired(n, t)
          /\ UNCHANGED <<watches, row, ghost, drawn, history>>
       \/ /\ n = Db /\ t = "Row"                \* expires_at passes
          /\ timers' = Expired(n, t)
          /\ UNCHANGED <<phase, watches, row, ghost, drawn, history>>
    /\ UNCHANGED <<status, pause, skew, net, cut, spent>>
    /\ UNCHANGED <<tag, done, acq, tok, resMax, resTok>>

-----------------------------------------------------------------------------
(* Deliveries.                                                             *)

\* The database executes one statement.
DbReceive(c) ==
    LET m == Msg(c, Db)
        q == Pop(c, Db)
    IN
    \/ /\ m.type = "insert"
       /\ IF row = None \/ RowExpired
          THEN \* INSERT, or ON CONFLICT DO UPDATE ... WHERE expires_at <= now()
               /\ ghost' = ghost + 1
               /\ drawn' = drawn + 1
               /\ row' = [owner |-> c, acq |-> ghost + 1, token |-> drawn + 1]
               /\ timers' = IF Expiry
                            THEN [timers EXCEPT ![Db] = SetTimer(@, "Row", Ttl)]
                            ELSE timers
               /\ net' = Send(q, Db, c, [type |-> "inserted", tag |-> m.tag, ok |-> TRUE,
                                         acq |-> ghost + 1, token |-> drawn + 1])
               /\ UNCHANGED history
          ELSE \* unique violation
               /\ net' = Send(q, Db, c, [type |-> "inserted", tag |-> m.tag, ok |-> FALSE,
                                         acq |-> 0, token |-> 0])
               /\ UNCHANGED <<row, timers, ghost, drawn, history>>
    \/ /\ m.type = "delete"
       \* DELETE FROM locks WHERE name = $1 AND owner = $2
       /\ IF row # None /\ row.owner = c
          THEN /\ row' = None
               /\ timers' = [timers EXCEPT ![Db] = CancelTimer(@, "Row")]
          ELSE UNCHANGED <<row, timers>>
       /\ history' = IF row # None /\ row' = None /\ row.owner # c
                     THEN history \cup {"ForeignRelease"} ELSE history
       /\ net' = Send(q, Db, c, [type |-> "deleted", tag |-> m.tag])
       /\ UNCHANGED <<ghost, drawn>>
    /\ UNCHANGED <<phase, tag, done, acq, tok, resMax, resTok, watches>>

\* The resource accepts a write (unless fencing rejects its token).
ResReceive(c) ==
    LET m == Msg(c, Res)
        q == Pop(c, Res)
        ok == ~Fencing \/ m.token >= resTok
    IN
    /\ IF ok
       THEN /\ resMax' = IF m.acq > resMax THEN m.acq ELSE resMax
            /\ resTok' = IF m.token > resTok THEN m.token ELSE resTok
            /\ history' = IF m.acq < resMax THEN history \cup {"StaleWrite"} ELSE history
       ELSE UNCHANGED <<resMax, resTok, history>>
    /\ net' = Send(q, Res, c, [type |-> "written", ok |-> ok])
    /\ UNCHANGED <<row, timers, watches, ghost, drawn, phase, tag, done, acq, tok>>

\* A client reads an answer from the database.
ClientFromDb(c) ==
    LET m == Msg(Db, c)
        q == Pop(Db, c)
        current == m.tag = tag[c]
        awaited == \/ m.type = "inserted" /\ phase[c] = "inserting"
                   \/ m.type = "deleted" /\ phase[c] \in {"abandoning", "releasing"}
    IN
    /\ \/ /\ m.type = "inserted" /\ current /\ phase[c] = "inserting"
          /\ LET tm == [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
                 elapsed == Elapsed(c, "Acq")
                 valid == Client = "naive" \/ Ttl - elapsed - Drift > Margin
             IN
             /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Acq")]
             /\ IF m.ok /\ valid
                THEN /\ phase' = [phase EXCEPT ![c] = "granted"]
                     /\ acq' = [acq EXCEPT ![c] = m.acq]
                     /\ tok' = [tok EXCEPT ![c] = m.token]
                     /\ timers' = tm
                     /\ net' = q
                     /\ UNCHANGED tag
                ELSE IF m.ok
                THEN \* failed validity check: give the row back
                     /\ phase' = [phase EXCEPT ![c] = "abandoning"]
                     /\ tag' = [tag EXCEPT ![c] = NextTag(@)]
                     /\ net' = SendDelete(c, q)
                     /\ timers' = [tm EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
                     /\ UNCHANGED <<acq, tok>>
                ELSE \* unique violation: refused
                     /\ BackOff(c, tm)
                     /\ net' = q
                     /\ UNCHANGED <<tag, acq, tok>>
          /\ UNCHANGED done
       \/ /\ m.type = "deleted" /\ current /\ phase[c] \in {"abandoning", "releasing"}
          /\ LET tm == [timers EXCEPT ![c] = CancelTimer(@, "Timeout")] IN
             IF phase[c] = "abandoning"
             THEN BackOff(c, tm)
             ELSE /\ phase' = [phase EXCEPT ![c] = AfterRelease(c)]
                  /\ timers' = tm
          /\ net' = q
          /\ UNCHANGED <<tag, done, acq, tok, watches>>
       \/ /\ ~(current /\ awaited)
          \* an answer on an abandoned connection: discarded
          /\ net' = q
          /\ UNCHANGED <<phase, tag, done, acq, tok, timers, watches>>
    /\ UNCHANGED <<row, ghost, drawn, history, resMax, resTok>>

\* A client reads the resource's answer to its write: done, release.
ClientFromRes(c) ==
    LET q == Pop(Res, c) IN
    /\ IF phase[c] = "writing"
       THEN /\ done' = [done EXCEPT ![c] = IF Acquisitions = 0 THEN 0 ELSE @ + 1]
            /\ phase' = [phase EXCEPT ![c] = "releasing"]
            /\ tag' = [tag EXCEPT ![c] = NextTag(@)]
            /\ acq' = [acq EXCEPT ![c] = 0]
            /\ tok' = [tok EXCEPT ![c] = 0]
            /\ net' = SendDelete(c, q)
            /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
       ELSE /\ net' = q
            /\ UNCHANGED <<done, phase, tag, acq, tok, timers>>
    /\ UNCHANGED <<row, watches, ghost, drawn, history, resMax, resTok>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ dst = Db /\ DbReceive(src)
       \/ dst = Res /\ ResReceive(src)
       \/ dst \in ClientSet /\ src = Db /\ ClientFromDb(dst)
       \/ dst \in ClientSet /\ src = Res /\ ClientFromRes(dst)
    /\ UNCHANGED <<status, pause, skew, cut, spent>>

-----------------------------------------------------------------------------
(* The world's actions.                                                    *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED lockVars

DriftTick == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED lockVars

\* A client loses its place in the recipe (volatile); the database keeps
\* its committed row and the row's deadline (durable).
Crash(n) ==
    /\ WorldCrash(n, IF n = Db THEN Keep(timers[n], {"Row"}) ELSE NoTimers, Role)
    /\ phase' = IF n \in ClientSet THEN [phase EXCEPT ![n] = "idle"] ELSE phase
    /\ acq' = IF n \in ClientSet THEN [acq EXCEPT ![n] = 0] ELSE acq
    /\ tok' = IF n \in ClientSet THEN [tok EXCEPT ![n] = 0] ELSE tok
    /\ UNCHANGED <<row, tag, done, resMax, resTok>>

\* Back up: the database with its rows, a client idle (it will want the
\* lock again if it has acquisitions left).
Restart(n) ==
    /\ WorldRestart(n)
    /\ timers' = timers
    /\ UNCHANGED <<net, ghost, drawn, history>>
    /\ UNCHANGED lockVars

Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED lockVars

Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED lockVars

Heal == WorldHeal /\ UNCHANGED lockVars

Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED lockVars

Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED lockVars

ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED lockVars

MaxQueue == 8   \* only to bound the index quantifiers of Lose/Duplicate

Next ==
    \/ Tick
    \/ \E n \in AllNodes, s \in StepNames : Step(n, s)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ DriftTick
    \/ \E n \in AllNodes : Crash(n) \/ Restart(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E a, b \in AllNodes : Partition(a, b)
    \/ Heal
    \/ \E l \in Links, i \in 1..MaxQueue : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in AllNodes, by \in -MaxJump..MaxJump : ClockJump(n, by)

Fairness ==
    /\ SF_vars(Tick)
    /\ \A n \in AllNodes, s \in StepNames : WF_vars(Step(n, s))
    /\ \A n \in AllNodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties (SEMANTICS.md section 5).                                    *)

Acqs == Nat
RowType == {None} \cup [owner : ClientSet, acq : Nat, token : Nat]

TypeOK ==
    /\ WorldTypeOK
    /\ DOMAIN status = AllNodes /\ DOMAIN net = Links
    /\ row \in RowType
    /\ phase \in [ClientSet -> Phases]
    /\ tag \in [ClientSet -> Tags]
    /\ done \in [ClientSet -> 0..Acquisitions]
    /\ acq \in [ClientSet -> Nat] /\ tok \in [ClientSet -> Nat]
    /\ resMax \in Nat /\ resTok \in Nat
    /\ \A c \in ClientSet : phase[c] \in {"granted", "writing"} => acq[c] > 0

MutualExclusion == \A c, d \in ClientSet : c # d => ~(Holds(c) /\ Holds(d))

NoStaleWrite == "StaleWrite" \notin history

NoForeignRelease == "ForeignRelease" \notin history

NoFault ==
    \/ Tick
    \/ \E n \in AllNodes, s \in StepNames : Step(n, s)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ ((\E n \in AllNodes : Restart(n)) \/ Heal)

FaultsStop == <>[][NoFault]_vars

SomeWants == \E c \in ClientSet : Wants(c)
SomeHolds == \E c \in ClientSet : Holds(c)

\* Whenever a running client wants the lock, some client eventually holds
\* it (or no running client wants it any more: the wanting ones crashed).
DeadlockFreedom == FaultsStop => [](SomeWants => <>(SomeHolds \/ ~SomeWants))

\* Every running client that wants the lock eventually holds it (or is no
\* longer running).
StarvationFreedom ==
    FaultsStop => \A c \in ClientSet : [](Wants(c) => <>(Holds(c) \/ ~Alive(c)))

=============================================================================
