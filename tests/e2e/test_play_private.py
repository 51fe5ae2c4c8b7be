"""``play --private``: the computer in a process of its own, a private deck between
the two over 127.0.0.1, played to the end on the line prompt."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from p2p_spite.commands.cli import main
from p2p_spite.commands.lan import play_against_computer
from p2p_spite.contracts.session import Session
from p2p_spite.storage import record
from p2p_spite.ui.app import GameApp
from tests.support.net import play_by_hints, spawn
from tests.support.ui import SizedOutput, texts, until

GAME_TIMEOUT = 200.0  # seconds for the whole match (one game, or a few if the stock runs out)


@pytest.mark.slow
def test_play_private_plays_a_match_to_its_end_on_the_line_prompt(tmp_path: Path) -> None:
    """The person asks for a hint whenever the board is shown on their turn and plays it
    (Enter); the computer (``random``, the fastest) plays from its own process."""
    scratch = tmp_path / "tmp"  # where the computer keeps its copy of the record
    scratch.mkdir()
    proc = spawn(
        ["play", "--private", "--bot", "random", "--target", "1", "--name", "Ann", "--record", "m.json"],
        tmp_path,
        {"TERM": "dumb", "TMPDIR": str(scratch)},
        stdin=True,
    )
    said = play_by_hints(proc, timeout=GAME_TIMEOUT)
    rc = proc.returncode
    text = "\n".join(said)
    assert rc == 0, text[-3000:]
    assert said[0] == "dealing a private deck with the computer, a program of its own on 127.0.0.1..."
    assert said[1] == "You are Ann against Computer, on a private deck.", text[:2000]
    ended = re.findall(r"^== Game \d+: ", text, re.M)
    proven = "== Private deck: every shuffle proven; Computer saw none of your hidden cards."
    checked = [line for line in said if line == proven]
    assert ended and len(checked) == len(ended)  # every game, once
    assert re.search(r"^== (You win|Computer wins) the match", text, re.M)
    assert "You played" in text and ("Computer played" in text or "Computer discarded" in text)
    # the record is a private one (version 2), and every move in it checks
    rec = record.load(tmp_path / "m.json")
    assert rec.players == ("Ann", "Computer")
    match = record.verify(rec)
    assert match.over and match.total_moves > 0
    assert os.listdir(scratch) == []  # the computer's process is done, its copy removed


def test_a_computer_that_stops_before_joining_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p_spite.commands import lan
    from p2p_spite.contracts.errors import UserError

    monkeypatch.setattr(lan, "_COMPUTER_MAIN", "import sys; sys.exit('p2p-spite: cannot go on')")

    async def never(session: Session) -> int:
        raise AssertionError("no session without the computer")

    async def run() -> object:
        return await play_against_computer(record_path=tmp_path / "m.json", driver=never, private=True)

    with pytest.raises(UserError) as e:
        asyncio.run(asyncio.wait_for(run(), 60))
    assert str(e.value) == "the computer's program stopped before the match began: cannot go on"


def test_private_play_refuses_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    for option in (["--seed", "ab" * 32], ["--seed-file", "x.json"]):
        assert main(["play", "--private", *option]) == 2
        err = capsys.readouterr().err
        why = "a private deck is not dealt from a seed"
        assert err == f"p2p-spite: {option[0]} does not go with --private: {why}\n"


@pytest.mark.slow
def test_the_game_screen_says_private_and_that_the_deck_was_proven(tmp_path: Path) -> None:
    """The full screen over ``play --private``'s real path (the computer's own process):
    the header says so, and resigning the game ends it with the line on its proofs."""
    seen: dict[str, str] = {}

    async def driver(session: Session) -> int:
        with create_pipe_input() as inp:
            app = GameApp(session, input=inp, output=SizedOutput(80, 24), pace=0.01)
            task = asyncio.create_task(app.run())
            await until(lambda: app.view is not None and app.view.my_turn, timeout=60)
            seen["header"] = "".join(f[1] for f in app.board_text()).splitlines()[0]
            inp.send_text("resign\r")
            await until(lambda: app.confirm is not None)
            inp.send_text("y\r")
            await until(lambda: app.finished, timeout=60)
            seen["messages"] = texts(app)
            inp.send_text("quit\r")
            async with asyncio.timeout(15):
                await task
            return 1 if app.failed else 0

    async def run() -> tuple[int, str | None]:
        return await play_against_computer(
            level="random", name="Ana", target=1, record_path=tmp_path / "m.json", driver=driver, private=True
        )

    code, path = asyncio.run(asyncio.wait_for(run(), 120))
    assert code == 0 and path is not None
    assert seen["header"].startswith(" Game 1 · first to 1 · private deck ")
    line = "Private deck: every shuffle proven; Computer saw none of your hidden cards."
    assert seen["messages"].count(line) == 1
    assert record.verify(record.load(Path(path))).over


def test_the_header_says_private_deck_where_it_fits_and_never_overflows() -> None:
    from p2p_spite.engine import Match, view
    from p2p_spite.ui.board import BoardInfo, render_board, render_compact, width_of

    v = view(Match(bytes(32)).game, 0)
    small: list[str] = []
    for private in (False, True):
        info = BoardInfo(view=v, names=("Ann", "Computer"), target=50, private=private)
        wide, narrow = render_board(info, 80)[0], render_compact(info, 40)[0]
        assert width_of(wide) == 80 and width_of(narrow) <= 40
        text = "".join(f[1] for f in wide)
        left = " Game 1 · first to 50 · private deck " if private else " Game 1 · first to 50 "
        assert text.startswith(left)
        assert "You 0 : 0 Computer" in text
        small.append("".join(f[1] for f in narrow))
        assert "private" in "".join(f[1] for f in render_compact(info, 50)[0]) or not private
    assert small[0] == small[1]  # 40 columns: the scores come first, as in a seeded match
