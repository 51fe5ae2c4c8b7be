"""``p2p-spite review``: a record's turns of one seat, each judged from that seat's view.

The record is replayed (``record.verify``, a private-deck one from its revealed decks);
at the start of each of the seat's turns its :class:`PlayerView` is taken, with the moves
it made and the cards they moved (its own, seen by it).  Each turn goes to
:func:`p2p_spite.bots.review.review_turn`, which sees that view and those moves only.
The words are :mod:`p2p_spite.ui.review`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine import SIDE, Card, GameState, Match, Move, PlayerView, move_from_json, view
from ..storage import record as recordmod
from .review import MARKS, REVIEW, ReviewConfig, TurnReview, review_turn


@dataclass(frozen=True, slots=True)
class Turn:
    """One of the seat's turns: ``game``, its ``number`` in the game (both seats' turns,
    from 1), the seat's view at its start, its moves and the cards they moved, and where
    it starts among the game's moves."""

    game: int
    number: int
    view: PlayerView
    moves: tuple[Move, ...]
    cards: tuple[Card, ...]
    start: int = 0  # how many moves of the game came before it


@dataclass(frozen=True, slots=True)
class Judged:
    turn: Turn
    review: TurnReview


@dataclass
class Summary:
    """A game's or the match's turns summed up."""

    turns: int = 0
    accuracy: float = 100.0  # the mean of the turns' accuracies (lichess's per-move formula)
    marks: dict[str, int] = field(default_factory=lambda: dict.fromkeys(MARKS, 0))
    swings: list[Judged] = field(default_factory=list)  # the biggest losses, worst first
    lost: float = 0.0  # the mean win chance lost per turn (0..1)


class _Turns:
    """The seat's turns, collected move by move (each seen before it is applied)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.turns: list[Turn] = []
        self.cur: list[Any] | None = None  # [game, number, view, moves, cards, start]
        self.at = [0, 0, -1, 0]  # game, turn number, seat on turn, moves so far in the game

    def see(self, state: GameState, m: Move) -> None:
        at = self.at
        if at[0] != state.game or at[2] != state.turn:
            if at[0] != state.game:
                at[0], at[1], at[3] = state.game, 0, 0
            at[1] += 1
            at[2] = state.turn
            self._flush()
            if state.turn == self.seat:
                self.cur = [state.game, at[1], view(state, self.seat), [], [], at[3]]
        if self.cur is not None:
            self.cur[3].append(m)
            self.cur[4].append(state.card_of(m))
        at[3] += 1

    def _flush(self) -> None:
        c = self.cur
        if c is not None:
            self.turns.append(Turn(c[0], c[1], c[2], tuple(c[3]), tuple(c[4]), c[5]))
            self.cur = None

    def close(self, game: int, over: bool) -> list[Turn]:
        """The turns, the last one only if it ended (``game``: the last game, ``over``: it ended)."""
        c = self.cur
        if c is not None and ((over and game == c[0]) or c[3][-1].target == SIDE or c[0] < game):
            self._flush()
        return self.turns


def turns_of(rec: recordmod.Record, seat: int) -> list[Turn]:
    """The seat's finished turns in ``rec`` (verified; RecordError if it does not replay)."""
    col = _Turns(seat)

    def watch(state: GameState, raw: list[Any]) -> None:
        col.see(state, move_from_json(raw))

    match = recordmod.verify(rec, in_play=True, keep_all=False, watch=watch)
    return col.close(match.game.game, match.game.result is not None)


def turns_in(match: Match, seat: int) -> list[Turn]:
    """The seat's finished turns in a verified ``match`` (all its games kept)."""
    col = _Turns(seat)
    for g, moves in enumerate(match.moves, 1):
        st = match.fresh_game(g)
        for m in moves:
            col.see(st, m)
            st.apply(m)
    return col.close(len(match.moves), bool(match.results) and match.results[-1] is not None)


def seat_named(rec: recordmod.Record, name: str) -> int | None:
    """The seat of the player called ``name`` in ``rec`` (None: no such player)."""
    from ..contracts.plaintext import clean_name

    for seat, n in enumerate(rec.players):
        if n == name or clean_name(n) == name:
            return seat
    return None


def run_review(
    turns: list[Turn],
    config: ReviewConfig = REVIEW,
    progress: Callable[[int, int], None] | None = None,
    judge: Callable[[PlayerView, tuple[Move, ...]], TurnReview] | None = None,
) -> list[Judged]:
    """Judge every turn (``progress(done, total)`` after each; ``judge``: instead of
    :func:`review_turn` with ``config``)."""
    out: list[Judged] = []
    for k, t in enumerate(turns, 1):
        r = judge(t.view, t.moves) if judge is not None else review_turn(t.view, t.moves, config)
        out.append(Judged(t, r))
        if progress is not None:
            progress(k, len(turns))
    return out


def summary(judged: list[Judged], swings: int = 3) -> Summary:
    s = Summary(turns=len(judged))
    if not judged:
        return s
    s.accuracy = sum(j.review.accuracy for j in judged) / len(judged)
    s.lost = sum(j.review.loss for j in judged) / len(judged)
    for j in judged:
        mark = j.review.mark
        if mark is not None:
            s.marks[mark] += 1
    worst = sorted((j for j in judged if j.review.mark is not None), key=lambda j: -j.review.loss)
    s.swings = worst[:swings]
    return s


def by_game(judged: list[Judged]) -> dict[int, list[Judged]]:
    games: dict[int, list[Judged]] = {}
    for j in judged:
        games.setdefault(j.turn.game, []).append(j)
    return games


def notation(moves: tuple[Move, ...]) -> list[str]:
    """Moves in the game's notation, hand cards by name (``7h c1``, ``p c2``, ``kd s3``)."""
    from ..ui.notation import move_notation

    return [move_notation(m, ()) for m in moves]


def as_json(judged: list[Judged], seat: int, path: Path) -> dict[str, Any]:
    """``review --json``: one object per turn under ``turns``, the summaries beside."""

    def summed(s: Summary) -> dict[str, Any]:
        return {
            "turns": s.turns,
            "accuracy": round(s.accuracy, 1),
            "win_lost_per_turn": round(s.lost, 4),
            "marks": s.marks,
            "swings": [{"game": j.turn.game, "turn": j.turn.number} for j in s.swings],
        }

    return {
        "record": str(path),
        "seat": seat,
        "turns": [
            {
                "seat": seat,
                "game": j.turn.game,
                "turn": j.turn.number,
                "played": notation(j.turn.moves),
                "judged": len(j.review.played),
                "best": notation(j.review.best),
                "win_best": round(j.review.win_best, 4),
                "win_played": round(j.review.win_played, 4),
                "mark": j.review.mark,
                "worlds": j.review.worlds,
            }
            for j in judged
        ],
        "games": [{"game": g, **summed(summary(js))} for g, js in by_game(judged).items()],
        "match": summed(summary(judged)),
    }


__all__ = [
    "Judged",
    "Summary",
    "Turn",
    "as_json",
    "by_game",
    "run_review",
    "seat_named",
    "summary",
    "turns_in",
    "turns_of",
]
