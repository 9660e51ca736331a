---------------------------- MODULE SingleRedis ----------------------------
(***************************************************************************)
(* A lock on ONE Redis server, written clean-room from the published       *)
(* descriptions (not from locksmith's Rust model nor its older spec).      *)
(*                                                                         *)
(* Sources                                                                 *)
(*  [SET]     redis.io/commands/set: SET key value NX PX ms sets the key   *)
(*            only if it does not exist, with an expiry, atomically; reply *)
(*            OK or nil. "Any previous time to live ... is discarded".     *)
(*  [SETNX]   redis.io/commands/setnx: set if not exists, reply 1/0, no    *)
(*            expiry; its old "Locking with SETNX" pattern (SETNX, DEL).   *)
(*  [EXPIRE]  redis.io/commands/expire, pexpire: set a timeout on an       *)
(*            existing key (reply 1), 0 when the key does not exist; a key *)
(*            past its timeout is deleted (lazily on access, or actively). *)
(*            Expiry is stored as an absolute Unix time, so time flows for *)
(*            a key even while the server is down.                         *)
(*  [DEL], [INCR], [EVAL] redis.io/commands: DEL removes a key whoever set *)
(*            it; INCR returns the incremented counter; a Lua script runs  *)
(*            atomically.                                                  *)
(*  [DL]      redis.io/docs/manual/patterns/distributed-locks ("Distributed*)
(*            Locks with Redis"), single-instance section: acquire with    *)
(*            SET resource random_value NX PX ttl, a value unique per      *)
(*            attempt; release with the Lua script "if GET == ARGV[1] then *)
(*            DEL"; retry after a (random) delay when refused; the Redlock *)
(*            client's validity = ttl - elapsed - drift, used only if      *)
(*            positive (here: above Margin); a failed attempt unlocks.     *)
(*            "Performance, crash recovery and fsync": without persistence *)
(*            a restarted server forgets the key (safety lost); with       *)
(*            appendfsync always the key survives.                         *)
(*  [PERSIST] redis.io/docs/management/persistence: appendfsync always     *)
(*            fsyncs every write before it is acknowledged.                *)
(*  [WD]      Redisson RedissonLock / RedissonBaseLock: lockWatchdogTimeout*)
(*            is the lease; renewExpiration() runs every                   *)
(*            internalLockLeaseTime / 3 the script "if hexists(key, me)    *)
(*            then pexpire(key, lease); return 1 end; return 0", and       *)
(*            reschedules itself only on reply 1 (on 0 or an error it      *)
(*            stops); unlock cancels it.                                   *)
(*  [MK]      M. Kleppmann, "How to do distributed locking" (2016): a      *)
(*            fencing token, increasing with every grant, sent with each   *)
(*            write; the storage rejects a write whose token is lower than *)
(*            one it has already processed. A GC pause longer than the TTL *)
(*            lets two clients hold the lock.                              *)
(*                                                                         *)
(* Modelling choices (and why)                                             *)
(*  - Nodes: the server is node 0, clients 1..Clients, the protected       *)
(*    resource (an observer, never faulted) Clients+1. Links: each client  *)
(*    to and from the server and the resource; none between clients (they *)
(*    never talk to each other).                                           *)
(*  - Granularity: one Redis command (or one Lua script, which Redis runs  *)
(*    atomically [EVAL]) is one atomic step of the server, at delivery of  *)
(*    the request; the reply is sent in the same step. One client handler  *)
(*    (a reply, a timer) is one step; a request goes out in the step that  *)
(*    decides it.                                                          *)
(*  - The key's TTL is the server's timer "Key" (World: a TTL is a timer   *)
(*    on the server). An expired key is deleted by the timer's step        *)
(*    (active expiry), and every command treats a key whose timer reads 0  *)
(*    as absent and deletes it (lazy expiry, [EXPIRE]); so a request that  *)
(*    arrives at the very tick of expiry sees no key, as on a real server. *)
(*  - The value: a fresh random value per attempt [DL], drawn from the     *)
(*    world's counter `drawn` (only equality is ever used). The key also   *)
(*    carries two ghost fields the real server does not have: the client  *)
(*    whose request set it (to state NoForeignRelease) and the ghost       *)
(*    number of that grant.                                                *)
(*  - Acquisitions are numbered (ghost) at the server, when the SET/SETNX  *)
(*    succeeds: that is when the lock is acquired, and the order fencing   *)
(*    tokens follow. The number travels in the reply and in the write.     *)
(*  - Fencing [MK]: the grant and an INCR of a counter run in one script;  *)
(*    the counter value is the token. The counter is a Redis key, so it    *)
(*    survives a restart only with RestartMode = "fsync".                  *)
(*  - Persistence: "empty" loses the keyspace at a crash; "fsync" keeps    *)
(*    the key, its value, the counter, and the key's expiry as a deadline  *)
(*    that keeps running while the server is down (World keeps the timer  *)
(*    and ticks a crashed node's clock). Redis has no other state.         *)
(*  - Client recipe (Command): "set-nx-px": one SET NX PX; "setnx": SETNX  *)
(*    with no expiry; "setnx-expire": SETNX, and once it answers 1, EXPIRE *)
(*    key ttl as a second command (plain EXPIRE: no value check, as the    *)
(*    old pattern has none). The client holds from the grant reply.        *)
(*    ReleaseCommand: "del" = DEL key; "compare-and-delete" = the [DL]     *)
(*    script. Watchdog = [WD] with renewal period Ttl \div 3 (at least 1). *)
(*  - Client kind: "naive" holds from the grant reply until its write is   *)
(*    answered. "validity" [DL] starts a stopwatch when it sends the       *)
(*    request; on the grant reply it computes Ttl - elapsed - Drift and    *)
(*    uses the lock only if that is > Margin, else it unlocks (the release *)
(*    command) and retries. The validity check is done in the grant-reply  *)
(*    step (the check reads the stopwatch there); the use (sending the     *)
(*    write) is a separate, urgent step, so a pause can fall between the   *)
(*    check and the use, exactly the window [MK] describes; a pause before *)
(*    the reply is handled is seen by the stopwatch.                       *)
(*  - Timeouts: every request has a Timeout timer in the client's ticks.   *)
(*    An acquire that times out failed (back off, retry with a fresh       *)
(*    value); an EXPIRE or a release that times out counts as done. A late *)
(*    reply is recognised by its value and discarded, as a client library  *)
(*    discards the answer of a request it has given up on. A lost request  *)
(*    or reply, a crashed server or a cut link is noticed only through     *)
(*    that timeout (World drops the message; the connection failing fast   *)
(*    would only make the client notice earlier).                          *)
(*  - Retry: after a refusal the client waits Retry ticks (timer), then    *)
(*    asks again at any later moment (the step is weakly fair, not urgent: *)
(*    [DL]'s retry delay is random). Coming to want the lock is likewise a *)
(*    weakly fair, non-urgent step.                                        *)
(*  - Resource: accepts every write, or with Fencing rejects a write whose *)
(*    token is below the highest it has seen; it answers either way.       *)
(*  - Lock view (SEMANTICS.md section 5): a client holds in phases         *)
(*    expiring/use/writing (from the grant it may use, until the write is  *)
(*    answered, when it sends its release); it wants in want/acquiring/    *)
(*    backoff/unlocking (a validity client whose check failed never held). *)
(*  - A client crash loses its phase, value, token and timers (it comes    *)
(*    back idle and may want again); its count of finished acquisitions is *)
(*    workload bookkeeping and is kept.                                    *)
(*  - Not modelled: Redis replication/failover (a single instance), reads  *)
(*    (GET) outside the release script, key eviction under maxmemory.      *)
(***************************************************************************)
EXTENDS World, Integers, Sequences, FiniteSets

CONSTANTS
    Clients,         \* number of lock clients
    Ttl,             \* key expiry, server ticks
    Command,         \* "setnx", "setnx-expire", "set-nx-px"
    ReleaseCommand,  \* "del", "compare-and-delete"
    Watchdog,        \* Redisson-style renewal
    Fencing,         \* INCR'd fencing token checked by the resource
    Retry,           \* back-off after a refusal/failed attempt, client ticks
    RestartMode,     \* "empty" or "fsync"
    Timeout,         \* per-request timeout, client ticks
    Client,          \* "naive" or "validity"
    Drift,           \* validity client: drift allowance
    Margin,          \* validity client: minimum validity left
    Acquisitions     \* per client; 0 = forever

ASSUME /\ Clients \in 1..5 /\ Ttl \in 1..30
       /\ Command \in {"setnx", "setnx-expire", "set-nx-px"}
       /\ ReleaseCommand \in {"del", "compare-and-delete"}
       /\ Watchdog \in BOOLEAN /\ Fencing \in BOOLEAN
       /\ Retry \in 0..30 /\ Timeout \in 1..30
       /\ RestartMode \in {"empty", "fsync"}
       /\ Client \in {"naive", "validity"}
       /\ Drift \in 0..30 /\ Margin \in 0..30 /\ Acquisitions \in 0..5

VARIABLES
    key,       \* the lock key: None, or [val, owner, g] (owner, g are ghost)
    counter,   \* the fencing counter key (0 when absent)
    pc,        \* pc[c]: the client's phase
    val,       \* val[c]: the random value of c's current attempt (0: none)
    token,     \* token[c]: fencing token of c's current grant (0: none)
    gnum,      \* gnum[c]: ghost number of c's current grant (0: none)
    done,      \* done[c]: acquisitions c has finished
    renewing,  \* renewing[c]: a watchdog renewal is awaiting its reply
    maxTok,    \* resource: the highest fencing token it has seen
    maxG       \* resource (ghost): highest acquisition number it accepted

serverVars == <<key, counter>>
clientVars == <<pc, val, token, gnum, done, renewing>>
resourceVars == <<maxTok, maxG>>
algVars == <<key, counter, pc, val, token, gnum, done, renewing, maxTok, maxG>>
vars == <<worldVars, algVars>>

-----------------------------------------------------------------------------
Server == 0
ClientSet == 1..Clients
Resource == Clients + 1
AllNodes == 0..Clients + 1

Links == UNION {{<<c, Server>>, <<Server, c>>, <<c, Resource>>, <<Resource, c>>} : c \in ClientSet}

Role(n) == IF n = Server THEN "server" ELSE IF n = Resource THEN "observer" ELSE "client"

Phases == {"idle", "want", "acquiring", "backoff", "unlocking",
           "expiring", "use", "writing", "releasing", "done"}
HoldPhases == {"expiring", "use", "writing"}
WantPhases == {"want", "acquiring", "backoff", "unlocking"}

TimerNames == {"Key", "Timeout", "Retry", "Renew", "RenewWait"}
StepNames == {"want", "ask", "write"}

RenewPeriod == IF Ttl \div 3 < 1 THEN 1 ELSE Ttl \div 3

\* Every message has one shape: type, value, ok flag, token, ghost number.
Mk(t, v, ok, tok, g) == [t |-> t, v |-> v, ok |-> ok, tok |-> tok, g |-> g]

Max(a, b) == IF a >= b THEN a ELSE b

-----------------------------------------------------------------------------
(* World hooks.                                                            *)

\* The only step a client takes without waiting on the world: sending the
\* write once it holds (the follow-up of its grant handling).
Urgent(n) == n \in ClientSet /\ pc[n] = "use"

\* The validity client's stopwatch: any elapsed >= Ttl gives the same
\* (failing) check, so it saturates there.
Cap(n, w) == Ttl

MayPause(n) == Role(n) # "observer"

-----------------------------------------------------------------------------
Init ==
    /\ WorldInit(AllNodes, Links)
    /\ key = None
    /\ counter = 0
    /\ pc = [c \in ClientSet |-> "idle"]
    /\ val = [c \in ClientSet |-> 0]
    /\ token = [c \in ClientSet |-> 0]
    /\ gnum = [c \in ClientSet |-> 0]
    /\ done = [c \in ClientSet |-> 0]
    /\ renewing = [c \in ClientSet |-> FALSE]
    /\ maxTok = 0
    /\ maxG = 0

-----------------------------------------------------------------------------
(* The server. A key whose timer reads 0 has expired: every command sees  *)
(* it as absent (lazy expiry) and deletes it.                              *)

KeyLive == key # None /\ ~(IsSet(Server, "Key") /\ Left(Server, "Key") = 0)
LiveKey == IF KeyLive THEN key ELSE None
\* The server's timers once an expired key is gone.
STimers == IF KeyLive THEN timers[Server] ELSE CancelTimer(timers[Server], "Key")

\* One command from c: new key, server timers, counter, ghost; the reply;
\* whether it removed a key another client acquired.
ServerDo(c, k, st, cnt, gh, reply, foreign) ==
    /\ key' = k
    /\ counter' = cnt
    /\ ghost' = gh
    /\ timers' = [timers EXCEPT ![Server] = st]
    /\ net' = Send(Pop(c, Server), Server, c, reply)
    /\ history' = IF foreign THEN history \cup {"ForeignRelease"} ELSE history
    /\ UNCHANGED <<status, pause, skew, watches, cut, spent, drawn>>
    /\ UNCHANGED <<clientVars, resourceVars>>

\* SET key v NX PX Ttl, or SETNX key v (with Fencing, in one script with
\* INCR counter). The grant is acquisition number ghost + 1.
ServerAcquire(c, m) ==
    IF LiveKey = None
    THEN LET g == ghost + 1
             cnt == IF Fencing THEN counter + 1 ELSE counter
             tok == IF Fencing THEN cnt ELSE 0
             st == IF Command = "set-nx-px"
                   THEN SetTimer(STimers, "Key", Ttl)
                   ELSE STimers   \* SETNX: no expiry
         IN ServerDo(c, [val |-> m.v, owner |-> c, g |-> g], st, cnt, g,
                     Mk("acqR", m.v, TRUE, tok, g), FALSE)
    ELSE ServerDo(c, key, STimers, counter, ghost,
                  Mk("acqR", m.v, FALSE, 0, 0), FALSE)

\* EXPIRE key Ttl: on whatever key is there, no value check.
ServerExpire(c, m) ==
    IF LiveKey # None
    THEN ServerDo(c, key, SetTimer(STimers, "Key", Ttl), counter, ghost,
                  Mk("expR", m.v, TRUE, 0, 0), FALSE)
    ELSE ServerDo(c, None, STimers, counter, ghost,
                  Mk("expR", m.v, FALSE, 0, 0), FALSE)

\* DEL key, or the compare-and-delete script.
ServerRelease(c, m) ==
    LET k == LiveKey
        removes == k # None /\ (ReleaseCommand = "del" \/ k.val = m.v)
    IN IF removes
       THEN ServerDo(c, None, CancelTimer(STimers, "Key"), counter, ghost,
                     Mk("relR", m.v, TRUE, 0, 0), k.owner # c)
       ELSE ServerDo(c, k, STimers, counter, ghost,
                     Mk("relR", m.v, FALSE, 0, 0), FALSE)

\* Redisson's renewal script: PEXPIRE only if the key is still c's.
ServerRenew(c, m) ==
    IF LiveKey # None /\ key.val = m.v
    THEN ServerDo(c, key, SetTimer(STimers, "Key", Ttl), counter, ghost,
                  Mk("renewR", m.v, TRUE, 0, 0), FALSE)
    ELSE ServerDo(c, LiveKey, STimers, counter, ghost,
                  Mk("renewR", m.v, FALSE, 0, 0), FALSE)

ServerRecv(c) ==
    LET m == Msg(c, Server) IN
    CASE m.t = "acq"   -> ServerAcquire(c, m)
      [] m.t = "exp"   -> ServerExpire(c, m)
      [] m.t = "rel"   -> ServerRelease(c, m)
      [] m.t = "renew" -> ServerRenew(c, m)

\* Active expiry.
ServerFire(t) ==
    /\ t = "Key"
    /\ key' = None
    /\ timers' = Expired(Server, "Key")
    /\ UNCHANGED <<status, pause, skew, watches, net, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<counter, clientVars, resourceVars>>

-----------------------------------------------------------------------------
(* The protected resource.                                                 *)

ResourceRecv(c) ==
    LET m == Msg(c, Resource)
        accept == ~Fencing \/ m.tok >= maxTok
    IN
    /\ m.t = "write"
    /\ maxTok' = IF accept THEN Max(maxTok, m.tok) ELSE maxTok
    /\ maxG' = IF accept THEN Max(maxG, m.g) ELSE maxG
    /\ history' = IF accept /\ m.g < maxG THEN history \cup {"StaleWrite"} ELSE history
    /\ net' = Send(Pop(c, Resource), Resource, c, Mk("writeR", 0, accept, m.tok, m.g))
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn>>
    /\ UNCHANGED <<serverVars, clientVars>>

-----------------------------------------------------------------------------
(* The clients.                                                            *)

CTimers(c, f) == [timers EXCEPT ![c] = f]
CWatches(c, f) == [watches EXCEPT ![c] = f]

UnchangedClientWorld == UNCHANGED <<status, pause, skew, cut, spent, ghost, history>>

\* Finished (release answered or timed out): count it, forget the attempt.
Finish(c) ==
    /\ done' = [done EXCEPT ![c] = IF Acquisitions > 0 THEN @ + 1 ELSE @]
    /\ pc' = [pc EXCEPT ![c] = IF Acquisitions > 0 /\ done[c] + 1 >= Acquisitions
                               THEN "done" ELSE "idle"]
    /\ val' = [val EXCEPT ![c] = 0]
    /\ token' = [token EXCEPT ![c] = 0]
    /\ gnum' = [gnum EXCEPT ![c] = 0]

\* Start the back-off after a refused or failed attempt.
BackOff(c) ==
    /\ pc' = [pc EXCEPT ![c] = "backoff"]
    /\ val' = [val EXCEPT ![c] = 0]
    /\ token' = [token EXCEPT ![c] = 0]
    /\ gnum' = [gnum EXCEPT ![c] = 0]

\* Step "want": c comes to want the lock (at any moment, weakly fair).
Want(c) ==
    /\ Up(c) /\ pc[c] = "idle"
    /\ pc' = [pc EXCEPT ![c] = "want"]
    /\ UNCHANGED worldVars
    /\ UNCHANGED <<serverVars, val, token, gnum, done, renewing, resourceVars>>

\* Step "ask": SET key v NX PX Ttl (or SETNX) with a fresh random value.
Ask(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ pc[c] = "want"
    /\ drawn' = v
    /\ val' = [val EXCEPT ![c] = v]
    /\ pc' = [pc EXCEPT ![c] = "acquiring"]
    /\ net' = Send(net, c, Server, Mk("acq", v, FALSE, 0, 0))
    /\ timers' = CTimers(c, SetTimer(timers[c], "Timeout", Timeout))
    /\ watches' = IF Client = "validity"
                  THEN CWatches(c, StartWatch(watches[c], "Elapsed"))
                  ELSE watches
    /\ UnchangedClientWorld
    /\ UNCHANGED <<serverVars, token, gnum, done, renewing, resourceVars>>

\* Step "write": the holder uses the resource, once.
Write(c) ==
    /\ Up(c) /\ pc[c] = "use"
    /\ pc' = [pc EXCEPT ![c] = "writing"]
    /\ net' = Send(net, c, Resource, Mk("write", 0, FALSE, token[c], gnum[c]))
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<serverVars, val, token, gnum, done, renewing, resourceVars>>

Step(c, s) ==
    /\ c \in ClientSet
    /\ CASE s = "want"  -> Want(c)
         [] s = "ask"   -> Ask(c)
         [] s = "write" -> Write(c)

\* The release command, sent as c stops holding (or gives up a grant).
SendRelease(q, c) == Send(q, c, Server, Mk("rel", val[c], FALSE, 0, 0))

\* The reply to c's acquire.
OnAcquireReply(c, m) ==
    LET q == Pop(Server, c)
        e == Elapsed(c, "Elapsed")
        valid == Client = "naive" \/ Ttl - e - Drift > Margin
        t0 == CancelTimer(timers[c], "Timeout")
    IN
    /\ watches' = CWatches(c, StopWatch(watches[c], "Elapsed"))
    /\ IF ~m.ok
       THEN \* refused: back off, then ask again
            /\ BackOff(c)
            /\ timers' = CTimers(c, SetTimer(t0, "Retry", Retry))
            /\ net' = q
            /\ UNCHANGED <<done, renewing>>
       ELSE IF ~valid
       THEN \* Redlock's client: too little validity left; unlock, retry
            /\ pc' = [pc EXCEPT ![c] = "unlocking"]
            /\ net' = SendRelease(q, c)
            /\ timers' = CTimers(c, SetTimer(t0, "Timeout", Timeout))
            /\ UNCHANGED <<val, token, gnum, done, renewing>>
       ELSE \* granted: c holds
            LET t1 == IF Command = "setnx-expire" THEN SetTimer(t0, "Timeout", Timeout) ELSE t0
                t2 == IF Watchdog THEN SetTimer(t1, "Renew", RenewPeriod) ELSE t1
            IN
            /\ pc' = [pc EXCEPT ![c] = IF Command = "setnx-expire" THEN "expiring" ELSE "use"]
            /\ token' = [token EXCEPT ![c] = m.tok]
            /\ gnum' = [gnum EXCEPT ![c] = m.g]
            /\ net' = IF Command = "setnx-expire"
                      THEN Send(q, c, Server, Mk("exp", val[c], FALSE, 0, 0))
                      ELSE q
            /\ timers' = CTimers(c, t2)
            /\ UNCHANGED <<val, done, renewing>>

\* The release (or unlock after a failed check) is answered or timed out.
OnReleased(c, q, t) ==
    /\ net' = q
    /\ timers' = CTimers(c, IF pc[c] = "releasing" THEN t ELSE SetTimer(t, "Retry", Retry))
    /\ IF pc[c] = "releasing"
       THEN Finish(c)
       ELSE /\ BackOff(c) /\ UNCHANGED done
    /\ UNCHANGED <<watches, renewing>>

ClientRecv(c, src) ==
    LET m == Msg(src, c)
        q == Pop(src, c)
        mine == m.v = val[c] /\ val[c] # 0
    IN
    /\ UnchangedClientWorld
    /\ UNCHANGED <<serverVars, resourceVars, drawn>>
    /\ CASE src = Server /\ m.t = "acqR" /\ pc[c] = "acquiring" /\ mine ->
              OnAcquireReply(c, m)
         [] src = Server /\ m.t = "expR" /\ pc[c] = "expiring" /\ mine ->
              /\ pc' = [pc EXCEPT ![c] = "use"]
              /\ net' = q
              /\ timers' = CTimers(c, CancelTimer(timers[c], "Timeout"))
              /\ UNCHANGED <<watches, val, token, gnum, done, renewing>>
         [] src = Server /\ m.t = "relR" /\ pc[c] \in {"releasing", "unlocking"} /\ mine ->
              OnReleased(c, q, CancelTimer(timers[c], "Timeout"))
         [] src = Server /\ m.t = "renewR" /\ renewing[c] /\ mine ->
              \* Redisson: reschedule only if renewed and still held
              /\ renewing' = [renewing EXCEPT ![c] = FALSE]
              /\ timers' = CTimers(c, LET t == CancelTimer(timers[c], "RenewWait") IN
                                      IF m.ok /\ pc[c] \in HoldPhases
                                      THEN SetTimer(t, "Renew", RenewPeriod) ELSE t)
              /\ net' = q
              /\ UNCHANGED <<watches, pc, val, token, gnum, done>>
         [] src = Resource /\ m.t = "writeR" /\ pc[c] = "writing" /\ m.g = gnum[c] ->
              \* written: release (the watchdog stops at unlock)
              /\ pc' = [pc EXCEPT ![c] = "releasing"]
              /\ renewing' = [renewing EXCEPT ![c] = FALSE]
              /\ net' = SendRelease(q, c)
              /\ timers' = CTimers(c, SetTimer(CancelTimer(CancelTimer(timers[c], "Renew"), "RenewWait"),
                                               "Timeout", Timeout))
              /\ UNCHANGED <<watches, val, token, gnum, done>>
         [] OTHER ->
              \* a late or duplicate reply: discarded
              /\ net' = q
              /\ UNCHANGED <<timers, watches, clientVars>>

ClientFire(c, t) ==
    LET t0 == CancelTimer(timers[c], t) IN
    /\ UnchangedClientWorld
    /\ UNCHANGED <<serverVars, resourceVars, drawn>>
    /\ CASE t = "Timeout" /\ pc[c] = "acquiring" ->
              \* the acquire failed
              /\ BackOff(c)
              /\ timers' = CTimers(c, SetTimer(t0, "Retry", Retry))
              /\ watches' = CWatches(c, StopWatch(watches[c], "Elapsed"))
              /\ UNCHANGED <<net, done, renewing>>
         [] t = "Timeout" /\ pc[c] = "expiring" ->
              \* the EXPIRE counts as done
              /\ pc' = [pc EXCEPT ![c] = "use"]
              /\ timers' = CTimers(c, t0)
              /\ UNCHANGED <<net, watches, val, token, gnum, done, renewing>>
         [] t = "Timeout" /\ pc[c] \in {"releasing", "unlocking"} ->
              OnReleased(c, net, t0)
         [] t = "Retry" /\ pc[c] = "backoff" ->
              /\ pc' = [pc EXCEPT ![c] = "want"]
              /\ timers' = CTimers(c, t0)
              /\ UNCHANGED <<net, watches, val, token, gnum, done, renewing>>
         [] t = "Renew" /\ pc[c] \in HoldPhases ->
              /\ renewing' = [renewing EXCEPT ![c] = TRUE]
              /\ net' = Send(net, c, Server, Mk("renew", val[c], FALSE, 0, 0))
              /\ timers' = CTimers(c, SetTimer(t0, "RenewWait", Timeout))
              /\ UNCHANGED <<watches, pc, val, token, gnum, done>>
         [] t = "RenewWait" ->
              \* Redisson stops renewing on an error
              /\ renewing' = [renewing EXCEPT ![c] = FALSE]
              /\ timers' = CTimers(c, t0)
              /\ UNCHANGED <<net, watches, pc, val, token, gnum, done>>
         [] OTHER ->
              /\ timers' = CTimers(c, t0)
              /\ UNCHANGED <<net, watches, clientVars>>

-----------------------------------------------------------------------------
(* Deliveries, timers, and the world's actions.                            *)

Deliver(src, dst) ==
    /\ <<src, dst>> \in Links
    /\ Deliverable(src, dst)
    /\ CASE dst = Server   -> ServerRecv(src)
         [] dst = Resource -> ResourceRecv(src)
         [] OTHER          -> ClientRecv(dst, src)

Fire(n, t) ==
    /\ Up(n) /\ Due(n, t)
    /\ IF n = Server THEN ServerFire(t) ELSE ClientFire(n, t)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars

DriftTick == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

\* What a crash loses: the server its keyspace unless fsynced; a client its
\* attempt.
Crash(n) ==
    /\ n # Resource
    /\ IF n = Server
       THEN /\ WorldCrash(n, IF RestartMode = "fsync" THEN Keep(timers[n], {"Key"}) ELSE NoTimers, Role)
            /\ key' = IF RestartMode = "fsync" THEN key ELSE None
            /\ counter' = IF RestartMode = "fsync" THEN counter ELSE 0
            /\ UNCHANGED <<clientVars, resourceVars>>
       ELSE /\ WorldCrash(n, NoTimers, Role)
            /\ pc' = [pc EXCEPT ![n] = IF @ = "done" THEN "done" ELSE "idle"]
            /\ val' = [val EXCEPT ![n] = 0]
            /\ token' = [token EXCEPT ![n] = 0]
            /\ gnum' = [gnum EXCEPT ![n] = 0]
            /\ renewing' = [renewing EXCEPT ![n] = FALSE]
            /\ UNCHANGED <<serverVars, done, resourceVars>>

\* The server comes back with what it persisted (the fsynced key keeps its
\* deadline); a client comes back idle.
Restart(n) ==
    /\ WorldRestart(n)
    /\ timers' = timers
    /\ UNCHANGED <<net, ghost, drawn, history>>
    /\ UNCHANGED algVars

Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars

Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars

Heal == WorldHeal /\ UNCHANGED algVars

Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED algVars

Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED algVars

ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

NoFault ==
    \/ Tick
    \/ \E c \in ClientSet, s \in StepNames : Step(c, s)
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ (\/ \E n \in AllNodes : Restart(n)
                      \/ Heal)

Faults ==
    \/ DriftTick
    \/ \E n \in AllNodes : Crash(n)
    \/ ~Recoveries /\ (\/ \E n \in AllNodes : Restart(n)
                       \/ Heal)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E c \in ClientSet : Partition(Server, c)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) : Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in AllNodes, by \in -MaxJump..MaxJump : ClockJump(n, by)

Next == NoFault \/ Faults

Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientSet, s \in StepNames : WF_vars(Step(c, s))
    /\ \A n \in AllNodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The lock view and the properties (SEMANTICS.md section 5).              *)

Alive(c) == status[c] # "Down"
Holds(c) == pc[c] \in HoldPhases
Wants(c) == pc[c] \in WantPhases

MutualExclusion == \A c1, c2 \in ClientSet : c1 # c2 => ~(Holds(c1) /\ Holds(c2))
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

TypeOK ==
    /\ WorldTypeOK
    /\ DOMAIN status = AllNodes
    /\ key = None \/ (key \in [val : Nat \ {0}, owner : ClientSet, g : Nat \ {0}])
    /\ counter \in Nat
    /\ pc \in [ClientSet -> Phases]
    /\ val \in [ClientSet -> Nat]
    /\ token \in [ClientSet -> Nat]
    /\ gnum \in [ClientSet -> Nat]
    /\ done \in [ClientSet -> 0..Acquisitions]
    /\ renewing \in [ClientSet -> BOOLEAN]
    /\ maxTok \in Nat /\ maxG \in Nat
    /\ \A l \in DOMAIN net : \A i \in 1..Len(net[l]) :
          net[l][i].msg \in [t : {"acq", "exp", "rel", "renew", "acqR", "expR", "relR",
                                  "renewR", "write", "writeR"},
                             v : Nat, ok : BOOLEAN, tok : Nat, g : Nat]
    /\ \A c \in ClientSet : Holds(c) => gnum[c] # 0

FaultsStop == <>[][NoFault]_vars

DeadlockFreedom ==
    FaultsStop =>
        [](   (\E c \in ClientSet : Alive(c) /\ Wants(c))
           => <>(\E c \in ClientSet : Holds(c)))

StarvationFreedom ==
    FaultsStop =>
        \A c \in ClientSet : [](Alive(c) /\ Wants(c) => <>Holds(c))

=============================================================================
