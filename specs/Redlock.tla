------------------------------- MODULE Redlock -------------------------------
(***************************************************************************)
(* Redlock, the multi-master Redis lock, written from its published        *)
(* description (clean room), on top of the shared World module.           *)
(*                                                                         *)
(* Sources                                                                 *)
(*  [D] S. Sanfilippo (antirez), "Distributed locks with Redis",           *)
(*      redis.io/docs/manual/patterns/distributed-locks (redis-doc         *)
(*      topics/distlock.md): single-instance SET key value NX PX ttl;      *)
(*      release by the compare-and-delete Lua script                       *)
(*        if redis.call("get",KEYS[1]) == ARGV[1] then                     *)
(*            return redis.call("del",KEYS[1]) else return 0 end           *)
(*      the Redlock steps 1-5; validity = TTL - (T2 - T1) - CLOCK_DRIFT;   *)
(*      "retry on failure" after a random delay; "releasing the lock" on   *)
(*      all instances; the crash-recovery section (no persistence, AOF     *)
(*      fsync=always, delayed restarts of one max TTL).                    *)
(*  [A] antirez, "Is Redlock safe?" (2016): the elapsed-time check after   *)
(*      step 2 detects a pause or delay that happens during acquisition;   *)
(*      the random value can serve as a (non-monotonic) token.             *)
(*  [K] M. Kleppmann, "How to do distributed locking" (2016): a process    *)
(*      pause (GC) after the lock is acquired and before the write, the    *)
(*      lease expiring meanwhile, another client acquiring and writing:    *)
(*      both hold, and the old write lands late; a clock jump on a Redis   *)
(*      node expiring a key early; fencing tokens from a monotonic counter *)
(*      that the storage checks.                                           *)
(*  [R] redis.io SET command (NX, PX) and EVAL docs.                       *)
(*                                                                         *)
(* Nodes and their state                                                   *)
(*  Masters 1..Masters: independent Redis masters ([D]: "totally           *)
(*   independent, no replication"). One lock resource, so a master holds   *)
(*   at most one key: key[m] is its value (0 = no key) and the key's PX    *)
(*   expiry is the master's timer "key", in the master's ticks. owner[m]   *)
(*   is a ghost (the client whose SET created the key) used only to state  *)
(*   NoForeignRelease; the real server does not have it. Requests, as the  *)
(*   protocol has them:                                                    *)
(*     SET key v NX PX Ttl -> OK (key created) or nil (key exists);       *)
(*     EVAL release-script v -> delete iff the value is v.                 *)
(*   An expired key does not exist for any command (Redis checks the       *)
(*   expiry on access), even if the expiry timer's step has not run yet.   *)
(*  Clients: the Redlock recipe, step by step ([D]):                       *)
(*   1. start a stopwatch (T1) and draw a fresh random value;              *)
(*   2. send SET to the masters, by Requests: one after another            *)
(*      ("sequentially"), each with the per-request Timeout, moving to the *)
(*      next master on a reply or a timeout; or to all of them at once     *)
(*      (multiplexed), waiting until all have answered or the Timeout has  *)
(*      run out; a nil, a timeout or a dead master counts as not locked;   *)
(*   3./4. after the last answer or timeout: the lock is acquired iff it   *)
(*      was locked on a quorum (Masters \div 2 + 1) and the validity       *)
(*      Ttl - elapsed - Drift leaves more than Margin;                     *)
(*   5. otherwise release on all masters (even those not locked) and       *)
(*      retry after a random delay in Retry..RetryMax.                     *)
(*   A holder writes once to the resource, waits for its answer, then      *)
(*   releases on all masters ("releasing the lock").                       *)
(*  The resource (observer): accepts writes; with fencing it keeps the     *)
(*   largest token accepted and rejects a lower one ([K]).                 *)
(*                                                                         *)
(* Modelling choices and why                                               *)
(*  - Granularity: one message per request and per reply; a node's         *)
(*    handler is one atomic step (a Redis command is atomic, a Lua script  *)
(*    too). The check (steps 3-4) and the write are separate client steps, *)
(*    urgent but not atomic with what precedes them, because the windows   *)
(*    between them are where the published failures live ([A], [K]): a    *)
(*    pause before the check is seen by it, a pause after it is not.       *)
(*  - How step 2 sends its SETs is a constant, Requests, because [D]       *)
(*    gives two readings. Step 2 itself says "sequentially", one instance  *)
(*    after another, each with a timeout small compared to the TTL, so     *)
(*    that a dead instance is skipped quickly ("sequential", the reading   *)
(*    of the steps; one client library does this). Under "retry on         *)
(*    failure" [D] adds that the faster the majority is asked, the         *)
(*    smaller the split-brain window, "so ideally the client should try    *)
(*    to send the SET commands to the N instances at the same time using   *)
(*    multiplexing" ("parallel"; most client libraries do this). The two   *)
(*    differ in liveness, not only in speed: asked in turn, N round trips  *)
(*    of the worst delay can take more of the TTL than the check allows,   *)
(*    so a sequential client can fail every attempt with no fault.         *)
(*    "parallel": one client step sends SET to every master (one handler,  *)
(*    as the release sends DEL to all), and starts one timer of Timeout.   *)
(*    [D]'s timeout is per request, but all the requests leave at the same *)
(*    instant on the same clock, so their timeouts would all run out at    *)
(*    the same instant: one timer is the same thing, not an                *)
(*    approximation. The client waits for every master (the description    *)
(*    names no early exit on a quorum): the check comes when the last      *)
(*    awaited master has answered (the timer is then cancelled) or when    *)
(*    the timer fires, which ends the wait for those that have not; those  *)
(*    count as not locked, as a timed-out request does sequentially.       *)
(*    In both modes a reply is counted only if it answers a request being  *)
(*    waited for (that master, this attempt's value); a reply after its    *)
(*    timeout is ignored (the client library has given up on that          *)
(*    request), as are replies from older attempts.                        *)
(*  - Time is relative (World): T2 - T1 is a client stopwatch "elapsed"    *)
(*    saturating at Ttl (any value >= Ttl - Drift - Margin fails the       *)
(*    check); key expiry, request timeout, retry delay and the delayed     *)
(*    restart are timers.                                                  *)
(*  - Retry delay: drawn at the failed check, a timer in the client's      *)
(*    ticks; the retry happens when the timer fires (the client sleeps the *)
(*    drawn delay and tries again, as the implementations do), so the     *)
(*    delay's randomness is what desynchronises clients ([D]). Each draw   *)
(*    is a random choice and strongly fair (SEMANTICS): see Fairness.      *)
(*  - Release is fire-and-forget: the recipe does nothing with the         *)
(*    script's answer (a key not deleted expires anyway), so no reply is   *)
(*    modelled for it. The holder's belief ends when it sends it.         *)
(*  - The write: a message to the resource and an answer; the holder      *)
(*    releases after the answer (the write has landed). A rejected write   *)
(*    (fencing) ends the acquisition too: the holder then releases.       *)
(*  - Fencing "counter": the counter service is an unfaulted oracle asked *)
(*    at the moment the lock is won (the check step), so its token is      *)
(*    drawn in that step; its round trip is not modelled (the pause window *)
(*    after the check already covers a delay before the write).           *)
(*    Fencing "lock-value": the attempt's random value is the token and    *)
(*    the resource compares values as numbers; of the possible random      *)
(*    outcomes, the one that defeats fencing: a value drawn later is lower *)
(*    (NotOlder).                                                          *)
(*  - Values, ghost numbers and tokens only grow; this module keeps them   *)
(*    raw (MCRedlock renumbers them in a VIEW).                            *)
(*  - Persistence (RestartMode): "empty" loses the key; "fsync" keeps the  *)
(*    key and its expiry timer, which keeps running while the master is    *)
(*    down (Redis expiries are absolute times); "delayed" restarts empty   *)
(*    and answers nothing (requests are consumed unanswered, the client    *)
(*    times out) until a timer of Ttl fires.                               *)
(*  - Client crash: the process loses its attempt (it is a new process    *)
(*    after Restart); its keys stay on the masters until they expire;      *)
(*    the acquisitions it still owes are kept (the application still       *)
(*    wants the lock).                                                     *)
(*  - PauseWindow "acquiring": a client may be paused only while it is     *)
(*    trying (acquiring, before its check, or backing off between tries). *)
(*  - Partitions only cut client-master links: no other pair talks (the    *)
(*    resource's links are never faulted, World).                          *)
(*  - Not modelled: lock extension (not in the recipe's steps), several    *)
(*    lock resources, reordering (World: FIFO links, as TCP).              *)
(***************************************************************************)
EXTENDS World, Integers, Sequences, FiniteSets

CONSTANTS
    Masters,      \* number of independent Redis masters
    Clients,      \* number of lock clients
    Ttl,          \* PX of the SET, in a master's ticks
    Timeout,      \* per-request timeout, client ticks
    Drift,        \* clock-drift allowance subtracted from the validity
    Margin,       \* validity the client needs left at its check
    Retry,        \* retry delay, lower bound (client ticks)
    RetryMax,     \* retry delay, upper bound
    RestartMode,  \* "empty", "fsync", "delayed"
    Fencing,      \* "none", "lock-value", "counter"
    PauseWindow,  \* "any", "acquiring"
    Acquisitions, \* acquisitions per client, 0 = forever
    Requests      \* step 2's SETs: "sequential" or "parallel" (multiplexed)

ASSUME /\ Masters \in 1..9 /\ Clients \in 1..5
       /\ Ttl \in 1..50 /\ Timeout \in 1..50 /\ Drift \in 0..50 /\ Margin \in 0..50
       /\ Retry \in 1..50 /\ RetryMax \in Retry..50
       /\ RestartMode \in {"empty", "fsync", "delayed"}
       /\ Fencing \in {"none", "lock-value", "counter"}
       /\ PauseWindow \in {"any", "acquiring"}
       /\ Acquisitions \in Nat
       /\ Requests \in {"sequential", "parallel"}

MasterIds == 1..Masters
ClientIds == (Masters + 1)..(Masters + Clients)
Res       == Masters + Clients + 1         \* the protected resource
NodeIds   == MasterIds \cup ClientIds \cup {Res}
Quorum    == Masters \div 2 + 1

Links == {<<c, m>> : c \in ClientIds, m \in MasterIds}
         \cup {<<m, c>> : c \in ClientIds, m \in MasterIds}
         \cup {<<c, Res>> : c \in ClientIds} \cup {<<Res, c>> : c \in ClientIds}

VARIABLES
    key,       \* key[m]: the lock key's value on master m, 0 = no key
    owner,     \* owner[m]: ghost, the client whose SET created key[m]
    phase,     \* phase[c]: "idle", "acquiring", "check", "backoff",
               \*           "using" (checked, not yet written), "writing"
    left,      \* left[c]: acquisitions still to make (unused if Acquisitions = 0)
    val,       \* val[c]: the current attempt's random value, 0 = none
    idx,       \* idx[c]: "sequential": the master whose SET reply is
               \*   awaited, 0 = none; "parallel": always 0
    pending,   \* pending[c]: "parallel": the masters whose SET reply is
               \*   awaited; "sequential": always {}
    won,       \* won[c]: masters that answered OK in this attempt
    acq,       \* acq[c]: ghost number of c's current acquisition, 0 = none
    tok,       \* tok[c]: c's fencing token for its write
    counter,   \* the counter service's last token (Fencing = "counter")
    resToken,  \* resource: largest token accepted
    resGhost   \* resource: largest ghost number among accepted writes

algVars == <<key, owner, phase, left, val, idx, pending, won, acq, tok, counter,
             resToken, resGhost>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
(* What the world needs from the algorithm.                                *)

Role(n) == IF n \in MasterIds THEN "server"
           ELSE IF n \in ClientIds THEN "client" ELSE "observer"

\* The check and the write follow without waiting on the world.
Urgent(n) == n \in ClientIds /\ phase[n] \in {"check", "using"}

\* The only stopwatch is T2 - T1; nothing compares it beyond Ttl.
Cap(n, w) == Ttl

MayPause(n) ==
    n \in ClientIds =>
        \/ PauseWindow = "any"
        \/ phase[n] \in {"acquiring", "check", "backoff"}

Max(a, b) == IF a >= b THEN a ELSE b

-----------------------------------------------------------------------------
(* Messages                                                                *)

SetReq(v)        == [t |-> "set", v |-> v]                 \* SET k v NX PX Ttl
SetRep(v, ok)    == [t |-> "setReply", v |-> v, ok |-> ok] \* OK / nil
DelReq(v)        == [t |-> "del", v |-> v]                 \* the release script
WriteReq(g, k)   == [t |-> "write", g |-> g, k |-> k]      \* g is a ghost field
WriteRep         == [t |-> "done"]

-----------------------------------------------------------------------------
Init ==
    /\ WorldInit(NodeIds, Links)
    /\ key = [m \in MasterIds |-> 0]
    /\ owner = [m \in MasterIds |-> 0]
    /\ phase = [c \in ClientIds |-> "idle"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ val = [c \in ClientIds |-> 0]
    /\ idx = [c \in ClientIds |-> 0]
    /\ pending = [c \in ClientIds |-> {}]
    /\ won = [c \in ClientIds |-> {}]
    /\ acq = [c \in ClientIds |-> 0]
    /\ tok = [c \in ClientIds |-> 0]
    /\ counter = 0
    /\ resToken = 0
    /\ resGhost = 0

-----------------------------------------------------------------------------
(* Masters                                                                 *)

\* The key exists: set and not past its expiry.
Live(m) == key[m] # 0 /\ IsSet(m, "key") /\ Left(m, "key") > 0

\* Delayed restart: the master answers nothing yet.
Unavailable(m) == IsSet(m, "unavailable")

MasterRecv(c, m) ==
    LET msg == Msg(c, m) IN
    \/ /\ Unavailable(m)
       /\ net' = Pop(c, m)
       /\ UNCHANGED <<timers, key, owner, history>>
    \/ /\ ~Unavailable(m) /\ msg.t = "set"
       /\ IF Live(m)
          THEN /\ net' = Send(Pop(c, m), m, c, SetRep(msg.v, FALSE))
               /\ UNCHANGED <<timers, key, owner>>
          ELSE /\ key' = [key EXCEPT ![m] = msg.v]
               /\ owner' = [owner EXCEPT ![m] = c]
               /\ timers' = [timers EXCEPT ![m] = SetTimer(@, "key", Ttl)]
               /\ net' = Send(Pop(c, m), m, c, SetRep(msg.v, TRUE))
       /\ UNCHANGED history
    \/ /\ ~Unavailable(m) /\ msg.t = "del"
       /\ net' = Pop(c, m)
       /\ IF Live(m) /\ key[m] = msg.v
          THEN /\ key' = [key EXCEPT ![m] = 0]
               /\ owner' = [owner EXCEPT ![m] = 0]
               /\ timers' = [timers EXCEPT ![m] = CancelTimer(@, "key")]
               /\ history' = IF owner[m] # c THEN history \cup {"ForeignRelease"}
                             ELSE history
          ELSE UNCHANGED <<timers, key, owner, history>>

-----------------------------------------------------------------------------
(* Clients                                                                 *)

\* Step 1 and the start of step 2, from the timers tm: the first request
\* ("sequential") or all of them ("parallel"), with the request timeout.
StartAttempt(c, tm) ==
    /\ drawn' = drawn + 1
    /\ val' = [val EXCEPT ![c] = drawn + 1]
    /\ won' = [won EXCEPT ![c] = {}]
    /\ IF Requests = "sequential"
       THEN /\ idx' = [idx EXCEPT ![c] = 1]
            /\ net' = Send(net, c, 1, SetReq(drawn + 1))
            /\ UNCHANGED pending
       ELSE /\ pending' = [pending EXCEPT ![c] = MasterIds]
            /\ net' = SendAll(net, c, MasterIds, SetReq(drawn + 1))
            /\ UNCHANGED idx
    /\ phase' = [phase EXCEPT ![c] = "acquiring"]
    /\ timers' = [tm EXCEPT ![c] = SetTimer(@, "req", Timeout)]
    /\ watches' = [watches EXCEPT ![c] = StartWatch(@, "elapsed")]

\* "sequential": step 2 goes on with the next master, or ends (the check
\* comes next); q and tm are the network and timers after the current
\* request ended.
NextMaster(c, q, tm) ==
    IF idx[c] < Masters
    THEN /\ idx' = [idx EXCEPT ![c] = @ + 1]
         /\ net' = Send(q, c, idx[c] + 1, SetReq(val[c]))
         /\ timers' = [tm EXCEPT ![c] = SetTimer(@, "req", Timeout)]
         /\ UNCHANGED phase
    ELSE /\ idx' = [idx EXCEPT ![c] = 0]
         /\ phase' = [phase EXCEPT ![c] = "check"]
         /\ net' = q
         /\ timers' = tm

\* "parallel": master m has answered; step 2 ends when no master is left
\* to wait for (the timeout is then cancelled; the check comes next).
Answered(c, m) ==
    /\ pending' = [pending EXCEPT ![c] = @ \ {m}]
    /\ IF pending[c] = {m}
       THEN /\ phase' = [phase EXCEPT ![c] = "check"]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "req")]
       ELSE UNCHANGED <<phase, timers>>
    /\ net' = Pop(m, c)
    /\ UNCHANGED idx

\* A SET reply: counted only if it answers a request being waited for.
Awaited(c, m) == IF Requests = "sequential" THEN idx[c] = m ELSE m \in pending[c]

ClientReply(m, c) ==
    LET msg == Msg(m, c) IN
    /\ msg.t = "setReply"
    /\ IF phase[c] = "acquiring" /\ Awaited(c, m) /\ msg.v = val[c]
       THEN /\ won' = [won EXCEPT ![c] = IF msg.ok THEN @ \cup {m} ELSE @]
            /\ IF Requests = "sequential"
               THEN /\ NextMaster(c, Pop(m, c), [timers EXCEPT ![c] = CancelTimer(@, "req")])
                    /\ UNCHANGED pending
               ELSE Answered(c, m)
       ELSE /\ net' = Pop(m, c)
            /\ UNCHANGED <<won, idx, pending, phase, timers>>
    /\ UNCHANGED <<watches, left, val, acq, tok, counter, drawn, ghost>>

\* The resource's answer to the write: the holder releases on all masters.
ClientDone(c) ==
    /\ Msg(Res, c).t = "done"
    /\ IF phase[c] = "writing"
       THEN /\ net' = SendAll(Pop(Res, c), c, MasterIds, DelReq(val[c]))
            /\ phase' = [phase EXCEPT ![c] = "idle"]
            /\ left' = [left EXCEPT ![c] = IF Acquisitions = 0 THEN 0 ELSE @ - 1]
            /\ val' = [val EXCEPT ![c] = 0]
            /\ acq' = [acq EXCEPT ![c] = 0]
            /\ tok' = [tok EXCEPT ![c] = 0]
       ELSE /\ net' = Pop(Res, c)
            /\ UNCHANGED <<phase, left, val, acq, tok>>
    /\ UNCHANGED <<timers, watches, won, idx, pending, counter, drawn, ghost>>

\* The client comes to want the lock (not urgent; weakly fair).
Want(c) ==
    /\ Up(c) /\ phase[c] = "idle" /\ (Acquisitions = 0 \/ left[c] > 0)
    /\ StartAttempt(c, timers)
    /\ UNCHANGED <<status, pause, skew, cut, spent, ghost, history,
                   key, owner, left, acq, tok, counter, resToken, resGhost>>

Validity(c) == Ttl - Elapsed(c, "elapsed") - Drift
Wins(c) == Cardinality(won[c]) >= Quorum /\ Validity(c) > Margin

\* Steps 3-4 succeed: the client holds the lock from here.
CheckWin(c) ==
    /\ Up(c) /\ phase[c] = "check" /\ Wins(c)
    /\ ghost' = ghost + 1
    /\ acq' = [acq EXCEPT ![c] = ghost + 1]
    /\ counter' = IF Fencing = "counter" THEN counter + 1 ELSE counter
    /\ tok' = [tok EXCEPT ![c] = CASE Fencing = "counter"    -> counter + 1
                                   [] Fencing = "lock-value" -> val[c]
                                   [] OTHER                  -> 0]
    /\ phase' = [phase EXCEPT ![c] = "using"]
    /\ won' = [won EXCEPT ![c] = {}]
    /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "elapsed")]
    /\ UNCHANGED <<status, pause, skew, timers, net, cut, spent, drawn, history,
                   key, owner, left, val, idx, pending, resToken, resGhost>>

\* Step 5: release on all masters, back off for a random delay d.
CheckFail(c, d) ==
    /\ Up(c) /\ phase[c] = "check" /\ ~Wins(c)
    /\ d \in Retry..RetryMax
    /\ net' = SendAll(net, c, MasterIds, DelReq(val[c]))
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "retry", d)]
    /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "elapsed")]
    /\ phase' = [phase EXCEPT ![c] = "backoff"]
    /\ won' = [won EXCEPT ![c] = {}]
    /\ val' = [val EXCEPT ![c] = 0]
    /\ UNCHANGED <<status, pause, skew, cut, spent, ghost, drawn, history,
                   key, owner, left, idx, pending, acq, tok, counter, resToken, resGhost>>

Check(c) == CheckWin(c) \/ \E d \in Retry..RetryMax : CheckFail(c, d)

\* The holder uses the lock: one write to the resource.
Write(c) ==
    /\ Up(c) /\ phase[c] = "using"
    /\ net' = Send(net, c, Res, WriteReq(acq[c], tok[c]))
    /\ phase' = [phase EXCEPT ![c] = "writing"]
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history,
                   key, owner, left, val, idx, pending, won, acq, tok, counter,
                   resToken, resGhost>>

-----------------------------------------------------------------------------
(* The resource                                                            *)

\* Whether token k is no older than r, the newest the resource has seen (0:
\* none yet). Counter tokens grow with each acquisition. Random lock values
\* have no order: the resource compares them as numbers, and this module
\* fixes the outcome of the draws that defeats fencing, a value drawn later
\* comparing lower (the header's "Fencing"). Values are drawn from 1 up.
NotOlder(k, r) == CASE Fencing = "counter"    -> k >= r
                    [] Fencing = "lock-value" -> r = 0 \/ k <= r
                    [] OTHER                  -> TRUE

ResRecv(c) ==
    LET msg == Msg(c, Res)
        accept == NotOlder(msg.k, resToken)
    IN
    /\ msg.t = "write"
    /\ net' = Send(Pop(c, Res), Res, c, WriteRep)
    /\ IF accept
       THEN /\ resToken' = IF Fencing = "none" THEN resToken ELSE msg.k
            /\ resGhost' = Max(resGhost, msg.g)
            /\ history' = IF msg.g < resGhost THEN history \cup {"StaleWrite"} ELSE history
       ELSE UNCHANGED <<resToken, resGhost, history>>

-----------------------------------------------------------------------------
(* Deliveries and timers                                                   *)

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ /\ dst \in MasterIds
          /\ MasterRecv(src, dst)
          /\ UNCHANGED <<watches, phase, left, val, idx, pending, won, acq, tok, counter,
                         resToken, resGhost, drawn, ghost>>
       \/ /\ dst = Res
          /\ ResRecv(src)
          /\ UNCHANGED <<timers, watches, key, owner, phase, left, val, idx, pending, won,
                         acq, tok, counter, drawn, ghost>>
       \/ /\ dst \in ClientIds /\ src \in MasterIds
          /\ ClientReply(src, dst)
          /\ UNCHANGED <<key, owner, resToken, resGhost, history>>
       \/ /\ dst \in ClientIds /\ src = Res
          /\ ClientDone(dst)
          /\ UNCHANGED <<key, owner, resToken, resGhost, history>>
    /\ UNCHANGED <<status, pause, skew, cut, spent>>

TimerNames == {"key", "unavailable", "req", "retry"}

Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ \/ /\ n \in MasterIds /\ t = "key"              \* the key expires
          /\ key' = [key EXCEPT ![n] = 0]
          /\ owner' = [owner EXCEPT ![n] = 0]
          /\ timers' = Expired(n, t)
          /\ UNCHANGED <<net, watches, phase, val, idx, pending, won, drawn>>
       \/ /\ n \in MasterIds /\ t = "unavailable"      \* delayed restart over
          /\ timers' = Expired(n, t)
          /\ UNCHANGED <<net, watches, key, owner, phase, val, idx, pending, won, drawn>>
       \/ /\ n \in ClientIds /\ t = "req"              \* the request(s) timed out
          /\ IF phase[n] = "acquiring" /\ Requests = "sequential"
             THEN /\ NextMaster(n, net, Expired(n, t))
                  /\ UNCHANGED pending
             ELSE IF phase[n] = "acquiring"            \* "parallel": stop waiting
             THEN /\ pending' = [pending EXCEPT ![n] = {}]
                  /\ phase' = [phase EXCEPT ![n] = "check"]
                  /\ timers' = Expired(n, t)
                  /\ UNCHANGED <<net, idx>>
             ELSE /\ timers' = Expired(n, t)
                  /\ UNCHANGED <<net, phase, idx, pending>>
          /\ UNCHANGED <<watches, key, owner, val, won, drawn>>
       \/ /\ n \in ClientIds /\ t = "retry"            \* back-off over: retry
          /\ IF phase[n] = "backoff"
             THEN StartAttempt(n, Expired(n, t))
             ELSE /\ timers' = Expired(n, t)
                  /\ UNCHANGED <<net, watches, phase, val, idx, pending, won, drawn>>
          /\ UNCHANGED <<key, owner>>
    /\ UNCHANGED <<status, pause, skew, cut, spent, ghost, history,
                   left, acq, tok, counter, resToken, resGhost>>

-----------------------------------------------------------------------------
(* The world's actions                                                     *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars

DriftTick == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

Crash(n) ==
    /\ n \in MasterIds \cup ClientIds
    /\ IF n \in MasterIds
       THEN /\ WorldCrash(n, IF RestartMode = "fsync" THEN Keep(timers[n], {"key"})
                             ELSE NoTimers, Role)
            /\ IF RestartMode = "fsync"
               THEN UNCHANGED <<key, owner>>
               ELSE /\ key' = [key EXCEPT ![n] = 0]
                    /\ owner' = [owner EXCEPT ![n] = 0]
            /\ UNCHANGED <<phase, val, idx, pending, won, acq, tok>>
       ELSE /\ WorldCrash(n, NoTimers, Role)
            /\ phase' = [phase EXCEPT ![n] = "idle"]
            /\ val' = [val EXCEPT ![n] = 0]
            /\ idx' = [idx EXCEPT ![n] = 0]
            /\ pending' = [pending EXCEPT ![n] = {}]
            /\ won' = [won EXCEPT ![n] = {}]
            /\ acq' = [acq EXCEPT ![n] = 0]
            /\ tok' = [tok EXCEPT ![n] = 0]
            /\ UNCHANGED <<key, owner>>
    /\ UNCHANGED <<left, counter, resToken, resGhost>>

Restart(n) ==
    /\ n \in MasterIds \cup ClientIds
    /\ WorldRestart(n)
    /\ timers' = [timers EXCEPT ![n] =
                    IF n \in ClientIds THEN NoTimers
                    ELSE CASE RestartMode = "fsync"   -> Keep(@, {"key"})
                           [] RestartMode = "delayed" -> SetTimer(NoTimers, "unavailable", Ttl)
                           [] OTHER                   -> NoTimers]
    /\ UNCHANGED <<net, ghost, drawn, history>>
    /\ UNCHANGED algVars

Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars

Partition(a, b) ==
    /\ a \in MasterIds /\ b \in ClientIds
    /\ WorldPartition(a, b, Role)
    /\ UNCHANGED algVars

Heal == WorldHeal /\ UNCHANGED algVars

Lose(s, d, i) == WorldLose(s, d, i, Role) /\ UNCHANGED algVars

Duplicate(s, d, i) == WorldDuplicate(s, d, i, Role) /\ UNCHANGED algVars

ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

-----------------------------------------------------------------------------
Steps(c) == Want(c) \/ Check(c) \/ Write(c)

NoFault ==
    \/ Tick
    \/ \E c \in ClientIds : Steps(c)
    \/ \E n \in NodeIds, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (\/ \E n \in NodeIds : Restart(n)
                      \/ Heal)

Fault ==
    \/ DriftTick
    \/ \E n \in NodeIds : Crash(n) \/ Restart(n)
    \/ \E n \in NodeIds, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E a, b \in NodeIds : Partition(a, b)
    \/ Heal
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in NodeIds, by \in -MaxJump..MaxJump : ClockJump(n, by)

Next == NoFault \/ Fault

(***************************************************************************)
(* Fairness (SEMANTICS section 5, World's shape): weak fairness for Tick,  *)
(* each client's own steps, each node's timers, each link's delivery, and  *)
(* Restart/Heal when Recovery = "eventual"; never a fault.                 *)
(*                                                                         *)
(* The retry delay is a random choice whose outcomes are strongly fair     *)
(* (SEMANTICS): a run that keeps taking one outcome while another is       *)
(* enabled infinitely often is not fair. Stated per state, that is: from   *)
(* a state visited infinitely often, every delay is drawn infinitely       *)
(* often. Per outcome alone (SF of "c draws d") is weaker and admits the   *)
(* probability-zero run in which two clients always draw equal delays      *)
(* (each draws both values infinitely often, always the same as the        *)
(* other). TLC expands each SF into a disjunction (2^k cases for k of      *)
(* them), so the per-state condition cannot be written out; this spec     *)
(* keeps the consequence of it that matters for clients racing each        *)
(* other: if c is infinitely often about to draw while another client's    *)
(* back-off is pending, it infinitely often draws a delay different from   *)
(* that client's remaining back-off (Desync). This is implied by per-state *)
(* strong fairness (a state where such a draw is possible recurs, and the  *)
(* different delay is one of its outcomes), so it only removes runs of     *)
(* probability zero; with a fixed delay (Retry = RetryMax) it is void.     *)
(***************************************************************************)
Desync(c) ==
    \E d \in Retry..RetryMax :
        /\ CheckFail(c, d)
        /\ \E o \in ClientIds \ {c} : IsSet(o, "retry") /\ Left(o, "retry") # d

\* The timers each node may have.
Fireable == (MasterIds \X {"key", "unavailable"}) \cup (ClientIds \X {"req", "retry"})

Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Want(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A p \in Fireable : WF_vars(Fire(p[1], p[2]))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in MasterIds \cup ClientIds : WF_vars(Restart(n))
                     /\ WF_vars(Heal)
    /\ RetryMax > Retry => \A c \in ClientIds : SF_vars(Desync(c))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The lock view (SEMANTICS section 5) and the properties.                 *)

\* c holds the lock from its successful check until it has written and
\* released; a client that counted a quorum but failed the check never held.
Holding(c) == phase[c] \in {"using", "writing"}

\* c wants the lock: it is trying and does not hold it.
Wants(c) == phase[c] \in {"acquiring", "check", "backoff"}

Alive(n) == status[n] # "Down"

MutualExclusion ==
    \A c1, c2 \in ClientIds : c1 # c2 => ~(Holding(c1) /\ Holding(c2))

\* The resource never accepted a write from an earlier acquisition after
\* one from a later one (ghost numbers order the acquisitions).
NoStaleWrite == "StaleWrite" \notin history

\* A release never deleted a key another client's SET created.
NoForeignRelease == "ForeignRelease" \notin history

TypeOK ==
    /\ WorldTypeOK
    /\ DOMAIN status = NodeIds
    /\ key \in [MasterIds -> Nat] /\ owner \in [MasterIds -> {0} \cup ClientIds]
    /\ phase \in [ClientIds -> {"idle", "acquiring", "check", "backoff", "using", "writing"}]
    /\ left \in [ClientIds -> 0..Acquisitions]
    /\ val \in [ClientIds -> Nat] /\ idx \in [ClientIds -> 0..Masters]
    /\ pending \in [ClientIds -> SUBSET MasterIds]
    /\ won \in [ClientIds -> SUBSET MasterIds]
    /\ acq \in [ClientIds -> Nat] /\ tok \in [ClientIds -> Nat]
    /\ counter \in Nat /\ resToken \in Nat /\ resGhost \in Nat
    /\ \A c \in ClientIds : Holding(c) <=> acq[c] # 0

FaultsStop == <>[][NoFault]_vars

DeadlockFreedom ==
    FaultsStop =>
        ((\E c \in ClientIds : Alive(c) /\ Wants(c))
            ~> (\E c \in ClientIds : Holding(c)))

StarvationFreedom ==
    FaultsStop =>
        \A c \in ClientIds : (Alive(c) /\ Wants(c)) ~> Holding(c)

=============================================================================
