"""Taking back at the protocol core (docs/protocol.md, *Taking back*): the request, its
answer and the undo, honest and hostile.  Every message is tried early, late, twice,
for the wrong seat, lying and flooding; a refused one changes nothing on the side that
refused it."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_spite.contracts.session import MovePlayed
from p2p_spite.core.game import Action, GameCore
from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import (
    MAX_TAKEBACKS,
    Endpoint,
    LocalConfig,
    TakebackAnswered,
    TakebackRequested,
    TakenBack,
)
from p2p_spite.core.wire import Refusal, RemoteProtocolError, encode
from p2p_spite.engine import PAYOFF, SIDE, Match, Move
from tests.support.net import drain, pair, pump
from tests.support.positions import quiet_moves


def _find_seed() -> bytes:
    """A seed whose first player can take back two moves and can also play its pay-off card."""
    for i in range(20_000):
        seed = i.to_bytes(32, "big")
        m = Match(seed)
        g = m.game
        if len(quiet_moves(m)) >= 2 and any(mv.source == PAYOFF for mv in g.legal_moves()):
            return seed
    raise AssertionError("no seed")


SEED = _find_seed()


class Pair:
    """The two endpoints of a match in play: ``on`` is the side on turn (the requester)."""

    def __init__(self) -> None:
        h, j, eh, ej = pair(LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob"))
        assert h.core is not None and j.core is not None, (eh, ej)
        self.on, self.off = (h, j) if h.core.match.game.turn == 0 else (j, h)

    @property
    def onc(self) -> GameCore:
        assert self.on.core is not None
        return self.on.core

    @property
    def offc(self) -> GameCore:
        assert self.off.core is not None
        return self.off.core

    def play(self, move: Move) -> None:
        c = self.onc
        c.apply(Action(c.match.game_number, c.seat, move))
        self.on.send_action(c.position - 1)
        pump(self.on, self.off)

    def ask(self) -> tuple[list[Any], list[Any]]:
        self.on.send_takeback_request()
        return pump(self.on, self.off)

    def state(self, c: GameCore) -> tuple[object, ...]:
        return (c.position, c.head, c.match.game.digest(), list(c.match.moves[-1]))


def _refused_by(ep: Endpoint, msg: dict[str, object]) -> RemoteProtocolError:
    ep.receive_data(encode(msg))
    evs: list[object] = []
    drain(ep, evs)
    assert evs and isinstance(evs[-1], RemoteProtocolError), evs
    return evs[-1]


def test_a_takeback_allowed_goes_back_one_action_on_both_sides() -> None:
    p = Pair()
    before = p.state(p.onc)
    m = quiet_moves(p.onc.match)[0]
    p.play(m)
    e_on, e_off = p.ask()
    asked = [e for e in e_off if isinstance(e, TakebackRequested)]
    assert asked and asked[0].n == 0 and asked[0].played.move == m
    assert p.off.answer_takeback(0, True)
    e_on, e_off = pump(p.on, p.off)
    assert any(isinstance(e, TakebackAnswered) and e.ok for e in e_on)
    assert any(isinstance(e, TakenBack) and e.played.move == m for e in e_off)
    assert p.state(p.onc) == p.state(p.offc) == before
    assert not p.on.takebacks.undo_unacked  # the peer acknowledged it
    p.play(m)  # the same move again, as action 0 again
    assert p.onc.head == p.offc.head and p.onc.position == 1


def test_a_takeback_refused_changes_nothing() -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    before = p.state(p.onc)
    p.ask()
    assert p.off.answer_takeback(0, False)
    e_on, _ = pump(p.on, p.off)
    assert any(isinstance(e, TakebackAnswered) and not e.ok for e in e_on)
    assert p.state(p.onc) == p.state(p.offc) == before and not p.on.takebacks.asking


def test_back_to_the_turns_start_one_move_at_a_time() -> None:
    p = Pair()
    before = p.state(p.onc)
    for m in quiet_moves(p.onc.match)[:2]:
        p.play(m)
    for n in (1, 0):
        p.ask()
        assert p.off.answer_takeback(n, True)
        pump(p.on, p.off)
    assert p.state(p.onc) == p.state(p.offc) == before


def test_a_move_crossing_the_answer_voids_the_request() -> None:
    """The requester plays on while its request is on its way: the other side's ok comes
    too late and is ignored; the other side drops its allowance at the move."""
    p = Pair()
    first, second = quiet_moves(p.onc.match)[:2]
    p.play(first)
    p.on.send_takeback_request()
    c = p.onc
    c.apply(Action(1, c.seat, second))
    p.on.send_action(1)  # crosses ...
    p.off.receive_data(p.on.data_to_send())
    evs: list[object] = []
    drain(p.off, evs)  # (the request, then the move: the request is void at once)
    assert not p.off.answer_takeback(0, True)  # ... nothing left to answer
    # an ok sent before the move arrived is ignored by the requester
    p2 = Pair()
    p2.play(first)
    p2.on.send_takeback_request()
    c2 = p2.onc
    p2.off.receive_data(p2.on.data_to_send())
    drain(p2.off, [])
    assert p2.off.answer_takeback(0, True)
    c2.apply(Action(1, c2.seat, second))
    p2.on.send_action(1)
    e_on, e_off = pump(p2.on, p2.off)
    assert not any(isinstance(e, TakebackAnswered | TakenBack | RemoteProtocolError) for e in e_on + e_off)
    assert p2.state(c2) == p2.state(p2.offc) and c2.position == 2


# -- hostile ----------------------------------------------------------------------


def test_a_takeback_before_the_match_is_refused() -> None:
    h = Endpoint(LocalConfig(HOST, "Ann", seed=SEED))
    h.initiate()
    e = _refused_by(h, {"t": "takeback", "n": 0})
    assert e.code is Refusal.UNEXPECTED


def test_a_takeback_off_the_senders_turn_is_refused() -> None:
    """The wrong seat: the side off turn asks (there is no move of its own to take back)."""
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    before = p.state(p.onc)
    e = _refused_by(p.on, {"t": "takeback", "n": 0})
    assert e.code is Refusal.UNEXPECTED and p.state(p.onc) == before


def test_a_takeback_after_the_turn_ended_is_refused() -> None:
    p = Pair()
    discard = next(m for m in p.onc.match.game.legal_moves() if m.target == SIDE)
    p.play(discard)
    before = p.state(p.offc)
    e = _refused_by(p.off, {"t": "takeback", "n": 0})  # the discard's author, now off turn
    assert e.code is Refusal.UNEXPECTED and p.state(p.offc) == before


def test_a_second_takeback_before_the_answer_is_refused() -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    p.ask()
    before = p.state(p.offc)
    e = _refused_by(p.off, {"t": "takeback", "n": 0})
    assert e.code is Refusal.UNEXPECTED and p.state(p.offc) == before


@pytest.mark.parametrize("lie", ["payoff", "no-such-action", "not-the-last"])
def test_a_lying_takeback_is_refused(lie: str) -> None:
    p = Pair()
    g = p.onc.match.game
    if lie == "payoff":  # it turned up the next pay-off card
        p.play(next(m for m in g.legal_moves() if m.source == PAYOFF))
        n = 0
    elif lie == "no-such-action":
        p.play(quiet_moves(p.onc.match)[0])
        n = 5
    else:
        for m in quiet_moves(p.onc.match)[:2]:
            p.play(m)
        n = 0
    before = p.state(p.offc)
    e = _refused_by(p.off, {"t": "takeback", "n": n})
    assert e.code is Refusal.TAKEBACK and p.state(p.offc) == before


def test_a_takeback_at_the_turns_start_is_refused() -> None:
    """No move made yet this turn: there is nothing of the sender's to take back."""
    p = Pair()
    discard = next(m for m in p.onc.match.game.legal_moves() if m.target == SIDE)
    p.play(discard)  # the turn passes: the other side is on turn, with no move yet
    e = _refused_by(p.on, {"t": "takeback", "n": 0})
    assert e.code is Refusal.TAKEBACK


def test_a_flood_of_takebacks_is_refused() -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    for _ in range(MAX_TAKEBACKS):
        p.off.receive_data(encode({"t": "takeback", "n": 0}))
        drain(p.off, [])
        assert p.off.answer_takeback(0, False)
        p.on.data_to_send()
    before = p.state(p.offc)
    e = _refused_by(p.off, {"t": "takeback", "n": 0})
    assert e.code is Refusal.FLOOD and p.state(p.offc) == before


def test_the_limit_is_per_turn() -> None:
    """A new turn of the requester's may ask again: the count starts afresh."""
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    for _ in range(MAX_TAKEBACKS):
        p.ask()
        p.off.answer_takeback(0, False)
        pump(p.on, p.off)
    assert p.on.takebacks.asked == MAX_TAKEBACKS
    p.play(next(m for m in p.onc.match.game.legal_moves() if m.target == SIDE))
    assert p.on.takebacks.asked == 0


def test_an_answer_to_no_request_is_refused() -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    before = p.state(p.onc)
    e = _refused_by(p.on, {"t": "takeback-answer", "n": 0, "ok": True})
    assert e.code is Refusal.UNEXPECTED and p.state(p.onc) == before


def test_an_answer_given_twice_is_refused() -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    p.ask()
    p.off.answer_takeback(0, False)
    pump(p.on, p.off)
    e = _refused_by(p.on, {"t": "takeback-answer", "n": 0, "ok": True})
    assert e.code is Refusal.UNEXPECTED


@pytest.mark.parametrize("how", ["not-allowed", "refused", "after-a-move", "the-wrong-move"])
def test_an_undo_not_allowed_is_refused(how: str) -> None:
    p = Pair()
    first, second = quiet_moves(p.onc.match)[:2]
    p.play(first)
    n = 0
    if how == "refused":
        p.ask()
        p.off.answer_takeback(0, False)
        pump(p.on, p.off)
    elif how == "after-a-move":  # allowed, then a move crossed: the allowance is gone
        p.ask()
        p.off.answer_takeback(0, True)
        p.on.data_to_send()
        p.play(second)
        n = 1
    elif how == "the-wrong-move":
        p.play(second)
        p.ask()
        p.off.answer_takeback(1, True)
        p.on.data_to_send()
        n = 0
    before = p.state(p.offc)
    e = _refused_by(p.off, {"t": "undo", "n": n, "d": p.offc.match.game.digest()})
    assert e.code is Refusal.FORGED and p.state(p.offc) == before


def test_an_undo_to_another_state_is_refused() -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    p.ask()
    p.off.answer_takeback(0, True)
    p.on.data_to_send()
    before = p.state(p.offc)
    e = _refused_by(p.off, {"t": "undo", "n": 0, "d": bytes(32)})
    assert e.code is Refusal.DESYNC and p.state(p.offc) == before


def test_an_undo_of_our_own_move_is_refused() -> None:
    """The side off turn cannot take back the mover's move."""
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    before = p.state(p.onc)
    e = _refused_by(p.on, {"t": "undo", "n": 0, "d": bytes(32)})
    assert e.code is Refusal.FORGED and p.state(p.onc) == before


@pytest.mark.parametrize(
    "msg",
    [
        {"t": "takeback", "n": -1},
        {"t": "takeback", "n": True},
        {"t": "takeback-answer", "n": 0, "ok": 1},
        {"t": "takeback-answer", "n": 0},
        {"t": "undo", "n": 0, "d": b"short"},
    ],
)
def test_malformed_takeback_messages_are_refused(msg: dict[str, object]) -> None:
    p = Pair()
    p.play(quiet_moves(p.onc.match)[0])
    before = p.state(p.offc)
    e = _refused_by(p.off, msg)
    assert e.code is Refusal.MALFORMED and p.state(p.offc) == before


def test_the_requests_move_is_shown_and_then_taken_back() -> None:
    """What each side's driver sees: the move, then (on the other side) the request."""
    p = Pair()
    m = quiet_moves(p.onc.match)[0]
    c = p.onc
    c.apply(Action(1, c.seat, m))
    p.on.send_action(0)
    p.on.send_takeback_request()
    _, e_off = pump(p.on, p.off)
    kinds = [type(e) for e in e_off]
    assert kinds.index(MovePlayed) < kinds.index(TakebackRequested)


def test_an_undo_lost_with_the_connection_leaves_the_move_on_both_sides() -> None:
    """The requester took the move back, but its undo never arrived: on the new connection
    the other side is one action ahead and catches the requester up with the move (its
    own, with its own tag), so both go on with the move standing, one history."""
    p = Pair()
    m = quiet_moves(p.onc.match)[0]
    p.play(m)
    p.ask()
    p.off.answer_takeback(0, True)
    e_on, _ = pump(p.on, p.off, rounds=1)  # the answer reaches the requester, which takes back
    assert any(isinstance(e, TakebackAnswered) for e in e_on) and p.onc.position == 0
    p.on.data_to_send()  # ... and its undo is lost with the connection
    assert p.offc.position == 1
    on2 = Endpoint(LocalConfig(p.on.hs.role, "Ann"), p.onc)
    off2 = Endpoint(LocalConfig(p.off.hs.role, "Bob"), p.offc)
    on2.initiate()
    off2.initiate()
    e_on2, e_off2 = pump(on2, off2)
    assert not any(isinstance(e, RemoteProtocolError) for e in e_on2 + e_off2), (e_on2, e_off2)
    assert p.onc.position == p.offc.position == 1 and p.onc.head == p.offc.head
    assert p.onc.match.moves[-1] == p.offc.match.moves[-1] == [m]


def test_an_undo_the_peer_acknowledged_cannot_come_back_at_a_sync() -> None:
    """The other side acknowledged the undo, then (hostile) keeps the move and, on the new
    connection, claims to be one action ahead, to catch the requester up with the move it
    took back (its own, with its own tag): refused (forged), the move stays taken back."""
    p = Pair()
    m = quiet_moves(p.onc.match)[0]
    p.play(m)
    p.ask()
    p.off.answer_takeback(0, True)
    e_on, _ = pump(p.on, p.off, rounds=1)  # the answer reaches the requester, which takes back
    assert any(isinstance(e, TakebackAnswered) for e in e_on) and p.onc.position == 0
    p.on.data_to_send()  # the undo, which the hostile side reads ...
    p.on.receive_data(encode({"t": "ack", "n": 0}))  # ... and acknowledges, but keeps the move
    drain(p.on, e_on)
    assert p.offc.position == 1 and not any(isinstance(e, RemoteProtocolError) for e in e_on)
    on2 = Endpoint(LocalConfig(p.on.hs.role, "Ann"), p.onc)
    off2 = Endpoint(LocalConfig(p.off.hs.role, "Bob"), p.offc)
    on2.initiate()
    off2.initiate()
    e_on2, _ = pump(on2, off2)
    refused = [e for e in e_on2 if isinstance(e, RemoteProtocolError)]
    assert refused and refused[0].code == Refusal.FORGED, e_on2
    assert p.onc.position == 0 and p.onc.match.moves[-1] == []
