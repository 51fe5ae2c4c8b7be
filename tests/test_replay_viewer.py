"""The replay viewer: positions, stepping, and the real application via pipe input."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite import record
from p2p_spite.bots import make_bot
from p2p_spite.engine import SIDE, Match, view
from p2p_spite.selfplay import play_match
from p2p_spite.ui.board import width_of
from p2p_spite.ui.replay import Replay, ReplayViewer, load_replay, run_viewer, text_listing


@pytest.fixture(scope="module")
def match() -> Match:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=2)
    return m


@pytest.fixture
def saved(match: Match, tmp_path: Path) -> Path:
    return record.save(match, tmp_path / "m.json")


def test_any_position_is_the_deal_plus_its_moves(match: Match) -> None:
    r = Replay(match)
    assert len(r.moves) == 2
    r.goto(1, len(r.game_moves))
    end = r.state()
    assert end.digest() == match.games[0].digest()
    r.goto(1, 10)
    ten = r.state()
    assert ten.ply == 10
    r.goto(1, 0)
    assert r.state().ply == 0


def test_stepping_moves_turns_and_games(match: Match) -> None:
    r = Replay(match)
    r.step(-1)
    assert (r.game, r.pos) == (1, 0)  # nothing before the start
    r.step(1)
    assert (r.game, r.pos) == (1, 1)
    r.turn(1)
    assert r.game_moves[r.pos - 1].target == SIDE or r.at_end()  # a turn ends with a discard
    before = r.pos
    r.turn(-1)
    assert r.pos < before
    r.goto(1, len(r.game_moves))
    r.step(1)
    assert (r.game, r.pos) == (2, 0)  # on into the next game
    r.step(-1)
    assert (r.game, r.pos) == (1, len(r.game_moves))
    r.jump_game(1)
    assert (r.game, r.pos) == (2, 0)
    r.jump_game(1)
    assert r.at_end()


def test_scores_count_a_result_at_its_games_end(match: Match) -> None:
    r = Replay(match)
    r.goto(1, 0)
    assert r.scores_at() == (0, 0)
    r.goto(2, len(r.moves[1]))
    assert r.scores_at() == (match.scores[0], match.scores[1])


def test_listing_names_every_move(match: Match) -> None:
    lines = text_listing(Replay(match))
    assert sum(1 for line in lines if ". Ann " in line or ". Bob " in line) == match.total_moves
    assert lines[-1].startswith("scores:")


def test_off_a_terminal_the_viewer_prints_the_listing(
    saved: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_viewer(saved) == 0
    out = capsys.readouterr().out
    assert "game 1:" in out and "game 2:" in out


class SizedOutput(DummyOutput):
    def __init__(self, cols: int, rows: int) -> None:
        self.size = Size(rows=rows, columns=cols)

    def get_size(self) -> Size:
        return self.size


@pytest.mark.parametrize("cols,rows", [(80, 24), (140, 45)])
def test_the_viewer_steps_with_keys(saved: Path, cols: int, rows: int) -> None:
    async def main() -> None:
        r = load_replay(saved)
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(cols, rows))
            task = asyncio.create_task(v.run())

            async def until(pred: Callable[[], bool], what: str) -> None:
                async with asyncio.timeout(10):
                    while not pred():
                        await asyncio.sleep(0.01)

            inp.send_text("\x1b[C\x1b[C\x1b[C")  # three times right
            await until(lambda: r.pos == 3, "three moves")
            text = "".join(f[1] for line in v.board_lines() for f in line)
            assert "move 3/" in text
            # Both hands are face up: the top player's hand shows cards, not backs.
            st = r.state()
            assert all(width_of(line) <= cols for line in v.board_lines())
            assert view(st, 1).hand
            inp.send_text("\x1b[D")  # left
            await until(lambda: r.pos == 2, "one back")
            inp.send_text("]")
            await until(lambda: r.pos > 2, "a turn on")
            inp.send_text("\x1b[6~")  # page down: the next game
            await until(lambda: r.game == 2, "game 2")
            inp.send_text("G")
            await until(lambda: r.at_end(), "the end")
            listing = "".join(f[1] for f in v.move_list())
            assert "+" in listing or "draw" in listing  # the result is listed
            inp.send_text("q")
            async with asyncio.timeout(10):
                await task

    asyncio.run(main())
