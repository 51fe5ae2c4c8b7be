"""What the interfaces say (ui/words.py): from the engine's data, in the player's terms."""

from __future__ import annotations

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, EndReason, Move, Result
from p2p_spite.engine.cards import parse_card
from p2p_spite.ui.words import (
    Style,
    Voice,
    effects,
    game_begins,
    game_over,
    game_result,
    hint_words,
    match_over,
    move_words,
    short_status,
    unfinished,
)
from tests.support.positions import make_state

ANN = Voice(("Ann", "Bob"), 0)  # Ann at the screen
READER = Voice(("Ann", "Bob"))  # a record read by a third person


def test_a_completed_center_and_the_refill_are_said_from_what_the_move_did() -> None:
    s = make_state(hands=("QC", "6D 7D"), center=("AC 2D 3S 4C 5C 6C 7C 8C 9C TC JC", "", ""))
    played = s.play(Move(0, HAND, parse_card("QC"), CENTER, 0))
    said = effects(played, ANN)
    assert said == [
        (
            Style.EVENT,
            f"Center 1 is complete: its 12 cards are shuffled into the stock (now {len(s.stock)}).",
        ),
        (Style.INFO, "Your hand was empty: you drew 5 new cards."),
    ]
    assert effects(played, Voice(("Ann", "Bob"), 1))[1] == (
        Style.INFO,
        "Ann emptied their hand and drew 5 new cards.",
    )


def test_a_discard_passes_the_turn_and_says_what_the_next_seat_drew() -> None:
    s = make_state(hands=("AC 2C 3C 4D KS", "6D 7D"))
    played = s.play(Move(0, HAND, parse_card("4D"), SIDE, 1))
    assert move_words(played.move, played.card, "You") == "You discarded 4♦ on side stack 2"
    assert effects(played, ANN) == [(Style.INFO, "Bob's turn.")]
    assert effects(played, Voice(("Ann", "Bob"), 1)) == [(Style.INFO, "Your turn. You drew 3 cards.")]


def test_a_move_that_ends_the_game_says_only_what_it_did_to_the_board() -> None:
    s = make_state(payoff=("AC", "4H 8S"), hands=("2C 3C 4D KS 5H", "6D 7D 8D 9H TH"))
    played = s.play(Move(0, PAYOFF, None, CENTER, 2))
    assert played.result == Result(0, 2, EndReason.PAYOFF)
    assert effects(played, ANN) == []
    assert game_over(s.game, played.result, ANN) == "Game 1: you won: the pay-off pile emptied, 2 points."


def test_a_hint_is_advice_in_its_own_words() -> None:
    assert hint_words(Move(0, HAND, parse_card("7H"), CENTER, 0), parse_card("7H")) == (
        "play 7♥ from hand on center 1"
    )
    assert (
        hint_words(Move(0, SIDE, 2, CENTER, 1), parse_card("KS")) == "play K♠ from side stack 3 on center 2"
    )
    assert (
        hint_words(Move(0, HAND, parse_card("9S"), SIDE, 3), parse_card("9S")) == "discard 9♠ on side stack 4"
    )


def test_a_games_end_is_worded_once_for_every_reader() -> None:
    resign = Result(0, 7, EndReason.RESIGN)
    payoff = Result(1, 1, EndReason.PAYOFF)
    draw = Result(None, 0, EndReason.STOCK)
    assert game_result(resign, READER) == "Ann won: Bob resigned, 7 points"
    assert game_result(resign, ANN) == "you won: Bob resigned, 7 points"
    assert game_result(payoff, ANN) == "Bob won: the pay-off pile emptied, 1 point"
    assert game_result(draw, ANN) == "a draw: the stock ran out, nobody scores"
    assert game_result(None, READER) == unfinished()
    assert [short_status(r, READER) for r in (resign, payoff, draw, None)] == [
        "Bob resigned",
        "Bob won",
        "draw",
        "unfinished",
    ]
    assert payoff.describe() == "seat 1 played out the pay-off pile, 1 points"  # the record's own sentence


def test_a_game_begins_and_a_match_ends_in_the_players_terms() -> None:
    assert game_begins(2, 0, False, ANN) == "Game 2 begins. You start (the higher pay-off card)."
    assert game_begins(1, 1, True, ANN) == "Game 1 begins. Bob starts (equal pay-off cards, drawn by lot)."
    assert match_over(0, (50, 31), ANN) == "You win the match 50-31!"
    assert match_over(1, (40, 52), ANN) == "Bob wins the match 52-40."
    assert match_over(None, (12, 30), Voice(("Ann", "Bob"), 1)) == "The match stopped at 30-12."
