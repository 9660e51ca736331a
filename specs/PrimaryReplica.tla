---------------------------- MODULE PrimaryReplica ----------------------------
(***************************************************************************)
(* primary-replica: the single-instance Redis lock (SET lock me NX PX ttl, *)
(* released by the compare-and-delete script) on a Redis primary with one  *)
(* replica, watched by a Sentinel that promotes the replica when the       *)
(* primary is down; replication is asynchronous, or WAIT-style            *)
(* ("SET ...; WAIT 1 timeout").                                            *)
(*                                                                         *)
(* Mirrors the Rust module src/algorithms/primary_replica.rs (with         *)
(* src/algorithms/client.rs for the client's script and                    *)
(* src/algorithms/resource.rs for the protected resource) running in the   *)
(* world of src/world/mod.rs. Actions appear in the Rust module's order:   *)
(* Acquire, Write (client steps), Replicate (the primary's step), the      *)
(* Redis nodes' handlers, the Sentinel's, the clients', the resource's,    *)
(* the timers, then the world: Tick, Crash, Restart, Pause. The lock view  *)
(* and the properties are those of src/properties.rs.                      *)
(*                                                                         *)
(* Same configuration, same states: for the constants of a scenario, TLC   *)
(* must find exactly as many distinct states as the Rust checker finds     *)
(* unique states (DESIGN.md section 10; specs/README.md records both).     *)
(*   status, pause   Node::status (Up, Paused(pause), Down)                *)
(*   timers          Node::timers, as a function from timer name to ticks; *)
(*                   Timer::WaitTimeout { client: c } is WaitTimer(c)      *)
(*   net             WorldState::net, as one FIFO queue per link           *)
(*   spent           WorldState::spent                                     *)
(*   ghost, history  WorldState::ghost and WorldState::history (flag bits  *)
(*                   as a set of flag names)                               *)
(*   standing, key, unshipped, unacked, waiting   Redis, per Redis node;   *)
(*                   a Standing is [kind, peer]: Primary { replica } has   *)
(*                   peer = replica (None for none), Syncing { primary }   *)
(*                   and Streaming { primary } have peer = primary,        *)
(*                   Detached has peer = None; a key is its owner or None; *)
(*                   waiting is the Vec<Waiting>, as a sequence            *)
(*   sentinel        Sentinel                                              *)
(*   phase, left     Client::script; primary as in Client; acquired is     *)
(*                   Client::ghost (renamed: ghost is the world's)         *)
(*   max_ghost       Resource (its max_token stays 0: this family has no   *)
(*                   fencing, every token is 0, so it is left out, as are  *)
(*                   the tokens of Granted and Write)                      *)
(* Ghost numbers only grow and are only compared: Rust renumbers them by   *)
(* rank after every action (src/world/ranks.rs); here RankedVars is that   *)
(* renumbered state, and the .cfg's VIEW makes TLC count states by it.     *)
(* Not modelled, because the Rust module rejects them or no scenario of    *)
(* this family uses them: stopwatches (this algorithm starts none), clock  *)
(* drift and jumps (Node::skew stays 0), partitions (cut stays empty),     *)
(* loss, duplication and reordering, and recovery = "none" (Restart is     *)
(* always fair here).                                                      *)
(*                                                                         *)
(* Node ids as in Rust: the primary is 0, the replica 1, the Sentinel 2,   *)
(* clients 3..Clients + 2, the resource Clients + 3. Node names are the    *)
(* initial roles: after a failover, ReplicaNode is the primary.            *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Clients,       \* [system] clients
    Ttl,           \* [system] ttl: key expiry (PX) in the serving node's ticks
    Replication,   \* [system] replication: "async" or "wait"
    WaitTimeout,   \* [system] wait_timeout: WAIT's timeout; 0 waits for ever
    Ping,          \* [system] ping: ticks between the primary's pings
    DownAfter,     \* [system] down_after: Sentinel's down-after, in its ticks
    Retry,         \* [system] retry: ticks a refused client waits
    Timeout,       \* [system] timeout: a client's request timeout, in its ticks
    Client,        \* [system] client: "naive" or "validity"
    Drift,         \* [system] drift: a validity client's drift allowance
    Margin,        \* [system] margin: validity a client needs left to write
    Acquisitions,  \* [bounds] acquisitions per client; 0 = forever
    MaxDelay,      \* [faults] max_delay, or a model value (the .cfg line
                   \* MaxDelay = Async) when omitted: an asynchronous network
    Crashes,       \* [faults] crashes
    Pauses,        \* [faults] pauses
    MinPause,      \* [faults] min_pause
    MaxPause,      \* [faults] max_pause
    Targets,       \* [faults] targets: "all", "clients" or "servers"
    None           \* a model value: no key, no replica

ASSUME /\ Clients \in 1..4 /\ Ttl \in 1..30 /\ Retry \in 1..10 /\ Timeout \in 1..30
       /\ Client \in {"naive", "validity"} /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ Replication \in {"async", "wait"} /\ WaitTimeout \in 0..30
       /\ (Replication = "async" => WaitTimeout = 0)
       /\ Ping \in 1..10 /\ DownAfter \in 1..30
       /\ Acquisitions \in 0..5 /\ (MaxDelay \in 0..10 \/ MaxDelay \notin Int)
       /\ Crashes \in 0..3 /\ Pauses \in 0..3
       /\ MinPause \in 1..30 /\ MaxPause \in 0..30
       /\ Targets \in {"all", "clients", "servers"}

PrimaryNode == 0
ReplicaNode == 1
SentinelNode == 2
RedisNodes == {PrimaryNode, ReplicaNode}
ClientIds == 3..Clients + 2
ResourceNode == Clients + 3
Nodes == 0..Clients + 3
Links == Nodes \X Nodes

Wait == Replication = "wait"

\* The most shipments a wait primary has out unacknowledged (MAX_UNACKED).
MaxUnacked == 2

\* Timer::WaitTimeout { client: c }: the primary gives up c's WAIT.
WaitTimer(c) == "WaitTimeout" \o ToString(c)
WaitTimers == {WaitTimer(c) : c \in ClientIds}
TimerNames == {"KeyExpiry", "Ping", "DownAfter", "Retry", "Timeout", "Validity"} \cup WaitTimers
WaitClient(t) == CHOOSE c \in ClientIds : WaitTimer(c) = t

\* Faults::targets: the servers are the Redis nodes and the Sentinel; the
\* resource is an observer, never faulted.
Targeted(n) == \/ Targets = "all" /\ n # ResourceNode
               \/ Targets = "clients" /\ n \in ClientIds
               \/ Targets = "servers" /\ n \in RedisNodes \cup {SentinelNode}

\* Messages age and must arrive within MaxDelay ticks (Faults::max_delay).
Bounded == MaxDelay \in Nat

VARIABLES
    status,     \* status[n] \in {"Up", "Paused", "Down"}
    pause,      \* ticks of pause left; 0 unless status[n] = "Paused"
    timers,     \* timers[n]: set timer names -> local ticks left
    net,        \* net[<<src, dst>>]: messages in flight, send order
    spent,      \* faults spent: [crashes, pauses]
    ghost,      \* the last ghost number drawn (numbers acquisitions)
    lastValue,  \* the last lock value drawn (WorldState::value)
    history,    \* ghost flags raised: "StaleWrite" (never "ForeignRelease")
    standing,   \* standing[r]: what Redis node r is to the others
    key,        \* key[r]: the value of r's lock key, or None
    unshipped,  \* unshipped[r]: the key changed since the last shipment
    unacked,    \* unacked[r]: shipments not yet acknowledged (wait only)
    waiting,    \* waiting[r]: blocked WAITs, <<[client, value, shipment]>> by client
    sentinel,   \* "Monitoring", "Promoting" or "Switched"
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    primary,    \* primary[c]: the node c believes is the primary
    value,      \* value[c]: the lock value of c's current attempt (0: none)
    checked,    \* checked[c]: a validity client found validity left to write
    elapsed,    \* elapsed[c]: the stopwatch Elapsed (a validity client's,
                \* from its SET), None when not running; saturates at Ttl
    acquired,   \* acquired[c]: the ghost number of c's grant
    max_ghost   \* ghost: the latest acquisition a write was accepted under

worldVars == <<status, pause, spent, lastValue>>
redisVars == <<standing, key, unshipped, unacked, waiting>>
clientVars == <<phase, left, primary, value, checked, elapsed, acquired>>
vars == <<status, pause, timers, net, spent, ghost, lastValue, history,
          standing, key, unshipped, unacked, waiting, sentinel,
          phase, left, primary, value, checked, elapsed, acquired, max_ghost>>

-----------------------------------------------------------------------------
(* Timers and the network, as World::apply handles an actor's commands.    *)

NoTimers == [t \in {} |-> 0]
SetTimer(f, t, v) == [x \in DOMAIN f \cup {t} |-> IF x = t THEN v ELSE f[x]]
CancelTimer(f, t) == [x \in DOMAIN f \ {t} |-> f[x]]
CancelTimers(f, ts) == [x \in DOMAIN f \ ts |-> f[x]]
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
(* Redis helpers.                                                          *)

IsPrimary(r) == standing[r].kind = "Primary"
\* Primary { replica: Some(_) }: a replica is attached.
Streams(r) == IsPrimary(r) /\ standing[r].peer # None

\* Redis::wrote: the key changed; it is to be shipped if a replica is
\* attached (one that attaches later gets the whole dataset).
Wrote(r) == [unshipped EXCEPT ![r] = Streams(r)]

\* dataset: the key with the TTL left on r's clock; a key whose timer is
\* due is already gone.
Dataset(r) ==
    IF key[r] # None /\ IsSet(r, "KeyExpiry") /\ timers[r]["KeyExpiry"] > 0
    THEN [key |-> key[r], px |-> timers[r]["KeyExpiry"]]
    ELSE [key |-> None, px |-> 0]

\* Redis::new(s): an empty node.
Fresh(r, s) ==
    /\ standing' = [standing EXCEPT ![r] = s]
    /\ key' = [key EXCEPT ![r] = None]
    /\ unshipped' = [unshipped EXCEPT ![r] = FALSE]
    /\ unacked' = [unacked EXCEPT ![r] = 0]
    /\ waiting' = [waiting EXCEPT ![r] = <<>>]

\* The waiting entries in sequence s granted by one acknowledgement, and
\* the ghost number each draws: out.next_ghost() once per entry, in order.
AckedIdx(s) == {i \in 1..Len(s) : s[i].shipment = 1}
GhostOf(s, i) == ghost + Cardinality({j \in AckedIdx(s) : j <= i})
\* The Granted messages to client c, in send order.
GrantsTo(s, c) ==
    LET idx == SelectSeq([i \in 1..Len(s) |-> i],
                         LAMBDA i : s[i].shipment = 1 /\ s[i].client = c)
    IN  [k \in 1..Len(idx) |->
           [msg |-> [type |-> "Granted", ghost |-> GhostOf(s, idx[k]), value |-> s[idx[k]].value],
            age |-> 0]]

-----------------------------------------------------------------------------
(* The client's script (client.rs) and the lock view (properties.rs).      *)

\* Script::holds and Script::wants.
\* A validity client believes it holds the lock while its validity timer is
\* above zero and, once it has checked that timer, until it has written and
\* released; until it has passed its check, it still wants the lock.
Validity == Client = "validity"
Valid(c) == IsSet(c, "Validity") /\ timers[c]["Validity"] > 0
Holds(c) == \/ phase[c] = "Holding" /\ (~Validity \/ checked[c] \/ Valid(c))
            \/ phase[c] = "Writing"
Wants(c) == \/ phase[c] \in {"Want", "Acquiring"}
            \/ Validity /\ phase[c] = "Holding" /\ ~checked[c]

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
(* Own steps (Actor::steps and on_step). Write and Replicate are urgent:   *)
(* time does not pass while a running node has one. Acquire is not         *)
(* (Actor::urgent): a client comes to want the lock, and retries after its *)
(* back-off, at any moment, any number of ticks later, but not never (it   *)
(* is weakly fair).                                                        *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanCheck(c) == Validity /\ phase[c] = "Holding" /\ ~checked[c]
CanWrite(c) == phase[c] = "Holding" /\ (~Validity \/ checked[c])
\* A Redis node lists Replicate whenever the key is unshipped and fewer
\* than MaxUnacked shipments are out, whatever its standing.
CanReplicate(r) == unshipped[r] /\ unacked[r] < MaxUnacked
HasUrgentStep(n) == \/ n \in ClientIds /\ (CanCheck(n) \/ CanWrite(n))
                    \/ n \in RedisNodes /\ CanReplicate(n)

\* Acquire: SET lock value NX PX ttl, with a fresh value (Out::fresh_value),
\* to the node believed primary, with a request timeout.
Acquire(c) ==
    /\ Up(c) /\ CanAcquire(c)
    /\ lastValue' = lastValue + 1
    /\ value' = [value EXCEPT ![c] = lastValue + 1]
    /\ net' = Sent(net, c, primary[c], [type |-> "SetNxPx", value |-> lastValue + 1])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ elapsed' = [elapsed EXCEPT ![c] = IF Validity THEN 0 ELSE None]
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<status, pause, spent, ghost, history, redisVars, sentinel,
                   left, primary, checked, acquired, max_ghost>>

\* retry_later: the attempt failed; want the lock again after the back-off
\* (t: c's timers before the Retry timer is set).
RetryLater(c, t) ==
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ value' = [value EXCEPT ![c] = 0]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ elapsed' = [elapsed EXCEPT ![c] = None]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(t, "Retry", Retry)]

\* give_up: the lock came too late or ran out before the check: delete the
\* key (compare-and-delete, not waiting for the answer) and ask again later
\* (q: the network to send on).
GiveUp(c, q, t) ==
    /\ net' = Sent(q, c, primary[c], [type |-> "CompareAndDelete", value |-> value[c]])
    /\ RetryLater(c, CancelTimer(t, "Validity"))

\* Check: is there more validity left than the margin? Only then use the
\* resource; otherwise give the lock up.
Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, phase, value, elapsed>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel,
                   left, primary, acquired, max_ghost>>

\* Write: the critical section's write.
Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Sent(net, c, ResourceNode, [type |-> "Write", ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<worldVars, timers, ghost, history, redisVars, sentinel,
                   left, primary, value, checked, elapsed, acquired, max_ghost>>

\* Replicate: ship the key as it is now to the replica. (On a node with no
\* replica attached the step changes nothing: a stutter.)
Replicate(r) ==
    /\ Up(r) /\ CanReplicate(r) /\ Streams(r)
    /\ LET d == Dataset(r) IN
       net' = Sent(net, r, standing[r].peer, [type |-> "Replicate", key |-> d.key, px |-> d.px])
    /\ unshipped' = [unshipped EXCEPT ![r] = FALSE]
    /\ IF Wait
       THEN /\ unacked' = [unacked EXCEPT ![r] = @ + 1]
            /\ waiting' = [waiting EXCEPT ![r] =
                             [i \in 1..Len(@) |->
                                IF @[i].shipment = 0
                                THEN [@[i] EXCEPT !.shipment = unacked[r] + 1]
                                ELSE @[i]]]
       ELSE UNCHANGED <<unacked, waiting>>
    /\ UNCHANGED <<worldVars, timers, ghost, history, standing, key, sentinel,
                   clientVars, max_ghost>>

-----------------------------------------------------------------------------
(* A Redis node executes one command atomically (redis_receive). Only a    *)
(* primary serves clients; only a replica applies a replication stream.    *)
(* Each handler delivers the head of the link src -> r.                    *)

Reply(src, r, m) == net' = Sent(Pop(src, r), r, src, m)

\* SET lock value NX PX ttl (then WAIT 1 timeout). A client that sends a new
\* command has given up a WAIT still blocked for it (it timed out or
\* restarted, and closed that connection): Redis drops the blocked client.
ReceiveSetNxPx(src, r) ==
    LET v == Msg(src, r).value
        s == SelectSeq(waiting[r], LAMBDA w : w.client # src)
        t == CancelTimer(timers[r], WaitTimer(src))
    IN
    /\ Deliverable(src, r) /\ IsPrimary(r) /\ Msg(src, r).type = "SetNxPx"
    /\ IF key[r] # None
       THEN /\ Reply(src, r, [type |-> "Refused", value |-> v])
            /\ timers' = [timers EXCEPT ![r] = t]
            /\ waiting' = [waiting EXCEPT ![r] = s]
            /\ UNCHANGED <<ghost, key, unshipped>>
       ELSE /\ key' = [key EXCEPT ![r] = v]
            /\ unshipped' = Wrote(r)
            /\ IF Wait
               THEN LET at == Len(SelectSeq(s, LAMBDA w : w.client < src)) IN
                    /\ timers' = [timers EXCEPT ![r] =
                                    IF WaitTimeout > 0
                                    THEN SetTimer(SetTimer(t, "KeyExpiry", Ttl), WaitTimer(src), WaitTimeout)
                                    ELSE SetTimer(t, "KeyExpiry", Ttl)]
                    /\ waiting' = [waiting EXCEPT ![r] =
                                     SubSeq(s, 1, at) \o <<[client |-> src, value |-> v, shipment |-> 0]>>
                                       \o SubSeq(s, at + 1, Len(s))]
                    /\ net' = Pop(src, r)
                    /\ UNCHANGED ghost
               ELSE /\ timers' = [timers EXCEPT ![r] = SetTimer(t, "KeyExpiry", Ttl)]
                    /\ ghost' = ghost + 1
                    /\ Reply(src, r, [type |-> "Granted", ghost |-> ghost + 1, value |-> v])
                    /\ waiting' = [waiting EXCEPT ![r] = s]
    /\ UNCHANGED <<worldVars, history, standing, unacked, sentinel, clientVars, max_ghost>>

\* The Lua script: if GET lock == value then DEL lock.
ReceiveCompareAndDelete(src, r) ==
    LET v == Msg(src, r).value IN
    /\ Deliverable(src, r) /\ IsPrimary(r) /\ Msg(src, r).type = "CompareAndDelete"
    /\ IF key[r] = v
       THEN /\ key' = [key EXCEPT ![r] = None]
            /\ timers' = [timers EXCEPT ![r] = CancelTimer(@, "KeyExpiry")]
            /\ unshipped' = Wrote(r)
       ELSE UNCHANGED <<key, timers, unshipped>>
    /\ Reply(src, r, [type |-> "Released", value |-> v])
    /\ UNCHANGED <<worldVars, ghost, history, standing, unacked, waiting, sentinel,
                   clientVars, max_ghost>>

\* A replica attaches: the dataset replaces the backlog, and its
\* acknowledgement covers every write so far.
ReceiveSync(src, r) ==
    /\ Deliverable(src, r) /\ IsPrimary(r) /\ Msg(src, r).type = "Sync"
    /\ standing' = [standing EXCEPT ![r] = [kind |-> "Primary", peer |-> src]]
    /\ unshipped' = [unshipped EXCEPT ![r] = FALSE]
    /\ IF Wait
       THEN /\ unacked' = [unacked EXCEPT ![r] = 1]
            /\ waiting' = [waiting EXCEPT ![r] =
                             [i \in 1..Len(@) |-> [@[i] EXCEPT !.shipment = 1]]]
       ELSE UNCHANGED <<unacked, waiting>>
    /\ LET d == Dataset(r) IN
       Reply(src, r, [type |-> "FullSync", key |-> d.key, px |-> d.px])
    /\ UNCHANGED <<worldVars, timers, ghost, history, key, sentinel, clientVars, max_ghost>>

\* The oldest shipment is acknowledged: WAIT returns 1 for the writes it
\* held.
ReceiveAck(src, r) ==
    LET s == waiting[r]
        acked == {s[i].client : i \in AckedIdx(s)}
        popped == Pop(src, r)
    IN
    /\ Deliverable(src, r) /\ Streams(r) /\ standing[r].peer = src
    /\ Msg(src, r).type = "Ack"
    /\ unacked' = [unacked EXCEPT ![r] = IF @ > 0 THEN @ - 1 ELSE 0]
    /\ timers' = [timers EXCEPT ![r] = CancelTimers(@, {WaitTimer(c) : c \in acked})]
    /\ ghost' = ghost + Cardinality(AckedIdx(s))
    /\ net' = [l \in Links |->
                 IF l[1] = r /\ l[2] \in acked /\ status[l[2]] # "Down"
                 THEN popped[l] \o GrantsTo(s, l[2])
                 ELSE popped[l]]
    /\ waiting' = [waiting EXCEPT ![r] =
                     LET kept == SelectSeq(s, LAMBDA w : w.shipment # 1) IN
                     [i \in 1..Len(kept) |->
                        IF kept[i].shipment > 1
                        THEN [kept[i] EXCEPT !.shipment = @ - 1]
                        ELSE kept[i]]]
    /\ UNCHANGED <<worldVars, history, standing, key, unshipped, sentinel,
                   clientVars, max_ghost>>

\* apply: a replica takes the primary's key, with its own expiry timer.
\* Redis 7 replicates SET ... PX as PXAT, an absolute time on the primary's
\* clock, and the replica's key expires when its own clock reaches it: in
\* relative time, the TTL left when the primary sent it (px) less the
\* shipment's age, its time in flight (Ctx::age). A key whose time is up
\* arrives as no key.
Apply(r, src) ==
    LET m == Msg(src, r)
        pxLeft == m.px - Head(net[<<src, r>>]).age
    IN
    /\ key' = [key EXCEPT ![r] = IF m.key # None /\ pxLeft > 0 THEN m.key ELSE None]
    /\ timers' = [timers EXCEPT ![r] =
                    IF m.key # None /\ pxLeft > 0 THEN SetTimer(@, "KeyExpiry", pxLeft)
                    ELSE CancelTimer(@, "KeyExpiry")]

\* Acknowledge a shipment (REPLCONF ACK), with wait only.
AckOrPop(src, r) ==
    IF Wait THEN Reply(src, r, [type |-> "Ack"]) ELSE net' = Pop(src, r)

ReceiveReplicate(src, r) ==
    /\ Deliverable(src, r) /\ Msg(src, r).type = "Replicate"
    /\ standing[r].kind = "Streaming" /\ standing[r].peer = src
    /\ Apply(r, src)
    /\ AckOrPop(src, r)
    /\ UNCHANGED <<worldVars, ghost, history, standing, unshipped, unacked, waiting,
                   sentinel, clientVars, max_ghost>>

ReceiveFullSync(src, r) ==
    /\ Deliverable(src, r) /\ Msg(src, r).type = "FullSync"
    /\ standing[r].kind = "Syncing" /\ standing[r].peer = src
    /\ Apply(r, src)
    /\ standing' = [standing EXCEPT ![r] = [kind |-> "Streaming", peer |-> src]]
    /\ AckOrPop(src, r)
    /\ UNCHANGED <<worldVars, ghost, history, unshipped, unacked, waiting,
                   sentinel, clientVars, max_ghost>>

\* REPLICAOF NO ONE: take over as primary, with no replica of its own until
\* one attaches.
ReceivePromote(src, r) ==
    /\ Deliverable(src, r) /\ Msg(src, r).type = "Promote"
    /\ standing' = [standing EXCEPT ![r] = [kind |-> "Primary", peer |-> None]]
    /\ Reply(src, r, [type |-> "Promoted"])
    /\ UNCHANGED <<worldVars, timers, ghost, history, key, unshipped, unacked, waiting,
                   sentinel, clientVars, max_ghost>>

\* REPLICAOF p: "already connected" when r follows p already; otherwise
\* drop the dataset (and any blocked WAIT), and resynchronise.
ReceiveReplicaOf(src, r) ==
    LET p == Msg(src, r).primary IN
    /\ Deliverable(src, r) /\ Msg(src, r).type = "ReplicaOf"
    /\ IF standing[r].kind \in {"Syncing", "Streaming"} /\ standing[r].peer = p
       THEN /\ net' = Pop(src, r)
            /\ UNCHANGED <<timers, redisVars>>
       ELSE /\ timers' = [timers EXCEPT ![r] =
                            CancelTimers(@, {WaitTimer(waiting[r][i].client) : i \in 1..Len(waiting[r])}
                                            \cup {"KeyExpiry", "Ping"})]
            /\ Fresh(r, [kind |-> "Syncing", peer |-> p])
            /\ net' = Sent(Pop(src, r), r, p, [type |-> "Sync"])
    /\ UNCHANGED <<worldVars, ghost, history, sentinel, clientVars, max_ghost>>

\* The (standing, message) pairs a Redis node acts on; it drops any other.
RedisTakes(src, r, m) ==
    \/ IsPrimary(r) /\ m.type \in {"SetNxPx", "CompareAndDelete", "Sync"}
    \/ Streams(r) /\ standing[r].peer = src /\ m.type = "Ack"
    \/ standing[r].kind = "Streaming" /\ standing[r].peer = src /\ m.type = "Replicate"
    \/ standing[r].kind = "Syncing" /\ standing[r].peer = src /\ m.type = "FullSync"
    \/ m.type \in {"Promote", "ReplicaOf"}

-----------------------------------------------------------------------------
(* The Sentinel (sentinel_receive). It fails over once.                    *)

\* The primary is alive: down-after starts over.
ReceivePing(src) ==
    /\ Deliverable(src, SentinelNode) /\ Msg(src, SentinelNode).type = "Ping"
    /\ sentinel = "Monitoring" /\ src = PrimaryNode
    /\ timers' = [timers EXCEPT ![SentinelNode] = SetTimer(@, "DownAfter", DownAfter)]
    /\ net' = Pop(src, SentinelNode)
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel, clientVars, max_ghost>>

\* The promotion took effect: switch clients (+switch-master) and the old
\* primary (REPLICAOF).
ReceivePromoted(src) ==
    LET popped == Pop(src, SentinelNode)
        told == [l \in Links |->
                   IF l[1] = SentinelNode /\ l[2] \in ClientIds /\ status[l[2]] # "Down"
                   THEN Append(popped[l], [msg |-> [type |-> "NewPrimary", id |-> ReplicaNode],
                                           age |-> 0])
                   ELSE popped[l]]
    IN
    /\ Deliverable(src, SentinelNode) /\ Msg(src, SentinelNode).type = "Promoted"
    /\ sentinel = "Promoting" /\ src = ReplicaNode
    /\ sentinel' = "Switched"
    /\ net' = Sent(told, SentinelNode, PrimaryNode, [type |-> "ReplicaOf", primary |-> ReplicaNode])
    /\ UNCHANGED <<worldVars, timers, ghost, history, redisVars, clientVars, max_ghost>>

\* The old primary restarted: it follows the new one.
ReceiveRestarted(src) ==
    /\ Deliverable(src, SentinelNode) /\ Msg(src, SentinelNode).type = "Restarted"
    /\ sentinel = "Switched" /\ src = PrimaryNode
    /\ Reply(src, SentinelNode, [type |-> "ReplicaOf", primary |-> ReplicaNode])
    /\ UNCHANGED <<worldVars, timers, ghost, history, redisVars, sentinel, clientVars, max_ghost>>

SentinelTakes(src, m) ==
    \/ sentinel = "Monitoring" /\ src = PrimaryNode /\ m.type = "Ping"
    \/ sentinel = "Promoting" /\ src = ReplicaNode /\ m.type = "Promoted"
    \/ sentinel = "Switched" /\ src = PrimaryNode /\ m.type = "Restarted"

-----------------------------------------------------------------------------
(* The client's handlers (client_receive), in its match order.             *)

\* Sentinel names a new primary: reconnect, and re-send what the old
\* connection left unanswered (its request timeout runs on).
ReceiveNewPrimary(src, c) ==
    LET id == Msg(src, c).id IN
    /\ Deliverable(src, c) /\ Msg(src, c).type = "NewPrimary" /\ id # primary[c]
    /\ primary' = [primary EXCEPT ![c] = id]
    /\ net' = CASE phase[c] = "Acquiring" -> Sent(Pop(src, c), c, id, [type |-> "SetNxPx", value |-> value[c]])
                [] phase[c] = "Releasing" -> Sent(Pop(src, c), c, id, [type |-> "CompareAndDelete", value |-> value[c]])
                [] OTHER -> Pop(src, c)
    /\ UNCHANGED <<worldVars, timers, ghost, history, redisVars, sentinel,
                   phase, left, value, checked, elapsed, acquired, max_ghost>>

\* Release: the write is answered, so the critical section is over.
Release(src, c) ==
    /\ Deliverable(src, c)
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Sent(Pop(src, c), c, primary[c], [type |-> "CompareAndDelete", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel,
                   left, primary, value, checked, elapsed, acquired, max_ghost>>

\* Redis's answers count only on the connection to the current primary, and
\* only for the current request (the answer carries its value).
Answer(src, c, p, type) ==
    /\ Deliverable(src, c) /\ src = primary[c]
    /\ phase[c] = p /\ Msg(src, c).type = type /\ Msg(src, c).value = value[c]

\* A validity client computes validity = ttl - (time since the SET was sent)
\* - drift, and gives the lock up at once if none is left.
ReceiveGranted(src, c) ==
    LET t == CancelTimer(timers[c], "Timeout")
        e == IF elapsed[c] = None THEN Ttl ELSE elapsed[c]
        v == Ttl - e - Drift
    IN
    /\ Answer(src, c, "Acquiring", "Granted")
    /\ IF Validity /\ v <= 0
       THEN /\ GiveUp(c, Pop(src, c), t)
            /\ UNCHANGED acquired
       ELSE /\ phase' = [phase EXCEPT ![c] = "Holding"]
            /\ acquired' = [acquired EXCEPT ![c] = Msg(src, c).ghost]
            /\ elapsed' = [elapsed EXCEPT ![c] = None]
            /\ timers' = [timers EXCEPT ![c] = IF Validity THEN SetTimer(t, "Validity", v) ELSE t]
            /\ net' = Pop(src, c)
            /\ UNCHANGED <<value, checked>>
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel,
                   left, primary, max_ghost>>

ReceiveRefused(src, c) ==
    /\ Answer(src, c, "Acquiring", "Refused")
    /\ RetryLater(c, CancelTimer(timers[c], "Timeout"))
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel,
                   left, primary, acquired, max_ghost>>

\* The key is set but not replicated: delete it, and ask again.
ReceiveWaitTimedOut(src, c) ==
    /\ Answer(src, c, "Acquiring", "WaitTimedOut")
    /\ net' = Sent(Pop(src, c), c, primary[c], [type |-> "CompareAndDelete", value |-> value[c]])
    /\ RetryLater(c, CancelTimer(timers[c], "Timeout"))
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel,
                   left, primary, acquired, max_ghost>>

ReceiveReleased(src, c) ==
    /\ Answer(src, c, "Releasing", "Released")
    /\ Released(c)
    /\ value' = [value EXCEPT ![c] = 0]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<worldVars, ghost, history, redisVars, sentinel,
                   primary, elapsed, acquired, max_ghost>>

\* The (phase, message) pairs a client acts on; it drops any other.
ClientTakes(src, c, m) ==
    \/ m.type = "NewPrimary" /\ m.id # primary[c]
    \/ phase[c] = "Writing" /\ m.type \in {"Accepted", "Rejected"}
    \/ /\ src = primary[c] /\ m.type \in {"Granted", "Refused", "WaitTimedOut", "Released"}
       /\ m.value = value[c]
       /\ \/ phase[c] = "Acquiring" /\ m.type \in {"Granted", "Refused", "WaitTimedOut"}
          \/ phase[c] = "Releasing" /\ m.type = "Released"

-----------------------------------------------------------------------------
(* The protected resource (resource.rs), without fencing.                  *)

ReceiveWrite(src) ==
    LET m == Msg(src, ResourceNode) IN
    /\ Deliverable(src, ResourceNode) /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ Reply(src, ResourceNode, [type |-> "Accepted"])
    /\ UNCHANGED <<worldVars, timers, ghost, redisVars, sentinel, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver): the head of a link reaches its running      *)
(* destination, whose handler takes it or drops it.                        *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst \in RedisNodes   -> RedisTakes(src, dst, m)
      [] dst = SentinelNode   -> SentinelTakes(src, m)
      [] dst = ResourceNode   -> m.type = "Write"
      [] OTHER                -> ClientTakes(src, dst, m)

\* A message the destination's handler ignores: the network still hands it
\* over, so it leaves the link.
Discard(src, dst) ==
    /\ Deliverable(src, dst) /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<worldVars, timers, ghost, history, redisVars, sentinel,
                   clientVars, max_ghost>>

Deliver(src, dst) ==
    \/ /\ dst \in RedisNodes
       /\ \/ ReceiveSetNxPx(src, dst) \/ ReceiveCompareAndDelete(src, dst)
          \/ ReceiveSync(src, dst) \/ ReceiveAck(src, dst)
          \/ ReceiveReplicate(src, dst) \/ ReceiveFullSync(src, dst)
          \/ ReceivePromote(src, dst) \/ ReceiveReplicaOf(src, dst)
    \/ /\ dst = SentinelNode
       /\ ReceivePing(src) \/ ReceivePromoted(src) \/ ReceiveRestarted(src)
    \/ /\ dst \in ClientIds
       /\ \/ ReceiveNewPrimary(src, dst) \/ Release(src, dst)
          \/ ReceiveGranted(src, dst) \/ ReceiveRefused(src, dst)
          \/ ReceiveWaitTimedOut(src, dst) \/ ReceiveReleased(src, dst)
    \/ dst = ResourceNode /\ ReceiveWrite(src)
    \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire, on_timer): a running node's timer, run down to    *)
(* zero, fires; the world removes it first.                                *)

Fire(n, t) ==
    LET rest == [timers EXCEPT ![n] = CancelTimer(@, t)] IN
    /\ Up(n) /\ Due(n, t)
    /\ CASE t = "KeyExpiry" /\ n \in RedisNodes ->
              \* The key's TTL ran out on this node's clock; a primary
              \* streams the deletion, a replica treats the key as gone.
              /\ key' = [key EXCEPT ![n] = None]
              /\ unshipped' = Wrote(n)
              /\ timers' = rest
              /\ UNCHANGED <<net, waiting, sentinel, clientVars>>
         [] t = "Ping" /\ n \in RedisNodes /\ IsPrimary(n) ->
              /\ net' = Sent(net, n, SentinelNode, [type |-> "Ping"])
              /\ timers' = [rest EXCEPT ![n] = SetTimer(@, "Ping", Ping)]
              /\ UNCHANGED <<key, unshipped, waiting, sentinel, clientVars>>
         [] t \in WaitTimers /\ n \in RedisNodes ->
              \* WAIT returns 0: the replica has not acknowledged the write.
              \* (The timer is set exactly while the client's WAIT blocks.)
              LET s == waiting[n]
                  i == CHOOSE i \in 1..Len(s) : s[i].client = WaitClient(t)
              IN
              /\ waiting' = [waiting EXCEPT ![n] =
                               SelectSeq(@, LAMBDA w : w.client # WaitClient(t))]
              /\ net' = Sent(net, n, WaitClient(t), [type |-> "WaitTimedOut", value |-> s[i].value])
              /\ timers' = rest
              /\ UNCHANGED <<key, unshipped, sentinel, clientVars>>
         [] t = "DownAfter" /\ n = SentinelNode /\ sentinel = "Monitoring" ->
              \* Down-after elapsed without a ping: fail over, once.
              /\ sentinel' = "Promoting"
              /\ net' = Sent(net, n, ReplicaNode, [type |-> "Promote"])
              /\ timers' = rest
              /\ UNCHANGED <<key, unshipped, waiting, clientVars>>
         [] t = "Timeout" /\ n \in ClientIds /\ phase[n] = "Acquiring" ->
              \* The request timed out: the attempt failed, as if refused
              \* (a key it may have set expires by its TTL).
              /\ RetryLater(n, rest[n])
              /\ UNCHANGED <<net, key, unshipped, waiting, sentinel, left, primary, acquired>>
         [] t = "Validity" /\ n \in ClientIds /\ phase[n] = "Holding" ->
              \* The validity ran out before the client checked it: lost.
              /\ GiveUp(n, net, rest[n])
              /\ UNCHANGED <<key, unshipped, waiting, sentinel, left, primary, acquired>>
         [] t = "Timeout" /\ n \in ClientIds /\ phase[n] = "Releasing" ->
              \* The release timed out: it is done; the key, if still
              \* there, expires by its TTL.
              /\ Released(n)
              /\ value' = [value EXCEPT ![n] = 0]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ timers' = rest
              /\ UNCHANGED <<net, key, unshipped, waiting, sentinel, primary, elapsed, acquired>>
         [] OTHER ->
              \* Retry: the client may ask again; Ping on a node that is no
              \* longer primary; DownAfter after the failover.
              /\ timers' = rest
              /\ UNCHANGED <<net, key, unshipped, waiting, sentinel, clientVars>>
    /\ UNCHANGED <<worldVars, ghost, history, standing, unacked, max_ghost>>

-----------------------------------------------------------------------------
(* The world (src/world/mod.rs): time, crashes, restarts, pauses.          *)

\* World::time_blocked: time cannot pass a due timer or an enabled urgent
\* step of a running node, nor a message to a running node in flight
\* MaxDelay ticks.
TimeBlocked ==
    \/ \E n \in Nodes : Up(n) /\ (HasUrgentStep(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* World::time_matters: a tick must change something. (A running stopwatch
\* below its cap needs no clause of its own: elapsed runs only while the
\* client's request Timeout timer runs, which this clause counts.)
TimeMatters ==
    \/ \E n \in Nodes : status[n] = "Paused" \/ \E t \in DOMAIN timers[n] : timers[n][t] > 0
    \/ Bounded /\ \E l \in Links : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

\* One tick of real time. Every node's clock runs; a paused node's pause
\* counts down; messages age, saturating at MaxDelay.
Tick ==
    /\ ~TimeBlocked /\ TimeMatters
    /\ timers' = [n \in Nodes |->
                    [t \in DOMAIN timers[n] |-> IF timers[n][t] > 0 THEN timers[n][t] - 1 ELSE 0]]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ elapsed' = [c \in ClientIds |->
                     IF elapsed[c] = None THEN None
                     ELSE IF elapsed[c] < Ttl THEN elapsed[c] + 1 ELSE Ttl]
    /\ net' = IF Bounded
              THEN [l \in Links |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<spent, ghost, lastValue, history, redisVars, sentinel,
                   phase, left, primary, value, checked, acquired, max_ghost>>

\* Fault: a node stops and loses its timers; messages to it are dropped.
\* Redis runs without persistence: only its configuration file survives
\* (a replica's names its primary; a former primary's names none). The
\* Sentinel keeps its configuration file; a client keeps its state only for
\* the restart.
Crash(n) ==
    /\ Targeted(n) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ IF n \in RedisNodes
       THEN Fresh(n, IF standing[n].kind \in {"Syncing", "Streaming"}
                     THEN [kind |-> "Syncing", peer |-> standing[n].peer]
                     ELSE [kind |-> "Detached", peer |-> None])
       ELSE UNCHANGED redisVars
    /\ net' = [l \in Links |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ elapsed' = IF n \in ClientIds THEN [elapsed EXCEPT ![n] = None] ELSE elapsed
    /\ UNCHANGED <<ghost, lastValue, history, sentinel,
                   phase, left, primary, value, checked, acquired, max_ghost>>

\* A crashed node comes back: a replica resynchronises from the primary its
\* configuration names; a former primary waits for the Sentinel to name
\* one; the Sentinel resumes from its configuration; a client starts afresh.
Restart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ CASE n \in RedisNodes ->
              /\ net' = IF standing[n].kind = "Syncing"
                        THEN Sent(net, n, standing[n].peer, [type |-> "Sync"])
                        ELSE Sent(net, n, SentinelNode, [type |-> "Restarted"])
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<clientVars, max_ghost>>
         [] n = SentinelNode ->
              /\ timers' = [timers EXCEPT ![n] =
                              IF sentinel = "Monitoring" THEN SetTimer(NoTimers, "DownAfter", DownAfter)
                              ELSE NoTimers]
              /\ net' = IF sentinel = "Promoting"
                        THEN Sent(net, n, ReplicaNode, [type |-> "Promote"])
                        ELSE net
              /\ UNCHANGED <<clientVars, max_ghost>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ primary' = [primary EXCEPT ![n] = PrimaryNode]
              /\ value' = [value EXCEPT ![n] = 0]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ elapsed' = [elapsed EXCEPT ![n] = None]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<net, max_ghost>>
         [] OTHER ->
              /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<net, clientVars>>
    /\ UNCHANGED <<pause, spent, ghost, lastValue, history, redisVars, sentinel>>

\* Fault: a running node stops taking steps for k ticks while its clock runs.
Pause(n, k) ==
    /\ Targeted(n) /\ Up(n) /\ spent.pauses < Pauses
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<timers, net, ghost, lastValue, history, redisVars, sentinel, clientVars, max_ghost>>

-----------------------------------------------------------------------------

Init ==
    /\ status = [n \in Nodes |-> "Up"]
    /\ pause = [n \in Nodes |-> 0]
    /\ timers = [n \in Nodes |->
                   CASE n = PrimaryNode  -> SetTimer(NoTimers, "Ping", Ping)
                     [] n = SentinelNode -> SetTimer(NoTimers, "DownAfter", DownAfter)
                     [] OTHER            -> NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ spent = [crashes |-> 0, pauses |-> 0]
    /\ ghost = 0
    /\ lastValue = 0
    /\ history = {}
    /\ standing = [r \in RedisNodes |->
                     IF r = PrimaryNode THEN [kind |-> "Primary", peer |-> ReplicaNode]
                     ELSE [kind |-> "Streaming", peer |-> PrimaryNode]]
    /\ key = [r \in RedisNodes |-> None]
    /\ unshipped = [r \in RedisNodes |-> FALSE]
    /\ unacked = [r \in RedisNodes |-> 0]
    /\ waiting = [r \in RedisNodes |-> <<>>]
    /\ sentinel = "Monitoring"
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ primary = [c \in ClientIds |-> PrimaryNode]
    /\ value = [c \in ClientIds |-> 0]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ elapsed = [c \in ClientIds |-> None]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_ghost = 0

\* World::enabled, in its order.
Next ==
    \/ Tick
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
    \/ \E r \in RedisNodes : Replicate(r)
    \/ \E n \in Nodes, t \in TimerNames : Fire(n, t)
    \/ \E src, dst \in Nodes : Deliver(src, dst)
    \/ \E n \in Nodes : Restart(n)
    \/ \E n \in Nodes : Crash(n)
    \/ \E n \in Nodes, k \in MinPause..MaxPause : Pause(n, k)

\* DESIGN.md section 5: weak fairness for each message delivery (per link;
\* with FIFO links this is the same as per message), each node's own steps
\* and timers, Tick and Restart. Faults are never fair; the budget makes
\* them stop.
Fairness ==
    /\ WF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A r \in RedisNodes : WF_vars(Replicate(r))
    /\ \A n \in Nodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A src, dst \in Nodes : WF_vars(Deliver(src, dst))
    /\ \A n \in Nodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Ghost numbers (the world's counter,   *)
(* the clients' acquired, those of Granted and Write, the resource's       *)
(* max_ghost) are only ever compared, so Rust replaces each by its rank    *)
(* among the ghost numbers present in the state (0, "none", stays 0) after *)
(* every action. RankedVars is the state so renumbered: two states with    *)
(* the same RankedVars have the same future up to renumbering, so the      *)
(* .cfg's VIEW RankedVars makes TLC count the states the Rust checker      *)
(* counts. (This family has no fencing: there are no tokens to renumber.)  *)
(* Lock values (Seq::Value: the world's lastValue, the clients' value, the  *)
(* keys, the WAITs' values, and those in messages) are renumbered the same *)
(* way among themselves.                                                   *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in Links}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup {m.ghost : m \in {x \in InFlight : x.type \in {"Granted", "Write"}}}

\* The messages that carry a lock value, and those that carry a key.
ValueTypes == {"SetNxPx", "CompareAndDelete", "Granted", "Refused", "WaitTimedOut", "Released"}
KeyTypes == {"Replicate", "FullSync"}

LockValues ==
    {0, lastValue} \cup {value[c] : c \in ClientIds}
      \cup {key[r] : r \in {x \in RedisNodes : key[x] # None}}
      \cup UNION {{waiting[r][i].value : i \in 1..Len(waiting[r])} : r \in RedisNodes}
      \cup {m.value : m \in {x \in InFlight : x.type \in ValueTypes}}
      \cup {m.key : m \in {x \in InFlight : x.type \in KeyTypes /\ x.key # None}}

\* TLC builds a function [x \in S |-> e] lazily and makes it concrete when
\* it fingerprints a state. Under a VIEW it fingerprints the view instead,
\* so a variable the view rewrites would stay lazy, which TLC 2.15
\* mishandles (it fails writing such a state to its disk queue, or
\* printing it in a trace). Comparing the variable with itself makes TLC
\* evaluate it, as fingerprinting would.
Concrete(v) == v = v

RankedVars ==
    LET G == GhostValues
        rg(v) == Rank(v, G)
        V == LockValues
        rv(v) == Rank(v, V)
        rk(k) == IF k = None THEN None ELSE rv(k)
        ghosted(m) == IF m.type \in {"Granted", "Write"} THEN [m EXCEPT !.ghost = rg(@)] ELSE m
        valued(m) == CASE m.type \in ValueTypes -> [m EXCEPT !.value = rv(@)]
                       [] m.type \in KeyTypes -> [m EXCEPT !.key = rk(@)]
                       [] OTHER -> m
        msg(m) == valued(ghosted(m))
    IN  IF ~(Concrete(net) /\ Concrete(acquired) /\ Concrete(value) /\ Concrete(key)
             /\ Concrete(waiting)) THEN <<>> ELSE
        <<status, pause, timers,
          [l \in Links |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = msg(@)]]],
          spent, rg(ghost), rv(lastValue), history, standing,
          [r \in RedisNodes |-> rk(key[r])], unshipped, unacked,
          [r \in RedisNodes |-> [i \in 1..Len(waiting[r]) |-> [waiting[r][i] EXCEPT !.value = rv(@)]]],
          sentinel, phase, left, primary, [c \in ClientIds |-> rv(value[c])], checked, elapsed,
          [c \in ClientIds |-> rg(acquired[c])], rg(max_ghost)>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

Standings == [kind : {"Primary", "Detached", "Syncing", "Streaming"}, peer : RedisNodes \cup {None}]

TypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ \A n \in Nodes : DOMAIN timers[n] \subseteq TimerNames
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses]
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ standing \in [RedisNodes -> Standings]
    /\ key \in [RedisNodes -> Nat \cup {None}]
    /\ unshipped \in [RedisNodes -> BOOLEAN]
    /\ unacked \in [RedisNodes -> 0..MaxUnacked]
    /\ sentinel \in {"Monitoring", "Promoting", "Switched"}
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ primary \in [ClientIds -> RedisNodes]
    /\ value \in [ClientIds -> Nat]

\* Never two clients that both believe they hold the lock.
MutualExclusion == Cardinality(Holding) <= 1

\* The resource never accepts a write made under an earlier acquisition
\* after one made under a later one.
NoStaleWrite == "StaleWrite" \notin history

\* A release never removes a lock that another client acquired (the
\* compare-and-delete script never does: the flag is never raised).
NoForeignRelease == "ForeignRelease" \notin history

\* Client c is granted the lock in this step: it stops wanting it
\* (properties.rs's acquired).
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
