"""The connection of the moment through the seat machine alone (core/machine.py): the
peer's catch-up owed action by action, and a resignation asked for while the connection
was down, made or asked again on the next one.  Endpoints in memory, a clock by hand."""

from __future__ import annotations

from p2p_spite.contracts.news import Owed, Stalled
from p2p_spite.core.effects import Flush, MakeDue, PeerOverdue, WakeAt
from p2p_spite.core.game import Action
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.protocol import Endpoint
from p2p_spite.core.wire import Refusal
from tests.core.test_seat_machine import _playing
from tests.support.net import messages


def _seat(on_turn: bool, *, resigning: bool = True) -> tuple[SeatMachine, Endpoint]:
    """A seat's machine and endpoint, on turn or not, having asked to resign the game."""
    on, off = _playing()
    ep = on if on_turn else off
    assert ep.core is not None
    if resigning:
        ep.core.request_resign()
    return SeatMachine(ep.core, peer_name="Bob"), ep


def _catching_up(ep: Endpoint) -> None:
    assert ep.core is not None
    ep._catch_up_to = (ep.core.position + 3, bytes(32))  # (as a sync that claimed 3 more said)


def test_a_resignation_asked_for_is_ours_to_make_on_turn() -> None:
    m, ep = _seat(on_turn=True)
    assert ep.core is not None
    assert m.resign_pending(ep, closed=False) == [MakeDue(Action(1, ep.core.seat), unseen=False)]
    assert ep.data_to_send() == b""


def test_off_turn_it_is_asked_again() -> None:
    m, ep = _seat(on_turn=False)
    assert m.resign_pending(ep, closed=False) == [Flush()]
    assert [x["t"] for x in messages(ep.data_to_send())] == ["resign-request"]
    assert m.resign_again(ep, closed=False) == [Flush()]  # (asked again on the driver's word)


def test_nothing_is_asked_while_catching_up_or_closed_or_without_a_request() -> None:
    m, ep = _seat(on_turn=False)
    _catching_up(ep)
    assert m.resign_pending(ep, closed=False) == []  # (the end of the catch-up asks)
    m2, ep2 = _seat(on_turn=True)
    assert m2.resign_pending(ep2, closed=True) == []
    m3, ep3 = _seat(on_turn=False, resigning=False)
    assert m3.resign_pending(ep3, closed=False) == [] and m3.resign_again(ep3, closed=False) == []
    assert ep.data_to_send() == ep2.data_to_send() == ep3.data_to_send() == b""


def test_on_turn_the_resignation_is_never_asked_of_the_peer() -> None:
    m, ep = _seat(on_turn=True)
    assert m.resign_again(ep, closed=False) == [] and m.resign_again(None, closed=False) == []
    assert ep.data_to_send() == b""


def test_a_catch_up_claimed_and_never_sent_stops_the_match_at_its_deadline() -> None:
    """The peer's sync claimed actions we lack, and it sends none (pinging meanwhile)."""
    m, ep = _seat(on_turn=False, resigning=False)
    _catching_up(ep)
    assert m.owe_catch_up(ep, 15.0, 100.0) == [WakeAt(115.0)]
    assert m.owe_catch_up(ep, 15.0, 110.0) == []  # (owed already: the deadline holds)
    overdue = Stalled("Bob", Owed.CATCH_UP, 15.0)
    assert m.tick(ep, 115.0) == [PeerOverdue(overdue, Refusal.POSITION)]


def test_each_action_caught_up_gives_the_next_its_deadline_afresh() -> None:
    m, ep = _seat(on_turn=False)
    _catching_up(ep)
    m.owe_catch_up(ep, 15.0, 100.0)
    assert m.caught_action(ep, 15.0, 110.0, closed=False) == [WakeAt(125.0)]
    assert m.tick(ep, 115.0) == [WakeAt(125.0)]  # (paid in time: nothing overdue)
    ep._catch_up_to = None  # the last one came
    assert m.caught_action(ep, 15.0, 120.0, closed=False) == [Flush()]  # our resignation asked again
    assert [x["t"] for x in messages(ep.data_to_send())] == ["resign-request"]
    assert m.tick(ep, 125.0) == []


def test_no_catch_up_is_owed_for_a_connection_not_catching_up() -> None:
    m, ep = _seat(on_turn=False)
    assert m.owe_catch_up(ep, 15.0, 1.0) == [] and m.owe_catch_up(None, 15.0, 1.0) == []
    assert m.caught_action(ep, 15.0, 2.0, closed=False) == []  # (nothing owed: nothing asked)
