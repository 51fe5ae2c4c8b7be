"""Whole games with a private deck: two honest seats in one process, the real
engine and bots driving every draw, reveal and reshuffle (fairdeck/sim.py)."""

from __future__ import annotations

import json

from p2p_spite import record
from p2p_spite.bots import make_bot
from p2p_spite.engine import Match, Move, view
from p2p_spite.fairdeck import private_game
from p2p_spite.fairdeck.sim import PrivateTable

MATCH = bytes(range(100, 116))
SEED = bytes(range(32))


def test_a_private_game_plays_to_its_end_and_both_seats_agree_on_the_deck() -> None:
    table = PrivateTable(MATCH, SEED, 1, [bytes([1]) * 32, bytes([2]) * 32])
    first_deal = [*table.state.payoff[0], *table.state.payoff[1]]
    bots = [make_bot("easy", 11), make_bot("easy", 12)]
    moves: list[Move] = []
    while table.state.result is None:  # table.apply checks every seat's cards against the engine
        move = bots[table.state.turn].choose(view(table.state, table.state.turn))
        table.apply(move)
        moves.append(move)
    r0, r1 = table.results()
    assert r0 == r1
    assert r0.deal[:40] == first_deal
    assert r0.reshuffles == table.orders
    assert len(r0.reshuffles) >= 1  # the seeded bots complete at least one center stack
    # What the reveal established replays the game move for move, as a version-2 record.
    match = Match(SEED, 10_000)
    match.use_deal(lambda: private_game(SEED, 1, r0.deal, r0.reshuffles))
    for m in moves:
        match.apply(m)
    assert match.game.digest() == table.state.digest()
    data = json.loads(record.dumps(record.to_json(match, private=[r0])))
    replayed = record.verify(record.from_json(data))
    assert replayed.game.result == table.state.result and replayed.total_moves == len(moves)
