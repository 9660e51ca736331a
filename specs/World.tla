------------------------------- MODULE World --------------------------------
(***************************************************************************)
(* The world every lock runs in (docs/design.md §2), written once: nodes *)
(* that run, pause or are down; their clocks (timers that count down,      *)
(* stopwatches that count up and saturate), which may drift or jump; the   *)
(* network, one FIFO queue of aged messages per link, which may lose,      *)
(* duplicate and be partitioned; the fault budget; the ghost counter, the  *)
(* last lock value drawn and the ghost history flags. It knows nothing    *)
(* about locks, as src/world/ knows nothing about them: the Rust world is  *)
(* generic over the Actor trait, and this module is generic over the       *)
(* operators an algorithm spec passes to it.                               *)
(*                                                                         *)
(* How an algorithm spec plugs in                                          *)
(*                                                                         *)
(*   EXTENDS World                                                         *)
(*                                                                         *)
(* It declares its own CONSTANTS (its [system] keys) and VARIABLES (its    *)
(* nodes' states), and defines:                                            *)
(*   Role(n)       "server", "client" or "observer" (the Rust Role: which  *)
(*                 faults may hit n; an observer, the protected resource,  *)
(*                 and its links are never faulted)                        *)
(*   Urgent(n)     n has an urgent step enabled (Actor::urgent): time      *)
(*                 cannot pass it while n runs                             *)
(*   Cap(n, w)     where n's stopwatch w saturates (Actor::watch_cap)      *)
(*   MayPause(n)   Actor::may_pause                                        *)
(* and its actions, each the conjunction of a world operator below with    *)
(* what the algorithm does:                                                *)
(*   - a node's own step, a delivery (Deliverable, Msg, Pop) and a timer   *)
(*     (Due, Expired) are the algorithm's handlers; they write the world's *)
(*     timers, watches and net of their node through SetTimer, CancelTimer,*)
(*     StartWatch, StopWatch, Send and SendAll, and draw from ghost and    *)
(*     drawn;                                                              *)
(*   - Tick == WorldTick(Urgent, Cap) /\ UNCHANGED algorithmVars, and so   *)
(*     for DriftTick, Heal, Pause, Partition, Lose, Duplicate, ClockJump:  *)
(*     the world alone acts;                                               *)
(*   - Crash(n) == WorldCrash(n, kept, Role) /\ (what n loses), and        *)
(*     Restart(n) == WorldRestart(n) /\ (n's restart handler, which sets   *)
(*     timers'[n] and may send);                                           *)
(*   - its Next lists these world actions with its own (SingleRedis.tla    *)
(*     is the pattern), and Fairness, FaultsStop and its liveness          *)
(*     properties take the shape written below (docs/design.md §5).      *)
(* The world's constants below are the scenario's [faults] keys; every     *)
(* .cfg sets them all. Node ids are the Rust ids (numbers), so that a      *)
(* state here is a state of the Rust checker; Nodes is DOMAIN status and   *)
(* the links that can carry a message are DOMAIN net.                      *)
(*                                                                         *)
(* The Rust world state and this module's variables, one to one:           *)
(*   status, pause   Node::status: Up, Paused(pause), Down (pause is 0     *)
(*                   unless paused)                                        *)
(*   skew            Node::skew: the accumulated clock drift               *)
(*   timers, watches Node::timers and Node::watches, as functions from the *)
(*                   names set to local ticks (left, or counted)           *)
(*   net             WorldState::net, grouped by link in send order: one   *)
(*                   queue per link of [msg, age, copied] (Envelope)       *)
(*   cut             WorldState::cut, each cut link as the set {a, b}      *)
(*   spent           WorldState::spent                                     *)
(*   ghost, drawn    WorldState::ghost, WorldState::value: the last ghost  *)
(*                   number and the last lock value drawn                  *)
(*   history         WorldState::history, as the set of raised flag names  *)
(* Not modelled: reorder = true (a link is a FIFO queue here, as a TCP     *)
(* connection is).                                                         *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets

CONSTANTS
    MaxDelay,    \* [faults] max_delay, or the model value Async (the .cfg
                 \* line MaxDelay = Async) when omitted: an asynchronous network
    Crashes,     \* [faults] crashes
    Pauses,      \* [faults] pauses
    MinPause,    \* [faults] min_pause
    MaxPause,    \* [faults] max_pause
    ClockJumps,  \* [faults] clock_jumps
    MaxJump,     \* [faults] max_jump
    MaxDrift,    \* [faults] max_drift
    Partitions,  \* [faults] partitions
    Loss,        \* [faults] loss
    Duplication, \* [faults] duplicate
    Targets,     \* [faults] targets: "all", "clients" or "servers"
    Recovery,    \* [faults] recovery: "eventual" or "none"
    None         \* a model value: "nothing" (no key, no stopwatch, ...)

ASSUME /\ MaxDelay \in 0..10 \/ MaxDelay \notin Int
       /\ Crashes \in 0..3 /\ Pauses \in 0..3
       /\ MinPause \in 1..30 /\ MaxPause \in 0..30
       /\ ClockJumps \in 0..3 /\ MaxJump \in 0..10 /\ MaxDrift \in 0..5
       /\ Partitions \in 0..3 /\ Loss \in BOOLEAN /\ Duplication \in BOOLEAN
       /\ Targets \in {"all", "clients", "servers"}
       /\ Recovery \in {"eventual", "none"}

VARIABLES
    status,   \* status[n] \in {"Up", "Paused", "Down"}
    pause,    \* pause[n]: ticks of pause left; 0 unless Paused
    skew,     \* skew[n]: the clock's accumulated drift, -MaxDrift..MaxDrift
    timers,   \* timers[n]: set timer names -> local ticks left
    watches,  \* watches[n]: running stopwatch names -> local ticks counted
    net,      \* net[<<src, dst>>]: messages in flight, in send order
    cut,      \* the cut links, each as {a, b}
    spent,    \* faults spent: [crashes, pauses, jumps, partitions]
    ghost,    \* the last ghost number drawn (numbers acquisitions)
    drawn,    \* the last lock value drawn
    history   \* ghost flags raised, e.g. "ForeignRelease", "StaleWrite"

worldVars == <<status, pause, skew, timers, watches, net, cut, spent, ghost, drawn, history>>

Nodes == DOMAIN status

\* Messages age and must arrive within MaxDelay ticks (Faults::max_delay).
Bounded == MaxDelay \in Nat

Clamp(v, lo, hi) == IF v < lo THEN lo ELSE IF v > hi THEN hi ELSE v

-----------------------------------------------------------------------------
(* Initial state: every node up with no timer, no stopwatch and no skew,   *)
(* nothing in flight, nothing cut or spent or drawn.                       *)

NoTimers == [t \in {} |-> 0]

\* World::init, with the timers T[n] each actor's init sets (Actor::init
\* may set timers: a token ring node waits for the token from the start).
WorldInitTimers(N, Links, T) ==
    /\ status = [n \in N |-> "Up"]
    /\ pause = [n \in N |-> 0]
    /\ skew = [n \in N |-> 0]
    /\ timers = T
    /\ watches = [n \in N |-> NoTimers]
    /\ net = [l \in Links |-> <<>>]
    /\ cut = {}
    /\ spent = [crashes |-> 0, pauses |-> 0, jumps |-> 0, partitions |-> 0]
    /\ ghost = 0
    /\ drawn = 0
    /\ history = {}

WorldInit(N, Links) == WorldInitTimers(N, Links, [n \in N |-> NoTimers])

-----------------------------------------------------------------------------
(* Timers and stopwatches, as World::apply handles SetTimer, CancelTimer,  *)
(* StartWatch and StopWatch. A handler writes                              *)
(* timers' = [timers EXCEPT ![n] = SetTimer(@, "Retry", 3)].               *)

Up(n) == status[n] = "Up"

SetTimer(f, t, v) == [x \in DOMAIN f \cup {t} |-> IF x = t THEN v ELSE f[x]]
CancelTimer(f, t) == [x \in DOMAIN f \ {t} |-> f[x]]
Keep(f, names) == [x \in DOMAIN f \cap names |-> f[x]]
IsSet(n, t) == t \in DOMAIN timers[n]
Due(n, t) == IsSet(n, t) /\ timers[n][t] = 0
Left(n, t) == timers[n][t]

\* A timer fires (Action::Fire): the world removes it before the handler.
Expired(n, t) == [timers EXCEPT ![n] = CancelTimer(@, t)]

StartWatch(f, w) == SetTimer(f, w, 0)
StopWatch(f, w) == CancelTimer(f, w)
Running(n, w) == w \in DOMAIN watches[n]
\* The reading of n's stopwatch w (Ctx::elapsed), or None.
Elapsed(n, w) == IF Running(n, w) THEN watches[n][w] ELSE None

\* World::watch_cap: saturation is sound only for a clock that never goes
\* back, so while clock jumps remain in the budget sp the cap sits above
\* the actor's by every tick they could still take back.
WatchCap(n, w, sp, Cap(_, _)) == Cap(n, w) + (ClockJumps - sp.jumps) * MaxJump

\* World::advance_clock: node n's clock moves by `by` local ticks (back
\* when negative): its timers run down, its stopwatches count up to their
\* caps.
AdvanceTimers(f, by) == [t \in DOMAIN f |-> Clamp(f[t] - by, 0, 255)]
AdvanceWatches(n, f, by, sp, Cap(_, _)) ==
    [w \in DOMAIN f |-> Clamp(f[w] + by, 0, WatchCap(n, w, sp, Cap))]

-----------------------------------------------------------------------------
(* The network. A link is a FIFO queue (no reordering); of identical       *)
(* messages in flight, delivery and loss take the oldest, which on a FIFO  *)
(* queue is the first (ages never grow along a queue).                     *)

Cut(a, b) == {a, b} \in cut

\* Cmd::Send: a message to a crashed node, or on a cut link, is dropped.
Send(q, src, dst, m) ==
    IF status[dst] = "Down" \/ Cut(src, dst) THEN q
    ELSE [q EXCEPT ![<<src, dst>>] = Append(@, [msg |-> m, age |-> 0, copied |-> FALSE])]

\* The same message from src to every node of D (Send to each in turn).
SendAll(q, src, D, m) ==
    [l \in DOMAIN q |->
        IF l[1] = src /\ l[2] \in D /\ status[l[2]] # "Down" /\ ~Cut(src, l[2])
        THEN Append(q[l], [msg |-> m, age |-> 0, copied |-> FALSE])
        ELSE q[l]]

\* Only the oldest message of a link can be delivered, and only to a
\* running node.
Deliverable(src, dst) == Up(dst) /\ net[<<src, dst>>] # <<>>
Msg(src, dst) == Head(net[<<src, dst>>]).msg
\* Ctx::age: how long it was in flight.
Age(src, dst) == Head(net[<<src, dst>>]).age
Pop(src, dst) == [net EXCEPT ![<<src, dst>>] = Tail(@)]

InFlight == UNION {{net[l][i].msg : i \in 1..Len(net[l])} : l \in DOMAIN net}

Remove(q, i) == SubSeq(q, 1, i - 1) \o SubSeq(q, i + 1, Len(q))

\* Faults::targets: who may be crashed, paused, skewed or cut off. The
\* observer (the protected resource) is never faulted.
Targeted(n, Role(_)) ==
    \/ Targets = "all" /\ Role(n) \in {"server", "client"}
    \/ Targets = "clients" /\ Role(n) = "client"
    \/ Targets = "servers" /\ Role(n) = "server"

\* Loss and duplication touch only the lock's own messages.
Faultable(src, dst, Role(_)) == Role(src) # "observer" /\ Role(dst) # "observer"

-----------------------------------------------------------------------------
(* Time (World::time_blocked, time_matters, tick).                         *)

\* Time cannot pass a due timer or an urgent step of a running node, nor a
\* message to a running node that has been in flight MaxDelay ticks.
TimeBlocked(Urgent(_)) ==
    \/ \E n \in Nodes : Up(n) /\ (Urgent(n) \/ \E t \in DOMAIN timers[n] : timers[n][t] = 0)
    \/ Bounded /\ \E l \in DOMAIN net : \E i \in 1..Len(net[l]) :
                      net[l][i].age >= MaxDelay /\ Up(l[2])

\* A tick must change something: a world with nothing timed never ticks.
TimeMatters(Cap(_, _)) ==
    \/ \E n \in Nodes :
          \/ status[n] = "Paused"
          \/ \E t \in DOMAIN timers[n] : timers[n][t] > 0
          \/ \E w \in DOMAIN watches[n] : watches[n][w] < WatchCap(n, w, spent, Cap)
    \/ Bounded /\ \E l \in DOMAIN net : \E i \in 1..Len(net[l]) : net[l][i].age < MaxDelay

CanTick(Urgent(_), Cap(_, _)) == ~TimeBlocked(Urgent) /\ TimeMatters(Cap) = TRUE

\* One tick of real time in which node n's clock moves Rate[n] ticks (1,
\* or 2 and 0 for a fast and a slow clock). Every node's clock runs, a
\* crashed one's too (an fsynced key's expiry is a deadline); a paused
\* node's pause counts down; messages age, saturating at MaxDelay.
TickAt(Rate, Cap(_, _)) ==
    /\ timers' = [n \in Nodes |-> AdvanceTimers(timers[n], Rate[n])]
    /\ watches' = [n \in Nodes |-> IF Rate[n] = 0 THEN watches[n]
                                   ELSE AdvanceWatches(n, watches[n], Rate[n], spent, Cap)]
    /\ skew' = [n \in Nodes |-> skew[n] + Rate[n] - 1]
    /\ status' = [n \in Nodes |->
                    IF status[n] = "Paused" /\ pause[n] <= 1 THEN "Up" ELSE status[n]]
    /\ pause' = [n \in Nodes |-> IF status[n] = "Paused" THEN pause[n] - 1 ELSE pause[n]]
    /\ net' = IF Bounded
              THEN [l \in DOMAIN net |->
                      [i \in 1..Len(net[l]) |->
                         [net[l][i] EXCEPT !.age = IF @ < MaxDelay THEN @ + 1 ELSE MaxDelay]]]
              ELSE net
    /\ UNCHANGED <<cut, spent, ghost, drawn, history>>

\* Action::Tick: every clock keeps real time.
WorldTick(Urgent(_), Cap(_, _)) ==
    /\ CanTick(Urgent, Cap)
    /\ TickAt([n \in Nodes |-> 1], Cap)

\* Fault, Action::Drift: one tick in which the fast nodes' clocks move 2
\* and the slow nodes' stand still, any combination of the nodes that may
\* drift (targeted, not crashed), each keeping |skew| <= MaxDrift.
Drifts(n, Role(_)) == MaxDrift > 0 /\ Targeted(n, Role) /\ status[n] # "Down"

WorldDrift(Role(_), Urgent(_), Cap(_, _)) ==
    /\ CanTick(Urgent, Cap)
    /\ \E fast, slow \in SUBSET {n \in Nodes : Drifts(n, Role)} :
          /\ fast \cap slow = {} /\ fast \cup slow # {}
          /\ \A n \in fast : skew[n] < MaxDrift
          /\ \A n \in slow : skew[n] > -MaxDrift
          /\ TickAt([n \in Nodes |-> IF n \in fast THEN 2 ELSE IF n \in slow THEN 0 ELSE 1], Cap)

-----------------------------------------------------------------------------
(* Faults (Action::Crash, Pause, Partition, Lose, Duplicate, ClockJump,    *)
(* Drift) and recoveries (Restart, Heal). Every fault is bounded by the    *)
(* budget and never fair.                                                  *)

\* A node stops: it keeps only the timers `kept` (the actor's crash decides,
\* e.g. an fsynced key's expiry), loses its stopwatches and skew, and the
\* messages to it are dropped. The spec conjoins what n's state loses.
WorldCrash(n, kept, Role(_)) ==
    /\ Targeted(n, Role) /\ status[n] # "Down" /\ spent.crashes < Crashes
    /\ status' = [status EXCEPT ![n] = "Down"]
    /\ pause' = [pause EXCEPT ![n] = 0]
    /\ skew' = [skew EXCEPT ![n] = 0]
    /\ timers' = [timers EXCEPT ![n] = kept]
    /\ watches' = [watches EXCEPT ![n] = NoTimers]
    /\ net' = [l \in DOMAIN net |-> IF l[2] = n THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.crashes = @ + 1]
    /\ UNCHANGED <<cut, ghost, drawn, history>>

\* A crashed node comes back, without stopwatches; its restart handler (the
\* spec's part) sets timers'[n] from none (World clears them) and net'.
WorldRestart(n) ==
    /\ status[n] = "Down"
    /\ status' = [status EXCEPT ![n] = "Up"]
    /\ watches' = [watches EXCEPT ![n] = NoTimers]
    /\ UNCHANGED <<pause, skew, cut, spent>>

\* A running node stops taking steps for k ticks while its clock runs.
WorldPause(n, k, Role(_), MayPause(_)) ==
    /\ Targeted(n, Role) /\ Up(n) /\ spent.pauses < Pauses /\ MayPause(n)
    /\ k \in MinPause..MaxPause
    /\ status' = [status EXCEPT ![n] = "Paused"]
    /\ pause' = [pause EXCEPT ![n] = k]
    /\ spent' = [spent EXCEPT !.pauses = @ + 1]
    /\ UNCHANGED <<skew, timers, watches, net, cut, ghost, drawn, history>>

\* The link between a and b (a < b) is cut both ways; what is on it is lost.
WorldPartition(a, b, Role(_)) ==
    /\ spent.partitions < Partitions /\ a < b /\ ~Cut(a, b)
    /\ Role(a) # "observer" /\ Role(b) # "observer"
    /\ Targeted(a, Role) \/ Targeted(b, Role)
    /\ cut' = cut \cup {{a, b}}
    /\ net' = [l \in DOMAIN net |-> IF {l[1], l[2]} = {a, b} THEN <<>> ELSE net[l]]
    /\ spent' = [spent EXCEPT !.partitions = @ + 1]
    /\ UNCHANGED <<status, pause, skew, timers, watches, ghost, drawn, history>>

\* Every cut link is repaired.
WorldHeal ==
    /\ cut # {}
    /\ cut' = {}
    /\ UNCHANGED <<status, pause, skew, timers, watches, net, spent, ghost, drawn, history>>

\* The network loses the oldest copy of a message (the i-th of its link,
\* the first with its contents).
WorldLose(src, dst, i, Role(_)) ==
    LET q == net[<<src, dst>>] IN
    /\ Loss /\ Faultable(src, dst, Role) /\ i \in 1..Len(q)
    /\ \A j \in 1..i - 1 : q[j].msg # q[i].msg
    /\ net' = [net EXCEPT ![<<src, dst>>] = Remove(q, i)]
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>

\* The network duplicates the oldest copy not yet duplicated; the copy is
\* as old as its original and travels right behind it; neither is
\* duplicated again.
WorldDuplicate(src, dst, i, Role(_)) ==
    LET q == net[<<src, dst>>]
        e == [q[i] EXCEPT !.copied = TRUE]
    IN
    /\ Duplication /\ Faultable(src, dst, Role) /\ i \in 1..Len(q) /\ ~q[i].copied
    /\ \A j \in 1..i - 1 : ~(q[j].msg = q[i].msg /\ ~q[j].copied)
    /\ net' = [net EXCEPT ![<<src, dst>>] =
                 SubSeq(q, 1, i - 1) \o <<e, e>> \o SubSeq(q, i + 1, Len(q))]
    /\ UNCHANGED <<status, pause, skew, timers, watches, cut, spent, ghost, drawn, history>>

\* A node's clock steps by `by` local ticks at once (an NTP step): timers
\* run down (or back up) and stopwatches move by as much, within the cap
\* the jumps still left allow (the jump is counted as spent first).
WorldClockJump(n, by, Role(_), Cap(_, _)) ==
    /\ Targeted(n, Role) /\ status[n] # "Down" /\ spent.jumps < ClockJumps
    /\ by \in (-MaxJump..MaxJump) \ {0}
    /\ spent' = [spent EXCEPT !.jumps = @ + 1]
    /\ timers' = [timers EXCEPT ![n] = AdvanceTimers(@, by)]
    /\ watches' = [watches EXCEPT ![n] = AdvanceWatches(n, @, by, spent', Cap)]
    /\ UNCHANGED <<status, pause, skew, net, cut, ghost, drawn, history>>

-----------------------------------------------------------------------------
(* Fairness (docs/design.md §5): strong fairness for Tick (a run that   *)
(* comes back for ever to states where time may pass lets it pass: under  *)
(* weak fairness a lock cycle over instant links could repeat for ever in *)
(* no time, a Zeno run no real system has; docs/properties.md, "Time is   *)
(* strongly fair"), and weak fairness for each node's                     *)
(* own steps (each step by name), each node's timers, each link's delivery *)
(* (with FIFO links the same as each message's), and, when outages end     *)
(* (Recoveries), Restart and Heal. Faults are never fair; the budget makes *)
(* them stop. TLC cannot check WF_v(A) for an action A passed as an        *)
(* operator argument ("TLC cannot handle the temporal formula"), so each   *)
(* spec writes its Fairness in this one shape, over its own actions:       *)
(*                                                                         *)
(*   Fairness ==                                                           *)
(*       /\ SF_vars(Tick)                                                  *)
(*       /\ \A n \in Nodes, s \in StepNames : WF_vars(Step(n, s))          *)
(*       /\ \A n \in Nodes, t \in TimerNames : WF_vars(Fire(n, t))         *)
(*       /\ \A l \in DOMAIN net : WF_vars(Deliver(l[1], l[2]))             *)
(*       /\ Recoveries => /\ \A n \in Nodes : WF_vars(Restart(n))          *)
(*                        /\ WF_vars(Heal)                                 *)
(*                                                                         *)
(* and its liveness properties are about the runs in which faults stop     *)
(* (section 5): loss, duplication and drift have no budget, so a run may   *)
(* lose every message for ever. With NoFault the disjunction of the steps  *)
(* that are no fault (Tick, the nodes' steps, Fire, Deliver, and Restart   *)
(* and Heal when Recoveries), a property P is written                      *)
(*                                                                         *)
(*   FaultsStop == <>[][NoFault]_vars                                      *)
(*   P == FaultsStop => ...                                                *)
(*                                                                         *)
(* A step that a non-fault action could take is no fault, as in the Rust   *)
(* checker, whose fair loops may use any edge not labelled a fault.        *)

\* Restart and Heal are weakly fair (recovery = "eventual"); with
\* recovery = "none" they are the adversary's choices, like faults.
Recoveries == Recovery = "eventual"

-----------------------------------------------------------------------------
(* Renumbering (src/world/ranks.rs). Values that only grow (ghost numbers, *)
(* lock values, fencing counters) are only ever compared, so Rust replaces *)
(* each by its rank among the values of its kind present in the state (0,  *)
(* "none", stays 0) after every action. A spec's RankedVars is its state   *)
(* so renumbered, and its .cfg's VIEW RankedVars makes TLC count the       *)
(* states the Rust checker counts.                                         *)

Rank(v, S) == IF v = 0 THEN 0 ELSE Cardinality({x \in S : x # 0 /\ x <= v})

\* TLC 2.15 fingerprints the view, not the variables: a variable the view
\* rewrites must be compared with itself first, or TLC keeps it a lazily
\* evaluated function that it cannot write to its disk queue nor print in
\* a trace.
Concrete(x) == x = x

\* net with every message m on link l replaced by F(l, m).
RenumberedNetOn(F(_, _)) ==
    [l \in DOMAIN net |-> [i \in 1..Len(net[l]) |-> [net[l][i] EXCEPT !.msg = F(l, @)]]]

\* net with every message m replaced by F(m).
RenumberedNet(F(_)) == RenumberedNetOn(LAMBDA l, m : F(m))

\* The world's part of a renumbered state, with timers T (a spec whose
\* timer names hold growing numbers renames them), messages renumbered by
\* F(link, message), and ghost and drawn by the spec's own RG and RV.
RankedWorldOn(T, RG(_), RV(_), F(_, _)) ==
    <<status, pause, skew, T, watches, RenumberedNetOn(F), cut, spent,
      RG(ghost), RV(drawn), history>>

\* The world's part of a renumbered state; ghost and drawn are renumbered
\* by the spec's own rank functions RG and RV.
RankedWorld(RG(_), RV(_), F(_)) == RankedWorldOn(timers, RG, RV, LAMBDA l, m : F(m))

\* The world's part of TypeOK.
WorldTypeOK ==
    /\ status \in [Nodes -> {"Up", "Paused", "Down"}]
    /\ pause \in [Nodes -> 0..MaxPause]
    /\ skew \in [Nodes -> -MaxDrift..MaxDrift]
    /\ \A n \in Nodes : \A t \in DOMAIN timers[n] : timers[n][t] \in 0..255
    /\ \A n \in Nodes : \A w \in DOMAIN watches[n] : watches[n][w] \in Nat
    /\ \A l \in DOMAIN net : \A i \in 1..Len(net[l]) :
          net[l][i].age \in Nat /\ net[l][i].copied \in BOOLEAN
    /\ \A c \in cut : c \subseteq Nodes /\ Cardinality(c) = 2
    /\ spent \in [crashes : 0..Crashes, pauses : 0..Pauses,
                  jumps : 0..ClockJumps, partitions : 0..Partitions]
    /\ ghost \in Nat /\ drawn \in Nat

=============================================================================
