"""Both ends of a match in one process and one event loop (as the `play` command does)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2p_spite.bots.driver import run_bot
from p2p_spite.contracts.session import ConnectionChanged, Event, GameStarted, MatchEnded, MovePlayed, Notice
from p2p_spite.net import HostSettings, JoinSettings, host_session, join_session
from p2p_spite.storage import record
from p2p_spite.ui.networds import news_words


def test_host_and_bot_in_one_loop(tmp_path: Path) -> None:
    async def main() -> None:
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        host_task = asyncio.create_task(
            host_session(
                HostSettings(
                    bind="127.0.0.1", port=0, name="Ann", target=20, record_path=tmp_path / "h.json"
                ),
                on_listening=lambda h, p: port.set_result(p),
                on_warning=None,
            )
        )
        joiner = await join_session(
            JoinSettings(host="127.0.0.1", port=await port, name="Bot", record_path=tmp_path / "j.json")
        )
        host = await host_task
        seen: list[Event] = []
        codes = await asyncio.gather(
            run_bot(host, "easy", seed=1, on_event=seen.append), run_bot(joiner, "easy", seed=2)
        )
        assert list(codes) == [0, 0]
        assert isinstance(seen[0], GameStarted) and isinstance(seen[-1], MatchEnded)
        assert not any(isinstance(e, ConnectionChanged) and e.state != "closed" for e in seen)
        mine = [e for e in seen if isinstance(e, MovePlayed) and e.seat == 0]
        assert mine, "MovePlayed is emitted for local moves too"
        assert seen[-1].record_path == str(tmp_path / "h.json")

    asyncio.run(asyncio.wait_for(main(), 60))
    h, j = (tmp_path / "h.json").read_bytes(), (tmp_path / "j.json").read_bytes()
    assert h == j
    m = record.verify(record.load(tmp_path / "h.json"))
    assert m.over


def test_a_stranger_during_the_match_is_a_notice_not_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Once play has started, the host's warnings reach the driver as Notice events
    (a full-screen interface owns the terminal: nothing may print over it)."""

    async def main() -> list[Event]:
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        host_task = asyncio.create_task(
            host_session(
                HostSettings(
                    bind="127.0.0.1", port=0, name="Ann", target=20, record_path=tmp_path / "h.json"
                ),
                on_listening=lambda h, p: port.set_result(p),
            )
        )
        joiner = await join_session(
            JoinSettings(host="127.0.0.1", port=await port, name="Bot", record_path=tmp_path / "j.json")
        )
        host = await host_task
        _, writer = await asyncio.open_connection("127.0.0.1", await port)
        writer.write(b"GET / HTTP/1.0\r\n\r\n" + bytes(range(256)))
        await writer.drain()
        seen: list[Event] = []
        for _ in range(200):
            seen.append(await asyncio.wait_for(host.next_event(), 10))
            if any(isinstance(e, Notice) for e in seen):
                break
        writer.close()
        await host.close("quit")
        await joiner.close("quit")
        return seen

    seen = asyncio.run(asyncio.wait_for(main(), 60))
    notices = [e for e in seen if isinstance(e, Notice)]
    assert notices and "refused a connection" in news_words(notices[0].news)
    assert capsys.readouterr().err == ""
