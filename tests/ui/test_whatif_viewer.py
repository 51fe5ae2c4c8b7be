"""Play from here in the replay viewer: the key, the dialog, the game screen, and back."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite.bots import make_bot
from p2p_spite.bots.selfplay import play_match
from p2p_spite.commands.cli import main
from p2p_spite.engine import Match
from p2p_spite.storage import record
from p2p_spite.ui import whatif as whatif_ui
from p2p_spite.ui.notation import move_notation
from p2p_spite.ui.replay import ReplayViewer, load_replay
from p2p_spite.ui.whatif import WhatIfApp, default_seat, plan_whatif


class SizedOutput(DummyOutput):
    def __init__(self, cols: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=cols)

    def get_size(self) -> Size:
        return self.size


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=2)
    return record.save(m, tmp_path_factory.mktemp("whatif") / "m.json")


async def until(pred: Callable[[], bool], what: str) -> None:
    async with asyncio.timeout(30):
        while not pred():
            await asyncio.sleep(0.01)


def board_text(app: WhatIfApp) -> str:
    return "".join(f[1] for line in app.board_lines() for f in line)


def test_play_from_here_plays_on_and_comes_back(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[WhatIfApp] = []

    class Seen(WhatIfApp):
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **{**kw, "pace": 0.0})
            opened.append(self)

    monkeypatch.setattr(whatif_ui, "WhatIfApp", Seen)

    async def main_() -> None:
        r = load_replay(saved)
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24), me="bob")
            task = asyncio.create_task(v.run())
            inp.send_text("\x1b[C" * 7)
            await until(lambda: r.pos == 7, "seven moves")
            inp.send_text("p")
            await until(lambda: bool(v.root.floats), "the dialog")
            inp.send_text("\x1b[A\x1b[A\x1b[A\r")  # up to easy, chosen
            inp.send_text("\t\t\r")  # the seat offered (bob: 1), then Play
            await until(lambda: bool(opened), "the game screen")
            app = opened[0]
            assert app.seat == 1 and app.names == ("Computer", "Bob")
            await until(
                lambda: app.view is not None and app.view.my_turn and app.feed.shown.is_set(), "my turn"
            )
            v0 = app.view
            assert v0 is not None and v0.ply >= 7
            move = v0.legal_moves()[0]
            inp.send_text(move_notation(move, app.shown_hand()) + "\r")
            await until(lambda: app.view is not None and app.view.ply > v0.ply, "the move shown")
            assert app.ctl.last_move is not None and app.ctl.last_move.move == move
            assert app.ctl.last_move.seat == 1
            assert "What if: game 1 from move 7" in "".join(f[1] for f in app.message_text())
            assert "Computer" in board_text(app)
            inp.send_text("\x03")  # Ctrl-C: back to the replay, where it left
            await until(lambda: v.app.is_running and not opened[0].app.is_running, "the replay again")
            assert (r.game, r.pos) == (1, 7)
            inp.send_text("q")
            async with asyncio.timeout(10):
                await task

    asyncio.run(main_())


def test_cancel_closes_the_dialog_and_the_viewer_keys_come_back(saved: Path) -> None:
    async def main_() -> None:
        r = load_replay(saved)
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(v.run())
            inp.send_text("p")
            await until(lambda: bool(v.root.floats), "the dialog")
            inp.send_text("\x1b[C")  # at once, before it is drawn: the dialog has the keys, not the replay
            await asyncio.sleep(0.2)
            assert r.pos == 0
            inp.send_text("\x03")  # Ctrl-C (or Esc: a lone Esc waits on a pipe) cancels
            await until(lambda: not v.root.floats, "the dialog closed")
            inp.send_text("\x1b[C")
            await until(lambda: r.pos == 1, "a step")
            inp.send_text("q")
            async with asyncio.timeout(10):
                await task
            assert v.pending is None

    asyncio.run(main_())


def test_the_seat_offered_is_the_persons() -> None:
    assert default_seat(("Ann", "Bob"), "bob") == 1
    assert default_seat(("Ann", "Bob"), "Zed") == 0
    assert default_seat(("Ann", "Bob"), None) == 0


def test_replay_from_checks_the_position(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    r = load_replay(saved)
    with pytest.raises(ValueError, match="no move 999 in game 1"):
        plan_whatif(r.match, r.names, 1, 999, "easy", None, None)
    with pytest.raises(ValueError, match="no computer level"):
        plan_whatif(r.match, r.names, 1, 0, "genius", None, None)
    assert main(["replay", str(saved), "--from", "7:0"]) == 2
    assert "no move 0 in game 7" in capsys.readouterr().err
    assert main(["replay", str(saved), "--bot", "easy"]) == 2
    assert "--from" in capsys.readouterr().err


def test_replay_from_off_a_terminal_plays_on_the_line_prompt(
    saved: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\ny\n"))
    assert main(["replay", str(saved), "--from", "1:5", "--bot", "random", "--seat", "0"]) == 0  # (quit, yes)
    out = capsys.readouterr().out
    assert "What if: game 1 from move 5" in out
    assert "Ann" in out and "Computer" in out
