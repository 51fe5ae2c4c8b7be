"""Helpers for the network tests: in-memory endpoint pairs, CLI processes, raw peers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from p2p_spite.net.protocol import NEED_DATA, Endpoint, LocalConfig, ProtocolError

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "p2p_spite"]


def pump(a: Endpoint, b: Endpoint, rounds: int = 50) -> tuple[list[Any], list[Any]]:
    """Move bytes both ways until quiet; return the events each side produced.

    A ProtocolError from either side is stored as the last item of its list.
    """
    ea: list[Any] = []
    eb: list[Any] = []
    for _ in range(rounds):
        moved = False
        for src, dst, evs in ((a, b, eb), (b, a, ea)):
            data = src.data_to_send()
            if data:
                moved = True
                dst.receive_data(data)
            drain(dst, evs)
        if not moved:
            break
    return ea, eb


def drain(ep: Endpoint, evs: list[Any]) -> None:
    for _ in range(100_000):
        if evs and isinstance(evs[-1], ProtocolError):
            return
        try:
            ev = ep.next_event()
        except ProtocolError as e:
            evs.append(e)
            return
        if ev is NEED_DATA:
            return
        evs.append(ev)


def pair(host: LocalConfig, join: LocalConfig) -> tuple[Endpoint, Endpoint, list[Any], list[Any]]:
    h, j = Endpoint(host), Endpoint(join)
    h.initiate()
    j.initiate()
    eh, ej = pump(h, j)
    return h, j, eh, ej


def spawn(args: Sequence[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    e = dict(os.environ)
    e["PYTHONUNBUFFERED"] = "1"
    e["XDG_DATA_HOME"] = str(cwd / "xdg")
    if env:
        e.update(env)
    return subprocess.Popen(
        [*CLI, *args], cwd=cwd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def wait_listening(proc: subprocess.Popen[str], timeout: float = 20.0) -> tuple[int, list[str]]:
    """Read the host's stdout until 'listening on HOST:PORT'; return the port and the lines read."""
    import selectors

    assert proc.stdout is not None
    lines: list[str] = []
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not sel.select(max(0.0, deadline - time.monotonic())):
            break
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.match(r"listening on .*:(\d+)$", line.strip())
        if m:
            # the join code line follows right away when there is one
            if "code" not in " ".join(lines):
                pass
            return int(m.group(1)), lines
    raise AssertionError(f"host did not start listening: {lines!r}")


def read_code(proc: subprocess.Popen[str], timeout: float = 10.0) -> str:
    assert proc.stdout is not None
    import selectors
    import time

    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not sel.select(max(0.0, deadline - time.monotonic())):
            break
        line = proc.stdout.readline()
        if line.startswith("join code: "):
            return line.split(": ", 1)[1].strip()
    raise AssertionError("no join code printed")


class RawPeer:
    """A hand-driven joiner over a real socket: a real handshake, then any bytes we like."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ep: Endpoint) -> None:
        self.reader = reader
        self.writer = writer
        self.ep = ep
        self.events: list[Any] = []

    @classmethod
    async def connect(cls, port: int, config: LocalConfig, timeout: float = 10.0) -> RawPeer:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        ep = Endpoint(config)
        ep.initiate()
        peer = cls(reader, writer, ep)
        peer.flush()
        from p2p_spite.net.protocol import Handshaken

        await peer.read_until(lambda evs: any(isinstance(e, Handshaken) for e in evs), timeout)
        return peer

    def flush(self) -> None:
        data = self.ep.data_to_send()
        if data:
            self.writer.write(data)

    async def read_until(self, cond: Any, timeout: float = 10.0) -> list[Any]:
        async def loop() -> None:
            while not cond(self.events):
                data = await self.reader.read(65536)
                if not data:
                    raise ConnectionError("closed")
                self.ep.receive_data(data)
                drain(self.ep, self.events)
                self.flush()

        await asyncio.wait_for(loop(), timeout)
        return self.events

    async def send_raw(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def read_all(self, timeout: float = 5.0) -> bytes:
        """Everything until the other side closes (bounded)."""
        chunks: list[bytes] = []

        async def loop() -> None:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    return
                chunks.append(data)

        with contextlib.suppress(TimeoutError, ConnectionError):
            await asyncio.wait_for(loop(), timeout)
        return b"".join(chunks)

    def close(self) -> None:
        self.writer.close()
