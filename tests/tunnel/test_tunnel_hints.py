"""Connection hints: their wire form (JSON and msgpack), hostile hints, and the race
between direct connections on 127.0.0.1 and ::1."""

from __future__ import annotations

import asyncio
import json
import socket

import msgpack
import pytest

from p2p_spite.tunnel.failures import NoPath
from p2p_spite.tunnel.hints import (
    MAX_HINTS,
    DirectHint,
    Hint,
    HintError,
    RelayHint,
    direct_hints,
    hints_from_json,
    hints_from_msgpack,
    hints_from_wire,
    hints_to_json,
    hints_to_msgpack,
    race_connect,
)
from tests.support.wormhole_servers import closed_port, run

T = 60.0
HINTS: list[Hint] = [
    DirectHint("192.0.2.5", 41000),
    DirectHint("2001:db8::5", 41000, 0.5),
    RelayHint("relay.example", 4001),
]


def test_the_wire_form_byte_for_byte() -> None:
    assert hints_to_json(HINTS) == (
        b'[{"type":"direct-tcp-v1","hostname":"192.0.2.5","port":41000,"priority":0.0},'
        b'{"type":"direct-tcp-v1","hostname":"2001:db8::5","port":41000,"priority":0.5},'
        b'{"type":"relay-v1","hints":[{"type":"direct-tcp-v1","hostname":"relay.example",'
        b'"port":4001,"priority":0.0}]}]'
    )
    assert hints_from_json(hints_to_json(HINTS)) == HINTS
    assert hints_from_msgpack(hints_to_msgpack(HINTS)) == HINTS
    assert msgpack.unpackb(hints_to_msgpack(HINTS)) == json.loads(hints_to_json(HINTS))


def test_unknown_kinds_are_skipped_and_repeats_dropped() -> None:
    wire = json.loads(hints_to_json(HINTS))
    wire.insert(0, {"type": "tor-tcp-v1", "hostname": "abc.onion", "port": 80})
    wire.append(wire[1])
    assert hints_from_wire(wire) == HINTS


def direct(**fields: object) -> list[dict[str, object]]:
    return [{"type": "direct-tcp-v1", "hostname": "192.0.2.5", "port": 41000, **fields}]


@pytest.mark.parametrize(
    "wire",
    [
        "not a list",
        [1],
        [{"hostname": "192.0.2.5", "port": 1}],  # no type
        direct(port=0),
        direct(port=65536),
        direct(port="80"),
        direct(port=True),
        direct(hostname=5),
        direct(hostname="evil host\n"),
        direct(hostname="\x1b[2J.example"),
        direct(hostname="a" * 300),
        direct(priority="high"),
        direct(priority=float("inf")),
        [{"type": "relay-v1", "hints": []}],
        [{"type": "relay-v1", "hints": "relay.example"}],
        direct() * 200,
        [{"type": "direct-tcp-v1", "hostname": f"10.0.0.{i}", "port": 1} for i in range(MAX_HINTS + 1)],
    ],
)
def test_hostile_hints_are_refused(wire: object) -> None:
    with pytest.raises(HintError):
        hints_from_wire(wire)


def test_hostile_bytes_are_refused() -> None:
    for data in (b"\xff", b"[" * 5000, b"[]" + b" " * 9000):
        with pytest.raises(HintError):
            hints_from_json(data)
    for data in (b"\xc1", b"\x91" * 5000, msgpack.packb([1]) + b"\x00"):
        with pytest.raises(HintError):
            hints_from_msgpack(data)


def test_this_machines_hints() -> None:
    hints = direct_hints(41000)
    assert all(h.port == 41000 for h in hints)
    assert direct_hints(41000, "127.0.0.1") == [DirectHint("127.0.0.1", 41000)]


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


async def hello_server(host: str, greeting: bytes | None) -> tuple[asyncio.Server, int, asyncio.Event]:
    """A server that says ``greeting`` (None: nothing, ever); ``gone`` is set when the
    client's connection ends."""
    gone = asyncio.Event()

    async def serve(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        if greeting is not None:
            w.write(greeting)
        await r.read()
        gone.set()
        w.close()

    server = await asyncio.start_server(serve, host, 0)
    return server, server.sockets[0].getsockname()[1], gone


async def expect_hello(r: asyncio.StreamReader, w: asyncio.StreamWriter, h: DirectHint) -> str:
    line = await r.readline()
    if line != b"hello\n":
        raise ConnectionError(f"{h.where} said {line!r}")
    return h.where


def test_the_first_handshake_to_complete_wins() -> None:
    """A refused address, a silent one, a stranger and a real peer (on ::1 when there is
    one): the peer wins, the silent connection and the stranger's are closed."""

    async def main() -> None:
        peer_host = "::1" if ipv6_loopback() else "127.0.0.1"
        peer, peer_port, _ = await hello_server(peer_host, b"hello\n")
        silent, silent_port, silent_gone = await hello_server("127.0.0.1", None)
        stranger, stranger_port, stranger_gone = await hello_server("127.0.0.1", b"who are you?\n")
        async with peer, silent, stranger:
            hints = [
                DirectHint("127.0.0.1", closed_port()),
                DirectHint("127.0.0.1", silent_port),
                DirectHint("127.0.0.1", stranger_port),
                DirectHint(peer_host, peer_port),
            ]
            where, hint, _r, w = await race_connect(hints, T, expect_hello)
            assert hint == hints[3] and where == hint.where
            await asyncio.wait_for(silent_gone.wait(), T)  # the loser was hung up on
            await asyncio.wait_for(stranger_gone.wait(), T)
            w.close()

    run(main)


def test_no_path_at_once_when_every_try_fails() -> None:
    async def main() -> None:
        stranger, port, _ = await hello_server("127.0.0.1", b"who are you?\n")
        async with stranger:
            loop = asyncio.get_running_loop()
            start = loop.time()
            with pytest.raises(NoPath) as e:
                await race_connect(
                    [DirectHint("127.0.0.1", closed_port()), DirectHint("127.0.0.1", port)], 600, expect_hello
                )
            assert loop.time() - start < 300  # not the deadline: the tries failed
            assert "no connection to the other player" in str(e.value)
        with pytest.raises(NoPath):
            await race_connect([], T, expect_hello)

    run(main)


def test_no_path_when_nobody_completes_in_time() -> None:
    async def main() -> None:
        silent, port, gone = await hello_server("127.0.0.1", None)
        async with silent:
            with pytest.raises(NoPath) as e:
                await race_connect([DirectHint("127.0.0.1", port)], 0.5, expect_hello)
            assert e.value.failure.seconds == 0.5
            await asyncio.wait_for(gone.wait(), T)  # the attempt was closed

    run(main)
