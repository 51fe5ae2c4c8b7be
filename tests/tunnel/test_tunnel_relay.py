"""The transit relay client: its line byte for byte, hostile relays on 127.0.0.1, and two
sides paired by the real magic-wormhole transit relay."""

from __future__ import annotations

import asyncio
import os
import re

import pytest

from p2p_spite.tunnel.failures import RelayLonely, RelayRefused, RelayUnreachable
from p2p_spite.tunnel.relay import RelayedConnection, handshake, new_side, parse_address, relay_connect
from tests.support.wormhole_servers import WormholeServer, closed_port, relay_server, run  # noqa: F401

T = 60.0  # waits that succeed: long, so a loaded machine passes


def test_the_line_byte_for_byte() -> None:
    """docs/protocol.md: what the relay's own pattern accepts (64 and 16 hex digits)."""
    line = handshake(bytes(range(32)), bytes(range(8)))
    assert line == (
        b"please relay 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
        b" for side 0001020304050607\n"
    )
    assert re.fullmatch(rb"please relay (\w{64}) for side (\w{16})\n", line)
    for token, side in ((bytes(31), bytes(8)), (bytes(32), bytes(9)), (b"", b"")):
        with pytest.raises(ValueError):
            handshake(token, side)
    assert len(new_side()) == 8 and new_side() != new_side()


def test_relay_addresses() -> None:
    assert parse_address("relay.example:4001") == ("relay.example", 4001)
    assert parse_address(" relay.example ") == ("relay.example", 4001)
    assert parse_address("[2001:db8::1]:5000") == ("2001:db8::1", 5000)
    assert parse_address("2001:db8::1") == ("2001:db8::1", 4001)
    for bad in ("", ":4001", "relay:0", "relay:99999", "relay:x", "[::1", "[::1]x"):
        with pytest.raises(ValueError):
            parse_address(bad)


async def one_answer(answer: bytes) -> tuple[asyncio.Server, int]:
    """A relay on 127.0.0.1 that reads the line, says ``answer`` and hangs up."""

    async def serve(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await r.readline()
        w.write(answer)
        await w.drain()
        w.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (b"bad handshake\n", "bad handshake"),
        (b"impatient\n", "impatient"),
        (b"", "closed the connection"),
        (b"o", "o"),  # half an answer, then the end
        (b"ok but not quite\n", "ok but not quite"),
        (b"\x1b[2J" + b"x" * 200 + b"\n", "[2J"),  # control bytes and length are cut
        (b"y" * 200_000, "an answer that is not a line"),
    ],
)
def test_a_relay_that_does_not_say_ok(answer: bytes, words: str) -> None:
    async def main() -> None:
        server, port = await one_answer(answer)
        async with server:
            with pytest.raises(RelayRefused) as e:
                await relay_connect("127.0.0.1", port, bytes(32), bytes(8), connect_timeout=T, wait_timeout=T)
        line = str(e.value)
        assert words in line and "\n" not in line and "\x1b" not in line and len(line) < 200

    run(main)


def test_a_relay_nobody_runs() -> None:
    port = closed_port()

    async def main() -> None:
        with pytest.raises(RelayUnreachable) as e:
            await relay_connect("127.0.0.1", port, bytes(32), bytes(8), connect_timeout=T, wait_timeout=T)
        assert f"cannot reach the relay 127.0.0.1:{port}" in str(e.value)

    run(main)


async def pair(
    server: WormholeServer, token_a: bytes, token_b: bytes, wait: float
) -> list[RelayedConnection | RelayLonely]:
    """Two sides at the relay at once: each one's connection, or its RelayLonely."""

    async def connect(token: bytes) -> RelayedConnection | RelayLonely:
        try:
            return await relay_connect(
                "127.0.0.1", server.port, token, new_side(), connect_timeout=T, wait_timeout=wait
            )
        except RelayLonely as e:
            return e

    return list(await asyncio.gather(connect(token_a), connect(token_b)))


@pytest.mark.slow
def test_two_sides_meet_through_the_real_relay(relay_server: WormholeServer) -> None:  # noqa: F811
    """Both get ``ok``; bytes go both ways unchanged, 200 kB included."""
    token = os.urandom(32)

    async def main() -> None:
        a, b = await pair(relay_server, token, token, T)
        assert isinstance(a, RelayedConnection) and isinstance(b, RelayedConnection)
        assert a.where == f"127.0.0.1:{relay_server.port}"
        a.writer.write(b"hello from a\n")
        b.writer.write(b"hello from b\n")
        assert await asyncio.wait_for(b.reader.readline(), T) == b"hello from a\n"
        assert await asyncio.wait_for(a.reader.readline(), T) == b"hello from b\n"
        big = os.urandom(200_000)
        a.writer.write(big)
        assert await asyncio.wait_for(b.reader.readexactly(len(big)), T) == big
        a.writer.close()
        assert await asyncio.wait_for(b.reader.read(), T) == b""  # the relay passes the end on
        b.writer.close()

    run(main)


@pytest.mark.slow
def test_different_tokens_never_meet(relay_server: WormholeServer) -> None:  # noqa: F811
    """Two sides whose tokens differ (another code, another key) wait alone: RelayLonely
    for both when their deadline runs out."""

    async def main() -> None:
        results = await pair(relay_server, os.urandom(32), os.urandom(32), 1.0)
        assert all(isinstance(r, RelayLonely) for r in results)
        assert "did not reach the relay" in str(results[0])

    run(main)
