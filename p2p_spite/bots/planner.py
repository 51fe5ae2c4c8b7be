"""The planning levels, ``medium`` and ``hard``: they search whole turns.

A turn is a run of center plays ended by one discard.  Everything a turn can
do is known in advance from the seat's view, except two things: a new pay-off
top appears when the pay-off card is played, and five new cards arrive when
the hand empties.  The planner therefore searches every sequence of center
plays (pay-off, side tops, hand, Kings as wild cards) up to those two chance
events, scores each way of ending the turn (each discard, or a refill), and
plays the first move of the best plan.  After a chance event it plans again
from the new view.

The score of a plan, in "pay-off cards" of 100 points (see :class:`Weights`):

* +100 for each pay-off card it plays (a win outweighs everything);
* a little for each card it plays from hand or side stacks, and a bonus for
  emptying the hand (five fresh cards, and the turn goes on);
* the worth of what it keeps: Kings and useful cards in hand, side stacks in
  descending runs (bottom to top, so they play out upward), few buried cards;
* ``hard`` only: minus ``threat`` times the chance that the opponent can play
  its pay-off top on its next turn, given the center stacks the plan leaves.
  That chance is estimated from what is face up (the opponent's pay-off top
  and side stacks) and from hands sampled from the cards this seat cannot see
  (never the real hidden cards: the planner only ever holds a
  :class:`PlayerView`), and scaled by how often the opponent has actually
  taken such chances in this bot's earlier views;
* ``hard`` only: after a pay-off play, the chance that the next (unknown) top
  is reachable with what is left; and, when it leads, a dislike of draws.

``medium`` runs the same search without looking at the opponent and with a
plainer discard rule.  docs/bots.md has the measurements behind the weights.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import CENTER, HAND, PAYOFF, SIDE, Move, PlayerView

Card = int

_STACK_FULL = 12

# A position of the search: (hand ranks ascending, cards played off each side
# stack, center sizes, pay-off top's rank or -1, imagined top?, stock count).
_Key = tuple[tuple[int, ...], tuple[int, int, int, int], tuple[int, int, int], int, bool, int]
# A plan's first step from a position: (kind, what, center or side stack, the
# position it leads to, if the plan goes on from there).  _END: discard rank
# ``what`` to side stack ``slot`` (-1: none); _PAYOFF: the pay-off top to center
# ``slot``; _SIDE: side stack ``what``'s top; _HAND: a hand card of rank ``what``.
_Step = tuple[int, int, int, "_Key | None"]
_END, _PAYOFF, _SIDE, _HAND = range(4)


@dataclass(frozen=True, slots=True)
class Weights:
    """The knobs of the planner (tuned with scripts/bench_bots)."""

    payoff: float = 100.0
    win: float = 1_000_000.0
    threat: float = 60.0  # times P(opponent plays its pay-off top next turn)
    refill: float = 40.0  # emptying the hand: five more cards this turn
    king: float = 14.0  # a King kept in hand
    hand_play: float = 4.0  # each hand card played to a center (one more fresh card next turn)
    side_play: float = 4.0  # each side-stack card played to a center (uncovers the next)
    near: float = 3.0  # a hand card close to what a center needs
    run: float = 4.0  # discard continues a descending run (rank one below the top)
    pair: float = 2.0  # discard on a card of the same rank
    empty: float = -1.5  # discard opens an empty side stack
    bury: float = -4.0  # discard breaks a run (buries the top under a card needed later)
    bury_king: float = -12.0  # discard covers a King
    depth: float = -0.3  # per card already in the stack a discard lands on
    scarce: float = 3.0  # when ahead: per card the stock is short of ``scarce_at`` (a draw looms)
    scarce_at: int = 20
    draw: float = 200.0  # a drawn game, when clearly ahead (its opposite when behind)
    prospect: float = 0.0  # a center one below the pay-off top (halved per further rank)
    last_threat: float = 1.0  # threat multiplier when the opponent has one pay-off card left
    watch_opponent: bool = True  # scale the threat by how often the opponent took sure chances
    watch_prior: float = 2.0  # ... starting from this many imagined chances, all taken
    watch_par: float = 1.0  # the ratio a careful opponent shows (our estimate is pessimistic)
    samples: int = 40  # sampled opponent hands for the threat estimate
    node_limit: int = 2500  # search states per decision, a safety net for the time budget
    look_at_opponent: bool = True
    # After a pay-off play, what the unknown new top is worth: 0 nothing; 1 the
    # chance that the cards left can reach it (cheap); 2 a search for each rank.
    reveal: int = 1
    reveal_bonus: float = 0.8  # mode 1: times ``payoff`` per reachable new top


HARD = Weights()
MEDIUM = Weights(
    threat=0.0,
    samples=0,
    look_at_opponent=False,
    watch_opponent=False,
    reveal=0,
    run=2.0,
    pair=1.0,
    bury=-2.0,
)


class _Search:
    """One decision: the search over the turn's plans from one view."""

    def __init__(
        self,
        view: PlayerView,
        w: Weights,
        rng: random.Random,
        skill: float = 1.0,
        avoid: tuple[int, ...] = (),
    ) -> None:
        self.w = w
        self.seat = seat = view.seat
        self.opp = opp = 1 - seat
        self.stacks: tuple[tuple[Card, ...], ...] = view.sides[seat]
        self.payoff_count = view.payoff_counts[seat]
        self.opp_refill = 5 - view.hand_counts[opp]
        self.ranks = tuple(tuple(c % 13 for c in st) for st in self.stacks)
        self.memo: dict[_Key, float] = {}  # the value of each position searched ...
        self.steps: dict[_Key, _Step] = {}  # ... and its best plan's first step
        self.columns: dict[tuple[int, int, int, int], tuple[list[float], list[int]]] = {}
        self.nodes = 0
        self.threat_cache: dict[tuple[int, int, int], float] = {}
        self.masks: list[int] = []
        # end_turn's parts by rank, shared by every search with these weights
        self.worth_cache, self.discard_cache, self.column_cache = _end_caches(w)
        self.opp_top = view.payoff_tops[opp]
        # How much better than a draw this game looks: +1 well ahead, -1 well behind.
        ahead = view.payoff_counts[opp] - view.payoff_counts[seat]
        self.ahead = max(-1.0, min(1.0, ahead / 4))
        # The opponent's last pay-off card would end the game: weigh it more.
        self.threat_w = w.threat * skill * (w.last_threat if view.payoff_counts[opp] == 1 else 1.0)
        self.reveal: list[tuple[int, float]] = []
        if w.reveal:
            self.reveal = rank_shares(view)
        if w.look_at_opponent and w.threat > 0 and self.opp_top is not None:
            self.masks = _opponent_masks(view, w.samples, rng, avoid)

    # -- the opponent --------------------------------------------------------

    def threat(self, centers: tuple[int, int, int]) -> float:
        """P(the opponent can play its pay-off top next turn) with these centers."""
        if not self.masks:
            return 0.0
        got = self.threat_cache.get(centers)
        if got is None:
            bits = (1 << centers[0]) | (1 << centers[1]) | (1 << centers[2])
            got = sum(1 for m in self.masks if m & bits) / len(self.masks)
            self.threat_cache[centers] = got
        return got

    # -- leaves --------------------------------------------------------------

    def card_worth(self, card: Card, centers: tuple[int, int, int]) -> float:
        """What keeping ``card`` in hand is worth: Kings, and cards a center will need soon."""
        r = card % 13
        if r == 12:
            return self.w.king
        d = min((r - centers[0]) % 12, (r - centers[1]) % 12, (r - centers[2]) % 12)
        return self.w.near * (3 - d) / 3 if d < 3 else 0.0

    def discard_worth(self, card: Card, stack: tuple[Card, ...], d: int) -> float:
        """What putting ``card`` on a side stack (with ``d`` cards played off it) is worth."""
        w = self.w
        n = len(stack) - d
        if n == 0:
            return w.empty
        top = stack[n - 1] % 13
        r = card % 13
        v = w.depth * n
        if top == 12:
            return v + w.bury_king
        if r == top - 1:
            return v + w.run
        if r == top:
            return v + w.pair
        if r > top:
            return v + w.bury
        return v + w.bury * 0.5

    def end_turn(
        self,
        hand: tuple[int, ...],
        depth: tuple[int, int, int, int],
        centers: tuple[int, int, int],
        stock: int,
        out: list[tuple[float, int, int]] | None = None,
    ) -> tuple[float, int, int]:
        """The best discard from here (``hand``: ranks, ascending): its value, the
        rank discarded and the side stack (-1, -1 if there is none); with ``out``,
        every discard tried goes to it as (value, rank, stack)."""
        base = -self.threat_w * self.threat(centers)
        if stock < self.w.scarce_at:
            base -= self.w.scarce * self.ahead * (self.w.scarce_at - stock)
        by_rank = self.worth_cache.get(centers)
        if by_rank is None:
            by_rank = self.worth_cache[centers] = [self.card_worth(r, centers) for r in range(13)]
        total = sum([by_rank[r] for r in hand])
        best = -1e18
        best_rank = best_slot = -1
        if out is None:
            # the best stack for each rank, and what a discard there is worth
            cols = self.columns.get(depth)
            if cols is None:
                cols = self.columns[depth] = self._columns(depth)
            adds, slots = cols
            prev = -1
            for r in hand:
                if r == prev:
                    continue
                prev = r
                v = (total - by_rank[r]) + adds[r]
                if v > best:
                    best, best_rank = v, r
            if best_rank >= 0:
                best_slot = slots[best_rank]
        else:
            targets = self._targets(depth)
            prev = -1
            for r in hand:
                if r == prev:
                    continue
                prev = r
                keep = total - by_rank[r]
                for s, row in targets:
                    v = keep + row[r]
                    out.append((v, r, s))
                    if v > best:
                        best, best_rank, best_slot = v, r, s
        if stock < self.opp_refill:
            # The opponent's refill will find the stock empty: a draw.
            if out is not None:
                out[:] = [(self.draw_value(), r, s) for _, r, s in out]
            return self.draw_value(), best_rank, best_slot
        if out is not None:
            out[:] = [(base + v, r, s) for v, r, s in out]
        return base + best, best_rank, best_slot

    def _targets(self, depth: tuple[int, int, int, int]) -> list[tuple[int, list[float]]]:
        """The stacks a discard can land on (each nonempty one, and one empty one),
        each with what a discard there is worth by rank."""
        stacks = self.stacks
        targets: list[tuple[int, list[float]]] = []
        empty_done = False
        for s in range(4):
            d = depth[s]
            if len(stacks[s]) == d:
                if empty_done:
                    continue
                empty_done = True
            n = len(stacks[s]) - d
            under = (n, stacks[s][n - 1] % 13 if n else -1)
            row = self.discard_cache.get(under)
            if row is None:
                row = self.discard_cache[under] = [self.discard_worth(r, stacks[s], d) for r in range(13)]
            targets.append((s, row))
        return targets

    def _columns(self, depth: tuple[int, int, int, int]) -> tuple[list[float], list[int]]:
        """For each rank: the most a discard of it is worth (over :meth:`_targets`)
        and the first stack where it is (shared by every search with these weights
        whose side stacks leave the same sizes and top ranks)."""
        unders = tuple(
            (len(st) - d, st[len(st) - d - 1] if len(st) > d else -1)
            for st, d in zip(self.ranks, depth, strict=True)
        )
        got = self.column_cache.get(unders)
        if got is None:
            targets = self._targets(depth)
            slots = [s for s, _ in targets]
            if len(targets) == 1:
                got = targets[0][1], slots * 13
            else:
                cols = list(zip(*(row for _, row in targets), strict=True))
                adds = [max(col) for col in cols]
                got = adds, [slots[col.index(m)] for col, m in zip(cols, adds, strict=True)]
            if len(self.column_cache) >= _COLUMNS_KEPT:
                self.column_cache.clear()
            self.column_cache[unders] = got
        return got

    def draw_value(self) -> float:
        return -self.w.draw * self.ahead

    # -- the search ----------------------------------------------------------

    def search(self, key: _Key, out: list[tuple[float, _Step]] | None = None) -> float:
        """The value of the best plan from the position ``key``; the plan's first
        step goes to ``self.steps`` under the key (:meth:`plan` follows them).

        A key is (hand, depth, centers, top, hypo, stock): ``hand`` the hand's
        ranks (0 = Ace, 12 = King), ascending; ``depth`` the cards played off each
        side stack; ``centers`` the center sizes; ``top`` the pay-off top's rank,
        or -1 when it is unknown (just revealed) or gone; ``hypo`` marks a top the
        search imagines after playing the real one, whose count is one less;
        ``stock`` the stock's count.  With ``out`` (the root call only), every
        option considered here is added to it as (value, first step): the best
        plan through each first move and each discard.  A position already
        searched is not searched again: callers look in ``self.memo`` first.
        """
        hand, depth, centers, top, hypo, stock = key
        self.nodes += 1
        w = self.w
        memo = self.memo
        value, rank, slot = self.end_turn(hand, depth, centers, stock)
        if out is not None:
            discards: list[tuple[float, int, int]] = []
            self.end_turn(hand, depth, centers, stock, discards)
            out.extend((v, (_END, r, s, None)) for v, r, s in discards)
        if 0 <= top < 12 and w.prospect:
            # Leave a center close below the pay-off card: next turn may bridge it.
            gap = min((top - centers[0]) % 12, (top - centers[1]) % 12, (top - centers[2]) % 12)
            value += w.prospect * 0.5**gap
        best = value
        step: _Step = (_END, rank, slot, None)
        if self.nodes <= w.node_limit:
            c0, c1, c2 = centers
            child: _Key | None
            # Pay-off first: on equal values the plan plays it as soon as it can.
            if top >= 0:
                for i in range(3):
                    n = centers[i]
                    if (i and n == c0) or (i == 2 and n == c1) or (top != 12 and top != n):  # fits(top, n)
                        continue
                    if self.payoff_count - hypo == 1:
                        best, step = w.win, (_PAYOFF, 0, i, None)
                        if out is not None:
                            out.append((best, step))
                        break
                    cen, st = _play(centers, i, stock)
                    if hypo or not self.reveal:
                        child = (hand, depth, cen, -1, hypo, st)
                        v = memo.get(child)
                        if v is None:
                            v = self.search(child)
                        v += w.payoff
                    else:
                        child = None
                        v = self.expect_reveal(hand, depth, cen, st) + w.payoff
                    if out is not None:
                        out.append((v, (_PAYOFF, 0, i, child)))
                    if v > best:
                        best, step = v, (_PAYOFF, 0, i, child)
            stacks = self.ranks
            for s in range(4):
                left = len(stacks[s]) - depth[s]
                if left == 0:
                    continue
                r = stacks[s][left - 1]
                if r != 12 and r != c0 and r != c1 and r != c2:  # fits no center
                    continue
                for i in range(3):
                    n = centers[i]
                    if (i and n == c0) or (i == 2 and n == c1) or (r != 12 and r != n):  # fits(card, n)
                        continue
                    cen, st = _play(centers, i, stock)
                    child = (hand, _bump(depth, s), cen, top, hypo, st)
                    v = memo.get(child)
                    if v is None:
                        v = self.search(child)
                    v += w.side_play
                    if out is not None:
                        out.append((v, (_SIDE, s, i, child)))
                    if v > best:
                        best, step = v, (_SIDE, s, i, child)
            prev = -1
            for j, r in enumerate(hand):
                if r == prev:
                    continue
                prev = r
                if r != 12 and r != c0 and r != c1 and r != c2:  # fits no center
                    continue
                rest = hand[:j] + hand[j + 1 :]
                for i in range(3):
                    n = centers[i]
                    if (i and n == c0) or (i == 2 and n == c1) or (r != 12 and r != n):  # fits(c, n)
                        continue
                    cen, st = _play(centers, i, stock)
                    if rest:
                        child = (rest, depth, cen, top, hypo, st)
                        v = memo.get(child)
                        if v is None:
                            v = self.search(child)
                        v += w.hand_play
                    else:
                        child = None
                        v = self.refill_value(depth, cen, st) + w.hand_play
                    if out is not None:
                        out.append((v, (_HAND, r, i, child)))
                    if v > best:
                        best, step = v, (_HAND, r, i, child)
        memo[key] = best
        self.steps[key] = step
        return best

    def plan(self, step: _Step, hand: list[Card]) -> tuple[Move, ...]:
        """The moves of the plan that starts with ``step`` from a hand of these
        cards (ascending by rank): each step of the search, as a move (a hand card
        of a rank is the first one of it the hand still holds)."""
        seat = self.seat
        hand = list(hand)
        moves: list[Move] = []
        while True:
            kind, a, i, child = step
            if kind == _END:
                if i >= 0:
                    moves.append(Move(seat, HAND, next(c for c in hand if c % 13 == a), SIDE, i))
                return tuple(moves)
            if kind == _PAYOFF:
                moves.append(Move(seat, PAYOFF, None, CENTER, i))
            elif kind == _SIDE:
                moves.append(Move(seat, SIDE, a, CENTER, i))
            else:
                card = next(c for c in hand if c % 13 == a)
                hand.remove(card)
                moves.append(Move(seat, HAND, card, CENTER, i))
            if child is None:
                return tuple(moves)
            step = self.steps[child]

    def expect_reveal(
        self,
        hand: tuple[int, ...],
        depth: tuple[int, int, int, int],
        centers: tuple[int, int, int],
        stock: int,
    ) -> float:
        """The pay-off card went down and a new top turns up: the expected value
        of going on, over the ranks of the cards this seat cannot see.  A rank
        that no chain of its cards can reach is worth what an unknown top is."""
        key: _Key = (hand, depth, centers, -1, True, stock)
        unknown = self.memo.get(key)
        if unknown is None:
            unknown = self.search(key)
        counts = [0] * 13
        for r in hand:
            counts[r] += 1
        stacks = [st[: len(st) - d] for st, d in zip(self.ranks, depth, strict=True)]
        total = 0.0
        full = self.w.reveal >= 2
        bonus = self.w.reveal_bonus * self.w.payoff
        reach = _reach_set(centers[0], counts, stacks) | _reach_set(centers[1], counts, stacks)
        reach |= _reach_set(centers[2], counts, stacks)  # (bit r: what _can_reach says of rank r)
        for r, p in self.reveal:
            if r == 12 or reach >> r & 1:
                if full:
                    key = (hand, depth, centers, r, True, stock)
                    v = self.memo.get(key)
                    total += p * (self.search(key) if v is None else v)
                else:
                    total += p * (unknown + bonus)
            else:
                total += p * unknown
        return total

    def refill_value(
        self, depth: tuple[int, int, int, int], centers: tuple[int, int, int], stock: int
    ) -> float:
        """The hand is empty: five unknown cards arrive and the turn goes on."""
        if stock < 5:
            return self.draw_value()
        # The turn still has to end with a discard, usually leaving things much
        # as they are now; count half the threat of the present centers.
        v = self.w.refill - 0.5 * self.threat_w * self.threat(centers)
        if stock - 5 < self.w.scarce_at:
            v -= self.w.scarce * self.ahead * (self.w.scarce_at - stock + 5)
        return v


_Unders = tuple[tuple[int, int], ...]  # each side stack's size and top rank (-1: empty)
_EndCaches = tuple[
    dict[tuple[int, int, int], list[float]],
    dict[tuple[int, int], list[float]],
    dict[_Unders, tuple[list[float], list[int]]],
]
_COLUMNS_KEPT = 20_000  # the column cache is cleared when it holds this many side stack layouts
_END_CACHES: dict[Weights, _EndCaches] = {}


def _end_caches(w: Weights) -> _EndCaches:
    """The caches of ``end_turn``'s parts for weights ``w``: what keeping each rank
    in hand is worth, by centers (:meth:`_Search.card_worth`), and what discarding
    each rank is worth, by (cards in the stack, its top's rank or -1)
    (:meth:`_Search.discard_worth`), and the best of the latter over the stacks a
    discard can land on, by the side stacks' sizes and tops
    (:meth:`_Search._columns`).  They depend on the weights alone, so every search
    with the same weights shares them (bounded: 12**3 centers, a stack's few
    sizes, ``_COLUMNS_KEPT`` layouts; a handful of weights in a process)."""
    got = _END_CACHES.get(w)
    if got is None:
        if len(_END_CACHES) >= 32:
            _END_CACHES.clear()
        got = _END_CACHES[w] = ({}, {}, {})
    return got


def search_view(
    search: _Search, view: PlayerView, out: list[tuple[float, tuple[Move, ...]]] | None = None
) -> tuple[float, tuple[Move, ...]]:
    """The best plan (and its value) for the seat to move, from the root of ``view``
    (with ``out``: every option of the root, as (value, plan), in the search's order)."""
    hand = sorted(view.hand, key=lambda c: (c % 13, c))  # by rank: the memo key relies on it
    ranks = tuple([c % 13 for c in hand])
    centers = (len(view.center[0]), len(view.center[1]), len(view.center[2]))
    t = view.payoff_tops[view.seat]
    top = -1 if t is None else t % 13
    options: list[tuple[float, _Step]] | None = None if out is None else []
    key: _Key = (ranks, (0, 0, 0, 0), centers, top, False, view.stock_count)
    value = search.search(key, options)
    if out is not None and options is not None:
        out.extend((v, search.plan(step, hand)) for v, step in options)
    return value, search.plan(search.steps[key], hand)


def _bump(depth: tuple[int, int, int, int], s: int) -> tuple[int, int, int, int]:
    a, b, c, d = depth
    if s == 0:
        return (a + 1, b, c, d)
    if s == 1:
        return (a, b + 1, c, d)
    if s == 2:
        return (a, b, c + 1, d)
    return (a, b, c, d + 1)


def _play(centers: tuple[int, int, int], i: int, stock: int) -> tuple[tuple[int, int, int], int]:
    n = centers[i] + 1
    if n == _STACK_FULL:
        n = 0
        stock += _STACK_FULL
    if i == 0:
        return (n, centers[1], centers[2]), stock
    if i == 1:
        return (centers[0], n, centers[2]), stock
    return (centers[0], centers[1], n), stock


def visible_cards(view: PlayerView) -> list[Card]:
    """Every card the view shows: the seat's hand, every side stack, the center
    stacks and both pay-off tops."""
    seen: list[Card] = list(view.hand)
    for sd in view.sides:
        for st in sd:
            seen.extend(st)
    for cen in view.center:
        seen.extend(cen)
    for t in view.payoff_tops:
        if t is not None:
            seen.append(t)
    return seen


def unseen_counts(view: PlayerView) -> list[int]:
    """How many cards of each rank (0..12) this seat cannot see.

    Computed from the view alone: the full deck minus :func:`visible_cards`.
    """
    counts = [8] * 13
    for c in visible_cards(view):
        counts[c % 13] -= 1
    return [max(k, 0) for k in counts]


def rank_shares(view: PlayerView) -> list[tuple[int, float]]:
    """The ranks of the cards ``view``'s seat cannot see, each with its share of them."""
    counts = unseen_counts(view)
    size = sum(counts)
    return [(r, k / size) for r, k in enumerate(counts) if k]


def unseen_ranks(view: PlayerView) -> list[int]:
    """The ranks (0..12) of the cards this seat cannot see, one entry per card
    (:func:`unseen_counts`, spelled out)."""
    out: list[int] = []
    for r, k in enumerate(unseen_counts(view)):
        out.extend([r] * k)
    return out


def _opponent_masks(
    view: PlayerView, samples: int, rng: random.Random, avoid: tuple[int, ...] = ()
) -> list[int]:
    """For sampled opponent hands: bit n set if, from a center holding n cards,
    the opponent could climb to its pay-off top and play it.

    ``avoid`` (the centers' lengths when the opponent's last turn ended; empty:
    nothing known) is what a racer's kept cards tell: it would have played its
    pay-off top if it could, so the cards it kept (``hand_counts``) cannot climb
    to it from those centers (:func:`kept_hand`); the cards it draws to five are
    any of the unseen."""
    opp = 1 - view.seat
    top = view.payoff_tops[opp]
    assert top is not None
    target = top % 13  # center length it needs (0..11); 12 = a King, fits anywhere
    if target == 12:
        return [(1 << 12) - 1]
    pool = unseen_ranks(view)
    stacks = tuple(tuple(c % 13 for c in st) for st in view.sides[opp])
    k = min(5, len(pool))
    masks: list[int] = []
    kept = min(view.hand_counts[opp], k)
    for _ in range(samples):
        hand = [0] * 13
        if avoid and kept:
            picked = kept_hand(pool, kept, target, avoid, stacks, rng)
            rest = pool[:]
            for r in picked:
                rest.remove(r)
            picked += rng.sample(rest, k - kept)
        else:
            picked = rng.sample(pool, k)
        for r in picked:
            hand[r] += 1
        masks.append(_reach_mask(target, stacks, tuple(hand)))
    return masks


KEPT_TRIES = 20  # draws of a racer's kept cards before one that breaks the rule is taken


def could_race(
    hand: list[int], target: int, starts: Sequence[int], stacks: Sequence[tuple[int, ...]]
) -> bool:
    """Could these hand counts (by rank) and side stacks (ranks) climb a center from
    any of the lengths ``starts`` to ``target`` cards (the greedy climb of
    :func:`_can_reach`)?  A racer that ended its turn without its pay-off top
    kept no such hand."""
    return any(_can_reach(n, target, hand, stacks) for n in starts)


def kept_hand(
    pool: list[int],
    kept: int,
    target: int,
    avoid: tuple[int, ...],
    stacks: tuple[tuple[int, ...], ...],
    rng: random.Random,
) -> list[int]:
    """``kept`` ranks drawn from ``pool`` that cannot lift a center from any length
    in ``avoid`` to ``target`` cards with side stacks ``stacks``
    (:func:`could_race`): the cards a racer kept at the end of a turn in which it
    could not play its pay-off top.  Rejection sampling, at most ``KEPT_TRIES``
    draws (then the last one)."""
    picked: list[int] = []
    for _ in range(KEPT_TRIES):
        picked = rng.sample(pool, kept)
        hand = [0] * 13
        for r in picked:
            hand[r] += 1
        if not could_race(hand, target, avoid, stacks):
            break
    return picked


def _reach_mask(target: int, stacks: tuple[tuple[int, ...], ...], hand: tuple[int, ...]) -> int:
    """Bit n set if cards of these rank counts and side stacks (ranks) can lift a
    center from n cards to ``target`` cards (:func:`_can_reach` for each n)."""
    counts = list(hand)
    tops = {st[-1] for st in stacks if st}
    king = counts[12] or 12 in tops
    m = 0
    for n in range(_STACK_FULL):
        # the first step (a card of rank n, or a King) decides most starts at once
        if (n == target or king or counts[n] or n in tops) and _can_reach(n, target, counts, stacks):
            m |= 1 << n
    return m


def _can_reach(n: int, target: int, hand: list[int], stacks: Sequence[tuple[int, ...]]) -> bool:
    """Greedy: can cards from the hand counts and side stacks lift a center from
    ``n`` cards to ``target`` cards?  Side tops first, natural cards before Kings."""
    if n == target:
        return True
    if not hand[n] and not hand[12]:  # the first step already fails (no copy made)
        for st in stacks:
            if st and (st[-1] == n or st[-1] == 12):
                break
        else:
            return False
    h = hand[:]
    left = [len(st) for st in stacks]
    cur = n
    for _ in range(_STACK_FULL):
        need = cur  # the rank index (0 = Ace) a center of cur cards takes
        for s, st in enumerate(stacks):
            if left[s] and st[left[s] - 1] == need:
                left[s] -= 1
                break
        else:
            if h[need]:
                h[need] -= 1
            else:
                for s, st in enumerate(stacks):
                    if left[s] and st[left[s] - 1] == 12:
                        left[s] -= 1
                        break
                else:
                    if h[12]:
                        h[12] -= 1
                    else:
                        return False
        cur = (cur + 1) % _STACK_FULL
        if cur == target:
            return True
    return False


def _climb(
    n: int, target: int, hand: list[int], stacks: Sequence[tuple[int, ...]]
) -> tuple[list[int], list[int]] | None:
    """:func:`_can_reach`'s greedy climb of a center from ``n`` to ``target`` cards:
    the hand counts and side stack lengths it leaves, or None if it fails.

    ``_can_reach`` keeps its own copy of the step (:func:`_take`) inline: it is
    ``hard``'s inner loop, and a call per step made ``hard`` 10-20% slower.  A
    test checks that the two agree."""
    if n != target and not _first_step(n, hand, stacks):
        return None
    h = hand[:]
    left = [len(st) for st in stacks]
    cur = n
    while cur != target:
        if not _take(cur, h, stacks, left):
            return None
        cur = (cur + 1) % 12
    return h, left


def _first_step(n: int, hand: list[int], stacks: Sequence[tuple[int, ...]]) -> bool:
    """Is there a card for a center of ``n`` cards at all (a quick test before a climb)?"""
    if hand[n] or hand[12]:
        return True
    return any(st and (st[-1] == n or st[-1] == 12) for st in stacks)


def _take(need: int, h: list[int], stacks: Sequence[tuple[int, ...]], left: list[int]) -> bool:
    """Take a card for a center of ``need`` cards (side top, hand, side King, hand King)."""
    for s, st in enumerate(stacks):
        if left[s] and st[left[s] - 1] == need:
            left[s] -= 1
            return True
    if h[need]:
        h[need] -= 1
        return True
    for s, st in enumerate(stacks):
        if left[s] and st[left[s] - 1] == 12:
            left[s] -= 1
            return True
    if h[12]:
        h[12] -= 1
        return True
    return False


def _reach_set(n: int, hand: list[int], stacks: Sequence[tuple[int, ...]]) -> int:
    """The ranks (bit r) a center of ``n`` cards can be lifted to for a rank-r card:
    the greedy climb does not depend on where it stops."""
    if not _first_step(n, hand, stacks):
        return 1 << n
    h = hand[:]
    left = [len(st) for st in stacks]
    mask = 1 << n
    cur = n
    for _ in range(11):
        if not _take(cur, h, stacks, left):
            break
        cur = (cur + 1) % 12
        mask |= 1 << cur
    return mask


class PlannerBot:
    """A bot that plans each turn with :class:`_Search` (see the module doc)."""

    name = "planner"

    def __init__(self, seed: int | None = None, weights: Weights = HARD) -> None:
        self._rng = random.Random(seed)
        self.weights = weights
        self._plan: list[Move] = []
        self._expect: tuple[object, ...] | None = None
        self.last_nodes = 0
        # What this bot has seen of the opponent: the chance it had, by our own
        # estimate, to play its pay-off top after each of our turns, and how often
        # it did.  Only from views, as a human watching the table would.
        self._chances = 0.0
        self._takes = 0
        self._left: tuple[int, int, float] | None = None  # (game, opponent's pay-off count, chance)
        # The centers' lengths when the opponent's last turn ended: its kept cards
        # cannot climb from them to its pay-off top (empty: not used; ``expert`` sets
        # it, :func:`_opponent_masks`).
        self._avoid: tuple[int, ...] = ()

    @property
    def opponent_skill(self) -> float:
        """How far to trust that the opponent plays its pay-off card when it can (0..1)."""
        if not self.weights.watch_opponent:
            return 1.0
        prior = self.weights.watch_prior
        ratio = (self._takes + prior) / (self._chances + prior)
        return min(1.0, ratio / self.weights.watch_par)

    def _watch(self, view: PlayerView) -> None:
        """At the start of a turn: did the opponent take the chance we left it?"""
        if self._left is None:
            return
        game, count, chance = self._left
        self._left = None
        if view.game == game:
            self._chances += chance
            if view.payoff_counts[view.opponent] < count:
                self._takes += 1

    def _leave(self, view: PlayerView) -> None:
        """At our discard: estimate the opponent's chance to play its pay-off top."""
        opp = view.opponent
        w = self.weights
        if not (w.watch_opponent and w.look_at_opponent and w.samples > 0) or view.payoff_tops[opp] is None:
            return
        masks = _opponent_masks(view, w.samples, self._rng, self._avoid)
        bits = 0
        for c in view.center:
            bits |= 1 << len(c)
        chance = sum(1 for m in masks if m & bits) / len(masks)
        self._left = (view.game, view.payoff_counts[opp], chance)

    @staticmethod
    def _signature(view: PlayerView) -> tuple[object, ...]:
        return (
            view.game,
            view.ply,
            tuple(sorted(view.hand)),
            tuple(len(c) for c in view.center),
            view.sides[view.seat],
            view.payoff_counts[view.seat],
        )

    def choose(self, view: PlayerView) -> Move:
        legal = view.legal_moves()
        if not legal:
            raise ValueError("choose() called when the view's seat has no move")
        self._watch(view)
        planned = self._plan and self._follows_plan() and self._expect == self._signature(view)
        if planned and self._plan[0] in legal:
            move = self._plan.pop(0)
        else:
            move = self._think(view)
            if move not in legal:  # never happens; a safety net against planner bugs
                move = legal[-1]
        self._expect = self._predict(view, move) if self._plan else None
        if move.target == SIDE:
            self._leave(view)
        return move

    def _follows_plan(self) -> bool:
        """Play the kept plan's next move without thinking again, if the view is as
        predicted (``medium`` and ``hard`` always do; ``expert`` while it has no time)."""
        return True

    def _think(self, view: PlayerView) -> Move:
        search = _Search(view, self.weights, self._rng, self.opponent_skill)
        _, plan = search_view(search, view)
        self.last_nodes = search.nodes
        return self._commit(plan)

    def _commit(self, plan: tuple[Move, ...]) -> Move:
        """Play the first move of ``plan``; keep the rest up to the next chance event."""
        if not plan:
            raise ValueError("no plan: the view has no legal move")
        moves = list(plan)
        first = moves.pop(0)
        # Keep the rest of the plan only up to the next chance event: a pay-off
        # play reveals a new top, so planning starts again after it.
        rest: list[Move] = []
        if first.source != PAYOFF and first.target == CENTER:
            for m in moves:
                rest.append(m)
                if m.source == PAYOFF or m.target == SIDE:
                    break
            if rest and rest[-1].source == PAYOFF:
                rest.pop()
        self._plan = rest
        return first

    def _predict(self, view: PlayerView, move: Move) -> tuple[object, ...] | None:
        """The signature of the view after ``move`` (None if it cannot be known)."""
        if move.target != CENTER or move.source == PAYOFF:
            return None
        me = view.seat
        hand = list(view.hand)
        sides = list(view.sides[me])
        if move.source == HAND:
            assert move.arg is not None
            hand.remove(move.arg)
            if not hand:
                return None
        else:
            assert move.arg is not None
            sides[move.arg] = sides[move.arg][:-1]
        lens = [len(c) for c in view.center]
        lens[move.slot] = (lens[move.slot] + 1) % _STACK_FULL
        return (
            view.game,
            view.ply + 1,
            tuple(sorted(hand)),
            tuple(lens),
            tuple(sides),
            view.payoff_counts[me],
        )


class HardBot(PlannerBot):
    """Plans whole turns and watches what the opponent needs (see the module doc)."""

    name = "hard"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, HARD)


class MediumBot(PlannerBot):
    """Plans whole turns to get pay-off cards down, but ignores the opponent."""

    name = "medium"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed, MEDIUM)
