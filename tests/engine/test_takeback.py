"""Taking moves back (``undo``): the engine restores the state exactly, and refuses,
with a typed reason, every move that showed its mover a card."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_spite.engine import CENTER, HAND, PAYOFF, SIDE, GameState, IllegalMoveError, Match, Move, takeback
from p2p_spite.engine import refusals as no
from tests.engine.test_properties import pick
from tests.support.positions import cards, make_state

SEED = bytes(range(32))


def snapshot(s: GameState) -> tuple[object, ...]:
    """Every field of the state, the stream's position too (stronger than the digest)."""
    return (
        s.game,
        s.stream.index,
        [p[:] for p in s.payoff],
        [h[:] for h in s.hands],
        [[st[:] for st in sd] for sd in s.sides],
        [c[:] for c in s.center],
        s.stock[:],
        s.starter,
        s.turn,
        s.ply,
        s.result,
    )


def reveals_a_card(s: GameState, m: Move) -> bool:
    """Did ``m``, just played on ``s`` (the state before it), show its mover a card, or end
    the turn or the game?  Worked out from the position alone, not from what play() says."""
    after = s.copy()
    after.apply(m)
    if m.target == SIDE or after.result is not None or m.source == PAYOFF:
        return True
    completes = len(s.center[m.slot]) == 11
    empties = m.source == HAND and len(s.hands[m.seat]) == 1
    return completes or empties


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(min_size=32, max_size=32), st.integers(1, 40), st.integers(0, 2**32))
def test_every_undoable_move_and_its_undo_leave_the_state_as_it_was(seed: bytes, game: int, k: int) -> None:
    rng = random.Random(k)
    s = GameState.deal(seed, game)
    steps = tried = 0
    while s.result is None and steps < 100:
        before, digest = snapshot(s), s.digest()
        for m in s.legal_moves():
            t = s.copy()
            played = t.play(m)
            why = takeback.refusal(t, played)
            assert (why is None) == (not reveals_a_card(s, m)), (m, why)
            if why is None:
                takeback.take_back(t, played)
                assert t.digest() == digest
                assert snapshot(t) == before
                tried += 1
            else:
                with pytest.raises(IllegalMoveError) as e:
                    takeback.take_back(t, played)
                assert e.value.why == why
        assert snapshot(s) == before
        s.apply(pick(rng, s.legal_moves()))
        steps += 1
    assert tried or steps < 3


def test_each_reason_a_move_cannot_be_taken_back() -> None:
    s = make_state(
        payoff=("5C AD", "4H 8S"),
        hands=("AC 2C JC KS 9D", "6D 7D 8D 9H TH"),
        center=("", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH", ""),
    )
    two, jc, ks, nine = cards("2C JC KS 9D")
    payoff = s.play(Move(0, PAYOFF, None, CENTER, 0))  # the ace of diamonds: the 5C turns up
    assert takeback.refusal(s, payoff) == no.ShowedPayoff()
    jack = s.play(Move(0, HAND, jc, CENTER, 1))
    assert takeback.refusal(s, jack) is None
    takeback.take_back(s, jack)
    s.play(Move(0, HAND, jc, CENTER, 1))
    queen = s.play(Move(0, HAND, ks, CENTER, 1))  # the King as a Queen: the center completes
    assert queen.completed and takeback.refusal(s, queen) == no.CompletedCenter(1)
    two_c = s.play(Move(0, HAND, two, CENTER, 0))
    assert takeback.refusal(s, two_c) is None
    discard = s.play(Move(0, HAND, nine, SIDE, 2))
    assert takeback.refusal(s, discard) == no.EndedTurn()

    t = make_state(hands=("AC", "6D 7D 8D 9H TH"))
    last = t.play(Move(0, HAND, cards("AC")[0], CENTER, 0))  # the hand empties: five new cards
    assert last.drew == 5 and takeback.refusal(t, last) == no.RefilledHand()


def test_a_played_that_is_not_the_last_move_is_refused() -> None:
    s = make_state()
    ac, two = cards("AC 2C")
    first = s.play(Move(0, HAND, ac, CENTER, 0))
    s.play(Move(0, HAND, two, CENTER, 0))
    before = snapshot(s)
    with pytest.raises(IllegalMoveError) as e:
        takeback.take_back(s, first)  # the 2C lies on it
    assert e.value.why == no.NothingToTakeBack()
    assert snapshot(s) == before


def test_the_match_takes_back_to_the_turn_start_and_no_further() -> None:
    m = Match(SEED, 50)
    g = m.game
    seat = g.turn
    assert m.takeback_refusal(seat) == no.NothingToTakeBack()
    assert m.takeback_refusal(1 - seat) == no.NotYourTurn(seat, 1 - seat)
    start = snapshot(g)
    rng = random.Random(7)
    made: list[Move] = []
    while True:  # the seat's undoable moves, as many as come
        moves = [mv for mv in g.legal_moves() if mv.target == CENTER and mv.source != PAYOFF]
        moves = [mv for mv in moves if len(g.center[mv.slot]) < 11 and len(g.hands[seat]) > 1]
        if not moves or len(made) == 3:
            break
        made.append(m.play(rng.choice(moves)).move)
    assert made, "the deal of this seed has a center move"
    for mv in reversed(made):
        assert m.moves[-1][-1] == mv
        assert m.take_back(seat).move == mv
    assert snapshot(m.game) == start and m.moves[-1] == []
    with pytest.raises(IllegalMoveError) as e:
        m.take_back(seat)
    assert e.value.why == no.NothingToTakeBack()


def test_after_the_discard_the_mover_is_told_it_ended_the_turn() -> None:
    m = Match(SEED, 50)
    g = m.game
    seat = g.turn
    discard = next(mv for mv in g.legal_moves() if mv.target == SIDE)
    m.play(discard)
    assert m.takeback_refusal(seat) == no.EndedTurn()
    assert m.takeback_refusal(1 - seat) == no.NothingToTakeBack()


def test_a_move_applied_without_play_is_not_taken_back() -> None:
    """Replaying a record (apply, took) keeps no trace of what the moves did: nothing to take back."""
    m = Match(SEED, 50)
    g = m.game
    mv = next(mv for mv in g.legal_moves() if mv.target == CENTER and mv.source == HAND)
    m.apply(mv)
    assert m.takeback_refusal(g.turn) == no.NothingToTakeBack()
