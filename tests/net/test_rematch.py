"""Playing again on the same connection (docs/protocol.md, *Playing again*): the
session side, both ends in one event loop over 127.0.0.1."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.bots.driver import run_bot
from p2p_spite.contracts.session import (
    ConnectionChanged,
    GameStarted,
    LinkState,
    MatchEnded,
    Rematch,
    RematchAnswered,
    SessionFailed,
)
from p2p_spite.core.messages import Bye
from p2p_spite.core.protocol import Endpoint, SeedOrigin
from p2p_spite.net import HostSettings, JoinSettings, Matches, NetSession, host_session, join_session
from p2p_spite.net.link import Link
from p2p_spite.storage import record
from tests.support.net import next_of

LIMIT = 60.0


async def _pair(tmp: Path, games: int | None = None, **kw: Any) -> tuple[NetSession, NetSession]:
    """Host and joiner of a short match (target 10; ``games``: its limit), their records in
    ``tmp``; ``kw``: the settings of both."""
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    host_task = asyncio.create_task(
        host_session(
            HostSettings(
                bind="127.0.0.1", port=0, name="Ann", target=10, games=games, record_path=tmp / "h.json", **kw
            ),
            on_listening=lambda h, p: port.set_result(p),
            on_warning=None,
        )
    )
    joiner = await join_session(
        JoinSettings(host="127.0.0.1", port=await port, name="Bob", record_path=tmp / "j.json", **kw)
    )
    return await host_task, joiner


def test_two_bots_play_two_matches_on_one_connection(tmp_path: Path) -> None:
    transports: list[object] = []

    async def main() -> tuple[Matches, Matches]:
        host, joiner = await _pair(tmp_path)
        a, b = Matches(host), Matches(joiner)

        def seen(ev: object) -> None:
            link = a.current.link
            if isinstance(ev, GameStarted) and ev.game == 1 and link is not None:
                transports.append(link.transport)

        codes = await asyncio.gather(
            run_bot(a, "easy", seed=1, on_event=seen, matches=2), run_bot(b, "easy", seed=2, matches=2)
        )
        assert list(codes) == [0, 0]
        return a, b

    a, b = asyncio.run(asyncio.wait_for(main(), LIMIT))
    assert len(a.played) == len(b.played) == 2
    first, second = a.played
    assert len(transports) == 2 and transports[0] is transports[1]  # one connection
    assert first.seed != second.seed and first.core.match_id != second.core.match_id
    assert second.seed_by is SeedOrigin.BOTH  # the second match's seed is drawn by both
    for h, j in (("h.json", "j.json"), ("h-2.json", "j-2.json")):
        assert (tmp_path / h).read_bytes() == (tmp_path / j).read_bytes()
        assert record.verify(record.load(tmp_path / h)).over


async def _finished(tmp: Path, **kw: Any) -> tuple[NetSession, NetSession]:
    """A pair whose one-game match is over (the host resigned it at once)."""
    host, joiner = await _pair(tmp, 1, **kw)
    await host.resign()  # (on turn or not: the match's only game ends)
    for s in (host, joiner):
        async with asyncio.timeout(LIMIT):
            while not isinstance(await s.next_event(), MatchEnded):
                pass
    return host, joiner


def test_a_yes_waits_for_the_peer_then_gives_up_though_it_pings(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _finished(tmp_path, heartbeat=0.05, dead_after=5, rematch_wait=0.5)
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        assert await joiner.rematch(True) is Rematch.SILENT  # the host's side never answers
        assert 0.4 < loop.time() - t0 < 5
        await joiner.close()
        await host.close()

    asyncio.run(asyncio.wait_for(main(), LIMIT))


def test_a_no_is_told_and_a_yes_after_it_starts_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _finished(tmp_path)
        assert await host.rematch(False) is Rematch.NOT_OFFERED
        async with asyncio.timeout(LIMIT):
            assert await joiner.next_event() == RematchAnswered(False)
        assert await joiner.rematch(True) is Rematch.DECLINED
        await asyncio.gather(host.close(), joiner.close())

    asyncio.run(asyncio.wait_for(main(), LIMIT))


def test_a_bot_of_one_match_says_no_at_once_and_its_leaving_is_told(tmp_path: Path) -> None:
    """``join --bot`` (one match) answers no before it leaves, so a person on the other
    side is told rather than asked; and that the peer left shows (the toolbar's closed)."""

    async def main() -> None:
        host, joiner = await _pair(tmp_path, 1)
        bot = asyncio.create_task(run_bot(joiner, "easy", matches=1))
        await host.resign()
        await next_of(host, MatchEnded)
        assert await next_of(host, RematchAnswered) == RematchAnswered(False)
        assert await next_of(host, ConnectionChanged) == ConnectionChanged(LinkState.CLOSED)
        assert await host.rematch(True) is Rematch.DECLINED
        assert await bot == 0
        await host.close()

    asyncio.run(asyncio.wait_for(main(), LIMIT))


def test_a_peer_that_leaves_while_asked_is_gone(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _finished(tmp_path)
        waiting = asyncio.create_task(joiner.rematch(True))
        await asyncio.sleep(0.05)
        await host.close("quit")
        assert await waiting is Rematch.GONE
        await joiner.close()

    asyncio.run(asyncio.wait_for(main(), LIMIT))


def test_no_offer_before_the_end(tmp_path: Path) -> None:
    async def main() -> None:
        host, joiner = await _pair(tmp_path)
        assert await joiner.rematch(True) is Rematch.NOT_OFFERED  # the match goes on
        await asyncio.gather(host.close(), joiner.close())

    asyncio.run(asyncio.wait_for(main(), LIMIT))


@pytest.mark.slow  # (two private deals: a few seconds of curve work)
def test_a_private_match_deals_its_own_private_deck_again(tmp_path: Path) -> None:
    """``--private``: the next match on the connection runs its own fairdeck setup (fresh
    keys, a new deck), and both records of each match hold its proven deck."""

    async def main() -> Matches:
        host, joiner = await _pair(tmp_path, 1, private=True)
        a, b = Matches(host), Matches(joiner)
        for number in (1, 2):
            for s in (a, b):
                await next_of(s, GameStarted)
            await a.resign()  # the match's one game
            for s in (a, b):
                await next_of(s, MatchEnded)
            wanted = number == 1
            settled = await asyncio.gather(a.rematch(wanted), b.rematch(wanted))
            assert list(settled) == ([Rematch.STARTED] * 2 if wanted else [Rematch.NOT_OFFERED] * 2)
        await asyncio.gather(a.close(), b.close())
        return a

    a = asyncio.run(asyncio.wait_for(main(), LIMIT))
    first, second = a.played
    assert first.private and second.private and first.core.private is not second.core.private
    assert first.seed != second.seed
    for h, j in (("h.json", "j.json"), ("h-2.json", "j-2.json")):
        assert (tmp_path / h).read_bytes() == (tmp_path / j).read_bytes()
        rec = record.verify(record.load(tmp_path / h))
        assert rec.over and record.load(tmp_path / h).games[0].deck is not None


def test_a_next_match_left_before_its_first_move_is_never_said_to_be_saved(tmp_path: Path) -> None:
    """Issue 48, item 5: the joiner leaves match 2 before any move.  The host's failure
    names no record (it is not kept: nothing to replay), and neither side keeps a file."""

    async def main() -> SessionFailed:
        host, joiner = await _finished(tmp_path)
        a, b = Matches(host), Matches(joiner)
        assert list(await asyncio.gather(a.rematch(True), b.rematch(True))) == [Rematch.STARTED] * 2
        assert (tmp_path / "h-2.json").exists()  # (kept while the match runs: a crash leaves it)
        await b.close("quit")
        failed: SessionFailed = await next_of(a, SessionFailed)
        await a.close()
        assert a.current.record_dropped and b.current.record_dropped
        assert a.current.record_path is None
        return failed

    failed = asyncio.run(asyncio.wait_for(main(), LIMIT))
    assert failed.record_path is None, failed
    assert not (tmp_path / "h-2.json").exists() and not (tmp_path / "j-2.json").exists()
    assert not list(tmp_path.glob("*.journal"))
    assert (tmp_path / "h.json").exists() and (tmp_path / "j.json").exists()  # (match 1 had its end)


def test_a_bye_in_the_next_handshake_is_a_peer_gone_not_a_refusal(tmp_path: Path) -> None:
    """Both said yes, and the host says bye instead of its next setup: the joiner's
    next match settles GONE (it left), with no refusal to tell and exit code 0."""

    async def main() -> None:
        host, joiner = await _finished(tmp_path)
        successor = host.again.successor
        assert successor is not None
        real = successor

        class Leaving:
            def endpoint(self) -> Endpoint:
                ep = real.endpoint()
                ep.hs._send_setup = lambda: ep._send(Bye("quit"))  # type: ignore[method-assign]
                return ep

            async def session(self, link: Link) -> NetSession:
                return await real.session(link)

        host.again.successor = Leaving()
        settled = await asyncio.gather(host.rematch(True), joiner.rematch(True))
        assert settled[1] is Rematch.GONE and joiner.again.refused is None, settled
        await asyncio.gather(host.close(), joiner.close())

    asyncio.run(asyncio.wait_for(main(), LIMIT))
