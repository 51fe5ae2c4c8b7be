"""A fault-injecting TCP proxy on 127.0.0.1, for the network tests.

It sits between the joiner and the host and, following a :class:`Plan`, cuts
connections after a chosen number of bytes (so mid-frame, or during the
handshake), changes one byte (an on-path forger), delays, splits frames into small pieces, coalesces them, or
freezes a connection (a half-open peer: no bytes, no close).  It runs its own
event loop in a thread, so it can serve two separate processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import threading
from dataclasses import dataclass, field


@dataclass
class Plan:
    cuts: list[int] = field(default_factory=list)  # connection i is cut after cuts[i] bytes (both ways)
    freezes: list[int] = field(default_factory=list)  # connection i goes silent after freezes[i] bytes
    flips: list[int] = field(default_factory=list)  # connection i has its byte at offset flips[i] changed
    delay: float = 0.0  # seconds before forwarding each chunk
    split: int = 0  # forward in pieces of at most this many bytes (0: as read)
    coalesce: float = 0.0  # hold data this long to forward bigger chunks

    @classmethod
    def seeded(cls, seed: int, n_cuts: int, handshake_share: float = 0.3, longest: int = 12_000) -> Plan:
        """``n_cuts`` cut points from a seeded generator: some during the handshake
        (the first few hundred bytes of a connection), the rest later, at any byte."""
        rng = random.Random(seed)
        cuts = [
            rng.randrange(1, 450) if rng.random() < handshake_share else rng.randrange(450, longest)
            for _ in range(n_cuts)
        ]
        return cls(cuts=cuts)


@dataclass
class Stats:
    connections: int = 0
    cuts: int = 0
    freezes: int = 0
    flips: int = 0
    bytes: int = 0
    cut_offsets: list[int] = field(default_factory=list)


class FaultProxy:
    def __init__(self, target_port: int, plan: Plan, capture: bool = False) -> None:
        self.target_port = target_port
        self.plan = plan
        self.stats = Stats()
        self.wire = bytearray() if capture else None
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._writers: list[asyncio.StreamWriter] = []

    # -- control from the test thread --------------------------------------------------

    def start(self) -> int:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the proxy did not start")
        return self.port

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> FaultProxy:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the proxy -------------------------------------------------------------------------

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        await self._stop.wait()
        server.close()
        for w in self._writers:
            w.transport.abort()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 2)

    async def _serve(self, creader: asyncio.StreamReader, cwriter: asyncio.StreamWriter) -> None:
        index = self.stats.connections
        self.stats.connections += 1
        try:
            hreader, hwriter = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            cwriter.transport.abort()
            return
        self._writers += [cwriter, hwriter]
        for w in (cwriter, hwriter):
            sock = w.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        plan = self.plan
        cut = plan.cuts[index] if index < len(plan.cuts) else None
        freeze = plan.freezes[index] if index < len(plan.freezes) else None
        flip = plan.flips[index] if index < len(plan.flips) else None
        state = {"n": 0, "done": False}
        stopped = asyncio.Event()

        def end(kind: str) -> None:
            if state["done"]:
                return
            state["done"] = True
            if kind == "cut":
                self.stats.cuts += 1
                self.stats.cut_offsets.append(state["n"])
                cwriter.close()
                hwriter.close()
            else:
                self.stats.freezes += 1
            stopped.set()

        async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while not state["done"]:
                    data = await reader.read(65536)
                    if not data:
                        break
                    if plan.coalesce:
                        await asyncio.sleep(plan.coalesce)
                        with contextlib.suppress(TimeoutError):
                            more = await asyncio.wait_for(reader.read(65536), 0.001)
                            data += more
                    if state["done"]:
                        return
                    limit = min(x for x in (cut, freeze, 1 << 62) if x is not None)
                    room = limit - state["n"]
                    part = data[:room] if room < len(data) else data
                    if flip is not None and state["n"] <= flip < state["n"] + len(part):
                        at = flip - state["n"]
                        part = part[:at] + bytes((part[at] ^ 0x01,)) + part[at + 1 :]
                        self.stats.flips += 1
                    if plan.delay:
                        await asyncio.sleep(plan.delay)
                    step = plan.split or len(part) or 1
                    for i in range(0, len(part), step):
                        writer.write(part[i : i + step])
                        await writer.drain()
                        if plan.split:
                            await asyncio.sleep(0)
                    state["n"] += len(part)
                    self.stats.bytes += len(part)
                    if self.wire is not None:
                        self.wire += part
                    if len(part) < len(data) or state["n"] >= limit:
                        end("cut" if cut is not None and state["n"] >= cut else "freeze")
                        return
            except (ConnectionError, OSError):
                pass
            if not state["done"]:
                state["done"] = True
                cwriter.close()
                hwriter.close()
                stopped.set()

        t1 = asyncio.create_task(pipe(creader, hwriter))
        t2 = asyncio.create_task(pipe(hreader, cwriter))
        await stopped.wait()
        if freeze is not None and not (cut is not None and state["n"] >= cut):
            # frozen: keep both sockets open and silent until the proxy stops
            assert self._stop is not None
            await self._stop.wait()
        for t in (t1, t2):
            t.cancel()
