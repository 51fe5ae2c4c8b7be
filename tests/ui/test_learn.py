"""``p2p-spite learn``: every lesson solved by its moves and refusing a wrong one (pure),
one lesson on the real full screen (pipe input), the line prompt, and Polish."""

from __future__ import annotations

import asyncio
import io
import os

import pytest
from prompt_toolkit.input import create_pipe_input

from p2p_spite.commands import cli
from p2p_spite.contracts import i18n
from p2p_spite.engine import CENTER, HAND, IllegalMoveError, Move, parse_card
from p2p_spite.engine.refusals import DoesNotFit, Refused
from p2p_spite.ui.learn import LessonApp, LessonSession, learn_lines
from p2p_spite.ui.lessons import STUDENT, Tutor, lessons
from p2p_spite.ui.text import card_label
from tests.support.ui import SizedOutput, run, texts, until


def _label(card: int) -> str:
    return f"<{card}>"


@pytest.mark.parametrize("n", range(len(lessons())))
def test_each_lesson_is_solved_by_its_moves(n: int) -> None:
    lesson = lessons()[n]
    assert lesson.solutions
    for solution in lesson.solutions:
        t = Tutor(lesson, n + 1)
        assert t.state.card_count() == 104
        assert t.state.game == n + 1
        for move in solution:
            assert not t.done
            assert t.next_move() is not None
            t.play(move, _label)
        assert t.done and t.next_move() is None
        assert t.state.result is None  # (a lesson never ends the game)


@pytest.mark.parametrize("n", range(len(lessons())))
def test_each_lesson_refuses_a_legal_move_off_it_and_changes_nothing(n: int) -> None:
    lesson = lessons()[n]
    t = Tutor(lesson, n + 1)
    on = {s[0] for s in lesson.solutions}
    off = [m for m in t.state.legal_moves() if m not in on]
    if not off:  # the discard lesson: every legal move solves it
        assert set(t.state.legal_moves()) == on
        return
    before = t.state.digest()
    with pytest.raises(IllegalMoveError) as e:
        t.play(off[0], _label)
    assert isinstance(e.value.why, Refused) and str(e.value.why)
    assert "{" not in str(e.value.why)  # its cards named
    assert t.state.digest() == before and t.played == []


def test_the_rules_refuse_first_with_their_own_reason() -> None:
    t = Tutor(lessons()[1], 2)  # center 1 needs a 3: the 9S does not fit
    nine = next(c for c in t.state.hands[STUDENT] if c % 13 == 8)
    with pytest.raises(IllegalMoveError) as e:
        t.play(Move(STUDENT, HAND, nine, CENTER, 0), _label)
    assert isinstance(e.value.why, DoesNotFit)


def test_a_move_is_taken_back_to_the_position_before_it() -> None:
    t = Tutor(lessons()[3], 4)  # the Queen completes center 1 (the stock shuffled), then the pay-off
    with pytest.raises(IllegalMoveError, match="no move"):
        t.take_back()
    first, second = lessons()[3].solutions[0]
    t.play(first, _label)
    after_first = t.state.digest()
    t.play(second, _label)
    assert t.done
    taken = t.take_back()
    assert taken.move == second and t.played == [first] and not t.done
    assert t.state.digest() == after_first


def test_the_blocking_lesson_says_why_the_five_is_wrong() -> None:
    t = Tutor(lessons()[6], 7)
    five = next(m for m in t.state.legal_moves() if m.slot == 0 and m.target == "center")
    with pytest.raises(IllegalMoveError, match="would let the computer play its pay-off card <"):
        t.play(five, _label)


def test_a_lesson_played_on_the_full_screen() -> None:
    async def main() -> None:
        session = LessonSession(("Ann", "Computer"), 1)
        with create_pipe_input() as inp:
            app = LessonApp(session, input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(app.run())
            try:
                await until(lambda: "Lesson 2 of 7: Build a center" in texts(app))
                assert "Lessons:" in texts(app) and "Lesson 2/7" in "".join(f[1] for f in app.board_text())
                inp.send_text("9s s1\r")  # a discard: off the lesson, refused with its words
                await until(lambda: "build center 1 first" in texts(app))
                inp.send_text("h1 c2\r")  # the rules' own refusal
                await until(lambda: "does not fit center 2" in texts(app))
                inp.send_text("3h c1\r")
                await until(lambda: len(session.tutor.played) == 1)
                inp.send_text("undo\r")  # taken back, as in a game
                await until(
                    lambda: f"You took back {card_label(parse_card('3H'))} from center 1" in texts(app)
                )
                assert session.tutor.played == [] and app.view is not None and len(app.view.hand) == 5
                for i, typed in enumerate(("3h c1", "4c c1", "5d c1", "p c1")):
                    inp.send_text(typed + "\r")
                    await until(lambda i=i: len(session.tutor.played) == i + 1)  # type: ignore[misc]
                await until(lambda: "Lesson solved." in texts(app))
                assert session.tutor.done
                inp.send_text("retry\r")  # again, from its start
                await until(lambda: session.tutor.played == [] and app.view is not None and app.view.ply == 0)
                inp.send_text("next\r")
                await until(lambda: "Lesson 3 of 7" in texts(app))
                assert "Lessons:" not in texts(app)  # (a new lesson, a clean pane)
                inp.send_text("hint\r")  # the lesson's move, not the strongest level's
                await until(lambda: "Hint: h5 c1" in texts(app))
                inp.send_text("\x03")  # Ctrl-C: leaves at once, nothing to lose
                async with asyncio.timeout(10):
                    await task
                assert not app.coach.wants_game and session.closed == "quit"
            finally:
                if not task.done():
                    app.app.exit()

    run(main())


def _lines_through(first: int, typed: str) -> tuple[bool, str]:
    out: list[str] = []

    async def main() -> bool:
        r, w = os.pipe()
        with os.fdopen(r, "r") as reader, os.fdopen(w, "w") as writer:
            writer.write(typed)
            writer.close()
            return await learn_lines(LessonSession(("Ann", "Computer"), first), out.append, stdin=reader)

    return run(main()), "\n".join(out)


def test_the_line_prompt_plays_the_last_lesson_and_offers_a_game() -> None:
    wants, said = _lines_through(6, "5d c1\np c2\n2d s4\ny\n")
    assert said.index("Lessons:") < said.index("Lesson 7 of 7: Block your opponent")
    two, five = card_label(parse_card("2D")), card_label(parse_card("5D"))
    assert f"hand: h1 {two}" in said  # the game's own board
    assert f"5d c1: not played: {five} on center 1 would let the computer" in said
    assert "Lesson solved." in said and "That was the last lesson." in said
    assert "Play a first game against the computer (easy)? [y/N]" in said
    assert wants is True


def test_the_line_prompt_says_no_game_when_the_input_ends() -> None:
    wants, said = _lines_through(0, "p c1\n\nlessons\n")
    assert "Lesson 2 of 7" in said and wants is False


def test_learn_speaks_polish(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("TERM", "dumb")
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    try:
        assert cli.main(["learn", "--lang", "pl", "--lesson", "3", "--name", "Ann"]) == 0
    finally:
        i18n.setup("en")
    out = capsys.readouterr().out
    assert "Lekcja 3 z 7" in out and "król" in out.lower()


def test_learn_refuses_a_lesson_that_is_not_there(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["learn", "--lesson", "8"])
    assert e.value.code == 2 and "at most 7" in capsys.readouterr().err


def test_yes_at_the_end_starts_a_game_against_easy(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2p_spite.commands import lan
    from p2p_spite.ui import learn

    started: list[tuple[object, ...]] = []

    def run_play(*args: object) -> int:
        started.append(args)
        return 0

    monkeypatch.setattr(learn, "run_learn", lambda name, first: first == 6 and name == "Ann")
    monkeypatch.setattr(lan, "run_play", run_play)
    assert cli.main(["learn", "--lesson", "7", "--name", "Ann"]) == 0
    assert started == [("easy", None, "Ann", 50, None)]
    assert cli.main(["learn", "--name", "Ann"]) == 0  # (no: no game)
    assert len(started) == 1
