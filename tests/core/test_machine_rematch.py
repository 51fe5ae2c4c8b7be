"""Playing again through the seat machine alone (core/machine.py, docs/protocol.md,
*Playing again*): our answer and the peer's taken to effects and to how the offer
settles, with no asyncio (the shell only waits and hands the connection over).  Early,
twice, after the connection is gone, crossing answers."""

from __future__ import annotations

import pytest

from p2p_spite.contracts.news import AgainRefused
from p2p_spite.contracts.session import Rematch, RematchAnswered
from p2p_spite.core.effects import Flush, Show, StartNext
from p2p_spite.core.machine import SeatMachine
from p2p_spite.core.protocol import Endpoint, PeerRefused
from p2p_spite.core.wire import Refusal, RemoteProtocolError
from tests.core.test_seat_machine import _playing
from tests.support.net import messages
from tests.support.net import one_game_over as _over


def _host() -> tuple[SeatMachine, Endpoint]:
    h, _ = _over()
    assert h.core is not None
    return SeatMachine(h.core, peer_name="Bob"), h


def _sent(ep: Endpoint) -> list[dict[str, object]]:
    return messages(ep.data_to_send())


def test_our_yes_is_sent_and_waits_for_the_peer() -> None:
    m, ep = _host()
    assert m.rematch_answer(True, ep, ended=True) == (None, [Flush()])
    assert [x["yes"] for x in _sent(ep)] == [True]
    assert m.rematch.waited() is Rematch.GONE  # (nothing came: not started)
    assert m.rematch_received(True) == [StartNext()]  # the peer's yes: the next match starts
    assert m.rematch.waited() is None  # its handshake decides


def test_the_peers_yes_first_is_shown_and_our_yes_starts_the_next_match() -> None:
    m, ep = _host()
    assert m.rematch_received(True) == [Show(RematchAnswered(True))]
    assert m.rematch_answer(True, ep, ended=True) == (None, [Flush(), StartNext()])
    assert m.rematch.waited() is None


def test_the_peers_no_first_settles_our_yes_at_once_with_nothing_sent() -> None:
    m, ep = _host()
    assert m.rematch_received(False) == [Show(RematchAnswered(False))]
    assert m.rematch_answer(True, ep, ended=True) == (Rematch.DECLINED, [])
    assert ep.data_to_send() == b""


def test_our_no_is_sent_and_a_later_yes_of_the_peers_starts_nothing() -> None:
    m, ep = _host()
    assert m.rematch_answer(False, ep, ended=True) == (Rematch.NOT_OFFERED, [Flush()])
    assert [x["yes"] for x in _sent(ep)] == [False]
    assert m.rematch_received(True) == []  # (answered already: not shown, nothing started)


def test_an_answer_before_the_end_or_twice_is_not_offered_and_sends_nothing() -> None:
    mover, _ = _playing()
    assert mover.core is not None
    m = SeatMachine(mover.core)
    assert m.rematch_answer(True, mover, ended=False) == (Rematch.NOT_OFFERED, [])
    assert m.rematch.ours is None and mover.data_to_send() == b""
    m2, ep = _host()
    m2.rematch_answer(True, ep, ended=True)
    ep.data_to_send()
    assert m2.rematch_answer(True, ep, ended=True) == (Rematch.NOT_OFFERED, [])
    assert m2.rematch_answer(False, ep, ended=True) == (Rematch.NOT_OFFERED, [])
    assert ep.data_to_send() == b""


@pytest.mark.parametrize("how", ["gone", "no-connection", "not-playing"])
def test_a_yes_after_the_connection_is_gone_settles_gone_with_nothing_sent(how: str) -> None:
    m, ep = _host()
    if how == "gone":
        m.rematch.gone = True  # (the peer left, or the link was lost)
    endpoint: Endpoint | None = None if how == "no-connection" else ep
    if how == "not-playing":
        ep.refuse(Refusal.UNEXPECTED, "stopped")  # (the match stopped: closed)
        ep.data_to_send()
    assert m.rematch_answer(True, endpoint, ended=True) == (Rematch.GONE, [])
    assert ep.data_to_send() == b""


def test_the_next_match_starts_once() -> None:
    m, ep = _host()
    m.rematch_answer(True, ep, ended=True)
    assert m.rematch_received(True) == [StartNext()]
    m.rematch.theirs = None  # (the endpoint refuses a second answer; were one let through ...)
    assert m.rematch_received(True) == []  # ... nothing starts twice


def test_a_refusal_before_the_next_deal_is_the_next_matchs_once() -> None:
    st = _host()[0].rematch
    e = RemoteProtocolError("another setup", Refusal.OTHER_MATCH)
    st.broken(e, "Bob", ours=True, begun=False)
    assert st.refused == AgainRefused("Bob", Refusal.OTHER_MATCH.value, "another setup", ours=True)
    st.broken(PeerRefused("x", Refusal.SEQUENCE), "Bob", ours=False, begun=False)  # (the first stands)
    assert st.refused is not None and st.refused.ours
    assert st.waited() is Rematch.REFUSED
    late = _host()[0].rematch
    late.broken(e, "Bob", ours=True, begun=True)  # the next match began: its own refusal
    assert late.refused is None
