"""Every language on the real game screen (prompt_toolkit on a pipe): the board fits
80x24 and the compact board 40x13 with nothing cut, the help shows whole at 80x24, a
refusal and the moves come in the language, the questions fit a narrow move line."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from p2p_spite.contracts import i18n
from p2p_spite.engine import CENTER, SIDE
from p2p_spite.ui import board, screen
from p2p_spite.ui.app import help_lines
from p2p_spite.ui.board import Line, width_of
from p2p_spite.ui.notation import move_notation
from tests.support.ui import LocalSession, find_seed, run, running, texts, until

LANGS = ("en", "tl", "ms", "pl", "es")


def _text(line: Line) -> str:
    return "".join(f[1] for f in line)


@pytest.fixture
def no_cuts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The board's lines that :func:`board.clip` had to cut (losing more than blanks)."""
    cut: list[str] = []
    real = board.clip

    def clip(line: Line, width: int) -> Line:
        out = real(line, width)
        lost = _text(line)[len(_text(out)) :]
        if lost.strip():
            cut.append(_text(line))
        return out

    monkeypatch.setattr(board, "clip", clip)
    return cut


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("cols", "rows"), [(80, 24), (40, 13), (60, 18), (100, 34)])
def test_the_board_fits_in_every_language(lang: str, cols: int, rows: int, no_cuts: list[str]) -> None:
    i18n.setup(lang)

    async def main() -> None:
        s = LocalSession(find_seed(0), names=("Alice", "Computer"))
        async with running(s, cols=cols, rows=rows) as (app, inp):
            assert not app.too_small()
            lines = app.board_lines()
            assert all(width_of(line) <= cols for line in lines)
            text = "\n".join(_text(line) for line in lines)
            assert "Computer" in _text(lines[0]) and i18n._("You") in _text(lines[0])  # names whole
            assert i18n._("Stock") in text and i18n._("Hand") in text
            assert ("c1" in text and "c3" in text and "h1" in text) or cols >= 80
            bar = screen.toolbar(app)
            assert width_of(bar) <= cols and f"^C {i18n._('quit')}" in _text(bar)
            move = next(m for m in app.view.legal_moves() if m.target == SIDE)  # type: ignore[union-attr]
            inp.send_text(move_notation(move, app.shown_hand()) + "\r")
            await until(lambda: s.sent == [move])
            assert all(width_of(line) <= cols for line in app.board_lines())

    run(main())
    assert no_cuts == []


@pytest.mark.parametrize("lang", LANGS)
def test_the_help_shows_whole_at_80x24(lang: str) -> None:
    i18n.setup(lang)

    async def main() -> None:
        async with running(LocalSession(find_seed(0)), cols=80, rows=24) as (app, inp):
            inp.send_text(i18n._("help") + "\r")
            last = help_lines()[-1]
            await until(lambda: any(last in _text(m) for m in app.log.messages))
            await asyncio.sleep(0.05)
            pane = "".join(f[1] for f in app.message_text())
            assert all(line in pane for line in help_lines()), pane
            assert all(len(line) <= 76 for line in help_lines())

    run(main())


@pytest.mark.parametrize("lang", LANGS)
def test_a_refusal_comes_with_its_reason_in_the_language(lang: str) -> None:
    i18n.setup(lang)

    async def main() -> None:
        s = LocalSession(find_seed(0), names=("Alice", "Bob"))
        async with running(s, cols=80, rows=24) as (app, inp):
            v: Any = app.view
            bad = next(
                m for m in _all_center_moves(v) if v.check(m) is not None
            )  # a hand card that does not fit
            typed = move_notation(bad, app.shown_hand())
            inp.send_text(typed + "\r")
            await until(lambda: typed + ": " in texts(app))
            said = next(line for line in texts(app).splitlines() if line.startswith(typed + ":"))
            expected = {
                "en": "does not fit center",
                "tl": "hindi bagay",
                "ms": "tidak sesuai",
                "pl": "nie pasuje",
                "es": "no encaja",
            }[lang]
            assert expected in said, said
            assert s.sent == []

    run(main())


def _all_center_moves(v: Any) -> list[Any]:
    from p2p_spite.engine import HAND, Move

    return [Move(v.seat, HAND, card, CENTER, c) for card in v.hand for c in range(3)]


@pytest.mark.parametrize("lang", LANGS)
def test_the_questions_fit_a_narrow_move_line_and_take_the_languages_yes(lang: str) -> None:
    i18n.setup(lang)
    yes = {"en": "y", "tl": "o", "ms": "y", "pl": "t", "es": "s"}[lang]

    async def main() -> None:
        s = LocalSession(find_seed(0), names=("Alice", "Bob"))
        async with running(s, cols=40, rows=13) as (app, inp):
            inp.send_text(i18n._("quit").split()[0] + "\r")
            await until(lambda: app.confirm is not None)
            shown = _text(screen.prompt_text(app))
            assert len(shown) <= 40 and f"[{yes}/" in shown.lower()
            inp.send_text(yes + "\r")
            await until(lambda: app.exit_reason == "quit")

    run(main())


@pytest.mark.parametrize("lang", LANGS)
def test_the_move_lines_hint_keeps_whole_words(lang: str) -> None:
    i18n.setup(lang)

    async def main() -> None:
        for cols in (40, 52, 80):
            async with running(LocalSession(find_seed(0)), cols=cols, rows=24) as (app, _inp):
                full = i18n._("a move like h3 c1 (Tab lists them), or help")
                shown = screen.placeholder(app)
                assert width_of(screen.prompt_text(app)) + len(shown) < cols
                assert full.startswith(shown) and (shown == full or full[len(shown)] in " ,")
                assert shown.count("(") == shown.count(")") and len(shown.split()) >= 2

    run(main())


@pytest.mark.parametrize("lang", LANGS)
def test_the_line_prompts_help_breaks_between_words_for_80_columns(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2p_spite.ui import lineplay
    from p2p_spite.ui import text as plain

    i18n.setup(lang)
    try:
        text = lineplay.help_text()
        assert max(map(len, text.splitlines())) <= plain.LINE_WIDTH < 80
        monkeypatch.setattr(plain, "LINE_WIDTH", 10_000)
        assert text.split() == lineplay.help_text().split()  # every word whole, in order
    finally:
        i18n.setup("en")


def test_a_long_line_of_the_prompt_breaks_between_words_under_its_mark() -> None:
    from p2p_spite.ui.text import LINE_WIDTH, wrapped

    words = " ".join(["Środek"] * 30)
    lines = wrapped(words, "-- ").splitlines()
    assert len(lines) > 1 and all(len(line) <= LINE_WIDTH for line in lines)
    assert lines[0].startswith("-- Środek") and all(line.startswith("   Środek") for line in lines[1:])
    assert " ".join(lines).split() == ["--", *words.split()]
    assert wrapped("x" * 200, "-- ") == "-- " + "x" * 200  # nowhere to break: left whole
    assert wrapped("short\nlines", "== ") == "== short\n   lines"
