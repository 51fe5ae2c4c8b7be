"""Finding a lost peer again and noticing a silent one, through the seat machine alone
(core/liveness.py, core/machine.py): the grace period, the heartbeat's verdict and the
refusals that end redialing, with a clock given by hand and no asyncio (the shell only
keeps the timer, the redial task and the heartbeat task)."""

from __future__ import annotations

import pytest

from p2p_spite.contracts.news import ConnectionLost, Owed, PeerStopped, Redialing, Stalled, WeStopped
from p2p_spite.contracts.session import EndCause
from p2p_spite.core.effects import DropLink, Flush, GiveUp, Redial, WaitedOut, WakeAt
from p2p_spite.core.liveness import Liveness
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.protocol import Endpoint, PeerRefused
from p2p_spite.core.wire import LocalProtocolError, Refusal, RemoteProtocolError
from tests.core.test_seat_machine import _playing
from tests.support.net import messages


def _machine(*, redials: bool, grace: float = 60.0) -> tuple[SeatMachine, Endpoint]:
    ep, _ = _playing()
    assert ep.core is not None
    live = Liveness("Bob", grace=grace, dead_after=10.0, redials=redials)
    return SeatMachine(ep.core, peer_name="Bob", live=live), ep


def test_a_lost_host_is_redialed_and_waited_for_until_the_grace_periods_end() -> None:
    m, _ = _machine(redials=True)
    news, fx = m.live.lost(100.0)
    assert news == Redialing("Bob", 60.0, redial=True)
    assert fx == [WakeAt(160.0), Redial()]
    assert m.tick(None, 159.9) == [WakeAt(160.0)]  # not yet: woken again
    assert m.tick(None, 160.0) == [WaitedOut(ConnectionLost("Bob", 60.0))]
    assert m.tick(None, 161.0) == []  # (waited out once)


def test_the_host_waits_for_a_lost_joiner_without_dialing() -> None:
    m, _ = _machine(redials=False)
    assert m.live.lost(5.0)[1] == [WakeAt(65.0)]


def test_a_second_loss_keeps_the_grace_periods_end() -> None:
    m, _ = _machine(redials=True)
    m.live.lost(100.0)
    assert m.live.lost(130.0)[1] == [Redial()]  # (no new deadline: the first holds)
    assert m.tick(None, 160.0) == [WaitedOut(ConnectionLost("Bob", 60.0))]


def test_a_peer_back_in_time_ends_the_grace_period() -> None:
    m, ep = _machine(redials=False)
    m.live.lost(100.0)
    m.live.back()
    assert m.tick(ep, 160.0) == [] and m.tick(None, 170.0) == []


def test_a_peer_back_when_the_grace_period_ends_is_not_waited_out() -> None:
    m, ep = _machine(redials=False)
    m.live.lost(100.0)
    assert m.tick(ep, 160.0) == []  # (a link of the moment: back, whoever noticed first)


def test_the_grace_periods_end_and_a_debt_share_the_one_wake_up_the_earliest_first() -> None:
    m, _ = _machine(redials=False)
    late = Stalled("Bob", Owed.DECK, 30.0)
    m.owe("deck", late, Refusal.STALLED, 0.0)
    m.live.lost(10.0)
    assert m.tick(None, 1.0) == [WakeAt(30.0)]
    m.debts.paid("deck")
    assert m.tick(None, 30.0) == [WakeAt(70.0)]


def test_quiet_ends_the_grace_period() -> None:
    m, _ = _machine(redials=True)
    m.live.lost(0.0)
    m.quiet()
    assert m.tick(None, 60.0) == []


def test_a_peer_silent_while_we_ping_is_dropped_after_dead_after() -> None:
    """Our pings go out every beat; the peer sends nothing back: past ``dead_after``
    seconds of silence the connection is dropped, and no ping goes out then."""
    m, ep = _machine(redials=False)
    for silent in (2.0, 4.0, 6.0, 8.0, 10.0):
        assert m.live.beat(ep, silent) == [Flush()]
    assert [x["k"] for x in messages(ep.data_to_send()) if x["t"] == "ping"] == [1, 2, 3, 4, 5]
    assert m.live.beat(ep, 10.5) == [DropLink("Bob went silent")]
    assert ep.data_to_send() == b""


def test_no_connection_or_one_not_playing_is_not_pinged() -> None:
    m, ep = _machine(redials=False)
    assert m.live.beat(None, 99.0) == []
    ep.refuse(Refusal.UNEXPECTED, "stopped")
    ep.data_to_send()
    assert m.live.beat(ep, 1.0) == [] and ep.data_to_send() == b""


def test_a_fatal_refusal_ends_redialing_and_says_who_refused() -> None:
    m, _ = _machine(redials=True)
    theirs = PeerRefused("the histories differ", Refusal.HISTORY)
    stopped = PeerStopped("Bob", Refusal.HISTORY.value, "the histories differ", resuming=True)
    assert m.live.redial_refused(theirs) == [
        GiveUp(stopped, EndCause.PEER_REFUSED, Refusal.HISTORY, "the histories differ")
    ]
    ours = RemoteProtocolError("a lying hello", Refusal.FORGED)
    refused = WeStopped("Bob", Refusal.FORGED.value, "a lying hello", resuming=True)
    assert m.live.redial_refused(ours) == [GiveUp(refused, EndCause.PEER_BROKE_PROTOCOL, Refusal.FORGED)]


@pytest.mark.parametrize(
    "e",
    [
        PeerRefused("busy", Refusal.UNEXPECTED),
        RemoteProtocolError("too slow", Refusal.STALLED),
        LocalProtocolError("ours", Refusal.HISTORY),
    ],
)
def test_other_refusals_let_the_redial_go_on(e: Exception) -> None:
    m, _ = _machine(redials=True)
    assert isinstance(e, PeerRefused | RemoteProtocolError | LocalProtocolError)
    assert m.live.redial_refused(e) == []
