"""Taking back through the seat machine alone (core/machine.py, docs/protocol.md, *Taking
back*): two machines over two endpoints linked in memory, a clock given by hand, no
asyncio.  Each decision the shell used to make (may we ask, the peer asks, the answer,
taken back ours or the peer's, the undo's ack owed, an action due meanwhile) is an
input here and its effects are checked in their order, honest and hostile."""

from __future__ import annotations

from typing import Any

import pytest

from p2p_spite.contracts.news import Owed, Stalled
from p2p_spite.contracts.session import MoveTakenBack, TakebackAsked, TakebackRefused, Takebacks
from p2p_spite.core.effects import Flush, MakeDue, PeerHolds, PeerOverdue, Show, Unseen, WakeAt, Withdraw
from p2p_spite.core.game import Action
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.protocol import (
    NEED_DATA,
    Acked,
    Endpoint,
    TakebackAnswered,
    TakebackRequested,
    TakenBack,
)
from p2p_spite.core.takebacks import UNDO_ACK_DEADLINE
from p2p_spite.core.wire import Refusal
from p2p_spite.engine import IllegalMoveError, Played
from p2p_spite.engine.refusals import TakebackOffline, TakebackWaiting
from tests.core.test_takeback_protocol import Pair
from tests.support.net import messages
from tests.support.positions import quiet_moves


def _sent(ep: Endpoint) -> list[object]:
    return [m["t"] for m in messages(ep.data_to_send())]


def _deliver(src: Endpoint, dst: Endpoint) -> list[Any]:
    """What ``src`` queued, read by ``dst``: its events (up to an undo, which its machine
    must acknowledge before the endpoint reads on)."""
    dst.receive_data(src.data_to_send())
    evs = []
    while (ev := dst.next_event()) is not NEED_DATA:
        evs.append(ev)
        if isinstance(ev, TakenBack):
            break
    return evs


class Seats(Pair):
    """A match in play with a seat machine each: ``on`` (on turn) played a move it may take
    back, and ``off`` acknowledged it."""

    def __init__(self) -> None:
        super().__init__()
        self.mon = SeatMachine(self.onc, peer_name="Bob")
        self.moff = SeatMachine(self.offc, peer_name="Ann")
        self.move = quiet_moves(self.onc.match)[0]
        self.play(self.move)  # (pumped: the peer has it, acknowledged)
        self.mon.peer_holds(1)

    def request(self) -> tuple[Played, TakebackRequested]:
        """``on`` asks; ``off`` reads the request."""
        played, fx = self.mon.ask_takeback(self.on)
        assert fx == [Flush()]
        (ev,) = [e for e in _deliver(self.on, self.off) if isinstance(e, TakebackRequested)]
        return played, ev

    def allowed(self, now: float) -> list[Any]:
        """``on`` asks, ``off``'s driver allows: ``on``'s effects of the answer."""
        _, ev = self.request()
        asked = Show(TakebackAsked(self.onc.seat, ev.played))
        assert self.moff.takeback_received(ev, self.off, 0.0) == [asked]
        assert self.moff.answer_takeback(True, self.off) == (True, [Flush()])
        (answer,) = _deliver(self.off, self.on)
        assert answer == TakebackAnswered(0, True)
        return self.mon.takeback_received(answer, self.on, now)

    @property
    def off_seat(self) -> int:
        return 1 - self.onc.seat


def test_an_allowed_takeback_is_written_then_sent_then_its_ack_is_owed_then_shown() -> None:
    s = Seats()
    fx = s.allowed(100.0)
    assert s.onc.position == 0
    assert fx[:3] == [Withdraw(0), Flush(), WakeAt(100.0 + UNDO_ACK_DEADLINE)]
    assert [type(f) for f in fx[3:]] == [Show, Unseen]
    shown = fx[3]
    assert isinstance(shown, Show) and isinstance(shown.event, MoveTakenBack)
    assert shown.event.seat == s.onc.seat and shown.event.played.move == s.move
    assert s.mon.held == 0  # the action taken back is nobody's now
    assert s.mon.undo_waits(s.on)  # our next action waits for the ack
    # the peer takes the undo: written down, acknowledged, shown
    (undo,) = _deliver(s.on, s.off)
    assert isinstance(undo, TakenBack)
    got = s.moff.takeback_received(undo, s.off, 101.0)
    assert got[:2] == [Withdraw(0), Flush()] and got[-1] == Unseen()
    assert _sent(s.off) == ["ack"] and s.offc.position == 0


def test_the_undos_ack_pays_its_debt_and_frees_our_next_action() -> None:
    s = Seats()
    s.allowed(100.0)
    (undo,) = _deliver(s.on, s.off)
    s.moff.takeback_received(undo, s.off, 101.0)
    (ack,) = _deliver(s.off, s.on)
    assert isinstance(ack, Acked)
    assert s.mon.acked(ack.n, s.on) == []
    assert not s.mon.undo_waits(s.on)
    assert s.mon.tick(s.on, 100.0 + UNDO_ACK_DEADLINE) == []  # paid: nothing overdue


def test_an_undo_never_acknowledged_stops_the_match_at_its_deadline() -> None:
    """The peer took our undo and stays silent about it (its pings do not count)."""
    s = Seats()
    s.allowed(100.0)
    assert s.mon.tick(s.on, 100.0 + UNDO_ACK_DEADLINE - 0.1) == [WakeAt(100.0 + UNDO_ACK_DEADLINE)]
    overdue = Stalled("Bob", Owed.UNDO_ACK, UNDO_ACK_DEADLINE)
    assert s.mon.tick(s.on, 100.0 + UNDO_ACK_DEADLINE) == [PeerOverdue(overdue, Refusal.STALLED)]
    assert s.mon.undo_waits(s.on)  # (still: the shell stops the match)


def test_a_new_connection_settles_an_undo_left_unacknowledged() -> None:
    s = Seats()
    s.allowed(100.0)
    assert s.mon.undo_waits(None)  # no connection: wait for one
    other = Pair().on  # (any other endpoint: the connection of the moment changed)
    assert not s.mon.undo_waits(other)
    assert not s.mon.undo_waits(s.on)  # (settled for good)


def test_an_action_due_while_our_undo_is_unacked_is_made_only_after_the_ack() -> None:
    s = Seats()
    assert s.mon.action_due(s.on, Action(1, s.onc.seat)) == [MakeDue(Action(1, s.onc.seat))]
    s.allowed(100.0)
    due = Action(1, s.onc.seat)  # (a resignation the endpoint made due)
    assert s.mon.action_due(s.on, due) == []  # kept
    (undo,) = _deliver(s.on, s.off)
    s.moff.takeback_received(undo, s.off, 101.0)
    (ack,) = _deliver(s.off, s.on)
    assert s.mon.acked(ack.n, s.on) == [MakeDue(due)]
    assert s.mon.acked(ack.n, s.on) == []  # (made once)


def test_a_lost_connection_drops_an_action_kept_for_after_the_undo() -> None:
    s = Seats()
    s.allowed(100.0)
    s.mon.action_due(s.on, Action(1, s.onc.seat))
    assert s.mon.takeback_lost() == []  # (our request was answered: nothing to show)
    assert s.mon.acked(1, s.on) == [PeerHolds(1)]  # nothing kept any more


def test_a_refusal_is_shown_and_our_request_is_over() -> None:
    s = Seats()
    _, ev = s.request()
    s.moff.takeback_received(ev, s.off, 0.0)
    assert s.moff.answer_takeback(False, s.off) == (True, [Flush()])
    (answer,) = _deliver(s.off, s.on)
    assert s.mon.takeback_received(answer, s.on, 1.0) == [Show(TakebackRefused(s.off_seat))]
    assert s.mon.takeback.asking is None and s.onc.position == 1
    assert s.mon.takeback_lost() == []  # (nothing waits any more: no second refusal)


@pytest.mark.parametrize(("rule", "ok"), [(Takebacks.ALWAYS, True), (Takebacks.NEVER, False)])
def test_a_standing_rule_answers_without_asking_the_driver(rule: Takebacks, ok: bool) -> None:
    s = Seats()
    s.moff.takeback.takebacks = rule
    _, ev = s.request()
    assert s.moff.takeback_received(ev, s.off, 0.0) == [Flush()]  # nothing shown
    assert messages(s.off.data_to_send()) == [{"t": "takeback-answer", "n": 0, "ok": ok, "rule": True}]
    assert s.moff.answer_takeback(True, s.off) == (False, [])  # (the driver was never asked)


@pytest.mark.parametrize("how", ["never-asked", "twice", "peer-played-on"])
def test_an_answer_not_waited_for_is_void_and_sends_nothing(how: str) -> None:
    """Never asked for, given a second time, or after the peer's action voided the request."""
    s = Seats()
    if how != "never-asked":
        _, ev = s.request()
        s.moff.takeback_received(ev, s.off, 0.0)
    if how == "twice":
        assert s.moff.answer_takeback(True, s.off) == (True, [Flush()])
        s.off.data_to_send()
    elif how == "peer-played-on":
        s.moff.peer_acted()  # its action came: it voids its request
    assert s.moff.answer_takeback(False, s.off) == (False, [])
    assert s.off.data_to_send() == b""


@pytest.mark.parametrize("how", ["lost", "other-connection", "stopped"])
def test_an_answer_on_a_connection_the_request_did_not_come_on_is_void(how: str) -> None:
    s = Seats()
    _, ev = s.request()
    s.moff.takeback_received(ev, s.off, 0.0)
    if how == "lost":
        assert s.moff.takeback_lost() == []
        now: Endpoint | None = s.off
    else:
        now = Pair().off if how == "other-connection" else None  # (None: the session stopped)
    assert s.moff.answer_takeback(True, now) == (False, [])
    assert s.off.data_to_send() == b""


def test_a_yes_to_a_move_no_longer_our_last_takes_nothing_back() -> None:
    """A late or lying answer that reaches the machine (the endpoint passed it on) for an
    action that is not our last: nothing is taken back, written or sent."""
    s = Seats()
    s.request()
    before = (s.onc.position, s.onc.head)
    assert s.mon.takeback_received(TakebackAnswered(7, True), s.on, 1.0) == []
    assert (s.onc.position, s.onc.head) == before and s.on.data_to_send() == b""
    assert s.mon.tick(s.on, 1.0 + UNDO_ACK_DEADLINE) == []  # nothing owed


def test_asking_offline_or_twice_is_refused_with_nothing_sent() -> None:
    s = Seats()
    with pytest.raises(IllegalMoveError) as offline:
        s.mon.ask_takeback(None)
    assert isinstance(offline.value.why, TakebackOffline)
    s.request()
    with pytest.raises(IllegalMoveError) as twice:
        s.mon.ask_takeback(s.on)
    assert isinstance(twice.value.why, TakebackWaiting)
    assert s.on.data_to_send() == b""


def test_our_request_lost_with_the_connection_is_shown_refused_once() -> None:
    s = Seats()
    s.request()
    assert s.mon.takeback_lost() == [Show(TakebackRefused(s.off_seat, lost=True))]
    assert s.mon.takeback_lost() == []


def test_our_action_voids_our_request() -> None:
    s = Seats()
    s.request()
    s.mon.acting()
    assert s.mon.takeback.asking is None
    assert s.mon.takeback_lost() == []  # (nothing to show refused)


def test_what_the_peer_holds_only_grows_until_a_takeback() -> None:
    s = Seats()
    assert s.mon.peer_holds(1) == [] and s.mon.peer_holds(0) == []
    assert s.mon.held == 1
    s.allowed(5.0)
    assert s.mon.held == 0
    assert s.mon.peer_holds(0) == [] and s.mon.peer_holds(1) == [PeerHolds(1)]
