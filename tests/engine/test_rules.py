"""SPEC section 1, rule by rule, on hand-built positions."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_spite.engine import (
    CENTER,
    HAND,
    PAYOFF,
    SIDE,
    EndReason,
    GameOverError,
    GameState,
    IllegalMoveError,
    Match,
    Move,
    Pile,
    Result,
    RulesError,
    refusals,
    view,
)
from tests.support.positions import cards, make_state


def one(text: str) -> int:
    return cards(text)[0]


def test_ace_starts_a_center_stack_and_ranks_climb() -> None:
    s = make_state(hands=("AC 2C 3C 4D 9S", "6D 7D 8D 9H TH"))
    for name in ["AC", "2C", "3C", "4D"]:
        s.apply(Move(0, HAND, one(name), CENTER, 0))
    assert [len(c) for c in s.center] == [4, 0, 0]


def test_wrong_rank_is_refused_with_the_reason() -> None:
    s = make_state()
    with pytest.raises(IllegalMoveError) as e:
        s.apply(Move(0, HAND, one("3C"), CENTER, 1))
    assert "3C does not fit center 1, which needs an Ace or a King" in str(e.value)


def test_king_is_wild_even_on_an_empty_stack() -> None:
    s = make_state(hands=("KS 2C 3C 4D 9S", "6D 7D 8D 9H TH"))
    s.apply(Move(0, HAND, one("KS"), CENTER, 2))
    s.apply(Move(0, HAND, one("2C"), CENTER, 2))  # the King stood for an Ace
    assert len(s.center[2]) == 2


def test_king_takes_the_rank_the_stack_needs() -> None:
    s = make_state(hands=("KS 5H 3C 4D 9S", "6D 7D 8D 9H TH"), center=("AC 2D 3S", "", ""))
    s.apply(Move(0, HAND, one("KS"), CENTER, 0))  # stands for a 4
    s.apply(Move(0, HAND, one("5H"), CENTER, 0))
    assert len(s.center[0]) == 5


def test_completed_stack_goes_into_the_stock_and_is_shuffled() -> None:
    s = make_state(
        hands=("QC 2C 3C 4D 9S", "6D 7D 8D 9H TH"),
        center=("AC 2D 3S 4C 5C 6C 7C 8C 9C TC JC", "", ""),
    )
    stock_before = len(s.stock)
    stack = [*s.center[0], one("QC")]
    index_before = s.stream.index
    expected = [*s.stock, *stack]
    s.stream.copy().shuffle(expected)  # the stock with the stack on top, shuffled by the game's stream
    assert expected[-12:] != stack  # (this seed does move them: the check below can tell)
    s.apply(Move(0, HAND, one("QC"), CENTER, 0))
    assert s.center[0] == []
    assert len(s.stock) == stock_before + 12
    assert s.stock == expected
    assert set(stack) <= set(s.stock)
    assert s.stream.index > index_before
    assert s.card_count() == 104


def test_king_can_complete_a_stack() -> None:
    s = make_state(
        hands=("KH 2C 3C 4D 9S", "6D 7D 8D 9H TH"),
        center=("AC 2D 3S 4C 5C 6C 7C 8C 9C TC JC", "", ""),
    )
    s.apply(Move(0, HAND, one("KH"), CENTER, 0))
    assert s.center[0] == []


def test_completion_reshuffle_matches_spec_order() -> None:
    """stock.extend(stack bottom to top), then one shuffle(stock) from the game's stream."""
    s = make_state(
        hands=("QC 2C 3C 4D 9S", "6D 7D 8D 9H TH"),
        center=("AC 2D 3S 4C 5C 6C 7C 8C 9C TC JC", "", ""),
    )
    expected = [*s.stock, *s.center[0], one("QC")]
    stream = s.stream.copy()
    stream.shuffle(expected)
    s.apply(Move(0, HAND, one("QC"), CENTER, 0))
    assert s.stock == expected


def test_side_stacks_take_any_hand_card_and_end_the_turn() -> None:
    s = make_state(hands=("KS AC 3C 4D 9S", "6D 7D 8D 9H TH"), sides=(("QD", "", "", ""), ("", "", "", "")))
    s.apply(Move(0, HAND, one("KS"), SIDE, 0))
    assert s.turn == 1
    assert [len(x) for x in s.sides[0]] == [2, 0, 0, 0]


def test_only_hand_cards_go_on_side_stacks() -> None:
    s = make_state(sides=(("QD", "", "", ""), ("", "", "", "")))
    with pytest.raises(IllegalMoveError, match="only a hand card"):
        s.apply(Move(0, SIDE, 0, SIDE, 1))
    with pytest.raises(IllegalMoveError, match="only a hand card"):
        s.apply(Move(0, PAYOFF, None, SIDE, 1))


def test_next_player_refills_at_turn_start_not_the_discarder() -> None:
    s = make_state(hands=("AC 2C 3C 4D 9S", "6D 7D"))
    s.apply(Move(0, HAND, one("AC"), CENTER, 0))
    s.apply(Move(0, HAND, one("9S"), SIDE, 0))
    assert len(s.hands[0]) == 3  # the discarder waits for its own turn
    assert len(s.hands[1]) == 5  # the next player has drawn up to 5


def test_refill_draws_from_the_top_of_the_stock_in_order() -> None:
    s = make_state(hands=("AC 2C 3C 4D 9S", "6D 7D 8D"), stock="5H 6H 7H")
    s.apply(Move(0, HAND, one("9S"), SIDE, 0))
    assert s.hands[1][3:] == [one("7H"), one("6H")]
    assert s.stock == [one("5H")]


def test_empty_hand_mid_turn_refills_at_once() -> None:
    s = make_state(hands=("AC", "6D 7D 8D 9H TH"))
    stock_top5 = list(reversed(s.stock[-5:]))
    s.apply(Move(0, HAND, one("AC"), CENTER, 0))
    assert s.hands[0] == stock_top5
    assert s.turn == 0


def test_playing_the_last_payoff_card_wins_and_scores_the_opponents_pile() -> None:
    s = make_state(payoff=("AD", "4H 8S 9S"), hands=("KC", "6D 7D 8D 9H TH"))
    s.apply(Move(0, PAYOFF, None, CENTER, 1))
    assert s.result == Result(0, 3, EndReason.PAYOFF)
    assert s.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        s.apply(Move(0, HAND, one("KC"), CENTER, 0))


def test_win_comes_before_the_empty_hand_refill() -> None:
    """A win with an empty hand and an empty stock is a win, not a draw."""
    s = make_state(payoff=("AD", "4H"), hands=("", "6D"), stock="")
    s.apply(Move(0, PAYOFF, None, CENTER, 0))
    assert s.result == Result(0, 1, EndReason.PAYOFF)


def test_completion_happens_before_the_win() -> None:
    s = make_state(
        payoff=("QD", "4H"), hands=("9S", "6D"), center=("AC 2D 3S 4C 5C 6C 7C 8C 9C TC JC", "", "")
    )
    before = len(s.stock)
    s.apply(Move(0, PAYOFF, None, CENTER, 0))
    assert s.result == Result(0, 1, EndReason.PAYOFF)
    assert len(s.stock) == before + 12


def test_empty_stock_on_a_refill_is_a_draw() -> None:
    s = make_state(hands=("AC 2C 3C 4D 9S", "6D 7D 8D"), stock="5H")
    s.apply(Move(0, HAND, one("9S"), SIDE, 0))
    assert s.result == Result(None, 0, EndReason.STOCK)
    assert s.hands[1][-1] == one("5H")  # drew what there was, then the game ended


def test_empty_stock_mid_turn_is_a_draw() -> None:
    s = make_state(hands=("AC", "6D 7D 8D 9H TH"), stock="")
    s.apply(Move(0, HAND, one("AC"), CENTER, 0))
    assert s.result == Result(None, 0, EndReason.STOCK)


def test_resign_gives_the_opponent_the_resigners_pile() -> None:
    s = make_state(payoff=("5C 9D 3H", "4H 8S"))
    assert s.resign(0) == Result(1, 3, EndReason.RESIGN)
    with pytest.raises(GameOverError):
        s.resign(1)


def test_move_out_of_turn_is_refused() -> None:
    s = make_state()
    with pytest.raises(IllegalMoveError, match="it is seat 0's turn, not seat 1's"):
        s.apply(Move(1, HAND, one("6D"), SIDE, 0))


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        ([0, "hand", 99, "center", 0], "not in seat 0's hand"),
        ([0, "hand", one("AC"), "center", 3], "center index must be 0..2"),
        ([0, "hand", one("AC"), "side", 4], "side stack index must be 0..3"),
        ([0, "side", 0, "center", 0], "side stack 0 of seat 0 is empty"),
        ([0, "side", 5, "center", 0], "side stack index must be 0..3"),
        ([0, "payoff", 0, "center", 0], "arg null"),
        ([0, "deck", None, "center", 0], "unknown source"),
        ([0, "hand", one("AC"), "table", 0], "unknown target"),
        ([0, "nope", 1, "side", 0], "unknown source 'nope'"),
        ([True, "hand", one("AC"), "center", 0], "seat must be 0 or 1"),
        ([0, "hand", one("AC"), "center", True], "center index must be 0..2"),
        ([0, "hand", one("AC"), "center", 0.0], "center index must be 0..2"),
        ([0, "hand", float(one("AC")), "center", 0], "not in seat 0's hand"),
        ([0, "hand", one("AC"), "center"], "a move is [seat, source, arg, target, index]"),
        ([2, "hand", one("AC"), "center", 0], "seat must be 0 or 1"),
    ],
)
def test_malformed_and_illegal_moves_leave_the_state_untouched(move: list[Any], reason: str) -> None:
    s = make_state()
    before = s.digest()
    with pytest.raises(IllegalMoveError) as e:
        s.apply(move)
    assert reason in e.value.reason
    assert s.digest() == before
    assert s.check(move) == e.value.why
    assert str(e.value.why) == e.value.reason


def test_a_refusal_carries_the_positions_facts() -> None:
    s = make_state(center=("AC 2D", "", ""))
    with pytest.raises(IllegalMoveError) as e:
        s.apply(Move(0, HAND, one("4D"), CENTER, 0))
    assert e.value.why == refusals.DoesNotFit(one("4D"), 0, 3)
    assert e.value.reason == "4D does not fit center 0, which needs a 3 or a King"
    assert s.check(Move(1, HAND, one("6D"), SIDE, 0)) == refusals.NotYourTurn(0, 1)
    s.resign(0)
    assert s.check(Move(0, HAND, one("AC"), CENTER, 1)) == refusals.GameIsOver()


def test_a_view_judges_a_move_as_the_game_does() -> None:
    s = make_state(center=("AC 2D", "", ""), sides=(("", "5H", "", ""), ("", "", "", "")))
    for move in [
        Move(0, HAND, one("4D"), CENTER, 0),
        Move(0, SIDE, 1, CENTER, 0),
        Move(0, SIDE, 0, CENTER, 1),
        Move(0, PAYOFF, None, CENTER, 2),
        Move(0, HAND, one("3C"), CENTER, 0),
        Move(0, HAND, one("6D"), SIDE, 0),
    ]:
        assert view(s, 0).check(move) == s.check(move)
    assert view(s, 1).check(Move(1, HAND, one("6D"), SIDE, 0)) == refusals.NotYourTurn(0, 1)
    assert view(s, 1).check(Move(0, HAND, one("3C"), CENTER, 0)) == refusals.PlaysForOther(1, 0)


def test_play_returns_what_the_move_did() -> None:
    s = make_state(
        hands=("QC", "6D 7D"),
        center=("AC 2D 3S 4C 5C 6C 7C 8C 9C TC JC", "", ""),
    )
    stock = len(s.stock)
    played = s.play(Move(0, HAND, one("QC"), CENTER, 0))
    assert played.move.source is Pile.HAND and played.move.target is Pile.CENTER
    assert (played.card, played.completed, played.turn, played.turn_passed) == (one("QC"), True, 0, False)
    assert (played.drawer, played.drew) == (0, 5)  # the hand emptied: five new cards
    assert played.stock == stock + 12 - 5 == len(s.stock)
    hand = list(s.hands[0])
    played = s.play(Move(0, HAND, hand[0], SIDE, 2))
    assert (played.turn, played.turn_passed, played.completed) == (1, True, False)
    assert (played.drawer, played.drew) == (1, 3)  # the other seat fills its hand to five
    assert played.result is None


def test_two_copies_of_a_card_are_two_moves() -> None:
    s = make_state(hands=("AC AC 3C 4D 9S", "6D 7D 8D 9H TH"))
    aces = [
        m for m in s.legal_moves() if m.target == "center" and m.source == "hand" and m.arg in cards("AC AC")
    ]
    assert len({m.arg for m in aces}) == 2


def test_legal_moves_lists_every_source() -> None:
    s = make_state(
        payoff=("5C AD", "4H"),
        hands=("AC 9C 3C 4D KS", "6D"),
        sides=(("2S", "", "", ""), ("", "", "", "")),
        center=("", "AH", ""),
    )
    moves = set(s.legal_moves())
    assert Move(0, PAYOFF, None, CENTER, 0) in moves
    assert Move(0, SIDE, 0, CENTER, 1) in moves
    assert Move(0, HAND, one("KS"), CENTER, 1) in moves
    assert len([m for m in moves if m.target == "side"]) == 20


def test_view_shows_what_the_seat_may_see() -> None:
    g = Match(bytes(range(32))).game
    v = view(g, 0)
    assert v.hand == tuple(g.hands[0])
    assert v.hand_counts == (5, 5)
    assert v.payoff_tops == (g.payoff[0][-1], g.payoff[1][-1])
    assert v.payoff_counts == (20, 20)
    assert v.stock_count == len(g.stock)
    assert v.turn == g.turn


def test_view_does_not_depend_on_hidden_cards() -> None:
    """Two games that differ only in what seat 0 cannot see give seat 0 the same view."""
    g = Match(bytes(range(32))).game
    h = g.copy()
    # Swap the opponent's hand with stock cards, reorder the stock, and change the
    # pay-off cards under the tops: all hidden from seat 0.
    h.hands[1], h.stock[:5] = h.stock[:5], h.hands[1]
    h.stock.reverse()
    h.payoff[0][:-1], h.payoff[1][:-1] = h.payoff[1][:-1], h.payoff[0][:-1]
    assert h.digest() != g.digest()
    assert view(h, 0) == view(g, 0)
    assert view(h, 1) != view(g, 1)


def test_match_scores_and_ends_at_the_target() -> None:
    m = Match(bytes(range(32)), target=10)
    m.resign(1)
    assert m.scores == [len(m.game.payoff[1]), 0] and m.scores[0] == 20
    assert m.over and m.winner == 0


def test_match_undo_takes_back_moves_and_resignations() -> None:
    m = Match(bytes(range(32)), target=50)
    before = m.game.digest()
    m.apply(m.game.legal_moves()[0])
    mid = m.game.digest()
    m.resign(m.game.turn)
    assert m.scores != [0, 0]
    m.undo()
    assert m.scores == [0, 0] and m.game.result is None and m.game.digest() == mid
    m.undo()
    assert m.game.digest() == before and m.moves[-1] == []
    with pytest.raises(RulesError):
        m.undo()


def test_a_deal_says_whether_its_starter_was_drawn_by_lot() -> None:
    seen = set()
    for i in range(300):
        g = GameState.deal(i.to_bytes(32, "big"))
        tops = [g.payoff[0][-1] % 13, g.payoff[1][-1] % 13]
        assert g.by_lot == (tops[0] == tops[1]) == g.copy().by_lot
        if not g.by_lot:
            assert g.starter == (0 if tops[0] > tops[1] else 1)
        seen.add(g.by_lot)
    assert seen == {True, False}
