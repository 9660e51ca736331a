------------------------------ MODULE TokenRing ------------------------------
(***************************************************************************)
(* Token-ring mutual exclusion, clean-room, in the locksmith world         *)
(* (World.tla, SEMANTICS.md).                                              *)
(*                                                                         *)
(* Sources                                                                 *)
(*   [LL77] G. Le Lann, "Distributed systems: towards a formal approach",  *)
(*          Information Processing 77 (IFIP Congress), 1977: the nodes     *)
(*          form a logical ring; a single token (a privilege message)      *)
(*          circulates around it; a node may enter its critical section    *)
(*          only while it holds the token, and passes the token to its     *)
(*          successor when it leaves it or when it does not want it.       *)
(*   [TvS]  A. S. Tanenbaum, M. van Steen, Distributed Systems: Principles *)
(*          and Paradigms, section "A token ring algorithm": when a        *)
(*          process gets the token from its neighbour it checks whether it *)
(*          needs the resource; if so it uses it, releases it and passes   *)
(*          the token on; if not it passes the token on at once. Its known *)
(*          weakness: a lost token must be regenerated, and detecting the  *)
(*          loss is hard because the time between sightings is unbounded; *)
(*          a timeout that regenerates it may produce two tokens.          *)
(*   Hierarchical (ring of rings) token ring: a top ring whose members,    *)
(*          one per lower ring, hold the top token on their ring's behalf; *)
(*          a lower ring's token circulates only while its ring holds the  *)
(*          top token.                                                     *)
(*                                                                         *)
(* Modelling choices, and why                                              *)
(*  - Nodes: ring r (1..Rings), position i (1..RingSize) is node           *)
(*    (r - 1) * RingSize + i; its successor is position i % RingSize + 1   *)
(*    of the same ring. Every node is a client (Role "client"); there is   *)
(*    no server. The protected resource is node Obs = Rings * RingSize + 1 *)
(*    with Role "observer" (never faulted, nor its links).                 *)
(*  - The token is a message (TOKEN) on a ring link while it travels, and  *)
(*    the flag has[n] while n holds it. Tokens are anonymous, as in the    *)
(*    sources: a node that holds the token and is given another one holds  *)
(*    "the token" (a flag, as an implementation keeps it), so two tokens   *)
(*    that meet merge. Taken the other way (counting tokens), the number   *)
(*    of tokens would only grow; merging is what a boolean "I have the     *)
(*    token" does.                                                         *)
(*  - Granularity. Receiving the token and acting on it ([TvS]: check      *)
(*    whether the resource is needed) are two steps, both urgent (no       *)
(*    waiting on the world): Enter, if the node wants the lock, or Pass,   *)
(*    if it does not. Wanting (Want) comes at any moment, weakly fair and  *)
(*    not urgent (SEMANTICS.md section 2), so a node that comes to want    *)
(*    the lock just as the token arrives may take it or let it go: both    *)
(*    orders are real.                                                     *)
(*  - The critical section: Enter takes a ghost acquisition number and     *)
(*    sends one WRITE carrying it to the resource; the node holds the lock *)
(*    until the resource's ACK, whose handler leaves the critical section  *)
(*    and passes the token on ([TvS]: "releases it and passes the token"). *)
(*    The write is synchronous, as a real client's is; passing within the  *)
(*    ACK handler is the recipe's "then passes the token on": a node does  *)
(*    not keep the token to use it again.                                  *)
(*  - The resource accepts every write (no fencing: a token ring has no    *)
(*    fencing number) and remembers the highest acquisition number it      *)
(*    accepted; accepting a lower one raises the ghost flag StaleWrite.    *)
(*  - Regenerate = "naive" (one ring only): every node that does not hold  *)
(*    the token runs a timer "Token" of Timeout local ticks, set when it   *)
(*    passes the token (and at start, and at restart: a node waits for    *)
(*    the token from then) and cancelled when it receives one; when it     *)
(*    fires, the node makes a new token and holds it. "Has not seen the    *)
(*    token for Timeout ticks" is read as "since it last let it go": a     *)
(*    node does not time out on a token it holds. Regenerate = "none": no  *)
(*    timer; a lost token stays lost.                                      *)
(*  - Ring of rings (Rings > 1): the first node of each ring (its leader)  *)
(*    is also on the top ring, leader to leader. A leader keeps its ring's *)
(*    token parked while its ring does not hold the top token (TOP). On    *)
(*    TOP it acts on the parked token as any node does (Enter or Pass) and *)
(*    the token goes round its ring (circ); when the token comes back the  *)
(*    leader parks it and passes TOP to the next leader, in that one       *)
(*    handler. Initially leader 1 holds TOP and every leader its ring's    *)
(*    token. Regeneration is refused for Rings > 1 (the configurations     *)
(*    ask for naive on one ring only).                                     *)
(*  - Crash: a node loses its volatile state (the token it holds, TOP,     *)
(*    the fact that its token is out, what its client was doing, its      *)
(*    timers); messages to a crashed node are dropped (World), so a token  *)
(*    passed to it is lost. The count of acquisitions made survives (it is *)
(*    the scenario's plan, not the lock's state). Restart: the node is     *)
(*    idle, holds nothing, and (naive) sets its timer.                     *)
(*  - No VIEW, symmetry or constraint here; MCTokenRing.tla renumbers the  *)
(*    ghost acquisition numbers, which grow without bound when nodes loop  *)
(*    for ever.                                                            *)
(***************************************************************************)
EXTENDS World, Integers, FiniteSets, Sequences

CONSTANTS
    RingSize,     \* nodes per ring
    Rings,        \* 1, or the number of lower rings of a ring of rings
    Regenerate,   \* "none" or "naive"
    Timeout,      \* ticks without the token before regenerating (naive)
    Acquisitions  \* per node; 0 = for ever

ASSUME /\ RingSize \in 2..5 /\ Rings \in 1..3
       /\ Regenerate \in {"none", "naive"}
       /\ Regenerate = "naive" => Rings = 1
       /\ Timeout \in 1..30 /\ Acquisitions \in Nat

VARIABLES
    has,   \* has[n]: n holds its ring's token
    top,   \* top[n]: leader n holds the top ring's token (Rings > 1)
    circ,  \* circ[n]: leader n's ring token is out, going round its ring
    pc,    \* n's client: "idle", "wanting", "cs"
    acq,   \* acquisitions n has made (counted only when Acquisitions > 0)
    held,  \* ghost number of n's current acquisition, 0 if none
    rmax   \* the resource: the highest acquisition number it accepted

algVars == <<has, top, circ, pc, acq, held, rmax>>
vars == <<worldVars, algVars>>

Members == 1..(Rings * RingSize)
Obs == Rings * RingSize + 1
AllNodes == Members \cup {Obs}
RingOf(n) == (n - 1) \div RingSize + 1
Leader(r) == (r - 1) * RingSize + 1
Leaders == {Leader(r) : r \in 1..Rings}
IsLeader(n) == Rings > 1 /\ n \in Leaders
Succ(n) == Leader(RingOf(n)) + ((n - Leader(RingOf(n)) + 1) % RingSize)
NextLeader(n) == Leader((RingOf(n) % Rings) + 1)

Links == {<<n, Succ(n)>> : n \in Members}
         \cup (IF Rings > 1 THEN {<<n, NextLeader(n)>> : n \in Leaders} ELSE {})
         \cup {<<n, Obs>> : n \in Members} \cup {<<Obs, n>> : n \in Members}

\* Messages: one record shape, so that TLC can compare any two.
Token == [type |-> "TOKEN", seq |-> 0]
Top == [type |-> "TOP", seq |-> 0]
Write(g) == [type |-> "WRITE", seq |-> g]
Ack(g) == [type |-> "ACK", seq |-> g]

Max(a, b) == IF a > b THEN a ELSE b

Naive == Regenerate = "naive"
\* The timer a node that does not hold the token runs (naive only).
Watch(f) == IF Naive THEN SetTimer(f, "Token", Timeout) ELSE f
Unwatch(f) == CancelTimer(f, "Token")

-----------------------------------------------------------------------------
(* The world's hooks.                                                      *)

Role(n) == IF n = Obs THEN "observer" ELSE "client"

\* n may act on the token it holds: any node of a one-ring system, a
\* non-leader (its ring holds TOP while its token is out), a leader that
\* holds TOP with its ring's token not yet sent round.
MayUse(n) == has[n] /\ (~IsLeader(n) \/ (top[n] /\ ~circ[n]))

\* Acting on a token held (Enter or Pass) waits on nothing.
Urgent(n) == n \in Members /\ MayUse(n) /\ pc[n] # "cs"
Cap(n, w) == 0
MayPause(n) == TRUE

-----------------------------------------------------------------------------
Init ==
    /\ WorldInitTimers(AllNodes, Links,
          [n \in AllNodes |-> IF n \in Members \ {1} THEN Watch(NoTimers) ELSE NoTimers])
    /\ has = [n \in Members |-> n = 1 \/ IsLeader(n)]
    /\ top = [n \in Members |-> IsLeader(n) /\ n = 1]
    /\ circ = [n \in Members |-> FALSE]
    /\ pc = [n \in Members |-> "idle"]
    /\ acq = [n \in Members |-> 0]
    /\ held = [n \in Members |-> 0]
    /\ rmax = 0

-----------------------------------------------------------------------------
(* A node's own steps.                                                      *)

\* The client comes to want the lock.
Want(n) ==
    /\ Up(n) /\ pc[n] = "idle"
    /\ Acquisitions = 0 \/ acq[n] < Acquisitions
    /\ pc' = [pc EXCEPT ![n] = "wanting"]
    /\ UNCHANGED worldVars
    /\ UNCHANGED <<has, top, circ, acq, held, rmax>>

\* It holds the token and wants the lock: it enters its critical section
\* and uses the resource (one write, under a new acquisition number).
Enter(n) ==
    /\ Up(n) /\ MayUse(n) /\ pc[n] = "wanting"
    /\ pc' = [pc EXCEPT ![n] = "cs"]
    /\ ghost' = ghost + 1
    /\ held' = [held EXCEPT ![n] = ghost + 1]
    /\ acq' = [acq EXCEPT ![n] = IF Acquisitions = 0 THEN 0 ELSE @ + 1]
    /\ net' = Send(net, n, Obs, Write(ghost + 1))
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, drawn, history>>
    /\ UNCHANGED <<has, top, circ, rmax>>

\* n lets the token go to its successor (the recipe's "pass the token on").
PassOn(n) ==
    /\ has' = [has EXCEPT ![n] = FALSE]
    /\ circ' = [circ EXCEPT ![n] = IsLeader(n)]
    /\ timers' = [timers EXCEPT ![n] = Watch(@)]

\* It holds the token and does not want the lock: it passes it on.
Pass(n) ==
    /\ Up(n) /\ MayUse(n) /\ pc[n] = "idle"
    /\ PassOn(n)
    /\ net' = Send(net, n, Succ(n), Token)
    /\ UNCHANGED <<status, pause, skew, watches, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<top, pc, acq, held, rmax>>

\* Naive regeneration: no token seen for Timeout ticks; n makes a new one.
Regen(n) ==
    /\ Up(n) /\ Due(n, "Token")
    /\ timers' = Expired(n, "Token")
    /\ has' = [has EXCEPT ![n] = TRUE]
    /\ UNCHANGED <<status, pause, skew, watches, net, cut, spent, ghost, drawn, history>>
    /\ UNCHANGED <<top, circ, pc, acq, held, rmax>>

-----------------------------------------------------------------------------
(* Deliveries: the oldest message of link <<src, dst>>, to a running dst.   *)

\* n receives the token. A leader whose token was out gets it back: it
\* parks it and hands TOP to the next leader. Otherwise n holds the token
\* (a token given to a node that holds one merges with it).
RecvToken(src, n) ==
    /\ Msg(src, n).type = "TOKEN"
    /\ has' = [has EXCEPT ![n] = TRUE]
    /\ timers' = [timers EXCEPT ![n] = Unwatch(@)]
    /\ IF IsLeader(n) /\ circ[n]
       THEN /\ circ' = [circ EXCEPT ![n] = FALSE]
            /\ top' = [top EXCEPT ![n] = FALSE]
            /\ net' = Send(Pop(src, n), n, NextLeader(n), Top)
       ELSE /\ net' = Pop(src, n)
            /\ UNCHANGED <<circ, top>>
    /\ UNCHANGED <<pc, acq, held, rmax, history>>

\* Leader n receives the top token: its ring may use its token.
RecvTop(src, n) ==
    /\ Msg(src, n).type = "TOP"
    /\ top' = [top EXCEPT ![n] = TRUE]
    /\ net' = Pop(src, n)
    /\ UNCHANGED <<timers, has, circ, pc, acq, held, rmax, history>>

\* The resource accepts a write (no fencing) and acknowledges it.
RecvWrite(j) ==
    LET g == Msg(j, Obs).seq IN
    /\ Msg(j, Obs).type = "WRITE"
    /\ rmax' = Max(rmax, g)
    /\ history' = IF g < rmax THEN history \cup {"StaleWrite"} ELSE history
    /\ net' = Send(Pop(j, Obs), Obs, j, Ack(g))
    /\ UNCHANGED <<timers, has, top, circ, pc, acq, held>>

\* The write is done: n leaves its critical section and passes the token
\* on. An ACK is matched to the write by its acquisition number (as a
\* client matches a reply to its request); an ACK of an older write (sent
\* before a crash) is dropped. A release only ends n's own acquisition:
\* ForeignRelease is raised if n no longer holds the token it entered with
\* (it cannot happen).
RecvAck(n) ==
    LET m == Msg(Obs, n) IN
    /\ m.type = "ACK"
    /\ IF pc[n] = "cs" /\ m.seq = held[n]
       THEN /\ pc' = [pc EXCEPT ![n] = "idle"]
            /\ held' = [held EXCEPT ![n] = 0]
            /\ PassOn(n)
            /\ net' = Send(Pop(Obs, n), n, Succ(n), Token)
            /\ history' = IF ~has[n] THEN history \cup {"ForeignRelease"}
                          ELSE history
       ELSE /\ net' = Pop(Obs, n)
            /\ UNCHANGED <<pc, held, has, circ, timers, history>>
    /\ UNCHANGED <<top, acq, rmax>>

Deliver(src, dst) ==
    /\ Deliverable(src, dst)
    /\ \/ dst \in Members /\ src \in Members /\ (RecvToken(src, dst) \/ RecvTop(src, dst))
       \/ dst = Obs /\ RecvWrite(src)
       \/ src = Obs /\ RecvAck(dst)
    /\ UNCHANGED <<status, pause, skew, watches, cut, spent, ghost, drawn>>

-----------------------------------------------------------------------------
(* The world acting alone.                                                  *)

Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algVars
Drift == WorldDrift(Role, Urgent, Cap) /\ UNCHANGED algVars

\* A crash: n loses the token it holds, TOP, and what its client was doing.
Crash(n) ==
    /\ WorldCrash(n, NoTimers, Role)
    /\ has' = [has EXCEPT ![n] = FALSE]
    /\ top' = [top EXCEPT ![n] = FALSE]
    /\ circ' = [circ EXCEPT ![n] = FALSE]
    /\ pc' = [pc EXCEPT ![n] = "idle"]
    /\ held' = [held EXCEPT ![n] = 0]
    /\ UNCHANGED <<acq, rmax>>

\* A restart: n is idle, holds nothing and (naive) waits for the token.
Restart(n) ==
    /\ WorldRestart(n)
    /\ timers' = [timers EXCEPT ![n] = Watch(NoTimers)]
    /\ UNCHANGED <<net, ghost, drawn, history>>
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

\* The steps that are no fault (section 5).
NoFault ==
    \/ Tick
    \/ \E n \in Members : Want(n) \/ Enter(n) \/ Pass(n) \/ Regen(n)
    \/ \E l \in Links : Deliver(l[1], l[2])
    \/ Recoveries /\ Recover

Next == NoFault \/ Fault \/ Recover

Fairness ==
    /\ SF_vars(Tick)
    /\ \A n \in Members : WF_vars(Want(n)) /\ WF_vars(Enter(n)) /\ WF_vars(Pass(n))
    /\ \A n \in Members : WF_vars(Regen(n))
    /\ \A l \in Links : WF_vars(Deliver(l[1], l[2]))
    /\ Recoveries => /\ \A n \in AllNodes : WF_vars(Restart(n))
                     /\ WF_vars(Heal)

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* The lock view (section 5) and the properties.                           *)

\* n believes it holds the lock from Enter until its write is acknowledged.
Holds(n) == pc[n] = "cs"
Wants(n) == pc[n] = "wanting"
Alive(n) == status[n] # "Down"

TypeOK ==
    /\ WorldTypeOK
    /\ has \in [Members -> BOOLEAN]
    /\ top \in [Members -> BOOLEAN]
    /\ circ \in [Members -> BOOLEAN]
    /\ pc \in [Members -> {"idle", "wanting", "cs"}]
    /\ acq \in [Members -> 0..Acquisitions]
    /\ held \in [Members -> Nat]
    /\ rmax \in Nat

MutualExclusion == \A a, b \in Members : a # b => ~(Holds(a) /\ Holds(b))
NoStaleWrite == "StaleWrite" \notin history
NoForeignRelease == "ForeignRelease" \notin history

FaultsStop == <>[][NoFault]_vars

DeadlockFreedom ==
    FaultsStop =>
        []((\E n \in Members : Alive(n) /\ Wants(n))
              => <>(\E m \in Members : Alive(m) /\ Holds(m)))

StarvationFreedom ==
    FaultsStop =>
        \A n \in Members : [](Alive(n) /\ Wants(n) => <>Holds(n))

=============================================================================
