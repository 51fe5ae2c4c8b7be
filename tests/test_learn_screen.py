"""Issue 47, seen in tmux: the tutorial's screen speaks of lessons, not games.

The header names the lesson (``Lekcja 1/7``), and once a lesson is solved the move line
offers the next lesson, retry or quit: no "next game", and no chat (a lesson has no one
to chat with)."""

from __future__ import annotations

import asyncio

from prompt_toolkit.input import create_pipe_input

from p2p_spite import i18n
from p2p_spite.ui import screen
from p2p_spite.ui.learn import LessonApp, LessonSession
from tests.support.ui import SizedOutput, run, texts, until


def test_a_solved_lesson_offers_the_next_lesson_in_polish() -> None:
    i18n.setup("pl")

    async def main() -> None:
        session = LessonSession(("Ala", "Komputer"), 0)
        with create_pipe_input() as inp:
            app = LessonApp(session, input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(app.run())
            try:
                await until(lambda: "Lekcja 1 z 7" in texts(app))
                header = "".join(f[1] for f in app.board_lines()[0])
                assert header.startswith(" Lekcja 1/7 ") and "Partia" not in header, header
                inp.send_text("p c1\r")
                await until(lambda: "Lekcja rozwiązana." in texts(app))
                prompt = "".join(f[1] for f in screen.prompt_text(app))
                assert prompt.startswith("Enter: następna lekcja"), prompt
                hint = screen.placeholder(app)
                assert hint == "albo ponów, albo wyjdź" and "czat" not in hint
                inp.send_text("\r")
                await until(lambda: "Lekcja 2 z 7" in texts(app))
                assert "".join(f[1] for f in app.board_lines()[0]).startswith(" Lekcja 2/7 ")
                inp.send_text("\x03")
                async with asyncio.timeout(10):
                    await task
            finally:
                if not task.done():
                    app.app.exit()

    run(main())
