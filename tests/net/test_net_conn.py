"""The byte level both kinds of connection share (net/conn.py), over real TCP on
127.0.0.1: the bounded write, the deadline on a silent peer, the ping; and a watcher's
and a host's silence each ending the watch."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Coroutine
from typing import Any

import pytest

from p2p_spite.contracts.errors import EXIT_LOST
from p2p_spite.contracts.news import WatchCut, WatchEnd
from p2p_spite.contracts.spectator import WatchStopped
from p2p_spite.core.watch import WatchEndpoint
from p2p_spite.net import watch as watchnet
from p2p_spite.net.conn import Beat, Silence, send_bounded, small_send_buffer
from p2p_spite.net.watch import WatchClient

DEADLINE = 30.0  # seconds any wait below may take on a loaded machine


def _run(main: Coroutine[Any, Any, None]) -> None:
    asyncio.run(asyncio.wait_for(main, DEADLINE))


def test_a_write_that_would_leave_more_than_the_bound_unread_is_refused_whole() -> None:
    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)  # ... and never reads
        port = server.sockets[0].getsockname()[1]
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        _r, writer = await asyncio.open_connection(sock=_connected(sock, port))
        small_send_buffer(writer.transport, 4096)
        limit, chunk = 16 * 1024, b"x" * 1024
        sent = 0
        while send_bounded(writer.transport, chunk, limit):
            sent += 1
            assert sent < 10_000  # (the kernel's buffers are bounded: the bound is reached)
        before = writer.transport.get_write_buffer_size()
        assert before <= limit < before + len(chunk)
        assert not send_bounded(writer.transport, chunk, limit)
        assert writer.transport.get_write_buffer_size() == before  # nothing of it was queued
        assert send_bounded(writer.transport, b"", limit)  # (nothing to send: nothing to refuse)
        writer.transport.abort()
        server.close()

    _run(main())


def _connected(sock: socket.socket, port: int) -> socket.socket:
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


def test_silence_fires_once_and_a_stopped_one_never() -> None:
    async def main() -> None:
        fired: list[str] = []
        done = asyncio.Event()

        def first() -> None:
            fired.append("a")
            done.set()

        Silence(0.01, first)
        stopped = Silence(0.01, lambda: fired.append("b"))
        stopped.stop()
        await done.wait()
        await asyncio.sleep(0.05)
        assert fired == ["a"]

    _run(main())


def test_a_beat_ticks_until_it_is_stopped_even_from_its_own_tick() -> None:
    async def main() -> None:
        ticks: list[int] = []
        done = asyncio.Event()

        def tick() -> None:
            ticks.append(1)
            if len(ticks) == 3:
                beat.stop()
                done.set()

        beat = Beat(0.001, tick)
        await done.wait()
        await asyncio.sleep(0.05)
        assert len(ticks) == 3

    _run(main())


def test_a_host_that_goes_silent_ends_the_watch_as_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that accepts the watcher and then says nothing (no hello, no pong): the
    watcher's deadline on the host (HOST_SILENCE, shortened here) ends the watch."""
    monkeypatch.setattr(watchnet, "HOST_SILENCE", 0.2)

    async def main() -> None:
        heard = bytearray()

        async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            heard.extend(await reader.read(4096))  # (its watch: read, never answered)
            await reader.read()

        server = await asyncio.start_server(mute, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        loop = asyncio.get_running_loop()
        _t, client = await loop.create_connection(
            lambda: WatchClient(WatchEndpoint(), "here"), "127.0.0.1", port
        )
        stopped = await client.in_door
        assert isinstance(stopped, WatchStopped) and not stopped.complete
        assert stopped.exit_code == EXIT_LOST
        assert isinstance(stopped.news, WatchCut) and stopped.news.kind is WatchEnd.HOST_SILENT
        assert heard  # (it had said watch)
        server.close()

    _run(main())
