"""The ``expert`` level: ``hard``'s plans, tried out in sampled hidden worlds.

Before each move of its turn, ``expert`` asks the turn planner for its best
plan through every first move and every discard (the candidates), keeps
the few best, and plays each of them out in the same few *worlds*: complete
deals consistent with its :class:`PlayerView` and nothing else.  A world puts
the cards this seat cannot see (the 104 minus everything in the view) at
random into the places it cannot see: the opponent's hand (its size is in
the view), the stock (its count), and both pay-off piles under their tops
(their counts).  In each world, with the real engine:

1. the candidate plan is played; if the turn goes on (a new pay-off top turned
   up, or the hand was refilled) a fast greedy policy finishes it
   (:func:`greedy_turn`: the shortest chain to the pay-off top, then ``easy``'s
   center plays and discard);
2. the opponent replies with a whole turn of the same greedy policy;
3. the position is scored for this seat: pay-off cards played by each side,
   a won or lost game, and ``leaf`` times the value of ``hard``'s best plan for
   this seat's next turn in that world (:meth:`ExpertBot._leaf_value`).  That
   search costs about eight reach tests, so with the clock it is used only
   while the turn has spent less than ``leaf_until``; later decisions (and
   ``leaf=0``) score the next turn by whether the pay-off top is then
   reachable from the hand and side stacks, and if so, the chance that the
   card under it (a rank from the cards this seat cannot see) is reachable
   with what the climb to the top leaves (:meth:`ExpertBot._next_turn`).

The candidate with the best average plus ``prior`` times ``hard``'s own value
of it wins; every candidate meets the same worlds, so they are compared on
equal luck.  Plain discards (a hand card to a side stack, ending the turn)
share one playout per world: the opponent's reply is the same whichever card
went on whichever stack, so only the last step, the reach tests, is done for
each of them (:meth:`ExpertBot._discard_outs`; the same scores as separate
playouts).  Its first move is played, and the next move is decided the same
way (``rethink``; without it, or once the turn's time is spent, the rest of
the plan is followed up to the next chance event, as ``hard`` does).
(``finish``/``reply`` = "plan" put a capped ``medium`` search,
:func:`plan_turn`, in place of the greedy policy: an experiment that measured
no better and far slower; ``reply`` = "block" makes the greedy reply cover
our pay-off top and never feed it, an experiment that measured within
noise of the greedy reply on 2,800 paired games: docs/bots.md.)

What the opponent kept (``infer``): a racer plays its pay-off top whenever it
can, so the cards it kept at the end of its last turn could not climb to that
top from the centers as it left them (the centers at the start of our turn,
:func:`turn_end_rule`).  The worlds deal the opponent only such hands, and
``hard``'s threat estimate draws its sampled hands the same way (the kept cards
so, the cards it draws to five from all the unseen: ``planner.kept_hand``).  A
uniform hand holds the one card a center is waiting for in most samples; a
kept one never does.

Fair by construction: the worlds come from the view alone (the real hidden
cards are never in reach), and its randomness is a ``random.Random`` seeded
from the bot's own seed and the view's game and ply, never the global one.

Thinking time: ``turn_budget`` seconds per turn (all decisions of one turn
together).  Worlds are added one at a time for all candidates and the search
stops when the budget is spent, playing the best so far (at least one world
when any time is left).  A world is valued with ``leaf`` only while the worlds
left would still fit in the time left after it with the reach tests (the costs
of both as measured in the bot's earlier worlds); then the reach tests, so that
a slow machine loses precision in the last worlds rather than the worlds.
``turn_budget=None`` is the deterministic mode: exactly ``worlds`` worlds, with
``leaf`` in each, whatever the machine (tests and reproducible benchmarks use it).
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..engine import CENTER, HAND, PAYOFF, SIDE, GameState, Move, PlayerView, Stream, world_from_view
from ..engine import view as view_of
from .planner import (
    HARD,
    KEPT_TRIES,
    MEDIUM,
    PlannerBot,
    Weights,
    _climb,
    _reach_set,
    _Search,
    could_race,
    rank_shares,
    search_view,
    visible_cards,
)


@dataclass(frozen=True, slots=True)
class ExpertConfig:
    """The knobs of ``expert`` (measured with scripts/bench_bots)."""

    candidates: int = 6  # plans tried out per decision
    margin: float = 120.0  # ... among those within this of the planner's best value
    worlds: int = 16  # sampled worlds per decision (the most; exactly this many when deterministic)
    turn_budget: float | None = 0.2  # seconds of thinking per turn; None: deterministic
    win: float = 1000.0  # a game won in a world (lost: the opposite)
    payoff: float = 100.0  # per pay-off card played (by us: +, by the opponent: -)
    leaf: float = 0.8  # our next turn after the reply, valued by hard's search of it (times this)
    leaf_nodes: int = 100  # ... capped at this many states
    leaf_until: float = 0.1  # with the clock: only while the turn has spent less than this (seconds)
    future: float = 80.0  # (leaf=0) our pay-off top reachable at our next turn (hand, side stacks, centers)
    future2: float = 80.0  # (leaf=0) ... plus this times the chance that the card under it is reachable
    prior: float = 0.5  # plus this times the planner's own value of the candidate
    hurried_nodes: int = 300  # hard's search cap once the turn's budget is spent (hard: 2,500)
    # Experiments (scripts/bench_bots --set; docs/bots.md has what they measured):
    finish: str = "greedy"  # our turn after a chance event in a world: "greedy" or "plan"
    reply: str = "greedy"  # the opponent's reply in a world: "greedy", "block" (covers our top) or "plan"
    policy_nodes: int = 60  # "plan": medium's search capped at this many states, per decision
    rethink: bool = True  # compare plans before every move while the turn has time (else after chance events)
    infer: bool = True  # the opponent's kept cards could not reach its pay-off top at its turn's end


EXPERT = ExpertConfig()
# The same play without a clock: exactly ``worlds`` worlds per decision (tests, benchmarks).
EXPERT_FIXED = dataclasses.replace(EXPERT, turn_budget=None)


class ExpertBot(PlannerBot):
    """``hard``'s candidate plans, compared by playing them out in sampled worlds."""

    name = "expert"

    def __init__(
        self,
        seed: int | None = None,
        config: ExpertConfig = EXPERT,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        super().__init__(seed, HARD)
        self.seed = seed
        self.config = config
        self._clock = clock  # seconds, for the thinking budget (tests pass their own)
        self.last_worlds = 0
        self.compared = 0  # decisions with several candidates ...
        self.cut_short = 0  # ... and those where the clock stopped before ``worlds`` worlds
        self._spent = 0.0  # thinking time spent in this turn so far
        self.last_leaf = False  # did the last comparison value our next turn with ``leaf``?
        self.last_leaf_worlds = 0  # ... in how many of its worlds
        # seconds per world and per plan played out in it (measured, averaged): with
        # ``leaf``, and with the reach tests; None until measured
        self._world_cost: dict[bool, float | None] = {True: None, False: None}
        self._next: tuple[int, int, int] | None = None  # (game, ply, seat) of our next view in this turn
        # hard's search with a smaller cap, for decisions after the turn's budget is spent
        self._hurried = dataclasses.replace(HARD, node_limit=config.hurried_nodes)
        self._policy = dataclasses.replace(MEDIUM, node_limit=config.policy_nodes)
        # hard's search without the opponent (the world's reply has been played), for ``leaf``
        self._leaf = dataclasses.replace(
            HARD,
            node_limit=config.leaf_nodes,
            threat=0.0,
            samples=0,
            look_at_opponent=False,
            watch_opponent=False,
        )

    def choose(self, view: PlayerView) -> Move:
        # A new turn, from the view alone: any view but the one right after our
        # own last move, for the same seat (the opponent has moved since, or a new
        # game began, whether the last turn ended with a discard or with the game won).
        if (view.game, view.ply, view.seat) != self._next:
            # A bot that has played before sees each of its turns from the start, so
            # the centers are as the opponent left them; a fresh one (``hint``, a
            # resumed match) may be mid-turn, with centers of our own making.
            fresh = self._next is None
            self._spent = 0.0
            self._avoid = turn_end_rule(view) if self.config.infer and not fresh else ()
        t0 = self._clock()
        move = super().choose(view)
        self._spent += self._clock() - t0
        self._next = (view.game, view.ply + 1, view.seat)
        return move

    def _follows_plan(self) -> bool:
        """With ``rethink``, compare plans before every move while the turn has time."""
        budget = self.config.turn_budget
        return not self.config.rethink or (budget is not None and self._spent >= budget)

    def _think(self, view: PlayerView) -> Move:
        cfg = self.config
        deadline = None
        weights = self.weights
        if cfg.turn_budget is not None:
            deadline = self._clock() + cfg.turn_budget - self._spent
            if self._spent >= cfg.turn_budget:  # the turn's time is spent: a smaller search
                weights = self._hurried
        search = _Search(view, weights, self._rng, self.opponent_skill, self._avoid)
        options: list[tuple[float, tuple[Move, ...]]] = []
        best_value, best_plan = search_view(search, view, options)
        self.last_nodes = search.nodes
        self.last_worlds = 0
        cands = self._candidates(best_value, best_plan, options)
        if len(cands) > 1:
            best_plan = self._compare(view, cands, deadline)
        return self._commit(best_plan)

    def _candidates(
        self, best_value: float, best_plan: tuple[Move, ...], options: list[tuple[float, tuple[Move, ...]]]
    ) -> list[tuple[float, tuple[Move, ...]]]:
        cfg = self.config
        if best_value >= self.weights.win:  # a win this turn: nothing to compare
            return [(best_value, best_plan)]
        ranked = sorted(options, key=lambda o: -o[0])
        out: list[tuple[float, tuple[Move, ...]]] = [(best_value, best_plan)]
        seen = {best_plan}
        for v, plan in ranked:
            if len(out) >= cfg.candidates or v < best_value - cfg.margin:
                break
            if plan and plan not in seen:
                seen.add(plan)
                out.append((v, plan))
        return out

    def _compare(
        self, view: PlayerView, cands: list[tuple[float, tuple[Move, ...]]], deadline: float | None
    ) -> tuple[Move, ...]:
        cfg = self.config
        me = view.seat
        rng = random.Random(f"expert {self.seed} {view.game} {view.ply}")
        # hard's search for our next turn costs about 8 reach tests: late in a long
        # turn the clock would cut it short, so the reach tests are used instead
        leaf = self.last_leaf = cfg.leaf > 0 and (cfg.turn_budget is None or self._spent < cfg.leaf_until)
        shares = rank_shares(view) if cfg.future2 else []
        # Plain discards share one playout per world: the opponent's reply does not
        # depend on which hand card we put on which side stack.
        discards = [k for k, (_, plan) in enumerate(cands) if _is_discard(plan)]
        if len(discards) < 2:
            discards = []
        others = [k for k in range(len(cands)) if k not in discards]
        plans = len(cands)  # plays out per world (a leaf search each, with ``leaf``)
        totals = [0.0] * len(cands)
        done = leafs = 0
        for _ in range(cfg.worlds):
            now = self._clock()
            if deadline is not None and now >= deadline:
                break
            # Every world with hard's search while the rest still fit in the time
            # left after it with the reach tests; then the reach tests (the clock
            # cutting the worlds short costs more than the cheaper valuation).
            deep = leaf and (deadline is None or self._fits(now, deadline, cfg.worlds - done, plans))
            world = sample_world(view, rng, self._avoid)
            if world is None:
                break
            for k in others:
                totals[k] += self._play_out(world.copy(), me, cands[k][1], shares, deep)
            if discards:
                outs = self._discard_outs(world, me, [cands[k][1][0] for k in discards], shares, deep)
                for k, v in zip(discards, outs, strict=True):
                    totals[k] += v
            done += 1
            leafs += deep
            if deadline is not None:
                per_plan = (self._clock() - now) / plans
                last = self._world_cost[deep]
                self._world_cost[deep] = per_plan if last is None else 0.8 * last + 0.2 * per_plan
        self.last_worlds = done
        self.last_leaf_worlds = leafs
        self.compared += 1
        self.cut_short += done < cfg.worlds
        if not done:
            return cands[0][1]
        scores = [t / done + cfg.prior * v for t, (v, _) in zip(totals, cands, strict=True)]
        best = max(range(len(cands)), key=lambda k: (scores[k], -k))
        return cands[best][1]

    def _fits(self, now: float, deadline: float, left: int, plans: int) -> bool:
        """Would one more world with ``leaf`` and the ``left`` - 1 after it with the
        reach tests end by ``deadline`` (costs as measured so far; unmeasured: yes)?"""
        deep, cheap = self._world_cost[True], self._world_cost[False]
        if deep is None:
            return True
        if cheap is None:
            cheap = deep / 8  # the reach tests: about an eighth of hard's search
        return now + 1.25 * plans * (deep + (left - 1) * cheap) <= deadline  # (a quarter to spare)

    def _reply(self, state: GameState, opp: int) -> None:
        """The opponent's whole turn in a world."""
        if self.config.reply == "plan":
            plan_turn(state, opp, self._policy, self._rng)
        else:
            greedy_turn(state, opp, guard=self.config.reply == "block")

    def _play_out(
        self, state: GameState, me: int, plan: tuple[Move, ...], shares: list[tuple[int, float]], leaf: bool
    ) -> float:
        """Play ``plan``, the rest of our turn and the opponent's reply in a world; score it,
        our next turn by :meth:`_leaf_value` if ``leaf``, else by :meth:`_next_turn`
        (``shares``: :func:`rank_shares` of the view, for the latter)."""
        cfg = self.config
        opp = 1 - me
        mine, theirs = len(state.payoff[me]), len(state.payoff[opp])
        for m in plan:
            state.apply(m)
            if state.result is not None or state.turn != me:
                break
        if cfg.finish == "plan":
            plan_turn(state, me, self._policy, self._rng)
        else:
            greedy_turn(state, me)
        self._reply(state, opp)
        result = state.result
        if result is not None:
            return self._result_score(result.winner, me)
        value = cfg.payoff * ((mine - len(state.payoff[me])) - (theirs - len(state.payoff[opp])))
        if leaf:
            return value + self._leaf_value(state, me)
        pile = state.payoff[me]
        if cfg.future and pile:
            hand = [0] * 13
            for c in state.hands[me]:
                hand[c % 13] += 1
            stacks = [tuple(c % 13 for c in st) for st in state.sides[me]]
            value += self._next_turn(pile, hand, stacks, state.center, shares)
        return value

    def _discard_outs(
        self, state: GameState, me: int, discards: list[Move], shares: list[tuple[int, float]], leaf: bool
    ) -> list[float]:
        """:meth:`_play_out` of each plain discard in ``discards`` (hand card to side
        stack) from one playout: the reply does not depend on the discard (the same
        scores as separate playouts with the greedy reply; "plan" draws on the
        bot's generator once instead of once per discard)."""
        cfg = self.config
        opp = 1 - me
        mine, theirs = len(state.payoff[me]), len(state.payoff[opp])
        stacks = [tuple(c % 13 for c in st) for st in state.sides[me]]  # before the discard
        ranks = [state.card_of(m) % 13 for m in discards]
        state.apply(discards[0])
        self._reply(state, opp)
        result = state.result
        if result is not None:
            return [self._result_score(result.winner, me)] * len(discards)
        value = cfg.payoff * ((mine - len(state.payoff[me])) - (theirs - len(state.payoff[opp])))
        if leaf:
            return [value + self._leaf_value(_swap_discard(state, discards[0], m), me) for m in discards]
        pile = state.payoff[me]
        if not cfg.future or not pile:
            return [value] * len(discards)
        hand = [0] * 13  # our hand after the reply's refill, with the first discard's card back
        for c in state.hands[me]:
            hand[c % 13] += 1
        hand[ranks[0]] += 1
        out = []
        for m, r in zip(discards, ranks, strict=True):
            hand[r] -= 1
            sides = [(*st, r) if s == m.slot else st for s, st in enumerate(stacks)]
            bonus = self._next_turn(pile, hand, sides, state.center, shares)
            hand[r] += 1
            out.append(value + bonus)
        return out

    def _leaf_value(self, state: GameState, me: int) -> float:
        """Our next turn's prospects in a world after the opponent's reply: ``leaf``
        times the value of hard's best plan for it (pay-off cards it plays, the
        chance of reaching the top each one uncovers, cards cycled, the discard
        that ends it; not the opponent's threat, with its hand in no view of ours)."""
        v = view_of(state, me)
        value, _ = search_view(_Search(v, self._leaf, self._rng), v)
        return self.config.leaf * min(value, self.config.win)

    def _next_turn(
        self,
        pile: list[int],
        hand: list[int],
        stacks: list[tuple[int, ...]],
        centers: list[list[int]],
        shares: list[tuple[int, float]],
    ) -> float:
        """The score of our next turn's prospects: ``future`` if the pay-off top
        (``pile[-1]``) is reachable from the hand counts (by rank), side stacks
        (ranks) and centers, plus ``future2`` times the chance that the card
        under it (a rank drawn from ``shares``, the cards this seat could not see,
        with their shares) is reachable with what the shortest climb to the top
        leaves, from the centers it leaves (a King top: the centers as they
        are).  The planner's greedy climbs (:func:`_climb`, as its reach test)."""
        cfg = self.config
        target = pile[-1] % 13
        lens = [len(c) for c in centers]
        rest: tuple[list[int], list[int]] | None
        if target == 12:
            rest = (hand, [len(st) for st in stacks])
            after = lens
        else:
            rest = None
            best = 0
            for i, n in enumerate(lens):
                got = _climb(n, target, hand, stacks)
                if got is not None and (rest is None or (target - n) % 12 < (target - lens[best]) % 12):
                    rest, best = got, i
                    if not cfg.future2:
                        break  # only whether it is reachable counts
            if rest is None:
                return 0.0
            after = lens[:]
            after[best] = (target + 1) % 12
        if not cfg.future2:
            return cfg.future
        if len(pile) == 1:  # the top is the last card: reaching it wins
            return cfg.future + cfg.future2
        h, left = rest
        cut = [st[:k] for st, k in zip(stacks, left, strict=True)]
        mask = 1 << 12
        for n in after:
            mask |= _reach_set(n, h, cut)
        return cfg.future + cfg.future2 * sum(p for r, p in shares if mask >> r & 1)

    def _result_score(self, winner: int | None, me: int) -> float:
        if winner == me:
            return self.config.win
        if winner is None:
            return 0.0
        return -self.config.win


def _swap_discard(state: GameState, done: Move, other: Move) -> GameState:
    """``state`` (after plain discard ``done`` and the opponent's reply) as if the
    discard had been ``other``: the same refill and reply, another card on another
    side stack (a copy; ``state`` itself when ``other`` is ``done``)."""
    if other == done:
        return state
    seat, card = done.seat, other.hand_card
    assert card is not None
    out = state.copy()
    hand = out.hands[seat]
    hand.append(out.sides[seat][done.slot].pop())
    hand.remove(card)
    out.sides[seat][other.slot].append(card)
    return out


def _is_discard(plan: tuple[Move, ...]) -> bool:
    """Is ``plan`` a single discard (a hand card to a side stack)?"""
    return len(plan) == 1 and plan[0].source == HAND and plan[0].target == SIDE


def plan_turn(state: GameState, seat: int, weights: Weights, rng: random.Random, decisions: int = 6) -> None:
    """Finish ``seat``'s turn in a world with the planner's search (``weights``), planning
    again after each chance event; after ``decisions`` plans, :func:`greedy_turn`."""
    for _ in range(decisions):
        if state.result is not None or state.turn != seat:
            return
        v = view_of(state, seat)
        _, plan = search_view(_Search(v, weights, rng), v)
        if not plan:
            break
        for m in plan:
            state.apply(m)
            if state.result is not None or state.turn != seat or m.source == PAYOFF:
                break
    greedy_turn(state, seat)


def _chain(state: GameState, seat: int, target: int) -> list[Move] | None:
    """Center plays that lift some center to ``target`` cards from ``seat``'s side
    tops and hand (side tops first, natural cards before Kings: as the planner's
    reach test), or None.  The moves are legal in ``state`` one after another."""
    hand = state.hands[seat]
    sides = state.sides[seat]
    best: list[Move] | None = None
    firsts = {c % 13 for c in hand}  # the ranks a first step can use (a King: any)
    firsts.update(st[-1] % 13 for st in sides if st)
    for i, cen in enumerate(state.center):
        cur = len(cen)
        if cur != target and cur not in firsts and 12 not in firsts:
            continue  # not even the first step
        used_hand: list[int] = []
        left = [len(st) for st in sides]
        moves: list[Move] = []
        while cur != target and len(moves) < 12:
            move = None
            for k, st in enumerate(sides):
                if left[k] and st[left[k] - 1] % 13 == cur:
                    left[k] -= 1
                    move = Move(seat, SIDE, k, CENTER, i)
                    break
            if move is None:
                for c in hand:
                    if c % 13 == cur and c not in used_hand:
                        used_hand.append(c)
                        move = Move(seat, HAND, c, CENTER, i)
                        break
            if move is None:
                for k, st in enumerate(sides):
                    if left[k] and st[left[k] - 1] % 13 == 12:
                        left[k] -= 1
                        move = Move(seat, SIDE, k, CENTER, i)
                        break
            if move is None:
                for c in hand:
                    if c % 13 == 12 and c not in used_hand:
                        used_hand.append(c)
                        move = Move(seat, HAND, c, CENTER, i)
                        break
            if move is None:
                break
            moves.append(move)
            cur = (cur + 1) % 12
        if cur == target and (best is None or len(moves) < len(best)):
            best = moves
    return best


def _dump_one(state: GameState, seat: int, avoid: int = -1) -> bool:
    """Play one side top or hand card (not a King) that fits a center, as ``easy`` does
    (never one that leaves a center needing rank ``avoid``)."""
    lens = [len(c) for c in state.center]
    for s, st in enumerate(state.sides[seat]):
        if st and st[-1] % 13 != 12:
            r = st[-1] % 13
            for i, n in enumerate(lens):
                if n == r and (r + 1) % 12 != avoid:
                    state.apply(Move(seat, SIDE, s, CENTER, i))
                    return True
    for c in state.hands[seat]:
        r = c % 13
        if r != 12:
            for i, n in enumerate(lens):
                if n == r and (r + 1) % 12 != avoid:
                    state.apply(Move(seat, HAND, c, CENTER, i))
                    return True
    return False


def _other_top(state: GameState, seat: int) -> int:
    """The rank of the other seat's pay-off top (-1: none, or a King, which fits anywhere)."""
    pile = state.payoff[1 - seat]
    r = pile[-1] % 13 if pile else -1
    return -1 if r == 12 else r


def _block(state: GameState, seat: int, top: int) -> bool:
    """Cover a center that takes the other seat's pay-off top (rank ``top``): play a
    card on it (side tops before hand cards, natural cards before Kings)."""
    if top < 0:
        return False
    for i, cen in enumerate(state.center):
        if len(cen) != top:
            continue
        for king in (False, True):
            want = 12 if king else top
            for s, st in enumerate(state.sides[seat]):
                if st and st[-1] % 13 == want:
                    state.apply(Move(seat, SIDE, s, CENTER, i))
                    return True
            for c in state.hands[seat]:
                if c % 13 == want:
                    state.apply(Move(seat, HAND, c, CENTER, i))
                    return True
    return False


def greedy_turn(state: GameState, seat: int, dump: bool = True, limit: int = 60, guard: bool = False) -> None:
    """Finish ``seat``'s turn in a world, fast: chase the pay-off pile (the shortest
    chain of side tops and hand cards to a center that takes its top, then the
    top), and when that is done, discard a low non-King card, like ``easy``.
    With ``guard`` it also covers a center that takes the other seat's pay-off top
    and plays no card that leaves one taking it (a racer that blocks)."""
    for _ in range(limit):
        if state.result is not None or state.turn != seat:
            return
        pile = state.payoff[seat]
        top = pile[-1] % 13
        moves: list[Move] | None = None
        if top == 12:
            moves = []
            slot = 0
        else:
            moves = _chain(state, seat, top)
            slot = moves[-1].slot if moves else -1
            if moves is not None and not moves:
                slot = next(i for i, c in enumerate(state.center) if len(c) == top)
        if moves is None:
            avoid = _other_top(state, seat) if guard else -1
            if guard and _block(state, seat, avoid):
                continue
            if not dump or not _dump_one(state, seat, avoid):
                break
            continue
        for m in moves:
            state.apply(m)
            if state.result is not None:
                return
        if state.turn != seat:
            return
        state.apply(Move(seat, PAYOFF, None, CENTER, slot))
    if state.result is None and state.turn == seat:
        state.apply(_discard(state, seat))


def _discard(state: GameState, seat: int) -> Move:
    """``easy``'s discard: the highest non-King card, on a stack whose top is the same rank
    or one above (a descending run), else an empty stack, else anywhere."""
    best: tuple[tuple[int, int, int], Move] | None = None
    for c in state.hands[seat]:
        r = c % 13
        for s, st in enumerate(state.sides[seat]):
            fit = 1 if not st else 0 if st[-1] % 13 in (r, r + 1) else 2
            key = (r == 12, fit, -r)
            if best is None or key < best[0]:
                best = (key, Move(seat, HAND, c, SIDE, s))
    assert best is not None
    return best[1]


def turn_end_rule(view: PlayerView) -> tuple[int, ...]:
    """At the start of our turn: the centers' lengths (each once), which are as the
    opponent's last turn left them.  A racer plays its pay-off top whenever it can,
    so the cards it kept could not climb from any of them to that top (the same
    top: only it can change it).  Empty when nothing can be told: no turn of the
    opponent yet in this game, its top a King, or a top its side stacks alone
    reach (it did not race, so the rule does not hold for it)."""
    opp = view.opponent
    top = view.payoff_tops[opp]
    if view.ply == 0 or top is None or top % 13 == 12:
        return ()
    stacks = [tuple(c % 13 for c in st) for st in view.sides[opp]]
    starts = [len(c) for c in view.center]
    if could_race([0] * 13, top % 13, starts, stacks):
        return ()
    return tuple(sorted(set(starts)))


def sample_world(view: PlayerView, rng: random.Random, avoid: tuple[int, ...] = ()) -> GameState | None:
    """A full game state consistent with ``view``: the hidden cards dealt at random.

    Uses the view only: the unseen cards are the 104 minus the hand, every side
    stack, the centers and both pay-off tops; they fill the opponent's hand,
    the stock and both pay-off piles under their tops, in the view's counts.
    With ``avoid`` (:func:`turn_end_rule`) the opponent's hand is one that could
    not climb from those centers to its pay-off top (drawn again, at most
    ``KEPT_TRIES`` times).  None if the counts do not add up (never for a view
    of a real game).
    """
    opp = 1 - view.seat
    seen = set(visible_cards(view))
    pool = [c for c in range(104) if c not in seen]
    under = [max(n - 1, 0) for n in view.payoff_counts]
    if len(pool) != view.hand_counts[opp] + under[0] + under[1] + view.stock_count:
        return None
    rng.shuffle(pool)
    top = view.payoff_tops[opp]
    if avoid and top is not None and view.hand_counts[opp]:
        lo = under[0] + under[1]
        hi = lo + view.hand_counts[opp]
        stacks = [tuple(c % 13 for c in st) for st in view.sides[opp]]
        for _ in range(KEPT_TRIES - 1):
            hand = [0] * 13
            for c in pool[lo:hi]:
                hand[c % 13] += 1
            if not could_race(hand, top % 13, avoid, stacks):
                break
            rng.shuffle(pool)
    # (completions reshuffle with a stream of the world's own)
    return world_from_view(view, pool, Stream(rng.randbytes(32), 1))
