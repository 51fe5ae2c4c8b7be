"""The third outside opponent (tests/support/opponents/combo_ai.py, benchmark level ``combo``):
legal moves through whole games, deterministic, from the view alone, and each
of its rules in the source's order."""

from __future__ import annotations

import hashlib

from p2p_spite.bots import LEVELS, Bot, make_bot
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, GameState, Move, view
from tests.support.opponents.combo_ai import ComboBot

from ..support.games import play_game
from ..support.positions import cards, make_state


def seed(i: int) -> bytes:
    return hashlib.sha256(f"test_combo_ai {i}".encode()).digest()


def turn(state: GameState) -> list[Move]:
    """combo's moves until its turn ends (or it plays its pay-off card twice)."""
    seat = state.turn
    moves: list[Move] = []
    bot = ComboBot()
    while state.turn == seat and state.result is None and len(moves) < 20:
        move = bot.choose(view(state, seat))
        state.apply(move)
        moves.append(move)
    return moves


def test_whole_games_with_legal_moves_only_and_reproducible() -> None:
    assert "combo" not in LEVELS and ComboBot.name == "combo"
    for i, other in enumerate(("easy", "hard", "combo")):
        opp: Bot = ComboBot() if other == "combo" else make_bot(other, 100 + i)
        bots: list[Bot] = [ComboBot(), opp]
        if i % 2:
            bots.reverse()
        assert play_game(bots, seed(i)).result is not None, "the game did not end"
    runs = [play_game([ComboBot(), make_bot("easy", 1)], seed(9)) for _ in range(2)]
    assert runs[0].digest() == runs[1].digest()


def test_it_sees_only_the_view() -> None:
    s1 = make_state(hands=("3C 7D 9H QS 5S", "6D 7D 8D 9H TH"))
    s2 = make_state(hands=("3C 7D 9H QS 5S", "2S 4S 6S 8S TS"))
    s2.stock.reverse()
    assert view(s1, 0) == view(s2, 0)
    assert ComboBot().choose(view(s1, 0)) == ComboBot().choose(view(s2, 0))


def test_the_shortest_chain_to_its_payoff_card_side_tops_first() -> None:
    # Pay-off 5: one play (a 4) on the center of three cards, four on an empty one.
    # Its 4 is in hand and on a side stack: the side stack's top goes first.
    state = make_state(
        payoff=("9D 5C", "7H 8S"),
        hands=("AC 2C 3C 4D 9S", "6D 7D 8D 9H TH"),
        sides=(("", "4S", "", ""), ("", "", "", "")),
        center=("", "AH 2H 3H", ""),
    )
    assert turn(state)[:2] == [Move(0, SIDE, 1, CENTER, 1), Move(0, PAYOFF, None, CENTER, 1)]


def test_it_plays_out_a_whole_hand() -> None:
    # No chain reaches the 9 (no 6, 7 or 8), but the whole hand goes on one center,
    # the King as the 5: hand cards in slot order, each on the first pile that takes it.
    state = make_state(payoff=("2D 9C", "7H 8S"), hands=("AC 2C 3C 4D KS", "6D 7D 8D 9H TH"))
    expected = [Move(0, HAND, c, CENTER, 0) for c in cards("AC 2C 3C 4D KS")]
    assert turn(state)[:5] == expected


def test_it_discards_by_its_score_when_no_rule_plays() -> None:
    # No chain to the 9, the hand cannot all be played, no high card fits: the 5
    # goes on the side stack whose top is a 5 (+600) rather than on an empty one.
    state = make_state(
        payoff=("2D 9C", "7H 8S"),
        hands=("AC 2C 5D 8D JS", "6D 7D 8D 9H TH"),
        sides=(("5S", "", "", ""), ("", "", "", "")),
    )
    assert turn(state) == [Move(0, HAND, cards("5D")[0], SIDE, 0)]


def test_the_high_card_rule() -> None:
    # Stock top 2, centers at 6 and 9 cards (next 7 and 10): it plays the TD (10,
    # the highest of 6 or more above 2) on the center of nine.
    state = make_state(
        payoff=("9D 2C", "7H 8S"),
        hands=("7C TD 5S 5H 3D", "6D 7D 8D 9H TH"),
        center=("AH 2H 3H 4H 5H 6H", "AS 2S 3S 4S 5C 6S 7S 8S 9S", ""),
    )
    move = ComboBot().choose(view(state, 0))
    assert move == Move(0, HAND, cards("TD")[0], CENTER, 1)


def test_the_payoff_card_when_it_fits_and_a_king_on_the_fullest_center() -> None:
    state = make_state(payoff=("9D KC", "7H 8S"), center=("AH", "AS 2S 3S", ""))
    assert ComboBot().choose(view(state, 0)) == Move(0, PAYOFF, None, CENTER, 1)
    state = make_state(payoff=("9D 2C", "7H 8S"), center=("AH", "", "AS"))
    assert ComboBot().choose(view(state, 0)) == Move(0, PAYOFF, None, CENTER, 2)  # ties: the last
