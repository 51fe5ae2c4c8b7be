"""The fourth outside opponent (tests/support/opponents/sciibo_ai.py, benchmark level ``sciibo``):
the source's own test positions, legal moves through whole games, a plan kept
across calls, and the time limit's fallback."""

from __future__ import annotations

import hashlib
import random

from p2p_spite.bots import LEVELS, Bot, make_bot
from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, Move, view
from tests.support.opponents.sciibo_ai import (
    SB,
    SciiboBot,
    calculate_move,
    discard_move,
    lucky_move,
    most_moves,
    stock_moves,
)

from ..support.games import play_game
from ..support.positions import cards, make_state

E: list[list[int]] = [[], [], [], []]  # four empty discard piles


def seed(i: int) -> bytes:
    return hashlib.sha256(f"test_sciibo_ai {i}".encode()).digest()


# The positions of the source's tests (sciibo/tests/test_ai.py): four build piles
# by their top values (12: empty), "SB" written SB.


def test_the_shortest_sequence_to_the_stock_card_plays_a_discard_top_to_free_another() -> None:
    # The 3 must come from the discard pile, not the hand, to uncover the 12 below it.
    got = stock_moves(1, [[12, 3], [7], [2], []], [3, 9, 7, 10], [11, 1, 6, 9], random.Random(0))
    assert got == [
        (2, ("discard", 2), ("build", 1)),
        (3, ("discard", 0), ("build", 1)),
        (12, ("discard", 0), ("build", 0)),
        (1, "stock", ("build", 0)),
    ]


def test_most_moves_keeps_wild_cards_unless_they_empty_the_hand() -> None:
    # A wild discard top does not help: numbers only.
    assert most_moves([[SB], [6], [7], [8]], [6, 8], [1, 5, 12, 12]) == [
        (6, "hand", ("build", 1)),
        (7, ("discard", 2), ("build", 1)),
        (8, "hand", ("build", 1)),
    ]
    # The whole hand, the wild card standing for the Ace the 2 needs (the source's
    # test expects the same five plays with the wild card and the 2 first: its
    # order of set(hand) is CPython's, ours rises with the wild card last).
    assert most_moves(E, [6, 7, 8, SB, 2], [5, 12, 12, 12]) == [
        (6, "hand", ("build", 0)),
        (7, "hand", ("build", 0)),
        (8, "hand", ("build", 0)),
        (SB, "hand", ("build", 1)),
        (2, "hand", ("build", 1)),
    ]
    # A wild card that would stay on top is not played ...
    assert most_moves(E, [6, 7, 8, SB, 3], [5, 12, 12, 12]) == [(v, "hand", ("build", 0)) for v in (6, 7, 8)]
    # ... unless it is the last hand card (the hand is refilled), not a discard's.
    for discards, builds in ((E, [5, 12, 12, 12]), ([[SB], [], [], []], [5, 1, 12, 12])):
        assert most_moves(discards, [6, 7, 8, SB], builds) == [
            (v, "hand", ("build", 0)) for v in (6, 7, 8, SB)
        ]
    # Two wild cards are not spent to empty a hand of three.
    assert most_moves(E, [2, SB, SB], [1, 2, 3, 4]) == [(2, "hand", ("build", 0))]


def test_calculate_move_and_the_sources_bug_positions() -> None:
    rng = random.Random(0)
    assert calculate_move(1, E, [3, 7, 2, 11, 12], [12, 12, 12, 12], rng) == [(1, "stock", ("build", 0))]
    assert calculate_move(6, [[6], [7], [], []], [8, 7, 12, 9, SB], [3, 12, 12, 12], rng) == [
        (7, "hand", ("discard", 1))
    ]
    got = calculate_move(7, [[9], [], [], []], [10, SB, 6], [10, 2, 2, 1], rng)
    assert got in ([(6, "hand", ("discard", 1))], [(10, "hand", ("discard", 1))])
    assert calculate_move(12, E, [SB, SB, 9], [4, 12, 12, 12], rng) == [(9, "hand", ("discard", 0))]


def test_a_search_past_its_time_limit_falls_back_to_a_lucky_move() -> None:
    # Five wild cards and a stock card that never fits: the search cannot finish
    # within the limit, so any one play is made (a number from a discard top).
    discards = [[7, 6, 5, 4, 2], [11, 11, 9, 8, 6], [11], [10]]
    got = calculate_move(26, discards, [SB] * 5, [1, 2, 3, 4], random.Random(0), timeout=0.05)
    assert got == [(2, ("discard", 0), ("build", 0))]


def test_lucky_move_order() -> None:
    builds = [2, 3, 1, 4]
    assert lucky_move(5, [[8], [SB, 2, 5], [], []], [9, 7, 12, 5, SB], builds) == [(5, "stock", ("build", 3))]
    assert lucky_move(1, [[8], [SB, 2, 5], [], []], [9, 7, 12, 5, SB], builds) == [(5, "hand", ("build", 3))]
    assert lucky_move(1, [[8], [SB, 2, 5], [], []], [9, 7, 12, SB], builds) == [
        (5, ("discard", 1), ("build", 3))
    ]
    assert lucky_move(1, [[8], [9, SB], [], []], [9, 7, 12, SB], builds) == [(SB, "hand", ("build", 0))]
    assert lucky_move(1, [[8], [9, SB], [], []], [9, 7, 12], builds) == [(SB, ("discard", 1), ("build", 0))]
    assert lucky_move(1, [[8], [2, 9], [], []], [9, 7, 12], builds) is None


def test_discard_rules_in_order() -> None:
    rng = random.Random(0)
    assert discard_move([[8], [5], [9], [12]], [11, 9, 7, 4, SB], rng) == [(9, "hand", ("discard", 2))]
    value, source, target = discard_move([[8], [5], [], [12]], [11, 7, 4, SB], rng)[0]
    assert (source, target) == ("hand", ("discard", 2)) and value in (11, 7, 4)  # a random non-wild card
    assert discard_move([[8], [5], [9], [12]], [11, 7, 4, SB], rng) == [(7, "hand", ("discard", 0))]
    assert discard_move([[8], [5], [SB], []], [12, 7, 4, SB], rng) == [(SB, "hand", ("discard", 2))]


# Through our engine.


def test_whole_games_with_legal_moves_only_and_reproducible() -> None:
    assert "sciibo" not in LEVELS and SciiboBot.name == "sciibo"
    for i, other in enumerate(("easy", "hard", "sciibo")):
        opp: Bot = SciiboBot(7) if other == "sciibo" else make_bot(other, 100 + i)
        bots: list[Bot] = [SciiboBot(i), opp]
        if i % 2:
            bots.reverse()
        assert play_game(bots, seed(i)).result is not None, "the game did not end"
    runs = [play_game([SciiboBot(3), make_bot("easy", 1)], seed(9)) for _ in range(2)]
    assert runs[0].digest() == runs[1].digest()


def test_it_sees_only_the_view() -> None:
    s1 = make_state(hands=("3C 7D 9H QS 5S", "6D 7D 8D 9H TH"))
    s2 = make_state(hands=("3C 7D 9H QS 5S", "2S 4S 6S 8S TS"))
    s2.stock.reverse()
    assert view(s1, 0) == view(s2, 0)
    assert SciiboBot(1).choose(view(s1, 0)) == SciiboBot(1).choose(view(s2, 0))


def test_it_plays_its_plan_out_before_searching_again() -> None:
    # Pay-off 4 (value 4): centers at 1 and 2 cards (values 1 and 2); the 3 from a
    # side stack and then the pay-off card, as one planned list of two moves.
    state = make_state(
        payoff=("9D 4C", "7H 8S"),
        hands=("9C TC JC QC 5S", "6D 7D 8D 9H TH"),
        sides=(("3S", "", "", ""), ("", "", "", "")),
        center=("AH", "AS 2S", ""),
    )
    bot = SciiboBot(0)
    first = bot.choose(view(state, 0))
    assert first == Move(0, SIDE, 0, CENTER, 1)
    state.apply(first)
    assert bot.choose(view(state, 0)) == Move(0, PAYOFF, None, CENTER, 1)


def test_a_wild_payoff_card_goes_where_the_most_cards_follow() -> None:
    # A King on top of the pay-off pile: on the empty center the hand's 2-3-4 follow
    # (the King as the Ace), on the center of five nothing does.
    state = make_state(
        payoff=("9D KC", "7H 8S"),
        hands=("2C 3C 4D 9S 9H", "6D 7D 8D 9H TH"),
        center=("AH 2H 3H 4H 5H", "", ""),
    )
    assert SciiboBot(0).choose(view(state, 0)) == Move(0, PAYOFF, None, CENTER, 1)
    # The most cards from the hand: 2, 3, 4 on it next, as one plan.
    bot = SciiboBot(0)
    state.apply(bot.choose(view(state, 0)))
    assert bot.choose(view(state, 0)) == Move(0, HAND, cards("2C")[0], CENTER, 1)
