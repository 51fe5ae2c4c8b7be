"""Fuzzing the protocol decoder: whatever bytes a peer sends, the honest endpoint
ends with a ProtocolError or waits for more, never crashes or hangs, and its game
state does not change."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_spite.net.protocol import HOST, JOIN, NEED_DATA, Endpoint, LocalConfig, Phase, ProtocolError
from tests.support.net import pair

SEED = bytes(range(32))
FUZZ = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _honest() -> Endpoint:
    h, _j, _eh, _ej = pair(LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob"))
    assert h.phase is Phase.PLAY
    return h


def _feed(ep: Endpoint, data: bytes) -> None:
    assert ep.core is not None
    before = (ep.core.match.game.digest(), ep.core.position, ep.core.head)
    ep.receive_data(data)
    for _ in range(10_000):  # bounded: never a hang
        try:
            ev = ep.next_event()
        except ProtocolError:
            break
        if ev is NEED_DATA:
            break
    else:
        raise AssertionError("the endpoint kept producing events")
    assert (ep.core.match.game.digest(), ep.core.position, ep.core.head) == before


@FUZZ
@given(st.binary(max_size=600))
def test_random_bytes(data: bytes) -> None:
    _feed(_honest(), data)


@FUZZ
@given(st.binary(max_size=300))
def test_random_frame_bodies(body: bytes) -> None:
    _feed(_honest(), struct.pack(">I", len(body)) + body)


leaf = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=20)
    | st.binary(max_size=40)
)
values = st.recursive(
    leaf,
    lambda c: st.lists(c, max_size=6) | st.dictionaries(st.text(max_size=5), c, max_size=4),
    max_leaves=12,
)
TYPES = st.sampled_from(
    [
        "move",
        "resign",
        "ack",
        "chat",
        "ping",
        "pong",
        "bye",
        "refuse",
        "hello",
        "sync",
        "setup",
        "commit",
        "x",
    ]
)
FIELDS = st.sampled_from(["n", "m", "d", "g", "k", "text", "reason", "code", "msg", "pos", "hist", "proto"])


@FUZZ
@given(TYPES, st.dictionaries(FIELDS, values, max_size=5))
def test_messages_of_known_types_with_random_fields(t: str, fields: dict[str, Any]) -> None:
    msg = {"t": t, **fields}
    try:
        body = msgpack.packb(msg, use_bin_type=True)
    except (OverflowError, TypeError, ValueError):
        return
    _feed(_honest(), struct.pack(">I", len(body)) + body)


moves = st.lists(
    st.one_of(st.integers(-2, 110), st.sampled_from(["hand", "payoff", "side", "center", None, True])),
    min_size=0,
    max_size=6,
)


@FUZZ
@given(moves, st.integers(-1, 3), st.binary(min_size=32, max_size=32))
def test_moves_with_random_contents(m: list[Any], n: int, d: bytes) -> None:
    body = msgpack.packb({"t": "move", "n": n, "m": m, "d": d}, use_bin_type=True)
    _feed(_honest(), struct.pack(">I", len(body)) + body)
