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

import pytest

from p2p_spite.contracts.session import Notice
from p2p_spite.core.messages import JOIN
from p2p_spite.core.protocol import PROTOCOL_VERSION
from p2p_spite.net import HostSettings, JoinSettings, gate, host_session, join_session
from p2p_spite.net.gate import Guesses
from p2p_spite.net.opening import ELEMENT_MESSAGE, Opening
from p2p_spite.net.session import NetSession
from p2p_spite.net.watch import watch_match
from p2p_spite.tunnel.spake2 import Role
from p2p_spite.ui.networds import news_words
from tests.support.lanopen import Guesser, guess, scalar

ADDR = "127.0.0.1"
CODE = "ABCD-EFGH"
LIMIT = 60.0  # seconds for any one wait


def _hello() -> dict[str, Any]:
    """A joiner's hello, inside the sealed channel (no code to prove there)."""
    return {
        "t": "hello",
        "proto": PROTOCOL_VERSION,
        "app": "p2p-spite",
        "role": JOIN,
        "name": "mallory",
        "nonce": os.urandom(16),
        "code": False,
        "match": None,
    }


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
    """A stranger at the door, once the host has taken it (its opening's element came);
    every other one has sent half a confirmation (of a wrong code)."""
    r, w = await asyncio.wait_for(asyncio.open_connection(ADDR, port, local_addr=(source, 0)), LIMIT)
    op = Opening(Role.B, scalar("WRONG-CODE"))
    w.write(op.data_to_send())
    # the host's element (or its close: crowded out by the newer ones from the same address)
    await asyncio.wait_for(r.read(ELEMENT_MESSAGE), LIMIT)
    if k % 2:
        w.write(os.urandom(16))
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


# -- a guesser of join codes is slowed per address (issue 44) ------------------------------------


def test_an_address_has_a_few_free_tries_then_one_every_few_seconds() -> None:
    now = [0.0]
    g = Guesses(lambda: now[0], free=3, every=2.0)
    for _ in range(3):
        assert g.wait("127.0.0.2") == 0
        g.failed("127.0.0.2")
    assert g.wait("127.0.0.2") == pytest.approx(2.0)  # no try left: the next in 2 s
    assert g.wait("127.0.0.3") == 0  # another address is not slowed
    now[0] = 1.5
    assert g.wait("127.0.0.2") == pytest.approx(0.5)
    now[0] = 2.0
    assert g.wait("127.0.0.2") == 0
    for _ in range(4):  # four proofs checked at once (the door's share of an address)
        g.failed("127.0.0.2")
    assert g.wait("127.0.0.2") == pytest.approx(8.0)  # the debt is paid before the next
    now[0] = 100.0
    assert g.wait("127.0.0.2") == 0 and g._left("127.0.0.2", now[0]) == 3  # (never more than the free ones)


def test_the_table_of_guessers_is_bounded_and_the_crowd_beyond_it_shares_one_count() -> None:
    now = [0.0]
    g = Guesses(lambda: now[0], free=2, every=10.0, most=100)
    for i in range(10_000):  # a crowd of addresses (IPv6 /64s), each trying twice
        for _ in range(2):
            g.failed(f"2001:db8:{i:x}::/64")
    assert len(g) <= 101
    assert g.wait("2001:db8:ffff::/64") > 0  # a new address of the crowd is slowed with it
    now[0] = 1000.0  # the tries all back: forgotten as the table fills again
    for i in range(100):
        g.failed(f"10.0.0.{i}")
    assert len(g) <= 101 and g.wait("10.0.0.200") == 0


async def _outcome(g: Guesser, *, watch: bool = False, wait: float = LIMIT) -> str | None:
    """What the host said to a guess: ``"bad-code"`` in the opening, ``"none"`` if nothing
    came within ``wait``, or once in the sealed channel (as a joiner, or ``watch``: a
    watcher) the code of its refusal, None if it let the guesser in."""
    said = await g.answer(wait)
    if said is not None:
        return said
    if watch:
        g.send(
            {
                "t": "watch",
                "proto": PROTOCOL_VERSION,
                "app": "p2p-spite",
                "nonce": os.urandom(16),
                "code": False,
            }
        )
    else:
        g.send(_hello())
    got = await g.frames(1 if watch else 2)
    return next((m["code"] for m in got if m["t"] == "refuse"), None)


def test_a_guesser_is_slowed_at_its_address_while_the_players_get_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A watcher tried 720-1,870 wrong codes a second.  Now, from 127.0.0.2: its first
    GUESS_FREE wrong codes are refused at once, the next is not even checked until its
    turn (no try comes back during this test: GUESS_EVERY is long), whether it comes as a
    joiner or a watcher, and a right code too waits.  Meanwhile a person at 127.0.0.1
    mistypes twice and gets in with the right code, and a watcher at 127.0.0.3 with it."""
    monkeypatch.setattr(gate, "GUESS_EVERY", 10_000.0)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        port_f: asyncio.Future[int] = loop.create_future()
        settings = HostSettings(bind=ADDR, port=0, name="Ann", code=CODE, record_path=tmp_path / "h.json")
        host_task = asyncio.create_task(
            host_session(settings, on_listening=lambda _h, p: port_f.set_result(p), on_warning=None)
        )
        port = await asyncio.wait_for(port_f, LIMIT)
        for _ in range(gate.GUESS_FREE):  # answered at once
            assert await _outcome(await guess(port, "WRONG-CODE", source="127.0.0.2")) == "bad-code"
        held = [await guess(port, code, source="127.0.0.2") for code in ("WRONG-CODE", CODE, "WRONG-CODE")]
        for _ in range(2):  # a person who mistypes twice, from another address
            assert await _outcome(await guess(port, "WRONG-CODE", source=ADDR)) == "bad-code"
        joiner = await asyncio.wait_for(
            join_session(
                JoinSettings(host=ADDR, port=port, name="Bob", code=CODE, record_path=tmp_path / "j.json")
            ),
            LIMIT,
        )
        host = await asyncio.wait_for(host_task, LIMIT)
        watcher = await watch_match(host=ADDR, port=port, code=CODE)  # (127.0.0.1 is not slowed)
        in_door = await guess(port, CODE, source="127.0.0.3")
        assert await _outcome(in_door, watch=True) is None  # let in (its first table follows)
        for g in held:  # the guesser's proofs wait their turn: nothing came back, right or wrong
            assert await g.answer(wait=0.5) == "none"
        await watcher.close()
        for s in (joiner, host):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    _run(main)


# -- what the host's player is told of them (issue 48, item 3) -----------------------------------


def test_strangers_refused_during_a_match_are_told_plainly_and_merged(tmp_path: Path) -> None:
    """A stranger with the right code (the seat is taken) and a guesser, from 127.0.0.2 over
    IPv4: the host's player is told once, with the address alone and no protocol story,
    and the repeats in one line (the window ends when the joiner's moves go on)."""

    async def main() -> None:
        host, joiner, port = await _in_a_match(tmp_path, [])
        for code in (CODE, CODE, "WRONG-CODE", CODE):
            g = await guess(port, code, source="127.0.0.2")
            assert await _outcome(g) == ("bad-code" if code != CODE else "seat-taken")
        door = host.again.successor.host  # type: ignore[union-attr]  # (the door of this match)
        door.summary(now=True)  # the window's count, told now rather than in 5 s
        said: list[str] = []
        while (ev := host.outbox.get_nowait()) is not None:
            if isinstance(ev, Notice):
                said.append(news_words(ev.news))
        assert said == [
            "refused a connection from 127.0.0.2 (the match already has its two players)",
            "refused 3 more connections from 127.0.0.2 in 0 s: "
            "2 for a match that has its two players, 1 wrong join code",
        ], said
        for s in (joiner, host):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.close("quit"), LIMIT)

    _run(main)
