"""Whole games with a private deck: two honest seats in one process, the real
engine and bots driving every draw, reveal and reshuffle (fairdeck/sim.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from p2p_spite.bots import make_bot
from p2p_spite.engine import HAND, SIDE, Match, Move, PlayerView, view
from p2p_spite.fairdeck import (
    CheatError,
    FairDeck,
    Message,
    OrderError,
    Shuffle,
    from_wire,
    private_game,
    to_wire,
)
from p2p_spite.fairdeck import group as grp
from p2p_spite.fairdeck.scheme import _reencrypt
from p2p_spite.fairdeck.sim import PrivateTable
from p2p_spite.fairdeck.table import SeatGame
from p2p_spite.storage import record

MATCH = bytes(range(100, 116))
SEED = bytes(range(32))


def _pump(decks: list[FairDeck]) -> None:
    moved = True
    while moved:
        moved = False
        for seat in (0, 1):
            for msg in decks[seat].outgoing():
                decks[1 - seat].receive(from_wire(to_wire(msg)))
                moved = True


def test_two_seats_play_a_private_game_each_knowing_only_its_own_cards() -> None:
    """No privilege anywhere: each seat runs the engine on stand-ins for the
    cards it cannot see (fairdeck/table.py), its bot sees its view, the only
    link is the private-deck messages (and the move with its slot).  The
    revealed deck then replays the game, and every view each seat had is
    exactly the view the true game gave it."""
    table = PrivateTable(MATCH, SEED, 1, [bytes([40 + seat]) * 32 for seat in (0, 1)])
    seats, decks = table.seats, table.decks
    bots = [make_bot("easy", 21), make_bot("easy", 22)]
    views: list[tuple[PlayerView, PlayerView]] = [(table.view(0), table.view(1))]
    while table.result is None:
        turn = table.turn
        assert seats[1].state.turn == turn
        # SeatGame.begin on both seats, the played card shown (and a reshuffle made),
        # SeatGame.finish on both, the drawn cards shown to their holders
        table.apply(bots[turn].choose(views[-1][turn]))
        views.append((table.view(0), table.view(1)))
    moves = table.moves
    assert seats[1].state.result == seats[0].state.result
    for v in views:
        for seat_view in v:
            assert all(c < 104 for c in seat_view.hand) and all(
                c is None or c < 104 for c in seat_view.payoff_tops
            )
    r0, r1 = decks[0].result, decks[1].result
    assert r0 is not None and r0 == r1
    true = private_game(SEED, 1, r0.deal, r0.reshuffles)
    assert (view(true, 0), view(true, 1)) == views[0]
    for move, seen in zip(moves, views[1:], strict=True):
        true.apply(move)
        assert (view(true, 0), view(true, 1)) == seen
    assert true.result == seats[0].state.result and len(r0.reshuffles) >= 1
    # What the reveal established replays the game move for move, as a version-2 record.
    match = Match(SEED, 10_000)
    match.use_deal(lambda: private_game(SEED, 1, r0.deal, r0.reshuffles))
    for m in moves:
        match.apply(m)
    data = json.loads(record.dumps(record.to_json(match, private=[r0])))
    replayed = record.verify(record.from_json(data))
    assert replayed.game.result == table.result and replayed.total_moves == len(moves)


def test_a_peer_that_names_another_card_than_its_slot_holds_is_refused() -> None:
    decks = [FairDeck(MATCH, 2, seat, bytes([50 + seat]) * 32) for seat in (0, 1)]
    _pump(decks)
    seats = [SeatGame(d, SEED) for d in decks]
    turn = seats[0].state.turn
    hand = seats[turn].view().hand
    slot = seats[turn].deck.slot_of(hand[0])
    lie = Move(turn, HAND, hand[1], SIDE, 0)  # names another card of its hand
    for s in seats:
        s.begin(lie, slot)
    _pump(decks)
    with pytest.raises(OrderError, match="names card"):
        seats[1 - turn].finish()


@pytest.mark.slow
def test_a_reshuffle_pass_with_wrong_randomness_is_refused_on_receipt_with_its_round() -> None:
    """Seat 1 re-encrypts one ciphertext of its first reshuffle pass once more
    (the same card, so nothing would show during play): its proof of shuffle
    no longer holds, so seat 0 refuses the pass the moment it arrives, naming
    the seat and the round, before it makes a share of the new stock."""
    holder: list[PrivateTable] = []

    def tamper(seat: int, msg: Message) -> Message:
        if seat == 1 and isinstance(msg, Shuffle) and msg.round == 1:
            joint = holder[0].decks[1]._joint
            assert joint is not None
            deck = list(msg.deck)
            deck[3] = _reencrypt(deck[3], (grp.base_g().mul(7), joint.mul(7)))
            return replace(msg, deck=tuple(deck))
        return msg

    table = PrivateTable(MATCH, SEED, 5, [bytes([60]) * 32, bytes([61]) * 32], tamper=tamper)
    holder.append(table)  # the first reshuffle comes after the deal
    bots = [make_bot("easy", 5), make_bot("easy", 6)]
    with pytest.raises(CheatError) as caught:
        while table.result is None:
            table.apply(bots[table.turn].choose(table.view(table.turn)))
    err = caught.value
    assert err.kind == "shuffle-proof" and err.seat == 1
    assert err.evidence["round"] == 1 and err.evidence["step"] == 1
    d0 = table.decks[0]
    assert len(d0.rounds[1].passes) == 1  # seat 1's pass was not taken
    assert not [m for m in d0.outgoing() if not isinstance(m, Shuffle)]  # no share of the new stock
