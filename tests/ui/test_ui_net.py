"""The game screen over the real network path: ``play``'s loopback host and a bot peer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite.commands.lan import play_against_computer
from p2p_spite.contracts import i18n
from p2p_spite.contracts.session import Session
from p2p_spite.engine import CENTER, SIDE, Move
from p2p_spite.storage import record
from p2p_spite.ui.app import GameApp
from p2p_spite.ui.notation import move_notation
from tests.support.ui import changed

SEED = bytes(range(32))


async def until(pred: Callable[[], bool], timeout: float = 15) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.01)


def test_play_against_the_computer_over_loopback(tmp_path: Path) -> None:
    sent: list[Move] = []
    seen: list[str] = []

    async def driver(session: Session) -> int:
        with create_pipe_input() as inp:
            app = GameApp(session, input=inp, output=DummyOutput(), pace=0.01)
            task = asyncio.create_task(app.run())
            for _ in range(3):  # three moves: center plays when there are, else a discard
                await until(lambda: app.view is not None and app.view.my_turn)
                v = app.view
                assert v is not None
                moves = v.legal_moves()
                move = next((m for m in moves if m.target == CENTER), None) or next(
                    m for m in moves if m.target == SIDE
                )
                inp.send_text(move_notation(move, app.shown_hand()) + "\r")
                await until(changed(lambda: app.view, v))
                sent.append(move)
            # The computer's moves came over the network and were shown.
            text = "\n".join("".join(f[1] for f in m) for m in app.log.messages)
            seen.append(text)
            inp.send_text("quit\r")
            await until(lambda: app.confirm is not None)
            inp.send_text("y\r")
            async with asyncio.timeout(15):
                await task
            return 1 if app.failed else 0

    async def main() -> tuple[int, str | None]:
        return await play_against_computer(
            level="easy", seed=SEED, name="Ana", record_path=tmp_path / "m.json", driver=driver
        )

    code, path = asyncio.run(asyncio.wait_for(main(), 60))
    assert code == 0
    assert path is not None
    assert "Computer played" in seen[0] or "Computer discarded" in seen[0]
    # The record holds our moves, as played, and replays.
    rec = record.load(Path(path))
    match = record.verify(rec)
    ours = [m for m in match.moves[0] if m.seat == 0]
    assert ours[: len(sent)] == sent
    assert rec.players == ("Ana", "Computer")


def test_the_computer_is_named_in_the_players_language(tmp_path: Path) -> None:
    """``play --lang pl``: the computer joins as "Komputer", the name its person reads
    on the board and in the record (the name crosses the wire like a person's)."""
    i18n.setup("pl")
    names: list[tuple[str, str]] = []

    async def driver(session: Session) -> int:
        names.append(session.names)
        return 0

    async def main() -> tuple[int, str | None]:
        return await play_against_computer(
            level="easy", seed=SEED, name="Ana", record_path=tmp_path / "m.json", driver=driver
        )

    code, _ = asyncio.run(asyncio.wait_for(main(), 60))
    assert code == 0
    assert names == [("Ana", "Komputer")]
