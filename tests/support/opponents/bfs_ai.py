"""A second independent computer player, for benchmarks only: not a product level.

``bfs`` is a port of the AI of a public Skip-Bo game that races its stock
(our pay-off pile) with a best-first search, run through our engine so that
our levels can be measured against a style of play unlike their own and unlike
``indep`` (tests/support/opponents/independent_ai.py, a depth-4 evaluated search).  It is kept
out of ``p2p_spite.bots.LEVELS``: only ``scripts/bench_bots`` (level name
``bfs``) and the tests use it.

Source of the algorithm
-----------------------
Repository ``ac-he/COS389-SkipBo`` (Anna Heebsh, a Skip-Bo game for a course on
artificial intelligence, spring 2023), commit
``9d7f2a89087b23df1cd58d020d49d6bfc7b10f0a`` (2024-04-10), file
``src/users/PlayerAI.java`` (``takeTurn``, ``breadthFirstSearch``,
``decideOnDiscard``, ``evaluateScoreOn*``), with the rules it searches in from
``src/driver/SkipBoGameModel.java`` (``play``, ``equals``),
``src/users/Player.java`` (``equals``) and ``src/components/GameStateNode.java``
(the queue order).  The repository states no licence, so no code was copied:
this module is a re-implementation written here from a reading of it, step by
step in the source's order, with its constants.

The algorithm (kept)
--------------------
A turn is a loop.  (1) *stock*: a best-first search over the sequences of plays
from hand and discard piles (our side stacks) to the build piles (centers), the
queue ordered by how far the stock top is from fitting any build pile (plus 1
for a step that used a wild card), until a state where the stock top can be
played; the sequence and the stock play are made, and the loop starts again.
(2) *hand0*: else the same search, ordered by the cards left in hand, for a
sequence that empties the hand (which draws five more); the loop starts again.
(3) Else *block*: if the opponent's stock top (not a wild card) fits a build
pile now, the same search, ordered by how far the opponent's stock top is from
fitting, for the first state where it fits no pile (nothing is played if none
does).  (4) *extra*: the same search without wild cards, ordered by cards left
in hand, for the first state from which nothing more can be played that leaves
no pile one below the opponent's stock top (nothing is played if none does).
(5) The discard, by the first rule that applies: a hand card on a discard pile
whose top is the same value; on one whose top is one higher; the most frequent
value in hand (if held twice or more) on an empty pile; the highest card on an
empty pile; on a top two higher; three higher; else the first hand card on the
fourth pile.

The search's states are deduplicated as the source's ``equals`` does, quirks
included: two states are the same when their build pile tops (sorted) are, and
the hand of the one seen first is a prefix of the other's (``Player.equals``
checks the hand one way only, and its loop over the discard piles never runs,
so the discard piles are not compared).  The queue is a port of
``java.util.PriorityQueue`` (a binary heap, the same sift-up and sift-down), so
states of equal value come out in the source's order.  A wild stock top goes
on a build pile picked at random among the distinct tops, as in the source;
that randomness is the bot's own ``random.Random(seed)``.

What was adapted (rules and fairness only)
------------------------------------------
- Cards: our Ace..Queen are the Skip-Bo values 1..12, a King is the Skip-Bo
  card (wild); 3 centers for Skip-Bo's 4 build piles, 4 side stacks for its 4
  discard piles; a center is complete at 12 cards, as a build pile.
- Drawing is the engine's: the hand is refilled at the start of the turn and
  when it empties.  When a block or extra sequence empties the hand (the source
  then ends the turn with no discard, which ours does not allow), the five new
  cards start the loop again, from (1).
- The source's rules code plays a wild card from a discard pile by popping the
  *stock* (``playFromDiscard``); here it leaves the discard pile, by our rules.
  Where a value is compared with a wild top on a discard pile (``getValue()``
  is null there, and the source would throw), the comparison is false.  The
  search sees only the view: its states hold the seat's own hand, side stacks,
  the centers and both pay-off tops, all visible.
- Each plan is made from a view and played move by move; it is made again
  when the next move is no longer legal (a refill changed the hand) or the
  plan is done.  A search stops after ``MAX_STATES`` states (a safety net; no
  turn of a real game has come near it).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move, Pile, PlayerView
from p2p_spite.engine.cards import Card

NAME = "bfs"
KING = 12  # our rank index of the wild card
MAX_STATES = 200_000  # safety net per search (not in the source)


@dataclass(frozen=True, slots=True)
class _State:
    """The searching seat's side of a position during its turn."""

    center: tuple[int, ...]  # center lengths (a build pile's top value; 0 = empty)
    hand: tuple[Card, ...]  # in the view's order (the source's hand slots h0..h4)
    sides: tuple[tuple[Card, ...], ...]


@dataclass(slots=True)
class _Node:  # GameStateNode
    value: int
    state: _State
    steps: list[Move]


class _JavaQueue:
    """``java.util.PriorityQueue`` of nodes by value (``GameStateNode.compareTo``)."""

    def __init__(self) -> None:
        self._q: list[_Node] = []

    def __bool__(self) -> bool:
        return bool(self._q)

    def add(self, x: _Node) -> None:  # offer / siftUp
        q = self._q
        k = len(q)
        q.append(x)
        while k > 0:
            parent = (k - 1) >> 1
            e = q[parent]
            if x.value >= e.value:
                break
            q[k] = e
            k = parent
        q[k] = x

    def remove(self) -> _Node:  # poll / siftDown
        q = self._q
        result = q[0]
        x = q.pop()
        n = len(q)
        if n:
            k = 0
            half = n >> 1
            while k < half:
                child = 2 * k + 1
                c = q[child]
                right = child + 1
                if right < n and c.value > q[right].value:
                    child = right
                    c = q[child]
                if x.value <= c.value:
                    break
                q[k] = c
                k = child
            q[k] = x
        return result


def _value(card: Card) -> int | None:
    """The source's ``Card.getValue()``: 1..12, None for the wild card."""
    r = card % 13
    return None if r == KING else r + 1


def _gap(value: int, top: int) -> int:
    """(stock value - foundation top + 11) % 12, an empty pile's top read as 12."""
    return (value - (top or 12) + 11) % 12


class BfsBot:
    """The ported stock-racing best-first AI (see the module docstring).  It
    decides from its ``PlayerView`` alone; its random choices come from ``seed``."""

    name = NAME

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._plan: list[Move] = []

    def choose(self, view: PlayerView) -> Move:
        if not view.my_turn:
            raise ValueError("bfs: it is not this view's seat's turn")
        if self._plan and _legal(view, self._plan[0]):
            return self._plan.pop(0)
        self._plan = self._turn(view)
        return self._plan.pop(0)

    # -- takeTurn ---------------------------------------------------------------------------------
    def _turn(self, view: PlayerView) -> list[Move]:
        me, op = view.seat, view.opponent
        start = _State(
            tuple(len(c) for c in view.center),
            tuple(view.hand),
            tuple(tuple(st) for st in view.sides[me]),
        )
        top = view.payoff_tops[me]
        assert top is not None  # an empty pay-off pile has ended the game
        op_top = view.payoff_tops[op]
        self._my = _value(top)
        self._op = None if op_top is None else _value(op_top)
        self._op_wild = op_top is not None and _value(op_top) is None
        self._seat = me
        # Second, try playing out of the stock.
        found = self._search(start, "stock")
        if found is not None:
            return found[1]
        # Then, try to completely use up the cards in the hand (never empty here:
        # the engine ends the game in a draw when it cannot refill a hand).
        found = self._search(start, "hand0")
        if found is not None:
            return found[1]
        # Block the other player from playing its stock card, then play what can be played.
        state, steps = self._search(start, "block") or (start, [])
        if not state.hand:
            return steps  # the hand is refilled: the loop starts again
        state, more = self._search(state, "extra") or (state, [])
        steps = steps + more
        if not state.hand:
            return steps
        h, d = _decide_on_discard(state)
        return [*steps, Move(me, HAND, state.hand[h], SIDE, d)]

    # -- breadthFirstSearch -----------------------------------------------------------------------
    def _search(self, start: _State, kind: str) -> tuple[_State, list[Move]] | None:
        """The source's search of type ``kind`` from ``start``: the state it returns
        and the moves to it (for "stock" ending with the stock play), or None where
        the source returns the unchanged game (no goal reached; "block" against a
        wild stock top)."""
        if kind == "block" and self._op_wild:
            return None
        score = self._scorer(kind)
        queue = _JavaQueue()
        queue.add(_Node(self._score_on_stock(start), start, []))  # as the source, for every kind
        seen: dict[tuple[int, ...], set[tuple[int, ...]]] = {}
        expanded = 0
        while queue and expanded < MAX_STATES:
            node = queue.remove()
            cur = node.state
            if kind == "stock":
                slot = self._stock_slot(cur, start)
                if slot is not None:
                    return cur, [*node.steps, Move(self._seat, PAYOFF, None, CENTER, slot)]
            elif kind == "hand0":
                if not cur.hand:
                    return cur, node.steps
            elif kind == "block" and not self._close(cur.center):
                return cur, node.steps
            expanded += 1
            worked = 0
            for source, index, card in _sources(cur):
                wild = card % 13 == KING
                if kind == "extra" and wild:
                    continue
                for i, n in enumerate(cur.center):
                    if not wild and card % 13 != n:
                        continue  # "That card cannot be played on this foundation."
                    worked += 1
                    nxt = _play(cur, source, index, i)
                    key = tuple(sorted(nxt.center))
                    ranks = tuple(c % 13 for c in nxt.hand)
                    known = seen.setdefault(key, set())
                    if any(ranks[:k] in known for k in range(len(ranks) + 1)):
                        continue  # seen before (the source's equals)
                    known.add(ranks)
                    arg = card if source == HAND else index
                    steps = [*node.steps, Move(self._seat, source, arg, CENTER, i)]
                    queue.add(_Node(score(nxt) + wild, nxt, steps))
            if kind == "extra" and not worked and not self._close(cur.center):
                return cur, node.steps
        return None

    def _scorer(self, kind: str) -> Callable[[_State], int]:
        if kind == "stock":
            return self._score_on_stock
        if kind == "block":
            return self._score_on_block
        return lambda s: len(s.hand)

    def _stock_slot(self, cur: _State, start: _State) -> int | None:
        """The build pile the stock top is played on from ``cur``, if any."""
        if self._my is None:  # a wild stock top: a random pile among the distinct tops
            unique: dict[int, int] = {}
            for i, n in enumerate(start.center):
                unique.setdefault(n, i)
            piles = [unique[t] for t in sorted(unique)]
            return piles[self._rng.randrange(len(piles))]
        for i, n in enumerate(cur.center):
            if n + 1 == self._my:
                return i
        return None

    def _score_on_stock(self, s: _State) -> int:
        if self._my is None:
            return 0
        return min([6, *(_gap(self._my, n) for n in s.center)])

    def _score_on_block(self, s: _State) -> int:
        if self._op is None:
            return 12
        return min([6, *(12 - _gap(self._op, n) for n in s.center)])

    def _close(self, center: tuple[int, ...]) -> bool:
        """Does the opponent's stock top (not wild) fit some build pile?"""
        return self._op is not None and any(n + 1 == self._op for n in center)


def _sources(s: _State) -> list[tuple[Pile, int, Card]]:
    """The source's playFrom order: hand slots h0..h4, then discard piles d1..d4."""
    out = [(HAND, k, c) for k, c in enumerate(s.hand)]
    out.extend((SIDE, k, st[-1]) for k, st in enumerate(s.sides) if st)
    return out


def _play(s: _State, source: Pile, index: int, pile: int) -> _State:
    center = list(s.center)
    center[pile] += 1
    if center[pile] == 12:  # afterAddToFoundation: a complete pile is cleared
        center[pile] = 0
    if source == HAND:
        return _State(tuple(center), s.hand[:index] + s.hand[index + 1 :], s.sides)
    sides = list(s.sides)
    sides[index] = sides[index][:-1]
    return _State(tuple(center), s.hand, tuple(sides))


def _decide_on_discard(s: _State) -> tuple[int, int]:
    """decideOnDiscard: (hand slot, side stack)."""
    hand = s.hand
    tops = [_value(st[-1]) if st else None for st in s.sides]  # None: empty or a wild top
    vals = [_value(c) for c in hand]
    # 1: a card equal to a discard top
    for i, v in enumerate(vals):
        if v is not None:
            for d, t in enumerate(tops):
                if t is not None and t == v:
                    return i, d
    # 2: a card one less than a discard top
    for i, v in enumerate(vals):
        if v is not None:
            for d, t in enumerate(tops):
                if t is not None and t == v + 1:
                    return i, d
    empty = next((d for d, st in enumerate(s.sides) if not st), None)
    if empty is not None:
        # 3: the most frequent value in hand, held twice or more, on an empty pile
        counts = [0] * 13
        for v in vals:
            if v is not None:
                counts[v] += 1
        highest = 0
        for c in range(1, 13):
            if counts[c] > counts[highest]:
                highest = c
        if counts[highest] > 1:
            for i, v in enumerate(vals):
                if v is not None and v == highest:
                    return i, empty
        # 4: the highest card on an empty pile (a wild card in slot 0 stays chosen:
        # the source's comparison with it throws and is skipped)
        best = 0
        for i, v in enumerate(vals):
            if v is not None:
                held = vals[best]
                if held is not None and held < v:
                    best = i
        return best, empty
    # 5: a card two, then three, less than a discard top
    for gap in (2, 3):
        for i, v in enumerate(vals):
            if v is not None:
                for d, t in enumerate(tops):
                    if t is not None and t == v + gap:
                        return i, d
    return 0, 3  # "h0d4"


def _legal(view: PlayerView, move: Move) -> bool:
    """Is this planned move still legal in ``view`` (the hand may have been refilled)?"""
    return move in view.legal_moves()


def make(seed: int | None = None) -> BfsBot:
    return BfsBot(seed)
