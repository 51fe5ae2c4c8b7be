"""What a stranger costs a host (issue 44): a refused connection leaves nothing behind,
and a guesser of join codes is slowed per address while the players are not.  A real
host session on 127.0.0.1, strangers over real TCP from 127.0.0.x (x as "machines")."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from p2p_spite.core.messages import JOIN
from p2p_spite.core.protocol import PROTOCOL_VERSION
from p2p_spite.core.wire import encode
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.net.session import NetSession

ADDR = "127.0.0.1"
CODE = "ABCD-EFGH"
LIMIT = 60.0  # seconds for any one wait


def _hello() -> bytes:
    return encode(
        {
            "t": "hello",
            "proto": PROTOCOL_VERSION,
            "app": "p2p-spite",
            "role": JOIN,
            "name": "mallory",
            "nonce": os.urandom(16),
            "code": True,
            "match": None,
        }
    )


async def _in_a_match(tmp: Path, warnings: list[Any]) -> tuple[NetSession, NetSession, int]:
    """A host (with a join code) and its joiner in a match: (host, joiner, the host's port)."""
    loop = asyncio.get_running_loop()
    port: asyncio.Future[int] = loop.create_future()
    settings = HostSettings(bind=ADDR, port=0, name="Ann", code=CODE, record_path=tmp / "h.json")
    host_task = asyncio.create_task(
        host_session(settings, on_listening=lambda _h, p: port.set_result(p), on_warning=warnings.append)
    )
    p = await asyncio.wait_for(port, LIMIT)
    joiner = await asyncio.wait_for(
        join_session(JoinSettings(host=ADDR, port=p, name="Bob", code=CODE, record_path=tmp / "j.json")),
        LIMIT,
    )
    return await asyncio.wait_for(host_task, LIMIT), joiner, p


async def _knock(port: int, k: int, source: str = "127.0.0.2") -> asyncio.StreamWriter:
    """A stranger at the door, once the host has taken it (its hello came); every other
    one has sent half a hello."""
    r, w = await asyncio.wait_for(asyncio.open_connection(ADDR, port, local_addr=(source, 0)), LIMIT)
    await asyncio.wait_for(r.readexactly(4), LIMIT)  # (the host's hello: it has the connection)
    if k % 2:
        w.write(_hello()[:20])
    return w


async def _stranger(port: int, k: int, source: str = "127.0.0.2") -> None:
    """One refused stranger: it knocks, then closes."""
    w = await _knock(port, k, source)
    w.close()
    with contextlib.suppress(OSError):
        await asyncio.wait_for(w.wait_closed(), LIMIT)


async def _settled(tasks: int) -> None:
    """Until the host has let every stranger go: each one's watch task is over (the
    loop's tasks are back to ``tasks``).  A bounded wait."""
    for _ in range(int(LIMIT / 0.02)):
        if len(asyncio.all_tasks()) <= tasks:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the host still holds strangers' connections")


def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def _run(main: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(main(), 4 * LIMIT))


def test_a_thousand_refused_strangers_leave_nothing_behind(tmp_path: Path) -> None:
    """3,000 strangers grew a host's memory by 57-71 MB, kept after they were gone: each
    connection held two msgpack Unpackers (64 KiB each, 141 KB a stranger measured here),
    freed when it went, but the heap's holes were not reused (RSS: scripts/gate_memory).
    Now a stranger at the door costs under 10 KB while it is there, and 1,000 of them,
    gone, leave (almost) nothing: the growth does not follow the count."""

    async def main() -> None:
        host, joiner, port = await _in_a_match(tmp_path, [])
        calm = len(asyncio.all_tasks())
        for k in range(40):  # warm up (first-time allocations: caches, the notices' timer...)
            await _stranger(port, k)
        await _settled(calm)
        tracemalloc.start()
        try:
            base = _traced()
            # 32 at the door at once (8 "machines", 4 each: the door's limits), half of them
            # with half a hello: what each costs while it is there
            writers = [await _knock(port, k, f"127.0.0.{2 + k % 8}") for k in range(32)]
            held = (_traced() - base) / 32
            for w in writers:
                w.close()
            await _settled(calm)
            after_32 = _traced() - base
            for batch in range(50):  # then 1,000 more, 20 at a time
                await asyncio.gather(*(_stranger(port, 20 * batch + k) for k in range(20)))
            await _settled(calm)
            after_1032 = _traced() - base
        finally:
            tracemalloc.stop()
        assert held < 16_000, f"{held:.0f} bytes for each stranger at the door (it was over 130,000)"
        # (what is left: a few bookkeeping objects, and cancelled timers the event loop
        # drops once they are due: not a buffer per connection)
        assert after_1032 - after_32 < 100_000, (after_32, after_1032)
        assert host.core.position == 0 and joiner.core.position == 0
        for s in (joiner, host):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    _run(main)
