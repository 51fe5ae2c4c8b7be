"""Taking back a move: which moves can be, and the state exactly as before one.

Only a move that showed its mover no card can be taken back: not the discard that ended
the turn, not one that turned up a pay-off card, emptied the hand (a refill), completed
a center (a reshuffle) or ended the game.  :class:`~p2p_spite.engine.match.Match` keeps
what each move of the turn did (:class:`~p2p_spite.engine.state.Played`) for it.
"""

from __future__ import annotations

from . import refusals as no
from .moves import HAND, PAYOFF, SIDE
from .refusals import Illegal
from .state import GameState, IllegalMoveError, Played


def refusal(state: GameState, played: Played) -> Illegal | None:
    """Why the move ``played`` did, the last one made on ``state``, cannot be taken back
    (None: it can)."""
    move = played.move
    if move.target == SIDE:
        return no.EndedTurn()
    if state.result is not None:
        return no.GameIsOver()
    if played.completed:
        return no.CompletedCenter(move.slot)
    if move.source == PAYOFF:
        return no.ShowedPayoff()
    if played.drew:
        return no.RefilledHand()
    return None


def take_back(state: GameState, played: Played) -> None:
    """Take back the move ``played`` did, the last one made on ``state``: the state is then
    exactly as before it.  IllegalMoveError (the state untouched) if it cannot be
    (:func:`refusal`), or if it is not the last move made there."""
    move = played.move
    why = refusal(state, played)
    stack = state.center[move.slot] if why is None else []
    if why is None and (state.turn != move.seat or not stack or stack[-1] != played.card):
        why = no.NothingToTakeBack()
    if why is not None:
        raise IllegalMoveError(move, why)
    stack.pop()
    if move.source == HAND:
        assert played.at is not None
        state.hands[move.seat].insert(played.at, played.card)
    else:
        assert move.arg is not None
        state.sides[move.seat][move.arg].append(played.card)
    state.ply -= 1
