"""Watchers over real TCP on 127.0.0.1 (docs/protocol.md, *Watchers*): the joiner is
told how many watch (on change, throttled), and a watcher follows the players when
they play again on the same connection, to the end of the last match."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import pytest

from p2p_spite.bots.driver import run_bot
from p2p_spite.contracts.session import Event, WatchersChanged
from p2p_spite.contracts.spectator import SpectatorEvent, TableShown, Watching, WatchStopped
from p2p_spite.core.watchcount import WATCHERS_EVERY
from p2p_spite.engine import move_from_json
from p2p_spite.net import host_session, join_session
from p2p_spite.net.matches import Matches
from p2p_spite.net.session import NetSession
from p2p_spite.net.settings import HostSettings, JoinSettings, nth_record_path
from p2p_spite.net.watch import watch_match
from p2p_spite.storage import record
from tests.net.test_watch_net import collect, run, until
from tests.support.net import finish_all, messages, raw_watch, read_code, reader, spawn, wait_listening


def _host(tmp: Path, port: asyncio.Future[int], **kw: Any) -> asyncio.Task[NetSession]:
    settings = HostSettings(
        bind="127.0.0.1", port=0, name="Ann", record_path=tmp / "h.json", code=None, heartbeat=0.5,
        dead_after=10, **kw,
    )  # fmt: skip
    return asyncio.create_task(host_session(settings, on_listening=lambda _h, p: port.set_result(p)))


async def _join(tmp: Path, port: int) -> NetSession:
    return await join_session(
        JoinSettings(host="127.0.0.1", port=port, name="Bob", record_path=tmp / "j.json")
    )


def test_the_joiner_is_told_how_many_watch_on_change_and_at_most_once_a_second(tmp_path: Path) -> None:
    async def main() -> None:
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        hosting = _host(tmp_path, port, target=30)
        joiner = await _join(tmp_path, await port)
        host = await hosting
        loop = asyncio.get_running_loop()
        told: list[tuple[float, int]] = []

        async def listen() -> None:
            while True:
                ev = await joiner.next_event()
                if isinstance(ev, WatchersChanged):
                    told.append((loop.time(), ev.count))

        listening = asyncio.create_task(listen())
        watchers = [await watch_match(host="127.0.0.1", port=await port) for _ in range(3)]
        await until(lambda: bool(told) and told[-1][1] == 3, 5)
        await watchers[0].close()
        await until(lambda: told[-1][1] == 2, 5)
        counts = [n for _t, n in told]
        assert counts[0] == 1 and counts[-2:] == [3, 2]  # the first at once; then the changes ...
        assert len(counts) <= 3  # ... merged while the throttle holds them (1, [2,] 3, 2 -> 1, 3, 2)
        gaps = [b[0] - a[0] for a, b in itertools.pairwise(told)]
        assert all(g >= WATCHERS_EVERY * 0.9 for g in gaps), gaps
        listening.cancel()
        for w in watchers[1:]:
            await w.close()
        await host.close("quit")
        await joiner.close("quit")

    run(main)


def test_watchers_follow_the_players_into_their_next_match(tmp_path: Path) -> None:
    """``--matches 2`` on both sides: a watcher sees both matches, each from its deal, and
    stops (complete) after the last; one that does not say it follows (the older docs)
    leaves at the first match's end, as before."""

    async def main() -> None:
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        hosting = _host(tmp_path, port, target=30, games=1)
        client = await watch_match(host="127.0.0.1", port=await port)
        seen: list[SpectatorEvent] = []
        watching = asyncio.create_task(collect(client, seen))
        old_reader, old_writer = await asyncio.open_connection("127.0.0.1", await port)
        old_writer.write(raw_watch())  # no "again": it leaves with the first match
        joiner = await _join(tmp_path, await port)
        host = await hosting
        host_events: list[Event] = []
        codes = await asyncio.gather(
            run_bot(Matches(host), "easy", seed=1, matches=2, on_event=host_events.append),
            run_bot(Matches(joiner), "easy", seed=2, matches=2),
        )
        assert list(codes) == [0, 0]
        await watching
        async with asyncio.timeout(10):
            old = messages(await old_reader.read(-1))
        old_writer.close()

        recs = [record.load(tmp_path / "h.json"), record.load(nth_record_path(tmp_path / "h.json", 2))]
        assert recs[0].seed != recs[1].seed
        intros = [i for i, e in enumerate(seen) if isinstance(e, Watching)]
        assert len(intros) == 2 and seen[-1] == WatchStopped(True)
        for k, rec in enumerate(recs):
            part = seen[intros[k] : intros[k + 1] if k + 1 < len(intros) else None]
            tables = [e for e in part if isinstance(e, TableShown)]
            assert (tables[0].view.game, tables[0].view.ply, tables[0].move) == (1, 0, None)  # its deal
            assert [t.move for t in tables if t.move is not None] == [
                move_from_json(mv) for g in rec.games for mv in g.moves
            ]
            assert [t for t in tables if t.match_over] == [tables[-1]]
            assert tables[-1].scores == tuple(rec.scores or ())
        assert [f["t"] for f in old][-2:] == ["table", "bye"] and old[-2]["f"] & 2  # the first match's end
        assert sum(1 for f in old if f["t"] == "watching") == 1
        counts = [e.count for e in host_events if isinstance(e, WatchersChanged)]
        assert counts[:2] == [2, 1] and counts[-1] == 1  # the old watcher left; the other stayed

    run(main)


def test_a_watcher_of_the_old_kind_arriving_between_matches_is_refused(tmp_path: Path) -> None:
    async def main() -> None:
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        hosting = _host(tmp_path, port, target=30, games=1)
        joiner = await _join(tmp_path, await port)
        host = await hosting
        played = Matches(host)
        bot = asyncio.create_task(run_bot(Matches(joiner), "easy", seed=2, matches=1))
        async with asyncio.timeout(30):  # the host plays its match out, and does not answer yet
            while not host.ended:
                ev = await played.next_event()
                v = getattr(ev, "view", None)
                if v is not None and v.my_turn and not host.closed_for_play:
                    await played.play(v.legal_moves()[0])
        r, w = await asyncio.open_connection("127.0.0.1", await port)
        w.write(raw_watch())
        async with asyncio.timeout(10):
            got = messages(await r.read(-1))
        assert got[-1]["t"] == "refuse" and got[-1]["code"] == "no-match"
        w.close()
        await bot
        await played.close("done")

    run(main)


@pytest.mark.slow
def test_watch_follows_two_bot_matches_and_never_prints_a_seed(tmp_path: Path) -> None:
    """``host --bot easy --matches 2`` against ``join --bot easy --matches 2`` and a
    ``watch``, three processes over 127.0.0.1: both matches' moves and final scores, exit
    0 after the last; neither match's seed in the watcher's output."""
    host = spawn(
        ["host", "--bind", "127.0.0.1", "--port", "0", "--no-announce", "--record", "h.json", "--bot", "easy",
         "--name", "Ann", "--target", "30", "--games", "2", "--matches", "2"],
        tmp_path,
    )  # fmt: skip
    procs = [host]
    try:
        port, _ = wait_listening(host)
        code = read_code(host)
        watcher = spawn(["watch", f"127.0.0.1:{port}", "--code", code], tmp_path)
        procs.append(watcher)
        reader(watcher).wait(r"^watching the match at ", 20)
        join = spawn(
            ["join", f"127.0.0.1:{port}", "--code", code, "--bot", "easy", "--name", "Bob",
             "--record", "j.json", "--matches", "2"],
            tmp_path,
        )  # fmt: skip
        procs.append(join)
        (hrc, hout, herr), (wrc, wout, werr), (jrc, _jout, jerr) = finish_all([host, watcher, join], 120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert (hrc, wrc, jrc) == (0, 0, 0), herr + werr + jerr
    recs = [record.load(tmp_path / "h.json"), record.load(tmp_path / "h-2.json")]
    lines = wout.splitlines()
    starts = [
        i for i, ln in enumerate(lines) if ln.startswith(("Watching Ann against Bob", "They play again."))
    ]
    assert len(starts) == 2 and lines[starts[1]].startswith("They play again. Match 2: Ann against Bob")
    for k, rec in enumerate(recs):
        part = lines[starts[k] : starts[k + 1] if k + 1 < len(starts) else None]
        moves = [ln for ln in part if ln[:4].strip().rstrip(".").isdigit()]
        assert len(moves) == sum(len(g.moves) for g in rec.games)  # every move of that match
        assert rec.scores is not None
        a, b = rec.scores
        ends = [
            ln
            for ln in part
            if f"wins the match {max(a, b)}-{min(a, b)}." in ln or f"stopped at {a}-{b}." in ln
        ]
        assert ends, part[-3:]  # its final score
        for other in recs:  # no seed at all, and so none while its match was in play
            assert other.seed.hex() not in "\n".join(part)
    for h, j in (("h.json", "j.json"), ("h-2.json", "j-2.json")):
        assert (tmp_path / h).read_bytes() == (tmp_path / j).read_bytes()
    assert recs[1].scores is not None
    a, b = recs[1].scores
    won = f"{('Ann', 'Bob')[b > a]} wins the match {max(a, b)}-{min(a, b)}."
    assert lines[-1] in (won, f"The match stopped at {a}-{b}."), lines[-1]  # (--games 2 may stop it)
    assert all(r.seed.hex() in hout for r in recs)  # (the host says them; the watcher never does)
    assert all(r.seed.hex() not in wout + werr for r in recs)
    assert "Traceback" not in herr + werr + jerr
