"""Whole games between bots, for the tests of the levels and the outside opponents."""

from __future__ import annotations

from p2p_spite.bots import Bot
from p2p_spite.engine import GameState, view


def play_game(bots: list[Bot], game_seed: bytes, max_plies: int = 3000, check: bool = True) -> GameState:
    """One game dealt from ``game_seed``, each seat's bot choosing from its view, until
    it ends or ``max_plies``; with ``check`` every move is asserted legal first
    (``apply`` would raise on an illegal one anyway, with less to say)."""
    state = GameState.deal(game_seed, 1)
    while state.result is None and state.ply < max_plies:
        seat = state.turn
        move = bots[seat].choose(view(state, seat))
        if check:
            assert move in state.legal_moves(), f"{bots[seat].name} chose illegal {move}"
        state.apply(move)
    return state
