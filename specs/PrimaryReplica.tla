--------------------------- MODULE PrimaryReplica ----------------------------
(***************************************************************************)
(* A lock on one Redis primary with replicas and one Redis Sentinel: the   *)
(* single-instance recipe of "Distributed Locks with Redis" run against a  *)
(* failover-based deployment, as that page warns against.  Clean-room:     *)
(* written from the published sources only.                                *)
(*                                                                         *)
(* Sources                                                                 *)
(*  [DL]  redis.io, "Distributed Locks with Redis": SET resource value NX  *)
(*        PX ttl with a random value unique to every request; release by   *)
(*        the Lua script "if redis.call('get',KEYS[1]) == ARGV[1] then     *)
(*        return redis.call('del',KEYS[1]) else return 0 end"; retry after *)
(*        a delay when refused; a client that fails to acquire unlocks     *)
(*        ("Retry on failure"); validity = TTL - elapsed - drift; and the  *)
(*        failover note ("Why failover-based implementations are not       *)
(*        enough"): A acquires on the master, the master crashes before    *)
(*        the write reaches the replica, the replica is promoted, B        *)
(*        acquires: a safety violation.                                    *)
(*  [REP] redis.io, "Redis replication": asynchronous replication (the     *)
(*        master acknowledges the client before replicas have the write),  *)
(*        the replication stream, replicas' periodic REPLCONF ACK (1 s),   *)
(*        PSYNC / full resynchronisation, replicas do not expire keys      *)
(*        themselves (they wait for the master's DEL), and "Safety of      *)
(*        replication when master has persistence turned off": a master    *)
(*        restarting empty wipes its replicas.                             *)
(*  [WAIT] redis.io, WAIT numreplicas timeout: blocks until numreplicas    *)
(*        replicas acknowledged the client's previous writes or timeout    *)
(*        (0 = forever); returns the number that acknowledged; the master  *)
(*        asks replicas with REPLCONF GETACK.                              *)
(*  [SEN] redis.io, "High availability with Redis Sentinel", and           *)
(*        redis/redis src/sentinel.c: PING every second to every instance; *)
(*        SDOWN when no valid reply for down-after-milliseconds since the  *)
(*        oldest unanswered PING (act_ping_time); ODOWN = SDOWN with       *)
(*        quorum 1; the leader (here the only Sentinel) selects a replica, *)
(*        sends REPLICAOF NO ONE, waits for it to report role master,      *)
(*        sends REPLICAOF <new> to the other instances, publishes          *)
(*        +switch-master to clients; an old master that comes back         *)
(*        reporting role master is converted to a replica; a master that   *)
(*        reports the replica role is eventually considered down; the      *)
(*        Sentinel persists its configuration (config rewrite).           *)
(*  [MK]  M. Kleppmann, "How to do distributed locking" (2016): process    *)
(*        pauses and expiry, no fencing token in Redis.                    *)
(*                                                                         *)
(* Modelling choices (granularity, abstraction) and why                    *)
(*  - Nodes: 1 is the initial primary, 2..Replicas+1 its replicas, then    *)
(*    the Sentinel, the clients, and the resource (an observer).  The     *)
(*    Sentinel is a server (it is a redis-server process in sentinel       *)
(*    mode), so server faults may hit it.                                  *)
(*  - One lock key, so a Redis node's dataset is that key's value (or      *)
(*    None) and its expiry, a timer "Key" on the node.  The stored value   *)
(*    carries the setter's id as a ghost annotation (used only by the      *)
(*    NoForeignRelease flag; the server compares only the value).         *)
(*  - Each Redis command is one atomic step (Redis is single-threaded).    *)
(*    The reply to the client is sent in that step; the write's            *)
(*    replication goes into the node's replication output buffer (pend)   *)
(*    and a separate urgent step (Propagate) sends it to the replicas.    *)
(*    Urgency is the configurations' "replication lag 0" (no time passes  *)
(*    before the stream goes out) while a crash can still fall between   *)
(*    the acknowledgement and the transmission: [REP]'s asynchronous      *)
(*    replication and exactly [DL]'s "crashes before the write to the key  *)
(*    is transmitted".  REPLCONF GETACK goes through the same buffer,      *)
(*    after the writes, as in Redis.                                       *)
(*  - Expiry: SET PX is replicated with the remaining time to live at     *)
(*    transmission, and the replica subtracts the time in flight: Redis 7  *)
(*    propagates an absolute deadline (PXAT), the same instant when clocks *)
(*    agree.  A replica does not delete keys itself [REP] but reports      *)
(*    them expired; its "Key" timer models that logical expiry (nobody     *)
(*    reads a replica, and on promotion it expires the key at that same    *)
(*    deadline).  A master's expiry is replicated as a DEL.                *)
(*  - Resynchronisation is always a full one (the snapshot replaces the   *)
(*    replica's dataset).  A PSYNC2 partial resync after a failover yields *)
(*    the same dataset, the master's; after a restart without persistence *)
(*    Redis has a new replication id and must resync fully anyway.        *)
(*    Replication offsets count writes and order the stream: a replica    *)
(*    applies only writes beyond its offset; WAIT counts replicas whose    *)
(*    acknowledged offset reaches the client's last write.  A PSYNC sent  *)
(*    to an instance that is itself a replica is not served (no chained    *)
(*    replication); the replica retries.                                   *)
(*  - Connections: the replica's replication connection is gone when    *)
(*    its master's process died or no longer has it (it restarted, or was  *)
(*    demoted and dropped its replicas); the replica then sees EOF/reset   *)
(*    at once (urgent step Lost: a dead process's sockets are closed by    *)
(*    its OS; a dead machine would take repl-timeout instead) and          *)
(*    reconnects with PSYNC, re-sent every second by the replication cron  *)
(*    while not connected.  The replica's periodic REPLCONF ACK is not     *)
(*    modelled: its only effects are WAIT accounting, which WAIT's own     *)
(*    GETACK provides on demand, and the master's replica timeout; a       *)
(*    replica does ACK after a full sync and on GETACK.  A client's lost   *)
(*    request is noticed by its own Timeout; late replies of an abandoned  *)
(*    request are ignored (the connection was closed), which is modelled   *)
(*    by matching replies to the request's random value.                   *)
(*  - Persistence: none (a restarted Redis node comes back empty, with    *)
(*    its configured role: replicaof is kept by CONFIG REWRITE).  The      *)
(*    Sentinel keeps its configuration (which node is master) and loses    *)
(*    the failover in progress.  A restarted client has lost its state,   *)
(*    asks the Sentinel for the master (get-master-addr-by-name), keeps    *)
(*    the number of acquisitions already done (the workload is external).  *)
(*  - Time units: Ping ticks are one second, the period of Sentinel's PING *)
(*    and of the replication cron.  INFO (role reporting) is folded        *)
(*    into the PING reply (Pong carries the instance's role), i.e. INFO   *)
(*    every second, as Sentinel does during a failover.                    *)
(*  - Sentinel: one Sentinel, quorum 1, so SDOWN is ODOWN and it always    *)
(*    wins its own leader election; configuration epochs only order        *)
(*    competing Sentinels' configurations and are abstracted away.         *)
(*    SDOWN is a stopwatch "Down" started by a PING sent while none is     *)
(*    pending and stopped by the master's valid reply (act_ping_time).     *)
(*    Failover starts at once when SDOWN (sentinelTimer runs ~10 times a   *)
(*    second: urgent step), picks any other instance as candidate          *)
(*    (replica selection by priority/offset/liveness abstracted: with one  *)
(*    replica there is one candidate), and instead of failover-timeout     *)
(*    abort-and-retry it re-sends REPLICAOF NO ONE on each PING period     *)
(*    until the candidate reports the master role.  Then the new master    *)
(*    is recorded, REPLICAOF is sent to all other instances (a down one    *)
(*    is fixed later from its Pong), +switch-master to all clients.        *)
(*  - Client recipe: Ask (not urgent: a client comes to want the lock at   *)
(*    any moment, and retries at any moment after its Retry back-off)     *)
(*    sends SET key v NX PX Ttl with a fresh random value v.  "async":    *)
(*    OK = acquired.  "wait": OK is followed by WAIT WaitReplicas         *)
(*    WaitTimeout on the same connection; acquired only if the reply is   *)
(*    >= WaitReplicas, otherwise the client unlocks (DL "Retry on          *)
(*    failure") and retries.  "naive" holds from acquisition until its    *)
(*    write is answered.  "validity" reads the stopwatch started at the    *)
(*    SET: validity = Ttl - elapsed - Drift; if > 0 it holds while that    *)
(*    validity timer runs, then checks (urgent step Check) that more than  *)
(*    Margin is left before writing, otherwise unlocks and retries; after  *)
(*    a successful check it holds until its write is answered.  Use (an    *)
(*    urgent step separate from the check, so a pause can fall between     *)
(*    them) sends the write.  After the resource's answer the client      *)
(*    releases with the compare-and-delete script to the current master,   *)
(*    and counts the acquisition done on the reply or on its Timeout (the  *)
(*    key then expires by itself).  A refused SET (nil), an error          *)
(*    (READONLY on a demoted node, WAIT on a replica, an unblocked WAIT)   *)
(*    or a Timeout leads to the Retry back-off.                            *)
(*  - Resource: an observer that accepts every write (Redis hands out no   *)
(*    fencing token [MK], so Fencing is FALSE; the rejection of a lower    *)
(*    token is written for when it is TRUE) and raises "StaleWrite" when   *)
(*    it accepts a write of an earlier acquisition than one it accepted.   *)
(*  - Acquisitions are numbered by the world's ghost counter at the step  *)
(*    where the client starts to hold.                                     *)
(***************************************************************************)
EXTENDS World, Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Replicas, Clients, Ttl, Replication, WaitReplicas, WaitTimeout,
    Ping, DownAfter, Retry, Timeout, Client, Drift, Margin, Acquisitions

ASSUME /\ Replicas \in 1..4 /\ Clients \in 1..4 /\ Ttl \in 1..100
       /\ Replication \in {"async", "wait"}
       /\ WaitReplicas \in 0..Replicas /\ WaitTimeout \in Nat
       /\ Ping \in 1..20 /\ DownAfter \in 1..50 /\ Retry \in 1..50
       /\ Timeout \in 1..100 /\ Client \in {"naive", "validity"}
       /\ Drift \in Nat /\ Margin \in Nat /\ Acquisitions \in Nat

\* Redis gives the client no fencing token [MK].
Fencing == FALSE

Primary == 1
RedisIds == 1..(Replicas + 1)
Sentinel == Replicas + 2
ClientIds == (Replicas + 3)..(Replicas + 2 + Clients)
Resource == Replicas + Clients + 3
AllNodes == 1..Resource

Role(n) == IF n = Resource THEN "observer"
           ELSE IF n \in ClientIds THEN "client" ELSE "server"

Links ==
    {l \in RedisIds \X RedisIds : l[1] # l[2]}
    \cup ({Sentinel} \X RedisIds) \cup (RedisIds \X {Sentinel})
    \cup ({Sentinel} \X ClientIds) \cup (ClientIds \X {Sentinel})
    \cup (ClientIds \X RedisIds) \cup (RedisIds \X ClientIds)
    \cup (ClientIds \X {Resource}) \cup ({Resource} \X ClientIds)

VARIABLES
    \* Redis instances (n \in RedisIds)
    rOf,        \* None (a master) or the master it replicates (persisted config)
    link,       \* a replica's link to its master: "sync" (PSYNC sent) or "up"
    key,        \* the lock key: None or [v |-> value, c |-> setter (ghost)]
    off,        \* replication offset (writes in the stream)
    reps,       \* a master's connected replicas
    ack,        \* ack[n][r]: offset replica r acknowledged to master n
    woff,       \* woff[n][c]: offset of client c's last write on n
    blocked,    \* blocked[n][c]: value tag of c's blocked WAIT, 0 if none
    pend,       \* replication output buffer (messages for every replica)
    \* the Sentinel
    sMaster,    \* the master in its (persisted) configuration
    sPromoting, \* the failover candidate, or None
    \* clients
    phase, cPrimary, val, cGhost, done,
    \* the resource
    resMax      \* the highest acquisition number among accepted writes

redisVars == <<rOf, link, key, off, reps, ack, woff, blocked, pend>>
sentVars == <<sMaster, sPromoting>>
clientVars == <<phase, cPrimary, val, cGhost, done>>
algVars == <<redisVars, sentVars, clientVars, resMax>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* Messages: one record shape for all, so that any two compare.            *)

M(t) == [t |-> t, v |-> 0, n |-> 0, rec |-> None, ttl |-> 0, off |-> 0, m |-> None, g |-> 0]
MV(t, v) == [M(t) EXCEPT !.v = v]

\* Send each message p[2] to its node p[1], for every pair p of P.
RECURSIVE SendPairs(_, _, _)
SendPairs(q, src, P) ==
    IF P = {} THEN q
    ELSE LET p == CHOOSE x \in P : TRUE
         IN SendPairs(Send(q, src, p[1], p[2]), src, P \ {p})

\* Send the messages of sequence s, in order, to every node of D.
RECURSIVE SendSeq(_, _, _, _)
SendSeq(q, src, D, s) ==
    IF s = <<>> THEN q ELSE SendSeq(SendAll(q, src, D, Head(s)), src, D, Tail(s))

\* The time to live left of key record rec on n (0 if it is no longer there).
TtlOf(n, rec) == IF rec # None /\ key[n] = rec /\ IsSet(n, "Key") THEN Left(n, "Key") ELSE 0

\* A node's dataset from a record and a time to live left: key and timer.
KeyFrom(rec, t) == IF rec # None /\ t > 0 THEN rec ELSE None
TimerFrom(f, rec, t) == IF rec # None /\ t > 0 THEN SetTimer(f, "Key", t) ELSE CancelTimer(f, "Key")

Count(n, c, A) == Cardinality({r \in reps[n] : A[r] >= woff[n][c]})

-----------------------------------------------------------------------------
(* The lock view (SEMANTICS section 5).                                    *)

Holds(c) ==
    /\ status[c] # "Down"
    /\ \/ phase[c] \in {"checked", "writing"}
       \/ phase[c] = "acquired" /\ (Client = "naive" \/
                                     (IsSet(c, "Validity") /\ Left(c, "Validity") > 0))

Wants(c) ==
    /\ status[c] # "Down" /\ ~Holds(c)
    /\ phase[c] \in {"setting", "waiting", "acquired", "backoff", "ready"}

MutualExclusion == \A c1, c2 \in ClientIds : c1 # c2 => ~(Holds(c1) /\ Holds(c2))
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

Phases == {"idle", "setting", "waiting", "acquired", "checked", "writing",
           "releasing", "backoff", "ready", "done"}
Rec == [v : Nat, c : ClientIds]

TypeOK ==
    /\ WorldTypeOK
    /\ DOMAIN status = AllNodes
    /\ rOf \in [RedisIds -> RedisIds \cup {None}]
    /\ link \in [RedisIds -> {"sync", "up"}]
    /\ key \in [RedisIds -> Rec \cup {None}]
    /\ off \in [RedisIds -> Nat]
    /\ reps \in [RedisIds -> SUBSET RedisIds]
    /\ ack \in [RedisIds -> [RedisIds -> Nat]]
    /\ woff \in [RedisIds -> [ClientIds -> Nat]]
    /\ blocked \in [RedisIds -> [ClientIds -> Nat]]
    /\ \A n \in RedisIds : \A i \in 1..Len(pend[n]) : DOMAIN pend[n][i] = DOMAIN M("x")
    /\ sMaster \in RedisIds /\ sPromoting \in RedisIds \cup {None}
    /\ phase \in [ClientIds -> Phases]
    /\ cPrimary \in [ClientIds -> RedisIds \cup {None}]
    /\ val \in [ClientIds -> Nat] /\ cGhost \in [ClientIds -> Nat]
    /\ done \in [ClientIds -> Nat]
    /\ resMax \in Nat

-----------------------------------------------------------------------------
(* World plumbing.                                                         *)

IsMaster(n) == rOf[n] = None

\* A replica's replication connection no longer exists (see Lost).
ConnGone(n) == ~IsMaster(n) /\ link[n] = "up" /\
               (status[rOf[n]] = "Down" \/ n \notin reps[rOf[n]])

SDown == Running(Sentinel, "Down") /\ watches[Sentinel]["Down"] > DownAfter

Urgent(n) ==
    \/ n \in RedisIds /\ (pend[n] # <<>> \/ ConnGone(n))
    \/ n = Sentinel /\ SDown /\ sPromoting = None
    \/ n \in ClientIds /\ phase[n] \in {"acquired", "checked"}

Cap(n, w) == IF w = "Down" THEN DownAfter + 1 ELSE Ttl

MayPause(n) == TRUE

\* WAIT's timeout for client c's blocked WAIT, a timer of the master.
WaitT(c) == "Wait" \o ToString(c)

TimerNames == {"Key", "Cron", "Ping", "Timeout", "Retry", "Validity"}
              \cup {WaitT(c) : c \in ClientIds}
StepNames == {"Ask", "Check", "Use", "Propagate", "Lost", "Failover"}

InitTimers == [n \in AllNodes |->
                 IF n = Sentinel THEN [t \in {"Ping"} |-> Ping]
                 ELSE NoTimers]

Init ==
    /\ WorldInitTimers(AllNodes, Links, InitTimers)
    /\ rOf = [n \in RedisIds |-> IF n = Primary THEN None ELSE Primary]
    /\ link = [n \in RedisIds |-> "up"]
    /\ key = [n \in RedisIds |-> None]
    /\ off = [n \in RedisIds |-> 0]
    /\ reps = [n \in RedisIds |-> IF n = Primary THEN RedisIds \ {Primary} ELSE {}]
    /\ ack = [n \in RedisIds |-> [r \in RedisIds |-> 0]]
    /\ woff = [n \in RedisIds |-> [c \in ClientIds |-> 0]]
    /\ blocked = [n \in RedisIds |-> [c \in ClientIds |-> 0]]
    /\ pend = [n \in RedisIds |-> <<>>]
    /\ sMaster = Primary /\ sPromoting = None
    /\ phase = [c \in ClientIds |-> "idle"]
    /\ cPrimary = [c \in ClientIds |-> Primary]
    /\ val = [c \in ClientIds |-> 0]
    /\ cGhost = [c \in ClientIds |-> 0]
    /\ done = [c \in ClientIds |-> 0]
    /\ resMax = 0

\* Nothing of the world but the messages, timers, watches and ghosts moves.
Quiet == UNCHANGED <<status, pause, skew, cut, spent>>

-----------------------------------------------------------------------------
(* Client steps.                                                           *)

\* The acquisition is finished (released, or release timed out).
Finish(c) ==
    /\ done' = [done EXCEPT ![c] = IF Acquisitions = 0 THEN 0 ELSE @ + 1]
    /\ phase' = [phase EXCEPT ![c] =
                   IF Acquisitions # 0 /\ done[c] + 1 >= Acquisitions THEN "done" ELSE "idle"]
    /\ val' = [val EXCEPT ![c] = 0]
    /\ cGhost' = [cGhost EXCEPT ![c] = 0]

\* Ask: SET key v NX PX Ttl with a fresh random value (a new request).
Ask(c) ==
    /\ Up(c) /\ phase[c] \in {"idle", "ready"} /\ cPrimary[c] # None
    /\ drawn' = drawn + 1
    /\ val' = [val EXCEPT ![c] = drawn + 1]
    /\ phase' = [phase EXCEPT ![c] = "setting"]
    /\ net' = Send(net, c, cPrimary[c], MV("Set", drawn + 1))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ watches' = [watches EXCEPT ![c] = StartWatch(@, "Req")]
    /\ UNCHANGED <<ghost, history, redisVars, sentVars, cPrimary, cGhost, done, resMax>>
    /\ Quiet

\* Validity check before use (Client = "validity").
Check(c) ==
    /\ Up(c) /\ Client = "validity" /\ phase[c] = "acquired"
    /\ IF IsSet(c, "Validity") /\ Left(c, "Validity") > Margin
       THEN /\ phase' = [phase EXCEPT ![c] = "checked"]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, val>>
       ELSE \* too little left: unlock (DL "Retry on failure") and back off
            /\ phase' = [phase EXCEPT ![c] = "backoff"]
            /\ net' = Send(net, c, cPrimary[c], MV("Del", val[c]))
            /\ timers' = [timers EXCEPT ![c] = SetTimer(CancelTimer(@, "Validity"), "Retry", Retry)]
            /\ val' = [val EXCEPT ![c] = 0]
    /\ UNCHANGED <<watches, ghost, drawn, history, redisVars, sentVars, cPrimary, cGhost, done, resMax>>
    /\ Quiet

\* Use the resource: one write, tagged with the acquisition number.
Use(c) ==
    /\ Up(c)
    /\ \/ phase[c] = "checked"
       \/ phase[c] = "acquired" /\ Client = "naive"
    /\ phase' = [phase EXCEPT ![c] = "writing"]
    /\ net' = Send(net, c, Resource, [M("Write") EXCEPT !.g = cGhost[c]])
    /\ UNCHANGED <<timers, watches, ghost, drawn, history, redisVars, sentVars,
                   cPrimary, val, cGhost, done, resMax>>
    /\ Quiet

\* The client starts to hold (naive), or computes its validity (validity).
\* tm is the client's timers with the request Timeout cancelled.
Acquire(c, tm) ==
    LET v == Ttl - Elapsed(c, "Req") - Drift IN
    IF Client = "naive" \/ v > 0
    THEN /\ ghost' = ghost + 1
         /\ cGhost' = [cGhost EXCEPT ![c] = ghost + 1]
         /\ phase' = [phase EXCEPT ![c] = "acquired"]
         /\ timers' = [timers EXCEPT ![c] =
                         IF Client = "validity" THEN SetTimer(tm, "Validity", v) ELSE tm]
         /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Req")]
         /\ UNCHANGED <<val>>
    ELSE \* never held: no validity left
         /\ phase' = [phase EXCEPT ![c] = "backoff"]
         /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Retry", Retry)]
         /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Req")]
         /\ val' = [val EXCEPT ![c] = 0]
         /\ UNCHANGED <<ghost, cGhost>>

\* Back off after a refusal, error or failed WAIT.
BackOff(c, tm) ==
    /\ phase' = [phase EXCEPT ![c] = "backoff"]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Retry", Retry)]
    /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Req")]
    /\ val' = [val EXCEPT ![c] = 0]

\* A message m from src to client c.
ClientRecv(src, c, m) ==
    LET q == Pop(src, c)
        tm == CancelTimer(timers[c], "Timeout")
    IN
    CASE m.t = "Switch" ->
           /\ cPrimary' = [cPrimary EXCEPT ![c] = m.m]
           /\ net' = q
           /\ UNCHANGED <<timers, watches, ghost, drawn, history, phase, val, cGhost, done>>
      [] m.t = "SetOK" /\ phase[c] = "setting" /\ m.v = val[c] ->
           IF Replication = "wait"
           THEN /\ phase' = [phase EXCEPT ![c] = "waiting"]
                /\ net' = Send(q, c, src, MV("Wait", val[c]))
                /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Timeout", Timeout)]
                /\ UNCHANGED <<watches, ghost, drawn, history, cPrimary, val, cGhost, done>>
           ELSE /\ Acquire(c, tm)
                /\ net' = q
                /\ UNCHANGED <<drawn, history, cPrimary, done>>
      [] m.t \in {"SetNil", "Err"} /\ phase[c] \in {"setting", "waiting"} /\ m.v = val[c] ->
           /\ BackOff(c, tm)
           /\ net' = IF phase[c] = "waiting" THEN Send(q, c, src, MV("Del", val[c])) ELSE q
           /\ UNCHANGED <<ghost, drawn, history, cPrimary, cGhost, done>>
      [] m.t = "WaitN" /\ phase[c] = "waiting" /\ m.v = val[c] ->
           IF m.n >= WaitReplicas
           THEN /\ Acquire(c, tm)
                /\ net' = q
                /\ UNCHANGED <<drawn, history, cPrimary, done>>
           ELSE \* WAIT reports too few replicas: not taken; unlock, back off
                /\ BackOff(c, tm)
                /\ net' = Send(q, c, src, MV("Del", val[c]))
                /\ UNCHANGED <<ghost, drawn, history, cPrimary, cGhost, done>>
      [] m.t \in {"Written", "Rejected"} /\ phase[c] = "writing" ->
           \* written: release with compare-and-delete on the current master
           /\ phase' = [phase EXCEPT ![c] = "releasing"]
           /\ net' = IF cPrimary[c] = None THEN q ELSE Send(q, c, cPrimary[c], MV("Del", val[c]))
           /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
           /\ UNCHANGED <<watches, ghost, drawn, history, cPrimary, val, cGhost, done>>
      [] m.t \in {"DelR", "Err"} /\ phase[c] = "releasing" /\ m.v = val[c] ->
           /\ Finish(c)
           /\ net' = q
           /\ timers' = [timers EXCEPT ![c] = tm]
           /\ UNCHANGED <<watches, ghost, drawn, history, cPrimary>>
      [] OTHER ->  \* a reply to an abandoned request
           /\ net' = q
           /\ UNCHANGED <<timers, watches, ghost, drawn, history, clientVars>>

ClientFire(c, t) ==
    LET tm == CancelTimer(timers[c], t) IN
    CASE t = "Timeout" /\ phase[c] \in {"setting", "waiting"} ->
           /\ BackOff(c, tm)
           /\ UNCHANGED <<net, ghost, drawn, history, cPrimary, cGhost, done>>
      [] t = "Timeout" /\ phase[c] = "releasing" ->
           /\ Finish(c)
           /\ timers' = [timers EXCEPT ![c] = tm]
           /\ UNCHANGED <<net, watches, ghost, drawn, history, cPrimary>>
      [] t = "Retry" /\ phase[c] = "backoff" ->
           /\ phase' = [phase EXCEPT ![c] = "ready"]
           /\ timers' = [timers EXCEPT ![c] = tm]
           /\ UNCHANGED <<net, watches, ghost, drawn, history, cPrimary, val, cGhost, done>>
      [] OTHER ->  \* the validity timer ran out, or a stale timer
           /\ timers' = [timers EXCEPT ![c] = tm]
           /\ UNCHANGED <<net, watches, ghost, drawn, history, clientVars>>

-----------------------------------------------------------------------------
(* Redis instance steps.                                                   *)


\* A client request m from c to Redis node n.
RedisFromClient(c, n, m) ==
    LET q == Pop(c, n) IN
    CASE m.t = "Set" /\ IsMaster(n) /\ key[n] = None ->
           LET rec == [v |-> m.v, c |-> c] IN
           /\ key' = [key EXCEPT ![n] = rec]
           /\ off' = [off EXCEPT ![n] = @ + 1]
           /\ woff' = [woff EXCEPT ![n][c] = off[n] + 1]
           /\ pend' = [pend EXCEPT ![n] = Append(@, [M("Repl") EXCEPT !.rec = rec, !.off = off[n] + 1])]
           /\ timers' = [timers EXCEPT ![n] = SetTimer(@, "Key", Ttl)]
           /\ net' = Send(q, n, c, MV("SetOK", m.v))
           /\ UNCHANGED <<rOf, link, reps, ack, blocked, history>>
      [] m.t = "Set" ->  \* nil (key held) or -READONLY (a replica)
           /\ net' = Send(q, n, c, MV(IF IsMaster(n) THEN "SetNil" ELSE "Err", m.v))
           /\ UNCHANGED <<redisVars, timers, history>>
      [] m.t = "Wait" /\ IsMaster(n) ->
           LET cnt == Count(n, c, ack[n]) IN
           IF cnt >= WaitReplicas
           THEN /\ net' = Send(q, n, c, [MV("WaitN", m.v) EXCEPT !.n = cnt])
                /\ UNCHANGED <<redisVars, timers, history>>
           ELSE /\ blocked' = [blocked EXCEPT ![n][c] = m.v]
                /\ timers' = IF WaitTimeout > 0
                             THEN [timers EXCEPT ![n] = SetTimer(@, WaitT(c), WaitTimeout)]
                             ELSE timers
                /\ pend' = [pend EXCEPT ![n] = Append(@, M("GetAck"))]
                /\ net' = q
                /\ UNCHANGED <<rOf, link, key, off, reps, ack, woff, history>>
      [] m.t = "Wait" ->  \* WAIT cannot be used with replica instances
           /\ net' = Send(q, n, c, MV("Err", m.v))
           /\ UNCHANGED <<redisVars, timers, history>>
      [] m.t = "Del" /\ IsMaster(n) /\ key[n] # None /\ key[n].v = m.v ->
           \* compare-and-delete: the value is the caller's
           /\ key' = [key EXCEPT ![n] = None]
           /\ off' = [off EXCEPT ![n] = @ + 1]
           /\ woff' = [woff EXCEPT ![n][c] = off[n] + 1]
           /\ pend' = [pend EXCEPT ![n] = Append(@, [M("Repl") EXCEPT !.off = off[n] + 1])]
           /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, "Key")]
           /\ history' = IF key[n].c # c THEN history \cup {"ForeignRelease"} ELSE history
           /\ net' = Send(q, n, c, [MV("DelR", m.v) EXCEPT !.n = 1])
           /\ UNCHANGED <<rOf, link, reps, ack, blocked>>
      [] m.t = "Del" ->  \* 0 (not the caller's value), or an error on a replica
           /\ net' = Send(q, n, c, MV(IF IsMaster(n) THEN "DelR" ELSE "Err", m.v))
           /\ UNCHANGED <<redisVars, timers, history>>
      [] OTHER ->
           /\ net' = q
           /\ UNCHANGED <<redisVars, timers, history>>

\* Unblock the WAITs of n that ack vector A satisfies.
Ready(n, A) == {c \in ClientIds : blocked[n][c] # 0 /\ Count(n, c, A) >= WaitReplicas}
WaitTimers(S) == {WaitT(c) : c \in S}

\* A replication or Sentinel message m from src to Redis node n.
RedisFromServer(src, n, m) ==
    LET q == Pop(src, n) IN
    CASE m.t = "Psync" /\ IsMaster(n) ->
           /\ reps' = [reps EXCEPT ![n] = @ \cup {src}]
           /\ ack' = [ack EXCEPT ![n][src] = 0]
           /\ net' = Send(q, n, src, [M("Full") EXCEPT !.rec = key[n], !.ttl = TtlOf(n, key[n]),
                                                    !.off = off[n]])
           /\ UNCHANGED <<rOf, link, key, off, woff, blocked, pend, timers>>
      [] m.t = "Full" /\ rOf[n] = src /\ link[n] = "sync" ->
           LET t == m.ttl - Age(src, n) IN
           /\ key' = [key EXCEPT ![n] = KeyFrom(m.rec, t)]
           /\ timers' = [timers EXCEPT ![n] = TimerFrom(CancelTimer(@, "Cron"), m.rec, t)]
           /\ off' = [off EXCEPT ![n] = m.off]
           /\ link' = [link EXCEPT ![n] = "up"]
           /\ net' = Send(q, n, src, [M("Ack") EXCEPT !.off = m.off])
           /\ UNCHANGED <<rOf, reps, ack, woff, blocked, pend>>
      [] m.t = "Repl" /\ rOf[n] = src /\ link[n] = "up" /\ m.off > off[n] ->
           LET t == m.ttl - Age(src, n) IN
           /\ key' = [key EXCEPT ![n] = KeyFrom(m.rec, t)]
           /\ timers' = [timers EXCEPT ![n] = TimerFrom(@, m.rec, t)]
           /\ off' = [off EXCEPT ![n] = m.off]
           /\ net' = q
           /\ UNCHANGED <<rOf, link, reps, ack, woff, blocked, pend>>
      [] m.t = "GetAck" /\ rOf[n] = src /\ link[n] = "up" ->
           /\ net' = Send(q, n, src, [M("Ack") EXCEPT !.off = off[n]])
           /\ UNCHANGED <<redisVars, timers>>
      [] m.t = "Ack" /\ IsMaster(n) /\ src \in reps[n] ->
           LET A == [ack[n] EXCEPT ![src] = m.off]
               R == Ready(n, A)
           IN
           /\ ack' = [ack EXCEPT ![n] = A]
           /\ blocked' = [blocked EXCEPT ![n] = [c \in ClientIds |->
                                                   IF c \in R THEN 0 ELSE blocked[n][c]]]
           /\ timers' = [timers EXCEPT ![n] = [x \in DOMAIN @ \ WaitTimers(R) |-> @[x]]]
           /\ net' = SendPairs(q, n, {<<c, [MV("WaitN", blocked[n][c]) EXCEPT
                                                !.n = Count(n, c, A)]>> : c \in R})
           /\ UNCHANGED <<rOf, link, key, off, reps, woff, pend>>
      [] m.t = "Ping" ->  \* PONG, with the role INFO would report
           /\ net' = Send(q, n, src, [M("Pong") EXCEPT !.m = rOf[n]])
           /\ UNCHANGED <<redisVars, timers>>
      [] m.t = "NoOne" ->  \* REPLICAOF NO ONE: keeps its data and offset
           /\ rOf' = [rOf EXCEPT ![n] = None]
           /\ reps' = [reps EXCEPT ![n] = IF IsMaster(n) THEN @ ELSE {}]
           /\ ack' = [ack EXCEPT ![n] = IF IsMaster(n) THEN @ ELSE [r \in RedisIds |-> 0]]
           /\ net' = Send(q, n, src, M("Promoted"))
           /\ timers' = [timers EXCEPT ![n] = CancelTimer(@, "Cron")]
           /\ UNCHANGED <<link, key, off, woff, blocked, pend>>
      [] m.t = "ReplicaOf" /\ rOf[n] # m.m ->
           \* REPLICAOF m: drops its replicas and its blocked WAITs (-UNBLOCKED)
           LET B == {c \in ClientIds : blocked[n][c] # 0} IN
           /\ rOf' = [rOf EXCEPT ![n] = m.m]
           /\ link' = [link EXCEPT ![n] = "sync"]
           /\ reps' = [reps EXCEPT ![n] = {}]
           /\ ack' = [ack EXCEPT ![n] = [r \in RedisIds |-> 0]]
           /\ blocked' = [blocked EXCEPT ![n] = [c \in ClientIds |-> 0]]
           /\ pend' = [pend EXCEPT ![n] = <<>>]
           /\ timers' = [timers EXCEPT ![n] =
                            SetTimer([x \in DOMAIN @ \ WaitTimers(B) |-> @[x]], "Cron", Ping)]
           /\ net' = Send(SendPairs(q, n, {<<c, MV("Err", blocked[n][c])>> : c \in B}), n, m.m, M("Psync"))
           /\ UNCHANGED <<key, off, woff>>
      [] OTHER ->
           /\ net' = q
           /\ UNCHANGED <<redisVars, timers>>

\* The urgent transmission of the replication output buffer.
Propagate(n) ==
    /\ Up(n) /\ pend[n] # <<>>
    /\ LET s == [i \in 1..Len(pend[n]) |->
                   IF pend[n][i].t = "Repl"
                   THEN [pend[n][i] EXCEPT !.ttl = TtlOf(n, pend[n][i].rec)]
                   ELSE pend[n][i]]
       IN net' = SendSeq(net, n, reps[n], s)
    /\ pend' = [pend EXCEPT ![n] = <<>>]
    /\ UNCHANGED <<rOf, link, key, off, reps, ack, woff, blocked, timers, watches,
                   ghost, drawn, history, sentVars, clientVars, resMax>>
    /\ Quiet

\* The replica's connection to its master is gone (EOF / reset): the master
\* process died or does not have this connection (it restarted, or was
\* demoted and dropped its replicas).  It reconnects with PSYNC, retrying
\* every second.
Lost(n) ==
    /\ Up(n) /\ n \in RedisIds /\ ConnGone(n)
    /\ link' = [link EXCEPT ![n] = "sync"]
    /\ timers' = [timers EXCEPT ![n] = SetTimer(@, "Cron", Ping)]
    /\ net' = Send(net, n, rOf[n], M("Psync"))
    /\ UNCHANGED <<rOf, key, off, reps, ack, woff, blocked, pend, watches,
                   ghost, drawn, history, sentVars, clientVars, resMax>>
    /\ Quiet

RedisFire(n, t) ==
    LET tm == CancelTimer(timers[n], t) IN
    CASE t = "Key" ->
           /\ key' = [key EXCEPT ![n] = None]
           /\ timers' = [timers EXCEPT ![n] = tm]
           /\ IF IsMaster(n)   \* the master's expiry is replicated as DEL
              THEN /\ off' = [off EXCEPT ![n] = @ + 1]
                   /\ pend' = [pend EXCEPT ![n] = Append(@, [M("Repl") EXCEPT !.off = off[n] + 1])]
              ELSE UNCHANGED <<off, pend>>
           /\ UNCHANGED <<net, rOf, link, reps, ack, woff, blocked>>
      [] t = "Cron" ->  \* replication cron: reconnect, every second
           /\ IF ~IsMaster(n) /\ link[n] = "sync"
              THEN /\ timers' = [timers EXCEPT ![n] = SetTimer(tm, "Cron", Ping)]
                   /\ net' = Send(net, n, rOf[n], M("Psync"))
              ELSE /\ timers' = [timers EXCEPT ![n] = tm]
                   /\ net' = net
           /\ UNCHANGED redisVars
      [] t \in WaitTimers(ClientIds) ->  \* WAIT timed out: reply the count
           LET c == CHOOSE x \in ClientIds : WaitT(x) = t IN
           /\ timers' = [timers EXCEPT ![n] = tm]
           /\ blocked' = [blocked EXCEPT ![n][c] = 0]
           /\ net' = IF blocked[n][c] # 0
                     THEN Send(net, n, c, [MV("WaitN", blocked[n][c]) EXCEPT !.n = Count(n, c, ack[n])])
                     ELSE net
           /\ UNCHANGED <<rOf, link, key, off, reps, ack, woff, pend>>
      [] OTHER ->
           /\ timers' = [timers EXCEPT ![n] = tm]
           /\ UNCHANGED <<net, redisVars>>

-----------------------------------------------------------------------------
(* Sentinel steps.                                                         *)

\* The failover starts: the master is SDOWN (= ODOWN, quorum 1).
Failover ==
    /\ Up(Sentinel) /\ SDown /\ sPromoting = None
    /\ \E r \in RedisIds \ {sMaster} :
          /\ sPromoting' = r
          /\ net' = Send(net, Sentinel, r, M("NoOne"))
    /\ UNCHANGED <<sMaster, timers, watches, ghost, drawn, history, redisVars, clientVars, resMax>>
    /\ Quiet

SentinelRecv(src, m) ==
    LET q == Pop(src, Sentinel) IN
    CASE m.t = "Pong" /\ src = sMaster ->
           \* a valid reply; a master reporting the replica role is not one
           /\ watches' = IF m.m = None THEN [watches EXCEPT ![Sentinel] = StopWatch(@, "Down")]
                         ELSE watches
           /\ net' = q
           /\ UNCHANGED sentVars
      [] m.t = "Pong" /\ src # sPromoting /\ m.m # sMaster ->
           \* convert an old master / fix a replica's configuration
           /\ net' = Send(q, Sentinel, src, [M("ReplicaOf") EXCEPT !.m = sMaster])
           /\ UNCHANGED <<watches, sentVars>>
      [] m.t = "Promoted" /\ src = sPromoting ->
           \* the candidate reports role master: switch
           /\ sMaster' = src
           /\ sPromoting' = None
           /\ watches' = [watches EXCEPT ![Sentinel] = StopWatch(@, "Down")]
           /\ net' = SendAll(SendAll(q, Sentinel, RedisIds \ {src}, [M("ReplicaOf") EXCEPT !.m = src]),
                             Sentinel, ClientIds, [M("Switch") EXCEPT !.m = src])
      [] m.t = "AskMaster" ->
           /\ net' = Send(q, Sentinel, src, [M("Switch") EXCEPT !.m = sMaster])
           /\ UNCHANGED <<watches, sentVars>>
      [] OTHER ->
           /\ net' = q
           /\ UNCHANGED <<watches, sentVars>>

SentinelFire(t) ==
    LET tm == CancelTimer(timers[Sentinel], t) IN
    IF t = "Ping"
    THEN /\ timers' = [timers EXCEPT ![Sentinel] = SetTimer(tm, "Ping", Ping)]
         /\ watches' = IF Running(Sentinel, "Down") THEN watches
                       ELSE [watches EXCEPT ![Sentinel] = StartWatch(@, "Down")]
         /\ net' = LET q == SendAll(net, Sentinel, RedisIds, M("Ping")) IN
                   IF sPromoting # None THEN Send(q, Sentinel, sPromoting, M("NoOne")) ELSE q
    ELSE /\ timers' = [timers EXCEPT ![Sentinel] = tm]
         /\ UNCHANGED <<watches, net>>

-----------------------------------------------------------------------------
(* The resource.                                                           *)

ResourceRecv(c, m) ==
    LET q == Pop(c, Resource) IN
    IF m.t = "Write" /\ ~(Fencing /\ m.g < resMax)
    THEN /\ history' = IF m.g < resMax THEN history \cup {"StaleWrite"} ELSE history
         /\ resMax' = IF m.g > resMax THEN m.g ELSE resMax
         /\ net' = Send(q, Resource, c, [M("Written") EXCEPT !.g = m.g])
    ELSE /\ net' = IF m.t = "Write" THEN Send(q, Resource, c, [M("Rejected") EXCEPT !.g = m.g]) ELSE q
         /\ UNCHANGED <<history, resMax>>

-----------------------------------------------------------------------------
(* Actions.                                                                *)

Deliver(src, dst) ==
    /\ <<src, dst>> \in DOMAIN net
    /\ Deliverable(src, dst)
    /\ LET m == Msg(src, dst) IN
       CASE dst \in ClientIds ->
              /\ ClientRecv(src, dst, m)
              /\ UNCHANGED <<redisVars, sentVars, resMax>>
         [] dst \in RedisIds /\ src \in ClientIds ->
              /\ RedisFromClient(src, dst, m)
              /\ UNCHANGED <<watches, ghost, drawn, sentVars, clientVars, resMax>>
         [] dst \in RedisIds ->
              /\ RedisFromServer(src, dst, m)
              /\ UNCHANGED <<watches, ghost, drawn, history, sentVars, clientVars, resMax>>
         [] dst = Sentinel ->
              /\ SentinelRecv(src, m)
              /\ UNCHANGED <<timers, ghost, drawn, history, redisVars, clientVars, resMax>>
         [] dst = Resource ->
              /\ ResourceRecv(src, m)
              /\ UNCHANGED <<timers, watches, ghost, drawn, redisVars, sentVars, clientVars>>
    /\ Quiet

Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ CASE n \in ClientIds ->
              /\ ClientFire(n, t)
              /\ UNCHANGED <<redisVars, sentVars, resMax>>
         [] n \in RedisIds ->
              /\ RedisFire(n, t)
              /\ UNCHANGED <<watches, ghost, drawn, history, sentVars, clientVars, resMax>>
         [] n = Sentinel ->
              /\ SentinelFire(t)
              /\ UNCHANGED <<ghost, drawn, history, redisVars, sentVars, clientVars, resMax>>
         [] OTHER ->
              /\ timers' = Expired(n, t)
              /\ UNCHANGED <<net, watches, ghost, drawn, history, algVars>>
    /\ Quiet

Step(n, s) ==
    CASE s = "Ask" /\ n \in ClientIds -> Ask(n)
      [] s = "Check" /\ n \in ClientIds -> Check(n)
      [] s = "Use" /\ n \in ClientIds -> Use(n)
      [] s = "Propagate" /\ n \in RedisIds -> Propagate(n)
      [] s = "Lost" /\ n \in RedisIds -> Lost(n)
      [] s = "Failover" /\ n = Sentinel -> Failover
      [] OTHER -> FALSE

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars
DriftTick == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

\* What a crash loses: everything but the persisted configuration.
Crash(n) ==
    /\ WorldCrash(n, NoTimers, Role)
    /\ CASE n \in RedisIds ->
              /\ key' = [key EXCEPT ![n] = None]
              /\ off' = [off EXCEPT ![n] = 0]
              /\ link' = [link EXCEPT ![n] = "sync"]
              /\ reps' = [reps EXCEPT ![n] = {}]
              /\ ack' = [ack EXCEPT ![n] = [r \in RedisIds |-> 0]]
              /\ woff' = [woff EXCEPT ![n] = [c \in ClientIds |-> 0]]
              /\ blocked' = [blocked EXCEPT ![n] = [c \in ClientIds |-> 0]]
              /\ pend' = [pend EXCEPT ![n] = <<>>]
              /\ UNCHANGED <<rOf, sentVars, clientVars, resMax>>
         [] n = Sentinel ->
              /\ sPromoting' = None
              /\ UNCHANGED <<sMaster, redisVars, clientVars, resMax>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] =
                             IF Acquisitions # 0 /\ done[n] >= Acquisitions THEN "done" ELSE "idle"]
              /\ cPrimary' = [cPrimary EXCEPT ![n] = None]
              /\ val' = [val EXCEPT ![n] = 0]
              /\ cGhost' = [cGhost EXCEPT ![n] = 0]
              /\ UNCHANGED <<done, redisVars, sentVars, resMax>>
         [] OTHER -> FALSE

Restart(n) ==
    /\ WorldRestart(n)
    /\ UNCHANGED <<ghost, drawn, history>>
    /\ CASE n \in RedisIds ->
              /\ timers' = [timers EXCEPT ![n] =
                               IF rOf[n] # None THEN [t \in {"Cron"} |-> Ping] ELSE NoTimers]
              /\ net' = IF rOf[n] # None THEN Send(net, n, rOf[n], M("Psync")) ELSE net
              /\ UNCHANGED algVars
         [] n = Sentinel ->
              /\ timers' = [timers EXCEPT ![n] = [t \in {"Ping"} |-> Ping]]
              /\ net' = net
              /\ UNCHANGED algVars
         [] n \in ClientIds ->
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ net' = Send(net, n, Sentinel, M("AskMaster"))
              /\ UNCHANGED algVars
         [] OTHER -> FALSE

Pause(n) == \E k \in MinPause..MaxPause : WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars
ClockJump(n) == \E by \in -MaxJump..MaxJump : WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Lose(l) == \E i \in 1..Len(net[l]) : WorldLose(l[1], l[2], i, Role) /\ UNCHANGED algVars
Duplicate(l) == \E i \in 1..Len(net[l]) : WorldDuplicate(l[1], l[2], i, Role) /\ UNCHANGED algVars

NoFault ==
    \/ Tick
    \/ \E n \in AllNodes, s \in StepNames : Step(n, s)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ ((\E n \in AllNodes : Restart(n)) \/ Heal)

Fault ==
    \/ DriftTick
    \/ \E n \in AllNodes : Crash(n) \/ Pause(n) \/ ClockJump(n)
    \/ ~Recoveries /\ ((\E n \in AllNodes : Restart(n)) \/ Heal)
    \/ \E a, b \in AllNodes : Partition(a, b)
    \/ \E l \in Links : Lose(l) \/ Duplicate(l)

Next == NoFault \/ Fault

\* The (node, step) and (node, timer) pairs that exist; the others are
\* never enabled, so their fairness conditions are vacuous.
StepPairs == (ClientIds \X {"Ask", "Check", "Use"}) \cup (RedisIds \X {"Propagate", "Lost"})
             \cup {<<Sentinel, "Failover">>}
TimerPairs == (ClientIds \X {"Timeout", "Retry", "Validity"})
              \cup (RedisIds \X ({"Key", "Cron"} \cup {WaitT(c) : c \in ClientIds}))
              \cup {<<Sentinel, "Ping">>}

Fairness ==
    /\ SF_vars(Tick)
    /\ \A p \in StepPairs : WF_vars(Step(p[1], p[2]))
    /\ \A p \in TimerPairs : WF_vars(Fire(p[1], p[2]))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

FaultsStop == <>[][NoFault]_vars

DeadlockFreedom ==
    FaultsStop => []((\E c \in ClientIds : Wants(c)) => <>(\E c \in ClientIds : Holds(c)))

StarvationFreedom ==
    FaultsStop => \A c \in ClientIds : [](Wants(c) => <>(Holds(c) \/ status[c] = "Down"))

=============================================================================
