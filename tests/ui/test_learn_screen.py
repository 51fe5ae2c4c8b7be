"""Issue 47, seen in tmux: the tutorial's screen speaks of lessons, not games.

The header names the lesson (``Lekcja 1/7``), and once a lesson is solved the move line
offers the next lesson, retry or quit: no "next game", and no chat (a lesson has no one
to chat with)."""

from __future__ import annotations

import asyncio

from prompt_toolkit.input import PipeInput, create_pipe_input

from p2p_spite.contracts import i18n
from p2p_spite.ui import screen
from p2p_spite.ui.learn import LessonApp, LessonSession
from tests.support.ui import SizedOutput, run, texts, until


def test_a_solved_lesson_offers_the_next_lesson_in_polish() -> None:
    i18n.setup("pl")

    def header(app: LessonApp) -> str:
        return "".join(f[1] for f in app.board_lines()[0])

    async def drive(app: LessonApp, inp: PipeInput) -> None:
        await until(lambda: "Lekcja 1 z 7" in texts(app))
        assert header(app).startswith(" Lekcja 1/7 ") and "Partia" not in header(app), header(app)
        inp.send_text("p c1\r")
        await until(lambda: "Lekcja rozwiązana." in texts(app))
        prompt = "".join(f[1] for f in screen.prompt_text(app))
        assert prompt.startswith("Enter: następna lekcja"), prompt
        hint = screen.placeholder(app)
        assert hint == "albo ponów, albo wyjdź" and "czat" not in hint
        inp.send_text("\r")
        await until(lambda: "Lekcja 2 z 7" in texts(app))
        assert header(app).startswith(" Lekcja 2/7 ")

    async def main() -> None:
        with create_pipe_input() as inp:
            app = LessonApp(LessonSession(("Ala", "Komputer"), 0), input=inp, output=SizedOutput(80, 24))
            done = asyncio.create_task(app.run())
            try:
                await drive(app, inp)
            finally:
                inp.send_text("\x03")  # Ctrl-C: the lessons end at once
                async with asyncio.timeout(10):
                    await done

    run(main())
