"""The two simplest levels: ``random`` and ``easy``."""

from __future__ import annotations

import random

from ..engine import CENTER, HAND, KING, PAYOFF, SIDE, Move, PlayerView
from ..engine.cards import rank


class RandomBot:
    """Uniform among the legal moves.  Two of these rarely finish a game:
    the stock usually runs out first."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        return self._rng.choice(view.legal_moves())


class EasyBot:
    """The sensible baseline: plays its pay-off card when it can, prefers center
    plays to discards, and does not waste Kings."""

    name = "easy"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: PlayerView) -> Move:
        moves = view.legal_moves()
        payoff = [m for m in moves if m.source == PAYOFF]
        if payoff:
            return payoff[0]
        center = [m for m in moves if m.target == CENTER and not self._is_king(view, m)]
        if center:
            # Side-stack cards first (they free the stack below), then hand cards.
            center.sort(key=lambda m: (m.source != SIDE, m.slot))
            return center[0]
        discards = [m for m in moves if m.target == SIDE]
        return min(discards, key=lambda m: self._discard_cost(view, m))

    @staticmethod
    def _is_king(view: PlayerView, m: Move) -> bool:
        if m.source == HAND:
            card = m.arg
        elif m.source == SIDE:
            card = view.sides[view.seat][m.arg or 0][-1]
        else:
            return False
        return card is not None and rank(card) == KING

    @staticmethod
    def _discard_cost(view: PlayerView, m: Move) -> tuple[int, int, int]:
        """Discard low-value cards, keep Kings; prefer an empty stack or one whose
        top is the card's rank or one above (a descending run)."""
        card = m.arg if m.source == HAND else None
        assert card is not None
        r = rank(card)
        stack = view.sides[view.seat][m.slot]
        if not stack:
            fit = 1
        else:
            top = rank(stack[-1])
            fit = 0 if top in (r, r + 1) else 2
        return (r == KING, fit, -r)
