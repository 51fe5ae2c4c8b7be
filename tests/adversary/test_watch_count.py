"""``watchers{n, most}``, host to joiner (docs/protocol.md, *Watchers*, *How many
watch*), at the protocol core (two endpoints in memory): offered only to a joiner
whose hello asks for it; from the joiner, before the handshake is done, after a
close, out of range, of the wrong type, with a changing limit or as a flood, it
is refused (or, closed, ignored) and the match is untouched."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from p2p_spite.contracts.session import WatchersChanged
from p2p_spite.core.messages import HOST, JOIN, Hello
from p2p_spite.core.protocol import Endpoint, LocalConfig, Phase
from p2p_spite.core.watchcount import WATCHERS_BURST, WATCHERS_RATE
from p2p_spite.core.wire import Refusal, encode
from tests.support.net import drain, messages, one_game_over, playing, pump, refused

SEED = bytes(range(32))


def _take(ep: Endpoint, msg: dict[str, object]) -> list[Any]:
    ep.receive_data(encode(msg))
    evs: list[Any] = []
    drain(ep, evs)
    return evs


def test_the_joiner_asks_in_its_hello_and_the_host_tells_it() -> None:
    h, j = Endpoint(LocalConfig(HOST, "Ann", seed=SEED)), Endpoint(LocalConfig(JOIN, "Bob"))
    h.initiate()
    j.initiate()
    sent = h.data_to_send(), j.data_to_send()
    hellos = messages(sent[0]), messages(sent[1])
    assert "watchers" not in hellos[0][0]  # the host's hello is as it always was
    assert hellos[1][0]["watchers"] is True
    h.receive_data(sent[1])
    j.receive_data(sent[0])
    drain(h, [])
    drain(j, [])
    pump(h, j)
    assert h.phase is Phase.PLAY and j.phase is Phase.PLAY
    assert h.watchers.send(3, 4)
    _, got = pump(h, j)
    assert got == [WatchersChanged(3)]


def test_a_joiner_that_did_not_ask_is_never_told() -> None:
    """A peer written from the older docs: no ``watchers`` key in its hello."""
    h = Endpoint(LocalConfig(HOST, "Ann", seed=SEED))
    j = Endpoint(LocalConfig(JOIN, "Bob"))
    asked = j.hs.hello
    j.hs.hello = lambda: replace(asked(), watchers=False)  # type: ignore[method-assign]
    h.initiate()
    j.initiate()
    pump(h, j)
    assert h.phase is Phase.PLAY
    assert not h.watchers.send(1, 4)
    assert h.data_to_send() == b""


def test_the_host_sends_only_in_play_and_only_a_count_in_its_limit() -> None:
    h = Endpoint(LocalConfig(HOST, "Ann", seed=SEED))
    h.initiate()
    h.data_to_send()
    h.hs.peer = Hello(2, JOIN, "Bob", bytes(16), False, watchers=True)  # (asked, handshake not done)
    assert not h.watchers.send(1, 4)  # before the handshake is done
    h, _j = playing()
    assert not h.watchers.send(5, 4) and not h.watchers.send(-1, 4)
    assert h.data_to_send() == b""


def test_the_joiner_cannot_count_watchers_for_the_host() -> None:
    h, _j = playing()
    before = h.core.position if h.core else -1
    assert refused(h, {"t": "watchers", "n": 1, "most": 4}).code is Refusal.UNEXPECTED
    assert h.core is not None and h.core.position == before


def test_a_count_before_the_handshake_is_done_is_refused() -> None:
    h, j = Endpoint(LocalConfig(HOST, "Ann", seed=SEED)), Endpoint(LocalConfig(JOIN, "Bob"))
    h.initiate()
    j.initiate()
    j.receive_data(h.data_to_send())  # the host's hello: the joiner waits for its setup
    assert refused(j, {"t": "watchers", "n": 1, "most": 4}).code is Refusal.UNEXPECTED


def test_a_count_after_the_close_is_ignored() -> None:
    h, j = playing()
    h.send_bye("quit")
    pump(h, j)
    assert j.phase is Phase.CLOSED
    assert _take(j, {"t": "watchers", "n": 1, "most": 4}) == []


@pytest.mark.parametrize(
    "msg",
    [
        {"t": "watchers", "n": -1, "most": 4},
        {"t": "watchers", "n": 2**63, "most": 4},
        {"t": "watchers", "n": 5, "most": 4},
        {"t": "watchers", "n": 40, "most": 40},
        {"t": "watchers", "n": True, "most": 4},
        {"t": "watchers", "n": 1.0, "most": 4},
        {"t": "watchers", "n": [1], "most": 4},
        {"t": "watchers", "n": 1},
    ],
    ids=["negative", "huge", "above-limit", "limit-too-big", "bool", "float", "list", "no-limit"],
)
def test_a_count_out_of_range_or_of_the_wrong_type_is_malformed(msg: dict[str, object]) -> None:
    _h, j = playing()
    assert refused(j, msg).code is Refusal.MALFORMED


def test_a_host_whose_limit_changes_is_lying() -> None:
    _h, j = playing()
    assert _take(j, {"t": "watchers", "n": 1, "most": 4}) == [WatchersChanged(1)]
    assert refused(j, {"t": "watchers", "n": 5, "most": 8}).code is Refusal.MALFORMED


def test_a_flood_of_counts_is_refused_and_the_rate_an_honest_host_keeps_is_not() -> None:
    clock = [100.0]
    _h, j = playing(lambda: clock[0])
    for k in range(60):  # an honest host: one a second at most (core/watchcount.py, CountTold), for a minute
        clock[0] += 1.0
        assert _take(j, {"t": "watchers", "n": k % 4, "most": 4}) == [WatchersChanged(k % 4)]
    clock[0] += 10.0
    burst = [{"t": "watchers", "n": 1, "most": 4}] * WATCHERS_BURST
    j.receive_data(b"".join(encode(m) for m in burst))
    evs: list[Any] = []
    drain(j, evs)
    assert evs == [WatchersChanged(1)] * WATCHERS_BURST  # a burst is taken ...
    assert refused(j, {"t": "watchers", "n": 2, "most": 4}).code is Refusal.FLOOD  # ... one more is not
    assert WATCHERS_RATE >= 2  # (room for a reconnection's count on top of one a second)


def test_a_count_that_crosses_the_joiners_yes_to_another_match_is_read_as_before() -> None:
    """The host said yes first; a watcher left at the match's end and the host told the
    joiner before it read the joiner's yes: the joiner, already reading up to the host's
    next hello, takes it (*Playing again*), and the host, once it has both yes, tells no
    more on this connection."""
    h, j = one_game_over()
    h.send_rematch(True)
    pump(h, j)
    j.send_rematch(True)
    assert j.phase is Phase.AGAIN and h.phase is Phase.PLAY
    assert h.watchers.send(1, 4)
    j.receive_data(h.data_to_send())
    evs: list[Any] = []
    drain(j, evs)
    assert evs == [WatchersChanged(1)] and j.phase is Phase.AGAIN
    h.receive_data(j.data_to_send())
    drain(h, [])
    assert h.hs.phase is Phase.AGAIN and not h.watchers.send(2, 4)


def test_a_count_in_the_middle_of_a_catch_up_is_refused() -> None:
    """The sync claimed actions: only they may come (and pings) until they all have."""
    _h, j = playing()
    assert j.core is not None
    j._catch_up_to = (3, bytes(32))  # (as a sync claiming three actions leaves it)
    assert refused(j, {"t": "watchers", "n": 1, "most": 4}).code is Refusal.POSITION
