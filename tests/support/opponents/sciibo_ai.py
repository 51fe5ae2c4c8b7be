"""A fourth independent computer player, for benchmarks only: not a product level.

``sciibo`` is a port of the computer player of sciibo, a public terminal game of
Skip-Bo ("Spite and Malice" in its README) in Python, run through our engine:
a search for the *shortest* sequence of plays that gets its pay-off card down,
else the sequence that plays the *most* cards, else a discard by four rules.
It is kept out of ``p2p_spite.bots.LEVELS``: only ``scripts/bench_bots`` (level
name ``sciibo``) and the tests use it.

Source of the algorithm
-----------------------
Repository ``fdev/sciibo``, commit ``12d82839b27b85566f4466001a833972ea0d84b5``,
files ``sciibo/bot/ai.py`` (the search and the discard), ``sciibo/bot/bot.py``
(how the moves are played) and ``sciibo/core/helpers.py`` (``fitson``,
``nextcard``); MIT licence (``LICENSE.md``, Folkert de Vries, 2017).  No code
was copied: this module is a re-implementation written here from a reading of
it, function by function with the source's names, and ``tests/bots/test_sciibo_ai.py``
checks it on the positions of the source's own tests (``sciibo/tests/test_ai.py``).

The algorithm (kept)
--------------------
A build pile is held as the value of its top card (12 for an empty pile, as a
completed one is), a card fits a pile if it is the pile's value plus one (after
12, 1) or the wild card (``fitson``, ``nextcard``).  ``calculate_move`` returns a
list of moves; the bot plays them one per turn message and calculates again only
when the list is empty (``bot.py``), with a limit of 5 s per calculation:

1. ``stock_moves``: if the stock (pay-off) top is wild, it goes on the distinct
   build pile after which ``most_moves`` plays the most cards (ties: a random
   one).  Else a breadth-first search, level by level, over sequences of plays
   from the hand (each distinct value once) and then the discard-pile tops onto
   each distinct build pile (no memo of positions), with no play after the stock
   card fits; at the first level where some sequences let the stock card fit
   (each distinct pile that takes it gives a sequence ending with that play),
   ``best_moves`` takes the first with the fewest wild cards and, among those,
   the most hand cards.
2. ``most_moves``: else the same search with no stock card, through every
   level: the longest sequences whose piles touched end with no wild card on
   top (a wild card played as the last hand card counts as the number it stands
   for, unless the pile's top before it was a wild card), then ``best_moves``.
3. ``discard_move``: else a hand card equal to a discard-pile top goes on it
   (piles in order); else, on the first empty discard pile, a random non-wild
   hand card; else a non-wild hand card one below a non-wild pile top; else a
   random hand card on a random pile.
4. If a search runs past the time limit, ``lucky_move`` (the stock card, a
   number from the hand, a number from a discard top, a wild card from the hand,
   then from a discard top, each on the first distinct pile that takes it) or
   else the discard.

What was adapted (rules only)
-----------------------------
- Cards: our Ace..Queen are the values 1..12, a King is the wild card ("SB");
  3 centers for its 4 build piles (a center of n cards has the value n, 12 when
  empty), our 4 side stacks for its 4 discard piles, the pay-off pile for its
  stock.  The hand is the view's hand in order (the source appends drawn cards
  as ours does); a hand move plays the first hand card of that value.
- The source iterates ``set(hand)``, whose order is CPython's (and for the wild
  card's string, random per process); here the distinct values come in rising
  order, the wild card last.  It only breaks ties between sequences of equal
  length, wild cards and hand cards.
- Its random choices use a ``random.Random(seed)`` of its own; its 5 s limit is
  kept (``timeout``), measured with ``time.perf_counter``.
- The plan is dropped when a new game starts (the source's bot plays one game);
  a planned move that the engine refuses raises, as the source's bot does on an
  "invalid" reply (it never happens in play: the tests play whole games).
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Iterator

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move, PlayerView

NAME = "sciibo"
SB = 0  # the wild card's value (a King); the numbers are 1..12
KING = 12  # our rank index of the wild card
TIMEOUT = 5.0  # seconds per calculation (bot.py)

# A play as the source writes it: (value, source, target) with source "hand",
# "stock" or ("discard", k) and target ("build", i) or ("discard", k).
Where = str | tuple[str, int]
Play = tuple[int, Where, tuple[str, int]]
_Node = tuple[list[list[int]], list[int], list[int], list[Play]]  # discards, hand, builds, moves so far


class CalculationTimeout(Exception):
    """A search ran past its time limit."""


def fitson(a: int, b: int) -> bool:
    """Can card ``b`` go on a build pile of value ``a``?"""
    return b == SB or 1 + a % 12 == b


def nextcard(a: int) -> int:
    """A build pile's value after a card goes on one of value ``a``."""
    return 1 + a % 12


def enumerate_unique(cards: list[int]) -> Iterator[tuple[int, int]]:
    """(position, value) of the first of each distinct value."""
    seen: set[int] = set()
    for n, card in enumerate(cards):
        if card not in seen:
            seen.add(card)
            yield n, card


def distinct(hand: list[int]) -> list[int]:
    """The source's ``set(hand)``, in a fixed order: numbers rising, the wild card last."""
    return sorted(set(hand), key=lambda v: (v == SB, v))


def top_cards(piles: list[list[int]]) -> Iterator[tuple[int, int]]:
    """(pile number, top card) of each non-empty pile."""
    for n, pile in enumerate(piles):
        if pile:
            yield n, pile[-1]


def pull(cards: list[int], card: int) -> list[int]:
    rest = cards[:]
    rest.remove(card)
    return rest


def pull_top(piles: list[list[int]], pos: int) -> list[list[int]]:
    rest = piles[:]
    rest[pos] = piles[pos][:-1]
    return rest


def place(cards: list[int], pos: int, card: int) -> list[int]:
    out = cards[:]
    out[pos] = card
    return out


def best_moves(result: list[list[Play]]) -> list[Play]:
    """The first sequence with the fewest wild cards and, among those, the most hand cards."""
    counted = [
        (sum(1 for _, src, _ in ms if src == "hand"), sum(1 for v, _, _ in ms if v == SB), ms)
        for ms in result
    ]
    fewest = min(sb for _, sb, _ in counted)
    most = max(hands for hands, sb, _ in counted if sb == fewest)
    return next(ms for hands, sb, ms in counted if hands == most and sb == fewest)


def _children(
    discards: list[list[int]], hand: list[int], builds: list[int]
) -> Iterator[tuple[Play, list[list[int]], list[int], list[int], int]]:
    """Every play onto a distinct build pile, hand values first, then discard tops:
    (play, discards after, hand after, builds after, the pile's position)."""
    unique = list(enumerate_unique(builds))
    for card in distinct(hand):
        for pos, value in unique:
            if fitson(value, card):
                yield (
                    (card, "hand", ("build", pos)),
                    discards,
                    pull(hand, card),
                    place(builds, pos, nextcard(value)),
                    pos,
                )
    for d, card in top_cards(discards):
        for pos, value in unique:
            if fitson(value, card):
                play = (card, ("discard", d), ("build", pos))
                yield play, pull_top(discards, d), hand, place(builds, pos, nextcard(value)), pos


def _check(start: float, timeout: float | None) -> None:
    if timeout and time.perf_counter() - start > timeout:
        raise CalculationTimeout


def stock_moves(
    stock: int | None,
    discards: list[list[int]],
    hand: list[int],
    builds: list[int],
    rng: random.Random,
    timeout: float | None = None,
) -> list[Play] | None:
    """The shortest sequence that plays the stock card (rule 1 of the module docstring)."""
    if stock is None:
        return None
    if stock == SB:
        counts: list[tuple[int, int]] = []
        unique = list(enumerate_unique(builds))
        for pos, value in unique:
            limit = timeout / len(unique) if timeout else None
            try:
                moves = most_moves(discards, hand, place(builds, pos, nextcard(value)), limit)
                counts.append((pos, len(moves) if moves else 0))
            except CalculationTimeout:
                pass
        if not counts:  # every pile's search ran out of time (the source's max() fails here)
            raise CalculationTimeout
        top = max(n for _, n in counts)
        pos = rng.choice([p for p, n in counts if n == top])
        return [(stock, "stock", ("build", pos))]
    start = time.perf_counter()
    result: list[list[Play]] = []
    queue: deque[tuple[list[list[int]], list[int], list[int], list[Play]]] = deque(
        [(discards, hand, builds, [])]
    )
    queueable: deque[tuple[list[list[int]], list[int], list[int], list[Play]]] = deque()
    while queue:
        _check(start, timeout)
        piles, cards, bs, moves = queue.popleft()
        finals = [pos for pos, value in enumerate_unique(bs) if fitson(value, stock)]
        if finals:
            result.extend([*moves, (stock, "stock", ("build", pos))] for pos in finals)
        else:
            for play, piles2, cards2, bs2, _ in _children(piles, cards, bs):
                queueable.append((piles2, cards2, bs2, [*moves, play]))
        if not queue:
            if result:
                return best_moves(result)
            queue, queueable = queueable, deque()
    return None


def most_moves(
    discards: list[list[int]], hand: list[int], builds: list[int], timeout: float | None = None
) -> list[Play] | None:
    """The longest sequence that leaves no wild card on a pile's top (rule 2)."""
    start = time.perf_counter()
    queue: deque[tuple[list[list[int]], list[int], list[int], list[Play], list[int | None]]] = deque(
        [(discards, hand, builds, [], [None] * len(builds))]
    )
    result: list[list[Play]] = []
    length = 0
    while queue:
        _check(start, timeout)
        piles, cards, bs, moves, top = queue.popleft()
        if moves and SB not in top:
            if len(moves) > length:
                result, length = [], len(moves)
            result.append(moves)
        for play, piles2, cards2, bs2, pos in _children(piles, cards, bs):
            card, source, _ = play
            if source == "hand" and not cards2 and card == SB and top[pos] != SB:
                top2 = place_top(top, pos, nextcard(bs[pos]))  # the last hand card, wild
            else:
                top2 = place_top(top, pos, card)
            queue.append((piles2, cards2, bs2, [*moves, play], top2))
    return best_moves(result) if result else None


def place_top(top: list[int | None], pos: int, card: int) -> list[int | None]:
    out = top[:]
    out[pos] = card
    return out


def lucky_move(
    stock: int | None, discards: list[list[int]], hand: list[int], builds: list[int]
) -> list[Play] | None:
    """Any one play, the stock card first and wild cards last (rule 4)."""
    unique = list(enumerate_unique(builds))
    if stock is not None:
        for pos, value in unique:
            if fitson(value, stock):
                return [(stock, "stock", ("build", pos))]
    for wild in (False, True):
        for card in distinct(hand):
            if (card == SB) == wild:
                for pos, value in unique:
                    if fitson(value, card):
                        return [(card, "hand", ("build", pos))]
        for d, card in top_cards(discards):
            if (card == SB) == wild:
                for pos, value in unique:
                    if fitson(value, card):
                        return [(card, ("discard", d), ("build", pos))]
    return None


def discard_move(discards: list[list[int]], hand: list[int], rng: random.Random) -> list[Play]:
    """Which hand card goes on which discard pile (rule 3)."""
    for d, top in top_cards(discards):
        for card in distinct(hand):
            if card == top:
                return [(card, "hand", ("discard", d))]
    for d, pile in enumerate(discards):
        if not pile:
            normal = [c for c in hand if c != SB]
            if normal:
                return [(rng.choice(normal), "hand", ("discard", d))]
    for d, top in top_cards(discards):
        if top == SB:
            continue
        for card in distinct(hand):
            if card != SB and card + 1 == top:
                return [(card, "hand", ("discard", d))]
    return [(rng.choice(hand), "hand", ("discard", rng.randrange(4)))]


def calculate_move(
    stock: int | None,
    discards: list[list[int]],
    hand: list[int],
    builds: list[int],
    rng: random.Random,
    timeout: float | None = TIMEOUT,
) -> list[Play]:
    """The next moves: the stock card's shortest sequence, else the most cards,
    else a discard (with a limit: on a timeout, a lucky move or the discard)."""
    start = time.perf_counter()
    try:
        moves = stock_moves(stock, discards, hand, builds, rng, timeout)
        if moves:
            return moves
        remaining = start + timeout - time.perf_counter() if timeout else None
        moves = most_moves(discards, hand, builds, remaining)
        if moves:
            return moves
    except CalculationTimeout:
        return lucky_move(stock, discards, hand, builds) or discard_move(discards, hand, rng)
    return discard_move(discards, hand, rng)


def _value(card: int) -> int:
    r = card % 13
    return SB if r == KING else r + 1


class SciiboBot:
    """The ported player (see the module docstring); it decides from its
    ``PlayerView`` alone, with a ``random.Random(seed)`` of its own."""

    name = NAME

    def __init__(self, seed: int | None = None, timeout: float | None = TIMEOUT) -> None:
        self._rng = random.Random(seed)
        self._timeout = timeout
        self._moves: list[Play] = []
        self._game: int | None = None

    def choose(self, view: PlayerView) -> Move:
        if not view.my_turn:
            raise ValueError("sciibo: it is not this view's seat's turn")
        if view.game != self._game:
            self._game, self._moves = view.game, []
        me = view.seat
        if not self._moves:
            top = view.payoff_tops[me]
            self._moves = calculate_move(
                None if top is None else _value(top),
                [[_value(c) for c in st] for st in view.sides[me]],
                [_value(c) for c in view.hand],
                [len(c) or 12 for c in view.center],
                self._rng,
                self._timeout,
            )
        value, source, (kind, index) = self._moves.pop(0)
        move = _move(view, value, source, kind, index)
        if move not in view.legal_moves():
            raise RuntimeError(f"sciibo: its planned move {move} is not legal")
        return move


def _move(view: PlayerView, value: int, source: Where, kind: str, index: int) -> Move:
    me = view.seat
    target = CENTER if kind == "build" else SIDE
    if source == "stock":
        return Move(me, PAYOFF, None, target, index)
    if source == "hand":
        card = next((c for c in view.hand if _value(c) == value), None)
        if card is None:
            raise RuntimeError(f"sciibo: no hand card of value {value} for its planned move")
        return Move(me, HAND, card, target, index)
    assert isinstance(source, tuple)
    return Move(me, SIDE, source[1], target, index)


def make(seed: int | None = None) -> SciiboBot:
    return SciiboBot(seed)
