"""The independent AI (tests/support/opponents/independent_ai.py, benchmark opponent ``indep``):
legal moves through whole games, decisions from the view alone, reproducible
given its seed, and kept out of the product levels."""

from __future__ import annotations

import hashlib

from p2p_spite.bots import LEVELS, Bot, make_bot
from p2p_spite.engine import CENTER, PAYOFF, SIDE, GameState, Move, view
from tests.support.opponents.independent_ai import IndependentBot, position

from ..support.positions import make_state


def seed(i: int) -> bytes:
    return hashlib.sha256(f"test_independent_ai {i}".encode()).digest()


def play(bots: list[Bot], game_seed: bytes, max_plies: int = 3000) -> tuple[GameState, list[Move]]:
    state = GameState.deal(game_seed, 1)
    moves: list[Move] = []
    while state.result is None and state.ply < max_plies:
        seat = state.turn
        move = bots[seat].choose(view(state, seat))
        assert move in state.legal_moves(), f"{bots[seat].name} chose illegal {move}"
        state.apply(move)
        moves.append(move)
    return state, moves


def test_whole_games_with_legal_moves_only() -> None:
    for i, other in enumerate(("easy", "indep")):
        opp: Bot = IndependentBot(100 + i) if other == "indep" else make_bot(other, 100 + i)
        bots: list[Bot] = [IndependentBot(i), opp]
        if i % 2:
            bots.reverse()
        state, _ = play(bots, seed(i))
        assert state.result is not None, "the game did not end"


def test_reproducible_given_its_seed() -> None:
    a = play([IndependentBot(7), make_bot("easy", 1)], seed(9))[1]
    b = play([IndependentBot(7), make_bot("easy", 1)], seed(9))[1]
    assert a == b


def test_not_a_product_level() -> None:
    assert "indep" not in LEVELS and IndependentBot.name == "indep"


def test_it_sees_only_the_view() -> None:
    # Two games that differ only in what seat 0 cannot see (the opponent's hand,
    # the stock order) give seat 0 the same position and the same move.
    s1 = make_state(hands=("3C 7D 9H QS 5S", "6D 7D 8D 9H TH"))
    s2 = make_state(hands=("3C 7D 9H QS 5S", "2S 4S 6S 8S TS"))
    s2.stock.reverse()
    v1, v2 = view(s1, 0), view(s2, 0)
    assert position(v1) == position(v2)
    assert IndependentBot(3).choose(v1) == IndependentBot(3).choose(v2)


def test_plays_its_payoff_card_when_it_fits() -> None:
    state = make_state(payoff=("5C AD", "4H 8S"), hands=("3C 7D 9H QS 5S", "6D 7D 8D 9H TH"))
    move = IndependentBot(0).choose(view(state, 0))
    assert move.source == PAYOFF and move.target == CENTER


def test_kings_are_its_wild_cards_and_are_not_discarded() -> None:
    # Nothing else fits: it may play a King (wild) or discard, never discard the King.
    state = make_state(payoff=("5C 9D", "4H 8S"), hands=("KC 7D 9H QS 5S", "6D 7D 8D 9H TH"))
    move = IndependentBot(0).choose(view(state, 0))
    assert move in state.legal_moves()
    assert not (move.target == SIDE and move.arg is not None and move.arg % 13 == 12)
