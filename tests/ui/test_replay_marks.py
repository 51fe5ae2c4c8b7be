"""The review's marks in the replay viewer: ``m`` in the background, ``n``/``N`` to the marks."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from p2p_spite.bots import make_bot
from p2p_spite.bots.review import REVIEW_FIXED, TurnReview
from p2p_spite.bots.selfplay import play_match
from p2p_spite.bots.turns import Turn, turns_in, turns_of
from p2p_spite.engine import Match, Move, PlayerView
from p2p_spite.storage import record
from p2p_spite.ui.replay import ReplayViewer, load_replay
from tests.support.ui import SizedOutput, until


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=2)
    return record.save(m, tmp_path_factory.mktemp("marks") / "m.json")


def text_of(v: ReplayViewer) -> str:
    return "\n".join("".join(f[1] for f in line) for line in v.board_lines())


def list_of(v: ReplayViewer) -> str:
    return "".join(f[1] for f in v.move_list())


def test_turns_in_a_match_are_the_records(saved: Path) -> None:
    rec = record.load(saved)
    for seat in (0, 1):
        assert turns_in(load_replay(saved).match, seat) == turns_of(rec, seat)
    ts = turns_of(rec, 1)
    moves = load_replay(saved).match.moves
    for t in ts:  # each turn starts where its moves stand in the game
        assert tuple(moves[t.game - 1][t.start : t.start + len(t.moves)]) == t.moves


def test_m_reviews_my_seat_and_n_jumps_to_the_marks(saved: Path) -> None:
    r = load_replay(saved)
    mine = [t for t in turns_in(r.match, 1) if t.game == 1]
    bad = {(t.game, t.view.ply): t for t in (mine[2], mine[5])}
    seen: list[PlayerView] = []
    gate = threading.Event()

    def judge(view: PlayerView, moves: tuple[Move, ...]) -> TurnReview:
        gate.wait(30)  # (held until the test has seen the progress line)
        seen.append(view)
        t: Turn | None = bad.get((view.game, view.ply))
        if t is None:
            return TurnReview(moves, (), moves, (), 0.5, 0.5, 1)
        best = mine[0]  # (any turn's words will do for the better one)
        played = 0.48 if t is mine[2] else 0.3  # a mistake (12 points lost), a blunder (30)
        return TurnReview(moves, (), best.moves, best.cards, played, 0.6, 1)

    async def main_() -> None:
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24), me="bob", judge=judge)
            task = asyncio.create_task(v.run())
            inp.send_text("m")
            await until(lambda: v.marks.progress is not None and v.marks.progress[1] > 0, 30)
            assert "reviewing 0/" in text_of(v)
            inp.send_text("\x1b[C")  # the keys still work while it runs
            await until(lambda: r.pos == 1, 30)
            gate.set()
            async with asyncio.timeout(30):
                await v.marks.done.wait()
            assert {w.seat for w in seen} == {1}  # Bob's turns only, from Bob's view
            assert "2 marked turns" in text_of(v)
            inp.send_text("n")
            await until(lambda: r.pos == mine[2].start, 30)
            assert "? mistake: win chance 60% → 48%; better:" in text_of(v)
            assert f"Turn {mine[2].number}:" in text_of(v)
            assert " ?" in list_of(v)
            inp.send_text("n")
            await until(lambda: r.pos == mine[5].start, 30)
            assert "?? blunder: win chance 60% → 30%" in text_of(v) and " ??" in list_of(v)
            inp.send_text("N")
            await until(lambda: r.pos == mine[2].start, 30)
            assert "n N marks" in "".join(f[1] for f in v._toolbar())
            inp.send_text("q")
            async with asyncio.timeout(30):
                await task

    asyncio.run(main_())


def test_m_again_stops_the_review(saved: Path) -> None:
    r = load_replay(saved)
    gate = threading.Event()

    def judge(view: PlayerView, moves: tuple[Move, ...]) -> TurnReview:
        gate.wait(30)
        return TurnReview(moves, (), moves, (), 0.5, 0.5, 1)

    async def main_() -> None:
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24), judge=judge)
            task = asyncio.create_task(v.run())
            inp.send_text("m")
            await until(lambda: v.marks.running, 30)
            inp.send_text("m")
            await until(lambda: not v.marks.running, 30)
            gate.set()
            assert v.marks.progress is None and v.marks.judged is None
            assert "reviewing" not in text_of(v)
            inp.send_text("q")
            async with asyncio.timeout(30):
                await task

    asyncio.run(main_())


def test_m_with_the_real_review_judges_every_turn(tmp_path: Path) -> None:
    m = Match(bytes(range(32)), target=500, players=("Ann", "Bob"))
    play_match(m, [make_bot("easy", 0), make_bot("easy", 1)], max_games=1)
    r = load_replay(record.save(m, tmp_path / "one.json"))
    tiny = dataclasses.replace(REVIEW_FIXED, worlds=4, min_worlds=2)  # (no clock: deterministic)

    async def main_() -> None:
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(120, 40), review=tiny)
            task = asyncio.create_task(v.run())
            inp.send_text("m")
            async with asyncio.timeout(120):
                await v.marks.done.wait()
            judged = v.marks.judged
            assert judged is not None
            assert [j.turn for j in judged] == turns_in(r.match, 0)  # no me: seat 0
            assert all(j.review.worlds == 4 for j in judged)
            n = len(v.marks.marked())
            assert f"{n} marked turn" in text_of(v)
            inp.send_text("q")
            async with asyncio.timeout(30):
                await task

    asyncio.run(main_())


def test_leaving_the_viewer_stops_the_review(saved: Path) -> None:
    r = load_replay(saved)
    judged: list[int] = []
    gate = threading.Event()

    def judge(view: PlayerView, moves: tuple[Move, ...]) -> TurnReview:
        gate.wait(30)
        judged.append(view.ply)
        return TurnReview(moves, (), moves, (), 0.5, 0.5, 1)

    async def main_() -> None:
        with create_pipe_input() as inp:
            v = ReplayViewer(r, input=inp, output=SizedOutput(80, 24), judge=judge)
            task = asyncio.create_task(v.run())
            inp.send_text("m")
            await until(lambda: v.marks.running, 30)
            inp.send_text("q")
            async with asyncio.timeout(30):
                await task
            assert not v.marks.running
            gate.set()

    asyncio.run(main_())  # (waits for the executor's thread: it stops after one turn)
    assert len(judged) == 1
