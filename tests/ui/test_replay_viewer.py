"""The replay viewer: positions, stepping, and the real application via pipe input."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2p_spite.bots import make_bot
from p2p_spite.bots.selfplay import play_match
from p2p_spite.engine import SIDE, Match, view
from p2p_spite.storage import record
from p2p_spite.ui.board import width_of
from p2p_spite.ui.replay import Replay, ReplayViewer, check_failure, load_replay, run_viewer, text_listing
from p2p_spite.ui.text import card_label

DATA = Path(__file__).parents[1] / "data"


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


def _resigned_then_unfinished() -> Match:
    """Game 1 resigned by Bob after a few moves; game 2 stopped mid-way."""
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    bots = [make_bot("easy", 0), make_bot("easy", 1)]
    for _ in range(12):
        m.apply(bots[m.game.turn].choose(view(m.game, m.game.turn)))
    assert m.game.result is None
    m.resign(1)
    m.next_game()
    for _ in range(5):
        m.apply(bots[m.game.turn].choose(view(m.game, m.game.turn)))
    return m


def test_the_last_line_under_the_board_is_never_cut_at_80_columns() -> None:
    """Long names make the last move and how the game ended longer than 80 columns:
    the ending then goes on a line of its own, whole."""
    m = Match(bytes(range(32)), target=500, players=("Maximiliana", "Bartholomew"))
    bots = [make_bot("easy", 0), make_bot("easy", 1)]
    for _ in range(12):
        m.apply(bots[m.game.turn].choose(view(m.game, m.game.turn)))
    m.resign(1)
    r = Replay(m)
    with create_pipe_input() as inp:
        v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24))
        r.goto(1, 12)
        lines = ["".join(f[1] for f in line) for line in v.board_lines()]
        under = lines[-2:]
        assert all(len(line) <= 80 and "…" not in line for line in under), under
        assert under[-1].strip().endswith("then Maximiliana won: Bartholomew resigned, 20 points"), under
        assert "12. " in under[0]


def test_the_last_frame_says_a_resignation_or_an_unfinished_game() -> None:
    r = Replay(_resigned_then_unfinished())
    with create_pipe_input() as inp:
        v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24))

        def frame() -> tuple[str, str]:
            lines = ["".join(f[1] for f in line) for line in v.board_lines()]
            assert all(len(line) <= 80 and "…" not in line for line in lines[-2:]), lines[-2:]
            return lines[0], " ".join(lines[-2:])  # the header and the lines under the board

        r.goto(1, 11)
        head, under = frame()
        assert "resigned" not in head + under
        r.goto(1, 12)  # the last move of game 1, then the resignation
        head, under = frame()
        assert "Bob resigned" in head
        assert "12. " in under and "then Ann won: Bob resigned, 20 points" in under
        assert "game over: Ann" not in under  # not as if the last move had ended it
        assert "Ann won: Bob resigned" in "".join(f[1] for f in v.move_list())
        r.goto(2, 5)
        head, under = frame()
        assert "unfinished" in head
        assert "unfinished: the record stops here" in under
        assert "unfinished: the record stops here" in "".join(f[1] for f in v.move_list())
        listing = text_listing(r)
        assert "  Ann won: Bob resigned, 20 points" in "\n".join(listing)
        assert listing[-2] == "  unfinished: the record stops here"


def _tampered(tmp_path: Path, game: int, move: int, change: Callable[[list[object]], None]) -> Path:
    data = json.loads((DATA / "match-easy-vs-easy.json").read_text())
    change(data["games"][game - 1]["moves"][move - 1])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    return path


def _check(path: Path) -> str:
    rec = record.load(path)
    with pytest.raises(record.RecordError) as e:
        record.verify(rec)
    return check_failure(rec, e.value)


def test_check_names_stacks_and_cards_as_the_game_screen_does(tmp_path: Path) -> None:
    data = json.loads((DATA / "match-easy-vs-easy.json").read_text())
    names = data["players"]
    moves = data["games"][2]["moves"]
    # A card played from a side stack onto a center it does not fit.
    i = next(k for k, m in enumerate(moves, 1) if m[1] == "side" and m[3] == "center")
    m = moves[i - 1]

    def other_center(mv: list[object]) -> None:
        mv[4] = (m[4] + 1) % 3

    said = _check(_tampered(tmp_path, 3, i, other_center))
    assert said.startswith(f"game 3, move {i}: {names[m[0]]} cannot play that: ")
    # The screen's words: center and side stack counted from 1, the card with its suit symbol...
    assert f"from {names[m[0]]}'s side stack {m[2] + 1} does not fit center {(m[4] + 1) % 3 + 1}" in said
    assert "it needs" in said and "(or a King)" in said
    # ...and the record's own move (counted from 0) beside them.
    assert f'[{m[0]}, "side", {m[2]}, "center", {(m[4] + 1) % 3}]' in said and "counting from 0" in said
    assert "seat" not in said.split("(in the record")[0]

    said = _check(_tampered(tmp_path, 3, 6, lambda mv: mv.__setitem__(4, 7)))
    assert "there is no side stack 8: 1 to 4" in said or "there is no center stack 8: 1 to 3" in said
    said = _check(_tampered(tmp_path, 3, 6, lambda mv: mv.__setitem__(0, 1 - int(str(mv[0])))))
    assert "moved, but it is" in said and "'s turn" in said


@pytest.mark.parametrize(("cols", "rows"), [(60, 18), (40, 13), (80, 13)])
def test_a_small_terminal_replays_on_the_compact_board_with_both_hands_up(
    match: Match, cols: int, rows: int
) -> None:
    r = Replay(match)
    r.goto(1, 5)
    with create_pipe_input() as inp:
        v = ReplayViewer(r, input=inp, output=SizedOutput(cols, rows))
        assert not v.too_small()
        lines = v.board_lines()
        assert all(width_of(line) <= cols for line in lines)
        text = "\n".join("".join(f[1] for f in line) for line in lines)
        st = r.state()
        rows_shown = text.splitlines()
        top = next(i for i, x in enumerate(rows_shown) if "Pay-off" in x)  # the top player's line
        assert all(card_label(c) in rows_shown[top + 1] for c in st.hands[1])  # the hand face up under it
        assert text.splitlines()[-1].startswith(" 5. ")  # the move under the board
