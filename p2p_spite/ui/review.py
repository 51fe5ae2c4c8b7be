"""``p2p-spite review`` in words: each marked turn with the better one, then the summaries."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from ..bots.review import BLUNDER, INACCURACY, MISTAKE
from ..bots.turns import Judged, Summary, by_game, summary
from ..contracts.i18n import _, ngettext
from .words import turn_words


def mark_word(mark: str) -> str:
    return {INACCURACY: _("inaccuracy"), MISTAKE: _("mistake"), BLUNDER: _("blunder")}[mark]


SIGNS = {INACCURACY: "?!", MISTAKE: "?", BLUNDER: "??"}  # as chess annotates a move


def mark_note(j: Judged) -> str:
    """A marked turn on one line for the replay viewer: the mark, the win chances, the better turn."""
    r = j.review
    assert r.mark is not None
    return _("{sign} {mark}: win chance {best} → {played}; better: {moves}").format(
        sign=SIGNS[r.mark],
        mark=mark_word(r.mark),
        best=_pct(r.win_best),
        played=_pct(r.win_played),
        moves=turn_words(r.best, r.best_cards),
    )


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def turn_lines(j: Judged) -> list[str]:
    """A marked turn: what was played, the better turn, and the win chances."""
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
    lines.append("  " + _("better: {moves}").format(moves=turn_words(r.best, r.best_cards)))
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


def print_review(judged: list[Judged], head: str, out: TextIO) -> None:
    print(head, file=out)
    for g, js in by_game(judged).items():
        for j in js:
            if j.review.mark is not None:
                for line in turn_lines(j):
                    print(line, file=out)
        print(summary_line(summary(js), _("Game {game}").format(game=g)), file=out)
    print(summary_line(summary(judged), _("Match")), file=out)


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


__all__ = ["SIGNS", "mark_note", "mark_word", "print_review", "progress_bar", "summary_line", "turn_lines"]
