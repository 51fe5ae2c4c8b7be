"""Fuzzing the protocol decoder: whatever bytes a peer sends, the honest endpoint
ends with a ProtocolError or waits for more, never crashes or hangs, and its game
state does not change."""

from __future__ import annotations

import struct
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p_spite.core.messages import HOST, JOIN
from p2p_spite.core.protocol import NEED_DATA, Endpoint, LocalConfig, Phase
from p2p_spite.core.wire import ProtocolError
from tests.support.net import pair

SEED = bytes(range(32))
# ~4000 cases in all, a few seconds: the slow message-building strategies get fewer
FUZZ = settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FUZZ_SLOW = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _honest() -> Endpoint:
    h, _j, _eh, _ej = pair(LocalConfig(HOST, "Ann", seed=SEED), LocalConfig(JOIN, "Bob"))
    assert h.phase is Phase.PLAY
    return h


def _drain(ep: Endpoint, most: int) -> None:
    """Take the endpoint's events until it needs data or refuses; at most ``most``
    of them (bounded: never a hang)."""
    for _ in range(most):
        try:
            ev = ep.next_event()
        except ProtocolError:
            return
        if ev is NEED_DATA:
            return
    raise AssertionError("the endpoint kept producing events")


def _feed(ep: Endpoint, data: bytes) -> None:
    assert ep.core is not None
    before = (ep.core.match.game.digest(), ep.core.position, ep.core.head)
    ep.receive_data(data)
    _drain(ep, 10_000)
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


@pytest.mark.slow
@FUZZ_SLOW
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


@FUZZ_SLOW
@given(moves, st.integers(-1, 3), st.binary(min_size=32, max_size=32))
def test_moves_with_random_contents(m: list[Any], n: int, d: bytes) -> None:
    body = msgpack.packb({"t": "move", "n": n, "m": m, "d": d}, use_bin_type=True)
    _feed(_honest(), struct.pack(">I", len(body)) + body)


# -- the handshake phases ---------------------------------------------------------------------

HANDSHAKE_TYPES = st.sampled_from(
    ["hello", "auth", "proof", "setup", "commit", "reveal", "sync", "ping", "x"]
)
HANDSHAKE_FIELDS = st.sampled_from(
    ["proto", "app", "role", "name", "nonce", "code", "match", "mac", "seed", "target", "games",
     "players", "resume", "c", "r", "pos", "hist", "k"]
)  # fmt: skip
HANDSHAKE_VALUES = (
    values
    | st.sampled_from(["p2p-spite", "host", "join", 1, True, False])
    | st.binary(min_size=16, max_size=16)
    | st.binary(min_size=32, max_size=32)
)
PHASES = st.sampled_from(["host hello", "host proof", "join setup", "join seed"])


def _at(phase: str) -> Endpoint:
    """An endpoint waiting in ``phase`` of the handshake, its peer's honest part done."""
    if phase.startswith("host"):
        core = _honest().core if phase == "host proof" else None
        ep = Endpoint(LocalConfig(HOST, "Ann"), core)
        ep.initiate()
        if phase != "host hello":
            peer = Endpoint(LocalConfig(JOIN, "Bob"), core and _joiner_core(core))
            peer.initiate()
            ep.receive_data(peer.data_to_send())
            assert ep.next_event() is NEED_DATA
    else:
        ep = Endpoint(LocalConfig(JOIN, "Bob"))
        ep.initiate()
        host = Endpoint(LocalConfig(HOST, "Ann"))
        host.initiate()
        ep.receive_data(host.data_to_send())
        assert ep.next_event() is NEED_DATA
        if phase == "join seed":
            host.receive_data(ep.data_to_send())
            assert host.next_event() is NEED_DATA
            ep.receive_data(host.data_to_send()[:-40])  # the setup, not the host's commitment
            assert ep.next_event() is NEED_DATA
    ep.data_to_send()
    assert ep.phase.value == phase.split()[1], (phase, ep.phase)
    return ep


def _joiner_core(core: Any) -> Any:
    from p2p_spite.core.game import GameCore

    m = core.match
    return GameCore(m.__class__(m.seed, m.target, m.players), 1, core.match_id, core.max_games)


HANDSHAKE_MSGS = st.lists(
    st.tuples(HANDSHAKE_TYPES, st.dictionaries(HANDSHAKE_FIELDS, HANDSHAKE_VALUES, max_size=6)),
    min_size=1,
    max_size=3,
)


@pytest.mark.slow
@FUZZ_SLOW
@given(PHASES, HANDSHAKE_MSGS)
def test_handshake_phases_with_random_messages(phase: str, msgs: list[tuple[str, dict[str, Any]]]) -> None:
    """Whatever arrives during the handshake: a ProtocolError or more waiting; a host
    holding a match never sends its setup (nor the seed) to a peer that did not prove it."""
    ep = _at(phase)
    data = b""
    for t, fields in msgs:
        try:
            body = msgpack.packb({"t": t, **fields}, use_bin_type=True)
        except (OverflowError, TypeError, ValueError):
            return
        data += struct.pack(">I", len(body)) + body
    ep.receive_data(data)
    _drain(ep, 100)
    if phase == "host proof":
        from p2p_spite.core.wire import FrameDecoder

        out = ep.data_to_send()
        dec = FrameDecoder()
        dec.feed(out)
        sent = []
        while (m := dec.next_message()) is not None:
            sent.append(m["t"])
        assert set(sent) <= {"refuse", "pong"}, sent
        assert SEED not in out
        assert ep.phase in (Phase.PROOF, Phase.CLOSED)
