"""Both ends of a match in one process and one event loop (as the `play` command does)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2p_spite import record
from p2p_spite.bots.driver import run_bot
from p2p_spite.net import host_session, join_session
from p2p_spite.session import ConnectionChanged, Event, GameStarted, MatchEnded, MovePlayed


def test_host_and_bot_in_one_loop(tmp_path: Path) -> None:
    async def main() -> None:
        port: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        host_task = asyncio.create_task(
            host_session(
                bind="127.0.0.1", port=0, name="Ann", target=20, record_path=tmp_path / "h.json",
                on_listening=lambda h, p: port.set_result(p), on_warning=None,
            )
        )  # fmt: skip
        joiner = await join_session(
            host="127.0.0.1", port=await port, name="Bot", record_path=tmp_path / "j.json"
        )
        host = await host_task
        seen: list[Event] = []
        codes = await asyncio.gather(
            run_bot(host, "easy", seed=1, on_event=seen.append), run_bot(joiner, "easy", seed=2)
        )
        assert codes == [0, 0]
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
