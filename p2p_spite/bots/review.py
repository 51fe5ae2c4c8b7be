"""A turn judged from the mover's seat: the turn as played against the strongest level's.

:func:`review_turn` takes what the seat saw at its turn's start (a :class:`PlayerView`)
and the moves it made, and nothing else.  It asks ``expert`` for its turn from the same
view, then estimates the chance of winning the game after each turn by playing both out
in the same sampled *worlds*: complete deals consistent with the view (the cards it does
not show dealt at random into the opponent's hand, the stock and the pay-off piles under
their tops, as ``expert`` samples them), each played to the game's end by the fast greedy
policy for both seats (:func:`~p2p_spite.bots.expert.greedy_turn`).  Both turns meet the
same worlds, so the comparison is paired: the luck of the draw is the same on both sides.

A turn is judged up to its first *chance event*: a pay-off card played (a new top turns
up) or the hand emptied (five new cards).  What came after was decided on cards the
turn's start did not show, and in a sampled world those cards are others; so from there
the greedy policy finishes the turn, for the played turn and ``expert``'s alike (as
``expert`` itself plays out its plans).  ``expert``'s turn likewise stops at its first
chance event.

The marks are lichess's, on the drop in win chance from the better turn to the played one
(``win_best - win_played``, at least 0): lichess judges a move by the drop in its
"winning chances" on a -1..+1 scale, 0.3 a blunder, 0.2 a mistake, 0.1 an inaccuracy
(lila, modules/tree/src/main/Advice.scala, ``winningChanceJudgements``), and its win% is
``50 + 50 * winningChances`` (scalachess, eval.scala, ``WinPercent.fromCentiPawns``):
drops of 15, 10 and 5 points of win chance.  A turn's accuracy is lichess's per-move
formula on that drop in points (lila, modules/analyse/src/main/AccuracyPercent.scala,
``fromWinPercents``: ``103.1668 * exp(-0.04354 * drop) - 3.1669``, plus 1, within 0..100).

Fair by construction: the only inputs are the view and the seat's own moves; the worlds
and ``expert``'s randomness are seeded from the view's game, ply and seat, never from a
hidden card.  With ``deadline`` (seconds per turn) the worlds stop when it is spent (at
least ``min_worlds``); ``deadline=None`` plays exactly ``worlds`` worlds and ``expert``
thinks without a clock: the same view and moves always give the same judgment.

:func:`hint_reason` is the same evaluation for ``hint``: the turn the hinted move begins
against the plain turn ``easy`` would play, in the same worlds.

Noise: a mark rests on the difference of two estimates over the same worlds; it is as
precise as the worlds in which the two turns' games end differently allow (with 200
worlds and a third of them differing, about 4 points of win chance), so a single
inaccuracy is a hint rather than a verdict, a blunder (15 points) rarely noise.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import HAND, PAYOFF, SIDE, Card, GameState, Move, PlayerView
from ..engine import view as view_of
from .expert import EXPERT, ExpertBot, greedy_turn, sample_world, turn_end_rule
from .reasons import NO_REASONS, Explanation, explain
from .simple import EasyBot

INACCURACY, MISTAKE, BLUNDER = "inaccuracy", "mistake", "blunder"
MARKS = (INACCURACY, MISTAKE, BLUNDER)
# the least drop in win chance (0..1) of each mark, worst first (lichess: 0.3, 0.2, 0.1 of
# winning chances on -1..+1, that is 15, 10 and 5 points of win%)
THRESHOLDS = ((0.15, BLUNDER), (0.10, MISTAKE), (0.05, INACCURACY))


@dataclass(frozen=True, slots=True)
class ReviewConfig:
    """How hard a review looks at each turn."""

    worlds: int = 200  # sampled worlds per turn (the most; exactly this many without a deadline)
    min_worlds: int = 32  # ... and at least this many, whatever the deadline
    deadline: float | None = 1.5  # seconds per turn (None: deterministic)
    think: float | None = 0.25  # expert's budget for its turn (None: its fixed worlds, no clock)
    playout_turns: int = 400  # a playout still going after this many turns counts as a draw


REVIEW = ReviewConfig()
REVIEW_FIXED = dataclasses.replace(REVIEW, deadline=None, think=None, worlds=64)  # tests, measures


@dataclass(frozen=True, slots=True)
class TurnReview:
    """The judgment of one turn: ``played`` and ``best`` up to their first chance event
    (with the cards they move, as the seat saw them), their estimated win chances (0..1)
    over ``worlds`` sampled worlds, and the mark (None: no mark)."""

    played: tuple[Move, ...]
    played_cards: tuple[Card, ...]
    best: tuple[Move, ...]
    best_cards: tuple[Card, ...]
    win_played: float
    win_best: float
    worlds: int

    @property
    def loss(self) -> float:
        """The win chance lost by the played turn (0..1; never below 0)."""
        return max(0.0, self.win_best - self.win_played)

    @property
    def mark(self) -> str | None:
        return mark_of(self.loss)

    @property
    def accuracy(self) -> float:
        return accuracy_of(self.loss)

    @property
    def same(self) -> bool:
        """Did the seat play ``expert``'s turn?"""
        return self.played == self.best


def mark_of(loss: float) -> str | None:
    """The mark of a drop in win chance (0..1), lichess's thresholds."""
    for least, mark in THRESHOLDS:
        if loss >= least - 1e-9:
            return mark
    return None


def accuracy_of(loss: float) -> float:
    """lichess's accuracy of a move (0..100) from the drop in win chance (0..1)."""
    drop = 100.0 * max(0.0, loss)
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 3.166924740191411
    return min(100.0, max(0.0, raw + 1))


def judged_part(view: PlayerView, moves: Sequence[Move]) -> int:
    """How many of ``moves`` (a turn from ``view``) come before its first chance event,
    that one included: the moves decided on what ``view`` shows."""
    hand = len(view.hand)
    for k, m in enumerate(moves, 1):
        if m.source == PAYOFF or m.target == SIDE:
            return k
        if m.source == HAND:
            hand -= 1
            if hand == 0:  # the hand is refilled: five cards the view did not show
                return k
    return len(moves)


def review_turn(
    view: PlayerView,
    played: Sequence[Move],
    config: ReviewConfig = REVIEW,
    clock: Callable[[], float] = time.perf_counter,
) -> TurnReview:
    """Judge the turn ``played`` (its moves, from ``view``, the seat's view at its start)."""
    if not view.my_turn:
        raise ValueError("review_turn: it is not this view's seat's turn")
    t0 = clock()
    rng = random.Random(f"review {view.game} {view.ply} {view.seat}")
    mine = tuple(played[: judged_part(view, played)])
    best, best_cards = _turn(view, _expert(config, clock).choose, rng)
    mine_cards = _cards(view, mine, rng)
    (win_played, win_best), done = _win_chances(view, [mine, best], config, clock, t0, rng)
    return TurnReview(mine, mine_cards, best, best_cards, win_played, win_best, done)


@dataclass(frozen=True, slots=True)
class HintReason:
    """Why a hint: the turn it begins (up to its first chance event) and its win chance,
    against the plain turn ``easy`` would play and its own (the same when they agree),
    and what the one does that the other does not (:func:`.reasons.explain`)."""

    best: tuple[Move, ...]
    best_cards: tuple[Card, ...]
    win_best: float
    plain: tuple[Move, ...]
    plain_cards: tuple[Card, ...]
    win_plain: float
    why: Explanation = NO_REASONS  # the hinted turn's reasons, against the plain one's


HINT_REASON = dataclasses.replace(REVIEW, worlds=120, min_worlds=16, deadline=0.6, think=0.15)


def hint_reason(
    view: PlayerView,
    first: Move,
    config: ReviewConfig = HINT_REASON,
    clock: Callable[[], float] = time.perf_counter,
) -> HintReason:
    """Why the hint ``first`` (from ``view``): the same evaluation as a review's, of the
    turn ``expert`` plays on from it against the turn the plain policy (``easy``) plays."""
    if not view.my_turn:
        raise ValueError("hint_reason: it is not this view's seat's turn")
    t0 = clock()
    rng = random.Random(f"hint {view.game} {view.ply} {view.seat}")
    bot = _expert(config, clock)
    best, best_cards = _turn(view, lambda v: first if v is view else bot.choose(v), rng)
    plain, plain_cards = _turn(view, EasyBot(0).choose, rng)
    (win_best, win_plain), _done = _win_chances(view, [best, plain], config, clock, t0, rng)
    why = explain(view, best, best_cards, plain, plain_cards)
    return HintReason(best, best_cards, win_best, plain, plain_cards, win_plain, why)


def _expert(config: ReviewConfig, clock: Callable[[], float]) -> ExpertBot:
    """A fresh ``expert``, as ``hint`` asks it (``config.think``: its budget, None: no clock)."""
    return ExpertBot(0, dataclasses.replace(EXPERT, turn_budget=config.think), clock)


def _win_chances(
    view: PlayerView,
    turns: list[tuple[Move, ...]],
    config: ReviewConfig,
    clock: Callable[[], float],
    t0: float,
    rng: random.Random,
) -> tuple[list[float], int]:
    """Each turn's win chance over the same sampled worlds (a turn equal to an earlier one
    is not played again), and how many worlds: ``config.worlds``, or fewer when the
    deadline (from ``t0``) is spent, but at least ``config.min_worlds``."""
    me = view.seat
    avoid = turn_end_rule(view)
    won = [0.0] * len(turns)
    done = 0
    deadline = None if config.deadline is None else t0 + config.deadline
    while done < config.worlds:
        if deadline is not None and done >= config.min_worlds and clock() >= deadline:
            break
        world = sample_world(view, rng, avoid)
        if world is None:
            break
        got: dict[tuple[Move, ...], float] = {}
        for k, t in enumerate(turns):
            if t not in got:
                got[t] = _outcome(world.copy(), me, t, config)
            won[k] += got[t]
        done += 1
    n = max(done, 1)
    return [w / n for w in won], done


def _turn(
    view: PlayerView, choose: Callable[[PlayerView], Move], rng: random.Random
) -> tuple[tuple[Move, ...], tuple[Card, ...]]:
    """The turn ``choose`` plays from ``view``, up to its first chance event, and the cards
    it moves.  Its moves before that event depend on the view alone; a world sampled from
    it carries the view from move to move."""
    world = sample_world(view, random.Random(rng.random()))
    assert world is not None  # (a real game's view always adds up)
    moves: list[Move] = []
    cards: list[Card] = []
    v = view
    while True:
        m = choose(v)
        moves.append(m)
        cards.append(world.card_of(m))
        world.apply(m)
        if _chance(view, moves):
            break
        if world.result is not None or world.turn != view.seat:
            break
        v = view_of(world, view.seat)
    return tuple(moves), tuple(cards)


def _chance(view: PlayerView, moves: Sequence[Move]) -> bool:
    """Is the last of ``moves`` (a turn from ``view``) its end or its first chance event?"""
    last = moves[-1]
    emptied = sum(m.source == HAND for m in moves) == len(view.hand)
    return last.source == PAYOFF or last.target == SIDE or (last.source == HAND and emptied)


def _cards(view: PlayerView, moves: Sequence[Move], rng: random.Random) -> tuple[Card, ...]:
    """The cards ``moves`` (before any chance event) move, as the seat sees them."""
    world = sample_world(view, random.Random(rng.random()))
    assert world is not None
    out: list[Card] = []
    for m in moves:
        out.append(world.card_of(m))
        world.apply(m)
    return tuple(out)


def _outcome(world: GameState, me: int, moves: Sequence[Move], config: ReviewConfig) -> float:
    """``moves`` then the game played out in ``world`` by the greedy policy: 1 won, 0.5
    drawn (or still going after ``playout_turns``), 0 lost, for ``me``."""
    for m in moves:
        world.apply(m)
        if world.result is not None or world.turn != me:
            break
    for _ in range(config.playout_turns):
        if world.result is not None:
            break
        greedy_turn(world, world.turn)
    r = world.result
    if r is None or r.winner is None:
        return 0.5
    return 1.0 if r.winner == me else 0.0


__all__ = [
    "BLUNDER",
    "HINT_REASON",
    "INACCURACY",
    "MARKS",
    "MISTAKE",
    "REVIEW",
    "REVIEW_FIXED",
    "THRESHOLDS",
    "HintReason",
    "ReviewConfig",
    "TurnReview",
    "accuracy_of",
    "hint_reason",
    "judged_part",
    "mark_of",
    "review_turn",
]
