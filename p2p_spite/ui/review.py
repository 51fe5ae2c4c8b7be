"""``p2p-spite review`` in words: each marked turn with the better one, then the summaries."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import TextIO

from ..bots.reasons import explain
from ..bots.review import BLUNDER, INACCURACY, MISTAKE
from ..bots.turns import Judged, Summary, by_game, summary
from ..contracts.i18n import _, ngettext
from .words import reasons_words, turn_words


def mark_word(mark: str) -> str:
    return {INACCURACY: _("inaccuracy"), MISTAKE: _("mistake"), BLUNDER: _("blunder")}[mark]


SIGNS = {INACCURACY: "?!", MISTAKE: "?", BLUNDER: "??"}  # as chess annotates a move


def better_why(j: Judged, opponent: str, most: int = 3) -> str:
    """Why the better turn, in the game's words (the same reasons as ``hint``'s; "": none
    found): what it does from the turn's view (the weightiest ``most``), and what the turn
    played did wrong."""
    r = j.review
    why = explain(j.turn.view, r.best, r.best_cards, r.played, r.played_cards)
    return reasons_words(why, opponent, played=True, most=most)


def mark_note(j: Judged, opponent: str) -> str:
    """A marked turn on one line for the replay viewer: the mark, the win chances, the
    better turn and why (``opponent``: the other player's name)."""
    r = j.review
    assert r.mark is not None
    f = {
        "sign": SIGNS[r.mark],
        "mark": mark_word(r.mark),
        "best": _pct(r.win_best),
        "played": _pct(r.win_played),
        "moves": turn_words(r.best, r.best_cards),
    }
    why = better_why(j, opponent, most=2)  # (the viewer's few lines under the board)
    if why:
        return _("{sign} {mark}: win chance {best} → {played}; better: {moves}: {why}").format(why=why, **f)
    return _("{sign} {mark}: win chance {best} → {played}; better: {moves}").format(**f)


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def turn_lines(j: Judged, opponent: str) -> list[str]:
    """A marked turn: what was played, the better turn and why, and the win chances
    (``opponent``: the other player's name)."""
    r, t = j.review, j.turn
    assert r.mark is not None
    head = _("Game {game}, turn {turn}: {mark}, win chance {best} → {played}").format(
        game=t.game, turn=t.number, mark=mark_word(r.mark), best=_pct(r.win_best), played=_pct(r.win_played)
    )
    played = turn_words(t.moves, t.cards)
    lines = [head, "  " + _("played: {moves}").format(moves=played)]
    n = len(r.played)
    if n < len(t.moves):
        if n == 1:
            why = _("(judged on its first move: a new card turned up after it)")
        else:
            why = ngettext(
                "(judged on its first {n} move: a new card turned up after them)",
                "(judged on its first {n} moves: a new card turned up after them)",
                n,
            ).format(n=n)
        lines.append("  " + why)
    better, why = turn_words(r.best, r.best_cards), better_why(j, opponent)
    if why:
        text = _("better: {moves}: {why} (win chance {played} → {best})").format(
            moves=better, why=why, played=_pct(r.win_played), best=_pct(r.win_best)
        )
    else:
        text = _("better: {moves}").format(moves=better)
    lines.append("  " + text)
    return lines


def summary_line(s: Summary, label: str) -> str:
    marks = ", ".join(
        [
            ngettext("{n} inaccuracy", "{n} inaccuracies", s.marks[INACCURACY]).format(n=s.marks[INACCURACY]),
            ngettext("{n} mistake", "{n} mistakes", s.marks[MISTAKE]).format(n=s.marks[MISTAKE]),
            ngettext("{n} blunder", "{n} blunders", s.marks[BLUNDER]).format(n=s.marks[BLUNDER]),
        ]
    )
    turns = ngettext("{n} turn", "{n} turns", s.turns).format(n=s.turns)
    line = _("{label}: {turns}, accuracy {accuracy}%, {marks}").format(
        label=label, turns=turns, accuracy=f"{s.accuracy:.0f}", marks=marks
    )
    if s.swings:
        swings = ", ".join(
            _("game {game} turn {turn} (-{lost})").format(
                game=j.turn.game, turn=j.turn.number, lost=_pct(j.review.loss)
            )
            for j in s.swings
        )
        line += "; " + _("biggest swings: {list}").format(list=swings)
    return line


def print_review(
    judged: list[Judged], head: str, out: TextIO, opponent: str, width: int | None = None
) -> None:
    """The review in words on ``out`` (``opponent``: the other player's name; ``width``:
    the lines broken between words to fit it, their continuations indented; None: one
    line each, as a file or a pipe takes them)."""

    def say(line: str) -> None:
        if width is not None and len(line) > width:
            lead = " " * (len(line) - len(line.lstrip()) + 2)
            line = textwrap.fill(
                line, width, subsequent_indent=lead, break_long_words=False, break_on_hyphens=False
            )
        print(line, file=out)

    say(head)
    for g, js in by_game(judged).items():
        for j in js:
            if j.review.mark is not None:
                for line in turn_lines(j, opponent):
                    say(line)
        say(summary_line(summary(js), _("Game {game}").format(game=g)))
    say(summary_line(summary(judged), _("Match")))


def progress_bar(out: TextIO) -> Callable[[int, int], None]:
    """A bar on ``out`` (a terminal), redrawn after each turn and cleared at the end."""

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // max(total, 1)
        text = _("reviewing {done}/{total} turns").format(done=done, total=total)
        bar = "#" * filled + "-" * (width - filled)
        print(f"\r[{bar}] {text}", end="", file=out, flush=True)
        if done >= total:
            print("\r\x1b[K", end="", file=out, flush=True)

    return show


__all__ = [
    "SIGNS",
    "better_why",
    "mark_note",
    "mark_word",
    "print_review",
    "progress_bar",
    "summary_line",
    "turn_lines",
]
