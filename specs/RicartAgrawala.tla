--------------------------- MODULE RicartAgrawala ---------------------------
(***************************************************************************)
(* Ricart-Agrawala distributed mutual exclusion, clean-room, in the        *)
(* locksmith world (World.tla, SEMANTICS.md).                              *)
(*                                                                         *)
(* Sources                                                                 *)
(*   [RA81] G. Ricart, A. K. Agrawala, "An optimal algorithm for mutual    *)
(*          exclusion in computer networks", CACM 24(1):9-17, 1981         *)
(*          (doi 10.1145/358527.358537): the three processes of a node     *)
(*          (the one that invokes mutual exclusion, the one that receives  *)
(*          REQUEST(k, j), the one that receives REPLY), their shared      *)
(*          variables Our_Sequence_Number, Highest_Sequence_Number,        *)
(*          Outstanding_Reply_Count, Requesting_Critical_Section,          *)
(*          Reply_Deferred[1..N], and the priority rule "lower sequence    *)
(*          number first, ties to the lower node number".                  *)
(*   [L78]  L. Lamport, "Time, clocks, and the ordering of events in a     *)
(*          distributed system", CACM 21(7), 1978: the sequence numbers    *)
(*          are Lamport clocks (Highest_Sequence_Number is the clock,      *)
(*          advanced to the maximum seen on every REQUEST received, and    *)
(*          a new request takes Highest + 1); ties are broken by node      *)
(*          number, giving the total order of requests.                    *)
(*   The paper's pseudocode was cross-checked against the public mCRL2     *)
(*   model of it (mCRL2org/mCRL2, examples/academic/                       *)
(*   bounded_ricart-agrawala/RA_original), which states the same steps.    *)
(*                                                                         *)
(* The algorithm, as [RA81] states it, for node me of N:                   *)
(*   invoke:  Requesting_Critical_Section := TRUE;                         *)
(*            Our_Sequence_Number := Highest_Sequence_Number + 1;          *)
(*            Outstanding_Reply_Count := N - 1;                            *)
(*            send REQUEST(Our_Sequence_Number, me) to every other node;   *)
(*            WAITFOR Outstanding_Reply_Count = 0;                         *)
(*            <critical section>;                                          *)
(*            Requesting_Critical_Section := FALSE;                        *)
(*            for each j with Reply_Deferred[j]: Reply_Deferred[j] :=      *)
(*            FALSE, send REPLY to j.                                      *)
(*   on REQUEST(k, j):                                                     *)
(*            Highest_Sequence_Number := max(Highest_Sequence_Number, k);  *)
(*            Defer_it := Requesting_Critical_Section /\                   *)
(*                 (k > Our_Sequence_Number \/                             *)
(*                  k = Our_Sequence_Number /\ j > me);                    *)
(*            IF Defer_it THEN Reply_Deferred[j] := TRUE ELSE send REPLY.  *)
(*   on REPLY: Outstanding_Reply_Count := Outstanding_Reply_Count - 1.     *)
(*                                                                         *)
(* Modelling choices, and why                                              *)
(*  - Nodes 1..N are both clients and peers (there is no server); their    *)
(*    Role is "client", so every fault target that hits clients hits them. *)
(*    The protected resource is one more node, Obs = N + 1, with Role      *)
(*    "observer" (never faulted, nor its links). Node numbers order ties:  *)
(*    the smaller number wins, as in [RA81].                               *)
(*  - Granularity. Each of the paper's three processes runs its handler    *)
(*    as one atomic step: the invoke step (choose the number, set the      *)
(*    counter, send all N - 1 REQUESTs), the REQUEST handler, the REPLY    *)
(*    handler. [RA81] guards the shared variables with the semaphore       *)
(*    Shared_vars; a finer interleaving of the three processes (register   *)
(*    by register) is where the published analyses found problems in the  *)
(*    paper's *bounded* (mod M) sequence-number variant (Spronck and       *)
(*    Keiren's mCRL2 study; Sedletsky, Pnueli, Ben-Ari 2000). This spec    *)
(*    models the main algorithm with unbounded sequence numbers, as a      *)
(*    real implementation with 64-bit counters runs it, and the paper's   *)
(*    semaphore as handler atomicity. Sending the N - 1 REQUESTs as one    *)
(*    step is sound: a REQUEST received between two sends is judged on     *)
(*    Requesting and Our_Sequence_Number, both already set.                *)
(*  - WAITFOR (Outstanding_Reply_Count = 0) is its own step (Enter), as    *)
(*    the waiting process is separate from the REPLY process in [RA81];    *)
(*    it is taken literally: the count must be exactly 0. It can only     *)
(*    overshoot below 0 when the network duplicates a REPLY (no fault of   *)
(*    the paper's model); then the waiter waits for ever.                 *)
(*  - Replies are counted, as the paper counts them (no Replies key in     *)
(*    configurations.txt): a REPLY carries nothing but its sender and is   *)
(*    not matched to a request, so a stale or duplicated REPLY is counted  *)
(*    against the current request. This is the known failure of the       *)
(*    counter once the paper's reliable-network assumption is dropped.    *)
(*  - The critical section: the node takes a ghost acquisition number      *)
(*    (World's ghost), sends one write carrying it to the resource and     *)
(*    waits for the resource's acknowledgement; on it the node exits       *)
(*    (the paper's release: Requesting := FALSE, deferred REPLYs sent).    *)
(*    Writing is a synchronous request, as a real client's write is: a     *)
(*    write still in flight after the exit would blame the lock for a      *)
(*    client that did not wait for its own write. Exit is done in the      *)
(*    acknowledgement's handler: it is the follow-up of that handler.      *)
(*  - The resource accepts every write (Ricart-Agrawala has no fencing     *)
(*    token to check) and remembers the highest acquisition number it has  *)
(*    accepted; accepting a lower one raises the ghost flag StaleWrite.    *)
(*  - Wanting the lock is the invoke step (Request), weakly fair: a node   *)
(*    with acquisitions left comes to want the lock at some moment, but    *)
(*    not never. Acquisitions = 0 means for ever; then no count is kept.  *)
(*  - Faults are World's. A crash keeps the node's whole state (the paper  *)
(*    assumes nodes do not lose state; "a crashed node restarts with its   *)
(*    whole state") but, as World says, the messages sent to it while it   *)
(*    is down are dropped. No timers, no retries: [RA81] has none, so a    *)
(*    lost REQUEST or REPLY is never made good. Tick is in Next for        *)
(*    uniformity but never enabled without pauses or a bounded delay.     *)
(*  - No VIEW, symmetry or constraint here; MCRicartAgrawala.tla holds     *)
(*    the checker's view (the sequence numbers and ghost numbers only      *)
(*    grow, and only their differences and order matter).                 *)
(***************************************************************************)
EXTENDS World, Integers, FiniteSets, Sequences

CONSTANTS
    N,            \* [system] nodes, each a client and a peer
    Acquisitions  \* acquisitions per node; 0 = for ever

ASSUME N \in 1..5 /\ Acquisitions \in Nat

VARIABLES
    rcs,       \* Requesting_Critical_Section[n]
    osn,       \* Our_Sequence_Number[n]
    hsn,       \* Highest_Sequence_Number[n]
    orc,       \* Outstanding_Reply_Count[n]
    deferred,  \* Reply_Deferred[n][j]
    pc,        \* where n's invoking process is: "idle", "waiting" (WAITFOR), "cs"
    acq,       \* acquisitions n has made (counted only when Acquisitions > 0)
    held,      \* ghost number of n's current acquisition, 0 if none
    rmax       \* the resource: the highest acquisition number it accepted

algVars == <<rcs, osn, hsn, orc, deferred, pc, acq, held, rmax>>
vars == <<worldVars, algVars>>

Peers == 1..N
Obs == N + 1
AllNodes == Peers \cup {Obs}
Links == {l \in AllNodes \X AllNodes :
            \/ l[1] \in Peers /\ l[2] \in Peers /\ l[1] # l[2]
            \/ l[1] \in Peers /\ l[2] = Obs
            \/ l[1] = Obs /\ l[2] \in Peers}

\* Messages: one record shape, so that TLC can compare any two.
Request(k, j) == [type |-> "REQUEST", seq |-> k, from |-> j]
Reply(j)      == [type |-> "REPLY", seq |-> 0, from |-> j]
Write(g, j)   == [type |-> "WRITE", seq |-> g, from |-> j]
Ack(g)        == [type |-> "ACK", seq |-> g, from |-> Obs]

Max(a, b) == IF a > b THEN a ELSE b

-----------------------------------------------------------------------------
(* The world's hooks.                                                      *)

Role(n) == IF n = Obs THEN "observer" ELSE "client"
\* The WAITFOR's condition holding is the only step a node takes without
\* waiting on the world (the exit is done within the ACK handler).
Urgent(n) == n \in Peers /\ pc[n] = "waiting" /\ orc[n] = 0
Cap(n, w) == 0
MayPause(n) == TRUE

-----------------------------------------------------------------------------
Init ==
    /\ WorldInit(AllNodes, Links)
    /\ rcs = [n \in Peers |-> FALSE]
    /\ osn = [n \in Peers |-> 0]
    /\ hsn = [n \in Peers |-> 0]
    /\ orc = [n \in Peers |-> 0]
    /\ deferred = [n \in Peers |-> [j \in Peers |-> FALSE]]
    /\ pc = [n \in Peers |-> "idle"]
    /\ acq = [n \in Peers |-> 0]
    /\ held = [n \in Peers |-> 0]
    /\ rmax = 0

-----------------------------------------------------------------------------
(* The invoking process of node n.                                          *)

\* It comes to want the lock: choose a sequence number (Lamport), count the
\* replies to come, send REQUEST(Our_Sequence_Number, me) to every other node.
Invoke(n) ==
    /\ Up(n) /\ pc[n] = "idle"
    /\ Acquisitions = 0 \/ acq[n] < Acquisitions
    /\ rcs' = [rcs EXCEPT ![n] = TRUE]
    /\ osn' = [osn EXCEPT ![n] = hsn[n] + 1]
    /\ orc' = [orc EXCEPT ![n] = N - 1]
    /\ pc' = [pc EXCEPT ![n] = "waiting"]
    /\ net' = SendAll(net, n, Peers \ {n}, Request(hsn[n] + 1, n))
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<hsn, deferred, acq, held, rmax>>

\* WAITFOR (Outstanding_Reply_Count = 0) returns: n is in its critical
\* section and uses the resource: one write, under a new acquisition number.
Enter(n) ==
    /\ Up(n) /\ pc[n] = "waiting" /\ orc[n] = 0
    /\ pc' = [pc EXCEPT ![n] = "cs"]
    /\ ghost' = ghost + 1
    /\ held' = [held EXCEPT ![n] = ghost + 1]
    /\ acq' = [acq EXCEPT ![n] = IF Acquisitions = 0 THEN 0 ELSE @ + 1]
    /\ net' = Send(net, n, Obs, Write(ghost + 1, n))
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, drawn, history>>
    /\ UNCHANGED <<rcs, osn, hsn, orc, deferred, rmax>>

-----------------------------------------------------------------------------
(* Deliveries: the oldest message of link <<src, dst>>, to a running dst.   *)

\* The REQUEST process of node n receives REQUEST(k, j).
RecvRequest(j, n) ==
    LET m == Msg(j, n)
        k == m.seq
        deferIt == rcs[n] /\ (k > osn[n] \/ (k = osn[n] /\ j > n))
    IN
    /\ m.type = "REQUEST"
    /\ hsn' = [hsn EXCEPT ![n] = Max(@, k)]
    /\ IF deferIt
       THEN /\ deferred' = [deferred EXCEPT ![n][j] = TRUE]
            /\ net' = Pop(j, n)
       ELSE /\ net' = Send(Pop(j, n), n, j, Reply(n))
            /\ UNCHANGED deferred
    /\ UNCHANGED <<rcs, osn, orc, pc, acq, held, rmax, ghost, history>>

\* The REPLY process of node n.
RecvReply(j, n) ==
    /\ Msg(j, n).type = "REPLY"
    /\ orc' = [orc EXCEPT ![n] = @ - 1]
    /\ net' = Pop(j, n)
    /\ UNCHANGED <<rcs, osn, hsn, deferred, pc, acq, held, rmax, ghost, history>>

\* The resource accepts a write (no fencing) and acknowledges it.
RecvWrite(j) ==
    LET g == Msg(j, Obs).seq IN
    /\ Msg(j, Obs).type = "WRITE"
    /\ rmax' = Max(rmax, g)
    /\ history' = IF g < rmax THEN history \cup {"StaleWrite"} ELSE history
    /\ net' = Send(Pop(j, Obs), Obs, j, Ack(g))
    /\ UNCHANGED <<rcs, osn, hsn, orc, deferred, pc, acq, held, ghost>>

\* The write is done: n leaves its critical section, as [RA81] releases it:
\* Requesting := FALSE and a REPLY to every deferred node. The ACK is
\* matched to the write by its acquisition number (as a client matches a
\* reply to its request). A release only ever ends n's own acquisition,
\* so ForeignRelease is raised if n releases while Requesting is already
\* FALSE, i.e. with no acquisition of its own (it cannot happen).
RecvAck(n) ==
    LET m == Msg(Obs, n)
        D == {j \in Peers : deferred[n][j]}
    IN
    /\ m.type = "ACK"
    /\ IF pc[n] = "cs" /\ m.seq = held[n]
       THEN /\ pc' = [pc EXCEPT ![n] = "idle"]
            /\ rcs' = [rcs EXCEPT ![n] = FALSE]
            /\ held' = [held EXCEPT ![n] = 0]
            /\ deferred' = [deferred EXCEPT ![n] = [j \in Peers |-> FALSE]]
            /\ net' = SendAll(Pop(Obs, n), n, D, Reply(n))
            /\ history' = IF ~rcs[n] THEN history \cup {"ForeignRelease"}
                          ELSE history
       ELSE /\ net' = Pop(Obs, n)
            /\ UNCHANGED <<pc, rcs, held, deferred, history>>
    /\ UNCHANGED <<osn, hsn, orc, acq, rmax, ghost>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ src \in Peers /\ dst \in Peers /\ (RecvRequest(src, dst) \/ RecvReply(src, dst))
       \/ dst = Obs /\ RecvWrite(src)
       \/ src = Obs /\ RecvAck(dst)
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, drawn>>

-----------------------------------------------------------------------------
(* The world acting alone.                                                  *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars
Drift == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

\* A crash keeps the node's whole state (the paper's nodes do not lose it);
\* the messages to it are dropped by the world, the resource's ACK too. So
\* a node that restarts in its critical section with its write no longer
\* in flight (done, its ACK lost) writes again: the same write, which the
\* resource takes again (a client re-sends a request it has no answer to).
Crash(n) == WorldCrash(n, NoTimers, Role) /\ UNCHANGED algVars
WriteInFlight(n) ==
    \E i \in 1..Len(net[<<n, Obs>>]) : net[<<n, Obs>>][i].msg = Write(held[n], n)
Restart(n) ==
    /\ WorldRestart(n)
    /\ timers' = [timers EXCEPT ![n] = NoTimers]
    /\ net' = IF n \in Peers /\ pc[n] = "cs" /\ ~WriteInFlight(n)
              THEN Send(net, n, Obs, Write(held[n], n))
              ELSE net
    /\ UNCHANGED <<ghost, drawn, history>>
    /\ UNCHANGED algVars

Pause(n, k) == WorldPause(n, k, Role, MayPause) /\ UNCHANGED algVars
Partition(a, b) == WorldPartition(a, b, Role) /\ UNCHANGED algVars
Heal == WorldHeal /\ UNCHANGED algVars
Lose(src, dst, i) == WorldLose(src, dst, i, Role) /\ UNCHANGED algVars
Duplicate(src, dst, i) == WorldDuplicate(src, dst, i, Role) /\ UNCHANGED algVars
ClockJump(n, by) == WorldClockJump(n, by, Role, Cap) /\ UNCHANGED algVars

Fault ==
    \/ Drift
    \/ \E n \in AllNodes : Crash(n)
    \/ \E n \in AllNodes, k \in MinPause..MaxPause : Pause(n, k)
    \/ \E a, b \in AllNodes : Partition(a, b)
    \/ \E l \in Links : \E i \in 1..Len(net[l]) :
          Lose(l[1], l[2], i) \/ Duplicate(l[1], l[2], i)
    \/ \E n \in AllNodes, by \in -MaxJump..MaxJump : ClockJump(n, by)

Recover == \E n \in AllNodes : Restart(n) \/ Heal

\* The steps that are no fault (section 5): time, the nodes' own steps, the
\* deliveries, and the recoveries when they are fair.
NoFault ==
    \/ Tick
    \/ \E n \in Peers : Invoke(n) \/ Enter(n)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ Recover

Next == NoFault \/ Fault \/ Recover

Fairness ==
    /\ SF_vars(Tick)
    /\ \A n \in Peers : WF_vars(Invoke(n)) /\ WF_vars(Enter(n))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The lock view (section 5) and the properties.                           *)

\* n believes it holds the lock from WAITFOR's return until its exit; a
\* crashed node keeps its state, and its belief, until it restarts.
Holds(n) == pc[n] = "cs"
Wants(n) == pc[n] = "waiting"
Alive(n) == status[n] # "Down"

TypeOK ==
    /\ WorldTypeOK
    /\ rcs \in [Peers -> BOOLEAN]
    /\ osn \in [Peers -> Nat]
    /\ hsn \in [Peers -> Nat]
    /\ orc \in [Peers -> Int] /\ \A n \in Peers : orc[n] <= N - 1
    /\ deferred \in [Peers -> [Peers -> BOOLEAN]]
    /\ pc \in [Peers -> {"idle", "waiting", "cs"}]
    /\ acq \in [Peers -> 0..Acquisitions]
    /\ held \in [Peers -> Nat]
    /\ rmax \in Nat
    /\ \A n \in Peers : rcs[n] <=> pc[n] # "idle"

MutualExclusion == \A a, b \in Peers : a # b => ~(Holds(a) /\ Holds(b))
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

FaultsStop == <>[][NoFault]_vars

DeadlockFreedom ==
    FaultsStop =>
        []((\E n \in Peers : Alive(n) /\ Wants(n))
              => <>(\E m \in Peers : Alive(m) /\ Holds(m)))

StarvationFreedom ==
    FaultsStop =>
        \A n \in Peers : [](Alive(n) /\ Wants(n) => <>Holds(n))

=============================================================================
