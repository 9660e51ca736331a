---------------------------- MODULE PrimaryReplica ----------------------------
(***************************************************************************)
(* primary-replica: the single-instance Redis lock (SET lock me NX PX ttl, *)
(* released by the compare-and-delete script) on a Redis primary with      *)
(* Replicas replicas, watched by a Sentinel that promotes a replica when   *)
(* the primary is down, as often as the faults make it. Written from the   *)
(* Redis documentation:                                                    *)
(*   - "Redis replication" (redis.io/docs/latest/operate/oss_and_stack/    *)
(*     management/replication/): "Redis uses asynchronous replication";   *)
(*     a replica that (re)connects asks PSYNC and gets a full              *)
(*     resynchronisation; replicas acknowledge the stream (REPLCONF ACK);  *)
(*     a primary without persistence must not restart on its own;          *)
(*   - the WAIT command (redis.io/docs/latest/commands/wait/): "WAIT        *)
(*     numreplicas timeout" blocks until numreplicas replicas acknowledged *)
(*     the client's writes, or the timeout, and returns how many did;      *)
(*     "WAIT does not make Redis a strongly consistent store"; a blocked   *)
(*     WAIT has the primary ask every replica for its offset (REPLCONF     *)
(*     GETACK *, queued on the stream behind the writes not yet shipped);  *)
(*   - "High availability with Redis Sentinel" (redis.io/docs/latest/      *)
(*     operate/oss_and_stack/management/sentinel/): down-after-            *)
(*     milliseconds, +new-epoch / +try-failover, +selected-slave, the      *)
(*     failover in a configuration epoch ("every failover ... has a unique *)
(*     configuration epoch"), failover-timeout, +switch-master to clients, *)
(*     +slave-reconf-sent to the other replicas, and +convert-to-slave of  *)
(*     an old primary that comes back with an older configuration.         *)
(* Vocabulary. Requests: SetNxPx (SET lock v NX PX Ttl; with Replication = *)
(* "wait" and Pipeline, WAIT k timeout in the same request), Wait (WAIT k  *)
(* timeout, sent on SET's OK without Pipeline), CompareAndDelete (the Lua  *)
(* script). Answers: SetOk (SET's OK, before the WAIT), Granted (OK, or    *)
(* WAIT's k), Refused (nil), WaitTimedOut (WAIT returned fewer than k),    *)
(* Released. Replication: Replicate (the stream: the key with PXAT,        *)
(* followed by REPLCONF GETACK * when getack), GetAck (a GETACK alone),    *)
(* Sync (PSYNC), FullSync (+FULLRESYNC and the RDB), Ack (REPLCONF ACK: a  *)
(* replica's answer to a GETACK or a full resynchronisation). Sentinel:    *)
(* Ping (the primary's heartbeat, with its configuration epoch), Promote   *)
(* (REPLICAOF NO ONE in an epoch), Promoted (role:master), ReplicaOf       *)
(* (REPLICAOF p), NewPrimary (+switch-master), Restarted (a former primary *)
(* back, empty). Steps: Acquire, Check, Write (clients), Replicate (a      *)
(* primary: a change, a GETACK or both), SelectReplica (the Sentinel,      *)
(* +selected-slave).                                                       *)
(*                                                                         *)
(* The world (time, network, faults, fairness) is World.tla's; this module *)
(* supplies the handlers. The Rust module src/algorithms/primary_replica/  *)
(* follows it action for action (with client.rs and resource.rs): for the *)
(* constants of a scenario TLC must find exactly as many distinct states   *)
(* as the Rust checker finds unique states. The variables are the fields   *)
(* of the Rust states:                                                     *)
(*   standing, epoch, key, attached, waiting   Redis, per Redis node (a    *)
(*        Standing is [kind, peer]; attached is Redis::replicas as a       *)
(*        function from the attached ids to [unshipped, getack, unacked];  *)
(*        waiting the Vec<Waiting> sorted by client, each [client, value,  *)
(*        shipment (per Redis node), acked (a set of ids), blocked])       *)
(*   sentinel  Sentinel: [epoch, primary, failover ([kind, replica]),      *)
(*        returned (a set of ids)]                                         *)
(*   phase, left, primary, value, waited, checked, acquired   Client       *)
(*        (waited is Client::waiting, acquired Client::ghost); a validity  *)
(*        client's stopwatch is watches[c]["Elapsed"]                      *)
(*   max_ghost  Resource (no fencing: its max_token and every token is 0,  *)
(*        left out)                                                        *)
(*   broken  WorldState::broken, which World.tla does not model: the set   *)
(*        of [node, peer, noticed] (Broken). Here only a crash breaks a    *)
(*        connection: a replica holds one to the primary it follows        *)
(*        (Actor::holds_connection), and when that primary crashes the     *)
(*        replica notices (Disconnected: it will resynchronise) and        *)
(*        reconnects once it runs again (Reconnect: PSYNC, a Sync).        *)
(* Pipeline ([system] pipeline) is a definition, FALSE, not a constant:    *)
(* the scenarios' constants (Family::tla_constants) refuse pipeline =      *)
(* true and do not name it; a .cfg may still set it (Pipeline = TRUE).     *)
(* Node ids as in Rust: the initial primary 0, replicas 1..Replicas, the   *)
(* Sentinel, the clients, the resource last. Not modelled (the Rust module *)
(* rejects them): loss, duplication, reordering, partitions; clock faults  *)
(* are World.tla's. The world's connections (src/world/connections.rs)     *)
(* are this module's: broken, Disconnected, Reconnect, and the Crash that  *)
(* closes the connections to the crashed node (World.tla has none).        *)
(***************************************************************************)
EXTENDS World, TLC

CONSTANTS
    Clients,       \* [system] clients
    Replicas,      \* [system] replicas
    Ttl,           \* [system] ttl: key expiry (PX) in the serving node's ticks
    Replication,   \* [system] replication: "async" or "wait"
    WaitReplicas,  \* [system] wait_replicas: WAIT's numreplicas
    WaitTimeout,   \* [system] wait_timeout: WAIT's timeout; 0 waits for ever
    Ping,          \* [system] ping: ticks between the primary's pings
    DownAfter,     \* [system] down_after: down-after and failover-timeout
    Retry,         \* [system] retry: ticks a refused client waits
    Timeout,       \* [system] timeout: a client's request timeout
    Client,        \* [system] client: "naive" or "validity"
    Drift,         \* [system] drift: a validity client's drift allowance
    Margin,        \* [system] margin: validity a client needs left to write
    Acquisitions   \* [bounds] acquisitions per client; 0 = forever

ASSUME /\ Clients \in 1..4 /\ Replicas \in 1..3 /\ Ttl \in 1..30
       /\ Replication \in {"async", "wait"} /\ WaitReplicas \in 1..Replicas
       /\ WaitTimeout \in 0..30 /\ Ping \in 1..10 /\ DownAfter \in 1..30
       /\ Retry \in 1..10 /\ Timeout \in 1..30
       /\ Client \in {"naive", "validity"} /\ Drift \in 0..10 /\ Margin \in 0..10
       /\ Acquisitions \in 0..5
       /\ ~Loss /\ ~Duplication /\ Partitions = 0

\* [system] pipeline (wait only): the client sends SET and WAIT together,
\* rather than WAIT once SET has answered OK. A definition, so that the
\* constants written from a scenario, which never name it, leave it FALSE;
\* a .cfg overrides it with Pipeline = TRUE.
Pipeline == FALSE

ASSUME Pipeline \in BOOLEAN /\ (Pipeline => Replication = "wait")

PrimaryNode == 0
RedisNodes == 0..Replicas
SentinelNode == Replicas + 1
ClientIds == Replicas + 2..Replicas + 1 + Clients
ResourceNode == Replicas + 2 + Clients
AllNodes == 0..ResourceNode
Links == AllNodes \X AllNodes

Wait == Replication = "wait"
Validity == Client = "validity"

\* The most REPLCONF GETACKs a wait primary has out unanswered, per
\* replica (MAX_UNACKED).
MaxUnacked == 2

\* Timer::WaitTimeout { client: c }.
WaitTimer(c) == "WaitTimeout" \o ToString(c)
WaitTimers == {WaitTimer(c) : c \in ClientIds}
WaitClient(t) == CHOOSE c \in ClientIds : WaitTimer(c) = t
TimerNames == {"KeyExpiry", "Ping", "DownAfter", "Retry", "Timeout", "Validity"} \cup WaitTimers

\* The world's view of the nodes (World.tla's hooks).
Role(n) == CASE n \in RedisNodes \cup {SentinelNode} -> "server"
             [] n = ResourceNode -> "observer"
             [] OTHER -> "client"
\* Any elapsed time of a TTL or more leaves no validity.
Cap(n, w) == Ttl
MayPause(n) == TRUE

\* Params::failovers: how many failovers the fault budget can cause, when
\* that is bounded (-1: false failovers can happen too). Without a fault,
\* pings arrive at most Ping + d ticks apart and a promotion is answered
\* within 2d.
Failovers ==
    IF /\ MaxDelay \in Nat
       /\ DownAfter > (IF Ping + MaxDelay > 2 * MaxDelay THEN Ping + MaxDelay ELSE 2 * MaxDelay)
       /\ ClockJumps = 0 /\ MaxDrift = 0
    THEN IF Targets \in {"all", "servers"} THEN Crashes + Pauses ELSE 0
    ELSE -1

VARIABLES
    standing,   \* standing[r]: [kind, peer]: Primary, Detached, Syncing/Streaming from peer
    epoch,      \* epoch[r]: the configuration epoch a primary was promoted in
    key,        \* key[r]: the lock value r's key holds, or None
    attached,   \* attached[r]: attached replica id -> [unshipped, getack, unacked]
    waiting,    \* waiting[r]: granted SETs whose WAIT has not returned, sorted by client
    sentinel,   \* [epoch, primary, failover, returned]
    phase,      \* phase[c]: Want, Acquiring, Holding, Writing, Releasing, Done
    left,       \* left[c]: acquisitions still to make
    primary,    \* primary[c]: the node c believes is the primary
    value,      \* value[c]: the current attempt's lock value (0: none)
    waited,     \* waited[c]: without Pipeline, c's SET was answered OK and its WAIT is out
    checked,    \* checked[c]: a validity client found validity left
    acquired,   \* acquired[c]: the ghost number of c's grant
    max_ghost,  \* the resource: the latest acquisition a write was accepted under
    broken      \* the world's broken connections: a set of [node, peer, noticed]

\* What a handler leaves as it is: the faults' variables, and the broken
\* connections. The world drops a node's entries its handler leaves it no
\* longer holding (World::handle); only Promote and ReplicaOf change the
\* primary a replica follows, and they drop them (Held: every entry is a
\* held connection, which TypeOK checks).
faultVars == <<status, pause, skew, cut, spent>>
fixed == <<faultVars, broken>>
redisVars == <<standing, epoch, key, attached, waiting>>
clientVars == <<phase, left, primary, value, waited, checked, acquired>>
algVars == <<standing, epoch, key, attached, waiting, sentinel,
             phase, left, primary, value, waited, checked, acquired, max_ghost>>
vars == <<worldVars, algVars, broken>>

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs): ghost numbers (Seq::Ghost), lock      *)
(* values (Seq::Value) and configuration epochs (Seq::Token) are ranked    *)
(* among their kind after every action, so a handler of the Rust module    *)
(* sees an epoch's rank: Monitors reads it so.                             *)

Valued == {"SetNxPx", "SetOk", "Wait", "CompareAndDelete", "Granted", "Refused", "WaitTimedOut", "Released"}
Keyed == {"Replicate", "FullSync"}
Epoched == {"Ping", "Promote", "Promoted"}

GhostValues ==
    {0, ghost, max_ghost} \cup {acquired[c] : c \in ClientIds}
      \cup {m.ghost : m \in {x \in InFlight : x.type \in {"Granted", "Write"}}}

LockValues ==
    {0, drawn} \cup {value[c] : c \in ClientIds}
      \cup {key[r] : r \in {x \in RedisNodes : key[x] # None}}
      \cup UNION {{waiting[r][i].value : i \in 1..Len(waiting[r])} : r \in RedisNodes}
      \cup {m.value : m \in {x \in InFlight : x.type \in Valued}}
      \cup {m.key : m \in {x \in InFlight : x.type \in Keyed /\ x.key # None}}

EpochValues ==
    {0, sentinel.epoch} \cup {epoch[r] : r \in RedisNodes}
      \cup {m.epoch : m \in {x \in InFlight : x.type \in Epoched}}

\* Params::monitors, on the epoch's rank: the Sentinel watches the primary
\* of an epoch (and it pings) while the budget can still cause a failover.
Monitors(e) == Failovers < 0 \/ Rank(e, EpochValues) < (IF Failovers > 1 THEN Failovers ELSE 1)

-----------------------------------------------------------------------------
(* Redis helpers.                                                          *)

IsPrimary(r) == standing[r].kind = "Primary"
Follows(r, kind, p) == standing[r].kind = kind /\ standing[r].peer = p

\* Redis::wrote: the key changed; every attached replica is to be shipped it.
Wrote(r) == [attached EXCEPT ![r] = [a \in DOMAIN @ |-> [@[a] EXCEPT !.unshipped = TRUE]]]

\* Redis::ask_for_acks (after wrote when at: attached[r] as it is then): a
\* WAIT blocks, and a GETACK is queued for every attached replica.
AskForAcks(at, r) == [at EXCEPT ![r] = [a \in DOMAIN @ |-> [@[a] EXCEPT !.getack = TRUE]]]

\* dataset: the key with the TTL left on r's clock; a due key is gone.
Dataset(r) ==
    IF key[r] # None /\ IsSet(r, "KeyExpiry") /\ timers[r]["KeyExpiry"] > 0
    THEN [key |-> key[r], px |-> timers[r]["KeyExpiry"]]
    ELSE [key |-> None, px |-> 0]

NoAttached == [a \in {} |-> [unshipped |-> FALSE, getack |-> FALSE, unacked |-> 0]]

\* Redis::new(s): an empty node.
Fresh(r, s) ==
    /\ standing' = [standing EXCEPT ![r] = s]
    /\ epoch' = [epoch EXCEPT ![r] = 0]
    /\ key' = [key EXCEPT ![r] = None]
    /\ attached' = [attached EXCEPT ![r] = NoAttached]
    /\ waiting' = [waiting EXCEPT ![r] = <<>>]

\* Attached::asks: a GETACK is queued for a and may go now.
Asks(r, a) == attached[r][a].getack /\ attached[r][a].unacked < MaxUnacked

\* Redis::next_shipment: the lowest attached id with a change to ship, or a
\* GETACK queued and room for another unanswered one.
Shippable(r) == {a \in DOMAIN attached[r] : attached[r][a].unshipped \/ Asks(r, a)}
NextShipment(r) == CHOOSE a \in Shippable(r) : \A b \in Shippable(r) : a <= b

NoShipment == [x \in RedisNodes |-> 0]

-----------------------------------------------------------------------------
(* Connections (src/world/connections.rs; World.tla has none). A Redis     *)
(* replica holds a connection to the primary it follows; a crash of that   *)
(* primary breaks it (Crash). No other node holds one, so every entry of   *)
(* broken links two Redis nodes.                                           *)

\* Actor::holds_connection, for a Redis node of standing st.
HoldsConn(st, peer) == st.kind \in {"Syncing", "Streaming"} /\ st.peer = peer

\* Every entry is a connection its node holds (World::handle keeps it so).
Held == \A e \in broken : e.node \in RedisNodes /\ HoldsConn(standing[e.node], e.peer)

\* WorldState::broken_between, in the entries b.
BrokenBetween(b, x, y) == \E e \in b : {e.node, e.peer} = {x, y}

\* World::handle: once node n's handler has left it of standing st, its
\* entries for connections it no longer holds are gone.
Prune(b, n, st) == {e \in b : e.node # n \/ HoldsConn(st, e.peer)}

\* Cmd::Send (WorldState::drops), with the entries b: a message between
\* the two ends of a broken connection is dropped. Only a message between
\* two Redis nodes can be; the others go by World.tla's Send.
SendOn(q, b, src, dst, m) == IF BrokenBetween(b, src, dst) THEN q ELSE Send(q, src, dst, m)

\* World::connection_steps: running node n has a break to notice, or a
\* connection to reopen (the peer runs and the link is whole).
ConnectionStep(n) ==
    \E e \in broken : e.node = n /\ (~e.noticed \/ (status[e.peer] # "Down" /\ ~Cut(n, e.peer)))

-----------------------------------------------------------------------------
(* The client's script (common/client.rs) and the lock view (properties.rs). *)

Valid(c) == IsSet(c, "Validity") /\ timers[c]["Validity"] > 0
Holds(c) == \/ phase[c] = "Holding" /\ (~Validity \/ checked[c] \/ Valid(c))
            \/ phase[c] = "Writing"
Wants(c) == \/ phase[c] \in {"Want", "Acquiring"}
            \/ Validity /\ phase[c] = "Holding" /\ ~checked[c]

Holding == {c \in ClientIds : status[c] # "Down" /\ Holds(c)}
Wanting == {c \in ClientIds : status[c] # "Down" /\ Wants(c)}

\* Script::released, with the value and check forgotten.
Released(c) ==
    /\ IF Acquisitions = 0
       THEN /\ phase' = [phase EXCEPT ![c] = "Want"]
            /\ UNCHANGED left
       ELSE /\ left' = [left EXCEPT ![c] = @ - 1]
            /\ phase' = [phase EXCEPT ![c] = IF left[c] = 1 THEN "Done" ELSE "Want"]
    /\ value' = [value EXCEPT ![c] = 0]
    /\ checked' = [checked EXCEPT ![c] = FALSE]

\* retry_later (tm: c's timers so far).
RetryLater(c, tm) ==
    /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Elapsed")]
    /\ phase' = [phase EXCEPT ![c] = "Want"]
    /\ value' = [value EXCEPT ![c] = 0]
    /\ waited' = [waited EXCEPT ![c] = FALSE]
    /\ checked' = [checked EXCEPT ![c] = FALSE]
    /\ timers' = [timers EXCEPT ![c] = SetTimer(tm, "Retry", Retry)]

\* give_up: compare-and-delete without waiting, and retry later.
GiveUp(c, q, tm) ==
    /\ net' = Send(q, c, primary[c], [type |-> "CompareAndDelete", value |-> value[c]])
    /\ RetryLater(c, CancelTimer(tm, "Validity"))

-----------------------------------------------------------------------------
(* Own steps (Actor::steps, on_step). All but Acquire are urgent.         *)

CanAcquire(c) == phase[c] = "Want" /\ ~IsSet(c, "Retry")
CanCheck(c) == Validity /\ phase[c] = "Holding" /\ ~checked[c]
CanWrite(c) == phase[c] = "Holding" /\ (~Validity \/ checked[c])
CanReplicate(r) == Shippable(r) # {}
Electing == sentinel.failover.kind = "Electing"
HasUrgentStep(n) == \/ n \in ClientIds /\ (CanCheck(n) \/ CanWrite(n))
                    \/ n \in RedisNodes /\ CanReplicate(n)
                    \/ n = SentinelNode /\ Electing
\* World::clock: time cannot pass an urgent step, nor a running node's
\* Disconnected or Reconnect.
Urgent(n) == HasUrgentStep(n) \/ ConnectionStep(n)

Acquire(c) ==
    LET v == drawn + 1 IN
    /\ Up(c) /\ CanAcquire(c)
    /\ drawn' = v
    /\ value' = [value EXCEPT ![c] = v]
    /\ net' = Send(net, c, primary[c], [type |-> "SetNxPx", value |-> v])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ watches' = IF Validity THEN [watches EXCEPT ![c] = StartWatch(@, "Elapsed")] ELSE watches
    /\ phase' = [phase EXCEPT ![c] = "Acquiring"]
    /\ UNCHANGED <<fixed, ghost, history, redisVars, sentinel,
                   left, primary, waited, checked, acquired, max_ghost>>

Check(c) ==
    /\ Up(c) /\ CanCheck(c)
    /\ IF IsSet(c, "Validity") /\ timers[c]["Validity"] > Margin
       THEN /\ checked' = [checked EXCEPT ![c] = TRUE]
            /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Validity")]
            /\ UNCHANGED <<net, phase, value, waited, watches>>
       ELSE GiveUp(c, net, timers[c])
    /\ UNCHANGED <<fixed, ghost, drawn, history, redisVars, sentinel,
                   left, primary, acquired, max_ghost>>

Write(c) ==
    /\ Up(c) /\ CanWrite(c)
    /\ net' = Send(net, c, ResourceNode, [type |-> "Write", ghost |-> acquired[c]])
    /\ phase' = [phase EXCEPT ![c] = "Writing"]
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, redisVars, sentinel,
                   left, primary, value, waited, checked, acquired, max_ghost>>

\* Replicate: ship the key as it is now to the next replica, followed by
\* the GETACK queued for it if it may go (getack); or that GETACK alone.
\* A GETACK is the replica's n-th unanswered one: each WAIT's write not yet
\* covered by one to it, nor acknowledged by it, notes n.
Replicate(r) ==
    LET to == NextShipment(r)
        ga == Asks(r, to)
        n == attached[r][to].unacked + 1
        d == Dataset(r)
    IN
    /\ Up(r) /\ CanReplicate(r)
    /\ net' = SendOn(net, broken, r, to,
                   IF attached[r][to].unshipped
                   THEN [type |-> "Replicate", key |-> d.key, px |-> d.px, getack |-> ga]
                   ELSE [type |-> "GetAck"])
    /\ attached' = [attached EXCEPT ![r][to] =
                      [unshipped |-> FALSE,
                       getack |-> IF ga THEN FALSE ELSE @.getack,
                       unacked |-> IF ga THEN n ELSE @.unacked]]
    /\ waiting' = IF ga
                  THEN [waiting EXCEPT ![r] =
                          [i \in 1..Len(@) |->
                             IF @[i].shipment[to] = 0 /\ to \notin @[i].acked
                             THEN [@[i] EXCEPT !.shipment[to] = n] ELSE @[i]]]
                  ELSE waiting
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, standing, epoch, key,
                   sentinel, clientVars, max_ghost>>

\* SelectReplica (+selected-slave): any replica of the failed primary is
\* told to take over in the failover's epoch, within down-after ticks.
SelectReplica(r) ==
    /\ Up(SentinelNode) /\ Electing /\ r \in RedisNodes /\ r # sentinel.primary
    /\ sentinel' = [sentinel EXCEPT !.failover = [kind |-> "Promoting", replica |-> r]]
    /\ net' = Send(net, SentinelNode, r, [type |-> "Promote", epoch |-> sentinel.epoch])
    /\ timers' = IF Monitors(sentinel.epoch)
                 THEN [timers EXCEPT ![SentinelNode] = SetTimer(@, "DownAfter", DownAfter)]
                 ELSE timers
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, redisVars, clientVars, max_ghost>>

-----------------------------------------------------------------------------
(* A Redis node executes one command atomically (redis_receive).           *)

Reply(src, r, m) == net' = SendOn(Pop(src, r), broken, r, src, m)

\* block: the WAIT of c blocks; its timeout runs (tm: r's timers so far).
BlockTimers(tm, c) == IF WaitTimeout > 0 THEN SetTimer(tm, WaitTimer(c), WaitTimeout) ELSE tm

\* SET lock v NX PX ttl. A new command from a client whose WAIT is still
\* blocked (or to come) drops that WAIT. With wait the primary keeps the
\* write (waiting): pipelined, its WAIT blocks at once; otherwise SET
\* answers OK (SetOk) and the client's WAIT is to come.
ReceiveSetNxPx(src, r) ==
    LET v == Msg(src, r).value
        s == SelectSeq(waiting[r], LAMBDA w : w.client # src)
        t == CancelTimer(timers[r], WaitTimer(src))
    IN
    /\ IsPrimary(r) /\ Msg(src, r).type = "SetNxPx"
    /\ IF key[r] # None
       THEN /\ Reply(src, r, [type |-> "Refused", value |-> v])
            /\ timers' = [timers EXCEPT ![r] = t]
            /\ waiting' = [waiting EXCEPT ![r] = s]
            /\ UNCHANGED <<ghost, key, attached>>
       ELSE /\ key' = [key EXCEPT ![r] = v]
            /\ IF Wait
               THEN LET at == Len(SelectSeq(s, LAMBDA w : w.client < src))
                        w == [client |-> src, value |-> v, shipment |-> NoShipment, acked |-> {},
                              blocked |-> Pipeline]
                    IN
                    /\ waiting' = [waiting EXCEPT ![r] = SubSeq(s, 1, at) \o <<w>> \o SubSeq(s, at + 1, Len(s))]
                    /\ IF Pipeline
                       THEN /\ timers' = [timers EXCEPT ![r] = BlockTimers(SetTimer(t, "KeyExpiry", Ttl), src)]
                            /\ attached' = AskForAcks(Wrote(r), r)
                            /\ net' = Pop(src, r)
                       ELSE /\ timers' = [timers EXCEPT ![r] = SetTimer(t, "KeyExpiry", Ttl)]
                            /\ attached' = Wrote(r)
                            /\ Reply(src, r, [type |-> "SetOk", value |-> v])
                    /\ UNCHANGED ghost
               ELSE /\ timers' = [timers EXCEPT ![r] = SetTimer(t, "KeyExpiry", Ttl)]
                    /\ attached' = Wrote(r)
                    /\ ghost' = ghost + 1
                    /\ Reply(src, r, [type |-> "Granted", ghost |-> ghost + 1, value |-> v])
                    /\ waiting' = [waiting EXCEPT ![r] = s]
    /\ UNCHANGED <<fixed, watches, drawn, history, standing, epoch, sentinel, clientVars, max_ghost>>

\* WAIT k timeout, after SET's OK: returns at once (Granted) if k replicas
\* have acknowledged the client's write, and blocks otherwise (block: its
\* timeout runs, and every replica is asked for its offset). A WAIT for no
\* write the primary has (same client and value; it restarted since the
\* SET) comes on a new connection, whose write offset 0 every attached
\* replica has reached: the client's other record goes (and its timeout,
\* if it had one), and a record acknowledged by every attached replica
\* takes its place in client order, then returns or blocks as any other.
ReceiveWait(src, r) ==
    LET v == Msg(src, r).value
        s == waiting[r]
        found == {i \in 1..Len(s) : s[i].client = src /\ s[i].value = v}
        i == CHOOSE i \in found : \A j \in found : i <= j
        had == \E j \in 1..Len(s) : s[j].client = src
        rest == SelectSeq(s, LAMBDA w : w.client # src)
        at == Len(SelectSeq(rest, LAMBDA w : w.client < src))
        new == [client |-> src, value |-> v, shipment |-> NoShipment,
                acked |-> DOMAIN attached[r], blocked |-> TRUE]
        tm == IF had THEN CancelTimer(timers[r], WaitTimer(src)) ELSE timers[r]
    IN
    /\ IsPrimary(r) /\ Msg(src, r).type = "Wait"
    /\ IF found = {}
       THEN IF Cardinality(DOMAIN attached[r]) >= WaitReplicas
            THEN /\ waiting' = [waiting EXCEPT ![r] = rest]
                 /\ timers' = [timers EXCEPT ![r] = tm]
                 /\ ghost' = ghost + 1
                 /\ Reply(src, r, [type |-> "Granted", ghost |-> ghost + 1, value |-> v])
                 /\ UNCHANGED attached
            ELSE /\ waiting' = [waiting EXCEPT ![r] =
                                  SubSeq(rest, 1, at) \o <<new>> \o SubSeq(rest, at + 1, Len(rest))]
                 /\ timers' = [timers EXCEPT ![r] = BlockTimers(tm, src)]
                 /\ attached' = AskForAcks(attached, r)
                 /\ net' = Pop(src, r)
                 /\ UNCHANGED ghost
       ELSE IF Cardinality(s[i].acked) >= WaitReplicas
       THEN /\ waiting' = [waiting EXCEPT ![r] = SubSeq(s, 1, i - 1) \o SubSeq(s, i + 1, Len(s))]
            /\ ghost' = ghost + 1
            /\ Reply(src, r, [type |-> "Granted", ghost |-> ghost + 1, value |-> v])
            /\ UNCHANGED <<timers, attached>>
       ELSE /\ waiting' = [waiting EXCEPT ![r][i].blocked = TRUE]
            /\ timers' = [timers EXCEPT ![r] = BlockTimers(@, src)]
            /\ attached' = AskForAcks(attached, r)
            /\ net' = Pop(src, r)
            /\ UNCHANGED ghost
    /\ UNCHANGED <<fixed, watches, drawn, history, standing, epoch, key, sentinel, clientVars, max_ghost>>

\* The Lua script: if GET lock == v then DEL lock.
ReceiveCompareAndDelete(src, r) ==
    LET v == Msg(src, r).value IN
    /\ IsPrimary(r) /\ Msg(src, r).type = "CompareAndDelete"
    /\ IF key[r] = v
       THEN /\ key' = [key EXCEPT ![r] = None]
            /\ timers' = [timers EXCEPT ![r] = CancelTimer(@, "KeyExpiry")]
            /\ attached' = Wrote(r)
       ELSE UNCHANGED <<key, timers, attached>>
    /\ Reply(src, r, [type |-> "Released", value |-> v])
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, standing, epoch, waiting, sentinel,
                   clientVars, max_ghost>>

\* PSYNC: a replica (re)attaches; the dataset replaces its backlog, and its
\* acknowledgement covers every write so far (and answers every GETACK).
ReceiveSync(src, r) ==
    /\ IsPrimary(r) /\ Msg(src, r).type = "Sync"
    /\ attached' = [attached EXCEPT ![r] =
                      [a \in DOMAIN @ \cup {src} |->
                         IF a = src THEN [unshipped |-> FALSE, getack |-> FALSE, unacked |-> IF Wait THEN 1 ELSE 0]
                         ELSE @[a]]]
    /\ waiting' = [waiting EXCEPT ![r] =
                     [i \in 1..Len(@) |-> [@[i] EXCEPT !.shipment[src] = 1, !.acked = @ \ {src}]]]
    /\ LET d == Dataset(r) IN
       Reply(src, r, [type |-> "FullSync", key |-> d.key, px |-> d.px])
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, standing, epoch, key,
                   sentinel, clientVars, max_ghost>>

\* REPLCONF ACK: src answers its oldest GETACK; the blocked WAITs whose
\* writes now have WaitReplicas acknowledgements return (one ghost number
\* each, in client order).
AckEntry(w, src) ==
    CASE w.shipment[src] = 0 -> w
      [] w.shipment[src] = 1 -> [w EXCEPT !.shipment[src] = 0, !.acked = @ \cup {src}]
      [] OTHER -> [w EXCEPT !.shipment[src] = @ - 1]

ReceiveAck(src, r) ==
    LET s == [i \in 1..Len(waiting[r]) |-> AckEntry(waiting[r][i], src)]
        done == {i \in 1..Len(s) : s[i].blocked /\ Cardinality(s[i].acked) >= WaitReplicas}
        gh(i) == ghost + Cardinality({j \in done : j <= i})
        who == {s[i].client : i \in done}
        popped == Pop(src, r)
    IN
    /\ IsPrimary(r) /\ Msg(src, r).type = "Ack" /\ src \in DOMAIN attached[r]
    /\ attached' = [attached EXCEPT ![r][src].unacked = IF @ > 0 THEN @ - 1 ELSE 0]
    /\ timers' = [timers EXCEPT ![r] = [x \in DOMAIN @ \ {WaitTimer(c) : c \in who} |-> @[x]]]
    /\ ghost' = ghost + Cardinality(done)
    /\ net' = [l \in DOMAIN net |->
                 IF l[1] = r /\ l[2] \in who /\ status[l[2]] # "Down"
                 THEN LET i == CHOOSE i \in done : s[i].client = l[2] IN
                      Append(popped[l], [msg |-> [type |-> "Granted", ghost |-> gh(i), value |-> s[i].value],
                                         age |-> 0, copied |-> FALSE])
                 ELSE popped[l]]
    /\ waiting' = [waiting EXCEPT ![r] =
                     SelectSeq(s, LAMBDA w : ~(w.blocked /\ Cardinality(w.acked) >= WaitReplicas))]
    /\ UNCHANGED <<fixed, watches, drawn, history, standing, epoch, key, sentinel,
                   clientVars, max_ghost>>

\* apply: the replica takes the primary's key, expiring at the primary's
\* PXAT: the TTL left when sent less the shipment's time in flight.
Apply(r, src) ==
    LET m == Msg(src, r)
        pxLeft == m.px - Age(src, r)
    IN
    /\ key' = [key EXCEPT ![r] = IF m.key # None /\ pxLeft > 0 THEN m.key ELSE None]
    /\ timers' = [timers EXCEPT ![r] =
                    IF m.key # None /\ pxLeft > 0 THEN SetTimer(@, "KeyExpiry", pxLeft)
                    ELSE CancelTimer(@, "KeyExpiry")]

AckOrPop(src, r, ack) == IF ack THEN Reply(src, r, [type |-> "Ack"]) ELSE net' = Pop(src, r)

\* The replica acknowledges when asked (a GETACK behind the change).
ReceiveReplicate(src, r) ==
    /\ Msg(src, r).type = "Replicate" /\ Follows(r, "Streaming", src)
    /\ Apply(r, src)
    /\ AckOrPop(src, r, Msg(src, r).getack)
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, standing, epoch, attached, waiting,
                   sentinel, clientVars, max_ghost>>

ReceiveGetAck(src, r) ==
    /\ Msg(src, r).type = "GetAck" /\ Follows(r, "Streaming", src)
    /\ Reply(src, r, [type |-> "Ack"])
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, redisVars, sentinel,
                   clientVars, max_ghost>>

ReceiveFullSync(src, r) ==
    /\ Msg(src, r).type = "FullSync" /\ Follows(r, "Syncing", src)
    /\ Apply(r, src)
    /\ standing' = [standing EXCEPT ![r] = [kind |-> "Streaming", peer |-> src]]
    /\ AckOrPop(src, r, Wait)
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, epoch, attached, waiting,
                   sentinel, clientVars, max_ghost>>

\* REPLICAOF NO ONE in epoch e: take over as primary (with no replica until
\* one attaches), ping the Sentinel while it monitors e, answer role:master.
\* A connection to its former primary that was broken is no longer held.
ReceivePromote(src, r) ==
    LET e == Msg(src, r).epoch IN
    /\ Msg(src, r).type = "Promote"
    /\ IF ~IsPrimary(r)
       THEN /\ attached' = [attached EXCEPT ![r] = NoAttached]
            /\ timers' = [timers EXCEPT ![r] =
                            IF Monitors(e) THEN SetTimer(@, "Ping", Ping) ELSE CancelTimer(@, "Ping")]
       ELSE UNCHANGED <<attached, timers>>
    /\ standing' = [standing EXCEPT ![r] = [kind |-> "Primary", peer |-> None]]
    /\ epoch' = [epoch EXCEPT ![r] = e]
    /\ broken' = Prune(broken, r, [kind |-> "Primary", peer |-> None])
    /\ Reply(src, r, [type |-> "Promoted", epoch |-> e])
    /\ UNCHANGED <<faultVars, watches, ghost, drawn, history, key, waiting, sentinel,
                   clientVars, max_ghost>>

\* REPLICAOF p: "already connected" when r follows p; otherwise drop the
\* dataset (and any blocked WAIT) and resynchronise (+convert-to-slave,
\* +slave-reconf-sent); a broken connection to the former primary is no
\* longer held.
AlreadyFollows(r, p) == standing[r].kind \in {"Syncing", "Streaming"} /\ standing[r].peer = p

ReceiveReplicaOf(src, r) ==
    LET p == Msg(src, r).primary
        b == Prune(broken, r, [kind |-> "Syncing", peer |-> p])
    IN
    /\ Msg(src, r).type = "ReplicaOf" /\ ~AlreadyFollows(r, p)
    /\ timers' = [timers EXCEPT ![r] =
                    [x \in DOMAIN @ \ ({WaitTimer(waiting[r][i].client) : i \in 1..Len(waiting[r])}
                                        \cup {"KeyExpiry", "Ping"}) |-> @[x]]]
    /\ Fresh(r, [kind |-> "Syncing", peer |-> p])
    /\ broken' = b
    /\ net' = SendOn(Pop(src, r), b, r, p, [type |-> "Sync"])
    /\ UNCHANGED <<faultVars, watches, ghost, drawn, history, sentinel, clientVars, max_ghost>>

RedisTakes(src, r, m) ==
    \/ IsPrimary(r) /\ m.type \in {"SetNxPx", "Wait", "CompareAndDelete", "Sync"}
    \/ IsPrimary(r) /\ m.type = "Ack" /\ src \in DOMAIN attached[r]
    \/ Follows(r, "Streaming", src) /\ m.type \in {"Replicate", "GetAck"}
    \/ Follows(r, "Syncing", src) /\ m.type = "FullSync"
    \/ m.type = "Promote"
    \/ m.type = "ReplicaOf" /\ ~AlreadyFollows(r, m.primary)

-----------------------------------------------------------------------------
(* The Sentinel (sentinel_receive).                                        *)

Monitoring == sentinel.failover.kind = "Monitoring"

\* The configured primary is alive: down-after starts over.
ReceivePing(src) ==
    /\ Msg(src, SentinelNode).type = "Ping" /\ Monitoring /\ src = sentinel.primary
    /\ timers' = [timers EXCEPT ![SentinelNode] = SetTimer(@, "DownAfter", DownAfter)]
    /\ net' = Pop(src, SentinelNode)
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, algVars>>

\* A primary of an older epoch pings (it was paused through a failover):
\* +convert-to-slave, REPLICAOF the current primary.
ReceiveStalePing(src) ==
    /\ Msg(src, SentinelNode).type = "Ping" /\ Monitoring /\ src # sentinel.primary
    /\ Msg(src, SentinelNode).epoch < sentinel.epoch
    /\ Reply(src, SentinelNode, [type |-> "ReplicaOf", primary |-> sentinel.primary])
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, algVars>>

\* The selected replica took over in this epoch (+switch-master): tell the
\* clients, reconfigure the other replicas and the returned former
\* primaries (+slave-reconf-sent), and monitor the new primary.
ReceivePromoted(src) ==
    LET new == sentinel.failover.replica
        failed == sentinel.primary
        told == {r \in RedisNodes : r # new /\ (r # failed \/ r \in sentinel.returned)}
        popped == Pop(src, SentinelNode)
        q1 == SendAll(popped, SentinelNode, ClientIds, [type |-> "NewPrimary", id |-> new])
    IN
    /\ Msg(src, SentinelNode).type = "Promoted" /\ sentinel.failover.kind = "Promoting"
    /\ src = new /\ Msg(src, SentinelNode).epoch = sentinel.epoch
    /\ sentinel' = [epoch |-> sentinel.epoch, primary |-> new,
                    failover |-> [kind |-> "Monitoring", replica |-> None], returned |-> {}]
    /\ timers' = IF Monitors(sentinel.epoch)
                 THEN [timers EXCEPT ![SentinelNode] = SetTimer(@, "DownAfter", DownAfter)]
                 ELSE timers
    /\ net' = SendAll(q1, SentinelNode, told, [type |-> "ReplicaOf", primary |-> new])
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, redisVars, clientVars, max_ghost>>

\* A former primary restarted: it follows the configured primary; while
\* that is itself, or a failover runs, the switch will tell it.
ReceiveRestarted(src) ==
    /\ Msg(src, SentinelNode).type = "Restarted"
    /\ IF Monitoring /\ src # sentinel.primary
       THEN /\ Reply(src, SentinelNode, [type |-> "ReplicaOf", primary |-> sentinel.primary])
            /\ UNCHANGED sentinel
       ELSE /\ sentinel' = [sentinel EXCEPT !.returned = @ \cup {src}]
            /\ net' = Pop(src, SentinelNode)
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, redisVars, clientVars, max_ghost>>

SentinelTakes(src, m) ==
    \/ m.type = "Ping" /\ Monitoring /\ (src = sentinel.primary \/ m.epoch < sentinel.epoch)
    \/ m.type = "Promoted" /\ sentinel.failover.kind = "Promoting"
       /\ src = sentinel.failover.replica /\ m.epoch = sentinel.epoch
    \/ m.type = "Restarted"

-----------------------------------------------------------------------------
(* The client's handlers (client_receive), in its match order.             *)

\* Sentinel names a new primary: reconnect, and re-send what the old
\* connection left unanswered (its request timeout runs on). An attempt
\* starts again with its SET (a WAIT on a new connection would wait for no
\* write).
ReceiveNewPrimary(src, c) ==
    LET id == Msg(src, c).id IN
    /\ Msg(src, c).type = "NewPrimary" /\ id # primary[c]
    /\ primary' = [primary EXCEPT ![c] = id]
    /\ net' = CASE phase[c] = "Acquiring" -> Send(Pop(src, c), c, id, [type |-> "SetNxPx", value |-> value[c]])
                [] phase[c] = "Releasing" -> Send(Pop(src, c), c, id, [type |-> "CompareAndDelete", value |-> value[c]])
                [] OTHER -> Pop(src, c)
    /\ waited' = IF phase[c] = "Acquiring" THEN [waited EXCEPT ![c] = FALSE] ELSE waited
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, redisVars, sentinel,
                   phase, left, value, checked, acquired, max_ghost>>

Release(src, c) ==
    /\ phase[c] = "Writing" /\ Msg(src, c).type \in {"Accepted", "Rejected"}
    /\ net' = Send(Pop(src, c), c, primary[c], [type |-> "CompareAndDelete", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ phase' = [phase EXCEPT ![c] = "Releasing"]
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, redisVars, sentinel,
                   left, primary, value, waited, checked, acquired, max_ghost>>

\* Redis's answers count only from the current primary, for the current
\* request.
Answer(src, c, p, type) ==
    /\ src = primary[c]
    /\ phase[c] = p /\ Msg(src, c).type = type /\ Msg(src, c).value = value[c]

\* SET's OK (without Pipeline): now WAIT for the replicas, a request with
\* its own timeout.
ReceiveSetOk(src, c) ==
    /\ Answer(src, c, "Acquiring", "SetOk") /\ ~waited[c]
    /\ waited' = [waited EXCEPT ![c] = TRUE]
    /\ net' = Send(Pop(src, c), c, primary[c], [type |-> "Wait", value |-> value[c]])
    /\ timers' = [timers EXCEPT ![c] = SetTimer(@, "Timeout", Timeout)]
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, redisVars, sentinel,
                   phase, left, primary, value, checked, acquired, max_ghost>>

ReceiveGranted(src, c) ==
    LET t == CancelTimer(timers[c], "Timeout")
        e == IF Running(c, "Elapsed") THEN watches[c]["Elapsed"] ELSE Ttl
        v == Ttl - e - Drift
    IN
    /\ Answer(src, c, "Acquiring", "Granted")
    /\ IF Validity /\ v <= 0
       THEN /\ GiveUp(c, Pop(src, c), t)
            /\ UNCHANGED acquired
       ELSE /\ phase' = [phase EXCEPT ![c] = "Holding"]
            /\ acquired' = [acquired EXCEPT ![c] = Msg(src, c).ghost]
            /\ watches' = [watches EXCEPT ![c] = StopWatch(@, "Elapsed")]
            /\ timers' = [timers EXCEPT ![c] = IF Validity THEN SetTimer(t, "Validity", v) ELSE t]
            /\ net' = Pop(src, c)
            /\ waited' = [waited EXCEPT ![c] = FALSE]
            /\ UNCHANGED <<value, checked>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, redisVars, sentinel, left, primary, max_ghost>>

ReceiveRefused(src, c) ==
    /\ Answer(src, c, "Acquiring", "Refused")
    /\ RetryLater(c, CancelTimer(timers[c], "Timeout"))
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, ghost, drawn, history, redisVars, sentinel, left, primary, acquired, max_ghost>>

ReceiveWaitTimedOut(src, c) ==
    /\ Answer(src, c, "Acquiring", "WaitTimedOut")
    /\ net' = Send(Pop(src, c), c, primary[c], [type |-> "CompareAndDelete", value |-> value[c]])
    /\ RetryLater(c, CancelTimer(timers[c], "Timeout"))
    /\ UNCHANGED <<fixed, ghost, drawn, history, redisVars, sentinel, left, primary, acquired, max_ghost>>

ReceiveReleased(src, c) ==
    /\ Answer(src, c, "Releasing", "Released")
    /\ Released(c)
    /\ timers' = [timers EXCEPT ![c] = CancelTimer(@, "Timeout")]
    /\ net' = Pop(src, c)
    /\ UNCHANGED <<fixed, watches, ghost, drawn, history, redisVars, sentinel, primary, waited, acquired,
                   max_ghost>>

ClientTakes(src, c, m) ==
    \/ m.type = "NewPrimary" /\ m.id # primary[c]
    \/ phase[c] = "Writing" /\ m.type \in {"Accepted", "Rejected"}
    \/ /\ src = primary[c] /\ m.type \in {"SetOk", "Granted", "Refused", "WaitTimedOut", "Released"}
       /\ m.value = value[c]
       /\ \/ phase[c] = "Acquiring" /\ m.type = "SetOk" /\ ~waited[c]
          \/ phase[c] = "Acquiring" /\ m.type \in {"Granted", "Refused", "WaitTimedOut"}
          \/ phase[c] = "Releasing" /\ m.type = "Released"

-----------------------------------------------------------------------------
(* The protected resource (resource.rs), without fencing.                  *)

ReceiveWrite(src) ==
    LET m == Msg(src, ResourceNode) IN
    /\ m.type = "Write"
    /\ history' = IF m.ghost < max_ghost THEN history \cup {"StaleWrite"} ELSE history
    /\ max_ghost' = IF m.ghost > max_ghost THEN m.ghost ELSE max_ghost
    /\ Reply(src, ResourceNode, [type |-> "Accepted"])
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, redisVars, sentinel, clientVars>>

-----------------------------------------------------------------------------
(* Delivery (Action::Deliver).                                             *)

Takes(src, dst) ==
    LET m == Msg(src, dst) IN
    CASE dst \in RedisNodes -> RedisTakes(src, dst, m)
      [] dst = SentinelNode -> SentinelTakes(src, m)
      [] dst = ResourceNode -> m.type = "Write"
      [] OTHER              -> ClientTakes(src, dst, m)

Discard(src, dst) ==
    /\ ~Takes(src, dst)
    /\ net' = Pop(src, dst)
    /\ UNCHANGED <<fixed, timers, watches, ghost, drawn, history, algVars>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ /\ dst \in RedisNodes
          /\ \/ ReceiveSetNxPx(src, dst) \/ ReceiveWait(src, dst) \/ ReceiveCompareAndDelete(src, dst)
             \/ ReceiveSync(src, dst) \/ ReceiveAck(src, dst)
             \/ ReceiveReplicate(src, dst) \/ ReceiveGetAck(src, dst) \/ ReceiveFullSync(src, dst)
             \/ ReceivePromote(src, dst) \/ ReceiveReplicaOf(src, dst)
       \/ /\ dst = SentinelNode
          /\ \/ ReceivePing(src) \/ ReceiveStalePing(src)
             \/ ReceivePromoted(src) \/ ReceiveRestarted(src)
       \/ /\ dst \in ClientIds
          /\ \/ ReceiveNewPrimary(src, dst) \/ Release(src, dst)
             \/ ReceiveSetOk(src, dst) \/ ReceiveGranted(src, dst) \/ ReceiveRefused(src, dst)
             \/ ReceiveWaitTimedOut(src, dst) \/ ReceiveReleased(src, dst)
       \/ dst = ResourceNode /\ ReceiveWrite(src)
       \/ Discard(src, dst)

-----------------------------------------------------------------------------
(* Timers (Action::Fire, on_timer).                                        *)

Fire(n, t) ==
    LET rest == Expired(n, t) IN
    /\ Up(n) /\ Due(n, t)
    /\ CASE t = "KeyExpiry" /\ n \in RedisNodes ->
              \* The key's TTL ran out on n's clock; a primary streams it.
              /\ key' = [key EXCEPT ![n] = None]
              /\ attached' = Wrote(n)
              /\ timers' = rest
              /\ UNCHANGED <<net, watches, standing, epoch, waiting, sentinel, clientVars>>
         [] t = "Ping" /\ n \in RedisNodes /\ IsPrimary(n) ->
              /\ net' = Send(net, n, SentinelNode, [type |-> "Ping", epoch |-> epoch[n]])
              /\ timers' = [rest EXCEPT ![n] = SetTimer(@, "Ping", Ping)]
              /\ UNCHANGED <<watches, redisVars, sentinel, clientVars>>
         [] t \in WaitTimers /\ n \in RedisNodes ->
              \* WAIT returns fewer than k.
              LET s == waiting[n]
                  c == WaitClient(t)
              IN
              /\ IF \E i \in 1..Len(s) : s[i].client = c
                 THEN LET i == CHOOSE i \in 1..Len(s) : s[i].client = c IN
                      /\ waiting' = [waiting EXCEPT ![n] = SelectSeq(@, LAMBDA w : w.client # c)]
                      /\ net' = Send(net, n, c, [type |-> "WaitTimedOut", value |-> s[i].value])
                 ELSE UNCHANGED <<waiting, net>>
              /\ timers' = rest
              /\ UNCHANGED <<watches, standing, epoch, key, attached, sentinel, clientVars>>
         [] t = "Timeout" /\ n \in ClientIds /\ phase[n] = "Acquiring" ->
              /\ RetryLater(n, rest[n])
              /\ UNCHANGED <<net, redisVars, sentinel, left, primary, acquired>>
         [] t = "Timeout" /\ n \in ClientIds /\ phase[n] = "Releasing" ->
              /\ Released(n)
              /\ timers' = rest
              /\ UNCHANGED <<net, watches, redisVars, sentinel, primary, waited, acquired>>
         [] t = "Validity" /\ n \in ClientIds /\ phase[n] = "Holding" ->
              /\ GiveUp(n, net, rest[n])
              /\ UNCHANGED <<redisVars, sentinel, left, primary, acquired>>
         [] t = "DownAfter" /\ n = SentinelNode /\ ~Electing ->
              \* +odown, or the failover timed out: +new-epoch, +try-failover.
              /\ sentinel' = [sentinel EXCEPT !.epoch = @ + 1,
                                              !.failover = [kind |-> "Electing", replica |-> None]]
              /\ timers' = rest
              /\ UNCHANGED <<net, watches, redisVars, clientVars>>
         [] OTHER ->
              /\ timers' = rest
              /\ UNCHANGED <<net, watches, redisVars, sentinel, clientVars>>
    /\ UNCHANGED <<fixed, ghost, drawn, history, max_ghost>>

-----------------------------------------------------------------------------
(* The world (World.tla, and its connections). Only Crash, Restart,        *)
(* Disconnected and Reconnect touch the algorithm.                         *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED <<algVars, broken>>
DriftTick == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED <<algVars, broken>>
Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED <<algVars, broken>>
ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED <<algVars, broken>>

\* Fault: Redis runs without persistence, keeping only its configuration
\* file (a replica's replicaof line; a primary's names none, so it comes
\* back a primary with an empty dataset). The
\* Sentinel keeps its configuration file; a client its state, for the
\* restart. Every timer is lost.
\* The world's part is WorldCrash's (messages to n dropped) with n's own
\* broken connections gone, and then World::close_connections_to: every
\* other node not down that holds a connection to n (a replica following
\* it) and has none broken with it yet gets an entry, not noticed, and
\* what n had in flight to it is dropped too.
Crash(n) ==
    LET kept == {e \in broken : e.node # n}
        closing == {y \in RedisNodes : /\ y # n /\ status[y] # "Down"
                                       /\ ~BrokenBetween(kept, y, n)
                                       /\ HoldsConn(standing[y], n)}
    IN
    /\ Targeted(n, Role) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ skew' = [skew EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ watches' = [watches EXCEPT ![n] = NoTimers]
    /\ net' = [l \in DOMAIN net |-> IF l[2] = n \/ (l[1] = n /\ l[2] \in closing) THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ broken' = kept \cup {[node |-> y, peer |-> n, noticed |-> FALSE] : y \in closing}
    /\ UNCHANGED <<cut, ghost, drawn, history>>
    /\ IF n \in RedisNodes
       THEN Fresh(n, IF standing[n].kind \in {"Syncing", "Streaming"}
                     THEN [kind |-> "Syncing", peer |-> standing[n].peer]
                     ELSE [kind |-> standing[n].kind, peer |-> None])
       ELSE UNCHANGED redisVars
    /\ UNCHANGED <<sentinel, clientVars, max_ghost>>

\* A replica resynchronises (PSYNC) from the primary its file names; a
\* former primary reports back; the Sentinel resumes (re-sending Promote
\* while promoting); a client and the resource start afresh.
Restart(n) ==
    /\ WorldRestart(n)
    /\ CASE n \in RedisNodes ->
              /\ net' = IF standing[n].kind = "Syncing"
                        THEN SendOn(net, broken, n, standing[n].peer, [type |-> "Sync"])
                        ELSE Send(net, n, SentinelNode, [type |-> "Restarted"])
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<clientVars, max_ghost>>
         [] n = SentinelNode ->
              /\ net' = IF sentinel.failover.kind = "Promoting"
                        THEN Send(net, n, sentinel.failover.replica,
                                  [type |-> "Promote", epoch |-> sentinel.epoch])
                        ELSE net
              /\ timers' = [timers EXCEPT ![n] =
                              IF ~Electing /\ Monitors(sentinel.epoch)
                              THEN SetTimer(NoTimers, "DownAfter", DownAfter) ELSE NoTimers]
              /\ UNCHANGED <<clientVars, max_ghost>>
         [] n \in ClientIds ->
              /\ phase' = [phase EXCEPT ![n] = "Want"]
              /\ left' = [left EXCEPT ![n] = Acquisitions]
              /\ primary' = [primary EXCEPT ![n] = PrimaryNode]
              /\ value' = [value EXCEPT ![n] = 0]
              /\ waited' = [waited EXCEPT ![n] = FALSE]
              /\ checked' = [checked EXCEPT ![n] = FALSE]
              /\ acquired' = [acquired EXCEPT ![n] = 0]
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<net, max_ghost>>
         [] OTHER ->
              /\ max_ghost' = 0
              /\ timers' = [timers EXCEPT ![n] = NoTimers]
              /\ UNCHANGED <<net, clientVars>>
    /\ UNCHANGED <<ghost, drawn, history, redisVars, sentinel, broken>>

\* Action::Disconnected: running replica n notices that its connection to
\* p broke (on_disconnect): streaming from p, it keeps its data and will
\* resynchronise (Syncing). Urgent and weakly fair, never a fault.
Disconnected(n, p) ==
    LET e == [node |-> n, peer |-> p, noticed |-> FALSE] IN
    /\ Up(n) /\ e \in broken
    /\ broken' = (broken \ {e}) \cup {[e EXCEPT !.noticed = TRUE]}
    /\ standing' = IF Follows(n, "Streaming", p)
                   THEN [standing EXCEPT ![n] = [kind |-> "Syncing", peer |-> p]]
                   ELSE standing
    /\ UNCHANGED <<faultVars, timers, watches, net, ghost, drawn, history, epoch, key, attached,
                   waiting, sentinel, clientVars, max_ghost>>

\* Action::Reconnect: once p runs again (and the link is whole), n opens a
\* new connection (the entry goes) and, syncing from p, sends PSYNC on it
\* (on_reconnect): p restarted empty, so a full resynchronisation.
Reconnect(n, p) ==
    LET e == [node |-> n, peer |-> p, noticed |-> TRUE]
        b == broken \ {e}
    IN
    /\ Up(n) /\ e \in broken /\ status[p] # "Down" /\ ~Cut(n, p)
    /\ broken' = b
    /\ net' = IF Follows(n, "Syncing", p) THEN SendOn(net, b, n, p, [type |-> "Sync"]) ELSE net
    /\ UNCHANGED <<faultVars, timers, watches, ghost, drawn, history, redisVars, sentinel,
                   clientVars, max_ghost>>

Connections == \E n, p \in RedisNodes : Disconnected(n, p) \/ Reconnect(n, p)

-----------------------------------------------------------------------------

Init ==
    \* WorldInit(AllNodes, Links) but for the timers: the primary's Ping and
    \* the Sentinel's DownAfter are set.
    /\ status = [n \in AllNodes |-> "Up"]
    /\ pause = [n \in AllNodes |-> 0]
    /\ skew = [n \in AllNodes |-> 0]
    /\ watches = [n \in AllNodes |-> NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ cut = {}
    /\ spent = [crashes |-> 0, pauses |-> 0, jumps |-> 0, partitions |-> 0]
    /\ ghost = 0
    /\ drawn = 0
    /\ history = {}
    /\ timers = [n \in AllNodes |->
                   CASE n = PrimaryNode  -> SetTimer(NoTimers, "Ping", Ping)
                     [] n = SentinelNode -> SetTimer(NoTimers, "DownAfter", DownAfter)
                     [] OTHER            -> NoTimers]
    /\ standing = [r \in RedisNodes |->
                     IF r = PrimaryNode THEN [kind |-> "Primary", peer |-> None]
                     ELSE [kind |-> "Streaming", peer |-> PrimaryNode]]
    /\ epoch = [r \in RedisNodes |-> 0]
    /\ key = [r \in RedisNodes |-> None]
    /\ attached = [r \in RedisNodes |->
                     IF r = PrimaryNode
                     THEN [a \in 1..Replicas |-> [unshipped |-> FALSE, getack |-> FALSE, unacked |-> 0]]
                     ELSE NoAttached]
    /\ waiting = [r \in RedisNodes |-> <<>>]
    /\ sentinel = [epoch |-> 0, primary |-> PrimaryNode,
                   failover |-> [kind |-> "Monitoring", replica |-> None], returned |-> {}]
    /\ phase = [c \in ClientIds |-> "Want"]
    /\ left = [c \in ClientIds |-> Acquisitions]
    /\ primary = [c \in ClientIds |-> PrimaryNode]
    /\ value = [c \in ClientIds |-> 0]
    /\ waited = [c \in ClientIds |-> FALSE]
    /\ checked = [c \in ClientIds |-> FALSE]
    /\ acquired = [c \in ClientIds |-> 0]
    /\ max_ghost = 0
    /\ broken = {}

Steps ==
    \/ \E c \in ClientIds : Acquire(c) \/ Check(c) \/ Write(c)
    \/ \E r \in RedisNodes : Replicate(r) \/ SelectReplica(r)

Next ==
    \/ Tick
    \/ Steps
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ \E n \in AllNodes : Restart(n)
    \/ Connections
    \/ \E n \in AllNodes : Crash(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E n \in AllNodes, by \in (-MaxJump..MaxJump) \ {0} : ClockJump(n, by)
    \/ DriftTick

Fairness ==
    /\ SF_vars(Tick)
    /\ \A c \in ClientIds : WF_vars(Acquire(c)) /\ WF_vars(Check(c)) /\ WF_vars(Write(c))
    /\ \A r \in RedisNodes : WF_vars(Replicate(r)) /\ WF_vars(SelectReplica(r))
    /\ \A n \in AllNodes, t \in TimerNames : WF_vars(Fire(n, t))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ \A n, p \in RedisNodes : WF_vars(Disconnected(n, p)) /\ WF_vars(Reconnect(n, p))
    /\ Recoveries => \A n \in AllNodes : WF_vars(Restart(n))

Spec == Init /\ [][Next]_vars /\ Fairness

NoFault ==
    \/ Tick \/ Steps
    \/ \E n \in AllNodes, t \in TimerNames : Fire(n, t)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Connections
    \/ Recoveries /\ \E n \in AllNodes : Restart(n)

FaultsStop == <>[][NoFault]_vars

-----------------------------------------------------------------------------
(* The renumbered state (VIEW RankedVars).                                 *)

RankedVars ==
    LET rg(v) == Rank(v, GhostValues)
        rv(v) == Rank(v, LockValues)
        rt(v) == Rank(v, EpochValues)
        rk(k) == IF k = None THEN None ELSE rv(k)
        msg(m) == CASE m.type = "Granted" -> [m EXCEPT !.ghost = rg(@), !.value = rv(@)]
                    [] m.type = "Write" -> [m EXCEPT !.ghost = rg(@)]
                    [] m.type \in Valued -> [m EXCEPT !.value = rv(@)]
                    [] m.type \in Keyed -> [m EXCEPT !.key = rk(@)]
                    [] m.type \in Epoched -> [m EXCEPT !.epoch = rt(@)]
                    [] OTHER -> m
    IN  IF ~(Concrete(net) /\ Concrete(acquired) /\ Concrete(value) /\ Concrete(key)
             /\ Concrete(waiting) /\ Concrete(epoch) /\ Concrete(sentinel)) THEN <<>> ELSE
        <<RankedWorld(rg, rv, msg), standing, [r \in RedisNodes |-> rt(epoch[r])],
          [r \in RedisNodes |-> rk(key[r])], attached,
          [r \in RedisNodes |-> [i \in 1..Len(waiting[r]) |-> [waiting[r][i] EXCEPT !.value = rv(@)]]],
          [sentinel EXCEPT !.epoch = rt(@)],
          phase, left, primary, [c \in ClientIds |-> rv(value[c])], waited, checked,
          [c \in ClientIds |-> rg(acquired[c])], rg(max_ghost), broken>>

-----------------------------------------------------------------------------
(* Properties (src/properties.rs), over the lock view.                     *)

TypeOK ==
    /\ WorldTypeOK
    /\ \A n \in AllNodes : DOMAIN timers[n] \subseteq TimerNames
    /\ \A n \in AllNodes : DOMAIN watches[n] \subseteq {"Elapsed"}
    /\ history \subseteq {"ForeignRelease", "StaleWrite"}
    /\ \A r \in RedisNodes : standing[r].kind \in {"Primary", "Detached", "Syncing", "Streaming"}
    /\ \A r \in RedisNodes : \A a \in DOMAIN attached[r] : attached[r][a].unacked \in 0..MaxUnacked
    /\ phase \in [ClientIds -> {"Want", "Acquiring", "Holding", "Writing", "Releasing", "Done"}]
    /\ primary \in [ClientIds -> RedisNodes]
    /\ waited \in [ClientIds -> BOOLEAN]
    /\ broken \subseteq [node : RedisNodes, peer : RedisNodes, noticed : BOOLEAN]
    /\ Held

MutualExclusion == Cardinality(Holding) <= 1
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

Granted(c) == c \in Wanting /\ c \notin Wanting'

DeadlockFreedom ==
    FaultsStop => ([]<>(Wanting = {}) \/ []<><<\E c \in ClientIds : Granted(c)>>_vars)

StarvationFreedom ==
    FaultsStop => \A c \in ClientIds : []<>(c \notin Wanting) \/ []<><<Granted(c)>>_vars

=============================================================================
