"""Computer players.  Each decides from its seat's :class:`PlayerView` alone.

Levels (``make_bot(level, seed)``, and wherever ``--bot``/``--bots`` is taken):

``random``
    A uniformly random legal move.  Mostly discards, so its games rarely end
    before the stock runs out.
``easy``
    The sensible baseline: plays its pay-off card whenever it fits, then any
    side-stack or hand card that fits a center (never a King), and discards
    low cards onto matching or descending side stacks.  No look-ahead.
``medium``
    Plans each whole turn: searches every sequence of center plays (pay-off,
    side tops, hand, Kings as wild cards) to get pay-off cards down and to
    empty its hand, and keeps its side stacks in descending runs.  It does not
    look at what the opponent needs.
``hard``
    ``medium``'s search, plus the opponent: every plan is scored by the chance
    that the center stacks it leaves let the opponent play its pay-off top
    next turn (estimated from the opponent's face-up pay-off top and side
    stacks and from hands sampled among the cards it cannot see, scaled by
    how often this opponent has taken such chances), by the worth of its own
    next, still unknown, pay-off top, and by a finer discard rule.  See
    docs/bots.md and p2p_spite/bots/planner.py.
``expert``
    ``hard``'s best plans through each first move and discard, each played
    out in worlds sampled from what its view leaves hidden (the opponent's
    hand, the stock, the pay-off piles), against the opponent's reply; the
    best on average is played, and the comparison is made again before
    every move of the turn.  It thinks within a time budget per turn.
    See p2p_spite/bots/expert.py.

The strongest level is ``STRONGEST`` (``"expert"``).  A hint for a human is
``best_move(view)``: the move the strongest level would make in that view.

Fairness is structural: a bot's only input is a :class:`PlayerView`, which
holds no hidden card (not the opponent's hand, nor the stock, nor the pay-off
cards under the tops).  Bots that need randomness use their own
``random.Random(seed)``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..engine import Move, PlayerView
from .base import Bot
from .expert import EXPERT, ExpertBot
from .planner import HardBot, MediumBot, PlannerBot, Weights
from .simple import EasyBot, RandomBot

# Each level: a bot class, called with the seed of the bot's own random choices.
LEVELS: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "easy": EasyBot,
    "medium": MediumBot,
    "hard": HardBot,
    "expert": ExpertBot,
}
DEFAULT_LEVEL = "medium"  # the computer's level in ``play``, ``host --bot`` and the rest

STRONGEST = "expert"
HINT_BUDGET = 0.25  # seconds a hint may think (it runs off the interface's thread)


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level (ValueError naming the levels if unknown)."""
    try:
        cls = LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r} (choose from {', '.join(LEVELS)})") from None
    return cls(seed)


def best_move(view: PlayerView, seed: int = 0, budget: float | None = HINT_BUDGET) -> Move:
    """The move the strongest level would make now (for a ``hint``).

    ``view`` must be the view of the seat to move.  Stateless: a fresh
    ``expert`` thinks about the view alone, for at most ``budget`` seconds
    (None: no clock, so the same view always gives the same move; with a
    clock a very slow machine may stop before all its sampled worlds).
    Raises ValueError when the view's seat has no move (not its turn, or the
    game is over).
    """
    if not view.my_turn:
        raise ValueError("best_move: it is not this view's seat's turn (or the game is over)")
    return ExpertBot(seed, dataclasses.replace(EXPERT, turn_budget=budget)).choose(view)


__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "STRONGEST",
    "Bot",
    "EasyBot",
    "ExpertBot",
    "HardBot",
    "MediumBot",
    "PlannerBot",
    "RandomBot",
    "Weights",
    "best_move",
    "make_bot",
]
